/* tests/test_stats.c — ag_any_axes, ag_all_axes, ag_var_axes and ag_std_axes (ops.h) over sets
   of axes, with and without kept axes, against references computed here in long double (the
   variance from the exact mean), on every dtype each takes; empty axes, corrections that leave
   no degrees of freedom, NaN, and the arguments each refuses. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* x of shape {4, 3, 5}; the axis sets reduced, and the index of element (i, j, k) in the
   output, for each. */
enum { D0 = 4, D1 = 3, D2 = 5, N = D0 * D1 * D2 };
static const size_t shape3[3] = {D0, D1, D2};
static const struct {
  int naxes, axes[3];
  size_t out_ndim, out_shape[3]; /* without the reduced axes */
} sets[] = {{1, {0}, 2, {D1, D2}}, {1, {-1}, 2, {D0, D1}}, {2, {0, 2}, 1, {D1}}, {0, {0}, 0, {0}},
            {3, {2, 0, 1}, 0, {0}}};
enum { NSETS = sizeof sets / sizeof sets[0] };

/* The output index of element i of x, and whether axis d is reduced, for set @p s. */
static bool reduced(int s, int d) {
  if (sets[s].naxes == 0)
    return true;
  for (int k = 0; k < sets[s].naxes; k++)
    if ((sets[s].axes[k] + 3) % 3 == d)
      return true;
  return false;
}
static size_t out_index(int s, size_t i) {
  size_t c[3] = {i / (D1 * D2), i / D2 % D1, i % D2}, o = 0;
  for (int d = 0; d < 3; d++)
    if (!reduced(s, d))
      o = o * shape3[d] + c[d];
  return o;
}
static size_t out_size(int s) {
  size_t n = 1;
  for (int d = 0; d < 3; d++)
    if (!reduced(s, d))
      n *= shape3[d];
  return n;
}
/* out with the reduced axes dropped (@p keep false) or kept as 1. */
static ag_array *out_array(ag_device *dev, ag_dtype t, int s, bool keep) {
  size_t kshape[3];
  for (int d = 0; d < 3; d++)
    kshape[d] = reduced(s, d) ? 1 : shape3[d];
  return keep ? test_array_new(dev, t, 3, kshape) : test_array_new(dev, t, (int)sets[s].out_ndim, sets[s].out_shape);
}

START_TEST(any_and_all_match_the_reference_on_every_dtype) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    /* Mostly nonzero, with zeros on a pattern, NaN in one float element (true). */
    void *x = test_alloc(N * ref_size(t));
    ref_random(t, x, N, 500u + (unsigned)k, 1, 9);
    for (size_t i = 0; i < N; i++)
      if (i % 7 == 0 || (i / D2) % D1 == 1 || (ref_is_bool(t) && i % 3 == 0))
        ref_put(t, x, i, 0);
    if (ref_is_float(t))
      ref_put(t, x, 2, NAN);
    ag_array *ax = test_array_from(dev, t, 3, shape3, x);
    for (int s = 0; s < NSETS; s++)
      for (int keep = 0; keep < 2; keep++)
        for (int any = 0; any < 2; any++) {
          size_t m = out_size(s);
          ag_array *out = out_array(dev, AG_BOOL, s, keep);
          ref_check_ok(any ? ag_any_axes(NULL, ax, sets[s].naxes, sets[s].axes, out)
                           : ag_all_axes(NULL, ax, sets[s].naxes, sets[s].axes, out),
                       "%s of %s, set %d", any ? "ag_any_axes" : "ag_all_axes", ref_name(t), s);
          ref_c *want = test_alloc(m * sizeof *want);
          for (size_t o = 0; o < m; o++)
            want[o] = any ? 0 : 1;
          for (size_t i = 0; i < N; i++) {
            ref_c v = ref_get(t, x, i);
            bool nz = creall(v) != 0 || cimagl(v) != 0 || isnan(creall(v));
            if (any && nz)
              want[out_index(s, i)] = 1;
            if (!any && !nz)
              want[out_index(s, i)] = 0;
          }
          void *got = test_array_read(out);
          ref_check(AG_BOOL, got, want, NULL, m, REF_EXACT, "%s of %s over set %d, keep %d",
                    any ? "ag_any_axes" : "ag_all_axes", ref_name(t), s, keep);
          TEST_FREE(got, want);
          ag_array_free(out);
        }
    free(x);
    ag_array_free(ax);
  }
}
END_TEST

START_TEST(var_and_std_match_the_reference) {
  ag_device *dev = test_device(_i);
  const ag_dtype ts[] = {AG_F32, AG_F64};
  const double corrections[] = {0, 1, 2.5};
  for (size_t k = 0; k < 2; k++) {
    ag_dtype t = ts[k];
    if (!test_dtype_runs(dev, t))
      continue;
    /* Values far from 0 with a small spread: the two-pass algorithm keeps them exact where
       E[x^2] - E[x]^2 would cancel. */
    void *x = test_alloc(N * ref_size(t));
    ref_random(t, x, N, 900u + (unsigned)k, 1000, 1001);
    ag_array *ax = test_array_from(dev, t, 3, shape3, x);
    for (int s = 0; s < NSETS; s++)
      for (size_t c = 0; c < 3; c++)
        for (int root = 0; root < 2; root++) {
          size_t m = out_size(s), count = N / m;
          ag_array *out = out_array(dev, t, s, s % 2 == 1);
          ref_check_ok(root ? ag_std_axes(NULL, ax, sets[s].naxes, sets[s].axes, corrections[c], out)
                            : ag_var_axes(NULL, ax, sets[s].naxes, sets[s].axes, corrections[c], out),
                       "%s of %s", root ? "ag_std_axes" : "ag_var_axes", ref_name(t));
          long double *mean = test_alloc(m * sizeof *mean), *ss = test_alloc(m * sizeof *ss);
          ref_c *want = test_alloc(m * sizeof *want);
          memset(mean, 0, m * sizeof *mean);
          memset(ss, 0, m * sizeof *ss);
          for (size_t i = 0; i < N; i++)
            mean[out_index(s, i)] += creall(ref_get(t, x, i)) / count;
          for (size_t i = 0; i < N; i++) {
            long double dv = creall(ref_get(t, x, i)) - mean[out_index(s, i)];
            ss[out_index(s, i)] += dv * dv;
          }
          for (size_t o = 0; o < m; o++) {
            long double v = ss[o] / ((long double)count - corrections[c]);
            want[o] = root ? sqrtl(v) : v;
          }
          void *got = test_array_read(out);
          /* The mean's rounding (f32: 6e-5 of x ~ 1000) shifts every deviation alike, which
             changes the sum of squares only to second order (about 1e-8 of it); the squares
             and sums round to a few ulp. */
          ref_tol tol = t == AG_F32 ? (ref_tol){1e-5, 0} : (ref_tol){1e-12, 0};
          ref_check(t, got, want, NULL, m, tol, "%s of %s over set %d, correction %g",
                    root ? "ag_std_axes" : "ag_var_axes", ref_name(t), s, corrections[c]);
          TEST_FREE(got, want, mean, ss);
          ag_array_free(out);
        }
    free(x);
    ag_array_free(ax);
  }
}
END_TEST

/* numpy's answers at the edges: no degrees of freedom left (inf; NaN for equal values), an
   empty axis (var NaN, any false, all true). */
START_TEST(edges_give_numpy_s_answers) {
  ag_device *dev = test_device(_i);
  const float v[] = {1, 2, 4, 4};
  const size_t n = 4, one = 1, empty[2] = {0, 3}, three = 3;
  ag_array *x = test_array_1d(dev, AG_F32, n, v), *out = test_array_new(dev, AG_F32, 1, &one);
  CHECK_OK(ag_var_axes(NULL, x, 0, NULL, 4, out));
  float *g = test_array_read(out);
  ck_assert_msg(isinf(g[0]) && g[0] > 0, "var with correction 4 of 4 values: %g, want inf", (double)g[0]);
  free(g);
  ag_array *e = test_array_new(dev, AG_F32, 2, empty), *o3 = test_array_new(dev, AG_F32, 1, &three);
  ag_array *b3 = test_array_new(dev, AG_BOOL, 1, &three);
  CHECK_OK(ag_var_axes(NULL, e, 1, (const int[]){0}, 0, o3));
  g = test_array_read(o3);
  ck_assert_msg(isnan(g[0]) && isnan(g[2]), "var over an empty axis: %g, want NaN", (double)g[0]);
  free(g);
  const uint8_t f3[3] = {0, 0, 0}, t3[3] = {1, 1, 1};
  CHECK_OK(ag_any_axes(NULL, e, 1, (const int[]){0}, b3));
  void *gb = test_array_read(b3);
  CHECK_BYTES(gb, f3, 3, "any over an empty axis");
  free(gb);
  CHECK_OK(ag_all_axes(NULL, e, 1, (const int[]){0}, b3));
  gb = test_array_read(b3);
  CHECK_BYTES(gb, t3, 3, "all over an empty axis");
  free(gb);
  TEST_ARRAY_FREE(x, out, e, o3, b3);
}
END_TEST

START_TEST(bad_arguments_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 6, two = 2, three = 3, sh[2] = {2, 3};
  ag_array *x = test_array_new(dev, AG_F32, 2, sh), *i = test_array_new(dev, AG_I32, 2, sh);
  ag_array *o2 = test_array_new(dev, AG_F32, 1, &two), *o3 = test_array_new(dev, AG_F32, 1, &three);
  ag_array *b2 = test_array_new(dev, AG_BOOL, 1, &two), *oi = test_array_new(dev, AG_I32, 1, &two);
  ag_array *on = test_array_new(dev, AG_F32, 1, &n);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_REFUSED(ag_var_axes(NULL, i, 1, (const int[]){1}, 0, oi), AG_ERR_UNSUPPORTED, "ag_var_axes", "i32");
  CHECK_REFUSED(ag_std_axes(NULL, x, 1, (const int[]){1}, -1, o2), AG_ERR_INVALID_ARGUMENT, "ag_std_axes",
                "correction");
  CHECK_REFUSED(ag_var_axes(NULL, x, 1, (const int[]){1}, 0, o3), AG_ERR_MISMATCH, "ag_var_axes", "out");
  CHECK_REFUSED(ag_var_axes(NULL, x, 1, (const int[]){1}, 0, b2), AG_ERR_MISMATCH, "ag_var_axes", "out");
  CHECK_REFUSED(ag_any_axes(NULL, x, 1, (const int[]){1}, o2), AG_ERR_MISMATCH, "ag_any_axes", "out");
  CHECK_REFUSED(ag_all_axes(NULL, x, 1, (const int[]){2}, b2), AG_ERR_INVALID_ARGUMENT, "ag_all_axes", "axes");
  CHECK_REFUSED(ag_all_axes(NULL, x, 2, (const int[]){1, -1}, on), AG_ERR_INVALID_ARGUMENT, "ag_all_axes", "axes");
  CHECK_REFUSED(ag_any_axes(NULL, NULL, 0, NULL, b2), AG_ERR_INVALID_ARGUMENT, "ag_any_axes", "x");
  ag_array *all[] = {o2};
  CHECK_OK(ag_fill(NULL, o2, 7));
  CHECK_REFUSED(ag_std_axes(NULL, x, 1, (const int[]){1}, NAN, o2), AG_ERR_INVALID_ARGUMENT, "ag_std_axes",
                "correction");
  test_check_all_equal(all, 1, 7, "ag_std_axes");
  TEST_ARRAY_FREE(x, i, o2, o3, b2, oi, on);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "any and all match the reference on every dtype", any_and_all_match_the_reference_on_every_dtype);
  add_device_test(s, "var and std match the reference", var_and_std_match_the_reference);
  add_device_test(s, "edges give numpy's answers", edges_give_numpy_s_answers);
  add_device_test(s, "bad arguments are refused by name", bad_arguments_are_refused_by_name);
}
