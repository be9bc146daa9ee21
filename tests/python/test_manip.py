"""concat (and numpy's concatenate), stack, unstack and roll against numpy 1.24 on every device:
every dtype, every axis, empty and view inputs, mixed dtypes, shifts of either sign and beyond
the length, several axes, the flattened roll, and the arguments each refuses."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"]


def sample(dtype, shape=(2, 3, 4), seed=0):
    return (numpy.random.default_rng(seed).integers(0, 50, shape) % (2 if dtype == "bool" else 50)).astype(dtype)


@pytest.mark.parametrize("dtype", ALL)
def test_concat_and_stack_match_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a, b, c = sample(dtype), sample(dtype, seed=1), sample(dtype, seed=2)
    x, y, z = put(dev, a), put(dev, b), put(dev, c)
    for axis in (0, 1, 2, -1):
        numpy.testing.assert_array_equal(numpy.asarray(anygpu.concat([x, y, z], axis=axis)),
                                         numpy.concatenate([a, b, c], axis=axis))
        numpy.testing.assert_array_equal(numpy.asarray(anygpu.stack([x, y], axis=axis)), numpy.stack([a, b], axis=axis))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.concat([x, y], axis=None)),
                                     numpy.concatenate([a, b], axis=None))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.concatenate((x, put(dev, a[:0])), 0)), a)
    # Views: a transposed and a stepped one.
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.concat([anygpu.matrix_transpose(x), y[:, ::-1].mT], axis=2)),
                                     numpy.concatenate([a.swapaxes(1, 2), b[:, ::-1].swapaxes(1, 2)], axis=2))


def test_concat_promotes_as_numpy(dev):
    a, b = numpy.arange(6, dtype="int8").reshape(2, 3), numpy.float32([[0.5, 1.5, 2.5]])
    got = anygpu.concat([put(dev, a), put(dev, b)])
    want = numpy.concatenate([a, b])
    assert got.dtype == want.dtype
    numpy.testing.assert_array_equal(numpy.asarray(got), want)


@pytest.mark.parametrize("dtype", ALL)
def test_unstack_gives_views_along_the_axis(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype)
    x = put(dev, a)
    for axis in (0, 1, -1):
        got = anygpu.unstack(x, axis=axis)
        want = [numpy.take(a, i, axis=axis) for i in range(a.shape[axis])]
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            numpy.testing.assert_array_equal(numpy.asarray(g), w)


@pytest.mark.parametrize("dtype", ALL)
def test_roll_matches_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (3, 4, 5))
    x = put(dev, a)
    for shift, axis in ((1, 0), (-2, -1), ((7, -1), (1, 2)), ((1, 2, 3), (0, 1, 2)), ((2, 3), (2, 2)), (3, (0, 1)),
                        (13, None), (-61, None), (0, 1)):
        numpy.testing.assert_array_equal(numpy.asarray(anygpu.roll(x, shift, axis=axis)),
                                         numpy.roll(a, shift, axis=axis))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.roll(x.mT, 7)), numpy.roll(a.swapaxes(1, 2), 7))


def test_bad_arguments_are_refused(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.MismatchError, match=r"anygpu.concat: arrays\[1\] has shape \(2, 4\) but arrays\[0\]"):
        anygpu.concat([x, put(dev, numpy.ones((2, 4), "float32"))])
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.concat: arrays is empty"):
        anygpu.concat([])
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.concat: axis 2 is outside"):
        anygpu.concat([x, x], axis=2)
    with pytest.raises(anygpu.MismatchError, match=r"anygpu.stack: arrays\[1\] has shape \(3,\)"):
        anygpu.stack([x, put(dev, numpy.ones(3, "float32"))])
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.unstack: axis 2 is outside"):
        anygpu.unstack(x, axis=2)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.roll: 2 shifts for 3 axes"):
        anygpu.roll(x, (1, 2), axis=(0, 1, 1))
    with pytest.raises(anygpu.InvalidArgumentError, match=r"anygpu.roll: axes\[0\] is 4"):
        anygpu.roll(x, 1, axis=4)


@pytest.mark.parametrize("dtype", ALL)
def test_tile_and_repeat_match_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype)
    x = put(dev, a)
    for reps in (2, (2, 1, 3), (1, 1), (2, 1, 2, 1), (1, 0, 2)):
        got = anygpu.tile(x, reps)
        want = numpy.tile(a, reps)
        assert got.shape == want.shape
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
    for repeats, axis in ((3, None), (2, 0), (3, -1), ([1, 0, 2], 1), (numpy.array([2, 1]), 0), (0, 2)):
        got = anygpu.repeat(x, repeats, axis=axis)
        want = numpy.repeat(a, repeats, axis=axis)
        assert got.shape == want.shape
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.tile(x.mT, 2)), numpy.tile(a.swapaxes(1, 2), 2))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.repeat(x[:, ::-1], 2, axis=1)),
                                     numpy.repeat(a[:, ::-1], 2, axis=1))


def test_tile_and_repeat_refuse_bad_counts(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.tile: repetitions .* negative"):
        anygpu.tile(x, (2, -1))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.repeat: repeats must be a count"):
        anygpu.repeat(x, -1)
    with pytest.raises(anygpu.MismatchError, match="anygpu.repeat: 2 repeats for 3 indices along axis 1"):
        anygpu.repeat(x, [1, 2], axis=1)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.repeat: axis 2 is outside"):
        anygpu.repeat(x, 2, axis=2)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex64", "complex128"])
def test_vecdot_matches_numpy(dev, dtype):
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(4)
    a, b = (rng.integers(-9, 9, s).astype(dtype) for s in ((3, 4, 5), (4, 5)))
    if dtype.startswith("complex"):
        a = a + 1j * rng.integers(-9, 9, a.shape).astype(dtype)
    x, y = put(dev, a), put(dev, b)
    for axis in (-1, -2):
        got = anygpu.vecdot(x, y, axis=axis)
        want = numpy.sum(numpy.conj(a) * b, axis=axis).astype(numpy.result_type(a, b))
        assert got.dtype == want.dtype and got.shape == want.shape
        numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-5)
    got = anygpu.vecdot(x, x, axis=1)
    numpy.testing.assert_allclose(numpy.asarray(got), numpy.sum(numpy.conj(a) * a, axis=1), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int8", "int64", "uint16"])
def test_tensordot_matches_numpy(dev, dtype):
    """BLAS for floats; for integers broadcast products summed on the device, wrapping in the
    dtype as numpy's (int8 sums of 20 products of up to 10 * 10 wrap)."""
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(6)

    def draw(shape):
        if numpy.dtype(dtype).kind in "iu":
            return rng.integers(0 if dtype.startswith("u") else -10, 11, shape).astype(dtype)
        return rng.normal(size=shape).astype(dtype)
    a, b = draw((3, 4, 5)), draw((4, 5, 2))
    x, y = put(dev, a), put(dev, b)
    rtol = 1e-5 if dtype in ("float32", "complex64") else 1e-12 if dtype == "float64" else 0
    c, d = draw((5, 2)), draw((4, 2, 3))
    for axes, other in ((2, y), (1, put(dev, c)), (0, y), (([1, 0], [0, 2]), put(dev, d)), (([0, 2], [0, 2]), x),
                        (1, put(dev, c.T).mT)):  # a transposed view: copied into a matrix
        ob = numpy.asarray(other)
        got = anygpu.tensordot(x, other, axes=axes)
        want = numpy.tensordot(a, ob, axes=axes)
        assert got.shape == want.shape and got.dtype == want.dtype
        numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=rtol, atol=rtol * 10)


def test_vecdot_and_tensordot_refuse_bad_arguments(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.MismatchError, match="anygpu.vecdot: x1 has 3 elements along axis -1 and x2 2"):
        anygpu.vecdot(x, put(dev, numpy.ones(2, "float32")))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.vecdot: axis 0 counts from the front"):
        anygpu.vecdot(x, put(dev, numpy.ones(3, "float32")), axis=0)
    with pytest.raises(anygpu.MismatchError, match="anygpu.tensordot: x1's axis 1 has 3 elements"):
        anygpu.tensordot(x, x, axes=1)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.tensordot: axes is 3"):
        anygpu.tensordot(x, x, axes=3)
