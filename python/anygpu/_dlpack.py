"""DLPack: arrays shared with numpy, PyTorch, CuPy and JAX without copying (docs/dlpack.md).

``Array.__dlpack__`` and ``Array.__dlpack_device__`` export an array as a DLPack 0.6 tensor in
a PyCapsule named "dltensor" (ag_array_to_dlpack), and :func:`from_dlpack` imports one
(ag_array_from_dlpack). The memory is shared, not copied, and either side may be deleted
first. A write through anygpu is seen by the other side; a write through the other side is
seen by anygpu where that side allows writes: torch's tensors do, numpy's arrays made by
``numpy.from_dlpack`` are read-only (numpy 1.24 and 2 mark them so).

Devices: the host exports kDLCPU (numpy, torch and every CPU library take it); a CUDA device
kDLCUDA (torch and CuPy take it); an OpenCL device kDLOpenCL with the cl_mem as data, which
numpy and torch refuse (``numpy.from_dlpack`` raises): copy an OpenCL array to the host with
``numpy.asarray(a)`` or ``a.to_host()`` instead.
"""

import atexit
import ctypes
import sys
import threading

from ._core import Array, _array_device, _device_finish
from ._lib import error, fn

__all__ = ["from_dlpack"]

# DLPack device types (dlpack/dlpack.h, DLPACK_VERSION 60).
kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL = 1, 2, 3, 4


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))),
]
_tensor_p = ctypes.POINTER(DLManagedTensor)

_to_dlpack = fn("ag_array_to_dlpack", [ctypes.c_void_p, ctypes.POINTER(_tensor_p)])
_from_dlpack = fn("ag_array_from_dlpack", [_tensor_p, ctypes.POINTER(ctypes.c_void_p)])

# The capsule's names. PyCapsule_New and PyCapsule_SetName keep the pointer, not a copy: these
# bytes objects live as long as the module.
_NAME = b"dltensor"
_USED = b"used_dltensor"


def _capi(name, restype, *argtypes):
    """A private prototype of the C API function @name (PYFUNCTYPE: a Python error it sets is
    raised). Private, so that a prototype taking a PyObject* as a plain address (for the
    destructor, whose capsule must gain no reference) is not shared with ctypes.pythonapi's."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = _capi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _Destructor)
_capsule_is_valid = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_capsule_get_pointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
_capsule_set_name = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
# The destructor's own, on the capsule's address: it runs while the capsule is deallocated.
_capsule_is_valid_raw = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_capsule_get_pointer_raw = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)


def _delete(tensor):
    """Calls the tensor's deleter, once, as its consumer must."""
    if tensor and tensor.contents.deleter:
        tensor.contents.deleter(tensor)


@_Destructor
def _capsule_destructor(capsule):
    # A capsule still named "dltensor" was never consumed: its tensor is still ours to delete.
    # A consumer renames it "used_dltensor" and owns the tensor from then on.
    if _capsule_is_valid_raw(capsule, _NAME):
        _delete(ctypes.cast(_capsule_get_pointer_raw(capsule, _NAME), _tensor_p))


# Every capsule exported is held here too, and let go by _sweep once nobody else holds it, so
# that its destructor (a Python function, through ctypes) runs here and never inside a
# consumer: a consumer that fails drops the capsule with its exception pending (numpy's
# from_dlpack of a kDLOpenCL tensor), and a Python callback run then would lose that exception
# (numpy would raise SystemError) and fail itself, leaking the tensor. An unconsumed capsule's
# tensor is thus freed at the next export (or at exit), not at once.
_pending = []
_pending_lock = threading.Lock()


def _sweep():
    """Lets go of the exported capsules that only _pending holds (running their destructors)."""
    with _pending_lock:
        # References to a capsule held by no one else: _pending's, c, getrefcount's argument.
        _pending[:] = [c for c in _pending if sys.getrefcount(c) > 3]


@atexit.register
def _sweep_all():
    # Before the interpreter's teardown empties this module, while the destructor still works.
    with _pending_lock:
        del _pending[:]


def _export(a):
    """A new DLManagedTensor over @a's memory (ag_array_to_dlpack), the caller's to delete."""
    tensor = _tensor_p()
    _to_dlpack(a._ptr, ctypes.byref(tensor))
    return tensor


def _dlpack(self, stream=None, *, max_version=None, dl_device=None, copy=None):
    """A PyCapsule "dltensor" holding a DLPack 0.6 tensor over this array's memory (no copy),
    for a consumer's ``from_dlpack``; the capsule frees the tensor if nobody consumes it.

    The calling thread's work on the array's device is finished first (DLPack 0.6 carries no
    stream), so the data is complete whatever @stream the consumer names; @stream is accepted
    and not otherwise used. Work enqueued from other threads must be finished by them.

    The array API's later keywords, which numpy 2 passes, are taken as it specifies for a
    producer of unversioned tensors: @max_version is accepted and the capsule stays a 0.6
    "dltensor"; @dl_device (1, 0), the host, exports a copy there for an array on another
    device (BufferError with copy=False), any other device than the array's own is BufferError
    (the producer exports where its memory is); @copy True exports a copy of the array, False
    or None shares it.

    A host array is kDLCPU, a CUDA array kDLCUDA (data the device pointer), an OpenCL array
    kDLOpenCL (data the cl_mem). numpy and torch take no kDLOpenCL tensors
    (``numpy.from_dlpack`` raises "Unsupported device in DLTensor."): for an OpenCL array use
    ``numpy.asarray(a)`` or ``a.to_host()``, a copy on the host."""
    if dl_device is not None:
        own = _dlpack_device(self)
        if tuple(dl_device) != own:
            if tuple(dl_device) == (1, 0) and copy is not False:  # the host, which every device copies to
                return _dlpack(self.to_device("host"), stream)
            raise BufferError("anygpu.Array.__dlpack__: dl_device %r is not the array's own %r; anygpu exports "
                              "an array where its memory is, or a copy on the host (1, 0) unless copy is False"
                              % (tuple(dl_device), own))
    if copy:
        return _dlpack(self.copy(), stream)
    _sweep()
    _device_finish(_array_device(self._ptr))
    tensor = _export(self)
    try:
        capsule = _capsule_new(ctypes.cast(tensor, ctypes.c_void_p), _NAME, _capsule_destructor)
    except BaseException:
        _delete(tensor)
        raise
    with _pending_lock:
        _pending.append(capsule)
    return capsule


def _dlpack_device(self):
    """(device_type, device_id) as DLPack numbers them: (1, 0) for the host (kDLCPU),
    (2, ordinal) for a CUDA device (kDLCUDA), (4, index) for an OpenCL device (kDLOpenCL; the
    index is the device's in its driver's list, the N of opencl:N). Read from the tensor the
    array exports, so that it is what a consumer of ``__dlpack__`` sees."""
    tensor = _export(self)
    try:
        device = tensor.contents.dl_tensor.device
        return device.device_type, device.device_id
    finally:
        _delete(tensor)


def _data_ptr(self):
    """The address of this array's first element, for a host or CUDA array (an OpenCL array's
    memory is a cl_mem, with no address: UnsupportedError). For comparing with what another
    library reports (``ndarray.ctypes.data``, ``Tensor.data_ptr()``) to see that memory is
    shared."""
    tensor = _export(self)
    try:
        t = tensor.contents.dl_tensor
        if t.device.device_type == kDLOpenCL:
            raise error("AG_ERR_UNSUPPORTED",
                        "Array._data_ptr: an OpenCL array's memory is a cl_mem, not an address")
        return (t.data or 0) + t.byte_offset
    finally:
        _delete(tensor)


Array.__dlpack__ = _dlpack
Array.__dlpack_device__ = _dlpack_device
Array._data_ptr = _data_ptr


def _is_torch(x):
    return type(x).__module__.split(".")[0] == "torch"


def _capsule_of(x):
    """The DLPack capsule of @x: @x itself when it is one, else ``x.__dlpack__()``. A producer
    that refuses to export is InvalidArgumentError with its reason: numpy's bool and read-only
    arrays, torch's tensors that require grad ("use tensor.detach()") or have the conjugate bit
    set. The refusal stands: exporting such a tensor another way (torch.utils.dlpack.to_dlpack)
    would let anygpu write to a leaf tensor behind autograd's back, or read a conjugated
    tensor's memory without the conjugation."""
    if type(x).__name__ == "PyCapsule":
        return x
    method = getattr(x, "__dlpack__", None)
    if method is None:
        raise error("AG_ERR_INVALID_ARGUMENT",
                    "anygpu.from_dlpack: %s has no __dlpack__ and is not a DLPack capsule (asarray copies "
                    "any array)" % type(x).__name__)
    try:
        capsule = method()
    except Exception as refused:
        dtype = getattr(x, "dtype", None)
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.from_dlpack: the %s%s was not exported: %s" % (
            type(x).__name__, "" if dtype is None else " of dtype %s" % dtype, refused)) from refused
    if _is_torch(x) and getattr(x, "is_cuda", False):
        # DLPack 0.6 has no stream: the producer's work on the tensor must be finished before
        # anygpu's queues use it. Untested here (no CUDA); other CUDA producers are the
        # caller's to synchronize (cupy.cuda.Stream.synchronize()).
        import torch
        torch.cuda.synchronize(x.device)
    return capsule


def from_dlpack(x, /, *, device=None, copy=None):
    """An anygpu array sharing @x's memory, without copying: @x is anything with
    ``__dlpack__`` (a numpy array, a torch tensor, a CuPy array, an anygpu Array) or a
    PyCapsule "dltensor". kDLCPU memory gives a host array, kDLCUDA a cuda:N array (exchanged
    with torch's CUDA tensors on an NVIDIA H100), kDLOpenCL one of anygpu's own OpenCL arrays a
    view of it. Writes through either side are seen by the other; @x may be deleted first (the
    array keeps the memory, and @x itself, alive). Raises UnsupportedError for a layout that is
    not compact row-major (a transposed array: ``asarray`` copies it), InvalidArgumentError
    naming the dtype for one anygpu has no counterpart of (int64, bool, float16...), and
    InvalidArgumentError with the producer's reason where it refuses to export (a torch tensor
    that requires grad: pass ``x.detach()``; a read-only numpy array). A failed import leaves
    the capsule unconsumed (it frees its tensor).

    The standard's keywords: @device puts the result on that device (a copy where it is not
    @x's own), @copy True copies, False never does (InvalidArgumentError where a copy would be
    needed), None shares where it can."""
    if copy not in (None, True, False):
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.from_dlpack: copy is %r, not True, False or None" % (copy,))
    out = _import(x)
    if device is not None:
        from ._core import device as _device
        target = _device(device)
        if target != out.device:
            if copy is False:
                raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.from_dlpack: copy=False, but x is on %s, not %s"
                            % (out.device.spec, target.spec))
            return out.to_device(target)
    return out.copy() if copy else out


def _import(x):
    capsule = _capsule_of(x)
    if not _capsule_is_valid(capsule, _NAME):
        raise error("AG_ERR_INVALID_ARGUMENT",
                    "anygpu.from_dlpack: the capsule is not a DLPack tensor named \"dltensor\" (a capsule is "
                    "consumed once)")
    tensor = ctypes.cast(_capsule_get_pointer(capsule, _NAME), _tensor_p)
    out = ctypes.c_void_p()
    _from_dlpack(tensor, ctypes.byref(out))
    # The array owns the tensor now: the renamed capsule's destructor leaves it alone.
    _capsule_set_name(capsule, _USED)
    return Array(out.value, keep=x)
