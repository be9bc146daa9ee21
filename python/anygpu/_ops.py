"""Operators and numpy-like functions on Arrays: elementwise arithmetic with numpy's dtype
promotion, comparisons, reductions, products (BLAS), conversions, views and indexing, and
creation helpers. Every call runs on the NULL queue (the calling thread's default queue of the
operands' device) and allocates its result with ``empty``.

dtypes follow numpy 1.24 for arrays of anygpu's dtypes (bool, int8 to int64, uint8 to uint64,
float32, float64, complex64, complex128), with these differences:

- a result numpy would give in a dtype anygpu lacks (float16) is UnsupportedError naming it;
- an integer array with a float scalar, true division of integers, the functions of floats
  (sqrt, exp, log, sin, cos, tan to log10) of integers, and arctan2, hypot, copysign and
  logaddexp of integers give float64 (numpy gives float16 or float32 for small integer types);
  with a complex scalar, complex128. On a device without double precision that is
  UnsupportedError;
- floor, ceil and trunc of integers keep the integer dtype, as the array API standard says
  (numpy 1.24 gives floats);
- bool arrays take comparisons, where, astype, copies and &, |, ^ and ~ (as logic), not arithmetic
  or shifts (numpy's bool + bool
  is a logical or): UnsupportedError;
- reductions over every element (axis=None) give 0-d Arrays, as the standard's; integer sums
  there are exact, wrapped as numpy's int64 or uint64 total is (means of integers: that total
  over the count, in float64; dot and vdot of integer
  vectors: the exact value, where numpy wraps in the input's dtype). Integer sums into an
  Array are int64 (signed input) or uint64, as numpy's, and argmin/argmax give int64.

A failure is an AnygpuError whose message starts with the function or method the caller called
(_lib.py says how); a function here words its own refusals under its own name, which that
replaces.
"""

import builtins
import ctypes
import numbers
import operator

import numpy

from ._core import MAX_DIMS, Array, _length, _resolve_device, _shape_arg, asarray, dtype_code, empty
from ._lib import DTYPES, InvalidArgumentError, c_size_p, error, fn, named

__all__ = [
    "add", "subtract", "multiply", "divide", "true_divide", "power", "minimum", "maximum",
    "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert",
    "bitwise_left_shift", "bitwise_right_shift",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "negative", "abs", "absolute", "sqrt", "exp", "log", "sin", "cos", "square", "sign",
    "conj", "conjugate", "real", "imag", "where", "clip",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "expm1", "log1p",
    "log2", "log10", "floor", "ceil", "trunc", "round", "isnan", "isinf", "isfinite", "signbit",
    "atan2", "hypot", "copysign", "logaddexp", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "arctan2", "logical_and", "logical_or", "logical_xor", "logical_not", "positive",
    "sum", "prod", "mean", "min", "max", "amin", "amax", "argmin", "argmax",
    "dot", "vdot", "matmul", "astype", "reshape", "ravel", "transpose", "permute_dims", "broadcast_to",
    "expand_dims", "squeeze", "flip",
    "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
]

_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_i, _d, _b = ctypes.c_int, ctypes.c_double, ctypes.c_bool

_unary = fn("ag_unary", [_p, _i, _p, _p])
_binary = fn("ag_binary", [_p, _i, _p, _p, _p])
_binary_scalar = fn("ag_binary_scalar", [_p, _i, _p, _d, _d, _b, _p])
_where = fn("ag_where", [_p, _p, _p, _p, _p])
_clamp = fn("ag_clamp", [_p, _p, _d, _d, _p])
_astype = fn("ag_astype", [_p, _p, _p])
_copy = fn("ag_copy", [_p, _p, _p])
_fill_complex = fn("ag_fill_complex", [_p, _p, _d, _d])
_reshape = fn("ag_array_reshape", [_p, _i, c_size_p, _pp])
_index = fn("ag_array_index", [_p, ctypes.c_size_t, _pp])
_slice = fn("ag_array_slice", [_p, ctypes.c_size_t, ctypes.c_size_t, _pp])


class _Index(ctypes.Structure):
    """ag_index (anygpu/array.h): one entry of a basic index."""
    _fields_ = [("kind", ctypes.c_int), ("start", ctypes.c_int64), ("stop", ctypes.c_int64), ("step", ctypes.c_int64)]


_INDEX_SLICE, _INDEX_INT, _INDEX_NEWAXIS, _INDEX_ELLIPSIS = range(4)
_INDEX_NONE = -2 ** 63
_array_view = fn("ag_array_view", [_p, _i, ctypes.POINTER(_Index), _pp])
_permute = fn("ag_array_permute", [_p, ctypes.POINTER(_i), _pp])
_broadcast_view = fn("ag_array_broadcast_to", [_p, _i, c_size_p, _pp])
_expand_dims = fn("ag_array_expand_dims", [_p, _i, _pp])
_squeeze = fn("ag_array_squeeze", [_p, _i, ctypes.POINTER(_i), _pp])
_flip = fn("ag_array_flip", [_p, _i, ctypes.POINTER(_i), _pp])
_reductions_axes = {name: fn("ag_%s_axes" % name, [_p, _p, _i, ctypes.POINTER(_i), _p])
                    for name in ("sum", "prod", "mean", "min", "max")}
_reductions = {name: fn("ag_" + name, [_p, _p, _i, _p])
               for name in ("sum", "mean", "min", "max", "argmin", "argmax", "prod")}
_WITH_DTYPE = ("sum", "prod", "mean")  # the reductions that take numpy's dtype=
_dot = fn("ag_dot", [_p, _p, _p, _i, _p])
_blas_dot = fn("ag_blas_dot", [_p, _p, _p, _b, _p])
_gemm = fn("ag_gemm", [_p, _i, _i, _d, _p, _p, _d, _p])
_gemv = fn("ag_gemv", [_p, _i, _d, _p, _p, _d, _p])
_compare = fn("ag_compare", [_p, _i, _p, _p, _p])
_compare_scalar = fn("ag_compare_scalar", [_p, _i, _p, _d, _d, _b, _p])

AXIS_ALL = -1
# In the order of ag_unary_op and ag_binary_op (anygpu/ops.h): a name's index is its op's value.
UNARY = ["negative", "abs", "sqrt", "exp", "log", "sin", "cos", "square", "sign", "conj", "real", "imag",
         "bitwise_invert",
         "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "expm1", "log1p",
         "log2", "log10", "floor", "ceil", "trunc", "round", "isnan", "isinf", "isfinite", "signbit"]
BINARY = ["add", "subtract", "multiply", "divide", "power", "minimum", "maximum",
          "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
          "bitwise_left_shift", "bitwise_right_shift", "atan2", "hypot", "copysign", "logaddexp"]
# The binary operations of floats only, which take integer operands as float64 (numpy's divide,
# arctan2, hypot...).
_BINARY_FLOAT = ("divide", "atan2", "hypot", "copysign", "logaddexp")
# The operations that take bool operands as logic, and so Python's True and False as scalars.
_LOGICAL = ("bitwise_and", "bitwise_or", "bitwise_xor")
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
_INT_KINDS = "ui"
_DOUBLE = ("float64", "complex128")


def _view(call, *args):
    ptr = ctypes.c_void_p()
    call(*args, ctypes.byref(ptr))
    return Array(ptr.value)


# ---- dtypes ----------------------------------------------------------------------------------

def _check_dtype(dt, dev, who):
    """@dt as a numpy dtype anygpu has, computable on @dev, else UnsupportedError."""
    dt = numpy.dtype(dt)
    if dt.name not in DTYPES:
        raise error("AG_ERR_UNSUPPORTED", "%s: the result would be %s, which anygpu has no dtype for"
                    % (who, dt.name))
    if dt.name in _DOUBLE and not dev.fp64:
        raise error("AG_ERR_UNSUPPORTED", "%s: the result is %s, and %s has no double precision"
                    % (who, dt.name, dev.spec))
    return dt


def _is_scalar(x):
    return isinstance(x, (numbers.Number, numpy.generic)) and not isinstance(x, (bool, numpy.bool_))


def _scalar_dtype(x, s, who):
    """The result dtype of Array @x with scalar @s (module docstring)."""
    if isinstance(s, (complex, numpy.complexfloating)):
        if x.dtype.kind == "c":
            return x.dtype
        return numpy.dtype("complex64" if x.dtype == numpy.float32 else "complex128")
    if isinstance(s, (float, numpy.floating)):
        return x.dtype if x.dtype.kind in "fc" else numpy.dtype("float64")
    if x.dtype.kind in _INT_KINDS:
        # The standard's rule: an integer that x's dtype holds keeps that dtype (i8 >> 1 is i8).
        # One it does not hold widens as numpy 1.24's value-based rule does (u8 + 300 -> u16,
        # u8 + -1 -> i16, i8 + 300 -> i16; u64 + -1 -> float64), worked out here so that numpy
        # 2, which has no such rule, gives the same dtypes.
        v = int(s)
        signed = x.dtype.kind == "i" or v < 0
        for bits in (8, 16, 32, 64):
            dt = numpy.dtype(("int%d" if signed else "uint%d") % bits)
            wide = bits > 8 * x.dtype.itemsize if signed and x.dtype.kind == "u" else bits >= 8 * x.dtype.itemsize
            if wide and numpy.iinfo(dt).min <= v <= numpy.iinfo(dt).max:
                return dt
        return numpy.result_type(x.dtype, numpy.min_scalar_type(v))
    return x.dtype


def _float_of_int(dt):
    return numpy.dtype("float64") if dt.kind in _INT_KINDS else dt


def _operand(x, dev, who, name):
    if isinstance(x, Array):
        return x
    if isinstance(x, (numpy.ndarray, list, tuple, numbers.Number, numpy.generic)):
        return asarray(x, device=dev)  # a number: a 0-d Array, as numpy takes one
    raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is a %s, not an Array, array or number"
                % (who, name, type(x).__name__))


def _as(x, dt):
    return x if x.dtype == dt else astype(x, dt)


def _pair(a, b, who, op=None, out_dtype=None):
    """Operands of a binary operation @op, as (x, y, swapped, dtype): x an Array, y a scalar
    or an Array of x's dtype on x's device, swapped when x was @b. @out_dtype forces the dtype
    (in-place operators). Comparisons with a real scalar keep x's dtype: ag_compare_scalar
    compares exactly what a double holds; an integer past 2^53 goes as a 0-d Array."""
    swapped = False
    a, b = (v[()] if isinstance(v, numpy.ndarray) and v.ndim == 0 else v for v in (a, b))  # 0-d: a scalar
    if not isinstance(a, Array):
        if not isinstance(b, Array):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: neither operand is an anygpu Array" % who)
        a, b, swapped = b, a, True
    dev = a.device
    if op in _LOGICAL and isinstance(b, (bool, numpy.bool_)):
        dt = a.dtype  # numpy 1.24: bool with anything is the other; with bool, bool
    elif _is_scalar(b):
        if op in COMPARE and not isinstance(b, (complex, numpy.complexfloating)):
            dt = a.dtype
        else:
            dt = _scalar_dtype(a, b, who)
    else:
        b = _operand(b, dev, who, "b" if not swapped else "a")
        if b.device != dev:
            raise error("AG_ERR_MISMATCH", "%s: the operands are on %s and %s; copy one with to_device"
                        % (who, (dev.spec, b.device.spec)[swapped], (b.device.spec, dev.spec)[swapped]))
        dt = numpy.result_type(a.dtype, b.dtype)
    if op in _BINARY_FLOAT:
        dt = _float_of_int(dt)
    if out_dtype is not None:
        if not numpy.can_cast(dt, out_dtype, "same_kind"):
            raise error("AG_ERR_UNSUPPORTED", "%s: cannot write the %s result into a %s array in place"
                        % (who, dt.name, out_dtype.name))
        dt = out_dtype
    dt = _check_dtype(dt, dev, who)
    if dt.kind in "iu" and _past_double(b) and numpy.iinfo(dt).min <= int(b) <= numpy.iinfo(dt).max:
        # An integer a double does not hold (the scalar forms take one): a 0-d array, exact.
        b = asarray(numpy.array(int(b), dt), device=dev)
    a = _as(a, dt)
    if isinstance(b, Array):
        b = _as(b, dt)
    return a, b, swapped, dt


def _past_double(v):
    """@v is an integer (not a bool) past 2^53 in magnitude, which a double may not hold."""
    return isinstance(v, (int, numpy.integer)) and not isinstance(v, (bool, numpy.bool_)) \
        and not -2 ** 53 <= int(v) <= 2 ** 53


def _broadcast(a, b, who):
    """Shape of a op b by numpy's broadcasting rules, and the operands as they are: ag_binary
    and ag_compare broadcast any shapes that broadcast together."""
    try:
        shape = numpy.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise error("AG_ERR_MISMATCH", "%s: shapes %s and %s do not broadcast" % (who, a.shape, b.shape)) from None
    return shape, [a, b]


def broadcast_to(x, shape):
    """A view of @x repeated to @shape by numpy's broadcasting rules (stride 0 along the
    repeated axes): no copy. Writing into it is refused."""
    who = "anygpu.broadcast_to"
    x = _operand(x, None, who, "x")
    shape, cshape = _shape_arg(shape, who)
    return _view(_broadcast_view, x._ptr, len(shape), cshape)


# ---- the elementwise dispatcher ----------------------------------------------------------------

UNARY_FLOAT = ("sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
               "acosh", "atanh", "expm1", "log1p", "log2", "log10")
_TO_REAL = ("abs", "real", "imag")
_TO_BOOL = ("isnan", "isinf", "isfinite", "signbit")


def _unary_op(name, x, out=None):
    who = "anygpu." + name
    x = _operand(x, None, who, "x")
    dt = x.dtype
    if name in UNARY_FLOAT:
        dt = _check_dtype(_float_of_int(dt), x.device, who)
        x = _as(x, dt)
    if name in _TO_REAL and dt.kind == "c":
        dt = numpy.dtype("float32" if dt == numpy.complex64 else "float64")
    if name in _TO_BOOL:
        dt = _BOOL
    if out is None:
        out = empty(x.shape, dt, x.device)
    else:
        _out_arg(out, who)
    _unary(None, UNARY.index(name), x._ptr, out._ptr)
    return out


def _out_arg(out, who):
    if not isinstance(out, Array):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: out is a %s, not an anygpu Array" % (who, type(out).__name__))


def _binary_op(name, a, b, out=None):
    """a op b for Arrays, array-likes and scalars, @name a binary operation (ag_binary) or a
    comparison (ag_compare, giving bool); into @out when given (in place)."""
    who = "anygpu." + name
    if name in COMPARE:
        code, on_arrays, on_scalar = COMPARE.index(name), _compare, _compare_scalar
    else:
        code, on_arrays, on_scalar = BINARY.index(name), _binary, _binary_scalar
    if type(a) is Array and type(b) is Array:  # the common case, without promotion or broadcasting
        dt = a.dtype
        if (b.dtype is dt and a.shape == b.shape and a.device is b.device
                and not (name in _BINARY_FLOAT and dt.kind in _INT_KINDS)):
            out_dt = _BOOL if name in COMPARE else dt
            if out is None:
                out = empty(a.shape, out_dt, a.device)
            elif type(out) is not Array:
                _out_arg(out, who)
            if out.dtype is out_dt and out.shape == a.shape:
                on_arrays(None, code, a._ptr, b._ptr, out._ptr)
                return out
    elif type(a) is Array and type(b) in (float, int) and a.dtype.kind == "f":  # a float array and a number
        dt = a.dtype
        out_dt = _BOOL if name in COMPARE else dt
        if out is None:
            out = empty(a.shape, out_dt, a.device)
        elif type(out) is not Array:
            _out_arg(out, who)
        if out.dtype is out_dt and out.shape == a.shape:
            on_scalar(None, code, a._ptr, float(b), 0.0, False, out._ptr)
            return out
    if out is not None:
        _out_arg(out, who)
    x, y, swapped, dt = _pair(a, b, who, name, None if out is None else out.dtype)
    out_dt = _BOOL if name in COMPARE else dt
    if isinstance(y, Array):
        if swapped:
            x, y = y, x
        shape, (x, y) = _broadcast(x, y, who)
        if out is None:
            out = empty(shape, out_dt, x.device)
        on_arrays(None, code, x._ptr, y._ptr, out._ptr)
    else:
        if out is None:
            out = empty(x.shape, out_dt, x.device)
        s = complex(y)
        on_scalar(None, code, x._ptr, s.real, s.imag, swapped, out._ptr)
    return out


_BOOL, _U64, _I64, _F64 = (numpy.dtype(n) for n in ("bool", "uint64", "int64", "float64"))


def _make(name, public=None):
    """The function for elementwise operation @name, called @public (an alias, such as
    absolute for abs) when given."""
    if name in UNARY:
        def f(x, out=None):
            return _unary_op(name, x, out)
        doc = "Elementwise %s(x), as numpy.%s (the module docstring says the dtypes)."
    else:
        def f(a, b, out=None):
            return _binary_op(name, a, b, out)
        doc = ("Elementwise %s(a, b) of Arrays and scalars, as numpy.%s, broadcasting any shapes "
               "as numpy does." + (" The result is bool." if name in COMPARE else ""))
    named(f, public or name)
    f.__doc__ = doc % (public or name, public or name)
    return f


(negative, abs, sqrt, exp, log, sin, cos, square, sign, conj, real, imag, bitwise_invert, tan, asin, acos, atan,
 sinh, cosh, tanh, asinh, acosh, atanh, expm1, log1p, log2, log10, floor, ceil, trunc, round, isnan, isinf,
 isfinite, signbit) = map(_make, UNARY)
(add, subtract, multiply, divide, power, minimum, maximum, floor_divide, remainder, bitwise_and, bitwise_or,
 bitwise_xor, bitwise_left_shift, bitwise_right_shift, atan2, hypot, copysign, logaddexp) = map(_make, BINARY)
# numpy's names of the inverse functions.
arcsin, arccos, arctan, arcsinh, arccosh, arctanh, arctan2 = (
    _make(n, "arc" + n[1:]) for n in ("asin", "acos", "atan", "asinh", "acosh", "atanh", "atan2"))
round.__doc__ = """Elementwise round(x), as numpy.round with decimals=0 and the array API's round: to the
nearest integer, halves to even (0.5 -> 0, 1.5 -> 2, -2.5 -> -2), -0.0 and NaN kept; integers as
they are; complex numbers part by part. bool is UnsupportedError."""
for _f in (isnan, isinf, isfinite, signbit):
    _f.__doc__ = ("Elementwise %s(x), as numpy.%s: a bool Array. Integers are finite and never NaN; "
                  "signbit of an integer is x < 0, of a float its sign bit (-0.0 and -NaN have it)."
                  % (_f.__name__, _f.__name__))
logaddexp.__doc__ = """Elementwise log(exp(a) + exp(b)) of real Arrays and scalars, as numpy.logaddexp computes it
(from the larger operand, so nothing overflows; equal operands, infinities too, give a + log 2).
Integers compute in float64; complex operands are UnsupportedError. Shapes broadcast as numpy's."""
equal, not_equal, less, less_equal, greater, greater_equal = map(_make, COMPARE)
absolute, conjugate, true_divide = _make("abs", "absolute"), _make("conj", "conjugate"), _make("divide", "true_divide")
floor_divide.__doc__ = """Elementwise a // b of Arrays and scalars, as numpy.floor_divide: the quotient rounded
toward -inf. Integers: x // 0 is 0 and INT_MIN // -1 wraps to INT_MIN, as numpy gives (numpy
also warns; anygpu does not). float32 and float64: numpy's algorithm (fmod, the remainder moved
to b's sign, the quotient snapped to an integer), so the values are numpy's exactly: x // 0 is
+-inf, or NaN for 0 // 0 and NaN operands; a zero quotient has the sign of a / b (-0.0 // 1 is
-0.0). bool and complex operands are UnsupportedError. Shapes broadcast as numpy's."""
remainder.__doc__ = """Elementwise a % b of Arrays and scalars, as numpy.remainder (Python's %): the
remainder of b's sign, a == (a // b) * b + a % b. Integers: x % 0 is 0 and INT_MIN % -1 is 0.
float32 and float64: fmod moved to b's sign, numpy's values exactly: x % 0 is NaN, a zero
remainder has b's sign (6.0 % -3 is -0.0), 5 % inf is 5 and -5 % inf is inf. bool and complex
operands are UnsupportedError. Shapes broadcast as numpy's."""
for _f, _sym in ((bitwise_and, "&"), (bitwise_or, "|"), (bitwise_xor, "^")):
    _f.__doc__ = """Elementwise a %s b of integer or bool Arrays and scalars, as numpy.%s: bitwise on
integers, logical on bool (True and False are taken as scalars). Float and complex operands are
UnsupportedError. Shapes broadcast as numpy's.""" % (_sym, _f.__name__)
bitwise_left_shift.__doc__ = """Elementwise a << b of integer Arrays and scalars, as numpy.left_shift: the bits
shifted out are lost and the result wraps in a's dtype (uint8 255 << 1 is 254, int8 1 << 7 is
-128). numpy takes the count as unsigned, so a count of the width or more, or a negative one,
gives 0. bool, float and complex operands are UnsupportedError."""
bitwise_right_shift.__doc__ = """Elementwise a >> b of integer Arrays and scalars, as numpy.right_shift:
arithmetic for signed a (-8 >> 1 is -4). A count of the width or more, or a negative one (numpy
takes it as unsigned), gives 0, or -1 for negative a. bool, float and complex operands are
UnsupportedError."""
bitwise_invert.__doc__ = """Elementwise ~x, as numpy.invert: every bit flipped for integers (~x is -x - 1
for signed x, 255 - x for uint8), logical not for bool. Float and complex x are
UnsupportedError."""


def _as_bool(x, who, name):
    """Operand @name of logical function @who as a bool Array (nonzero is true), or a Python bool
    for a scalar."""
    if isinstance(x, (bool, numpy.bool_)) or _is_scalar(x):
        return bool(x)
    x = _operand(x, None, who, name)
    return x if x.dtype == _BOOL else astype(x, _BOOL)


def logical_and(a, b):
    """Elementwise a and b, as numpy.logical_and: a bool Array; operands of other real dtypes count
    as true where nonzero. Shapes broadcast as numpy's."""
    return bitwise_and(_as_bool(a, "anygpu.logical_and", "a"), _as_bool(b, "anygpu.logical_and", "b"))


def logical_or(a, b):
    """Elementwise a or b, as numpy.logical_or (logical_and says the operands)."""
    return bitwise_or(_as_bool(a, "anygpu.logical_or", "a"), _as_bool(b, "anygpu.logical_or", "b"))


def logical_xor(a, b):
    """Elementwise a xor b, as numpy.logical_xor (logical_and says the operands)."""
    return bitwise_xor(_as_bool(a, "anygpu.logical_xor", "a"), _as_bool(b, "anygpu.logical_xor", "b"))


def logical_not(x):
    """Elementwise not x, as numpy.logical_not: a bool Array, true where x is false or zero."""
    x = _as_bool(x, "anygpu.logical_not", "x")
    if not isinstance(x, Array):
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.logical_not: x is a %s, not an Array" % type(x).__name__)
    return bitwise_invert(x)


def positive(x):
    """+x, as numpy.positive: a new Array of x's values (bool is UnsupportedError, as numpy's)."""
    x = _operand(x, None, "anygpu.positive", "x")
    if x.dtype == _BOOL:
        raise error("AG_ERR_UNSUPPORTED", "anygpu.positive: x is bool, which has no arithmetic")
    return astype(x, x.dtype)


def where(cond, a, b):
    """a where cond is true, else b (numpy.where). cond is an Array (bool, or any dtype
    compared with 0) or a numpy array; a and b Arrays or scalars, promoted as
    a + b; shapes broadcast as the binary operations'."""
    who = "anygpu.where"
    arrays = [v for v in (cond, a, b) if isinstance(v, Array)]
    if not arrays:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: none of cond, a, b is an anygpu Array" % who)
    dev = arrays[0].device
    cond = _operand(cond, dev, who, "cond")
    if cond.dtype != _BOOL:
        cond = not_equal(cond, 0)
    vals = [v if _is_scalar(v) else _operand(v, dev, who, n) for v, n in ((a, "a"), (b, "b"))]
    for v in [cond] + vals:
        if isinstance(v, Array) and v.device != dev:
            raise error("AG_ERR_MISMATCH", "%s: operands are on %s and %s" % (who, dev.spec, v.device.spec))
    if all(_is_scalar(v) for v in vals):  # float32, anygpu's default, unless a value needs more
        dt = _check_dtype(numpy.result_type(numpy.float32, *vals), dev, who)
    elif any(_is_scalar(v) for v in vals):
        arr, s = (vals[0], vals[1]) if isinstance(vals[0], Array) else (vals[1], vals[0])
        dt = _check_dtype(_scalar_dtype(arr, s, who), dev, who)
    else:
        dt = _check_dtype(numpy.result_type(vals[0].dtype, vals[1].dtype), dev, who)
    shapes = [v.shape for v in [cond] + vals if isinstance(v, Array)]
    try:
        shape = numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise error("AG_ERR_MISMATCH", "%s: shapes %s do not broadcast" % (who, ", ".join(map(str, shapes)))) from None
    cond, a, b = (_broadcast_to(v, shape, dt if v is not cond else None, dev, who) for v in [cond] + vals)
    out = empty(shape, dt, dev)
    _where(None, cond._ptr, a._ptr, b._ptr, out._ptr)
    return out


def _broadcast_to(v, shape, dt, dev, who):
    """@v (an Array or a scalar) as an Array of exactly @shape (and @dt when given): a
    broadcast view of an Array."""
    if not isinstance(v, Array):
        return full(shape, v, dt, dev)
    if dt is not None:
        v = _as(v, dt)
    if v.shape == tuple(shape):
        return v
    return broadcast_to(v, shape)


def clip(x, /, min=None, max=None):
    """min(max(x, @min), @max) elementwise (numpy.clip, the standard's clip) for real dtypes;
    None leaves that side open. Scalar bounds go through ag_clamp in one pass; Array bounds
    through maximum and minimum."""
    lo, hi = min, max
    x = _operand(x, None, "anygpu.clip", "x")
    if (lo is None or _is_scalar(lo)) and (hi is None or _is_scalar(hi)):
        out = empty(x.shape, x.dtype, x.device)
        _clamp(None, x._ptr, -numpy.inf if lo is None else float(lo), numpy.inf if hi is None else float(hi), out._ptr)
        return out
    if lo is not None:
        x = maximum(x, lo)
    return x if hi is None else minimum(x, hi)


# ---- reductions ------------------------------------------------------------------------------

def _axes(x, axis, who, one_only=False):
    """@axis (None: every axis, an integer, or a tuple of them) as a sorted tuple of distinct
    axes of @x; argmin and argmax (@one_only) take one axis or None, as numpy's."""
    if axis is None:
        return tuple(range(x.ndim))
    many = isinstance(axis, (tuple, list))
    if many and one_only:
        raise error("AG_ERR_UNSUPPORTED", "%s: axis %r: this reduction takes one axis or None" % (who, axis))
    out = []
    for a in (axis if many else (axis,)):
        try:
            a = operator.index(a)
        except TypeError:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %r is not an integer" % (who, a)) from None
        if not -x.ndim <= a < x.ndim:
            raise error("AG_ERR_OUT_OF_RANGE", "%s: axis %d is out of range for %d dimensions" % (who, a, x.ndim))
        out.append(a % x.ndim)
    if len(set(out)) != len(out):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %r names an axis twice" % (who, axis))
    return tuple(sorted(out))


def _reduce_into(name, x, axis, dt):
    """A new Array of reduction @name of @x over @axis (AXIS_ALL or one axis), in @dt."""
    shape = (1,) if axis == AXIS_ALL or x.ndim == 1 else x.shape[:axis] + x.shape[axis + 1:]
    out = empty(shape, dt, x.device)
    _reductions[name](None, x._ptr, axis, out._ptr)
    return out


def _scalar_array(value, dt, dev):
    """The Python number @value (a reduction's exact result) as a 0-d Array of @dt on @dev: an
    integer wrapped into dt as numpy's accumulator in it leaves it."""
    if dt.kind in _INT_KINDS and isinstance(value, int):
        value = _wrap(value, dt)
    return asarray(numpy.asarray(value, dtype=dt), device=dev)


def _value(a):
    """The value of the one-element Array @a, as a Python number."""
    return a.to_host()[0].item()


# Exact integer dot products (sums wrap in 64 bits, as numpy's do: _int_sum). The C reduction
# accumulates an integer dot exactly in 64 bits and rounds once into its output: an i32 / u32 output holds the total S modulo 2^32, an f64 or
# f32 output the correctly rounded S. A float result A is S itself when |A| < 2^53 (f64) or
# 2^24 (f32); past that, A is within 2^31 of S as long as |S| stays below 2^62 (f64) or 2^54
# (f32), and S is A plus the difference of S's low 32 bits from A's, taken between -2^31 and
# 2^31. So a total takes one pass, or two for a large one; an array whose total could pass
# those bounds is summed in pieces (views of the ravelled array), which also keeps the 64-bit
# accumulator from overflowing. Devices with double precision use f64, the others f32.

_INT_BOUND = {"uint8": 2 ** 8 - 1, "uint16": 2 ** 16 - 1, "uint32": 2 ** 32 - 1, "int32": 2 ** 31}
_PIECES_ON_DEVICE = 64  # past this many pieces, a dot product is finished on the host


def _float_total(dev):
    """(the float dtype, the bound below which its total is exact, the bound on a piece's
    total) for @dev."""
    return ("float64", 2 ** 53, 2 ** 62) if dev.fp64 else ("float32", 2 ** 24, 2 ** 54)


def _exact_total(run, n, bound, dev, signed):
    """The exact total, as a Python int, of the @n integer terms that run(lo, hi, dtype) adds
    up (terms lo to hi - 1, returning the value of a one-element result in dtype), each term at
    most @bound in magnitude."""
    fdt, exact_below, limit = _float_total(dev)
    piece = builtins.max(1, limit // builtins.max(bound, 1))
    total = 0
    for lo in range(0, n, piece):
        hi = builtins.min(n, lo + piece)
        approx = run(lo, hi, fdt)
        if builtins.abs(approx) < exact_below:
            total += int(approx)
            continue
        approx = int(approx)
        low = run(lo, hi, "int32" if signed else "uint32")
        total += approx + ((low - approx + 2 ** 31) % 2 ** 32 - 2 ** 31)
    return total


def _int_sum(x):
    """The sum of every element of the integer Array @x, in 64 bits as numpy's (int64 for
    signed input, uint64 for unsigned: exact until it wraps, as numpy's does)."""
    if x.size == 0:
        return 0
    return _value(_reduce_into("sum", x, AXIS_ALL, _U64 if x.dtype.kind == "u" else _I64))


def _int_dot(x, y):
    """The exact dot product of the 1-D integer Arrays @x and @y (same dtype and length). A
    term's bound is the dtypes' for 8- and 16-bit integers, else the arrays' own extremes;
    where those would need more than _PIECES_ON_DEVICE pieces (products near 2^64), the
    arrays are copied to the host and multiplied there in Python integers."""
    n = x.size
    if n == 0:
        return 0
    if x.dtype.name in ("uint8", "uint16"):
        bound = _INT_BOUND[x.dtype.name] ** 2
    else:
        mags = [builtins.max(builtins.abs(_value(_reduce_into(r, v, AXIS_ALL, v.dtype))) for r in ("min", "max"))
                for v in (x, y)]
        bound = mags[0] * mags[1]
        if bound == 0:
            return 0
    limit = _float_total(x.device)[2]
    if n > _PIECES_ON_DEVICE * (limit // bound):
        hx, hy = x.to_host(), y.to_host()
        return builtins.sum(a * b for a, b in zip(hx.tolist(), hy.tolist()))

    def run(lo, hi, dt):
        xs, ys = (x, y) if lo == 0 and hi == n else (_view(_slice, v._ptr, lo, hi - lo) for v in (x, y))
        out = empty((1,), dt, x.device)
        _dot(None, xs._ptr, ys._ptr, AXIS_ALL, out._ptr)
        return _value(out)

    return _exact_total(run, n, bound, x.device, x.dtype.kind == "i")


def _wrap(value, dt):
    """The integer @value as integer dtype @dt's arithmetic leaves it (modulo 2^bits)."""
    bits = 8 * dt.itemsize
    value %= 2 ** bits
    return value - 2 ** bits if dt.kind == "i" and value >= 2 ** (bits - 1) else value


def _reduction_dtype(name, x, dtype, who):
    """The dtype of reduction @name's Array result for @x (with numpy's dtype= keyword for sum,
    prod and mean): integer sums and products in uint64 / int64, integer means in float64,
    argmin / argmax in int64, the rest in x's dtype, as numpy's."""
    if name in ("argmin", "argmax"):
        return _I64
    dt = x.dtype
    if dtype is not None:
        dtype_code(dtype, who)
        want = numpy.dtype(dtype)
        if dt.kind == "c" and want.kind != "c":
            raise error("AG_ERR_UNSUPPORTED", "%s: x is %s; a %s %s would drop the imaginary part"
                        % (who, dt.name, want.name, name))
        if name == "mean" and want.kind in _INT_KINDS:
            raise error("AG_ERR_UNSUPPORTED", "%s: dtype %s: a mean is taken in a float or complex dtype"
                        % (who, want.name))
        return want
    if dt.kind in _INT_KINDS:
        if name == "mean":
            return _F64
        if name in ("sum", "prod"):
            return _U64 if dt.kind == "u" else _I64
    return dt


def _reduce_scalar(name, x, dtype, who):
    """Reduction @name of every element of @x as a Python number: integer sums exact (wrapped
    into the integer @dtype when one is given, as numpy's accumulator in it would be), integer
    means their exact sum over the count, rounded once."""
    dt = _reduction_dtype(name, x, dtype, who)
    if name in ("sum", "mean") and x.dtype.kind in _INT_KINDS:
        total = _int_sum(x)
        if name == "sum":
            if dtype is None:
                return total
            return _wrap(total, dt) if dt.kind in _INT_KINDS else dt.type(total).item()
        return dt.type(total / x.size if x.size else numpy.nan).item()
    if name == "prod" and x.dtype.kind in _INT_KINDS and dt.kind in _INT_KINDS:
        # in 64 bits, wrapping, then into dt as numpy's accumulator in dt would leave it
        return _wrap(_value(_reduce_into(name, x, AXIS_ALL, _U64 if x.dtype.kind == "u" else _I64)), dt)
    if name in _WITH_DTYPE and dt != x.dtype:
        x = astype(x, dt)
    return _value(_reduce_into(name, x, AXIS_ALL, _check_dtype(dt, x.device, who)))


def _reduce_array(name, x, axes, dt, who):
    """Reduction @name of @x over @axes (a sorted tuple) as an Array of dtype @dt, without the
    reduced axes (shape (1,) when none is left)."""
    dt = _check_dtype(dt, x.device, who)
    if name in ("sum", "prod") and x.dtype.kind in _INT_KINDS and dt.kind in _INT_KINDS:
        # into the 64-bit kernel output, then wrapped into dt as numpy's accumulator in dt would be
        out = _reduce_steps(name, x, axes, _U64 if x.dtype.kind == "u" else _I64)
        return out if out.dtype == dt else astype(out, dt)
    if name in _WITH_DTYPE and x.dtype != dt:
        if name != "prod" and x.dtype.kind in _INT_KINDS and dt.kind == "f":  # the C sum takes integers into floats
            return _reduce_steps(name, x, axes, dt)
        x = astype(x, dt)  # converted first, as numpy's dtype= does
    return _reduce_steps(name, x, axes, dt)


def _reduce_steps(name, x, axes, dt):
    """@x reduced over @axes into @dt: sum, prod, mean, min and max in one call over the set of axes
    (ag_<name>_axes; a 0-d result when none is left), argmin and argmax over all elements or
    one axis."""
    if name in _reductions_axes:
        out = empty(tuple(n for d, n in enumerate(x.shape) if d not in axes), dt, x.device)
        _reductions_axes[name](None, x._ptr, len(axes), (_i * builtins.max(len(axes), 1))(*axes), out._ptr)
        return out
    if len(axes) == x.ndim:
        return reshape(_reduce_into(name, x, AXIS_ALL, dt), ())
    for ax in reversed(axes):
        x = _reduce_into(name, x, ax, dt)
        dt = x.dtype if name != "mean" else dt
    return x


def _reduce(name, x, axis=None, dtype=None, out=None, keepdims=False, others=None):
    """numpy's reduction @name over @axis: None (every element), an int, or a tuple of ints
    (argmin and argmax: one int or None): an Array of x's shape without the reduced axes (shape
    () when none is left: axis=None gives a 0-d Array, whose integer sums and means are exact
    on every device), or with them as length 1 (@keepdims).
    @dtype (sum, prod and mean) is numpy's: the dtype the elements are taken in and the result is
    given in. @out, an Array of the result's shape, receives the result (converted to its
    dtype) and is returned. numpy's other keywords (initial, where) are refused."""
    who = "anygpu." + name
    if others:
        raise error("AG_ERR_UNSUPPORTED", "%s: keyword %s is not supported (anygpu takes axis, %sout and keepdims)"
                    % (who, ", ".join(sorted(others)), "dtype, " if name in _WITH_DTYPE else ""))
    x = _operand(x, None, who, "x")
    if x.dtype == _BOOL:
        # The C reductions take numbers: as numpy, sum, prod and mean take bool as int64, and
        # min, max, argmin and argmax order false before true, min and max giving bool.
        if name not in ("min", "max"):
            return _reduce(name, astype(x, _I64 if name in _WITH_DTYPE else "uint8"), axis, dtype, out, keepdims)
        if out is not None:
            _out_arg(out, who)
        r = _reduce(name, astype(x, "uint8"), axis, None, None if out is None else empty(out.shape, "uint8", out.device),
                    keepdims)
        if out is None:
            return astype(r, _BOOL)
        _astype(None, r._ptr, out._ptr)
        return out
    if axis is None and dtype is None and out is None and not keepdims:  # the common case: every element
        dt = x.dtype
        if dt.kind in _INT_KINDS or name in ("argmin", "argmax"):
            return _scalar_array(_reduce_scalar(name, x, None, who), _reduction_dtype(name, x, None, who), x.device)
        return reshape(_reduce_into(name, x, AXIS_ALL, dt), ())
    axes = _axes(x, axis, who, one_only=name in ("argmin", "argmax"))
    if axis is None and out is None and not keepdims:
        return _scalar_array(_reduce_scalar(name, x, dtype, who), _reduction_dtype(name, x, dtype, who), x.device)
    dt = _reduction_dtype(name, x, dtype, who)
    if not axes:  # numpy reduces over no axis: the elements themselves, in the result's dtype
        result = astype(x, _check_dtype(dt, x.device, who))
    else:
        result = _reduce_array(name, x, axes, dt, who)
    if keepdims:
        result = reshape(result, tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    if out is None:
        return result
    if not isinstance(out, Array):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: out is a %s, not an anygpu Array" % (who, type(out).__name__))
    if out.shape != result.shape or out.device != result.device:
        raise error("AG_ERR_MISMATCH", "%s: out is %s on %s; the result is %s on %s"
                    % (who, out.shape, out.device.spec, result.shape, result.device.spec))
    (_copy if out.dtype == result.dtype else _astype)(None, result._ptr, out._ptr)
    return out


def _make_reduction(name, public=None):
    if name in _WITH_DTYPE:
        def f(x, axis=None, dtype=None, out=None, keepdims=False, **others):
            return _reduce(name, x, axis, dtype, out, keepdims, others)
    else:
        def f(x, axis=None, out=None, keepdims=False, **others):
            return _reduce(name, x, axis, None, out, keepdims, others)
    named(f, public or name)
    f.__doc__ = "numpy.%s(x, axis%s, out, keepdims). " % (public or name, ", dtype" if name in _WITH_DTYPE else "") + \
        _reduce.__doc__.split(". ", 1)[1]
    return f


sum, mean, min, max, argmin, argmax, prod = map(_make_reduction, _reductions)
amin, amax = _make_reduction("min", "amin"), _make_reduction("max", "amax")


# ---- products --------------------------------------------------------------------------------

def _product_operands(a, b, who):
    a = _operand(a, None, who, "a")
    b = _operand(b, a.device, who, "b")
    if a.device != b.device:
        raise error("AG_ERR_MISMATCH", "%s: a is on %s but b on %s" % (who, a.device.spec, b.device.spec))
    dt = _check_dtype(numpy.result_type(a.dtype, b.dtype), a.device, who)
    return _as(a, dt), _as(b, dt), dt


def dot(a, b):
    """numpy.dot for 1-D and 2-D Arrays: vector . vector is a Python scalar (ag_dot, not
    conjugated; of integers, the exact value, where numpy wraps in the input's dtype);
    matrix . vector and vector . matrix go through gemv, matrix . matrix through
    gemm (float and complex dtypes)."""
    a = _operand(a, None, "anygpu.dot", "a")
    b = _operand(b, a.device, "anygpu.dot", "b")
    if a.ndim == 1 and b.ndim == 1:
        x, y, dt = _product_operands(a, b, "anygpu.dot")
        if x.shape != y.shape:
            raise error("AG_ERR_MISMATCH", "anygpu.dot: a has shape %s but b %s" % (x.shape, y.shape))
        if dt.kind in _INT_KINDS:
            return _int_dot(x, y)
        out = empty((1,), dt, x.device)
        _dot(None, x._ptr, y._ptr, AXIS_ALL, out._ptr)
        return _value(out)
    if a.ndim > 2 or b.ndim > 2:
        raise error("AG_ERR_UNSUPPORTED", "anygpu.dot: arrays of more than 2 dimensions; use matmul for stacks")
    return _matmul("anygpu.dot", a, b)


def vdot(a, b):
    """numpy.vdot: conj(a) . b over all elements (flattened), a Python scalar (BLAS dotc; of
    integers, the exact value, as dot's)."""
    x, y, dt = _product_operands(a, b, "anygpu.vdot")
    if x.size != y.size:
        raise error("AG_ERR_MISMATCH", "anygpu.vdot: a has %d elements but b %d" % (x.size, y.size))
    x, y = ravel(x), ravel(y)  # the views must outlive the call
    if dt.kind in _INT_KINDS:
        return _int_dot(x, y)
    out = empty((1,), dt, x.device)
    _blas_dot(None, x._ptr, y._ptr, dt.kind == "c", out._ptr)
    return _value(out)


def matmul(a, b):
    """a @ b (numpy.matmul) through BLAS: 2-D x 2-D and batched 3-D (gemm), 2-D x 1-D and
    1-D x 2-D (gemv). Float and complex dtypes."""
    return _matmul("anygpu.matmul", a, b)


def _matmul(who, a, b):
    for x, name in ((a, "a"), (b, "b")):
        if not isinstance(x, Array) and numpy.ndim(x) == 0 and not isinstance(x, str):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is a scalar; matmul multiplies arrays of 1 or more "
                        "dimensions" % (who, name))
    a, b, dt = _product_operands(a, b, who)
    if a.ndim == 0 or b.ndim == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is 0-d; matmul multiplies arrays of 1 or more dimensions"
                    % (who, "a" if a.ndim == 0 else "b"))
    if a.ndim == 1 and b.ndim == 1:
        raise error("AG_ERR_UNSUPPORTED", "%s: both operands are vectors; use dot" % who)
    if a.ndim == 1 or b.ndim == 1:
        mat, vec, trans = (a, b, 0) if b.ndim == 1 else (b, a, 1)
        if mat.ndim != 2:
            raise error("AG_ERR_UNSUPPORTED", "%s: a vector with a %d-D array; anygpu takes a matrix" % (who, mat.ndim))
        if mat.shape[1 - trans] != vec.shape[0]:
            raise error("AG_ERR_MISMATCH", "%s: shapes %s and %s do not fit" % (who, a.shape, b.shape))
        out = empty((mat.shape[trans],), dt, a.device)
        _gemv(None, trans, 1.0, mat._ptr, vec._ptr, 0.0, out._ptr)
        return out
    if a.ndim > 3 or b.ndim > 3:
        raise error("AG_ERR_UNSUPPORTED", "%s: anygpu multiplies matrices and stacks of them (2-D, 3-D), not %d-D"
                    % (who, builtins.max(a.ndim, b.ndim)))
    if a.shape[-1] != b.shape[-2]:
        raise error("AG_ERR_MISMATCH", "%s: shapes %s and %s do not fit (%d != %d)"
                    % (who, a.shape, b.shape, a.shape[-1], b.shape[-2]))
    batch = a.shape[:-2] or b.shape[:-2]
    out = empty(batch + (a.shape[-2], b.shape[-1]), dt, a.device)
    _gemm(None, 0, 0, 1.0, a._ptr, b._ptr, 0.0, out._ptr)
    return out


# ---- conversions, views, creation ------------------------------------------------------------

def astype(a, dtype, /, *, copy=True, device=None):
    """@a's values in @dtype (ag_astype: numpy's conversions; complex to real is refused, take
    real() or abs(); complex to bool is either part nonzero), on @device (default: @a's). A new
    Array, or with copy=False @a itself where it already has that dtype and device."""
    a = _operand(a, None, "anygpu.astype", "a")
    dtype_code(dtype, "anygpu.astype")
    if copy not in (True, False):
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.astype: copy is %r, not True or False" % (copy,))
    fresh = False
    if device is not None:
        moved = asarray(a, device=device)
        a, fresh = moved, moved is not a
    if numpy.dtype(dtype) == a.dtype and (fresh or not copy):
        return a
    if a.dtype.kind == "c" and numpy.dtype(dtype).kind not in "cb":
        raise error("AG_ERR_UNSUPPORTED", "anygpu.astype: a is %s; converting it to %s would drop the imaginary "
                    "part: take real() or abs() first" % (a.dtype.name, numpy.dtype(dtype).name))
    out = empty(a.shape, dtype, a.device)
    if numpy.dtype(dtype) == a.dtype:
        _copy(None, a._ptr, out._ptr)
    else:
        _astype(None, a._ptr, out._ptr)
    return out


def reshape(a, shape, *more, copy=None):
    """A view of @a with another shape (one length may be -1), sharing its memory; with
    copy=True a new Array of those values. (Every layout reshapes as a view: copy=False and
    None are the same.)"""
    if copy not in (None, True, False):
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.reshape: copy is %r, not True, False or None" % (copy,))
    if copy:
        return reshape(_operand(a, None, "anygpu.reshape", "a"), shape, *more).copy()
    a = _operand(a, None, "anygpu.reshape", "a")
    if more or isinstance(shape, numbers.Integral):
        shape = (shape,) + more
    try:
        shape = [_length(d, shape, "anygpu.reshape") for d in shape]
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.reshape: shape %r is not an integer or a sequence of them"
                    % (shape,)) from None
    if shape.count(-1) > 1:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.reshape: shape %r has more than one -1" % (tuple(shape),))
    if -1 in shape:
        known = int(numpy.prod([d for d in shape if d != -1]))
        if known == 0 or a.size % known:
            raise error("AG_ERR_MISMATCH", "anygpu.reshape: cannot reshape %s into %r" % (a.shape, tuple(shape)))
        shape[shape.index(-1)] = a.size // known
    shape, cshape = _shape_arg(shape, "anygpu.reshape")
    return _view(_reshape, a._ptr, len(shape), cshape)


def ravel(a):
    """A 1-D view of @a."""
    return reshape(a, -1)


def transpose(x, axes=None):
    """numpy.transpose (the array API's permute_dims): a view of @x with its axes reversed, or
    in the order @axes gives; no copy."""
    who = "anygpu.transpose"
    x = _operand(x, None, who, "x")
    if axes is None:
        perm = tuple(range(x.ndim))[::-1]
    else:
        try:
            perm = tuple(operator.index(a) for a in axes)
        except TypeError:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes %r is not a sequence of integers" % (who, axes)) from None
        if len(perm) != x.ndim or sorted(a % x.ndim if -x.ndim <= a < x.ndim else a for a in perm) != \
                list(range(x.ndim)):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes %r is not a permutation of %s's %d axes"
                        % (who, axes, x.shape, x.ndim))
    caxes = (_i * builtins.max(x.ndim, 1))(*perm)
    return _view(_permute, x._ptr, caxes)


permute_dims = named(lambda x, axes: transpose(x, axes), "permute_dims")


def _axis_list(axis, who):
    """@axis (an int or a sequence of them) as a list of ints."""
    try:
        return [operator.index(axis)]
    except TypeError:
        pass
    try:
        return [operator.index(a) for a in axis]
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %r is not an integer or a sequence of them"
                    % (who, axis)) from None


def expand_dims(x, axis=0):
    """A view of @x with a new axis of length 1 at @axis, an int or a tuple of them, each a
    position in the result (numpy.expand_dims); no copy."""
    who = "anygpu.expand_dims"
    x = _operand(x, None, who, "x")
    axes = _axis_list(axis, who)
    nd = x.ndim + len(axes)
    for a in axes:
        if not -nd <= a < nd:  # an IndexError too, as the standard asks
            raise _KeyIndexError("AG_ERR_INVALID_ARGUMENT", "%s: axis %r: %d is out of range for a result of %d "
                                 "dimensions" % (who, axis, a, nd))
    axes = sorted(a % nd for a in axes)
    if len(set(axes)) != len(axes):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %r names a position twice" % (who, axis))
    for a in axes:  # in increasing order, each lands where the result has it
        x = _view(_expand_dims, x._ptr, a)
    return x


def squeeze(x, axis=None):
    """A view of @x without the axes of length 1 @axis names (None: every one; (): none, as
    numpy's); no copy."""
    x = _operand(x, None, "anygpu.squeeze", "x")
    axes = [] if axis is None else _axis_list(axis, "anygpu.squeeze")
    if axis is not None and not axes:  # C reads no axes as every axis
        return _getitem(x, Ellipsis)
    return _view(_squeeze, x._ptr, len(axes), (_i * builtins.max(len(axes), 1))(*axes))


def flip(x, axis=None):
    """A view of @x with the order of the elements along @axis (None: every axis; (): none,
    as numpy's) reversed (numpy.flip); no copy."""
    x = _operand(x, None, "anygpu.flip", "x")
    axes = [] if axis is None else _axis_list(axis, "anygpu.flip")
    if axis is not None and not axes:  # C reads no axes as every axis
        return _getitem(x, Ellipsis)
    return _view(_flip, x._ptr, len(axes), (_i * builtins.max(len(axes), 1))(*axes))


def _matrix_transpose(x):
    """The array API's x.mT: the last two axes swapped (x must have at least 2)."""
    if x.ndim < 2:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array.mT: x has %d dimension; mT swaps the last two" % x.ndim)
    return transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def full(shape, fill_value, dtype=None, device=None):
    """A new Array of @shape filled with @fill_value, in @dtype on @device. The default dtype is
    the value's, as the standard's: bool for a bool, int64 for an integer, float32 for a float
    and complex64 for a complex number (anygpu's default precision); a numpy scalar keeps its
    own. An integer dtype takes only integers in its range, never rounded or wrapped."""
    if dtype is None:
        if isinstance(fill_value, numpy.generic):
            dtype = fill_value.dtype
        elif isinstance(fill_value, bool):
            dtype = "bool"
        elif isinstance(fill_value, int):
            dtype = "int64"
        else:
            dtype = "complex64" if isinstance(fill_value, complex) else "float32"
    out = empty(shape, dtype, device)
    _fill(out, fill_value)
    return out


def _fill(out, value):
    if not (_is_scalar(value) or isinstance(value, (bool, numpy.bool_))):
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.full: fill_value %r is not a number" % (value,))
    if out.dtype.kind in "iu" and _past_double(value):
        # The exact value goes over as a 0-d array, copied into every element on the device
        # (ag_fill, which takes a double, refuses one outside the dtype).
        info = numpy.iinfo(out.dtype)
        if not info.min <= int(value) <= info.max:
            raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.full: fill_value %d is outside %s's range [%d, %d]"
                        % (int(value), out.dtype.name, info.min, info.max))
        one = asarray(numpy.array(int(value), out.dtype), device=out.device)
        every = broadcast_to(one, out.shape)  # kept alive through the call
        _copy(None, every._ptr, out._ptr)
        return
    value = complex(value)
    _fill_complex(None, out._ptr, value.real, value.imag)


def zeros(shape, dtype="float32", device=None):
    """A new Array of zeros (ag_fill); dtype None is float32."""
    return full(shape, 0, "float32" if dtype is None else dtype, device)


def ones(shape, dtype="float32", device=None):
    """A new Array of ones (ag_fill); dtype None is float32."""
    return full(shape, 1, "float32" if dtype is None else dtype, device)


def _like(a, dtype, device):
    """The shape, dtype and device of a new array like @a: an Array's own (its device unless
    @device is given), or for anything else numpy reads (a numpy array, a list) its shape and
    dtype on @device (default: default_device())."""
    if isinstance(a, Array):
        return a.shape, a.dtype if dtype is None else dtype, a.device if device is None else device
    try:
        host = numpy.asarray(a)
    except (TypeError, ValueError) as e:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.zeros_like: numpy cannot read a as an array (%s)" % e) from None
    if dtype is None:
        dtype = host.dtype
    return host.shape or (1,), dtype, _resolve_device(device)


def empty_like(a, dtype=None, device=None):
    """A new uninitialised Array of @a's shape and dtype (or @dtype), on @a's device for an
    Array (or @device); @a may be a numpy array or anything numpy reads."""
    return empty(*_like(a, dtype, device))


def zeros_like(a, dtype=None, device=None):
    """zeros of @a's shape and dtype (empty_like says which)."""
    return zeros(*_like(a, dtype, device))


def ones_like(a, dtype=None, device=None):
    """ones of @a's shape and dtype (empty_like says which)."""
    return ones(*_like(a, dtype, device))


def full_like(a, fill_value, dtype=None, device=None):
    """@fill_value in an Array of @a's shape and dtype (empty_like says which)."""
    shape, dt, dev = _like(a, dtype, device)
    return full(shape, fill_value, dt, dev)


# ---- indexing --------------------------------------------------------------------------------

class _KeyIndexError(InvalidArgumentError, IndexError):
    """A key numpy refuses with IndexError (a float, a string, a second Ellipsis): an
    InvalidArgumentError that is also an IndexError, so that code catching numpy's class
    catches it."""


class _KeyTypeError(InvalidArgumentError, TypeError):
    """A slice bound that is not an integer, which numpy refuses with TypeError."""


def _is_int(k):
    """Whether @k indexes as an integer: a Python or numpy integer, or a 0-d numpy integer array
    (as numpy takes it), not a bool."""
    if isinstance(k, numpy.ndarray):
        return k.ndim == 0 and k.dtype.kind in "ui"
    return isinstance(k, (numbers.Integral, numpy.integer)) and not isinstance(k, (bool, numpy.bool_))


def _key_text(key):
    """@key as a message shows it: an array in it by its kind and shape, not by its values."""
    if isinstance(key, tuple):
        return "(%s%s)" % (", ".join(map(_key_text, key)), "," if len(key) == 1 else "")
    if isinstance(key, Array):
        return "<an Array of shape %s>" % (key.shape,)
    if isinstance(key, numpy.ndarray):
        return "<a numpy %s array of shape %s>" % (key.dtype.name, key.shape)
    text = repr(key)
    return text if len(text) <= 40 else text[:37] + "..."


def _key_error(cls, key, k, text):
    """An error of class @cls (or status name) for the entry @k of @key, followed by @text."""
    what = "key %s" % _key_text(key) + ("" if k is key else " holds %s" % _key_text(k))
    message = "anygpu.Array: %s (a %s); %s" % (what, type(k).__name__, text)
    return cls("AG_ERR_INVALID_ARGUMENT", message) if isinstance(cls, type) else error(cls, message)


def _getitem(a, key):
    """a[key] as a view, no copy: numpy's basic indexing (ints, which drop their axis; slices
    with any step, negative too; None, a new axis of length 1; one Ellipsis), through
    ag_array_view. A key that is one array (an Array, numpy array or list) makes a new Array:
    a bool mask of a's shape or its first axes selects (a[mask]), integers gather along the
    first axis (a[idx]). Arrays among other keys are refused (UnsupportedError); keys
    numpy refuses raise numpy's exception class too (IndexError for an integer out of range,
    too many indices, a float or a second Ellipsis; TypeError for a slice bound that is not
    an integer; ValueError for a step of 0), each an AnygpuError."""
    if isinstance(key, (Array, list)) or (isinstance(key, numpy.ndarray) and key.ndim > 0):
        from ._namespace import _array_key  # a bool mask (ag_mask_select) or integer indices (ag_take)
        return _array_key(a, key)
    keys = key if isinstance(key, tuple) else (key,)
    for n, k in enumerate(keys):
        if k is None or k is Ellipsis or isinstance(k, slice) or _is_int(k):
            continue
        if isinstance(k, (float, str, numpy.floating, numpy.complexfloating, complex)):
            raise _key_error(_KeyIndexError, key, k, "an index is an int, a slice, None or ...")
        raise _key_error("AG_ERR_UNSUPPORTED", key, k, "anygpu indexes with ints, slices, None and ..., not with "
                         "boolean or integer arrays")
    ellipses = [n for n, k in enumerate(keys) if k is Ellipsis]
    if len(ellipses) > 1:
        raise _KeyIndexError("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: key %s holds ... twice (at %d and %d); "
                             "an index takes one" % (_key_text(key), ellipses[0], ellipses[1]))
    # The axis each key meets, so that an integer out of range is numpy's IndexError, with
    # numpy's words, before C sees it.
    axed = [k for k in keys if k is not None and k is not Ellipsis]
    if len(axed) > a.ndim:
        raise error("AG_ERR_OUT_OF_RANGE", "anygpu.Array: key %s has %d indices for %d dimensions"
                    % (_key_text(key), len(axed), a.ndim))
    ndim = a.ndim - builtins.sum(1 for k in keys if _is_int(k)) + builtins.sum(1 for k in keys if k is None)
    if ndim > MAX_DIMS:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: key %s makes %d dimensions; anygpu arrays have 0 to %d"
                    % (_key_text(key), ndim, MAX_DIMS))
    axis = 0
    for k in keys:
        if k is Ellipsis:
            axis += a.ndim - len(axed)
        elif _is_int(k):
            n = a.shape[axis]
            if not -n <= int(k) < n:
                raise error("AG_ERR_OUT_OF_RANGE", "anygpu.Array: key %s: index %d is out of range for axis %d, "
                            "of length %d" % (_key_text(key), k, axis, n))
            axis += 1
        elif k is not None:
            axis += 1
    idx = (_Index * builtins.max(len(keys), 1))()
    for n, k in enumerate(keys):
        if _is_int(k):
            idx[n] = _Index(_INDEX_INT, int(k), 0, 0)
        elif isinstance(k, slice):
            parts = []
            for v, default in ((k.start, _INDEX_NONE), (k.stop, _INDEX_NONE), (k.step, 1)):
                if v is None:
                    parts.append(default)
                    continue
                try:
                    v = operator.index(v)
                except TypeError:
                    raise _KeyTypeError("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: key %s: slice %r holds %r, not an "
                                        "integer or None" % (_key_text(key), k, v)) from None
                parts.append(builtins.max(builtins.min(v, 2 ** 63 - 1), -2 ** 63 + 1))
            if parts[2] == 0:
                raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: key %s: slice %r has step 0"
                            % (_key_text(key), k))
            idx[n] = _Index(_INDEX_SLICE, *parts)
        elif k is None:
            idx[n] = _Index(_INDEX_NEWAXIS, 0, 0, 0)
        else:
            idx[n] = _Index(_INDEX_ELLIPSIS, 0, 0, 0)
    return _view(_array_view, a._ptr, len(keys), idx)


def _setitem(a, key, value):
    """a[key] = value, written into the view _getitem gives: a scalar fills it (ag_fill: an
    integer array takes only integers in its range, never rounded or wrapped), an Array or
    array-like of the view's shape (or its trailing part) is converted to the view's dtype and
    copied in."""
    if isinstance(key, (Array, list)) or (isinstance(key, numpy.ndarray) and key.ndim > 0):
        from ._namespace import _mask_setitem
        mask = key if isinstance(key, Array) else asarray(key, device=a.device)
        if mask.dtype != numpy.bool_:
            raise error("AG_ERR_UNSUPPORTED", "anygpu.Array: a[key] = value takes an array key only as a bool mask")
        _mask_setitem(a, mask, value)
        return
    view = _getitem(a, key)
    if _is_scalar(value) or isinstance(value, bool):
        _fill(view, value)
        return
    if not isinstance(value, Array):  # converted as numpy assigns: to the view's dtype
        value = asarray(value, device=view.device, dtype=view.dtype)
    value = _as(value, view.dtype)
    if value.shape != view.shape:
        value = broadcast_to(value, view.shape)
    _copy(None, value._ptr, view._ptr)


def _item(a):
    if a.size != 1:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: an array of %d elements has no single value; "
                    "take any() or all() of a comparison" % a.size)
    return a.to_host().reshape(-1)[0].item()


# ---- the Array's operators and methods -------------------------------------------------------

def _array_transpose(self, *axes):
    """numpy's a.transpose(), a.transpose(1, 0) or a.transpose((1, 0))."""
    if len(axes) == 1 and not isinstance(axes[0], (numbers.Integral, numpy.integer)):
        axes = axes[0]
    return transpose(self, axes or None)


def _T(self):
    """The array API's x.T: the transpose of a 2-D array, a view. Other ndims are refused
    (InvalidArgumentError), as the array API standard says (numpy reverses any array's axes,
    and gives a 0-d or 1-D one back as it is): transpose(x) reverses any, x.mT swaps the last
    two."""
    if self.ndim != 2:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array.T: x has %d dimension%s; .T transposes a 2-D array "
                    "(the array API's rule): use anygpu.transpose(x), permute_dims or x.mT"
                    % (self.ndim, "" if self.ndim == 1 else "s"))
    return transpose(self)


def _index(a):
    """operator.index(a) of a one-element integer Array (the standard's __index__), as an int."""
    if a.dtype.kind not in _INT_KINDS:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array.__index__: a is %s; only integers are indices"
                    % a.dtype.name)
    return int(_item(a))


def _format(a, spec):
    """format(a, spec): a one-element Array formats as its value, as numpy's 0-d arrays do;
    others as str(a), with an empty spec only."""
    if a.size == 1:
        return format(_item(a), spec)
    if spec:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array.__format__: spec %r for an Array of %d elements; "
                    "only one element formats as a number" % (spec, a.size))
    return str(a)


def _defers(other):
    return getattr(type(other), "__array_ufunc__", False) is None


def _operators():
    """Array's operators and methods, each a function of its own name (so that a failure inside
    is reported as ``anygpu.Array.<name>``)."""
    # An operand whose class sets __array_ufunc__ = None handles operators with arrays itself
    # (NEP 13: pytest.approx, for one), so an operator gives it its turn, as numpy's do.
    def binop(name, reflected=False):
        if reflected:
            return lambda self, other: (_binary_op(name, other, self) if type(other) is Array or not _defers(other)
                                        else NotImplemented)
        return lambda self, other: (_binary_op(name, self, other) if type(other) is Array or not _defers(other)
                                    else NotImplemented)

    def inplace(name):
        return lambda self, other: _binary_op(name, self, other, out=self)

    def method(f):
        return lambda self, *args, **kwargs: f(self, *args, **kwargs)

    ops = {}
    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                         ("pow", "power"), ("floordiv", "floor_divide"), ("mod", "remainder"),
                         ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                         ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift")):
        ops["__%s__" % dunder] = binop(name)
        ops["__r%s__" % dunder] = binop(name, True)
        ops["__i%s__" % dunder] = inplace(name)
    for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                         ("gt", "greater"), ("ge", "greater_equal")):
        ops["__%s__" % dunder] = binop(name)
    ops.update({
        "__neg__": method(negative), "__abs__": method(abs), "__pos__": lambda self: self,
        "__invert__": method(bitwise_invert),
        "__matmul__": method(matmul), "__rmatmul__": lambda self, other: matmul(other, self),
        "__getitem__": method(_getitem), "__setitem__": method(_setitem), "item": method(_item),
        "__bool__": lambda self: bool(_item(self)), "__float__": lambda self: float(_item(self)),
        "__int__": lambda self: int(_item(self)), "__complex__": lambda self: complex(_item(self)),
        "__index__": method(_index), "__format__": method(_format),
        "ravel": method(ravel), "flatten": lambda self: ravel(self).copy(),
        "reshape": lambda self, *shape: reshape(self, *shape), "transpose": method(_array_transpose),
    })
    for f in (astype, sum, mean, min, max, argmin, argmax, dot, clip, conj):
        ops[f.__name__] = method(f)
    ops["conjugate"] = method(conj)
    for name, f in ops.items():
        setattr(Array, name, named(f, name))
    for name, f in (("real", real), ("imag", imag), ("T", _T), ("mT", _matrix_transpose)):
        setattr(Array, name, property(named(method(f), name), doc=f.__doc__))
    Array.__hash__ = None


_operators()
