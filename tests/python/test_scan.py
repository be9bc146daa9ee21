"""cumulative_sum (the standard's) and cumsum (numpy's) against numpy 1.24 on every device: every
dtype and its default result dtype, every axis, include_initial, dtype=, views, empty arrays and
integer sums that wrap. Float sums are compared with float64 (complex128) sums, within a
tolerance relative to the running sum of magnitudes, since the device adds in pieces."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

ALL = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "float32", "float64", "complex64",
       "complex128"]
TOL = {"float32": 2e-5, "complex64": 2e-5, "float64": 4e-14, "complex128": 4e-14}


def sample(dtype, shape, seed=3):
    rng = numpy.random.default_rng(seed)
    kind = numpy.dtype(dtype).kind
    if kind in "iu":
        info = numpy.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    a = rng.uniform(-1, 1, shape)
    if kind == "c":
        a = a + 1j * rng.uniform(-1, 1, shape)
    return a.astype(dtype)


def check(got, a, axis, dtype=None, include_initial=False):
    want = numpy.cumsum(a, axis=axis, dtype=dtype)
    if include_initial:
        want = numpy.concatenate([numpy.zeros_like(numpy.take(want, [0], axis=axis)), want], axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    g = numpy.asarray(got)
    if want.dtype.kind in "fc":
        exact = numpy.cumsum(a.astype(numpy.complex128 if want.dtype.kind == "c" else numpy.float64), axis=axis)
        scale = numpy.cumsum(numpy.abs(a).astype(numpy.float64), axis=axis)
        if include_initial:
            exact = numpy.concatenate([numpy.zeros_like(numpy.take(exact, [0], axis=axis)), exact], axis=axis)
            scale = numpy.concatenate([numpy.zeros_like(numpy.take(scale, [0], axis=axis)), scale], axis=axis)
        assert numpy.all(numpy.abs(g - exact) <= TOL[want.dtype.name] * scale)
    else:
        numpy.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", ALL)
def test_cumulative_sum_matches_numpy_along_every_axis(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (3, 40, 35))
    x = put(dev, a)
    for axis in (0, 1, 2, -1):
        got = anygpu.cumulative_sum(x, axis=axis)
        check(got, a, axis)
        check(anygpu.cumulative_sum(x, axis=axis, include_initial=True), a, axis, include_initial=True)
    long = sample(dtype, (50001,), seed=4)
    check(anygpu.cumulative_sum(put(dev, long)), long, 0)
    check(anygpu.cumsum(x), a.ravel(), 0)
    check(anygpu.cumsum(x, axis=1), a, 1)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "float32", "complex64"])
def test_dtype_takes_the_sum_into_another_dtype(dev, dtype):
    a = sample(dtype, (6, 7))
    x = put(dev, a)
    for into in ("int8", "int32", "uint64", "float32", "complex64"):
        if numpy.dtype(dtype).kind == "c" and numpy.dtype(into).kind != "c":
            continue
        check(anygpu.cumulative_sum(x, axis=1, dtype=into), a, 1, dtype=into)
        check(anygpu.cumulative_sum(x, axis=0, dtype=into, include_initial=True), a, 0, dtype=into,
              include_initial=True)


def test_views_and_empty_arrays(dev):
    a = sample("float32", (20, 30))
    x = put(dev, a)
    check(anygpu.cumulative_sum(x.T, axis=0), a.T, 0)
    check(anygpu.cumulative_sum(x[::2, 5:], axis=1), a[::2, 5:], 1)
    e = numpy.zeros((0, 4), "float32")
    check(anygpu.cumulative_sum(put(dev, e), axis=0), e, 0)
    check(anygpu.cumulative_sum(put(dev, e), axis=1, include_initial=True), e, 1, include_initial=True)
    got = anygpu.cumulative_sum(put(dev, e), axis=0, include_initial=True)
    assert got.shape == (1, 4)
    numpy.testing.assert_array_equal(numpy.asarray(got), numpy.zeros((1, 4), "float32"))


def test_bad_arguments_raise_by_name(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.InvalidArgumentError, match="cumulative_sum: x has 2 dimensions, so axis"):
        anygpu.cumulative_sum(x)
    with pytest.raises(anygpu.InvalidArgumentError, match="cumulative_sum: x is 0-d"):
        anygpu.cumulative_sum(put(dev, numpy.float32(1)))
    with pytest.raises(anygpu.OutOfRangeError, match="cumulative_sum: axis 2"):
        anygpu.cumulative_sum(x, axis=2)
    with pytest.raises(anygpu.InvalidArgumentError, match="include_initial"):
        anygpu.cumulative_sum(x, axis=0, include_initial="yes")
