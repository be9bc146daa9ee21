"""The array API standard's inspection object (2023.12): ``anygpu.__array_namespace_info__()``
says what the package supports, which dtypes each device takes and which dtypes the creation
functions default to, so that a program written against the standard can ask instead of
assuming."""

from . import _namespace
from ._core import MAX_DIMS, Device, default_device, devices
from ._lib import error
from ._namespace import _KINDS, isdtype

__all__ = ["__array_namespace_info__"]

_WHO = "anygpu.__array_namespace_info__"
_DOUBLE = ("float64", "complex128")
# The standard's dtypes in its order, as anygpu's dtype objects (numpy's).
_ALL = [getattr(_namespace, name) for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                               "uint64", "float32", "float64", "complex64", "complex128")]


def _device_arg(device, method):
    """@device, a Device or None (the default device), as a Device."""
    if device is None:
        return default_device()
    if not isinstance(device, Device):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s.%s: device is %r, not a Device or None (anygpu.device(spec) "
                    "makes one)" % (_WHO, method, device))
    return device


class __array_namespace_info__:
    """The standard's inspection namespace: ``info = anygpu.__array_namespace_info__()``, then
    info.capabilities(), info.default_device(), info.default_dtypes(device=), info.dtypes(device=,
    kind=) and info.devices(). (A class, as numpy's is: calling it makes the namespace.)"""

    __slots__ = ()

    def capabilities(self):
        """What the package supports, as the standard's dict: "boolean indexing" (a[mask] with a
        bool Array: True), "data-dependent shapes" (nonzero, unique_*: True) and "max
        dimensions" (the C library's AG_MAX_DIMS, 8; a key from the standard's 2024.12)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": MAX_DIMS}

    def default_device(self):
        """The calling thread's default device, anygpu.default_device()."""
        return default_device()

    def default_dtypes(self, *, device=None):
        """The dtypes the creation functions default to on @device (None: the default device),
        as the standard's dict: "real floating" float32 and "complex floating" complex64 (zeros,
        ones, full, empty, arange of floats, linspace, eye: on every device, fp64 or not),
        "integral" int64 (arange of integers, asarray of Python ints) and "indexing" int64
        (argmin, argmax)."""
        _device_arg(device, "default_dtypes")
        return {"real floating": _namespace.float32, "complex floating": _namespace.complex64,
                "integral": _namespace.int64, "indexing": _namespace.int64}

    def dtypes(self, *, device=None, kind=None):
        """The dtypes @device (None: the default device) computes in, as the standard's dict of
        name to dtype: all 13, less float64 and complex128 on a device without double
        precision (Device.fp64 False); @kind (None for all) one of isdtype's kind names
        ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex
        floating", "numeric") or a tuple of them keeps the dtypes of any of those kinds."""
        dev = _device_arg(device, "dtypes")
        if kind is not None:
            if not isinstance(kind, (str, tuple)):
                raise error("AG_ERR_INVALID_ARGUMENT", "%s.dtypes: kind is %r, neither a kind name (a str) nor a tuple "
                            "of them" % (_WHO, kind))
            for k in (kind,) if isinstance(kind, str) else kind:
                if not isinstance(k, str):
                    raise error("AG_ERR_INVALID_ARGUMENT", "%s.dtypes: kind %r holds %r, not a kind name (a str)"
                                % (_WHO, kind, k))
                if k not in _KINDS:
                    raise error("AG_ERR_INVALID_ARGUMENT", "%s.dtypes: kind %r is none of %s"
                                % (_WHO, k, ", ".join(repr(n) for n in _KINDS)))
        return {dt.name: dt for dt in _ALL
                if (dev.fp64 or dt.name not in _DOUBLE) and (kind is None or isdtype(dt, kind))}

    def devices(self):
        """Every device present, anygpu.devices(): host first, then CUDA, then OpenCL."""
        return devices()

    def __repr__(self):
        return "anygpu.__array_namespace_info__()"

