"""The array API's other elementwise functions (tan to log10, floor, ceil, trunc, round, isnan,
isinf, isfinite, signbit; atan2, hypot, copysign, logaddexp; logical_and, _or, _xor, _not;
positive) and numpy's names for them (arcsin...), against numpy 1.24 on every device: every
dtype, the special values of the real floats (+-0, +-inf, NaN, halves, the ends of each domain)
with zeros' signs, complex arguments off the branch cuts, scalars, broadcasting, and the dtypes
each refuses.

Where anygpu follows the array API standard rather than numpy 1.24, the test says so: integer
arguments of the float functions compute in float64 (numpy: float16 for int8), and floor, ceil,
trunc of integers keep the integer dtype (numpy gives floats)."""

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

INTS = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"]
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
ALL = INTS + FLOATS + COMPLEX + ["bool"]

# name: (numpy's function, the real arguments' range where it is finite)
FLOAT_FUNCTIONS = {
    "tan": (numpy.tan, -1.5, 1.5), "asin": (numpy.arcsin, -0.99, 0.99), "acos": (numpy.arccos, -0.99, 0.99),
    "atan": (numpy.arctan, -5, 5), "sinh": (numpy.sinh, -5, 5), "cosh": (numpy.cosh, -5, 5),
    "tanh": (numpy.tanh, -5, 5), "asinh": (numpy.arcsinh, -5, 5), "acosh": (numpy.arccosh, 1, 10),
    "atanh": (numpy.arctanh, -0.99, 0.99), "expm1": (numpy.expm1, -5, 5), "log1p": (numpy.log1p, -0.9, 10),
    "log2": (numpy.log2, 0.1, 100), "log10": (numpy.log10, 0.1, 100),
}
ROUNDING = {"floor": numpy.floor, "ceil": numpy.ceil, "trunc": numpy.trunc, "round": numpy.round}
TESTS = {"isnan": numpy.isnan, "isinf": numpy.isinf, "isfinite": numpy.isfinite, "signbit": numpy.signbit}
BINARY = {"atan2": numpy.arctan2, "hypot": numpy.hypot, "copysign": numpy.copysign, "logaddexp": numpy.logaddexp}
SPECIALS = [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 50.0, -50.0, 0.99,
            -0.99, 1e-30, -1e-30, 3.5]
# Relative tolerance against numpy's own result in the same dtype, and an absolute floor (results
# near 0 at arguments away from 0: tan near pi, log2 near 1): numpy computes f32 in f32 too.
RTOL = {"float32": 1e-5, "complex64": 1e-5, "float64": 1e-13, "complex128": 1e-12}


def values(name, dtype, seed=0, n=120):
    """n arguments of @name in @dtype: the special values first (real floats), then random ones
    over the function's range; complex parts in [-2, 2]; integers in [-100, 100] ([0, 200]
    unsigned); bool both."""
    dt = numpy.dtype(dtype)
    rng = numpy.random.default_rng(seed)
    lo, hi = FLOAT_FUNCTIONS[name][1:] if name in FLOAT_FUNCTIONS else (-10, 10)
    if dt.kind == "b":
        return numpy.arange(n) % 3 == 0
    if dt.kind in "ui":
        return rng.integers(0 if dt.kind == "u" else -100, 200 if dt.kind == "u" else 100, n).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(-2, 2, n) + 1j * rng.uniform(-2, 2, n)).astype(dt)
    x = rng.uniform(lo, hi, n)
    x[:len(SPECIALS)] = SPECIALS
    return x.astype(dt)


def numpy_of(f, *args):
    with numpy.errstate(all="ignore"):
        return f(*args)


def assert_matches(got, want, dtype):
    """@got (an Array) has @want's dtype and values: exact for integers and bool, else within
    RTOL of @dtype (complex: of the modulus), NaN and inf where numpy has them, zeros' signs."""
    assert isinstance(got, anygpu.Array)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g = numpy.asarray(got)
    if want.dtype.kind in "uib":
        numpy.testing.assert_array_equal(g, want)
        return
    rtol = RTOL[numpy.dtype(dtype).name]
    numpy.testing.assert_allclose(g, want, rtol=rtol, atol=rtol / 10, equal_nan=True)
    if want.dtype.kind == "f":
        zero = want == 0
        numpy.testing.assert_array_equal(numpy.signbit(g[zero]), numpy.signbit(want[zero]))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", FLOAT_FUNCTIONS)
def test_float_functions_match_numpy(dev, name, dtype):
    ref = FLOAT_FUNCTIONS[name][0]
    dt = numpy.dtype(dtype)
    result = numpy.dtype("float64") if dt.kind in "ui" else dt
    need_fp64(dev, result)
    a = values(name, dtype)
    x = put(dev, a)
    if dt.kind == "b":
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.%s: .*bool" % name):
            getattr(anygpu, name)(x)
        return
    # Integers compute in float64, as the standard's functions of floats take them.
    want = numpy_of(ref, a.astype(result))
    assert_matches(getattr(anygpu, name)(x), want, result)
    numpy_name = ref.__name__
    if numpy_name != name:  # numpy's spelling, arcsin, is the same function
        assert_matches(getattr(anygpu, numpy_name)(x), want, result)


PARTS = [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.0, 0.5, -2.0]
SPECIAL_PAIRS = numpy.array([complex(a, b) for a in PARTS for b in PARTS])
# numpy's complex expm1 gives NaN for most infinite parts, where the standard (and C99's cexp,
# which numpy.exp follows) give exp(z) - 1: that is the reference for expm1 here.
SPECIAL_REFERENCE = {"expm1": lambda z: numpy.exp(z) - 1}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", list(FLOAT_FUNCTIONS) + ["exp", "sqrt", "sin", "cos", "log"])
def test_complex_special_values_match_numpy(dev, name, dtype):
    """Every pair of +-0, +-inf, NaN, 1 and finite parts: C99 Annex G's values, the standard's
    special cases, as numpy gives them; each part compared on its own (NaN with NaN, inf with
    inf of the same sign)."""
    need_fp64(dev, dtype)
    a = SPECIAL_PAIRS.astype(dtype)
    ref = FLOAT_FUNCTIONS[name][0] if name in FLOAT_FUNCTIONS else getattr(numpy, name)
    want = numpy_of(SPECIAL_REFERENCE.get(name, ref), a)
    got = numpy.asarray(getattr(anygpu, name)(put(dev, a)))
    rtol = RTOL[dtype]
    for part in ("real", "imag"):
        numpy.testing.assert_allclose(getattr(got, part), getattr(want, part), rtol=rtol, atol=rtol / 10,
                                      equal_nan=True, err_msg="%s of %s, %s part" % (name, list(a), part))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", ROUNDING)
def test_rounding_matches_numpy(dev, name, dtype):
    dt = numpy.dtype(dtype)
    need_fp64(dev, dt)
    a = values(name, dtype)
    x = put(dev, a)
    if dt.kind == "b" or (dt.kind == "c" and name != "round"):
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.%s: .*%s" % (name, dt.name)):
            getattr(anygpu, name)(x)
        return
    want = numpy_of(ROUNDING[name], a)
    if dt.kind in "ui":  # the standard keeps integers' dtype; numpy 1.24 gives floats but for round
        want = want.astype(dt)
    assert_matches(getattr(anygpu, name)(x), want, dt)


def test_round_takes_halves_to_even(dev):
    x = put(dev, numpy.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e7 + 0.5], "float32"))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.round(x)), [0, 2, 2, -0.0, -2, -2, 1e7])
    assert numpy.signbit(numpy.asarray(anygpu.round(x))[3])


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", TESTS)
def test_tests_match_numpy(dev, name, dtype):
    dt = numpy.dtype(dtype)
    need_fp64(dev, dt)
    a = values(name, dtype)
    if dt.kind == "c":  # every kind of part: NaN, inf, -0 and finite, in each place
        parts = numpy.zeros((2, len(SPECIALS)), dt)
        parts[0].real, parts[0].imag = SPECIALS, 0.5
        parts[1].real, parts[1].imag = 0.5, SPECIALS
        a = numpy.concatenate([a, parts.ravel()])
        if name == "signbit":
            with pytest.raises(anygpu.UnsupportedError, match="anygpu.signbit: .*%s" % dt.name):
                anygpu.signbit(put(dev, a))
            return
    if dt.kind == "b" and name == "signbit":
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.signbit: .*bool"):
            anygpu.signbit(put(dev, a))
        return
    if dt.kind == "f":
        a = numpy.concatenate([a, numpy.array([-numpy.nan], dt)])
    assert_matches(getattr(anygpu, name)(put(dev, a)), TESTS[name](a), dt)


def binary_values(dtype, seed=0):
    """a and b: every pair of the special values, then random in [-10, 10]."""
    s = [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.0, -1.0, 2.5]
    sa, sb = numpy.meshgrid(s, s)
    rng = numpy.random.default_rng(seed)
    a = numpy.concatenate([sa.ravel(), rng.uniform(-10, 10, 56)])
    b = numpy.concatenate([sb.ravel(), rng.uniform(-10, 10, 56)])
    return a.astype(dtype).reshape(8, 15), b.astype(dtype).reshape(8, 15)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_match_numpy(dev, name, dtype):
    ref = BINARY[name]
    dt = numpy.dtype(dtype)
    result = numpy.dtype("float64") if dt.kind in "ui" else dt
    need_fp64(dev, result)
    if dt.kind in "ui":
        rng = numpy.random.default_rng(3)
        a, b = (rng.integers(-5 if dt.kind == "i" else 0, 9, (8, 15)).astype(dt) for _ in range(2))
    elif dt.kind == "b":
        a, b = numpy.arange(120).reshape(8, 15) % 2 == 0, numpy.arange(120).reshape(8, 15) % 3 == 0
    else:
        a, b = binary_values(dt) if dt.kind == "f" else (values("tan", dt).reshape(8, 15),) * 2
    x, y = put(dev, a), put(dev, b)
    f = getattr(anygpu, name)
    if dt.kind in "bc":
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.%s: .*%s" % (name, dt.name)):
            f(x, y)
        return
    want = numpy_of(ref, a.astype(result), b.astype(result))
    assert_matches(f(x, y), want, result)
    # b's first row repeated over a's rows, a scalar on either side, (8, 1) with (1, 15).
    assert_matches(f(x, put(dev, b[0])), numpy_of(ref, a.astype(result), b[0].astype(result)), result)
    for s in (-0.0, 2.5, float("inf")):
        assert_matches(f(x, s), numpy_of(ref, a.astype(result), result.type(s)), result)
        assert_matches(f(s, x), numpy_of(ref, result.type(s), a.astype(result)), result)
    assert_matches(f(put(dev, a[:, :1]), put(dev, b[:1])),
                   numpy_of(ref, a[:, :1].astype(result), b[:1].astype(result)), result)
    if name == "atan2":
        assert_matches(anygpu.arctan2(x, y), want, result)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_functions_match_numpy(dev, name, dtype):
    need_fp64(dev, dtype)
    a = (numpy.arange(12) % 3).astype(dtype).reshape(3, 4)
    b = (numpy.arange(4) % 2).astype(dtype)
    x, y = put(dev, a), put(dev, b)
    ref = getattr(numpy, name)
    assert_matches(getattr(anygpu, name)(x, y), ref(a, b), "bool")
    assert_matches(getattr(anygpu, name)(x, True), ref(a, True), "bool")
    assert_matches(anygpu.logical_not(x), numpy.logical_not(a), "bool")


def test_positive_is_a_copy(dev):
    a = numpy.array([1.5, -2, 0], "float32")
    x = put(dev, a)
    p = anygpu.positive(x)
    assert p is not x
    assert_matches(p, numpy.positive(a), "float32")
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.positive: x is bool"):
        anygpu.positive(put(dev, numpy.array([True])))


def test_views_are_read_and_written(dev):
    a = numpy.linspace(-0.9, 0.9, 48, dtype="float32").reshape(6, 8)
    x = put(dev, a)
    assert_matches(anygpu.atanh(x.T[::2]), numpy.arctanh(a.T[::2]), "float32")
    assert_matches(anygpu.isfinite(x[:, ::-3]), numpy.isfinite(a[:, ::-3]), "float32")


def test_outs_of_another_dtype_are_refused(dev):
    x = put(dev, numpy.array([1.0, numpy.nan], "float32"))
    with pytest.raises(anygpu.MismatchError, match="anygpu.isnan: .*out"):
        anygpu.isnan(x, out=anygpu.empty((2,), "float32", dev))
    with pytest.raises(anygpu.MismatchError, match="anygpu.tan: .*out"):
        anygpu.tan(x, out=anygpu.empty((2,), "bool", dev))
