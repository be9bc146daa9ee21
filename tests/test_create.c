/* tests/test_create.c — ag_arange, ag_linspace, ag_eye, ag_tril and ag_triu (ops.h, the create
   kernel family) on every dtype each takes, against references computed here as numpy computes
   them (arange: start + i * delta in the dtype, delta the difference of its first two values;
   linspace: start + i * step, the last element stop), views and in-place use, and the
   arguments each refuses. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* numpy's arange of @p n values in dtype @p t into want, with the scale each float value's
   tolerance is relative to (|start| + i |delta|: a fused multiply-add may round once less). */
static void arange_reference(ag_dtype t, double start, double step, size_t n, ref_c *want, long double *scale) {
  for (size_t i = 0; i < n; i++) {
    if (ref_is_integer(t)) {
      unsigned bits = 8u * (unsigned)ref_size(t);
      uint64_t v = (uint64_t)(int64_t)start + (uint64_t)i * (uint64_t)(int64_t)step;
      if (bits < 64)
        v &= ((uint64_t)1 << bits) - 1;
      unsigned char b[8];
      memcpy(b, &v, 8);
      want[i] = ref_get(t, b, 0);
      scale[i] = 0;
    } else if (t == AG_F32) {
      float s0 = (float)start, d = (float)(start + step) - s0;
      want[i] = s0 + (float)i * d;
      scale[i] = fabsf(s0) + (float)i * fabsf(d);
    } else {
      double d = (start + step) - start;
      want[i] = start + (double)i * d;
      scale[i] = fabs(start) + (double)i * fabs(d);
    }
  }
}

START_TEST(arange_gives_numpy_s_values_in_every_real_dtype) {
  ag_device *dev = test_device(_i);
  const struct {
    double start, step;
    size_t n;
  } cases[] = {{0, 1, 1000}, {5, 3, 40}, {100, -7, 14}, {-3, 2, 9}, {0, 0.1, 1000}, {-1.5, 0.25, 13}, {1e6, 0.5, 7}};
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (ref_is_complex(t) || ref_is_bool(t) || !test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      double start = cases[c].start, step = cases[c].step;
      size_t n = cases[c].n;
      bool integral = start == floor(start) && step == floor(step);
      if (ref_is_integer(t) && (!integral || (ref_is_unsigned(t) && start < 0) || (t == AG_I8 && start > 127)))
        continue;
      ag_array *out = test_array_new(dev, t, 1, &n);
      ref_check_ok(ag_arange(NULL, start, step, out), "ag_arange(%g, %g) into %zu %s", start, step, n, ref_name(t));
      ref_c *want = test_alloc(n * sizeof *want);
      long double *scale = test_alloc(n * sizeof *scale);
      arange_reference(t, start, step, n, want, scale);
      void *got = test_array_read(out);
      ref_tol tol = ref_is_integer(t) ? REF_EXACT : t == AG_F32 ? (ref_tol){2.4e-7, 0} : (ref_tol){4.5e-16, 0};
      ref_check(t, got, want, ref_is_integer(t) ? NULL : scale, n, tol, "ag_arange(%g, %g) in %s", start, step,
                ref_name(t));
      TEST_FREE(got, want, scale);
      ag_array_free(out);
    }
  }
  /* A u8 arange counting down: its step -1 wraps to 255, as numpy's does. */
  const size_t n = 10;
  ag_array *out = test_array_new(dev, AG_U8, 1, &n);
  CHECK_OK(ag_arange(NULL, 10, -1, out));
  const uint8_t down[] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  void *got = test_array_read(out);
  CHECK_BYTES(got, down, sizeof down, "arange(10, 0, -1) in u8");
  free(got);
  ag_array_free(out);
}
END_TEST

START_TEST(linspace_ends_at_stop_and_steps_evenly) {
  ag_device *dev = test_device(_i);
  const ag_dtype ts[] = {AG_F32, AG_F64, AG_C64, AG_C128};
  const size_t sizes[] = {0, 1, 2, 50, 1001};
  for (size_t k = 0; k < 4; k++) {
    ag_dtype t = ts[k];
    if (!test_dtype_runs(dev, t))
      continue;
    bool cx = ref_is_complex(t);
    for (size_t s = 0; s < 5; s++)
      for (int endpoint = 0; endpoint < 2; endpoint++) {
        size_t n = sizes[s];
        double a = -2.5, ai = cx ? 1 : 0, b = 7.25, bi = cx ? -3 : 0;
        ag_array *out = test_array_new(dev, t, 1, &n);
        ref_check_ok(ag_linspace(NULL, a, ai, b, bi, endpoint, out), "ag_linspace of %zu %s", n, ref_name(t));
        ref_c *want = test_alloc((n + 1) * sizeof *want);
        long double *scale = test_alloc((n + 1) * sizeof *scale);
        size_t div = endpoint && n > 1 ? n - 1 : n;
        for (size_t i = 0; i < n; i++) {
          ref_c z0 = CMPLXL(a, ai), z1 = CMPLXL(b, bi);
          want[i] = endpoint && n > 1 && i == n - 1 ? z1 : z0 + (long double)i * (z1 - z0) / (long double)div;
          scale[i] = 8; /* |start| and |stop| are at most 7.6 */
        }
        void *got = test_array_read(out);
        ref_tol tol = t == AG_F32 || t == AG_C64 ? (ref_tol){5e-7, 0} : (ref_tol){1e-15, 0};
        ref_check(t, got, want, scale, n, tol, "ag_linspace of %zu %s, endpoint %d", n, ref_name(t), endpoint);
        /* The last value is stop exactly. */
        if (endpoint && n > 1)
          ref_check(t, (char *)got + (n - 1) * ref_size(t), want + n - 1, NULL, 1, REF_EXACT, "linspace's last, %s",
                    ref_name(t));
        TEST_FREE(got, want, scale);
        ag_array_free(out);
      }
  }
}
END_TEST

START_TEST(eye_puts_ones_on_diagonal_k_in_every_dtype) {
  ag_device *dev = test_device(_i);
  const size_t shapes[][2] = {{4, 4}, {3, 7}, {6, 2}, {1, 1}};
  const int64_t ks[] = {0, 1, -2, 5};
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t s = 0; s < 4; s++)
      for (size_t kk = 0; kk < 4; kk++) {
        size_t r = shapes[s][0], c = shapes[s][1], n = r * c;
        ag_array *out = test_array_new(dev, t, 2, shapes[s]);
        ref_check_ok(ag_eye(NULL, ks[kk], out), "ag_eye(k = %lld) of %s", (long long)ks[kk], ref_name(t));
        ref_c *want = test_alloc(n * sizeof *want);
        for (size_t i = 0; i < n; i++)
          want[i] = (int64_t)(i % c) - (int64_t)(i / c) == ks[kk] ? 1 : 0;
        void *got = test_array_read(out);
        ref_check(t, got, want, NULL, n, REF_EXACT, "ag_eye(k = %lld) of %zu x %zu %s", (long long)ks[kk], r, c,
                  ref_name(t));
        TEST_FREE(got, want);
        ag_array_free(out);
      }
  }
}
END_TEST

START_TEST(tril_and_triu_zero_one_side_of_each_matrix) {
  ag_device *dev = test_device(_i);
  const size_t shape[3] = {3, 4, 5}, n = 60;
  const int64_t ks[] = {0, -1, 2, -9};
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(n * ref_size(t));
    ref_random(t, x, n, 40u + (unsigned)d, 1, 100);
    ag_array *ax = test_array_from(dev, t, 3, shape, x), *out = test_array_new(dev, t, 3, shape);
    ref_c *want = test_alloc(n * sizeof *want);
    for (size_t kk = 0; kk < 4; kk++)
      for (int upper = 0; upper < 2; upper++) {
        int64_t k = ks[kk];
        ref_check_ok(upper ? ag_triu(NULL, ax, k, out) : ag_tril(NULL, ax, k, out), "%s(k = %lld) of %s",
                     upper ? "ag_triu" : "ag_tril", (long long)k, ref_name(t));
        for (size_t i = 0; i < n; i++) {
          int64_t dd = (int64_t)(i % 5) - (int64_t)(i / 5 % 4);
          want[i] = (upper ? dd >= k : dd <= k) ? ref_get(t, x, i) : 0;
        }
        void *got = test_array_read(out);
        ref_check(t, got, want, NULL, n, REF_EXACT, "%s(k = %lld) of %s", upper ? "ag_triu" : "ag_tril",
                  (long long)k, ref_name(t));
        free(got);
      }
    /* In place, and from a transposed view (the matrices of x.T's last two axes). */
    ag_array *xt = NULL, *ot = NULL;
    const size_t tshape[3] = {3, 5, 4};
    CHECK_OK(ag_array_permute(ax, (const int[]){0, 2, 1}, &xt));
    ot = test_array_new(dev, t, 3, tshape);
    CHECK_OK(ag_tril(NULL, xt, 0, ot));
    void *got = test_array_read(ot);
    ref_c *wt = test_alloc(n * sizeof *wt);
    for (size_t b = 0; b < 3; b++)
      for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 4; j++)
          wt[(b * 5 + i) * 4 + j] = j <= i ? ref_get(t, x, (b * 4 + j) * 5 + i) : 0;
    ref_check(t, got, wt, NULL, n, REF_EXACT, "ag_tril of a transposed %s view", ref_name(t));
    free(got);
    CHECK_OK(ag_triu(NULL, ax, 1, ax));
    got = test_array_read(ax);
    for (size_t i = 0; i < n; i++)
      want[i] = (int64_t)(i % 5) - (int64_t)(i / 5 % 4) >= 1 ? ref_get(t, x, i) : 0;
    ref_check(t, got, want, NULL, n, REF_EXACT, "ag_triu in place, %s", ref_name(t));
    TEST_FREE(got, want, wt, x);
    TEST_ARRAY_FREE(ax, out, xt, ot);
  }
}
END_TEST

START_TEST(bad_arguments_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 4, sq[2] = {2, 2}, cube[3] = {2, 2, 2};
  ag_array *b = test_array_new(dev, AG_BOOL, 1, &n), *c = test_array_new(dev, AG_C64, 1, &n);
  ag_array *i = test_array_new(dev, AG_I32, 1, &n), *f = test_array_new(dev, AG_F32, 1, &n);
  ag_array *m = test_array_new(dev, AG_F32, 2, sq), *m3 = test_array_new(dev, AG_F32, 3, cube);
  ag_array *mi = test_array_new(dev, AG_I32, 2, sq), *bc = NULL;
  CHECK_OK(ag_array_broadcast_to(f, 2, (const size_t[]){3, 4}, &bc));
  CHECK_REFUSED(ag_arange(NULL, 0, 1, b), AG_ERR_UNSUPPORTED, "ag_arange", "bool");
  CHECK_REFUSED(ag_arange(NULL, 0, 1, c), AG_ERR_UNSUPPORTED, "ag_arange", "c64");
  CHECK_REFUSED(ag_arange(NULL, 0, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_arange", "step");
  CHECK_REFUSED(ag_arange(NULL, 0, NAN, f), AG_ERR_INVALID_ARGUMENT, "ag_arange", "step");
  CHECK_REFUSED(ag_arange(NULL, 0, 0.5, i), AG_ERR_INVALID_ARGUMENT, "ag_arange", "step");
  CHECK_REFUSED(ag_arange(NULL, 0.5, 1, i), AG_ERR_INVALID_ARGUMENT, "ag_arange", "start");
  CHECK_REFUSED(ag_arange(NULL, 0, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_arange", "out");
  CHECK_REFUSED(ag_arange(NULL, 0, 1, bc), AG_ERR_INVALID_ARGUMENT, "ag_arange", "out");
  CHECK_REFUSED(ag_linspace(NULL, 0, 0, 1, 0, true, i), AG_ERR_UNSUPPORTED, "ag_linspace", "i32");
  CHECK_REFUSED(ag_linspace(NULL, 0, 1, 1, 0, true, f), AG_ERR_INVALID_ARGUMENT, "ag_linspace", "start");
  CHECK_REFUSED(ag_linspace(NULL, 0, 0, INFINITY, 0, true, f), AG_ERR_INVALID_ARGUMENT, "ag_linspace", "stop");
  CHECK_REFUSED(ag_eye(NULL, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_eye", "out");
  CHECK_REFUSED(ag_eye(NULL, 0, m3), AG_ERR_INVALID_ARGUMENT, "ag_eye", "out");
  CHECK_REFUSED(ag_tril(NULL, f, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_tril", "x");
  CHECK_REFUSED(ag_triu(NULL, m, 0, mi), AG_ERR_MISMATCH, "ag_triu", "x", "out");
  CHECK_REFUSED(ag_triu(NULL, m3, 0, m), AG_ERR_MISMATCH, "ag_triu", "x", "out");
  CHECK_REFUSED(ag_tril(NULL, NULL, 0, m), AG_ERR_INVALID_ARGUMENT, "ag_tril", "x");
  TEST_ARRAY_FREE(b, c, i, f, m, m3, mi, bc);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "arange gives numpy's values in every real dtype",
                  arange_gives_numpy_s_values_in_every_real_dtype);
  add_device_test(s, "linspace ends at stop and steps evenly", linspace_ends_at_stop_and_steps_evenly);
  add_device_test(s, "eye puts ones on diagonal k in every dtype", eye_puts_ones_on_diagonal_k_in_every_dtype);
  add_device_test(s, "tril and triu zero one side of each matrix", tril_and_triu_zero_one_side_of_each_matrix);
  add_device_test(s, "bad arguments are refused by name", bad_arguments_are_refused_by_name);
}
