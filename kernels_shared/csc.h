/* kernels_shared/csc.h - the csc family: the DFT-domain linear algebra of convolutional sparse
   coding (sporco.admm.cbpdn.ConvBPDN, src/solvers/cbpdn.c) and the public DFT-domain solves
   (sporco.linalg.solvedbi_sm and solvemdbi_ism, src/solvers/dbi.c), c64 and c128. Expanded
   once per dtype (AG_TC, see variant.h); the real and integer dtypes define nothing. Each
   kernel is AG_ITEMS, one item per (group or signal, frequency), looping over the C channels
   and the M filters, which are few (tens). F is the number of frequencies, the last and
   fastest axis of every array, so neighbouring items read neighbouring elements.

   The systems are, per frequency, (rho I + sum_c a_c a_c^H) x = b, a_c = conj(d_c) of length
   M, d [C][M][F] (a dictionary's spectrum). With A = [a_0 .. a_{C-1}] (M x C) and its Gram
   matrix G = A^H A (C x C), the push-through identity gives
     (rho I + A A^H)^-1 A = A (rho I + G)^-1 =: E   [C][M][F], e_c = (rho I + A A^H)^-1 a_c,
   made once per rho by ag_csc_gram. Every solve is then O(C M) per right-hand side:
     x = (b - sum_c e_c (d_c . b)) / rho                          (ag_csc_solve, any b)
     x = z + sum_c e_c (s_c - d_c . z)   for b = sum_c a_c s_c + rho z   (ag_csc_xstep)
   The second is ConvBPDN's x step with nothing divided by rho: sporco's forms (Sherman-Morrison,
   iterated Sherman-Morrison) compute x as b / rho minus a correction, and that subtraction
   loses a factor of about (rho + |d|^2) / rho of the precision, most of float32's when rho is
   small (AutoRho lowers it). With one channel, e = conj(d) / (rho + |d|^2).

   ag_csc_gram_<t>: per group g and frequency: h = rho I + G (G_ij = sum_m d_im conj(d_jm)),
       inverted in place by Gauss-Jordan elimination (h is Hermitian positive definite, so no
       pivoting is needed), then e_c = sum_c' a_c' hinv_c'c. df, e [G][C][M][F], h [G][C][C][F].
   ag_csc_solve_<t>: x = (b - sum_c e_c (d_c . b)) / rho per right-hand side k and frequency;
       b, x [K][M][F], df and e [C][M][F] shared by the K (dk 0) or [K][C][M][F] (dk = C M F,
       the offset of system k). x must not overlap b or df.
   ag_csc_xstep_<t>: xf = zf + sum_c e_c (sf_c - d_c . zf), per signal k and frequency: the
       solution of (rho I + sum_c a_c a_c^H) x = sum_c a_c s_c + rho z. sf [K][C][F], zf and
       xf [K][M][F].
   ag_csc_check_<t>: bf = sum_c a_c sf_c + rho zf, and rf = sum_c a_c (d_c . xf) + rho xf - bf,
       the residual of that system (sporco's LinSolveCheck).
   ag_csc_resid_<t>: per signal k, channel c and frequency: ef = w (d_c . xf - sf_c), w = sqrt 2
       on the bins of the last axis (length nh, of a real axis of length n1) that stand for two
       bins of the full spectrum (1 to ceil(n1 / 2) - 1), else 1: so ||ef||^2 / N is the data
       term's sum_c ||D_c x - s_c||^2, as sporco's rfl2norm2 computes it. ef [K][C][F]. */

#define AG_SHAPE_CSC_GRAM(A, V, B, T1, T2, T3)                                                      \
  A(const T1, df) V(ag_u64, c) V(ag_u64, m) V(ag_u64, f) V(T2, rho) A(T1, h) A(T1, e)
#define AG_SHAPE_CSC_SOLVE(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, e) A(const T1, b) V(ag_u64, c) V(ag_u64, m) V(ag_u64, f) V(ag_u64, dk)  \
      V(T2, rho) A(T1, x)
#define AG_SHAPE_CSC_XSTEP(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, e) A(const T1, sf) A(const T1, zf) V(ag_u64, c) V(ag_u64, m) V(ag_u64, f) \
      A(T1, xf)
#define AG_SHAPE_CSC_CHECK(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, sf) A(const T1, zf) A(const T1, xf) V(ag_u64, c) V(ag_u64, m) V(ag_u64, f) \
      V(T2, rho) A(T1, bf) A(T1, rf)
#define AG_SHAPE_CSC_RESID(A, V, B, T1, T2, T3)                                                     \
  A(const T1, df) A(const T1, sf) A(const T1, xf) V(ag_u64, c) V(ag_u64, m) V(ag_u64, f) V(ag_u64, nh)  \
      V(ag_u64, n1) A(T1, ef)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"
#include "complex.h"

#if AG_CPLX && (!AG_NEEDS_F64 || AG_HAVE_F64)

#define AG_CS(fn) AG_CAT2(ag_csc_##fn, AG_SFX)
#define AG_CSMUL AG_CAT2(ag_cmul, AG_RSFX)
#define AG_CSDIV AG_CAT2(ag_cdiv, AG_RSFX)

AG_INLINE AG_T AG_CS(conj)(AG_T a) { return AG_MAKE(a.x, -a.y); }

/* sum_j d_j v_j over the M entries of one vector at one frequency: d and v point at entry 0,
   the entries f apart. */
AG_INLINE AG_T AG_CS(dot)(AG_GLOBAL const AG_T *d, AG_GLOBAL const AG_T *v, ag_u64 m, ag_u64 f) {
  AG_T acc = AG_MAKE((AG_R)0, (AG_R)0);
  for (ag_u64 j = 0; j < m; j++) {
    AG_T p = AG_CSMUL(d[j * f], v[j * f]);
    acc.x += p.x, acc.y += p.y;
  }
  return acc;
}

/* x = v + sum_c e_c r_c at one frequency, r_c = s_c - d_c . v, or - d_c . v without s
   (have_s 0; s is then not read): the solves from E. d and e point at entry 0 of [C][M], v and
   x at entry 0 of [M], s at entry 0 of [C], every entry f apart; x must not be v. */
AG_INLINE void AG_CS(apply)(AG_GLOBAL const AG_T *d, AG_GLOBAL const AG_T *e, AG_GLOBAL const AG_T *v,
                            AG_GLOBAL const AG_T *s, int have_s, ag_u64 c, ag_u64 m, ag_u64 f, AG_GLOBAL AG_T *x) {
  for (ag_u64 j = 0; j < m; j++)
    x[j * f] = v[j * f];
  for (ag_u64 q = 0; q < c; q++) {
    AG_T t = AG_CS(dot)(d + q * m * f, v, m, f);
    AG_T r = have_s ? AG_MAKE(s[q * f].x - t.x, s[q * f].y - t.y) : AG_MAKE(-t.x, -t.y);
    for (ag_u64 j = 0; j < m; j++) {
      AG_T p = AG_CSMUL(e[(q * m + j) * f], r);
      x[j * f] = AG_MAKE(x[j * f].x + p.x, x[j * f].y + p.y);
    }
  }
}

AG_ITEMS(AG_KN(ag_csc_gram), AG_SHAPE_CSC_GRAM, AG_T, AG_R, , {
  ag_u64 g = i / f, fi = i % f;
  AG_GLOBAL const AG_T *d = df + g * c * m * f + fi;
  AG_GLOBAL AG_T *hh = h + g * c * c * f + fi;
  AG_GLOBAL AG_T *ee = e + g * c * m * f + fi;
  for (ag_u64 r = 0; r < c; r++)
    for (ag_u64 q = r; q < c; q++) {
      AG_T acc = AG_MAKE((AG_R)0, (AG_R)0);
      for (ag_u64 j = 0; j < m; j++) {
        AG_T p = AG_CSMUL(d[(r * m + j) * f], AG_CS(conj)(d[(q * m + j) * f]));
        acc.x += p.x, acc.y += p.y;
      }
      if (r == q)
        acc = AG_MAKE(acc.x + rho, (AG_R)0);
      hh[(r * c + q) * f] = acc;
      hh[(q * c + r) * f] = AG_CS(conj)(acc);
    }
  for (ag_u64 k = 0; k < c; k++) {
    AG_T inv = AG_CSDIV(AG_MAKE((AG_R)1, (AG_R)0), hh[(k * c + k) * f]);
    hh[(k * c + k) * f] = AG_MAKE((AG_R)1, (AG_R)0);
    for (ag_u64 j = 0; j < c; j++)
      hh[(k * c + j) * f] = AG_CSMUL(hh[(k * c + j) * f], inv);
    for (ag_u64 r = 0; r < c; r++) {
      if (r == k)
        continue;
      AG_T t = hh[(r * c + k) * f];
      hh[(r * c + k) * f] = AG_MAKE((AG_R)0, (AG_R)0);
      for (ag_u64 j = 0; j < c; j++) {
        AG_T p = AG_CSMUL(t, hh[(k * c + j) * f]);
        hh[(r * c + j) * f] = AG_MAKE(hh[(r * c + j) * f].x - p.x, hh[(r * c + j) * f].y - p.y);
      }
    }
  }
  for (ag_u64 q = 0; q < c; q++)
    for (ag_u64 j = 0; j < m; j++) {
      AG_T acc = AG_MAKE((AG_R)0, (AG_R)0);
      for (ag_u64 r = 0; r < c; r++) {
        AG_T p = AG_CSMUL(AG_CS(conj)(d[(r * m + j) * f]), hh[(r * c + q) * f]);
        acc.x += p.x, acc.y += p.y;
      }
      ee[(q * m + j) * f] = acc;
    }
})

AG_ITEMS(AG_KN(ag_csc_solve), AG_SHAPE_CSC_SOLVE, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_GLOBAL const AG_T *bb = b + k * m * f + fi;
  AG_GLOBAL AG_T *xx = x + k * m * f + fi;
  AG_CS(apply)(df + k * dk + fi, e + k * dk + fi, bb, bb, 0, c, m, f, xx);
  for (ag_u64 j = 0; j < m; j++)
    xx[j * f] = AG_MAKE(xx[j * f].x / rho, xx[j * f].y / rho);
})

AG_ITEMS(AG_KN(ag_csc_xstep), AG_SHAPE_CSC_XSTEP, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_CS(apply)(df + fi, e + fi, zf + k * m * f + fi, sf + k * c * f + fi, 1, c, m, f, xf + k * m * f + fi);
})

AG_ITEMS(AG_KN(ag_csc_check), AG_SHAPE_CSC_CHECK, AG_T, AG_R, , {
  ag_u64 k = i / f, fi = i % f;
  AG_GLOBAL const AG_T *d = df + fi;
  AG_GLOBAL const AG_T *s = sf + k * c * f + fi;
  AG_GLOBAL const AG_T *z = zf + k * m * f + fi;
  AG_GLOBAL const AG_T *x = xf + k * m * f + fi;
  AG_GLOBAL AG_T *bb = bf + k * m * f + fi;
  AG_GLOBAL AG_T *rr = rf + k * m * f + fi;
  for (ag_u64 j = 0; j < m; j++) {
    bb[j * f] = AG_MAKE(rho * z[j * f].x, rho * z[j * f].y);
    rr[j * f] = AG_MAKE(rho * x[j * f].x, rho * x[j * f].y);
  }
  for (ag_u64 q = 0; q < c; q++) {
    AG_T dx = AG_CS(dot)(d + q * m * f, x, m, f);
    for (ag_u64 j = 0; j < m; j++) {
      AG_T dc = AG_CS(conj)(d[(q * m + j) * f]);
      AG_T ds = AG_CSMUL(dc, s[q * f]), ddx = AG_CSMUL(dc, dx);
      bb[j * f] = AG_MAKE(bb[j * f].x + ds.x, bb[j * f].y + ds.y);
      rr[j * f] = AG_MAKE(rr[j * f].x + ddx.x, rr[j * f].y + ddx.y);
    }
  }
  for (ag_u64 j = 0; j < m; j++)
    rr[j * f] = AG_MAKE(rr[j * f].x - bb[j * f].x, rr[j * f].y - bb[j * f].y);
})

AG_ITEMS(AG_KN(ag_csc_resid), AG_SHAPE_CSC_RESID, AG_T, AG_R, , {
  ag_u64 fi = i % f, q = (i / f) % c, k = i / (f * c), b = fi % nh;
  AG_T dx = AG_CS(dot)(df + q * m * f + fi, xf + k * m * f + fi, m, f);
  AG_R w = b >= 1 && b + b < n1 ? (AG_R)1.4142135623730950488 : (AG_R)1;
  ef[i] = AG_MAKE(w * (dx.x - sf[i].x), w * (dx.y - sf[i].y));
})

#undef AG_CS
#undef AG_CSMUL
#undef AG_CSDIV
#endif
#include "variant_end.h"
#endif
