/* tests/sparse_cases.c — see sparse_cases.h. */
#include <math.h>
#include <stdlib.h>

#include "sparse_cases.h"

sp_host sp_random(ag_dtype t, const sp_kind *kind, uint64_t seed) {
  sp_host h = {.t = t, .rows = kind->rows, .cols = kind->cols};
  ref_lcg g = ref_lcg_seeded(seed);
  h.row_ptr = test_alloc((h.rows + 1) * sizeof *h.row_ptr);
  h.row_ptr[0] = 0;
  for (size_t r = 0; r < h.rows; r++) {
    uint32_t pick = ref_lcg_next(&g) % 6;
    size_t len = pick == 0 ? 0 : pick == 1 ? 1 : kind->min_len + ref_lcg_next(&g) % (kind->max_len - kind->min_len + 1);
    if (kind->long_len > 0 && r == h.rows / 2)
      len = kind->long_len;
    h.row_ptr[r + 1] = h.row_ptr[r] + len;
  }
  h.nnz = h.row_ptr[h.rows];
  h.col_idx = test_alloc(h.nnz * sizeof *h.col_idx);
  for (size_t r = 0; r < h.rows; r++)
    for (uint64_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; k++)
      h.col_idx[k] = k == h.row_ptr[r] + 1 && h.row_ptr[r + 1] - h.row_ptr[r] >= 3
                         ? h.col_idx[k - 1]
                         : (uint32_t)(ref_lcg_next(&g) % h.cols);
  h.values = test_alloc(h.nnz * ref_size(t));
  ref_random(t, h.values, h.nnz, seed + 1, -1, 1);
  return h;
}

void sp_free(sp_host *h) {
  free(h->row_ptr);
  free(h->col_idx);
  free(h->values);
}

ag_csr *sp_device(ag_device *dev, const sp_host *h) {
  ag_csr *m = NULL;
  CHECK_OK(ag_csr_create(dev, h->t, h->rows, h->cols, h->nnz, h->row_ptr, h->col_idx, h->values, &m));
  return m;
}

size_t sp_in_len(const sp_host *h, bool trans) { return trans ? h->rows : h->cols; }
size_t sp_out_len(const sp_host *h, bool trans) { return trans ? h->cols : h->rows; }

void sp_product(const sp_host *h, bool trans, const void *x, size_t batch, ref_c *want, long double *scale) {
  size_t n = sp_out_len(h, trans) * batch;
  for (size_t i = 0; i < n; i++) {
    want[i] = 0;
    if (scale != NULL)
      scale[i] = 0;
  }
  for (size_t r = 0; r < h->rows; r++)
    for (uint64_t k = h->row_ptr[r]; k < h->row_ptr[r + 1]; k++) {
      size_t c = h->col_idx[k], in = trans ? r : c, out = trans ? c : r;
      long double a = creall(ref_get(h->t, h->values, k));
      for (size_t b = 0; b < batch; b++) {
        long double p = a * creall(ref_get(h->t, x, in * batch + b));
        want[out * batch + b] += p;
        if (scale != NULL)
          scale[out * batch + b] += fabsl(p);
      }
    }
}

ref_tol sp_tol(ag_dtype t) { return (ref_tol){t == AG_F32 ? 0x1p-21 : 0x1p-50, 0}; }
