"""anygpu.azint against pyFAI 0.21.3's CSR integrator (integrate1d_ng / integrate2d_ng with
method (split, "csr", "cython"), split bbox, no or full) on small detectors, on every device; the tolerances are
docs/diffraction.md's measured agreement with room (1e-5 relative to the largest value)."""

import os
import sys
import time

import numpy
import pytest

import anygpu
import anygpu.azint
from conftest import need_fp64

pyFAI = pytest.importorskip("pyFAI", reason="pyFAI is not importable: no reference to compare with")
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator as PyFAIIntegrator  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pyfai_azint import clear_full_split_buffer, integrate  # noqa: E402

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


def test_frames_of_another_shape_than_the_detectors_are_refused(dev):
    """pyFAI refuses a frame whose shape is not its detector's; so does anygpu, naming both."""
    ai = ours(dev)
    with pytest.raises(anygpu.MismatchError, match=r"integrate1d: data has shape \(64, 64\), but the detector's "
                                                   r"shape is \(40, 36\)"):
        ai.integrate1d(numpy.ones((64, 64), numpy.float32), 10)
    with pytest.raises(anygpu.MismatchError, match=r"integrate2d: data has shape \(3, 40, 40\) \(frames of "
                                                   r"\(40, 40\)\), but the detector's shape is \(40, 36\)"):
        ai.integrate2d(anygpu.asarray(numpy.ones((3, ROWS, ROWS), numpy.float32), device=dev), 10, 4)
    with pytest.raises(anygpu.InvalidArgumentError, match=r"integrate1d: data has shape \(36,\)"):
        ai.integrate1d(numpy.ones(COLS), 10)


def test_scan_axes_are_kept_in_the_results(dev):
    """A 4D-STEM scan [S1, S2, rows, cols], as pyxem holds it, gives [S1, S2, npt] in 1-D and
    [S1, S2, npt_azim, npt] in 2-D, each frame's results bit for bit those it gives alone (and
    pyFAI's); numpy frames take any number of scan axes, Arrays up to two (4-D in, 4-D out)."""
    scan = numpy.stack([numpy.stack([frame(10 * i + j) for j in range(3)]) for i in range(2)])
    ai = ours(dev)
    kw = dict(unit="2th_deg", error_model="poisson")
    r1 = ai.integrate1d(scan, 20, **kw)
    r2 = ai.integrate2d(scan, 20, 8, **kw)
    assert r1.intensity.shape == (2, 3, 20) and r1.sigma.shape == (2, 3, 20)
    assert r2.intensity.shape == (2, 3, 8, 20) and r2.count.shape == (2, 3, 8, 20)
    for i in range(2):
        for j in range(3):
            one1, one2 = ai.integrate1d(scan[i, j], 20, **kw), ai.integrate2d(scan[i, j], 20, 8, **kw)
            for name in ("intensity", "sigma", "sum_signal", "sum_variance", "sum_normalization", "count"):
                numpy.testing.assert_array_equal(getattr(r1, name)[i, j], getattr(one1, name))
                numpy.testing.assert_array_equal(getattr(r2, name)[i, j], getattr(one2, name))
            close(r1.intensity[i, j], reference().integrate1d_ng(scan[i, j], 20, method=("bbox", "csr", "cython"),
                                                                 **kw).intensity, "float32")
    arr = ai.integrate2d(anygpu.asarray(scan, device=dev), 20, 8, **kw)
    assert isinstance(arr.intensity, anygpu.Array) and arr.intensity.shape == (2, 3, 8, 20)
    numpy.testing.assert_array_equal(arr.intensity.to_host(), r2.intensity)
    deep = ai.integrate1d(scan.reshape(1, 2, 1, 3, ROWS, COLS), 20, **kw)
    assert deep.intensity.shape == (1, 2, 1, 3, 20)
    numpy.testing.assert_array_equal(deep.intensity.reshape(2, 3, 20), r1.intensity)


def test_non_finite_pixels_are_integrated_as_pyfai_integrates_them(dev):
    """pyFAI 0.21.3 keeps +-inf pixels (their bins become +-inf, NaN where both meet) and leaves
    NaN ones out; anygpu does the same, in 1-D and 2-D, with each splitting."""
    data = frame(11)
    data[3, 4] = numpy.inf
    data[20, 20] = -numpy.inf
    data[10, 10] = numpy.nan
    data[30, 7:9] = (numpy.inf, -numpy.inf)
    for split in ("bbox", "no", "full"):
        method = (split, "csr", "cython")
        want = reference().integrate1d_ng(data, 25, unit="2th_deg", method=method, error_model="poisson")
        got = ours(dev).integrate1d(data, 25, unit="2th_deg", method=method, error_model="poisson")
        assert not numpy.isfinite(want.intensity).all()
        for name in ("intensity", "sigma", "sum_signal", "count"):
            w, g = getattr(want, name), getattr(got, name)
            numpy.testing.assert_array_equal(numpy.isfinite(g), numpy.isfinite(w))
            numpy.testing.assert_array_equal(g[~numpy.isfinite(w)], w[~numpy.isfinite(w)])
            close(numpy.where(numpy.isfinite(w), g, 0), numpy.where(numpy.isfinite(w), w, 0), "float32")
        # pyFAI's 2-D matrix without splitting is taken once three builds agree (tests/pyfai_azint.py)
        stable = integrate(reference, data, 12, 9, unit="2th_deg", method=method)
        assert stable is not None, "no 2-D matrix without splitting came out of pyFAI three times in 40 builds"
        want = stable[0]
        got = ours(dev).integrate2d(data, 12, 9, unit="2th_deg", method=method)
        w, g = want.intensity, got.intensity
        numpy.testing.assert_array_equal(g[~numpy.isfinite(w)], w[~numpy.isfinite(w)])
        close(numpy.where(numpy.isfinite(w), g, 0), numpy.where(numpy.isfinite(w), w, 0), "float32")


def test_too_many_bins_are_refused_before_anything_is_built(dev):
    """An integrator whose estimated memory is beyond the host's or the device's is refused at
    once (OutOfMemoryError naming npt and the estimate, in Python's terms), and fewer bins work."""
    ai = ours(dev)
    start = time.monotonic()
    with pytest.raises(anygpu.OutOfMemoryError, match=r"integrate1d: npt \(1073741824 bins\) over 1440 pixels "
                                                      r"need an estimated") as e:
        ai.integrate1d(frame(), 2**30)
    assert "opt->" not in str(e.value) and "ag_" not in str(e.value)
    with pytest.raises(anygpu.OutOfMemoryError, match=r"integrate2d: npt x npt_azim \(32768 x 32768 bins\)"):
        ai.integrate2d(frame(), 2**15, 2**15)
    assert time.monotonic() - start < 10
    res = ai.integrate1d(numpy.full((ROWS, COLS), 3, numpy.float32), 100000, unit="2th_deg", correctSolidAngle=False)
    assert abs(res.count.sum() - ROWS * COLS) < 1e-3 * ROWS * COLS
    numpy.testing.assert_allclose(res.intensity[res.count > 0], 3, rtol=1e-5)


def test_geometry_messages_name_what_the_caller_wrote(dev, tmp_path):
    """q without a wavelength names `wavelength`; a PONI number pyFAI's float() refuses (hex) is
    refused naming the file, the line and the key."""
    ai = anygpu.azint.AzimuthalIntegrator(shape=(ROWS, COLS), device=dev,
                                          **{k: v for k, v in GEOMETRY.items() if k != "wavelength"})
    with pytest.raises(anygpu.InvalidArgumentError, match="integrate1d: unit q_nm\\^-1 needs the wavelength") as e:
        ai.integrate1d(frame(), 10)
    assert "poni->" not in str(e.value) and "ag_" not in str(e.value)
    path = tmp_path / "hex.poni"
    path.write_text("poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4}\n"
                    "Distance: 0x10\n")
    with pytest.raises(anygpu.InvalidArgumentError, match=r"hex.poni: line 4: Distance \"0x10\" is not a number"):
        anygpu.azint.load(str(path), device=dev)
    with pytest.raises(ValueError):  # pyFAI refuses it too
        pyFAI.load(str(path))
    # a geometry beyond a double names the keywords the integrator was made with
    huge = anygpu.azint.AzimuthalIntegrator(dist=0.1, pixel1=1e300, pixel2=1e300, shape=(4, 4), device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match=r"integrate1d: pixel \(0, 0\) has a radial position "
                                                          r"\(r_m\) of inf: the geometry \(dist 0.1 m, "
                                                          r"pixel1 1e\+300 m, pixel2 1e\+300 m") as e:
        huge.integrate1d(numpy.ones((4, 4), numpy.float32), 5, unit="r_mm")
    assert "ag_" not in str(e.value)
    # where pyFAI computes finite positions, its bins: 2th of about 90 degrees for every pixel
    numpy.testing.assert_allclose(huge.integrate1d(numpy.ones((4, 4), numpy.float32), 5, unit="2th_deg").radial,
                                  [18, 54, 90, 126, 162], rtol=1e-6)
