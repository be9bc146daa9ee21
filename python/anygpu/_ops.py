"""Operators and numpy-like functions on Arrays: elementwise arithmetic with numpy's dtype
promotion, comparisons, reductions, products (BLAS), conversions, views and indexing, and
creation helpers. Every call runs on the NULL queue (the calling thread's default queue of the
operands' device) and allocates its result with ``empty``.

dtypes follow numpy 1.24 for arrays of anygpu's dtypes, with these differences, all because
anygpu has no int64, float16 or bool:

- a result numpy would give in a dtype anygpu lacks (uint32 + int32 -> int64) is
  UnsupportedError naming it;
- an integer array with a float scalar, true division of integers, and sqrt/exp/log/sin/cos of
  integers give float64 (numpy gives float16 or float32 for small unsigned types); with a
  complex scalar, complex128. On a device without double precision that is UnsupportedError;
- comparisons give uint8 masks (1 true, 0 false) rather than bool;
- integer sums are uint32 (unsigned input) or int32 and wrap past 32 bits, argmin/argmax give
  int32, where numpy gives 64-bit integers.
"""

import builtins
import ctypes
import numbers

import numpy

from ._core import Array, _shape_arg, asarray, dtype_code, empty
from ._lib import DTYPES, c_size_p, error, fn

__all__ = [
    "add", "subtract", "multiply", "divide", "true_divide", "power", "minimum", "maximum",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "negative", "abs", "absolute", "sqrt", "exp", "log", "sin", "cos", "square", "sign",
    "conj", "conjugate", "real", "imag", "where", "clip",
    "sum", "mean", "min", "max", "amin", "amax", "argmin", "argmax",
    "dot", "vdot", "matmul", "astype", "reshape", "ravel",
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
_reductions = {name: fn("ag_" + name, [_p, _p, _i, _p]) for name in ("sum", "mean", "min", "max", "argmin", "argmax")}
_dot = fn("ag_dot", [_p, _p, _p, _i, _p])
_blas_dot = fn("ag_blas_dot", [_p, _p, _p, _b, _p])
_gemm = fn("ag_gemm", [_p, _i, _i, _d, _p, _p, _d, _p])
_gemv = fn("ag_gemv", [_p, _i, _d, _p, _p, _d, _p])
_compare = fn("ag_compare", [_p, _i, _p, _p, _p])
_compare_scalar = fn("ag_compare_scalar", [_p, _i, _p, _d, _d, _b, _p])

AXIS_ALL = -1
UNARY = ["negative", "abs", "sqrt", "exp", "log", "sin", "cos", "square", "sign", "conj", "real", "imag"]
BINARY = ["add", "subtract", "multiply", "divide", "power", "minimum", "maximum"]
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
    if x.dtype.kind in _INT_KINDS:  # numpy 1.24's value-based rule: u8 + 300 -> u16, u8 + -1 -> i16
        # Spelled with min_scalar_type, so numpy 2 (whose result_type keeps u8 and refuses
        # 300) gives the same dtypes.
        return numpy.result_type(x.dtype, numpy.min_scalar_type(int(s)))
    return x.dtype


def _float_of_int(dt):
    return numpy.dtype("float64") if dt.kind in _INT_KINDS else dt


def _operand(x, dev, who, name):
    if isinstance(x, Array):
        return x
    if isinstance(x, (numpy.ndarray, list, tuple)):
        return asarray(x, device=dev)
    raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is a %s, not an Array, array or number"
                % (who, name, type(x).__name__))


def _as(x, dt):
    return x if x.dtype == dt else astype(x, dt)


def _pair(a, b, who, op=None, out_dtype=None):
    """Operands of a binary operation @op, as (x, y, swapped, dtype): x an Array, y a scalar
    or an Array of x's dtype on x's device, swapped when x was @b. @out_dtype forces the dtype
    (in-place operators). Comparisons with a real scalar keep x's dtype: ag_compare_scalar
    compares exactly."""
    swapped = False
    a, b = (v[()] if isinstance(v, numpy.ndarray) and v.ndim == 0 else v for v in (a, b))  # 0-d: a scalar
    if not isinstance(a, Array):
        if not isinstance(b, Array):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: neither operand is an anygpu Array" % who)
        a, b, swapped = b, a, True
    dev = a.device
    if _is_scalar(b):
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
    if op == "divide":
        dt = _float_of_int(dt)
    if out_dtype is not None:
        if not numpy.can_cast(dt, out_dtype, "same_kind"):
            raise error("AG_ERR_UNSUPPORTED", "%s: cannot write the %s result into a %s array in place"
                        % (who, dt.name, out_dtype.name))
        dt = out_dtype
    dt = _check_dtype(dt, dev, who)
    a = _as(a, dt)
    if isinstance(b, Array):
        b = _as(b, dt)
    return a, b, swapped, dt


def _broadcast(a, b, who):
    """Shape of a op b, and the operands reshaped (leading 1s dropped) for ag_binary, which
    broadcasts one operand whose shape is the trailing part of the other's."""
    try:
        shape = numpy.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise error("AG_ERR_MISMATCH", "%s: shapes %s and %s do not broadcast" % (who, a.shape, b.shape)) from None
    ops = []
    for x in (a, b):
        s = x.shape
        while len(s) > 1 and s[0] == 1 and s != shape:
            s = s[1:]
        if s != shape[len(shape) - len(s):]:
            raise error("AG_ERR_UNSUPPORTED", "%s: broadcasting shapes %s and %s needs a repeat inside an "
                        "axis; anygpu repeats only a whole trailing shape" % (who, a.shape, b.shape))
        ops.append(x if s == x.shape else reshape(x, s))
    return shape, ops


# ---- the elementwise dispatcher ----------------------------------------------------------------

UNARY_FLOAT = ("sqrt", "exp", "log", "sin", "cos")
_TO_REAL = ("abs", "real", "imag")


def _unary_op(name, x, out=None):
    who = "anygpu." + name
    x = _operand(x, None, who, "x")
    dt = x.dtype
    if name in UNARY_FLOAT:
        dt = _check_dtype(_float_of_int(dt), x.device, who)
        x = _as(x, dt)
    if name in _TO_REAL and dt.kind == "c":
        dt = numpy.dtype("float32" if dt == numpy.complex64 else "float64")
    if out is None:
        out = empty(x.shape, dt, x.device)
    _unary(None, UNARY.index(name), x._ptr, out._ptr)
    return out


def _binary_op(name, a, b, out=None):
    """a op b for Arrays, array-likes and scalars, @name a binary operation (ag_binary) or a
    comparison (ag_compare, giving a uint8 mask); into @out when given (in place)."""
    who = "anygpu." + name
    if name in COMPARE:
        code, on_arrays, on_scalar = COMPARE.index(name), _compare, _compare_scalar
    else:
        code, on_arrays, on_scalar = BINARY.index(name), _binary, _binary_scalar
    if type(a) is Array and type(b) is Array:  # the common case, without promotion or broadcasting
        dt = a.dtype
        if (b.dtype is dt and a.shape == b.shape and a.device is b.device
                and not (name == "divide" and dt.kind in _INT_KINDS)):
            out_dt = _U8 if name in COMPARE else dt
            if out is None:
                out = empty(a.shape, out_dt, a.device)
            if out.dtype is out_dt and out.shape == a.shape:
                on_arrays(None, code, a._ptr, b._ptr, out._ptr)
                return out
    elif type(a) is Array and type(b) in (float, int) and a.dtype.kind == "f":  # a float array and a number
        dt = a.dtype
        out_dt = _U8 if name in COMPARE else dt
        if out is None:
            out = empty(a.shape, out_dt, a.device)
        if out.dtype is out_dt and out.shape == a.shape:
            on_scalar(None, code, a._ptr, float(b), 0.0, False, out._ptr)
            return out
    x, y, swapped, dt = _pair(a, b, who, name, None if out is None else out.dtype)
    out_dt = "uint8" if name in COMPARE else dt
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


_U8 = numpy.dtype("uint8")


def _make(name):
    if name in UNARY:
        def f(x, out=None):
            return _unary_op(name, x, out)
        doc = "Elementwise %s(x), as numpy.%s (the module docstring says the dtypes)."
    else:
        def f(a, b, out=None):
            return _binary_op(name, a, b, out)
        doc = ("Elementwise %s(a, b) of Arrays and scalars, as numpy.%s; one operand may have the trailing part "
               "of the other's shape." + (" The result is a uint8 mask (1 true)." if name in COMPARE else ""))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc % (name, name)
    return f


negative, abs, sqrt, exp, log, sin, cos, square, sign, conj, real, imag = map(_make, UNARY)
add, subtract, multiply, divide, power, minimum, maximum = map(_make, BINARY)
equal, not_equal, less, less_equal, greater, greater_equal = map(_make, COMPARE)
absolute, conjugate, true_divide = abs, conj, divide


def where(cond, a, b):
    """a where cond is non-zero, else b (numpy.where). cond is an Array (uint8 mask, or any
    dtype compared with 0) or a boolean numpy array; a and b Arrays or scalars, promoted as
    a + b; shapes broadcast as the binary operations'."""
    who = "anygpu.where"
    arrays = [v for v in (cond, a, b) if isinstance(v, Array)]
    if not arrays:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: none of cond, a, b is an anygpu Array" % who)
    dev = arrays[0].device
    cond = _operand(cond if not isinstance(cond, numpy.ndarray) else cond.astype("uint8"), dev, who, "cond")
    if cond.dtype != numpy.uint8:
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
    shape = numpy.broadcast_shapes(*[v.shape for v in [cond] + vals if isinstance(v, Array)])
    cond, a, b = (_broadcast_to(v, shape, dt if v is not cond else None, dev, who) for v in [cond] + vals)
    out = empty(shape, dt, dev)
    _where(None, cond._ptr, a._ptr, b._ptr, out._ptr)
    return out


def _broadcast_to(v, shape, dt, dev, who):
    """@v (an Array or a scalar) as an Array of exactly @shape (and @dt when given)."""
    if not isinstance(v, Array):
        return full(shape, v, dt, dev)
    if dt is not None:
        v = _as(v, dt)
    if v.shape == tuple(shape):
        return v
    return _binary_op("add", zeros(shape, v.dtype, dev), v)


def clip(x, lo=None, hi=None):
    """min(max(x, lo), hi) elementwise (numpy.clip) for real dtypes; None leaves that side
    open. Scalar bounds go through ag_clamp in one pass; Array bounds through maximum and
    minimum."""
    x = _operand(x, None, "anygpu.clip", "x")
    if (lo is None or _is_scalar(lo)) and (hi is None or _is_scalar(hi)):
        out = empty(x.shape, x.dtype, x.device)
        _clamp(None, x._ptr, -numpy.inf if lo is None else float(lo), numpy.inf if hi is None else float(hi), out._ptr)
        return out
    if lo is not None:
        x = maximum(x, lo)
    return x if hi is None else minimum(x, hi)


# ---- reductions ------------------------------------------------------------------------------

def _axis(x, axis, who):
    if axis is None:
        return AXIS_ALL
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise error("AG_ERR_OUT_OF_RANGE", "%s: axis %d is out of range for %d dimensions" % (who, axis, x.ndim))
    return axis % x.ndim


def _reduce(name, x, axis=None):
    """Reduction @name over @axis. axis=None reduces every element and returns a Python
    scalar (as float(numpy.sum(x)) would); an int axis returns an Array of x's shape without
    that axis, shape (1,) for a 1-D x (anygpu has no 0-d arrays)."""
    who = "anygpu." + name
    x = _operand(x, None, who, "x")
    ax = _axis(x, axis, who)
    dt, dev = x.dtype, x.device
    if dt.kind in _INT_KINDS:
        if name == "mean" or (name == "sum" and axis is None and dev.fp64):
            dt = _check_dtype("float64", dev, who)  # exact up to 2**53
        elif name == "sum":
            dt = numpy.dtype("uint32" if dt.kind == "u" else "int32")
    if name in ("argmin", "argmax"):
        dt = numpy.dtype("int32")
    shape = (1,) if ax == AXIS_ALL or x.ndim == 1 else x.shape[:ax] + x.shape[ax + 1:]
    out = empty(shape, dt, dev)
    _reductions[name](None, x._ptr, ax, out._ptr)
    if axis is not None:
        return out
    value = out.to_host()[0].item()
    return int(value) if name == "sum" and x.dtype.kind in _INT_KINDS else value


def _make_reduction(name):
    def f(x, axis=None):
        return _reduce(name, x, axis)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "numpy.%s(x, axis). " % name + _reduce.__doc__.split(". ", 1)[1]
    return f


sum, mean, min, max, argmin, argmax = map(_make_reduction, _reductions)
amin, amax = min, max


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
    conjugated); matrix . vector and vector . matrix go through gemv, matrix . matrix through
    gemm (float and complex dtypes)."""
    a = _operand(a, None, "anygpu.dot", "a")
    b = _operand(b, a.device, "anygpu.dot", "b")
    if a.ndim == 1 and b.ndim == 1:
        x, y, dt = _product_operands(a, b, "anygpu.dot")
        if x.shape != y.shape:
            raise error("AG_ERR_MISMATCH", "anygpu.dot: a has shape %s but b %s" % (x.shape, y.shape))
        if dt.kind in _INT_KINDS:
            dt = numpy.dtype("uint32" if dt.kind == "u" else "int32")
        out = empty((1,), dt, x.device)
        _dot(None, x._ptr, y._ptr, AXIS_ALL, out._ptr)
        return out.to_host()[0].item()
    if a.ndim > 2 or b.ndim > 2:
        raise error("AG_ERR_UNSUPPORTED", "anygpu.dot: arrays of more than 2 dimensions; use matmul for stacks")
    return _matmul("anygpu.dot", a, b)


def vdot(a, b):
    """numpy.vdot: conj(a) . b over all elements (flattened), a Python scalar (BLAS dotc)."""
    x, y, dt = _product_operands(a, b, "anygpu.vdot")
    if x.size != y.size:
        raise error("AG_ERR_MISMATCH", "anygpu.vdot: a has %d elements but b %d" % (x.size, y.size))
    out = empty((1,), dt, x.device)
    x, y = ravel(x), ravel(y)  # the views must outlive the call
    _blas_dot(None, x._ptr, y._ptr, dt.kind == "c", out._ptr)
    return out.to_host()[0].item()


def matmul(a, b):
    """a @ b (numpy.matmul) through BLAS: 2-D x 2-D and batched 3-D (gemm), 2-D x 1-D and
    1-D x 2-D (gemv). Float and complex dtypes."""
    return _matmul("anygpu.matmul", a, b)


def _matmul(who, a, b):
    a, b, dt = _product_operands(a, b, who)
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

def astype(a, dtype):
    """A new Array of @a's values in @dtype (ag_astype: numpy's conversions; complex to real
    is refused, take real() or abs())."""
    a = _operand(a, None, "anygpu.astype", "a")
    dtype_code(dtype, "anygpu.astype")
    out = empty(a.shape, dtype, a.device)
    if numpy.dtype(dtype) == a.dtype:
        _copy(None, a._ptr, out._ptr)
    else:
        _astype(None, a._ptr, out._ptr)
    return out


def reshape(a, shape, *more):
    """A view of @a with another shape (one length may be -1), sharing its memory."""
    a = _operand(a, None, "anygpu.reshape", "a")
    if more or isinstance(shape, numbers.Integral):
        shape = (shape,) + more
    shape = [int(d) for d in shape]
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


def full(shape, value, dtype=None, device=None):
    """A new Array of @shape filled with @value, in @dtype (default float32, complex64 for a
    complex value: anygpu's default precision) on @device."""
    if dtype is None:
        dtype = "complex64" if isinstance(value, (complex, numpy.complexfloating)) else "float32"
    out = empty(shape, dtype, device)
    _fill(out, value)
    return out


def _fill(out, value):
    value = complex(value)
    _fill_complex(None, out._ptr, value.real, value.imag)


def zeros(shape, dtype="float32", device=None):
    """A new Array of zeros (ag_fill)."""
    return full(shape, 0, dtype, device)


def ones(shape, dtype="float32", device=None):
    """A new Array of ones (ag_fill)."""
    return full(shape, 1, dtype, device)


def _like(a, dtype):
    return a.shape, a.dtype if dtype is None else dtype, a.device


def empty_like(a, dtype=None):
    return empty(*_like(a, dtype))


def zeros_like(a, dtype=None):
    return zeros(*_like(a, dtype))


def ones_like(a, dtype=None):
    return ones(*_like(a, dtype))


def full_like(a, value, dtype=None):
    shape, dt, dev = _like(a, dtype)
    return full(shape, value, dt, dev)


# ---- indexing --------------------------------------------------------------------------------

def _getitem(a, key):
    """a[key] as a view. anygpu's views select along the first axis, so a key is ints (each
    taking one index of the next axis) followed by at most one slice of step 1 and then only
    full slices (a[2], a[-1, 3], a[1:4], a[2, 1:3], a[1:3, :]). A 1-D array indexed by an int
    gives a view of shape (1,): anygpu has no 0-d arrays (float(a[i]) reads the value)."""
    keys = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in keys):
        at = keys.index(Ellipsis)
        keys = keys[:at] + (slice(None),) * (a.ndim - len(keys) + 1) + keys[at + 1:]
    if len(keys) > a.ndim:
        raise error("AG_ERR_OUT_OF_RANGE", "anygpu.Array: %d indices for %d dimensions" % (len(keys), a.ndim))
    view, sliced = a, False
    for k in keys:
        full_slice = isinstance(k, slice) and k == slice(None)
        if sliced and not full_slice:
            raise error("AG_ERR_UNSUPPORTED", "anygpu.Array: index %r selects inside an axis after a slice; anygpu "
                        "views select along the first axis only (copy with a[...].copy() first)" % (key,))
        if isinstance(k, (numbers.Integral, numpy.integer)) and not isinstance(k, bool):
            n = view.shape[0]
            i = int(k) + n if k < 0 else int(k)
            if not 0 <= i < n:
                raise error("AG_ERR_OUT_OF_RANGE", "anygpu.Array: index %d is out of range for length %d" % (k, n))
            view = _view(_index, view._ptr, i)
        elif isinstance(k, slice):
            start, stop, step = k.indices(view.shape[0])
            if step != 1:
                raise error("AG_ERR_UNSUPPORTED", "anygpu.Array: slice %r has step %d; anygpu views take step 1"
                            % (k, step))
            if not full_slice:
                view = _view(_slice, view._ptr, start, builtins.max(stop - start, 0))
            sliced = True
        else:
            raise error("AG_ERR_UNSUPPORTED", "anygpu.Array: index %r (a %s); anygpu indexes with ints and slices"
                        % (k, type(k).__name__))
    return view


def _setitem(a, key, value):
    """a[key] = value, written into the view _getitem gives: a scalar fills it (ag_fill: an
    integer array takes only integers in its range, never rounded or wrapped), an Array or
    array-like of the view's shape (or its trailing part) is converted to the view's dtype and
    copied in."""
    view = _getitem(a, key)
    if _is_scalar(value) or isinstance(value, bool):
        _fill(view, value)
        return
    if not isinstance(value, Array):  # converted as numpy assigns: to the view's dtype
        value = asarray(numpy.asarray(value, dtype=view.dtype), device=view.device)
    value = _as(value, view.dtype)
    if value.shape == view.shape:
        _copy(None, value._ptr, view._ptr)
    else:
        _fill(view, 0)
        _binary_op("add", view, value, out=view)


def _item(a):
    if a.size != 1:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: an array of %d elements has no single value; "
                    "take any() or all() of a comparison" % a.size)
    return a.to_host().reshape(-1)[0].item()


# ---- the Array's operators and methods -------------------------------------------------------

def _operators():
    def binop(name, reflected=False):
        if reflected:
            return lambda self, other: _binary_op(name, other, self)
        return lambda self, other: _binary_op(name, self, other)

    def inplace(name):
        return lambda self, other: _binary_op(name, self, other, out=self)

    def method(f):
        return lambda self, *args, **kwargs: f(self, *args, **kwargs)

    ops = {}
    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                         ("pow", "power")):
        ops["__%s__" % dunder] = binop(name)
        ops["__r%s__" % dunder] = binop(name, True)
        ops["__i%s__" % dunder] = inplace(name)
    for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                         ("gt", "greater"), ("ge", "greater_equal")):
        ops["__%s__" % dunder] = binop(name)
    ops.update({
        "__neg__": negative, "__abs__": abs, "__pos__": lambda self: self,
        "__matmul__": matmul, "__rmatmul__": lambda self, other: matmul(other, self),
        "__getitem__": _getitem, "__setitem__": _setitem, "__hash__": None, "item": _item,
        "__bool__": lambda self: bool(_item(self)), "__float__": lambda self: float(_item(self)),
        "__int__": lambda self: int(_item(self)), "__complex__": lambda self: complex(_item(self)),
        "real": property(real), "imag": property(imag),
        "ravel": ravel, "flatten": lambda self: ravel(self).copy(),
        "reshape": lambda self, *shape: reshape(self, *shape),
    })
    for f in (astype, sum, mean, min, max, argmin, argmax, dot, clip, conj):
        ops[f.__name__] = method(f)
    ops["conjugate"] = ops["conj"]
    for name, f in ops.items():
        setattr(Array, name, f)


_operators()
