"""Events on a device's queue, for timing device work as torch.cuda.Event does, and moving
whole structures of arrays (dicts, lists, tuples: a model's parameters) to a device and back,
as Flux's gpu and cpu do."""

import ctypes

import numpy

from ._core import Array, _resolve_device, asarray
from ._lib import error, fn, named

c_void_pp = ctypes.POINTER(ctypes.c_void_p)
_queue_default = fn("ag_queue_default", [ctypes.c_void_p, c_void_pp])
_event_record = fn("ag_event_record", [ctypes.c_void_p, c_void_pp])
_event_wait = fn("ag_event_wait", [ctypes.c_void_p])
_event_elapsed_ms = fn("ag_event_elapsed_ms", [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)])
_event_destroy = fn("ag_event_destroy", [ctypes.c_void_p], restype=None, status=False)


class Event:
    """A point in the calling thread's queue on a device: ``Event.record(device)`` marks the end
    of the work enqueued so far from this thread (the package's operations all run on that
    queue), ``synchronize()`` waits for it, and ``start.elapsed_time(end)`` gives the
    milliseconds of device time between two events, as torch.cuda.Event does."""

    __slots__ = ("_ptr", "device")

    def __init__(self, device=None):
        """An event recorded now on @device's queue (default: default_device())."""
        self.device = _resolve_device(device)
        queue = ctypes.c_void_p()
        _queue_default(self.device._ptr, ctypes.byref(queue))
        self._ptr = ctypes.c_void_p()
        _event_record(queue, ctypes.byref(self._ptr))

    record = classmethod(named(lambda cls, device=None: cls(device), "record"))

    def synchronize(self):
        """Blocks until the work before the event has finished."""
        _event_wait(self._ptr)

    def elapsed_time(self, end):
        """Milliseconds between this event and the later event @end (both finished first)."""
        if not isinstance(end, Event):
            raise error("AG_ERR_INVALID_ARGUMENT", "anygpu.Event.elapsed_time: end is a %s, not an Event"
                        % type(end).__name__)
        ms = ctypes.c_double()
        _event_elapsed_ms(self._ptr, end._ptr, ctypes.byref(ms))
        return ms.value

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr is not None and ptr.value:
            _event_destroy(ptr)
            self._ptr = None


def _map(obj, leaf):
    if isinstance(obj, dict):
        return type(obj)((k, _map(v, leaf)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_map(v, leaf) for v in obj)
    if hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*(_map(v, leaf) for v in obj))
    return leaf(obj)


def to_device(obj, device=None):
    """@obj with every array in it (numpy arrays, Arrays, anything asarray takes; inside dicts,
    lists and tuples, nested) copied to @device (default: default_device()), as Flux's
    ``gpu(model)``; other values (numbers, strings, None) are kept as they are. A single array
    gives an Array."""
    dev = _resolve_device(device)

    def leaf(x):
        if isinstance(x, (Array, numpy.ndarray)) or hasattr(x, "__dlpack__"):
            return asarray(x, device=dev)
        return x

    return _map(obj, leaf)


def to_host(obj):
    """@obj with every Array in it (nested in dicts, lists and tuples) copied to a numpy array,
    as Flux's ``cpu(model)``; everything else is kept as it is."""
    return _map(obj, lambda x: x.to_host() if isinstance(x, Array) else x)
