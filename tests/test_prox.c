/* tests/test_prox.c — proximal operators, finite differences and metrics (prox.h), against
   plain long double references written here from sporco's definitions: l1, l2, the l2 ball
   and l1 + l2 along every axis of odd shapes (1-D to 4-D, axes of length 1, lines of zeros,
   complex zeros), both ways of running them (a work-item per line, and norms from ag_nrm2 for
   long lines); forward differences, their adjoint and the adjoint identity; singular value
   thresholding against eigenvalues of the Gram matrix; mse, snr and psnr against values worked
   out by hand and a long double reference; refused input.

   Tolerances, per dtype, relative to |v| of each element for the l2 family (out = f v, f in
   [0, 1], so the error is the factor's, which is at most the norm's relative error): f32 and
   c64 1e-5, f64 and c128 1e-13. A norm of n terms keeps about sqrt(n) rounding errors (6e-8
   each in single precision, as llvmpipe's lines of up to 1500 terms add them), the factor and
   the soft threshold a few more; the largest seen on host, pocl and llvmpipe was below 1e-6
   and 2e-15. Differences are one correctly rounded subtraction: 1 ulp of the result. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[4] = {AG_F32, AG_F64, AG_C64, AG_C128};
static const ag_dtype real_dtypes[2] = {AG_F32, AG_F64};

static bool single(ag_dtype t) { return t == AG_F32 || t == AG_C64; }

typedef struct shape {
  int nd;
  size_t d[4];
} shape;

static size_t shape_size(const shape *s) {
  size_t n = 1;
  for (int k = 0; k < s->nd; k++)
    n *= s->d[k];
  return n;
}

/* The array as [outer][len][inner] around @p axis (AG_AXIS_ALL: one line). */
static void split(const shape *s, int axis, size_t *outer, size_t *len, size_t *inner) {
  *outer = *inner = 1;
  *len = shape_size(s);
  if (axis == AG_AXIS_ALL)
    return;
  *len = s->d[axis];
  for (int k = 0; k < axis; k++)
    *outer *= s->d[k];
  for (int k = axis + 1; k < s->nd; k++)
    *inner *= s->d[k];
}

/* ---- references ------------------------------------------------------------------------------ */

typedef enum l2_op { OP_PROX_L2, OP_PROJ_L2, OP_SL1L2 } l2_op;
static const char *const l2_names[3] = {"ag_prox_l2", "ag_proj_l2", "ag_prox_sl1l2"};

/* sporco.prox.prox_l1: sign(v) max(|v| - t, 0); v / |v| max(|v| - t, 0) for complex, 0 at 0. */
static ref_c soft(ref_c v, long double t, bool cx) {
  long double m = cx ? cabsl(v) : fabsl(creall(v));
  if (!(m - t > 0))
    return 0;
  return v * ((m - t) / m);
}

/* sporco's prox_l2 (p = alpha), proj_l2 (p = gamma) and prox_sl1l2 (p = alpha, p2 = beta) of v
   along @p axis, in long double; scale[i] = |v[i]|. */
static void ref_l2(l2_op op, ag_dtype t, const void *v, const shape *s, int axis, double p, double p2, ref_c *want,
                   long double *scale) {
  size_t outer, len, inner;
  split(s, axis, &outer, &len, &inner);
  bool cx = ref_is_complex(t);
  for (size_t o = 0; o < outer; o++)
    for (size_t k = 0; k < inner; k++) {
      long double ssq = 0;
      for (size_t j = 0; j < len; j++) {
        size_t i = (o * len + j) * inner + k;
        ref_c w = ref_get(t, v, i);
        want[i] = op == OP_SL1L2 ? soft(w, p, cx) : w;
        scale[i] = cabsl(w);
        ssq += creall(want[i] * conjl(want[i]));
      }
      long double a = sqrtl(ssq), f;
      if (op == OP_PROJ_L2)
        f = a <= p ? 1 : p / a;
      else {
        long double alpha = op == OP_SL1L2 ? p2 : p;
        f = a == 0 ? 0 : (a - alpha > 0 ? a - alpha : 0) / a;
      }
      for (size_t j = 0; j < len; j++)
        want[(o * len + j) * inner + k] *= f;
    }
}

static ref_tol l2_tol(ag_dtype t) { return single(t) ? (ref_tol){1e-5, 0} : (ref_tol){1e-13, 0}; }

/* ---- the l1 and l2 family ---------------------------------------------------------------------- */

static ag_status run_l2(l2_op op, ag_array *v, double p, double p2, int axis, ag_array *out) {
  switch (op) {
  case OP_PROX_L2:
    return ag_prox_l2(NULL, v, p, axis, out);
  case OP_PROJ_L2:
    return ag_proj_l2(NULL, v, p, axis, out);
  case OP_SL1L2:
    return ag_prox_sl1l2(NULL, v, p, p2, axis, out);
  }
  return AG_ERR_INVALID_ARGUMENT;
}

/* Runs @p op on random data of shape @p s (line 0 along the axis zeroed, unless the whole array
   is one line) into a separate out and in place, and compares both with the reference. */
static void check_l2(ag_device *dev, l2_op op, ag_dtype t, const shape *s, int axis, double p, double p2,
                     uint64_t seed) {
  size_t n = shape_size(s), outer, len, inner;
  split(s, axis, &outer, &len, &inner);
  void *v = test_alloc(n * ref_size(t));
  ref_random(t, v, n, seed, -1, 1);
  if (axis != AG_AXIS_ALL && outer * inner > 1)
    for (size_t j = 0; j < len; j++)
      ref_put(t, v, j * inner, 0);
  ref_c *want = test_alloc(n * sizeof *want);
  long double *scale = test_alloc(n * sizeof *scale);
  ref_l2(op, t, v, s, axis, p, p2, want, scale);
  ag_array *av = test_array_from(dev, t, s->nd, s->d, v), *out = test_array_new(dev, t, s->nd, s->d);
  for (int in_place = 0; in_place < 2; in_place++) {
    ag_array *o = in_place ? av : out;
    ref_check_ok(run_l2(op, av, p, p2, axis, o), "%s of %s along axis %d", l2_names[op], ref_name(t), axis);
    void *got = test_array_read(o);
    ref_check(t, got, want, scale, n, l2_tol(t), "%s%s of %s, %d-D of %zu, along axis %d (lines of %zu)",
              l2_names[op], in_place ? " in place" : "", ref_name(t), s->nd, n, axis, len);
    free(got);
  }
  ag_array_free(av);
  ag_array_free(out);
  free(v);
  free(want);
  free(scale);
}

static const shape l2_shapes[] = {
    {3, {3, 5, 7}}, {1, {1000}}, {1, {3000}}, {4, {2, 1, 3, 4}}, {2, {3, 1100}}, {2, {1500, 8}}, {2, {1, 1}},
};

START_TEST(l2_operators_match_sporco_along_every_axis) {
  ag_device *dev = test_device(_i);
  uint64_t seed = 100;
  for (size_t k = 0; k < sizeof all_dtypes / sizeof all_dtypes[0]; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t sh = 0; sh < sizeof l2_shapes / sizeof l2_shapes[0]; sh++) {
      const shape *s = &l2_shapes[sh];
      /* Thresholds near the lines' norms (a line of len values in [-1, 1) has a norm of about
         sqrt(len / 3)), so that some lines shrink to 0 or stay inside the ball and others not. */
      for (int axis = -1; axis < s->nd; axis++) {
        size_t outer, len, inner;
        split(s, axis, &outer, &len, &inner);
        double a = sqrt((double)len / 3) * (ref_is_complex(t) ? 1.4 : 1);
        check_l2(dev, OP_PROX_L2, t, s, axis, 0.8 * a, 0, seed++);
        check_l2(dev, OP_PROJ_L2, t, s, axis, a, 0, seed++);
        check_l2(dev, OP_SL1L2, t, s, axis, 0.2, 0.5 * a, seed++);
      }
    }
  }
}
END_TEST

/* Lines longer than llvmpipe's loops may run (65535 iterations), many of them: a work-item per
   line would lose their ends, so the norms come from ag_nrm2 there. */
START_TEST(lines_longer_than_a_loop_may_run_are_cut_among_work_items) {
  ag_device *dev = test_device(_i);
  const shape s = {2, {66000, 16}};
  check_l2(dev, OP_PROX_L2, AG_F32, &s, 0, 100, 0, 7);
  check_l2(dev, OP_SL1L2, AG_F32, &s, 0, 0.1, 50, 8);
}
END_TEST

START_TEST(prox_l1_matches_sporco_and_gives_0_at_complex_0) {
  ag_device *dev = test_device(_i);
  const size_t sh[3] = {3, 5, 7}, n = 105;
  for (size_t k = 0; k < sizeof all_dtypes / sizeof all_dtypes[0]; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *v = test_alloc(n * ref_size(t));
    ref_random(t, v, n, 50 + k, -1, 1);
    ref_put(t, v, 0, 0);
    ref_put(t, v, 1, 0.25); /* exactly at the threshold: 0 */
    ref_c want[105];
    long double scale[105];
    for (int alpha_k = 0; alpha_k < 2; alpha_k++) {
      double alpha = alpha_k == 0 ? 0.25 : 0; /* alpha 0: v itself, and 0 at 0 */
      for (size_t i = 0; i < n; i++) {
        want[i] = soft(ref_get(t, v, i), alpha, ref_is_complex(t));
        scale[i] = cabsl(ref_get(t, v, i));
      }
      ag_array *av = test_array_from(dev, t, 3, sh, v), *out = test_array_new(dev, t, 3, sh);
      CHECK_OK(ag_prox_l1(NULL, av, alpha, out));
      CHECK_OK(ag_prox_l1(NULL, av, alpha, av));
      for (int in_place = 0; in_place < 2; in_place++) {
        void *got = test_array_read(in_place ? av : out);
        ck_assert_msg(ref_get(t, got, 0) == 0, "%s: ag_prox_l1 of %s 0 at alpha %g gave %Lg%+Lgi", test_label(),
                      ref_name(t), alpha, creall(ref_get(t, got, 0)), cimagl(ref_get(t, got, 0)));
        /* |v| - alpha rounds relative to |v|, and a complex modulus adds an ulp or two. */
        ref_check(t, got, want, scale, n, single(t) ? (ref_tol){4e-7, 0} : (ref_tol){1e-15, 0},
                  "ag_prox_l1%s of %s at alpha %g", in_place ? " in place" : "", ref_name(t), alpha);
        free(got);
      }
      ag_array_free(av);
      ag_array_free(out);
    }
    free(v);
  }
}
END_TEST

/* A line of zeros has norm 0: prox_l2 gives 0 there (sporco's zdivide), proj_l2 the zeros. */
START_TEST(lines_of_zeros_give_zeros_not_nan) {
  ag_device *dev = test_device(_i);
  const size_t n = 9;
  for (size_t k = 0; k < sizeof all_dtypes / sizeof all_dtypes[0]; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *v = test_array_new(dev, t, 1, &n), *out = test_array_new(dev, t, 1, &n);
    CHECK_OK(ag_fill(NULL, v, 0));
    for (int op = 0; op < 3; op++)
      for (int axis = -1; axis < 1; axis++) {
        CHECK_OK(ag_fill(NULL, out, 5));
        CHECK_OK(run_l2((l2_op)op, v, op == OP_PROJ_L2 ? 0 : 1, 0, axis, out));
        test_check_all_equal(&out, 1, 0, l2_names[op]);
      }
    ag_array_free(v);
    ag_array_free(out);
  }
}
END_TEST

/* ---- finite differences -------------------------------------------------------------------- */

static void ref_grad(bool adjoint, ag_dtype t, const void *x, const shape *s, int axis, ref_c *want) {
  size_t outer, len, inner;
  split(s, axis, &outer, &len, &inner);
  for (size_t o = 0; o < outer; o++)
    for (size_t j = 0; j < len; j++)
      for (size_t k = 0; k < inner; k++) {
        size_t i = (o * len + j) * inner + k;
        ref_c here = ref_get(t, x, i);
        if (!adjoint)
          want[i] = j + 1 < len ? ref_get(t, x, i + inner) - here : 0;
        else if (len == 1)
          want[i] = 0;
        else if (j == 0)
          want[i] = -here;
        else if (j == len - 1)
          want[i] = ref_get(t, x, i - inner);
        else
          want[i] = ref_get(t, x, i - inner) - here;
      }
}

static const shape grad_shapes[] = {{3, {3, 5, 7}}, {1, {6}}, {1, {1}}, {2, {1, 4}}, {4, {2, 3, 1, 4}}, {1, {2}}};

START_TEST(grad_and_grad_t_match_sporco_and_are_adjoint) {
  ag_device *dev = test_device(_i);
  for (size_t k = 0; k < sizeof all_dtypes / sizeof all_dtypes[0]; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    ref_tol one_ulp = {single(t) ? FLT_EPSILON : DBL_EPSILON, 0};
    for (size_t sh = 0; sh < sizeof grad_shapes / sizeof grad_shapes[0]; sh++) {
      const shape *s = &grad_shapes[sh];
      size_t n = shape_size(s);
      void *x = test_alloc(n * ref_size(t)), *y = test_alloc(n * ref_size(t));
      ref_random(t, x, n, 300 + sh, -1, 1);
      ref_random(t, y, n, 400 + sh, -1, 1);
      ref_c *want = test_alloc(n * sizeof *want);
      ag_array *ax = test_array_from(dev, t, s->nd, s->d, x), *ay = test_array_from(dev, t, s->nd, s->d, y);
      ag_array *gx = test_array_new(dev, t, s->nd, s->d), *gy = test_array_new(dev, t, s->nd, s->d);
      for (int axis = 0; axis < s->nd; axis++) {
        CHECK_OK(ag_grad(NULL, ax, axis, gx));
        CHECK_OK(ag_grad_t(NULL, ay, axis, gy));
        void *got_x = test_array_read(gx), *got_y = test_array_read(gy);
        ref_grad(false, t, x, s, axis, want);
        ref_check(t, got_x, want, NULL, n, one_ulp, "ag_grad of %s, %d-D of %zu, axis %d", ref_name(t), s->nd, n, axis);
        ref_grad(true, t, y, s, axis, want);
        ref_check(t, got_y, want, NULL, n, one_ulp, "ag_grad_t of %s, %d-D of %zu, axis %d", ref_name(t), s->nd, n,
                  axis);
        /* <grad x, y> == <x, grad_t y>, to the rounding of the results: a few ulps of the sum of
           |terms|. */
        ref_c lhs = 0, rhs = 0;
        long double mag = 0;
        for (size_t i = 0; i < n; i++) {
          lhs += conjl(ref_get(t, got_x, i)) * ref_get(t, y, i);
          rhs += conjl(ref_get(t, x, i)) * ref_get(t, got_y, i);
          mag += cabsl(ref_get(t, got_x, i) * ref_get(t, y, i)) + cabsl(ref_get(t, x, i) * ref_get(t, got_y, i));
        }
        ck_assert_msg(cabsl(lhs - rhs) <= 4 * one_ulp.rel * mag, "%s: %s axis %d of %d-D: <grad x, y> = %Lg but "
                      "<x, grad_t y> = %Lg", test_label(), ref_name(t), axis, s->nd, creall(lhs), creall(rhs));
        free(got_x);
        free(got_y);
      }
      ag_array_free(ax);
      ag_array_free(ay);
      ag_array_free(gx);
      ag_array_free(gy);
      free(x);
      free(y);
      free(want);
    }
  }
}
END_TEST

/* ---- nuclear norm ----------------------------------------------------------------------------- */

/* The eigenvalues of the symmetric n x n matrix a (destroyed), descending, by cyclic Jacobi
   rotations: independent of LAPACK's SVD. */
static void jacobi_eigenvalues(int n, double *a, double *w) {
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++)
        off += a[p * n + q] * a[p * n + q];
    if (off < 1e-30)
      break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        if (a[p * n + q] == 0)
          continue;
        double theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
        double tt = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(tt * tt + 1), sn = tt * c;
        for (int r = 0; r < n; r++) { /* columns p and q */
          double arp = a[r * n + p], arq = a[r * n + q];
          a[r * n + p] = c * arp - sn * arq;
          a[r * n + q] = sn * arp + c * arq;
        }
        for (int r = 0; r < n; r++) { /* rows p and q */
          double apr = a[p * n + r], aqr = a[q * n + r];
          a[p * n + r] = c * apr - sn * aqr;
          a[q * n + r] = sn * apr + c * aqr;
        }
      }
  }
  for (int i = 0; i < n; i++)
    w[i] = a[i * n + i];
  for (int i = 0; i < n; i++) /* descending */
    for (int j = i + 1; j < n; j++)
      if (w[j] > w[i]) {
        double x = w[i];
        w[i] = w[j];
        w[j] = x;
      }
}

/* The eigenvalues of M^T M for the row-major m x n matrix M of dtype t (the squared singular
   values), descending, n of them. */
static void gram_eigenvalues(ag_dtype t, const void *mat, size_t m, size_t n, double *w) {
  double *g = test_alloc(n * n * sizeof *g);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double acc = 0;
      for (size_t r = 0; r < m; r++)
        acc += (double)creall(ref_get(t, mat, r * n + i)) * (double)creall(ref_get(t, mat, r * n + j));
      g[i * n + j] = acc;
    }
  jacobi_eigenvalues((int)n, g, w);
  free(g);
}

START_TEST(prox_nuclear_thresholds_the_singular_values) {
  ag_device *dev = test_device(_i);
  const size_t sizes[2][2] = {{6, 4}, {4, 6}};
  for (size_t k = 0; k < 2; k++) {
    ag_dtype t = real_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    double tol = t == AG_F32 ? 1e-5 : 1e-12;
    for (int z = 0; z < 2; z++) {
      size_t m = sizes[z][0], n = sizes[z][1], kk = m < n ? m : n, mn = m * n;
      /* Gram matrices of the smaller side, so that their eigenvalues are the min(m, n)
         squared singular values. */
      bool tall = m >= n;
      void *v = test_alloc(mn * ref_size(t)), *vt = test_alloc(mn * ref_size(t));
      ref_random(t, v, mn, 500 + (unsigned)z, -1, 1);
      for (size_t r = 0; r < m; r++)
        for (size_t c = 0; c < n; c++)
          ref_put(t, vt, c * m + r, ref_get(t, v, r * n + c));
      double s2[6], s[6], got_s2[6];
      gram_eigenvalues(t, tall ? v : vt, tall ? m : n, kk, s2);
      for (size_t i = 0; i < kk; i++)
        s[i] = sqrt(s2[i] > 0 ? s2[i] : 0);
      const size_t vs[2] = {m, n};
      ag_array *av = test_array_from(dev, t, 2, vs, v), *out = test_array_new(dev, t, 2, vs);
      ag_array *sv = test_array_new(dev, t, 1, &kk);
      const double alphas[3] = {0, 0.5 * s[kk / 2] + 0.5 * s[kk / 2 - 1], 2 * s[0]};
      for (int a = 0; a < 3; a++) {
        double alpha = alphas[a];
        CHECK_OK(ag_prox_nuclear(NULL, av, alpha, out, a == 2 ? NULL : sv));
        void *got = test_array_read(out), *got_sv = test_array_read(sv), *gt = test_alloc(mn * ref_size(t));
        double ss[6];
        for (size_t i = 0; i < kk; i++) {
          ss[i] = s[i] - alpha > 0 ? s[i] - alpha : 0;
          if (a != 2) /* sv is left as the call before wrote it */
            ck_assert_msg(fabs((double)creall(ref_get(t, got_sv, i)) - ss[i]) <= tol * s[0],
                          "%s: %s %zu x %zu, alpha %g: singular value %zu is %Lg, expected %g", test_label(),
                          ref_name(t), m, n, alpha, i, creall(ref_get(t, got_sv, i)), ss[i]);
        }
        /* out's squared singular values are the thresholded ones, and out shares v's singular
           vectors: <v - out, out> = sum (s - s') s'. */
        for (size_t r = 0; r < m; r++)
          for (size_t c = 0; c < n; c++)
            ref_put(t, gt, c * m + r, ref_get(t, got, r * n + c));
        gram_eigenvalues(t, tall ? got : gt, tall ? m : n, kk, got_s2);
        double cross = 0, want_cross = 0;
        for (size_t i = 0; i < mn; i++)
          cross += (double)creall((ref_get(t, v, i) - ref_get(t, got, i)) * ref_get(t, got, i));
        for (size_t i = 0; i < kk; i++) {
          ck_assert_msg(fabs(got_s2[i] - ss[i] * ss[i]) <= tol * s2[0],
                        "%s: %s %zu x %zu, alpha %g: out's squared singular value %zu is %g, expected %g",
                        test_label(), ref_name(t), m, n, alpha, i, got_s2[i], ss[i] * ss[i]);
          want_cross += (s[i] - ss[i]) * ss[i];
        }
        ck_assert_msg(fabs(cross - want_cross) <= tol * s2[0], "%s: %s %zu x %zu, alpha %g: <v - out, out> is %g, "
                      "expected %g", test_label(), ref_name(t), m, n, alpha, cross, want_cross);
        if (alpha == 0)
          for (size_t i = 0; i < mn; i++)
            ck_assert_msg(fabsl(creall(ref_get(t, got, i) - ref_get(t, v, i))) <= tol * s[0],
                          "%s: %s alpha 0: out[%zu] is %Lg, v[%zu] %Lg", test_label(), ref_name(t), i,
                          creall(ref_get(t, got, i)), i, creall(ref_get(t, v, i)));
        free(got);
        free(got_sv);
        free(gt);
      }
      /* In place. */
      CHECK_OK(ag_prox_nuclear(NULL, av, 2 * s[0], av, NULL));
      test_check_all_equal(&av, 1, 0, "ag_prox_nuclear above the largest singular value, in place");
      ag_array_free(av);
      ag_array_free(out);
      ag_array_free(sv);
      free(v);
      free(vt);
    }
  }
}
END_TEST

/* ---- metrics ------------------------------------------------------------------------------------ */

START_TEST(metrics_match_values_worked_out_by_hand) {
  ag_device *dev = test_device(_i);
  for (size_t k = 0; k < 2; k++) {
    ag_dtype t = real_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    /* ref {1, 2, 3, 4}, x {1, 2, 3, 6}: mse 4 / 4 = 1; var(ref) 1.25; range 3. */
    const double r4[4] = {1, 2, 3, 4}, x4[4] = {1, 2, 3, 6};
    unsigned char rb[32], xb[32];
    for (size_t i = 0; i < 4; i++) {
      ref_put(t, rb, i, r4[i]);
      ref_put(t, xb, i, x4[i]);
    }
    ag_array *ref = test_array_1d(dev, t, 4, rb), *x = test_array_1d(dev, t, 4, xb);
    double mse = 0, snr = 0, psnr = 0, psnr255 = 0, psnr_nan = 0;
    CHECK_OK(ag_metric_mse(NULL, ref, x, &mse));
    CHECK_OK(ag_snr(NULL, ref, x, &snr));
    CHECK_OK(ag_psnr(NULL, ref, x, 0, &psnr));
    CHECK_OK(ag_psnr(NULL, ref, x, NAN, &psnr_nan));
    CHECK_OK(ag_psnr(NULL, ref, x, 255, &psnr255));
    ck_assert_msg(mse == 1, "%s: %s mse is %.17g, expected 1", test_label(), ref_name(t), mse);
    ck_assert_msg(fabs(snr - 10 * log10(1.25)) < 1e-12, "%s: %s snr is %.17g", test_label(), ref_name(t), snr);
    ck_assert_msg(fabs(psnr - 10 * log10(9.0)) < 1e-12 && psnr_nan == psnr, "%s: %s psnr is %.17g (rng NaN: %.17g)",
                  test_label(), ref_name(t), psnr, psnr_nan);
    ck_assert_msg(fabs(psnr255 - 10 * log10(65025.0)) < 1e-12, "%s: %s psnr at 255 is %.17g", test_label(),
                  ref_name(t), psnr255);
    /* x == ref: snr and psnr are +Inf. */
    CHECK_OK(ag_snr(NULL, ref, ref, &snr));
    CHECK_OK(ag_psnr(NULL, ref, ref, 0, &psnr));
    ck_assert_msg(isinf(snr) && snr > 0 && isinf(psnr) && psnr > 0, "%s: snr and psnr of ref with itself are %g "
                  "and %g, expected +Inf", test_label(), snr, psnr);
    ag_array_free(ref);
    ag_array_free(x);

    /* sporco's own identities (its tests/test_metric.py), on 16 values whose mean, variance
       and range are exact: x of variance 1 against x + 1 has snr 0 dB; x of range 1 against
       x + 1 has psnr 0 dB; y = x but y[0] = 0 has mse x[0]^2 / 16. */
    const size_t n = 16;
    unsigned char vb[16 * 8], yb[16 * 8];
    for (size_t i = 0; i < n; i++) { /* 0 or 1 alternately: mean 1/2, variance 1/4, range 1 */
      ref_put(t, vb, i, (double)(i % 2));
      ref_put(t, yb, i, (double)(i % 2) + 1);
    }
    ag_array *a = test_array_1d(dev, t, n, vb), *b = test_array_1d(dev, t, n, yb);
    CHECK_OK(ag_psnr(NULL, a, b, 0, &psnr));
    ck_assert_msg(fabs(psnr) < 1e-12, "%s: %s psnr of x in [0, 1] against x + 1 is %g, expected 0", test_label(),
                  ref_name(t), psnr);
    CHECK_OK(ag_psnr(NULL, a, b, 1.0, &psnr));
    ck_assert_msg(fabs(psnr) < 1e-12, "%s: psnr at rng 1 is %g, expected 0", test_label(), psnr);
    for (size_t i = 0; i < n; i++) { /* -1 or 1: variance 1 */
      ref_put(t, vb, i, i % 2 ? 1.0 : -1.0);
      ref_put(t, yb, i, (i % 2 ? 1.0 : -1.0) + 1);
    }
    ag_array_free(a);
    ag_array_free(b);
    a = test_array_1d(dev, t, n, vb);
    b = test_array_1d(dev, t, n, yb);
    CHECK_OK(ag_snr(NULL, a, b, &snr));
    ck_assert_msg(fabs(snr) < 1e-12, "%s: %s snr of x of variance 1 against x + 1 is %g, expected 0", test_label(),
                  ref_name(t), snr);
    /* y = x but y[0] = 0: mse x[0]^2 / 16 = 1 / 16. */
    ag_array_free(b);
    memcpy(yb, vb, n * ref_size(t));
    ref_put(t, yb, 0, 0);
    ag_array *c = test_array_1d(dev, t, n, yb);
    CHECK_OK(ag_metric_mse(NULL, a, c, &mse));
    ck_assert_msg(mse == 1.0 / 16, "%s: %s mse with one element of -1 zeroed is %g, expected 1/16", test_label(),
                  ref_name(t), mse);
    ag_array_free(a);
    ag_array_free(c);
  }
}
END_TEST

/* A long double reference over many elements (several parts, and beyond llvmpipe's loop limit),
   one with a large common offset: a variance from plain single-precision sums of squares would
   keep no correct digit of it. */
START_TEST(metrics_of_many_values_match_the_reference) {
  ag_device *dev = test_device(_i);
  const size_t n = 100003;
  for (size_t k = 0; k < 2; k++) {
    ag_dtype t = real_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int offset = 0; offset < 2; offset++) {
      void *r = test_alloc(n * ref_size(t)), *x = test_alloc(n * ref_size(t)), *noise = test_alloc(n * ref_size(t));
      ref_random(t, r, n, 700 + (unsigned)offset, offset ? 999 : 0, offset ? 1001 : 1);
      ref_random(t, noise, n, 800, -0.01, 0.01);
      for (size_t i = 0; i < n; i++)
        ref_put(t, x, i, ref_get(t, r, i) + ref_get(t, noise, i));
      long double se = 0, mean = 0, var = 0, lo = INFINITY, hi = -INFINITY;
      for (size_t i = 0; i < n; i++) {
        long double ri = creall(ref_get(t, r, i)), d = ri - creall(ref_get(t, x, i));
        se += d * d;
        mean += ri;
        lo = ri < lo ? ri : lo;
        hi = ri > hi ? ri : hi;
      }
      mean /= n;
      for (size_t i = 0; i < n; i++) {
        long double d = creall(ref_get(t, r, i)) - mean;
        var += d * d;
      }
      long double want_mse = se / n, want_snr = 10 * log10l(var / se), want_psnr = 10 * log10l((hi - lo) * (hi - lo) / want_mse);
      ag_array *ar = test_array_1d(dev, t, n, r), *ax = test_array_1d(dev, t, n, x);
      double mse, snr, psnr;
      CHECK_OK(ag_metric_mse(NULL, ar, ax, &mse));
      CHECK_OK(ag_snr(NULL, ar, ax, &snr));
      CHECK_OK(ag_psnr(NULL, ar, ax, -1, &psnr));
      /* Relative 1e-6 (f32: compensated sums, one rounding of each difference) and 1e-12; in
         decibels 10 log10 turns a relative error e into 4.3 e. */
      double rel = t == AG_F32 ? 1e-6 : 1e-12;
      ck_assert_msg(fabsl(mse - want_mse) <= rel * want_mse, "%s: %s mse is %.10g, expected %.10Lg", test_label(),
                    ref_name(t), mse, want_mse);
      ck_assert_msg(fabsl(snr - want_snr) <= 5 * rel, "%s: %s snr (offset %d) is %.10g, expected %.10Lg",
                    test_label(), ref_name(t), offset, snr, want_snr);
      ck_assert_msg(fabsl(psnr - want_psnr) <= 5 * rel, "%s: %s psnr is %.10g, expected %.10Lg", test_label(),
                    ref_name(t), psnr, want_psnr);
      ag_array_free(ar);
      ag_array_free(ax);
      free(r);
      free(x);
      free(noise);
    }
  }
}
END_TEST

/* ---- refusals ---------------------------------------------------------------------------------- */

START_TEST(bad_input_is_refused_naming_the_function_and_the_argument) {
  ag_device *dev = test_device(_i);
  const size_t s3[3] = {3, 4, 5}, s2[2] = {3, 4}, s1 = 3, n0 = 0;
  ag_array *v = test_array_new(dev, AG_F32, 3, s3), *out = test_array_new(dev, AG_F32, 3, s3);
  ag_array *small = test_array_new(dev, AG_F32, 2, s2), *iv = test_array_new(dev, AG_I32, 3, s3);
  ag_array *dv = test_array_new(dev, AG_F64, 3, s3), *cv = test_array_new(dev, AG_C64, 2, s2);
  ag_array *m = test_array_new(dev, AG_F32, 2, s2), *mo = test_array_new(dev, AG_F32, 2, s2);
  ag_array *sv = test_array_new(dev, AG_F32, 1, &s1), *e = test_array_new(dev, AG_F32, 1, &n0);
  CHECK_OK(ag_fill(NULL, v, 1));
  CHECK_OK(ag_fill(NULL, out, 7));
  CHECK_OK(ag_fill(NULL, m, 1));
  double d = 0;

  CHECK_FAILS(ag_prox_l1(NULL, v, -1, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_l1", "alpha");
  CHECK_FAILS(ag_prox_l1(NULL, v, NAN, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_l1", "alpha");
  CHECK_FAILS(ag_prox_l1(NULL, iv, 1, iv), AG_ERR_UNSUPPORTED, "ag_prox_l1", "i32");
  CHECK_FAILS(ag_prox_l1(NULL, v, 1, small), AG_ERR_MISMATCH, "ag_prox_l1", "out");
  CHECK_FAILS(ag_prox_l1(NULL, v, 1, dv), AG_ERR_MISMATCH, "ag_prox_l1", "out");
  CHECK_FAILS(ag_prox_l2(NULL, v, -0.5, 0, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_l2", "alpha");
  CHECK_FAILS(ag_prox_l2(NULL, v, 1, 3, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_l2", "axis");
  CHECK_FAILS(ag_prox_l2(NULL, v, 1, -2, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_l2", "axis");
  CHECK_FAILS(ag_prox_l2(NULL, v, 1, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_l2", "out");
  CHECK_FAILS(ag_prox_l2(NULL, iv, 1, 0, out), AG_ERR_UNSUPPORTED, "ag_prox_l2", "v");
  CHECK_FAILS(ag_proj_l2(NULL, v, NAN, 0, out), AG_ERR_INVALID_ARGUMENT, "ag_proj_l2", "gamma");
  CHECK_FAILS(ag_proj_l2(NULL, v, 1, 0, small), AG_ERR_MISMATCH, "ag_proj_l2", "out");
  CHECK_FAILS(ag_prox_sl1l2(NULL, v, -1, 1, 0, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_sl1l2", "alpha");
  CHECK_FAILS(ag_prox_sl1l2(NULL, v, 1, -1, 0, out), AG_ERR_INVALID_ARGUMENT, "ag_prox_sl1l2", "beta");
  CHECK_FAILS(ag_prox_sl1l2(NULL, v, 1, 1, 0, dv), AG_ERR_MISMATCH, "ag_prox_sl1l2", "out");

  CHECK_FAILS(ag_prox_nuclear(NULL, cv, 1, cv, NULL), AG_ERR_UNSUPPORTED, "ag_prox_nuclear", "c64");
  CHECK_FAILS(ag_prox_nuclear(NULL, v, 1, out, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_nuclear", "v");
  CHECK_FAILS(ag_prox_nuclear(NULL, m, -1, mo, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_nuclear", "alpha");
  CHECK_FAILS(ag_prox_nuclear(NULL, m, 1, mo, v), AG_ERR_MISMATCH, "ag_prox_nuclear", "sv");
  CHECK_FAILS(ag_prox_nuclear(NULL, m, 1, out, NULL), AG_ERR_MISMATCH, "ag_prox_nuclear", "out");
  CHECK_OK(ag_fill(NULL, mo, 7));
  CHECK_OK(ag_fill(NULL, sv, 7));
  CHECK_OK(ag_fill(NULL, small, NAN));
  CHECK_FAILS(ag_prox_nuclear(NULL, small, 1, mo, sv), AG_ERR_INVALID_ARGUMENT, "ag_prox_nuclear", "NaN");
  ag_array *untouched[2] = {mo, sv};
  test_check_all_equal(untouched, 2, 7, "ag_prox_nuclear of a matrix holding NaN");

  CHECK_FAILS(ag_grad(NULL, v, 0, v), AG_ERR_INVALID_ARGUMENT, "ag_grad", "out");
  CHECK_FAILS(ag_grad_t(NULL, v, 0, v), AG_ERR_INVALID_ARGUMENT, "ag_grad_t", "out");
  CHECK_FAILS(ag_grad(NULL, v, AG_AXIS_ALL, out), AG_ERR_INVALID_ARGUMENT, "ag_grad", "axis");
  CHECK_FAILS(ag_grad_t(NULL, v, 3, out), AG_ERR_INVALID_ARGUMENT, "ag_grad_t", "axis");
  CHECK_FAILS(ag_grad(NULL, iv, 0, out), AG_ERR_UNSUPPORTED, "ag_grad", "x");
  CHECK_FAILS(ag_grad(NULL, v, 0, small), AG_ERR_MISMATCH, "ag_grad", "out");

  CHECK_FAILS(ag_metric_mse(NULL, v, out, NULL), AG_ERR_INVALID_ARGUMENT, "ag_metric_mse", "out");
  CHECK_FAILS(ag_metric_mse(NULL, v, small, &d), AG_ERR_MISMATCH, "ag_metric_mse", "x");
  CHECK_FAILS(ag_snr(NULL, v, dv, &d), AG_ERR_MISMATCH, "ag_snr", "x");
  CHECK_FAILS(ag_snr(NULL, cv, cv, &d), AG_ERR_UNSUPPORTED, "ag_snr", "c64");
  CHECK_FAILS(ag_psnr(NULL, e, e, 1, &d), AG_ERR_INVALID_ARGUMENT, "ag_psnr", "ref");
  CHECK_FAILS(ag_psnr(NULL, iv, iv, 1, &d), AG_ERR_UNSUPPORTED, "ag_psnr", "ref");

  test_check_all_equal(&out, 1, 7, "a refused operation");
  /* Empty arrays: nothing to do. */
  CHECK_OK(ag_prox_l2(NULL, e, 1, 0, e));
  CHECK_OK(ag_grad(NULL, e, 0, e));

  ag_array *all[10] = {v, out, small, iv, dv, cv, m, mo, sv, e};
  for (int i = 0; i < 10; i++)
    ag_array_free(all[i]);
}
END_TEST

START_TEST(operands_and_queues_of_another_device_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "operands on two devices");
  if (other == NULL)
    return;
  const size_t s2[2] = {3, 4};
  ag_array *v = test_array_new(dev, AG_F32, 2, s2), *out = test_array_new(dev, AG_F32, 2, s2);
  ag_array *fo = test_array_new(other, AG_F32, 2, s2);
  CHECK_OK(ag_fill(NULL, v, 1));
  CHECK_OK(ag_fill(NULL, out, 7));
  CHECK_OK(ag_fill(NULL, fo, 7));
  double d;
  CHECK_FAILS(ag_prox_l1(NULL, v, 1, fo), AG_ERR_MISMATCH, "ag_prox_l1", "out");
  CHECK_FAILS(ag_prox_l2(NULL, v, 1, 0, fo), AG_ERR_MISMATCH, "ag_prox_l2", "out");
  CHECK_FAILS(ag_proj_l2(NULL, v, 1, 1, fo), AG_ERR_MISMATCH, "ag_proj_l2", "out");
  CHECK_FAILS(ag_prox_sl1l2(NULL, v, 1, 1, 0, fo), AG_ERR_MISMATCH, "ag_prox_sl1l2", "out");
  CHECK_FAILS(ag_prox_nuclear(NULL, v, 1, fo, NULL), AG_ERR_MISMATCH, "ag_prox_nuclear", "out");
  CHECK_FAILS(ag_grad(NULL, v, 0, fo), AG_ERR_MISMATCH, "ag_grad", "out");
  CHECK_FAILS(ag_grad_t(NULL, v, 0, fo), AG_ERR_MISMATCH, "ag_grad_t", "out");
  CHECK_FAILS(ag_metric_mse(NULL, v, fo, &d), AG_ERR_MISMATCH, "ag_metric_mse", "x");
  ag_queue *oq = NULL;
  CHECK_OK(ag_queue_create(other, &oq));
  CHECK_FAILS(ag_prox_l2(oq, v, 1, 0, out), AG_ERR_MISMATCH, "ag_prox_l2", "queue");
  CHECK_FAILS(ag_prox_nuclear(oq, v, 1, out, NULL), AG_ERR_MISMATCH, "ag_prox_nuclear", "queue");
  CHECK_FAILS(ag_grad(oq, v, 0, out), AG_ERR_MISMATCH, "ag_grad", "queue");
  CHECK_FAILS(ag_snr(oq, v, v, &d), AG_ERR_MISMATCH, "ag_snr", "queue");
  ag_queue_destroy(oq);
  ag_array *outs[2] = {out, fo};
  test_check_all_equal(outs, 2, 7, "an operation refused for another device's operand or queue");
  ag_array_free(v);
  ag_array_free(out);
  ag_array_free(fo);
}
END_TEST

/* Nothing here needs a device: NULL arrays are refused before any. */
START_TEST(null_arrays_are_refused) {
  double d;
  CHECK_FAILS(ag_prox_l1(NULL, NULL, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_l1", "v");
  CHECK_FAILS(ag_prox_l2(NULL, NULL, 1, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_l2", "v");
  CHECK_FAILS(ag_proj_l2(NULL, NULL, 1, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_proj_l2", "v");
  CHECK_FAILS(ag_prox_sl1l2(NULL, NULL, 1, 1, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_sl1l2", "v");
  CHECK_FAILS(ag_prox_nuclear(NULL, NULL, 1, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_prox_nuclear", "v");
  CHECK_FAILS(ag_grad(NULL, NULL, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_grad", "x");
  CHECK_FAILS(ag_grad_t(NULL, NULL, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_grad_t", "x");
  CHECK_FAILS(ag_metric_mse(NULL, NULL, NULL, &d), AG_ERR_INVALID_ARGUMENT, "ag_metric_mse", "ref");
  CHECK_FAILS(ag_snr(NULL, NULL, NULL, &d), AG_ERR_INVALID_ARGUMENT, "ag_snr", "ref");
  CHECK_FAILS(ag_psnr(NULL, NULL, NULL, 0, &d), AG_ERR_INVALID_ARGUMENT, "ag_psnr", "ref");
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "null arrays are refused", null_arrays_are_refused);
    return;
  }
  add_device_test(s, "l2 operators match sporco along every axis", l2_operators_match_sporco_along_every_axis);
  add_device_test(s, "lines longer than a loop may run are cut among work-items",
                  lines_longer_than_a_loop_may_run_are_cut_among_work_items);
  add_device_test(s, "prox_l1 matches sporco and gives 0 at complex 0", prox_l1_matches_sporco_and_gives_0_at_complex_0);
  add_device_test(s, "lines of zeros give zeros, not NaN", lines_of_zeros_give_zeros_not_nan);
  add_device_test(s, "grad and grad_t match sporco and are adjoint", grad_and_grad_t_match_sporco_and_are_adjoint);
  add_device_test(s, "prox_nuclear thresholds the singular values", prox_nuclear_thresholds_the_singular_values);
  add_device_test(s, "metrics match values worked out by hand", metrics_match_values_worked_out_by_hand);
  add_device_test(s, "metrics of many values match the reference", metrics_of_many_values_match_the_reference);
  add_device_test(s, "bad input is refused naming the function and the argument",
                  bad_input_is_refused_naming_the_function_and_the_argument);
  add_device_test(s, "operands and queues of another device are refused",
                  operands_and_queues_of_another_device_are_refused);
}
