/* tests/sparse_cases.h — CSR matrices drawn at random on the host, their products computed in
   long double, and the tolerance products are held to, for the suites that run sparse products
   (test_sparse, test_oclgrind_kernels). */
#ifndef AG_TESTS_SPARSE_CASES_H
#define AG_TESTS_SPARSE_CASES_H

#include "reference.h"

/* A CSR matrix on the host, as ag_csr_create takes it. */
typedef struct sp_host {
  ag_dtype t;
  size_t rows, cols, nnz;
  uint64_t *row_ptr;
  uint32_t *col_idx;
  void *values;
} sp_host;

/* How sp_random draws a matrix's rows. */
typedef struct sp_kind {
  size_t rows, cols;
  size_t min_len, max_len; /* a row's length, uniform in [min_len, max_len] ... */
  size_t long_len;         /* ... but row rows / 2 holds long_len entries (when not 0) */
} sp_kind;

/* A matrix of dtype @p t drawn from @p seed: a sixth of the rows empty, a sixth of one entry,
   the others of @p kind's lengths; columns uniform, and in every row of three entries or more
   the second entry repeats the first one's column (a repeated column adds up); values uniform
   in [-1, 1). Free it with sp_free. */
sp_host sp_random(ag_dtype t, const sp_kind *kind, uint64_t seed);
void sp_free(sp_host *h);

/* The matrix of @p h on @p dev, ck_asserting success. */
ag_csr *sp_device(ag_device *dev, const sp_host *h);

/* The length of op(A)'s input and output vectors. */
size_t sp_in_len(const sp_host *h, bool trans);
size_t sp_out_len(const sp_host *h, bool trans);

/* op(A) X for X of sp_in_len x @p batch elements of A's dtype ([len][batch], C order):
   want[i * batch + b], and its error scale, sum |a_ij x_jb| (scale may be NULL), each
   sp_out_len(h, trans) * batch long. Accumulated in long double: f32 products are exact
   there, and f64 ones within 2^-64, far below the tolerance. */
void sp_product(const sp_host *h, bool trans, const void *x, size_t batch, ref_c *want, long double *scale);

/* The tolerance of a product, relative to its error scale sum |a_ij x_j|. The kernels round
   each product once (an error of at most u, half an ulp, of each |a_ij x_j|) and add the
   products with TwoSum compensation, whose result is within u |y| + (n u)^2 sum |a_ij x_j| of
   the products' exact sum for a row of n entries (Ogita, Rump and Oishi, 2005: Sum2). So the
   error is at most 2 u + (n u)^2 of the scale: 3.5 u for the 5000-entry row in f32, 2 u
   elsewhere. The tolerance is 4 ulp, 8 u (2^-21 for f32, 2^-50 for f64): room for contracted
   multiply-adds and the GPU kernel's tree of compensated states, and 600 times below the bound
   of a plain running f32 sum over the 5000-entry row (n u). */
ref_tol sp_tol(ag_dtype t);

#endif
