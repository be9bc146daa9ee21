"""anygpu.learn: the torch-flavoured optimisers against torch.optim 1.13 over a few steps, the
Flux-flavoured ones against Optimisers.jl's formulas in numpy, the losses against numpy
formulas (and torch's autograd for the gradients of the MPoL terms), on every device."""

import numpy
import pytest

import anygpu
import anygpu.learn as L
from conftest import need_fp64

torch = pytest.importorskip("torch", reason="torch is not importable: no reference for the optimisers")

RTOL = {"float32": 2e-5, "float64": 1e-12}
DTYPES = ["float32", "float64"]


def grads(shape, n, seed=0):
    rng = numpy.random.default_rng(seed)
    return [rng.standard_normal(shape) for _ in range(n)]


def run(opt_of, x0, gs, dev, dtype):
    p = anygpu.asarray(x0.astype(dtype), device=dev)
    opt = opt_of(p)
    for g in gs:
        opt.step(p, g.astype(dtype))
    assert opt.steps == len(gs)
    return p.to_host()


def torch_run(cls, x0, gs, **kw):
    p = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    opt = cls([p], **kw)
    for g in gs:
        p.grad = torch.tensor(g)
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [
    dict(lr=0.1),
    dict(lr=0.1, weight_decay=0.01, maximize=True),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1),
    dict(lr=0.05, momentum=0.9, nesterov=True),
])
def test_sgd_vs_torch(dev, dtype, kw):
    need_fp64(dev, dtype)
    x0, gs = grads((3, 5), 1, 1)[0], grads((3, 5), 4)
    got = run(lambda p: L.SGD(p, **kw), x0, gs, dev, dtype)
    numpy.testing.assert_allclose(got, torch_run(torch.optim.SGD, x0, gs, **kw), rtol=RTOL[dtype], atol=RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [
    dict(),
    dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True, maximize=True),
])
def test_adam_vs_torch(dev, dtype, kw):
    need_fp64(dev, dtype)
    x0, gs = grads((7,), 1, 2)[0], grads((7,), 5, 3)
    got = run(lambda p: L.Adam(p, **kw), x0, gs, dev, dtype)
    numpy.testing.assert_allclose(got, torch_run(torch.optim.Adam, x0, gs, **kw), rtol=RTOL[dtype], atol=RTOL[dtype])


def flux_reference(kind, x0, gs, **kw):
    """Optimisers.jl's rules (docs/learn.md), in numpy."""
    x, v, m, t = x0.copy(), numpy.zeros_like(x0), numpy.zeros_like(x0), 0
    for g in gs:
        t += 1
        if kind == "Descent":
            x -= kw.get("eta", 0.1) * g
        elif kind == "Momentum":
            v = kw.get("rho", 0.9) * v + kw.get("eta", 0.01) * g
            x -= v
        else:
            b1, b2 = kw.get("beta", (0.9, 0.999))
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            x -= m / (1 - b1 ** t) / (numpy.sqrt(v / (1 - b2 ** t)) + kw.get("epsilon", 1e-8)) * kw.get("eta", 1e-3)
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind,kw", [("Descent", {}), ("Descent", dict(eta=0.3)), ("Momentum", {}),
                                     ("Momentum", dict(eta=0.1, rho=0.5)), ("Adam", {}),
                                     ("Adam", dict(eta=0.01, beta=(0.7, 0.9), epsilon=1e-4))])
def test_flux_optimisers(dev, dtype, kind, kw):
    need_fp64(dev, dtype)
    x0, gs = grads((4, 4), 1, 4)[0], grads((4, 4), 4, 5)
    got = run(lambda p: getattr(L.flux, kind)(p, **kw), x0, gs, dev, dtype)
    numpy.testing.assert_allclose(got, flux_reference(kind, x0, gs, **kw), rtol=RTOL[dtype], atol=RTOL[dtype])


def autograd(f, *xs):
    ts = [torch.tensor(x, requires_grad=i == 0) for i, x in enumerate(xs)]
    out = f(*ts)
    out.backward()
    return out.item(), ts[0].grad.numpy()


def check(got, want, dtype):
    (loss, grad), (wl, wg) = got, want
    assert loss == pytest.approx(wl, rel=10 * RTOL[dtype], abs=RTOL[dtype])
    numpy.testing.assert_allclose(numpy.asarray(grad), wg, rtol=10 * RTOL[dtype], atol=RTOL[dtype] * numpy.abs(wg).max())


@pytest.mark.parametrize("dtype", DTYPES)
def test_losses(dev, dtype):
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(6)
    yhat, y = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    check(L.mse(anygpu.asarray(yhat.astype(dtype), device=dev), y), autograd(lambda a, b: ((a - b) ** 2).mean(), yhat, y),
          dtype)
    onehot = numpy.eye(6)[rng.integers(0, 6, 4)]
    check(L.logitcrossentropy(anygpu.asarray(yhat.astype(dtype), device=dev), onehot),
          autograd(lambda a, b: -(b * torch.log_softmax(a, 1)).sum(1).mean(), yhat, onehot), dtype)
    cube = rng.uniform(0.1, 2, (2, 5, 6))
    prior = rng.uniform(0.1, 2, cube.shape)
    a = anygpu.asarray(cube.astype(dtype), device=dev)
    check(L.sparsity(a), autograd(lambda c: c.abs().sum(), cube), dtype)
    check(L.entropy(a, prior, 3.0), autograd(lambda c, p: (c * torch.log(c / p)).sum() / 3.0, cube, prior), dtype)

    def tv(c):
        dx, dy = c[:, :-1, 1:] - c[:, :-1, :-1], c[:, 1:, :-1] - c[:, :-1, :-1]
        return torch.sqrt(dx ** 2 + dy ** 2 + 1e-10).sum()

    def tsv(c):
        dx, dy = c[:, :-1, 1:] - c[:, :-1, :-1], c[:, 1:, :-1] - c[:, :-1, :-1]
        return (dx ** 2 + dy ** 2).sum()

    check(L.tv_image(a), autograd(tv, cube), dtype)
    check(L.tsv(a), autograd(tsv, cube), dtype)
    assert isinstance(L.tsv(a)[1], anygpu.Array)
    with dev:  # numpy in, numpy out, on the default device
        assert isinstance(L.tsv(cube.astype(dtype))[1], numpy.ndarray)
    assert L.tsv(a, scale=2.0, grad=False) == pytest.approx(2 * autograd(tsv, cube)[0], rel=10 * RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_nll_gridded(dev, dtype):
    need_fp64(dev, dtype)
    ctype = "complex64" if dtype == "float32" else "complex128"
    rng = numpy.random.default_rng(7)
    shape = (1, 4, 4)
    vis = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    data = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    weight = rng.uniform(0.5, 2, shape)
    mask = rng.uniform(size=shape) < 0.6
    n = mask.sum()
    want = (weight * numpy.abs(data - vis) ** 2)[mask].sum() / (2 * n)
    wgrad = numpy.where(mask, weight * (vis - data) / n, 0)
    loss, g = L.nll_gridded(anygpu.asarray(vis.astype(ctype), device=dev), data, weight, mask)
    assert loss == pytest.approx(want, rel=10 * RTOL[dtype])
    numpy.testing.assert_allclose(g.to_host(), wgrad, rtol=10 * RTOL[dtype], atol=10 * RTOL[dtype])


def test_errors(dev):
    p = anygpu.asarray(numpy.zeros(3, numpy.float32), device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.learn.SGD: param"):
        L.SGD(numpy.zeros(3), lr=0.1)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.learn.SGD: lr"):
        L.SGD(p, lr=float("nan"))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.learn.Adam: betas"):
        L.Adam(p, betas=0.9)
    with pytest.raises(anygpu.InvalidArgumentError, match="nesterov"):
        L.SGD(p, lr=0.1, nesterov=True)
    opt = L.Adam(p)
    with pytest.raises(anygpu.MismatchError):
        opt.step(p, numpy.zeros(4, numpy.float32))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.learn.Adam.step: param"):
        opt.step(numpy.zeros(3), numpy.zeros(3))
    with pytest.raises(anygpu.MismatchError):
        L.mse(p, numpy.zeros(4, numpy.float32))
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.learn.tsv: cube has shape"):
        L.tsv(p)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.learn.entropy: tot_flux"):
        L.entropy(p, p, 0)


def test_complex_values_for_real_arguments_are_refused(dev):
    """A complex array where the computation is real (a real parameter's gradient, a real
    loss's target, MPoL's weights) is refused naming the argument, never cast to its real part."""
    p = anygpu.asarray(numpy.zeros(3, numpy.float32), device=dev)
    opt = L.Adam(p)
    for grad in (numpy.ones(3) * 1j, anygpu.asarray(numpy.ones(3, numpy.complex64), device=dev)):
        with pytest.raises(anygpu.UnsupportedError, match="anygpu.learn.Adam.step: grad is complex"):
            opt.step(p, grad)
    numpy.testing.assert_array_equal(p.to_host(), numpy.zeros(3, numpy.float32))  # not stepped
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.learn.mse: y is complex128"):
        L.mse(p, numpy.ones(3) + 1j)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.learn.entropy: prior is complex"):
        L.entropy(p + 1, anygpu.asarray(numpy.ones(3, numpy.complex64), device=dev))
    vis = anygpu.asarray(numpy.ones((1, 2, 2), numpy.complex64), device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.learn.nll_gridded: weight is complex128"):
        L.nll_gridded(vis, vis, numpy.ones((1, 2, 2)) * 1j, numpy.ones((1, 2, 2)))
