"""Optimisers and losses of include/anygpu/learn.h (docs/learn.md), with torch.optim's and
Flux / Optimisers.jl's names:

    >>> import anygpu, anygpu.learn as L
    >>> w = anygpu.asarray(w0)                  # the parameter, updated in place
    >>> opt = L.Adam(w, lr=1e-3)                # torch.optim.Adam's arguments
    >>> loss, g = L.mse(model(w), y)            # the loss and its gradient
    >>> opt.step(w, g_w)

One optimiser holds the state of one parameter array (Optimisers.jl's setup per leaf); its
``step(param, grad)`` is one fused pass updating ``param`` (an anygpu Array) in place. torch's
flavour is ``SGD`` and ``Adam``; Flux's is ``Descent``, ``Momentum`` and ``FluxAdam`` (also
as ``anygpu.learn.flux.Descent``, ``.Momentum``, ``.Adam``), each with its reference's
defaults.

Each loss returns ``(loss, grad)``: the loss a Python float, its gradient with respect to the
first argument in that argument's kind (an anygpu Array for an Array, numpy for numpy); with
``grad=False`` only the loss. ``scale`` multiplies both, as the C API's.
"""

import ctypes
import types

import numpy

from ._core import Array, empty
from ._lib import fn
from ._sci import Owned, c_ptr, device_array, give_back, invalid, not_complex, number, refuse, resolve_device

__all__ = ["SGD", "Adam", "Descent", "Momentum", "FluxAdam", "flux", "mse", "logitcrossentropy",
           "nll_gridded", "sparsity", "entropy", "tv_image", "tsv"]


class _OptimOptions(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("lr", ctypes.c_double), ("momentum", ctypes.c_double),
                ("dampening", ctypes.c_double), ("nesterov", ctypes.c_bool), ("beta1", ctypes.c_double),
                ("beta2", ctypes.c_double), ("eps", ctypes.c_double), ("weight_decay", ctypes.c_double),
                ("amsgrad", ctypes.c_bool), ("maximize", ctypes.c_bool)]


_vp = ctypes.c_void_p
_optim_default = fn("ag_optim_options_default", [ctypes.c_int, ctypes.POINTER(_OptimOptions)])
_optimizer_create = fn("ag_optimizer_create", [ctypes.POINTER(_OptimOptions), _vp, ctypes.POINTER(_vp)])
_optimizer_step = fn("ag_optimizer_step", [_vp, _vp, _vp, _vp])
_optimizer_steps = fn("ag_optimizer_steps", [_vp], restype=ctypes.c_uint64, status=False)
_optimizer_destroy = fn("ag_optimizer_destroy", [_vp], restype=None, status=False)

_SGD, _MOMENTUM_FLUX, _MOMENTUM_TORCH, _ADAM_TORCH, _ADAM_FLUX = range(5)


class _Optimizer(Owned):
    """One parameter's optimiser state on its device (ag_optimizer)."""

    _who = "anygpu.learn"
    _free = staticmethod(_optimizer_destroy)

    def _make(self, param, kind, **fields):
        who = self._who
        if not isinstance(param, Array):
            raise invalid(who, "param must be an anygpu Array (updated in place), not %s" % type(param).__name__)
        opt = _OptimOptions()
        _optim_default(kind, ctypes.byref(opt))
        for name, value in fields.items():
            if isinstance(value, bool):
                setattr(opt, name, value)
            else:
                setattr(opt, name, number(value, who, name))
        self.options = {name: getattr(opt, name) for name, _ in _OptimOptions._fields_ if name != "kind"}
        ptr = ctypes.c_void_p()
        _optimizer_create(ctypes.byref(opt), c_ptr(param), ctypes.byref(ptr))
        self._ptr = ptr
        self.shape, self.dtype, self.device = param.shape, param.dtype, param.device

    def step(self, param, grad):
        """One step: @param (an Array of the optimiser's shape, dtype and device) updated in
        place from @grad (an Array, or anything numpy takes, copied to the device); returns
        @param."""
        who = self._who + ".step"
        if not isinstance(param, Array):
            raise invalid(who, "param must be an anygpu Array (updated in place), not %s" % type(param).__name__)
        if isinstance(grad, Array):
            not_complex(grad.dtype, who, "grad", param.dtype)
        grad = device_array(grad, param.device, who, "grad", None if isinstance(grad, Array) else param.dtype)
        _optimizer_step(None, self._ptr, c_ptr(param), c_ptr(grad))
        return param

    @property
    def steps(self):
        """The steps taken so far."""
        return _optimizer_steps(self._ptr)


def _flags(**kw):
    return {k: bool(v) for k, v in kw.items()}


class SGD(_Optimizer):
    """torch.optim.SGD for one parameter: lr, momentum (0: plain SGD), dampening, nesterov,
    weight_decay (coupled, g += weight_decay x), maximize; torch 1.13's updates
    (docs/learn.md)."""

    _who = "anygpu.learn.SGD"

    def __init__(self, param, lr, momentum=0, dampening=0, nesterov=False, weight_decay=0, maximize=False):
        momentum = number(momentum, self._who, "momentum", low=0)
        if momentum == 0:
            if nesterov or dampening:
                raise invalid(self._who, "nesterov and dampening need momentum > 0 (torch ignores a dampening "
                              "without momentum; anygpu refuses it rather than drop it)")
            self._make(param, _SGD, lr=lr, momentum=0, weight_decay=weight_decay, **_flags(maximize=maximize))
        else:
            self._make(param, _MOMENTUM_TORCH, lr=lr, momentum=momentum, dampening=dampening,
                       weight_decay=weight_decay, **_flags(nesterov=nesterov, maximize=maximize))


class Adam(_Optimizer):
    """torch.optim.Adam (1.13) for one parameter: lr, betas, eps, weight_decay (coupled),
    amsgrad, maximize."""

    _who = "anygpu.learn.Adam"

    def __init__(self, param, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
                 maximize=False):
        beta1, beta2 = _pair(betas, self._who, "betas")
        self._make(param, _ADAM_TORCH, lr=lr, beta1=beta1, beta2=beta2, eps=eps, weight_decay=weight_decay,
                   **_flags(amsgrad=amsgrad, maximize=maximize))


def _pair(value, who, arg):
    try:
        a, b = value
    except (TypeError, ValueError):
        raise invalid(who, "%s must be a pair of numbers, not %r" % (arg, value)) from None
    return a, b


class Descent(_Optimizer):
    """Optimisers.jl / Flux's Descent(eta = 0.1): x -= eta g."""

    _who = "anygpu.learn.Descent"

    def __init__(self, param, eta=0.1):
        self._make(param, _SGD, lr=eta)


class Momentum(_Optimizer):
    """Optimisers.jl / Flux's Momentum(eta = 0.01, rho = 0.9): v = rho v + eta g; x -= v."""

    _who = "anygpu.learn.Momentum"

    def __init__(self, param, eta=0.01, rho=0.9):
        self._make(param, _MOMENTUM_FLUX, lr=eta, momentum=rho)


class FluxAdam(_Optimizer):
    """Optimisers.jl / Flux's Adam(eta = 0.001, beta = (0.9, 0.999), epsilon = 1e-8), whose
    epsilon is added after the bias correction of sqrt(v) (torch's Adam adds it to
    sqrt(v) / sqrt(1 - beta2^t) too, but scales the step differently; docs/learn.md)."""

    _who = "anygpu.learn.FluxAdam"

    def __init__(self, param, eta=1e-3, beta=(0.9, 0.999), epsilon=1e-8):
        beta1, beta2 = _pair(beta, self._who, "beta")
        self._make(param, _ADAM_FLUX, lr=eta, beta1=beta1, beta2=beta2, eps=epsilon)


flux = types.SimpleNamespace(Descent=Descent, Momentum=Momentum, Adam=FluxAdam)
flux.__doc__ = "Flux / Optimisers.jl's names: flux.Descent, flux.Momentum, flux.Adam."

# ---- losses -----------------------------------------------------------------------------------

_loss_tail = [ctypes.c_double, _vp, _vp, ctypes.c_uint]
_mse = fn("ag_loss_mse", [_vp, _vp, _vp] + _loss_tail)
_lce = fn("ag_loss_logitcrossentropy", [_vp, _vp, _vp] + _loss_tail)
_nll = fn("ag_loss_nll_gridded", [_vp, _vp, _vp, _vp, _vp] + _loss_tail)
_sparsity = fn("ag_loss_sparsity", [_vp, _vp] + _loss_tail)
_entropy = fn("ag_loss_entropy", [_vp, _vp, _vp, ctypes.c_double] + _loss_tail)
_tv_image = fn("ag_loss_tv_image", [_vp, _vp, ctypes.c_double] + _loss_tail)
_tsv = fn("ag_loss_tsv", [_vp, _vp] + _loss_tail)

_REAL_OF = {"complex64": "float32", "complex128": "float64", "float32": "float32", "float64": "float64"}


def _loss(who, call, arg, first, others, params, scale, grad, dims=None):
    """Runs the loss @call on @first (the argument @arg the gradient is of) and @others (a list of
    (name, value, dtype: None for first's, "real" for its real counterpart, or a dtype)), with
    @params (C scalars between the arrays and scale); returns (loss, grad) or the loss."""
    as_array = isinstance(first, Array)
    dev = resolve_device(None, first)
    x = device_array(first, dev, who, arg, None, dims)
    real = _REAL_OF.get(x.dtype.name)
    if real is None:
        raise refuse("AG_ERR_UNSUPPORTED", who, "dtype %s: float32 or float64 (complex64 or complex128 for "
                     "visibilities) only" % x.dtype)
    arrays = [x]
    for name, value, dtype in others:
        dt = x.dtype if dtype is None else real if dtype == "real" else dtype
        arrays.append(device_array(value, dev, who, name, dt))
    loss = empty((1,), real, dev)
    g = empty(x.shape, x.dtype, dev) if grad else None
    call(None, *[c_ptr(a) for a in arrays], *params, number(scale, who, "scale"), c_ptr(loss), c_ptr(g), 0)
    value = float(loss.to_host()[0])
    return (value, give_back(g, as_array)) if grad else value


def mse(yhat, y, scale=1.0, grad=True):
    """Flux.mse / torch.nn.MSELoss(): mean((yhat - y)^2), and its gradient with respect to
    yhat, 2 (yhat - y) / n."""
    return _loss("anygpu.learn.mse", _mse, "yhat", yhat, [("y", y, None)], (), scale, grad)


def logitcrossentropy(logits, y, scale=1.0, grad=True):
    """Flux.logitcrossentropy over logits [B, C] (the class axis last) and y [B, C] (one-hot
    or probabilities): mean over the batch of -sum_c y_c logsoftmax(logits)_c, and its
    gradient with respect to the logits."""
    return _loss("anygpu.learn.logitcrossentropy", _lce, "logits", logits, [("y", y, None)], (), scale, grad, (2,))


def nll_gridded(vis, data, weight, mask, scale=1.0, grad=True):
    """MPoL v0.2's nll_gridded: (1 / 2N) sum over mask of weight |data - vis|^2, vis and data
    complex [nchan, npix, npix], weight real and mask (nonzero: used) of that shape; the
    gradient is with respect to vis."""
    mask = None if mask is None else (numpy.asarray(mask) != 0).astype(numpy.uint8) \
        if not isinstance(mask, Array) else mask
    return _loss("anygpu.learn.nll_gridded", _nll, "vis", vis,
                 [("data", data, None), ("weight", weight, "real"), ("mask", mask, "uint8")], (), scale, grad)


def sparsity(cube, scale=1.0, grad=True):
    """MPoL's sparsity (no mask): sum |cube|; gradient sign(cube)."""
    return _loss("anygpu.learn.sparsity", _sparsity, "cube", cube, [], (), scale, grad)


def entropy(cube, prior, tot_flux=10.0, scale=1.0, grad=True):
    """MPoL's entropy: (1 / tot_flux) sum cube log(cube / prior), cube and prior positive."""
    tot = number(tot_flux, "anygpu.learn.entropy", "tot_flux", low=0, low_open=True)
    return _loss("anygpu.learn.entropy", _entropy, "cube", cube, [("prior", prior, None)], (tot,), scale, grad)


def tv_image(cube, epsilon=1e-10, scale=1.0, grad=True):
    """MPoL's TV_image over cube [nchan, ny, nx]: sum sqrt(dx^2 + dy^2 + epsilon)."""
    eps = number(epsilon, "anygpu.learn.tv_image", "epsilon", low=0)
    return _loss("anygpu.learn.tv_image", _tv_image, "cube", cube, [], (eps,), scale, grad, (3,))


def tsv(cube, scale=1.0, grad=True):
    """MPoL's TSV over cube [nchan, ny, nx]: sum dx^2 + dy^2."""
    return _loss("anygpu.learn.tsv", _tsv, "cube", cube, [], (), scale, grad, (3,))
