#!/usr/bin/env python3
"""Reference transcription (numpy + scipy.linalg only) of the ADMM and PGM
sparse-coding / denoising solvers of SPORCO 0.2.2, with SPORCO's semantics and
default options, for checking anygpu's C implementations iterate by iterate.

Solvers (SPORCO class they follow):
  bpdn       sporco.admm.bpdn.BPDN           min_x 1/2||D x - s||^2 + lmbda ||x||_1
  cbpdn      sporco.admm.cbpdn.ConvBPDN      convolutional BPDN, DFT-domain x step
  tvl1       sporco.admm.tvl1.TVL1Denoise    min_x ||x - s||_1 + lmbda TV(x)
  tvl2       sporco.admm.tvl2.TVL2Denoise    min_x 1/2||x - s||^2 + lmbda TV(x)
  rpca       sporco.admm.rpca.RobustPCA      min ||X||_* + lmbda ||Y||_1  s.t. X + Y = S
  pgm_cbpdn  sporco.pgm.cbpdn.ConvBPDN       convolutional BPDN by FISTA (PGM)
Everything is float64 (SPORCO's 'DataType' option is not transcribed).

Command line
------------
  python3 tests/sporco_ref.py selftest
      Runs the SPORCO unit tests that pin numbers (see SELFTESTS below) and
      prints name, pinned value, reached value, tolerance, PASS/FAIL.
  python3 tests/sporco_ref.py run SOLVER INPUT_DIR OUT_DIR [key=value ...]
  python3 tests/sporco_ref.py bench ROW [OUT_DIR]
      ROW: bpdn | cbpdn | tvl1 | tvl2 | rpca. Builds a fixed-seed problem, runs
      exactly 100 iterations (MaxMainIter=100, RelStopTol=0, FastSolve False),
      prints "time MS" (solve() only, not construction) and "obj VALUE" of the
      last iteration. With OUT_DIR, also writes the problem inputs (the INPUT_DIR
      layout below plus params.txt holding lmbda) and the run outputs there.

`run` inputs (INPUT_DIR, float64 .npy, C order)
  bpdn       D.npy (N, M) dictionary; S.npy (N, K) signals (a 1-D S is taken as (N, 1)).
  cbpdn      D.npy (Nd0, Nd1, M) single-channel or (Nd0, Nd1, C, M) multi-channel filters;
  pgm_cbpdn  S.npy (N0, N1) | (N0, N1, C) | (N0, N1, K) | (N0, N1, C, K), interpreted as
             sporco.cnvrep.CSC_ConvRepIndexing does (key dimK=0|1 forces the third axis
             to be channels (0) or signals (1); default: channels iff D is multi-channel).
  tvl1, tvl2 S.npy, any shape; TV over key axes= (default 0,1).
  rpca       S.npy (N0, N1).
`run` keys: lmbda=FLOAT (default: SPORCO's data-dependent default), axes=0,1[,2] and
  caxis=INT (tvl1/tvl2), dimK=0|1 and dimN=INT (cbpdn/pgm_cbpdn); every other key is an
  option, nested ones with dots: rho=, RelaxParam=, MaxMainIter=, RelStopTol=,
  AbsStopTol=, FastSolve=, AutoRho.Enabled=, AutoRho.Period=, AutoRho.Scaling=,
  AutoRho.RsdlRatio=, AutoRho.RsdlTarget=, AutoRho.AutoScaling=, AutoRho.StdResiduals=,
  AuxVarObj=, fEvalX=, gEvalY=, ReturnX=, HighMemSolve=, NonNegCoef=, NoBndryCross=,
  L1Weight= (scalar), LinSolveCheck=, GSTol=, MaxGSIter=, DFidWeight=, TVWeight=,
  L= (pgm), Backtrack=standard|robust|none (pgm), Backtrack.gamma_u=,
  Backtrack.gamma_d= (robust), Backtrack.maxiter=,
  Momentum=nesterov|linear|genlinear (pgm), Momentum.a=, Momentum.b=,
  StepSizePolicy=none|cauchy|bb (pgm), Monotone=, AutoStop.Enabled=, AutoStop.Tau0=.
  Values: true/false, none, integers, floats, comma lists.
  Initial values: Y0.npy / U0.npy (ADMM) or X0.npy (pgm) found in INPUT_DIR are used
  as the options Y0 / U0 / X0.

`run` outputs (OUT_DIR, float64 .npy)
  history.npy  (iterations, 9), one row per iteration, in order:
     ADMM solvers: Iter, ObjFun, DFid, Reg, PrimalRsdl, DualRsdl, EpsPrimal, EpsDual, Rho
       (bpdn/cbpdn: Reg = RegL1; tvl1/tvl2: Reg = RegTV; rpca: DFid = NrmNuc and
       Reg = NrmL1, its fourth objective field Cnstr is in extra.npy).
       Rho is the value during the iteration (before that iteration's AutoRho update).
       With FastSolve=true no statistics exist and history.npy has 0 rows.
     pgm_cbpdn:  Iter, ObjFun, DFid, RegL1, Rsdl, F_Btrack, Q_Btrack, IterBTrack, L
       (NaN where SPORCO records None, e.g. F/Q/IterBTrack without backtracking).
  extra.npy    (iterations, E) the solver's extra statistics, NaN for None:
       bpdn, cbpdn: XSlvRelRes; tvl1, tvl2: GSIter, GSRelRes; rpca: Cnstr; pgm: none (E=0).
  X.npy, Y.npy, U.npy  the final working variables X, Y, U (pgm: X, and Y =
       irfftn(Yf), the extrapolated point, no U). cbpdn/pgm_cbpdn arrays use SPORCO's
       internal layout (N0, N1, C', K, M) with C' = C for a single-channel dictionary and
       1 for a multi-channel one; tvl1 Y/U are S.shape + (len(axes)+1,) (gradient
       components in axes order, then the data-fidelity component), tvl2 Y/U are
       S.shape + (len(axes),).
  min.npy      what SPORCO's solve() returns: getmin() (bpdn/cbpdn: Y since ReturnX is
       False; tvl1/tvl2: X; pgm: X); rpca: not written (X and Y both are the result).
  info.txt     iterations run, final k, final rho/L, lmbda.
"""

import copy
import os
import sys
import time

import numpy as np
import scipy.linalg as sla


# ---------------------------------------------------------------------------
# Small numerical helpers (sporco.prox, sporco.linalg, sporco.signal, sporco.fft)
# ---------------------------------------------------------------------------

def prox_l1(v, alpha):
    """Soft thresholding sign(v) max(|v| - alpha, 0) (real data)."""
    return np.sign(v) * np.clip(np.abs(v) - alpha, 0, float('inf'))


def zdivide(x, y):
    """x / y with 0 wherever y == 0."""
    return np.divide(x, y, out=np.zeros_like(x), where=(y != 0))


def prox_l2(v, alpha, axis=None):
    """Vector shrinkage: v max(0, ||v|| - alpha) / ||v||, norms over `axis`."""
    nrm = np.sqrt(np.sum(v ** 2, axis=axis, keepdims=True))
    scl = zdivide(np.maximum(0, nrm - alpha), nrm)
    return np.asarray(scl * v, dtype=v.dtype)


def prox_nuclear(v, alpha):
    """Singular value thresholding; returns (matrix, thresholded singular values)."""
    u, s, vt = np.linalg.svd(v, full_matrices=False)
    ss = np.maximum(0, s - alpha)
    return np.dot(u, np.dot(np.diag(ss), vt)), ss


def rrs(ax, b):
    """Relative residual ||ax - b|| / max(||ax||, ||b||) (0 when both vanish)."""
    den = max(np.linalg.norm(ax.ravel()), np.linalg.norm(b.ravel()))
    if den == 0.0:
        return 0.0
    return np.linalg.norm((ax - b).ravel()) / den


def mse(ref, cmp):
    return np.mean(np.abs(np.asarray(ref, np.float64).ravel() -
                          np.asarray(cmp, np.float64).ravel()) ** 2)


def inner(x, y, axis):
    """sum(x * y) over `axis`, keeping that axis with length 1."""
    return np.sum(x * y, axis=axis, keepdims=True)


def grad(x, axis):
    """Forward difference x[i+1] - x[i] along axis, 0 in the last position."""
    g = np.roll(x, -1, axis=axis) - x
    g[(slice(None),) * axis + (slice(-1, None),)] = 0.0
    return g


def gradT(x, axis):
    """Transpose of grad: (-x0, x0 - x1, ..., x[N-3] - x[N-2], x[N-2])."""
    pre = (slice(None),) * axis
    g = np.roll(x, 1, axis=axis) - x
    g[pre + (slice(0, 1),)] = -x[pre + (slice(0, 1),)]
    g[pre + (slice(-1, None),)] = x[pre + (slice(-2, -1),)]
    return g


def zpad(x, pad, axis):
    width = [(0, 0)] * x.ndim
    width[axis] = pad
    return np.pad(x, width, 'constant')


def rfftn(a, s=None, axes=None):
    return np.fft.rfftn(a, s=s, axes=axes)


def irfftn(a, s, axes=None):
    return np.fft.irfftn(a, s=s, axes=axes)


def rfl2norm2(xf, xs, axis):
    """||x||_2^2 from the half-spectrum rfftn(x) over `axis` (x has shape xs):
    (|bin 0|^2 + 2 |bins 1..ceil(n/2)-1|^2 + |Nyquist bin, even n|^2) / prod(n)."""
    scl = 1.0 / np.prod(np.array([xs[k] for k in axis]))
    pre = (slice(None),) * axis[-1]
    n = xs[axis[-1]]
    a0 = np.linalg.norm(xf[pre + (0,)])
    a1 = np.linalg.norm(xf[pre + (slice(1, (n + 1) // 2),)])
    a2 = np.linalg.norm(xf[pre + (slice(-1, None),)]) if n % 2 == 0 else 0.0
    return scl * (a0 ** 2 + 2.0 * a1 ** 2 + a2 ** 2)


def solvedbi_sm_c(ah, a, rho, axis):
    """Cached factor of solvedbi_sm: ah / (<ah, a> + rho)."""
    return ah / (inner(ah, a, axis) + rho)


def solvedbi_sm(ah, rho, b, c, axis):
    """Solve (rho I + a a^H) x = b per frequency (Sherman-Morrison), a = conj(ah)."""
    a = np.conj(ah)
    if c is None:
        c = solvedbi_sm_c(ah, a, rho, axis)
    return (b - a * inner(c, b, axis)) / rho


def solvemdbi_ism(ah, rho, b, axisM, axisK):
    """Solve (rho I + sum_k a_k a_k^H) x = b per frequency by iterated
    Sherman-Morrison over the K rank-one terms (a_k = conj(ah) slice k on axisK,
    vectors along axisM), as sporco.linalg.solvemdbi_ism."""
    if axisM < 0:
        axisM += ah.ndim
    if axisK < 0:
        axisK += ah.ndim
    nk = ah.shape[axisK]
    a = np.conj(ah)
    pre = (slice(None),) * axisK
    gam = []   # gamma_k: (rho I + sum_{l<k} a_l a_l^H)^{-1} a_k
    dlt = []   # 1 + a_k^H gamma_k
    alpha = np.take(a, [0], axisK) / rho
    beta = b / rho
    for k in range(nk):
        sk = pre + (slice(k, k + 1),)
        g = alpha.copy()
        d = 1.0 + inner(ah[sk], g, axisM)
        gam.append(g)
        dlt.append(d)
        beta = beta - g * inner(ah[sk], beta, axisM) / d
        if k < nk - 1:
            alpha = np.take(a, [k + 1], axisK) / rho
            for l in range(k + 1):
                sl = pre + (slice(l, l + 1),)
                alpha = alpha - gam[l] * inner(ah[sl], alpha, axisM) / dlt[l]
    return beta


# ---------------------------------------------------------------------------
# Options: nested dicts with SPORCO's defaults per solver
# ---------------------------------------------------------------------------

ADMM_DEFAULTS = {
    'FastSolve': False, 'Verbose': False, 'MaxMainIter': 1000,
    'AbsStopTol': 0.0, 'RelStopTol': 1e-3, 'RelaxParam': 1.0, 'rho': None,
    'AutoRho': {'Enabled': False, 'Period': 10, 'Scaling': 2.0,
                'RsdlRatio': 10.0, 'RsdlTarget': None, 'AutoScaling': False,
                'StdResiduals': False},
    'Y0': None, 'U0': None, 'Callback': None,
}


def _derive(base, upd, auto=None):
    out = copy.deepcopy(base)
    for k, v in upd.items():
        out[k] = v
    if auto is not None:
        out['AutoRho'].update(auto)
    return out


ADMMEQUAL_DEFAULTS = _derive(ADMM_DEFAULTS,
                             {'fEvalX': True, 'gEvalY': True, 'ReturnX': True})

_SPARSE_AUTO = {'Enabled': True, 'AutoScaling': True, 'Scaling': 1000.0,
                'RsdlRatio': 1.2}

BPDN_DEFAULTS = _derive(ADMMEQUAL_DEFAULTS, {
    'AuxVarObj': True, 'fEvalX': False, 'gEvalY': True, 'ReturnX': False,
    'LinSolveCheck': False, 'RelaxParam': 1.8, 'NonNegCoef': False,
    'L1Weight': 1.0}, dict(_SPARSE_AUTO, Period=10))

CBPDN_DEFAULTS = _derive(ADMMEQUAL_DEFAULTS, {
    'AuxVarObj': False, 'fEvalX': True, 'gEvalY': False, 'ReturnX': False,
    'HighMemSolve': False, 'LinSolveCheck': False, 'RelaxParam': 1.8,
    'NonNegCoef': False, 'NoBndryCross': False, 'L1Weight': 1.0},
    dict(_SPARSE_AUTO, Period=1))

TV_DEFAULTS = _derive(ADMM_DEFAULTS, {
    'gEvalY': True, 'RelaxParam': 1.8, 'DFidWeight': 1.0, 'TVWeight': 1.0,
    'GSTol': 0.0, 'MaxGSIter': 2},
    {'Enabled': False, 'Period': 1, 'AutoScaling': True, 'Scaling': 1000.0,
     'RsdlRatio': 1.2})

RPCA_DEFAULTS = _derive(ADMM_DEFAULTS, {
    'gEvalY': True, 'fEvalX': True, 'RelaxParam': 1.8},
    dict(_SPARSE_AUTO, Period=1))

PGM_CBPDN_DEFAULTS = {
    'FastSolve': False, 'Verbose': False, 'X0': None, 'Callback': None,
    'MaxMainIter': 1000, 'RelStopTol': 1e-3, 'L': 500.0,
    'AutoStop': {'Enabled': False, 'Tau0': 1e-2},
    'Monotone': False, 'Momentum': 'nesterov', 'StepSizePolicy': None,
    'Backtrack': None, 'NonNegCoef': False, 'NoBndryCross': False,
    'L1Weight': 1.0,
}


def make_options(defaults, opt=None, auxvar=False):
    """Defaults overridden by `opt` (nested dicts merge). With `auxvar`, setting
    AuxVarObj also sets fEvalX = not AuxVarObj and gEvalY = AuxVarObj, at the
    point where it is set (as the __setitem__ of SPORCO's BPDN/ConvBPDN options)."""
    out = copy.deepcopy(defaults)
    for k, v in (opt or {}).items():
        if k not in out:
            raise KeyError('unknown option %r' % k)
        if isinstance(out[k], dict) and isinstance(v, dict):
            for kk, vv in v.items():
                if kk not in out[k]:
                    raise KeyError('unknown option %s.%s' % (k, kk))
                out[k][kk] = vv
        else:
            out[k] = v
        if auxvar and k == 'AuxVarObj':
            out['fEvalX'] = not v
            out['gEvalY'] = bool(v)
    return out


def _rho_xi_sparse(lmbda):
    """Residual-ratio target of BPDN/ConvBPDN (Wohlberg 2015, Sec. VI.C)."""
    if lmbda != 0.0:
        return float(1.0 + 18.3 ** (np.log10(lmbda) + 1.0))
    return 1.0


# ---------------------------------------------------------------------------
# ADMM framework (sporco.admm.admm.ADMM)
# ---------------------------------------------------------------------------

STAT_FIELDS = ('Iter', 'ObjFun', 'DFid', 'Reg', 'PrimalRsdl', 'DualRsdl',
               'EpsPrimal', 'EpsDual', 'Rho')


class ADMM(object):
    """Problem min f(x) + g(y) s.t. A x + B y = c, scaled dual U.

    Subclasses set in __init__: opt, rho, rho_xi, Nx, Nc, and call _init_yu; and
    provide xstep, ystep, eval_objfn -> (obj, dfid, reg), cnst_A/AT/B, cnst_c."""

    extra_fields = ()

    def _init_yu(self, yshape, ushape):
        o = self.opt
        self.rho_tau = float(o['AutoRho']['Scaling'])
        self.rho_mu = float(o['AutoRho']['RsdlRatio'])
        self.rlx = float(o['RelaxParam'])
        if o['Y0'] is None:
            self.Y = np.zeros(yshape)
        else:
            self.Y = np.array(o['Y0'], dtype=np.float64, copy=True)
        self.Yprev = self.Y.copy()
        if o['U0'] is None:
            self.U = self.uinit(ushape)
        else:
            self.U = np.array(o['U0'], dtype=np.float64, copy=True)
        self.itstat = []
        self.k = 0

    def uinit(self, ushape):
        return np.zeros(ushape)

    # --- main loop -------------------------------------------------------
    def solve(self):
        o = self.opt
        auto = o['AutoRho']['Enabled']
        need_rsdl = auto or not o['FastSolve']
        k0 = self.k
        for k in range(k0, k0 + o['MaxMainIter']):
            self.k = k
            self.Yprev = self.Y.copy()
            self.xstep()
            self.relax_AX()
            self.ystep()
            self.ustep()
            if need_rsdl:
                r, s, epri, edua = self.compute_residuals()
            if not o['FastSolve']:
                self.itstat.append(self.iteration_stats(k, r, s, epri, edua))
            if need_rsdl:
                self.update_rho(k, r, s)
            if o['Callback'] is not None and o['Callback'](self):
                break
            if need_rsdl and r < epri and s < edua:
                break
        self.k += 1
        return self.getmin()

    def getmin(self):
        return self.X

    def relax_AX(self):
        # Over-relaxation (Boyd et al. Sec. 3.4.3); AXnr is kept for the
        # primal residual.
        self.AXnr = self.cnst_A(self.X)
        if self.rlx == 1.0:
            self.AX = self.AXnr
        else:
            if not hasattr(self, '_c'):
                self._c = self.cnst_c()
            a = self.rlx
            self.AX = a * self.AXnr - (1 - a) * (self.cnst_B(self.Y) - self._c)

    def ustep(self):
        self.U += self.rsdl_r(self.AX, self.Y)

    # --- residuals -------------------------------------------------------
    def rsdl_r(self, AX, Y):
        if not hasattr(self, '_c'):
            self._c = self.cnst_c()
        return AX + self.cnst_B(Y) - self._c

    def rsdl_s(self, Yprev, Y):
        return self.rho * self.cnst_AT(self.cnst_B(Y - Yprev))

    def rsdl_rn(self, AX, Y):
        if not hasattr(self, '_nrm_c'):
            self._nrm_c = np.linalg.norm(self.cnst_c())
        return max(np.linalg.norm(AX), np.linalg.norm(self.cnst_B(Y)),
                   self._nrm_c)

    def rsdl_sn(self, U):
        return self.rho * np.linalg.norm(self.cnst_AT(U))

    def compute_residuals(self):
        o = self.opt
        atol, rtol = o['AbsStopTol'], o['RelStopTol']
        if o['AutoRho']['StdResiduals']:
            r = np.linalg.norm(self.rsdl_r(self.AXnr, self.Y))
            s = np.linalg.norm(self.rsdl_s(self.Yprev, self.Y))
            epri = np.sqrt(self.Nc) * atol + \
                self.rsdl_rn(self.AXnr, self.Y) * rtol
            edua = np.sqrt(self.Nx) * atol + self.rsdl_sn(self.U) * rtol
        else:
            rn = self.rsdl_rn(self.AXnr, self.Y)
            if rn == 0.0:
                rn = 1.0
            sn = self.rsdl_sn(self.U)
            if sn == 0.0:
                sn = 1.0
            r = np.linalg.norm(self.rsdl_r(self.AXnr, self.Y)) / rn
            s = np.linalg.norm(self.rsdl_s(self.Yprev, self.Y)) / sn
            epri = np.sqrt(self.Nc) * atol / rn + rtol
            edua = np.sqrt(self.Nx) * atol / sn + rtol
        return r, s, epri, edua

    def iteration_stats(self, k, r, s, epri, edua):
        obj, dfd, reg = self.eval_objfn()[:3]
        st = dict(Iter=k, ObjFun=obj, DFid=dfd, Reg=reg, PrimalRsdl=r,
                  DualRsdl=s, EpsPrimal=epri, EpsDual=edua, Rho=self.rho)
        st.update(zip(self.extra_fields, self.itstat_extra()))
        return st

    def itstat_extra(self):
        return ()

    # --- adaptive penalty (Wohlberg 2015; Boyd et al. Sec. 3.4.1) --------
    def update_rho(self, k, r, s):
        ar = self.opt['AutoRho']
        if not ar['Enabled']:
            return
        if k != 0 and (k + 1) % ar['Period'] == 0:
            tau, mu, xi = self.rho_tau, self.rho_mu, self.rho_xi
            if ar['AutoScaling']:
                if s == 0.0 or r == 0.0:
                    mlt = tau
                else:
                    mlt = np.sqrt(r / (s * xi) if r > s * xi else (s * xi) / r)
                    if mlt > tau:
                        mlt = tau
            else:
                mlt = tau
            rsf = 1.0
            if r > xi * mu * s:
                rsf = mlt
            elif s > (mu / xi) * r:
                rsf = 1.0 / mlt
            self.rho = self.rho * float(rsf)
            self.U /= rsf
            if rsf != 1.0:
                self.rhochange()

    def rhochange(self):
        pass


class ADMMEqual(ADMM):
    """Constraint x = y (A = I, B = -I, c = 0)."""

    def getmin(self):
        return self.X if self.opt['ReturnX'] else self.Y

    def relax_AX(self):
        self.AXnr = self.X
        if self.rlx == 1.0:
            self.AX = self.X
        else:
            a = self.rlx
            self.AX = a * self.X + (1 - a) * self.Y

    def obfn_fvar(self):
        return self.X if self.opt['fEvalX'] else self.Y

    def obfn_gvar(self):
        return self.Y if self.opt['gEvalY'] else self.X

    def cnst_A(self, X):
        return X

    def cnst_AT(self, Y):
        return Y

    def cnst_B(self, Y):
        return -Y

    def cnst_c(self):
        return 0.0

    def rsdl_r(self, AX, Y):
        return AX - Y

    def rsdl_s(self, Yprev, Y):
        return self.rho * (Yprev - Y)

    def rsdl_rn(self, AX, Y):
        return max(np.linalg.norm(AX), np.linalg.norm(Y))

    def rsdl_sn(self, U):
        return self.rho * np.linalg.norm(U)


# ---------------------------------------------------------------------------
# BPDN (sporco.admm.bpdn.BPDN)
# ---------------------------------------------------------------------------

class BPDN(ADMMEqual):
    extra_fields = ('XSlvRelRes',)

    def __init__(self, D, S, lmbda=None, opt=None):
        self.opt = o = make_options(BPDN_DEFAULTS, opt, auxvar=True)
        D = np.asarray(D, dtype=np.float64)
        S = np.asarray(S, dtype=np.float64)
        if S.ndim == 1:
            S = S[:, np.newaxis]
        if lmbda is None:
            lmbda = 0.1 * abs(D.T.dot(S)).max()
        self.lmbda = float(lmbda)
        self.wl1 = np.asarray(o['L1Weight'], dtype=np.float64)
        self.rho = float(o['rho']) if o['rho'] is not None else \
            50.0 * self.lmbda + 1.0
        rt = o['AutoRho']['RsdlTarget']
        self.rho_xi = float(rt) if rt is not None else \
            _rho_xi_sparse(self.lmbda)
        xshape = (D.shape[1], S.shape[1])
        self.Nx = self.Nc = int(np.prod(xshape))
        self.X = None
        self._init_yu(xshape, xshape)
        self.S = S
        self.D = D
        self.DTS = D.T.dot(S)
        self._factor()

    def uinit(self, ushape):
        if self.opt['Y0'] is None:
            return np.zeros(ushape)
        return (self.lmbda / self.rho) * np.sign(self.Y)

    def _factor(self):
        # Cholesky of D^T D + rho I, or of D D^T + rho I when D is wide
        # (matrix inversion lemma), upper triangle, as sporco.linalg.cho_factor.
        N, M = self.D.shape
        if N >= M:
            G = self.D.T.dot(self.D) + self.rho * np.identity(M)
        else:
            G = self.D.dot(self.D.T) + self.rho * np.identity(N)
        self.lu, self.lwr = sla.cho_factor(G, lower=False, check_finite=True)

    def xstep(self):
        b = self.DTS + self.rho * (self.Y - self.U)
        N, M = self.D.shape
        if N >= M:
            self.X = sla.cho_solve((self.lu, self.lwr), b)
        else:
            self.X = (b - self.D.T.dot(sla.cho_solve((self.lu, self.lwr),
                                                     self.D.dot(b)))) / self.rho
        if self.opt['LinSolveCheck']:
            ax = self.D.T.dot(self.D.dot(self.X)) + self.rho * self.X
            self.xrrs = rrs(ax, b)
        else:
            self.xrrs = None

    def ystep(self):
        self.Y = prox_l1(self.AX + self.U, (self.lmbda / self.rho) * self.wl1)
        if self.opt['NonNegCoef']:
            self.Y[self.Y < 0.0] = 0.0

    def eval_objfn(self):
        dfd = 0.5 * np.linalg.norm(self.D.dot(self.obfn_fvar()) - self.S) ** 2
        rl1 = np.linalg.norm((self.wl1 * self.obfn_gvar()).ravel(), 1)
        return (dfd + self.lmbda * rl1, dfd, rl1)

    def itstat_extra(self):
        return (self.xrrs,)

    def rhochange(self):
        self._factor()


# ---------------------------------------------------------------------------
# Convolutional representation indexing (sporco.cnvrep.CSC_ConvRepIndexing)
# ---------------------------------------------------------------------------

class ConvRepIndexing(object):
    """Internal layouts (dimN = 2 shown):
         S (N0, N1, C, K, 1), D (Nd0, Nd1, Cd, 1, M), X (N0, N1, C - Cd + 1, K, M)."""

    def __init__(self, D, S, dimK=None, dimN=2):
        self.dimCd = D.ndim - (dimN + 1)
        self.Cd = 1 if self.dimCd == 0 else D.shape[-2]
        if dimK is None:
            rdim = S.ndim - dimN
            if rdim == 0:
                dimC, dimK = 0, 0
            elif rdim == 1:
                dimC = self.dimCd
                dimK = S.ndim - dimN - dimC
            else:
                dimC, dimK = 1, 1
        else:
            dimC = S.ndim - dimN - dimK
        self.dimN, self.dimC, self.dimK = dimN, dimC, dimK
        self.C = S.shape[dimN] if dimC == 1 else 1
        Cx = self.C - self.Cd + 1
        if self.Cd > 1 and self.C != self.Cd:
            raise ValueError('multi-channel dictionary with a signal with a '
                             'different number of channels')
        self.K = S.shape[dimN + dimC] if dimK == 1 else 1
        self.M = D.shape[-1]
        self.Nv = S.shape[0:dimN]
        self.N = int(np.prod(np.array(self.Nv)))
        self.axisN = tuple(range(dimN))
        self.axisC = dimN
        self.axisK = dimN + 1
        self.axisM = dimN + 2
        self.shpD = D.shape[0:dimN] + (self.Cd, 1, self.M)
        self.shpS = tuple(self.Nv) + (self.C, self.K, 1)
        self.shpX = tuple(self.Nv) + (Cx, self.K, self.M)


def _l1w_scalar(w, cri):
    w = np.asarray(w, dtype=np.float64)
    if w.size != 1:
        raise ValueError('only a scalar L1Weight is transcribed')
    return w.reshape((1,) * (cri.dimN + 3))


# ---------------------------------------------------------------------------
# ConvBPDN (sporco.admm.cbpdn.ConvBPDN)
# ---------------------------------------------------------------------------

class ConvBPDN(ADMMEqual):
    extra_fields = ('XSlvRelRes',)

    def __init__(self, D, S, lmbda=None, opt=None, dimK=None, dimN=2):
        self.opt = o = make_options(CBPDN_DEFAULTS, opt, auxvar=True)
        D = np.asarray(D, dtype=np.float64)
        S = np.asarray(S, dtype=np.float64)
        self.cri = cri = ConvRepIndexing(D, S, dimK=dimK, dimN=dimN)
        # SPORCO's base-class initialiser first sets rho = opt['rho'] or 1.0,
        # and builds the HighMemSolve cache with it; the class default
        # 50 lmbda + 1 only replaces rho afterwards (the cache keeps the old
        # value until the first AutoRho change calls rhochange).
        rho_base = float(o['rho']) if o['rho'] is not None else 1.0
        self.rho = rho_base
        self.Nx = self.Nc = int(np.prod(cri.shpX))
        self.X = None
        if o['Y0'] is not None and o['U0'] is None:
            # SPORCO's ConvBPDN.uinit needs self.lmbda, which does not exist
            # yet when it is called: Y0 without U0 raises in SPORCO.
            raise AttributeError("SPORCO's ConvBPDN fails for Y0 without U0")
        self._init_yu(cri.shpX, cri.shpX)
        self.D = D.reshape(cri.shpD)
        self.S = S.reshape(cri.shpS)
        self.Sf = rfftn(self.S, None, cri.axisN)
        self.Df = rfftn(self.D, cri.Nv, cri.axisN)
        self.DSf = np.conj(self.Df) * self.Sf
        if cri.Cd > 1:
            self.DSf = np.sum(self.DSf, axis=cri.axisC, keepdims=True)
        if o['HighMemSolve'] and cri.Cd == 1:
            self.c = solvedbi_sm_c(self.Df, np.conj(self.Df), self.rho,
                                   cri.axisM)
        else:
            self.c = None
        if lmbda is None:
            lmbda = 0.1 * abs(np.conj(self.Df) * self.Sf).max()
        self.lmbda = float(lmbda)
        self.rho = float(o['rho']) if o['rho'] is not None else \
            50.0 * self.lmbda + 1.0
        rt = o['AutoRho']['RsdlTarget']
        self.rho_xi = float(rt) if rt is not None else \
            _rho_xi_sparse(self.lmbda)
        self.wl1 = _l1w_scalar(o['L1Weight'], cri)

    def xstep(self):
        cri = self.cri
        b = self.DSf + self.rho * rfftn(self.Y - self.U, None, cri.axisN)
        if cri.Cd == 1:
            self.Xf = solvedbi_sm(self.Df, self.rho, b, self.c, cri.axisM)
        else:
            self.Xf = solvemdbi_ism(self.Df, self.rho, b, cri.axisM,
                                    cri.axisC)
        self.X = irfftn(self.Xf, cri.Nv, cri.axisN)
        if self.opt['LinSolveCheck']:
            Dx = inner(self.Df, self.Xf, cri.axisM)
            if cri.Cd == 1:
                DHDx = np.conj(self.Df) * Dx
            else:
                DHDx = inner(np.conj(self.Df), Dx, cri.axisC)
            self.xrrs = rrs(DHDx + self.rho * self.Xf, b)
        else:
            self.xrrs = None

    def ystep(self):
        self.Y = prox_l1(self.AX + self.U, (self.lmbda / self.rho) * self.wl1)
        if self.opt['NonNegCoef']:
            self.Y[self.Y < 0.0] = 0.0
        if self.opt['NoBndryCross']:
            for n in range(self.cri.dimN):
                self.Y[(slice(None),) * n +
                       (slice(1 - self.D.shape[n], None),)] = 0.0

    def eval_objfn(self):
        cri = self.cri
        Xf = self.Xf if self.opt['fEvalX'] else rfftn(self.Y, None, cri.axisN)
        Ef = inner(self.Df, Xf, cri.axisM) - self.Sf
        dfd = rfl2norm2(Ef, self.S.shape, cri.axisN) / 2.0
        rl1 = np.linalg.norm((self.wl1 * self.obfn_gvar()).ravel(), 1)
        return (dfd + self.lmbda * rl1, dfd, rl1)

    def itstat_extra(self):
        return (self.xrrs,)

    def rhochange(self):
        if self.opt['HighMemSolve'] and self.cri.Cd == 1:
            self.c = solvedbi_sm_c(self.Df, np.conj(self.Df), self.rho,
                                   self.cri.axisM)

    def reconstruct(self, X=None):
        if X is None:
            X = self.Y
        Xf = rfftn(X, None, self.cri.axisN)
        return irfftn(np.sum(self.Df * Xf, axis=self.cri.axisM), self.cri.Nv,
                      self.cri.axisN)


# ---------------------------------------------------------------------------
# TV denoising (sporco.admm.tvl1.TVL1Denoise, sporco.admm.tvl2.TVL2Denoise)
# ---------------------------------------------------------------------------

class _TVBase(ADMM):
    extra_fields = ('GSIter', 'GSRelRes')

    def _setup(self, S, lmbda, opt, axes, caxis, ncomp_extra):
        o = self.opt = make_options(TV_DEFAULTS, opt)
        if o['AutoRho']['RsdlTarget'] is None:
            o['AutoRho']['RsdlTarget'] = 1.0
        self.S = np.asarray(S, dtype=np.float64)
        self.axes = tuple(axes)
        self.saxes = (-1,) if caxis is None else (caxis, -1)
        self.lmbda = float(lmbda)
        self.rho = float(o['rho']) if o['rho'] is not None else \
            2.0 * self.lmbda + 0.1
        self.rho_xi = float(o['AutoRho']['RsdlTarget'])
        yshape = self.S.shape + (len(self.axes) + ncomp_extra,)
        self.Nx = self.S.size
        self.Nc = int(np.prod(yshape))
        self._init_yu(yshape, yshape)
        self.Wtv = np.asarray(o['TVWeight'], dtype=np.float64)
        if self.Wtv.ndim == self.S.ndim:
            self.Wtvna = self.Wtv[..., np.newaxis]
        else:
            self.Wtvna = self.Wtv
        self.lcw = self._laplace_centre_weight()
        self.X = self.S

    def _laplace_centre_weight(self):
        # Diagonal of sum_ax G_ax^T G_ax: 2 per axis, 1 at each end of an axis.
        sz = [1] * self.S.ndim
        for ax in self.axes:
            sz[ax] = self.S.shape[ax]
        lcw = 2 * len(self.axes) * np.ones(sz)
        for ax in self.axes:
            lcw[(slice(None),) * ax + ([0, -1],)] -= 1.0
        return lcw

    def _gs_step(self, S, X, ATYU, rho, W2):
        # One Jacobi sweep (SPORCO calls it Gauss-Seidel) of
        # (W2 I + rho sum_ax G^T G) x = W2 s + rho ATYU: the off-diagonal part
        # of G^T G is minus the sum of the (zero padded) axis neighbours.
        nb = np.zeros_like(S)
        for ax in self.axes:
            pre = (slice(None),) * ax
            nb += zpad(X[pre + (slice(0, -1),)], (1, 0), ax)
            nb += zpad(X[pre + (slice(1, None),)], (0, 1), ax)
        return (rho * (nb + ATYU) + W2 * S) / (W2 + rho * self.lcw)

    def _grads(self, X):
        return [grad(X, ax)[..., np.newaxis] for ax in self.axes]

    def _gradTs(self, Y):
        # Component j of the last axis is transposed along axis axes[j]...
        # written as SPORCO does: component index = axis number itself.
        return [gradT(Y[..., ax], ax)[..., np.newaxis] for ax in self.axes]

    def itstat_extra(self):
        return self.xs


class TVL1Denoise(_TVBase):
    """Constraint (G_0; ...; G_{n-1}; I) x - y = (0; ...; 0; s)."""

    def __init__(self, S, lmbda, opt=None, axes=(0, 1), caxis=None):
        self._setup(S, lmbda, opt, axes, caxis, 1)
        self.Wdf = np.asarray(self.opt['DFidWeight'], dtype=np.float64)

    def uinit(self, ushape):
        if self.opt['Y0'] is None:
            return np.zeros(ushape)
        Yss = np.sqrt(np.sum(self.Y[..., 0:-1] ** 2, axis=self.S.ndim,
                             keepdims=True))
        U0 = (self.lmbda / self.rho) * zdivide(self.Y[..., 0:-1], Yss)
        U1 = (1.0 / self.rho) * np.sign(self.Y[..., -1:])
        return np.concatenate((U0, U1), axis=self.S.ndim)

    def cnst_A(self, X):
        return np.concatenate(self._grads(X) + [X[..., np.newaxis]],
                              axis=X.ndim)

    def cnst_AT(self, Y):
        return np.sum(np.concatenate(self._gradTs(Y) + [Y[..., -1:]],
                                     axis=Y.ndim - 1), axis=Y.ndim - 1)

    def cnst_B(self, Y):
        return -Y

    def cnst_c(self):
        c = np.zeros(self.S.shape + (len(self.axes) + 1,))
        c[..., -1] = self.S
        return c

    def xstep(self):
        # The x subproblem is rho/2 ||A x - (c + y - u)||^2; rho cancels, so
        # the sweep uses rho = W2 = 1 with the data term s + y_d - u_d.
        YU = self.Y - self.U
        SYU = self.S + YU[..., -1]
        YU[..., -1] = 0.0
        ATYU = self.cnst_AT(YU)
        n, res = 0, np.inf
        while res > self.opt['GSTol'] and n < self.opt['MaxGSIter']:
            self.X = self._gs_step(SYU, self.X, ATYU, 1.0, 1.0)
            res = rrs(self.cnst_AT(self.cnst_A(self.X)),
                      self.cnst_AT(self.cnst_c() - self.cnst_B(self.Y) - self.U))
            n += 1
        self.xs = (n, res)

    def ystep(self):
        self.Y[..., 0:-1] = prox_l2(self.AX[..., 0:-1] + self.U[..., 0:-1],
                                    (self.lmbda / self.rho) * self.Wtvna,
                                    axis=self.saxes)
        self.Y[..., -1] = prox_l1(self.AX[..., -1] + self.U[..., -1] - self.S,
                                  (1.0 / self.rho) * self.Wdf)

    # SPORCO's TVL1Denoise replaces the dual residual vector by the scalar
    # rho ||A^T U|| (not rho A^T B (y - yprev)) and normalises it by rho ||U||.
    def rsdl_s(self, Yprev, Y):
        return self.rho * np.linalg.norm(self.cnst_AT(self.U))

    def rsdl_sn(self, U):
        return self.rho * np.linalg.norm(U)

    def eval_objfn(self):
        if self.opt['gEvalY']:
            g = self.Y
        else:
            g = self.cnst_A(self.X) - self.cnst_c()
        dfd = np.sum(np.abs(self.Wdf * g[..., -1]))
        reg = np.sum(self.Wtv * np.sqrt(np.sum(g[..., 0:-1] ** 2,
                                               axis=self.saxes)))
        return (dfd + self.lmbda * reg, dfd, reg)


class TVL2Denoise(_TVBase):
    """Constraint (G_0; ...; G_{n-1}) x - y = 0."""

    def __init__(self, S, lmbda, opt=None, axes=(0, 1), caxis=None):
        self._setup(S, lmbda, opt, axes, caxis, 0)
        self.Wdf = np.asarray(self.opt['DFidWeight'], dtype=np.float64)
        self.Wdf2 = self.Wdf ** 2

    def uinit(self, ushape):
        if self.opt['Y0'] is None:
            return np.zeros(ushape)
        Yss = np.sqrt(np.sum(self.Y ** 2, axis=self.S.ndim, keepdims=True))
        return (self.lmbda / self.rho) * zdivide(self.Y, Yss)

    def cnst_A(self, X):
        return np.concatenate(self._grads(X), axis=X.ndim)

    def cnst_AT(self, Y):
        return np.sum(np.concatenate(self._gradTs(Y), axis=Y.ndim - 1),
                      axis=Y.ndim - 1)

    def cnst_B(self, Y):
        return -Y

    def cnst_c(self):
        return np.zeros(self.S.shape + (len(self.axes),))

    def xstep(self):
        n, res = 0, np.inf
        while res > self.opt['GSTol'] and n < self.opt['MaxGSIter']:
            self.X = self._gs_step(self.S, self.X,
                                   self.cnst_AT(self.Y - self.U), self.rho,
                                   self.Wdf2)
            res = rrs(self.rho * self.cnst_AT(self.cnst_A(self.X)) +
                      self.Wdf2 * self.X,
                      self.Wdf2 * self.S +
                      self.rho * self.cnst_AT(self.Y - self.U))
            n += 1
        self.xs = (n, res)

    def ystep(self):
        self.Y = prox_l2(self.AX + self.U, (self.lmbda / self.rho) * self.Wtvna,
                         axis=self.saxes)

    def eval_objfn(self):
        dfd = 0.5 * (np.linalg.norm(self.Wdf * (self.X - self.S)) ** 2)
        g = self.Y if self.opt['gEvalY'] else self.cnst_A(self.X)
        reg = np.sum(self.Wtv * np.sqrt(np.sum(g ** 2, axis=self.saxes)))
        return (dfd + self.lmbda * reg, dfd, reg)


# ---------------------------------------------------------------------------
# Robust PCA (sporco.admm.rpca.RobustPCA)
# ---------------------------------------------------------------------------

class RobustPCA(ADMM):
    """Constraint x + y = s (A = I, B = I, c = s)."""
    extra_fields = ('Cnstr',)

    def __init__(self, S, lmbda=None, opt=None):
        o = self.opt = make_options(RPCA_DEFAULTS, opt)
        if o['AutoRho']['RsdlTarget'] is None:
            o['AutoRho']['RsdlTarget'] = 1.0
        S = np.asarray(S, dtype=np.float64)
        if lmbda is None:
            lmbda = S.shape[0] ** -0.5
        self.lmbda = float(lmbda)
        self.rho = float(o['rho']) if o['rho'] is not None else \
            2.0 * self.lmbda + 0.1
        self.rho_xi = float(o['AutoRho']['RsdlTarget'])
        self.Nx = self.Nc = S.size
        self.X = None
        self._init_yu(S.shape, S.shape)
        self.S = S

    def uinit(self, ushape):
        if self.opt['Y0'] is None:
            return np.zeros(ushape)
        return (self.lmbda / self.rho) * np.sign(self.Y)

    def solve(self):
        ADMM.solve(self)
        return self.X, self.Y

    def xstep(self):
        self.X, self.ss = prox_nuclear(self.S - self.Y - self.U, 1 / self.rho)

    def ystep(self):
        self.Y = prox_l1(self.S - self.AX - self.U, self.lmbda / self.rho)

    def cnst_A(self, X):
        return X

    def cnst_AT(self, X):
        return X

    def cnst_B(self, Y):
        return Y

    def cnst_c(self):
        return self.S

    def eval_objfn(self):
        if self.opt['fEvalX']:
            rnn = np.sum(self.ss)
        else:
            rnn = np.sum(np.linalg.svd(self.S - self.Y, compute_uv=False))
        g = self.Y if self.opt['gEvalY'] else self.S - self.X
        rl1 = np.sum(np.abs(g))
        self._cns = np.linalg.norm(self.X + self.Y - self.S)
        return (rnn + self.lmbda * rl1, rnn, rl1)

    def itstat_extra(self):
        return (self._cns,)


# ---------------------------------------------------------------------------
# PGM ConvBPDN (sporco.pgm.pgm.PGM / PGMDFT, sporco.pgm.cbpdn.ConvBPDN,
# sporco.pgm.backtrack, sporco.pgm.momentum, sporco.pgm.stepsize)
# ---------------------------------------------------------------------------

PGM_FIELDS = ('Iter', 'ObjFun', 'DFid', 'RegL1', 'Rsdl', 'F_Btrack',
              'Q_Btrack', 'IterBTrack', 'L')


class PGMConvBPDN(object):
    """FISTA for convolutional BPDN; the gradient step and the momentum
    extrapolation live in the half-spectrum DFT domain (Xf, Yf), the prox in
    the spatial domain."""

    def __init__(self, D, S, lmbda=None, opt=None, dimK=None, dimN=2):
        o = self.opt = make_options(PGM_CBPDN_DEFAULTS, opt)
        D = np.asarray(D, dtype=np.float64)
        S = np.asarray(S, dtype=np.float64)
        self.cri = cri = ConvRepIndexing(D, S, dimK=dimK, dimN=dimN)
        if lmbda is None:
            Df = rfftn(D.reshape(cri.shpD), cri.Nv, cri.axisN)
            Sf = rfftn(S.reshape(cri.shpS), None, cri.axisN)
            lmbda = 0.1 * abs(np.conj(Df) * Sf).max()
        self.lmbda = float(lmbda)
        self.wl1 = np.asarray(o['L1Weight'], dtype=np.float64)
        self.L = float(o['L']) if o['L'] is not None else 1.0
        self.backtrack = _parse_backtrack(o['Backtrack'])
        self.momentum = _parse_momentum(o['Momentum'])
        self.stepsize = None if self.backtrack is not None else \
            _parse_stepsize(o['StepSizePolicy'])
        if o['X0'] is None:
            X = np.zeros(cri.shpX)
        else:
            X = np.array(o['X0'], dtype=np.float64, copy=True)
        self.F = self.Q = self.iterBTrack = None
        self.itstat = []
        self.k = 0
        self.t = 1
        self.D = D.reshape(cri.shpD)
        self.S = S.reshape(cri.shpS)
        self.Sf = rfftn(self.S, None, cri.axisN)
        self.X = X.copy()
        self.Xf = rfftn(self.X, None, cri.axisN)
        self.Yf = self.Xf.copy()
        self.Yfprv = self.Yf.copy() + 1e5
        self.Df = rfftn(self.D, cri.Nv, cri.axisN)

    # --- problem pieces --------------------------------------------------
    def eval_Rf(self, Vf):
        return inner(self.Df, Vf, self.cri.axisM) - self.Sf

    def grad_f(self, Vf=None):
        if Vf is None:
            Vf = self.Yf
        g = np.conj(self.Df) * self.eval_Rf(Vf)
        if self.cri.Cd > 1:
            g = np.sum(g, axis=self.cri.axisC, keepdims=True)
        return g

    def hessian_f(self, Vf):
        h = np.conj(self.Df) * inner(self.Df, Vf, self.cri.axisM)
        if self.cri.Cd > 1:
            h = np.sum(h, axis=self.cri.axisC, keepdims=True)
        return h

    def prox_g(self, V):
        U = prox_l1(V, (self.lmbda / self.L) * self.wl1)
        if self.opt['NonNegCoef']:
            U[U < 0.0] = 0.0
        if self.opt['NoBndryCross']:
            for n in range(self.cri.dimN):
                U[(slice(None),) * n + (slice(1 - self.D.shape[n], None),)] = 0.0
        return U

    def obfn_f(self, Xf=None):
        # Backtracking measure: 1/2 ||R||^2 over the raw half spectrum (no DFT
        # normalisation, no doubling of the mirrored bins).
        if Xf is None:
            Xf = self.Xf
        return 0.5 * np.linalg.norm(self.eval_Rf(Xf).flatten(), 2) ** 2

    def eval_objfn(self):
        dfd = rfl2norm2(self.eval_Rf(self.Xf), self.S.shape,
                        self.cri.axisN) / 2.0
        rl1 = np.linalg.norm((self.wl1 * self.X).ravel(), 1)
        return (dfd + self.lmbda * rl1, dfd, rl1)

    def rsdl(self):
        # Squared (no square root) norm of Xf - Yf_prev, DFT-normalised.
        return rfl2norm2(self.Xf - self.Yfprv, self.X.shape, self.cri.axisN)

    def reconstruct(self, X=None):
        if X is None:
            X = self.X
        Xf = rfftn(X, None, self.cri.axisN)
        return irfftn(np.sum(self.Df * Xf, axis=self.cri.axisM), self.cri.Nv,
                      self.cri.axisN)

    # --- iteration -------------------------------------------------------
    def xstep(self, gradf=None):
        if gradf is None:
            gradf = self.grad_f()
        if self.stepsize is not None:
            if self.k > 1:
                self.L = self.stepsize.update(self, gradf)
            if isinstance(self.stepsize, StepSizeBB):
                self.stepsize.store(self.Xf, gradf)
        Vf = self.Yf - (1. / self.L) * gradf
        V = irfftn(Vf, self.cri.Nv, self.cri.axisN)
        self.X = self.prox_g(V)
        self.Xf = rfftn(self.X, None, self.cri.axisN)
        if self.opt['Monotone'] and self.k > 0:
            # Beck-Teboulle monotone FISTA: keep the previous Xf (only Xf; the
            # spatial X keeps the new prox value, as in SPORCO) if f+g rose.
            self.ZZf = self.Xf.copy()
            self.objfn = self.eval_objfn()
            if self.objfn_prev[0] < self.objfn[0]:
                self.Xf = self.Xfprv.copy()
                self.objfn = self.objfn_prev
        return gradf

    def ystep(self):
        tprv = self.t
        arg = self.t if isinstance(self.momentum, MomentumNesterov) else self.k
        self.t = self.momentum.update(arg)
        if self.opt['Monotone'] and self.k > 0:
            self.Yf = self.Xf + (tprv / self.t) * (self.ZZf - self.Xf) + \
                ((tprv - 1.) / self.t) * (self.Xf - self.Xfprv)
        else:
            self.Yf = self.Xf + ((tprv - 1.) / self.t) * (self.Xf - self.Xfprv)

    def solve(self):
        o = self.opt
        k0 = self.k
        for k in range(k0, k0 + o['MaxMainIter']):
            self.k = k
            self.Xfprv = self.Xf.copy()
            if not o['FastSolve'] or isinstance(self.backtrack,
                                                BacktrackRobust):
                self.Yfprv = self.Yf.copy()
            if o['Monotone']:
                if k == 0:
                    self.objfn = self.eval_objfn()
                self.objfn_prev = self.objfn
            if self.backtrack is not None:
                self.backtrack.update(self)
            else:
                self.xstep()
                self.ystep()
            if not o['FastSolve']:
                r = self.rsdl()
                tol = o['RelStopTol']
                if o['AutoStop']['Enabled']:
                    tol = o['AutoStop']['Tau0'] / (1. + k)
                objs = self.objfn if o['Monotone'] else self.eval_objfn()
                self.itstat.append(dict(
                    Iter=k, ObjFun=objs[0], DFid=objs[1], RegL1=objs[2],
                    Rsdl=r, F_Btrack=self.F, Q_Btrack=self.Q,
                    IterBTrack=self.iterBTrack, L=self.L))
            if o['Callback'] is not None and o['Callback'](self):
                break
            if not o['FastSolve'] and r < tol:
                break
        self.k += 1
        return self.X

    def getmin(self):
        return self.X


def _backtrack_f_q(so, gY):
    """The backtracking's test values: F = f(X) and the quadratic model
    Q = f(Y) + <grad f(Y), X - Y> + L/2 ||X - Y||^2 (raw half spectra)."""
    Dxy = so.Xf - so.Yf
    Q = so.obfn_f(so.Yf) + np.sum(np.real(np.conj(Dxy) * gY)) + \
        (so.L / 2.) * np.linalg.norm(Dxy.flatten(), 2) ** 2
    return so.obfn_f(so.Xf), Q


def _grow_l(so, gamma_u, maxiter, attempt):
    """The backtracking search both variants share: attempt() (F and Q at the
    current L), and L grown by gamma_u after each failed try, until F <= Q or
    maxiter tries; returns F, Q and the tries."""
    n = 0
    while True:
        f, Q = attempt()
        n += 1
        if f <= Q:
            return f, Q, n
        so.L *= gamma_u
        if n >= maxiter:
            return f, Q, n


class BacktrackStandard(object):
    """Beck-Teboulle backtracking: grow L by gamma_u until
    F(x) <= f(y) + <grad f(y), x - y> + L/2 ||x - y||^2 (all in the raw half
    spectrum), at most maxiter tries; L never decreases."""

    def __init__(self, gamma_u=1.2, maxiter=50):
        self.gamma_u = gamma_u
        self.maxiter = maxiter

    def update(self, so):
        gY = so.grad_f()

        def attempt():
            so.xstep(gY)
            return _backtrack_f_q(so, gY)

        so.F, so.Q, so.iterBTrack = _grow_l(so, self.gamma_u, self.maxiter, attempt)
        so.ystep()


class BacktrackRobust(object):
    """Florea-Vorobyov robust backtracking: L shrinks by gamma_d at each
    iteration's start, then grows by gamma_u until F <= Q; Y is rebuilt per try
    from the previous X and the accumulated Zrb, and there is no y step."""

    def __init__(self, gamma_d=0.9, gamma_u=2.0, maxiter=50):
        self.gamma_d = gamma_d
        self.gamma_u = gamma_u
        self.maxiter = maxiter
        self.Tk = 0.
        self.Zrb = None

    def update(self, so):
        if self.Zrb is None:
            self.Zrb = so.Xf.copy()
        so.L *= self.gamma_d
        step = {}

        def attempt():
            t = float(1. + np.sqrt(1. + 4. * so.L * self.Tk)) / (2. * so.L)
            step['t'], step['T'] = t, self.Tk + t
            so.Yf = (self.Tk * so.Xfprv + t * self.Zrb) / step['T']
            gY = so.xstep()
            return _backtrack_f_q(so, gY)

        so.F, so.Q, so.iterBTrack = _grow_l(so, self.gamma_u, self.maxiter, attempt)
        self.Tk = step['T']
        self.Zrb += step['t'] * so.L * (so.Xf - so.Yf)


class MomentumNesterov(object):
    def update(self, t):
        return 0.5 * float(1. + np.sqrt(1. + 4. * t ** 2))


class MomentumLinear(object):
    def __init__(self, b=2.):
        self.b = b

    def update(self, k):
        return (k + self.b) / self.b


class MomentumGenLinear(object):
    def __init__(self, a=50., b=2.):
        self.a, self.b = a, b

    def update(self, k):
        return (k + self.a) / self.b


class StepSizeCauchy(object):
    def update(self, so, g):
        den = np.sum(np.real(np.conj(g) * g))
        num = np.sum(np.real(np.conj(g) * so.hessian_f(g)))
        return num / den


class StepSizeBB(object):
    def __init__(self):
        self.xprv = 0.0
        self.gprv = 0.0

    def store(self, x, g):
        self.xprv, self.gprv = x, g

    def update(self, so, g):
        dx = so.Xf - self.xprv
        dg = g - self.gprv
        den = np.sum(np.real(np.conj(dx) * dg))
        num = np.sum(np.real(np.conj(dg) * dg))
        L = num / den
        if L < 0.:
            L = so.L
        return L


def _parse_backtrack(v):
    if v is None or isinstance(v, (BacktrackStandard, BacktrackRobust)):
        return v
    if isinstance(v, dict):
        v = dict(v)
        kind = str(v.pop('kind', 'standard')).lower()
        return {'standard': BacktrackStandard,
                'robust': BacktrackRobust}[kind](**v)
    if str(v).lower() in ('none', 'false', ''):
        return None
    if str(v).lower() == 'standard':
        return BacktrackStandard()
    if str(v).lower() == 'robust':
        return BacktrackRobust()
    raise ValueError('Backtrack: standard or robust')


def _parse_momentum(v):
    if isinstance(v, (MomentumNesterov, MomentumLinear, MomentumGenLinear)):
        return v
    if isinstance(v, dict):
        v = dict(v)
        kind = v.pop('kind', 'nesterov')
        return _parse_momentum(kind) if not v else \
            {'linear': MomentumLinear, 'genlinear': MomentumGenLinear}[kind](**v)
    return {'nesterov': MomentumNesterov, 'linear': MomentumLinear,
            'genlinear': MomentumGenLinear}[str(v).lower()]()


def _parse_stepsize(v):
    if v is None or isinstance(v, (StepSizeCauchy, StepSizeBB)):
        return v
    s = str(v).lower()
    if s in ('none', ''):
        return None
    return {'cauchy': StepSizeCauchy, 'bb': StepSizeBB}[s]()


# ---------------------------------------------------------------------------
# SPORCO's seeded test problems (built exactly as its tests build them)
# ---------------------------------------------------------------------------

def _fftconv_real(a, b, axes):
    dims = np.maximum([a.shape[i] for i in axes], [b.shape[i] for i in axes])
    return irfftn(rfftn(a, dims, axes) * rfftn(b, dims, axes), dims, axes)


def prob_bpdn_03():
    """tests/admm/test_bpdn.py TestSet01.test_03"""
    np.random.seed(12345)
    D = np.random.randn(8, 16)
    s = np.random.randn(8, 1)
    return dict(D=D, S=s)


def prob_bpdn_08():
    """tests/admm/test_bpdn.py TestSet01.test_08"""
    np.random.seed(12345)
    N, M, L = 64, 128, 4
    np.random.seed(12345)
    D = np.random.randn(N, M)
    x0 = np.zeros((M, 1))
    si = np.random.permutation(list(range(0, M - 1)))
    x0[si[0:L]] = np.random.randn(L, 1)
    return dict(D=D, x0=x0, S=D.dot(x0))


def _tv_sparse_noise(shape, L=20):
    V = np.random.randn(*shape)
    t = np.sort(np.abs(V).ravel())[V.size - L]
    V[np.abs(V) < t] = 0
    return V


def prob_tvl1_2d():
    """tests/admm/test_tvl1.py TestSet02"""
    np.random.seed(12345)
    N = 64
    U = np.ones((N, N))
    U[:, 0:N // 2] = -1
    V = _tv_sparse_noise((N, N))
    return dict(U=U, V=V, S=U + V)


def prob_tvl1_3d():
    """tests/admm/test_tvl1.py TestSet03 and TestSet04 (same data)"""
    np.random.seed(12345)
    N = 32
    U = np.ones((N, N, N))
    U[:, 0:N // 2] = -1
    V = _tv_sparse_noise((N, N, N))
    return dict(U=U, V=V, S=U + V)


def prob_tvl2_2d():
    """tests/admm/test_tvl2.py TestSet02"""
    np.random.seed(12345)
    N = 64
    U = np.ones((N, N))
    U[:, 0:N // 2] = -1
    V = 1e-1 * np.random.randn(N, N)
    return dict(U=U, V=V, S=U + V)


def prob_tvl2_3d():
    """tests/admm/test_tvl2.py TestSet03 and TestSet04 (same data)"""
    np.random.seed(12345)
    N = 32
    U = np.ones((N, N, N))
    U[:, 0:N // 2, :] = -1
    V = 1e-1 * np.random.randn(N, N, N)
    return dict(U=U, V=V, S=U + V)


def prob_rpca_01():
    """tests/admm/test_rpca.py TestSet01.test_01"""
    np.random.seed(12345)
    N, K, L = 64, 5, 10
    u = np.random.randn(N, K)
    U = np.dot(u, u.T)
    V = _tv_sparse_noise((N, N), L)
    return dict(u=u, U=U, V=V, S=U + V)


def _cbpdn_sparse(N, M=4, Nd=8):
    D = np.random.randn(Nd, Nd, M)
    X0 = np.zeros((N, N, M))
    xr = np.random.randn(N, N, M)
    xp = np.abs(xr) > 3
    X0[xp] = np.random.randn(X0[xp].size)
    return D, X0


def prob_cbpdn_10():
    """tests/admm/test_cbpdn.py TestSet01.test_10 (S by real fftconv)"""
    np.random.seed(12345)
    D, X0 = _cbpdn_sparse(64)
    S = np.sum(_fftconv_real(D, X0, (0, 1)), axis=2)
    return dict(D=D, X0=X0, S=S)


def _full_fft_synth(D, X0):
    N = X0.shape[0]
    return np.sum(np.fft.ifftn(np.fft.fftn(D, (N, N), (0, 1)) *
                               np.fft.fftn(X0, None, (0, 1)),
                               None, (0, 1)).real, axis=2)


def prob_cbpdn_11():
    """tests/admm/test_cbpdn.py TestSet01.test_11 and
    tests/pgm/test_cbpdn.py TestSet01.test_11 (identical data)"""
    np.random.seed(12345)
    D, X0 = _cbpdn_sparse(63)
    return dict(D=D, X0=X0, S=_full_fft_synth(D, X0))


def prob_pgm_cbpdn_10():
    """tests/pgm/test_cbpdn.py TestSet01.test_10 (D, X0 as admm test_10; S by
    complex FFT)"""
    np.random.seed(12345)
    D, X0 = _cbpdn_sparse(64)
    return dict(D=D, X0=X0, S=_full_fft_synth(D, X0))


def prob_cbpdn_08():
    """tests/admm/test_cbpdn.py TestSet01.test_08"""
    np.random.seed(12345)
    D = np.random.randn(5, 5, 4)
    s = np.random.randn(16, 17)
    return dict(D=D, S=s)


def prob_cbpdn_12():
    """tests/admm/test_cbpdn.py TestSet01.test_12, and tests/pgm/test_cbpdn.py
    TestSet01.test_12 to test_18 (identical data)"""
    np.random.seed(12345)
    D = np.random.randn(5, 5, 4)
    s = np.random.randn(16, 16, 3)
    return dict(D=D, S=s)


def prob_cbpdn_13():
    """tests/admm/test_cbpdn.py TestSet01.test_13 (multi-channel dictionary)"""
    np.random.seed(12345)
    D = np.random.randn(5, 5, 3, 4)
    s = np.random.randn(16, 16, 3)
    return dict(D=D, S=s)


PROBLEMS = {
    'bpdn_03': prob_bpdn_03, 'bpdn_08': prob_bpdn_08,
    'tvl1_2d': prob_tvl1_2d, 'tvl1_3d': prob_tvl1_3d,
    'tvl2_2d': prob_tvl2_2d, 'tvl2_3d': prob_tvl2_3d,
    'rpca_01': prob_rpca_01,
    'cbpdn_08': prob_cbpdn_08, 'cbpdn_10': prob_cbpdn_10,
    'cbpdn_11': prob_cbpdn_11, 'cbpdn_12': prob_cbpdn_12,
    'cbpdn_13': prob_cbpdn_13, 'pgm_cbpdn_10': prob_pgm_cbpdn_10,
}


# ---------------------------------------------------------------------------
# Self test: SPORCO's pinned asserts
# ---------------------------------------------------------------------------

def _abs(name, pinned, reached, tol, b):
    return (name, repr(pinned), reached, tol, abs(reached - pinned) < tol,
            len(b.itstat))


def _lt(name, reached, bound, b):
    return (name, '< %g' % bound, reached, bound, reached < bound,
            len(b.itstat))


def st_bpdn_03():
    p = prob_bpdn_03()
    b = BPDN(p['D'], p['S'], lmbda=1.0,
             opt={'MaxMainIter': 20, 'LinSolveCheck': True,
                  'AutoRho': {'StdResiduals': True}})
    b.solve()
    return [_lt('admm/test_bpdn::test_03 max XSlvRelRes (StdResiduals)',
                max(s['XSlvRelRes'] for s in b.itstat), 1e-5, b)]


def st_bpdn_08():
    p = prob_bpdn_08()
    b = BPDN(p['D'], p['S'], 5e-3, {'MaxMainIter': 500, 'RelStopTol': 5e-4})
    b.solve()
    last = b.itstat[-1]
    n = 'admm/test_bpdn::test_08'
    return [_abs(n + ' ObjFun', 0.012009, last['ObjFun'], 1e-5, b),
            _abs(n + ' DFid', 1.9636082e-06, last['DFid'], 1e-5, b),
            _abs(n + ' RegL1', 2.401446, last['Reg'], 1e-5, b),
            _lt(n + ' ||x1 - x0||', np.linalg.norm(b.Y - p['x0']), 1e-3, b)]


def _st_tvl1(setname, axes, pinned):
    p = prob_tvl1_2d() if setname == 'TestSet02' else prob_tvl1_3d()
    b = TVL1Denoise(p['S'], 3, {'gEvalY': False, 'MaxMainIter': 250},
                    axes=axes)
    X = b.solve()
    n = 'admm/test_tvl1::%s::test_01' % setname
    return [_abs(n + ' ObjFun', pinned, b.itstat[-1]['ObjFun'], 1e-6, b),
            _lt(n + ' mse(U, X)', mse(p['U'], X), 1e-6, b)]


def _st_tvl2(setname, axes, rho, iters, pinned):
    p = prob_tvl2_2d() if setname == 'TestSet02' else prob_tvl2_3d()
    lmbda = 1e-1
    b = TVL2Denoise(p['S'], lmbda, {'gEvalY': False, 'MaxMainIter': iters,
                                    'rho': rho * lmbda}, axes=axes)
    X = b.solve()
    n = 'admm/test_tvl2::%s::test_01' % setname
    return [_abs(n + ' ObjFun', pinned, b.itstat[-1]['ObjFun'], 1e-3, b),
            _lt(n + ' mse(U, X)', mse(p['U'], X), 1e-3, b)]


def st_rpca_01():
    p = prob_rpca_01()
    b = RobustPCA(p['S'], None, {'gEvalY': False, 'MaxMainIter': 250,
                                 'AutoRho': {'Enabled': True}})
    X, Y = b.solve()
    n = 'admm/test_rpca::test_01'
    return [_abs(n + ' ObjFun', 321.493968419, b.itstat[-1]['ObjFun'], 1e-6, b),
            _lt(n + ' mse(U, X)', mse(p['U'], X), 5e-6, b),
            _lt(n + ' mse(V, Y)', mse(p['V'], Y), 1e-8, b)]


def _st_cbpdn_exact(name, p):
    b = ConvBPDN(p['D'], p['S'], 1e-4,
                 {'MaxMainIter': 500, 'RelStopTol': 1e-3, 'rho': 1e-1,
                  'AutoRho': {'Enabled': False}})
    b.solve()
    X1 = b.Y.squeeze()
    Sr = b.reconstruct().squeeze()
    return [_lt(name + ' rrs(X0, X1)', rrs(p['X0'], X1), 5e-5, b),
            _lt(name + ' rrs(S, Sr)', rrs(p['S'], Sr), 1e-4, b)]


def _st_cbpdn_lsc(name, p, dimK):
    b = ConvBPDN(p['D'], p['S'], 1e-1, {'LinSolveCheck': True}, dimK=dimK)
    b.solve()
    return [_lt(name + ' max XSlvRelRes', max(s['XSlvRelRes']
                                              for s in b.itstat), 1e-5, b)]


def _st_pgm_exact(name, p, bound_s):
    b = PGMConvBPDN(p['D'], p['S'], 1e-2,
                    {'MaxMainIter': 2000, 'RelStopTol': 1e-9, 'L': 1e3,
                     'Backtrack': BacktrackStandard()})
    b.solve()
    X1 = b.X.squeeze()
    Sr = b.reconstruct().squeeze()
    return [_lt(name + ' rrs(X0, X1)', rrs(p['X0'], X1), 5e-4, b),
            _lt(name + ' rrs(S, Sr)', rrs(p['S'], Sr), bound_s, b)]


def _st_pgm_rsdl(name, extra):
    p = prob_cbpdn_12()
    opt = {'L': 1e3}
    opt.update(extra)
    b = PGMConvBPDN(p['D'], p['S'], 1e-1, opt, dimK=0)
    b.solve()
    return [_lt(name + ' Rsdl[-1]', b.itstat[-1]['Rsdl'], 1e-3, b)]


SELFTESTS = [
    st_bpdn_03,
    st_bpdn_08,
    lambda: _st_tvl1('TestSet02', (0, 1), 447.78101756451662),
    lambda: _st_tvl1('TestSet03', (0, 1), 6219.3241727233126),
    lambda: _st_tvl1('TestSet04', (0, 1, 2), 6219.6209699337605),
    lambda: _st_tvl2('TestSet02', (0, 1), 75, 300, 32.875710674129564),
    lambda: _st_tvl2('TestSet03', (0, 1), 10, 250, 363.0802047),
    lambda: _st_tvl2('TestSet04', (0, 1, 2), 10, 250, 366.04267554965134),
    st_rpca_01,
    lambda: _st_cbpdn_exact('admm/test_cbpdn::test_10', prob_cbpdn_10()),
    lambda: _st_cbpdn_exact('admm/test_cbpdn::test_11', prob_cbpdn_11()),
    lambda: _st_cbpdn_lsc('admm/test_cbpdn::test_08', prob_cbpdn_08(), None),
    lambda: _st_cbpdn_lsc('admm/test_cbpdn::test_12', prob_cbpdn_12(), 0),
    lambda: _st_cbpdn_lsc('admm/test_cbpdn::test_13', prob_cbpdn_13(), 0),
    lambda: _st_pgm_exact('pgm/test_cbpdn::test_10', prob_pgm_cbpdn_10(),
                          3e-4),
    lambda: _st_pgm_exact('pgm/test_cbpdn::test_11', prob_cbpdn_11(), 2e-4),
    lambda: _st_pgm_rsdl('pgm/test_cbpdn::test_12', {}),
    lambda: _st_pgm_rsdl('pgm/test_cbpdn::test_14 MomentumLinear',
                         {'Momentum': MomentumLinear()}),
    lambda: _st_pgm_rsdl('pgm/test_cbpdn::test_15 MomentumGenLinear',
                         {'Momentum': MomentumGenLinear()}),
    lambda: _st_pgm_rsdl('pgm/test_cbpdn::test_16 StepSizeCauchy',
                         {'StepSizePolicy': StepSizeCauchy()}),
    lambda: _st_pgm_rsdl('pgm/test_cbpdn::test_17 StepSizeBB',
                         {'StepSizePolicy': StepSizeBB()}),
    lambda: _st_pgm_rsdl('pgm/test_cbpdn::test_18 Monotone',
                         {'Monotone': True}),
]


def selftest():
    rows = []
    for f in SELFTESTS:
        rows.extend(f())
    w = max(len(r[0]) for r in rows)
    print('%-*s  %-22s  %-24s  %-8s  %-5s  %s' % (
        w, 'test', 'pinned', 'reached', 'tol', 'iters', 'result'))
    nfail = 0
    for name, pinned, reached, tol, ok, iters in rows:
        print('%-*s  %-22s  %-24.17g  %-8.2g  %-5d  %s' % (
            w, name, pinned, reached, tol, iters, 'PASS' if ok else 'FAIL'))
        nfail += not ok
    print('%d checks, %d failed' % (len(rows), nfail))
    return 1 if nfail else 0


# ---------------------------------------------------------------------------
# run: iterate-by-iterate reference for C tests
# ---------------------------------------------------------------------------

def _parse_value(s):
    t = s.strip()
    lo = t.lower()
    if lo in ('true', 'yes', 'on'):
        return True
    if lo in ('false', 'no', 'off'):
        return False
    if lo in ('none', 'null'):
        return None
    if ',' in t:
        return tuple(_parse_value(x) for x in t.split(',') if x.strip())
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return t


def _parse_kv(args):
    params, opt = {}, {}
    for a in args:
        if '=' not in a:
            raise SystemExit('expected key=value, got %r' % a)
        k, v = a.split('=', 1)
        val = _parse_value(v)
        if k in ('lmbda', 'axes', 'caxis', 'dimK', 'dimN'):
            if k == 'axes' and not isinstance(val, tuple):
                val = (val,)
            params[k] = val
        elif k in ('Backtrack.gamma_u', 'Backtrack.gamma_d',
                   'Backtrack.maxiter'):
            bt = opt.get('Backtrack')
            bt = dict(bt) if isinstance(bt, dict) else \
                {'kind': bt} if isinstance(bt, str) else {}
            bt[k.split('.')[1]] = val
            opt['Backtrack'] = bt
        elif k in ('Momentum.a', 'Momentum.b'):
            mo = opt.get('Momentum')
            mo = dict(mo) if isinstance(mo, dict) else \
                {'kind': mo if isinstance(mo, str) else 'linear'}
            mo[k.split('.')[1]] = val
            opt['Momentum'] = mo
        elif k == 'Backtrack' and isinstance(opt.get('Backtrack'), dict):
            if str(val).lower() in ('none', 'false') or val is None:
                opt['Backtrack'] = None
            else:
                opt['Backtrack']['kind'] = str(val).lower()
        elif k == 'Momentum' and isinstance(opt.get('Momentum'), dict):
            opt['Momentum']['kind'] = str(val).lower()
        elif '.' in k:
            a, b = k.split('.', 1)
            opt.setdefault(a, {})[b] = val
        else:
            opt[k] = val
    return params, opt


def _history(itstat, fields):
    h = np.array([[np.nan if s[f] is None else float(s[f]) for f in fields]
                  for s in itstat], dtype=np.float64).reshape(-1, len(fields))
    return h


def build_solver(solver, inputs, params, opt):
    lm = params.get('lmbda')
    if solver == 'bpdn':
        return BPDN(inputs['D'], inputs['S'], lm, opt)
    if solver == 'cbpdn':
        return ConvBPDN(inputs['D'], inputs['S'], lm, opt,
                        dimK=params.get('dimK'), dimN=params.get('dimN', 2))
    if solver == 'pgm_cbpdn':
        return PGMConvBPDN(inputs['D'], inputs['S'], lm, opt,
                           dimK=params.get('dimK'), dimN=params.get('dimN', 2))
    if solver in ('tvl1', 'tvl2'):
        cls = TVL1Denoise if solver == 'tvl1' else TVL2Denoise
        if lm is None:
            raise SystemExit('%s needs lmbda=' % solver)
        return cls(inputs['S'], lm, opt, axes=params.get('axes', (0, 1)),
                   caxis=params.get('caxis'))
    if solver == 'rpca':
        return RobustPCA(inputs['S'], lm, opt)
    raise SystemExit('unknown solver %r' % solver)


def _save(path, a):
    np.save(path, np.ascontiguousarray(np.asarray(a, dtype=np.float64)))


def write_outputs(solver, b, outdir):
    os.makedirs(outdir, exist_ok=True)
    if solver == 'pgm_cbpdn':
        _save(os.path.join(outdir, 'history.npy'), _history(b.itstat,
                                                             PGM_FIELDS))
        _save(os.path.join(outdir, 'extra.npy'), np.zeros((len(b.itstat), 0)))
        _save(os.path.join(outdir, 'X.npy'), b.X)
        _save(os.path.join(outdir, 'Y.npy'),
              irfftn(b.Yf, b.cri.Nv, b.cri.axisN))
        _save(os.path.join(outdir, 'min.npy'), b.X)
        last = 'L %.17g' % b.L
    else:
        _save(os.path.join(outdir, 'history.npy'), _history(b.itstat,
                                                             STAT_FIELDS))
        _save(os.path.join(outdir, 'extra.npy'),
              _history(b.itstat, b.extra_fields))
        _save(os.path.join(outdir, 'X.npy'), b.X)
        _save(os.path.join(outdir, 'Y.npy'), b.Y)
        _save(os.path.join(outdir, 'U.npy'), b.U)
        if solver != 'rpca':
            _save(os.path.join(outdir, 'min.npy'), b.getmin())
        last = 'rho %.17g' % b.rho
    with open(os.path.join(outdir, 'info.txt'), 'w') as f:
        f.write('iterations %d\nk %d\n%s\nlmbda %.17g\n' % (
            len(b.itstat), b.k, last, b.lmbda))


def run(argv):
    if len(argv) < 3:
        raise SystemExit('usage: run SOLVER INPUT_DIR OUT_DIR [key=value ...]')
    solver, indir, outdir = argv[0], argv[1], argv[2]
    params, opt = _parse_kv(argv[3:])
    inputs = {}
    for name in ('D', 'S', 'Y0', 'U0', 'X0'):
        path = os.path.join(indir, name + '.npy')
        if os.path.exists(path):
            inputs[name] = np.load(path)
    for name in ('Y0', 'U0', 'X0'):
        if name in inputs:
            opt[name] = inputs[name]
    b = build_solver(solver, inputs, params, opt)
    b.solve()
    write_outputs(solver, b, outdir)
    return 0


# ---------------------------------------------------------------------------
# bench: fixed-seed problems, exactly 100 iterations
# ---------------------------------------------------------------------------

def bench_problem(row):
    """Returns (solver, inputs, params). All inputs float64."""
    rs = np.random.RandomState(20240601)
    if row == 'bpdn':
        N, M, K = 512, 1024, 64
        D = rs.randn(N, M)
        X0 = np.zeros((M, K))
        for k in range(K):
            X0[rs.permutation(M)[:16], k] = rs.randn(16)
        S = D.dot(X0) + 0.01 * rs.randn(N, K)
        return 'bpdn', dict(D=D, S=S), dict(lmbda=0.1)
    if row == 'cbpdn':
        N, Nd, M = 512, 8, 32
        D = rs.randn(Nd, Nd, M)
        D /= np.sqrt(np.sum(D ** 2, axis=(0, 1), keepdims=True))
        X0 = np.zeros((N, N, M))
        xp = rs.rand(N, N, M) < 2e-3
        X0[xp] = rs.randn(np.count_nonzero(xp))
        S = np.sum(_fftconv_real(D, X0, (0, 1)), axis=2) + \
            0.01 * rs.randn(N, N)
        return 'cbpdn', dict(D=D, S=S), dict(lmbda=0.05)
    if row in ('tvl1', 'tvl2'):
        N = 512
        U = np.ones((N, N))
        U[:, 0:N // 2] = -1
        U[N // 4:3 * N // 4, N // 4:3 * N // 4] = 0.5
        if row == 'tvl1':
            V = rs.randn(N, N)
            V[rs.rand(N, N) > 0.05] = 0
            return 'tvl1', dict(S=U + V), dict(lmbda=1.0, axes=(0, 1))
        return 'tvl2', dict(S=U + 0.1 * rs.randn(N, N)), \
            dict(lmbda=0.1, axes=(0, 1))
    if row == 'rpca':
        N, R = 512, 10
        u = rs.randn(N, R)
        V = rs.randn(N, N)
        V[rs.rand(N, N) > 0.05] = 0
        return 'rpca', dict(S=u.dot(u.T) + 10 * V), dict()
    raise SystemExit('unknown bench row %r' % row)


def bench(argv):
    row = argv[0]
    outdir = argv[1] if len(argv) > 1 else None
    solver, inputs, params = bench_problem(row)
    opt = {'MaxMainIter': 100, 'RelStopTol': 0.0, 'FastSolve': False}
    b = build_solver(solver, inputs, params, opt)
    t0 = time.perf_counter()
    b.solve()
    ms = 1e3 * (time.perf_counter() - t0)
    print('time %.1f' % ms)
    print('obj %.17g' % b.itstat[-1]['ObjFun'])
    print('iterations %d' % len(b.itstat))
    if outdir is not None:
        os.makedirs(outdir, exist_ok=True)
        for k, v in inputs.items():
            _save(os.path.join(outdir, k + '.npy'), v)
        with open(os.path.join(outdir, 'params.txt'), 'w') as f:
            f.write('solver %s\nlmbda %.17g\n' % (solver, b.lmbda))
            if 'axes' in params:
                f.write('axes %s\n' % ','.join(map(str, params['axes'])))
        write_outputs(solver, b, outdir)
    return 0


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd, rest = argv[0], argv[1:]
    if cmd == 'selftest':
        return selftest()
    if cmd == 'run':
        return run(rest)
    if cmd == 'bench':
        if not rest:
            raise SystemExit('usage: bench bpdn|cbpdn|tvl1|tvl2|rpca [OUT_DIR]')
        return bench(rest)
    raise SystemExit('unknown command %r (selftest | run | bench)' % cmd)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
