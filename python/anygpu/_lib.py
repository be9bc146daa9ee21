"""The C library, loaded with ctypes, and the error classes its statuses become.

Which libanygpu is loaded: the file named by ANYGPU_LIBRARY when set; else the one this
package was installed with (``_config.LIBRARY``, written by the meson build); else the system's
(``ctypes.util.find_library``). Every call into the library goes through a prototype declared
with :func:`fn`, so argument types are checked by ctypes and no call guesses an int.
"""

import ctypes
import ctypes.util
import os

c_size_p = ctypes.POINTER(ctypes.c_size_t)


def _find_library():
    path = os.environ.get("ANYGPU_LIBRARY")
    if path:
        return path
    try:
        from . import _config  # written by the meson build at install time
    except ImportError:
        _config = None
    if _config is not None and os.path.exists(_config.LIBRARY):
        return _config.LIBRARY
    found = ctypes.util.find_library("anygpu")
    if found:
        return found
    raise ImportError(
        "anygpu: libanygpu not found: set ANYGPU_LIBRARY to its path, run through "
        "`meson devenv -C <build>`, or install the library")


lib = ctypes.CDLL(_find_library())
LIBRARY = lib._name

# ---- statuses and errors ----------------------------------------------------------------------

STATUS_NAMES = [
    "AG_OK", "AG_ERR_INVALID_ARGUMENT", "AG_ERR_NO_DEVICE", "AG_ERR_BACKEND_UNAVAILABLE",
    "AG_ERR_OUT_OF_MEMORY", "AG_ERR_OUT_OF_RANGE", "AG_ERR_MISMATCH", "AG_ERR_UNSUPPORTED",
    "AG_ERR_BUILD", "AG_ERR_DEVICE",
]


class AnygpuError(Exception):
    """A failed anygpu call: ``status`` is the C status's name ("AG_ERR_MISMATCH") and
    ``message`` the library's detail from ag_last_error(), naming the function and the
    argument."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status
        self.message = message


class InvalidArgumentError(AnygpuError, ValueError):
    pass


class NoDeviceError(AnygpuError, LookupError):
    pass


class BackendUnavailableError(AnygpuError, LookupError):
    pass


class OutOfMemoryError(AnygpuError, MemoryError):
    pass


class OutOfRangeError(AnygpuError, IndexError):
    pass


class MismatchError(AnygpuError, ValueError):
    pass


class UnsupportedError(AnygpuError, TypeError):
    pass


class BuildError(AnygpuError, RuntimeError):
    pass


class DeviceError(AnygpuError, RuntimeError):
    pass


_ERRORS = {
    "AG_ERR_INVALID_ARGUMENT": InvalidArgumentError,
    "AG_ERR_NO_DEVICE": NoDeviceError,
    "AG_ERR_BACKEND_UNAVAILABLE": BackendUnavailableError,
    "AG_ERR_OUT_OF_MEMORY": OutOfMemoryError,
    "AG_ERR_OUT_OF_RANGE": OutOfRangeError,
    "AG_ERR_MISMATCH": MismatchError,
    "AG_ERR_UNSUPPORTED": UnsupportedError,
    "AG_ERR_BUILD": BuildError,
    "AG_ERR_DEVICE": DeviceError,
}


def error(status_name, message):
    """The exception for a status name, for failures found on the Python side (a bad argument
    refused before any C call), worded as the library words its own."""
    return _ERRORS.get(status_name, AnygpuError)(status_name, message)


def _errcheck(result, func, args):
    if result != 0:
        name = lib.ag_status_name(result).decode()
        raise _ERRORS.get(name, AnygpuError)(name, lib.ag_last_error().decode(errors="replace"))
    return result


def fn(name, argtypes, restype=ctypes.c_int, status=True):
    """Declares the C function @name: its argument types, and its result. A function returning
    ag_status (status=True, the default) raises the matching AnygpuError when it fails."""
    f = getattr(lib, name)
    f.argtypes = argtypes
    f.restype = restype
    if status:
        f.errcheck = _errcheck
    return f


lib.ag_status_name.argtypes = [ctypes.c_int]
lib.ag_status_name.restype = ctypes.c_char_p
lib.ag_last_error.argtypes = []
lib.ag_last_error.restype = ctypes.c_char_p

# ---- dtypes -----------------------------------------------------------------------------------

# anygpu's dtypes (ag_dtype values) and their numpy names, in enum order.
DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128"]
AG_DTYPE = {name: code for code, name in enumerate(DTYPES)}
