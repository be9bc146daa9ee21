/* kernels_shared/azint.h - the azint family: the per-frame steps of azimuthal integration
   (include/anygpu/azint.h) around its two sparse products, f32 and f64 (the engine's dtype).

   ag_azint_prep_<t>:   for B frames of npix pixels (already converted to the engine's dtype),
                        item i = b * npix + p writes pixel p's signal, normalisation and count
                        of frame b at xs[p][b], xs[p][B + b], xs[p][2B + b], and its variance
                        at xv[p][b], so that each pixel's values are adjacent, as ag_spmm reads
                        them ([cols, batch]). pyFAI's preproc: signal = raw - dark, the
                        normalisation norm[p] (the product of the static corrections, 0 for a
                        pixel the dark or flat marks as dummy), variance by vmode (0 none,
                        1 max(raw, 1), 2 raw, 3 var[p]); a pixel whose raw value is the
                        dummy (within ddummy, when has_dummy), or whose signal, normalisation or
                        variance is not finite or whose normalisation is 0 contributes zeros.
   ag_azint_finish_<t>: item i = b * nbins + r, r = bin0 * nazim + bin1 (the matrix's rows):
                        reads the sums y1[r][0..3B) and y2[r][b], writes the six results of
                        frame b at [b][bin1][bin0] (the transpose pyFAI returns in 2-D):
                        intensity = signal / norm and sigma = sqrt(variance) / norm where the
                        count is above 0, else empty. */

#define AG_SHAPE_AZINT_PREP(A, V, B, T1, T2, T3)                                                   \
  A(const T1, frames) A(const T1, dark) A(const T1, norm) A(const T1, var) V(ag_u64, npix)         \
  V(ag_u64, batch) V(ag_u32, has_dark) V(ag_u32, has_dummy) V(T1, dummy) V(T1, ddummy)             \
  V(ag_u32, vmode) A(T1, xs) A(T1, xv)
#define AG_SHAPE_AZINT_FINISH(A, V, B, T1, T2, T3)                                                 \
  A(const T1, y1) A(const T1, y2) V(ag_u64, nbins) V(ag_u64, nrad) V(ag_u64, nazim)                \
  V(ag_u64, batch) V(T1, empty) A(T1, intensity) A(T1, sigma) A(T1, sum_signal)                    \
  A(T1, sum_variance) A(T1, sum_norm) A(T1, count)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

/* x is finite: x - x is 0 for finite x and NaN for Inf and NaN, in every dialect. */
#define AG_AZ_FINITE(x) ((x) - (x) == 0)

/* The math name stays out of the kernel macro's arguments (variant.h says why). */
AG_INLINE AG_T AG_CAT2(ag_az_sqrt, AG_SFX)(AG_T x) { return AG_CAT2(AG_SQRT, AG_SFX)(x); }

AG_ITEMS(AG_KN(ag_azint_prep), AG_SHAPE_AZINT_PREP, AG_T, , , {
  ag_u64 b = i / npix, p = i % npix;
  AG_T raw = frames[i];
  AG_T d = has_dark ? dark[p] : (AG_T)0;
  AG_T sig = raw - d;
  AG_T w = norm[p];
  AG_T v = 0;
  if (vmode == 1)
    v = raw > (AG_T)1 ? raw : (AG_T)1;
  else if (vmode == 2)
    v = raw;
  else if (vmode == 3)
    v = var[p];
  bool bad = !AG_AZ_FINITE(sig) || !AG_AZ_FINITE(w) || w == (AG_T)0 || !AG_AZ_FINITE(v);
  if (has_dummy) {
    AG_T off = raw - dummy;
    bad = bad || (ddummy == (AG_T)0 ? raw == dummy : (off < 0 ? -off : off) <= ddummy);
  }
  ag_u64 at = p * 3 * batch + b;
  xs[at] = bad ? (AG_T)0 : sig;
  xs[at + batch] = bad ? (AG_T)0 : w;
  xs[at + 2 * batch] = bad ? (AG_T)0 : (AG_T)1;
  xv[p * batch + b] = bad ? (AG_T)0 : v;
})

AG_ITEMS(AG_KN(ag_azint_finish), AG_SHAPE_AZINT_FINISH, AG_T, , , {
  ag_u64 b = i / nbins, r = i % nbins;
  ag_u64 o = b * nbins + (r % nazim) * nrad + r / nazim;
  AG_T s = y1[r * 3 * batch + b], w = y1[r * 3 * batch + batch + b], c = y1[r * 3 * batch + 2 * batch + b];
  AG_T v = y2[r * batch + b];
  bool any = c > (AG_T)0;
  intensity[o] = any ? s / w : empty;
  sigma[o] = any ? AG_CAT2(ag_az_sqrt, AG_SFX)(v) / w : empty;
  sum_signal[o] = s;
  sum_variance[o] = v;
  sum_norm[o] = w;
  count[o] = c;
})

#undef AG_AZ_FINITE
#endif /* AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64) */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
