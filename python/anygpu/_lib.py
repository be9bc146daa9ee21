"""The C library, loaded with ctypes, and the error classes its statuses become.

Which libanygpu is loaded: the file named by ANYGPU_LIBRARY when set; else the one this
package was installed with (``_config.LIBRARY``, written by the meson build); else the system's
(``ctypes.util.find_library``). Every call into the library goes through a prototype declared
with :func:`fn`, so argument types are checked by ctypes and no call guesses an int.
"""

import ctypes
import ctypes.util
import os
import re
import sys

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
    ``message`` the detail, starting with the Python function or method the caller called
    (``anygpu.full: ...``, ``anygpu.Array.__add__: ...``) and naming the argument.
    ``library_message`` is the message as the C library or the package's own check worded
    it (for a C failure, ag_last_error(), naming the C functions it went through)."""

    def __init__(self, status, message):
        self.library_message = message
        message = _as_called(message)
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


# ---- the name a failure is reported under -------------------------------------------------------
#
# A message starts with the functions it went through: the C library's ("ag_array_from_host:
# ag_array_create: shape[0] ...") or the package's internal ones. A Python caller called neither,
# so every AnygpuError is reported under the public function or method they called: the
# outermost frame of this package on the stack when the error is made (the one whose caller is
# outside the package, so an anygpu call made inside a user's callback is reported under its
# own name). This runs only when an error is made: the calls that succeed pay nothing for it.

_LEADING_NAMES = re.compile(r"^(?:(?:ag_\w+|anygpu(?:\.\w+)+)(?:\(\))?: )+")
# The C library's vocabulary inside a message, in the package's: the C functions and
# operation codes it names (its types, ag_dtype and the like, are left), its short dtype names,
# and the DLPack struct a Python caller never sees.
_C_FUNCTION = re.compile(r"\bag_(?!(?:dtype|array|device|queue|event|buffer|status|program|kernel|range|arg)\b)"
                         r"[a-z0-9_]+\b|\bAG_(?:CMP|OP)_[A-Z0-9_]+\b")
_C_STRUCT = ("t->dl_tensor.", "the DLPack tensor's ")
_C_DTYPES = {"u8": "uint8", "u16": "uint16", "u32": "uint32", "i32": "int32", "f32": "float32", "f64": "float64",
             "c64": "complex64", "c128": "complex128", "i8": "int8", "i16": "int16", "i64": "int64",
             "u64": "uint64"}
_C_DTYPE = re.compile(r"\b(%s)\b" % "|".join(_C_DTYPES))


def _ours(frame):
    name = frame.f_globals.get("__name__", "")
    return name == "anygpu" or name.startswith("anygpu.")


def _public_name(frame):
    """The name a user calls the function of @frame by: "anygpu.full", "anygpu.fft.fft2",
    "anygpu.Array.sum", "anygpu.sporco.BPDN" (a constructor), "anygpu.sporco.BPDN.solve"; None for
    a frame that is no function (a module being imported)."""
    code = frame.f_code
    if code.co_name.startswith("<"):
        return None
    path = ".".join(p for p in frame.f_globals["__name__"].split(".") if not p.startswith("_"))
    if code.co_argcount and code.co_varnames[0] in ("self", "cls"):
        owner = frame.f_locals.get(code.co_varnames[0])
        if owner is not None:
            cls = owner if isinstance(owner, type) else type(owner)
            return "%s.%s" % (path, cls.__name__) if code.co_name == "__init__" else \
                "%s.%s.%s" % (path, cls.__name__, code.co_name)
    return "%s.%s" % (path, code.co_name)


def _python_function(c_name, called):
    """The package's name for the C function @c_name in a message: anygpu.<name> where the
    package has a function of that name (ag_real: anygpu.real), else @called, the call that
    ran it."""
    package = sys.modules.get("anygpu")
    short = c_name[3:]
    if c_name.startswith("ag_") and package is not None and callable(getattr(package, short, None)):
        return "anygpu." + short
    return called


def _as_called(message):
    """@message with its leading function names replaced by the public name of the call the
    user made (unchanged when no such call is on the stack)."""
    frame, entry = sys._getframe(1), None
    while frame is not None:
        if _ours(frame):
            entry = frame
        elif entry is not None:
            break
        frame = frame.f_back
    name = _public_name(entry) if entry is not None else None
    if name is None:
        return message
    body = _LEADING_NAMES.sub("", message, count=1)
    body = _C_FUNCTION.sub(lambda m: _python_function(m.group(0), name), body)
    body = _C_DTYPE.sub(lambda m: _C_DTYPES[m.group(1)], body)
    body = body.replace(*_C_STRUCT)
    return "%s: %s" % (name, body)


def named(f, name):
    """@f (a function made by another, sharing its code with its siblings) with the name @name,
    in its code too, so that a failure inside it is reported as @name and tracebacks say it."""
    code = f.__code__.replace(co_name=name)
    if hasattr(code, "co_qualname"):
        code = code.replace(co_qualname=name)
    f.__code__ = code
    f.__name__ = f.__qualname__ = name
    return f


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
DTYPES = ["uint8", "uint16", "uint32", "int32", "float32", "float64", "complex64", "complex128", "bool", "int8",
          "int16", "int64", "uint64"]
AG_DTYPE = {name: code for code, name in enumerate(DTYPES)}
