/* tests/test_cbpdn.c - sporco's ConvBPDN (ag_cbpdn_create) on every device: sporco 0.2.2's
   cbpdn test problems (tests/data, see its README) reaching sporco's pinned values; the
   DFT-domain linear solves (LinSolveCheck); each iteration's statistics against the numpy
   transcription of sporco (tests/sporco_ref.py, skipped without numpy); refused input. f64
   where the device has double precision, f32 everywhere; tolerances stated per test and
   dtype. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "npy.h"
#include "python.h"
#include "solvers_common.h"

/* ---- data ---------------------------------------------------------------------------------- */

/* A problem of tests/data in anygpu's layout: sporco's D (Nd0, Nd1, M) as [M][Nd0][Nd1], its S
   (N0, N1) or (N0, N1, K) as [K][N0][N1] (K = 1 for a 2-D S), and X0 (N0, N1, M), when given,
   as [M][N0][N1]. */
typedef struct problem {
  npy_array d_src, s_src; /* as stored, for tests/sporco_ref.py */
  double *d, *s, *x0;
  size_t m, d0, d1, k, n0, n1;
} problem;

static problem load_problem(const char *base, bool with_x0) {
  char name[100];
  problem p = {0};
  snprintf(name, sizeof name, "sporco_cbpdn_%s_D", base);
  p.d_src = sv_load(name);
  snprintf(name, sizeof name, "sporco_cbpdn_%s_S", base);
  p.s_src = sv_load(name);
  ck_assert(p.d_src.ndim == 3 && (p.s_src.ndim == 2 || p.s_src.ndim == 3));
  p.d0 = p.d_src.shape[0], p.d1 = p.d_src.shape[1], p.m = p.d_src.shape[2];
  p.n0 = p.s_src.shape[0], p.n1 = p.s_src.shape[1], p.k = p.s_src.ndim == 3 ? p.s_src.shape[2] : 1;
  p.d = malloc(p.m * p.d0 * p.d1 * sizeof *p.d);
  p.s = malloc(p.k * p.n0 * p.n1 * sizeof *p.s);
  ck_assert(p.d != NULL && p.s != NULL);
  const double *d = p.d_src.data, *s = p.s_src.data;
  for (size_t j = 0; j < p.m; j++)
    for (size_t a = 0; a < p.d0 * p.d1; a++)
      p.d[j * p.d0 * p.d1 + a] = d[a * p.m + j];
  for (size_t k = 0; k < p.k; k++)
    for (size_t a = 0; a < p.n0 * p.n1; a++)
      p.s[k * p.n0 * p.n1 + a] = s[a * p.k + k];
  if (with_x0) {
    snprintf(name, sizeof name, "sporco_cbpdn_%s_X0", base);
    npy_array x0 = sv_load(name);
    ck_assert(x0.ndim == 3 && x0.shape[2] == p.m);
    p.x0 = malloc(p.m * p.n0 * p.n1 * sizeof *p.x0);
    ck_assert_ptr_nonnull(p.x0);
    const double *x = x0.data;
    for (size_t j = 0; j < p.m; j++)
      for (size_t a = 0; a < p.n0 * p.n1; a++)
        p.x0[j * p.n0 * p.n1 + a] = x[a * p.m + j];
    npy_free(&x0);
  }
  return p;
}

static void free_problem(problem *p) {
  npy_free(&p->d_src), npy_free(&p->s_src);
  free(p->d), free(p->s), free(p->x0);
}

/* The solver for @p p on @p dev in dtype @p t. */
static ag_solver *make_solver(ag_device *dev, ag_dtype t, const problem *p, double lmbda, const ag_admm_options *opt) {
  ag_array *d = sv_upload(dev, t, 3, (size_t[]){p->m, p->d0, p->d1}, p->d);
  ag_array *s = p->k == 1 ? sv_upload(dev, t, 2, (size_t[]){p->n0, p->n1}, p->s)
                          : sv_upload(dev, t, 3, (size_t[]){p->k, p->n0, p->n1}, p->s);
  ag_solver *b = NULL;
  ag_status st = ag_cbpdn_create(NULL, d, s, lmbda, opt, &b);
  ck_assert_msg(st == AG_OK, "%s: ag_cbpdn_create: %s", test_label(), ag_last_error());
  ag_array_free(d), ag_array_free(s);
  return b;
}

/* sum_m d_m * x_m for the first signal, the circular convolution written out (x [M][N0][N1]). */
static double *reconstruct(const problem *p, const double *x) {
  size_t n0 = p->n0, n1 = p->n1;
  double *r = calloc(n0 * n1, sizeof *r);
  ck_assert_ptr_nonnull(r);
  for (size_t j = 0; j < p->m; j++)
    for (size_t a = 0; a < p->d0; a++)
      for (size_t b = 0; b < p->d1; b++) {
        double w = p->d[(j * p->d0 + a) * p->d1 + b];
        for (size_t i0 = 0; i0 < n0; i0++)
          for (size_t i1 = 0; i1 < n1; i1++)
            r[i0 * n1 + i1] += w * x[(j * n0 + (i0 + n0 - a) % n0) * n1 + (i1 + n1 - b) % n1];
      }
  return r;
}

/* ||a - b|| / max(||a||, ||b||), tests/data/README.md's rrs. */
static double rrs(const double *a, const double *b, size_t n) {
  double e = 0, na = 0, nb = 0;
  for (size_t i = 0; i < n; i++)
    e += (a[i] - b[i]) * (a[i] - b[i]), na += a[i] * a[i], nb += b[i] * b[i];
  return sqrt(e) / sqrt(fmax(na, nb));
}

/* ---- sporco's pinned values ------------------------------------------------------------------ */

/* sporco's tests/admm/test_cbpdn.py test_10 (64 x 64) and test_11 (63 x 63, odd sides): a
   sparse X0 and S = D * X0, lmbda 1e-4, rho 0.1 fixed, MaxMainIter 500, RelStopTol 1e-3;
   sporco asserts rrs(X0, Y) < 5e-5 and rrs(S, D * Y) < 1e-4 (its run: 219 iterations, 1.9e-5
   and 1.8e-5; 248, 3.1e-5 and 2.8e-5). Both dtypes hold sporco's bounds: float32's rounding
   (6e-8 per operation) stays far below them. Each in the device's first dtype (f64 where it
   has it, else f32), to keep the suite quick; f32 on the other devices is run by the linear
   solve test below. */
START_TEST(cbpdn_reaches_sporcos_pinned_values) {
  ag_device *dev = test_device(_i);
  const char *bases[] = {"10", "11"};
  ag_dtype ts[2];
  sv_dtypes(dev, ts);
  for (int c = 0; c < 2; c++) {
    problem p = load_problem(bases[c], true);
    for (int ti = 0; ti < 1; ti++) {
      ag_admm_options opt;
      ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
      opt.max_iter = 500, opt.rel_stop_tol = 1e-3, opt.rho = 0.1, opt.auto_rho.enabled = false;
      ag_solver *b = make_solver(dev, ts[ti], &p, 1e-4, &opt);
      ck_assert_int_eq(ag_solver_solve(b), AG_OK);
      const ag_array *y = ag_solver_var_get(b, AG_VAR_RESULT);
      ck_assert_ptr_eq(y, ag_solver_var_get(b, AG_VAR_Y));
      ck_assert_int_eq(ag_array_ndim(y), 4);
      double *yh = sv_download(y), *sr = reconstruct(&p, yh);
      size_t nx = p.m * p.n0 * p.n1;
      double ex = rrs(p.x0, yh, nx), es = rrs(p.s, sr, p.n0 * p.n1);
      double bx = 5e-5, bs = 1e-4;
      printf("%s: test_%s %s: %zu iterations, rrs(X0, Y) %.3g, rrs(S, D * Y) %.3g\n", test_label(), bases[c],
             ag_dtype_name(ts[ti]), ag_solver_history(b, NULL), ex, es);
      ck_assert_msg(ex < bx && es < bs, "%s: test_%s %s: rrs(X0, Y) %g (bound %g), rrs(S, D * Y) %g (bound %g)",
                    test_label(), bases[c], ag_dtype_name(ts[ti]), ex, bx, es, bs);
      free(yh), free(sr);
      ag_solver_destroy(b);
    }
    free_problem(&p);
  }
}
END_TEST

/* sporco's test_08 (16 x 17, an odd half spectrum) and test_12 (16 x 16, three signals: its
   single-channel D with a 3-channel S, sporco's dimK=0) with lmbda 0.1 and LinSolveCheck:
   sporco asserts max XSlvRelRes < 1e-5 (its run: 1.4e-13, 8.0e-14). Here over the first 60
   iterations, AutoRho changing rho on the way. f64: 1e-10 (rounding of 4 products per
   frequency); f32: 1e-5, sporco's bound (float32 rounding, 6e-8 per operation). */
START_TEST(cbpdn_linear_solves_are_accurate) {
  ag_device *dev = test_device(_i);
  const char *bases[] = {"08", "12"};
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  for (int c = 0; c < 2; c++) {
    problem p = load_problem(bases[c], false);
    for (int ti = 0; ti < nt; ti++) {
      ag_admm_options opt;
      ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
      opt.lin_solve_check = true, opt.max_iter = 60;
      ag_solver *b = make_solver(dev, ts[ti], &p, 0.1, &opt);
      ck_assert_int_eq(ag_solver_solve(b), AG_OK);
      const ag_iter_stats *st;
      size_t n = ag_solver_history(b, &st);
      ck_assert_uint_gt(n, 10);
      double worst = 0, rho0 = st[0].rho;
      bool changed = false;
      for (size_t i = 0; i < n; i++)
        worst = fmax(worst, st[i].xrrs), changed |= st[i].rho != rho0;
      ck_assert_msg(rho0 == (ts[ti] == AG_F64 ? 6.0 : (double)(float)6.0), "%s: rho %g, sporco's default 50 lmbda + 1 is 6",
                    test_label(), rho0);
      double bound = ts[ti] == AG_F64 ? 1e-10 : 1e-5;
      printf("%s: test_%s %s: %zu iterations, max XSlvRelRes %.3g, rho changed: %d\n", test_label(), bases[c],
             ag_dtype_name(ts[ti]), n, worst, changed);
      ck_assert_msg(worst < bound && changed, "%s: test_%s %s: max XSlvRelRes %g (bound %g), rho changed %d",
                    test_label(), bases[c], ag_dtype_name(ts[ti]), worst, bound, changed);
      ag_solver_destroy(b);
    }
    free_problem(&p);
  }
}
END_TEST

/* ---- iterate by iterate with the numpy transcription of sporco ------------------------------- */

/* One run of tests/sporco_ref.py against ag_cbpdn_create with the same options. */
typedef struct ref_case {
  const char *name, *base;
  char *keys[10];
  double lmbda; /* NaN: the default */
  size_t max_iter;
  bool auto_rho, nonneg, aux_var_obj;
  double rho, relax;
} ref_case;

/* The default lmbda (0.1 max |conj(D^) S^|, 2.1 here) drives test_08's X to about 1e-16 of
   rounding from iteration 53 on, where numpy's primal residual is 0 / 0 (then 0) and anygpu's
   FFTs leave it 1: the run stops at 40. */
static const ref_case ref_cases[] = {
    {"test_08, the default lmbda and rho", "08", {"MaxMainIter=40", "LinSolveCheck=true", NULL}, NAN, 40, true, false,
     false, NAN, 1.8},
    {"test_12 as three signals", "12", {"lmbda=0.1", "MaxMainIter=60", "dimK=0", NULL}, 0.1, 60, true, false, false, NAN,
     1.8},
    {"test_08 non-negative, fixed rho, objective on Y", "08",
     {"lmbda=0.05", "MaxMainIter=40", "NonNegCoef=true", "rho=2", "AutoRho.Enabled=false", "RelaxParam=1.5",
      "AuxVarObj=true", NULL},
     0.05, 40, false, true, true, 2.0, 1.5},
};

/* The cases above in f64: each iteration's ObjFun, DFid, RegL1, residuals and rho as
   tests/sporco_ref.py gives them, to 1e-8 relative (the FFT libraries' rounding differs from
   numpy's by about 1e-15 per transform, amplified by the iteration). */
START_TEST(cbpdn_iterates_match_the_numpy_transcription_of_sporco) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  if (!info.fp64) {
    printf("%s: not run: the comparison is in f64, which the device does not have\n", test_label());
    return;
  }
  for (size_t c = 0; c < sizeof ref_cases / sizeof ref_cases[0]; c++) {
    const ref_case *rc = &ref_cases[c];
    problem p = load_problem(rc->base, false);
    const char *dir = test_tmp_dir("cbpdn");
    char path[700], err[700];
    snprintf(path, sizeof path, "%s/D.npy", dir);
    ck_assert(npy_write(path, NPY_F8, p.d_src.ndim, p.d_src.shape, p.d_src.data, err, sizeof err));
    snprintf(path, sizeof path, "%s/S.npy", dir);
    ck_assert(npy_write(path, NPY_F8, p.s_src.ndim, p.s_src.shape, p.s_src.data, err, sizeof err));
    npy_array h = sv_reference_history("cbpdn", dir, rc->keys);
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
    opt.max_iter = rc->max_iter, opt.auto_rho.enabled = rc->auto_rho, opt.nonneg = rc->nonneg, opt.rho = rc->rho;
    opt.relax = rc->relax, opt.lin_solve_check = true;
    if (rc->aux_var_obj)
      opt.f_eval_x = false, opt.g_eval_y = true;
    ag_solver *b = make_solver(dev, AG_F64, &p, rc->lmbda, &opt);
    ck_assert_int_eq(ag_solver_solve(b), AG_OK);
    sv_compare_history(rc->name, b, &h, 1e-8, 1e-12);
    ag_solver_destroy(b);
    npy_free(&h);
    free_problem(&p);
  }
}
END_TEST

/* ---- refused input --------------------------------------------------------------------------- */

START_TEST(bad_cbpdn_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  static const char fn[] = "ag_cbpdn_create";
  double v[4 * 8 * 8] = {1};
  ag_array *d = sv_upload(dev, AG_F32, 3, (size_t[]){2, 3, 3}, v), *s = sv_upload(dev, AG_F32, 2, (size_t[]){8, 8}, v);
  ag_array *big = sv_upload(dev, AG_F32, 3, (size_t[]){1, 9, 3}, v);
  ag_array *d4 = sv_upload(dev, AG_F32, 4, (size_t[]){2, 3, 3, 3}, v);
  ag_array *s4 = sv_upload(dev, AG_F32, 4, (size_t[]){1, 3, 8, 8}, v);
  ag_array *s1 = sv_upload(dev, AG_F32, 1, (size_t[]){8}, v);
  ag_array *si = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_I32, 2, (size_t[]){8, 8}, &si), AG_OK);
  ag_array *di = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_I32, 3, (size_t[]){2, 3, 3}, &di), AG_OK);
  ag_solver *b = (ag_solver *)&b;
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, 0.1, NULL, NULL), AG_ERR_INVALID_ARGUMENT, fn, "solver");
  CHECK_FAILS(ag_cbpdn_create(NULL, NULL, s, 0.1, NULL, &b), AG_ERR_INVALID_ARGUMENT, fn, "D");
  ck_assert_ptr_null(b);
  CHECK_FAILS(ag_cbpdn_create(NULL, d, si, 0.1, NULL, &b), AG_ERR_MISMATCH, fn, "S");
  CHECK_FAILS(ag_cbpdn_create(NULL, di, si, 0.1, NULL, &b), AG_ERR_UNSUPPORTED, fn, "i32");
  CHECK_FAILS(ag_cbpdn_create(NULL, big, s, 0.1, NULL, &b), AG_ERR_MISMATCH, fn, "larger than the signals");
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s1, 0.1, NULL, &b), AG_ERR_MISMATCH, fn, "S 2-D");
  CHECK_FAILS(ag_cbpdn_create(NULL, d4, s, 0.1, NULL, &b), AG_ERR_UNSUPPORTED, fn, "multi-channel");
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s4, 0.1, NULL, &b), AG_ERR_UNSUPPORTED, fn, "multi-channel");
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, -1.0, NULL, &b), AG_ERR_INVALID_ARGUMENT, fn, "lmbda");
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, INFINITY, NULL, &b), AG_ERR_INVALID_ARGUMENT, fn, "lmbda");
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
  opt.relax = 2.5;
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, 0.1, &opt, &b), AG_ERR_INVALID_ARGUMENT, fn, "opt->relax");
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
  opt.y0 = s;
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, 0.1, &opt, &b), AG_ERR_MISMATCH, fn, "opt->y0");
  ck_assert_ptr_null(b);
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  if (!info.fp64) {
    ag_array *d64 = NULL, *s64 = NULL;
    ck_assert_int_eq(ag_array_create(dev, AG_F64, 3, (size_t[]){2, 3, 3}, &d64), AG_OK);
    ck_assert_int_eq(ag_array_create(dev, AG_F64, 2, (size_t[]){8, 8}, &s64), AG_OK);
    CHECK_FAILS(ag_cbpdn_create(NULL, d64, s64, 0.1, NULL, &b), AG_ERR_UNSUPPORTED, fn, "f64");
    ag_array_free(d64), ag_array_free(s64);
  }
  /* a good call after the refused ones works: lmbda 0 and the default */
  ck_assert_int_eq(ag_cbpdn_create(NULL, d, s, NAN, NULL, &b), AG_OK);
  ck_assert(ag_solver_lambda(b) > 0 && ag_solver_kind_of(b) == AG_SOLVER_CBPDN);
  ag_solver_destroy(b);
  ag_array *arrays[] = {d, s, big, d4, s4, s1, si, di};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
}
END_TEST

/* Before any device is touched: a missing solver pointer or array. */
START_TEST(cbpdn_refuses_null_arguments) {
  ag_solver *b = (ag_solver *)&b;
  CHECK_FAILS(ag_cbpdn_create(NULL, NULL, NULL, 0.1, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_cbpdn_create", "solver");
  CHECK_FAILS(ag_cbpdn_create(NULL, NULL, NULL, 0.1, NULL, &b), AG_ERR_INVALID_ARGUMENT, "ag_cbpdn_create", "D");
  ck_assert_ptr_null(b);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "cbpdn refuses null arguments", cbpdn_refuses_null_arguments);
    return;
  }
  add_device_test(s, "cbpdn reaches sporco's pinned values", cbpdn_reaches_sporcos_pinned_values);
  add_device_test(s, "cbpdn linear solves are accurate", cbpdn_linear_solves_are_accurate);
  add_device_test(s, "bad cbpdn input is refused naming the argument", bad_cbpdn_input_is_refused_naming_the_argument);
  char why[600];
  if (test_python_module("numpy", "numpy.__version__", "1.", "python3-numpy", why, sizeof why))
    add_device_test(s, "cbpdn iterates match the numpy transcription of sporco",
                    cbpdn_iterates_match_the_numpy_transcription_of_sporco);
  else
    printf("SKIP (one tcase): the comparison with the numpy transcription of sporco did not run: %s\n", why);
}
