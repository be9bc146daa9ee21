"""sort and argsort (the standard's) against numpy 1.24's stable sort on every device: every real
dtype and bool, every axis, descending (numpy's stable sort of the reversed axis, reversed:
equal elements keep their order), NaN and signed zeros, views, empty arrays, and the arguments
they refuse."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

REAL = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"]


def sample(dtype, shape, seed=5):
    rng = numpy.random.default_rng(seed)
    kind = numpy.dtype(dtype).kind
    if kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if kind in "iu":
        info = numpy.iinfo(dtype)
        a = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        a.flat[::3] = rng.integers(0, 5, a.size)[::3]  # ties
        return a
    a = rng.normal(size=shape).astype(dtype)
    a.flat[::3] = numpy.round(a.flat[::3])  # ties
    a.flat[::17] = numpy.nan
    a.flat[::13] = -0.0
    a.flat[::11] = 0.0
    return a


def want(a, axis, descending, arg):
    if not descending:
        return (numpy.argsort if arg else numpy.sort)(a, axis=axis, kind="stable")
    flipped = numpy.flip(a, axis)
    if arg:
        return a.shape[axis] - 1 - numpy.flip(numpy.argsort(flipped, axis=axis, kind="stable"), axis)
    return numpy.flip(numpy.sort(flipped, axis=axis, kind="stable"), axis)


@pytest.mark.parametrize("dtype", REAL)
def test_sort_and_argsort_match_numpy_s_stable_sort(dev, dtype):
    need_fp64(dev, dtype)
    for shape in ((1,), (20,), (5000,), (6, 40, 7)):
        a = sample(dtype, shape)
        x = put(dev, a)
        for axis in range(-1, len(shape)):
            for descending in (False, True):
                got = anygpu.sort(x, axis=axis, descending=descending)
                assert got.dtype == a.dtype and got.shape == a.shape
                numpy.testing.assert_array_equal(numpy.asarray(got), want(a, axis, descending, False))
                idx = anygpu.argsort(x, axis=axis, descending=descending, stable=False)
                assert idx.dtype == numpy.int64
                numpy.testing.assert_array_equal(numpy.asarray(idx), want(a, axis, descending, True))


def test_views_and_empty_arrays(dev):
    a = sample("float32", (30, 40))
    x = put(dev, a)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.sort(x.T, axis=1)), numpy.sort(a.T, axis=1, kind="stable"))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.argsort(x[::2, 3:], axis=0)),
                                     numpy.argsort(a[::2, 3:], axis=0, kind="stable"))
    e = numpy.zeros((0, 3), "int32")
    assert anygpu.sort(put(dev, e), axis=0).shape == (0, 3)
    assert anygpu.argsort(put(dev, e)).shape == (0, 3)


def test_bad_arguments_raise_by_name(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.sort: x is complex64"):
        anygpu.sort(put(dev, numpy.ones(3, "complex64")))
    with pytest.raises(anygpu.InvalidArgumentError, match="argsort: x is 0-d"):
        anygpu.argsort(put(dev, numpy.float32(1)))
    with pytest.raises(anygpu.OutOfRangeError, match="sort: axis 2"):
        anygpu.sort(x, axis=2)
    with pytest.raises(anygpu.InvalidArgumentError, match="descending"):
        anygpu.sort(x, descending=1)
