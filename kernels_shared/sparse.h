/* kernels_shared/sparse.h - the sparse family: products of a CSR matrix (include/anygpu/sparse.h)
   with a vector or a batch of vectors, f32 and f64. Expanded once per dtype (AG_TC, see
   variant.h); the other dtypes define nothing.

   A matrix of n rows is three whole buffers: row_ptr (n + 1 entries: row i holds entries
   row_ptr[i] to row_ptr[i + 1] - 1), col_idx (each entry's column) and val (its value).
   ag_csr_spmv_<t>:      y[i] = sum of val[k] x[col_idx[k]] over row i, one item per row;
   ag_csr_spmv_<t>_rows: the same with a work-group per row (GPUs only), its work-items
                         striding through the row, their sums meeting in a tree in local memory;
                         its size a power of two up to AG_SPARSE_GROUP (src/sparse.c chooses it);
   ag_csr_spmm_<t>:      y[i][b] = sum of val[k] x[col_idx[k]][b] for a batch of vectors stored
                         as the rows of x ([cols][batch]), one item per (i, b), b fastest: on
                         GPUs neighbouring items read neighbouring elements of x.
   The transposed products are these kernels run on the transpose, which src/sparse.c builds.

   Accuracy: each product is rounded once, and the products are added with compensation: a
   running total s and a correction c that gathers the exact rounding error of every addition
   into s (Knuth's TwoSum, whichever of s and the term is larger), y = s + c at the end, so a
   row's error is about one rounding of the result plus one of each product, a few ulp of
   sum |val x| whatever the row's length. The compensation is plain arithmetic that
   reassociation would cancel: no part of anygpu is built with fast-math, and must not be.
   Inf and NaN come out as plain addition gives them. */

/* ---- parameter lists (skeleton_gpu.h), also read by the op layer (src/sparse.c): T1 is the
   element type; n counts rows (spmv: items, _rows: work-groups) or rows * batch (spmm). ---- */
#define AG_SHAPE_CSR_SPMV(A, V, B, T1, T2, T3)                                                     \
  B(const ag_u64, row_ptr) B(const ag_u32, col_idx) B(const T1, val) A(const T1, x) A(T1, y)
#define AG_SHAPE_CSR_SPMM(A, V, B, T1, T2, T3)                                                     \
  B(const ag_u64, row_ptr) B(const ag_u32, col_idx) B(const T1, val) A(const T1, x) V(ag_u64, batch) A(T1, y)

/* The largest work-group of ag_csr_spmv_<t>_rows: its local memory holds one state per item. */
#define AG_SPARSE_GROUP 32

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64)

/* This variant's names: AG_SP(add) is ag_sp_add_f32. */
#define AG_SP(fn) AG_CAT2(ag_sp_##fn, AG_SFX)

/* A compensated sum: the total is s + c. */
typedef struct AG_SP(sum) {
  AG_T s, c;
} AG_SP(sum);

AG_INLINE AG_SP(sum) AG_SP(zero)(void) {
  AG_SP(sum) a;
  a.s = 0;
  a.c = 0;
  return a;
}

/* a + v: t = fl(s + v) and e = (s + v) - t exactly (TwoSum, six operations, no branch). Once
   the total is not finite e is NaN and is left out, so Inf stays Inf. */
AG_INLINE AG_SP(sum) AG_SP(add)(AG_SP(sum) a, AG_T v) {
  AG_T t = a.s + v;
  AG_T bv = t - a.s;
  AG_T e = (a.s - (t - bv)) + (v - bv);
  a.s = t;
  a.c += t - t == 0 ? e : (AG_T)0;
  return a;
}

AG_INLINE AG_SP(sum) AG_SP(merge)(AG_SP(sum) a, AG_SP(sum) b) {
  a = AG_SP(add)(a, b.s);
  a.c += b.c;
  return a;
}

/* Entries k0 to k1 - 1 of a row times the vector whose element j is x[j * stride]. */
AG_INLINE AG_SP(sum) AG_SP(row)(AG_GLOBAL const ag_u32 *col_idx, AG_GLOBAL const AG_T *val,
                                AG_GLOBAL const AG_T *x, ag_u64 stride, ag_u64 k0, ag_u64 k1) {
  AG_SP(sum) a = AG_SP(zero)();
  for (ag_u64 k = k0; k < k1; k++)
    a = AG_SP(add)(a, val[k] * x[col_idx[k] * stride]);
  return a;
}

AG_ITEMS(AG_KN(ag_csr_spmv), AG_SHAPE_CSR_SPMV, AG_T, , , {
  AG_SP(sum) a = AG_SP(row)(col_idx, val, x, 1, row_ptr[i], row_ptr[i + 1]);
  y[i] = a.s + a.c;
})

/* Work-group g multiplies row g: item l takes entries l, l + size, ... (neighbouring items read
   neighbouring entries), then the states meet pairwise, halving the items each step. */
AG_GROUPS(AG_CAT2(AG_KN(ag_csr_spmv), _rows), AG_SHAPE_CSR_SPMV, AG_T, , ,
          AG_LOCAL_MEM AG_SP(sum) sh[AG_SPARSE_GROUP];, {
  ag_u32 l = AG_LOCAL_ID, size = AG_LOCAL_SIZE;
  AG_SP(sum) a = AG_SP(zero)();
  for (ag_u64 k = row_ptr[g] + l, k1 = row_ptr[g + 1]; k < k1; k += size)
    a = AG_SP(add)(a, val[k] * x[col_idx[k]]);
  sh[l] = a;
  AG_BARRIER();
  for (ag_u32 w = size / 2; w > 0; w >>= 1) {
    if (l < w)
      sh[l] = AG_SP(merge)(sh[l], sh[l + w]);
    AG_BARRIER();
  }
  if (l == 0)
    y[g] = sh[0].s + sh[0].c;
})

AG_ITEMS(AG_KN(ag_csr_spmm), AG_SHAPE_CSR_SPMM, AG_T, , , {
  ag_u64 r = i / batch, b = i % batch;
  AG_SP(sum) a = AG_SP(row)(col_idx, val, x + b, batch, row_ptr[r], row_ptr[r + 1]);
  y[i] = a.s + a.c;
})

#undef AG_SP
#endif /* AG_FLOAT && (!AG_NEEDS_F64 || AG_HAVE_F64) */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
