"""arange, linspace, eye, tril, triu and meshgrid (the create kernel family) against numpy 1.24 on
every device: every dtype each takes, counts from numpy's rule, endpoints, diagonals above and
below, batches of matrices, views, and the arguments each refuses."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

REAL = ["uint8", "int16", "int32", "int64", "uint64", "float32", "float64"]
ALL = REAL + ["int8", "uint16", "uint32", "complex64", "complex128", "bool"]


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("args", [(7,), (2, 20, 3), (30, 2, -4), (5, 5), (0, 1000)])
def test_arange_of_integers_matches_numpy(dev, args, dtype):
    need_fp64(dev, dtype)
    if numpy.dtype(dtype).kind == "u" and args[-1] < 0:
        return  # numpy refuses a negative step for unsigned dtypes given as a Python int
    got = anygpu.arange(*args, dtype=dtype, device=dev)
    want = numpy.arange(*args, dtype=dtype)
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(numpy.asarray(got), want)


def test_arange_defaults_to_int64_and_float32(dev):
    assert anygpu.arange(4, device=dev).dtype == numpy.int64
    assert anygpu.arange(0, 1, 0.5, device=dev).dtype == numpy.float32


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("args", [(0, 1, 0.1), (-1.5, 2.25, 0.25), (10, -3, -0.7), (1e6, 1e6 + 3, 0.5), (0.5, 0.4)])
def test_arange_of_floats_matches_numpy(dev, args, dtype):
    need_fp64(dev, dtype)
    got = anygpu.arange(*args, dtype=dtype, device=dev)
    want = numpy.arange(*args, dtype=dtype)
    assert got.shape == want.shape
    scale = numpy.abs(want).max() if want.size else 1
    numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=0, atol=numpy.finfo(dtype).eps * scale)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("num", [0, 1, 2, 7, 1000])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_matches_numpy(dev, dtype, num, endpoint):
    need_fp64(dev, dtype)
    start, stop = (-2.5 + 1j, 7.25 - 3j) if dtype.startswith("complex") else (-2.5, 7.25)
    got = anygpu.linspace(start, stop, num, dtype=dtype, device=dev, endpoint=endpoint)
    want = numpy.linspace(start, stop, num, dtype=dtype, endpoint=endpoint)
    assert got.dtype == want.dtype and got.shape == want.shape
    eps = numpy.finfo(dtype).eps
    numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=0, atol=8 * eps * 8)
    if endpoint and num > 1:
        assert numpy.asarray(got)[-1] == want[-1]


@pytest.mark.parametrize("dtype", ALL)
def test_eye_matches_numpy(dev, dtype):
    need_fp64(dev, dtype)
    for args, k in (((4,), 0), ((3, 6), 2), ((5, 2), -1), ((2, 2), 7)):
        got = anygpu.eye(*args, k=k, dtype=dtype, device=dev)
        numpy.testing.assert_array_equal(numpy.asarray(got), numpy.eye(*args, k=k, dtype=dtype))
        assert got.dtype == numpy.dtype(dtype)
    assert anygpu.eye(2, device=dev).dtype == numpy.float32


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_and_triu_match_numpy(dev, name, dtype):
    need_fp64(dev, dtype)
    a = (numpy.arange(2 * 4 * 5) % 7 + 1).astype(dtype).reshape(2, 4, 5)
    x = put(dev, a)
    for k in (0, 1, -2, 9, -9):
        numpy.testing.assert_array_equal(numpy.asarray(getattr(anygpu, name)(x, k=k)), getattr(numpy, name)(a, k=k))
    # A view: the matrices of x's last two axes exchanged.
    xt = anygpu.matrix_transpose(x)
    numpy.testing.assert_array_equal(numpy.asarray(getattr(anygpu, name)(xt)), getattr(numpy, name)(a.swapaxes(1, 2)))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(3,), (3, 2), (2, 3, 4)])
def test_meshgrid_matches_numpy(dev, sizes, indexing):
    arrays = [numpy.arange(n, dtype="float32") * (i + 1) for i, n in enumerate(sizes)]
    got = anygpu.meshgrid(*[put(dev, a) for a in arrays], indexing=indexing)
    want = numpy.meshgrid(*arrays, indexing=indexing)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(numpy.asarray(g), w)
    got[0][...] = 0  # new arrays, not read-only broadcast views


def test_bad_arguments_are_refused(dev):
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.arange: step is 0"):
        anygpu.arange(0, 3, 0, device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.arange: .*bool"):
        anygpu.arange(3, dtype="bool", device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.arange: stop is 'x'"):
        anygpu.arange(0, "x", device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.linspace: .*int32"):
        anygpu.linspace(0, 1, 3, dtype="int32", device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.linspace: num is -1"):
        anygpu.linspace(0, 1, -1, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.eye: n_rows, n_cols and k must be integers"):
        anygpu.eye(2.5, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.tril: x has 1 dimension"):
        anygpu.tril(put(dev, numpy.ones(3, "float32")))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.meshgrid: indexing is 'yx'"):
        anygpu.meshgrid(put(dev, numpy.ones(3, "float32")), indexing="yx")
