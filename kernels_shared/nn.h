/* kernels_shared/nn.h - the nn family: activations and their gradients, softmax and
   log-softmax along an axis with their gradients, the mean squared error and the logit
   cross-entropy with their gradients, and the dense layer's bias-and-activation pass
   (src/learn/nn.c, src/learn/dense.c). Expanded once per dtype (AG_TC, see variant.h): f32 and
   f64 only; the other dtypes define nothing.

   ag_nn_act_<t>:       elementwise, y = f(x) for activation act (AG_NN_* below, the values
                        of ag_activation);
   ag_nn_act_grad_<t>:  elementwise, dx = dy f'(y), f' taken from the output y;
   ag_nn_bias_act_<t>:  elementwise over y [rows][m], in place: y = f(y + b[j]) (j = i % m;
                        without b when has_b is 0, b then being any array, not read);
   ag_nn_softmax_<t>:   an item per line of x viewed as [outer][len][inner] (item
                        o * inner + k, so that neighbouring items read neighbouring
                        addresses): the line's max m, s = sum exp(x - m), then
                        y = exp(x - m) / s, or y = (x - m) - log s when is_log is 1;
   ag_nn_softmax_grad_<t>: an item per line: dx = y (dy - sum(dy y)), or for the log-softmax
                        dx = dy - exp(y) sum(dy);
   ag_nn_mse_<t>:       elementwise: d = yhat - y, terms = d^2, grad = gscale d (set or
                        added);
   ag_nn_lce_<t>:       an item per row of logits [rows][c]: the row's term
                        -sum_c y_c logsoftmax_c and grad = gscale (softmax sum(y) - y) (set or
                        added).

   The two losses write terms only when flags has AG_NN_TERMS and grad only with AG_NN_GRAD
   (an array not written may be any array of the right size: the caller passes the other);
   AG_NN_ADD adds to grad. Every line or row is read again for each pass, so a line's work
   stays with one work-item and no loop runs longer than the line (the caller keeps lines
   within the device's loop limit). */

/* Activations, as ag_activation (learn.h) numbers them. */
#define AG_NN_IDENTITY 0
#define AG_NN_SIGMOID 1
#define AG_NN_SOFTPLUS 2
#define AG_NN_RELU 3
#define AG_NN_TANH 4
#define AG_NN_EXP 5
#define AG_NN_LOG 6

/* PyTorch's softplus threshold (torch.nn.Softplus(beta=1, threshold=20)), and the largest
   output below it, log1p(exp(20)) = 20 + 2.06e-9: the gradient, which sees only y, takes
   y above this as x above the threshold (only x in (20, 20 + 2.06e-9] are taken for below). */
#define AG_NN_SOFTPLUS_THRESHOLD 20
#define AG_NN_SOFTPLUS_Y_THRESHOLD 20.000000002061153

/* The losses' flags. */
#define AG_NN_TERMS 1
#define AG_NN_GRAD 2
#define AG_NN_ADD 4

/* ---- parameter lists (skeleton_gpu.h), also read by src/learn: T1 is the element type ---- */
#define AG_SHAPE_NN_ACT(A, V, B, T1, T2, T3) A(const T1, x) V(ag_u64, act) A(T1, y)
#define AG_SHAPE_NN_ACT_GRAD(A, V, B, T1, T2, T3) A(const T1, y) A(const T1, dy) V(ag_u64, act) A(T1, dx)
#define AG_SHAPE_NN_BIAS_ACT(A, V, B, T1, T2, T3) A(const T1, b) V(ag_u64, m) V(ag_u64, has_b) V(ag_u64, act) A(T1, y)
#define AG_SHAPE_NN_SOFTMAX(A, V, B, T1, T2, T3)                                                  \
  A(const T1, x) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, is_log) A(T1, y)
#define AG_SHAPE_NN_SOFTMAX_GRAD(A, V, B, T1, T2, T3)                                             \
  A(const T1, y) A(const T1, dy) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, is_log) A(T1, dx)
#define AG_SHAPE_NN_MSE(A, V, B, T1, T2, T3)                                                      \
  A(const T1, yhat) A(const T1, y) V(T1, gscale) V(ag_u64, flags) A(T1, terms) A(T1, grad)
#define AG_SHAPE_NN_LCE(A, V, B, T1, T2, T3)                                                      \
  A(const T1, logits) A(const T1, y) V(ag_u64, c) V(T1, gscale) V(ag_u64, flags) A(T1, terms) A(T1, grad)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

/* Math the dialect does not spell: log1p, expm1 and tanh (float forms by name on the host). */
#ifndef AG_NNM_MATH
#define AG_NNM_MATH
#if AG_DIALECT_HOST
#define AG_NNM_LOG1P_f32 log1pf
#define AG_NNM_EXPM1_f32 expm1f
#define AG_NNM_TANH_f32 tanhf
#else
#define AG_NNM_LOG1P_f32 log1p
#define AG_NNM_EXPM1_f32 expm1
#define AG_NNM_TANH_f32 tanh
#endif
#define AG_NNM_LOG1P_f64 log1p
#define AG_NNM_EXPM1_f64 expm1
#define AG_NNM_TANH_f64 tanh
#endif

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

/* This variant's names: AG_NN(f) is ag_nn_f_f32. */
#define AG_NN(fn) AG_CAT2(ag_nn_##fn, AG_SFX)
#define AG_NN_EXPF AG_CAT2(AG_EXP, AG_SFX)
#define AG_NN_LOGF AG_CAT2(AG_LOG, AG_SFX)
#define AG_NN_LOG1PF AG_CAT2(AG_NNM_LOG1P, AG_SFX)
#define AG_NN_EXPM1F AG_CAT2(AG_NNM_EXPM1, AG_SFX)
#define AG_NN_TANHF AG_CAT2(AG_NNM_TANH, AG_SFX)

/* y = f(x). relu keeps NaN (the comparison is false) as torch.relu does. */
AG_INLINE AG_T AG_NN(f)(AG_T x, ag_u64 act) {
  switch (act) {
  case AG_NN_SIGMOID:
    return (AG_T)1 / ((AG_T)1 + AG_NN_EXPF(-x));
  case AG_NN_SOFTPLUS:
    return x > (AG_T)AG_NN_SOFTPLUS_THRESHOLD ? x : AG_NN_LOG1PF(AG_NN_EXPF(x));
  case AG_NN_RELU:
    return x < (AG_T)0 ? (AG_T)0 : x;
  case AG_NN_TANH:
    return AG_NN_TANHF(x);
  case AG_NN_EXP:
    return AG_NN_EXPF(x);
  case AG_NN_LOG:
    return AG_NN_LOGF(x);
  default:
    return x;
  }
}

/* f'(x) from y = f(x), as PyTorch's backward formulas give it: relu's is 0 where y <= 0 (a
   NaN y passes dy, as threshold_backward does); softplus's is 1 above the threshold and
   1 - exp(-y) = exp(x) / (1 + exp(x)) below it, through expm1 so that small y keep their
   digits (AG_NN_SOFTPLUS_Y_THRESHOLD tells the two apart); log's 1 / x is exp(-y). */
AG_INLINE AG_T AG_NN(df)(AG_T y, ag_u64 act) {
  switch (act) {
  case AG_NN_SIGMOID:
    return y * ((AG_T)1 - y);
  case AG_NN_SOFTPLUS:
    return y > (AG_T)AG_NN_SOFTPLUS_Y_THRESHOLD ? (AG_T)1 : -AG_NN_EXPM1F(-y);
  case AG_NN_RELU:
    return y <= (AG_T)0 ? (AG_T)0 : (AG_T)1;
  case AG_NN_TANH:
    return (AG_T)1 - y * y;
  case AG_NN_EXP:
    return y;
  case AG_NN_LOG:
    return AG_NN_EXPF(-y);
  default:
    return (AG_T)1;
  }
}

/* dy f'(y); relu selects rather than multiplies, so an infinite dy where y <= 0 gives 0, not
   NaN, as PyTorch's where-based backward does. */
AG_INLINE AG_T AG_NN(grad)(AG_T y, AG_T dy, ag_u64 act) {
  if (act == AG_NN_RELU)
    return y <= (AG_T)0 ? (AG_T)0 : dy;
  if (act == AG_NN_IDENTITY)
    return dy;
  return dy * AG_NN(df)(y, act);
}

AG_EW(AG_KN(ag_nn_act), AG_SHAPE_NN_ACT, AG_T, , , AG_EACH, y[i] = AG_NN(f)(x[i], act))

AG_EW(AG_KN(ag_nn_act_grad), AG_SHAPE_NN_ACT_GRAD, AG_T, , , AG_EACH, dx[i] = AG_NN(grad)(y[i], dy[i], act))

AG_EW(AG_KN(ag_nn_bias_act), AG_SHAPE_NN_BIAS_ACT, AG_T, , , AG_EACH_REPEAT,
      y[i] = AG_NN(f)(has_b ? y[i] + b[j] : y[i], act))

/* The max of a line (NaN if any element is NaN, so the line's results are NaN as PyTorch's). */
AG_INLINE AG_T AG_NN(line_max)(AG_GLOBAL const AG_T *x, ag_u64 len, ag_u64 inner) {
  AG_T m = x[0];
  for (ag_u64 j = 1; j < len; j++) {
    AG_T v = x[j * inner];
    m = m != m || v <= m ? m : v;
  }
  return m;
}

/* sum exp(x - m) over a line. An all -inf line has m = -inf and x - m NaN: the line's
   results are NaN, as PyTorch's. */
AG_INLINE AG_T AG_NN(line_sumexp)(AG_GLOBAL const AG_T *x, ag_u64 len, ag_u64 inner, AG_T m) {
  AG_T s = 0;
  for (ag_u64 j = 0; j < len; j++)
    s += AG_NN_EXPF(x[j * inner] - m);
  return s;
}

AG_ITEMS(AG_KN(ag_nn_softmax), AG_SHAPE_NN_SOFTMAX, AG_T, , , {
  ag_u64 at = (i / inner) * len * inner + i % inner;
  AG_T m = AG_NN(line_max)(x + at, len, inner);
  AG_T s = AG_NN(line_sumexp)(x + at, len, inner, m);
  if (is_log) {
    AG_T ls = AG_NN_LOGF(s);
    for (ag_u64 j = 0; j < len; j++)
      y[at + j * inner] = (x[at + j * inner] - m) - ls;
  } else {
    AG_T r = (AG_T)1 / s;
    for (ag_u64 j = 0; j < len; j++)
      y[at + j * inner] = AG_NN_EXPF(x[at + j * inner] - m) * r;
  }
})

AG_ITEMS(AG_KN(ag_nn_softmax_grad), AG_SHAPE_NN_SOFTMAX_GRAD, AG_T, , , {
  ag_u64 at = (i / inner) * len * inner + i % inner;
  AG_T s = 0;
  for (ag_u64 j = 0; j < len; j++)
    s += is_log ? dy[at + j * inner] : dy[at + j * inner] * y[at + j * inner];
  for (ag_u64 j = 0; j < len; j++) {
    ag_u64 k = at + j * inner;
    AG_T yk = y[k], g = dy[k];
    dx[k] = is_log ? g - AG_NN_EXPF(yk) * s : yk * (g - s);
  }
})

AG_EW(AG_KN(ag_nn_mse), AG_SHAPE_NN_MSE, AG_T, , , AG_EACH, {
  AG_T d = yhat[i] - y[i];
  if (flags & AG_NN_TERMS)
    terms[i] = d * d;
  if (flags & AG_NN_GRAD)
    grad[i] = (flags & AG_NN_ADD) ? grad[i] + gscale * d : gscale * d;
})

/* A row's term -sum_c y_c (l_c - m - log s) and, with AG_NN_GRAD, its gradient
   gscale (softmax_c sum(y) - y_c): three passes over the row (max; sum exp and sum y; term
   and gradient). */
AG_ITEMS(AG_KN(ag_nn_lce), AG_SHAPE_NN_LCE, AG_T, , , {
  AG_GLOBAL const AG_T *l = logits + i * c;
  AG_GLOBAL const AG_T *t = y + i * c;
  AG_T m = AG_NN(line_max)(l, c, 1);
  AG_T s = 0, sy = 0;
  for (ag_u64 j = 0; j < c; j++) {
    s += AG_NN_EXPF(l[j] - m);
    sy += t[j];
  }
  AG_T ls = AG_NN_LOGF(s), r = (AG_T)1 / s, term = 0;
  for (ag_u64 j = 0; j < c; j++) {
    AG_T z = l[j] - m;
    term -= t[j] * (z - ls);
    if (flags & AG_NN_GRAD) {
      AG_T g = gscale * (AG_NN_EXPF(z) * r * sy - t[j]);
      grad[i * c + j] = (flags & AG_NN_ADD) ? grad[i * c + j] + g : g;
    }
  }
  if (flags & AG_NN_TERMS)
    terms[i] = term;
})

#undef AG_NN
#undef AG_NN_EXPF
#undef AG_NN_LOGF
#undef AG_NN_LOG1PF
#undef AG_NN_EXPM1F
#undef AG_NN_TANHF
#endif /* AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64) */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
