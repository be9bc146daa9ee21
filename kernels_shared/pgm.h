/* kernels_shared/pgm.h - the pgm family: the DFT-domain pieces of sporco's proximal gradient
   ConvBPDN (sporco.pgm.cbpdn.ConvBPDN; src/solvers/pgm_cbpdn.c). Expanded once per dtype
   (AG_TC, see variant.h): the spectra's kernels for c64 and c128, the real ones for f32 and
   f64; the other dtypes define nothing. All are AG_ITEMS kernels. Layouts: df is D's spectrum
   [M][F], sf and ef [K][F], vf and gf [K][M][F], F the frequencies of one half spectrum (rows
   of nh bins, the half of a real last axis of length n1).

   ag_pgm_grad_<c>:   gf_m = conj(df_m) (sum_j df_j vf_j - sf), the gradient of
                      (1/2) ||D v - s||^2 in the DFT domain (sporco's grad_f); an item per
                      signal and frequency.
   ag_pgm_resid_<c>:  ef = w (sum_m df_m vf_m - sf), with sf left out unless flags has
                      AG_PGM_WITH_S, and w = sqrt 2 on the bins of the last axis that stand for
                      two bins of the full spectrum (1 to ceil(n1 / 2) - 1) when flags has
                      AG_PGM_WEIGH, else 1: ||ef||^2 / N is then ||D v - s||^2 as sporco's
                      rfl2norm2 computes it; unweighted it is the raw half spectrum's, as
                      sporco's backtracking measures it. An item per signal and frequency.
   ag_pgm_wdiff_<c>:  out = w (a - b), w as above: ||out||^2 / N is rfl2norm2(a - b) (sporco's
                      fixed point residual); an item per element.
   ag_pgm_redot_<c>:  out = re(conj(a) b) into a real array, whose sum is sporco's
                      sum(real(conj(a) * b)) (the backtracking's linear term, the step size
                      policies' inner products); an item per element.
   ag_pgm_pad_<r>:    out [M][n0][n1] = d [M][d0][d1] zero padded (the filters before their
                      FFT); an item per element of out.
   ag_pgm_nobndry_<r>: zeroes x [..][n0][n1] where a filter placed there would cross the
                      image's far boundary, i0 > n0 - d0 or i1 > n1 - d1 (sporco's
                      NoBndryCross); an item per element. */

#define AG_PGM_WEIGH 1
#define AG_PGM_WITH_S 2

#define AG_SHAPE_PGM_GRAD(A, V, B, T1, T2, T3)                                                      \
  A(const T1, df) A(const T1, sf) A(const T1, vf) V(ag_u64, m) V(ag_u64, f) A(T1, gf)
#define AG_SHAPE_PGM_RESID(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, sf) A(const T1, vf) V(ag_u64, m) V(ag_u64, f) V(ag_u64, nh) V(ag_u64, n1) \
      V(ag_u64, flags) A(T1, ef)
#define AG_SHAPE_PGM_WDIFF(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) V(ag_u64, nh) V(ag_u64, n1) A(T1, out)
#define AG_SHAPE_PGM_REDOT(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(T2, out)
#define AG_SHAPE_PGM_PAD(A, V, B, T1, T2, T3)                                                       \
  A(const T1, d) V(ag_u64, d0) V(ag_u64, d1) V(ag_u64, n0) V(ag_u64, n1) A(T1, out)
#define AG_SHAPE_PGM_NOBNDRY(A, V, B, T1, T2, T3) V(ag_u64, n0) V(ag_u64, n1) V(ag_u64, d0) V(ag_u64, d1) A(T1, x)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"
#include "complex.h"

#if AG_CPLX && (!AG_NEEDS_F64 || AG_HAVE_F64)

#define AG_PG(fn) AG_CAT2(ag_pgm_##fn, AG_SFX)
#define AG_PGMUL AG_CAT2(ag_cmul, AG_RSFX)

/* sum_m df_m v_m at frequency fi of signal k (v [K][M][F]). */
AG_INLINE AG_T AG_PG(dot)(AG_GLOBAL const AG_T *df, AG_GLOBAL const AG_T *v, ag_u64 k, ag_u64 fi, ag_u64 m,
                          ag_u64 f) {
  AG_T acc = AG_MAKE((AG_R)0, (AG_R)0);
  for (ag_u64 j = 0; j < m; j++) {
    AG_T p = AG_PGMUL(df[j * f + fi], v[(k * m + j) * f + fi]);
    acc.x += p.x, acc.y += p.y;
  }
  return acc;
}

/* The weight of bin b of a half spectrum's row (nh bins of a real axis of length n1). */
AG_INLINE AG_R AG_PG(weight)(ag_u64 b, ag_u64 n1) {
  return b >= 1 && b + b < n1 ? (AG_R)1.4142135623730950488 : (AG_R)1;
}

AG_ITEMS(AG_KN(ag_pgm_grad), AG_SHAPE_PGM_GRAD, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_T r = AG_PG(dot)(df, vf, k, fi, m, f);
  r.x -= sf[i].x, r.y -= sf[i].y;
  for (ag_u64 j = 0; j < m; j++) {
    AG_T d = df[j * f + fi];
    gf[(k * m + j) * f + fi] = AG_PGMUL(AG_MAKE(d.x, -d.y), r);
  }
})

AG_ITEMS(AG_KN(ag_pgm_resid), AG_SHAPE_PGM_RESID, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_T r = AG_PG(dot)(df, vf, k, fi, m, f);
  if (flags & AG_PGM_WITH_S)
    r.x -= sf[i].x, r.y -= sf[i].y;
  AG_R w = (flags & AG_PGM_WEIGH) ? AG_PG(weight)(fi % nh, n1) : (AG_R)1;
  ef[i] = AG_MAKE(w * r.x, w * r.y);
})

AG_ITEMS(AG_KN(ag_pgm_wdiff), AG_SHAPE_PGM_WDIFF, AG_T, AG_R, , {
  AG_R w = AG_PG(weight)(i % nh, n1);
  out[i] = AG_MAKE(w * (a[i].x - b[i].x), w * (a[i].y - b[i].y));
})

AG_ITEMS(AG_KN(ag_pgm_redot), AG_SHAPE_PGM_REDOT, AG_T, AG_R, , { out[i] = a[i].x * b[i].x + a[i].y * b[i].y; })

#undef AG_PG
#undef AG_PGMUL
#endif

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

AG_ITEMS(AG_KN(ag_pgm_pad), AG_SHAPE_PGM_PAD, AG_T, , , {
  ag_u64 i1 = i % n1, i0 = (i / n1) % n0, j = i / (n0 * n1);
  out[i] = i0 < d0 && i1 < d1 ? d[(j * d0 + i0) * d1 + i1] : (AG_T)0;
})

AG_ITEMS(AG_KN(ag_pgm_nobndry), AG_SHAPE_PGM_NOBNDRY, AG_T, , , {
  ag_u64 i1 = i % n1, i0 = (i / n1) % n0;
  if (i0 + d0 > n0 || i1 + d1 > n1)
    x[i] = (AG_T)0;
})

#endif
#include "variant_end.h"
#endif
