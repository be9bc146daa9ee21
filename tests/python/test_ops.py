"""anygpu's elementwise operations, comparisons, reductions and products against numpy on every
device: values, dtype promotion, broadcasting, in-place operators, errors, and no leak."""

import ctypes
import gc
import operator

import numpy
import pytest

import anygpu
from anygpu._lib import fn
from conftest import assert_close, need_fp64, put

DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128", "int8", "int16",
          "int64", "uint64"]
REAL = DTYPES[:6] + DTYPES[8:]
FLOAT = ["float32", "float64", "complex64", "complex128"]


def sample(dtype, shape=(2, 3), low=1, seed=0):
    """Small values every dtype holds (positive, so integer results match numpy exactly)."""
    rng = numpy.random.default_rng(seed)
    x = rng.integers(low, 9, size=shape).astype(dtype)
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * rng.integers(1, 9, size=shape)
    elif numpy.dtype(dtype).kind == "f":
        x = x + rng.random(shape).astype(dtype) / 2
    return x.astype(dtype)


BINARY = {
    "add": (operator.add, numpy.add, DTYPES),
    "subtract": (operator.sub, numpy.subtract, DTYPES),
    "multiply": (operator.mul, numpy.multiply, DTYPES),
    "divide": (operator.truediv, numpy.true_divide, DTYPES),
    "power": (operator.pow, numpy.power, FLOAT),
    "minimum": (None, numpy.minimum, REAL),
    "maximum": (None, numpy.maximum, REAL),
}


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary(dev, dtype, name):
    op, ref, dtypes = BINARY[name]
    if dtype not in dtypes:
        pytest.skip("%s takes %s" % (name, ", ".join(dtypes)))
    need_fp64(dev, dtype)
    a, b = sample(dtype), sample(dtype, seed=1)
    if name == "power":
        b = (b / 4).astype(dtype)
    want = ref(a, b)
    if want.dtype.name == "float64" and not dev.fp64:  # integer division
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.Array.__truediv__: .*double precision"):
            op(put(dev, a), put(dev, b))
        return
    x, y = put(dev, a), put(dev, b)
    assert_close(getattr(anygpu, name)(x, y), want, dtype, scale=10)
    if op is not None:
        assert_close(op(x, y), want, dtype, scale=10)
        assert_close(op(x, b), want, dtype, scale=10)  # a numpy operand is copied over
        assert_close(op(a, y), want, dtype, scale=10)  # numpy defers to the reflected operator


@pytest.mark.parametrize("dtype, scalar, result", [
    ("float32", 2.5, "float32"), ("float32", 2, "float32"), ("float64", 0.25, "float64"),
    ("int32", 3, "int32"), ("uint8", 300, "uint16"), ("int32", 2.5, "float64"),
    ("float32", 1j, "complex64"), ("float64", 2 - 1j, "complex128"), ("int32", 1j, "complex128"),
    ("complex64", 2.5, "complex64"), ("float32", numpy.float64(1.5), "float32"),
])
@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv])
def test_scalar_promotion(dev, dtype, scalar, result, op):
    a = sample(dtype)
    x = put(dev, a)
    if op is operator.truediv and numpy.dtype(result).kind in "ui":
        result = "float64"
    if numpy.dtype(result).name in ("float64", "complex128") and not dev.fp64:
        with pytest.raises(anygpu.UnsupportedError, match="double precision"):
            op(x, scalar)
        return
    for got, want in ((op(x, scalar), op(a.astype(result), scalar)), (op(scalar, x), op(scalar, a.astype(result)))):
        assert got.dtype == numpy.dtype(result)
        assert_close(got, want.astype(result), result)


def test_reflected_scalars(dev):
    a = sample("float32")
    x = put(dev, a)
    assert_close(2 - x, 2 - a)
    assert_close(1 / x, 1 / a)
    assert_close(2 ** x, 2 ** a, scale=10)
    assert_close(x ** 2, a ** 2, scale=10)
    assert_close(x * numpy.array(2.5), a * 2.5)  # a 0-d array counts as a scalar (numpy 1.24's rule)
    assert_close(-x, -a)
    assert_close(abs(put(dev, -a)), a)


@pytest.mark.parametrize("da, db", [("uint8", "float32"), ("int32", "float32"), ("uint16", "int32"),
                                    ("float32", "complex64"), ("uint8", "uint16"), ("float32", "float64")])
def test_mixed_dtypes(dev, da, db):
    a, b = sample(da), sample(db, seed=1)
    want = a + b
    need_fp64(dev, want.dtype)
    assert_close(put(dev, a) + put(dev, b), want)
    assert_close(put(dev, b) * put(dev, a), b * a)


def test_mixed_dtypes_promote_as_numpy(dev):
    a, b = sample("uint32"), sample("int32")
    assert_close(put(dev, a) + put(dev, b), a + b)  # int64
    assert_close(put(dev, sample("uint8")) + (-1), sample("uint8") + (-1))  # numpy 1.24: int16
    assert_close(put(dev, sample("int8")) * put(dev, sample("uint8")), sample("int8") * sample("uint8"))
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.Array.__add__: .*float16"):
        put(dev, sample("uint8")) + numpy.ones((2, 3), "float16")


@pytest.mark.parametrize("sa, sb", [((2, 3), (3,)), ((3,), (2, 3)), ((4, 2, 3), (2, 3)), ((2, 3), (1, 3)),
                                    ((1, 2, 3), (4, 2, 3))])
def test_broadcast(dev, sa, sb):
    a, b = sample("float32", sa), sample("float32", sb, seed=1)
    assert_close(put(dev, a) - put(dev, b), a - b)


def test_broadcasting_between_any_shapes(dev):
    """numpy's broadcasting between any shapes, views included; shapes that do not broadcast
    are refused."""
    for sa, sb in (((3, 1), (1, 4)), ((2, 1, 4), (3, 1)), ((5,), (2, 3, 1)), ((), (2, 3)), ((4, 1), (4,))):
        a, b = sample("float32", sa), sample("float32", sb, seed=1)
        assert_close(put(dev, a) + put(dev, b), a + b)
        assert_close(put(dev, a) * put(dev, b), a * b)
        numpy.testing.assert_array_equal(numpy.asarray(put(dev, a) < put(dev, b)), a < b)
    a = sample("float32", (4, 6))
    x = put(dev, a)
    assert_close(x[::2] - x[1::2, ::-1], a[::2] - a[1::2, ::-1])
    assert_close(x + x.T.T[:, :1], a + a[:, :1])
    assert_close(anygpu.where(x > 0.5, x[:, :1], 0.0), numpy.where(a > 0.5, a[:, :1], 0.0))
    with pytest.raises(anygpu.MismatchError, match="anygpu.Array.__mul__: shapes .* do not broadcast"):
        put(dev, sample("float32", (2, 3))) * put(dev, sample("float32", (4,)))


def test_inplace(dev):
    a, b = sample("float32"), sample("float32", seed=1)
    x = put(dev, a)
    y = x
    for op, iop in ((operator.add, operator.iadd), (operator.sub, operator.isub),
                    (operator.mul, operator.imul), (operator.truediv, operator.itruediv)):
        y = iop(y, put(dev, b))
        a = op(a, b)
        y = iop(y, 2)
        a = op(a, numpy.float32(2))
    assert y is x
    assert_close(x, a, scale=10)
    m = put(dev, sample("int32", (3, 4)))
    row = m[1]
    row += 100
    assert_close(m[1], sample("int32", (3, 4))[1] + 100)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.Array.__iadd__: cannot write the float64 result into a int32"):
        m += 1.5


UNARY = {
    "negative": ["int32", "float32", "float64", "complex64", "complex128"],
    "abs": DTYPES, "square": DTYPES,
    "sqrt": FLOAT + ["int32"], "exp": FLOAT, "log": FLOAT + ["uint16"], "sin": FLOAT, "cos": FLOAT,
    "sign": ["int32", "float32", "float64"], "conj": DTYPES, "real": DTYPES, "imag": FLOAT,
}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary(dev, dtype, name):
    if dtype not in UNARY[name]:
        pytest.skip("not one of the dtypes tested for %s" % name)
    a = sample(dtype)
    if name in ("negative", "sign") or dtype == "int32":
        a = sample(dtype, low=-8)
    if dtype in ("int32", "uint16") and name in ("sqrt", "log"):
        a = a.astype("float64")  # anygpu takes integers as float64 (and gives NaN for sqrt(-1))
    with numpy.errstate(invalid="ignore"):
        want = getattr(numpy, name)(a)
    need_fp64(dev, want.dtype)
    need_fp64(dev, dtype)
    got = getattr(anygpu, name)(put(dev, a, dtype))
    assert_close(got, want, scale=10)


def test_real_imag_properties(dev):
    a = sample("complex64")
    x = put(dev, a)
    assert_close(x.real, a.real)
    assert_close(x.imag, a.imag)
    assert_close(x.conj(), a.conj())


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64", "int8", "int64", "uint64", "bool"])
@pytest.mark.parametrize("op", [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge])
def test_compare(dev, dtype, op):
    need_fp64(dev, dtype)
    a, b = sample(dtype, (3, 4)), sample(dtype, (3, 4), seed=1)
    if dtype == "bool":
        a, b = a > 4, b > 4
    x, y = put(dev, a), put(dev, b)
    for got, want in ((op(x, y), op(a, b)), (op(x, 4), op(a, 4)), (op(4, x), op(4, a)),
                      (op(x, 4.5), op(a, 4.5)), (op(x, put(dev, b[0])), op(a, b[0]))):
        assert got.dtype == numpy.bool_ and want.dtype == numpy.bool_
        numpy.testing.assert_array_equal(numpy.asarray(got), want)


def test_compare_functions_and_complex(dev):
    a = sample("complex64")
    x = put(dev, a)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.equal(x, x)), numpy.ones(a.shape, bool))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.not_equal(x, a[0])), a != a[0])
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.less(put(dev, [1.0, 3.0], "float32"), 2)), [True, False])
    with pytest.raises(anygpu.UnsupportedError):
        x < x


def test_where(dev):
    cond = numpy.array([[1, 0, 1], [0, 0, 1]], dtype="uint8")
    a, b = sample("float32"), sample("float32", seed=1)
    want = numpy.where(cond, a, b)
    assert_close(anygpu.where(put(dev, cond), put(dev, a), put(dev, b)), want)
    assert_close(anygpu.where(cond.astype(bool), put(dev, a), 0.5), numpy.where(cond, a, numpy.float32(0.5)))
    assert_close(anygpu.where(put(dev, cond), put(dev, a), put(dev, b[1])), numpy.where(cond, a, b[1]))
    assert_close(anygpu.where(put(dev, cond.astype("float32")), 1.0, put(dev, b)), numpy.where(cond, 1, b))
    assert_close(anygpu.where(put(dev, cond.astype(bool)), put(dev, a), put(dev, b)), want)  # bool, as numpy's


def test_clip(dev):
    a = sample("float32", (4, 5), low=-8)
    x = put(dev, a)
    assert_close(anygpu.clip(x, -2, 3), numpy.clip(a, -2, 3))
    assert_close(x.clip(None, 0.5), numpy.clip(a, None, 0.5))
    lo = numpy.full(5, -1, "float32")
    assert_close(anygpu.clip(x, put(dev, lo), 2), numpy.clip(a, lo, 2))
    i = sample("int32", low=-8)
    assert_close(anygpu.clip(put(dev, i), 0, 5), numpy.clip(i, 0, 5))


def reduce_want(name, a, axis):
    return getattr(numpy, name)(a, axis=axis)  # dtypes too: int64 / uint64 sums, int64 indices


@pytest.mark.parametrize("name", ["sum", "mean", "min", "max", "argmin", "argmax"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction(dev, dtype, name):
    if dtype.startswith("complex") and name not in ("sum", "mean"):
        pytest.skip("%s takes real dtypes" % name)
    need_fp64(dev, dtype)
    if numpy.dtype(dtype).kind in "ui" and name == "mean":  # a float64 mean over an axis
        need_fp64(dev, "float64")
    a = sample(dtype, (3, 5), low=0 if dtype.startswith("u") else -8)
    x = put(dev, a)
    for axis in (0, 1, -1):
        assert_close(getattr(anygpu, name)(x, axis), reduce_want(name, a, axis), scale=10)
    assert_close(getattr(x, name)(1), reduce_want(name, a, 1), scale=10)
    got = getattr(anygpu, name)(x)
    assert isinstance(got, anygpu.Array) and got.shape == ()  # axis=None: a 0-d Array, as the standard's
    assert_close(got, reduce_want(name, a, None), scale=10)
    one = getattr(anygpu, name)(x[0], 0)  # a 1-D array along its axis: 0-d, as numpy gives
    assert one.shape == ()
    assert_close(numpy.asarray(one)[()], reduce_want(name, a[0], None), scale=10)


def test_reduction_errors(dev):
    x = put(dev, sample("float32"))
    with pytest.raises(anygpu.OutOfRangeError, match="anygpu.Array.sum: axis 2 is out of range"):
        x.sum(2)
    with pytest.raises(anygpu.UnsupportedError):
        anygpu.max(put(dev, sample("complex64")))


@pytest.mark.parametrize("dtype", FLOAT)
def test_products(dev, dtype):
    need_fp64(dev, dtype)
    a, b = sample(dtype, (3, 4)), sample(dtype, (4, 2), seed=1)
    v, w = sample(dtype, (4,), seed=2), sample(dtype, (3,), seed=3)
    x, y, xv, xw = put(dev, a), put(dev, b), put(dev, v), put(dev, w)
    assert_close(x @ y, a @ b, scale=10)
    assert_close(anygpu.matmul(x, xv), a @ v, scale=10)
    assert_close(xw @ x, w @ a, scale=10)
    assert_close(anygpu.dot(x, y), numpy.dot(a, b), scale=10)
    assert_close(anygpu.dot(xv, xv), numpy.dot(v, v), dtype, scale=10)
    assert_close(anygpu.dot(xv, v), numpy.dot(v, v), dtype, scale=10)
    assert_close(anygpu.vdot(x, x), numpy.vdot(a, a), dtype, scale=10)
    stack = sample(dtype, (2, 3, 4), seed=4)
    assert_close(put(dev, stack) @ y, stack @ b, scale=10)
    with pytest.raises(anygpu.MismatchError, match="anygpu.Array.__matmul__: shapes"):
        x @ x


@pytest.mark.parametrize("dtype", FLOAT)
def test_products_of_views(dev, dtype):
    """Transposes and blocks go to BLAS as they lie; reversed and stepped views through copies."""
    need_fp64(dev, dtype)
    a, b, c = sample(dtype, (4, 3)), sample(dtype, (6, 5), seed=1), sample(dtype, (8, 4), seed=2)
    x, y, z = put(dev, a), put(dev, b), put(dev, c)
    assert_close(x.T @ y[1:5, 2:4], a.T @ b[1:5, 2:4], scale=10)
    assert_close(y[1:4, :4].T @ x.T, b[1:4, :4].T @ a.T, scale=10)
    assert_close(z[::-2] @ x[:, ::-1], c[::-2] @ a[:, ::-1], scale=10)
    assert_close(x.T @ z[::2, 1], a.T @ c[::2, 1], scale=10)


def test_errors(dev):
    others = [d for d in anygpu.devices() if d != dev]
    x = put(dev, sample("float32"))
    if others:
        with pytest.raises(anygpu.MismatchError, match="anygpu.Array.__add__: the operands are on"):
            x + put(others[0], sample("float32"))
        with pytest.raises(anygpu.MismatchError, match="anygpu.Array.__matmul__: "):
            x @ put(others[0], sample("float32", (3, 2)))
    with pytest.raises(anygpu.UnsupportedError, match="float16"):
        anygpu.asarray(numpy.arange(3, dtype="float16"), device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="^AG_ERR_UNSUPPORTED: anygpu.Array.__pow__: "):
        put(dev, sample("int32") > 0) ** put(dev, sample("int32") > 0)
    with pytest.raises(IndexError, match="anygpu.expand_dims: axis 3: 3 is out of range"):
        anygpu.expand_dims(put(dev, sample("int32")), axis=3)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.__add__: b is a str"):
        x + "a"


class PoolStats(ctypes.Structure):  # ag_pool_stats, buffer.h
    _fields_ = [(n, ctypes.c_size_t) for n in ("bytes_in_use", "bytes_cached", "peak_bytes_in_use")] + \
        [(n, ctypes.c_uint64) for n in ("allocations", "reuses", "trims")]


pool_stats = fn("ag_device_pool_stats", [ctypes.c_void_p, ctypes.POINTER(PoolStats)])


def memory(dev):
    """The bytes @dev's pool hands out now, and the process's resident memory (VmRSS)."""
    stats = PoolStats()
    pool_stats(dev._ptr, ctypes.byref(stats))
    with open("/proc/self/status") as f:
        rss = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
    return stats.bytes_in_use, rss


def test_no_leak(dev):
    """10,000 small arrays made, computed on and dropped give back every pool byte and leave
    the process's resident memory where it was (within a small bound)."""
    host = numpy.arange(16, dtype="float32")

    def cycle(n):
        for _ in range(n):
            x = anygpu.asarray(host, device=dev)
            y = x + 1
            del x, y
        gc.collect()
        dev.synchronize()

    cycle(500)  # warm up: kernels built, pool blocks cached
    pool0, rss0 = memory(dev)
    cycle(10000)
    pool1, rss1 = memory(dev)
    assert pool1 == pool0
    assert rss1 - rss0 < 4 << 20, "resident memory grew by %d bytes" % (rss1 - rss0)


# ---- integer totals: exact on every device ------------------------------------------------------

# Values whose totals pass 32 bits (and 2^24, 2^53 where a float result alone would round).
WRAPPING = {
    "int32": [2 ** 31 - 1, -2 ** 31, 2 ** 30, -7, 2 ** 31 - 1, 2 ** 31 - 2, 12345, -2 ** 31 + 3],
    "uint32": [2 ** 32 - 1, 2 ** 31, 2 ** 32 - 2, 7, 3_000_000_001, 2 ** 32 - 1],
    "uint16": [65535] * 9 + [1, 2],
    "uint8": [255] * 13 + [3],
}


def totals(dtype, n):
    """@n values of @dtype cycling through WRAPPING's, as numpy (exact integers in int64)."""
    base = numpy.array(WRAPPING[dtype], dtype=numpy.int64)
    return numpy.resize(base, n).astype(dtype)


@pytest.mark.parametrize("dtype", list(WRAPPING))
@pytest.mark.parametrize("n", [1, 8, 1000, 70001])
def test_integer_sum_and_mean_are_exact(dev, dtype, n):
    """sum over every element is numpy's exact (int64) total as a Python int on every device,
    with or without double precision (the float result alone would round it, a 32-bit one wrap
    it); mean is that total over n, as numpy's float64."""
    a = totals(dtype, n)
    x = put(dev, a)
    want = int(a.astype(numpy.int64).sum())
    got = anygpu.sum(x)
    assert got.shape == () and got.dtype == numpy.sum(a).dtype and int(got) == want
    assert x.sum() == want == numpy.sum(x)  # numpy.sum calls x.sum(axis=None, dtype=None, out=None)
    assert anygpu.sum(x.reshape(-1, 1) if n > 1 else x) == want
    mean = anygpu.mean(x)
    assert mean.shape == () and mean.dtype == numpy.float64 and float(mean) == want / n == numpy.mean(a)


@pytest.mark.parametrize("dtype", list(WRAPPING))
def test_integer_totals_in_pieces(dev, dtype, monkeypatch):
    """The path a large array takes (pieces whose float total could stray 2^31 from the exact
    one, each corrected by its low 32 bits), forced on a small one by shrinking the bounds."""
    from anygpu import _ops
    fdt = "float64" if dev.fp64 else "float32"
    monkeypatch.setattr(_ops, "_float_total", lambda d: (fdt, 2 ** 10, 2 ** 36))
    a = totals(dtype, 3001).reshape(3001, 1)
    want = int(a.astype(numpy.int64).sum())
    assert anygpu.sum(put(dev, a)) == want
    v = a.ravel()
    assert anygpu.dot(put(dev, v), put(dev, v[::-1].copy())) == int(numpy.dot(v.astype(object), v[::-1].astype(object)))


@pytest.mark.parametrize("dtype", list(WRAPPING))
@pytest.mark.parametrize("n", [1, 9, 5000])
def test_integer_dot_is_exact(dev, dtype, n):
    """dot of 1-D integer arrays is the exact value as a Python int (numpy's int64 dot, or
    Python integers where products pass int64), on every device; vdot the same."""
    a, b = totals(dtype, n), totals(dtype, n + 3)[3:]
    want = builtins_sum(int(p) * int(q) for p, q in zip(a.tolist(), b.tolist()))
    x, y = put(dev, a), put(dev, b)
    got = anygpu.dot(x, y)
    assert type(got) is int and got == want
    assert x.dot(y) == want and anygpu.vdot(x, y) == want
    assert anygpu.dot(x, put(dev, numpy.zeros(n, dtype))) == 0


builtins_sum = sum


def test_integer_sums_accumulate_in_64_bits_as_numpy(dev):
    """Integer sums into an Array (over an axis) are int64 / uint64, as numpy's, and wrap there."""
    a = numpy.full((2, 3), 2 ** 30, dtype="int32")
    got = anygpu.sum(put(dev, a), axis=0)
    assert got.dtype == numpy.int64
    numpy.testing.assert_array_equal(got.to_host(), a.sum(0))
    assert anygpu.full((2, 2), 2 ** 30, "int32", dev).sum() == 2 ** 32
    u = numpy.array([[2 ** 63, 2 ** 63 + 5], [2 ** 63, 7]], dtype="uint64")
    got = anygpu.sum(put(dev, u), axis=0)
    assert got.dtype == numpy.uint64
    numpy.testing.assert_array_equal(got.to_host(), u.sum(0))  # 2^64 wraps to 0, as numpy's
    i = numpy.array([2 ** 63 - 1, 1, -5], dtype="int64")
    assert int(anygpu.sum(put(dev, i))) == int(i.sum())  # INT64_MIN - 5 + ... wrapped as numpy's


# ---- numpy's reduction keywords and several axes -----------------------------------------------

@pytest.mark.parametrize("name", ["sum", "mean", "min", "max", "argmin", "argmax"])
def test_numpy_reductions_dispatch_to_anygpu(dev, name):
    """numpy.sum(a), numpy.mean(a), numpy.min(a)... call the Array's method with numpy's
    keywords (axis, dtype, out, keepdims): they give numpy's values."""
    a = sample("float32", (3, 4), low=-8)
    x = put(dev, a)
    f = getattr(numpy, name)
    assert_close(f(x), f(a), "float32", scale=10)
    assert_close(f(x, axis=1), f(a, axis=1), "float32", scale=10)
    if not name.startswith("arg"):
        got = f(x, axis=0, keepdims=True)
        assert got.shape == (1, 4)
        assert_close(got, f(a, axis=0, keepdims=True), scale=10)


@pytest.mark.parametrize("name", ["sum", "mean", "min", "max"])
@pytest.mark.parametrize("axis", [(0, 1), (0, 2), (1, 2), (0, 1, 2), (2, 0), (), (-1, 0)])
def test_several_axes(dev, name, axis):
    """A tuple of axes reduces each of them, as numpy's (a 0-d Array when no axis is left; no
    axis at all gives the elements themselves)."""
    a = sample("float32", (3, 4, 5), low=-8)
    want = getattr(numpy, name)(a, axis=axis)
    got = getattr(anygpu, name)(put(dev, a), axis=axis)
    assert isinstance(got, anygpu.Array) and got.shape == want.shape
    assert_close(got, want.reshape(got.shape), "float32", scale=10)
    kept = getattr(put(dev, a), name)(axis=axis, keepdims=True)
    assert kept.shape == getattr(numpy, name)(a, axis=axis, keepdims=True).shape


def test_reduction_dtype_out_and_refusals(dev):
    a = sample("uint8", (4, 5))
    x = put(dev, a)
    assert anygpu.sum(x, dtype="uint8") == int(numpy.sum(a, dtype="uint8"))  # numpy's accumulator wraps
    assert_close(anygpu.sum(x, axis=0, dtype="uint8"), numpy.sum(a, axis=0, dtype="uint8"))
    assert_close(anygpu.sum(x, axis=1, dtype="float32"), numpy.sum(a, axis=1, dtype="float32"))
    assert float(anygpu.mean(x, dtype="float32")) == pytest.approx(float(numpy.mean(a, dtype="float32")), rel=1e-6)
    out = anygpu.zeros(5, "float32", dev)
    assert anygpu.sum(x, axis=0, out=out) is out  # converted into out's dtype
    one = anygpu.zeros((), "int32", dev)  # 0-d, as numpy.sum(a, out=...) of every element takes
    assert numpy.sum(x, out=one) is one and int(one) == int(a.sum())
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.sum: keyword initial is not supported"):
        anygpu.sum(x, initial=0)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.Array.max: keyword where"):
        x.max(where=True)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.argmax: axis .*one axis"):
        anygpu.argmax(x, axis=(0, 1))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sum: axis .* names an axis twice"):
        anygpu.sum(x, axis=(1, -1))
    with pytest.raises(anygpu.MismatchError, match="anygpu.sum: out is"):
        anygpu.sum(x, axis=0, out=one)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.mean: dtype int32"):
        anygpu.mean(x, dtype="int32")


# ---- transposes ----------------------------------------------------------------------------

def test_transposes_are_views_as_numpys(dev):
    """.T, .mT, transpose and permute_dims give views with the axes moved (no copy: a write
    through the parent shows in them), equal to numpy's; .T takes 2-D arrays only (the array
    API's rule: test_views.py has its refusals)."""
    v = put(dev, sample("float32", (3,)))
    assert_close(anygpu.transpose(v), sample("float32", (3,)))
    for shape, axes in (((2, 3), None), ((2, 3, 4), (2, 0, 1)), ((1, 3, 1), (2, 1, 0)), ((2, 1, 3, 2), (3, 1, 0, 2))):
        h = sample("float32", shape)
        m = put(dev, h)
        assert_close(anygpu.transpose(m, axes), h.transpose(axes))
        assert_close(m.transpose(*(axes or ())), h.transpose(axes))
        assert_close(anygpu.permute_dims(m, axes or tuple(range(len(shape)))[::-1]), h.transpose(axes))
        if len(shape) == 2:
            assert_close(m.T, h.T)
        if len(shape) >= 2:
            assert_close(m.mT, numpy.swapaxes(h, -1, -2))
    m = put(dev, sample("float32", (2, 3)))
    t = m.T
    m[0, 1] = 7.0
    assert t.to_host()[1, 0] == 7.0
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.Array.mT: x has 1 dimension"):
        v.mT
    numpy.testing.assert_array_equal(numpy.transpose(m), m.to_host().T)


def test_like_functions_take_numpy_arrays_and_lists(dev):
    with dev:
        z = anygpu.zeros_like(numpy.ones((2, 3), "uint16"))
        assert (z.shape, z.dtype, z.device) == ((2, 3), numpy.dtype("uint16"), dev)
        numpy.testing.assert_array_equal(z.to_host(), numpy.zeros((2, 3), "uint16"))
        o = anygpu.ones_like([[1, 2, 3]])  # Python integers: int64, as numpy takes them
        assert o.dtype == numpy.int64 and o.shape == (1, 3)
        numpy.testing.assert_array_equal(o.to_host(), [[1, 1, 1]])
    f = anygpu.full_like(numpy.zeros(4, "float32"), 2.5, device=dev)
    assert f.device == dev
    numpy.testing.assert_array_equal(f.to_host(), numpy.full(4, 2.5, "float32"))
    e = anygpu.empty_like(put(dev, sample("int32")), dtype="float32")
    assert (e.shape, e.dtype, e.device) == ((2, 3), numpy.dtype("float32"), dev)


def test_bool_arrays_compare_select_convert_and_count_as_numpy(dev):
    """bool: numpy's masks. Comparisons give it, where takes it, astype converts to and from it
    (anything nonzero, NaN too, is true), sums count the true elements (int64), min and max are
    all and any, argmax finds the first true; arithmetic is refused, as the C library does."""
    a = numpy.array([[True, False, True], [False, False, True]])
    x = put(dev, a)
    assert x.dtype == numpy.bool_
    numpy.testing.assert_array_equal(x.to_host(), a)
    numpy.testing.assert_array_equal(numpy.asarray(x == put(dev, a[0])), a == a[0])
    f = numpy.array([0.0, -0.0, 0.5, numpy.nan, -3.0], "float32")
    numpy.testing.assert_array_equal(anygpu.astype(put(dev, f), "bool").to_host(), f.astype(bool))
    for dt in ("uint8", "int64", "float32", "complex64"):
        need_fp64(dev, dt)
        assert_close(anygpu.astype(x, dt), a.astype(dt))
    c = numpy.array([0, 1j, 2, 0j], "complex64")
    numpy.testing.assert_array_equal(anygpu.astype(put(dev, c), "bool").to_host(), c.astype(bool))
    assert anygpu.sum(x) == a.sum() == 3
    assert_close(anygpu.sum(x, axis=0), a.sum(axis=0))  # int64, as numpy's
    assert anygpu.max(x).dtype == numpy.bool_ and bool(anygpu.max(x)) is True and bool(anygpu.min(x)) is False
    assert_close(anygpu.min(x, axis=1), a.min(axis=1))
    assert_close(anygpu.max(x, axis=0, keepdims=True), a.max(axis=0, keepdims=True))
    assert anygpu.argmax(x) == a.argmax() and anygpu.argmin(x) == a.argmin()
    if dev.fp64:
        assert_close(anygpu.mean(x, axis=1), a.mean(axis=1))
    w = anygpu.where(x, put(dev, numpy.ones((2, 3), "int16")), put(dev, numpy.zeros(3, "int16")))
    assert_close(w, numpy.where(a, numpy.ones((2, 3), "int16"), numpy.zeros(3, "int16")))
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.add: a is bool"):
        anygpu.add(x, x)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "uint64"])
def test_integers_wrap_and_divide_as_numpy(dev, dtype):
    """Every integer width wraps modulo 2^bits as numpy's does; // of negatives truncates here
    (C's /, with x / 0 giving 0) where numpy floors, so only same-sign quotients are compared."""
    info = numpy.iinfo(dtype)
    a = numpy.array([info.max, info.min, 7, 0, info.max], dtype)
    b = numpy.array([1, 1, 3, 5, info.max], dtype)
    x, y = put(dev, a), put(dev, b)
    with numpy.errstate(over="ignore"):
        for op in (operator.add, operator.sub, operator.mul):
            numpy.testing.assert_array_equal(op(x, y).to_host(), op(a, b))
    numpy.testing.assert_array_equal(anygpu.sum(x, axis=0).to_host(), a.sum(axis=0))
    numpy.testing.assert_array_equal(anygpu.max(x, axis=0).to_host(), a.max(axis=0))
    assert anygpu.argmin(x) == a.argmin()
