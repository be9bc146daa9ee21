/* kernels_shared/csc.h - the csc family: the DFT-domain steps of convolutional sparse coding
   (sporco.admm.cbpdn.ConvBPDN; src/solvers/cbpdn.c), c64 and c128. Expanded once per dtype
   (AG_TC, see variant.h); the real and integer dtypes define nothing. Each kernel is AG_ITEMS,
   one item per (signal k, frequency f) of the half spectra, looping over the M filters, which
   are few (tens): df is D's spectrum [M][F], sf and ef [K][F], zf, xf, bf, rf [K][M][F], F the
   frequencies of one half spectrum.

   ag_csc_xstep_<t>: xf_m = zf_m + conj(df_m) (sf - sum_m df_m zf_m) / (rho + sum_m |df_m|^2),
       the solution of (rho I + d d^H) x = conj(d) s + rho z per frequency. It is the
       Sherman-Morrison solve of sporco's solvedbi_sm, (b - conj(d) (d . b) / (rho + d^H d)) /
       rho with b = conj(d) s + rho z, rearranged so that nothing is divided by rho: the
       division loses a factor (rho + |d|^2) / rho of precision when rho is small.
   ag_csc_check_<t>: bf_m = conj(df_m) sf + rho zf_m, and rf_m = conj(df_m) (sum_m df_m xf_m)
       + rho xf_m - bf_m, the residual of that system (sporco's LinSolveCheck).
   ag_csc_resid_<t>: ef = w (sum_m df_m xf_m - sf), w = sqrt 2 on the bins of the last axis
       (length nh, of a real axis of length n1) that stand for two bins of the full spectrum
       (1 to ceil(n1 / 2) - 1), else 1: so ||ef||^2 / N is the data term's ||D x - s||^2, as
       sporco's rfl2norm2 computes it. */

#define AG_SHAPE_CSC_XSTEP(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, sf) A(const T1, zf) V(ag_u64, m) V(ag_u64, f) V(T2, rho) A(T1, xf)
#define AG_SHAPE_CSC_CHECK(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, sf) A(const T1, zf) A(const T1, xf) V(ag_u64, m) V(ag_u64, f) V(T2, rho) \
      A(T1, bf) A(T1, rf)
#define AG_SHAPE_CSC_RESID(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, sf) A(const T1, xf) V(ag_u64, m) V(ag_u64, f) V(ag_u64, nh) V(ag_u64, n1) \
      A(T1, ef)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"
#include "complex.h"

#if AG_CPLX && (!AG_NEEDS_F64 || AG_HAVE_F64)

#define AG_CS(fn) AG_CAT2(ag_csc_##fn, AG_SFX)
#define AG_CSMUL AG_CAT2(ag_cmul, AG_RSFX)

AG_INLINE AG_T AG_CS(conj)(AG_T a) { return AG_MAKE(a.x, -a.y); }

/* sum_m df_m v_m at frequency fi of signal k (v [K][M][F]). */
AG_INLINE AG_T AG_CS(dot)(AG_GLOBAL const AG_T *df, AG_GLOBAL const AG_T *v, ag_u64 k, ag_u64 fi, ag_u64 m,
                          ag_u64 f) {
  AG_T acc = AG_MAKE((AG_R)0, (AG_R)0);
  for (ag_u64 j = 0; j < m; j++) {
    AG_T p = AG_CSMUL(df[j * f + fi], v[(k * m + j) * f + fi]);
    acc.x += p.x, acc.y += p.y;
  }
  return acc;
}

AG_ITEMS(AG_KN(ag_csc_xstep), AG_SHAPE_CSC_XSTEP, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_R dd = 0;
  for (ag_u64 j = 0; j < m; j++) {
    AG_T d = df[j * f + fi];
    dd += d.x * d.x + d.y * d.y;
  }
  AG_T t = AG_CS(dot)(df, zf, k, fi, m, f);
  AG_T s = sf[i];
  AG_R den = rho + dd;
  AG_T g = AG_MAKE((s.x - t.x) / den, (s.y - t.y) / den);
  for (ag_u64 j = 0; j < m; j++) {
    ag_u64 o = (k * m + j) * f + fi;
    AG_T c = AG_CSMUL(AG_CS(conj)(df[j * f + fi]), g);
    xf[o] = AG_MAKE(zf[o].x + c.x, zf[o].y + c.y);
  }
})

AG_ITEMS(AG_KN(ag_csc_check), AG_SHAPE_CSC_CHECK, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_T dx = AG_CS(dot)(df, xf, k, fi, m, f);
  AG_T s = sf[i];
  for (ag_u64 j = 0; j < m; j++) {
    ag_u64 o = (k * m + j) * f + fi;
    AG_T dc = AG_CS(conj)(df[j * f + fi]);
    AG_T ds = AG_CSMUL(dc, s), ddx = AG_CSMUL(dc, dx);
    AG_T b = AG_MAKE(ds.x + rho * zf[o].x, ds.y + rho * zf[o].y);
    bf[o] = b;
    rf[o] = AG_MAKE(ddx.x + rho * xf[o].x - b.x, ddx.y + rho * xf[o].y - b.y);
  }
})

AG_ITEMS(AG_KN(ag_csc_resid), AG_SHAPE_CSC_RESID, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f, b = fi % nh;
  AG_T dx = AG_CS(dot)(df, xf, k, fi, m, f);
  AG_R w = b >= 1 && b + b < n1 ? (AG_R)1.4142135623730950488 : (AG_R)1;
  ef[i] = AG_MAKE(w * (dx.x - sf[i].x), w * (dx.y - sf[i].y));
})

#undef AG_CS
#undef AG_CSMUL
#endif
#include "variant_end.h"
#endif
