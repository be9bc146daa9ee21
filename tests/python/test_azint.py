"""anygpu.azint against pyFAI 0.21.3's CSR integrator (integrate1d_ng / integrate2d_ng with
method (split, "csr", "cython"), split bbox, no or full) on small detectors, on every device; the tolerances are
docs/diffraction.md's measured agreement with room (1e-5 relative to the largest value)."""

import os
import sys

import numpy
import pytest

import anygpu
import anygpu.azint
from conftest import need_fp64

pyFAI = pytest.importorskip("pyFAI", reason="pyFAI is not importable: no reference to compare with")
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator as PyFAIIntegrator  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pyfai_azint import clear_full_split_buffer  # noqa: E402

clear_full_split_buffer()  # pyFAI's 2-D full splitting made deterministic (tests/pyfai_azint.py)

ROWS, COLS = 40, 36
GEOMETRY = dict(dist=0.1, poni1=0.0021, poni2=0.0017, rot1=0.12, rot2=-0.07, rot3=0.3, wavelength=1e-10,
                pixel1=100e-6, pixel2=120e-6)
RTOL = {"float32": 1e-5, "float64": 1e-5}


def reference():
    return PyFAIIntegrator(detector=pyFAI.detectors.Detector(GEOMETRY["pixel1"], GEOMETRY["pixel2"],
                                                            max_shape=(ROWS, COLS)),
                           **{k: v for k, v in GEOMETRY.items() if not k.startswith("pixel")})


def frame(seed=0, shape=(ROWS, COLS)):
    return numpy.random.default_rng(seed).uniform(10, 1000, size=shape).astype(numpy.float32)


def close(got, want, dtype):
    got, want = numpy.asarray(got, dtype=numpy.float64), numpy.asarray(want, dtype=numpy.float64)
    assert got.shape == want.shape
    numpy.testing.assert_allclose(got, want, rtol=0, atol=RTOL[numpy.dtype(dtype).name] * numpy.abs(want).max())


def ours(dev):
    return anygpu.azint.AzimuthalIntegrator(shape=(ROWS, COLS), device=dev, **GEOMETRY)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("split", ["bbox", "no", "full"])
def test_integrate1d(dev, dtype, split):
    need_fp64(dev, dtype)
    data = frame() if split == "bbox" else numpy.round(frame()).astype(numpy.uint16)  # read in its own dtype
    mask = numpy.zeros((ROWS, COLS), numpy.int8)
    mask[3:6, 10:20] = 1
    dark = numpy.full((ROWS, COLS), 5, numpy.float32)
    kw = dict(unit="q_nm^-1", mask=mask, dark=dark, polarization_factor=0.9, error_model="poisson",
              normalization_factor=2.5, radial_range=(5, 30))
    want = reference().integrate1d_ng(data, 50, method=(split, "csr", "cython"), **kw)
    res = ours(dev).integrate1d(data, 50, method=(split, "csr", "cython"), dtype=dtype, **kw)
    numpy.testing.assert_allclose(res.radial, want.radial, rtol=1e-9)
    for name in ("intensity", "sigma", "sum_signal", "sum_normalization", "count"):
        assert isinstance(getattr(res, name), numpy.ndarray)
        close(getattr(res, name), getattr(want, name), dtype)
    r, i, s = res
    assert r is res.radial and i is res.intensity and s is res.sigma


def test_big_endian_frame_integrates_as_in_native_order(dev):
    """A '>u2' frame (as a big-endian detector file gives it) integrates bit for bit as the same
    frame in the machine's order: its values reach the device swapped, not as raw bytes."""
    data = numpy.round(frame()).astype(numpy.uint16)
    ai = ours(dev)
    want = ai.integrate1d(data, 40, unit="2th_deg")
    got = ai.integrate1d(data.astype(">u2"), 40, unit="2th_deg")
    numpy.testing.assert_array_equal(got.intensity, want.intensity)
    numpy.testing.assert_array_equal(got.radial, want.radial)


def test_integrate1d_stack_and_array_in(dev):
    data = numpy.stack([frame(1), frame(2)])
    ai = ours(dev)
    want = [reference().integrate1d_ng(f, 30, unit="2th_deg", dummy=0.0) for f in data]
    res = ai.integrate1d(anygpu.asarray(data, device=dev), 30, unit="2th_deg", dummy=0.0)
    assert isinstance(res.intensity, anygpu.Array) and res.intensity.device == dev
    assert res.sigma is None
    close(res.intensity.to_host(), numpy.stack([w.intensity for w in want]), "float32")
    # the same options reuse the same integrator
    ai.integrate1d(data[0], 30, unit="2th_deg", dummy=0.0)
    assert len(ai._engines) == 1
    ai.integrate1d(data[0], 31, unit="2th_deg", dummy=0.0)
    assert len(ai._engines) == 2
    mask = numpy.zeros((ROWS, COLS), bool)
    mask[0] = True
    for _ in range(2):  # the same mask's contents, in another copy, find the same integrator
        ai.integrate1d(data[0], 31, unit="2th_deg", dummy=0.0, mask=mask.copy())
    assert len(ai._engines) == 3


def test_variance_and_dummies(dev):
    """A variance array (which wins over error_model, as in pyFAI) and dummies within delta."""
    data = frame(8)
    data[5:9, 3:30] = -1
    data[20, :] = -1.05
    variance = numpy.random.default_rng(9).uniform(1, 50, (ROWS, COLS)).astype(numpy.float32)
    kw = dict(unit="2th_deg", dummy=-1.0, delta_dummy=0.1, variance=variance, error_model="poisson")
    want = reference().integrate1d_ng(data, 40, method=("bbox", "csr", "cython"), **kw)
    res = ours(dev).integrate1d(data, 40, **kw)
    for name in ("intensity", "sigma", "sum_signal", "sum_variance", "sum_normalization", "count"):
        close(getattr(res, name), getattr(want, name), "float32")


def test_integrate2d(dev):
    data = frame(3)
    flat = numpy.random.default_rng(4).uniform(0.9, 1.1, (ROWS, COLS)).astype(numpy.float32)
    kw = dict(unit="r_mm", flat=flat, azimuth_range=(-120, 150), error_model="poisson", polarization_factor=-0.4)
    want = reference().integrate2d_ng(data, 20, 18, method=("bbox", "csr", "cython"), **kw)
    res = ours(dev).integrate2d(data, 20, 18, **kw)
    numpy.testing.assert_allclose(res.radial, want.radial, rtol=1e-9)
    numpy.testing.assert_allclose(res.azimuthal, want.azimuthal, rtol=1e-9)
    for name in ("intensity", "sigma", "sum_signal", "sum_normalization", "count"):
        close(getattr(res, name), getattr(want, name), "float32")
    assert res.intensity.shape == (18, 20)


@pytest.mark.parametrize("method", [("full", "csr", "cython"), "full", "splitpixel", "full_csr"])
def test_integrate2d_full_split(dev, method):
    """pyFAI's full pixel splitting under each of its names, against its CSR integrator."""
    data = frame(6)
    mask = numpy.zeros((ROWS, COLS), numpy.int8)
    mask[10:14, 5:25] = 1
    kw = dict(unit="2th_deg", mask=mask, radial_range=(1.0, 4.0), azimuth_range=(-90, 120), error_model="poisson")
    want = reference().integrate2d_ng(data, 16, 12, method=("full", "csr", "cython"), **kw)
    res = ours(dev).integrate2d(data, 16, 12, method=method, **kw)
    numpy.testing.assert_allclose(res.radial, want.radial, rtol=1e-9)
    numpy.testing.assert_allclose(res.azimuthal, want.azimuthal, rtol=1e-9)
    for name in ("intensity", "sigma", "sum_signal", "sum_variance", "sum_normalization", "count"):
        close(getattr(res, name), getattr(want, name), "float32")


def test_load_poni_and_detector_name(dev, tmp_path):
    ref = reference()
    path = tmp_path / "g.poni"
    ref.write(str(path))
    ai = anygpu.azint.load(str(path), device=dev)
    assert ai.shape == (ROWS, COLS) and ai.dist == pytest.approx(0.1)
    data = frame(5)
    close(ai.integrate1d(data, 25).intensity, ref.integrate1d_ng(data, 25, method=("bbox", "csr", "cython")).intensity,
          "float32")
    pil = anygpu.azint.AzimuthalIntegrator(dist=0.3, poni1=0.01, poni2=0.02, detector="Pilatus100k", device=dev)
    assert pil.shape == (195, 487) and pil.pixel1 == pytest.approx(172e-6)


def test_errors(dev):
    ai = ours(dev)
    with pytest.raises(anygpu.MismatchError, match="anygpu.azint.AzimuthalIntegrator.integrate1d: mask"):
        ai.integrate1d(frame(), 10, mask=numpy.zeros((3, 3)))
    with pytest.raises(anygpu.UnsupportedError, match="integrate1d: method"):
        ai.integrate1d(frame(), 10, method=("full", "lut", "cython"))
    with pytest.raises(anygpu.UnsupportedError, match="integrate1d: method"):
        ai.integrate1d(frame(), 10, method="full_lut")
    with pytest.raises(anygpu.InvalidArgumentError, match="integrate1d: unit"):
        ai.integrate1d(frame(), 10, unit="furlong")
    with pytest.raises(anygpu.InvalidArgumentError, match="integrate1d: npt"):
        ai.integrate1d(frame(), 0)
    with pytest.raises(anygpu.InvalidArgumentError, match="integrate1d: data"):
        ai.integrate1d(numpy.zeros(5), 10)
    with pytest.raises(anygpu.InvalidArgumentError, match="AzimuthalIntegrator: pixel1"):
        anygpu.azint.AzimuthalIntegrator(dist=0.1, pixel1=-1, pixel2=1e-4, shape=(4, 4))
