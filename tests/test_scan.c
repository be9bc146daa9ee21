/* tests/test_scan.c — ag_cumulative_sum (ops.h, the scan kernel family) on every dtype it takes,
   against sequential sums computed here (long double; integers wrapping in the dtype, as
   numpy's cumsum does): along every axis of 1-, 2- and 3-D arrays, axes long enough to be cut
   into pieces, blocks of inner indices wider than one item takes, views, in place, empty
   arrays, and the arguments it refuses. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* The cumulative sums of x (dtype t, C order, shape [outer][len][inner]) along the middle axis
   into want, with each float result's error scale (the running sum of magnitudes: a float sum
   of k terms is within about k ulp of it). */
static void cumsum_reference(ag_dtype t, const void *x, size_t outer, size_t len, size_t inner, ref_c *want,
                             long double *scale) {
  unsigned bits = 8u * (unsigned)ref_size(t);
  for (size_t o = 0; o < outer; o++)
    for (size_t j = 0; j < inner; j++) {
      ref_c s = 0;
      long double mag = 0;
      uint64_t w = 0;
      for (size_t k = 0; k < len; k++) {
        size_t i = (o * len + k) * inner + j;
        ref_c v = ref_get(t, x, i);
        if (ref_is_integer(t)) {
          w += ref_is_unsigned(t) ? (uint64_t)creall(v) : (uint64_t)(int64_t)creall(v);
          uint64_t m = bits < 64 ? w & (((uint64_t)1 << bits) - 1) : w;
          unsigned char b[8];
          memcpy(b, &m, 8); /* the low bytes: a little-endian host */
          want[i] = ref_get(t, b, 0);
          scale[i] = 0;
        } else {
          s += v;
          mag += cabsl(v);
          want[i] = s;
          scale[i] = mag;
        }
      }
    }
}

/* Tolerances, relative to the running sum of magnitudes: the pieces' order of additions keeps
   the error within a few hundred ulp of it at these lengths. */
static ref_tol scan_tol(ag_dtype t) {
  if (ref_is_integer(t))
    return REF_EXACT;
  return t == AG_F32 || t == AG_C64 ? (ref_tol){2e-5, 0} : (ref_tol){4e-14, 0};
}

START_TEST(cumulative_sum_runs_along_every_axis_in_every_dtype) {
  ag_device *dev = test_device(_i);
  /* 1-D short and long (cut into pieces), 2-D along each axis, 3-D with 37 inner indices (a
     block of 32 and a partial one) and a long middle axis. */
  const struct {
    int ndim;
    size_t shape[3];
  } cases[] = {{1, {1}}, {1, {7}}, {1, {100003}}, {2, {40, 33}}, {3, {3, 9000, 37}}, {3, {2, 1, 5}}};
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (ref_is_bool(t) || !test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int nd = cases[c].ndim;
      size_t n = 1;
      for (int k = 0; k < nd; k++)
        n *= cases[c].shape[k];
      void *x = test_alloc(n * ref_size(t));
      /* Integers span their dtype's range, so that sums wrap; floats in [-1, 1]. */
      ref_random(t, x, n, 70u + (unsigned)(d * 8 + (int)c), ref_is_integer(t) ? -1e18 : -1,
                 ref_is_integer(t) ? 1e18 : 1);
      ag_array *ax = test_array_from(dev, t, nd, cases[c].shape, x), *out = test_array_new(dev, t, nd, cases[c].shape);
      ref_c *want = test_alloc(n * sizeof *want);
      long double *scale = test_alloc(n * sizeof *scale);
      for (int axis = -1; axis < nd; axis++) {
        int a = axis < 0 ? nd - 1 : axis;
        size_t outer = 1, inner = 1;
        for (int k = 0; k < a; k++)
          outer *= cases[c].shape[k];
        for (int k = a + 1; k < nd; k++)
          inner *= cases[c].shape[k];
        ref_check_ok(ag_cumulative_sum(NULL, ax, axis, out), "ag_cumulative_sum of %zu %s along %d", n, ref_name(t),
                     axis);
        cumsum_reference(t, x, outer, cases[c].shape[a], inner, want, scale);
        void *got = test_array_read(out);
        ref_check(t, got, want, scale, n, scan_tol(t), "ag_cumulative_sum of %d-D %zu %s along axis %d", nd, n,
                  ref_name(t), axis);
        free(got);
      }
      /* In place, along the last axis. */
      CHECK_OK(ag_cumulative_sum(NULL, ax, -1, ax));
      void *got = test_array_read(ax);
      ref_check(t, got, want, scale, n, scan_tol(t), "ag_cumulative_sum in place of %zu %s", n, ref_name(t));
      TEST_FREE(got, x, want, scale);
      TEST_ARRAY_FREE(ax, out);
    }
  }
}
END_TEST

START_TEST(cumulative_sum_takes_views_and_empty_arrays) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {30, 50}, n = 1500;
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (ref_is_bool(t) || !test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(n * ref_size(t));
    ref_random(t, x, n, 90u + (unsigned)d, -100, 100);
    ag_array *ax = test_array_from(dev, t, 2, shape, x), *xt = NULL;
    CHECK_OK(ag_array_permute(ax, (const int[]){1, 0}, &xt));
    /* x.T summed along its axis 1 (x's axis 0) into the transposed view of a {30, 50} out. */
    ag_array *ob = test_array_new(dev, t, 2, shape), *ot = NULL;
    CHECK_OK(ag_array_permute(ob, (const int[]){1, 0}, &ot));
    CHECK_OK(ag_cumulative_sum(NULL, xt, 1, ot));
    ref_c *want = test_alloc(n * sizeof *want), *wt = test_alloc(n * sizeof *wt);
    long double *scale = test_alloc(n * sizeof *scale), *st = test_alloc(n * sizeof *st);
    cumsum_reference(t, x, 1, 30, 50, want, scale); /* x along axis 0, in x's layout: ob's */
    void *got = test_array_read(ob);
    ref_check(t, got, want, scale, n, scan_tol(t), "ag_cumulative_sum of a transposed %s view", ref_name(t));
    free(got);
    /* A view that overlaps its input: x[:, 1:] summed into x[:, :-1]. */
    ag_array *src = NULL, *dst = NULL;
    CHECK_OK(ag_array_view(ax, 2, (const ag_index[]){ag_all(), ag_slice(1, 50, 1)}, &src));
    CHECK_OK(ag_array_view(ax, 2, (const ag_index[]){ag_all(), ag_slice(0, 49, 1)}, &dst));
    CHECK_OK(ag_cumulative_sum(NULL, src, 1, dst));
    void *shifted = test_alloc(30 * 49 * ref_size(t));
    for (size_t r = 0; r < 30; r++)
      memcpy((char *)shifted + r * 49 * ref_size(t), (char *)x + (r * 50 + 1) * ref_size(t), 49 * ref_size(t));
    cumsum_reference(t, shifted, 30, 49, 1, wt, st);
    got = test_array_read(dst);
    ref_check(t, got, wt, st, 30 * 49, scan_tol(t), "ag_cumulative_sum of x[:, 1:] into x[:, :-1], %s", ref_name(t));
    free(got);
    /* Empty: nothing to do, and no error. */
    const size_t eshape[2] = {0, 4};
    ag_array *e = test_array_new(dev, t, 2, eshape);
    CHECK_OK(ag_cumulative_sum(NULL, e, 0, e));
    TEST_FREE(x, want, wt, scale, st, shifted);
    TEST_ARRAY_FREE(ax, xt, ob, ot, src, dst, e);
  }
}
END_TEST

START_TEST(bad_arguments_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 4, sq[2] = {2, 2};
  ag_array *b = test_array_new(dev, AG_BOOL, 1, &n), *f = test_array_new(dev, AG_F32, 1, &n);
  ag_array *i = test_array_new(dev, AG_I32, 1, &n), *m = test_array_new(dev, AG_F32, 2, sq), *bc = NULL, *z = NULL;
  CHECK_OK(ag_array_broadcast_to(f, 2, (const size_t[]){3, 4}, &bc));
  CHECK_OK(ag_array_create(dev, AG_F32, 0, NULL, &z));
  CHECK_REFUSED(ag_cumulative_sum(NULL, NULL, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_cumulative_sum", "x");
  CHECK_REFUSED(ag_cumulative_sum(NULL, f, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_cumulative_sum", "out");
  CHECK_REFUSED(ag_cumulative_sum(NULL, b, 0, b), AG_ERR_UNSUPPORTED, "ag_cumulative_sum", "x", "bool");
  CHECK_REFUSED(ag_cumulative_sum(NULL, f, 0, i), AG_ERR_MISMATCH, "ag_cumulative_sum", "x", "out");
  CHECK_REFUSED(ag_cumulative_sum(NULL, f, 0, m), AG_ERR_MISMATCH, "ag_cumulative_sum", "x", "out");
  CHECK_REFUSED(ag_cumulative_sum(NULL, m, 2, m), AG_ERR_INVALID_ARGUMENT, "ag_cumulative_sum", "axis");
  CHECK_REFUSED(ag_cumulative_sum(NULL, m, -3, m), AG_ERR_INVALID_ARGUMENT, "ag_cumulative_sum", "axis");
  CHECK_REFUSED(ag_cumulative_sum(NULL, z, 0, z), AG_ERR_INVALID_ARGUMENT, "ag_cumulative_sum", "x");
  const size_t bshape[2] = {3, 4};
  ag_array *m34 = test_array_new(dev, AG_F32, 2, bshape);
  CHECK_REFUSED(ag_cumulative_sum(NULL, m34, 0, bc), AG_ERR_INVALID_ARGUMENT, "ag_cumulative_sum", "out");
  TEST_ARRAY_FREE(b, f, i, m, bc, z, m34);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "cumulative_sum runs along every axis in every dtype",
                  cumulative_sum_runs_along_every_axis_in_every_dtype);
  add_device_test(s, "cumulative_sum takes views and empty arrays", cumulative_sum_takes_views_and_empty_arrays);
  add_device_test(s, "bad arguments are refused by name", bad_arguments_are_refused_by_name);
}
