"""Fast Fourier transforms, as numpy.fft, over the trailing axes of an Array (cuFFT, VkFFT or
clFFT, FFTW underneath: include/anygpu/fft.h).

Differences from numpy.fft: the transforms keep single precision (float32 and complex64 in,
complex64 out; numpy computes everything in complex128), integer input is taken as float64.
Any axes are transformed (the library transforms up to 3 trailing axes per call: other axes
are moved there as a view and back, more than 3 in several calls), and n= and s= crop or pad
with zeros as numpy's (-1 in s keeps an axis's length). fftfreq and rfftfreq give float32
unless dtype= says otherwise.
"""

import ctypes
import operator

import numpy

from ._core import empty
from ._lib import error, fn, named
from ._ops import _as, _check_dtype, _operand, conj, multiply, real, transpose, zeros

__all__ = ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
           "hfft", "ihfft", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]

_p, _i = ctypes.c_void_p, ctypes.c_int
_transforms = {name: fn("ag_" + name, [_p, _p, _i, _i, _p]) for name in ("fft", "ifft", "rfft", "irfft")}
_shifts = {name: fn("ag_" + name, [_p, _p, _i, _p]) for name in ("fftshift", "ifftshift")}
NORMS = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
_COMPLEX = {"float32": "complex64", "complex64": "complex64", "float64": "complex128", "complex128": "complex128"}


def _axes(who, x, axes, count):
    """@axes as a list of distinct non-negative axes of @x; None: the last @count (all of x's
    when @count is None)."""
    if axes is None:
        count = x.ndim if count is None else count
        if count > x.ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: x has %d dimensions, fewer than the %d transformed"
                        % (who, x.ndim, count))
        return list(range(x.ndim - count, x.ndim))
    try:
        axes = [operator.index(axes)] if not isinstance(axes, (tuple, list)) else [operator.index(a) for a in axes]
    except TypeError:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes %r is not an integer or a sequence of them"
                    % (who, axes)) from None
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %d is out of range for x's %d dimensions"
                        % (who, a, x.ndim))
    axes = [a % x.ndim for a in axes]
    if len(set(axes)) != len(axes):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axes %r repeat an axis" % (who, tuple(axes)))
    return axes


def _resized(x, axis, m):
    """@x cropped (a view) or padded with zeros (a new Array) to length @m along @axis."""
    n = x.shape[axis]
    if m == n:
        return x
    key = [slice(None)] * x.ndim
    if m < n:
        key[axis] = slice(0, m)
        return x[tuple(key)]
    shape = list(x.shape)
    shape[axis] = m
    out = zeros(shape, x.dtype, x.device)
    key[axis] = slice(0, n)
    out[tuple(key)] = x
    return out


def _trailing(kind, x, k, norm, n_last):
    """One library call over the last @k (1 to 3) axes of @x; @n_last the output length of the
    last axis for irfft."""
    shape = list(x.shape)
    if kind == "rfft":
        shape[-1] = shape[-1] // 2 + 1
        out_dt = numpy.dtype(_COMPLEX[x.dtype.name])
    elif kind == "irfft":
        shape[-1] = n_last
        out_dt = numpy.dtype("float32" if x.dtype == numpy.complex64 else "float64")
    else:
        out_dt = x.dtype
    out = empty(shape, out_dt, x.device)
    _transforms[kind](None, x._ptr, k, NORMS[norm], out._ptr)
    return out


def _over(kind, x, axes, norm, n_last):
    """The transform @kind over @axes of @x, in library calls of up to 3 trailing axes each: the
    axes are moved last (a view), transformed, and moved back. Over more than 3 axes the
    transform is separable: rfft takes the last axis and its group first and complex
    transforms the rest (irfft comes here for one axis)."""
    groups = [axes[max(0, i - 3):i] for i in range(len(axes), 0, -3)]  # from the end
    for g in groups:
        step = kind if kind != "rfft" or g[-1] == axes[-1] else "fft"
        perm = [a for a in range(x.ndim) if a not in g] + g
        moved = x if perm == list(range(x.ndim)) else transpose(x, perm)
        y = _trailing(step, moved, len(g), norm, n_last)
        if perm != list(range(x.ndim)):
            back = [0] * x.ndim
            for i, a in enumerate(perm):
                back[a] = i
            y = transpose(y, back)
        x = y
    return x


def _transform(name, kind, x, ndim, axes, norm, lengths):
    who = "anygpu.fft." + name
    x = _operand(x, None, who, "x")
    if norm not in NORMS:
        raise error("AG_ERR_INVALID_ARGUMENT", '%s: norm %r is not "backward", "ortho" or "forward"' % (who, norm))
    if lengths is not None:
        try:
            lengths = [operator.index(lengths)] if ndim == 1 else [operator.index(v) for v in lengths]
        except TypeError:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: %s %r is not %s" % (
                who, "n" if ndim == 1 else "s", lengths, "an integer" if ndim == 1 else "a sequence of integers")) from None
        if axes is None:
            ndim = len(lengths)
    axes = _axes(who, x, axes, ndim)
    if ndim == 1 and len(axes) != 1:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: axis %r is not one axis" % (who, axes))
    if not axes:
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: no axes to transform" % who)
    if lengths is not None and len(lengths) != len(axes):
        raise error("AG_ERR_INVALID_ARGUMENT", "%s: %d lengths for %d axes" % (who, len(lengths), len(axes)))
    dt = x.dtype
    if dt.kind in "uib":
        dt = numpy.dtype("float64")
    if kind == "rfft" and dt.kind == "c":
        raise error("AG_ERR_UNSUPPORTED", "%s: x is %s; rfft takes real input (take real() first)" % (who, dt.name))
    cdt = _check_dtype(_COMPLEX[dt.name], x.device, who)
    x = _as(x, dt if kind == "rfft" else cdt)
    # Each axis cropped or padded with zeros to its length (-1 or None: as it is); irfft's last
    # axis to n // 2 + 1 input points for output length n (default 2 * (m - 1)).
    n_last = None
    for i, a in enumerate(axes):
        m = None if lengths is None or lengths[i] == -1 else lengths[i]
        if kind == "irfft" and i == len(axes) - 1:
            n_last = 2 * (x.shape[a] - 1) if m is None else m
            if n_last < 1:
                raise error("AG_ERR_INVALID_ARGUMENT", "%s: output length %d on axis %d; it must be at least 1"
                            % (who, n_last, a))
            m = n_last // 2 + 1
        if m is None:
            m = x.shape[a]
        if m < 1:
            raise error("AG_ERR_INVALID_ARGUMENT", "%s: length %d on axis %d; it must be at least 1" % (who, m, a))
        x = _resized(x, a, m)
    if kind != "irfft":
        return _over(kind, x, axes, norm, n_last)
    # As numpy's irfftn: the complex inverse over the other axes, then the real one over the
    # last, which takes the imaginary parts of its zero (and, for even n, Nyquist) frequency as
    # 0 (a spectrum that is not Hermitian has them; VkFFT would use them), on a copy.
    last = axes[-1]
    y = _over("ifft", x, axes[:-1], norm, None) if len(axes) > 1 else x.copy()
    key = [slice(None)] * y.ndim
    for k in (0, n_last // 2) if n_last % 2 == 0 else (0,):
        key[last] = k
        y[tuple(key)] = real(y[tuple(key)])
    return _over("irfft", y, [last], norm, n_last)


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
    axes = _axes(who, x, axes, None)
    if axes == list(range(x.ndim - len(axes), x.ndim)) and 1 <= len(axes) <= 3:  # the trailing ones: one call
        out = empty(x.shape, x.dtype, x.device)
        _shifts[kind](None, x._ptr, len(axes), out._ptr)
        return out
    from ._namespace import roll
    if not axes or x.ndim == 0:
        return x.copy()
    sign = 1 if kind == "fftshift" else -1
    return roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=tuple(axes))


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency to the centre of every axis (axes=None) or of
    the trailing axes named."""
    return _shift("fftshift", x, axes)


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift, the inverse of fftshift."""
    return _shift("ifftshift", x, axes)

