"""Azimuthal integration as pyFAI 0.21.3's CSR integrator does it (include/anygpu/azint.h,
docs/diffraction.md), with pyFAI's names:

    >>> import anygpu.azint
    >>> ai = anygpu.azint.load("detector.poni", device="opencl:0")       # pyFAI.load
    >>> res = ai.integrate1d(frame, 1000, unit="q_nm^-1")               # integrate1d_ng
    >>> res.radial, res.intensity

The integrator of pyFAI's method ("bbox", "no" or "full", "csr", "cython") is built
once per frame shape, bin count and options and kept (pyFAI keeps its engines the same way),
so integrating frame after frame costs one kernel each. Frames are numpy arrays or anygpu
Arrays, one [rows, cols] or frames after any scan axes: a stack [B, rows, cols], a 4D-STEM
scan [S1, S2, rows, cols] as pyxem holds it. Each frame is integrated alone and the result's
arrays keep the scan axes ([S1, S2, npt] in 1-D, [S1, S2, npt_azim, npt] in 2-D). An anygpu
Array has at most 4 dimensions, so Array frames have at most two scan axes; numpy frames may
have any number. Results are numpy arrays when the frames were numpy, anygpu Arrays on the
integrator's device when the frames were an Array; the bin centres (radial, azimuthal) are
always numpy float64.
"""

import collections
import ctypes
import hashlib
import json
import math
import os
import re

import numpy

from ._core import Array
from ._lib import AG_DTYPE, AnygpuError, error, fn
from ._sci import (REAL_DTYPES, Owned, c_ptr, device_array, float_dtype, give_back, host_array, invalid, number,
                   refuse, resolve_device)

__all__ = ["AzimuthalIntegrator", "load", "Integrate1dResult", "Integrate2dResult"]

c_double_p = ctypes.POINTER(ctypes.c_double)


class _Poni(ctypes.Structure):
    _fields_ = [
        ("dist", ctypes.c_double), ("poni1", ctypes.c_double), ("poni2", ctypes.c_double),
        ("rot1", ctypes.c_double), ("rot2", ctypes.c_double), ("rot3", ctypes.c_double),
        ("wavelength", ctypes.c_double), ("pixel1", ctypes.c_double), ("pixel2", ctypes.c_double),
        ("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t),
        ("detector", ctypes.c_char * 64),
    ]


class _Options(ctypes.Structure):
    _fields_ = [
        ("npt_rad", ctypes.c_size_t), ("npt_azim", ctypes.c_size_t),
        ("unit", ctypes.c_int), ("split", ctypes.c_int),
        ("rows", ctypes.c_size_t), ("cols", ctypes.c_size_t),
        ("has_radial_range", ctypes.c_bool), ("radial_min", ctypes.c_double), ("radial_max", ctypes.c_double),
        ("has_azimuth_range", ctypes.c_bool), ("azimuth_min", ctypes.c_double), ("azimuth_max", ctypes.c_double),
        ("mask", ctypes.c_void_p),
        ("has_dummy", ctypes.c_bool), ("dummy", ctypes.c_double), ("delta_dummy", ctypes.c_double),
        ("dark", ctypes.c_void_p), ("flat", ctypes.c_void_p),
        ("no_solid_angle", ctypes.c_bool),
        ("has_polarization", ctypes.c_bool), ("polarization_factor", ctypes.c_double),
        ("normalization_factor", ctypes.c_double),
        ("error_model", ctypes.c_int),
        ("variance", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
    ]


class _Result(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in
                ("intensity", "sigma", "sum_signal", "sum_variance", "sum_normalization", "count")]


_poni_parse = fn("ag_poni_parse", [ctypes.c_char_p, ctypes.POINTER(_Poni)])
_poni_read = fn("ag_poni_read", [ctypes.c_char_p, ctypes.POINTER(_Poni)])
_unit_from_name = fn("ag_radial_unit_from_name", [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)])
_create = fn("ag_integrator_create", [ctypes.c_void_p, ctypes.POINTER(_Poni), ctypes.POINTER(_Options),
                                      ctypes.POINTER(ctypes.c_void_p)])
_destroy = fn("ag_integrator_destroy", [ctypes.c_void_p], restype=None, status=False)
_integrate = fn("ag_integrate", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Result)])
_result_free = fn("ag_integrate_result_free", [ctypes.POINTER(_Result)], restype=None, status=False)
_radial = fn("ag_integrator_radial", [ctypes.c_void_p, c_double_p])
_azimuthal = fn("ag_integrator_azimuthal", [ctypes.c_void_p, c_double_p])

_SPLITS = {"bbox": 0, "no": 1, "full": 2}
# pyFAI's method names and the split each resolves to (its engine may differ: the names without
# "csr" give pyFAI's histogram, whose results agree with its CSR integrator's to float rounding).
_METHOD_NAMES = {"csr": "bbox", "bbox_csr": "bbox", "splitbbox": "bbox", "bbox": "bbox",
                 "nosplit_csr": "no", "no": "no", "csr_nosplit": "no",
                 "full_csr": "full", "csr_full": "full", "full": "full", "splitpixel": "full",
                 "splitpixelfull": "full"}
_ENGINE_CACHE = 8  # integrators kept per AzimuthalIntegrator, least recently used dropped


class _Engine(Owned):
    """One C integrator, freed with the object."""

    _free = staticmethod(_destroy)

    def __init__(self, ptr, npt_rad, npt_azim):
        self._ptr = ctypes.c_void_p(ptr)
        self.npt_rad, self.npt_azim = npt_rad, npt_azim
        self.radial = numpy.empty(npt_rad)
        _radial(self._ptr, self.radial.ctypes.data_as(c_double_p))
        self.azimuthal = None
        if npt_azim:
            self.azimuthal = numpy.empty(npt_azim)
            _azimuthal(self._ptr, self.azimuthal.ctypes.data_as(c_double_p))


class Integrate1dResult:
    """pyFAI's Integrate1dResult: ``radial`` (bin centres in ``unit``), ``intensity``,
    ``sigma`` (None without an error model or a variance), ``sum_signal``, ``sum_variance``,
    ``sum_normalization``, ``count``. Unpacks as pyFAI's does: ``radial, intensity`` or, with
    sigma, ``radial, intensity, sigma``."""

    def __init__(self, engine, arrays, unit, as_array):
        self.unit = unit
        self.radial = engine.radial.copy()
        for name, a in arrays.items():
            setattr(self, name, give_back(a, as_array))

    def _tuple(self):
        return (self.radial, self.intensity) + (() if self.sigma is None else (self.sigma,))

    def __iter__(self):
        return iter(self._tuple())

    def __len__(self):
        return len(self._tuple())

    def __getitem__(self, i):
        return self._tuple()[i]


class Integrate2dResult(Integrate1dResult):
    """pyFAI's Integrate2dResult: ``intensity`` [npt_azim, npt_rad] (frames after scan axes:
    [..., npt_azim, npt_rad]), ``radial``, ``azimuthal`` (degrees), ``sigma``, and the sums as in 1-D. Unpacks
    as pyFAI's does: ``intensity, radial, azimuthal`` (and ``sigma`` when there is one)."""

    def __init__(self, engine, arrays, unit, as_array):
        super().__init__(engine, arrays, unit, as_array)
        self.azimuthal = engine.azimuthal.copy()

    def _tuple(self):
        return (self.intensity, self.radial, self.azimuthal) + (() if self.sigma is None else (self.sigma,))


def _format(value):
    return repr(float(value))


# The library's names for what a Python caller passed, in ag_integrator_create's messages.
_PYTHON_NAMES = [
    (r"opt->npt_rad x opt->npt_azim", "npt x npt_azim"), (r"opt->npt_rad", "npt"), (r"opt->npt_azim", "npt_azim"),
    (r"opt->radial_min|opt->radial_max", "radial_range"), (r"opt->azimuth_min|opt->azimuth_max", "azimuth_range"),
    (r"opt->rows x opt->cols", "data's frames"), (r"opt->unit", "unit"), (r"opt->dtype", "dtype"),
    (r"opt->polarization_factor", "polarization_factor"), (r"opt->normalization_factor", "normalization_factor"),
    (r"opt->dummy", "dummy"), (r"opt->delta_dummy", "delta_dummy"),
    (r"ag_poni\.rows x ag_poni\.cols", "shape"), (r"ag_poni\.(\w+)", r"\1"),
    (r"ag_device_info\.(\w+)", r"device.info['\1']"),
]


def _in_python_terms(e, who):
    """The AnygpuError @e of ag_integrator_create, worded for a Python caller: @who in place of the
    C function, the arguments' Python names in place of the C fields (which the package's
    general rewording would take for C functions)."""
    message = re.sub(r"^ag_integrator_create(: ag_\w+)?", who, e.library_message)
    for c_name, name in _PYTHON_NAMES:
        message = re.sub(c_name, name, message)
    return error(e.status, message)


class AzimuthalIntegrator:
    """A diffraction geometry on one device, integrating frames as pyFAI's AzimuthalIntegrator
    (integrate1d_ng / integrate2d_ng, CSR engine). Made from a PONI file (:func:`load`) or from
    pyFAI's keywords: ``dist, poni1, poni2, rot1, rot2, rot3`` (metres, radians),
    ``wavelength`` (metres; needed for q units), ``pixel1, pixel2`` (metres) and
    ``shape=(rows, cols)``, or ``detector=`` a pyFAI detector name of the built-in table
    ("Pilatus1M", "Eiger4M"..., docs/diffraction.md), whose pixel sizes and shape it gives.
    ``device`` is a Device or spec (default: the default device)."""

    def __init__(self, dist=1.0, poni1=0.0, poni2=0.0, rot1=0.0, rot2=0.0, rot3=0.0, wavelength=None,
                 pixel1=None, pixel2=None, shape=None, detector=None, device=None):
        who = "anygpu.azint.AzimuthalIntegrator"
        values = dict(Distance=dist, Poni1=poni1, Poni2=poni2, Rot1=rot1, Rot2=rot2, Rot3=rot3)
        for arg, key in (("dist", "Distance"), ("poni1", "Poni1"), ("poni2", "Poni2"),
                         ("rot1", "Rot1"), ("rot2", "Rot2"), ("rot3", "Rot3")):
            values[key] = number(values[key], who, arg)
        lines = ["poni_version: 2"]
        if detector is not None:
            if not isinstance(detector, str):
                raise invalid(who, "detector must be a pyFAI detector name (str), not %r" % (detector,))
            config = {}
            if pixel1 is not None or pixel2 is not None or shape is not None:
                raise invalid(who, "detector %r gives the pixel sizes and shape: pass detector or "
                              "pixel1, pixel2 and shape, not both" % detector)
            lines.append("Detector: %s" % detector)
        else:
            if pixel1 is None or pixel2 is None or shape is None:
                raise invalid(who, "pixel1, pixel2 and shape are needed without a detector name")
            p1 = number(pixel1, who, "pixel1", low=0, low_open=True)
            p2 = number(pixel2, who, "pixel2", low=0, low_open=True)
            shape = tuple(shape) if isinstance(shape, (tuple, list)) else shape
            if not isinstance(shape, tuple) or len(shape) != 2:
                raise invalid(who, "shape must be (rows, cols), not %r" % (shape,))
            rows, cols = (number(s, who, "shape", low=1, integer=True) for s in shape)
            config = {"pixel1": p1, "pixel2": p2, "max_shape": [rows, cols]}
            lines.append("Detector: Detector")
        lines.append("Detector_config: %s" % json.dumps(config))
        for key in ("Distance", "Poni1", "Poni2", "Rot1", "Rot2", "Rot3"):
            lines.append("%s: %s" % (key, _format(values[key])))
        if wavelength is not None:
            lines.append("Wavelength: %s" % _format(number(wavelength, who, "wavelength", low=0, low_open=True)))
        poni = _Poni()
        _poni_parse("\n".join(lines).encode(), ctypes.byref(poni))
        self._setup(poni, device)

    def _setup(self, poni, device):
        self._poni = poni
        self.device = resolve_device(device)
        self._engines = collections.OrderedDict()

    @classmethod
    def load(cls, path, device=None):
        """The integrator of the PONI file at @path (versions 1, 2 and 2.1 of pyFAI's format, as
        pyFAI.load reads them; ag_poni_read), on @device."""
        if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
            raise invalid("anygpu.azint.load", "path must be a file name, not %r" % (path,))
        poni = _Poni()
        _poni_read(os.fsencode(path), ctypes.byref(poni))
        self = cls.__new__(cls)
        self._setup(poni, device)
        return self

    # pyFAI's geometry attributes
    dist = property(lambda self: self._poni.dist)
    poni1 = property(lambda self: self._poni.poni1)
    poni2 = property(lambda self: self._poni.poni2)
    rot1 = property(lambda self: self._poni.rot1)
    rot2 = property(lambda self: self._poni.rot2)
    rot3 = property(lambda self: self._poni.rot3)
    pixel1 = property(lambda self: self._poni.pixel1)
    pixel2 = property(lambda self: self._poni.pixel2)
    wavelength = property(lambda self: self._poni.wavelength or None)
    detector = property(lambda self: self._poni.detector.decode())

    @property
    def shape(self):
        """The detector's (rows, cols), None when the geometry gives none."""
        return (self._poni.rows, self._poni.cols) if self._poni.rows else None

    def __repr__(self):
        return ("anygpu.azint.AzimuthalIntegrator(dist=%r, poni1=%r, poni2=%r, rot1=%r, rot2=%r, rot3=%r, "
                "wavelength=%r, detector=%r, shape=%r, device=%r)"
                % (self.dist, self.poni1, self.poni2, self.rot1, self.rot2, self.rot3, self.wavelength,
                   self.detector, self.shape, self.device.spec))

    def reset(self):
        """Drops the cached integrators (pyFAI's reset())."""
        self._engines.clear()

    def integrate1d(self, data, npt, *, unit="q_nm^-1", radial_range=None, azimuth_range=None, mask=None,
                    dummy=None, delta_dummy=None, dark=None, flat=None, correctSolidAngle=True,
                    polarization_factor=None, normalization_factor=1.0, error_model=None, variance=None,
                    method=("bbox", "csr", "cython"), dtype="float32"):
        """pyFAI's integrate1d_ng: @data (a frame [rows, cols] of the detector's shape, or frames
        after scan axes [..., rows, cols], each integrated alone; numpy or Array, any real
        dtype) integrated into @npt radial bins of @unit ("q_nm^-1", pyFAI's default,
        needs the wavelength; "q_A^-1", "2th_deg", "2th_rad", "r_mm", "r_m"); the arguments
        after npt are keywords only (pyFAI's positional order has a filename). radial_range (in unit) and azimuth_range
        (degrees) limit the bins and pixels; mask (nonzero: left out), dark, flat, variance
        are [rows, cols]; dummy / delta_dummy leave out pixels of that value (and fill empty
        bins); polarization_factor in [-1, 1]; error_model None or "poisson". method is
        pyFAI's (split, "csr", implementation) with split "bbox", "no" or "full" (pixels shared by
        the area of their quadrilateral in each bin), or one of pyFAI's names for them ("bbox",
        "splitbbox", "csr", "bbox_csr", "no", "nosplit_csr", "full", "splitpixel",
        "full_csr"); the implementation is not used (each gives the same bins). dtype is the engine's, float32 or float64. Returns an
        :class:`Integrate1dResult`, whose arrays are [npt] for a frame, [..., npt] after scan
        axes. Raises MismatchError for frames of another shape than the detector's,
        OutOfMemoryError for bins whose integrator would not fit the device or the host (the
        estimate is made before anything is built)."""
        return self._run("anygpu.azint.AzimuthalIntegrator.integrate1d", data, npt, 0, unit, radial_range,
                         azimuth_range, mask, dummy, delta_dummy, dark, flat, correctSolidAngle,
                         polarization_factor, normalization_factor, error_model, variance, method, dtype)

    integrate1d_ng = integrate1d

    def integrate2d(self, data, npt_rad, npt_azim=360, *, unit="q_nm^-1", radial_range=None, azimuth_range=None,
                    mask=None, dummy=None, delta_dummy=None, dark=None, flat=None, correctSolidAngle=True,
                    polarization_factor=None, normalization_factor=1.0, error_model=None, variance=None,
                    method=("bbox", "csr", "cython"), dtype="float32"):
        """pyFAI's integrate2d_ng: as :meth:`integrate1d` into @npt_azim azimuthal by @npt_rad
        radial bins; returns an :class:`Integrate2dResult` whose arrays are [npt_azim,
        npt_rad] ([..., npt_azim, npt_rad] after scan axes: a 4-D scan gives 4-D results)."""
        who = "anygpu.azint.AzimuthalIntegrator.integrate2d"
        npt_azim = number(npt_azim, who, "npt_azim", low=1, integer=True)
        return self._run(who, data, npt_rad, npt_azim, unit, radial_range, azimuth_range, mask, dummy,
                         delta_dummy, dark, flat, correctSolidAngle, polarization_factor, normalization_factor,
                         error_model, variance, method, dtype)

    integrate2d_ng = integrate2d

    def _run(self, who, data, npt_rad, npt_azim, unit, radial_range, azimuth_range, mask, dummy, delta_dummy,
             dark, flat, correct_solid_angle, polarization_factor, normalization_factor, error_model, variance,
             method, dtype):
        as_array = isinstance(data, Array)
        frames, scan = self._frames(data, who)
        rows, cols = frames.shape[-2:]
        opt = _Options()
        opt.npt_rad = number(npt_rad, who, "npt", low=1, integer=True)
        opt.npt_azim = npt_azim
        if not isinstance(unit, str):
            raise invalid(who, "unit must be a pyFAI unit name, not %r" % (unit,))
        code = ctypes.c_int()
        try:
            _unit_from_name(unit.encode(), ctypes.byref(code))
        except AnygpuError as e:
            raise invalid(who, "unit: %s" % e.message) from None
        if unit.startswith("q_") and not self._poni.wavelength:
            raise invalid(who, "unit %s needs the wavelength, which this integrator was made without (pass "
                          "wavelength=, or a PONI file with a Wavelength line)" % unit)
        opt.unit = code.value
        opt.split = _SPLITS[self._split(method, who)]
        opt.rows, opt.cols = rows, cols
        for arg, value, has, lo, hi in (("radial_range", radial_range, "has_radial_range", "radial_min", "radial_max"),
                                        ("azimuth_range", azimuth_range, "has_azimuth_range", "azimuth_min",
                                         "azimuth_max")):
            if value is not None:
                if len(value) != 2:
                    raise invalid(who, "%s must be (low, high), not %r" % (arg, value))
                setattr(opt, has, True)
                setattr(opt, lo, number(value[0], who, arg))
                setattr(opt, hi, number(value[1], who, arg))
                low, high = getattr(opt, lo), getattr(opt, hi)
                if arg == "radial_range" and not low < high:
                    raise invalid(who, "radial_range %r: its low end must be below its high end" % (tuple(value),))
                if low == high:  # an azimuth range may cross 180 degrees, high below low, but not be empty
                    raise invalid(who, "azimuth_range %r: its ends must differ" % (tuple(value),))
        keep = []  # host copies the options point at, alive until the integrator is built

        def pixels(arg, value, dt):
            a = host_array(value, who, arg, dt, (rows, cols))
            if a is not None:
                keep.append(a)
                return a.ctypes.data
            return None

        opt.mask = pixels("mask", None if mask is None else numpy.asarray(mask) != 0, numpy.uint8)
        if dummy is not None:
            opt.has_dummy = True
            opt.dummy = number(dummy, who, "dummy")
            opt.delta_dummy = 0.0 if delta_dummy is None else number(delta_dummy, who, "delta_dummy", low=0)
        opt.dark = pixels("dark", dark, numpy.float32)
        opt.flat = pixels("flat", flat, numpy.float32)
        opt.no_solid_angle = not correct_solid_angle
        if polarization_factor is not None:
            opt.has_polarization = True
            opt.polarization_factor = number(polarization_factor, who, "polarization_factor", -1, 1)
        opt.normalization_factor = number(normalization_factor, who, "normalization_factor")
        if normalization_factor == 0:
            raise invalid(who, "normalization_factor must not be 0")
        if error_model not in (None, "poisson"):
            raise refuse("AG_ERR_UNSUPPORTED", who, "error_model %r: None or \"poisson\" only" % (error_model,))
        opt.variance = pixels("variance", variance, numpy.float32)
        # a variance array wins over the error model, as in pyFAI
        opt.error_model = 2 if variance is not None else 1 if error_model == "poisson" else 0
        opt.dtype = AG_DTYPE[float_dtype(dtype, who).name]
        pointers = [(name, getattr(opt, name)) for name in ("mask", "dark", "flat", "variance")]
        for name, _ in pointers:  # the key holds the arrays' contents, not where their copies are
            setattr(opt, name, None)
        key = (bytes(opt), tuple(hashlib.sha1(a.tobytes()).hexdigest() for a in keep),
               tuple(a is not None for a in (mask, dark, flat, variance)))
        for name, value in pointers:
            setattr(opt, name, value)
        engine = self._engines.get(key)
        if engine is None:
            ptr = ctypes.c_void_p()
            try:
                _create(self.device._ptr, ctypes.byref(self._poni), ctypes.byref(opt), ctypes.byref(ptr))
            except AnygpuError as e:
                raise _in_python_terms(e, who) from None
            engine = self._engines[key] = _Engine(ptr.value, opt.npt_rad, npt_azim)
            while len(self._engines) > _ENGINE_CACHE:
                self._engines.popitem(last=False)
        else:
            self._engines.move_to_end(key)
        res = _Result()
        _integrate(None, engine._ptr, c_ptr(frames), ctypes.byref(res))
        arrays = {name: (Array(getattr(res, name)) if getattr(res, name) else None) for name, _ in _Result._fields_}
        if opt.error_model == 0:  # pyFAI gives no sigma and no variance without an error model
            arrays["sigma"] = arrays["sum_variance"] = None
        cls = Integrate2dResult if npt_azim else Integrate1dResult
        result = cls(engine, arrays, unit, as_array)
        if scan is not None:  # numpy frames of more scan axes than an Array holds, integrated as a stack
            bins = (npt_azim, opt.npt_rad) if npt_azim else (opt.npt_rad,)
            for name, _ in _Result._fields_:
                if getattr(result, name) is not None:
                    setattr(result, name, getattr(result, name).reshape(scan + bins))
        return result

    def _frames(self, data, who):
        """@data as an Array on the device of [rows, cols] frames after at most two scan axes, and
        the scan axes to give the results back (None when the Array keeps them itself)."""
        if not isinstance(data, Array):
            data = numpy.asarray(data)
            if data.dtype.name not in REAL_DTYPES:
                if data.dtype.kind not in "biuf":
                    raise refuse("AG_ERR_UNSUPPORTED", who, "data of dtype %s: real numbers only" % data.dtype)
                data = data.astype(numpy.float64 if self.device.fp64 else numpy.float32)
        shape = tuple(data.shape)
        if len(shape) < 2:
            raise invalid(who, "data has shape %r; it must be a frame [rows, cols], or frames after scan axes "
                          "[..., rows, cols]" % (shape,))
        if self.shape is not None and shape[-2:] != self.shape:
            frames = " (frames of %r)" % (shape[-2:],) if len(shape) > 2 else ""
            raise refuse("AG_ERR_MISMATCH", who, "data has shape %r%s, but the detector's shape is %r"
                         % (shape, frames, self.shape))
        scan = None
        if len(shape) > 4:  # numpy only: more scan axes than an Array holds, integrated as one stack
            scan = shape[:-2]
            data = data.reshape((math.prod(scan),) + shape[-2:])
        return device_array(data, self.device, who, "data"), scan

    @staticmethod
    def _split(method, who):
        if isinstance(method, str):
            split = _METHOD_NAMES.get(method.lower())
            if split is None:
                raise refuse("AG_ERR_UNSUPPORTED", who, "method %r: anygpu has %s" % (method, ", ".join(_METHOD_NAMES)))
            return split
        if isinstance(method, (tuple, list)) and len(method) == 3:
            split, algo, _impl = (str(m).lower() for m in method)
            if split in _SPLITS and algo == "csr":
                return split
        raise refuse("AG_ERR_UNSUPPORTED", who,
                     "method %r: anygpu integrates as pyFAI's (\"bbox\", \"no\" or \"full\", \"csr\", impl)" % (method,))


def load(path, device=None):
    """pyFAI.load: the :class:`AzimuthalIntegrator` of the PONI file at @path, on @device."""
    return AzimuthalIntegrator.load(path, device=device)
