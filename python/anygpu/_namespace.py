"""The array API standard's constants, dtypes and dtype functions, and the manipulation functions
that are views of the operations in _ops.py: the names a program written against the standard
looks up in ``anygpu`` besides the operations themselves.

dtypes are numpy's dtype objects (``anygpu.float32 == numpy.dtype("float32")``), which Array.dtype
gives, so either spelling compares equal. Promotion (``result_type``, ``can_cast``) is the C
library's ``ag_result_type``: the standard's table, and numpy's where the standard leaves a
pair open (an integer with a float, u64 with a signed integer), as the operations compute.
"""

import ctypes
import math
import operator

import numpy

from ._core import Array
from ._lib import AG_DTYPE, DTYPES, error, fn
from ._ops import _operand, broadcast_to, power, transpose

__all__ = [
    "e", "inf", "nan", "newaxis", "pi",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "finfo", "iinfo", "isdtype", "result_type", "can_cast",
    "pow", "matrix_transpose", "broadcast_arrays", "moveaxis",
]

_PY_BOOL = type(True)  # the builtin, before this module's bool (a dtype) hides it

e, inf, nan, pi = math.e, math.inf, math.nan, math.pi
newaxis = None

(bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64,
 complex128) = (numpy.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                         "uint64", "float32", "float64", "complex64", "complex128"))

_result_type = fn("ag_result_type", [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)])


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



def finfo(type):
    """The limits of a floating dtype (or an Array's), as the standard's finfo: bits, eps, max,
    min, smallest_normal and dtype (numpy.finfo's object; complex dtypes give their parts')."""
    dt = _dtype_of(type, "anygpu.finfo", "type")
    if dt.kind not in "fc":
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.finfo: type is %s, not a floating dtype (iinfo takes integers)"
                    % dt.name)
    return numpy.finfo(dt)


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
        return any(isdtype(dt, k) for k in kind)
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
