"""Devices, the default-device scope, and the Array type (creation, shape, copies to and from
the host). Operators and functions on arrays are in _ops.py; DLPack in _dlpack.py."""

import builtins
import ctypes
import operator
import threading

import numpy

from ._lib import AG_DTYPE, DTYPES, UnsupportedError, c_size_p, error, fn

MAX_DIMS = 8
c_void_pp = ctypes.POINTER(ctypes.c_void_p)


class _DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("backend", ctypes.c_char * 16),
        ("spec", ctypes.c_char * 32),
        ("type", ctypes.c_int),
        ("name", ctypes.c_char * 256),
        ("vendor", ctypes.c_char * 128),
        ("platform", ctypes.c_char * 128),
        ("driver_version", ctypes.c_char * 64),
        ("global_memory", ctypes.c_size_t),
        ("max_allocation", ctypes.c_size_t),
        ("compute_units", ctypes.c_int),
        ("max_work_group_size", ctypes.c_size_t),
        ("local_memory", ctypes.c_size_t),
        ("fp64", ctypes.c_bool),
        ("compute_capability", ctypes.c_int),
        ("max_loop_iterations", ctypes.c_ulonglong),
        ("quirks", ctypes.c_char * 128),
    ]


_device_count = fn("ag_device_count", [ctypes.POINTER(ctypes.c_int)])
_device_get = fn("ag_device_get", [ctypes.c_int, c_void_pp])
_device_select = fn("ag_device_select", [ctypes.c_char_p, c_void_pp])
_device_get_info = fn("ag_device_get_info", [ctypes.c_void_p, ctypes.POINTER(_DeviceInfo)])
_device_finish = fn("ag_device_finish", [ctypes.c_void_p])

_array_create = fn("ag_array_create", [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, c_size_p, c_void_pp])
_array_from_host = fn("ag_array_from_host",
                      [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, c_size_p, ctypes.c_void_p, c_void_pp])
_array_to_host = fn("ag_array_to_host", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t])
_array_copy_to = fn("ag_array_copy_to", [ctypes.c_void_p, ctypes.c_void_p, c_void_pp])
_array_free = fn("ag_array_free", [ctypes.c_void_p], restype=None, status=False)
_array_dtype = fn("ag_array_dtype", [ctypes.c_void_p], status=False)
_array_ndim = fn("ag_array_ndim", [ctypes.c_void_p], status=False)
_array_shape = fn("ag_array_shape", [ctypes.c_void_p], restype=c_size_p, status=False)
_array_device = fn("ag_array_device", [ctypes.c_void_p], restype=ctypes.c_void_p, status=False)
_array_strides = fn("ag_array_strides", [ctypes.c_void_p], restype=ctypes.POINTER(ctypes.c_ssize_t), status=False)


class Device:
    """One anygpu device. Devices are the library's and live as long as the process: two
    Device objects for the same device compare equal. Use as ``with anygpu.device("host"):``
    to make it the default device of the calling thread inside the block."""

    __slots__ = ("_ptr", "_info")

    def __init__(self, ptr):
        self._ptr = ctypes.c_void_p(ptr)
        info = _DeviceInfo()
        _device_get_info(self._ptr, ctypes.byref(info))
        self._info = info

    @property
    def spec(self):
        """The spec that names exactly this device: "host", "cuda:0", "opencl:1"."""
        return self._info.spec.decode()

    @property
    def backend(self):
        return self._info.backend.decode()

    @property
    def name(self):
        return self._info.name.decode(errors="replace")

    @property
    def fp64(self):
        """Whether the device computes in double precision (f64, c128)."""
        return bool(self._info.fp64)

    @property
    def info(self):
        """Everything ag_device_get_info reports, as a dict."""
        out = {}
        for field, _ in _DeviceInfo._fields_:
            value = getattr(self._info, field)
            out[field] = value.decode(errors="replace") if isinstance(value, bytes) else value
        return out

    def synchronize(self):
        """Waits for all work enqueued on this device by any thread (ag_device_finish)."""
        _device_finish(self._ptr)

    def __eq__(self, other):
        return isinstance(other, Device) and self._ptr.value == other._ptr.value

    def __hash__(self):
        return hash(self._ptr.value)

    def __repr__(self):
        return "anygpu.Device(%r)" % self.spec

    def __str__(self):
        return self.spec

    def __enter__(self):
        _scope_stack().append(self)
        return self

    def __exit__(self, *exc):
        _scope_stack().pop()
        return False


_devices_by_ptr = {}


def _device_from_ptr(ptr):
    """The Device of a library ag_device pointer; devices live as long as the process, so each
    is made once."""
    dev = _devices_by_ptr.get(ptr)
    if dev is None:
        dev = _devices_by_ptr.setdefault(ptr, Device(ptr))
    return dev


def devices():
    """Every device present, in enumeration order: host first, then CUDA, then OpenCL."""
    count = ctypes.c_int()
    _device_count(ctypes.byref(count))
    out = []
    for i in range(count.value):
        ptr = ctypes.c_void_p()
        _device_get(i, ctypes.byref(ptr))
        out.append(_device_from_ptr(ptr.value))
    return out


def device(spec=None):
    """The device @spec names, in the C library's grammar ("host", "cuda:0", "opencl:pocl",
    "gpu:by-load", "local-rank"); None means $ANYGPU_DEVICE, else "auto". Raises
    NoDeviceError (or InvalidArgumentError for a malformed spec) with the library's message.
    A Device passed in is returned as it is."""
    if isinstance(spec, Device):
        return spec
    if spec is not None and not isinstance(spec, str):
        raise error("AG_ERR_INVALID_ARGUMENT",
                    "anygpu.device: spec must be a str or a Device, not %s" % type(spec).__name__)
    ptr = ctypes.c_void_p()
    _device_select(None if spec is None else spec.encode(), ctypes.byref(ptr))
    return _device_from_ptr(ptr.value)


_scope = threading.local()


def _scope_stack():
    stack = getattr(_scope, "stack", None)
    if stack is None:
        stack = _scope.stack = []
    return stack


_default = None
_default_lock = threading.Lock()


def default_device():
    """The calling thread's default device: the innermost ``with anygpu.device(...)`` block's,
    else the process's, chosen once as ``anygpu.device()`` chooses (ANYGPU_DEVICE, else
    auto)."""
    global _default
    stack = _scope_stack()
    if stack:
        return stack[-1]
    with _default_lock:
        if _default is None:
            _default = device()
        return _default


def _resolve_device(dev):
    return default_device() if dev is None else device(dev)


# ---- dtypes ----------------------------------------------------------------------------------

# The codes of anygpu's dtypes by numpy dtype and by name, looked up before anything slower.
_CODE_OF = {key: code for code, name in enumerate(DTYPES) for key in (name, numpy.dtype(name))}


def dtype_code(dtype, who="anygpu"):
    """The ag_dtype value of a numpy dtype (or its name); UnsupportedError for one anygpu has
    no counterpart of (float16, bfloat16, object...), naming it."""
    try:
        return _CODE_OF[dtype]
    except (KeyError, TypeError):
        pass
    try:
        name = numpy.dtype(dtype).name
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: dtype %r is not a dtype" % (who, dtype)) from None
    code = AG_DTYPE.get(name)
    if code is None:
        raise error("AG_ERR_UNSUPPORTED",
                    "%s: dtype %s has no anygpu counterpart (anygpu has %s)" % (who, name, ", ".join(DTYPES)))
    return code


# ---- arrays ----------------------------------------------------------------------------------

_NUMPY_DTYPES = [numpy.dtype(name) for name in DTYPES]


class Array:
    """An anygpu array of 0 to 8 dimensions on one device, owning device memory or, for a view
    (indexing, .T, .mT, reshape, broadcast_to), sharing another array's with its own strides;
    freed when the object is. ``numpy.asarray(a)`` and ``a.to_host()`` copy it to the host,
    in C order."""

    # An ag_array's shape, dtype and device never change (a view is another array), so they
    # are read from C once, on first use: an operation reads them several times per call.
    __slots__ = ("_ptr", "_keep", "_shape", "_dtype", "_device", "__weakref__")
    __array_priority__ = 100  # numpy defers `ndarray op Array` to Array's reflected operators

    def __init__(self, ptr, keep=None):
        """Takes ownership of the ag_array pointer @ptr (an int). @keep is any Python object the
        array's memory depends on (a DLPack producer), held as long as the array."""
        self._ptr = ctypes.c_void_p(ptr)
        self._keep = keep
        self._shape = self._dtype = self._device = None

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        # At interpreter exit the module's globals may already be None: the process frees all.
        if ptr is not None and ptr.value and _array_free is not None:
            _array_free(ptr)
            self._ptr = None

    @property
    def ptr(self):
        """The ag_array pointer, as an int, for passing to C."""
        return self._ptr.value

    @property
    def shape(self):
        if self._shape is None:
            dims = _array_shape(self._ptr)
            self._shape = tuple(dims[i] for i in range(_array_ndim(self._ptr)))
        return self._shape

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def strides(self):
        """Bytes from one element to the next along each axis, as numpy's (0 along a broadcast
        axis, negative along a flipped one)."""
        steps = _array_strides(self._ptr)
        return tuple(steps[i] * self.dtype.itemsize for i in range(self.ndim))

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def dtype(self):
        if self._dtype is None:
            self._dtype = _NUMPY_DTYPES[_array_dtype(self._ptr)]
        return self._dtype

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def device(self):
        if self._device is None:
            self._device = _device_from_ptr(_array_device(self._ptr))
        return self._device

    def __len__(self):
        return self.shape[0]

    def to_host(self):
        """A new numpy array holding a copy of this one, once the work writing it has run."""
        out = numpy.empty(self.shape, dtype=self.dtype)
        if out.nbytes:
            _array_to_host(self._ptr, out.ctypes.data_as(ctypes.c_void_p), out.nbytes)
        return out

    def __array__(self, dtype=None):
        out = self.to_host()
        return out if dtype is None else out.astype(dtype, copy=False)

    def to_device(self, device, /, *, stream=None):
        """A copy of this array on @device (a Device or a spec). @stream, the standard's, is
        None: the copy is made on the calling thread's default queues and finished on return."""
        if stream is not None:
            raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Array.to_device: stream is %r; anygpu copies between "
                        "devices on the default queues and takes stream=None only" % (stream,))
        dev = globals()["device"](device)
        ptr = ctypes.c_void_p()
        _array_copy_to(self._ptr, dev._ptr, ctypes.byref(ptr))
        return Array(ptr.value)

    def copy(self):
        return self.to_device(self.device)

    def __repr__(self):
        return "anygpu.Array(%s, device=%r)" % (numpy.array2string(self.to_host(), separator=", "), self.device.spec)


SIZE_MAX = 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1


def _length(d, shape, who):
    """The axis length @d of @shape as an int: any integer (a numpy one too) through
    operator.index, so that a float or a string is refused rather than truncated."""
    try:
        return operator.index(d)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: shape %r holds %r, which is not an integer"
                    % (who, shape, d)) from None


def _shape_arg(shape, who):
    """@shape (an integer or a sequence of them) as a tuple of ints and a C size_t array. Every
    length must fit a size_t, else OutOfRangeError: ctypes would keep its low bits only (a
    length of 2**64 + 5 would be 5). ag_array_create refuses a total whose bytes overflow."""
    if type(shape) is not tuple:  # a tuple (an Array's own shape, say) goes straight on
        try:
            shape = (operator.index(shape),)
        except TypeError:
            try:
                shape = tuple(shape)
            except TypeError:
                raise error("AG_ERR_INVALID_ARGUMENT", "%s: shape %r is not an integer or a sequence of them"
                            % (who, shape)) from None
    shape = tuple(d if type(d) is int else _length(d, shape, who) for d in shape)
    if len(shape) > MAX_DIMS:
        raise error("AG_ERR_INVALID_ARGUMENT",
                    "%s: shape %r has %d dimensions; anygpu arrays have 0 to %d" % (who, shape, len(shape), MAX_DIMS))
    if not shape:
        return shape, None
    if builtins.min(shape) < 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: shape %r has a negative length" % (who, shape))
    if builtins.max(shape) > SIZE_MAX:
        raise error("AG_ERR_OUT_OF_RANGE", "%s: shape %r has a length past %d, the largest a size_t holds"
                    % (who, shape, SIZE_MAX))
    return shape, (ctypes.c_size_t * len(shape))(*shape)


def empty(shape, dtype="float32", device=None):
    """A new uninitialised array of @shape and @dtype (None: float32) on @device (default:
    default_device())."""
    if dtype is None:
        dtype = "float32"
    dev = _resolve_device(device)
    shape, cshape = _shape_arg(shape, "anygpu.empty")
    ptr = ctypes.c_void_p()
    _array_create(dev._ptr, dtype_code(dtype, "anygpu.empty"), len(shape), cshape, ctypes.byref(ptr))
    return Array(ptr.value)


def _from_numpy(host, dev, dtype, who):
    """A new Array on @dev of @host's values (anything numpy.asarray takes), in @dtype when
    given. The one place a caller's numpy data enters the library: the bytes handed to C are
    C-ordered and in the machine's byte order (a big-endian '>f4' array is swapped first)."""
    try:
        if dtype is not None and isinstance(host, (list, tuple)) and numpy.dtype(dtype).kind in "iu":
            # Straight into the integer dtype: numpy reads [2**63 + 1, 3] as float64 otherwise,
            # which rounds the large value.
            try:
                host = numpy.asarray(host, dtype=numpy.dtype(dtype))
            except (TypeError, ValueError, OverflowError):
                pass  # read as numpy would, and refused below with anygpu's words
        host = numpy.asarray(host)
    except (TypeError, ValueError) as e:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: numpy cannot read obj as an array (%s)" % (who, e)) from None
    if dtype is not None:
        dtype_code(dtype, who)
        dtype = numpy.dtype(dtype)
        if host.dtype.kind == "c" and dtype.kind != "c":
            raise error("AG_ERR_UNSUPPORTED", "%s: obj is %s; converting it to %s would drop the imaginary part "
                        "(take .real or abs() first)" % (who, host.dtype.name, dtype.name))
        try:
            host = host.astype(dtype, copy=False)
        except (TypeError, ValueError) as e:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: numpy cannot convert obj (%s) to %s (%s)"
                        % (who, host.dtype.name, dtype.name, e)) from None
    if not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))
    code = dtype_code(host.dtype, who)
    if not host.flags.c_contiguous:  # (numpy.ascontiguousarray would make a 0-d array 1-D)
        host = host.copy(order="C")
    shape, cshape = _shape_arg(host.shape, who)
    ptr = ctypes.c_void_p()
    _array_from_host(dev._ptr, code, len(shape), cshape, host.ctypes.data_as(ctypes.c_void_p), ctypes.byref(ptr))
    return Array(ptr.value)


def _python_numbers(obj):
    """True where @obj is a Python number or a (nested) list or tuple of Python numbers only:
    no numpy scalar or array, whose dtype it keeps."""
    stack = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, numpy.generic) or not isinstance(v, (bool, int, float, complex)):
            return False
    return True


def asarray(obj, device=None, dtype=None, *, copy=None):
    """An anygpu array of @obj's values on @device (default: @obj's own device for an Array,
    else default_device()), in @dtype (default: @obj's). @obj is an Array, a numpy array (in
    either byte order: a big-endian one is swapped on the way), a scalar or sequence, anything
    with the buffer protocol, or anything with ``__dlpack__`` (a torch tensor, a CuPy array).
    Python integers become int64 and bools bool, as in numpy; Python floats and complex numbers
    (alone or in lists and tuples with no numpy values) float32 and complex64, the default
    floating dtypes of every creation function (numpy's own arrays and scalars keep their
    dtypes). An Array already on that device in that dtype is returned as it is;
    everything else is copied (``from_dlpack`` shares memory instead). @copy is the standard's:
    True always copies, False never does (InvalidArgumentError where a copy would be needed:
    anything but an Array or a DLPack producer on that device in that dtype), None copies
    where needed."""
    if copy not in (None, True, False):
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.asarray: copy is %r, not True, False or None" % (copy,))
    if isinstance(obj, Array):
        dev = obj.device if device is None else globals()["device"](device)
        out = obj if dev == obj.device else obj.to_device(dev)
        if dtype is not None and numpy.dtype(dtype) != out.dtype:
            from ._ops import astype
            out = astype(out, dtype)
        if out is obj and copy:
            out = obj.copy()
        elif out is not obj and copy is False:
            raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.asarray: copy=False, but the Array is on %s in %s"
                        % (obj.device.spec, obj.dtype.name))
        return out
    dev = _resolve_device(device)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, numpy.ndarray):
        from ._dlpack import from_dlpack
        try:
            shared = from_dlpack(obj)
        except UnsupportedError:  # not compact row-major (a transposed tensor): copied instead
            if copy is False:
                raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.asarray: copy=False, but the tensor's layout "
                            "is not shared through DLPack") from None
            return _from_numpy(obj, dev, dtype, "anygpu.asarray")
        return asarray(shared, device=dev, dtype=dtype, copy=copy)
    if copy is False:
        raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.asarray: copy=False, but %s is copied to make an Array"
                    % type(obj).__name__)
    if dtype is None and isinstance(obj, (float, complex, list, tuple)):
        # Python floats and complex numbers take the default floating dtypes (float32,
        # complex64), those of every creation function, on every device; numpy's own values in
        # a list keep theirs (the walk over the list happens only when numpy made float64 or
        # complex128 of it, and numpy reads the list once).
        try:
            host = numpy.asarray(obj)
        except (TypeError, ValueError):  # a ragged list: _from_numpy says so
            host = None
        if host is not None:
            if host.dtype in (numpy.float64, numpy.complex128) and _python_numbers(obj):
                dtype = "float32" if host.dtype == numpy.float64 else "complex64"
            obj = host
    return _from_numpy(obj, dev, dtype, "anygpu.asarray")
