"""Sparse coding and denoising solvers with sporco 0.2.2's class names, options and iteration
statistics (include/anygpu/solvers.h, docs/solvers.md), the way sporco.cupy offers them on a
GPU:

    >>> from anygpu.sporco import BPDN, np2cp, cp2np
    >>> b = BPDN(np2cp(D), np2cp(S), 5e-3, {'MaxMainIter': 500, 'RelStopTol': 5e-4})
    >>> X = cp2np(b.solve())            # an anygpu Array, copied to numpy
    >>> b.getitstat().ObjFun[-1]

``opt`` is a dict with sporco's keys (nested dicts for 'AutoRho', 'AutoStop' and
'Backtrack'); a key anygpu does not know is InvalidArgumentError naming it. Arrays are numpy
arrays or anygpu Arrays; the problem is solved on ``device`` (default: the device of the
first Array given, else the default device) in the arrays' dtype, float32 or float64 (or
``opt['DataType']``). BPDN's, the TV solvers' and RobustPCA's arrays are laid out as
sporco's. The convolutional solvers take anygpu's layouts by default: the dictionary
[M][Nd0][Nd1] or [M][C][Nd0][Nd1], the signals [N0][N1], [K][N0][N1], [C][N0][N1] or
[K][C][N0][N1] (the shapes say which, without dimK), X [K][M][N0][N1] as an anygpu Array
(docs/solvers.md maps sporco's axes onto these); with ``layout="sporco"`` they take sporco's
arrays and ``dimK`` and give numpy arrays of sporco's shapes, transposed on the host. TV
solvers take ``axes`` (sporco's ``axes`` argument).
"""

import collections
import ctypes
import math

import numpy

from ._core import Array, _array_copy_to, asarray
from ._lib import fn
from ._sci import Owned, c_ptr, device_array, float_dtype, invalid, number, resolve_device, set_options

__all__ = ["BPDN", "ConvBPDN", "TVL1Denoise", "TVL2Denoise", "RobustPCA", "PGMConvBPDN", "np2cp", "cp2np"]


class _AutoRho(ctypes.Structure):
    _fields_ = [("enabled", ctypes.c_bool), ("period", ctypes.c_int), ("scaling", ctypes.c_double),
                ("rsdl_ratio", ctypes.c_double), ("rsdl_target", ctypes.c_double),
                ("auto_scaling", ctypes.c_bool), ("std_residuals", ctypes.c_bool)]


class _AdmmOptions(ctypes.Structure):
    _fields_ = [("max_iter", ctypes.c_size_t), ("abs_stop_tol", ctypes.c_double), ("rel_stop_tol", ctypes.c_double),
                ("relax", ctypes.c_double), ("rho", ctypes.c_double), ("auto_rho", _AutoRho),
                ("fast_solve", ctypes.c_bool), ("f_eval_x", ctypes.c_bool), ("g_eval_y", ctypes.c_bool),
                ("return_x", ctypes.c_bool), ("lin_solve_check", ctypes.c_bool), ("nonneg", ctypes.c_bool),
                ("l1_weight", ctypes.c_double), ("dfid_weight", ctypes.c_double), ("tv_weight", ctypes.c_double),
                ("max_gs_iter", ctypes.c_int), ("gs_tol", ctypes.c_double),
                ("y0", ctypes.c_void_p), ("u0", ctypes.c_void_p)]


class _AutoStop(ctypes.Structure):
    _fields_ = [("enabled", ctypes.c_bool), ("tau0", ctypes.c_double)]


class _Backtrack(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("gamma_u", ctypes.c_double), ("gamma_d", ctypes.c_double),
                ("maxiter", ctypes.c_int)]


class _PgmOptions(ctypes.Structure):
    _fields_ = [("max_iter", ctypes.c_size_t), ("rel_stop_tol", ctypes.c_double), ("l", ctypes.c_double),
                ("auto_stop", _AutoStop), ("monotone", ctypes.c_bool), ("momentum", ctypes.c_int),
                ("momentum_a", ctypes.c_double), ("momentum_b", ctypes.c_double), ("step_policy", ctypes.c_int),
                ("backtrack", _Backtrack), ("fast_solve", ctypes.c_bool), ("nonneg", ctypes.c_bool),
                ("no_bndry_cross", ctypes.c_bool), ("l1_weight", ctypes.c_double), ("x0", ctypes.c_void_p)]


class _IterStats(ctypes.Structure):
    _fields_ = [("k", ctypes.c_size_t), ("obj", ctypes.c_double), ("dfid", ctypes.c_double),
                ("reg", ctypes.c_double), ("reg2", ctypes.c_double), ("r", ctypes.c_double),
                ("s", ctypes.c_double), ("eps_pri", ctypes.c_double), ("eps_dua", ctypes.c_double),
                ("rho", ctypes.c_double), ("xrrs", ctypes.c_double), ("gs_iter", ctypes.c_int),
                ("rsdl", ctypes.c_double), ("f_btrack", ctypes.c_double), ("q_btrack", ctypes.c_double),
                ("iter_btrack", ctypes.c_int), ("l", ctypes.c_double)]


_vp = ctypes.c_void_p
_vpp = ctypes.POINTER(ctypes.c_void_p)
_admm_default = fn("ag_solver_options_default", [ctypes.c_int, ctypes.POINTER(_AdmmOptions)])
_pgm_default = fn("ag_pgm_options_default", [ctypes.POINTER(_PgmOptions)])
_bpdn_create = fn("ag_bpdn_create", [_vp, _vp, _vp, ctypes.c_double, ctypes.POINTER(_AdmmOptions), _vpp])
_cbpdn_create = fn("ag_cbpdn_create", [_vp, _vp, _vp, ctypes.c_double, ctypes.POINTER(_AdmmOptions), _vpp])
_tv_args = [_vp, _vp, ctypes.c_double, ctypes.POINTER(ctypes.c_int), ctypes.c_size_t,
            ctypes.POINTER(_AdmmOptions), _vpp]
_tvl1_create = fn("ag_tvl1_create", _tv_args)
_tvl2_create = fn("ag_tvl2_create", _tv_args)
_rpca_create = fn("ag_rpca_create", [_vp, _vp, ctypes.c_double, ctypes.POINTER(_AdmmOptions), _vpp])
_pgm_cbpdn_create = fn("ag_pgm_cbpdn_create", [_vp, _vp, _vp, ctypes.c_double, ctypes.POINTER(_PgmOptions), _vpp])
_solve = fn("ag_solver_solve", [_vp])
_iterate = fn("ag_solver_iterate", [_vp, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)])
_history = fn("ag_solver_history", [_vp, ctypes.POINTER(ctypes.POINTER(_IterStats))], restype=ctypes.c_size_t,
              status=False)
_var_get = fn("ag_solver_var_get", [_vp, ctypes.c_int], restype=_vp, status=False)
_rho = fn("ag_solver_rho", [_vp], restype=ctypes.c_double, status=False)
_lambda = fn("ag_solver_lambda", [_vp], restype=ctypes.c_double, status=False)
_pgm_l = fn("ag_solver_pgm_l", [_vp], restype=ctypes.c_double, status=False)
_converged = fn("ag_solver_converged", [_vp], restype=ctypes.c_bool, status=False)
_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.POINTER(_IterStats), _vp)
_set_callback = fn("ag_solver_set_callback", [_vp, _CALLBACK, _vp])
_destroy = fn("ag_solver_destroy", [_vp], restype=None, status=False)

_VAR_X, _VAR_Y, _VAR_U, _VAR_RESULT = 0, 1, 2, 3


def _none_nan(field):
    """An option whose None means the solver's default (NaN in C)."""
    def write(struct, value, label):
        setattr(struct, field, math.nan if value is None else value)
    return write


def _aux_var_obj(struct, value, label):
    struct.f_eval_x, struct.g_eval_y = not value, bool(value)


def _ignored(struct, value, label):
    """Options without effect here (Verbose, StatusHeader, IterTimer), and those the solver
    takes before the struct is filled (DataType, Callback, Y0, U0, X0)."""


_AUTO_RHO_KEYS = {"Enabled": "enabled", "Period": "period", "Scaling": "scaling", "RsdlRatio": "rsdl_ratio",
                  "RsdlTarget": _none_nan("rsdl_target"), "AutoScaling": "auto_scaling",
                  "StdResiduals": "std_residuals"}
_ADMM_KEYS = {"MaxMainIter": "max_iter", "AbsStopTol": "abs_stop_tol", "RelStopTol": "rel_stop_tol",
              "RelaxParam": "relax", "rho": _none_nan("rho"), "AutoRho": ("auto_rho", _AUTO_RHO_KEYS),
              "FastSolve": "fast_solve", "fEvalX": "f_eval_x", "gEvalY": "g_eval_y", "AuxVarObj": _aux_var_obj,
              "ReturnX": "return_x", "LinSolveCheck": "lin_solve_check", "NonNegCoef": "nonneg",
              "L1Weight": "l1_weight", "DFidWeight": "dfid_weight", "TVWeight": "tv_weight",
              "MaxGSIter": "max_gs_iter", "GSTol": "gs_tol",
              "Verbose": _ignored, "StatusHeader": _ignored, "IterTimer": _ignored,
              "DataType": _ignored, "Callback": _ignored, "Y0": _ignored, "U0": _ignored}

_MOMENTUM = {"nesterov": 0, "linear": 1, "genlinear": 2}
_STEP_POLICY = {None: 0, "cauchy": 1, "bb": 2}
_BACKTRACK = {None: 0, "standard": 1, "robust": 2}


def _momentum(struct, value, label):
    """'Momentum': "nesterov", ("linear", b) or ("genlinear", a, b) (sporco's MomentumNesterov(),
    MomentumLinear(b), MomentumGenLinear(a, b)); a bare "linear" / "genlinear" keeps the
    classes' default a and b."""
    name, params = (value, ()) if isinstance(value, str) else (value[0], tuple(value[1:]))
    code = _MOMENTUM.get(str(name).lower())
    if code is None or len(params) > (1 if code == 1 else 2 if code == 2 else 0):
        raise ValueError("%r: \"nesterov\", (\"linear\", b) or (\"genlinear\", a, b)" % (value,))
    struct.momentum = code
    if code == 1 and params:
        struct.momentum_b = params[0]
    if code == 2 and params:
        struct.momentum_a, struct.momentum_b = (params + (struct.momentum_b,))[:2]


def _choice(field, table, what):
    def write(struct, value, label):
        key = value.lower() if isinstance(value, str) else value
        if key not in table:
            raise ValueError("%r: %s" % (value, what))
        setattr(struct, field, table[key])
    return write


_BACKTRACK_KEYS = {"Kind": _choice("kind", _BACKTRACK, "None, \"standard\" or \"robust\""),
                   "gamma_u": _none_nan("gamma_u"), "gamma_d": "gamma_d", "maxiter": "maxiter"}
_PGM_KEYS = {"MaxMainIter": "max_iter", "RelStopTol": "rel_stop_tol", "L": _none_nan("l"),
             "AutoStop": ("auto_stop", {"Enabled": "enabled", "Tau0": "tau0"}), "Monotone": "monotone",
             "Momentum": _momentum,
             "StepSizePolicy": _choice("step_policy", _STEP_POLICY, "None, \"cauchy\" or \"bb\""),
             "Backtrack": ("backtrack", _BACKTRACK_KEYS), "FastSolve": "fast_solve", "NonNegCoef": "nonneg",
             "NoBndryCross": "no_bndry_cross", "L1Weight": "l1_weight",
             "Verbose": _ignored, "StatusHeader": _ignored, "IterTimer": _ignored,
             "DataType": _ignored, "Callback": _ignored, "X0": _ignored}


def _guarded(keys, who):
    """@keys with every writer made to refuse, naming the option, what its field cannot take."""
    out = {}
    for name, target in keys.items():
        if isinstance(target, tuple):
            out[name] = (target[0], _guarded(target[1], who))
            continue

        def write(struct, value, label, target=target):
            try:
                if callable(target):
                    target(struct, value, label)
                else:
                    if isinstance(value, (dict, list, tuple, str, Array, numpy.ndarray)) or value is None:
                        raise TypeError
                    if getattr(type(struct), target).size == ctypes.sizeof(ctypes.c_size_t) and value < 0:
                        raise ValueError("negative")
                    setattr(struct, target, value)
            except (TypeError, ValueError, IndexError) as e:
                raise invalid(who, "opt[%r] cannot be %r%s" % (label, value, ": %s" % e if str(e) else "")) from None
        out[name] = write
    return out


def np2cp(x, device=None):
    """sporco.cupy's np2cp: the numpy array @x as an anygpu Array on @device (asarray)."""
    return asarray(x, device=device)


def cp2np(a):
    """sporco.cupy's cp2np: the anygpu Array @a copied into a numpy array (to_host); a numpy
    array is returned as it is."""
    return a.to_host() if isinstance(a, Array) else numpy.asarray(a)


class _Solver(Owned):
    """What every solver shares: the C solver, solve(), getitstat(), the iterates."""

    _who = "anygpu.sporco"
    _free = staticmethod(_destroy)
    _stats = ()  # (sporco field, ag_iter_stats field) pairs of this solver's IterationStats
    _pgm = False
    _not_options = ()  # ADMM keys sporco's class lacks (ReturnX is ADMMEqual's: BPDN's, ConvBPDN's)

    def _prepare(self, opt, arrays, device, kind):
        """The device, dtype, options struct and device arrays for a new solver; @arrays is a
        list of (argument name, value, allowed dimension counts)."""
        who = self._who
        if opt is not None and not isinstance(opt, dict):
            raise invalid(who, "opt must be a dict, not %s" % type(opt).__name__)
        opt = dict(opt or {})
        for key in self._not_options:
            if key in opt:
                raise invalid(who, "opt has no option %r (sporco's %s has none)" % (key, type(self).__name__))
        dtype = opt.pop("DataType", None)
        callback = opt.pop("Callback", None)
        init = opt.pop("X0" if self._pgm else "Y0", None), None if self._pgm else opt.pop("U0", None)
        dev = resolve_device(device, *(a for _, a, _ in arrays))
        if dtype is None:
            first = arrays[0][1]
            dtype = first.dtype if isinstance(first, Array) else numpy.asarray(first).dtype
            if dtype.kind != "f":
                dtype = numpy.float64 if dev.fp64 else numpy.float32
        dtype = float_dtype(dtype, who, "the problem's dtype")
        self.device, self.dtype = dev, dtype
        device_arrays = [device_array(a, dev, who, name, dtype, dims) for name, a, dims in arrays]
        if self._pgm:
            c_opt = _PgmOptions()
            _pgm_default(ctypes.byref(c_opt))
            set_options(c_opt, opt, _guarded(_PGM_KEYS, who), who)
        else:
            c_opt = _AdmmOptions()
            _admm_default(kind, ctypes.byref(c_opt))
            set_options(c_opt, opt, _guarded(_ADMM_KEYS, who), who)
        self._keep = [device_array(a, dev, who, name, dtype) if a is not None else None
                      for name, a in zip(("X0" if self._pgm else "Y0", "U0"), init)]
        if self._pgm:
            c_opt.x0 = self._keep[0].ptr if self._keep[0] is not None else None
        else:
            c_opt.y0, c_opt.u0 = (k.ptr if k is not None else None for k in self._keep)
        self._callback = callback
        self.opt = c_opt
        return device_arrays, c_opt

    def _lmbda(self, lmbda, optional):
        if lmbda is None and optional:
            return math.nan
        return number(lmbda, self._who, "lmbda", low=0)

    def _made(self, create, *args):
        ptr = ctypes.c_void_p()
        create(None, *args, ctypes.byref(self.opt), ctypes.byref(ptr))
        self._ptr = ptr
        self._keep = None
        if self._callback is not None:
            if not callable(self._callback):
                raise invalid(self._who, "opt['Callback'] must be callable")
            self._c_callback = _CALLBACK(lambda s, stats, user: 1 if self._callback(self) else 0)
            _set_callback(self._ptr, self._c_callback, None)

    def _var(self, var):
        p = _var_get(self._ptr, var)
        if not p:
            return None
        out = ctypes.c_void_p()
        _array_copy_to(ctypes.c_void_p(p), self.device._ptr, ctypes.byref(out))
        return Array(out.value)

    def solve(self):
        """Runs MaxMainIter iterations at most (fewer when the stopping test passes, or the
        Callback returns True), continuing from where a previous solve() stopped, and returns
        what sporco's solve() returns, as a new anygpu Array: BPDN's and ConvBPDN's Y (X with
        ReturnX), the TV solvers' and PGMConvBPDN's X, RobustPCA's pair (X, Y)."""
        _solve(self._ptr)
        return self._var(_VAR_RESULT)

    def iterate(self, n):
        """Runs @n iterations at most (as solve() with MaxMainIter n); returns how many ran."""
        done = ctypes.c_size_t()
        _iterate(self._ptr, number(n, self._who + ".iterate", "n", low=0, integer=True), ctypes.byref(done))
        return done.value

    @property
    def X(self):
        """The primary variable, a copy as a new Array."""
        return self._var(_VAR_X)

    @property
    def Y(self):
        """The auxiliary variable (None for the PGM solver), a copy."""
        return self._var(_VAR_Y)

    @property
    def U(self):
        """The scaled dual variable (None for the PGM solver), a copy."""
        return self._var(_VAR_U)

    @property
    def lmbda(self):
        return _lambda(self._ptr)

    @property
    def rho(self):
        return _rho(self._ptr)

    @property
    def converged(self):
        """Whether the last iteration passed the stopping test."""
        return bool(_converged(self._ptr))

    def getitstat(self):
        """The statistics of every iteration run so far (none with FastSolve), as sporco's
        getitstat(): a namedtuple of lists, one per field of this solver's IterationStats
        (sporco's names; Time is not kept)."""
        stats = ctypes.POINTER(_IterStats)()
        n = _history(self._ptr, ctypes.byref(stats))
        cls = _itstat_type(type(self).__name__, tuple(name for name, _ in self._stats))
        return cls(*([getattr(stats[i], field) for i in range(n)] for _, field in self._stats))


_ITSTAT_TYPES = {}


def _itstat_type(name, fields):
    key = (name, fields)
    if key not in _ITSTAT_TYPES:
        _ITSTAT_TYPES[key] = collections.namedtuple(name + "IterationStats", fields)
    return _ITSTAT_TYPES[key]


_ADMM_COMMON = (("PrimalRsdl", "r"), ("DualRsdl", "s"), ("EpsPrimal", "eps_pri"), ("EpsDual", "eps_dua"),
                ("Rho", "rho"))
_BPDN_STATS = (("Iter", "k"), ("ObjFun", "obj"), ("DFid", "dfid"), ("RegL1", "reg")) + _ADMM_COMMON + (
    ("XSlvRelRes", "xrrs"),)
_TV_STATS = (("Iter", "k"), ("ObjFun", "obj"), ("DFid", "dfid"), ("RegTV", "reg")) + _ADMM_COMMON + (
    ("GSIter", "gs_iter"), ("GSRelRes", "xrrs"))


class BPDN(_Solver):
    """sporco.admm.bpdn.BPDN: argmin_X (1/2) ||D X - S||_2^2 + lmbda ||X||_1, D (N, M), S
    (N, K) or (N,); lmbda None is sporco's default, 0.1 max |D^T S|. solve() returns Y (M, K)
    unless ReturnX."""

    _who = "anygpu.sporco.BPDN"
    _stats = _BPDN_STATS

    def __init__(self, D, S, lmbda=None, opt=None, device=None):
        (d, s), c_opt = self._prepare(opt, [("D", D, (2,)), ("S", S, (1, 2))], device, 0)
        self._made(_bpdn_create, c_ptr(d), c_ptr(s), self._lmbda(lmbda, True))


class _ConvLayout:
    """sporco's array layouts for the convolutional solvers (layout="sporco"): D (Nd0, Nd1, M)
    or (Nd0, Nd1, C, M), S (N0, N1), (N0, N1, K), (N0, N1, C) or (N0, N1, C, K) with sporco's
    dimK rule, and coefficient arrays (X, Y, U, and the X0 / Y0 / U0 options) (N0, N1, C, K, M)
    with C > 1 only for a single-channel D coding each channel of S. These are numpy arrays,
    transposed on the host: solve(), X, Y and U give numpy arrays of sporco's shape (5-D, more
    than an anygpu Array's 4 dimensions)."""

    def _sporco_in(self, D, S, dimK, layout, opt):
        who = self._who
        self._layout = layout
        if layout == "anygpu":
            if dimK is not None:
                raise invalid(who, "dimK is for layout='sporco': anygpu's layouts say it by their shapes")
            return D, S, opt
        if layout != "sporco":
            raise invalid(who, "layout must be 'anygpu' or 'sporco', not %r" % (layout,))
        D, S = numpy.asarray(D), numpy.asarray(S)
        if D.ndim not in (3, 4) or S.ndim not in (2, 3, 4):
            raise invalid(who, "D of shape %r and S of shape %r: sporco's are (Nd0, Nd1[, C], M) and (N0, N1[, C][, K])"
                          % (D.shape, S.shape))
        multi = D.ndim == 4
        if dimK is None:  # sporco.cnvrep.CSC_ConvRepIndexing's rule
            dimC = 0 if S.ndim == 2 else int(multi) if S.ndim == 3 else 1
            dimK = S.ndim - 2 - dimC
        else:
            dimK = number(dimK, who, "dimK", 0, 1, integer=True)
            dimC = S.ndim - 2 - dimK
            if dimC not in (0, 1):
                raise invalid(who, "dimK %d does not fit S of shape %r" % (dimK, S.shape))
        d = D.transpose(3, 2, 0, 1) if multi else D.transpose(2, 0, 1)
        s = S if S.ndim == 2 else S.transpose(2, 0, 1) if S.ndim == 3 else S.transpose(3, 2, 0, 1)
        self._xdims = (S.shape[-1] if dimK else 1, S.shape[2] if dimC and not multi else 1)
        opt = dict(opt or {}) if isinstance(opt, dict) or opt is None else opt
        for key in ("X0", "Y0", "U0"):
            if isinstance(opt, dict) and opt.get(key) is not None:
                x = numpy.asarray(opt[key])
                if x.ndim != 5:
                    raise invalid(who, "opt[%r] has shape %r; sporco's is (N0, N1, C, K, M)" % (key, x.shape))
                opt[key] = x.transpose(3, 2, 4, 0, 1).reshape(-1, x.shape[4], x.shape[0], x.shape[1])
        return numpy.ascontiguousarray(d), numpy.ascontiguousarray(s), opt

    def _var(self, var):
        out = super()._var(var)
        if out is None or self._layout == "anygpu":
            return out
        x = out.to_host()
        return x.reshape(self._xdims + x.shape[1:]).transpose(3, 4, 1, 0, 2)


class ConvBPDN(_ConvLayout, _Solver):
    """sporco.admm.cbpdn.ConvBPDN: argmin_X (1/2) sum_c ||sum_m d_cm * x_m - s_c||_2^2 + lmbda
    sum_m ||x_m||_1 (circular convolutions), D [M][Nd0][Nd1] or [M][C][Nd0][Nd1], S [N0][N1],
    [K][N0][N1], [C][N0][N1] or [K][C][N0][N1] (anygpu's layouts, include/anygpu/solvers.h);
    X is [K][M][N0][N1]. lmbda None: sporco's default. With layout="sporco", D, S, dimK and
    the results are sporco's (see _ConvLayout)."""

    _who = "anygpu.sporco.ConvBPDN"
    _stats = _BPDN_STATS

    def __init__(self, D, S, lmbda=None, opt=None, dimK=None, device=None, layout="anygpu"):
        D, S, opt = self._sporco_in(D, S, dimK, layout, opt)
        (d, s), c_opt = self._prepare(opt, [("D", D, (3, 4)), ("S", S, (2, 3, 4))], device, 1)
        self._made(_cbpdn_create, c_ptr(d), c_ptr(s), self._lmbda(lmbda, True))


class _TVDenoise(_Solver):
    _stats = _TV_STATS
    _not_options = ("ReturnX",)

    def __init__(self, S, lmbda, opt=None, axes=(0, 1), device=None):
        (s,), c_opt = self._prepare(opt, [("S", S, (1, 2, 3))], device, self._kind)
        if axes is None:
            axes = (0,) if len(s.shape) == 1 else (0, 1)
        try:
            axes = tuple(number(a, self._who, "axes", low=0, high=len(s.shape) - 1, integer=True) for a in axes)
        except TypeError:
            raise invalid(self._who, "axes must be a sequence of axes, not %r" % (axes,)) from None
        if len(s.shape) == 1 and axes == (0, 1):
            axes = (0,)
        c_axes = (ctypes.c_int * len(axes))(*axes)
        self._made(self._create, c_ptr(s), self._lmbda(lmbda, False), c_axes, len(axes))


class TVL1Denoise(_TVDenoise):
    """sporco.admm.tvl1.TVL1Denoise: argmin_X ||W_df (X - S)||_1 + lmbda W_tv ||grad X||_2,1
    over @axes of S (1-D to 3-D; sporco's default (0, 1))."""

    _who = "anygpu.sporco.TVL1Denoise"
    _kind = 2
    _create = staticmethod(_tvl1_create)


class TVL2Denoise(_TVDenoise):
    """sporco.admm.tvl2.TVL2Denoise: argmin_X (1/2) ||W_df (X - S)||_2^2 + lmbda W_tv
    ||grad X||_2,1 over @axes of S."""

    _who = "anygpu.sporco.TVL2Denoise"
    _kind = 3
    _create = staticmethod(_tvl2_create)


class RobustPCA(_Solver):
    """sporco.admm.rpca.RobustPCA: argmin ||X||_* + lmbda ||Y||_1 such that X + Y = S, S a
    2-D matrix; lmbda None is sporco's default, 1 / sqrt(rows). solve() returns (X, Y), the
    low-rank and the sparse part, as sporco's does."""

    _who = "anygpu.sporco.RobustPCA"
    _stats = (("Iter", "k"), ("ObjFun", "obj"), ("NrmNuc", "dfid"), ("NrmL1", "reg"), ("Cnstr", "reg2")) + \
        _ADMM_COMMON
    _not_options = ("ReturnX",)

    def __init__(self, S, lmbda=None, opt=None, device=None):
        (s,), c_opt = self._prepare(opt, [("S", S, (2,))], device, 4)
        self._made(_rpca_create, c_ptr(s), self._lmbda(lmbda, True))

    def solve(self):
        """As sporco's RobustPCA.solve(): runs the iterations (as _Solver.solve) and returns
        the pair (X, Y), the low-rank and the sparse part, each a new anygpu Array."""
        X = super().solve()
        return X, self.Y


class PGMConvBPDN(_ConvLayout, _Solver):
    """sporco.pgm.cbpdn.ConvBPDN (FISTA): ConvBPDN's problem with a single-channel dictionary
    D [M][Nd0][Nd1] and S [N0][N1] or [K][N0][N1]; X [K][M][N0][N1]. opt keys are sporco's PGM
    ones: 'MaxMainIter', 'RelStopTol', 'L', 'AutoStop': {'Enabled', 'Tau0'}, 'Monotone',
    'Momentum' ("nesterov", ("linear", b), ("genlinear", a, b)), 'StepSizePolicy' (None,
    "cauchy", "bb"), 'Backtrack': {'Kind': "standard" | "robust", 'gamma_u', 'gamma_d',
    'maxiter'}, 'FastSolve', 'NonNegCoef', 'NoBndryCross', 'L1Weight', 'X0'. layout="sporco" as
    ConvBPDN's."""

    _who = "anygpu.sporco.PGMConvBPDN"
    _pgm = True
    _stats = (("Iter", "k"), ("ObjFun", "obj"), ("DFid", "dfid"), ("RegL1", "reg"), ("Rsdl", "rsdl"),
              ("F_Btrack", "f_btrack"), ("Q_Btrack", "q_btrack"), ("IterBTrack", "iter_btrack"), ("L", "l"))

    def __init__(self, D, S, lmbda=None, opt=None, dimK=None, device=None, layout="anygpu"):
        D, S, opt = self._sporco_in(D, S, dimK, layout, opt)
        (d, s), c_opt = self._prepare(opt, [("D", D, (3,)), ("S", S, (2, 3))], device, 5)
        self._made(_pgm_cbpdn_create, c_ptr(d), c_ptr(s), self._lmbda(lmbda, True))

    @property
    def L(self):
        """The current inverse step size (sporco's b.L)."""
        return _pgm_l(self._ptr)
