/* tests/test_optim.c - the optimisers (ag_optimizer_*, learn.h) on every device: 20-step
   trajectories against PyTorch 1.13's torch.optim.SGD and Adam (tests/torch_optim.py, skipped
   without torch), Optimisers.jl's Descent, Momentum and Adam against double transcriptions
   here, every kind in f32 against the host's f32 and a long array against the transcriptions;
   refused input, the step count, create and destroy.

   The gradient of every trajectory is g(x) = a (x - c) + 0.5 sin(x), worked out in double from
   the parameter's value and rounded to its dtype, here as in torch_optim.py, with x0, a and c
   fixed arrays: each step's update feeds the next step's gradient, so the whole trajectory is
   compared, not one step. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "python.h"
#include "solvers_common.h"

#define STEPS 20
#define N 1001

/* ---- the problem ---- */

/* Deterministic values in [lo, hi) from @p seed. */
static void fill_uniform(double *v, size_t n, unsigned seed, double lo, double hi) {
  uint64_t s = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    v[i] = lo + (hi - lo) * (double)(s >> 11) / 9007199254740992.0;
  }
}

typedef struct problem {
  size_t n;
  double *x0, *a, *c;
} problem;

static problem problem_make(size_t n) {
  problem p = {n, malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double))};
  ck_assert(p.x0 && p.a && p.c);
  fill_uniform(p.x0, n, 1, -2, 2);
  fill_uniform(p.a, n, 2, 0.5, 2);
  fill_uniform(p.c, n, 3, -1, 1);
  return p;
}

static void problem_free(problem *p) { free(p->x0), free(p->a), free(p->c); }

/* g(x) in double, rounded to dtype @p t (kept as doubles). */
static void gradient(const problem *p, const double *x, ag_dtype t, double *g) {
  for (size_t i = 0; i < p->n; i++) {
    double v = p->a[i] * (x[i] - p->c[i]) + 0.5 * sin(x[i]);
    g[i] = t == AG_F32 ? (double)(float)v : v;
  }
}

/* @p steps steps of @p o on @p dev in dtype @p t from x0; the parameter after each step goes
   to traj[k * n ...] (steps x n doubles, the caller's). */
static void run_device(ag_device *dev, ag_dtype t, const ag_optim_options *o, const problem *p, int steps,
                       double *traj) {
  size_t n = p->n;
  ag_array *x = sv_upload(dev, t, 1, &n, p->x0);
  ag_optimizer *opt = NULL;
  CHECK_OK(ag_optimizer_create(o, x, &opt));
  double *g = malloc(n * sizeof *g), *xs = sv_download(x);
  ck_assert_ptr_nonnull(g);
  for (int k = 0; k < steps; k++) {
    gradient(p, xs, t, g);
    ag_array *ga = sv_upload(dev, t, 1, &n, g);
    CHECK_OK(ag_optimizer_step(NULL, opt, x, ga));
    ag_array_free(ga);
    free(xs);
    xs = sv_download(x);
    memcpy(traj + (size_t)k * n, xs, n * sizeof *xs);
  }
  ck_assert_uint_eq(ag_optimizer_steps(opt), (uint64_t)steps);
  free(xs), free(g);
  ag_optimizer_destroy(opt);
  ag_array_free(x);
}

/* The largest |a - b| / max(1, |b|) over @p n values, at *where. */
static double worst_diff(const double *a, const double *b, size_t n, size_t *where) {
  double w = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]) / fmax(1, fabs(b[i]));
    if (!(e <= w)) /* NaN counts as worst */
      w = e, *where = i;
  }
  return w;
}

static ag_optim_options options(ag_optim_kind kind) {
  ag_optim_options o;
  CHECK_OK(ag_optim_options_default(kind, &o));
  return o;
}

/* ---- the references, transcribed in double ----
   Each rule as its reference writes it, operation by operation: torch 1.13's
   _single_tensor_sgd and _single_tensor_adam, Optimisers.jl 0.4.8's Descent, Momentum and Adam
   (src/rules.jl). */

typedef struct ref_state {
  double *s1, *s2, *s3;
  uint64_t t;
  double bt1, bt2;
} ref_state;

static ref_state ref_make(size_t n) {
  ref_state r = {calloc(n, sizeof(double)), calloc(n, sizeof(double)), calloc(n, sizeof(double)), 0, 1, 1};
  ck_assert(r.s1 && r.s2 && r.s3);
  return r;
}

static void ref_free(ref_state *r) { free(r->s1), free(r->s2), free(r->s3); }

static void ref_step(const ag_optim_options *o, ref_state *r, double *x, const double *g, size_t n) {
  r->t++;
  double t = (double)r->t;
  switch (o->kind) {
  case AG_OPTIM_SGD:
  case AG_OPTIM_MOMENTUM_TORCH:
    for (size_t i = 0; i < n; i++) {
      double d = o->maximize ? -g[i] : g[i];
      if (o->weight_decay != 0)
        d = d + o->weight_decay * x[i];
      if (o->kind == AG_OPTIM_MOMENTUM_TORCH && o->momentum != 0) {
        r->s1[i] = r->t == 1 ? d : r->s1[i] * o->momentum + (1 - o->dampening) * d;
        d = o->nesterov ? d + o->momentum * r->s1[i] : r->s1[i];
      }
      x[i] = x[i] + -o->lr * d;
    }
    break;
  case AG_OPTIM_MOMENTUM_FLUX:
    for (size_t i = 0; i < n; i++) {
      r->s1[i] = o->momentum * r->s1[i] + o->lr * g[i];
      x[i] = x[i] - r->s1[i];
    }
    break;
  case AG_OPTIM_ADAM_TORCH: {
    double step_size = o->lr / (1 - pow(o->beta1, t)), bc2s = sqrt(1 - pow(o->beta2, t));
    for (size_t i = 0; i < n; i++) {
      double d = o->maximize ? -g[i] : g[i];
      if (o->weight_decay != 0)
        d = d + o->weight_decay * x[i];
      r->s1[i] = r->s1[i] * o->beta1 + (1 - o->beta1) * d;
      r->s2[i] = r->s2[i] * o->beta2 + (1 - o->beta2) * d * d;
      double v = r->s2[i];
      if (o->amsgrad)
        v = r->s3[i] = fmax(r->s3[i], r->s2[i]);
      x[i] = x[i] + -step_size * r->s1[i] / (sqrt(v) / bc2s + o->eps);
    }
    break;
  }
  case AG_OPTIM_ADAM_FLUX:
    /* Optimisers.jl keeps beta^t in its state, starting at beta and multiplied each step. */
    r->bt1 *= o->beta1, r->bt2 *= o->beta2;
    for (size_t i = 0; i < n; i++) {
      r->s1[i] = o->beta1 * r->s1[i] + (1 - o->beta1) * g[i];
      r->s2[i] = o->beta2 * r->s2[i] + (1 - o->beta2) * (g[i] * g[i]);
      x[i] = x[i] - r->s1[i] / (1 - r->bt1) / (sqrt(r->s2[i] / (1 - r->bt2)) + o->eps) * o->lr;
    }
    break;
  }
}

/* The reference's trajectory in double from x0 (gradients rounded to @p t, as on the device). */
static void run_reference(const ag_optim_options *o, const problem *p, ag_dtype t, int steps, double *traj) {
  size_t n = p->n;
  double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g);
  ck_assert(x && g);
  for (size_t i = 0; i < n; i++)
    x[i] = t == AG_F32 ? (double)(float)p->x0[i] : p->x0[i];
  ref_state r = ref_make(n);
  for (int k = 0; k < steps; k++) {
    gradient(p, x, t, g);
    ref_step(o, &r, x, g, n);
    memcpy(traj + (size_t)k * n, x, n * sizeof *x);
  }
  ref_free(&r);
  free(x), free(g);
}

/* ---- the cases ---- */

typedef struct optim_case {
  const char *name; /* the name torch_optim.py writes its trajectories under */
  const char *torch; /* torch_optim.py's line after the name; NULL: Optimisers.jl's rules */
  ag_optim_options opt;
} optim_case;

/* NAME, torch_optim.py's line, kind, lr, momentum, dampening, nesterov, weight_decay, amsgrad,
   maximize, beta1, beta2, eps. */
#define CASE(NAME, TORCH, KIND, LR, MOM, DAMP, NEST, WD, AMS, MAX, B1, B2, EPS)                     \
  {NAME, TORCH,                                                                                    \
   {.kind = KIND, .lr = LR, .momentum = MOM, .dampening = DAMP, .nesterov = NEST, .weight_decay = WD, \
    .amsgrad = AMS, .maximize = MAX, .beta1 = B1, .beta2 = B2, .eps = EPS}}

static const optim_case cases[] = {
    CASE("adam", "adam lr=0.05", AG_OPTIM_ADAM_TORCH, 0.05, 0, 0, false, 0, false, false, 0.9, 0.999, 1e-8),
    CASE("adam_amsgrad", "adam lr=0.05 amsgrad=1 beta1=0.8 beta2=0.99", AG_OPTIM_ADAM_TORCH, 0.05, 0, 0, false, 0,
         true, false, 0.8, 0.99, 1e-8),
    CASE("adam_decay_maximize", "adam lr=0.05 weight_decay=0.1 maximize=1", AG_OPTIM_ADAM_TORCH, 0.05, 0, 0, false,
         0.1, false, true, 0.9, 0.999, 1e-8),
    CASE("adam_all", "adam lr=0.02 amsgrad=1 weight_decay=0.05 maximize=1 eps=1e-3 beta1=0.5 beta2=0.9",
         AG_OPTIM_ADAM_TORCH, 0.02, 0, 0, false, 0.05, true, true, 0.5, 0.9, 1e-3),
    CASE("sgd", "sgd lr=0.02", AG_OPTIM_SGD, 0.02, 0, 0, false, 0, false, false, 0, 0, 0),
    CASE("sgd_decay_maximize", "sgd lr=0.02 weight_decay=0.1 maximize=1", AG_OPTIM_SGD, 0.02, 0, 0, false, 0.1, false,
         true, 0, 0, 0),
    CASE("momentum", "sgd lr=0.02 momentum=0.9", AG_OPTIM_MOMENTUM_TORCH, 0.02, 0.9, 0, false, 0, false, false, 0, 0,
         0),
    CASE("momentum_dampening", "sgd lr=0.02 momentum=0.8 dampening=0.3 weight_decay=0.05", AG_OPTIM_MOMENTUM_TORCH,
         0.02, 0.8, 0.3, false, 0.05, false, false, 0, 0, 0),
    CASE("nesterov", "sgd lr=0.02 momentum=0.9 nesterov=1", AG_OPTIM_MOMENTUM_TORCH, 0.02, 0.9, 0, true, 0, false,
         false, 0, 0, 0),
    CASE("nesterov_decay_maximize", "sgd lr=0.01 momentum=0.7 nesterov=1 weight_decay=0.1 maximize=1",
         AG_OPTIM_MOMENTUM_TORCH, 0.01, 0.7, 0, true, 0.1, false, true, 0, 0, 0),
    CASE("no_momentum", "sgd lr=0.02 momentum=0 weight_decay=0.1", AG_OPTIM_MOMENTUM_TORCH, 0.02, 0, 0, false, 0.1,
         false, false, 0, 0, 0),
    CASE("descent", NULL, AG_OPTIM_SGD, 0.1, 0, 0, false, 0, false, false, 0, 0, 0),
    CASE("flux_momentum", NULL, AG_OPTIM_MOMENTUM_FLUX, 0.01, 0.9, 0, false, 0, false, false, 0, 0, 0),
    CASE("flux_adam", NULL, AG_OPTIM_ADAM_FLUX, 0.05, 0, 0, false, 0, false, false, 0.9, 0.999, 1e-8),
    CASE("flux_adam_betas", NULL, AG_OPTIM_ADAM_FLUX, 0.02, 0, 0, false, 0, false, false, 0.8, 0.99, 1e-3),
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- against PyTorch ----
   f64: within 1e-6 (relative to max(1, |x|)), the bar set for the library; the order of
   operations is torch's, so what is left is rounding (FMA contraction, torch's own sin), seen
   at most 8e-16 (host and pocl). f32 against torch's float32 run of the same problem: 5e-6,
   ten times the worst seen (5e-7): float32 roundings (2^-24 = 6e-8 each) over 20 steps, which
   Adam's normalisation m / sqrt(v) amplifies where the gradient nears 0. */

static double *load_trajectory(const char *dir, const char *name, const char *tag) {
  char path[700], err[800];
  snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, tag);
  npy_array a;
  ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s: %s", test_label(), err);
  ck_assert_msg(a.dtype == NPY_F8 && a.ndim == 2 && a.shape[0] == STEPS && a.shape[1] == N,
                "%s: %s is not (%d, %d) float64", test_label(), path, STEPS, N);
  return a.data;
}

START_TEST(torch_trajectories_match_pytorch) {
  ag_device *dev = test_device(_i);
  problem p = problem_make(N);
  const char *dir = test_tmp_dir("optim");
  char path[700], err[800], out[8192], script[700], steps[16];
  size_t n = N;
  ck_assert_msg(npy_write(strcat(strcpy(path, dir), "/x0.npy"), NPY_F8, 1, &n, p.x0, err, sizeof err), "%s", err);
  ck_assert_msg(npy_write(strcat(strcpy(path, dir), "/a.npy"), NPY_F8, 1, &n, p.a, err, sizeof err), "%s", err);
  ck_assert_msg(npy_write(strcat(strcpy(path, dir), "/c.npy"), NPY_F8, 1, &n, p.c, err, sizeof err), "%s", err);
  char text[4096] = "";
  for (size_t c = 0; c < NCASES; c++)
    if (cases[c].torch != NULL)
      snprintf(text + strlen(text), sizeof text - strlen(text), "%s %s\n", cases[c].name, cases[c].torch);
  test_write_text("optim", "configs.txt", text, path, sizeof path);
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  snprintf(script, sizeof script, "%s/torch_optim.py", src && *src ? src : "tests");
  snprintf(steps, sizeof steps, "%d", STEPS);
  char *args[] = {"python3", script, (char *)dir, steps, NULL};
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", test_label(), script, rc, out);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  double *mine = malloc((size_t)STEPS * N * sizeof *mine);
  ck_assert_ptr_nonnull(mine);
  for (size_t c = 0; c < NCASES; c++) {
    if (cases[c].torch == NULL)
      continue;
    for (int d = 0; d < nt; d++) {
      double *ref = load_trajectory(dir, cases[c].name, ag_dtype_name(ts[d]));
      run_device(dev, ts[d], &cases[c].opt, &p, STEPS, mine);
      double tol = ts[d] == AG_F64 ? 1e-6 : 5e-6;
      size_t at = 0;
      double w = worst_diff(mine, ref, (size_t)STEPS * N, &at);
      printf("%s: %s %s, %d steps: within %.3g of torch\n", test_label(), cases[c].name, ag_dtype_name(ts[d]), STEPS,
             w);
      ck_assert_msg(w <= tol, "%s: %s %s: step %zu element %zu is %.17g, torch %.17g (tolerance %g)", test_label(),
                    cases[c].name, ag_dtype_name(ts[d]), at / N + 1, at % N, mine[at], ref[at], tol);
      free(ref);
    }
  }
  free(mine);
  problem_free(&p);
}
END_TEST

/* ---- against the transcriptions ----
   f64 on the device against the double transcription: 1e-12, as the same operations in the
   same order leave only FMA contraction (seen: 0 on the host, 8e-16 on pocl). f32 on the
   device against the double transcription: 2e-5, three times the worst seen (5.8e-6,
   Optimisers.Adam with eps 1e-8, whose float32 beta^t and normalisation the double run does
   not share). */
START_TEST(every_rule_matches_its_double_transcription) {
  ag_device *dev = test_device(_i);
  problem p = problem_make(N);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  double *mine = malloc((size_t)STEPS * N * sizeof *mine), *ref = malloc((size_t)STEPS * N * sizeof *ref);
  ck_assert(mine && ref);
  for (size_t c = 0; c < NCASES; c++)
    for (int d = 0; d < nt; d++) {
      run_reference(&cases[c].opt, &p, ts[d], STEPS, ref);
      run_device(dev, ts[d], &cases[c].opt, &p, STEPS, mine);
      double tol = ts[d] == AG_F64 ? 1e-12 : 2e-5;
      size_t at = 0;
      double w = worst_diff(mine, ref, (size_t)STEPS * N, &at);
      printf("%s: %s %s, %d steps: within %.3g of the double transcription\n", test_label(), cases[c].name,
             ag_dtype_name(ts[d]), STEPS, w);
      ck_assert_msg(w <= tol, "%s: %s %s: step %zu element %zu is %.17g, the transcription %.17g (tolerance %g)",
                    test_label(), cases[c].name, ag_dtype_name(ts[d]), at / N + 1, at % N, mine[at], ref[at], tol);
    }
  free(mine), free(ref);
  problem_free(&p);
}
END_TEST

/* f32 on every device against the host's f32: the same kernels in other compilers. OpenCL
   lets single precision division and sqrt be off by up to 2.5 and 3 ulp (pocl's and Mesa's
   are correctly rounded on CPUs; FMA contraction differs): 5e-6 over 20 steps, ten times the
   worst seen (5e-7, pocl). On the host itself the two runs are the same code and must agree
   exactly. */
START_TEST(f32_steps_match_the_hosts) {
  ag_device *dev = test_device(_i), *host = NULL;
  CHECK_OK(ag_device_get(0, &host));
  problem p = problem_make(N);
  double *mine = malloc((size_t)STEPS * N * sizeof *mine), *ref = malloc((size_t)STEPS * N * sizeof *ref);
  ck_assert(mine && ref);
  double tol = dev == host ? 0 : 5e-6, worst = 0;
  for (size_t c = 0; c < NCASES; c++) {
    run_device(host, AG_F32, &cases[c].opt, &p, STEPS, ref);
    run_device(dev, AG_F32, &cases[c].opt, &p, STEPS, mine);
    size_t at = 0;
    double w = worst_diff(mine, ref, (size_t)STEPS * N, &at);
    worst = fmax(worst, w);
    ck_assert_msg(w <= tol, "%s: %s f32: step %zu element %zu is %.9g, the host %.9g (tolerance %g)", test_label(),
                  cases[c].name, at / N + 1, at % N, mine[at], ref[at], tol);
  }
  printf("%s: every rule in f32, %d steps: within %.3g of the host's f32\n", test_label(), STEPS, worst);
  free(mine), free(ref);
  problem_free(&p);
}
END_TEST

/* A long array, 2^20 + 3 elements (not a multiple of any launch's chunk or vector), three
   steps of torch's Adam with amsgrad, Nesterov SGD and Optimisers.Adam against the
   transcriptions: every element updated, none twice, in each dtype the device has; 1e-12 in
   f64, 1e-5 in f32 (three steps). */
START_TEST(long_arrays_are_updated_everywhere) {
  ag_device *dev = test_device(_i);
  problem p = problem_make(((size_t)1 << 20) + 3);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  const optim_case *picks[] = {&cases[1], &cases[8], &cases[13]};
  double *mine = malloc(3 * p.n * sizeof *mine), *ref = malloc(3 * p.n * sizeof *ref);
  ck_assert(mine && ref);
  for (size_t c = 0; c < 3; c++)
    for (int d = 0; d < nt; d++) {
      run_reference(&picks[c]->opt, &p, ts[d], 3, ref);
      run_device(dev, ts[d], &picks[c]->opt, &p, 3, mine);
      size_t at = 0;
      double w = worst_diff(mine, ref, 3 * p.n, &at), tol = ts[d] == AG_F64 ? 1e-12 : 1e-5;
      ck_assert_msg(w <= tol, "%s: %s %s on %zu elements: step %zu element %zu is %.17g, the transcription %.17g",
                    test_label(), picks[c]->name, ag_dtype_name(ts[d]), p.n, at / p.n + 1, at % p.n, mine[at],
                    ref[at]);
    }
  free(mine), free(ref);
  problem_free(&p);
}
END_TEST

/* ---- refused input, the count, create and destroy ---- */

/* Creating with @p o on @p x fails with @p want naming @p field, and leaves *out NULL. */
static void check_create_fails(const ag_optim_options *o, const ag_array *x, ag_status want, const char *field) {
  ag_optimizer *opt = (ag_optimizer *)&opt; /* not NULL, to see it cleared */
  CHECK_FAILS(ag_optimizer_create(o, x, &opt), want, "ag_optimizer_create", field);
  ck_assert_ptr_null(opt);
}

START_TEST(bad_optimiser_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ag_dtype t = info.fp64 ? AG_F64 : AG_F32;
  size_t n = 12, n34[2] = {3, 4}, n11 = 11;
  double v[12];
  for (size_t i = 0; i < n; i++)
    v[i] = (double)i - 5.5;
  ag_array *x = sv_upload(dev, t, 1, &n, v), *g = sv_upload(dev, t, 1, &n, v);
  ag_optim_options o = options(AG_OPTIM_ADAM_TORCH), b;

  ag_optimizer *opt = NULL;
  CHECK_FAILS(ag_optimizer_create(&o, x, NULL), AG_ERR_INVALID_ARGUMENT, "ag_optimizer_create", "out");
  check_create_fails(NULL, x, AG_ERR_INVALID_ARGUMENT, "opt");
  check_create_fails(&o, NULL, AG_ERR_INVALID_ARGUMENT, "param");
  b = o, b.kind = (ag_optim_kind)99;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->kind");
  const double bad_lr[] = {-1e-3, NAN, INFINITY};
  for (int i = 0; i < 3; i++) {
    b = o, b.lr = bad_lr[i];
    check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->lr");
  }
  const double bad_beta[] = {1.0, -0.1, NAN, 1.5};
  for (int i = 0; i < 4; i++) {
    b = o, b.beta1 = bad_beta[i];
    check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->beta1");
    b = options(AG_OPTIM_ADAM_FLUX), b.beta2 = bad_beta[i];
    check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->beta2");
  }
  b = o, b.eps = -1e-8;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->eps");
  b = o, b.weight_decay = -0.1;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->weight_decay");
  b = options(AG_OPTIM_MOMENTUM_TORCH), b.momentum = -0.5;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->momentum");
  b = options(AG_OPTIM_MOMENTUM_FLUX), b.momentum = NAN;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->momentum");
  b = options(AG_OPTIM_MOMENTUM_TORCH), b.dampening = INFINITY;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->dampening");
  /* torch's rule: Nesterov needs a momentum and no dampening. */
  b = options(AG_OPTIM_MOMENTUM_TORCH), b.nesterov = true, b.momentum = 0;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->nesterov");
  b = options(AG_OPTIM_MOMENTUM_TORCH), b.nesterov = true, b.dampening = 0.1;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->nesterov");
  /* Settings a rule does not have are refused, not dropped. */
  b = options(AG_OPTIM_ADAM_FLUX), b.weight_decay = 0.1;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->weight_decay");
  b = options(AG_OPTIM_MOMENTUM_FLUX), b.maximize = true;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->maximize");
  b = options(AG_OPTIM_SGD), b.amsgrad = true;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->amsgrad");
  b = options(AG_OPTIM_ADAM_TORCH), b.nesterov = true;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->nesterov");
  b = options(AG_OPTIM_SGD), b.dampening = 0.5;
  check_create_fails(&b, x, AG_ERR_INVALID_ARGUMENT, "opt->dampening");
  ag_array *xi = NULL, *xc = NULL;
  CHECK_OK(ag_array_create(dev, AG_I32, 1, &n, &xi));
  CHECK_OK(ag_array_create(dev, AG_C64, 1, &n, &xc));
  check_create_fails(&o, xi, AG_ERR_UNSUPPORTED, "param");
  /* the library's one message for an operand of a dtype the function does not take */
  ck_assert_str_eq(ag_last_error(),
                   "ag_optimizer_create: param is i32, which ag_optimizer_create does not take (it takes f32 and f64)");
  check_create_fails(&o, xc, AG_ERR_UNSUPPORTED, "param");
  if (!info.fp64) {
    ag_array *x64 = NULL;
    CHECK_OK(ag_array_create(dev, AG_F64, 1, &n, &x64));
    check_create_fails(&o, x64, AG_ERR_UNSUPPORTED, "f64");
    ag_array_free(x64);
  }

  CHECK_OK(ag_optimizer_create(&o, x, &opt));
  const char *fn = "ag_optimizer_step";
  CHECK_FAILS(ag_optimizer_step(NULL, NULL, x, g), AG_ERR_INVALID_ARGUMENT, fn, "opt");
  CHECK_FAILS(ag_optimizer_step(NULL, opt, NULL, g), AG_ERR_INVALID_ARGUMENT, fn, "param");
  CHECK_FAILS(ag_optimizer_step(NULL, opt, x, NULL), AG_ERR_INVALID_ARGUMENT, fn, "grad");
  ag_array *g11 = NULL, *g34 = NULL, *gt = NULL, *view = NULL;
  CHECK_OK(ag_array_create(dev, t, 1, &n11, &g11));
  CHECK_OK(ag_array_create(dev, t, 2, n34, &g34));
  CHECK_OK(ag_array_create(dev, t == AG_F64 ? AG_F32 : AG_F64, 1, &n, &gt));
  CHECK_FAILS(ag_optimizer_step(NULL, opt, x, g11), AG_ERR_MISMATCH, fn, "grad");
  CHECK_FAILS(ag_optimizer_step(NULL, opt, x, g34), AG_ERR_MISMATCH, fn, "grad");
  CHECK_FAILS(ag_optimizer_step(NULL, opt, x, gt), AG_ERR_MISMATCH, fn, "grad");
  CHECK_FAILS(ag_optimizer_step(NULL, opt, gt, g), AG_ERR_MISMATCH, fn, "param");
  CHECK_FAILS(ag_optimizer_step(NULL, opt, g11, g11), AG_ERR_MISMATCH, fn, "param");
  /* The gradient in the parameter's own memory. */
  CHECK_OK(ag_array_reshape(x, 1, &n, &view));
  CHECK_FAILS(ag_optimizer_step(NULL, opt, x, view), AG_ERR_INVALID_ARGUMENT, fn, "grad");
  ag_device *other = test_other_device(dev, "the other-device refusals");
  if (other != NULL) {
    ag_array *xo = sv_upload(other, AG_F32, 1, &n, v);
    ag_queue *qo = NULL;
    CHECK_OK(ag_queue_create(other, &qo));
    CHECK_FAILS(ag_optimizer_step(NULL, opt, xo, g), AG_ERR_MISMATCH, fn, "param");
    CHECK_FAILS(ag_optimizer_step(qo, opt, x, g), AG_ERR_MISMATCH, fn, "q");
    ag_queue_destroy(qo);
    ag_array_free(xo);
  }
  /* Nothing refused was a step, and the parameter is as it was. */
  ck_assert_uint_eq(ag_optimizer_steps(opt), 0);
  double *after = sv_download(x);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(after[i] == v[i], "%s: a refused step changed param[%zu] to %g", test_label(), i, after[i]);
  free(after);
  ag_array *arrays[] = {x, g, xi, xc, g11, g34, gt, view};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
  ag_optimizer_destroy(opt);
}
END_TEST

/* The count goes up by one for each step done and for nothing else; an empty parameter
   steps (counted, nothing to update); optimisers of every kind are made and freed many times
   (AddressSanitizer's leak check sees any state left behind), destroy(NULL) does nothing, and
   steps(NULL) is 0. */
START_TEST(steps_are_counted_and_optimisers_freed) {
  ag_device *dev = test_device(_i);
  size_t n = 5, zero = 0;
  double v[5] = {1, -2, 3, -4, 5}, gv[5] = {0.5, 0.5, -0.5, 1, 2};
  ag_array *x = sv_upload(dev, AG_F32, 1, &n, v), *g = sv_upload(dev, AG_F32, 1, &n, gv);
  for (int round = 0; round < 20; round++)
    for (ag_optim_kind k = AG_OPTIM_SGD; k <= AG_OPTIM_ADAM_FLUX; k++) {
      ag_optim_options o = options(k);
      o.amsgrad = k == AG_OPTIM_ADAM_TORCH && round % 2;
      ag_optimizer *opt = NULL;
      CHECK_OK(ag_optimizer_create(&o, x, &opt));
      ck_assert_uint_eq(ag_optimizer_steps(opt), 0);
      if (round == 0) {
        for (int s = 1; s <= 3; s++) {
          CHECK_OK(ag_optimizer_step(NULL, opt, x, g));
          ck_assert_uint_eq(ag_optimizer_steps(opt), (uint64_t)s);
        }
        ck_assert_int_ne(ag_optimizer_step(NULL, opt, x, NULL), AG_OK);
        ck_assert_uint_eq(ag_optimizer_steps(opt), 3);
      }
      ag_optimizer_destroy(opt);
    }
  /* The steps done moved x (their values are the other tcases' business). */
  double *after = sv_download(x);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(after[i] != (double)(float)v[i], "%s: the steps left x[%zu] alone", test_label(), i);
  free(after);
  ag_array *e = NULL, *ge = NULL;
  CHECK_OK(ag_array_create(dev, AG_F32, 1, &zero, &e));
  CHECK_OK(ag_array_create(dev, AG_F32, 1, &zero, &ge));
  ag_optim_options o = options(AG_OPTIM_ADAM_TORCH);
  ag_optimizer *opt = NULL;
  CHECK_OK(ag_optimizer_create(&o, e, &opt));
  CHECK_OK(ag_optimizer_step(NULL, opt, e, ge));
  ck_assert_uint_eq(ag_optimizer_steps(opt), 1);
  ag_optimizer_destroy(opt);
  ag_optimizer_destroy(NULL);
  ck_assert_uint_eq(ag_optimizer_steps(NULL), 0);
  ag_array_free(e), ag_array_free(ge);
  ag_array_free(x), ag_array_free(g);
}
END_TEST

/* A step on a queue of the application's: the state made at create is ready for it, and the
   result is the default queue's. */
START_TEST(steps_run_on_any_queue_of_the_device) {
  ag_device *dev = test_device(_i);
  problem p = problem_make(N);
  ag_optim_options o = cases[0].opt;
  size_t n = N;
  ag_array *x = sv_upload(dev, AG_F32, 1, &n, p.x0);
  double *g = malloc(N * sizeof *g), *ref = malloc((size_t)2 * N * sizeof *ref);
  ck_assert(g && ref);
  double *x0 = sv_download(x); /* x0 rounded to f32, whose gradient run_device's first step takes */
  gradient(&p, x0, AG_F32, g);
  ag_array *ga = sv_upload(dev, AG_F32, 1, &n, g);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  ag_optimizer *opt = NULL;
  CHECK_OK(ag_optimizer_create(&o, x, &opt));
  CHECK_OK(ag_optimizer_step(q, opt, x, ga));
  CHECK_OK(ag_queue_finish(q));
  run_device(dev, AG_F32, &o, &p, 1, ref);
  double *mine = sv_download(x);
  for (size_t i = 0; i < N; i++)
    ck_assert_msg(mine[i] == ref[i], "%s: element %zu after a step on a queue of its own is %.9g, on the default %.9g",
                  test_label(), i, mine[i], ref[i]);
  free(mine), free(x0), free(g), free(ref);
  ag_optimizer_destroy(opt);
  ag_queue_destroy(q);
  ag_array_free(x), ag_array_free(ga);
  problem_free(&p);
}
END_TEST

/* ---- backend-independent ---- */

START_TEST(optimiser_defaults_are_the_references) {
  for (ag_optim_kind k = AG_OPTIM_SGD; k <= AG_OPTIM_ADAM_FLUX; k++) {
    ag_optim_options o;
    memset(&o, 0xff, sizeof o);
    CHECK_OK(ag_optim_options_default(k, &o));
    bool adam = k == AG_OPTIM_ADAM_TORCH || k == AG_OPTIM_ADAM_FLUX;
    ck_assert_int_eq(o.kind, k);
    ck_assert(o.lr == (adam ? 1e-3 : 1e-2));
    ck_assert(o.momentum == 0.9 && o.beta1 == 0.9 && o.beta2 == 0.999 && o.eps == 1e-8);
    ck_assert(o.dampening == 0 && o.weight_decay == 0 && !o.nesterov && !o.amsgrad && !o.maximize);
  }
  ag_optim_options o;
  CHECK_FAILS(ag_optim_options_default(AG_OPTIM_SGD, NULL), AG_ERR_INVALID_ARGUMENT, "ag_optim_options_default", "opt");
  CHECK_FAILS(ag_optim_options_default((ag_optim_kind)-1, &o), AG_ERR_INVALID_ARGUMENT, "ag_optim_options_default",
              "kind");
  CHECK_FAILS(ag_optimizer_step(NULL, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_optimizer_step", "opt");
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "optimiser defaults are the references'", optimiser_defaults_are_the_references);
    return;
  }
  char why[600];
  bool torch = test_python_module("torch", "torch.__version__", "1.13", "python3-torch", why, sizeof why);
  Suite *own = torch ? s : suite_create("test_optim");
  add_device_test(own, "every rule matches its double transcription", every_rule_matches_its_double_transcription);
  add_device_test(own, "f32 steps match the host's", f32_steps_match_the_hosts);
  add_device_test(own, "long arrays are updated everywhere", long_arrays_are_updated_everywhere);
  add_device_test(own, "bad optimiser input is refused naming the argument",
                  bad_optimiser_input_is_refused_naming_the_argument);
  add_device_test(own, "steps are counted and optimisers freed", steps_are_counted_and_optimisers_freed);
  add_device_test(own, "steps run on any queue of the device", steps_run_on_any_queue_of_the_device);
  if (!torch)
    test_run_without(own, "PyTorch", why);
  add_device_test(s, "torch trajectories match PyTorch", torch_trajectories_match_pytorch);
}
