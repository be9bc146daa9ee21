"""The array API standard's constants, dtypes and dtype functions, its creation functions that
compute from indices (arange, linspace, eye, tril, triu, meshgrid), all, any, var and std,
cumulative_sum, sort, argsort, take, take_along_axis, searchsorted, nonzero, count_nonzero, the
four unique functions, concat, stack, unstack, roll, tile and repeat, vecdot and tensordot, and the manipulation
functions that are views of the
operations in _ops.py: the names a program written against the
standard looks up in ``anygpu`` besides the operations themselves.

dtypes are numpy's dtype objects (``anygpu.float32 == numpy.dtype("float32")``), which Array.dtype
gives, so either spelling compares equal. Promotion (``result_type``, ``can_cast``) is the C
library's ``ag_result_type``: the standard's table, and numpy's where the standard leaves a
pair open (an integer with a float, u64 with a signed integer), as the operations compute.
"""

import builtins
import ctypes
import math
import operator

import numpy

import collections

from ._core import Array, asarray, empty
from ._lib import AG_DTYPE, DTYPES, UnsupportedError, error, fn, named
from ._ops import (_axes, _check_dtype, _float_of_int, _operand, astype, broadcast_to, conj, divide,
                   expand_dims, full_like, matmul, maximum, multiply, not_equal, power, ravel, reshape, subtract,
                   transpose)
from ._ops import where as _where
from ._ops import sum as _sum
from . import _ops

__all__ = [
    "e", "inf", "nan", "newaxis", "pi",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "finfo", "iinfo", "isdtype", "result_type", "can_cast",
    "pow", "matrix_transpose", "broadcast_arrays", "moveaxis",
    "arange", "linspace", "eye", "tril", "triu", "meshgrid", "all", "any", "var", "std",
    "concat", "concatenate", "stack", "unstack", "roll", "tile", "repeat", "vecdot", "tensordot",
    "cumulative_sum", "cumsum", "sort", "argsort", "take", "take_along_axis", "searchsorted", "nonzero",
    "count_nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values",
]

_PY_BOOL = type(True)  # the builtin, before this module's bool (a dtype) hides it

e, inf, nan, pi = math.e, math.inf, math.nan, math.pi
newaxis = None

(bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64,
 complex128) = (numpy.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                         "uint64", "float32", "float64", "complex64", "complex128"))

_p, _d = ctypes.c_void_p, ctypes.c_double
_result_type = fn("ag_result_type", [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)])
_arange = fn("ag_arange", [_p, _d, _d, _p])
_linspace = fn("ag_linspace", [_p, _d, _d, _d, _d, ctypes.c_bool, _p])
_eye = fn("ag_eye", [_p, ctypes.c_int64, _p])
_tril = fn("ag_tril", [_p, _p, ctypes.c_int64, _p])
_AXES = ctypes.POINTER(ctypes.c_int)
_any_all = {name: fn("ag_%s_axes" % name, [_p, _p, ctypes.c_int, _AXES, _p]) for name in ("any", "all")}
_var_std = {name: fn("ag_%s_axes" % name, [_p, _p, ctypes.c_int, _AXES, _d, _p]) for name in ("var", "std")}
_concat = fn("ag_concat", [_p, ctypes.c_int, ctypes.POINTER(_p), ctypes.c_int, _p])
_roll = fn("ag_roll", [_p, _p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64), _AXES, _p])
_tile = fn("ag_tile", [_p, _p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t), _p])
_repeat = fn("ag_repeat", [_p, _p, ctypes.c_size_t, ctypes.c_int, _p])
_triu = fn("ag_triu", [_p, _p, ctypes.c_int64, _p])
_cumulative_sum = fn("ag_cumulative_sum", [_p, _p, ctypes.c_int, _p])
_sorts = {name: fn("ag_" + name, [_p, _p, ctypes.c_int, ctypes.c_bool, _p]) for name in ("sort", "argsort")}
_takes = {name: fn("ag_" + name, [_p, _p, _p, ctypes.c_int, _p]) for name in ("take", "take_along_axis")}
_searchsorted = fn("ag_searchsorted", [_p, _p, _p, ctypes.c_bool, _p])
_PP = ctypes.POINTER(_p)
_nonzero = fn("ag_nonzero", [_p, _p, _PP])
_mask_select = fn("ag_mask_select", [_p, _p, _p, _PP])
_ag_unique = fn("ag_unique", [_p, _p, _PP, _PP, _PP, _PP])


def _dtype_of(x, who, name):
    """@x, an Array or a dtype (anything numpy.dtype takes), as a dtype anygpu has."""
    if isinstance(x, Array):
        return x.dtype
    if isinstance(x, (_PY_BOOL, int, float, complex)):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is a Python %s; pass an Array or a dtype"
                    % (who, name, type(x).__name__))
    try:
        dt = numpy.dtype(x)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is %r, neither an Array nor a dtype" % (who, name, x)) from None
    if dt.name not in AG_DTYPE:
        raise error("AG_ERR_UNSUPPORTED", "%s: %s is %s, which anygpu has no dtype for" % (who, name, dt.name))
    return dt



finfo_object = collections.namedtuple("finfo_object", "bits eps max min smallest_normal dtype resolution tiny")
finfo_object.__doc__ = """The limits of a floating dtype, as the standard's finfo object: bits an int; eps, max,
min, smallest_normal (and numpy's resolution and tiny, which is smallest_normal) Python
floats; dtype the real floating dtype (a complex dtype's parts')."""


def finfo(type):
    """The limits of a floating dtype (or an Array's), as the standard's finfo: a finfo_object
    (bits, eps, max, min, smallest_normal, dtype; complex dtypes give their parts')."""
    dt = _dtype_of(type, "anygpu.finfo", "type")
    if dt.kind not in "fc":
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.finfo: type is %s, not a floating dtype (iinfo takes integers)"
                    % dt.name)
    f = numpy.finfo(dt)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), f.dtype,
                        float(f.resolution), float(f.smallest_normal))


def iinfo(type):
    """The limits of an integer dtype (or an Array's), as the standard's iinfo: bits, max, min
    and dtype (numpy.iinfo's object)."""
    dt = _dtype_of(type, "anygpu.iinfo", "type")
    if dt.kind not in "ui":
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.iinfo: type is %s, not an integer dtype (finfo takes floats)"
                    % dt.name)
    return numpy.iinfo(dt)


_KINDS = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "ui", "real floating": "f",
    "complex floating": "c", "numeric": "uifc",
}


def isdtype(dtype, kind):
    """Whether @dtype is of @kind, as the standard's isdtype: @kind a dtype, one of the names
    "bool", "signed integer", "unsigned integer", "integral", "real floating", "complex
    floating", "numeric", or a tuple of those (any of them)."""
    dt = _dtype_of(dtype, "anygpu.isdtype", "dtype")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dt, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.isdtype: kind %r is none of %s"
                        % (kind, ", ".join(repr(k) for k in _KINDS)))
        return dt.kind in _KINDS[kind]
    return dt == _dtype_of(kind, "anygpu.isdtype", "kind")


def result_type(*arrays_and_dtypes):
    """The dtype that operations on Arrays and dtypes of these dtypes compute in: ag_result_type
    of each in turn (the standard's promotion, numpy's where the standard leaves a pair
    open)."""
    who = "anygpu.result_type"
    if not arrays_and_dtypes:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: give at least one Array or dtype" % who)
    dts = [_dtype_of(x, who, "argument %d" % i) for i, x in enumerate(arrays_and_dtypes)]
    t = AG_DTYPE[dts[0].name]
    out = ctypes.c_int()
    for dt in dts[1:]:
        _result_type(t, AG_DTYPE[dt.name], ctypes.byref(out))
        t = out.value
    return numpy.dtype(DTYPES[t])


def can_cast(from_, to):
    """Whether an Array of @from_'s dtype (an Array or a dtype) converts to @to without leaving
    the promotion rules: result_type(from_, to) is @to (int8 to int16 or float32, yes; float32 to
    int32 or float64 to float32, no)."""
    f = _dtype_of(from_, "anygpu.can_cast", "from_")
    t = _dtype_of(to, "anygpu.can_cast", "to")
    return result_type(f, t) == t


def pow(x1, x2):
    """x1 ** x2, the standard's name for power."""
    return power(x1, x2)


def matrix_transpose(x):
    """A view of @x with its last two axes swapped (x.mT); @x has at least 2 dimensions."""
    x = _operand(x, None, "anygpu.matrix_transpose", "x")
    if x.ndim < 2:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.matrix_transpose: x has %d dimension(s); it swaps the last two"
                    % x.ndim)
    return transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def broadcast_arrays(*arrays):
    """Views of the Arrays broadcast to one shape by numpy's rules (numpy.broadcast_arrays), a
    list; no copies."""
    who = "anygpu.broadcast_arrays"
    arrays = [_operand(a, None, who, "arrays[%d]" % i) for i, a in enumerate(arrays)]
    try:
        shape = numpy.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise error("AG_ERR_MISMATCH", "%s: shapes %s do not broadcast together"
                    % (who, ", ".join(str(a.shape) for a in arrays))) from None
    return [broadcast_to(a, shape) for a in arrays]


def moveaxis(x, source, destination):
    """A view of @x with the axes @source (an int or a tuple) moved to the positions
    @destination, the others keeping their order (numpy.moveaxis); no copy."""
    who = "anygpu.moveaxis"
    x = _operand(x, None, who, "x")

    def axes(a, name):
        try:
            a = [operator.index(a)]
        except TypeError:
            try:
                a = [operator.index(v) for v in a]
            except TypeError:
                raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s %r is not an integer or a tuple of them"
                            % (who, name, a)) from None
        for v in a:
            if not -x.ndim <= v < x.ndim:
                raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s %d is outside x's %d axes" % (who, name, v, x.ndim))
        a = [v % x.ndim for v in a]
        if len(set(a)) != len(a):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s repeats an axis" % (who, name))
        return a

    src, dst = axes(source, "source"), axes(destination, "destination")
    if len(src) != len(dst):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: source has %d axes and destination %d" % (who, len(src), len(dst)))
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, tuple(order))


# ---- creation from indices --------------------------------------------------------------------

def _number(v, who, name):
    if isinstance(v, _PY_BOOL) or not isinstance(v, (int, float, numpy.integer, numpy.floating)):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is %r, not a real number" % (who, name, v))
    return v


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in [start, stop) by @step, as numpy.arange and the standard's arange
    (arange(n) counts from 0): int64 when start, stop and step are all integers, else float32
    (anygpu's default float; numpy gives float64), or @dtype (integers and real floats). The
    count is ceil((stop - start) / step); the values are numpy's for the dtype (start + i *
    delta, delta the difference of the first two values in the dtype)."""
    who = "anygpu.arange"
    if stop is None:
        start, stop = 0, start
    for v, name in ((start, "start"), (stop, "stop"), (step, "step")):
        _number(v, who, name)
    integral = builtins.all(isinstance(v, (int, numpy.integer)) for v in (start, stop, step))
    if step == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: step is 0" % who)
    if integral:
        n = max(0, -((int(start) - int(stop)) // int(step)))
    else:
        n = max(0, math.ceil((float(stop) - float(start)) / float(step)))
    dt = numpy.dtype(dtype if dtype is not None else "int64" if integral else "float32")
    out = empty((n,), dt, device)
    _arange(None, float(start), float(step), out._ptr)
    return out


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """@num evenly spaced values from @start to @stop (included when @endpoint), as
    numpy.linspace and the standard's: float32 (complex64 for a complex start or stop), or
    @dtype (a float or complex dtype). Computed in the dtype's precision (numpy computes in
    float64 and rounds: float32 values may differ by an ulp or two)."""
    who = "anygpu.linspace"
    try:
        num = operator.index(num)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: num is %r, not an integer" % (who, num)) from None
    if num < 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: num is %d, below 0" % (who, num))
    for v, name in ((start, "start"), (stop, "stop")):
        if isinstance(v, _PY_BOOL) or not isinstance(v, (int, float, complex, numpy.number)):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is %r, not a number" % (who, name, v))
    cx = isinstance(start, (complex, numpy.complexfloating)) or isinstance(stop, (complex, numpy.complexfloating))
    dt = numpy.dtype(dtype if dtype is not None else "complex64" if cx else "float32")
    a, b = complex(start), complex(stop)
    out = empty((num,), dt, device)
    _linspace(None, a.real, a.imag, b.real, b.imag, _PY_BOOL(endpoint), out._ptr)
    return out


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """An n_rows x n_cols matrix (n_cols defaults to n_rows) of zeros with ones on diagonal @k
    (above the main one for k > 0), in @dtype (default float32), as numpy.eye and the
    standard's."""
    who = "anygpu.eye"
    try:
        n_rows, k = operator.index(n_rows), operator.index(k)
        n_cols = n_rows if n_cols is None else operator.index(n_cols)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: n_rows, n_cols and k must be integers" % who) from None
    out = empty((n_rows, n_cols), numpy.dtype(dtype or "float32"), device)
    _eye(None, k, out._ptr)
    return out


def _tri(call, who, x, k):
    x = _operand(x, None, who, "x")
    try:
        k = operator.index(k)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: k is %r, not an integer" % (who, k)) from None
    out = empty(x.shape, x.dtype, x.device)
    call(None, x._ptr, k, out._ptr)
    return out


def tril(x, /, *, k=0):
    """A copy of @x with the elements above diagonal @k of each matrix (the last two axes)
    zeroed, as numpy.tril and the standard's."""
    return _tri(_tril, "anygpu.tril", x, k)


def triu(x, /, *, k=0):
    """A copy of @x with the elements below diagonal @k of each matrix zeroed (numpy.triu)."""
    return _tri(_triu, "anygpu.triu", x, k)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from 1-D Arrays, as numpy.meshgrid and the standard's: a list of new
    Arrays of one shape, (len(y), len(x), ...) for indexing "xy" (the first two axes
    exchanged), (len(x), len(y), ...) for "ij"."""
    who = "anygpu.meshgrid"
    if indexing not in ("xy", "ij"):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: indexing is %r, neither 'xy' nor 'ij'" % (who, indexing))
    arrays = [_operand(a, None, who, "arrays[%d]" % i) for i, a in enumerate(arrays)]
    for i, a in enumerate(arrays):
        if a.ndim != 1:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: arrays[%d] has %d dimensions; meshgrid takes 1-D arrays"
                        % (who, i, a.ndim))
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" and len(arrays) > 1 else i
        along = [1] * len(arrays)
        along[axis] = a.shape[0]
        out.append(astype(broadcast_to(reshape(a, tuple(along)), tuple(shape)), a.dtype))
    return out


# ---- all, any, var, std -----------------------------------------------------------------------

def _reduced(name, x, axis, keepdims, dtype, call):
    """Reduction @name of @x over @axis (None, an int or a tuple) into a new Array of @dtype:
    @call(caxes, naxes, out) runs the C function. A 0-d Array for axis None without @keepdims,
    as the standard's and the package's other reductions give."""
    who = "anygpu." + name
    axes = _axes(x, axis, who)
    shape = tuple(1 if d in axes else n for d, n in enumerate(x.shape)) if keepdims else \
        tuple(n for d, n in enumerate(x.shape) if d not in axes)
    out = empty(shape, dtype, x.device)
    caxes = (ctypes.c_int * max(len(axes), 1))(*axes)
    call(caxes, len(axes), out)
    return out


def any(x, /, *, axis=None, keepdims=False):
    """Whether any element of @x is nonzero (NaN is; complex: either part) over @axis (None:
    every element, an int or a tuple), as numpy.any and the standard's: a bool Array, 0-d for
    axis None (with the reduced axes as length 1 when @keepdims)."""
    x = _operand(x, None, "anygpu.any", "x")
    if axis == () or (x.ndim == 0 and axis is not None):
        return not_equal(x, 0)
    return _reduced("any", x, axis, keepdims, bool,
                    lambda caxes, n, out: _any_all["any"](None, x._ptr, n, caxes if n else None, out._ptr))


def all(x, /, *, axis=None, keepdims=False):
    """Whether every element of @x is nonzero over @axis, as numpy.all and the standard's (any
    says the rest)."""
    x = _operand(x, None, "anygpu.all", "x")
    if axis == () or (x.ndim == 0 and axis is not None):
        return not_equal(x, 0)
    return _reduced("all", x, axis, keepdims, bool,
                    lambda caxes, n, out: _any_all["all"](None, x._ptr, n, caxes if n else None, out._ptr))


def _var_std_of(name, x, axis, correction, keepdims, ddof):
    who = "anygpu." + name
    x = _operand(x, None, who, "x")
    if ddof is not None:
        correction = ddof
    if isinstance(correction, _PY_BOOL) or not isinstance(correction, (int, float, numpy.integer, numpy.floating)):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: correction is %r, not a number" % (who, correction))
    dt = _check_dtype(_float_of_int(x.dtype), x.device, who)
    x = x if x.dtype == dt else astype(x, dt)
    if axis == ():  # each element alone: no spread
        d = subtract(x, x)
        r = divide(multiply(d, d), max(1.0 - float(correction), 0.0))
        return power(r, 0.5) if name == "std" else r
    return _reduced(name, x, axis, keepdims, dt,
                    lambda caxes, n, out: _var_std[name](None, x._ptr, n, caxes if n else None, float(correction),
                                                         out._ptr))


def var(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    """The variance of @x over @axis (None: every element, an int or a tuple): the mean of the
    squared deviations from the mean, the sum divided by N - @correction (numpy's ddof, which is
    taken too), as numpy.var and the standard's. float32 and float64 (integers as float64); an
    Array, 0-d for axis None without @keepdims."""
    return _var_std_of("var", x, axis, correction, keepdims, ddof)


def std(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    """The standard deviation of @x, the square root of var (which says the rest)."""
    return _var_std_of("std", x, axis, correction, keepdims, ddof)


# ---- concat, stack, unstack, roll --------------------------------------------------------------

def _arrays(arrays, who):
    if isinstance(arrays, Array) or not isinstance(arrays, (list, tuple)):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: arrays is a %s, not a list or tuple of Arrays"
                    % (who, type(arrays).__name__))
    if not arrays:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: arrays is empty" % who)
    return [_operand(a, None, who, "arrays[%d]" % i) for i, a in enumerate(arrays)]


def _joined(who, arrays, axis):
    """ag_concat of Arrays @arrays along @axis into a new Array of their promoted dtype."""
    shape = list(arrays[0].shape)
    if not shape:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: arrays[0] is 0-d; arrays are joined along an axis" % who)
    if not -len(shape) <= axis < len(shape):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is outside the arrays' %d axes" % (who, axis, len(shape)))
    first = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != len(first) or builtins.any(n != m for d, (n, m) in enumerate(zip(a.shape, first))
                                                if d != axis % len(first)):
            raise error("AG_ERR_MISMATCH", "%s: arrays[%d] has shape %s but arrays[0] %s: they must agree but along "
                        "axis %d" % (who, i, a.shape, first, axis))
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = empty(tuple(shape), result_type(*arrays), arrays[0].device)
    ptrs = (_p * len(arrays))(*(a._ptr for a in arrays))
    _concat(None, len(arrays), ptrs, axis, out._ptr)
    return out


def concat(arrays, /, *, axis=0):
    """The Arrays of @arrays joined along @axis (None: each flattened, joined into one axis),
    as the standard's concat and numpy.concatenate: their shapes agree but along axis, their
    dtypes promote (result_type). Each is copied into its place on the device."""
    who = "anygpu.concat"
    arrays = _arrays(arrays, who)
    if axis is None:
        return _joined(who, [ravel(a) for a in arrays], 0)
    try:
        axis = operator.index(axis)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis is %r, not an integer or None" % (who, axis)) from None
    return _joined(who, arrays, axis)


def concatenate(arrays, axis=0):
    """numpy's name for concat."""
    return concat(arrays, axis=axis)


def stack(arrays, /, *, axis=0):
    """The Arrays of @arrays, all of one shape, stacked along a new axis @axis of the result, as
    the standard's stack and numpy.stack."""
    who = "anygpu.stack"
    arrays = _arrays(arrays, who)
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != arrays[0].shape:
            raise error("AG_ERR_MISMATCH", "%s: arrays[%d] has shape %s but arrays[0] %s"
                        % (who, i, a.shape, arrays[0].shape))
    try:
        axis = operator.index(axis)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis is %r, not an integer" % (who, axis)) from None
    nd = arrays[0].ndim + 1
    if not -nd <= axis < nd:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is outside the result's %d axes" % (who, axis, nd))
    return _joined(who, [expand_dims(a, axis) for a in arrays], axis)


def unstack(x, /, *, axis=0):
    """A tuple of views of @x, one per index along @axis, each without that axis (the
    standard's unstack)."""
    who = "anygpu.unstack"
    x = _operand(x, None, who, "x")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis is %r, not an integer" % (who, axis)) from None
    if not -x.ndim <= axis < x.ndim:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is outside x's %d axes" % (who, axis, x.ndim))
    axis %= x.ndim
    return tuple(x[(slice(None),) * axis + (i,)] for i in range(x.shape[axis]))


def roll(x, /, shift, *, axis=None):
    """@x with its elements moved @shift places along @axis (an int or a tuple, with @shift an
    int or a tuple as long), wrapping around, as numpy.roll and the standard's; with axis None
    the flattened array is rolled and the shape kept. A new Array."""
    who = "anygpu.roll"
    x = _operand(x, None, who, "x")
    try:
        shifts = [operator.index(shift)] if not isinstance(shift, (tuple, list)) else \
            [operator.index(v) for v in shift]
        axes = None if axis is None else [operator.index(axis)] if not isinstance(axis, (tuple, list)) else \
            [operator.index(v) for v in axis]
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: shift and axis must be integers or tuples of them" % who) from None
    if axes is None and len(shifts) != 1:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: with axis None, shift is one integer" % who)
    if axes is not None:
        if len(shifts) == 1 and len(axes) > 1:
            shifts = shifts * len(axes)
        if len(shifts) != len(axes):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %d shifts for %d axes" % (who, len(shifts), len(axes)))
    out = empty(x.shape, x.dtype, x.device)
    if x.size:
        n = len(shifts)
        _roll(None, x._ptr, n, (ctypes.c_int64 * n)(*shifts), None if axes is None else (ctypes.c_int * n)(*axes),
              out._ptr)
    return out


def tile(x, repetitions, /):
    """@x repeated along each axis as @repetitions (a tuple, or an int) says, as numpy.tile and
    the standard's: x's shape and repetitions aligned at their last axes, the shorter padded
    with 1s in front. A new Array."""
    who = "anygpu.tile"
    x = _operand(x, None, who, "x")
    try:
        reps = [operator.index(repetitions)] if not isinstance(repetitions, (tuple, list)) else \
            [operator.index(v) for v in repetitions]
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: repetitions is %r, not an integer or a tuple of them"
                    % (who, repetitions)) from None
    if builtins.any(v < 0 for v in reps):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: repetitions %r has a negative entry" % (who, repetitions))
    nd = max(len(reps), x.ndim)
    shape = (1,) * (nd - x.ndim) + x.shape
    full = [1] * (nd - len(reps)) + reps
    out = empty(tuple(n * r for n, r in zip(shape, full)), x.dtype, x.device)
    _tile(None, x._ptr, len(reps), (ctypes.c_size_t * max(len(reps), 1))(*reps), out._ptr)
    return out


def repeat(x, repeats, /, *, axis=None):
    """Each element of @x repeated in place, as numpy.repeat and the standard's: @repeats an int
    (every element that many times: one copy on the device) or a sequence or Array of counts,
    one per index along @axis (read to the host; one copy per index); axis None repeats the
    flattened array. A new Array."""
    who = "anygpu.repeat"
    x = _operand(x, None, who, "x")
    if axis is not None:
        try:
            axis = operator.index(axis)
        except TypeError:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis is %r, not an integer or None" % (who, axis)) from None
        if not -x.ndim <= axis < x.ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is outside x's %d axes" % (who, axis, x.ndim))
        axis %= x.ndim
    else:
        x = ravel(x)
    counts = repeats.to_host() if isinstance(repeats, Array) else numpy.asarray(repeats)
    if counts.dtype.kind not in "ui" or counts.ndim > 1 or (counts < 0).any():
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: repeats must be a count (an integer 0 or more) or a 1-D sequence "
                    "of them" % who)
    along = 0 if axis is None else axis
    if counts.ndim == 1 and counts.size == 1:
        counts = counts.reshape(())
    if counts.ndim == 0:
        r = int(counts)
        shape = list(x.shape)
        shape[along] *= r
        out = empty(tuple(shape), x.dtype, x.device)
        _repeat(None, x._ptr, r, along, out._ptr)
        return out
    if counts.size != x.shape[along]:
        raise error("AG_ERR_MISMATCH", "%s: %d repeats for %d indices along axis %d"
                    % (who, counts.size, x.shape[along], along))
    pieces = [repeat(x[(slice(None),) * along + (slice(i, i + 1),)], int(c), axis=along)
              for i, c in enumerate(counts) if c > 0]
    if not pieces:
        shape = list(x.shape)
        shape[along] = 0
        return empty(tuple(shape), x.dtype, x.device)
    return concat(pieces, axis=along)


# ---- vecdot, tensordot ---------------------------------------------------------------------------

def vecdot(x1, x2, /, *, axis=-1):
    """The dot product of vectors along @axis, conjugating @x1 (the standard's vecdot:
    sum(conj(x1) * x2, axis)), the other axes broadcast as numpy's: an Array of their
    promoted dtype. A product and a sum over the axis on the device."""
    who = "anygpu.vecdot"
    x1, x2 = _operand(x1, None, who, "x1"), _operand(x2, None, who, "x2")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis is %r, not an integer" % (who, axis)) from None
    for x, name in ((x1, "x1"), (x2, "x2")):
        if not -x.ndim <= axis < x.ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is outside %s's %d axes" % (who, axis, name, x.ndim))
    if axis >= 0:  # counted from the front: one axis of both only when their dimensions agree
        if x1.ndim != x2.ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d counts from the front, but x1 has %d dimensions and x2 %d:"
                        " give it from the end (negative)" % (who, axis, x1.ndim, x2.ndim))
        axis -= x1.ndim
    if x1.shape[axis] != x2.shape[axis]:
        raise error("AG_ERR_MISMATCH", "%s: x1 has %d elements along axis %d and x2 %d"
                    % (who, x1.shape[axis], axis, x2.shape[axis]))
    dt = result_type(x1, x2)
    if dt == bool:
        raise error("AG_ERR_UNSUPPORTED", "%s: x1 and x2 are bool; vecdot takes numbers" % who)
    product = multiply(conj(x1) if dt.kind == "c" else x1, x2)
    return _sum(product, axis=axis, dtype=dt)


def tensordot(x1, x2, /, *, axes=2):
    """The sum of products over axes of @x1 and @x2, as numpy.tensordot and the standard's:
    @axes an int n (x1's last n axes with x2's first n) or a pair of sequences naming them.
    The contracted axes are brought together (a copy where the views do not allow it) and
    multiplied as matrices by BLAS (ag_gemm) for float and complex dtypes, as broadcast
    products summed on the device for integers (which wrap, as numpy's)."""
    who = "anygpu.tensordot"
    x1, x2 = _operand(x1, None, who, "x1"), _operand(x2, None, who, "x2")
    try:
        if isinstance(axes, (tuple, list)):
            if len(axes) != 2:
                raise TypeError
            a1 = [operator.index(a) for a in axes[0]]
            a2 = [operator.index(a) for a in axes[1]]
        else:
            n = operator.index(axes)
            if n < 0 or n > x1.ndim or n > x2.ndim:
                raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes is %d, more than x1's %d or x2's %d axes, or negative"
                            % (who, n, x1.ndim, x2.ndim))
            a1, a2 = list(range(x1.ndim - n, x1.ndim)), list(range(n))
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes is %r, neither an integer nor a pair of sequences of them"
                    % (who, axes)) from None
    if len(a1) != len(a2):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes names %d axes of x1 and %d of x2" % (who, len(a1), len(a2)))
    for axs, x, name in ((a1, x1, "x1"), (a2, x2, "x2")):
        for a in axs:
            if not -x.ndim <= a < x.ndim:
                raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is outside %s's %d axes" % (who, a, name, x.ndim))
    a1, a2 = [a % x1.ndim for a in a1], [a % x2.ndim for a in a2]
    if len(set(a1)) != len(a1) or len(set(a2)) != len(a2):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes repeats an axis" % who)
    for i, j in zip(a1, a2):
        if x1.shape[i] != x2.shape[j]:
            raise error("AG_ERR_MISMATCH", "%s: x1's axis %d has %d elements and x2's axis %d has %d"
                        % (who, i, x1.shape[i], j, x2.shape[j]))
    free1 = [a for a in range(x1.ndim) if a not in a1]
    free2 = [a for a in range(x2.ndim) if a not in a2]
    k = math.prod(x1.shape[a] for a in a1)
    m, n = math.prod(x1.shape[a] for a in free1), math.prod(x2.shape[a] for a in free2)
    left = reshape(transpose(x1, tuple(free1 + a1)), (m, k))
    right = reshape(transpose(x2, tuple(a2 + free2)), (k, n))
    shape = tuple(x1.shape[a] for a in free1) + tuple(x2.shape[a] for a in free2)
    dt = result_type(x1, x2)
    if dt.kind in "fc":
        return reshape(matmul(left, right), shape)
    if dt == bool:
        raise error("AG_ERR_UNSUPPORTED", "%s: x1 and x2 are bool; tensordot takes numbers" % who)
    return reshape(_integer_matmul(astype(left, dt, copy=False), astype(right, dt, copy=False)), shape)


def _integer_matmul(left, right):
    """left (m, k) @ right (k, n) for integers, which BLAS lacks: products broadcast to (rows,
    k, n) and summed over k in the dtype (wrapping as numpy's), in blocks of rows of at most
    2^22 products, on the device."""
    (m, k), n = left.shape, right.shape[1]
    if m == 0 or n == 0 or k == 0:
        return _ops.zeros((m, n), left.dtype, left.device)
    step = builtins.max(1, (1 << 22) // (k * n))
    blocks = []
    for r in range(0, m, step):
        rows = left[r:r + step]
        product = multiply(reshape(rows, rows.shape + (1,)), reshape(right, (1, k, n)))
        blocks.append(_sum(product, axis=1, dtype=left.dtype))
    return blocks[0] if len(blocks) == 1 else concat(blocks)


# ---- cumulative sums -----------------------------------------------------------------------------

def _scan_dtype(x, dtype, who):
    """The dtype a cumulative sum of @x is taken and given in: @dtype, else the standard's (and
    numpy's) for sums: int64 for bool and signed integers, uint64 for unsigned, x's own for
    floats and complex."""
    if dtype is not None:
        return _check_dtype(dtype, x.device, who)
    if x.dtype == bool or x.dtype.kind == "i":
        return int64
    return uint64 if x.dtype.kind == "u" else x.dtype


def _cumulative(x, axis, dt, include_initial):
    """The cumulative sums of @x along @axis (an axis of x) in @dt: a new Array, one element
    longer along axis when @include_initial (the first 0)."""
    if x.dtype != dt:
        x = astype(x, dt)  # a new Array, summed in place unless the 0 goes first
        if not include_initial:
            if x.size:
                _cumulative_sum(None, x._ptr, axis, x._ptr)
            return x
    shape = list(x.shape)
    shape[axis] += include_initial
    out = empty(tuple(shape), dt, x.device)
    view = out
    if include_initial:
        out[(slice(None),) * axis + (slice(0, 1),)] = 0
        view = out[(slice(None),) * axis + (slice(1, None),)]
    if x.size:
        _cumulative_sum(None, x._ptr, axis, view._ptr)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The cumulative sums of @x along @axis, as the standard's cumulative_sum (2023.12): axis may
    be None only for a 1-D x; @dtype as for sum (default int64 for bool and signed integers,
    uint64 for unsigned, x's own for floats and complex); @include_initial puts the empty sum
    (0) first, so the axis grows by one. Integer sums wrap in the dtype, as numpy's do. A new
    Array, computed on the device (ag_cumulative_sum)."""
    who = "anygpu.cumulative_sum"
    x = _operand(x, None, who, "x")
    if x.ndim == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: x is 0-d; a cumulative sum runs along an axis" % who)
    if axis is None:
        if x.ndim != 1:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: x has %d dimensions, so axis must be given" % (who, x.ndim))
        axis = 0
    (axis,) = _axes(x, axis, who, one_only=True)
    if not isinstance(include_initial, _PY_BOOL):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: include_initial is %r, not True or False" % (who, include_initial))
    return _cumulative(x, axis, _scan_dtype(x, dtype, who), include_initial)


def cumsum(a, axis=None, dtype=None):
    """numpy.cumsum: the cumulative sums of @a along @axis, or of the flattened array when axis
    is None; dtypes as cumulative_sum's. A new Array."""
    who = "anygpu.cumsum"
    a, axis = _along(_operand(a, None, who, "a"), axis, who, "a", "a cumulative sum runs")
    return _cumulative(a, axis, _scan_dtype(a, dtype, who), False)


def _along(x, axis, who, name, what):
    """(x, axis) for numpy's functions along one axis, where axis None takes the flattened x;
    a 0-d x with an axis refused (@what: "take gathers", ...)."""
    if axis is None:
        return ravel(x), 0
    if x.ndim == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is 0-d; %s along an axis" % (who, name, what))
    (axis,) = _axes(x, axis, who, one_only=True)
    return x, axis


# ---- sorting -------------------------------------------------------------------------------------

def _sorted(name, x, axis, descending, stable):
    who = "anygpu." + name
    x = _operand(x, None, who, "x")
    if x.ndim == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: x is 0-d; a sort runs along an axis" % who)
    (axis,) = _axes(x, axis, who, one_only=True)
    for value, kw in ((descending, "descending"), (stable, "stable")):
        if not isinstance(value, _PY_BOOL):
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is %r, not True or False" % (who, kw, value))
    out = empty(x.shape, int64 if name == "argsort" else x.dtype, x.device)
    if x.size:
        _sorts[name](None, x._ptr, axis, descending, out._ptr)
    return out


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """@x sorted along @axis, as the standard's sort: ascending, or @descending; always stable
    (equal elements keep their order, descending too), whatever @stable says. Real dtypes and
    bool; NaN last ascending, first descending. A new Array, sorted on the device (ag_sort, a
    radix sort)."""
    return _sorted("sort", x, axis, descending, stable)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The int64 indices that sort @x along @axis, as the standard's argsort and numpy's
    argsort(kind="stable"): ascending, or @descending; always stable. A new Array, computed on
    the device (ag_argsort)."""
    return _sorted("argsort", x, axis, descending, stable)


# ---- indexing, searching and sets ----------------------------------------------------------------

def _adopt(ptr):
    """The Array of a new ag_array handle the C library made (its results of data-dependent
    size)."""
    return Array(ptr.value)


def _indices(indices, x, who, name="indices"):
    """@indices (an integer Array or array-like) as an int64 Array on x's device."""
    if not isinstance(indices, Array):
        indices = asarray(indices, device=x.device)
    if indices.device != x.device:
        raise error("AG_ERR_MISMATCH", "%s: %s is on %s and x on %s" % (who, name, indices.device.spec, x.device.spec))
    if indices.dtype.kind not in "iu":
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s is %s; indices are integers" % (who, name, indices.dtype.name))
    return indices if indices.dtype == int64 else astype(indices, int64)


def take(x, indices, /, *, axis=None):
    """The elements of @x at @indices (integers, negative counting from the end) along @axis, as
    the standard's take (axis may be None for a 1-D x) and numpy.take (axis None: the
    flattened x). A new Array gathered on the device (ag_take); an index out of range raises
    OutOfRangeError."""
    who = "anygpu.take"
    x, axis = _along(_operand(x, None, who, "x"), axis, who, "x", "take gathers")
    idx = _indices(indices, x, who)
    flat = reshape(idx, (idx.size,))
    out = empty(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:], x.dtype, x.device)
    if out.size:
        _takes["take"](None, x._ptr, flat._ptr, axis, out._ptr)
    return reshape(out, x.shape[:axis] + idx.shape + x.shape[axis + 1:])


def take_along_axis(x, indices, /, *, axis=-1):
    """x's elements at @indices along @axis (numpy.take_along_axis and the standard's): indices
    has x's dimensions, and its lengths and x's broadcast against each other but along the
    axis. A new Array of indices' (broadcast) shape, gathered on the device
    (ag_take_along_axis)."""
    who = "anygpu.take_along_axis"
    x = _operand(x, None, who, "x")
    idx = _indices(indices, x, who)
    if idx.ndim != x.ndim:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: indices has %d dimensions and x %d; they must agree"
                    % (who, idx.ndim, x.ndim))
    if x.ndim == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: x is 0-d; take_along_axis gathers along an axis" % who)
    (axis,) = _axes(x, axis, who, one_only=True)
    shape = []
    for d, (a, b) in enumerate(zip(x.shape, idx.shape)):
        if d != axis and a != b and 1 not in (a, b):
            raise error("AG_ERR_MISMATCH", "%s: x's length %d and indices' %d along axis %d do not broadcast"
                        % (who, a, b, d))
        shape.append(builtins.max(a, b) if 0 not in (a, b) else 0)
    xs = tuple(n if d != axis else x.shape[d] for d, n in enumerate(shape))
    ish = tuple(n if d != axis else idx.shape[d] for d, n in enumerate(shape))
    x = x if x.shape == xs else broadcast_to(x, xs)
    idx = idx if idx.shape == ish else broadcast_to(idx, ish)
    out = empty(ish, x.dtype, x.device)
    if out.size:
        _takes["take_along_axis"](None, x._ptr, idx._ptr, axis, out._ptr)
    return out


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """The indices where the elements of @x2 would be inserted in the sorted 1-D @x1 to keep it
    sorted (the standard's and numpy's searchsorted): before equal elements (side "left") or
    after them ("right"); @sorter, indices that sort x1, when x1 itself is not sorted. NaN sorts
    last. An int64 Array of x2's shape, a binary search per element on the device."""
    who = "anygpu.searchsorted"
    x1 = _operand(x1, None, who, "x1")
    if side not in ("left", "right"):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: side is %r, not 'left' or 'right'" % (who, side))
    if not isinstance(x2, Array):
        x2 = asarray(x2, device=x1.device, dtype=x1.dtype)
    if sorter is not None:
        x1 = take(x1, sorter)
    if x2.dtype != x1.dtype:
        dt = result_type(x1, x2)
        x1, x2 = (a if a.dtype == dt else astype(a, dt) for a in (x1, x2))
    out = empty(x2.shape, int64, x2.device)
    _searchsorted(None, x1._ptr, x2._ptr, side == "right", out._ptr)
    return out


def nonzero(x, /):
    """The indices of @x's nonzero elements, in C order, as a tuple of int64 Arrays, one per
    axis (the standard's and numpy's nonzero; x of 1 or more dimensions). Computed on the
    device (ag_nonzero), which reads the count back once."""
    who = "anygpu.nonzero"
    x = _operand(x, None, who, "x")
    if x.ndim == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: x is 0-d; nonzero takes 1 or more dimensions" % who)
    out = ctypes.c_void_p()
    _nonzero(None, x._ptr, ctypes.byref(out))
    rows = _adopt(out)
    return tuple(rows[d] for d in range(x.ndim))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """The number of nonzero elements of @x over @axis (None, an int or a tuple), as the
    standard's count_nonzero: an int64 Array (0-d for axis None), with the axes kept as length
    1 when @keepdims."""
    who = "anygpu.count_nonzero"
    x = _operand(x, None, who, "x")
    flags = astype(x, bool) if x.dtype != bool else x
    return _sum(astype(flags, int64), axis=axis, keepdims=keepdims)


UniqueAllResult = collections.namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _unique(name, x, want):
    """ag_unique's results @want (of values, indices, inverse, counts) for @x, as Arrays."""
    x = _operand(x, None, "anygpu." + name, "x")
    if x.dtype.kind == "c":
        return _unique_complex(x, want)
    ptrs = [ctypes.c_void_p() for _ in range(4)]
    _ag_unique(None, x._ptr, *(ctypes.byref(p) if w else None for p, w in zip(ptrs, want)))
    return [_adopt(p) if w else None for p, w in zip(ptrs, want)]


def _unique_complex(x, want):
    """_unique for complex @x, ordered as numpy's (by real part, then imaginary part; NaN last),
    from device operations: two stable argsorts (imaginary parts, then real parts), a gather,
    the starts of runs of equal values (each NaN its own, -0.0 and +0.0 one), their first
    indices and counts, and each element's run through the inverse permutation."""
    flat = reshape(x, (-1,))
    n = flat.shape[0]
    by_imag = argsort(_ops.imag(flat))
    order = take(by_imag, argsort(take(_ops.real(flat), by_imag)))
    v = take(flat, order)
    if n == 0:
        empty_i = _ops.zeros((0,), "int64", x.device)
        out = [v, empty_i, reshape(empty_i, x.shape), empty_i]
        return [o if w else None for o, w in zip(out, want)]
    start = concat([_ops.ones((1,), "bool", x.device), not_equal(v[1:], v[:-1])])
    starts = nonzero(start)[0]
    values = take(v, starts)
    indices = take(order, starts) if want[1] else None
    counts = subtract(concat([starts[1:], asarray([n], device=x.device)]), starts) if want[3] else None
    inverse = None
    if want[2]:
        run = subtract(cumulative_sum(astype(start, "int64")), 1)
        inverse = reshape(take(run, argsort(order)), x.shape)
    return [values, indices, inverse, counts]


def unique_all(x, /):
    """The distinct values of @x (flattened), sorted, with the first index of each, each
    element's place among them (x's shape) and their counts: the standard's unique_all. -0.0
    and +0.0 are one value, each NaN its own. Computed on the device (ag_unique: a stable
    argsort, a gather, the starts of runs)."""
    return UniqueAllResult(*_unique("unique_all", x, (True, True, True, True)))


def unique_counts(x, /):
    """The distinct values of @x, sorted, and how often each occurs (the standard's)."""
    v, _, _, c = _unique("unique_counts", x, (True, False, False, True))
    return UniqueCountsResult(v, c)


def unique_inverse(x, /):
    """The distinct values of @x, sorted, and each element's place among them, in x's shape
    (the standard's)."""
    v, _, i, _ = _unique("unique_inverse", x, (True, False, True, False))
    return UniqueInverseResult(v, i)


def unique_values(x, /):
    """The distinct values of @x, sorted (the standard's)."""
    return _unique("unique_values", x, (True, False, False, False))[0]


def _mask_getitem(x, mask):
    """x[mask] for a bool Array @mask of x's shape or its first axes: a new Array (ag_mask_select)."""
    if mask.device != x.device:
        raise error("AG_ERR_MISMATCH", "anygpu.Array: a mask on %s indexes an Array on %s"
                    % (mask.device.spec, x.device.spec))
    if mask.size == 0 and x.size == 0 and mask.ndim <= x.ndim:  # nothing selected, as numpy takes it
        return empty((0,) + x.shape[mask.ndim:], x.dtype, x.device)
    out = ctypes.c_void_p()
    _mask_select(None, x._ptr, mask._ptr, ctypes.byref(out))
    return _adopt(out)


def _array_key(x, key):
    """x[key] for an array @key (an Array, numpy array or list): a bool key selects (x[mask], a
    new 1-D-led Array, ag_mask_select), an integer key gathers along the first axis (numpy's
    x[idx], of shape idx.shape + x.shape[1:], ag_take)."""
    if not isinstance(key, Array):
        key = asarray(key, device=x.device)
    if key.dtype == bool:
        return _mask_getitem(x, key)
    if key.dtype.kind in "iu":
        if x.ndim == 0:
            raise error("AG_ERR_OUT_OF_RANGE", "anygpu.Array: an integer array indexes a 0-d Array")
        return take(x, key, axis=0)
    raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array: an array key is bool or integer, not %s" % key.dtype.name)


def _mask_setitem(x, mask, value):
    """x[mask] = value for a bool Array @mask of x's shape or its first axes: where(mask, value,
    x) written back into x, on the device. @value is a scalar, an array that broadcasts to
    each selected element (its shape the trailing part of x[mask]'s), or one row for each
    selected element in order (x[mask]'s shape: ag_cumulative_sum numbers the selected
    elements and ag_take gathers their rows)."""
    if mask.device != x.device:
        raise error("AG_ERR_MISMATCH", "anygpu.Array: a mask on %s indexes an Array on %s"
                    % (mask.device.spec, x.device.spec))
    if mask.ndim > x.ndim or mask.shape != x.shape[:mask.ndim]:
        raise error("AG_ERR_MISMATCH", "anygpu.Array: a mask of shape %s does not index an Array of shape %s"
                    % (mask.shape, x.shape))
    full = broadcast_to(reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim)), x.shape)
    if _is_number(value):
        x[...] = _where(full, full_like(x, value), x)
        return
    v = value if isinstance(value, Array) else asarray(value, device=x.device)
    if v.device != x.device:
        raise error("AG_ERR_MISMATCH", "anygpu.Array: a value on %s is set into an Array on %s"
                    % (v.device.spec, x.device.spec))
    v = astype(v, x.dtype, copy=False)
    tail = x.shape[mask.ndim:]
    if v.ndim == len(tail) + 1 and v.shape[0] == 1:
        v = reshape(v, v.shape[1:])
    if v.ndim <= len(tail):  # the same value for every selected element
        x[...] = _where(full, broadcast_to(v, x.shape), x)
        return
    count = int(_sum(astype(mask, "int64")))
    if v.ndim != len(tail) + 1 or v.shape[0] != count:
        raise error("AG_ERR_MISMATCH", "anygpu.Array: a value of shape %s is set into %d selected elements of shape %s"
                    % (v.shape, count, tail))
    if count == 0:
        return
    v = broadcast_to(v, (count,) + tail)
    position = cumulative_sum(astype(reshape(mask, (-1,)), "int64"))  # 1 + the row of each selected element
    rows = take(v, maximum(subtract(position, 1), 0), axis=0)
    x[...] = _where(full, reshape(rows, x.shape), x)


def _is_number(v):
    return isinstance(v, (builtins.bool, builtins.int, builtins.float, builtins.complex, numpy.generic))


def _array_namespace(self, /, *, api_version=None):
    """The array API namespace of this Array: the anygpu module, which implements the standard's
    2022.12 and 2023.12 versions (@api_version one of them, or None for 2023.12)."""
    if api_version not in (None, "2022.12", "2023.12"):
        raise error("AG_ERR_UNSUPPORTED", "anygpu.Array.__array_namespace__: api_version %r; anygpu implements "
                    "'2022.12' and '2023.12'" % (api_version,))
    import anygpu
    return anygpu


Array.__array_namespace__ = named(_array_namespace, "__array_namespace__")


# ---- numpy's protocols ---------------------------------------------------------------------------
# numpy functions and ufuncs called on Arrays run as anygpu's counterparts, on the device, so
# that code which calls numpy on its inputs (dask's block functions) keeps them there; those
# without one raise TypeError naming the function (numpy.asarray(a) copies to the host).

_UFUNC_NAMES = {"invert": "bitwise_invert", "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift"}


class _ProtocolTypeError(UnsupportedError, TypeError):
    """A numpy function or ufunc anygpu has no counterpart for (or a keyword of one it does not
    take): an UnsupportedError that is also the TypeError numpy's protocols raise."""


def _no_counterpart(what):
    return _ProtocolTypeError("AG_ERR_UNSUPPORTED", "anygpu.Array: numpy.%s has no anygpu counterpart; "
                              "numpy.asarray(a) copies the Array to the host" % what)


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """numpy's ufunc protocol: ufunc(...) called with Arrays runs anygpu's function of the same
    name (out= an Array receives the result); ufunc methods (reduce, accumulate, at...) and
    ufuncs anygpu lacks raise TypeError naming them."""
    import anygpu
    name = _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__)
    f = getattr(anygpu, name, None)
    if method != "__call__":
        raise _no_counterpart("%s.%s" % (ufunc.__name__, method))
    if f is None or not callable(f):
        raise _no_counterpart(ufunc.__name__)
    out = kwargs.pop("out", None)
    if kwargs:
        raise _ProtocolTypeError("AG_ERR_UNSUPPORTED", "anygpu.Array: numpy.%s with keyword(s) %s, which anygpu's "
                                 "%s does not take" % (ufunc.__name__, ", ".join(sorted(kwargs)), name))
    result = f(*inputs)
    if out is None:
        return result
    if len(out) != 1 or not isinstance(out[0], Array):
        raise _ProtocolTypeError("AG_ERR_UNSUPPORTED", "anygpu.Array: numpy.%s's out= must be one anygpu Array"
                                 % ufunc.__name__)
    out[0][...] = result
    return out[0]


def _array_function(self, func, types, args, kwargs):
    """numpy's function protocol: a numpy function called with Arrays runs anygpu's of the same
    name (numpy.fft's anygpu.fft's), on the device; one anygpu lacks raises TypeError naming
    it."""
    import anygpu
    module = anygpu.fft if func.__module__ == "numpy.fft" else anygpu if func.__module__ == "numpy" else None
    f = getattr(module, func.__name__, None) if module is not None else None
    if f is None or not callable(f) or isinstance(f, type):
        raise _no_counterpart(func.__name__ if module is not None or not func.__module__
                              else "%s.%s" % (func.__module__[len("numpy."):], func.__name__))
    return f(*args, **kwargs)


Array.__array_ufunc__ = named(_array_ufunc, "__array_ufunc__")
Array.__array_function__ = named(_array_function, "__array_function__")
