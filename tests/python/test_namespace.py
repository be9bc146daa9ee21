"""The array API standard's constants, dtypes and dtype functions (finfo, iinfo, isdtype,
result_type, can_cast) against numpy 1.24's answers for every pair of anygpu's dtypes, and the
view functions pow, matrix_transpose, broadcast_arrays and moveaxis against numpy on every
device, with the arguments each refuses; and the array object's parts of the standard:
__array_namespace__, asarray's copy, 0-d results that act as numbers, numpy's protocols."""

import math
import operator

import numpy
import pytest

import anygpu
from conftest import put

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
         "complex64", "complex128"]


def test_constants_are_python_s():
    assert anygpu.e == math.e and anygpu.pi == math.pi and anygpu.inf == math.inf
    assert math.isnan(anygpu.nan)
    assert anygpu.newaxis is None


@pytest.mark.parametrize("name", NAMES)
def test_dtypes_are_numpy_s_and_arrays_have_them(name):
    dt = getattr(anygpu, name)
    assert dt == numpy.dtype(name)
    a = anygpu.asarray(numpy.zeros(2, name), device="host")
    assert a.dtype == dt


def test_finfo_and_iinfo_give_numpy_s_limits():
    for name in ("float32", "float64", "complex64", "complex128"):
        f = anygpu.finfo(getattr(anygpu, name))
        want = numpy.finfo(name)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (want.bits, want.eps, want.max, want.min,
                                                                     want.smallest_normal)
        assert type(f.bits) is int and all(type(v) is float for v in (f.eps, f.max, f.min, f.smallest_normal))
        assert f.dtype == numpy.dtype(name.replace("complex64", "float32").replace("complex128", "float64"))
    for name in NAMES[1:9]:
        i = anygpu.iinfo(name)
        assert (i.bits, i.min, i.max) == (numpy.iinfo(name).bits, numpy.iinfo(name).min, numpy.iinfo(name).max)
    a = anygpu.asarray(numpy.zeros(2, "float32"), device="host")
    assert anygpu.finfo(a).eps == numpy.finfo("float32").eps
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.finfo: type is int32, not a floating dtype"):
        anygpu.finfo(anygpu.int32)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.iinfo: type is float32, not an integer dtype"):
        anygpu.iinfo("float32")
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.finfo: type is float16"):
        anygpu.finfo("float16")


@pytest.mark.parametrize("kind, members", [
    ("bool", ["bool"]), ("signed integer", NAMES[1:5]), ("unsigned integer", NAMES[5:9]),
    ("integral", NAMES[1:9]), ("real floating", ["float32", "float64"]),
    ("complex floating", ["complex64", "complex128"]), ("numeric", NAMES[1:]),
    (("bool", "real floating"), ["bool", "float32", "float64"]), (anygpu.float32, ["float32"]),
    (("unsigned integer", anygpu.int8), NAMES[1:2] + NAMES[5:9]),
])
def test_isdtype_takes_kinds_tuples_and_dtypes(kind, members):
    for name in NAMES:
        assert anygpu.isdtype(getattr(anygpu, name), kind) == (name in members), (name, kind)


def test_isdtype_refuses_an_unknown_kind():
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.isdtype: kind 'floating' is none of"):
        anygpu.isdtype(anygpu.float32, "floating")


@pytest.mark.parametrize("a", NAMES)
def test_result_type_and_can_cast_follow_numpy_for_arrays(a):
    for b in NAMES:
        want = numpy.result_type(numpy.dtype(a), numpy.dtype(b))
        got = anygpu.result_type(getattr(anygpu, a), b)
        assert got == want, (a, b, got, want)
        assert anygpu.can_cast(a, b) == (want == numpy.dtype(b)), (a, b)
    x = anygpu.asarray(numpy.zeros(1, a), device="host")
    assert anygpu.result_type(x) == numpy.dtype(a)
    # More than two: pairwise, in turn (numpy's all-at-once rule differs for mixed kinds).
    want = numpy.result_type(numpy.result_type(numpy.dtype(a), "int8"), "float32")
    assert anygpu.result_type(x, "int8", "float32") == want


def test_result_type_refuses_python_scalars_and_nothing():
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.result_type: argument 1 is a Python float"):
        anygpu.result_type(anygpu.float32, 1.5)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.result_type: give at least one"):
        anygpu.result_type()


def test_pow_is_numpy_s_power(dev):
    a, b = numpy.float32([1.5, 2, 3, 0]), numpy.float32([2, 0.5, -1, 0])
    got = anygpu.pow(put(dev, a), put(dev, b))
    assert got.dtype == numpy.float32
    numpy.testing.assert_allclose(numpy.asarray(got), numpy.power(a, b), rtol=1e-6)


def test_matrix_transpose_swaps_the_last_two_axes(dev):
    a = numpy.arange(24, dtype="float32").reshape(2, 3, 4)
    got = anygpu.matrix_transpose(put(dev, a))
    numpy.testing.assert_array_equal(numpy.asarray(got), numpy.swapaxes(a, -1, -2))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.matrix_transpose: x has 1 dimension"):
        anygpu.matrix_transpose(put(dev, a[0, 0]))


def test_broadcast_arrays_gives_views_of_one_shape(dev):
    a, b, c = numpy.arange(3.0, dtype="float32").reshape(3, 1), numpy.arange(4, dtype="int32"), numpy.float32([7])
    got = anygpu.broadcast_arrays(put(dev, a), put(dev, b), put(dev, c))
    for g, w in zip(got, numpy.broadcast_arrays(a, b, c)):
        assert g.shape == w.shape and g.dtype == w.dtype
        numpy.testing.assert_array_equal(numpy.asarray(g), w)
    with pytest.raises(anygpu.MismatchError, match=r"anygpu.broadcast_arrays: shapes \(3,\), \(2,\)"):
        anygpu.broadcast_arrays(put(dev, a.ravel()), put(dev, b[:2]))


@pytest.mark.parametrize("source, destination", [(0, -1), (-1, 0), ((0, 1), (2, 0)), ((0, 2), (1, 0)), (1, 1)])
def test_moveaxis_matches_numpy(dev, source, destination):
    a = numpy.arange(2 * 3 * 4 * 5, dtype="float32").reshape(2, 3, 4, 5)
    got = anygpu.moveaxis(put(dev, a), source, destination)
    numpy.testing.assert_array_equal(numpy.asarray(got), numpy.moveaxis(a, source, destination))


def test_moveaxis_refuses_bad_axes(dev):
    x = put(dev, numpy.zeros((2, 3), "float32"))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.moveaxis: source 2 is outside x's 2 axes"):
        anygpu.moveaxis(x, 2, 0)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.moveaxis: destination repeats an axis"):
        anygpu.moveaxis(x, (0, 1), (1, 1))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.moveaxis: source has 2 axes and destination 1"):
        anygpu.moveaxis(x, (0, 1), 0)


def test_arrays_name_their_namespace(dev):
    x = anygpu.zeros(3, device=dev)
    assert x.__array_namespace__() is anygpu
    assert x.__array_namespace__(api_version="2022.12") is anygpu
    assert anygpu.__array_api_version__ == "2023.12"
    with pytest.raises(anygpu.UnsupportedError, match="api_version '2021.12'"):
        x.__array_namespace__(api_version="2021.12")


def test_asarray_takes_the_standard_s_copy_keyword(dev):
    x = anygpu.asarray(numpy.arange(4, dtype="float32"), device=dev)
    assert anygpu.asarray(x) is x and anygpu.asarray(x, copy=False) is x
    y = anygpu.asarray(x, copy=True)
    assert y is not x
    y[0] = 7
    assert float(x[0]) == 0  # a copy, not a view
    with pytest.raises(anygpu.InvalidArgumentError, match="asarray: copy=False, but the Array is on"):
        anygpu.asarray(x, dtype="int32", copy=False)
    with pytest.raises(anygpu.InvalidArgumentError, match="asarray: copy=False, but list is copied"):
        anygpu.asarray([1.0], device=dev, copy=False)
    with pytest.raises(anygpu.InvalidArgumentError, match="copy is 'yes'"):
        anygpu.asarray(x, copy="yes")


def test_python_floats_take_the_default_floating_dtypes(dev):
    """float32 and complex64 for Python numbers, as every creation function gives; numpy's own
    values keep their dtype; full takes its value's kind."""
    with anygpu.device(dev):
        assert anygpu.asarray(0.5).dtype == anygpu.float32 and anygpu.asarray([1.0, 2]).dtype == anygpu.float32
        assert anygpu.asarray([[1j], [2.0]]).dtype == anygpu.complex64 and anygpu.asarray(3).dtype == anygpu.int64
        assert anygpu.asarray(numpy.float64(1.5)).dtype == anygpu.float64
        assert anygpu.asarray([numpy.float64(1.5)]).dtype == anygpu.float64
        assert anygpu.asarray(numpy.ones(2)).dtype == anygpu.float64
        assert anygpu.asarray(1.5, dtype="float64").dtype == anygpu.float64
        for value, dtype in ((True, "bool"), (3, "int64"), (2.5, "float32"), (1j, "complex64"),
                             (numpy.int16(4), "int16")):
            got = anygpu.full((2,), value)
            assert got.dtype == numpy.dtype(dtype)
            numpy.testing.assert_array_equal(numpy.asarray(got), numpy.full((2,), value, dtype))
        assert anygpu.full_like(anygpu.zeros(3, "int8"), fill_value=5).dtype == anygpu.int8
        for make in (anygpu.zeros, anygpu.ones, anygpu.empty):
            assert make((), dtype=None).dtype == anygpu.float32
        # 64-bit integers past 2^53, which a double does not hold, arrive exactly.
        big = anygpu.full((2, 3), 2 ** 63 + 1, dtype="uint64")
        numpy.testing.assert_array_equal(numpy.asarray(big), numpy.full((2, 3), 2 ** 63 + 1, "uint64"))
        small = anygpu.zeros((2, 2), "int64")
        small[0] = -2 ** 62 - 3
        assert numpy.asarray(small).tolist() == [[-2 ** 62 - 3] * 2, [0, 0]]
        with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.full: fill_value 18446744073709551616 is "
                                                              "outside uint64's range"):
            anygpu.full((2,), 2 ** 64, dtype="uint64")
        assert int(anygpu.asarray([2 ** 63 + 1, 3], dtype="uint64")[0]) == 2 ** 63 + 1  # numpy alone: float64
        # ... and so do such scalars in comparisons and arithmetic.
        a = numpy.array([2 ** 62 + 1, 5], "int64")
        x = anygpu.asarray(a)
        for got, want in ((x == 2 ** 62 + 1, a == 2 ** 62 + 1), (x < 2 ** 62 + 1, a < 2 ** 62 + 1),
                          (x + (2 ** 62 - 1), a + (2 ** 62 - 1)), (x - (2 ** 62 + 1), a - (2 ** 62 + 1)),
                          (anygpu.asarray(2 ** 63 + 1, dtype="uint64") != 2 ** 63 + 1, numpy.array(False))):
            numpy.testing.assert_array_equal(numpy.asarray(got), want)


def test_python_integers_keep_an_integer_array_s_dtype(dev):
    """The standard's rule where the value fits (int8 >> 1 is int8); numpy 1.24's widening where
    it does not (uint8 + 300 is uint16)."""
    x = put(dev, numpy.array([-7, 100], "int8"))
    for got, want in ((x >> 1, numpy.array([-4, 50], "int8")), (x + 27, numpy.array([20, 127], "int8")),
                      (x * 2, numpy.array([-14, -56], "int8")), (x + 300, numpy.array([293, 400], "int16"))):
        assert got.dtype == want.dtype
        numpy.testing.assert_array_equal(numpy.asarray(got), want)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "uint16", "uint64"])
def test_integer_power_negative_and_sign_match_numpy(dev, dtype):
    """Integer ** wraps as numpy's; a negative power (numpy refuses it) truncates 1 / a^|b|;
    the negative of an unsigned integer is 2^bits - x; sign of unsigned is 0 or 1."""
    dt = numpy.dtype(dtype)
    rng = numpy.random.default_rng(3)
    a = rng.integers(0 if dt.kind == "u" else -9, 10, 64).astype(dt)
    b = rng.integers(0, 70, 64).astype(dt)
    x, y = put(dev, a), put(dev, b)
    with numpy.errstate(all="ignore"):
        numpy.testing.assert_array_equal(numpy.asarray(x ** y), a ** b)
        numpy.testing.assert_array_equal(numpy.asarray(anygpu.pow(x, 3)), a ** dt.type(3))
        numpy.testing.assert_array_equal(numpy.asarray(-x), -a)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.sign(x)), numpy.sign(a))
    assert (-x).dtype == dt and anygpu.sign(x).dtype == dt
    if dt.kind == "i":
        base = put(dev, numpy.array([1, -1, -1, 2, -3, 0], dt))
        power = put(dev, numpy.array([-5, -3, -4, -1, -2, 1], dt))
        numpy.testing.assert_array_equal(numpy.asarray(base ** power), numpy.array([1, -1, 1, 0, 0, 0], dt))


def test_sign_of_zero_is_positive_zero(dev):
    got = numpy.asarray(anygpu.sign(put(dev, numpy.array([-0.0, 0.0, -2.5, numpy.nan], "float32"))))
    numpy.testing.assert_array_equal(got, numpy.array([0.0, 0.0, -1.0, numpy.nan], "float32"))
    assert not numpy.signbit(got[0])


def test_the_standard_s_keywords(dev):
    """astype's copy and device, reshape's copy, clip's min and max, to_device's stream,
    from_dlpack's device and copy."""
    a = numpy.arange(6, dtype="float32").reshape(2, 3)
    x = put(dev, a)
    assert anygpu.astype(x, "float32", copy=False) is x
    y = anygpu.astype(x, "float32")
    assert y is not x and y.dtype == anygpu.float32
    host = anygpu.astype(x, "int32", device="host")
    assert host.device == anygpu.device("host") and host.dtype == anygpu.int32
    numpy.testing.assert_array_equal(numpy.asarray(host), a.astype("int32"))
    r = anygpu.reshape(x, (3, 2), copy=True)
    r[0, 0] = 9
    assert float(x[0, 0]) == 0  # a copy
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.clip(x, min=1, max=4)), numpy.clip(a, 1, 4))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.clip(x, max=2)), numpy.minimum(a, 2))
    assert x.to_device(dev, stream=None).device == dev
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.to_device: stream is 1"):
        x.to_device(dev, stream=1)
    h = anygpu.asarray(a, device="host")
    moved = anygpu.from_dlpack(h, device=dev)
    assert moved.device == dev
    numpy.testing.assert_array_equal(numpy.asarray(moved), a)
    copied = anygpu.from_dlpack(h, copy=True)
    copied[0, 0] = 5
    assert float(h[0, 0]) == 0
    if dev != anygpu.device("host"):
        with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.from_dlpack: copy=False, but x is on host"):
            anygpu.from_dlpack(h, device=dev, copy=False)
        numpy.testing.assert_array_equal(numpy.from_dlpack(_HostExport(x)), a)


class _HostExport:
    """A consumer asking an Array for host memory (dl_device (1, 0)), as the standard lets it."""

    def __init__(self, x):
        self.x = x

    def __dlpack__(self, stream=None):
        return self.x.__dlpack__(dl_device=(1, 0))

    def __dlpack_device__(self):
        return (1, 0)


def test_functions_take_python_numbers_as_0d_arrays(dev):
    with anygpu.device(dev):
        got = anygpu.isfinite(numpy.float32(1.5))
        assert isinstance(got, anygpu.Array) and got.shape == () and bool(got)
        assert float(anygpu.sqrt(numpy.float32(4))) == 2.0
        assert not bool(anygpu.isnan(7))


def test_numpy_functions_on_arrays_run_on_the_device(dev):
    """numpy's ufuncs and functions called with Arrays dispatch to anygpu's (__array_ufunc__,
    __array_function__): the results are Arrays on the same device, matching numpy's on the
    host copy; those without a counterpart raise TypeError naming them."""
    h = numpy.arange(12, dtype="float32").reshape(3, 4) - 5
    x = anygpu.asarray(h, device=dev)
    calls = [(numpy.sqrt, lambda a: (abs(a),), {}), (numpy.add, lambda a: (a, 2), {}),
             (numpy.maximum, lambda a: (a, 0), {}), (numpy.concatenate, lambda a: ([a, a],), {}),
             (numpy.sum, lambda a: (a,), {"axis": 1}), (numpy.sort, lambda a: (a,), {"axis": 0}),
             (numpy.fft.fft, lambda a: (a,), {})]
    for f, args, kwargs in calls:
        on_device = f(*args(x), **kwargs)
        assert isinstance(on_device, anygpu.Array) and on_device.device == dev, f.__name__
        numpy.testing.assert_allclose(numpy.asarray(on_device), f(*args(h), **kwargs), rtol=1e-5, atol=1e-5)
    out = anygpu.empty((3, 4), "float32", dev)
    assert numpy.multiply(x, 2, out=(out,)) is out
    numpy.testing.assert_array_equal(numpy.asarray(out), h * 2)
    with pytest.raises(TypeError, match="numpy.cbrt has no anygpu counterpart"):
        numpy.cbrt(x)
    with pytest.raises(TypeError, match="numpy.median has no anygpu counterpart"):
        numpy.median(x)
    with pytest.raises(TypeError, match="numpy.add.reduce has no anygpu counterpart"):
        numpy.add.reduce(x)


def test_reductions_give_0d_arrays_that_act_as_numbers(dev):
    x = anygpu.asarray(numpy.arange(6, dtype="int32"), device=dev)
    total = anygpu.sum(x)
    assert isinstance(total, anygpu.Array) and total.shape == () and total.dtype == numpy.int64
    assert total == 15 and int(total) == 15 and operator.index(total) == 15 and ([0] * 16)[total] == 0
    assert "%d, %.1f, %s" % (total, float(total), format(total, "03d")) == "15, 15.0, 015"
    assert anygpu.max(x) == pytest.approx(5)
    with pytest.raises(anygpu.InvalidArgumentError, match="__index__: a is float32"):
        operator.index(anygpu.sum(anygpu.ones(2, "float32", dev)))
    with pytest.raises(anygpu.InvalidArgumentError, match="__format__: spec '.1f' for an Array of 6"):
        format(x, ".1f")
