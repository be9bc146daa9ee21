"""take, take_along_axis, searchsorted, nonzero, count_nonzero, boolean and integer array indexing
and the four unique functions against numpy 1.24 on every device (unique: numpy's with NaN
distinct, the standard's rule; complex values too), masked assignment of scalars and arrays,
and the arguments each refuses."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

ALL = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64", "complex64", "complex128"]
REAL = [d for d in ALL if not d.startswith("complex")]


def sample(dtype, shape, seed=1):
    rng = numpy.random.default_rng(seed)
    a = rng.integers(0, 5, shape).astype(dtype)
    if numpy.dtype(dtype).kind == "c":  # imaginary parts too, so that complex order has two keys
        a += 1j * rng.integers(-1, 2, shape)
    if numpy.dtype(dtype).kind in "fc":
        a.flat[::7] = numpy.nan
        a.flat[1::5] = -0.0
    return a


@pytest.mark.parametrize("dtype", ALL)
def test_take_and_array_keys_match_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (3, 4, 5))
    x = put(dev, a)
    idx = numpy.array([2, -1, 0, 2])
    for axis in (0, 1, 2, -1):
        numpy.testing.assert_array_equal(numpy.asarray(anygpu.take(x, put(dev, idx), axis=axis)),
                                         numpy.take(a, idx, axis=axis))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.take(x, [5, -60])), numpy.take(a, [5, -60]))
    numpy.testing.assert_array_equal(numpy.asarray(x[put(dev, numpy.array([[2, 0], [1, 1]]))]),
                                     a[numpy.array([[2, 0], [1, 1]])])
    mask = sample("int8", (3, 4, 5), 2) > 2
    numpy.testing.assert_array_equal(numpy.asarray(x[put(dev, mask)]), a[mask])
    numpy.testing.assert_array_equal(numpy.asarray(x[mask[:, :, 0]]), a[mask[:, :, 0]])
    idx2 = numpy.argsort(sample("int32", (3, 4, 5), 3), axis=1)[:, :2]
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.take_along_axis(x, put(dev, idx2), axis=1)),
                                     numpy.take_along_axis(a, idx2, axis=1))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.take_along_axis(x, put(dev, idx2[:1]), axis=1)),
                                     numpy.take_along_axis(a, numpy.broadcast_to(idx2[:1], (3, 2, 5)), axis=1))


@pytest.mark.parametrize("dtype", ALL)
def test_nonzero_count_nonzero_and_mask_assignment(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (4, 6))
    x = put(dev, a)
    for got, want in zip(anygpu.nonzero(x), numpy.nonzero(a)):
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
    assert anygpu.count_nonzero(x) == numpy.count_nonzero(a)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.count_nonzero(x, axis=1)), numpy.count_nonzero(a, axis=1))
    assert anygpu.nonzero(put(dev, numpy.zeros(5, dtype)))[0].shape == (0,)
    mask = sample("int8", (4, 6), 4) > 2
    x[put(dev, mask)] = 1
    b = a.copy()
    b[mask] = 1
    numpy.testing.assert_array_equal(numpy.asarray(x), b)
    # An array value: one for every selected element, one row per selected element, or one value
    # for each (a 0-d Array, a row that broadcasts).
    rows = sample(dtype, (int(mask.sum()),), 7)
    x[put(dev, mask)] = put(dev, rows)
    b[mask] = rows
    numpy.testing.assert_array_equal(numpy.asarray(x), b)
    first = mask[:, 0]
    x[put(dev, first)] = put(dev, sample(dtype, (int(first.sum()), 6), 8))
    b[first] = sample(dtype, (int(first.sum()), 6), 8)
    x[put(dev, ~first)] = put(dev, sample(dtype, (6,), 9))
    b[~first] = sample(dtype, (6,), 9)
    x[put(dev, mask)] = put(dev, numpy.array(3, dtype))
    b[mask] = 3
    numpy.testing.assert_array_equal(numpy.asarray(x), b)
    empty = put(dev, numpy.zeros((0, 3), dtype))  # an empty mask selects nothing, as numpy's
    assert empty[put(dev, numpy.zeros((0, 0), bool))].shape == numpy.zeros((0, 3))[numpy.zeros((0, 0), bool)].shape


@pytest.mark.parametrize("dtype", REAL)
def test_searchsorted_matches_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a = numpy.sort(sample(dtype, 50), kind="stable")
    v = sample(dtype, (3, 7), 5)
    for side in ("left", "right"):
        numpy.testing.assert_array_equal(numpy.asarray(anygpu.searchsorted(put(dev, a), put(dev, v), side=side)),
                                         numpy.searchsorted(a, v, side=side))
    shuffled = sample(dtype, 30, 6)
    order = numpy.argsort(shuffled, kind="stable")
    numpy.testing.assert_array_equal(
        numpy.asarray(anygpu.searchsorted(put(dev, shuffled), put(dev, v), sorter=put(dev, order))),
        numpy.searchsorted(shuffled, v, sorter=order))


@pytest.mark.parametrize("dtype", ALL)
def test_unique_functions_match_numpy_with_nan_distinct(dev, dtype):
    need_fp64(dev, dtype)
    a = sample(dtype, (6, 7))
    x = put(dev, a)
    values, index, inverse, counts = numpy.unique(a, return_index=True, return_inverse=True, return_counts=True,
                                                  equal_nan=False)
    r = anygpu.unique_all(x)
    numpy.testing.assert_array_equal(numpy.asarray(r.values), values)
    numpy.testing.assert_array_equal(numpy.asarray(r.indices), index)
    numpy.testing.assert_array_equal(numpy.asarray(r.inverse_indices), inverse.reshape(a.shape))
    numpy.testing.assert_array_equal(numpy.asarray(r.counts), counts)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.unique_values(x)), values)
    v, c = anygpu.unique_counts(x)
    numpy.testing.assert_array_equal(numpy.asarray(c), counts)
    v, i = anygpu.unique_inverse(x)
    numpy.testing.assert_array_equal(numpy.asarray(i), inverse.reshape(a.shape))
    assert anygpu.unique_values(put(dev, numpy.zeros(0, dtype))).shape == (0,)


def test_bad_arguments_raise_by_name(dev):
    x = put(dev, numpy.ones((2, 3), "float32"))
    with pytest.raises(anygpu.OutOfRangeError, match="anygpu.take: indices holds an index outside"):
        anygpu.take(x, [0, 2], axis=0)
    with pytest.raises(anygpu.InvalidArgumentError, match="take: indices is float32"):
        anygpu.take(x, put(dev, numpy.ones(2, "float32")), axis=0)
    with pytest.raises(anygpu.InvalidArgumentError, match="side"):
        anygpu.searchsorted(x[0], x[1], side="middle")
    with pytest.raises(anygpu.UnsupportedError, match="array key only as a bool mask"):
        x[put(dev, numpy.array([0, 1]))] = 2
    with pytest.raises(anygpu.MismatchError, match="a value of shape \\(2, 3\\) is set into 4 selected elements"):
        x[put(dev, numpy.array([[1, 1, 0], [1, 0, 1]], bool))] = x
