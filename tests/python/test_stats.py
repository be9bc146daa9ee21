"""all, any, var and std against numpy 1.24 on every device: every dtype, axes None, an int, a
tuple and (), keepdims, corrections (and numpy's ddof), NaN, empty axes, and the arguments each
refuses."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

ALL = ["bool", "uint8", "int8", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"]
AXES = [None, 0, -1, (0, 2), (), (2, 0, 1)]


def sample(dtype):
    rng = numpy.random.default_rng(5)
    a = rng.integers(0, 4, (4, 3, 5))
    a[:, 1] = 1  # a row with no zero, for all()
    a = a.astype(dtype)
    if numpy.dtype(dtype).kind == "f":
        a[0, 0, 0] = numpy.nan
    return a


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", ["any", "all"])
def test_any_and_all_match_numpy(dev, name, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype)
    x = put(dev, a)
    f, ref = getattr(anygpu, name), getattr(numpy, name)
    for axis in AXES:
        for keepdims in (False, True):
            got = f(x, axis=axis, keepdims=keepdims)
            want = ref(a, axis=axis, keepdims=keepdims)
            if axis is None and not keepdims:
                assert got.shape == () and got.dtype == numpy.bool_ and bool(got) == bool(want)
            else:
                assert got.dtype == numpy.bool_ and got.shape == want.shape
                numpy.testing.assert_array_equal(numpy.asarray(got), want)
    empty = put(dev, numpy.zeros((0, 3), dtype))
    numpy.testing.assert_array_equal(numpy.asarray(f(empty, axis=0)), ref(numpy.zeros((0, 3), dtype), axis=0))


@pytest.mark.filterwarnings("ignore:Degrees of freedom")  # numpy's, where correction 2.5 leaves none
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_match_numpy(dev, name, dtype):
    need_fp64(dev, "float64" if dtype != "float32" else dtype)
    a = (numpy.random.default_rng(8).normal(size=(4, 3, 5)) * 3 + 100).astype(dtype)
    x = put(dev, a)
    f, ref = getattr(anygpu, name), getattr(numpy, name)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for axis in AXES:
        for correction in (0, 1, 2.5):
            got = f(x, axis=axis, correction=correction, keepdims=axis == 0)
            with numpy.errstate(all="ignore"):
                want = ref(a, axis=axis, ddof=correction, keepdims=axis == 0)
            assert got.shape == numpy.shape(want) and got.dtype == want.dtype  # 0-d for axis None
            with numpy.errstate(all="ignore"):
                numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=rtol, atol=rtol)
    assert f(x, ddof=1) == pytest.approx(float(ref(a, ddof=1)), rel=rtol)


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
def test_var_edges_match_numpy(dev):
    x = put(dev, numpy.float32([1, 2, 4, 4]))
    with numpy.errstate(all="ignore"):
        assert anygpu.var(x, correction=4) == numpy.var(numpy.float32([1, 2, 4, 4]), ddof=4)  # inf
        assert numpy.isnan(anygpu.var(put(dev, numpy.float32([3, 3])), correction=2))
    e = anygpu.var(put(dev, numpy.zeros((0, 3), "float32")), axis=0)
    assert numpy.isnan(numpy.asarray(e)).all()


def test_bad_arguments_are_refused(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.var: correction is -1"):
        anygpu.var(x, correction=-1)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.std: x is complex64"):
        anygpu.std(put(dev, numpy.ones(3, "complex64")))
    with pytest.raises(anygpu.OutOfRangeError, match="anygpu.any: axis 2 is out of range"):
        anygpu.any(x, axis=2)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.all: axis"):
        anygpu.all(x, axis=(0, 0))
