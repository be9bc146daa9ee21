"""The array API standard's linalg extension, as far as anygpu has it: the products
(matmul, tensordot, vecdot, outer, cross), the views and reductions of matrices (diagonal,
trace, matrix_transpose) and the norms that need no decomposition (vector_norm; matrix_norm
with "fro", 1, -1, inf, -inf), each on the device, over the leading (batch) axes as the
standard says.

Not here yet: cholesky, det, eigh, eigvalsh, inv, matrix_power, matrix_rank, pinv, qr,
slogdet, solve, svd, svdvals, and matrix_norm's 2, -2 and "nuc" (which need singular values).
"""

import builtins
import math
import operator

import numpy

from ._core import asarray
from ._lib import error, named
from ._namespace import matrix_transpose as _matrix_transpose
from ._namespace import tensordot as _tensordot
from ._namespace import vecdot as _vecdot
from ._namespace import take
from . import _ops

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot", "diagonal", "trace", "outer", "cross",
           "vector_norm", "matrix_norm"]

matmul = named(lambda x1, x2, /: _ops.matmul(x1, x2), "matmul")
matmul.__doc__ = "x1 @ x2 (anygpu.matmul: BLAS for float and complex)."
matrix_transpose = named(lambda x, /: _matrix_transpose(x), "matrix_transpose")
matrix_transpose.__doc__ = "A view of @x with its last two axes swapped (anygpu.matrix_transpose)."
tensordot = named(lambda x1, x2, /, *, axes=2: _tensordot(x1, x2, axes=axes), "tensordot")
tensordot.__doc__ = "anygpu.tensordot: sums of products over the axes @axes names."
vecdot = named(lambda x1, x2, /, *, axis=-1: _vecdot(x1, x2, axis=axis), "vecdot")
vecdot.__doc__ = "anygpu.vecdot: sum(conj(x1) * x2) along @axis."


def _matrices(x, who, name="x"):
    x = _ops._operand(x, None, who, name)
    if x.ndim < 2:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s has %d dimensions; it takes a matrix or a stack of them "
                    "(2 or more)" % (who, name, x.ndim))
    return x


def _offset(offset, who):
    try:
        return operator.index(offset)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: offset is %r, not an integer" % (who, offset)) from None


def _diagonal(x, offset, who):
    m, n = x.shape[-2:]
    rows = range(builtins.max(0, -offset), builtins.min(m, n - offset)) if -m < offset < n else range(0)
    flat = _ops.reshape(x, x.shape[:-2] + (m * n,))
    index = asarray([i * n + i + offset for i in rows], device=x.device, dtype="int64")
    return take(flat, index, axis=-1)


def diagonal(x, /, *, offset=0):
    """The diagonal @offset (above the main one for offset > 0) of each matrix in @x's last two
    axes: an Array of shape x.shape[:-2] + (its length,), gathered on the device."""
    who = "anygpu.linalg.diagonal"
    x = _matrices(x, who)
    return _diagonal(x, _offset(offset, who), who)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of diagonal @offset of each matrix in @x's last two axes, in @dtype (default:
    anygpu.sum's for x's dtype)."""
    who = "anygpu.linalg.trace"
    x = _matrices(x, who)
    return _ops.sum(_diagonal(x, _offset(offset, who), who), axis=-1, dtype=dtype)


def outer(x1, x2, /):
    """The outer product of vectors @x1 (m) and @x2 (n): an m x n Array of their promoted dtype."""
    who = "anygpu.linalg.outer"
    x1, x2 = _ops._operand(x1, None, who, "x1"), _ops._operand(x2, None, who, "x2")
    for x, name in ((x1, "x1"), (x2, "x2")):
        if x.ndim != 1:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s has %d dimensions; outer takes vectors" % (who, name, x.ndim))
    return _ops.multiply(_ops.reshape(x1, (x1.shape[0], 1)), _ops.reshape(x2, (1, x2.shape[0])))


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along @axis (length 3 in both; the other axes broadcast)."""
    who = "anygpu.linalg.cross"
    x1, x2 = _ops._operand(x1, None, who, "x1"), _ops._operand(x2, None, who, "x2")
    try:
        axis = operator.index(axis)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis is %r, not an integer" % (who, axis)) from None
    for x, name in ((x1, "x1"), (x2, "x2")):
        if not -x.ndim <= axis < x.ndim or axis >= 0 and x1.ndim != x2.ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is not an axis of %s (%d dimensions)"
                        % (who, axis, name, x.ndim))
        if x.shape[axis] != 3:
            raise error("AG_ERR_MISMATCH", "%s: %s has %d elements along axis %d, not 3"
                        % (who, name, x.shape[axis], axis))
    if axis >= 0:
        axis -= x1.ndim
    turn1, turn2 = (asarray(v, device=x1.device, dtype="int64") for v in ([1, 2, 0], [2, 0, 1]))
    return _ops.subtract(_ops.multiply(take(x1, turn1, axis=axis), take(x2, turn2, axis=axis)),
                         _ops.multiply(take(x1, turn2, axis=axis), take(x2, turn1, axis=axis)))


def _real_float(x, who):
    if x.dtype.kind not in "fc":
        raise error("AG_ERR_UNSUPPORTED", "%s: x is %s; norms take float and complex dtypes (astype first)"
                    % (who, x.dtype.name))


def _norm(a, axes, keepdims, ord, who):
    """The vector norm @ord of |x| (@a, real) over @axes."""
    if ord == 2:
        return _ops.sqrt(_ops.sum(_ops.square(a), axis=axes, keepdims=keepdims))
    if ord == 1:
        return _ops.sum(a, axis=axes, keepdims=keepdims)
    if ord == math.inf:
        return _ops.max(a, axis=axes, keepdims=keepdims)
    if ord == -math.inf:
        return _ops.min(a, axis=axes, keepdims=keepdims)
    if ord == 0:
        return _ops.astype(_ops.sum(_ops.astype(_ops.not_equal(a, 0), "int64"), axis=axes, keepdims=keepdims), a.dtype)
    p = float(ord)
    return _ops.power(_ops.sum(_ops.power(a, p), axis=axes, keepdims=keepdims), 1.0 / p)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector @ord-norm of @x over @axis (None: every element, as one vector; an int or a
    tuple), as the standard's: 2, 1, inf, -inf, 0 (the count of nonzero elements) or any other
    real p ((sum |x|^p)^(1/p)). A real float Array (complex64 gives float32)."""
    who = "anygpu.linalg.vector_norm"
    x = _ops._operand(x, None, who, "x")
    _real_float(x, who)
    if isinstance(ord, (bool, numpy.bool_)) or not isinstance(ord, (int, float, numpy.integer, numpy.floating)) \
            or math.isnan(ord):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: ord is %r, not a real number" % (who, ord))
    axes = _ops._axes(x, axis, who)
    return _norm(_ops.abs(x), axes, keepdims, ord, who)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The matrix @ord-norm of each matrix in @x's last two axes, as the standard's: "fro"
    (Frobenius), 1 and -1 (the largest and smallest column sum of |x|), inf and -inf (row
    sums). 2, -2 and "nuc" need singular values: UnsupportedError until anygpu has them."""
    who = "anygpu.linalg.matrix_norm"
    x = _matrices(x, who)
    _real_float(x, who)
    a = _ops.abs(x)
    last = (x.ndim - 2, x.ndim - 1)
    if isinstance(ord, str):
        if ord == "fro":
            return _norm(a, last, keepdims, 2, who)
        if ord == "nuc":
            raise error("AG_ERR_UNSUPPORTED", "%s: ord 'nuc' needs singular values, which anygpu's linalg does not "
                        "compute yet" % who)
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: ord is %r, not 'fro', 'nuc', 1, -1, 2, -2, inf or -inf" % (who, ord))
    if ord in (2, -2):
        raise error("AG_ERR_UNSUPPORTED", "%s: ord %r needs singular values, which anygpu's linalg does not compute "
                    "yet" % (who, ord))
    if ord not in (1, -1, math.inf, -math.inf):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: ord is %r, not 'fro', 'nuc', 1, -1, 2, -2, inf or -inf" % (who, ord))
    summed, over = (x.ndim - 2, x.ndim - 1) if ord in (1, -1) else (x.ndim - 1, x.ndim - 2)
    sums = _ops.sum(a, axis=summed, keepdims=True)
    pick = _ops.max if ord > 0 else _ops.min
    out = pick(sums, axis=over, keepdims=True)
    return out if keepdims else _ops.reshape(out, x.shape[:-2])
