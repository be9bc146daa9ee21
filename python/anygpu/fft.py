"""Fast Fourier transforms, as numpy.fft, over the trailing axes of an Array (cuFFT, VkFFT or
clFFT, FFTW underneath: include/anygpu/fft.h).

Differences from numpy.fft: the transforms keep single precision (float32 and complex64 in,
complex64 out; numpy computes everything in complex128), integer input is taken as float64;
only the trailing axes are transformed (axis=-1, axes=(-2, -1), fftn over all axes of an array
of up to 3 dimensions), and lengths are not padded or cropped: n= and s= must be the input's
lengths, except those of irfft, irfft2, irfftn and hfft, which say the output length as
numpy's do. fftfreq and rfftfreq give float32 unless dtype= says otherwise.
"""

import ctypes

import numpy

from ._core import empty
from ._lib import error, fn, named
from ._ops import _as, _check_dtype, _operand, conj, multiply

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
           "hfft", "ihfft", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]

_p, _i = ctypes.c_void_p, ctypes.c_int
_transforms = {name: fn("ag_" + name, [_p, _p, _i, _i, _p]) for name in ("fft", "ifft", "rfft", "irfft")}
_shifts = {name: fn("ag_" + name, [_p, _p, _i, _p]) for name in ("fftshift", "ifftshift")}
NORMS = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
_COMPLEX = {"float32": "complex64", "complex64": "complex64", "float64": "complex128", "complex128": "complex128"}


def _axes(who, x, axes, ndim):
    """The number of trailing axes @axes names (None: the last @ndim, or all of x's when
    @ndim is None); UnsupportedError for other axes."""
    if ndim is None:
        ndim = x.ndim
    if axes is None:
        return ndim
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    if sorted(a % x.ndim for a in axes) != list(range(x.ndim - len(axes), x.ndim)):
        raise error("AG_ERR_UNSUPPORTED", "%s: axes %r; anygpu transforms the trailing axes only" % (who, axes))
    return len(axes)


def _transform(name, kind, x, ndim, axes, norm, lengths):
    who = "anygpu.fft." + name
    x = _operand(x, None, who, "x")
    ndim = _axes(who, x, axes, ndim)
    if not 1 <= ndim <= 3 or ndim > x.ndim:
        raise error("AG_ERR_UNSUPPORTED", "%s: %d transformed axes of a %d-D array; anygpu transforms 1 to 3"
                    % (who, ndim, x.ndim))
    if norm not in NORMS:
        raise error("AG_ERR_INVALID_ARGUMENT", '%s: norm %r is not "backward", "ortho" or "forward"' % (who, norm))
    dt = x.dtype
    if dt.kind in "ui":
        dt = numpy.dtype("float64")
    if kind == "rfft" and dt.kind == "c":
        raise error("AG_ERR_UNSUPPORTED", "%s: x is %s; rfft takes real input (take real() first)" % (who, dt.name))
    cdt = _check_dtype(_COMPLEX[dt.name], x.device, who)
    if kind == "rfft":
        x = _as(x, dt)
    else:
        x = _as(x, cdt)
    shape = list(x.shape)
    if lengths is not None:
        lengths = (lengths,) if isinstance(lengths, int) else tuple(lengths)
        if len(lengths) != ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %d lengths for %d axes" % (who, len(lengths), ndim))
        expect = tuple(shape[-ndim:]) if kind != "irfft" else tuple(shape[-ndim:-1]) + (None,)
        for got, want in zip(lengths, expect):
            if want is not None and got != want:
                raise error("AG_ERR_UNSUPPORTED", "%s: lengths %r differ from x's %r; anygpu neither pads nor crops"
                            % (who, lengths, tuple(shape[-ndim:])))
    if kind == "rfft":
        shape[-1] = shape[-1] // 2 + 1
        out_dt = cdt
    elif kind == "irfft":
        n = lengths[-1] if lengths is not None else 2 * (shape[-1] - 1)
        if n // 2 + 1 != shape[-1] or n < 1:
            raise error("AG_ERR_MISMATCH", "%s: output length %d needs %d input points on the last axis, not %d"
                        % (who, n, n // 2 + 1, shape[-1]))
        shape[-1] = n
        out_dt = numpy.dtype("float32" if cdt == numpy.complex64 else "float64")
    else:
        out_dt = cdt
    out = empty(shape, out_dt, x.device)
    _transforms[kind](None, x._ptr, ndim, NORMS[norm], out._ptr)
    return out


def _define(kind, ndim, length_arg):
    name = kind + {1: "", 2: "2", None: "n"}[ndim]
    if length_arg == "n":
        def f(x, n=None, axis=-1, norm=None):
            return _transform(name, kind, x, 1, axis, norm, n)
    else:
        def f(x, s=None, axes=None, norm=None):
            return _transform(name, kind, x, ndim, axes, norm, s)
    named(f, name)
    f.__doc__ = "numpy.fft.%s over the trailing axes (module docstring for the differences)." % name
    return f


fft, ifft, rfft, irfft = (_define(k, 1, "n") for k in ("fft", "ifft", "rfft", "irfft"))
fft2, ifft2, rfft2, irfft2 = (_define(k, 2, "s") for k in ("fft", "ifft", "rfft", "irfft"))
fftn, ifftn, rfftn, irfftn = (_define(k, None, "s") for k in ("fft", "ifft", "rfft", "irfft"))

# hfft and ihfft are irfft and rfft of the conjugate, with the norm's direction swapped, as
# numpy.fft defines them (a norm that is none of these _transform refuses, by the caller's name).
_SWAP = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def hfft(x, n=None, axis=-1, norm=None):
    """numpy.fft.hfft: the real transform of a Hermitian-symmetric signal (its first half), of
    output length @n (default 2 * (m - 1)); irfft of the conjugate with the norm reversed."""
    x = _operand(x, None, "anygpu.fft.hfft", "x")
    return _transform("hfft", "irfft", conj(x) if x.dtype.kind == "c" else x, 1, axis, _SWAP.get(norm, norm), n)


def ihfft(x, n=None, axis=-1, norm=None):
    """numpy.fft.ihfft: the inverse of hfft for real @x, the conjugate of rfft with the norm
    reversed (n // 2 + 1 complex outputs)."""
    return conj(_transform("ihfft", "rfft", x, 1, axis, _SWAP.get(norm, norm), n))


def _freq(who, n, d, device, dtype, pieces):
    import operator
    from . import _namespace as ns
    try:
        n = operator.index(n)
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: n is %r, not an integer" % (who, n)) from None
    if n < 1:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: n is %d; it must be at least 1" % (who, n))
    if isinstance(d, bool) or not isinstance(d, (int, float, numpy.integer, numpy.floating)) or d == 0:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: d is %r, not a nonzero real number" % (who, d))
    dt = numpy.dtype("float32" if dtype is None else dtype)
    if dt.kind != "f":
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: dtype %s is not a real floating dtype" % (who, dt.name))
    parts = [ns.arange(a, b, dtype=dt, device=device) for a, b in pieces(n) if b > a]
    k = parts[0] if len(parts) == 1 else ns.concat(parts)
    return multiply(k, 1.0 / (float(d) * n))


def fftfreq(n, /, *, d=1.0, device=None, dtype=None):
    """The sample frequencies of an n-point fft with sample spacing @d (numpy.fft.fftfreq and
    the standard's): [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n), in @dtype (default
    float32, the package's default) on @device, made there."""
    return _freq("anygpu.fft.fftfreq", n, d, device, dtype, lambda n: ((0, (n - 1) // 2 + 1), (-(n // 2), 0)))


def rfftfreq(n, /, *, d=1.0, device=None, dtype=None):
    """The sample frequencies of an n-point rfft (numpy.fft.rfftfreq and the standard's):
    [0, 1, ..., n // 2] / (d n), in @dtype (default float32) on @device."""
    return _freq("anygpu.fft.rfftfreq", n, d, device, dtype, lambda n: ((0, n // 2 + 1),))


def _shift(kind, x, axes):
    who = "anygpu.fft." + kind
    x = _operand(x, None, who, "x")
    out = empty(x.shape, x.dtype, x.device)
    _shifts[kind](None, x._ptr, _axes(who, x, axes, None), out._ptr)
    return out


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency to the centre of every axis (axes=None) or of
    the trailing axes named."""
    return _shift("fftshift", x, axes)


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift, the inverse of fftshift."""
    return _shift("ifftshift", x, axes)

