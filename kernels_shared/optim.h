/* kernels_shared/optim.h - the optim family: one fused elementwise pass per optimiser step
   (ag_optimizer_step, src/learn/optim.c). Expanded once per dtype (AG_TC, see variant.h); f32
   and f64 define the kernels, the other dtypes nothing. Every kernel is an AG_EW kernel over
   the parameter's elements, reading the parameter, its gradient and the state once and
   writing the parameter and the state once.

   Each follows its reference's arithmetic operation by operation, so that f64 trajectories
   agree with the reference to rounding (docs/learn.md, "Optimisers"); the values that depend
   on the step (bias corrections, the first step) are worked out on the host and passed in.

   ag_optim_sgd_<r>:           torch.optim.SGD without momentum, Optimisers.Descent:
                               d = +-g (+ wd x); x = x + nlr d, nlr = -lr.
   ag_optim_sgd_momentum_<r>:  torch.optim.SGD with momentum: d as above; buf = d on the first
                               step, else buf mom + omd d (omd = 1 - dampening); d = d + mom buf
                               (nesterov) or buf; x = x + nlr d.
   ag_optim_momentum_flux_<r>: Optimisers.Momentum: v = rho v + eta g; x = x - v.
   ag_optim_adam_<r>:          torch.optim.Adam (single-tensor path of 1.13): d = +-g (+ wd x);
                               m = m b1 + omb1 d; v = v b2 + omb2 d d; x = x + nss m / den,
                               den = sqrt(v) / bc2s + eps, nss = -lr / (1 - b1^t),
                               bc2s = sqrt(1 - b2^t).
   ag_optim_adam_amsgrad_<r>:  the same, with vmax = max(vmax, v) (NaN kept) in den's place.
   ag_optim_adam_flux_<r>:     Optimisers.Adam: m = b1 m + (1 - b1) g;
                               v = b2 v + (1 - b2) g^2; x = x - m / c1 / (sqrt(v / c2) + eps) eta,
                               c1 = 1 - b1^t, c2 = 1 - b2^t (1 - b1 and 1 - b2 taken in the
                               element type, as Optimisers.jl does).

   flags of the torch kernels: AG_OPTIM_F_MAXIMIZE negates g first, AG_OPTIM_F_DECAY adds
   wd x, AG_OPTIM_F_FIRST marks the first step, AG_OPTIM_F_NESTEROV the Nesterov form. The
   state is zero before the first step, as the references' is; the branches on flags are the
   same for every element. */

#define AG_OPTIM_F_MAXIMIZE 1
#define AG_OPTIM_F_DECAY 2
#define AG_OPTIM_F_FIRST 4
#define AG_OPTIM_F_NESTEROV 8

/* ---- parameter lists (skeleton_gpu.h), also read by src/learn/optim.c: T1 is the element
   type. ---- */
#define AG_SHAPE_OPTIM_SGD(A, V, B, T1, T2, T3)                                                    \
  A(T1, x) A(const T1, g) V(T1, nlr) V(T1, wd) V(ag_u64, flags)
#define AG_SHAPE_OPTIM_SGD_MOMENTUM(A, V, B, T1, T2, T3)                                           \
  A(T1, x) A(const T1, g) A(T1, buf) V(T1, nlr) V(T1, wd) V(T1, mom) V(T1, omd) V(ag_u64, flags)
#define AG_SHAPE_OPTIM_MOMENTUM_FLUX(A, V, B, T1, T2, T3)                                          \
  A(T1, x) A(const T1, g) A(T1, v) V(T1, eta) V(T1, rho)
#define AG_SHAPE_OPTIM_ADAM(A, V, B, T1, T2, T3)                                                   \
  A(T1, x) A(const T1, g) A(T1, m) A(T1, v) V(T1, b1) V(T1, omb1) V(T1, b2) V(T1, omb2) V(T1, wd)  \
      V(T1, nss) V(T1, bc2s) V(T1, eps) V(ag_u64, flags)
#define AG_SHAPE_OPTIM_ADAM_AMSGRAD(A, V, B, T1, T2, T3)                                           \
  A(T1, x) A(const T1, g) A(T1, m) A(T1, v) A(T1, vmax) V(T1, b1) V(T1, omb1) V(T1, b2) V(T1, omb2) \
      V(T1, wd) V(T1, nss) V(T1, bc2s) V(T1, eps) V(ag_u64, flags)
#define AG_SHAPE_OPTIM_ADAM_FLUX(A, V, B, T1, T2, T3)                                              \
  A(T1, x) A(const T1, g) A(T1, m) A(T1, v) V(T1, eta) V(T1, b1) V(T1, b2) V(T1, c1) V(T1, c2)     \
      V(T1, eps)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

#define AG_OP(fn) AG_CAT2(ag_op_##fn, AG_SFX)
#define AG_OP_SQRT AG_CAT2(AG_SQRT, AG_SFX)

/* torch's gradient as the update sees it: negated first when maximising, then plus the
   coupled weight decay (grad.add(param, alpha=weight_decay)). */
AG_INLINE AG_T AG_OP(torch_grad)(AG_T g, AG_T x, AG_T wd, ag_u64 flags) {
  AG_T d = (flags & AG_OPTIM_F_MAXIMIZE) ? -g : g;
  return (flags & AG_OPTIM_F_DECAY) ? d + wd * x : d;
}

AG_EW(AG_KN(ag_optim_sgd), AG_SHAPE_OPTIM_SGD, AG_T, , , AG_EACH,
      x[i] = x[i] + nlr * AG_OP(torch_grad)(g[i], x[i], wd, flags))

/* buf.mul_(momentum).add_(d, alpha=1 - dampening), or a copy of d on the first step. */
AG_INLINE AG_T AG_OP(sgd_momentum)(AG_GLOBAL AG_T *x, AG_GLOBAL const AG_T *g, AG_GLOBAL AG_T *buf, ag_u64 i,
                                   AG_T nlr, AG_T wd, AG_T mom, AG_T omd, ag_u64 flags) {
  AG_T xi = x[i];
  AG_T d = AG_OP(torch_grad)(g[i], xi, wd, flags);
  AG_T b = (flags & AG_OPTIM_F_FIRST) ? d : buf[i] * mom + omd * d;
  buf[i] = b;
  AG_T step = (flags & AG_OPTIM_F_NESTEROV) ? d + mom * b : b;
  return xi + nlr * step;
}

AG_EW(AG_KN(ag_optim_sgd_momentum), AG_SHAPE_OPTIM_SGD_MOMENTUM, AG_T, , , AG_EACH,
      x[i] = AG_OP(sgd_momentum)(x, g, buf, i, nlr, wd, mom, omd, flags))

AG_EW(AG_KN(ag_optim_momentum_flux), AG_SHAPE_OPTIM_MOMENTUM_FLUX, AG_T, , , AG_EACH, {
  AG_T vi = rho * v[i] + eta * g[i];
  v[i] = vi;
  x[i] = x[i] - vi;
})

/* torch.maximum: NaN if either is NaN. */
AG_INLINE AG_T AG_OP(nan_max)(AG_T a, AG_T b) { return (a > b || a != a) ? a : b; }

/* One element of torch's Adam step; vmax is read and written only when ams is 1 (a constant
   where it is inlined, so each kernel keeps just its own path). */
AG_INLINE void AG_OP(adam)(AG_GLOBAL AG_T *x, AG_GLOBAL const AG_T *g, AG_GLOBAL AG_T *m, AG_GLOBAL AG_T *v,
                           AG_GLOBAL AG_T *vmax, int ams, ag_u64 i, AG_T b1, AG_T omb1, AG_T b2, AG_T omb2,
                           AG_T wd, AG_T nss, AG_T bc2s, AG_T eps, ag_u64 flags) {
  AG_T xi = x[i];
  AG_T d = AG_OP(torch_grad)(g[i], xi, wd, flags);
  AG_T mi = m[i] * b1 + omb1 * d;
  AG_T vi = v[i] * b2 + omb2 * d * d;
  m[i] = mi;
  v[i] = vi;
  if (ams) {
    vi = AG_OP(nan_max)(vmax[i], vi);
    vmax[i] = vi;
  }
  AG_T den = AG_OP_SQRT(vi) / bc2s + eps;
  x[i] = xi + nss * mi / den;
}

AG_EW(AG_KN(ag_optim_adam), AG_SHAPE_OPTIM_ADAM, AG_T, , , AG_EACH,
      AG_OP(adam)(x, g, m, v, v, 0, i, b1, omb1, b2, omb2, wd, nss, bc2s, eps, flags))

AG_EW(AG_KN(ag_optim_adam_amsgrad), AG_SHAPE_OPTIM_ADAM_AMSGRAD, AG_T, , , AG_EACH,
      AG_OP(adam)(x, g, m, v, vmax, 1, i, b1, omb1, b2, omb2, wd, nss, bc2s, eps, flags))

AG_EW(AG_KN(ag_optim_adam_flux), AG_SHAPE_OPTIM_ADAM_FLUX, AG_T, , , AG_EACH, {
  AG_T gi = g[i];
  AG_T mi = b1 * m[i] + ((AG_T)1 - b1) * gi;
  AG_T vi = b2 * v[i] + ((AG_T)1 - b2) * (gi * gi);
  m[i] = mi;
  v[i] = vi;
  x[i] = x[i] - mi / c1 / (AG_OP_SQRT(vi / c2) + eps) * eta;
})

#undef AG_OP
#undef AG_OP_SQRT
#endif
#include "variant_end.h"
#endif
