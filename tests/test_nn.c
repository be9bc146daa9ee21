/* tests/test_nn.c - activations, softmax, the dense layers' losses, dense layers, Glorot's
   initialisation and the batch stream (learn.h) on every device: against double references
   on the host, central finite differences (f64), PyTorch 1.13's autograd (tests/torch_nn.py,
   skipped without torch), and the stream's contract (each sample once per epoch, the rows'
   contents, reproducible shuffles); refused input.

   Inputs are drawn on the float32 grid, so f32 and f64 runs and the references see the same
   values. Tolerances, per dtype: f64 to 1e-13 relative (a few roundings of double math; the
   OpenCL and glibc libms differ by an ulp or two), f32 to 4e-6 relative (OpenCL allows exp,
   log and tanh 3 to 5 ulp, 6e-7, and a value goes through two or three of them), each widened
   where a result is a difference of larger terms, as said at the check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "python.h"
#include "solvers_common.h"

/* ---- helpers ------------------------------------------------------------------------------- */

/* Deterministic doubles in [lo, hi), rounded to float so that f32 holds them exactly. */
static void fill_uniform(double *v, size_t n, double lo, double hi, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    double u = (double)(s >> 11) * 0x1.0p-53;
    v[i] = (double)(float)(lo + (hi - lo) * u);
  }
}

/* The relative tolerance of dtype @p t (see the top). */
static double rtol_of(ag_dtype t) { return t == AG_F64 ? 1e-13 : 4e-6; }

/* got[i] within atol + rtol |ref[i]| of ref[i] for every i; prints the worst. */
static void check_close(const char *what, const double *got, const double *ref, size_t n, double rtol, double atol) {
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(got[i] - ref[i]), lim = atol + rtol * fabs(ref[i]);
    bool same = got[i] == ref[i] || (isnan(got[i]) && isnan(ref[i]));
    ck_assert_msg(same || e <= lim, "%s: %s: element %zu is %.17g, the reference %.17g (tolerance %.3g)", test_label(),
                  what, i, got[i], ref[i], lim);
    if (!same && lim > 0)
      worst = fmax(worst, e / lim);
  }
  printf("%s: %s: %zu values, worst at %.2g of the tolerance\n", test_label(), what, n, worst);
}

/* The largest |v[i]|. */
static double max_abs(const double *v, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++)
    m = fmax(m, fabs(v[i]));
  return m;
}

/* A scalar on the device, read back. */
static double scalar_of(const ag_array *a) {
  double *v = sv_download(a);
  double r = v[0];
  free(v);
  return r;
}

static ag_array *scalar_array(ag_device *dev, ag_dtype t, double v) {
  return sv_upload(dev, t, 1, (size_t[]){1}, &v);
}

static const char *act_name[] = {"identity", "sigmoid", "softplus", "relu", "tanh", "exp", "log"};

/* f(x) in double. */
static double ref_f(int act, double x) {
  switch (act) {
  case AG_ACT_SIGMOID:
    return 1 / (1 + exp(-x));
  case AG_ACT_SOFTPLUS:
    return x > 20 ? x : log1p(exp(x));
  case AG_ACT_RELU:
    return x < 0 ? 0 : x;
  case AG_ACT_TANH:
    return tanh(x);
  case AG_ACT_EXP:
    return exp(x);
  case AG_ACT_LOG:
    return log(x);
  }
  return x;
}

/* dy f'(x) from y = f(x), as learn.h states each derivative. */
static double ref_grad(int act, double y, double dy) {
  switch (act) {
  case AG_ACT_SIGMOID:
    return dy * (y * (1 - y));
  case AG_ACT_SOFTPLUS:
    return dy * (y > 20.000000002061153 ? 1 : -expm1(-y));
  case AG_ACT_RELU:
    return y <= 0 ? 0 : dy;
  case AG_ACT_TANH:
    return dy * (1 - y * y);
  case AG_ACT_EXP:
    return dy * y;
  case AG_ACT_LOG:
    return dy * exp(-y);
  }
  return dy;
}

/* Inputs for activation @p act: [-8, 8) with 0, the softplus threshold and beyond it, or
   (0.01, 10) for log. */
static void act_inputs(int act, double *x, size_t n, uint64_t seed) {
  if (act == AG_ACT_LOG) {
    fill_uniform(x, n, 0.01, 10, seed);
    return;
  }
  fill_uniform(x, n, -8, 8, seed);
  static const double special[] = {0, -0.5, 0.5, 19.5, 20, 20.5, 25, -25, 30, -30};
  for (size_t i = 0; i < sizeof special / sizeof special[0] && i < n; i++)
    x[i] = special[i];
}

/* ---- activations ------------------------------------------------------------------------------- */

/* y = f(x) against f in double; dx = dy f'(y) against learn.h's formula in double on the
   device's y. The gradients' tolerance adds 2 ulp of |dy| (f'(y) such as 1 - y^2 is a
   difference near 1, whose rounding is of 1's size); in place (y = x, dx = dy) gives the same
   values. */
START_TEST(activations_and_their_gradients_match_a_double_reference) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  enum { N = 1031 };
  static double x[N], dy[N], ref[N];
  for (int ti = 0; ti < nt; ti++) {
    ag_dtype t = ts[ti];
    double ulp = t == AG_F64 ? 0x1.0p-52 : 0x1.0p-23;
    for (int act = 0; act <= AG_ACT_LOG; act++) {
      act_inputs(act, x, N, 11 + act);
      fill_uniform(dy, N, -2, 2, 99 + act);
      ag_array *xa = sv_upload(dev, t, 1, (size_t[]){N}, x), *ya = NULL, *da = sv_upload(dev, t, 1, (size_t[]){N}, dy),
               *dxa = NULL;
      CHECK_OK(ag_array_create(dev, t, 1, (size_t[]){N}, &ya));
      CHECK_OK(ag_array_create(dev, t, 1, (size_t[]){N}, &dxa));
      CHECK_OK(ag_activate(NULL, (ag_activation)act, xa, ya));
      double *y = sv_download(ya);
      for (size_t i = 0; i < N; i++)
        ref[i] = ref_f(act, x[i]);
      char what[96];
      snprintf(what, sizeof what, "%s %s", act_name[act], ag_dtype_name(t));
      check_close(what, y, ref, N, rtol_of(t), 0);
      CHECK_OK(ag_activate_grad(NULL, (ag_activation)act, ya, da, dxa));
      double *dx = sv_download(dxa);
      double worst = 0;
      for (size_t i = 0; i < N; i++) {
        double r = ref_grad(act, y[i], dy[i]), lim = rtol_of(t) * fabs(r) + 2 * ulp * fabs(dy[i]);
        ck_assert_msg(dx[i] == r || fabs(dx[i] - r) <= lim, "%s: %s gradient: element %zu (y %.9g, dy %.9g) is %.17g, "
                      "the reference %.17g", test_label(), what, i, y[i], dy[i], dx[i], r);
        worst = lim > 0 ? fmax(worst, fabs(dx[i] - r) / lim) : worst;
      }
      printf("%s: %s gradient: worst at %.2g of the tolerance\n", test_label(), what, worst);
      /* in place */
      CHECK_OK(ag_activate_grad(NULL, (ag_activation)act, ya, da, da));
      CHECK_OK(ag_activate(NULL, (ag_activation)act, xa, xa));
      double *y2 = sv_download(xa), *dx2 = sv_download(da);
      ck_assert_msg(memcmp(y2, y, sizeof x) == 0 && memcmp(dx2, dx, sizeof x) == 0, "%s: %s in place differs",
                    test_label(), what);
      free(y), free(dx), free(y2), free(dx2);
      ag_array_free(xa), ag_array_free(ya), ag_array_free(da), ag_array_free(dxa);
    }
  }
}
END_TEST

/* PyTorch's edge values: relu's derivative is 0 at 0 and relu keeps NaN; softplus is x above
   20 with derivative 1; sigmoid saturates to 0 and 1 without NaN. */
START_TEST(activations_keep_pytorchs_edge_values) {
  ag_device *dev = test_device(_i);
  double x[] = {0, NAN, 21, -100, 100, -0.0};
  ag_array *xa = sv_upload(dev, AG_F32, 1, (size_t[]){6}, x), *ya = NULL, *ones = NULL;
  CHECK_OK(ag_array_create(dev, AG_F32, 1, (size_t[]){6}, &ya));
  CHECK_OK(ag_array_create(dev, AG_F32, 1, (size_t[]){6}, &ones));
  CHECK_OK(ag_fill(NULL, ones, 1.0));
  CHECK_OK(ag_activate(NULL, AG_ACT_RELU, xa, ya));
  double *y = sv_download(ya);
  ck_assert(y[0] == 0 && isnan(y[1]) && y[2] == 21 && y[3] == 0 && y[4] == 100);
  CHECK_OK(ag_activate_grad(NULL, AG_ACT_RELU, ya, ones, ya));
  free(y), y = sv_download(ya);
  ck_assert_msg(y[0] == 0 && y[1] == 1 && y[2] == 1 && y[3] == 0 && y[5] == 0, "%s: relu' %g %g %g %g", test_label(),
                y[0], y[1], y[2], y[3]);
  CHECK_OK(ag_activate(NULL, AG_ACT_SOFTPLUS, xa, ya));
  free(y), y = sv_download(ya);
  ck_assert(y[2] == 21 && y[4] == 100 && y[3] >= 0 && y[3] < 1e-40 && fabs(y[0] - log(2.0)) < 1e-7);
  CHECK_OK(ag_activate_grad(NULL, AG_ACT_SOFTPLUS, ya, ones, ya));
  free(y), y = sv_download(ya);
  ck_assert(y[2] == 1 && y[4] == 1 && y[3] >= 0 && y[3] < 1e-40 && fabs(y[0] - 0.5) < 1e-7);
  CHECK_OK(ag_activate(NULL, AG_ACT_SIGMOID, xa, ya));
  free(y), y = sv_download(ya);
  ck_assert(y[3] >= 0 && y[3] < 1e-40 && y[4] == 1 && y[0] == 0.5);
  free(y);
  ag_array_free(xa), ag_array_free(ya), ag_array_free(ones);
}
END_TEST

/* On f64 devices: dy f'(y) for dy = 1 against (f(x + h) - f(x - h)) / 2h of the device's own
   f, h = 1e-5: truncation h^2 f''' / 6 and rounding 1e-16 |f| / h, both below 1e-9 for these
   x, so 1e-7 (1 + |f'|) is a bound with room. x in [-3, 3] away from relu's kink, and 25
   (softplus above its threshold). */
START_TEST(activation_gradients_match_central_differences) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    printf("%s: not run: finite differences need f64, which the device lacks\n", test_label());
    return;
  }
  enum { N = 64 };
  double x[N], xp[N], xm[N], h = 1e-5;
  for (int act = 0; act <= AG_ACT_LOG; act++) {
    fill_uniform(x, N, act == AG_ACT_LOG ? 0.2 : -3, 3, 5 + act);
    for (size_t i = 0; i < N; i++) {
      if (fabs(x[i]) < 0.05)
        x[i] = 0.5;
      xp[i] = x[i] + h, xm[i] = x[i] - h;
    }
    if (act != AG_ACT_LOG)
      x[0] = 25, xp[0] = 25 + h, xm[0] = 25 - h;
    size_t shape[] = {N};
    ag_array *a = sv_upload(dev, AG_F64, 1, shape, x), *ap = sv_upload(dev, AG_F64, 1, shape, xp),
             *am = sv_upload(dev, AG_F64, 1, shape, xm), *ones = NULL;
    CHECK_OK(ag_array_create(dev, AG_F64, 1, shape, &ones));
    CHECK_OK(ag_fill(NULL, ones, 1.0));
    CHECK_OK(ag_activate(NULL, (ag_activation)act, a, a));
    CHECK_OK(ag_activate(NULL, (ag_activation)act, ap, ap));
    CHECK_OK(ag_activate(NULL, (ag_activation)act, am, am));
    CHECK_OK(ag_activate_grad(NULL, (ag_activation)act, a, ones, ones));
    double *g = sv_download(ones), *fp = sv_download(ap), *fm = sv_download(am), fd[N];
    for (size_t i = 0; i < N; i++)
      fd[i] = (fp[i] - fm[i]) / (2 * h);
    char what[64];
    snprintf(what, sizeof what, "%s' against central differences", act_name[act]);
    check_close(what, g, fd, N, 1e-7, 1e-7);
    free(g), free(fp), free(fm);
    ag_array_free(a), ag_array_free(ap), ag_array_free(am), ag_array_free(ones);
  }
}
END_TEST

/* ---- softmax ------------------------------------------------------------------------------------- */

/* Softmax or log-softmax of @p x [n0][n1][n2] along @p axis, in double with the max
   subtracted. */
static void ref_softmax(const double *x, const size_t *shape, int axis, bool is_log, double *y) {
  size_t outer = 1, inner = 1, len = shape[axis];
  for (int d = 0; d < axis; d++)
    outer *= shape[d];
  for (int d = axis + 1; d < 3; d++)
    inner *= shape[d];
  for (size_t o = 0; o < outer; o++)
    for (size_t k = 0; k < inner; k++) {
      const double *a = x + o * len * inner + k;
      double m = -INFINITY, s = 0;
      for (size_t j = 0; j < len; j++)
        m = fmax(m, a[j * inner]);
      for (size_t j = 0; j < len; j++)
        s += exp(a[j * inner] - m);
      for (size_t j = 0; j < len; j++) {
        size_t at = o * len * inner + k + j * inner;
        y[at] = is_log ? x[at] - m - log(s) : exp(x[at] - m) / s;
      }
    }
}

/* learn.h's gradient formulas from the output y, in double. */
static void ref_softmax_grad(const double *y, const double *dy, const size_t *shape, int axis, bool is_log,
                             double *dx) {
  size_t outer = 1, inner = 1, len = shape[axis];
  for (int d = 0; d < axis; d++)
    outer *= shape[d];
  for (int d = axis + 1; d < 3; d++)
    inner *= shape[d];
  for (size_t o = 0; o < outer; o++)
    for (size_t k = 0; k < inner; k++) {
      size_t at = o * len * inner + k;
      double s = 0;
      for (size_t j = 0; j < len; j++)
        s += is_log ? dy[at + j * inner] : dy[at + j * inner] * y[at + j * inner];
      for (size_t j = 0; j < len; j++) {
        size_t i = at + j * inner;
        dx[i] = is_log ? dy[i] - exp(y[i]) * s : y[i] * (dy[i] - s);
      }
    }
}

typedef ag_status (*softmax_fn)(ag_queue *, const ag_array *, int, ag_array *);
typedef ag_status (*softmax_grad_fn)(ag_queue *, const ag_array *, const ag_array *, int, ag_array *);

/* Along each axis of x [3][5][4], whose first plane is shifted by 800 (exp would overflow
   without the max subtracted): y against the double reference and dx against the formula on
   the device's y; normwise (each error against the largest value of the array), since the
   gradients are differences of terms of the size of dy. */
START_TEST(softmax_and_logsoftmax_match_a_double_reference_along_every_axis) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  size_t shape[3] = {3, 5, 4};
  enum { N = 60 };
  double x[N], dy[N], ref[N], refd[N];
  fill_uniform(x, N, -4, 4, 3);
  fill_uniform(dy, N, -1, 1, 4);
  for (size_t i = 0; i < 20; i++)
    x[i] = (double)(float)(x[i] + 800);
  for (int ti = 0; ti < nt; ti++) {
    ag_dtype t = ts[ti];
    for (int axis = 0; axis < 3; axis++)
      for (int lg = 0; lg < 2; lg++) {
        softmax_fn f = lg ? ag_logsoftmax : ag_softmax;
        softmax_grad_fn g = lg ? ag_logsoftmax_grad : ag_softmax_grad;
        ag_array *xa = sv_upload(dev, t, 3, shape, x), *da = sv_upload(dev, t, 3, shape, dy), *ya = NULL, *dxa = NULL;
        CHECK_OK(ag_array_create(dev, t, 3, shape, &ya));
        CHECK_OK(ag_array_create(dev, t, 3, shape, &dxa));
        CHECK_OK(f(NULL, xa, axis, ya));
        double *y = sv_download(ya);
        ref_softmax(x, shape, axis, lg, ref);
        char what[96];
        snprintf(what, sizeof what, "%s along axis %d, %s", lg ? "logsoftmax" : "softmax", axis, ag_dtype_name(t));
        /* log-softmax values reach -800: their rounding is of |x|'s size */
        check_close(what, y, ref, N, rtol_of(t), lg ? rtol_of(t) * 810 : rtol_of(t) * max_abs(ref, N));
        CHECK_OK(g(NULL, ya, da, axis, dxa));
        double *dx = sv_download(dxa);
        ref_softmax_grad(y, dy, shape, axis, lg, refd);
        snprintf(what, sizeof what, "%s gradient along axis %d, %s", lg ? "logsoftmax" : "softmax", axis,
                 ag_dtype_name(t));
        check_close(what, dx, refd, N, rtol_of(t), 4 * rtol_of(t) * max_abs(dy, N));
        /* in place: y over x, dx over dy */
        CHECK_OK(f(NULL, xa, axis, xa));
        CHECK_OK(g(NULL, ya, da, axis, da));
        double *y2 = sv_download(xa), *dx2 = sv_download(da);
        ck_assert_msg(memcmp(y, y2, sizeof x) == 0 && memcmp(dx, dx2, sizeof x) == 0, "%s: %s in place differs",
                      test_label(), what);
        free(y), free(dx), free(y2), free(dx2);
        ag_array_free(xa), ag_array_free(da), ag_array_free(ya), ag_array_free(dxa);
      }
  }
}
END_TEST

/* sum(w * f(x)) on the device, for f softmax or log-softmax along axis. */
static double softmax_objective(ag_device *dev, const double *x, const double *w, const size_t *shape, size_t n,
                                int axis, bool lg) {
  ag_array *xa = sv_upload(dev, AG_F64, 3, shape, x);
  CHECK_OK((lg ? ag_logsoftmax : ag_softmax)(NULL, xa, axis, xa));
  double *y = sv_download(xa), s = 0;
  for (size_t i = 0; i < n; i++)
    s += w[i] * y[i];
  free(y);
  ag_array_free(xa);
  return s;
}

/* On f64 devices: the gradients of sum(w * softmax(x)) and sum(w * logsoftmax(x)) along each
   axis of [2][3][2], dx = f_grad(y, w), against central differences of the device's forward
   (h 1e-5: errors below 1e-9, bound 1e-7). */
START_TEST(softmax_gradients_match_central_differences) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    printf("%s: not run: finite differences need f64, which the device lacks\n", test_label());
    return;
  }
  size_t shape[3] = {2, 3, 2};
  enum { N = 12 };
  double x[N], w[N], fd[N], h = 1e-5;
  fill_uniform(x, N, -2, 2, 21);
  fill_uniform(w, N, -1, 1, 22);
  for (int axis = 0; axis < 3; axis++)
    for (int lg = 0; lg < 2; lg++) {
      for (size_t i = 0; i < N; i++) {
        double v = x[i];
        x[i] = v + h;
        double fp = softmax_objective(dev, x, w, shape, N, axis, lg);
        x[i] = v - h;
        double fm = softmax_objective(dev, x, w, shape, N, axis, lg);
        x[i] = v;
        fd[i] = (fp - fm) / (2 * h);
      }
      ag_array *xa = sv_upload(dev, AG_F64, 3, shape, x), *wa = sv_upload(dev, AG_F64, 3, shape, w);
      CHECK_OK((lg ? ag_logsoftmax : ag_softmax)(NULL, xa, axis, xa));
      CHECK_OK((lg ? ag_logsoftmax_grad : ag_softmax_grad)(NULL, xa, wa, axis, wa));
      double *g = sv_download(wa);
      char what[80];
      snprintf(what, sizeof what, "%s gradient along axis %d against central differences", lg ? "logsoftmax" : "softmax",
               axis);
      check_close(what, g, fd, N, 1e-7, 1e-7);
      free(g);
      ag_array_free(xa), ag_array_free(wa);
    }
}
END_TEST

/* ---- losses ---------------------------------------------------------------------------------------- */

typedef ag_status (*loss_fn)(ag_queue *, const ag_array *, const ag_array *, double, ag_array *, ag_array *, unsigned);

/* The mean squared error and its gradient in double. */
static double ref_mse(const double *yhat, const double *y, size_t n, double *grad) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double d = yhat[i] - y[i];
    s += d * d;
    grad[i] = 2 * d / (double)n;
  }
  return s / (double)n;
}

/* Flux.logitcrossentropy of logits [b][c] and its gradient in double. */
static double ref_lce(const double *l, const double *y, size_t b, size_t c, double *grad) {
  double total = 0;
  for (size_t i = 0; i < b; i++) {
    const double *r = l + i * c, *t = y + i * c;
    double m = -INFINITY, s = 0, sy = 0;
    for (size_t j = 0; j < c; j++)
      m = fmax(m, r[j]);
    for (size_t j = 0; j < c; j++)
      s += exp(r[j] - m), sy += t[j];
    for (size_t j = 0; j < c; j++) {
      total -= t[j] * (r[j] - m - log(s));
      grad[i * c + j] = (exp(r[j] - m) / s * sy - t[j]) / (double)b;
    }
  }
  return total / (double)b;
}

/* One loss's inputs: yhat or logits [4][5] in [-3, 3), and y: for mse values in [-1, 1), for
   the cross-entropy one-hot rows (0 and 2) and probability rows (1 and 3). */
typedef struct loss_case {
  const char *name;
  loss_fn fn;
  bool lce;
  double x[20], y[20];
} loss_case;

static void loss_case_init(loss_case *c, bool lce) {
  c->name = lce ? "logitcrossentropy" : "mse";
  c->fn = lce ? ag_loss_logitcrossentropy : ag_loss_mse;
  c->lce = lce;
  fill_uniform(c->x, 20, -3, 3, lce ? 31 : 32);
  fill_uniform(c->y, 20, lce ? 0 : -1, 1, lce ? 33 : 34);
  if (lce)
    for (size_t i = 0; i < 4; i++) {
      double s = 0;
      for (size_t j = 0; j < 5; j++)
        s += c->y[i * 5 + j];
      for (size_t j = 0; j < 5; j++)
        c->y[i * 5 + j] = i % 2 == 0 ? (j == (i + 1) % 5 ? 1.0 : 0.0) : (double)(float)(c->y[i * 5 + j] / s);
    }
}

static double ref_loss(const loss_case *c, const double *x, double *grad) {
  return c->lce ? ref_lce(x, c->y, 4, 5, grad) : ref_mse(x, c->y, 20, grad);
}

/* The loss and gradient against the double reference; scale 0.5; AG_LOSS_ACCUMULATE onto
   given values (loss 1.5, grad g0) with scale -2; loss only; gradient only. f32's loss is a
   sum of 20 terms rounded once each: 4e-6 relative with room. */
START_TEST(losses_match_a_double_reference_with_scale_accumulate_and_either_output) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  size_t shape[2] = {4, 5};
  for (int lc = 0; lc < 2; lc++) {
    loss_case c;
    loss_case_init(&c, lc == 1);
    double g[20], g0[20], want[20];
    double l = ref_loss(&c, c.x, g);
    fill_uniform(g0, 20, -1, 1, 77);
    for (int ti = 0; ti < nt; ti++) {
      ag_dtype t = ts[ti];
      double rt = rtol_of(t), at = rt * max_abs(g, 20);
      ag_array *xa = sv_upload(dev, t, 2, shape, c.x), *ya = sv_upload(dev, t, 2, shape, c.y);
      ag_array *la = scalar_array(dev, t, NAN), *ga = sv_upload(dev, t, 2, shape, g0);
      char what[96];
      /* plain, over a NaN loss and a gradient of other values */
      CHECK_OK(c.fn(NULL, xa, ya, 1.0, la, ga, 0));
      double *gd = sv_download(ga), lv = scalar_of(la);
      snprintf(what, sizeof what, "%s %s loss", c.name, ag_dtype_name(t));
      check_close(what, &lv, &l, 1, rt, 0);
      snprintf(what, sizeof what, "%s %s gradient", c.name, ag_dtype_name(t));
      check_close(what, gd, g, 20, rt, at);
      free(gd);
      /* scale */
      CHECK_OK(c.fn(NULL, xa, ya, 0.5, la, ga, 0));
      gd = sv_download(ga), lv = scalar_of(la);
      double hl = 0.5 * l;
      for (size_t i = 0; i < 20; i++)
        want[i] = 0.5 * g[i];
      snprintf(what, sizeof what, "%s %s loss, scale 0.5", c.name, ag_dtype_name(t));
      check_close(what, &lv, &hl, 1, rt, 0);
      check_close(what, gd, want, 20, rt, at);
      free(gd);
      /* accumulate with scale -2 onto 1.5 and g0 */
      ag_array_free(la), ag_array_free(ga);
      la = scalar_array(dev, t, 1.5), ga = sv_upload(dev, t, 2, shape, g0);
      CHECK_OK(c.fn(NULL, xa, ya, -2.0, la, ga, AG_LOSS_ACCUMULATE));
      gd = sv_download(ga), lv = scalar_of(la);
      double al = 1.5 - 2 * l;
      for (size_t i = 0; i < 20; i++)
        want[i] = g0[i] - 2 * g[i];
      snprintf(what, sizeof what, "%s %s, accumulated with scale -2", c.name, ag_dtype_name(t));
      check_close(what, &lv, &al, 1, rt, rt * 2 * l);
      check_close(what, gd, want, 20, rt, 3 * at);
      free(gd);
      /* loss only: the gradient array is not touched; gradient only: the loss is not */
      ag_array_free(ga);
      ga = sv_upload(dev, t, 2, shape, g0);
      CHECK_OK(c.fn(NULL, xa, ya, 1.0, la, NULL, 0));
      lv = scalar_of(la);
      snprintf(what, sizeof what, "%s %s, loss only", c.name, ag_dtype_name(t));
      check_close(what, &lv, &l, 1, rt, 0);
      CHECK_OK(ag_fill(NULL, la, 7.0));
      CHECK_OK(c.fn(NULL, xa, ya, 1.0, NULL, ga, 0));
      gd = sv_download(ga);
      snprintf(what, sizeof what, "%s %s, gradient only", c.name, ag_dtype_name(t));
      check_close(what, gd, g, 20, rt, at);
      ck_assert_double_eq(scalar_of(la), 7.0);
      free(gd);
      ag_array_free(xa), ag_array_free(ya), ag_array_free(la), ag_array_free(ga);
    }
  }
}
END_TEST

/* On f64 devices: each gradient against central differences of the device's own loss
   (h 1e-5; bound 1e-8 (1 + |g|), the loss being smooth and of order 1). */
START_TEST(loss_gradients_match_central_differences) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    printf("%s: not run: finite differences need f64, which the device lacks\n", test_label());
    return;
  }
  size_t shape[2] = {4, 5};
  double h = 1e-5;
  for (int lc = 0; lc < 2; lc++) {
    loss_case c;
    loss_case_init(&c, lc == 1);
    ag_array *ya = sv_upload(dev, AG_F64, 2, shape, c.y), *la = scalar_array(dev, AG_F64, 0);
    double fd[20];
    for (size_t i = 0; i < 20; i++) {
      double v = c.x[i], f[2];
      for (int s = 0; s < 2; s++) {
        c.x[i] = v + (s ? -h : h);
        ag_array *xa = sv_upload(dev, AG_F64, 2, shape, c.x);
        CHECK_OK(c.fn(NULL, xa, ya, 1.0, la, NULL, 0));
        f[s] = scalar_of(la);
        ag_array_free(xa);
      }
      c.x[i] = v;
      fd[i] = (f[0] - f[1]) / (2 * h);
    }
    ag_array *xa = sv_upload(dev, AG_F64, 2, shape, c.x), *ga = NULL;
    CHECK_OK(ag_array_create(dev, AG_F64, 2, shape, &ga));
    CHECK_OK(c.fn(NULL, xa, ya, 1.0, NULL, ga, 0));
    double *g = sv_download(ga);
    char what[80];
    snprintf(what, sizeof what, "%s gradient against central differences", c.name);
    check_close(what, g, fd, 20, 1e-8, 1e-8);
    free(g);
    ag_array_free(xa), ag_array_free(ya), ag_array_free(la), ag_array_free(ga);
  }
}
END_TEST

/* ---- dense layers ---------------------------------------------------------------------------------- */

enum { DB = 3, DIN = 4, DOUT = 5 };

/* A dense layer's inputs: x [3][4], w [5][4], b [5], dy [3][5]. */
typedef struct dense_case {
  double x[DB * DIN], w[DOUT * DIN], b[DOUT], dy[DB * DOUT];
} dense_case;

static void dense_case_init(dense_case *c) {
  fill_uniform(c->x, DB * DIN, -1, 1, 41);
  fill_uniform(c->w, DOUT * DIN, -1, 1, 42);
  fill_uniform(c->b, DOUT, -0.5, 0.5, 43);
  fill_uniform(c->dy, DB * DOUT, -1, 1, 44);
}

/* y = act(x w^T + b) and its gradients in double. */
static void ref_dense(const dense_case *c, int act, bool bias, double *y, double *dx, double *dw, double *db) {
  double dz[DB * DOUT];
  for (size_t i = 0; i < DB; i++)
    for (size_t o = 0; o < DOUT; o++) {
      double s = bias ? c->b[o] : 0;
      for (size_t k = 0; k < DIN; k++)
        s += c->x[i * DIN + k] * c->w[o * DIN + k];
      y[i * DOUT + o] = ref_f(act, s);
      dz[i * DOUT + o] = ref_grad(act, y[i * DOUT + o], c->dy[i * DOUT + o]);
    }
  for (size_t o = 0; o < DOUT; o++) {
    db[o] = 0;
    for (size_t i = 0; i < DB; i++)
      db[o] += dz[i * DOUT + o];
    for (size_t k = 0; k < DIN; k++) {
      dw[o * DIN + k] = 0;
      for (size_t i = 0; i < DB; i++)
        dw[o * DIN + k] += dz[i * DOUT + o] * c->x[i * DIN + k];
    }
  }
  for (size_t i = 0; i < DB; i++)
    for (size_t k = 0; k < DIN; k++) {
      dx[i * DIN + k] = 0;
      for (size_t o = 0; o < DOUT; o++)
        dx[i * DIN + k] += dz[i * DOUT + o] * c->w[o * DIN + k];
    }
}

/* The device's dense layer: y, and the gradients asked for (NULL: not asked). */
static void run_dense(ag_device *dev, ag_dtype t, const dense_case *c, int act, bool bias, double **y, double **dx,
                      double **dw, double **db) {
  ag_array *xa = sv_upload(dev, t, 2, (size_t[]){DB, DIN}, c->x), *wa = sv_upload(dev, t, 2, (size_t[]){DOUT, DIN}, c->w);
  ag_array *ba = sv_upload(dev, t, 1, (size_t[]){DOUT}, c->b), *dya = sv_upload(dev, t, 2, (size_t[]){DB, DOUT}, c->dy);
  ag_array *ya = NULL, *dxa = NULL, *dwa = NULL, *dba = NULL;
  CHECK_OK(ag_array_create(dev, t, 2, (size_t[]){DB, DOUT}, &ya));
  CHECK_OK(ag_dense_forward(NULL, xa, wa, bias ? ba : NULL, (ag_activation)act, ya));
  if (dx != NULL)
    CHECK_OK(ag_array_create(dev, t, 2, (size_t[]){DB, DIN}, &dxa));
  if (dw != NULL)
    CHECK_OK(ag_array_create(dev, t, 2, (size_t[]){DOUT, DIN}, &dwa));
  if (db != NULL)
    CHECK_OK(ag_array_create(dev, t, 1, (size_t[]){DOUT}, &dba));
  if (dx != NULL || dw != NULL || db != NULL)
    CHECK_OK(ag_dense_backward(NULL, xa, wa, (ag_activation)act, ya, dya, dxa, dwa, dba));
  *y = sv_download(ya);
  if (dx != NULL)
    *dx = sv_download(dxa);
  if (dw != NULL)
    *dw = sv_download(dwa);
  if (db != NULL)
    *db = sv_download(dba);
  ag_array *all[] = {xa, wa, ba, dya, ya, dxa, dwa, dba};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    ag_array_free(all[i]);
}

/* Forward and backward for activations 0 to 5, with and without bias, against the double
   reference (normwise: sums of 3 to 5 products), and each gradient asked for alone giving the
   same values. */
START_TEST(dense_layers_match_a_double_reference) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  dense_case c;
  dense_case_init(&c);
  for (int ti = 0; ti < nt; ti++) {
    ag_dtype t = ts[ti];
    double rt = rtol_of(t) * 4;
    for (int act = 0; act <= AG_ACT_EXP; act++)
      for (int bias = 0; bias < 2; bias++) {
        double ry[DB * DOUT], rdx[DB * DIN], rdw[DOUT * DIN], rdb[DOUT];
        ref_dense(&c, act, bias, ry, rdx, rdw, rdb);
        double *y, *dx, *dw, *db;
        run_dense(dev, t, &c, act, bias, &y, &dx, &dw, &db);
        char what[96];
        snprintf(what, sizeof what, "dense %s%s %s: y", act_name[act], bias ? " with bias" : "", ag_dtype_name(t));
        check_close(what, y, ry, DB * DOUT, rt, rt * max_abs(ry, DB * DOUT));
        snprintf(what, sizeof what, "dense %s%s %s: dx", act_name[act], bias ? " with bias" : "", ag_dtype_name(t));
        check_close(what, dx, rdx, DB * DIN, rt, rt * 4 * max_abs(rdx, DB * DIN));
        snprintf(what, sizeof what, "dense %s%s %s: dw", act_name[act], bias ? " with bias" : "", ag_dtype_name(t));
        check_close(what, dw, rdw, DOUT * DIN, rt, rt * 4 * max_abs(rdw, DOUT * DIN));
        snprintf(what, sizeof what, "dense %s%s %s: db", act_name[act], bias ? " with bias" : "", ag_dtype_name(t));
        check_close(what, db, rdb, DOUT, rt, rt * 4 * max_abs(rdb, DOUT));
        if (act == AG_ACT_TANH && bias) {
          double *y1, *g1;
          run_dense(dev, t, &c, act, bias, &y1, &g1, NULL, NULL);
          ck_assert(memcmp(g1, dx, sizeof rdx) == 0);
          free(y1), free(g1);
          run_dense(dev, t, &c, act, bias, &y1, NULL, &g1, NULL);
          ck_assert(memcmp(g1, dw, sizeof rdw) == 0);
          free(y1), free(g1);
          run_dense(dev, t, &c, act, bias, &y1, NULL, NULL, &g1);
          ck_assert(memcmp(g1, db, sizeof rdb) == 0);
          free(y1), free(g1);
        }
        free(y), free(dx), free(dw), free(db);
      }
  }
}
END_TEST

/* sum(dy * dense(x, w, b)) on the device. */
static double dense_objective(ag_device *dev, const dense_case *c, int act) {
  double *y;
  run_dense(dev, AG_F64, c, act, true, &y, NULL, NULL, NULL);
  double s = 0;
  for (size_t i = 0; i < DB * DOUT; i++)
    s += c->dy[i] * y[i];
  free(y);
  return s;
}

/* On f64 devices: dx, dw and db against central differences of the device's forward pass
   (h 1e-5; bound 1e-7 (1 + |g|)), for sigmoid, softplus and tanh (smooth everywhere). */
START_TEST(dense_gradients_match_central_differences) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    printf("%s: not run: finite differences need f64, which the device lacks\n", test_label());
    return;
  }
  static const int acts[] = {AG_ACT_SIGMOID, AG_ACT_SOFTPLUS, AG_ACT_TANH};
  double h = 1e-5;
  for (size_t a = 0; a < 3; a++) {
    dense_case c;
    dense_case_init(&c);
    double *y, *dx, *dw, *db;
    run_dense(dev, AG_F64, &c, acts[a], true, &y, &dx, &dw, &db);
    double *params[3] = {c.x, c.w, c.b}, *grads[3] = {dx, dw, db};
    size_t counts[3] = {DB * DIN, DOUT * DIN, DOUT};
    const char *names[3] = {"dx", "dw", "db"};
    for (int p = 0; p < 3; p++) {
      double fd[DOUT * DIN];
      for (size_t i = 0; i < counts[p]; i++) {
        double v = params[p][i];
        params[p][i] = v + h;
        double fp = dense_objective(dev, &c, acts[a]);
        params[p][i] = v - h;
        double fm = dense_objective(dev, &c, acts[a]);
        params[p][i] = v;
        fd[i] = (fp - fm) / (2 * h);
      }
      char what[80];
      snprintf(what, sizeof what, "dense %s %s against central differences", act_name[acts[a]], names[p]);
      check_close(what, grads[p], fd, counts[p], 1e-7, 1e-7);
    }
    free(y), free(dx), free(dw), free(db);
  }
}
END_TEST

/* ---- PyTorch ----------------------------------------------------------------------------------------- */

static void write_npy(const char *dir, const char *name, int ndim, const size_t *shape, const double *v) {
  char path[800], err[800];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  ck_assert_msg(npy_write(path, NPY_F8, ndim, shape, v, err, sizeof err), "%s", err);
}

/* tests/torch_nn.py's result @p name, of @p n values. */
static double *read_npy(const char *dir, const char *name, size_t n) {
  char path[800], err[800];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  npy_array a;
  ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s", err);
  ck_assert_msg(a.dtype == NPY_F8 && a.count == n, "%s: %zu values, expected %zu", path, a.count, n);
  return a.data;
}

/* Everything against PyTorch 1.13's autograd on the same inputs, in each dtype: activations
   (y and dx = autograd's gradient, from x), softmax and log-softmax along each axis,
   torch.nn.MSELoss, Flux's logitcrossentropy written in torch, and torch.nn.Linear followed by
   each activation. PyTorch computes in float64; tolerances as in the double-reference tests,
   normwise (against the array's largest value) where a result is a difference of larger
   terms, and for f32 activation gradients also 2 ulp of f' times |dy| (the device's gradient
   starts from its rounded y, PyTorch's from x). */
START_TEST(nn_matches_pytorch_autograd) {
  ag_device *dev = test_device(_i);
  const char *dir = test_tmp_dir("nn");
  enum { NA = 257 };
  double ax[NA], axp[NA], ady[NA];
  act_inputs(0, ax, NA, 51);
  act_inputs(AG_ACT_LOG, axp, NA, 52);
  fill_uniform(ady, NA, -2, 2, 53);
  write_npy(dir, "act_x", 1, (size_t[]){NA}, ax);
  write_npy(dir, "act_xpos", 1, (size_t[]){NA}, axp);
  write_npy(dir, "act_dy", 1, (size_t[]){NA}, ady);
  size_t sshape[3] = {3, 5, 4};
  double sx[60], sdy[60];
  fill_uniform(sx, 60, -4, 4, 54);
  fill_uniform(sdy, 60, -1, 1, 55);
  write_npy(dir, "sm_x", 3, sshape, sx);
  write_npy(dir, "sm_dy", 3, sshape, sdy);
  loss_case lm, lx;
  loss_case_init(&lm, false);
  loss_case_init(&lx, true);
  size_t lshape[2] = {4, 5};
  write_npy(dir, "mse_yhat", 2, lshape, lm.x);
  write_npy(dir, "mse_y", 2, lshape, lm.y);
  write_npy(dir, "lce_logits", 2, lshape, lx.x);
  write_npy(dir, "lce_y", 2, lshape, lx.y);
  dense_case dc;
  dense_case_init(&dc);
  write_npy(dir, "dn_x", 2, (size_t[]){DB, DIN}, dc.x);
  write_npy(dir, "dn_w", 2, (size_t[]){DOUT, DIN}, dc.w);
  write_npy(dir, "dn_b", 1, (size_t[]){DOUT}, dc.b);
  write_npy(dir, "dn_dy", 2, (size_t[]){DB, DOUT}, dc.dy);
  char script[600], out[8192];
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  snprintf(script, sizeof script, "%s/torch_nn.py", src && *src ? src : "tests");
  char *args[] = {"python3", script, (char *)dir, NULL};
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", test_label(), script, rc, out);

  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  for (int ti = 0; ti < nt; ti++) {
    ag_dtype t = ts[ti];
    double rt = rtol_of(t), ulp = t == AG_F64 ? 0x1.0p-52 : 0x1.0p-23;
    char what[96], name[32];
    for (int act = 0; act <= AG_ACT_LOG; act++) {
      const double *xv = act == AG_ACT_LOG ? axp : ax;
      ag_array *xa = sv_upload(dev, t, 1, (size_t[]){NA}, xv), *da = sv_upload(dev, t, 1, (size_t[]){NA}, ady);
      CHECK_OK(ag_activate(NULL, (ag_activation)act, xa, xa));
      CHECK_OK(ag_activate_grad(NULL, (ag_activation)act, xa, da, da));
      double *y = sv_download(xa), *dx = sv_download(da);
      snprintf(name, sizeof name, "act%d_y", act);
      double *ry = read_npy(dir, name, NA);
      snprintf(name, sizeof name, "act%d_dx", act);
      double *rdx = read_npy(dir, name, NA);
      snprintf(what, sizeof what, "%s %s against torch", act_name[act], ag_dtype_name(t));
      check_close(what, y, ry, NA, rt, 0);
      /* f'(y) from the rounded y: |f''| |dy| times y's rounding; f'' is at most |f|-sized here */
      double worst = 0;
      for (size_t i = 0; i < NA; i++) {
        double lim = rt * fabs(rdx[i]) + 4 * ulp * fabs(ady[i]) * fmax(1, fabs(ry[i]));
        ck_assert_msg(dx[i] == rdx[i] || fabs(dx[i] - rdx[i]) <= lim, "%s: %s gradient: element %zu (x %.9g) is %.17g, "
                      "torch %.17g", test_label(), what, i, xv[i], dx[i], rdx[i]);
        worst = fmax(worst, lim > 0 ? fabs(dx[i] - rdx[i]) / lim : 0);
      }
      printf("%s: %s gradient: worst at %.2g of the tolerance\n", test_label(), what, worst);
      free(y), free(dx), free(ry), free(rdx);
      ag_array_free(xa), ag_array_free(da);
    }
    for (int axis = 0; axis < 3; axis++)
      for (int lg = 0; lg < 2; lg++) {
        ag_array *xa = sv_upload(dev, t, 3, sshape, sx), *da = sv_upload(dev, t, 3, sshape, sdy);
        CHECK_OK((lg ? ag_logsoftmax : ag_softmax)(NULL, xa, axis, xa));
        CHECK_OK((lg ? ag_logsoftmax_grad : ag_softmax_grad)(NULL, xa, da, axis, da));
        double *y = sv_download(xa), *dx = sv_download(da);
        snprintf(name, sizeof name, "%s%d_y", lg ? "lsm" : "sm", axis);
        double *ry = read_npy(dir, name, 60);
        snprintf(name, sizeof name, "%s%d_dx", lg ? "lsm" : "sm", axis);
        double *rdx = read_npy(dir, name, 60);
        snprintf(what, sizeof what, "%s along axis %d, %s, against torch", lg ? "logsoftmax" : "softmax", axis,
                 ag_dtype_name(t));
        check_close(what, y, ry, 60, rt, rt * max_abs(ry, 60));
        check_close(what, dx, rdx, 60, rt, 4 * rt * max_abs(sdy, 60));
        free(y), free(dx), free(ry), free(rdx);
        ag_array_free(xa), ag_array_free(da);
      }
    for (int lc = 0; lc < 2; lc++) {
      loss_case *c = lc ? &lx : &lm;
      ag_array *xa = sv_upload(dev, t, 2, lshape, c->x), *ya = sv_upload(dev, t, 2, lshape, c->y);
      ag_array *la = scalar_array(dev, t, 0), *ga = NULL;
      CHECK_OK(ag_array_create(dev, t, 2, lshape, &ga));
      CHECK_OK(c->fn(NULL, xa, ya, 1.0, la, ga, 0));
      double lv = scalar_of(la), *g = sv_download(ga);
      snprintf(name, sizeof name, "%s_loss", lc ? "lce" : "mse");
      double *rl = read_npy(dir, name, 1);
      snprintf(name, sizeof name, "%s_grad", lc ? "lce" : "mse");
      double *rg = read_npy(dir, name, 20);
      snprintf(what, sizeof what, "%s %s against torch", c->name, ag_dtype_name(t));
      check_close(what, &lv, rl, 1, rt, 0);
      check_close(what, g, rg, 20, rt, rt * max_abs(rg, 20));
      free(g), free(rl), free(rg);
      ag_array_free(xa), ag_array_free(ya), ag_array_free(la), ag_array_free(ga);
    }
    for (int act = 0; act <= AG_ACT_EXP; act++) {
      double *y, *dx, *dw, *db;
      run_dense(dev, t, &dc, act, true, &y, &dx, &dw, &db);
      double *got[4] = {y, dx, dw, db};
      size_t counts[4] = {DB * DOUT, DB * DIN, DOUT * DIN, DOUT};
      const char *part[4] = {"y", "dx", "dw", "db"};
      for (int p = 0; p < 4; p++) {
        snprintf(name, sizeof name, "dn%d_%s", act, part[p]);
        double *r = read_npy(dir, name, counts[p]);
        snprintf(what, sizeof what, "dense %s %s, %s, against torch", act_name[act], part[p], ag_dtype_name(t));
        check_close(what, got[p], r, counts[p], 4 * rt, 16 * rt * max_abs(r, counts[p]));
        free(r), free(got[p]);
      }
    }
  }
}
END_TEST

/* ---- Glorot ------------------------------------------------------------------------------------------ */

/* w [300][200] for seed 7: every value within s = sqrt(6 / 500); mean 0 and variance s^2 / 3
   within 5 standard errors (sigma / sqrt(n) and sqrt(4 / 45) s^2 / sqrt(n) for a uniform);
   the same bytes as the host device's draw, and as a second draw of the seed; f32 the
   rounding of f64's values; another seed gives other values. */
START_TEST(glorot_uniform_is_bounded_centred_and_the_same_on_every_device) {
  ag_device *dev = test_device(_i), *host = NULL;
  CHECK_OK(ag_device_get(0, &host));
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  size_t shape[2] = {300, 200}, n = 60000;
  double s = sqrt(6.0 / 500.0);
  double *f64 = NULL;
  for (int ti = 0; ti < nt; ti++) {
    ag_dtype t = ts[ti];
    ag_array *w = NULL, *h = NULL, *w2 = NULL;
    CHECK_OK(ag_array_create(dev, t, 2, shape, &w));
    CHECK_OK(ag_array_create(dev, t, 2, shape, &w2));
    CHECK_OK(ag_array_create(host, t, 2, shape, &h));
    CHECK_OK(ag_glorot_uniform(NULL, w, 7));
    CHECK_OK(ag_glorot_uniform(NULL, h, 7));
    double *v = sv_download(w), *hv = sv_download(h);
    ck_assert_msg(memcmp(v, hv, n * sizeof *v) == 0, "%s: glorot %s differs from the host's", test_label(),
                  ag_dtype_name(t));
    double bound = t == AG_F32 ? (double)(float)s : s, mean = 0, var = 0;
    for (size_t i = 0; i < n; i++) {
      ck_assert_msg(fabs(v[i]) <= bound, "%s: glorot value %zu is %g, beyond %g", test_label(), i, v[i], bound);
      mean += v[i];
    }
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
      var += (v[i] - mean) * (v[i] - mean);
    var /= (double)(n - 1);
    double se_mean = s / sqrt(3.0) / sqrt((double)n), se_var = sqrt(4.0 / 45.0) * s * s / sqrt((double)n);
    printf("%s: glorot %s: mean %.3g (%.2g standard errors), variance %.6g against %.6g (%.2g standard errors)\n",
           test_label(), ag_dtype_name(t), mean, mean / se_mean, var, s * s / 3, (var - s * s / 3) / se_var);
    ck_assert(fabs(mean) <= 5 * se_mean && fabs(var - s * s / 3) <= 5 * se_var);
    if (t == AG_F64)
      f64 = sv_download(w);
    else if (f64 != NULL)
      for (size_t i = 0; i < n; i++)
        ck_assert(v[i] == (double)(float)f64[i]);
    /* reproducible, and another seed draws other values */
    CHECK_OK(ag_glorot_uniform(NULL, w2, 7));
    double *v2 = sv_download(w2);
    ck_assert(memcmp(v, v2, n * sizeof *v) == 0);
    free(v2);
    CHECK_OK(ag_glorot_uniform(NULL, w2, 8));
    v2 = sv_download(w2);
    size_t same = 0;
    for (size_t i = 0; i < n; i++)
      same += v[i] == v2[i];
    ck_assert_msg(same < 10, "%s: seeds 7 and 8 share %zu of %zu values", test_label(), same, n);
    free(v), free(hv), free(v2);
    ag_array_free(w), ag_array_free(w2), ag_array_free(h);
  }
  free(f64);
}
END_TEST

/* ---- batch stream ------------------------------------------------------------------------------------ */

enum { SN = 103, SROW = 5, SBATCH = 16 };

/* x [103][5] f32 with x[i][j] = 10 i + j, y [103] i32 with y[i] = i. */
static void stream_data(float *x, int32_t *y) {
  for (int i = 0; i < SN; i++) {
    y[i] = i;
    for (int j = 0; j < SROW; j++)
      x[i * SROW + j] = (float)(10 * i + j);
  }
}

/* One epoch of @p s: each batch copied on the default queue (work that must follow the batch's
   transfer), read back and checked against the host rows; the samples' order goes to
   @p order. Then the 0-count call. */
static void stream_epoch(ag_device *dev, ag_batch_stream *s, const float *x, int32_t *order) {
  size_t seen = 0, k = 0;
  bool hit[SN] = {false};
  for (;; k++) {
    ag_array *bx = NULL, *by = NULL;
    size_t count = 99;
    CHECK_OK(ag_batch_stream_next(s, NULL, &bx, &by, &count));
    if (count == 0) {
      ck_assert_ptr_null(bx);
      ck_assert_ptr_null(by);
      break;
    }
    size_t want = k < SN / SBATCH ? SBATCH : SN % SBATCH;
    ck_assert_msg(count == want, "%s: batch %zu has %zu samples, expected %zu", test_label(), k, count, want);
    ck_assert(ag_array_ndim(bx) == 2 && ag_array_dim(bx, 0) == count && ag_array_dim(bx, 1) == SROW);
    ck_assert(ag_array_ndim(by) == 2 && ag_array_dim(by, 0) == count && ag_array_dim(by, 1) == 1);
    ag_array *cx = NULL, *cy = NULL;
    CHECK_OK(ag_array_create(dev, AG_F32, 2, (size_t[]){count, SROW}, &cx));
    CHECK_OK(ag_array_create(dev, AG_I32, 2, (size_t[]){count, 1}, &cy));
    CHECK_OK(ag_copy(NULL, bx, cx));
    CHECK_OK(ag_copy(NULL, by, cy));
    float gx[SBATCH * SROW];
    int32_t gy[SBATCH];
    CHECK_OK(ag_array_to_host(cx, gx, sizeof gx));
    CHECK_OK(ag_array_to_host(cy, gy, sizeof gy));
    for (size_t r = 0; r < count; r++) {
      int32_t id = gy[r];
      ck_assert_msg(id >= 0 && id < SN && !hit[id], "%s: batch %zu row %zu: sample %d twice or out of range",
                    test_label(), k, r, id);
      hit[id] = true;
      order[seen++] = id;
      ck_assert_msg(memcmp(gx + r * SROW, x + id * SROW, SROW * sizeof(float)) == 0,
                    "%s: batch %zu row %zu: x differs from sample %d's row", test_label(), k, r, id);
    }
    ag_array_free(cx), ag_array_free(cy);
  }
  ck_assert_msg(seen == SN && k == (SN + SBATCH - 1) / SBATCH, "%s: an epoch gave %zu samples in %zu batches",
                test_label(), seen, k);
}

/* 103 samples in batches of 16 (6 full, one of 7): every sample once per epoch with its own
   rows, seed 0 in the data's order, a seed's epochs in orders that differ from each other and
   from another seed's, the same orders from a second stream of the seed; a stream destroyed
   with a copy in flight. */
START_TEST(batch_stream_gives_every_sample_once_per_epoch_in_a_reproducible_order) {
  ag_device *dev = test_device(_i);
  static float x[SN * SROW];
  static int32_t y[SN];
  stream_data(x, y);
  int32_t o[3][SN], again[SN], other[SN];
  ag_batch_stream *s = NULL;
  CHECK_OK(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, SBATCH, 0, &s));
  for (int e = 0; e < 2; e++) {
    stream_epoch(dev, s, x, o[0]);
    for (int i = 0; i < SN; i++)
      ck_assert_msg(o[0][i] == i, "%s: seed 0, epoch %d: position %d holds sample %d", test_label(), e, i, o[0][i]);
  }
  ag_batch_stream_destroy(s);
  CHECK_OK(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, SBATCH, 42, &s));
  for (int e = 0; e < 3; e++)
    stream_epoch(dev, s, x, o[e]);
  ag_batch_stream_destroy(s);
  ck_assert(memcmp(o[0], o[1], sizeof o[0]) != 0 && memcmp(o[1], o[2], sizeof o[0]) != 0);
  int moved = 0;
  for (int i = 0; i < SN; i++)
    moved += o[0][i] != i;
  ck_assert_msg(moved > SN / 2, "%s: seed 42 moved only %d samples", test_label(), moved);
  CHECK_OK(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, SBATCH, 42, &s));
  stream_epoch(dev, s, x, again);
  ck_assert(memcmp(again, o[0], sizeof again) == 0);
  stream_epoch(dev, s, x, again);
  ck_assert(memcmp(again, o[1], sizeof again) == 0);
  ag_batch_stream_destroy(s);
  CHECK_OK(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, SBATCH, 43, &s));
  stream_epoch(dev, s, x, other);
  ck_assert(memcmp(other, o[0], sizeof other) != 0);
  /* destroyed with the next batch's copy in flight */
  ag_array *bx = NULL;
  size_t count = 0;
  CHECK_OK(ag_batch_stream_next(s, NULL, &bx, NULL, &count));
  ck_assert_uint_eq(count, SBATCH);
  ag_batch_stream_destroy(s);
  /* without y, a batch larger than the data set: one batch of all samples, in order */
  CHECK_OK(ag_batch_stream_create(dev, x, AG_F32, SROW, NULL, AG_I32, 0, SN, 1000, 0, &s));
  ag_array *by = (ag_array *)&by;
  CHECK_OK(ag_batch_stream_next(s, NULL, &bx, &by, &count));
  ck_assert_uint_eq(count, SN);
  ck_assert_ptr_null(by);
  float all[SN * SROW];
  CHECK_OK(ag_array_to_host(bx, all, sizeof all));
  ck_assert(memcmp(all, x, sizeof all) == 0);
  CHECK_OK(ag_batch_stream_next(s, NULL, &bx, NULL, &count));
  ck_assert_uint_eq(count, 0);
  CHECK_OK(ag_batch_stream_next(s, NULL, &bx, NULL, &count));
  ck_assert_uint_eq(count, SN);
  ag_batch_stream_destroy(s);
}
END_TEST

/* ---- refused input ------------------------------------------------------------------------------------ */

START_TEST(bad_nn_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  double v[64] = {0};
  ag_array *a = sv_upload(dev, AG_F32, 2, (size_t[]){4, 5}, v), *b = sv_upload(dev, AG_F32, 2, (size_t[]){4, 5}, v);
  ag_array *c = sv_upload(dev, AG_F32, 2, (size_t[]){5, 4}, v), *i32 = sv_upload(dev, AG_I32, 2, (size_t[]){4, 5}, v);
  ag_array *one = sv_upload(dev, AG_F32, 1, (size_t[]){1}, v), *v20 = sv_upload(dev, AG_F32, 1, (size_t[]){20}, v);
  ag_array *b5 = sv_upload(dev, AG_F32, 1, (size_t[]){5}, v), *b4 = sv_upload(dev, AG_F32, 1, (size_t[]){4}, v);
  ag_array *y44 = sv_upload(dev, AG_F32, 2, (size_t[]){4, 4}, v);
  /* activations */
  CHECK_FAILS(ag_activate(NULL, (ag_activation)7, a, b), AG_ERR_INVALID_ARGUMENT, "ag_activate", "act");
  CHECK_FAILS(ag_activate(NULL, AG_ACT_RELU, NULL, b), AG_ERR_INVALID_ARGUMENT, "ag_activate", "x");
  CHECK_FAILS(ag_activate(NULL, AG_ACT_RELU, i32, b), AG_ERR_UNSUPPORTED, "ag_activate", "x");
  CHECK_FAILS(ag_activate(NULL, AG_ACT_RELU, a, c), AG_ERR_MISMATCH, "ag_activate", "y");
  CHECK_FAILS(ag_activate(NULL, AG_ACT_RELU, a, NULL), AG_ERR_INVALID_ARGUMENT, "ag_activate", "y");
  CHECK_FAILS(ag_activate_grad(NULL, (ag_activation)-1, a, b, b), AG_ERR_INVALID_ARGUMENT, "ag_activate_grad", "act");
  CHECK_FAILS(ag_activate_grad(NULL, AG_ACT_TANH, a, c, b), AG_ERR_MISMATCH, "ag_activate_grad", "dy");
  CHECK_FAILS(ag_activate_grad(NULL, AG_ACT_TANH, a, b, i32), AG_ERR_MISMATCH, "ag_activate_grad", "dx");
  /* softmax */
  CHECK_FAILS(ag_softmax(NULL, a, 2, b), AG_ERR_INVALID_ARGUMENT, "ag_softmax", "axis");
  CHECK_FAILS(ag_logsoftmax(NULL, a, -1, b), AG_ERR_INVALID_ARGUMENT, "ag_logsoftmax", "axis");
  CHECK_FAILS(ag_softmax(NULL, i32, 0, b), AG_ERR_UNSUPPORTED, "ag_softmax", "x");
  CHECK_FAILS(ag_logsoftmax(NULL, a, 1, c), AG_ERR_MISMATCH, "ag_logsoftmax", "y");
  CHECK_FAILS(ag_softmax_grad(NULL, a, c, 1, b), AG_ERR_MISMATCH, "ag_softmax_grad", "dy");
  CHECK_FAILS(ag_logsoftmax_grad(NULL, a, b, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_logsoftmax_grad", "dx");
  CHECK_FAILS(ag_logsoftmax_grad(NULL, a, b, 3, b), AG_ERR_INVALID_ARGUMENT, "ag_logsoftmax_grad", "axis");
  /* losses */
  CHECK_FAILS(ag_loss_mse(NULL, a, c, 1, one, b, 0), AG_ERR_MISMATCH, "ag_loss_mse", "y");
  CHECK_FAILS(ag_loss_mse(NULL, i32, i32, 1, one, b, 0), AG_ERR_UNSUPPORTED, "ag_loss_mse", "yhat");
  CHECK_FAILS(ag_loss_mse(NULL, a, b, 1, NULL, NULL, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_mse", "loss");
  CHECK_FAILS(ag_loss_mse(NULL, a, b, NAN, one, NULL, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_mse", "scale");
  CHECK_FAILS(ag_loss_mse(NULL, a, b, 1, one, NULL, 2), AG_ERR_INVALID_ARGUMENT, "ag_loss_mse", "flags");
  CHECK_FAILS(ag_loss_mse(NULL, a, b, 1, v20, NULL, 0), AG_ERR_MISMATCH, "ag_loss_mse", "loss");
  CHECK_FAILS(ag_loss_mse(NULL, a, b, 1, NULL, c, 0), AG_ERR_MISMATCH, "ag_loss_mse", "grad");
  CHECK_FAILS(ag_loss_logitcrossentropy(NULL, v20, v20, 1, one, NULL, 0), AG_ERR_MISMATCH, "ag_loss_logitcrossentropy",
              "logits");
  CHECK_FAILS(ag_loss_logitcrossentropy(NULL, a, c, 1, one, NULL, 0), AG_ERR_MISMATCH, "ag_loss_logitcrossentropy", "y");
  CHECK_FAILS(ag_loss_logitcrossentropy(NULL, a, b, INFINITY, one, NULL, 0), AG_ERR_INVALID_ARGUMENT,
              "ag_loss_logitcrossentropy", "scale");
  CHECK_FAILS(ag_loss_logitcrossentropy(NULL, a, b, 1, one, i32, 0), AG_ERR_MISMATCH, "ag_loss_logitcrossentropy",
              "grad");
  /* dense: x [4][5], w [4][5] (out 4, in 5), b [4], y [4][4] */
  CHECK_FAILS(ag_dense_forward(NULL, a, c, NULL, AG_ACT_RELU, y44), AG_ERR_MISMATCH, "ag_dense_forward", "w");
  CHECK_FAILS(ag_dense_forward(NULL, a, b, b5, AG_ACT_RELU, y44), AG_ERR_MISMATCH, "ag_dense_forward", "b");
  CHECK_FAILS(ag_dense_forward(NULL, a, b, b4, AG_ACT_RELU, a), AG_ERR_MISMATCH, "ag_dense_forward", "y");
  CHECK_FAILS(ag_dense_forward(NULL, v20, b, b4, AG_ACT_RELU, y44), AG_ERR_MISMATCH, "ag_dense_forward", "x");
  CHECK_FAILS(ag_dense_forward(NULL, a, b, b4, (ag_activation)9, y44), AG_ERR_INVALID_ARGUMENT, "ag_dense_forward",
              "act");
  CHECK_FAILS(ag_dense_forward(NULL, i32, b, b4, AG_ACT_RELU, y44), AG_ERR_UNSUPPORTED, "ag_dense_forward", "x");
  CHECK_FAILS(ag_dense_forward(NULL, a, b, b4, AG_ACT_RELU, NULL), AG_ERR_INVALID_ARGUMENT, "ag_dense_forward", "y");
  CHECK_FAILS(ag_dense_backward(NULL, a, b, AG_ACT_RELU, y44, a, NULL, NULL, b4), AG_ERR_MISMATCH, "ag_dense_backward",
              "dy");
  CHECK_FAILS(ag_dense_backward(NULL, a, b, AG_ACT_RELU, y44, y44, c, NULL, NULL), AG_ERR_MISMATCH,
              "ag_dense_backward", "dx");
  CHECK_FAILS(ag_dense_backward(NULL, a, b, AG_ACT_RELU, y44, y44, NULL, c, NULL), AG_ERR_MISMATCH,
              "ag_dense_backward", "dw");
  CHECK_FAILS(ag_dense_backward(NULL, a, b, AG_ACT_RELU, y44, y44, NULL, NULL, b5), AG_ERR_MISMATCH,
              "ag_dense_backward", "db");
  CHECK_FAILS(ag_dense_backward(NULL, a, b, AG_ACT_RELU, y44, y44, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT,
              "ag_dense_backward", "dx, dw and db");
  CHECK_FAILS(ag_dense_backward(NULL, a, b, AG_ACT_RELU, NULL, y44, a, NULL, NULL), AG_ERR_INVALID_ARGUMENT,
              "ag_dense_backward", "y");
  /* glorot */
  CHECK_FAILS(ag_glorot_uniform(NULL, v20, 1), AG_ERR_MISMATCH, "ag_glorot_uniform", "w");
  CHECK_FAILS(ag_glorot_uniform(NULL, i32, 1), AG_ERR_UNSUPPORTED, "ag_glorot_uniform", "w");
  CHECK_FAILS(ag_glorot_uniform(NULL, NULL, 1), AG_ERR_INVALID_ARGUMENT, "ag_glorot_uniform", "w");
  /* operands of two devices */
  ag_device *other = test_other_device(dev, "the two-device refusals");
  if (other != NULL) {
    ag_array *o = NULL;
    CHECK_OK(ag_array_create(other, AG_F32, 2, (size_t[]){4, 5}, &o));
    CHECK_FAILS(ag_activate(NULL, AG_ACT_RELU, a, o), AG_ERR_MISMATCH, "ag_activate", "y");
    CHECK_FAILS(ag_loss_mse(NULL, a, o, 1, one, NULL, 0), AG_ERR_MISMATCH, "ag_loss_mse", "y");
    CHECK_FAILS(ag_dense_forward(NULL, a, o, NULL, AG_ACT_RELU, y44), AG_ERR_MISMATCH, "ag_dense_forward", "w");
    ag_array_free(o);
  }
  /* f64 where the device lacks it */
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    ag_array *d = NULL;
    CHECK_OK(ag_array_create(dev, AG_F64, 2, (size_t[]){4, 5}, &d));
    CHECK_FAILS(ag_activate(NULL, AG_ACT_RELU, d, d), AG_ERR_UNSUPPORTED, "ag_activate", "f64");
    CHECK_FAILS(ag_softmax(NULL, d, 0, d), AG_ERR_UNSUPPORTED, "ag_softmax", "f64");
    CHECK_FAILS(ag_glorot_uniform(NULL, d, 1), AG_ERR_UNSUPPORTED, "ag_glorot_uniform", "f64");
    ag_array_free(d);
  }
  /* the batch stream */
  static float x[SN * SROW];
  static int32_t y[SN];
  ag_batch_stream *s = (ag_batch_stream *)&s;
  const char *fc = "ag_batch_stream_create";
  CHECK_FAILS(ag_batch_stream_create(NULL, x, AG_F32, SROW, y, AG_I32, 1, SN, 8, 0, &s), AG_ERR_INVALID_ARGUMENT, fc,
              "dev");
  ck_assert_ptr_null(s);
  CHECK_FAILS(ag_batch_stream_create(dev, NULL, AG_F32, SROW, y, AG_I32, 1, SN, 8, 0, &s), AG_ERR_INVALID_ARGUMENT, fc,
              "x");
  CHECK_FAILS(ag_batch_stream_create(dev, x, (ag_dtype)AG_DTYPE_COUNT, SROW, y, AG_I32, 1, SN, 8, 0, &s),
              AG_ERR_INVALID_ARGUMENT, fc, "x_dtype");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, 0, y, AG_I32, 1, SN, 8, 0, &s), AG_ERR_INVALID_ARGUMENT, fc,
              "x_row");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, SROW, y, (ag_dtype)-2, 1, SN, 8, 0, &s), AG_ERR_INVALID_ARGUMENT,
              fc, "y_dtype");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 0, SN, 8, 0, &s), AG_ERR_INVALID_ARGUMENT, fc,
              "y_row");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, 0, 8, 0, &s), AG_ERR_INVALID_ARGUMENT, fc,
              "n");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, 0, 0, &s), AG_ERR_INVALID_ARGUMENT, fc,
              "batch");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, SIZE_MAX / 2, y, AG_I32, 1, SN, 8, 0, &s), AG_ERR_OUT_OF_RANGE, fc,
              "x_row");
  CHECK_FAILS(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, 8, 0, NULL), AG_ERR_INVALID_ARGUMENT, fc,
              "out");
  ck_assert_ptr_null(s);
  CHECK_OK(ag_batch_stream_create(dev, x, AG_F32, SROW, y, AG_I32, 1, SN, 8, 0, &s));
  ag_array *bx = NULL, *by = NULL;
  size_t count = 0;
  const char *fnx = "ag_batch_stream_next";
  CHECK_FAILS(ag_batch_stream_next(NULL, NULL, &bx, &by, &count), AG_ERR_INVALID_ARGUMENT, fnx, "s");
  CHECK_FAILS(ag_batch_stream_next(s, NULL, NULL, &by, &count), AG_ERR_INVALID_ARGUMENT, fnx, "x");
  CHECK_FAILS(ag_batch_stream_next(s, NULL, &bx, &by, NULL), AG_ERR_INVALID_ARGUMENT, fnx, "count");
  if (other != NULL) {
    ag_queue *oq = NULL;
    CHECK_OK(ag_queue_create(other, &oq));
    CHECK_FAILS(ag_batch_stream_next(s, oq, &bx, &by, &count), AG_ERR_MISMATCH, fnx, "q");
    ag_queue_destroy(oq);
  }
  /* still usable */
  CHECK_OK(ag_batch_stream_next(s, NULL, &bx, &by, &count));
  ck_assert_uint_eq(count, 8);
  ag_batch_stream_destroy(s);
  ag_batch_stream_destroy(NULL);
  ag_array *all[] = {a, b, c, i32, one, v20, b5, b4, y44};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    ag_array_free(all[i]);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  char why[600];
  bool torch = test_python_module("torch", "torch.__version__", "1.13", "python3-torch", why, sizeof why);
  Suite *own = torch ? s : suite_create("test_nn");
  add_device_test(own, "activations and their gradients match a double reference",
                  activations_and_their_gradients_match_a_double_reference);
  add_device_test(own, "activations keep PyTorch's edge values", activations_keep_pytorchs_edge_values);
  add_device_test(own, "activation gradients match central differences", activation_gradients_match_central_differences);
  add_device_test(own, "softmax and log-softmax match a double reference along every axis",
                  softmax_and_logsoftmax_match_a_double_reference_along_every_axis);
  add_device_test(own, "softmax gradients match central differences", softmax_gradients_match_central_differences);
  add_device_test(own, "losses match a double reference with scale, accumulate and either output",
                  losses_match_a_double_reference_with_scale_accumulate_and_either_output);
  add_device_test(own, "loss gradients match central differences", loss_gradients_match_central_differences);
  add_device_test(own, "dense layers match a double reference", dense_layers_match_a_double_reference);
  add_device_test(own, "dense gradients match central differences", dense_gradients_match_central_differences);
  add_device_test(own, "glorot uniform is bounded, centred and the same on every device",
                  glorot_uniform_is_bounded_centred_and_the_same_on_every_device);
  add_device_test(own, "batch stream gives every sample once per epoch in a reproducible order",
                  batch_stream_gives_every_sample_once_per_epoch_in_a_reproducible_order);
  add_device_test(own, "bad nn input is refused naming the argument", bad_nn_input_is_refused_naming_the_argument);
  if (torch) {
    add_device_test(s, "nn matches PyTorch autograd", nn_matches_pytorch_autograd);
    return;
  }
  test_run_without(own, "PyTorch", why);
}
