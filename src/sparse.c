/* src/sparse.c - CSR matrices (include/anygpu/sparse.h): checks of the host arrays, the copy to
   the device, the transpose built on the host at the first transposed product, and the products'
   launches of the "sparse" family's kernels (kernels_shared/sparse.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/sparse.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_spmv, AG_SHAPE_CSR_SPMV)
AG__SHAPE_LAUNCHER(launch_spmm, AG_SHAPE_CSR_SPMM)

/* Rows at least this long on average go a work-group per row on GPUs (ag_csr_spmv_<t>_rows):
   a work-group of AG_SPARSE_GROUP then has an entry for each of its items. Shorter rows go one
   work-item per row, where a work-group's items would mostly idle. */
enum { LONG_ROWS = AG_SPARSE_GROUP };

struct ag_csr {
  ag_device *dev;
  ag_dtype dtype;
  size_t rows, cols, nnz;
  uint64_t longest;         /* entries in the longest row */
  ag_buffer *row_ptr;       /* rows + 1 u64 */
  ag_buffer *col_idx;       /* nnz u32 (one element when nnz is 0, never read) */
  ag_buffer *values;        /* nnz of dtype (the same) */
  pthread_mutex_t lock;     /* guards transpose */
  struct ag_csr *transpose; /* built at the first transposed product; NULL until then */
};

/* ---- making a matrix ------------------------------------------------------------------------ */

/* The checks every matrix's description passes before its arrays are read: device, dtype,
   sizes and output. */
static ag_status check_description(const char *fn, ag_device *dev, ag_dtype dtype, size_t rows, size_t cols,
                                   size_t nnz, ag_csr **out) {
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  if (!ag__dtype_valid(dtype))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: dtype is %d, not an ag_dtype", fn, (int)dtype);
  if (dtype != AG_F32 && dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: dtype is %s; sparse matrices hold f32 or f64", fn,
                     ag_dtype_name(dtype));
  ag_status st = ag__check_fp64(fn, dev, dtype);
  if (st != AG_OK)
    return st;
  if (rows == 0 || cols == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is 0; a matrix has at least one row and one column", fn,
                     rows == 0 ? "rows" : "cols");
  if (cols > ((size_t)1 << 32))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: cols is %zu, more than the 2^32 that 32-bit column indices reach",
                     fn, cols);
  size_t es = ag_dtype_size(dtype);
  if (rows > SIZE_MAX / sizeof(uint64_t) - 1 || nnz > SIZE_MAX / es)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: %s is %zu, whose array's size in bytes overflows", fn,
                     rows > SIZE_MAX / sizeof(uint64_t) - 1 ? "rows" : "nnz",
                     rows > SIZE_MAX / sizeof(uint64_t) - 1 ? rows : nnz);
  return AG_OK;
}

/* Each column index below cols; @p what names the array for messages. */
static ag_status check_indices(const char *fn, const char *what, const uint32_t *idx, size_t nnz, size_t limit,
                               const char *limit_name) {
  for (size_t k = 0; k < nnz; k++)
    if (idx[k] >= limit)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s[%zu] is %u, not below %s (%zu)", fn, what, k, idx[k],
                       limit_name, limit);
  return AG_OK;
}

/* A buffer of @p bytes (one element's worth when 0, so kernels get a valid handle) holding
   @p data. */
static ag_status upload(ag_device *dev, const void *data, size_t bytes, size_t min_bytes, ag_buffer **out) {
  ag_status st = ag_buffer_alloc(dev, bytes > 0 ? bytes : min_bytes, out);
  if (st == AG_OK && bytes > 0 && (st = ag_buffer_write(NULL, *out, 0, data, bytes)) != AG_OK) {
    ag_buffer_free(*out);
    *out = NULL;
  }
  return st;
}

static void csr_free(ag_csr *m) {
  ag_buffer_free(m->row_ptr);
  ag_buffer_free(m->col_idx);
  ag_buffer_free(m->values);
  pthread_mutex_destroy(&m->lock);
  free(m);
}

/* A matrix holding copies of arrays already checked. */
static ag_status csr_make(const char *fn, ag_device *dev, ag_dtype dtype, size_t rows, size_t cols, size_t nnz,
                          const uint64_t *row_ptr, const uint32_t *col_idx, const void *values, ag_csr **out) {
  ag_csr *m = calloc(1, sizeof *m);
  if (m == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  if (pthread_mutex_init(&m->lock, NULL) != 0) {
    free(m);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no mutex for the matrix", fn);
  }
  m->dev = dev;
  m->dtype = dtype;
  m->rows = rows;
  m->cols = cols;
  m->nnz = nnz;
  for (size_t i = 0; i < rows; i++)
    if (row_ptr[i + 1] - row_ptr[i] > m->longest)
      m->longest = row_ptr[i + 1] - row_ptr[i];
  size_t es = ag_dtype_size(dtype);
  ag_status st;
  if ((st = upload(dev, row_ptr, (rows + 1) * sizeof *row_ptr, 0, &m->row_ptr)) != AG_OK ||
      (st = upload(dev, col_idx, nnz * sizeof *col_idx, sizeof *col_idx, &m->col_idx)) != AG_OK ||
      (st = upload(dev, values, nnz * es, es, &m->values)) != AG_OK) {
    csr_free(m);
    return ag__prefix(st, fn);
  }
  *out = m;
  return AG_OK;
}

ag_status ag_csr_create(ag_device *dev, ag_dtype dtype, size_t rows, size_t cols, size_t nnz, const uint64_t *row_ptr,
                        const uint32_t *col_idx, const void *values, ag_csr **out) {
  static const char fn[] = "ag_csr_create";
  ag_status st = check_description(fn, dev, dtype, rows, cols, nnz, out);
  if (st != AG_OK)
    return st;
  AG__CHECK_NOT_NULL(fn, row_ptr);
  if (nnz > 0) {
    AG__CHECK_NOT_NULL(fn, col_idx);
    AG__CHECK_NOT_NULL(fn, values);
  }
  if (row_ptr[0] != 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: row_ptr[0] is %llu, not 0", fn, (unsigned long long)row_ptr[0]);
  for (size_t i = 1; i <= rows; i++)
    if (row_ptr[i] < row_ptr[i - 1])
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: row_ptr[%zu] is %llu, below row_ptr[%zu] (%llu): row "
                       "pointers never decrease", fn, i, (unsigned long long)row_ptr[i], i - 1,
                       (unsigned long long)row_ptr[i - 1]);
  if (row_ptr[rows] != nnz)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: row_ptr[%zu] (row_ptr[rows]) is %llu, but nnz is %zu", fn, rows,
                     (unsigned long long)row_ptr[rows], nnz);
  if ((st = check_indices(fn, "col_idx", col_idx, nnz, cols, "cols")) != AG_OK)
    return st;
  return csr_make(fn, dev, dtype, rows, cols, nnz, row_ptr, col_idx, values, out);
}

/* The entries of @p rows rows given by their row, @p row_of[k] (u32 indices, or none: entry k
   is then in row key), sorted by row keeping their order within a row: row pointers into
   @p row_ptr, and each entry's column and value (@p es bytes) moved to its place. A counting
   sort: two passes, no comparison. @p cols_out and @p vals_out hold nnz entries. */
static void counting_sort(size_t rows, size_t nnz, size_t es, const uint32_t *row_of, const uint32_t *col_idx,
                          const unsigned char *values, uint64_t *row_ptr, uint32_t *cols_out,
                          unsigned char *vals_out) {
  memset(row_ptr, 0, (rows + 1) * sizeof *row_ptr);
  for (size_t k = 0; k < nnz; k++)
    row_ptr[row_of[k] + 1]++;
  for (size_t i = 0; i < rows; i++)
    row_ptr[i + 1] += row_ptr[i];
  /* row_ptr[r] is where row r's next entry goes while placing; afterwards row r + 1's start,
     so the array is shifted back by one row. */
  for (size_t k = 0; k < nnz; k++) {
    uint64_t at = row_ptr[row_of[k]]++;
    cols_out[at] = col_idx[k];
    memcpy(vals_out + at * es, values + k * es, es);
  }
  memmove(row_ptr + 1, row_ptr, rows * sizeof *row_ptr);
  row_ptr[0] = 0;
}

/* Host arrays for a CSR of @p rows rows and @p nnz entries of @p es bytes each; NULL when out
   of memory (all three freed). */
static bool host_csr_alloc(size_t rows, size_t nnz, size_t es, uint64_t **row_ptr, uint32_t **col_idx,
                           unsigned char **values) {
  *row_ptr = malloc((rows + 1) * sizeof **row_ptr);
  *col_idx = malloc((nnz > 0 ? nnz : 1) * sizeof **col_idx);
  *values = malloc((nnz > 0 ? nnz : 1) * es);
  if (*row_ptr != NULL && *col_idx != NULL && *values != NULL)
    return true;
  free(*row_ptr);
  free(*col_idx);
  free(*values);
  return false;
}

ag_status ag_csr_create_from_coo(ag_device *dev, ag_dtype dtype, size_t rows, size_t cols, size_t nnz,
                                 const uint32_t *row_idx, const uint32_t *col_idx, const void *values, ag_csr **out) {
  static const char fn[] = "ag_csr_create_from_coo";
  ag_status st = check_description(fn, dev, dtype, rows, cols, nnz, out);
  if (st != AG_OK)
    return st;
  if (nnz > 0) {
    AG__CHECK_NOT_NULL(fn, row_idx);
    AG__CHECK_NOT_NULL(fn, col_idx);
    AG__CHECK_NOT_NULL(fn, values);
  }
  if ((st = check_indices(fn, "row_idx", row_idx, nnz, rows, "rows")) != AG_OK ||
      (st = check_indices(fn, "col_idx", col_idx, nnz, cols, "cols")) != AG_OK)
    return st;
  size_t es = ag_dtype_size(dtype);
  uint64_t *rp;
  uint32_t *ci;
  unsigned char *v;
  if (!host_csr_alloc(rows, nnz, es, &rp, &ci, &v))
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the sorted entries", fn);
  counting_sort(rows, nnz, es, row_idx, col_idx, values, rp, ci, v);
  st = csr_make(fn, dev, dtype, rows, cols, nnz, rp, ci, v, out);
  free(rp);
  free(ci);
  free(v);
  return st;
}

void ag_csr_destroy(ag_csr *m) {
  if (m == NULL)
    return;
  ag_csr_destroy(m->transpose);
  csr_free(m);
}

ag_status ag_csr_get_info(const ag_csr *m, ag_csr_info *info) {
  static const char fn[] = "ag_csr_get_info";
  AG__CHECK_NOT_NULL(fn, m);
  AG__CHECK_NOT_NULL(fn, info);
  *info = (ag_csr_info){.rows = m->rows, .cols = m->cols, .nnz = m->nnz, .dtype = m->dtype, .dev = m->dev};
  return AG_OK;
}

/* The three arrays' device-to-host copies; any destination may be NULL. */
static ag_status download(const ag_csr *m, uint64_t *row_ptr, uint32_t *col_idx, void *values) {
  ag_status st = AG_OK;
  if (row_ptr != NULL)
    st = ag_buffer_read(NULL, m->row_ptr, 0, row_ptr, (m->rows + 1) * sizeof *row_ptr);
  if (st == AG_OK && col_idx != NULL && m->nnz > 0)
    st = ag_buffer_read(NULL, m->col_idx, 0, col_idx, m->nnz * sizeof *col_idx);
  if (st == AG_OK && values != NULL && m->nnz > 0)
    st = ag_buffer_read(NULL, m->values, 0, values, m->nnz * ag_dtype_size(m->dtype));
  return st;
}

ag_status ag_csr_to_host(const ag_csr *m, uint64_t *row_ptr, uint32_t *col_idx, void *values) {
  static const char fn[] = "ag_csr_to_host";
  AG__CHECK_NOT_NULL(fn, m);
  return ag__prefix(download(m, row_ptr, col_idx, values), fn);
}

/* ---- the transpose -------------------------------------------------------------------------- */

/* A^T, made from a read-back of @p a: entry (i, j) of A becomes entry (j, i), each row of A^T in
   A's row order. */
static ag_status transpose_make(const char *fn, const ag_csr *a, ag_csr **out) {
  size_t es = ag_dtype_size(a->dtype);
  uint64_t *rp, *trp;
  uint32_t *ci, *tci;
  unsigned char *v, *tv;
  if (!host_csr_alloc(a->rows, a->nnz, es, &rp, &ci, &v))
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory to read the matrix back for its transpose", fn);
  if (!host_csr_alloc(a->cols, a->nnz, es, &trp, &tci, &tv)) {
    free(rp);
    free(ci);
    free(v);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the transpose", fn);
  }
  /* Each entry's row, A's column indices sorted by with A's row numbers as the new columns. */
  uint32_t *row_of = malloc((a->nnz > 0 ? a->nnz : 1) * sizeof *row_of);
  ag_status st = row_of == NULL ? ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the transpose", fn)
                                : ag__prefix(download(a, rp, ci, v), fn);
  if (st == AG_OK) {
    for (size_t i = 0; i < a->rows; i++)
      for (uint64_t k = rp[i]; k < rp[i + 1]; k++)
        row_of[k] = (uint32_t)i;
    counting_sort(a->cols, a->nnz, es, ci, row_of, v, trp, tci, tv);
    st = csr_make(fn, a->dev, a->dtype, a->cols, a->rows, a->nnz, trp, tci, tv, out);
  }
  free(row_of);
  free(rp);
  free(ci);
  free(v);
  free(trp);
  free(tci);
  free(tv);
  return st;
}

/* A^T of @p a, built at the first call and kept; calls from other threads meanwhile wait for
   it. A failed build is not kept: the next call tries again. */
static ag_status transpose_get(const char *fn, ag_csr *a, const ag_csr **t) {
  if (a->rows > ((size_t)1 << 32))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: a has %zu rows; its transpose's column indices (32-bit) reach 2^32",
                     fn, a->rows);
  ag_status st = AG_OK;
  pthread_mutex_lock(&a->lock);
  if (a->transpose == NULL)
    st = transpose_make(fn, a, &a->transpose);
  *t = a->transpose;
  pthread_mutex_unlock(&a->lock);
  return st;
}

ag__csr_parts ag__csr_parts_of(const ag_csr *m) {
  return (ag__csr_parts){.row_ptr = m->row_ptr, .col_idx = m->col_idx, .values = m->values, .nnz = m->nnz,
                         .longest = m->longest};
}

/* ---- products ------------------------------------------------------------------------------- */

/* Operand @p name (x or y) must have shape {len} (spmv) or {len, batch} (spmm; any batch when
   @p batch is 0); op(A), named @p op_text, is op_rows x op_cols. */
static ag_status check_operand(const char *fn, const char *name, const ag_array *v, int ndim, size_t len,
                               size_t batch, const char *op_text, size_t op_rows, size_t op_cols) {
  if (v->ndim == ndim && v->shape[0] == len && (ndim == 1 || batch == 0 || v->shape[1] == batch))
    return AG_OK;
  char got[64], want[64];
  if (v->ndim == 1)
    snprintf(got, sizeof got, "{%zu}", v->shape[0]);
  else if (v->ndim == 2)
    snprintf(got, sizeof got, "{%zu, %zu}", v->shape[0], v->shape[1]);
  else
    snprintf(got, sizeof got, "%d dimensions", v->ndim);
  if (ndim == 1)
    snprintf(want, sizeof want, "{%zu}", len);
  else if (batch == 0)
    snprintf(want, sizeof want, "{%zu, B} for a batch of B vectors", len);
  else
    snprintf(want, sizeof want, "{%zu, %zu} (x's batch)", len, batch);
  return ag__error(AG_ERR_MISMATCH, "%s: %s has shape %s, but %s is %zu x %zu, so %s must have shape %s", fn, name,
                   got, op_text, op_rows, op_cols, name, want);
}

/* Whether @p m's rows fit the device's loop limit (ag_device_info.max_loop_iterations): each
   kernel walks a row in one loop of one work-item (the grid-stride loop around it takes one
   more iteration). */
static ag_status check_loop_limit(const char *fn, const ag_csr *m, bool transposed) {
  uint64_t limit = m->dev->info.max_loop_iterations;
  if (limit == 0 || m->longest < limit - 1)
    return AG_OK;
  return ag__error(AG_ERR_UNSUPPORTED, "%s: a row of %s holds %llu values, and %s (%s) ends a work-item's loops "
                   "after %llu iterations (docs/portability.md, loop-limit)", fn, transposed ? "a^T" : "a",
                   (unsigned long long)m->longest, m->dev->info.spec, m->dev->info.name, (unsigned long long)limit);
}

/* ag_csr_spmv_<t>_rows for GPUs and matrices of long rows: a work-group per row, of
   AG_SPARSE_GROUP items or the kernel's limit; otherwise ag_csr_spmv_<t>, an item per row. */
static ag_status launch_vector(const char *fn, ag_queue *q, const ag_csr *m, const ag_array *x, ag_array *y) {
  ag__launch l = {.fn = fn, .q = q, .dev = m->dev, .kernel = AG_K_CSR_SPMV + m->dtype, .n = m->rows};
  ag_range r = {.dims = 1};
  if (m->dev->traits.launch == AG__LAUNCH_GRID && m->nnz / LONG_ROWS >= m->rows) {
    l.kernel = AG_K_CSR_SPMV_ROWS + m->dtype;
    ag_status st = ag__launch_groups(&l, AG_SPARSE_GROUP, &r);
    if (st != AG_OK)
      return st;
  }
  return AG__LAUNCH(launch_spmv, &l, .row_ptr = m->row_ptr, .col_idx = m->col_idx, .val = m->values, .x = x, .y = y);
}

/* Y = op(A) X, X and Y of 1 dimension (spmv) or 2 (spmm). */
static ag_status product(const char *fn, int ndim, ag_queue *q, ag_transpose op, const ag_csr *a, const ag_array *x,
                         ag_array *y) {
  ag_status st;
  AG__CHECK_NOT_NULL(fn, a);
  if ((st = ag__check_array(fn, "x", x)) != AG_OK || (st = ag__check_array(fn, "y", y)) != AG_OK)
    return st;
  if (op != AG_NO_TRANS && op != AG_TRANS && op != AG_CONJ_TRANS)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: op is %d, not an ag_transpose", fn, (int)op);
  bool trans = op != AG_NO_TRANS;
  if (x->dev != a->dev || y->dev != a->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is on %s but a is on %s", fn, x->dev != a->dev ? "x" : "y",
                     (x->dev != a->dev ? x : y)->dev->info.spec, a->dev->info.spec);
  if (x->dtype != a->dtype || y->dtype != a->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s but a is %s", fn, x->dtype != a->dtype ? "x" : "y",
                     ag_dtype_name((x->dtype != a->dtype ? x : y)->dtype), ag_dtype_name(a->dtype));
  size_t in = trans ? a->rows : a->cols, out = trans ? a->cols : a->rows;
  const char *op_text = trans ? "a^T" : "a";
  if ((st = check_operand(fn, "x", x, ndim, in, 0, op_text, out, in)) != AG_OK)
    return st;
  size_t batch = ndim == 2 ? x->shape[1] : 1;
  if ((st = check_operand(fn, "y", y, ndim, out, batch, op_text, out, in)) != AG_OK)
    return st;
  if (x->size == 0)
    return AG_OK; /* a batch of none */
  if (x->store == y->store && x->offset < y->offset + y->size && y->offset < x->offset + x->size)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x and y overlap in one buffer", fn);
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, a->dev, &rq)) != AG_OK)
    return st;
  const ag_csr *m = a;
  if (trans && (st = transpose_get(fn, (ag_csr *)a, &m)) != AG_OK)
    return st;
  if ((st = check_loop_limit(fn, m, trans)) != AG_OK)
    return st;
  if (ndim == 1)
    return launch_vector(fn, rq, m, x, y);
  ag__launch l = {.fn = fn, .q = rq, .dev = m->dev, .kernel = AG_K_CSR_SPMM + m->dtype, .n = (uint64_t)m->rows * batch};
  return AG__LAUNCH(launch_spmm, &l, .row_ptr = m->row_ptr, .col_idx = m->col_idx, .val = m->values, .x = x,
                    .batch = (ag_u64)batch, .y = y);
}

ag_status ag_spmv(ag_queue *q, ag_transpose op, const ag_csr *a, const ag_array *x, ag_array *y) {
  return product("ag_spmv", 1, q, op, a, x, y);
}

ag_status ag_spmm(ag_queue *q, ag_transpose op, const ag_csr *a, const ag_array *x, ag_array *y) {
  return product("ag_spmm", 2, q, op, a, x, y);
}
