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

DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128"]
REAL = DTYPES[:6]
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
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.divide.*double precision"):
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


def test_unsupported_result_dtype(dev):
    x, y = put(dev, sample("uint32")), put(dev, sample("int32"))
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.add: the result would be int64"):
        x + y
    with pytest.raises(anygpu.UnsupportedError, match="int16"):
        put(dev, sample("uint8")) + (-1)  # numpy 1.24: uint8 with -1 is int16


@pytest.mark.parametrize("sa, sb", [((2, 3), (3,)), ((3,), (2, 3)), ((4, 2, 3), (2, 3)), ((2, 3), (1, 3)),
                                    ((1, 2, 3), (4, 2, 3))])
def test_broadcast(dev, sa, sb):
    a, b = sample("float32", sa), sample("float32", sb, seed=1)
    assert_close(put(dev, a) - put(dev, b), a - b)


def test_broadcast_refused(dev):
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.add: broadcasting shapes"):
        put(dev, sample("float32", (3, 1))) + put(dev, sample("float32", (1, 3)))
    with pytest.raises(anygpu.MismatchError, match="anygpu.multiply: shapes .* do not broadcast"):
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
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.add: cannot write the float64 result into a int32"):
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


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
@pytest.mark.parametrize("op", [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge])
def test_compare(dev, dtype, op):
    need_fp64(dev, dtype)
    a, b = sample(dtype, (3, 4)), sample(dtype, (3, 4), seed=1)
    x, y = put(dev, a), put(dev, b)
    for got, want in ((op(x, y), op(a, b)), (op(x, 4), op(a, 4)), (op(4, x), op(4, a)),
                      (op(x, 4.5), op(a, 4.5)), (op(x, put(dev, b[0])), op(a, b[0]))):
        assert got.dtype == numpy.uint8
        numpy.testing.assert_array_equal(numpy.asarray(got), want.astype("uint8"))


def test_compare_functions_and_complex(dev):
    a = sample("complex64")
    x = put(dev, a)
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.equal(x, x)), numpy.ones(a.shape, "uint8"))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.not_equal(x, a[0])), (a != a[0]).astype("uint8"))
    numpy.testing.assert_array_equal(numpy.asarray(anygpu.less(put(dev, [1.0, 3.0], "float32"), 2)), [1, 0])
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
    want = getattr(numpy, name)(a, axis=axis)
    if a.dtype.kind in "ui" and name == "sum":
        want = want.astype("uint32" if a.dtype.kind == "u" else "int32")
    if name in ("argmin", "argmax"):
        want = want.astype("int32")
    return want


@pytest.mark.parametrize("name", ["sum", "mean", "min", "max", "argmin", "argmax"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction(dev, dtype, name):
    if dtype.startswith("complex") and name not in ("sum", "mean"):
        pytest.skip("%s takes real dtypes" % name)
    need_fp64(dev, dtype)
    if dtype in DTYPES[:4] and name == "mean":
        need_fp64(dev, "float64")
    a = sample(dtype, (3, 5), low=0 if dtype.startswith("u") else -8)
    x = put(dev, a)
    for axis in (0, 1, -1):
        assert_close(getattr(anygpu, name)(x, axis), reduce_want(name, a, axis), scale=10)
    assert_close(getattr(x, name)(1), reduce_want(name, a, 1), scale=10)
    got = getattr(anygpu, name)(x)
    assert isinstance(got, (int, float, complex))  # axis=None: a Python scalar
    assert_close(got, reduce_want(name, a, None), scale=10)
    one = getattr(anygpu, name)(x[0], 0)  # a 1-D array along its axis: shape (1,)
    assert one.shape == (1,)
    assert_close(numpy.asarray(one)[0], reduce_want(name, a[0], None), scale=10)


def test_reduction_errors(dev):
    x = put(dev, sample("float32"))
    with pytest.raises(anygpu.OutOfRangeError, match="anygpu.sum: axis 2 is out of range"):
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
    with pytest.raises(anygpu.MismatchError, match="anygpu.matmul: shapes"):
        x @ x


def test_errors(dev):
    others = [d for d in anygpu.devices() if d != dev]
    x = put(dev, sample("float32"))
    if others:
        with pytest.raises(anygpu.MismatchError, match="anygpu.add: the operands are on"):
            x + put(others[0], sample("float32"))
        with pytest.raises(anygpu.MismatchError, match="anygpu.matmul"):
            x @ put(others[0], sample("float32", (3, 2)))
    with pytest.raises(anygpu.UnsupportedError, match="int64"):
        anygpu.asarray(numpy.arange(3), device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="ag_pow"):
        put(dev, sample("int32")) ** put(dev, sample("int32"))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.add"):
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
