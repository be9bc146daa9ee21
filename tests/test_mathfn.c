/* tests/test_mathfn.c — the array API standard's elementwise functions of the mathfn family
   (ops.h: tan to log10, floor, ceil, trunc, round, isnan, isinf, isfinite, signbit; atan2,
   hypot, copysign, logaddexp) on every dtype each takes, against the host references of
   reference_mathfn.c (the C library in long double, C99's complex functions): random values
   over each function's domain, the special values (+-0, +-inf, NaN, halves for round, the ends
   of each domain) with zeros' signs, the binary functions' broadcast, scalar and mixed-dtype
   forms, views, and the dtypes and outs each refuses. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

typedef ag_status (*unary_fn)(ag_queue *, const ag_array *, ag_array *);
static const struct {
  ag_unary_op op;
  const char *name;
  unary_fn fn;
  double lo, hi; /* a real argument's range, where the function is finite */
} unaries[] = {
    {AG_OP_TAN, "ag_tan", ag_tan, -1.5, 1.5},         {AG_OP_ASIN, "ag_asin", ag_asin, -0.99, 0.99},
    {AG_OP_ACOS, "ag_acos", ag_acos, -0.99, 0.99},    {AG_OP_ATAN, "ag_atan", ag_atan, -5, 5},
    {AG_OP_SINH, "ag_sinh", ag_sinh, -5, 5},          {AG_OP_COSH, "ag_cosh", ag_cosh, -5, 5},
    {AG_OP_TANH, "ag_tanh", ag_tanh, -5, 5},          {AG_OP_ASINH, "ag_asinh", ag_asinh, -5, 5},
    {AG_OP_ACOSH, "ag_acosh", ag_acosh, 1, 10},       {AG_OP_ATANH, "ag_atanh", ag_atanh, -0.99, 0.99},
    {AG_OP_EXPM1, "ag_expm1", ag_expm1, -5, 5},       {AG_OP_LOG1P, "ag_log1p", ag_log1p, -0.9, 10},
    {AG_OP_LOG2, "ag_log2", ag_log2, 0.1, 100},       {AG_OP_LOG10, "ag_log10", ag_log10, 0.1, 100},
    {AG_OP_FLOOR, "ag_floor", ag_floor, -10, 10},     {AG_OP_CEIL, "ag_ceil", ag_ceil, -10, 10},
    {AG_OP_TRUNC, "ag_trunc", ag_trunc, -10, 10},     {AG_OP_ROUND, "ag_round", ag_round, -10, 10},
    {AG_OP_ISNAN, "ag_isnan", ag_isnan, -10, 10},     {AG_OP_ISINF, "ag_isinf", ag_isinf, -10, 10},
    {AG_OP_ISFINITE, "ag_isfinite", ag_isfinite, -10, 10}, {AG_OP_SIGNBIT, "ag_signbit", ag_signbit, -10, 10},
};
enum { NUNARY = sizeof unaries / sizeof unaries[0] };

static const binary_entry binaries[] = {
    {AG_OP_ATAN2, "ag_atan2", ag_atan2, NULL, NULL, NULL, NULL},
    {AG_OP_HYPOT, "ag_hypot", ag_hypot, NULL, NULL, NULL, NULL},
    {AG_OP_COPYSIGN, "ag_copysign", ag_copysign, NULL, NULL, NULL, NULL},
    {AG_OP_LOGADDEXP, "ag_logaddexp", ag_logaddexp, NULL, NULL, NULL, NULL},
};
enum { NBINARY = sizeof binaries / sizeof binaries[0] };

/* The special values of the real floats, each function's domain ends among them. */
static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5,
                                  -2.5, 2, -2, 50, -50, 0.99, -0.99, 1e-30, -1e-30, 3.5, -3.5, 1e7 + 0.5};
enum { NSPECIAL = sizeof specials / sizeof specials[0] };

/* Fails unless every zero of @p want (f32 or f64) came out as a zero of the same sign. */
static void check_zero_signs(ag_dtype t, const void *got, const ref_c *want, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++) {
    long double w = creall(want[i]), g = creall(ref_get(t, got, i));
    if (w == 0 && g == 0)
      ck_assert_msg(signbit(w) == signbit(g), "%s: element %zu is %s0, want %s0", what, i, signbit(g) ? "-" : "+",
                    signbit(w) ? "-" : "+");
  }
}

/* x[i] for the function at @p u: random over its range (integers in [-100, 100], unsigned in
   [0, 200]; complex parts in [-2, 2]), then, for floats and complex numbers, special values
   from the first element on (complex: each with a part of 0.5, then NaN and inf parts). */
static void *inputs(int u, ag_dtype t, size_t n, uint64_t seed) {
  void *x = test_alloc(n * ref_size(t));
  if (ref_is_complex(t))
    ref_random(t, x, n, seed, -2, 2);
  else if (ref_is_float(t))
    ref_random(t, x, n, seed, unaries[u].lo, unaries[u].hi);
  else if (ref_is_unsigned(t))
    ref_random(t, x, n, seed, 0, 200);
  else
    ref_random(t, x, n, seed, -100, 100);
  bool tests = ref_mathfn_is_test(unaries[u].op) || unaries[u].op == AG_OP_ROUND;
  if (ref_is_float(t) && n > NSPECIAL)
    for (size_t i = 0; i < NSPECIAL; i++)
      ref_put(t, x, i, specials[i]);
  if (ref_is_complex(t) && n > 2 * NSPECIAL && tests)
    for (size_t i = 0; i < NSPECIAL; i++) {
      ref_put(t, x, 2 * i, CMPLXL(specials[i], 0.5));
      ref_put(t, x, 2 * i + 1, CMPLXL(0.5, specials[i]));
    }
  /* Every pair of +-0, +-inf, NaN, 1 and finite parts: C99 Annex G's special cases, which are
     the array API standard's, as the C library's long double functions give them. */
  static const double parts[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, 0.5, -2.0};
  enum { NPARTS = sizeof parts / sizeof parts[0] };
  if (ref_is_complex(t) && !tests && n > NPARTS * NPARTS)
    for (size_t i = 0; i < NPARTS * NPARTS; i++)
      ref_put(t, x, i, CMPLXL(parts[i / NPARTS], parts[i % NPARTS]));
  return x;
}

static void check_unary(ag_device *dev, int u, ag_dtype t, size_t n, uint64_t seed) {
  ag_unary_op op = unaries[u].op;
  void *x = inputs(u, t, n, seed);
  ag_dtype ot = ref_unary_out_dtype(op, t);
  ag_array *ax = test_array_shaped(dev, t, n, x), *out = test_array_shaped(dev, ot, n, NULL);
  ref_c *want = test_alloc(n * sizeof *want);
  ref_unary(op, t, x, n, want);
  for (int how = 0; how < 2; how++) {
    ref_check_ok(how == 0 ? unaries[u].fn(NULL, ax, out) : ag_unary(NULL, op, ax, out), "%s of %zu %s elements",
                 unaries[u].name, n, ref_name(t));
    void *got = test_array_read(out);
    char what[96];
    snprintf(what, sizeof what, "%s%s of %s", how == 0 ? "" : "ag_unary: ", unaries[u].name, ref_name(t));
    ref_check(ot, got, want, NULL, n, ref_tol_unary(op, t), "%s", what);
    if (ref_is_float(ot))
      check_zero_signs(ot, got, want, n, what);
    free(got);
  }
  TEST_FREE(want, x);
  TEST_ARRAY_FREE(ax, out);
}

static const size_t sizes[] = {1, 1023};

START_TEST(unary_functions_match_the_reference_on_every_dtype_they_take) {
  ag_device *dev = test_device(_i);
  for (int u = 0; u < NUNARY; u++)
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!ref_unary_takes(unaries[u].op, t) || !test_dtype_runs(dev, t))
        continue;
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        check_unary(dev, u, t, sizes[s], 1000u * (unsigned)u + 10u * (unsigned)k + s);
    }
}
END_TEST

/* numpy's answers written out, in f32 and f64: round halves to even, floor and ceil of -0.5
   keep their signs, signbit sees -0 and -NaN, isinf and isfinite of each kind of value. */
START_TEST(rounding_and_tests_give_numpy_s_answers) {
  ag_device *dev = test_device(_i);
  const double x[] = {0.5, 1.5, 2.5, -0.5, -2.5, -0.0, 3.7, -3.7, INFINITY, -NAN};
  const double round_w[] = {0, 2, 2, -0.0, -2, -0.0, 4, -4, INFINITY, NAN};
  const double floor_w[] = {0, 1, 2, -1, -3, -0.0, 3, -4, INFINITY, NAN};
  const double ceil_w[] = {1, 2, 3, -0.0, -2, -0.0, 4, -3, INFINITY, NAN};
  const double trunc_w[] = {0, 1, 2, -0.0, -2, -0.0, 3, -3, INFINITY, NAN};
  const uint8_t signbit_w[] = {0, 0, 0, 1, 1, 1, 0, 1, 0, 1}, isinf_w[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0};
  const uint8_t isfinite_w[] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, isnan_w[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const size_t n = sizeof x / sizeof x[0];
  const ag_dtype ts[] = {AG_F32, AG_F64};
  for (size_t k = 0; k < 2; k++) {
    ag_dtype t = ts[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *hx = test_alloc(n * ref_size(t));
    for (size_t i = 0; i < n; i++)
      ref_put(t, hx, i, x[i]);
    ag_array *ax = test_array_1d(dev, t, n, hx), *out = test_array_new(dev, t, 1, &n);
    ag_array *ob = test_array_new(dev, AG_BOOL, 1, &n);
    const struct {
      unary_fn fn;
      const char *name;
      const double *want;
    } rounds[] = {{ag_round, "round", round_w}, {ag_floor, "floor", floor_w}, {ag_ceil, "ceil", ceil_w},
                  {ag_trunc, "trunc", trunc_w}};
    for (size_t r = 0; r < 4; r++) {
      CHECK_OK(rounds[r].fn(NULL, ax, out));
      void *got = test_array_read(out);
      ref_c want[sizeof x / sizeof x[0]];
      for (size_t i = 0; i < n; i++)
        want[i] = rounds[r].want[i];
      ref_check(t, got, want, NULL, n, REF_EXACT, "%s of %s", rounds[r].name, ref_name(t));
      check_zero_signs(t, got, want, n, rounds[r].name);
      free(got);
    }
    const struct {
      unary_fn fn;
      const char *name;
      const uint8_t *want;
    } tests[] = {{ag_signbit, "signbit", signbit_w}, {ag_isinf, "isinf", isinf_w},
                 {ag_isfinite, "isfinite", isfinite_w}, {ag_isnan, "isnan", isnan_w}};
    for (size_t r = 0; r < 4; r++) {
      CHECK_OK(tests[r].fn(NULL, ax, ob));
      void *got = test_array_read(ob);
      CHECK_BYTES(got, tests[r].want, n, tests[r].name);
      free(got);
    }
    free(hx);
    TEST_ARRAY_FREE(ax, out, ob);
  }
}
END_TEST

/* a and b of @p n f32 or f64 elements: every pair of the special values first, then random in
   [-10, 10]. */
static void binary_inputs(ag_dtype t, size_t n, uint64_t seed, void *a, void *b) {
  ref_random(t, a, n, seed, -10, 10);
  ref_random(t, b, n, seed + 1, -10, 10);
  const double s[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1, -1, 2.5};
  const size_t ns = sizeof s / sizeof s[0];
  for (size_t i = 0; i < ns * ns && i < n; i++) {
    ref_put(t, a, i, s[i / ns]);
    ref_put(t, b, i, s[i % ns]);
  }
}

static void check_binary_result(ag_array *out, ag_dtype t, const ref_c *want, size_t n, ag_binary_op op,
                                const char *what) {
  void *got = test_array_read(out);
  ref_check(t, got, want, NULL, n, ref_tol_binary(op, t), "%s", what);
  check_zero_signs(t, got, want, n, what);
  free(got);
}

START_TEST(binary_functions_match_the_reference_in_every_form) {
  ag_device *dev = test_device(_i);
  enum { ROWS = 7, COLS = 146, N = ROWS * COLS };
  const size_t shape[2] = {ROWS, COLS}, row = COLS;
  const ag_dtype ts[] = {AG_F32, AG_F64};
  for (int o = 0; o < NBINARY; o++)
    for (size_t k = 0; k < 2; k++) {
      ag_dtype t = ts[k];
      if (!test_dtype_runs(dev, t))
        continue;
      const binary_entry *e = &binaries[o];
      void *a = test_alloc(N * ref_size(t)), *b = test_alloc(N * ref_size(t));
      binary_inputs(t, N, 300u * (unsigned)o + (unsigned)k, a, b);
      ag_array *aa = test_array_from(dev, t, 2, shape, a), *ab = test_array_from(dev, t, 2, shape, b);
      ag_array *brow = test_array_from(dev, t, 1, &row, b), *out = test_array_new(dev, t, 2, shape);
      ref_c *want = test_alloc(N * sizeof *want);
      char what[96];
      /* Equal shapes, by name and through ag_binary. */
      ref_binary(e->op, t, a, N, b, N, N, want);
      ref_check_ok(e->fn(NULL, aa, ab, out), "%s of %s", e->name, ref_name(t));
      snprintf(what, sizeof what, "%s of %s", e->name, ref_name(t));
      check_binary_result(out, t, want, N, e->op, what);
      ref_check_ok(ag_binary(NULL, e->op, aa, ab, out), "ag_binary(%s) of %s", e->name, ref_name(t));
      check_binary_result(out, t, want, N, e->op, what);
      /* b's first row repeated over a's rows (_bb), and a's row over b's (_ba). */
      ref_binary(e->op, t, a, N, b, COLS, N, want);
      ref_check_ok(e->fn(NULL, aa, brow, out), "%s of %s, b a row", e->name, ref_name(t));
      snprintf(what, sizeof what, "%s of %s, b a row", e->name, ref_name(t));
      check_binary_result(out, t, want, N, e->op, what);
      ref_binary(e->op, t, b, COLS, a, N, N, want);
      ref_check_ok(e->fn(NULL, brow, aa, out), "%s of %s, a a row", e->name, ref_name(t));
      snprintf(what, sizeof what, "%s of %s, a a row", e->name, ref_name(t));
      check_binary_result(out, t, want, N, e->op, what);
      /* A scalar on either side. */
      const double sv[] = {-0.0, 2.5, INFINITY};
      for (size_t v = 0; v < 3; v++)
        for (int first = 0; first < 2; first++) {
          unsigned char s[8];
          ref_put(t, s, 0, sv[v]);
          if (first)
            ref_binary(e->op, t, s, 1, a, N, N, want);
          else
            ref_binary(e->op, t, a, N, s, 1, N, want);
          ref_check_ok(ag_binary_scalar(NULL, e->op, aa, sv[v], 0, first, out), "ag_binary_scalar(%s)", e->name);
          snprintf(what, sizeof what, "%s of %s and the scalar %g (%s)", e->name, ref_name(t), sv[v],
                   first ? "first" : "second");
          check_binary_result(out, t, want, N, e->op, what);
        }
      TEST_FREE(a, b, want);
      TEST_ARRAY_FREE(aa, ab, brow, out);
    }
}
END_TEST

/* f32 with f64 computes in f64; f32 with i16 in f32 (numpy's promotion). */
START_TEST(mixed_dtypes_promote) {
  ag_device *dev = test_device(_i);
  const size_t n = 3;
  const float af[] = {1, -2, 0.5f};
  const int16_t bi[] = {-1, 3, 0};
  ag_array *a = test_array_1d(dev, AG_F32, n, af), *b = test_array_1d(dev, AG_I16, n, bi);
  ag_array *o32 = test_array_new(dev, AG_F32, 1, &n);
  CHECK_OK(ag_copysign(NULL, a, b, o32));
  const float want32[] = {-1, 2, 0.5f};
  void *g = test_array_read(o32);
  CHECK_BYTES(g, want32, sizeof want32, "copysign(float32, int16)");
  free(g);
  if (test_dtype_runs(dev, AG_F64)) {
    const double bd[] = {0, 0, 0};
    ag_array *b64 = test_array_1d(dev, AG_F64, n, bd), *o64 = test_array_new(dev, AG_F64, 1, &n);
    CHECK_OK(ag_hypot(NULL, a, b64, o64));
    const double want64[] = {1, 2, 0.5};
    g = test_array_read(o64);
    CHECK_BYTES(g, want64, sizeof want64, "hypot(float32, float64)");
    free(g);
    CHECK_REFUSED(ag_hypot(NULL, a, b64, o32), AG_ERR_MISMATCH, "ag_hypot", "f64", "f32");
    TEST_ARRAY_FREE(b64, o64);
  }
  TEST_ARRAY_FREE(a, b, o32);
}
END_TEST

/* A transposed view in, a column-sliced view out: through the launch's contiguous stand-ins,
   the same values as contiguous operands. */
START_TEST(views_are_read_and_written) {
  ag_device *dev = test_device(_i);
  enum { R = 6, C = 9 };
  const size_t shape[2] = {R, C}, wide[2] = {C, 2 * R};
  float x[R * C];
  for (int i = 0; i < R * C; i++)
    x[i] = (float)(i % 17) * 0.11f - 0.9f;
  ag_array *ax = test_array_from(dev, AG_F32, 2, shape, x), *xt = NULL, *parent = test_array_new(dev, AG_F32, 2, wide);
  ag_array *ot = NULL;
  CHECK_OK(ag_array_permute(ax, (const int[]){1, 0}, &xt));
  CHECK_OK(ag_fill(NULL, parent, 7));
  const ag_index cols[2] = {ag_all(), ag_slice(0, AG_INDEX_NONE, 2)};
  CHECK_OK(ag_array_view(parent, 2, cols, &ot));
  CHECK_OK(ag_atanh(NULL, xt, ot));
  float *got = test_array_read(parent);
  for (int i = 0; i < C; i++)
    for (int j = 0; j < 2 * R; j++) {
      long double w = j % 2 ? 7 : atanhl(x[(j / 2) * C + i]);
      ck_assert_msg(fabsl(got[i * 2 * R + j] - w) <= 1e-6L * fabsl(w) + 5e-7L, "atanh(x.T)[%d, %d]: %g, want %Lg",
                    i, j / 2, (double)got[i * 2 * R + j], w);
    }
  free(got);
  TEST_ARRAY_FREE(ax, xt, parent, ot);
}
END_TEST

START_TEST(dtypes_and_outs_without_a_meaning_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 5;
  for (int u = 0; u < NUNARY; u++)
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (ref_unary_takes(unaries[u].op, t) || !test_dtype_runs(dev, t))
        continue;
      ag_array *x = test_array_new(dev, t, 1, &n), *out = test_array_new(dev, t, 1, &n);
      CHECK_OK(ag_fill(NULL, x, 1));
      CHECK_OK(ag_fill(NULL, out, 0));
      CHECK_REFUSED(unaries[u].fn(NULL, x, out), AG_ERR_UNSUPPORTED, unaries[u].name, ref_name(t));
      ag_array *all[] = {out};
      test_check_all_equal(all, 1, 0, unaries[u].name);
      TEST_ARRAY_FREE(x, out);
    }
  for (int o = 0; o < NBINARY; o++)
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (ref_binary_takes(binaries[o].op, t) || !test_dtype_runs(dev, t))
        continue;
      ag_array *a = test_array_new(dev, t, 1, &n), *out = test_array_new(dev, t, 1, &n);
      CHECK_OK(ag_fill(NULL, a, 1));
      CHECK_REFUSED(binaries[o].fn(NULL, a, a, out), AG_ERR_UNSUPPORTED, binaries[o].name, ref_name(t));
      CHECK_REFUSED(ag_binary(NULL, binaries[o].op, a, a, out), AG_ERR_UNSUPPORTED, binaries[o].name, ref_name(t));
      CHECK_REFUSED(ag_binary_scalar(NULL, binaries[o].op, a, 2, 0, false, out), AG_ERR_UNSUPPORTED,
                    "ag_binary_scalar", ref_name(t));
      TEST_ARRAY_FREE(a, out);
    }
  /* The tests write bool, the others x's dtype; shapes must agree. */
  const size_t m = 4;
  ag_array *x = test_array_new(dev, AG_F32, 1, &n), *of = test_array_new(dev, AG_F32, 1, &n);
  ag_array *ob = test_array_new(dev, AG_BOOL, 1, &n), *short_out = test_array_new(dev, AG_BOOL, 1, &m);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_REFUSED(ag_isnan(NULL, x, of), AG_ERR_MISMATCH, "ag_isnan", "out", "bool", "f32");
  CHECK_REFUSED(ag_tan(NULL, x, ob), AG_ERR_MISMATCH, "ag_tan", "out", "bool", "f32");
  CHECK_REFUSED(ag_signbit(NULL, x, short_out), AG_ERR_MISMATCH, "ag_signbit", "out");
  CHECK_REFUSED(ag_log1p(NULL, NULL, of), AG_ERR_INVALID_ARGUMENT, "ag_log1p", "x");
  CHECK_REFUSED(ag_atan2(NULL, x, x, NULL), AG_ERR_INVALID_ARGUMENT, "ag_atan2", "out");
  TEST_ARRAY_FREE(x, of, ob, short_out);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "unary functions match the reference on every dtype they take",
                  unary_functions_match_the_reference_on_every_dtype_they_take);
  add_device_test(s, "rounding and tests give numpy's answers", rounding_and_tests_give_numpy_s_answers);
  add_device_test(s, "binary functions match the reference in every form",
                  binary_functions_match_the_reference_in_every_form);
  add_device_test(s, "mixed dtypes promote", mixed_dtypes_promote);
  add_device_test(s, "views are read and written", views_are_read_and_written);
  add_device_test(s, "dtypes and outs without a meaning are refused by name",
                  dtypes_and_outs_without_a_meaning_are_refused_by_name);
}
