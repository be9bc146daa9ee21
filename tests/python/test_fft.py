"""anygpu.fft against numpy.fft on every device: each transform, norm and precision, the shifts,
irfft's output length, and the refusals."""

import numpy
import pytest

import anygpu
from conftest import assert_close, need_fp64, normal, put

COMPLEX = {"float32": "complex64", "complex64": "complex64", "float64": "complex128", "complex128": "complex128"}
NORMS = [None, "ortho", "forward"]


signal = normal


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64", "complex128"])
@pytest.mark.parametrize("name, shape", [("fft", (3, 8)), ("ifft", (5,)), ("fft2", (2, 4, 6)), ("ifft2", (6, 5)),
                                         ("fftn", (3, 4, 5)), ("ifftn", (4, 6))])
def test_complex_transforms(dev, dtype, norm, name, shape):
    need_fp64(dev, dtype)
    a = signal(dtype, shape)
    got = getattr(anygpu.fft, name)(put(dev, a), norm=norm)
    want = getattr(numpy.fft, name)(a, norm=norm).astype(COMPLEX[dtype])
    assert_close(got, want, scale=10)


@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64", "complex128"])
def test_transforms_of_views(dev, dtype):
    """Views (steps, transposes, reversed rows) go through contiguous copies (fft.h)."""
    need_fp64(dev, dtype)
    a = signal(dtype, (6, 10))
    x = put(dev, a)
    cdt = COMPLEX[dtype]
    assert_close(anygpu.fft.fft(x[:, ::2]), numpy.fft.fft(a[:, ::2]).astype(cdt), scale=10)
    assert_close(anygpu.fft.fft2(x.T), numpy.fft.fft2(a.T).astype(cdt), scale=10)
    assert_close(anygpu.fft.ifft(x[::-1, 1::3]), numpy.fft.ifft(a[::-1, 1::3]).astype(cdt), scale=10)
    if numpy.dtype(dtype).kind == "f":
        assert_close(anygpu.fft.rfft(x.T), numpy.fft.rfft(a.T).astype(cdt), scale=10)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 8), (3, 7)])
def test_real_transforms(dev, dtype, norm, shape):
    need_fp64(dev, dtype)
    a = signal(dtype, shape)
    x = put(dev, a)
    spectrum = anygpu.fft.rfft(x, norm=norm)
    assert_close(spectrum, numpy.fft.rfft(a, norm=norm).astype(COMPLEX[dtype]), scale=10)
    n = shape[-1]
    back = anygpu.fft.irfft(spectrum, n, norm=norm)
    assert_close(back, numpy.fft.irfft(numpy.fft.rfft(a, norm=norm), n, norm=norm).astype(dtype), scale=10)
    spectrum2 = anygpu.fft.rfft2(x, norm=norm)
    assert_close(spectrum2, numpy.fft.rfft2(a, norm=norm).astype(COMPLEX[dtype]), scale=10)
    back2 = anygpu.fft.irfft2(spectrum2, s=shape, norm=norm)
    assert_close(back2, a, scale=10)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nd_real_and_hermitian_transforms(dev, dtype, norm):
    need_fp64(dev, dtype)
    a = signal(dtype, (3, 4, 6))
    x = put(dev, a)
    cdt = COMPLEX[dtype]
    assert_close(anygpu.fft.rfftn(x, norm=norm), numpy.fft.rfftn(a, norm=norm).astype(cdt), scale=10)
    spectrum = numpy.fft.rfftn(a, norm=norm).astype(cdt)
    assert_close(anygpu.fft.irfftn(put(dev, spectrum), s=a.shape, norm=norm),
                 numpy.fft.irfftn(spectrum, s=a.shape, norm=norm).astype(dtype), scale=10)
    h = numpy.fft.rfft(signal(dtype, (2, 8), 1)).astype(cdt)  # Hermitian: real at 0 and n / 2
    assert_close(anygpu.fft.hfft(put(dev, h), 8, norm=norm), numpy.fft.hfft(h, 8, norm=norm).astype(dtype), scale=10)
    assert_close(anygpu.fft.ihfft(x, norm=norm), numpy.fft.ihfft(a, norm=norm).astype(cdt), scale=10)


@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_sample_frequencies(dev, n):
    for d in (1.0, 0.25):
        got = anygpu.fft.fftfreq(n, d=d, device=dev)
        assert got.dtype == numpy.float32 and got.device == dev
        numpy.testing.assert_allclose(numpy.asarray(got), numpy.fft.fftfreq(n, d), rtol=1e-6)
        numpy.testing.assert_allclose(numpy.asarray(anygpu.fft.rfftfreq(n, d=d, device=dev)),
                                      numpy.fft.rfftfreq(n, d), rtol=1e-6)
    if dev.fp64:
        got = anygpu.fft.fftfreq(n, d=0.1, device=dev, dtype="float64")
        numpy.testing.assert_allclose(numpy.asarray(got), numpy.fft.fftfreq(n, 0.1), rtol=1e-15)


def test_irfft_default_length(dev):
    a = numpy.fft.rfft(signal("float64", (2, 8))).astype("complex64")  # a Hermitian spectrum
    got = anygpu.fft.irfft(put(dev, a))
    assert got.shape == (2, 8)
    assert_close(got, numpy.fft.irfft(a).astype("float32"), scale=10)


def test_integer_input(dev):
    need_fp64(dev, "float64")
    a = numpy.arange(8, dtype="int32")
    assert_close(anygpu.fft.fft(put(dev, a)), numpy.fft.fft(a), scale=10)


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex64"])
@pytest.mark.parametrize("shape", [(5,), (4, 7), (2, 3, 4)])
def test_shifts(dev, dtype, shape):
    a = numpy.arange(int(numpy.prod(shape))).reshape(shape).astype(dtype)
    x = put(dev, a)
    assert_close(anygpu.fft.fftshift(x), numpy.fft.fftshift(a))
    assert_close(anygpu.fft.ifftshift(x), numpy.fft.ifftshift(a))
    assert_close(anygpu.fft.fftshift(x, axes=-1), numpy.fft.fftshift(a, axes=-1))


def test_refusals(dev):
    x = put(dev, signal("complex64", (4, 6)))
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.fft.rfft: x is complex64"):
        anygpu.fft.rfft(x)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.fft.fft: axis 2 is out of range"):
        anygpu.fft.fft(x, axis=2)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.fft.fftn: axes .* repeat"):
        anygpu.fft.fftn(x, axes=(0, 0))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.fft.fft: length 0"):
        anygpu.fft.fft(x, n=0)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.fft.fft2: norm"):
        anygpu.fft.fft2(x, norm="unitary")


@pytest.mark.parametrize("dtype", ["float32", "complex64", "float64", "complex128"])
def test_any_axes_with_cropping_and_padding(dev, dtype):
    """Axes other than the trailing ones (moved there as views), n= and s= cropping or padding
    with zeros, -1 in s, and more than 3 axes (several library calls), as numpy.fft."""
    need_fp64(dev, dtype)
    a = signal(dtype, (4, 6, 5))
    x = put(dev, a)
    cdt = COMPLEX[dtype]
    assert_close(anygpu.fft.fft(x, axis=0), numpy.fft.fft(a, axis=0).astype(cdt), scale=10)
    assert_close(anygpu.fft.ifft(x, n=3, axis=1), numpy.fft.ifft(a, n=3, axis=1).astype(cdt), scale=10)
    assert_close(anygpu.fft.fft(x, n=9, axis=-1, norm="ortho"), numpy.fft.fft(a, n=9, norm="ortho").astype(cdt),
                 scale=10)
    assert_close(anygpu.fft.fftn(x, s=(5, 4), axes=(0, 2)), numpy.fft.fftn(a, s=(5, 4), axes=(0, 2)).astype(cdt),
                 scale=10)
    assert_close(anygpu.fft.fftn(x, s=(-1, 7), axes=(2, 0)), numpy.fft.fftn(a, s=(5, 7), axes=(2, 0)).astype(cdt),
                 scale=10)
    assert_close(anygpu.fft.fftshift(x, axes=(0, 2)), numpy.fft.fftshift(a, axes=(0, 2)))
    assert_close(anygpu.fft.ifftshift(x, axes=0), numpy.fft.ifftshift(a, axes=0))
    b = signal(dtype, (2, 3, 2, 4, 3))
    assert_close(anygpu.fft.ifftn(put(dev, b), norm="forward"), numpy.fft.ifftn(b, norm="forward").astype(cdt),
                 scale=10)
    if numpy.dtype(dtype).kind == "f":
        assert_close(anygpu.fft.rfft(x, axis=1), numpy.fft.rfft(a, axis=1).astype(cdt), scale=10)
        assert_close(anygpu.fft.rfftn(x, s=(3, 8), axes=(2, 0)), numpy.fft.rfftn(a, s=(3, 8), axes=(2, 0)).astype(cdt),
                     scale=10)
        assert_close(anygpu.fft.rfftn(put(dev, b)), numpy.fft.rfftn(b).astype(cdt), scale=10)
        assert_close(anygpu.fft.ihfft(x, n=4, axis=0), numpy.fft.ihfft(a, n=4, axis=0).astype(cdt), scale=10)
        spectrum = numpy.fft.rfftn(a, axes=(0, 1))
        assert_close(anygpu.fft.irfftn(put(dev, spectrum.astype(cdt)), s=(4, 7), axes=(0, 1)),
                     numpy.fft.irfftn(spectrum, s=(4, 7), axes=(0, 1)).astype(dtype), scale=10)
        assert_close(anygpu.fft.irfft(put(dev, spectrum.astype(cdt)), n=3, axis=0),
                     numpy.fft.irfft(spectrum, n=3, axis=0).astype(dtype), scale=10)
        assert_close(anygpu.fft.hfft(put(dev, spectrum.astype(cdt)), n=5, axis=1),
                     numpy.fft.hfft(spectrum, n=5, axis=1).astype(dtype), scale=10)
