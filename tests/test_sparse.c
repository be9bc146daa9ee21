/* tests/test_sparse.c — CSR matrices (sparse.h): products with vectors and batches of vectors,
   both ways, against the long double references of sparse_cases.c, for random matrices with
   empty rows, rows of one entry, a row of 5000 and repeated columns, and for matrices of long
   rows (a work-group per row on GPUs); COO input with duplicates; export; empty matrices;
   views; the loop limit of llvmpipe; several threads on one matrix; refused input. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "sparse_cases.h"

static const ag_dtype dtypes[2] = {AG_F32, AG_F64};

/* Short rows with a few empty ones, rows of one entry and a row of 5000; and long rows, at
   least 32 entries on average, which GPUs multiply a work-group per row. */
static const sp_kind mixed = {.rows = 400, .cols = 1500, .min_len = 2, .max_len = 40, .long_len = 5000};
static const sp_kind long_rows = {.rows = 64, .cols = 300, .min_len = 40, .max_len = 200};

/* op(A) X on @p dev with X drawn from @p seed, compared with the reference: ag_spmv when
   @p batch is 0, else ag_spmm with X of [len, batch]. */
static void check_product(ag_device *dev, ag_csr *m, const sp_host *h, ag_transpose op, size_t batch, uint64_t seed) {
  bool trans = op != AG_NO_TRANS;
  size_t b = batch > 0 ? batch : 1, in = sp_in_len(h, trans), out = sp_out_len(h, trans);
  void *x = test_alloc(in * b * ref_size(h->t));
  ref_random(h->t, x, in * b, seed, -1, 1);
  const size_t xs[2] = {in, b}, ys[2] = {out, b};
  int nd = batch > 0 ? 2 : 1;
  ag_array *ax = test_array_from(dev, h->t, nd, xs, x), *ay = test_array_new(dev, h->t, nd, ys);
  CHECK_OK(ag_fill(NULL, ay, 7)); /* every element must be written */
  ag_status st = batch > 0 ? ag_spmm(NULL, op, m, ax, ay) : ag_spmv(NULL, op, m, ax, ay);
  ref_check_ok(st, "%s of %s with op %d, batch %zu", batch > 0 ? "ag_spmm" : "ag_spmv", ref_name(h->t), (int)op,
               batch);
  ref_c *want = test_alloc(out * b * sizeof *want);
  long double *scale = test_alloc(out * b * sizeof *scale);
  sp_product(h, trans, x, b, want, scale);
  void *got = test_array_read(ay);
  ref_check(h->t, got, want, scale, out * b, sp_tol(h->t),
            "%s of a %zu x %zu %s matrix of %zu values, op %d, batch %zu", batch > 0 ? "ag_spmm" : "ag_spmv",
            h->rows, h->cols, ref_name(h->t), h->nnz, (int)op, batch);
  free(got);
  free(scale);
  free(want);
  free(x);
  ag_array_free(ax);
  ag_array_free(ay);
}

/* Every product of a matrix of @p kind: both ways (AG_CONJ_TRANS as AG_TRANS), and batches of
   1, 3 and 32. */
static void check_all_products(ag_device *dev, const sp_kind *kind, uint64_t seed) {
  for (int k = 0; k < 2; k++) {
    if (!test_dtype_runs(dev, dtypes[k]))
      continue; /* refused: "bad input is refused" checks that */
    sp_host h = sp_random(dtypes[k], kind, seed + 10u * (unsigned)k);
    ag_csr *m = sp_device(dev, &h);
    const ag_transpose ops[3] = {AG_NO_TRANS, AG_TRANS, AG_CONJ_TRANS};
    const size_t batches[4] = {0, 1, 3, 32};
    for (int o = 0; o < 3; o++)
      for (int b = 0; b < 4; b++)
        check_product(dev, m, &h, ops[o], batches[b], seed + 100u * (unsigned)o + (unsigned)b);
    ag_csr_destroy(m);
    sp_free(&h);
  }
}

START_TEST(products_of_matrices_with_empty_short_and_very_long_rows_match_the_reference) {
  check_all_products(test_device(_i), &mixed, 1000);
}
END_TEST

START_TEST(products_of_matrices_of_long_rows_match_the_reference) {
  check_all_products(test_device(_i), &long_rows, 2000);
}
END_TEST

/* Each row: one value 2^24 (f32; 2^53 for f64) and then 3000 values of 1, times x of ones. A
   plain running sum stalls at 2^24, where each further 1 rounds away (ties to even), and loses
   all 3000; the compensated sums keep every one, and 2^24 + 3000 is a float32, so the product
   must be exact. 40 rows of 3001 entries are long rows, multiplied a work-group per row on
   GPUs, each item's share starting from 0 or from 2^24; the batched kernel as well. */
START_TEST(compensated_sums_keep_the_terms_a_plain_running_sum_drops) {
  ag_device *dev = test_device(_i);
  enum { ROWS = 40, ONES = 3000, PER = ONES + 1, COLS = 2048 };
  uint64_t *ptr = test_alloc((ROWS + 1) * sizeof *ptr);
  uint32_t *col = test_alloc(ROWS * PER * sizeof *col);
  for (size_t r = 0; r <= ROWS; r++)
    ptr[r] = r * PER;
  for (size_t k = 0; k < ROWS * PER; k++)
    col[k] = (uint32_t)((k % PER) % COLS);
  for (int d = 0; d < 2; d++) {
    ag_dtype t = dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    double big = t == AG_F32 ? 0x1p24 : 0x1p53;
    void *val = test_alloc(ROWS * PER * ref_size(t));
    for (size_t k = 0; k < ROWS * PER; k++)
      ref_put(t, val, k, k % PER == 0 ? big : 1);
    ag_csr *m = NULL;
    CHECK_OK(ag_csr_create(dev, t, ROWS, COLS, ROWS * PER, ptr, col, val, &m));
    for (size_t batch = 0; batch <= 2; batch += 2) {
      size_t b = batch > 0 ? batch : 1;
      const size_t xs[2] = {COLS, b}, ys[2] = {ROWS, b};
      int nd = batch > 0 ? 2 : 1;
      ag_array *x = test_array_new(dev, t, nd, xs), *y = test_array_new(dev, t, nd, ys);
      CHECK_OK(ag_fill(NULL, x, 1));
      CHECK_OK(batch > 0 ? ag_spmm(NULL, AG_NO_TRANS, m, x, y) : ag_spmv(NULL, AG_NO_TRANS, m, x, y));
      void *got = test_array_read(y);
      for (size_t i = 0; i < ROWS * b; i++)
        ck_assert_msg(creall(ref_get(t, got, i)) == big + ONES, "%s: %s %s: element %zu is %.17Lg, exactly %.17g",
                      test_label(), ref_name(t), batch > 0 ? "ag_spmm" : "ag_spmv", i, creall(ref_get(t, got, i)),
                      big + ONES);
      free(got);
      ag_array_free(x);
      ag_array_free(y);
    }
    ag_csr_destroy(m);
    free(val);
  }
  free(ptr);
  free(col);
}
END_TEST

/* ---- making and reading back ------------------------------------------------------------------- */

/* A 4 x 5 matrix given as unsorted coordinates with two duplicates, and the CSR form worked out
   by hand: rows in order, entries in their input order within a row, duplicates kept. Row 1 is
   empty. Every value and product is exact in f32. */
static const uint32_t coo_rows[7] = {2, 0, 2, 3, 0, 2, 0}, coo_cols[7] = {1, 4, 1, 0, 0, 3, 4};
static const double coo_vals[7] = {1.5, 2, 0.25, -1, 3, 4, 0.5};
static const uint64_t hand_ptr[5] = {0, 3, 3, 6, 7};
static const uint32_t hand_cols[7] = {4, 0, 4, 1, 1, 3, 0};
static const double hand_vals[7] = {2, 3, 0.5, 1.5, 0.25, 4, -1};

START_TEST(coordinates_with_duplicates_in_any_order_give_the_csr_worked_out_by_hand) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < 2; k++) {
    ag_dtype t = dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    unsigned char vals[7 * 8], want_vals[7 * 8], got_vals[7 * 8];
    for (size_t i = 0; i < 7; i++) {
      ref_put(t, vals, i, coo_vals[i]);
      ref_put(t, want_vals, i, hand_vals[i]);
    }
    ag_csr *m = NULL;
    CHECK_OK(ag_csr_create_from_coo(dev, t, 4, 5, 7, coo_rows, coo_cols, vals, &m));
    uint64_t ptr[5];
    uint32_t cols[7];
    CHECK_OK(ag_csr_to_host(m, ptr, cols, got_vals));
    CHECK_BYTES(ptr, hand_ptr, sizeof ptr, "row_ptr from coordinates");
    CHECK_BYTES(cols, hand_cols, sizeof cols, "col_idx from coordinates");
    CHECK_BYTES(got_vals, want_vals, 7 * ref_size(t), "values from coordinates");
    /* Duplicates add up: A x with x = {1, 2, 3, 4, 5}, A^T x with x = {1, 2, 3, 4}. */
    const double x5[5] = {1, 2, 3, 4, 5}, x4[4] = {1, 2, 3, 4};
    const double want_y[4] = {15.5, 0, 19.5, -1}, want_yt[5] = {-1, 5.25, 0, 12, 2.5};
    unsigned char xb[5 * 8], yb[5 * 8];
    for (int trans = 0; trans < 2; trans++) {
      size_t in = trans ? 4 : 5, out = trans ? 5 : 4;
      for (size_t i = 0; i < in; i++)
        ref_put(t, xb, i, trans ? x4[i] : x5[i]);
      ag_array *ax = test_array_1d(dev, t, in, xb), *ay = test_array_new(dev, t, 1, &out);
      CHECK_OK(ag_spmv(NULL, trans ? AG_TRANS : AG_NO_TRANS, m, ax, ay));
      CHECK_OK(ag_array_to_host(ay, yb, out * ref_size(t)));
      for (size_t i = 0; i < out; i++)
        ck_assert_msg(creall(ref_get(t, yb, i)) == (trans ? want_yt[i] : want_y[i]),
                      "%s: %s product %s element %zu is %Lg, expected %g", test_label(), ref_name(t),
                      trans ? "A^T x" : "A x", i, creall(ref_get(t, yb, i)), trans ? want_yt[i] : want_y[i]);
      ag_array_free(ax);
      ag_array_free(ay);
    }
    ag_csr_destroy(m);
  }
}
END_TEST

START_TEST(to_host_returns_what_went_in) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < 2; k++) {
    if (!test_dtype_runs(dev, dtypes[k]))
      continue;
    sp_host h = sp_random(dtypes[k], &mixed, 3000u + (unsigned)k);
    ag_csr *m = sp_device(dev, &h);
    ag_csr_info info = {0};
    CHECK_OK(ag_csr_get_info(m, &info));
    ck_assert_msg(info.rows == h.rows && info.cols == h.cols && info.nnz == h.nnz && info.dtype == h.t &&
                      info.dev == dev,
                  "%s: ag_csr_get_info says %zu x %zu, %zu values of %s", test_label(), info.rows, info.cols,
                  info.nnz, ag_dtype_name(info.dtype));
    uint64_t *ptr = test_alloc((h.rows + 1) * sizeof *ptr);
    uint32_t *cols = test_alloc(h.nnz * sizeof *cols);
    void *vals = test_alloc(h.nnz * ref_size(h.t));
    CHECK_OK(ag_csr_to_host(m, ptr, cols, vals));
    CHECK_BYTES(ptr, h.row_ptr, (h.rows + 1) * sizeof *ptr, "row_ptr read back");
    CHECK_BYTES(cols, h.col_idx, h.nnz * sizeof *cols, "col_idx read back");
    CHECK_BYTES(vals, h.values, h.nnz * ref_size(h.t), "values read back");
    /* Each array alone, the others skipped; after a transposed product too, which must leave
       the matrix as it was. */
    check_product(dev, m, &h, AG_TRANS, 0, 3100);
    memset(cols, 0, h.nnz * sizeof *cols);
    CHECK_OK(ag_csr_to_host(m, NULL, cols, NULL));
    CHECK_BYTES(cols, h.col_idx, h.nnz * sizeof *cols, "col_idx read back alone");
    memset(vals, 0, h.nnz * ref_size(h.t));
    CHECK_OK(ag_csr_to_host(m, NULL, NULL, vals));
    CHECK_BYTES(vals, h.values, h.nnz * ref_size(h.t), "values read back alone");
    CHECK_OK(ag_csr_to_host(m, NULL, NULL, NULL));
    free(ptr);
    free(cols);
    free(vals);
    ag_csr_destroy(m);
    sp_free(&h);
  }
}
END_TEST

START_TEST(a_matrix_without_values_multiplies_to_zeros) {
  ag_device *dev = test_device(_i);
  const uint64_t zeros[4] = {0, 0, 0, 0};
  ag_csr *m = NULL;
  CHECK_OK(ag_csr_create(dev, AG_F32, 3, 5, 0, zeros, NULL, NULL, &m));
  uint64_t ptr[4] = {9, 9, 9, 9};
  CHECK_OK(ag_csr_to_host(m, ptr, NULL, NULL));
  CHECK_BYTES(ptr, zeros, sizeof ptr, "the row pointers of an empty matrix");
  for (int trans = 0; trans < 2; trans++)
    for (size_t batch = 0; batch <= 3; batch += 3) {
      size_t in = trans ? 3 : 5, out = trans ? 5 : 3, b = batch > 0 ? batch : 1;
      const size_t xs[2] = {in, b}, ys[2] = {out, b};
      int nd = batch > 0 ? 2 : 1;
      ag_array *ax = test_array_new(dev, AG_F32, nd, xs), *ay = test_array_new(dev, AG_F32, nd, ys);
      CHECK_OK(ag_fill(NULL, ax, 1));
      CHECK_OK(ag_fill(NULL, ay, 7));
      ag_transpose op = trans ? AG_TRANS : AG_NO_TRANS;
      CHECK_OK(batch > 0 ? ag_spmm(NULL, op, m, ax, ay) : ag_spmv(NULL, op, m, ax, ay));
      test_check_all_equal(&ay, 1, 0, "y of a product with an empty matrix");
      ag_array_free(ax);
      ag_array_free(ay);
    }
  /* The same from no coordinates. */
  ag_csr *c = NULL;
  CHECK_OK(ag_csr_create_from_coo(dev, AG_F32, 3, 5, 0, NULL, NULL, NULL, &c));
  memset(ptr, 9, sizeof ptr);
  CHECK_OK(ag_csr_to_host(c, ptr, NULL, NULL));
  CHECK_BYTES(ptr, zeros, sizeof ptr, "the row pointers of a matrix from no coordinates");
  ag_csr_destroy(c);
  ag_csr_destroy(m);
}
END_TEST

/* x and y as rows of larger arrays (ag_array_index), so both carry an element offset; the rest
   of y's array must stay as it was. */
START_TEST(x_and_y_may_be_views_at_an_offset) {
  ag_device *dev = test_device(_i);
  const sp_kind kind = {.rows = 50, .cols = 70, .min_len = 2, .max_len = 20};
  sp_host h = sp_random(AG_F32, &kind, 4000);
  ag_csr *m = sp_device(dev, &h);
  for (int trans = 0; trans < 2; trans++)
    for (size_t batch = 0; batch <= 4; batch += 4) {
      size_t in = sp_in_len(&h, trans), out = sp_out_len(&h, trans), b = batch > 0 ? batch : 1;
      /* x is row 2 of [3, in, b], y row 1 of [3, out, b] (2-D views of 3-D arrays for spmm). */
      const size_t xs[3] = {3, in, b}, ys[3] = {3, out, b};
      int nd = batch > 0 ? 3 : 2;
      size_t xs2[2] = {3, in * b}, ys2[2] = {3, out * b};
      float *x = test_alloc(3 * in * b * sizeof *x);
      ref_random(AG_F32, x, 3 * in * b, 4100u + (unsigned)batch, -1, 1);
      ag_array *xa = test_array_from(dev, AG_F32, nd, nd == 3 ? xs : xs2, x);
      ag_array *ya = test_array_new(dev, AG_F32, nd, nd == 3 ? ys : ys2);
      ag_array *xv = NULL, *yv = NULL;
      CHECK_OK(ag_fill(NULL, ya, 7));
      CHECK_OK(ag_array_index(xa, 2, &xv));
      CHECK_OK(ag_array_index(ya, 1, &yv));
      ag_transpose op = trans ? AG_TRANS : AG_NO_TRANS;
      CHECK_OK(batch > 0 ? ag_spmm(NULL, op, m, xv, yv) : ag_spmv(NULL, op, m, xv, yv));
      ref_c *want = test_alloc(out * b * sizeof *want);
      long double *scale = test_alloc(out * b * sizeof *scale);
      sp_product(&h, trans, x + 2 * in * b, b, want, scale);
      float *got = test_array_read(ya);
      ref_check(AG_F32, got + out * b, want, scale, out * b, sp_tol(AG_F32), "a product into a view, op %d, batch %zu",
                (int)op, batch);
      for (size_t i = 0; i < 3 * out * b; i++)
        ck_assert_msg(i / (out * b) == 1 || got[i] == 7, "%s: element %zu of y's array, outside the view, became %g",
                      test_label(), i, got[i]);
      free(got);
      free(want);
      free(scale);
      free(x);
      ag_array_free(xv);
      ag_array_free(yv);
      ag_array_free(xa);
      ag_array_free(ya);
    }
  ag_csr_destroy(m);
  sp_free(&h);
}
END_TEST

/* llvmpipe ends a work-item's loops after 65535 iterations, silently (docs/portability.md,
   loop-limit). A row of 70000 entries is refused there, naming the limit; elsewhere it is
   multiplied. Values 1 and x of 1, so the product is the row's length exactly. */
START_TEST(rows_longer_than_a_loop_may_run_are_refused_where_loops_end_early) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  const size_t len = 70000, cols = 1000;
  uint64_t ptr[3] = {0, 1, 1 + len};
  uint32_t *col = test_alloc((1 + len) * sizeof *col);
  float *val = test_alloc((1 + len) * sizeof *val);
  for (size_t k = 0; k <= len; k++) {
    col[k] = (uint32_t)(k % cols);
    val[k] = 1;
  }
  ag_csr *m = NULL;
  CHECK_OK(ag_csr_create(dev, AG_F32, 2, cols, 1 + len, ptr, col, val, &m));
  const size_t two = 2;
  ag_array *x = test_array_new(dev, AG_F32, 1, &cols), *y = test_array_new(dev, AG_F32, 1, &two);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, y, 3));
  if (info.max_loop_iterations != 0 && info.max_loop_iterations <= len) {
    CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, x, y), AG_ERR_UNSUPPORTED, "ag_spmv", "loop");
    test_check_all_equal(&y, 1, 3, "ag_spmv of a row too long for the device's loops");
  } else {
    CHECK_OK(ag_spmv(NULL, AG_NO_TRANS, m, x, y));
    float got[2];
    CHECK_OK(ag_array_to_host(y, got, sizeof got));
    ck_assert_msg(got[0] == 1 && got[1] == (float)len, "%s: rows of 1 and %zu ones gave %g and %g", test_label(),
                  len, got[0], got[1]);
  }
  ag_array_free(x);
  ag_array_free(y);
  ag_csr_destroy(m);
  free(col);
  free(val);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------------------ */

enum { THREADS = 4 };

typedef struct worker {
  ag_csr *m;
  ag_array *x, *y;
  ag_status st;
  char message[256];
} worker;

/* A transposed product on this thread's default queue, waited for. The first of them builds the
   transpose, the others wait for it. */
static void *work(void *arg) {
  worker *w = arg;
  w->st = ag_spmv(NULL, AG_TRANS, w->m, w->x, w->y);
  if (w->st == AG_OK)
    w->st = ag_device_finish(ag_array_device(w->y));
  snprintf(w->message, sizeof w->message, "%s", ag_last_error());
  return NULL;
}

START_TEST(several_threads_multiply_by_one_matrix_at_once) {
  ag_device *dev = test_device(_i);
  sp_host h = sp_random(AG_F32, &mixed, 5000);
  ag_csr *m = sp_device(dev, &h);
  size_t in = sp_in_len(&h, true), out = sp_out_len(&h, true);
  float *x = test_alloc(in * sizeof *x);
  ref_random(AG_F32, x, in, 5001, -1, 1);
  worker w[THREADS];
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){.m = m, .x = test_array_1d(dev, AG_F32, in, x), .y = test_array_new(dev, AG_F32, 1, &out)};
    ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  ref_c *want = test_alloc(out * sizeof *want);
  long double *scale = test_alloc(out * sizeof *scale);
  sp_product(&h, true, x, 1, want, scale);
  for (int i = 0; i < THREADS; i++) {
    ck_assert_msg(w[i].st == AG_OK, "%s: thread %d: %s: %s", test_label(), i, ag_status_name(w[i].st), w[i].message);
    void *got = test_array_read(w[i].y);
    ref_check(AG_F32, got, want, scale, out, sp_tol(AG_F32), "A^T x on thread %d of %d", i, THREADS);
    free(got);
    ag_array_free(w[i].x);
    ag_array_free(w[i].y);
  }
  free(want);
  free(scale);
  free(x);
  ag_csr_destroy(m);
  sp_free(&h);
}
END_TEST

/* ---- refusals ------------------------------------------------------------------------------------ */

/* A 3 x 4 matrix's arrays, edited by the cases below. */
typedef struct bad_csr {
  uint64_t ptr[4];
  uint32_t col[5];
  float val[5];
} bad_csr;

static bad_csr good_csr(void) { return (bad_csr){{0, 2, 2, 5}, {0, 3, 1, 1, 2}, {1, 2, 3, 4, 5}}; }

/* A refused ag_csr_create must give back NULL in *out. */
#define CHECK_CREATE_FAILS(call, want, arg)                                                     \
  do {                                                                                          \
    ag_csr *out_ = (ag_csr *)&out_;                                                             \
    CHECK_FAILS(call, want, "ag_csr_create", arg);                                              \
    ck_assert_msg(out_ == NULL, "%s: a refused %s left *out set", test_label(), #call);          \
  } while (0)

START_TEST(malformed_matrices_are_refused_naming_the_argument_and_the_index) {
  ag_device *dev = test_device(_i);
  bad_csr b = good_csr();
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_U8, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_UNSUPPORTED, "u8");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_C64, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_UNSUPPORTED, "dtype");
  CHECK_CREATE_FAILS(ag_csr_create(dev, (ag_dtype)99, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "dtype");
  CHECK_CREATE_FAILS(ag_csr_create(NULL, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT, "dev");
  CHECK_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, NULL), AG_ERR_INVALID_ARGUMENT, "ag_csr_create",
              "out");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 0, 4, 0, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT, "rows");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 0, 5, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT, "cols");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, ((size_t)1 << 32) + 1, 5, b.ptr, b.col, b.val, &out_),
                     AG_ERR_UNSUPPORTED, "cols");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, SIZE_MAX, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_OUT_OF_RANGE,
                     "rows");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, NULL, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "row_ptr");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, NULL, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "col_idx");
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, NULL, &out_), AG_ERR_INVALID_ARGUMENT,
                     "values");
  b.ptr[0] = 1;
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "row_ptr[0]");
  b = good_csr();
  b.ptr[2] = 1;
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "row_ptr[2]");
  b = good_csr();
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 4, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "row_ptr[3]");
  CHECK_MESSAGE_HAS("nnz");
  b.col[3] = 4;
  CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &out_), AG_ERR_INVALID_ARGUMENT,
                     "col_idx[3]");
  /* Coordinates: the same checks, and each row index below rows. */
  const uint32_t rows[5] = {0, 0, 2, 3, 2};
  b = good_csr();
  ag_csr *out = (ag_csr *)&out;
  CHECK_FAILS(ag_csr_create_from_coo(dev, AG_F32, 3, 4, 5, rows, b.col, b.val, &out), AG_ERR_INVALID_ARGUMENT,
              "ag_csr_create_from_coo", "row_idx[3]");
  ck_assert_msg(out == NULL, "%s: a refused ag_csr_create_from_coo left *out set", test_label());
  CHECK_FAILS(ag_csr_create_from_coo(dev, AG_F32, 3, 4, 5, NULL, b.col, b.val, &out), AG_ERR_INVALID_ARGUMENT,
              "ag_csr_create_from_coo", "row_idx");
  const uint32_t rows_ok[5] = {0, 0, 2, 2, 2};
  CHECK_FAILS(ag_csr_create_from_coo(dev, AG_F32, 3, 3, 5, rows_ok, b.col, b.val, &out), AG_ERR_INVALID_ARGUMENT,
              "ag_csr_create_from_coo", "col_idx[1]");
  CHECK_FAILS(ag_csr_create_from_coo(dev, AG_I32, 3, 4, 5, rows, b.col, b.val, &out), AG_ERR_UNSUPPORTED,
              "ag_csr_create_from_coo", "i32");
  /* Double precision where the device has none, through the suites' common check. */
  if (!test_dtype_runs(dev, AG_F64)) {
    double dv[5] = {1, 2, 3, 4, 5};
    CHECK_CREATE_FAILS(ag_csr_create(dev, AG_F64, 3, 4, 5, b.ptr, b.col, dv, &out_), AG_ERR_UNSUPPORTED, "f64");
    CHECK_FAILS(ag_csr_create_from_coo(dev, AG_F64, 3, 4, 5, rows, b.col, dv, &out), AG_ERR_UNSUPPORTED,
                "ag_csr_create_from_coo", "f64");
  }
  /* Accessors. */
  ag_csr_info info;
  CHECK_FAILS(ag_csr_get_info(NULL, &info), AG_ERR_INVALID_ARGUMENT, "ag_csr_get_info", "m");
  CHECK_FAILS(ag_csr_to_host(NULL, b.ptr, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_csr_to_host", "m");
  ag_csr *m = NULL;
  CHECK_OK(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &m));
  CHECK_FAILS(ag_csr_get_info(m, NULL), AG_ERR_INVALID_ARGUMENT, "ag_csr_get_info", "info");
  ag_csr_destroy(m);
}
END_TEST

START_TEST(products_with_wrong_operands_are_refused_and_leave_y_untouched) {
  ag_device *dev = test_device(_i);
  bad_csr b = good_csr();
  ag_csr *m = NULL;
  CHECK_OK(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &m));
  const size_t n3 = 3, n4 = 4, n5 = 5, s42[2] = {4, 2}, s32[2] = {3, 2}, s33[2] = {3, 3};
  ag_array *x4 = test_array_new(dev, AG_F32, 1, &n4), *x3 = test_array_new(dev, AG_F32, 1, &n3);
  ag_array *y3 = test_array_new(dev, AG_F32, 1, &n3), *y5 = test_array_new(dev, AG_F32, 1, &n5);
  ag_array *x42 = test_array_new(dev, AG_F32, 2, s42), *y32 = test_array_new(dev, AG_F32, 2, s32);
  ag_array *y33 = test_array_new(dev, AG_F32, 2, s33), *xi = test_array_new(dev, AG_I32, 1, &n4);
  ag_array *ys[] = {y3, y5, y32, y33};
  CHECK_OK(ag_fill(NULL, x4, 1));
  CHECK_OK(ag_fill(NULL, x3, 1));
  CHECK_OK(ag_fill(NULL, x42, 1));
  CHECK_OK(ag_fill(NULL, xi, 1));
  for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++)
    CHECK_OK(ag_fill(NULL, ys[i], 7));
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, NULL, x4, y3), AG_ERR_INVALID_ARGUMENT, "ag_spmv", "a");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, NULL, y3), AG_ERR_INVALID_ARGUMENT, "ag_spmv", "x");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, x4, NULL), AG_ERR_INVALID_ARGUMENT, "ag_spmv", "y");
  CHECK_FAILS(ag_spmv(NULL, (ag_transpose)7, m, x4, y3), AG_ERR_INVALID_ARGUMENT, "ag_spmv", "op");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, x3, y3), AG_ERR_MISMATCH, "ag_spmv", "x");
  CHECK_MESSAGE_HAS("{4}");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, x4, y5), AG_ERR_MISMATCH, "ag_spmv", "y");
  CHECK_FAILS(ag_spmv(NULL, AG_TRANS, m, x4, y5), AG_ERR_MISMATCH, "ag_spmv", "x");
  CHECK_MESSAGE_HAS("a^T");
  CHECK_FAILS(ag_spmv(NULL, AG_TRANS, m, x3, y3), AG_ERR_MISMATCH, "ag_spmv", "y");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, xi, y3), AG_ERR_MISMATCH, "ag_spmv", "x");
  CHECK_MESSAGE_HAS("i32");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, x42, y32), AG_ERR_MISMATCH, "ag_spmv", "x");
  CHECK_FAILS(ag_spmm(NULL, AG_NO_TRANS, m, x4, y3), AG_ERR_MISMATCH, "ag_spmm", "x");
  CHECK_FAILS(ag_spmm(NULL, AG_NO_TRANS, m, x42, y33), AG_ERR_MISMATCH, "ag_spmm", "y");
  CHECK_MESSAGE_HAS("{3, 2}");
  CHECK_FAILS(ag_spmm(NULL, AG_NO_TRANS, NULL, x42, y32), AG_ERR_INVALID_ARGUMENT, "ag_spmm", "a");
  test_check_all_equal(ys, sizeof ys / sizeof ys[0], 7, "a refused product");

  /* x and y overlapping in one array of 12: x its elements 0 to 3 (row 0 of [3, 4]), y its
     elements 3 to 5 (row 1 of [4, 3]). */
  const size_t n12 = 12, s34[2] = {3, 4}, s43[2] = {4, 3};
  ag_array *whole = test_array_new(dev, AG_F32, 1, &n12), *rows4 = NULL, *rows3 = NULL, *xo = NULL, *yo = NULL;
  CHECK_OK(ag_fill(NULL, whole, 7));
  CHECK_OK(ag_array_reshape(whole, 2, s34, &rows4));
  CHECK_OK(ag_array_reshape(whole, 2, s43, &rows3));
  CHECK_OK(ag_array_index(rows4, 0, &xo));
  CHECK_OK(ag_array_index(rows3, 1, &yo));
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, xo, yo), AG_ERR_INVALID_ARGUMENT, "ag_spmv", "overlap");
  test_check_all_equal(&whole, 1, 7, "a product refused for overlapping x and y");
  ag_array_free(xo);
  ag_array_free(yo);
  ag_array_free(rows4);
  ag_array_free(rows3);
  ag_array_free(whole);

  ag_array_free(x4);
  ag_array_free(x3);
  ag_array_free(y3);
  ag_array_free(y5);
  ag_array_free(x42);
  ag_array_free(y32);
  ag_array_free(y33);
  ag_array_free(xi);
  ag_csr_destroy(m);
}
END_TEST

START_TEST(operands_and_queues_of_another_device_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "operands on two devices");
  if (other == NULL)
    return;
  bad_csr b = good_csr();
  ag_csr *m = NULL;
  CHECK_OK(ag_csr_create(dev, AG_F32, 3, 4, 5, b.ptr, b.col, b.val, &m));
  const size_t n3 = 3, n4 = 4;
  ag_array *x = test_array_new(dev, AG_F32, 1, &n4), *y = test_array_new(dev, AG_F32, 1, &n3);
  ag_array *fx = test_array_new(other, AG_F32, 1, &n4), *fy = test_array_new(other, AG_F32, 1, &n3);
  ag_array *ys[2] = {y, fy};
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, fx, 1));
  CHECK_OK(ag_fill(NULL, y, 7));
  CHECK_OK(ag_fill(NULL, fy, 7));
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, fx, y), AG_ERR_MISMATCH, "ag_spmv", "x");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, m, x, fy), AG_ERR_MISMATCH, "ag_spmv", "y");
  CHECK_FAILS(ag_spmv(NULL, AG_TRANS, m, fy, fx), AG_ERR_MISMATCH, "ag_spmv", "x");
  ag_queue *oq = NULL;
  CHECK_OK(ag_queue_create(other, &oq));
  CHECK_FAILS(ag_spmv(oq, AG_NO_TRANS, m, x, y), AG_ERR_MISMATCH, "ag_spmv", "queue");
  CHECK_FAILS(ag_spmv(oq, AG_TRANS, m, y, x), AG_ERR_MISMATCH, "ag_spmv", "queue");
  ag_queue_destroy(oq);
  test_check_all_equal(ys, 2, 7, "a product refused for another device's operand");
  ag_array_free(x);
  ag_array_free(y);
  ag_array_free(fx);
  ag_array_free(fy);
  ag_csr_destroy(m);
}
END_TEST

/* Nothing here needs a device: the checks come before any. */
START_TEST(null_matrices_and_devices_are_refused_or_ignored) {
  ag_csr_destroy(NULL);
  const uint64_t ptr[2] = {0, 0};
  ag_csr *m = (ag_csr *)&m;
  CHECK_FAILS(ag_csr_create(NULL, AG_F32, 1, 1, 0, ptr, NULL, NULL, &m), AG_ERR_INVALID_ARGUMENT, "ag_csr_create",
              "dev");
  ck_assert_ptr_null(m);
  CHECK_FAILS(ag_csr_create_from_coo(NULL, AG_F32, 1, 1, 0, NULL, NULL, NULL, &m), AG_ERR_INVALID_ARGUMENT,
              "ag_csr_create_from_coo", "dev");
  ag_csr_info info;
  CHECK_FAILS(ag_csr_get_info(NULL, &info), AG_ERR_INVALID_ARGUMENT, "ag_csr_get_info", "m");
  CHECK_FAILS(ag_csr_to_host(NULL, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_csr_to_host", "m");
  CHECK_FAILS(ag_spmv(NULL, AG_NO_TRANS, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_spmv", "a");
  CHECK_FAILS(ag_spmm(NULL, AG_NO_TRANS, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_spmm", "a");
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "null matrices and devices are refused or ignored",
                  null_matrices_and_devices_are_refused_or_ignored);
    return;
  }
  add_device_test(s, "products of matrices with empty, short and very long rows match the reference",
                  products_of_matrices_with_empty_short_and_very_long_rows_match_the_reference);
  add_device_test(s, "products of matrices of long rows match the reference",
                  products_of_matrices_of_long_rows_match_the_reference);
  add_device_test(s, "compensated sums keep the terms a plain running sum drops",
                  compensated_sums_keep_the_terms_a_plain_running_sum_drops);
  add_device_test(s, "coordinates with duplicates in any order give the CSR worked out by hand",
                  coordinates_with_duplicates_in_any_order_give_the_csr_worked_out_by_hand);
  add_device_test(s, "to_host returns what went in", to_host_returns_what_went_in);
  add_device_test(s, "a matrix without values multiplies to zeros", a_matrix_without_values_multiplies_to_zeros);
  add_device_test(s, "x and y may be views at an offset", x_and_y_may_be_views_at_an_offset);
  add_device_test(s, "rows longer than a loop may run are refused where loops end early",
                  rows_longer_than_a_loop_may_run_are_refused_where_loops_end_early);
  add_device_test(s, "several threads multiply by one matrix at once", several_threads_multiply_by_one_matrix_at_once);
  add_device_test(s, "malformed matrices are refused naming the argument and the index",
                  malformed_matrices_are_refused_naming_the_argument_and_the_index);
  add_device_test(s, "products with wrong operands are refused and leave y untouched",
                  products_with_wrong_operands_are_refused_and_leave_y_untouched);
  add_device_test(s, "operands and queues of another device are refused",
                  operands_and_queues_of_another_device_are_refused);
}
