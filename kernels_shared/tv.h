/* kernels_shared/tv.h - the tv family: the stencils of sporco's total-variation denoisers
   (TVL1Denoise, TVL2Denoise; src/solvers/tv.c), f32 and f64. Expanded once per dtype (AG_TC,
   see variant.h); the other dtypes define nothing. Both are AG_ITEMS kernels, an item per
   element of an array viewed as [n0][n1][n2], the total variation taken along the axes whose
   bit is set in `axes` (1: axis 0, 2: axis 1, 4: axis 2).

   At each element the neighbours along those axes (the one before, then the one after, axis
   by axis, as sporco adds them) sum to nb, and their count is the element's Laplace centre
   weight lcw (2 per axis, 1 less at each end; an axis of length 1 counts 1, as sporco's
   lcw[[0, -1]] -= 1 subtracts once where both ends are one index).
   ag_tv_jacobi_<t>:  out = (rho (nb(x) + atyu) + w2 s) / (w2 + rho lcw), one sweep of
                      sporco's GaussSeidelStep (which is a Jacobi sweep: x is read, out written);
   ag_tv_laplace_<t>: out = a (lcw x - nb(x)) + b x, where lcw x - nb(x) is A^T A x, the sum
                      over the axes of gradT(grad(x)). */

#define AG_SHAPE_TV_JACOBI(A, V, B, T1, T2, T3)                                                     \
  A(const T1, x) A(const T1, atyu) A(const T1, s) V(ag_u64, n0) V(ag_u64, n1) V(ag_u64, n2)         \
      V(ag_u64, axes) V(T1, rho) V(T1, w2) A(T1, out)
#define AG_SHAPE_TV_LAPLACE(A, V, B, T1, T2, T3)                                                    \
  A(const T1, x) V(ag_u64, n0) V(ag_u64, n1) V(ag_u64, n2) V(ag_u64, axes) V(T1, a) V(T1, b) A(T1, out)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

#define AG_TV(fn) AG_CAT2(ag_tv_##fn, AG_SFX)

/* The neighbours' sum of element i along one axis of length n, position p, stride st, and
   their count added to *cnt. */
AG_INLINE AG_T AG_TV(along)(AG_GLOBAL const AG_T *x, ag_u64 i, ag_u64 p, ag_u64 n, ag_u64 st, AG_T acc,
                            AG_T *cnt) {
  if (p > 0)
    acc += x[i - st], *cnt += 1;
  if (p + 1 < n)
    acc += x[i + st], *cnt += 1;
  if (n == 1)
    *cnt += 1;
  return acc;
}

/* nb(x) at element i, its count in *cnt. */
AG_INLINE AG_T AG_TV(nb)(AG_GLOBAL const AG_T *x, ag_u64 i, ag_u64 n0, ag_u64 n1, ag_u64 n2, ag_u64 axes,
                         AG_T *cnt) {
  ag_u64 p2 = i % n2, p1 = i / n2 % n1, p0 = i / (n1 * n2);
  AG_T acc = 0;
  *cnt = 0;
  if (axes & 1)
    acc = AG_TV(along)(x, i, p0, n0, n1 * n2, acc, cnt);
  if (axes & 2)
    acc = AG_TV(along)(x, i, p1, n1, n2, acc, cnt);
  if (axes & 4)
    acc = AG_TV(along)(x, i, p2, n2, 1, acc, cnt);
  return acc;
}

AG_ITEMS(AG_KN(ag_tv_jacobi), AG_SHAPE_TV_JACOBI, AG_T, , , {
  AG_T cnt;
  AG_T nb = AG_TV(nb)(x, i, n0, n1, n2, axes, &cnt);
  out[i] = (rho * (nb + atyu[i]) + w2 * s[i]) / (w2 + rho * cnt);
})

AG_ITEMS(AG_KN(ag_tv_laplace), AG_SHAPE_TV_LAPLACE, AG_T, , , {
  AG_T cnt;
  AG_T nb = AG_TV(nb)(x, i, n0, n1, n2, axes, &cnt);
  out[i] = a * (cnt * x[i] - nb) + b * x[i];
})

#undef AG_TV
#endif
#include "variant_end.h"
#endif
