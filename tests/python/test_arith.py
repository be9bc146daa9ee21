"""anygpu's floor_divide, remainder, bitwise operations and shifts, and their operators (//, %,
&, |, ^, ~, <<, >>, reflected and in place), against numpy 1.24 on every device: every dtype,
the special cases (negative operands, zero divisors, INT_MIN // -1, shifts by the width and
beyond, negative counts, +-0, inf and NaN), mixed dtypes, broadcasting, Python scalars, and the
dtypes each refuses. Every value is compared exactly, zeros' signs and NaN positions included:
anygpu computes floats with numpy's own algorithm."""

import operator

import numpy
import pytest

import anygpu
from conftest import need_fp64, put

INTS = ["uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64"]
FLOATS = ["float32", "float64"]
ALL = INTS + FLOATS + ["complex64", "complex128", "bool"]

# name: (numpy's function, the operator, the dtypes it takes)
BINARY = {
    "floor_divide": (numpy.floor_divide, operator.floordiv, INTS + FLOATS),
    "remainder": (numpy.remainder, operator.mod, INTS + FLOATS),
    "bitwise_and": (numpy.bitwise_and, operator.and_, INTS + ["bool"]),
    "bitwise_or": (numpy.bitwise_or, operator.or_, INTS + ["bool"]),
    "bitwise_xor": (numpy.bitwise_xor, operator.xor, INTS + ["bool"]),
    "bitwise_left_shift": (numpy.left_shift, operator.lshift, INTS),
    "bitwise_right_shift": (numpy.right_shift, operator.rshift, INTS),
}
INPLACE = {"floor_divide": operator.ifloordiv, "remainder": operator.imod, "bitwise_and": operator.iand,
           "bitwise_or": operator.ior, "bitwise_xor": operator.ixor, "bitwise_left_shift": operator.ilshift,
           "bitwise_right_shift": operator.irshift}


def operands(name, dtype, seed=0):
    """a and b of shape (5, 20) in @dtype for operation @name: the special cases first, then
    random values (integers over the whole range, divisors and shift counts small)."""
    dt = numpy.dtype(dtype)
    rng = numpy.random.default_rng(seed)
    n = 100
    if dt.kind == "b":
        a, b = numpy.array([0, 0, 1, 1] * 25, bool), numpy.array([0, 1, 0, 1] * 25, bool)
    elif dt.kind in "ui":
        info = numpy.iinfo(dt)
        w = dt.itemsize * 8
        if "shift" in name:
            sa = [1, -1, info.min, info.max, -8, 3, -3, 100, -100, 1, -1, 5]
            sb = [0, 0, w - 1, w - 1, 1, w, w + 1, w + 40, 2, -1, -w, 2]
            rb = rng.integers(-3, w + 3, n)
        else:
            sa = [info.min, info.min, 7, -7, 7, -7, 0, 5, -1, info.max, info.max, -128, 1]
            sb = [-1, 0, -2, 2, 2, -2, -3, 0, 3, -1, 1, -1, -128]
            rb = rng.integers(-4, 5, n)
        ra = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        def wrapped(v):  # Python ints wrapped to the dtype, as numpy's astype does: -1 is u8 255
            return numpy.array([int(i) & (2 ** w - 1) for i in v], "u%d" % dt.itemsize).view(dt)
        a = numpy.concatenate([wrapped(sa), ra[len(sa):]])
        b = numpy.concatenate([wrapped(sb), wrapped(rb[len(sb):])])
        if "shift" not in name:
            b[60:] = rng.integers(info.min, info.max, 40, dtype=dt, endpoint=True)
    else:
        special = [0.0, -0.0, 1.0, -1.0, 5.0, -5.0, 2.25, numpy.inf, -numpy.inf, numpy.nan]
        sa, sb = numpy.meshgrid(special, special)
        a = numpy.concatenate([sa.ravel(), rng.uniform(-100, 100, n)])[:n].astype(dt)
        b = numpy.concatenate([sb.ravel(), rng.uniform(-100, 100, n)])[:n].astype(dt)
    return a.reshape(5, 20), b.reshape(5, 20)


def assert_same(got, want):
    """@got (an Array) is numpy's @want exactly: dtype, values, NaN positions and zeros' signs."""
    assert isinstance(got, anygpu.Array)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g = numpy.asarray(got)
    numpy.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":
        zero = want == 0
        numpy.testing.assert_array_equal(numpy.signbit(g[zero]), numpy.signbit(want[zero]))


def numpy_of(f, *args):
    with numpy.errstate(all="ignore"):  # numpy warns at x // 0; anygpu gives its answer silently
        return f(*args)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("name", BINARY)
def test_functions_and_operators_match_numpy(dev, name, dtype):
    ref, op, takes = BINARY[name]
    need_fp64(dev, dtype)
    a, b = operands(name, dtype)
    x, y = put(dev, a), put(dev, b)
    if dtype not in takes:
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.%s: .*%s" % (name, dtype)):
            getattr(anygpu, name)(x, y)
        with pytest.raises(anygpu.UnsupportedError):
            op(x, y)
        return
    want = numpy_of(ref, a, b)
    assert_same(getattr(anygpu, name)(x, y), want)
    assert_same(op(x, y), want)
    assert_same(op(x, b), want)  # a numpy operand is copied over
    assert_same(op(a, y), want)  # numpy defers to the reflected operator
    z = put(dev, a)
    r = INPLACE[name](z, y)
    assert r is z
    assert_same(z, want)


@pytest.mark.parametrize("dtype", ALL)
def test_bitwise_invert_matches_numpy(dev, dtype):
    need_fp64(dev, dtype)
    a, _ = operands("bitwise_and", dtype)
    x = put(dev, a)
    if numpy.dtype(dtype).kind not in "uib":
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.bitwise_invert: .*%s" % dtype):
            anygpu.bitwise_invert(x)
        with pytest.raises(anygpu.UnsupportedError):
            ~x
        return
    want = numpy.invert(a)
    assert_same(anygpu.bitwise_invert(x), want)
    assert_same(~x, want)


# Pairs of dtypes, promoted as numpy's (int8 with uint8 is int16, an integer of 8 or 16 bits with
# float32 is float32), and shapes that broadcast: a trailing operand and {3, 1} with {1, 4}.
@pytest.mark.parametrize("da, db", [("int8", "int32"), ("uint8", "bool"), ("int8", "uint8"), ("float32", "int16"),
                                    ("int64", "float64"), ("uint16", "uint64")])
@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((4,), (3, 4)), ((3, 1), (1, 4))])
@pytest.mark.parametrize("name", BINARY)
def test_mixed_dtypes_and_shapes_match_numpy(dev, name, da, db, shapes):
    ref, op, takes = BINARY[name]
    want_dt = numpy.result_type(da, db)
    need_fp64(dev, want_dt)
    rng = numpy.random.default_rng(7)
    a = rng.integers(-20, 20, shapes[0]).astype(da)
    b = rng.integers(-6, 7 if "shift" not in name else 40, shapes[1]).astype(db)
    x, y = put(dev, a), put(dev, b)
    if want_dt.name not in takes:
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.%s" % name):
            getattr(anygpu, name)(x, y)
        return
    want = numpy_of(ref, a, b)
    assert_same(getattr(anygpu, name)(x, y), want)
    assert_same(op(x, y), want)


# Python numbers as numpy 1.24 takes them: on the right and on the left, the array's dtype kept
# (or a float scalar making integers float64), True and False with bool and integers.
@pytest.mark.parametrize("dtype, scalars", [
    ("int32", [3, -2, 0, -1, 31, 32, 100]), ("uint8", [3, 0, 7, 8, 200]), ("int64", [-3, 63, 64]),
    ("float32", [2.5, -0.75, 0.0, -0.0, 3]), ("float64", [2.5, -0.75, -0.0, float("inf")]),
    ("int32", [2.5, -0.5]), ("bool", [True, False]), ("int16", [True, False]),
])
@pytest.mark.parametrize("name", BINARY)
def test_python_scalars_match_numpy(dev, name, dtype, scalars):
    ref, op, takes = BINARY[name]
    a, _ = operands(name, dtype, seed=3)
    x = put(dev, a)
    for s in scalars:
        for left in (False, True):
            try:
                want = numpy_of(ref, s, a) if left else numpy_of(ref, a, s)
            except TypeError:  # numpy refuses too (a float shift count)
                with pytest.raises(anygpu.AnygpuError):
                    op(s, x) if left else op(x, s)
                continue
            if isinstance(s, bool) and name not in ("bitwise_and", "bitwise_or", "bitwise_xor"):
                continue  # Python's bools are scalars of the logical operations only (docs/python.md)
            if want.dtype.name not in takes:
                with pytest.raises(anygpu.UnsupportedError):
                    op(s, x) if left else op(x, s)
                continue
            if want.dtype.name in ("float64",) and not dev.fp64:
                with pytest.raises(anygpu.UnsupportedError, match="double precision"):
                    op(s, x) if left else op(x, s)
                continue
            got = op(s, x) if left else op(x, s)
            assert_same(got, want)


def test_refusals_name_the_function_and_the_dtype(dev):
    f = put(dev, numpy.ones(3, numpy.float32))
    c = put(dev, numpy.ones(3, numpy.complex64))
    t = put(dev, numpy.ones(3, bool))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.%s: .*float32" % name):
            getattr(anygpu, name)(f, f)
    with pytest.raises(anygpu.UnsupportedError, match=r"anygpu.Array.__and__: .*float32"):
        f & 1
    with pytest.raises(anygpu.UnsupportedError, match=r"anygpu.Array.__floordiv__: .*complex64"):
        c // c
    with pytest.raises(anygpu.UnsupportedError, match=r"anygpu.Array.__mod__: .*bool"):
        t % t
    with pytest.raises(anygpu.UnsupportedError, match=r"anygpu.Array.__lshift__: .*bool"):
        t << t
    with pytest.raises(anygpu.UnsupportedError, match=r"anygpu.Array.__invert__: .*float32"):
        ~f
    with pytest.raises(anygpu.MismatchError, match="anygpu.floor_divide"):
        anygpu.floor_divide(put(dev, numpy.ones((2, 3), numpy.int32)), put(dev, numpy.ones(4, numpy.int32)))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.remainder"):
        anygpu.remainder(put(dev, numpy.ones(3, numpy.int32)), "2")
