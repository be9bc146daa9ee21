"""Template matching (include/anygpu/template.h, docs/template.md): scikit-image's
match_template, and pyxem's orientation mapping of polar images against a library of spot
templates.

    >>> from anygpu.template import match_template, TemplateLibrary
    >>> ncc = match_template(image, templ, pad_input=True)          # skimage.feature
    >>> lib = TemplateLibrary(r_list, theta_list, intensity_list, n_theta=360, n_r=128)
    >>> index, corr, angle, sign = lib.match(polar_frames, n_best=5, frac_keep=0.1)

Results are numpy arrays when the image or frames are numpy, anygpu Arrays on the same device
when they are an Array. f32 everywhere, f64 on devices with double precision; integer images
are taken as float64 where the device has it, else float32.
"""

import ctypes

import numpy

from ._core import Array, empty
from ._lib import AnygpuError, fn
from ._sci import Owned, c_ptr, device_array, give_back, invalid, not_complex, number, refuse, resolve_device

__all__ = ["match_template", "TemplateLibrary"]

_vp = ctypes.c_void_p


class _MatchOptions(ctypes.Structure):
    _fields_ = [("n_keep", ctypes.c_size_t), ("frac_keep", ctypes.c_double), ("n_best", ctypes.c_size_t),
                ("normalize_image", ctypes.c_bool), ("normalize_templates", ctypes.c_bool)]


_u32p = ctypes.POINTER(ctypes.c_uint32)
_library_create = fn("ag_template_library_create",
                     [_vp, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), _u32p, _u32p,
                      ctypes.POINTER(ctypes.c_float), ctypes.c_size_t, ctypes.c_size_t, ctypes.POINTER(_vp)])
_library_destroy = fn("ag_template_library_destroy", [_vp], restype=None, status=False)
_template_library_match = fn("ag_template_library_match",
                             [_vp, _vp, _vp, ctypes.POINTER(_MatchOptions), _vp, _vp, _vp, _vp])
_match_template = fn("ag_match_template", [_vp, _vp, _vp, ctypes.c_bool, ctypes.c_double, _vp])


def _real_frames(x, dev, who, arg, ndims):
    """@x as a float32 / float64 Array on @dev (integers as float64 where the device has it)."""
    if not isinstance(x, Array):
        x = numpy.asarray(x)
        if x.dtype.kind in "biu":
            x = x.astype(numpy.float64 if dev.fp64 else numpy.float32)
    not_complex(x.dtype, who, arg)
    return device_array(x, dev, who, arg, None, ndims)


def _real_lists(value, who, arg):
    """@value, a sequence of per-template sequences of numbers, as a list of float64 arrays
    (complex values refused, not cast)."""
    try:
        lists = [numpy.asarray(v) for v in value]
        for v in lists:
            not_complex(v.dtype, who, arg)
        return [v.astype(numpy.float64).ravel() for v in lists]
    except (TypeError, ValueError) as e:
        if isinstance(e, AnygpuError):
            raise
        raise invalid(who, "%s must be a sequence of per-template sequences of numbers (%s)" % (arg, e)) from None


def match_template(image, template, pad_input=False, constant_value=0, device=None):
    """skimage.feature.match_template (0.19, mode "constant"): the normalised cross-correlation
    of @image ([H, W] or a stack [B, H, W]) with @template ([h, w], no larger), in the image's
    dtype; out [H - h + 1, W - w + 1], or [H, W] with @pad_input (the image padded with
    @constant_value, each position the window centred there). @device: where to compute
    (default: the image's device for an Array, else the default device)."""
    who = "anygpu.template.match_template"
    dev = resolve_device(device, image)
    img = _real_frames(image, dev, who, "image", (2, 3))
    tpl = device_array(template, dev, who, "template", img.dtype, (2,))
    h, w = tpl.shape
    H, W = img.shape[-2:]
    if h > H or w > W:
        raise invalid(who, "template %r is larger than the image %r" % (tpl.shape, img.shape))
    out_shape = img.shape[:-2] + ((H, W) if pad_input else (H - h + 1, W - w + 1))
    out = empty(out_shape, img.dtype, dev)
    _match_template(None, c_ptr(img), c_ptr(tpl), bool(pad_input),
                    number(constant_value, who, "constant_value"), c_ptr(out))
    return give_back(out, isinstance(image, Array))


class TemplateLibrary(Owned):
    """pyxem's polar template library on one device: template t is the spots r_list[t]
    (radial indices, below n_r), theta_list[t] (azimuthal indices, below n_theta) with
    intensities intensity_list[t] (NaN counts as 0), for polar images [n_theta, n_r] (the
    in-plane step is 360 / n_theta degrees). As in pyxem, a template's spots from its first
    one at r = 0 on are left out of the full correlation."""

    _free = staticmethod(_library_destroy)

    def __init__(self, r_list, theta_list, intensity_list, n_theta, n_r, device=None):
        who = "anygpu.template.TemplateLibrary"
        self.n_theta = number(n_theta, who, "n_theta", low=1, integer=True)
        self.n_r = number(n_r, who, "n_r", low=1, integer=True)
        lists = []
        for arg, value in (("r_list", r_list), ("theta_list", theta_list), ("intensity_list", intensity_list)):
            lists.append(_real_lists(value, who, arg))
        n = len(lists[0])
        if n == 0 or len(lists[1]) != n or len(lists[2]) != n:
            raise invalid(who, "r_list, theta_list and intensity_list must hold the same number (> 0) of templates,"
                          " not %d, %d and %d" % tuple(len(x) for x in lists))
        for t, (r, th, i) in enumerate(zip(*lists)):
            if not len(r) == len(th) == len(i):
                raise refuse("AG_ERR_MISMATCH", who, "template %d has %d radii, %d angles and %d intensities"
                             % (t, len(r), len(th), len(i)))
        for arg, (items, bound) in (("r_list", (lists[0], self.n_r)), ("theta_list", (lists[1], self.n_theta))):
            for t, v in enumerate(items):
                if len(v) and (numpy.any(v < 0) or numpy.any(v != numpy.floor(v)) or numpy.any(v >= bound)):
                    raise invalid(who, "%s[%d] holds a value that is not an integer in [0, %d)" % (arg, t, bound))
        offsets = numpy.zeros(n + 1, numpy.uintp)
        offsets[1:] = numpy.cumsum([len(v) for v in lists[0]])
        r, theta = (numpy.concatenate(x).astype(numpy.uint32) for x in lists[:2])
        intensity = numpy.concatenate(lists[2]).astype(numpy.float32)
        self.device = resolve_device(device)
        self.n_templates = n
        ptr = ctypes.c_void_p()
        _library_create(self.device._ptr, n, offsets.ctypes.data_as(ctypes.POINTER(ctypes.c_size_t)),
                        r.ctypes.data_as(_u32p), theta.ctypes.data_as(_u32p),
                        intensity.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), self.n_theta, self.n_r,
                        ctypes.byref(ptr))
        self._ptr = ptr

    def __len__(self):
        return self.n_templates

    def match(self, polar_frames, n_best=1, frac_keep=1.0, n_keep=None, normalize_image=False,
              normalize_templates=True):
        """pyxem's matching of @polar_frames ([n_theta, n_r] or [B, n_theta, n_r]) with the
        library: the prefilter (n_keep templates, else frac_keep of them, by the integrated
        templates), the correlation at every in-plane rotation and mirrored, and the @n_best
        best templates per frame, best first. pyxem's defaults (normalize_image False).
        Returns (index int32, correlation, angle_deg, sign int32 +1 / -1 for the mirror),
        each [n_best] or [B, n_best]."""
        who = "anygpu.template.TemplateLibrary.match"
        frames = _real_frames(polar_frames, self.device, who, "polar_frames", (2, 3))
        opt = _MatchOptions()
        opt.n_best = number(n_best, who, "n_best", low=1, integer=True)
        opt.frac_keep = number(frac_keep, who, "frac_keep", low=0, high=1, low_open=True)
        opt.n_keep = 0 if n_keep is None else number(n_keep, who, "n_keep", low=1, integer=True)
        opt.normalize_image, opt.normalize_templates = bool(normalize_image), bool(normalize_templates)
        shape = frames.shape[:-2] + (opt.n_best,)
        outs = (empty(shape, "int32", self.device), empty(shape, frames.dtype, self.device),
                empty(shape, frames.dtype, self.device), empty(shape, "int32", self.device))
        _template_library_match(None, self._ptr, c_ptr(frames), ctypes.byref(opt), *(c_ptr(o) for o in outs))
        as_array = isinstance(polar_frames, Array)
        return tuple(give_back(o, as_array) for o in outs)
