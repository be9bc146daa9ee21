/* kernels_shared/prox.h - the prox family: proximal operators of l2 norms along an axis,
   finite differences and the partial sums of image metrics (ag_prox_l2, ag_proj_l2,
   ag_prox_sl1l2, ag_grad, ag_grad_t, ag_metric_mse, ag_snr, ag_psnr: src/solvers/prox.c). Expanded
   once per dtype (AG_TC, see variant.h): the norm and difference kernels for f32, f64, c64
   and c128, the metric kernel for f32 and f64; other dtypes define nothing.

   Arrays are viewed as [outer][len][inner], len being the axis the operation runs along:
   element (o, j, k) is at (o * len + j) * inner + k.

   ag_prox_l2_lines_<t>: an item per line (o, k), item o * inner + k, so that neighbouring
                         items read neighbouring addresses: the line's 2-norm a (of the
                         soft-thresholded values when use_l1), then out = f(a) * w over the
                         line, w being the value or its soft threshold at l1;
   ag_prox_l2_scale_<t>: elementwise, the norms given (nrm, one per line): out = f(a) * v;
   ag_grad_<t>:          elementwise, out = x[j + 1] - x[j], 0 at j = len - 1;
   ag_grad_t_<t>:        elementwise, the adjoint: out = -x[0] at j = 0, x[j - 1] - x[j]
                         inside, x[len - 2] at j = len - 1, and 0 when len is 1;
   ag_metric_parts_<t>:  an item per part p, over elements p * pstep + s * jstep (s < steps,
                         below total): the sums of (ref - x)^2, of ref - ref[0] and of
                         (ref - ref[0])^2, compensated, in double where the device has it, each
                         written as a pair (value, remainder) of the element type, then the least
                         and the largest of ref (NaN if any is NaN): 8 values per part.

   f(a) is the factor of mode AG_PX_SHRINK, max(a - alpha, 0) / a and 0 where a is 0 (sporco's
   prox_l2), or of mode AG_PX_PROJECT, 1 where a <= alpha and alpha / a above (proj_l2); NaN
   where a is NaN. Norms are scaled as LAPACK's dnrm2 scales them, so no square overflows or
   underflows, except that f32 and c64 lines on devices with double precision add plain
   squares in double, where they cannot. */

/* ---- parameter lists (skeleton_gpu.h), also read by src/solvers/prox.c: T1 is the element
   type, T2 its real type. ---- */
#define AG_SHAPE_PROX_LINES(A, V, B, T1, T2, T3)                                                   \
  A(const T1, v) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, use_l1) V(T2, l1) V(ag_u64, mode)         \
      V(T2, alpha) A(T1, out)
#define AG_SHAPE_PROX_SCALE(A, V, B, T1, T2, T3)                                                   \
  A(const T1, v) A(const T2, nrm) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, mode) V(T2, alpha) A(T1, out)
#define AG_SHAPE_GRAD(A, V, B, T1, T2, T3) A(const T1, x) V(ag_u64, len) V(ag_u64, inner) A(T1, out)
#define AG_SHAPE_METRIC_PARTS(A, V, B, T1, T2, T3)                                                 \
  A(const T1, ref) A(const T1, x) V(ag_u64, total) V(ag_u64, steps) V(ag_u64, pstep) V(ag_u64, jstep) A(T1, part)

/* The modes of the factor, and the values each part of ag_metric_parts_<t> writes. */
#define AG_PX_SHRINK 0
#define AG_PX_PROJECT 1
#define AG_PX_PART_VALUES 8

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if (AG_FLOAT || AG_CPLX) && (!AG_NEEDS_F64 || AG_HAVE_F64)

/* This variant's names: AG_PX(norm) is ag_px_norm_f32. */
#define AG_PX(fn) AG_CAT2(ag_px_##fn, AG_SFX)
#define AG_PX_ABS AG_CAT2(AG_FABS, AG_RSFX)
#define AG_PX_SQRT AG_CAT2(AG_SQRT, AG_RSFX)

/* Single precision squares go to double where there is double: exact squares, no scaling. */
#if !AG_NEEDS_F64 && AG_HAVE_F64
#define AG_PX_WIDE 1
#else
#define AG_PX_WIDE 0
#endif

/* A running 2-norm: the plain sum of squares in double (AG_PX_WIDE), or (scale, ssq) with
   norm scale * sqrt(ssq) and every term divided by the largest magnitude so far. */
typedef struct AG_PX(norm) {
#if AG_PX_WIDE
  ag_f64 ssq;
#else
  AG_R scale, ssq;
#endif
} AG_PX(norm);

AG_INLINE AG_PX(norm) AG_PX(norm_add)(AG_PX(norm) s, AG_R a) {
#if AG_PX_WIDE
  s.ssq += (ag_f64)a * (ag_f64)a;
#else
  AG_R m = AG_PX_ABS(a);
  if (m > s.scale) {
    AG_R r = s.scale / m;
    s.ssq = 1 + s.ssq * r * r;
    s.scale = m;
  } else if (m != 0) { /* NaN too, which the quotient carries into ssq */
    AG_R r = m == s.scale ? (AG_R)1 : m / s.scale;
    s.ssq += r * r;
  }
#endif
  return s;
}

AG_INLINE AG_R AG_PX(norm_value)(AG_PX(norm) s) {
#if AG_PX_WIDE
  return (AG_R)sqrt(s.ssq);
#else
  return s.scale * AG_PX_SQRT(s.ssq);
#endif
}

/* The soft threshold of w at t: sign(w) max(|w| - t, 0), for complex w w / |w| max(|w| - t, 0),
   0 at 0, NaN kept. */
AG_INLINE AG_T AG_PX(shrink)(AG_T w, AG_R t) {
#if AG_CPLX
  AG_R m = AG_CAT2(AG_HYPOT, AG_RSFX)(w.x, w.y);
  if (m != m)
    return w;
  AG_R k = m - t > 0 ? (m - t) / m : (AG_R)0;
  return AG_MAKE(w.x * k, w.y * k);
#else
  if (w != w)
    return w;
  AG_R m = AG_PX_ABS(w) - t;
  return m > 0 ? (w < 0 ? -m : m) : (AG_T)0;
#endif
}

AG_INLINE AG_PX(norm) AG_PX(norm_elem)(AG_PX(norm) s, AG_T w) {
#if AG_CPLX
  return AG_PX(norm_add)(AG_PX(norm_add)(s, w.x), w.y);
#else
  return AG_PX(norm_add)(s, w);
#endif
}

AG_INLINE AG_T AG_PX(times)(AG_T w, AG_R f) {
#if AG_CPLX
  return AG_MAKE(w.x * f, w.y * f);
#else
  return w * f;
#endif
}

/* The factor a line of norm a is multiplied by (see the top). */
AG_INLINE AG_R AG_PX(factor)(AG_R a, ag_u64 mode, AG_R alpha) {
  if (a != a)
    return a;
  if (mode == AG_PX_PROJECT)
    return a <= alpha ? (AG_R)1 : alpha / a;
  AG_R m = a - alpha;
  return a == 0 || !(m > 0) ? (AG_R)0 : m / a;
}

AG_ITEMS(AG_KN(ag_prox_l2_lines), AG_SHAPE_PROX_LINES, AG_T, AG_R, , {
  ag_u64 at = (i / inner) * len * inner + i % inner;
  AG_PX(norm) s;
  s.ssq = 0;
#if !AG_PX_WIDE
  s.scale = 0;
#endif
  for (ag_u64 j = 0; j < len; j++) {
    AG_T w = v[at + j * inner];
    s = AG_PX(norm_elem)(s, use_l1 ? AG_PX(shrink)(w, l1) : w);
  }
  AG_R f = AG_PX(factor)(AG_PX(norm_value)(s), mode, alpha);
  for (ag_u64 j = 0; j < len; j++) {
    AG_T w = v[at + j * inner];
    out[at + j * inner] = AG_PX(times)(use_l1 ? AG_PX(shrink)(w, l1) : w, f);
  }
})

AG_EW(AG_KN(ag_prox_l2_scale), AG_SHAPE_PROX_SCALE, AG_T, AG_R, , AG_EACH,
      out[i] = AG_PX(times)(v[i], AG_PX(factor)(nrm[i / (len * inner) * inner + i % inner], mode, alpha)))

AG_INLINE AG_T AG_PX(sub)(AG_T a, AG_T b) {
#if AG_CPLX
  return AG_MAKE(a.x - b.x, a.y - b.y);
#else
  return a - b;
#endif
}

AG_INLINE AG_T AG_PX(zero)(void) {
#if AG_CPLX
  return AG_MAKE((AG_R)0, (AG_R)0);
#else
  return (AG_T)0;
#endif
}

AG_EW(AG_KN(ag_grad), AG_SHAPE_GRAD, AG_T, , , AG_EACH,
      out[i] = i / inner % len + 1 < len ? AG_PX(sub)(x[i + inner], x[i]) : AG_PX(zero)())

/* Row j of the transpose of grad's matrix has -1 at j (but for the last row) and 1 at j - 1
   (but for the first). */
AG_INLINE AG_T AG_PX(grad_t)(AG_GLOBAL const AG_T *x, ag_u64 i, ag_u64 j, ag_u64 len, ag_u64 inner) {
  AG_T below = j > 0 ? x[i - inner] : AG_PX(zero)();
  AG_T here = j + 1 < len ? x[i] : AG_PX(zero)();
  return AG_PX(sub)(below, here);
}

AG_EW(AG_KN(ag_grad_t), AG_SHAPE_GRAD, AG_T, , , AG_EACH, out[i] = AG_PX(grad_t)(x, i, i / inner % len, len, inner))

#if AG_FLOAT
/* Sums of the metrics: in double where the device has it, else in the element type; Kahan
   compensated either way (the total is s - c). */
#if AG_HAVE_F64
#define AG_PX_ACC ag_f64
#else
#define AG_PX_ACC AG_T
#endif
typedef struct AG_PX(kahan) {
  AG_PX_ACC s, c;
} AG_PX(kahan);

AG_INLINE AG_PX(kahan) AG_PX(kadd)(AG_PX(kahan) a, AG_PX_ACC v) {
  AG_PX_ACC y = v - a.c, t = a.s + y;
  a.c = (t - a.s) - y;
  a.s = t;
  return a;
}

/* The total as a pair of the element type: the rounded value, then what it left out. */
AG_INLINE void AG_PX(put)(AG_GLOBAL AG_T *p, AG_PX(kahan) a) {
  AG_T hi = (AG_T)a.s;
  p[0] = hi;
  p[1] = (AG_T)((a.s - (AG_PX_ACC)hi) - a.c);
}

AG_ITEMS(AG_KN(ag_metric_parts), AG_SHAPE_METRIC_PARTS, AG_T, , , {
  AG_PX(kahan) se, s1, s2;
  se.s = se.c = 0;
  s1 = s2 = se;
  AG_T r0 = ref[0], lo = r0, hi = r0;
  for (ag_u64 s = 0; s < steps; s++) {
    ag_u64 k = i * pstep + s * jstep;
    if (k >= total)
      break;
    AG_T r = ref[k];
    AG_PX_ACC d = (AG_PX_ACC)r - (AG_PX_ACC)x[k], c = (AG_PX_ACC)r - (AG_PX_ACC)r0;
    se = AG_PX(kadd)(se, d * d);
    s1 = AG_PX(kadd)(s1, c);
    s2 = AG_PX(kadd)(s2, c * c);
    lo = lo != lo || r >= lo ? lo : r; /* a NaN, once met, stays */
    hi = hi != hi || r <= hi ? hi : r;
  }
  AG_GLOBAL AG_T *p = part + i * AG_PX_PART_VALUES;
  AG_PX(put)(p, se);
  AG_PX(put)(p + 2, s1);
  AG_PX(put)(p + 4, s2);
  p[6] = lo;
  p[7] = hi;
})
#undef AG_PX_ACC
#endif /* AG_FLOAT */

#undef AG_PX
#undef AG_PX_ABS
#undef AG_PX_SQRT
#undef AG_PX_WIDE
#endif /* (AG_FLOAT || AG_CPLX) && (!AG_NEEDS_F64 || AG_HAVE_F64) */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
