/* tests/test_sort.c — ag_sort and ag_argsort (ops.h, the sort kernel family) on every real dtype
   and bool, against a stable merge sort here that orders as numpy's stable sort does (NaN last,
   -0.0 equal to +0.0; descending: the reverse order, equal elements still in their own order):
   rows short (one work-item each) and long (radix passes, cut into pieces), along every axis,
   more rows than one batch of digit counts holds, ties, NaN and signed zeros, views, in place,
   and the arguments they refuse. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype real_dtypes[] = {AG_U8, AG_U16, AG_U32, AG_I32, AG_F32, AG_F64,
                                       AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};
#define NREAL (sizeof real_dtypes / sizeof real_dtypes[0])

/* -1, 0 or 1 as a sorts before, with or after b (NaN after everything, -0.0 == +0.0). Integers
   compare exactly through ref_get's long double (64 bits of mantissa). */
static int order(ref_c a, ref_c b) {
  long double x = creall(a), y = creall(b);
  bool nx = isnan(x), ny = isnan(y);
  if (nx || ny)
    return nx == ny ? 0 : nx ? 1 : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* The stable order of row values v[0..n-1] (ascending, or descending) into idx: a merge sort
   on indices, ties by index. */
static void stable_order(const ref_c *v, size_t n, bool descending, size_t *idx, size_t *tmp) {
  for (size_t i = 0; i < n; i++)
    idx[i] = i;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) {
        int c = order(v[idx[a]], v[idx[b]]);
        if (descending)
          c = -c;
        tmp[o++] = c <= 0 ? idx[a++] : idx[b++];
      }
      while (a < mid)
        tmp[o++] = idx[a++];
      while (b < hi)
        tmp[o++] = idx[b++];
    }
    memcpy(idx, tmp, n * sizeof *idx);
  }
}

/* Sorted values and indices of x (dtype t, [outer][len][inner]) along the middle axis. */
static void sort_reference(ag_dtype t, const void *x, size_t outer, size_t len, size_t inner, bool descending,
                           ref_c *values, ref_c *indices) {
  ref_c *row = test_alloc(len * sizeof *row);
  size_t *idx = test_alloc(len * sizeof *idx), *tmp = test_alloc(len * sizeof *tmp);
  for (size_t o = 0; o < outer; o++)
    for (size_t j = 0; j < inner; j++) {
      for (size_t k = 0; k < len; k++)
        row[k] = ref_get(t, x, (o * len + k) * inner + j);
      stable_order(row, len, descending, idx, tmp);
      for (size_t k = 0; k < len; k++) {
        values[(o * len + k) * inner + j] = row[idx[k]];
        indices[(o * len + k) * inner + j] = (long double)idx[k];
      }
    }
  TEST_FREE(row, idx, tmp);
}

/* x's values: integers of the whole range or of a few (ties), floats from -3 to 3 with NaN,
   -0.0, +0.0 and repeated values among them. */
static void *sample(ag_dtype t, size_t n, unsigned seed, bool ties) {
  void *x = test_alloc(n * ref_size(t));
  if (ref_is_integer(t) && !ties)
    ref_random(t, x, n, seed, ref_is_unsigned(t) ? 0 : -1e18, 1e18);
  else
    ref_random(t, x, n, seed, ref_is_unsigned(t) || ref_is_bool(t) ? 0 : -3, 3);
  if (ref_is_float(t))
    for (size_t i = 0; i < n; i++) {
      if (i % 17 == 3)
        ref_put(t, x, i, NAN);
      else if (i % 13 == 5)
        ref_put(t, x, i, -0.0);
      else if (i % 11 == 7)
        ref_put(t, x, i, 0.0);
      else if (ties && i % 3 == 0)
        ref_put(t, x, i, roundl(creall(ref_get(t, x, i))));
    }
  return x;
}

/* Sorts and argsorts x along each axis, ascending and descending, against the reference. */
static void check_sorts(ag_device *dev, ag_dtype t, int nd, const size_t *shape, unsigned seed, bool ties) {
  size_t n = 1;
  for (int k = 0; k < nd; k++)
    n *= shape[k];
  void *x = sample(t, n, seed, ties);
  ag_array *ax = test_array_from(dev, t, nd, shape, x), *out = test_array_new(dev, t, nd, shape);
  ag_array *ix = test_array_new(dev, AG_I64, nd, shape);
  ref_c *values = test_alloc(n * sizeof *values), *indices = test_alloc(n * sizeof *indices);
  for (int axis = -1; axis < nd; axis++)
    for (int descending = 0; descending < 2; descending++) {
      int a = axis < 0 ? nd - 1 : axis;
      size_t outer = 1, inner = 1;
      for (int k = 0; k < a; k++)
        outer *= shape[k];
      for (int k = a + 1; k < nd; k++)
        inner *= shape[k];
      sort_reference(t, x, outer, shape[a], inner, descending, values, indices);
      ref_check_ok(ag_sort(NULL, ax, axis, descending, out), "ag_sort of %zu %s along %d", n, ref_name(t), axis);
      ref_check_ok(ag_argsort(NULL, ax, axis, descending, ix), "ag_argsort of %zu %s along %d", n, ref_name(t), axis);
      void *got = test_array_read(out), *gi = test_array_read(ix);
      ref_check(t, got, values, NULL, n, REF_EXACT, "ag_sort of %d-D %zu %s along axis %d%s", nd, n, ref_name(t), axis,
                descending ? ", descending" : "");
      ref_check(AG_I64, gi, indices, NULL, n, REF_EXACT, "ag_argsort of %d-D %zu %s along axis %d%s", nd, n,
                ref_name(t), axis, descending ? ", descending" : "");
      TEST_FREE(got, gi);
    }
  TEST_FREE(x, values, indices);
  TEST_ARRAY_FREE(ax, out, ix);
}

START_TEST(sort_and_argsort_are_stable_in_every_real_dtype) {
  ag_device *dev = test_device(_i);
  /* One element; short rows (a work-item each); just past them; a long row (radix passes in
     pieces); rows along each axis of a 3-D array with inner indices. */
  const struct {
    int ndim;
    size_t shape[3];
  } cases[] = {{1, {1}}, {1, {29}}, {1, {33}}, {1, {70001}}, {2, {6, 32}}, {3, {3, 700, 5}}};
  for (size_t d = 0; d < NREAL; d++) {
    ag_dtype t = real_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
      for (int ties = 0; ties < 2; ties++)
        check_sorts(dev, t, cases[c].ndim, cases[c].shape, 100u + 10u * (unsigned)d + (unsigned)c, ties);
  }
}
END_TEST

/* More rows than one batch of the passes' digit counts (32 MiB: 16384 rows of one piece), so the
   last batch is a partial one. */
START_TEST(many_rows_are_sorted_in_batches) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {16500, 40};
  check_sorts(dev, AG_I16, 2, shape, 7, true);
}
END_TEST

START_TEST(sort_takes_views_and_sorts_in_place) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {40, 50}, n = 2000;
  for (size_t d = 0; d < NREAL; d++) {
    ag_dtype t = real_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = sample(t, n, 300u + (unsigned)d, true);
    ag_array *ax = test_array_from(dev, t, 2, shape, x), *xt = NULL, *ob = test_array_new(dev, t, 2, shape), *ot = NULL;
    CHECK_OK(ag_array_permute(ax, (const int[]){1, 0}, &xt));
    CHECK_OK(ag_array_permute(ob, (const int[]){1, 0}, &ot));
    /* x.T sorted along its axis 1 into out.T: x's columns sorted, in x's layout. */
    CHECK_OK(ag_sort(NULL, xt, 1, false, ot));
    ref_c *values = test_alloc(n * sizeof *values), *indices = test_alloc(n * sizeof *indices);
    sort_reference(t, x, 1, 40, 50, false, values, indices);
    void *got = test_array_read(ob);
    ref_check(t, got, values, NULL, n, REF_EXACT, "ag_sort of a transposed %s view", ref_name(t));
    free(got);
    /* In place along the rows, descending. */
    CHECK_OK(ag_sort(NULL, ax, 1, true, ax));
    sort_reference(t, x, 40, 50, 1, true, values, indices);
    got = test_array_read(ax);
    ref_check(t, got, values, NULL, n, REF_EXACT, "ag_sort in place of %s", ref_name(t));
    TEST_FREE(got, x, values, indices);
    TEST_ARRAY_FREE(ax, xt, ob, ot);
  }
  /* Empty: nothing to do, and no error. */
  const size_t eshape[2] = {0, 40};
  ag_array *e = test_array_new(dev, AG_F32, 2, eshape), *ei = test_array_new(dev, AG_I64, 2, eshape);
  CHECK_OK(ag_sort(NULL, e, 1, false, e));
  CHECK_OK(ag_argsort(NULL, e, 0, false, ei));
  TEST_ARRAY_FREE(e, ei);
}
END_TEST

START_TEST(bad_arguments_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 4, sq[2] = {2, 2}, wide[2] = {3, 4};
  ag_array *f = test_array_new(dev, AG_F32, 1, &n), *i = test_array_new(dev, AG_I32, 1, &n);
  ag_array *l = test_array_new(dev, AG_I64, 1, &n), *c = test_array_new(dev, AG_C64, 1, &n);
  ag_array *m = test_array_new(dev, AG_F32, 2, sq), *w = test_array_new(dev, AG_F32, 2, wide), *bc = NULL, *z = NULL;
  CHECK_OK(ag_array_broadcast_to(f, 2, wide, &bc));
  CHECK_OK(ag_array_create(dev, AG_F32, 0, NULL, &z));
  CHECK_REFUSED(ag_sort(NULL, NULL, 0, false, f), AG_ERR_INVALID_ARGUMENT, "ag_sort", "x");
  CHECK_REFUSED(ag_sort(NULL, f, 0, false, NULL), AG_ERR_INVALID_ARGUMENT, "ag_sort", "out");
  CHECK_REFUSED(ag_sort(NULL, c, 0, false, c), AG_ERR_UNSUPPORTED, "ag_sort", "x", "c64");
  CHECK_REFUSED(ag_argsort(NULL, c, 0, false, l), AG_ERR_UNSUPPORTED, "ag_argsort", "x", "c64");
  CHECK_REFUSED(ag_sort(NULL, f, 0, false, i), AG_ERR_MISMATCH, "ag_sort", "x", "out");
  CHECK_REFUSED(ag_argsort(NULL, f, 0, false, i), AG_ERR_MISMATCH, "ag_argsort", "out", "i64");
  CHECK_REFUSED(ag_sort(NULL, f, 0, false, m), AG_ERR_MISMATCH, "ag_sort", "x", "out");
  CHECK_REFUSED(ag_sort(NULL, m, 2, false, m), AG_ERR_INVALID_ARGUMENT, "ag_sort", "axis");
  CHECK_REFUSED(ag_argsort(NULL, f, -2, false, l), AG_ERR_INVALID_ARGUMENT, "ag_argsort", "axis");
  CHECK_REFUSED(ag_sort(NULL, z, 0, false, z), AG_ERR_INVALID_ARGUMENT, "ag_sort", "x");
  CHECK_REFUSED(ag_sort(NULL, w, 1, false, bc), AG_ERR_INVALID_ARGUMENT, "ag_sort", "out");
  TEST_ARRAY_FREE(f, i, l, c, m, w, bc, z);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "sort and argsort are stable in every real dtype", sort_and_argsort_are_stable_in_every_real_dtype);
  add_device_test(s, "many rows are sorted in batches", many_rows_are_sorted_in_batches);
  add_device_test(s, "sort takes views and sorts in place", sort_takes_views_and_sorts_in_place);
  add_device_test(s, "bad arguments are refused by name", bad_arguments_are_refused_by_name);
}
