/* kernels_shared/select.h - the select family: elements gathered by index (take,
   take_along_axis), kept where a mask is true (boolean masks, nonzero, unique), and searched
   for in a sorted array (searchsorted), for the array API's indexing, searching and set
   functions. Expanded once per dtype (AG_TC, see variant.h); the index kernels, whose element
   type is fixed, only in the i64 variant. Kernel names ag_<op>_<dtype>. */

/* out as [outer][nidx][inner] from x as [outer][len][inner]: out[o][k][j] = x[o][i][j] for i
   idx[k] (along 0) or idx[o][k][j] (along 1: take_along_axis), negative counting from the end;
   an index outside [-len, len) sets bad[0] to 1 and writes 0. */
#define AG_SHAPE_TAKE(A, V, B, T1, T2, T3)                                                         \
  A(const T1, x) A(const ag_i64, idx) A(T1, out) V(ag_u64, len) V(ag_u64, nidx) V(ag_u64, inner) V(ag_u32, along) \
  B(ag_u32, bad)
/* x as [nmask][inner]: the blocks whose flag is nonzero, block m to place pos[m] - 1 of out
   (pos the inclusive running count of the flags). */
#define AG_SHAPE_SELECT(A, V, B, T1, T2, T3)                                                       \
  A(const ag_u8, flags) A(const ag_u64, pos) A(const T1, x) A(T1, out) V(ag_u64, inner)
/* The indices of the nonzero flags, in order: out[pos[i] - 1] = i. */
#define AG_SHAPE_SELECT_INDEX(A, V, B, T1, T2, T3) A(const ag_u8, flags) A(const ag_u64, pos) A(T1, out)
/* flags[i] = 1 where sorted x[i] starts a run of equal values (NaN equal to nothing). */
#define AG_SHAPE_RUN_STARTS(A, V, B, T1, T2, T3) A(const T1, x) A(ag_u8, flags)
/* out[i] = the length of run i, runs starting at starts[i] in total elements. */
#define AG_SHAPE_RUN_LENGTHS(A, V, B, T1, T2, T3) A(const T1, starts) A(T1, out) V(ag_u64, total)
/* out[perm[i]] = pos[i] - 1: each element's run, in x's order. */
#define AG_SHAPE_INVERSE(A, V, B, T1, T2, T3) A(const T1, perm) A(const ag_u64, pos) A(T1, out)
/* out[i] = the first index of sorted x (m elements) where v[i] could be inserted keeping the
   order: before equal elements (right 0) or after them (right 1); NaN sorts last. */
#define AG_SHAPE_SEARCH(A, V, B, T1, T2, T3) A(const T1, x) A(const T1, v) A(ag_i64, out) V(ag_u64, m) V(ag_u32, right)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

AG_ITEMS(AG_KN(ag_take), AG_SHAPE_TAKE, AG_T, , , {
  const ag_u64 j_ = i % inner, k_ = i / inner % nidx, o_ = i / (inner * nidx);
  ag_i64 t_ = idx[along != 0u ? i : k_];
  if (t_ < 0)
    t_ += (ag_i64)len;
  if (t_ < 0 || t_ >= (ag_i64)len) {
    bad[0] = 1u;
    t_ = 0; /* x[0] along the axis stands in; the call fails */
  }
  out[i] = x[(o_ * len + (ag_u64)t_) * inner + j_];
})

AG_EW(AG_KN(ag_select), AG_SHAPE_SELECT, AG_T, , , AG_EACH,
      const ag_u64 m_ = i / inner;
      if (flags[m_] != 0u) out[(pos[m_] - 1u) * inner + i % inner] = x[i])

#if AG_CPLX
#define AG_SEL_SAME(a, b) ((a).x == (b).x && (a).y == (b).y)
#else
#define AG_SEL_SAME(a, b) ((a) == (b))
#endif
AG_EW(AG_KN(ag_run_starts), AG_SHAPE_RUN_STARTS, AG_T, , , AG_EACH,
      flags[i] = i == 0u || !AG_SEL_SAME(x[i], x[i - 1u]) ? 1u : 0u)
#undef AG_SEL_SAME

#if AG_FLOAT || AG_INT || AG_BOOLEAN
/* a before b in the sort's order, NaN last. */
#if AG_FLOAT
#define AG_SEL_LT(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))
#else
#define AG_SEL_LT(a, b) ((a) < (b))
#endif
AG_ITEMS(AG_KN(ag_searchsorted), AG_SHAPE_SEARCH, AG_T, , , {
  const AG_T v_ = v[i];
  ag_u64 lo_s = 0, hi_s = m;
  while (lo_s < hi_s) {
    const ag_u64 mid_ = lo_s + (hi_s - lo_s) / 2u;
    if (right != 0u ? !AG_SEL_LT(v_, x[mid_]) : AG_SEL_LT(x[mid_], v_))
      lo_s = mid_ + 1u;
    else
      hi_s = mid_;
  }
  out[i] = (ag_i64)lo_s;
})
#undef AG_SEL_LT
#endif

#if AG_TC == 11
AG_EW(AG_KN(ag_select_index), AG_SHAPE_SELECT_INDEX, AG_T, , , AG_EACH,
      if (flags[i] != 0u) out[pos[i] - 1u] = (ag_i64)i)
AG_EW(AG_KN(ag_run_lengths), AG_SHAPE_RUN_LENGTHS, AG_T, , , AG_EACH,
      out[i] = (i + 1u < n ? starts[i + 1u] : (ag_i64)total) - starts[i])
AG_EW(AG_KN(ag_inverse), AG_SHAPE_INVERSE, AG_T, , , AG_EACH, out[perm[i]] = (ag_i64)(pos[i] - 1u))
#endif

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
