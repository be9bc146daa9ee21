"""What the scientific layers (azint, template, sporco, learn) share: refusals worded as the
library words its own ("anygpu.<module>.<func>: <arg> ..."), moving arguments onto a device,
giving results back in the caller's kind (numpy in, numpy out; Array in, Array out), and
mapping an options dict with a reference's key names onto a ctypes struct."""

import ctypes
import numbers

import numpy

from ._core import Array, _resolve_device, asarray
from ._lib import error

REAL_DTYPES = ("uint8", "uint16", "uint32", "int32", "float32", "float64")


def refuse(status, who, message):
    """The exception for @status ("AG_ERR_INVALID_ARGUMENT"...), its message "@who: @message"."""
    return error(status, "%s: %s" % (who, message))


def invalid(who, message):
    return refuse("AG_ERR_INVALID_ARGUMENT", who, message)


def c_ptr(a):
    """The ag_array pointer of the Array @a (None for None), for a c_void_p argument."""
    return None if a is None else ctypes.c_void_p(a.ptr)


def device_array(x, dev, who, arg, dtype=None, ndims=None):
    """@x (an Array, a numpy array or anything numpy takes) as an Array on @dev, in @dtype when
    given; InvalidArgumentError naming @arg when it is not an array of @ndims dimensions
    (a tuple of allowed counts) or numpy cannot read it."""
    if x is None:
        raise invalid(who, "%s is None" % arg)
    if not isinstance(x, Array):
        try:
            x = numpy.asarray(x)
        except (TypeError, ValueError) as e:
            raise invalid(who, "%s is not an array (%s)" % (arg, e)) from None
        if x.dtype.kind not in "biufc":
            raise invalid(who, "%s is not an array of numbers (numpy reads it as %s)" % (arg, x.dtype))
    if ndims is not None and len(x.shape) not in ndims:
        raise invalid(who, "%s has shape %r; it must have %s dimensions"
                      % (arg, tuple(x.shape), " or ".join(str(n) for n in ndims)))
    if dtype is not None:
        not_complex(x.dtype, who, arg, dtype)
    return asarray(x, device=dev, dtype=dtype)


def not_complex(dt, who, arg, dtype=None):
    """UnsupportedError naming @arg when its dtype @dt is complex and the computation takes
    @dtype, a real one (None: any complex input is refused): converting would drop the
    imaginary part, and a result computed from the real part alone is not the caller's."""
    if numpy.dtype(dt).kind == "c" and (dtype is None or numpy.dtype(dtype).kind != "c"):
        raise refuse("AG_ERR_UNSUPPORTED", who, "%s is %s; this computation is real, and converting %s would drop "
                     "its imaginary part (pass its real part, or real and imaginary parts as separate real "
                     "problems)" % (arg, numpy.dtype(dt).name, arg))


def host_array(x, who, arg, dtype, shape=None):
    """@x as a C-ordered numpy array of @dtype in the machine's byte order (an Array is copied
    to the host), of @shape when given (MismatchError naming @arg otherwise); None stays None.
    A complex @x for a real @dtype is refused (not_complex)."""
    if x is None:
        return None
    try:
        x = numpy.asarray(x)
    except (TypeError, ValueError) as e:
        raise invalid(who, "%s is not an array (%s)" % (arg, e)) from None
    not_complex(x.dtype, who, arg, dtype)
    # In the machine's byte order whatever @dtype says: C reads the bytes as they are.
    out = numpy.ascontiguousarray(x, dtype=numpy.dtype(dtype).newbyteorder("="))
    if shape is not None and out.shape != tuple(shape):
        raise refuse("AG_ERR_MISMATCH", who, "%s has shape %r; expected %r" % (arg, out.shape, tuple(shape)))
    return out


def give_back(a, as_array):
    """The result Array @a as the caller gave its input: itself when @as_array, else numpy."""
    if a is None:
        return None
    return a if as_array else a.to_host()


def float_dtype(dtype, who, arg="dtype"):
    """The numpy dtype @dtype when it is float32 or float64 (UnsupportedError otherwise)."""
    try:
        dt = numpy.dtype(dtype)
    except TypeError:
        raise invalid(who, "%s %r is not a dtype" % (arg, dtype)) from None
    if dt.name not in ("float32", "float64"):
        raise refuse("AG_ERR_UNSUPPORTED", who, "%s %s: float32 or float64 only" % (arg, dt.name))
    return dt


def resolve_device(dev, *arrays):
    """@dev when given, else the device of the first Array among @arrays, else the default."""
    if dev is None:
        for a in arrays:
            if isinstance(a, Array):
                return a.device
    return _resolve_device(dev)


def number(value, who, arg, low=None, high=None, integer=False, low_open=False):
    """@value as a float (an int with @integer), refused (naming @arg) when it is not a real
    number, not finite, or outside [@low, @high] (@low excluded with @low_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise invalid(who, "%s must be a%s number, not %r" % (arg, "n integer" if integer else " real", value))
    if integer:
        if int(value) != value:
            raise invalid(who, "%s must be an integer, not %r" % (arg, value))
        value = int(value)
    else:
        value = float(value)
        if not numpy.isfinite(value):
            raise invalid(who, "%s must be finite, not %r" % (arg, value))
    if low is not None and (value < low or (low_open and value == low)):
        raise invalid(who, "%s must be %s %r, not %r" % (arg, ">" if low_open else ">=", low, value))
    if high is not None and value > high:
        raise invalid(who, "%s must be <= %r, not %r" % (arg, high, value))
    return value


def set_options(struct, options, keys, who, path=""):
    """Writes the dict @options, keyed by a reference library's option names, into the ctypes
    @struct: @keys maps each name to the struct's field, to a function (struct, value) that
    writes it, or (for a nested dict such as sporco's 'AutoRho') to a pair (sub-struct field,
    its own keys). A name not in @keys is refused, naming it, as is a value the field cannot
    take."""
    if options is None:
        return struct
    if not isinstance(options, dict):
        raise invalid(who, "%s must be a dict, not %s" % ("opt[%r]" % path[:-1] if path else "opt",
                                                           type(options).__name__))
    for name, value in options.items():
        target = keys.get(name)
        label = path + str(name)
        if target is None:
            raise invalid(who, "opt has no option %r (known: %s)" % (label, ", ".join(sorted(keys))))
        if isinstance(target, tuple):
            field, sub = target
            set_options(getattr(struct, field), value, sub, who, label + ".")
        elif callable(target):
            target(struct, value, label)
        else:
            try:
                setattr(struct, target, value)
            except TypeError:
                raise invalid(who, "opt[%r] cannot be %r" % (label, value)) from None
    return struct


class Owned:
    """Base of a Python object owning one C object: ``_ptr`` (a c_void_p) is released with the
    class's ``_free`` (a staticmethod) when the object goes."""

    _ptr = None
    _free = None

    def __del__(self):
        ptr = self._ptr
        if ptr is not None and ptr.value:
            self._free(ptr)
            self._ptr = None
