"""DLPack: Array.__dlpack__ / __dlpack_device__ and anygpu.from_dlpack with numpy 1.24 and
torch 1.13: zero copy (the same data pointer, writes seen both ways), every dtype, views,
layouts and dtypes refused, lifetimes, unconsumed capsules freed, and OpenCL arrays (kDLOpenCL,
which numpy and torch refuse)."""

import ctypes
import gc

import numpy
import pytest

import anygpu
from anygpu import _dlpack
from anygpu._lib import fn

try:
    import torch
    import torch.utils.dlpack
except ImportError:
    torch = None
need_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

# bool travels as DLPack 0.8's kDLBool, which numpy 1.24 and torch 1.13 neither export nor
# import ("DLPack only supports signed/unsigned integers, float and complex dtypes", "Unsupported
# code 6"): the C suite (tests/test_dlpack.c) checks it.
DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128", "int8", "int16",
          "int64", "uint64"]
# torch 1.13 has no uint16, uint32 or uint64.
TORCH_DTYPES = {} if torch is None else {
    "uint8": torch.uint8, "int32": torch.int32, "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128, "int8": torch.int8, "int16": torch.int16,
    "int64": torch.int64}

_fill = fn("ag_fill", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double])
_slice = fn("ag_array_slice", [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)])
_buffer = fn("ag_array_buffer", [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)], restype=ctypes.c_void_p,
             status=False)


def fill(a, value):
    """Every element of @a becomes @value, written by anygpu on a's device, finished."""
    _fill(None, a._ptr, value)
    a.device.synchronize()


def slice_(a, start, count):
    """a[start:start + count], a view."""
    out = ctypes.c_void_p()
    _slice(a._ptr, start, count, ctypes.byref(out))
    return anygpu.Array(out.value)


def values(dtype, n=12):
    """n distinct values of @dtype (complex ones with an imaginary part)."""
    v = numpy.arange(1, n + 1).astype(dtype)
    if numpy.dtype(dtype).kind == "c":
        v = v + 1j * v[::-1]
    return v


def need_host(dev, why="numpy and torch take host memory only (kDLCPU)"):
    if dev.backend != "host":
        pytest.skip("%s: %s" % (dev.spec, why))


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


# ---- __dlpack_device__ -------------------------------------------------------------------

def test_dlpack_device(dev):
    a = anygpu.empty(4, device=dev)
    kind, index = a.__dlpack_device__()
    if dev.backend == "host":
        assert (kind, index) == (1, 0)
    elif dev.backend == "cuda":
        assert (kind, index) == (2, int(dev.spec.split(":")[1]))
    else:
        assert (kind, index) == (4, int(dev.spec.split(":")[1]))


# ---- exports to numpy and torch: zero copy ----------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_from_anygpu_shares(dev, dtype):
    need_host(dev)
    a = anygpu.asarray(values(dtype).reshape(3, 4), device=dev)
    n = numpy.from_dlpack(a)
    assert n.dtype == dtype and n.shape == (3, 4)
    assert n.ctypes.data == a._data_ptr()
    numpy.testing.assert_array_equal(n, values(dtype).reshape(3, 4))
    fill(a, 7)  # numpy 1.24 makes DLPack arrays read-only: the write is anygpu's
    assert (n == 7).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_anygpu_from_numpy_shares(dev, dtype):
    need_host(dev, "numpy's memory is the host's: from_dlpack gives host arrays whatever the device")
    x = values(dtype).reshape(2, 6)
    a = anygpu.from_dlpack(x)
    assert a.device.spec == "host" and a.shape == (2, 6) and a.dtype == dtype
    assert a._data_ptr() == x.ctypes.data
    numpy.testing.assert_array_equal(a.to_host(), x)
    x[1, 2] = 9
    assert a.to_host()[1, 2] == 9
    fill(a, 3)
    assert (x == 3).all()


@pytest.mark.parametrize("dtype", DTYPES)
@need_torch
def test_torch_round_trip_shares(dev, dtype):
    need_host(dev)
    if dtype not in TORCH_DTYPES:
        pytest.skip("torch %s has no %s" % (torch.__version__, dtype))
    a = anygpu.asarray(values(dtype).reshape(4, 3), device=dev)
    for t in (torch.utils.dlpack.from_dlpack(a), torch.from_dlpack(a)):
        assert t.dtype == TORCH_DTYPES[dtype] and tuple(t.shape) == (4, 3)
        assert t.data_ptr() == a._data_ptr()
        t[0, 0] = 5
        assert a.to_host()[0, 0] == 5
    t = torch.tensor(values(dtype).reshape(3, 4))
    b = anygpu.from_dlpack(t)
    assert b._data_ptr() == t.data_ptr() and b.shape == (3, 4)
    t[2, 3] = 11
    assert b.to_host()[2, 3] == 11
    fill(b, 2)
    assert bool((t == 2).all())


@need_torch
def test_torch_cuda_shares(dev):
    """kDLCUDA both ways with torch's CUDA tensors: the same device pointer, writes seen."""
    if dev.backend != "cuda":
        pytest.skip("%s: torch CUDA tensors are a CUDA device's" % dev.spec)
    if not torch.cuda.is_available():
        pytest.skip("torch %s has no CUDA" % torch.__version__)
    t = torch.arange(12, dtype=torch.float32, device="cuda:%s" % dev.spec.split(":")[1]).reshape(3, 4)
    a = anygpu.from_dlpack(t)
    assert a.device == dev and a.shape == (3, 4) and a._data_ptr() == t.data_ptr()
    numpy.testing.assert_array_equal(a.to_host(), numpy.arange(12).reshape(3, 4))
    fill(a, 2)
    assert bool((t == 2).all())
    back = torch.utils.dlpack.from_dlpack(a)
    assert back.data_ptr() == t.data_ptr() and back.device == t.device
    back += 1
    torch.cuda.synchronize()
    assert (a.to_host() == 3).all()


@need_torch
def test_torch_capsule_from_to_dlpack(dev):
    need_host(dev)
    t = torch.arange(6, dtype=torch.float32)
    a = anygpu.from_dlpack(torch.utils.dlpack.to_dlpack(t))  # a raw capsule
    assert a._data_ptr() == t.data_ptr()
    numpy.testing.assert_array_equal(a.to_host(), numpy.arange(6, dtype="float32"))


def test_view_exports_at_its_offset(dev):
    a = anygpu.asarray(numpy.arange(20, dtype="float32").reshape(5, 4), device=dev)
    v = slice_(a, 2, 2)
    assert v.to_host().tolist() == [[8, 9, 10, 11], [12, 13, 14, 15]]
    back = anygpu.from_dlpack(v)  # anygpu's own tensor: a view of the same buffer again
    assert back.device == dev and back.shape == (2, 4)
    assert _buffer(back._ptr, None) == _buffer(a._ptr, None)
    numpy.testing.assert_array_equal(back.to_host(), v.to_host())
    if dev.backend != "host":
        return
    n = numpy.from_dlpack(v)
    assert n.ctypes.data == a._data_ptr() + 8 * 4 == v._data_ptr()
    numpy.testing.assert_array_equal(n, [[8, 9, 10, 11], [12, 13, 14, 15]])
    fill(v, -1)
    assert a.to_host()[:, 0].tolist() == [0, 4, -1, -1, 16]


def test_anygpu_round_trip_shares(dev):
    """An anygpu array through DLPack and back is the same memory, on every device."""
    a = anygpu.asarray(numpy.arange(6, dtype="int32"), device=dev)
    b = anygpu.from_dlpack(a)
    assert b.device == dev
    fill(b, 4)
    assert a.to_host().tolist() == [4] * 6


# ---- what is refused ---------------------------------------------------------------------

def test_transposed_tensors_are_shared_with_their_strides(dev):
    """A transposed or sliced tensor comes in as a view with its strides, sharing memory (numpy
    and torch on the CPU: the host device); asarray to another device copies it."""
    x = numpy.arange(12, dtype="float32").reshape(3, 4)
    sources = [x.T, x[:, 1::2]]
    if torch is not None:
        t = torch.tensor(x)
        sources += [t.T, t[:, 1::2]]
    for src in sources:
        want = numpy.asarray(src)
        shared = anygpu.from_dlpack(src)
        assert shared.shape == want.shape and shared.strides == want.strides
        numpy.testing.assert_array_equal(shared.to_host(), want)
        a = anygpu.asarray(src, device=dev)
        assert a.device == dev
        numpy.testing.assert_array_equal(a.to_host(), want)
    view = anygpu.from_dlpack(x.T)
    x[0, 1] = 100  # the same memory
    assert view.to_host()[1, 0] == 100


@pytest.mark.parametrize("make", ["numpy-float16", "torch-float16", "numpy-bool", "torch-bool"])
def test_dtype_refused(make):
    lib, name = make.split("-")
    if lib == "torch" and torch is None:
        pytest.skip("torch is not installed")
    src = numpy.ones(3, dtype=name) if lib == "numpy" else torch.ones(3, dtype=getattr(torch, name))
    with pytest.raises(anygpu.InvalidArgumentError, match=name):
        anygpu.from_dlpack(src)


def test_refused_capsule_left_to_its_destructor():
    """A failed import leaves the capsule unconsumed: importable again by another consumer."""
    cap = numpy.arange(3, dtype="float16").__dlpack__()
    with pytest.raises(anygpu.InvalidArgumentError):
        anygpu.from_dlpack(cap)
    assert numpy.from_dlpack(_Capsule(cap)).tolist() == [0, 1, 2]


class _Capsule:
    """An object whose __dlpack__ hands over an existing capsule (numpy takes no raw capsule)."""

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, stream=None):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def test_capsule_consumed_once():
    cap = numpy.arange(3, dtype="float32").__dlpack__()
    anygpu.from_dlpack(cap)
    with pytest.raises(anygpu.InvalidArgumentError, match="consumed once"):
        anygpu.from_dlpack(cap)


def test_not_an_array():
    with pytest.raises(anygpu.InvalidArgumentError, match="__dlpack__"):
        anygpu.from_dlpack([1, 2, 3])


# ---- lifetimes ---------------------------------------------------------------------------

def test_producer_deleted_first_numpy_import(dev):
    need_host(dev, "numpy's memory is the host's")
    x = numpy.arange(1000, dtype="float64")
    a = anygpu.from_dlpack(x.__dlpack__())  # the capsule alone: a keeps nothing of x's but it
    del x
    gc.collect()
    numpy.testing.assert_array_equal(a.to_host(), numpy.arange(1000))


@need_torch
def test_producer_deleted_first_torch_import(dev):
    need_host(dev, "torch's CPU memory is the host's")
    t = torch.arange(1000, dtype=torch.float32)
    a = anygpu.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    del t
    gc.collect()
    numpy.testing.assert_array_equal(a.to_host(), numpy.arange(1000, dtype="float32"))


def test_producer_deleted_first_export(dev):
    need_host(dev)
    a = anygpu.asarray(numpy.arange(1000, dtype="float32"), device=dev)
    n = numpy.from_dlpack(a)
    t = None if torch is None else torch.from_dlpack(a)
    del a
    gc.collect()
    anygpu.empty(1000, device=dev)  # would reuse a's memory from the pool if it had been freed
    numpy.testing.assert_array_equal(n, numpy.arange(1000))
    assert t is None or t[999].item() == 999


def test_unconsumed_capsules_freed(dev):
    """10,000 exports dropped unconsumed, each of a new 16 KiB array written from the host (so
    that its pages are resident): the tensors, which keep the arrays' memory, are freed, so the
    memory stays flat."""
    if dev.backend == "cuda":
        pytest.skip("%s: CUDA device memory is not in the process's RSS" % dev.spec)
    x = numpy.ones(4096, dtype="float32")
    for _ in range(1000):  # the pool and the allocator warmed up
        anygpu.asarray(x, device=dev).__dlpack__()
    before = rss()
    for _ in range(10000):
        anygpu.asarray(x, device=dev).__dlpack__()
    grown = rss() - before
    assert grown < 8 << 20, "%d bytes more after 10,000 dropped exports (160 MB if none is freed)" % grown
    _dlpack._sweep()
    assert _dlpack._pending == []


# ---- OpenCL arrays: kDLOpenCL, which numpy and torch refuse ------------------------------

def test_opencl_refused_by_numpy_and_copied(dev):
    if dev.backend != "opencl":
        pytest.skip("%s: the kDLOpenCL export is an OpenCL device's" % dev.spec)
    x = numpy.arange(12, dtype="float32").reshape(3, 4)
    a = anygpu.asarray(x, device=dev)
    assert a.__dlpack_device__()[0] == 4
    with pytest.raises((RuntimeError, BufferError), match="Unsupported device"):  # numpy 2: BufferError
        numpy.from_dlpack(a)
    if torch is not None:
        with pytest.raises(RuntimeError, match="OPENCL"):
            torch.utils.dlpack.from_dlpack(a)
    numpy.testing.assert_array_equal(numpy.asarray(a), x)
    numpy.testing.assert_array_equal(a.to_host(), x)
    with pytest.raises(anygpu.UnsupportedError, match="cl_mem"):
        a._data_ptr()


def test_the_array_api_keywords_numpy_2_passes(dev):
    """max_version gives the same 0.6 capsule; dl_device elsewhere is BufferError; copy=True
    exports a copy (a write through it is not seen), copy=False shares."""
    x = numpy.arange(6, dtype="float32")
    a = anygpu.asarray(x, device=dev)
    own = a.__dlpack_device__()
    shared = anygpu.from_dlpack(a.__dlpack__(max_version=(1, 0), dl_device=own, copy=False))
    fill(shared, 7)
    numpy.testing.assert_array_equal(a.to_host(), numpy.full(6, 7, "float32"))
    copied = anygpu.from_dlpack(a.__dlpack__(copy=True))
    fill(copied, 1)
    numpy.testing.assert_array_equal(a.to_host(), numpy.full(6, 7, "float32"))
    numpy.testing.assert_array_equal(copied.to_host(), numpy.ones(6, "float32"))
    elsewhere = (2, 5) if own[0] != 2 else (1, 0)
    with pytest.raises(BufferError, match="dl_device"):
        a.__dlpack__(dl_device=elsewhere)


@need_torch
def test_torch_refusals_stand(dev):
    """torch's __dlpack__ refuses a tensor that requires grad (an import would let anygpu write
    to a leaf behind autograd's back) and one with the conjugate bit set (its memory holds the
    unconjugated values): anygpu refuses them too, with torch's reason, through from_dlpack and
    asarray alike; the detached or resolved tensor is taken."""
    need_host(dev)
    leaf = torch.ones(3, requires_grad=True)
    for call in (anygpu.from_dlpack, lambda t: anygpu.asarray(t, device=dev)):
        with pytest.raises(anygpu.InvalidArgumentError, match=r"was not exported: .*require.* grad.*detach\(\)"):
            call(leaf)
    assert leaf.detach().tolist() == [1, 1, 1] and leaf.grad is None
    a = anygpu.from_dlpack(leaf.detach())  # detached: shared, as torch's own from_dlpack takes it
    assert a._data_ptr() == leaf.data_ptr()
    z = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64).conj()
    for call in (anygpu.from_dlpack, lambda t: anygpu.asarray(t, device=dev)):
        with pytest.raises(anygpu.InvalidArgumentError, match="was not exported: .*conjugate bit"):
            call(z)
    numpy.testing.assert_array_equal(anygpu.from_dlpack(z.resolve_conj()).to_host(),
                                     numpy.array([1 - 2j, 3 + 4j], numpy.complex64))
