"""anygpu.template: match_template against skimage.feature.match_template, and
TemplateLibrary.match against a numpy transcription of pyxem's polar matching
(docs/template.md), on every device."""

import numpy
import pytest

import anygpu
from anygpu.template import TemplateLibrary, match_template
from conftest import need_fp64

RTOL = {"float32": 1e-4, "float64": 1e-10}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pad_input,constant_value", [(False, 0), (True, 0), (True, 1.5)])
def test_match_template_vs_skimage(dev, dtype, pad_input, constant_value):
    need_fp64(dev, dtype)
    skimage_feature = pytest.importorskip("skimage.feature", reason="scikit-image is not importable")
    rng = numpy.random.default_rng(0)
    image = rng.uniform(size=(3, 21, 18)).astype(dtype)
    templ = image[1, 4:9, 6:13].copy()
    want = numpy.stack([skimage_feature.match_template(im, templ, pad_input=pad_input,
                                                       constant_values=constant_value) for im in image])
    got = match_template(anygpu.asarray(image, device=dev), templ, pad_input=pad_input, constant_value=constant_value)
    assert isinstance(got, anygpu.Array) and got.device == dev and got.dtype == numpy.dtype(dtype)
    numpy.testing.assert_allclose(got.to_host(), want, rtol=0, atol=RTOL[dtype] * 10)
    single = match_template(image[1], templ, pad_input=pad_input, constant_value=constant_value, device=dev)
    assert isinstance(single, numpy.ndarray)
    numpy.testing.assert_allclose(single, want[1], rtol=0, atol=RTOL[dtype] * 10)
    if not pad_input:
        assert numpy.unravel_index(numpy.argmax(single), single.shape) == (4, 6)


def library(rng, n_templates, n_theta, n_r):
    rs, ths, Is = [], [], []
    for _ in range(n_templates):
        k = rng.integers(3, 8)
        rs.append(rng.integers(1, n_r, k))
        ths.append(rng.integers(0, n_theta, k))
        Is.append(rng.uniform(0.1, 1, k))
    return rs, ths, Is


def pyxem_reference(frames, rs, ths, Is, n_best, n_keep, normalize_image, normalize_templates):
    n_theta, n_r = frames.shape[-2:]
    out = []
    for f in frames.astype(numpy.float64):
        scale = 1 / numpy.linalg.norm(f) if normalize_image else 1
        templates = range(len(rs))
        if n_keep:
            weighted = f.sum(0) * numpy.arange(n_r) / n_r
            scores = []
            for r, i in zip(rs, Is):
                integ = numpy.bincount(r, weights=i, minlength=n_r)
                scores.append(integ @ weighted / (numpy.linalg.norm(integ) if normalize_templates else 1))
            templates = numpy.argsort(-numpy.array(scores), kind="stable")[:n_keep]
        cands = []
        shifts = numpy.arange(n_theta)[:, None]
        for t in templates:
            r, th, i = rs[t], ths[t], Is[t] / (numpy.linalg.norm(Is[t]) if normalize_templates else 1)
            corr = f[(shifts + th) % n_theta, r] @ i * scale
            mirror = f[(shifts - th) % n_theta, r] @ i * scale
            s, sm = numpy.argmax(corr), numpy.argmax(mirror)
            cands.append((corr[s], t, s, 1) if corr[s] >= mirror[sm] else (mirror[sm], t, sm, -1))
        cands.sort(key=lambda c: -c[0])
        out.append(cands[:n_best])
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n_best,n_keep,norm_image,norm_templates", [(1, None, False, True), (3, None, True, False),
                                                                    (2, 4, True, True)])
def test_library_vs_numpy(dev, dtype, n_best, n_keep, norm_image, norm_templates):
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(1)
    n_theta, n_r = 36, 12
    rs, ths, Is = library(rng, 9, n_theta, n_r)
    frames = rng.uniform(size=(2, n_theta, n_r)).astype(dtype)
    lib = TemplateLibrary(rs, ths, Is, n_theta, n_r, device=dev)
    assert len(lib) == 9
    index, corr, angle, sign = lib.match(frames, n_best=n_best, n_keep=n_keep, normalize_image=norm_image,
                                         normalize_templates=norm_templates)
    assert index.shape == (2, n_best) and index.dtype == numpy.int32 and corr.dtype == numpy.dtype(dtype)
    want = pyxem_reference(frames, rs, ths, [i.astype(numpy.float32) for i in Is], n_best, n_keep, norm_image,
                           norm_templates)
    for b in range(2):
        w = numpy.array(want[b])
        numpy.testing.assert_array_equal(index[b], w[:, 1])
        # the library's intensities are float32 (ag_template_library_create), normalised in double
        numpy.testing.assert_allclose(corr[b], w[:, 0], rtol=1e-6 if dtype == "float64" else 1e-5)
        numpy.testing.assert_allclose(angle[b], w[:, 2] * 360 / n_theta, rtol=1e-6)
        numpy.testing.assert_array_equal(sign[b], w[:, 3])
    one = lib.match(anygpu.asarray(frames[0], device=dev), n_best=n_best, n_keep=n_keep, normalize_image=norm_image,
                    normalize_templates=norm_templates)
    assert isinstance(one[0], anygpu.Array) and one[0].shape == (n_best,)
    numpy.testing.assert_array_equal(one[0].to_host(), index[0])


def test_errors(dev):
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.template.match_template: template"):
        match_template(numpy.zeros((4, 4), numpy.float32), numpy.zeros((5, 2), numpy.float32), device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.template.match_template: image has shape"):
        match_template(numpy.zeros(4, numpy.float32), numpy.zeros((1, 1), numpy.float32), device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.template.TemplateLibrary: r_list.0."):
        TemplateLibrary([[5]], [[0]], [[1.0]], 8, 4, device=dev)
    with pytest.raises(anygpu.MismatchError, match="anygpu.template.TemplateLibrary: template 0"):
        TemplateLibrary([[1, 2]], [[0]], [[1.0]], 8, 4, device=dev)
    lib = TemplateLibrary([[1, 2]], [[0, 3]], [[1.0, 0.5]], 8, 4, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.template.TemplateLibrary.match: frac_keep"):
        lib.match(numpy.zeros((8, 4), numpy.float32), frac_keep=2)
    with pytest.raises(anygpu.MismatchError):
        lib.match(numpy.zeros((8, 5), numpy.float32))


def test_complex_input_is_refused(dev):
    """Template matching is real: a complex image, template, frame or intensity is refused
    naming it, rather than matched by its real part."""
    img, tpl = numpy.ones((8, 8), numpy.float32), numpy.ones((3, 3), numpy.float32)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.template.match_template: image is complex(64|128)"):
        match_template(img + 1j, tpl, device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.template.match_template: image is complex64"):
        match_template(anygpu.asarray(img.astype(numpy.complex64), device=dev), tpl)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.template.match_template: template is complex(64|128)"):
        match_template(img, tpl + 1j, device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.template.TemplateLibrary: intensity_list is complex"):
        TemplateLibrary([[1, 2]], [[0, 3]], [[1.0, 0.5j]], 8, 4, device=dev)
    lib = TemplateLibrary([[1, 2]], [[0, 3]], [[1.0, 0.5]], 8, 4, device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.template.TemplateLibrary.match: polar_frames is complex"):
        lib.match(numpy.ones((8, 4)) * 1j)
