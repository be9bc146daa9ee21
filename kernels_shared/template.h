/* kernels_shared/template.h - the template family: orientation mapping by polar template
   matching (ag_template_library_match, src/diffraction/template_match.c) and normalised
   cross-correlation (ag_match_template, src/diffraction/ncc.c), f32 and f64. Expanded once per
   dtype (AG_TC, see variant.h); the other dtypes define nothing. Every kernel is an AG_ITEMS
   kernel, so the host runs the same code as the GPUs.

   Template matching, per frame b of B polar images [n_theta][n_r]:
   ag_tm_prefilter_<t>: fast[b][t] = sum over r of integ[r][t] * psum[b][r] * r / n_r, psum
                        being the frame summed over theta: the score of the integrated
                        template t, an item per (b, t) (GPUs: consecutive items read
                        consecutive templates);
   ag_tm_prefilter_chunks_<t>: the same scores, AG_TM_CHUNK templates an item (CPU devices:
                        the templates are a vector's lanes);
   ag_tm_cut_<t>:       the value of each frame's keep-th best score of count (descending, NaN
                        last), by selection in a copy (work), an item per frame;
   ag_tm_keep_<t>:      the positions of the `keep` best scores of each frame of count, best
                        first (descending, NaN last, ties to the lower position), an item per
                        (b, k): a score below the frame's cut (when use_cut) is not kept; any
                        other counts the scores ranked before its own;
   ag_tm_unroll_<t>:    each frame's columns as rows, each read around the circle past one
                        turn: rows[b][r][u] = polar[b][u mod n_theta][r], u below width
                        (2 n_theta + AG_TM_CHUNK), so that every rotation of a spot is a
                        stretch of one row; an item per element (GPUs: the writes coalesce);
   ag_tm_unroll_rows_<t>: the same, an item per row (b, r) (CPU devices: no division per
                        element), and psum[b][r], the frame summed over theta, for the
                        prefilter;
   ag_tm_score_<t>:     for candidate k of frame b (template kept[b][k], or k), the correlation
                        at the AG_TM_CHUNK in-plane shifts s of chunk c of
                        sum_j polar[(s + theta_j) mod n_theta][r_j] I_j and of its mirror,
                        polar[(s - theta_j) mod n_theta][r_j]: rows[b][r_j][theta_j + s] and
                        rows[b][r_j][n_theta - theta_j + s], the spots added in order for each
                        shift; the first best shift of the chunk of each, an item per (b, k, c);
   ag_tm_pick_<t>:      the first best shift over the chunks of each, and the better of the
                        two (the template on a tie), an item per (b, k);
   ag_tm_best_<t>:      the n_best best candidates of each frame as ag_tm_keep_<t> ranks them
                        (with the cut of the n_best-th), written as (template, correlation,
                        angle in degrees, sign).
   Normalised cross-correlation, per frame of a stack [B][qh][qw] (the padded image):
   ag_ncc_pad_<t>:      out = the frame at (y - top, x - left), or fill outside it;
   ag_ncc_rows_<t>:     the sum, the sum of squares, the least and the largest of tw consecutive
                        values of each row of q;
   ag_ncc_finish_<t>:   the window sums S1, S2 (th rows of those), then
                        corr / sqrt(max((S2 - S1^2 / vol) ssd, 0)), 0 where the
                        denominator is not above eps (skimage's formula; corr is the
                        correlation with the zero-mean template) or where the window's values
                        are all equal: a flat window's S2 - S1^2 / vol is rounding error, which
                        the quotient would turn into a value of any size. */

/* ---- parameter lists (skeleton_gpu.h), also read by src/diffraction/: T1 is the element
   type. ---- */
#define AG_SHAPE_TM_PREFILTER(A, V, B, T1, T2, T3)                                                 \
  B(const T1, integ) A(const T1, psum) V(ag_u64, n_templates) V(ag_u64, n_r) A(T1, fast)
#define AG_SHAPE_TM_CUT(A, V, B, T1, T2, T3) A(const T1, score) V(ag_u64, count) V(ag_u64, keep) A(T1, work) A(T1, cut)
#define AG_SHAPE_TM_KEEP(A, V, B, T1, T2, T3)                                                      \
  A(const T1, score) A(const T1, cut) V(ag_u64, use_cut) V(ag_u64, count) V(ag_u64, keep) A(ag_u32, kept)
#define AG_SHAPE_TM_UNROLL(A, V, B, T1, T2, T3)                                                    \
  A(const T1, polar) V(ag_u64, n_theta) V(ag_u64, n_r) V(ag_u64, width) A(T1, rows)
#define AG_SHAPE_TM_UNROLL_ROWS(A, V, B, T1, T2, T3)                                               \
  A(const T1, polar) V(ag_u64, n_theta) V(ag_u64, n_r) V(ag_u64, width) A(T1, rows) A(T1, psum)
#define AG_SHAPE_TM_SCORE(A, V, B, T1, T2, T3)                                                     \
  A(const T1, rows) A(const ag_u32, kept) V(ag_u64, use_kept) B(const ag_u64, spot_start)              \
      B(const ag_u64, spot_end) B(const ag_u32, spot_r) B(const ag_u32, spot_theta) B(const T1, spot_i)  \
      V(ag_u64, n_theta) V(ag_u64, n_r) V(ag_u64, width) V(ag_u64, count) V(ag_u64, chunks)              \
      A(T1, cbest) A(ag_u32, cat) A(T1, cbest_m) A(ag_u32, cat_m)
#define AG_SHAPE_TM_PICK(A, V, B, T1, T2, T3)                                                      \
  A(const T1, cbest) A(const ag_u32, cat) A(const T1, cbest_m) A(const ag_u32, cat_m) V(ag_u64, chunks)  \
      A(T1, corr) A(ag_u32, shift) A(ag_i32, sgn)

/* The shifts one work-item of ag_tm_score_<t> scores: a 512-bit vector of f32 on a CPU, and
   on a GPU enough work an item to hide the loads of each spot's position and intensity. */
#define AG_TM_CHUNK 16
#define AG_SHAPE_TM_BEST(A, V, B, T1, T2, T3)                                                      \
  A(const T1, corr) A(const T1, cut) V(ag_u64, use_cut) A(const ag_u32, shift) A(const ag_i32, sgn) A(const ag_u32, kept)      \
      V(ag_u64, use_kept) A(const T1, norm) V(ag_u64, use_norm) V(ag_u64, count) V(ag_u64, n_best) V(T1, deg_step)      \
      A(ag_u32, best_index) A(T1, best_corr) A(T1, best_angle) A(ag_i32, best_sgn)
#define AG_SHAPE_NCC_PAD(A, V, B, T1, T2, T3)                                                      \
  A(const T1, x) V(ag_u64, h) V(ag_u64, w) V(ag_u64, qh) V(ag_u64, qw) V(ag_u64, top) V(ag_u64, left)   \
      V(T1, fill) A(T1, out)
#define AG_SHAPE_NCC_ROWS(A, V, B, T1, T2, T3)                                                     \
  A(const T1, q) V(ag_u64, qw) V(ag_u64, wo) V(ag_u64, tw) A(T1, s1) A(T1, s2) A(T1, lo) A(T1, hi)
#define AG_SHAPE_NCC_FINISH(A, V, B, T1, T2, T3)                                                   \
  A(const T1, corr) A(const T1, s1) A(const T1, s2) A(const T1, lo) A(const T1, hi) V(ag_u64, qh)         \
      V(ag_u64, qw) V(ag_u64, ho) V(ag_u64, wo)                                                            \
      V(ag_u64, th) V(T1, vol) V(T1, ssd) V(T1, eps) A(T1, out)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

/* This variant's names: AG_TM(above) is ag_tm_above_f32. */
#define AG_TM(fn) AG_CAT2(ag_tm_##fn, AG_SFX)

/* Whether value a ranks before value b, positions aside: larger first, NaN last. */
AG_INLINE int AG_TM(above)(AG_T a, AG_T b) { return a > b || (b != b && a == a); }

/* How many of the count scores at s rank before s[k] (larger first, NaN last, and equal
   scores, NaN among them, by position): those before position k not below it and those after
   it above it. Each loop compares values alone, without branches, so that a CPU compiler
   vectorises it over the f32 lanes; the count fits 32 bits, as the library's checks keep
   n_templates below the devices' loop limit. */
AG_INLINE ag_u64 AG_TM(rank)(AG_GLOBAL const AG_T *s, ag_u64 count, ag_u64 k) {
  AG_T v = s[k];
  ag_u32 rank = 0;
  if (v != v) {
    rank = (ag_u32)k;
    for (ag_u64 j = k + 1; j < count; j++)
      rank += (ag_u32)(s[j] == s[j]);
  } else {
    for (ag_u64 j = 0; j < k; j++)
      rank += (ag_u32)(s[j] >= v);
    for (ag_u64 j = k + 1; j < count; j++)
      rank += (ag_u32)(s[j] > v);
  }
  return rank;
}

/* The prefilter's score of template t against the frame summed over theta, p: integ is
   [n_r][n_templates], so that consecutive templates read consecutive values. */
AG_INLINE AG_T AG_TM(integrated)(AG_GLOBAL const AG_T *integ, AG_GLOBAL const AG_T *p, ag_u64 t, ag_u64 n_templates,
                                 ag_u64 n_r) {
  AG_T acc = 0;
  for (ag_u64 r = 0; r < n_r; r++)
    acc += integ[r * n_templates + t] * (p[r] * ((AG_T)r / (AG_T)n_r));
  return acc;
}

AG_ITEMS(AG_KN(ag_tm_prefilter), AG_SHAPE_TM_PREFILTER, AG_T, , , {
  ag_u64 b = i / n_templates, t = i % n_templates;
  fast[i] = AG_TM(integrated)(integ, psum + b * n_r, t, n_templates, n_r);
})

/* The same scores, AG_TM_CHUNK templates an item, (b, c) (CPU devices: the templates are the
   vector's lanes, each added up in the order of ag_tm_prefilter's, so the scores are the
   same). */
AG_ITEMS(AG_KN(ag_tm_prefilter_chunks), AG_SHAPE_TM_PREFILTER, AG_T, , , {
  ag_u64 chunks = (n_templates + AG_TM_CHUNK - 1) / AG_TM_CHUNK;
  ag_u64 b = i / chunks, t0 = i % chunks * AG_TM_CHUNK;
  AG_GLOBAL const AG_T *p = psum + b * n_r;
  AG_GLOBAL AG_T *out = fast + b * n_templates + t0;
  if (t0 + AG_TM_CHUNK > n_templates) {
    for (ag_u64 t = t0; t < n_templates; t++)
      out[t - t0] = AG_TM(integrated)(integ, p, t, n_templates, n_r);
    continue;
  }
  AG_T acc[AG_TM_CHUNK];
  AG_SIMD for (int q = 0; q < AG_TM_CHUNK; q++)
    acc[q] = 0;
  for (ag_u64 r = 0; r < n_r; r++) {
    AG_GLOBAL const AG_T *row = integ + r * n_templates + t0;
    AG_T w = p[r] * ((AG_T)r / (AG_T)n_r);
    AG_SIMD for (int q = 0; q < AG_TM_CHUNK; q++)
      acc[q] += row[q] * w;
  }
  AG_SIMD for (int q = 0; q < AG_TM_CHUNK; q++)
    out[q] = acc[q];
})

/* Hoare's selection of the element of rank keep - 1 in the frame's copy: each pass splits
   [lo, hi] around a pivot and goes on in the part that holds that rank. Each inner scan stops
   at the pivot's value at the latest, so it stays within [lo, hi]. */
AG_ITEMS(AG_KN(ag_tm_cut), AG_SHAPE_TM_CUT, AG_T, , , {
  AG_GLOBAL AG_T *w = work + i * count;
  for (ag_u64 k = 0; k < count; k++)
    w[k] = score[i * count + k];
  ag_i64 lo = 0, hi = (ag_i64)count - 1, kth = (ag_i64)keep - 1;
  while (lo < hi) {
    AG_T pivot = w[lo + (hi - lo) / 2];
    ag_i64 a = lo, z = hi;
    while (a <= z) {
      while (AG_TM(above)(w[a], pivot))
        a++;
      while (AG_TM(above)(pivot, w[z]))
        z--;
      if (a <= z) {
        AG_T x = w[a];
        w[a] = w[z];
        w[z] = x;
        a++;
        z--;
      }
    }
    /* [lo, z] ranks no later than the pivot, [a, hi] no earlier, between them its equals. */
    if (kth <= z)
      hi = z;
    else if (kth >= a)
      lo = a;
    else
      break;
  }
  cut[i] = w[kth];
})

AG_ITEMS(AG_KN(ag_tm_keep), AG_SHAPE_TM_KEEP, AG_T, , , {
  ag_u64 b = i / count, k = i % count;
  if (use_cut && AG_TM(above)(cut[b], score[i]))
    continue; /* at least keep scores rank before it */
  ag_u64 rank = AG_TM(rank)(score + b * count, count, k);
  if (rank < keep)
    kept[b * keep + rank] = (ag_u32)k;
})

AG_ITEMS(AG_KN(ag_tm_unroll), AG_SHAPE_TM_UNROLL, AG_T, , , {
  ag_u64 u = i % width, r = i / width % n_r, b = i / (width * n_r);
  rows[i] = polar[(b * n_theta + u % n_theta) * n_r + r];
})

/* The column read once, its sum over theta on the way; the row's later turns are copies of
   its first, read where it was just written. */
AG_ITEMS(AG_KN(ag_tm_unroll_rows), AG_SHAPE_TM_UNROLL_ROWS, AG_T, , , {
  ag_u64 r = i % n_r, b = i / n_r;
  AG_GLOBAL const AG_T *col = polar + b * n_theta * n_r + r;
  AG_GLOBAL AG_T *row = rows + i * width;
  AG_T acc = 0;
  for (ag_u64 th = 0; th < n_theta; th++) {
    AG_T v = col[th * n_r];
    row[th] = v;
    acc += v;
  }
  for (ag_u64 u = n_theta; u < width; u++)
    row[u] = row[u - n_theta];
  psum[i] = acc;
})

/* Shift s0 + q of the chunk reads element theta_j + s0 + q of the spot's row, below
   2 n_theta + AG_TM_CHUNK - 2, so shifts past n_theta (in the last chunk) read within the row
   and are left out of the best. */
AG_ITEMS(AG_KN(ag_tm_score), AG_SHAPE_TM_SCORE, AG_T, , , {
  ag_u64 c = i % chunks, bk = i / chunks, b = bk / count, k = bk % count;
  ag_u64 t = use_kept ? (ag_u64)kept[bk] : k;
  ag_u64 s0 = c * AG_TM_CHUNK;
  AG_T acc[AG_TM_CHUNK], acc_m[AG_TM_CHUNK];
  for (int q = 0; q < AG_TM_CHUNK; q++)
    acc[q] = acc_m[q] = 0;
  for (ag_u64 j = spot_start[t], j1 = spot_end[t]; j < j1; j++) {
    AG_GLOBAL const AG_T *row = rows + (b * n_r + spot_r[j]) * width + s0;
    AG_GLOBAL const AG_T *up = row + spot_theta[j], *down = row + (n_theta - spot_theta[j]);
    AG_T w = spot_i[j];
    AG_SIMD for (int q = 0; q < AG_TM_CHUNK; q++) {
      acc[q] += up[q] * w;
      acc_m[q] += down[q] * w;
    }
  }
  AG_T best = acc[0], best_m = acc_m[0];
  ag_u32 at = (ag_u32)s0, at_m = (ag_u32)s0;
  for (int q = 1; q < AG_TM_CHUNK; q++) {
    if (s0 + (ag_u64)q >= n_theta)
      break;
    if (acc[q] > best) {
      best = acc[q];
      at = (ag_u32)(s0 + (ag_u64)q);
    }
    if (acc_m[q] > best_m) {
      best_m = acc_m[q];
      at_m = (ag_u32)(s0 + (ag_u64)q);
    }
  }
  cbest[i] = best;
  cat[i] = at;
  cbest_m[i] = best_m;
  cat_m[i] = at_m;
})

AG_ITEMS(AG_KN(ag_tm_pick), AG_SHAPE_TM_PICK, AG_T, , , {
  AG_GLOBAL const AG_T *v = cbest + i * chunks, *v_m = cbest_m + i * chunks;
  AG_T best = v[0], best_m = v_m[0];
  ag_u64 at = 0, at_m = 0;
  for (ag_u64 c = 1; c < chunks; c++) {
    if (v[c] > best) {
      best = v[c];
      at = c;
    }
    if (v_m[c] > best_m) {
      best_m = v_m[c];
      at_m = c;
    }
  }
  int direct = best >= best_m;
  corr[i] = direct ? best : best_m;
  shift[i] = direct ? cat[i * chunks + at] : cat_m[i * chunks + at_m];
  sgn[i] = direct ? 1 : -1;
})

/* The image's normalisation divides the correlations (a frame of norm 0 is left as it is). */
AG_ITEMS(AG_KN(ag_tm_best), AG_SHAPE_TM_BEST, AG_T, , , {
  ag_u64 b = i / count, k = i % count;
  if (use_cut && AG_TM(above)(cut[b], corr[i]))
    continue; /* at least n_best candidates rank before it */
  ag_u64 rank = AG_TM(rank)(corr + b * count, count, k);
  if (rank < n_best) {
    ag_u64 o = b * n_best + rank;
    AG_T c = corr[i];
    if (use_norm && norm[b] > 0)
      c = c / norm[b];
    best_index[o] = use_kept ? kept[i] : (ag_u32)k;
    best_corr[o] = c;
    best_angle[o] = (AG_T)shift[i] * deg_step;
    best_sgn[o] = sgn[i];
  }
})

AG_ITEMS(AG_KN(ag_ncc_pad), AG_SHAPE_NCC_PAD, AG_T, , , {
  ag_u64 b = i / (qh * qw), y = i / qw % qh, xx = i % qw;
  AG_T v = fill;
  if (y >= top && y - top < h && xx >= left && xx - left < w)
    v = x[(b * h + y - top) * w + (xx - left)];
  out[i] = v;
})

AG_ITEMS(AG_KN(ag_ncc_rows), AG_SHAPE_NCC_ROWS, AG_T, , , {
  ag_u64 row = i / wo, xx = i % wo;
  AG_GLOBAL const AG_T *p = q + row * qw + xx;
  AG_T a = 0, a2 = 0, l = p[0], u = p[0];
  for (ag_u64 c = 0; c < tw; c++) {
    a += p[c];
    a2 += p[c] * p[c];
    l = p[c] < l ? p[c] : l;
    u = p[c] > u ? p[c] : u;
  }
  s1[i] = a;
  s2[i] = a2;
  lo[i] = l;
  hi[i] = u;
})

AG_ITEMS(AG_KN(ag_ncc_finish), AG_SHAPE_NCC_FINISH, AG_T, , , {
  ag_u64 b = i / (ho * wo), y = i / wo % ho, xx = i % wo;
  ag_u64 at = (b * qh + y) * wo + xx;
  AG_T a = 0, a2 = 0, l = lo[at], u = hi[at];
  for (ag_u64 r = 0; r < th; r++) {
    a += s1[at + r * wo];
    a2 += s2[at + r * wo];
    l = lo[at + r * wo] < l ? lo[at + r * wo] : l;
    u = hi[at + r * wo] > u ? hi[at + r * wo] : u;
  }
  AG_T den = (a2 - a * a / vol) * ssd;
  den = den > 0 ? AG_CAT2(AG_SQRT, AG_SFX)(den) : (AG_T)0;
  out[i] = den > eps && l != u ? corr[(b * qh + y) * qw + xx] / den : (AG_T)0;
})

#undef AG_TM
#endif /* AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64) */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
