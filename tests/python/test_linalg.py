"""anygpu.linalg, the part of the standard's linalg extension anygpu has, against numpy.linalg
and numpy on every device: products, diagonals and traces over stacks of matrices, cross
products, vector and matrix norms, and the arguments each refuses."""

import math

import numpy
import pytest

import anygpu
from conftest import assert_close, need_fp64, normal, put

FLOATS = ["float32", "float64", "complex64", "complex128"]


sample = normal


def test_the_namespace_has_the_products_and_views():
    assert set(anygpu.linalg.__all__) >= {"matmul", "matrix_transpose", "tensordot", "vecdot", "diagonal", "trace",
                                          "outer", "cross", "vector_norm", "matrix_norm"}
    assert not hasattr(anygpu.linalg, "solve")  # absent until it runs on the device


@pytest.mark.parametrize("dtype", FLOATS + ["int32"])
def test_diagonal_trace_outer_and_products_match_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (2, 3, 4, 5), 1) if dtype != "int32" else numpy.arange(120, dtype=dtype).reshape(2, 3, 4, 5)
    x = put(dev, a)
    for offset in (0, 1, -2, 4, -4, 7):
        assert_close(anygpu.linalg.diagonal(x, offset=offset), numpy.diagonal(a, offset, -2, -1))
        want = numpy.trace(a, offset, -2, -1)
        got = anygpu.linalg.trace(x, offset=offset)
        assert got.shape == want.shape
        numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-5 if dtype != "int32" else 0, atol=1e-5)
    v, w = a[0, 0, 0], a[1, 2, :, 1]
    assert_close(anygpu.linalg.outer(put(dev, v), put(dev, w)), numpy.outer(v, w))
    assert_close(anygpu.linalg.matrix_transpose(x), numpy.swapaxes(a, -1, -2))
    if dtype != "int32":
        m = a[0, 0]
        assert_close(anygpu.linalg.matmul(put(dev, m), put(dev, m.T)), m @ m.T, scale=10)
        assert_close(anygpu.linalg.vecdot(x, x), numpy.sum(numpy.conj(a) * a, axis=-1), scale=10)
        assert_close(anygpu.linalg.tensordot(x, x, axes=([1, 2, 3], [1, 2, 3])),
                     numpy.tensordot(a, a, axes=([1, 2, 3], [1, 2, 3])), scale=10)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_cross_matches_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = sample("float64", (4, 3), 2) * 10
    b = sample("float64", (2, 1, 3), 3) * 10
    a, b = a.astype(dtype), b.astype(dtype)
    assert_close(anygpu.linalg.cross(put(dev, a), put(dev, b)), numpy.cross(a, b), scale=10)
    c, d = numpy.swapaxes(a, 0, 1).copy(), sample("float64", (3, 4), 4).astype(dtype)
    assert_close(anygpu.linalg.cross(put(dev, c), put(dev, d), axis=0), numpy.cross(c, d, axis=0), scale=10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_vector_and_matrix_norms_match_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (3, 4, 5), 5)
    x = put(dev, a)
    real = numpy.dtype(dtype).type(0).real.dtype
    for ord in (2, 1, math.inf, -math.inf, 0, 3, 0.5):
        for axis in (None, -1, (0, 2)):
            if axis == (0, 2):  # numpy.linalg.norm would take a pair of axes as a matrix
                want = numpy.linalg.norm(numpy.moveaxis(a, (0, 2), (1, 2)).reshape(4, 15), ord=ord, axis=-1)
            else:
                want = numpy.linalg.norm(a.reshape(-1) if axis is None else a, ord=ord, axis=axis)
            got = anygpu.linalg.vector_norm(x, axis=axis, ord=ord)
            assert got.dtype == real
            assert_close(got, numpy.asarray(want).astype(real), scale=10)
    got = anygpu.linalg.vector_norm(x, axis=1, keepdims=True)
    assert got.shape == (3, 1, 5)
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        want = numpy.linalg.norm(a, ord=ord, axis=(-2, -1)).astype(real)
        assert_close(anygpu.linalg.matrix_norm(x, ord=ord), want, scale=10)
    assert anygpu.linalg.matrix_norm(x, keepdims=True).shape == (3, 1, 1)


def test_bad_arguments_raise_by_name(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.linalg.diagonal: x has 1 dimensions"):
        anygpu.linalg.diagonal(x[0])
    with pytest.raises(anygpu.MismatchError, match="anygpu.linalg.cross: x1 has 2 elements along axis 0"):
        anygpu.linalg.cross(x, x, axis=0)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.linalg.matrix_norm: ord 2 needs singular values"):
        anygpu.linalg.matrix_norm(x, ord=2)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.linalg.vector_norm: ord is 'max'"):
        anygpu.linalg.vector_norm(x, ord="max")
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.linalg.vector_norm: x is int32"):
        anygpu.linalg.vector_norm(put(dev, numpy.ones(3, "int32")))
