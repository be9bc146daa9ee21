"""anygpu.sporco against sporco 0.2.2: its unit tests' pinned values on the problems of
tests/data (sporco itself is not installed here; tests/data/README.md gives the pinned numbers
and the reference runs), a numpy transcription of BPDN's ADMM iterations for a few steps on
every device, and the other solvers' f32 runs against the host's f64 run of the same
iterations."""

import os

import numpy
import pytest

import anygpu
from anygpu.sporco import BPDN, ConvBPDN, PGMConvBPDN, RobustPCA, TVL1Denoise, TVL2Denoise, cp2np, np2cp
from conftest import need_fp64

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


def load(name):
    return numpy.load(os.path.join(DATA, name + ".npy"))


def soft(x, t):
    return numpy.sign(x) * numpy.maximum(numpy.abs(x) - t, 0)


def numpy_bpdn(D, S, lmbda, rho, alpha, iters):
    """sporco's BPDN ADMM (AutoRho off), transcribed: X, relaxed AX, Y, U and the objective on Y."""
    M = D.shape[1]
    Y = numpy.zeros((M, S.shape[1]))
    U = numpy.zeros_like(Y)
    DTS = D.T @ S
    A = D.T @ D + rho * numpy.eye(M)
    objs = []
    for _ in range(iters):
        X = numpy.linalg.solve(A, DTS + rho * (Y - U))
        AX = alpha * X + (1 - alpha) * Y
        Y = soft(AX + U, lmbda / rho)
        U = U + AX - Y
        objs.append(0.5 * numpy.sum((D @ Y - S) ** 2) + lmbda * numpy.abs(Y).sum())
    return Y, objs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bpdn_numpy_iterations(dev, dtype):
    need_fp64(dev, dtype)
    rng = numpy.random.default_rng(1)
    D, S = rng.standard_normal((12, 20)), rng.standard_normal((12, 3))
    opt = {"MaxMainIter": 8, "RelStopTol": 0, "rho": 2.0, "RelaxParam": 1.5, "AutoRho": {"Enabled": False}}
    b = BPDN(np2cp(D.astype(dtype), dev), S.astype(dtype), 0.3, opt)
    Y = b.solve()
    assert isinstance(Y, anygpu.Array) and Y.device == dev and Y.dtype == numpy.dtype(dtype)
    want, objs = numpy_bpdn(D, S, 0.3, 2.0, 1.5, 8)
    rtol = 1e-4 if dtype == "float32" else 1e-10
    numpy.testing.assert_allclose(cp2np(Y), want, rtol=0, atol=rtol * numpy.abs(want).max())
    it = b.getitstat()
    assert it.Iter == list(range(8)) and it.Rho == [2.0] * 8
    numpy.testing.assert_allclose(it.ObjFun, objs, rtol=rtol)
    numpy.testing.assert_allclose(cp2np(b.Y), want, rtol=0, atol=rtol * numpy.abs(want).max())


def test_bpdn_sporco_pinned(dev):
    """sporco's test_bpdn.py::TestSet01::test_08: 72 iterations, pinned ObjFun, DFid, RegL1."""
    need_fp64(dev, "float64")
    D, s0, x0 = load("sporco_bpdn_08_D"), load("sporco_bpdn_08_s0"), load("sporco_bpdn_08_x0")
    b = BPDN(D, s0, 5e-3, {"MaxMainIter": 500, "RelStopTol": 5e-4}, device=dev)
    Y = cp2np(b.solve())
    it = b.getitstat()
    assert abs(it.ObjFun[-1] - 0.012009) < 1e-5 and abs(it.DFid[-1] - 1.9636082e-06) < 1e-5
    assert abs(it.RegL1[-1] - 2.401446) < 1e-5 and numpy.linalg.norm(Y - x0) < 1e-3
    assert len(it.Iter) == 72 and b.converged


def test_callback_and_initial_values(dev):
    """sporco's Callback (a True return stops the run) and Y0 / U0 (here the previous run's Y
    and U, which continue it: 3 + 3 iterations are 6)."""
    rng = numpy.random.default_rng(2)
    D, S = rng.standard_normal((10, 14)).astype(numpy.float32), rng.standard_normal((10, 2)).astype(numpy.float32)
    opt = {"MaxMainIter": 6, "RelStopTol": 0, "AutoRho": {"Enabled": False}}
    seen = []
    b = BPDN(D, S, 0.2, dict(opt, Callback=lambda s: seen.append(s.getitstat().Iter[-1]) or len(seen) == 3), device=dev)
    b.solve()
    assert seen == [0, 1, 2] and len(b.getitstat().Iter) == 3
    c = BPDN(D, S, 0.2, dict(opt, MaxMainIter=3, Y0=b.Y, U0=b.U), device=dev)
    full = BPDN(D, S, 0.2, opt, device=dev)
    numpy.testing.assert_allclose(cp2np(c.solve()), cp2np(full.solve()), rtol=0, atol=1e-5)


def tv_image(shape):
    U = numpy.ones(shape)
    U[:, : shape[1] // 2] = -1
    return U


@pytest.mark.parametrize("cls,V,lmbda,opt,obj,tol", [
    (TVL1Denoise, "sporco_tvl1_2d_V", 3.0, {"gEvalY": False, "MaxMainIter": 250}, 447.78101756451662, 1e-6),
    (TVL2Denoise, "sporco_tvl2_2d_V", 0.1, {"gEvalY": False, "MaxMainIter": 300, "rho": 7.5}, 32.875710674129564,
     1e-3),
])
def test_tv_sporco_pinned(dev, cls, V, lmbda, opt, obj, tol):
    """sporco's test_tvl1.py / test_tvl2.py TestSet02::test_01 (64 x 64), f64; f32 on the others
    against the host's f64 X."""
    V = load(V)
    U = tv_image(V.shape)
    if dev.fp64:
        b = cls(U + V, lmbda, opt, device=dev)
        X = cp2np(b.solve())
        assert abs(b.getitstat().ObjFun[-1] - obj) < tol
        assert numpy.mean((U - X) ** 2) < tol
        assert "RegTV" in b.getitstat()._fields
    short = dict(opt, MaxMainIter=10)
    want = cp2np(cls(U + V, lmbda, short, device="host").solve())
    got = cp2np(cls((U + V).astype(numpy.float32), lmbda, short, device=dev).solve())
    numpy.testing.assert_allclose(got, want, rtol=0, atol=1e-4)


def test_rpca_sporco_pinned(dev):
    """sporco's test_rpca.py::TestSet01::test_01: 17 iterations, ObjFun 321.493968419."""
    u, V = load("sporco_rpca_01_u"), load("sporco_rpca_01_V")
    U = u @ u.T
    opt = {"gEvalY": False, "MaxMainIter": 250, "AutoRho": {"Enabled": True}}
    if dev.fp64:
        b = RobustPCA(U + V, None, opt, device=dev)
        X, Y = (cp2np(v) for v in b.solve())  # sporco's solve() returns (X, Y)
        it = b.getitstat()
        assert abs(it.ObjFun[-1] - 321.493968419) < 1e-6 and len(it.Iter) == 17
        assert numpy.mean((U - X) ** 2) < 5e-6 and numpy.mean((V - Y) ** 2) < 1e-8
        assert it._fields[:5] == ("Iter", "ObjFun", "NrmNuc", "NrmL1", "Cnstr")
    b = RobustPCA((U + V).astype(numpy.float32), None, dict(opt, MaxMainIter=5), device=dev)
    want = [v.to_host() for v in RobustPCA(U + V, None, dict(opt, MaxMainIter=5), device="host").solve()]
    for got, w in zip(b.solve(), want):
        numpy.testing.assert_allclose(cp2np(got), w, rtol=0, atol=1e-4 * numpy.abs(w).max())


def cbpdn_problem():
    D = load("sporco_cbpdn_08_D").transpose(2, 0, 1).copy()  # sporco (5, 5, 4) -> [M][Nd0][Nd1]
    S = load("sporco_cbpdn_08_S")
    return D, S


@pytest.mark.parametrize("cls,opt", [
    (ConvBPDN, {"MaxMainIter": 10, "RelStopTol": 0, "LinSolveCheck": True}),
    (PGMConvBPDN, {"MaxMainIter": 10, "RelStopTol": 0, "L": 1e3, "Momentum": ("linear", 3.0)}),
])
def test_cbpdn_against_host_f64(dev, cls, opt):
    """ConvBPDN (ADMM) and PGMConvBPDN, 10 iterations of sporco's test_08 problem, each device
    in f32 (and f64) against the host's f64 run."""
    D, S = cbpdn_problem()
    ref = cls(D, S, 0.1, opt, device="host")
    want = cp2np(ref.solve())
    assert want.shape == (1, 4, 16, 17)
    for dtype in ("float32", "float64"):
        if dtype == "float64" and not dev.fp64:
            continue
        b = cls(D.astype(dtype), S.astype(dtype), 0.1, opt, device=dev)
        got = cp2np(b.solve())
        tol = 1e-4 if dtype == "float32" else 1e-10
        numpy.testing.assert_allclose(got, want, rtol=0, atol=tol * numpy.abs(want).max())
        numpy.testing.assert_allclose(b.getitstat().ObjFun, ref.getitstat().ObjFun, rtol=tol)
    if cls is ConvBPDN:
        assert max(ref.getitstat().XSlvRelRes) < 1e-10
    else:
        assert ref.getitstat()._fields[-5:] == ("Rsdl", "F_Btrack", "Q_Btrack", "IterBTrack", "L")


def rrs(a, b):
    return numpy.linalg.norm(a - b) / max(numpy.linalg.norm(a), numpy.linalg.norm(b))


def test_cbpdn_sporco_layout_pinned():
    """sporco's test_cbpdn.py::TestSet01::test_10 in sporco's layout, on the host (f64, 64 x 64,
    219 iterations): rrs(X0, Y) < 5e-5 and rrs(S, D * Y) < 1e-4."""
    D, S, X0 = load("sporco_cbpdn_10_D"), load("sporco_cbpdn_10_S"), load("sporco_cbpdn_10_X0")
    opt = {"MaxMainIter": 500, "RelStopTol": 1e-3, "rho": 1e-1, "AutoRho": {"Enabled": False}}
    b = ConvBPDN(D, S, 1e-4, opt, device="host", layout="sporco")
    b.solve()
    Y = b.Y
    assert isinstance(Y, numpy.ndarray) and Y.shape == (64, 64, 1, 1, 4)
    Y = Y.squeeze()
    assert rrs(X0, Y) < 5e-5
    Df = numpy.fft.rfft2(D, s=(64, 64), axes=(0, 1))
    Sr = numpy.fft.irfft2((Df * numpy.fft.rfft2(Y, axes=(0, 1))).sum(2), s=(64, 64), axes=(0, 1))
    assert rrs(S, Sr) < 1e-4


@pytest.mark.parametrize("cls,Dname,Sname,dimK,xshape", [
    (ConvBPDN, "sporco_cbpdn_12_D", "sporco_cbpdn_12_S", 0, (16, 16, 3, 1, 4)),   # single-channel D, 3 channels
    (ConvBPDN, "sporco_cbpdn_12_D", "sporco_cbpdn_12_S", None, (16, 16, 1, 3, 4)),  # the same as 3 signals
    (ConvBPDN, "sporco_cbpdn_13_D", "sporco_cbpdn_13_S", None, (16, 16, 1, 1, 4)),  # multi-channel D
    (PGMConvBPDN, "sporco_cbpdn_12_D", "sporco_cbpdn_12_S", 0, (16, 16, 3, 1, 4)),
])
def test_sporco_layout_is_a_transpose(dev, cls, Dname, Sname, dimK, xshape):
    """layout="sporco" solves the same problem as anygpu's layout, its X transposed."""
    D, S = load(Dname).astype(numpy.float32), load(Sname).astype(numpy.float32)
    opt = {"MaxMainIter": 4, "RelStopTol": 0} if cls is ConvBPDN else {"MaxMainIter": 4, "RelStopTol": 0, "L": 1e3}
    ours = cls(D, S, 0.1, opt, dimK=dimK, device=dev, layout="sporco")
    X = ours.solve()
    assert X.shape == xshape
    d = D.transpose(3, 2, 0, 1) if D.ndim == 4 else D.transpose(2, 0, 1)
    ref = cp2np(cls(d.copy(), S.transpose(2, 0, 1).copy(), 0.1, opt, device=dev).solve())
    numpy.testing.assert_array_equal(X.transpose(3, 2, 4, 0, 1).reshape(ref.shape), ref)
    again = cls(D, S, 0.1, dict(opt, **{"X0" if cls is PGMConvBPDN else "Y0": X}), dimK=dimK, device=dev,
                layout="sporco")
    assert again.X.shape == xshape


def test_errors(dev):
    D, S = numpy.ones((4, 6), numpy.float32), numpy.ones((4, 1), numpy.float32)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.BPDN: opt has no option 'MaxIter'"):
        BPDN(D, S, 0.1, {"MaxIter": 3}, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match=r"anygpu.sporco.BPDN: opt\['AutoRho.Bogus'\]|AutoRho.Bogus"):
        BPDN(D, S, 0.1, {"AutoRho": {"Bogus": 1}}, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.BPDN: opt.'MaxMainIter'. cannot be -1"):
        BPDN(D, S, 0.1, {"MaxMainIter": -1}, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.BPDN: D has shape"):
        BPDN(numpy.ones(4), S, 0.1, device=dev)
    with pytest.raises(anygpu.MismatchError):
        BPDN(D, numpy.ones((5, 1), numpy.float32), 0.1, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.TVL2Denoise: lmbda"):
        TVL2Denoise(S, None, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.PGMConvBPDN: opt.'Momentum'."):
        PGMConvBPDN(numpy.ones((2, 3, 3), numpy.float32), numpy.ones((8, 8), numpy.float32), 0.1,
                    {"Momentum": "heavy"}, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match=r"anygpu.sporco.BPDN: opt\['AutoRho'\] must be a dict"):
        BPDN(D, S, 0.1, {"AutoRho": True}, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.BPDN: opt has no option 'X0'"):
        BPDN(D, S, 0.1, {"X0": S}, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.ConvBPDN: dimK is for layout='sporco'"):
        ConvBPDN(numpy.ones((2, 3, 3)), numpy.ones((8, 8)), 0.1, dimK=0, device=dev)
    with pytest.raises(anygpu.InvalidArgumentError, match="anygpu.sporco.ConvBPDN: dimK 1 does not fit"):
        ConvBPDN(numpy.ones((3, 3, 2), numpy.float32), numpy.ones((8, 8), numpy.float32), 0.1, dimK=1, device=dev,
                 layout="sporco")
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.sporco.BPDN"):
        BPDN(D, S, 0.1, {"DataType": numpy.int32}, device=dev)


COMPLEX_CASES = [  # (solver, arguments with one complex array, the argument's name)
    (BPDN, lambda c: (c((4, 6)), numpy.ones((4, 1)), 0.1), "D"),
    (BPDN, lambda c: (numpy.ones((4, 6)), c((4, 1)), 0.1), "S"),
    (ConvBPDN, lambda c: (c((2, 3, 3)), numpy.ones((8, 8)), 0.1), "D"),
    (ConvBPDN, lambda c: (numpy.ones((2, 3, 3)), c((8, 8)), 0.1), "S"),
    (PGMConvBPDN, lambda c: (c((2, 3, 3)), numpy.ones((8, 8)), 0.1), "D"),
    (PGMConvBPDN, lambda c: (numpy.ones((2, 3, 3)), c((8, 8)), 0.1), "S"),
    (TVL1Denoise, lambda c: (c((8, 8)), 0.1), "S"),
    (TVL2Denoise, lambda c: (c((8, 8)), 0.1), "S"),
    (RobustPCA, lambda c: (c((8, 6)),), "S"),
]


@pytest.mark.parametrize("cls,args,arg", COMPLEX_CASES, ids=["%s-%s" % (c[0].__name__, c[2]) for c in COMPLEX_CASES])
@pytest.mark.parametrize("kind", ["numpy", "Array"])
def test_complex_input_is_refused(dev, cls, args, arg, kind):
    """sporco 0.2.2's solvers are for real problems: a complex array (numpy's or an anygpu
    Array) is refused naming its argument, rather than solved for its real part alone."""
    def c(shape):
        z = numpy.ones(shape) + 0.5j
        return z if kind == "numpy" else anygpu.asarray(z.astype("complex64"), device=dev)
    with pytest.raises(anygpu.UnsupportedError, match=r"anygpu.sporco.%s: %s is complex(64|128); this computation "
                       r"is real" % (cls.__name__, arg)):
        cls(*args(c), device=dev)


def test_complex_initial_values_are_refused(dev):
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.sporco.BPDN: Y0 is complex128"):
        BPDN(numpy.ones((4, 6)), numpy.ones((4, 1)), 0.1, {"Y0": numpy.ones((6, 1)) * 1j}, device=dev)
    with pytest.raises(anygpu.UnsupportedError, match="anygpu.sporco.PGMConvBPDN: X0 is complex128"):
        PGMConvBPDN(numpy.ones((2, 3, 3)), numpy.ones((8, 8)), 0.1, {"X0": numpy.ones((1, 2, 8, 8)) * 1j},
                    device=dev)


def test_solve_returns_what_sporcos_returns(dev):
    """solve() returns what sporco 0.2.2's solve() does: BPDN's and ConvBPDN's Y (X with
    ReturnX, an ADMMEqual option), the TV solvers' and PGMConvBPDN's X, RobustPCA's pair
    (X, Y), whose sum is S at convergence (the constraint X + Y = S)."""
    rng = numpy.random.default_rng(3)
    D, S = rng.standard_normal((10, 14)).astype("float32"), rng.standard_normal((10, 2)).astype("float32")
    opt = {"MaxMainIter": 5, "RelStopTol": 0}
    b = BPDN(D, S, 0.2, opt, device=dev)
    numpy.testing.assert_array_equal(cp2np(b.solve()), cp2np(b.Y))
    b = BPDN(D, S, 0.2, dict(opt, ReturnX=True), device=dev)
    numpy.testing.assert_array_equal(cp2np(b.solve()), cp2np(b.X))
    d, s = cbpdn_problem()
    for cls, var in ((ConvBPDN, "Y"), (PGMConvBPDN, "X")):
        c = cls(d.astype("float32"), s.astype("float32"), 0.1, dict(opt, L=1e3) if cls is PGMConvBPDN else opt,
                device=dev)
        numpy.testing.assert_array_equal(cp2np(c.solve()), cp2np(getattr(c, var)))
    for cls in (TVL1Denoise, TVL2Denoise):
        t = cls(S, 0.1, opt, device=dev)
        numpy.testing.assert_array_equal(cp2np(t.solve()), cp2np(t.X))
        with pytest.raises(anygpu.InvalidArgumentError, match="opt has no option 'ReturnX'"):
            cls(S, 0.1, dict(opt, ReturnX=True), device=dev)
    u, V = load("sporco_rpca_01_u"), load("sporco_rpca_01_V")
    U = u @ u.T
    r = RobustPCA((U + V).astype("float32"), None, {"gEvalY": False, "MaxMainIter": 250,
                                                    "AutoRho": {"Enabled": True}}, device=dev)
    result = r.solve()
    assert isinstance(result, tuple) and len(result) == 2
    X, Y = result
    assert isinstance(X, anygpu.Array) and isinstance(Y, anygpu.Array) and X.shape == Y.shape == U.shape
    numpy.testing.assert_array_equal(cp2np(X), cp2np(r.X))
    numpy.testing.assert_array_equal(cp2np(Y), cp2np(r.Y))
    # sporco's test_rpca.py test_01 bounds (float32 here): the low-rank part near U, the sparse near V
    assert numpy.mean((U - cp2np(X)) ** 2) < 5e-6 and numpy.mean((V - cp2np(Y)) ** 2) < 1e-6
    numpy.testing.assert_allclose(cp2np(X) + cp2np(Y), U + V, rtol=0, atol=1e-3 * numpy.abs(U + V).max())
    with pytest.raises(anygpu.InvalidArgumentError, match="opt has no option 'ReturnX'"):
        RobustPCA(U + V, None, {"ReturnX": False}, device=dev)
