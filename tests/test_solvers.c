/* tests/test_solvers.c - sporco's solvers (solvers.h) on every device: sporco 0.2.2's own test
   problems (their seeded inputs in tests/data, made by tests/data/make_sporco_problems.py)
   reaching sporco's pinned values within sporco's tolerances; the Lasso optimality conditions;
   scikit-learn's Lasso at the same lambda (tests/solvers_peer.py, run by the build's Python,
   python.h; left out where scikit-learn is absent, and the suite then reports itself skipped); iterating in steps and callbacks; sporco's
   option defaults; refused input. f64 runs where the device has double precision, f32
   everywhere; the tolerances are stated per test and dtype. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "npy.h"
#include "python.h"
#include "solvers_common.h"

/* ---- data ---------------------------------------------------------------------------------- */

/* The one dtype of the comparisons with other libraries: f64 where the device has it. */
static ag_dtype best_dtype(ag_device *dev) {
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  return info.fp64 ? AG_F64 : AG_F32;
}

/* Seeded normal values (Box-Muller over a splitmix64 stream). */
static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static void randn(double *v, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    double u1 = ((double)(next_u64(&seed) >> 11) + 1) * 0x1p-53, u2 = (double)(next_u64(&seed) >> 11) * 0x1p-53;
    v[i] = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
  }
}

/* ---- BPDN ---------------------------------------------------------------------------------- */

/* sporco's tests/admm/test_bpdn.py test_08: D 64 x 128, a 4-sparse x0, s0 = D x0, lmbda 5e-3,
   MaxMainIter 500, RelStopTol 5e-4; sporco asserts ObjFun 0.012009, DFid 1.9636082e-06 and
   RegL1 2.401446 each within 1e-5, and ||Y - x0|| < 1e-3. f32: ObjFun and DFid within 1e-5,
   RegL1 within 1e-4 (its 2.4 carries float32's 2.4e-7 per operation over 500 iterations). */
START_TEST(bpdn_reaches_sporcos_pinned_values) {
  ag_device *dev = test_device(_i);
  npy_array D = sv_load("sporco_bpdn_08_D"), S = sv_load("sporco_bpdn_08_s0"), X0 = sv_load("sporco_bpdn_08_x0");
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  for (int it = 0; it < nt; it++) {
    ag_dtype t = ts[it];
    ag_array *d = sv_upload(dev, t, 2, D.shape, D.data), *s = sv_upload(dev, t, 2, S.shape, S.data);
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
    opt.max_iter = 500, opt.rel_stop_tol = 5e-4;
    ag_solver *b = NULL;
    ck_assert_msg(ag_bpdn_create(NULL, d, s, 5e-3, &opt, &b) == AG_OK, "%s: %s", test_label(), ag_last_error());
    ck_assert_msg(ag_solver_solve(b) == AG_OK, "%s: %s", test_label(), ag_last_error());
    const ag_iter_stats *h;
    size_t n = ag_solver_history(b, &h);
    ck_assert_uint_gt(n, 0);
    const ag_iter_stats *last = &h[n - 1];
    double treg = t == AG_F64 ? 1e-5 : 1e-4;
    printf("%s: BPDN %s: %zu iterations, ObjFun %.9g (sporco 0.012009), DFid %.9g (1.9636082e-06), RegL1 %.9g "
           "(2.401446)\n",
           test_label(), ag_dtype_name(t), n, last->obj, last->dfid, last->reg);
    ck_assert_msg(fabs(last->obj - 0.012009) < 1e-5, "%s: %s ObjFun %.9g", test_label(), ag_dtype_name(t), last->obj);
    ck_assert_msg(fabs(last->dfid - 1.9636082e-06) < 1e-5, "%s: %s DFid %.9g", test_label(), ag_dtype_name(t),
                  last->dfid);
    ck_assert_msg(fabs(last->reg - 2.401446) < treg, "%s: %s RegL1 %.9g", test_label(), ag_dtype_name(t), last->reg);
    double *y = sv_download(ag_solver_var_get(b, AG_VAR_RESULT)), e = 0;
    for (size_t i = 0; i < X0.count; i++)
      e += (y[i] - ((double *)X0.data)[i]) * (y[i] - ((double *)X0.data)[i]);
    ck_assert_msg(sqrt(e) < 1e-3, "%s: %s ||Y - x0|| is %g", test_label(), ag_dtype_name(t), sqrt(e));
    free(y);
    ag_solver_destroy(b);
    ag_array_free(d), ag_array_free(s);
  }
  npy_free(&D), npy_free(&S), npy_free(&X0);
}
END_TEST

/* sporco's test_03 (N 8, M 16: the Woodbury branch; lmbda 1, 20 iterations, LinSolveCheck,
   StdResiduals) and a square D (the eigendecomposition of D^T D): every x step's relative
   residual ||(D^T D + rho I) X - b|| / ||b|| below 1e-5 in f64 (sporco's bound), 1e-4 in f32;
   rho changes on the way (AutoRho), which the linear solve absorbs without refactorising. */
START_TEST(bpdn_linear_solves_are_accurate_as_rho_changes) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  const size_t sizes[][2] = {{8, 16}, {8, 8}, {24, 10}};
  for (int it = 0; it < nt; it++)
    for (size_t c = 0; c < 3; c++) {
      ag_dtype t = ts[it];
      size_t n = sizes[c][0], m = sizes[c][1];
      double dv[24 * 16], sv[24];
      randn(dv, n * m, 1 + c), randn(sv, n, 100 + c);
      ag_array *d = sv_upload(dev, t, 2, (size_t[]){n, m}, dv), *s = sv_upload(dev, t, 2, (size_t[]){n, 1}, sv);
      ag_admm_options opt;
      ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
      opt.max_iter = 20, opt.lin_solve_check = true, opt.auto_rho.std_residuals = true;
      opt.auto_rho.period = 3; /* more rho changes in 20 iterations than sporco's 10 */
      ag_solver *b = NULL;
      ck_assert_msg(ag_bpdn_create(NULL, d, s, 1.0, &opt, &b) == AG_OK, "%s: %s", test_label(), ag_last_error());
      ck_assert_int_eq(ag_solver_solve(b), AG_OK);
      const ag_iter_stats *h;
      size_t k = ag_solver_history(b, &h);
      ck_assert_uint_eq(k, 20);
      double worst = 0, rho0 = h[0].rho;
      bool changed = false;
      for (size_t i = 0; i < k; i++)
        worst = fmax(worst, h[i].xrrs), changed |= h[i].rho != rho0;
      double tol = t == AG_F64 ? 1e-5 : 1e-4;
      ck_assert_msg(worst < tol, "%s: %s D %zu x %zu: XSlvRelRes reached %g", test_label(), ag_dtype_name(t), n, m,
                    worst);
      ck_assert_msg(changed || ag_solver_rho(b) != rho0, "%s: rho never changed, so the test did not test that",
                    test_label());
      ag_solver_destroy(b);
      ag_array_free(d), ag_array_free(s);
    }
}
END_TEST

/* A wide D (N < M, nothing left out of V) takes BPDN's products through V: V^T Y and V^T U
   are carried from one iteration to the next (updated after U's update and when rho changes),
   not recomputed. The same problem with D and S padded by zero rows to a square D takes the
   direct path, with products of the current Y and U: each iteration's ObjFun, r, s and rho
   agree to 1e-8 relative in f64 (two eigendecompositions' rounding, grown over 40 iterations;
   a cache one iteration stale differs in the first digit), 1e-3 in f32 (where the device has
   no f64), with rho changing at every iteration (AutoRho period 1), with relax 1.8 and the
   objective at Y (the default, which reads V^T Y), and with relax 1 and the objective at X. */
START_TEST(bpdn_products_carried_through_v_match_the_direct_path_as_rho_changes) {
  ag_device *dev = test_device(_i);
  ag_dtype t = best_dtype(dev);
  enum { N = 12, M = 24, K = 3 };
  double dv[M * M] = {0}, sv[M * K] = {0};
  randn(dv, N * M, 41), randn(sv, N * K, 42); /* rows N..M-1 stay zero */
  for (int variant = 0; variant < 2; variant++) {
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
    opt.max_iter = 40, opt.rel_stop_tol = 0, opt.auto_rho.period = 1;
    if (variant == 1)
      opt.relax = 1.0, opt.f_eval_x = true, opt.g_eval_y = false;
    ag_solver *b[2] = {NULL, NULL};
    for (int padded = 0; padded < 2; padded++) {
      size_t n = padded ? M : N;
      ag_array *d = sv_upload(dev, t, 2, (size_t[]){n, M}, dv), *s = sv_upload(dev, t, 2, (size_t[]){n, K}, sv);
      ck_assert_msg(ag_bpdn_create(NULL, d, s, 0.1, &opt, &b[padded]) == AG_OK, "%s: %s", test_label(),
                    ag_last_error());
      ck_assert_msg(ag_solver_solve(b[padded]) == AG_OK, "%s: %s", test_label(), ag_last_error());
      ag_array_free(d), ag_array_free(s);
    }
    const ag_iter_stats *hv, *hd;
    ck_assert_uint_eq(ag_solver_history(b[0], &hv), 40);
    ck_assert_uint_eq(ag_solver_history(b[1], &hd), 40);
    double tol = t == AG_F64 ? 1e-8 : 1e-3, worst = 0;
    size_t changes = 0;
    for (size_t k = 0; k < 40; k++) {
      double pairs[4][2] = {{hv[k].obj, hd[k].obj}, {hv[k].r, hd[k].r}, {hv[k].s, hd[k].s}, {hv[k].rho, hd[k].rho}};
      for (int f = 0; f < 4; f++) {
        double rel = fabs(pairs[f][0] - pairs[f][1]) / fmax(fabs(pairs[f][1]), 1e-300);
        worst = fmax(worst, rel);
        ck_assert_msg(rel < tol, "%s: %s variant %d iteration %zu: field %d is %.12g through V, %.12g directly",
                      test_label(), ag_dtype_name(t), variant, k, f, pairs[f][0], pairs[f][1]);
      }
      changes += k > 0 && hv[k].rho != hv[k - 1].rho;
    }
    ck_assert_msg(changes >= 10, "%s: rho changed %zu times in 40 iterations, too few to test its hook", test_label(),
                  changes);
    printf("%s: %s variant %d: rho changed %zu times, largest relative difference %.2g\n", test_label(),
           ag_dtype_name(t), variant, changes, worst);
    ag_solver_destroy(b[0]), ag_solver_destroy(b[1]);
  }
}
END_TEST

/* The Lasso's optimality conditions at the solution of a problem with many signals: with
   g = D^T (S - D Y), g_i = lmbda sign(y_i) where y_i != 0 and |g_i| <= lmbda elsewhere, to
   2e-3 lmbda in f64 and 2e-2 lmbda in f32 at RelStopTol 1e-6 (f64 where the device has it,
   else f32). rho stays at its default
   (50 lmbda + 1): with sporco's AutoRho this problem's rho falls to 0.03 and the iterations
   crawl, r still 7e-4 after 2000 of them, as in sporco's own (tests/sporco_ref.py). */
START_TEST(bpdn_solutions_meet_the_lasso_optimality_conditions) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[1] = {best_dtype(dev)};
  enum { N = 20, M = 40, K = 5 };
  double dv[N * M], x0[M * K] = {0}, sv[N * K];
  randn(dv, N * M, 7);
  for (size_t j = 0; j < K; j++)
    for (size_t i = j; i < M; i += 9)
      x0[i * K + j] = 1.0 + 0.1 * (double)i;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < K; j++) {
      double acc = 0;
      for (size_t l = 0; l < M; l++)
        acc += dv[i * M + l] * x0[l * K + j];
      sv[i * K + j] = acc;
    }
  const double lmbda = 0.5;
  for (int it = 0; it < 1; it++) {
    ag_dtype t = ts[it];
    ag_array *d = sv_upload(dev, t, 2, (size_t[]){N, M}, dv), *s = sv_upload(dev, t, 2, (size_t[]){N, K}, sv);
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
    opt.max_iter = 1500, opt.rel_stop_tol = 1e-6, opt.auto_rho.enabled = false;
    ag_solver *b = NULL;
    ck_assert_int_eq(ag_bpdn_create(NULL, d, s, lmbda, &opt, &b), AG_OK);
    ck_assert_int_eq(ag_solver_solve(b), AG_OK);
    double *y = sv_download(ag_solver_var_get(b, AG_VAR_Y));
    double tol = (t == AG_F64 ? 2e-3 : 2e-2) * lmbda, worst = 0;
    size_t nonzero = 0;
    for (size_t i = 0; i < M; i++)
      for (size_t j = 0; j < K; j++) {
        double g = 0;
        for (size_t r = 0; r < N; r++) {
          double res = sv[r * K + j];
          for (size_t l = 0; l < M; l++)
            res -= dv[r * M + l] * y[l * K + j];
          g += dv[r * M + i] * res;
        }
        double yi = y[i * K + j];
        double e = yi != 0 ? fabs(g - lmbda * (yi > 0 ? 1 : -1)) : fmax(fabs(g) - lmbda, 0);
        nonzero += yi != 0;
        worst = fmax(worst, e);
      }
    fflush(stdout);
    printf("%s: BPDN %s: %zu of %d coefficients nonzero, worst optimality violation %.3g (tolerance %.3g)\n",
           test_label(), ag_dtype_name(t), nonzero, M * K, worst, tol);
    ck_assert_msg(worst <= tol, "%s: %s: the optimality conditions are violated by %g", test_label(), ag_dtype_name(t),
                  worst);
    ck_assert_msg(nonzero > 0 && nonzero < M * K, "%s: %zu nonzero coefficients: not a sparse solution", test_label(),
                  nonzero);
    free(y);
    ag_solver_destroy(b);
    ag_array_free(d), ag_array_free(s);
  }
}
END_TEST

/* scikit-learn's Lasso minimises (1/2n) ||s - D w||^2 + alpha ||w||_1, so sporco's lmbda is
   alpha n: on sporco's test_08 signal with noise added, at lmbda 0.2, the objectives agree
   within 1e-5 relative (f64, or f32 where the device has no f64: 1e-4). (The noiseless
   signal at lmbda 5e-3 agrees as well, to 3e-12 in f64, but takes as long again.) */
START_TEST(bpdn_agrees_with_scikit_learn_lasso) {
  ag_device *dev = test_device(_i);
  npy_array D = sv_load("sporco_bpdn_08_D"), S = sv_load("sporco_bpdn_08_s0");
  size_t n = D.shape[0], m = D.shape[1];
  double *noisy = malloc(n * sizeof *noisy);
  ck_assert_ptr_nonnull(noisy);
  randn(noisy, n, 99);
  for (size_t i = 0; i < n; i++)
    noisy[i] = ((double *)S.data)[i] + 0.05 * noisy[i];
  const char *dir = test_tmp_dir("solvers");
  char dpath[600], spath[600], err[600], script[600], out[4096];
  snprintf(dpath, sizeof dpath, "%s/D.npy", dir);
  ck_assert_msg(npy_write(dpath, NPY_F8, 2, D.shape, D.data, err, sizeof err), "%s", err);
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  snprintf(script, sizeof script, "%s/solvers_peer.py", src && *src ? src : "tests");
  ag_dtype ts[1] = {best_dtype(dev)};
  int nt = 1;
  const double lmbdas[2] = {5e-3, 0.2};
  for (int c = 1; c < 2; c++) {
    const double *sig = c == 0 ? S.data : noisy;
    snprintf(spath, sizeof spath, "%s/S.npy", dir);
    ck_assert_msg(npy_write(spath, NPY_F8, 2, (size_t[]){n, 1}, sig, err, sizeof err), "%s", err);
    char lm[64];
    snprintf(lm, sizeof lm, "%.17g", lmbdas[c]);
    char *args[] = {"python3", script, "lasso", dpath, spath, lm, NULL};
    int rc = test_run_python(args, out, sizeof out);
    ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", test_label(), script, rc, out);
    double ref;
    const char *line = strstr(out, "objective ");
    ck_assert_msg(line != NULL && sscanf(line, "objective %lf", &ref) == 1, "%s: no objective in:\n%s", test_label(),
                  out);
    for (int it = 0; it < nt; it++) {
      ag_dtype t = ts[it];
      ag_array *d = sv_upload(dev, t, 2, D.shape, D.data), *s = sv_upload(dev, t, 2, (size_t[]){n, 1}, sig);
      ag_admm_options opt;
      ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
      opt.max_iter = 1500, opt.rel_stop_tol = t == AG_F64 ? 1e-7 : 1e-5;
      ag_solver *b = NULL;
      ck_assert_int_eq(ag_bpdn_create(NULL, d, s, lmbdas[c], &opt, &b), AG_OK);
      ck_assert_int_eq(ag_solver_solve(b), AG_OK);
      const ag_iter_stats *h;
      size_t k = ag_solver_history(b, &h);
      double obj = h[k - 1].obj, rel = fabs(obj - ref) / ref, tol = t == AG_F64 ? 1e-5 : 1e-4;
      printf("%s: BPDN %s lmbda %g: objective %.10g, scikit-learn's Lasso %.10g (relative %.2g, %zu iterations)\n",
             test_label(), ag_dtype_name(t), lmbdas[c], obj, ref, rel, k);
      ck_assert_msg(rel < tol, "%s: %s lmbda %g: objective %.10g, Lasso's %.10g", test_label(), ag_dtype_name(t),
                    lmbdas[c], obj, ref);
      ag_solver_destroy(b);
      ag_array_free(d), ag_array_free(s);
    }
    (void)m;
  }
  free(noisy);
  npy_free(&D), npy_free(&S);
}
END_TEST

/* ---- total variation ------------------------------------------------------------------------ */

/* sporco's TV test signals: U = 1 with -1 on the first half of axis 1, S = U + V, V stored. */
static double *tv_signal(const npy_array *v, double **clean) {
  double *s = malloc(v->count * sizeof *s), *u = malloc(v->count * sizeof *u);
  ck_assert(s != NULL && u != NULL);
  size_t n1 = v->shape[1], inner = v->ndim == 3 ? v->shape[2] : 1;
  for (size_t i = 0; i < v->count; i++) {
    size_t p1 = i / inner % n1;
    u[i] = p1 < n1 / 2 ? -1.0 : 1.0;
    s[i] = u[i] + ((double *)v->data)[i];
  }
  *clean = u;
  return s;
}

typedef struct tv_case {
  const char *name, *data;
  bool l1;
  double lmbda, rho; /* rho NaN: the default */
  size_t max_iter;
  int naxes;
  double pinned, tol, mse_tol; /* sporco's */
  double tol32;                /* ObjFun's tolerance in f32, relative */
} tv_case;


/* sporco 0.2.2's tests/admm/test_tvl1.py and test_tvl2.py, TestSet02 to 04 (the denoisers),
   gEvalY False. f64: sporco's tolerances (absolute, on ObjFun, and on the mean squared
   error from the clean U). f32 cannot resolve 1e-6 of 447 or 6219, so there ObjFun is held
   to the stated relative tolerance and mse to sporco's bound. Every case in f64 where the
   device has it; in f32 every case where it has not, and TVL1 Set02 where it has. */
static const tv_case tv_cases[] = {
    {"TVL1 Set02 (2-D)", "sporco_tvl1_2d_V", true, 3, NAN, 250, 2, 447.78101756451662, 1e-6, 1e-6, 2e-6},
    {"TVL1 Set03 (3-D, axes 0 1)", "sporco_tvl1_3d_V", true, 3, NAN, 250, 2, 6219.3241727233126, 1e-6, 1e-6, 2e-6},
    {"TVL1 Set04 (3-D, axes 0 1 2)", "sporco_tvl1_3d_V", true, 3, NAN, 250, 3, 6219.6209699337605, 1e-6, 1e-6, 2e-6},
    {"TVL2 Set02 (2-D)", "sporco_tvl2_2d_V", false, 0.1, 7.5, 300, 2, 32.875710674129564, 1e-3, 1e-3, 2e-6},
    {"TVL2 Set03 (3-D, axes 0 1)", "sporco_tvl2_3d_V", false, 0.1, 1.0, 250, 2, 363.0802047, 1e-3, 1e-3, 2e-6},
    {"TVL2 Set04 (3-D, axes 0 1 2)", "sporco_tvl2_3d_V", false, 0.1, 1.0, 250, 3, 366.04267554965134, 1e-3, 1e-3, 2e-6},
};

/* Where the device has f64, f32 runs only TVL1 Set02 (2-D, 37 iterations); devices without
   f64 run every case in f32. */
static bool f32_also(const tv_case *c) { return c == &tv_cases[0]; }

static ag_solver *tv_solve(ag_device *dev, ag_dtype t, const tv_case *c, const npy_array *v, const double *sig) {
  ag_array *s = sv_upload(dev, t, v->ndim, v->shape, sig);
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(c->l1 ? AG_SOLVER_TVL1 : AG_SOLVER_TVL2, &opt), AG_OK);
  opt.g_eval_y = false, opt.max_iter = c->max_iter, opt.rho = c->rho;
  const int axes[3] = {0, 1, 2};
  ag_solver *b = NULL;
  ag_status st = c->l1 ? ag_tvl1_create(NULL, s, c->lmbda, axes, (size_t)c->naxes, &opt, &b)
                       : ag_tvl2_create(NULL, s, c->lmbda, axes, (size_t)c->naxes, &opt, &b);
  ck_assert_msg(st == AG_OK, "%s: %s: %s", test_label(), c->name, ag_last_error());
  ck_assert_msg(ag_solver_solve(b) == AG_OK, "%s: %s: %s", test_label(), c->name, ag_last_error());
  ag_array_free(s);
  return b;
}

START_TEST(tv_denoisers_reach_sporcos_pinned_values) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  for (size_t ci = 0; ci < sizeof tv_cases / sizeof tv_cases[0]; ci++) {
    const tv_case *c = &tv_cases[ci];
    npy_array v = sv_load(c->data);
    double *u, *sig = tv_signal(&v, &u);
    for (int it = 0; it < nt; it++) {
      ag_dtype t = ts[it];
      if (t == AG_F32 && nt == 2 && !f32_also(c))
        continue;
      ag_solver *b = tv_solve(dev, t, c, &v, sig);
      const ag_iter_stats *h;
      size_t n = ag_solver_history(b, &h);
      double *x = sv_download(ag_solver_var_get(b, AG_VAR_X)), mse = 0;
      for (size_t i = 0; i < v.count; i++)
        mse += (x[i] - u[i]) * (x[i] - u[i]);
      mse /= (double)v.count;
      double obj = h[n - 1].obj, err = fabs(obj - c->pinned);
      double tol = t == AG_F64 ? c->tol : fmax(c->tol, c->tol32 * c->pinned);
      printf("%s: %s %s: %zu iterations, ObjFun %.17g (sporco %.17g, |difference| %.3g, tolerance %.3g), mse %.3g\n",
             test_label(), c->name, ag_dtype_name(t), n, obj, c->pinned, err, tol, mse);
      ck_assert_msg(err < tol, "%s: %s %s: ObjFun %.17g, sporco's %.17g", test_label(), c->name, ag_dtype_name(t), obj,
                    c->pinned);
      ck_assert_msg(mse < c->mse_tol, "%s: %s %s: mse %g", test_label(), c->name, ag_dtype_name(t), mse);
      free(x);
      ag_solver_destroy(b);
    }
    free(sig), free(u);
    npy_free(&v);
  }
}
END_TEST

/* ---- robust PCA ----------------------------------------------------------------------------- */

/* sporco's tests/admm/test_rpca.py test_01: U = u u^T (64 x 64, rank 5) plus a 10-sparse V,
   gEvalY False, MaxMainIter 250, AutoRho on; sporco asserts ObjFun 321.493968419 within 1e-6,
   mse(U, X) < 5e-6 and mse(V, Y) < 1e-8. f32: ObjFun within 2e-6 relative, the mse bounds
   as sporco's. */
static double *rpca_problem(npy_array *u, npy_array *v, double **low) {
  *u = sv_load("sporco_rpca_01_u"), *v = sv_load("sporco_rpca_01_V");
  size_t n = u->shape[0], k = u->shape[1];
  double *d = malloc(n * n * sizeof *d), *l = malloc(n * n * sizeof *l);
  ck_assert(d != NULL && l != NULL);
  const double *uu = u->data, *vv = v->data;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double acc = 0;
      for (size_t r = 0; r < k; r++)
        acc += uu[i * k + r] * uu[j * k + r];
      l[i * n + j] = acc;
      d[i * n + j] = acc + vv[i * n + j];
    }
  *low = l;
  return d;
}

static ag_solver *rpca_solve(ag_device *dev, ag_dtype t, const double *d, size_t n) {
  ag_array *s = sv_upload(dev, t, 2, (size_t[]){n, n}, d);
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_RPCA, &opt), AG_OK);
  opt.g_eval_y = false, opt.max_iter = 250, opt.auto_rho.enabled = true;
  ag_solver *b = NULL;
  ck_assert_msg(ag_rpca_create(NULL, s, NAN, &opt, &b) == AG_OK, "%s: %s", test_label(), ag_last_error());
  ck_assert_msg(ag_solver_solve(b) == AG_OK, "%s: %s", test_label(), ag_last_error());
  ag_array_free(s);
  return b;
}

START_TEST(rpca_reaches_sporcos_pinned_values) {
  ag_device *dev = test_device(_i);
  npy_array u, v;
  double *low, *d = rpca_problem(&u, &v, &low);
  size_t n = v.shape[0];
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  for (int it = 0; it < nt; it++) {
    ag_dtype t = ts[it];
    ag_solver *b = rpca_solve(dev, t, d, n);
    const ag_iter_stats *h;
    size_t k = ag_solver_history(b, &h);
    double *x = sv_download(ag_solver_var_get(b, AG_VAR_X)), *y = sv_download(ag_solver_var_get(b, AG_VAR_Y));
    double mx = 0, my = 0;
    for (size_t i = 0; i < n * n; i++) {
      mx += (x[i] - low[i]) * (x[i] - low[i]);
      my += (y[i] - ((double *)v.data)[i]) * (y[i] - ((double *)v.data)[i]);
    }
    mx /= (double)(n * n), my /= (double)(n * n);
    double obj = h[k - 1].obj, tol = t == AG_F64 ? 1e-6 : 2e-6 * 321.493968419;
    printf("%s: RobustPCA %s: %zu iterations, ObjFun %.12g (sporco 321.493968419, tolerance %.2g), mse(U, X) %.3g, "
           "mse(V, Y) %.3g\n",
           test_label(), ag_dtype_name(t), k, obj, tol, mx, my);
    ck_assert_msg(fabs(obj - 321.493968419) < tol, "%s: %s ObjFun %.12g", test_label(), ag_dtype_name(t), obj);
    ck_assert_msg(mx < 5e-6 && my < 1e-8, "%s: %s mse %g %g", test_label(), ag_dtype_name(t), mx, my);
    free(x), free(y);
    ag_solver_destroy(b);
  }
  free(d), free(low);
  npy_free(&u), npy_free(&v);
}
END_TEST

/* ---- iterate by iterate with the numpy transcription of sporco ------------------------------- */

/* sporco's BPDN test_08 and a run with LinSolveCheck, NonNegCoef and fixed rho on the
   many-signal problem, f64: each iteration's statistics as tests/sporco_ref.py gives them, to
   1e-7 relative. */
START_TEST(bpdn_iterates_match_the_numpy_transcription_of_sporco) {
  ag_device *dev = test_device(_i);
  if (best_dtype(dev) != AG_F64) {
    printf("%s: not run: the comparison is in f64, which the device does not have\n", test_label());
    return;
  }
  npy_array D = sv_load("sporco_bpdn_08_D"), S = sv_load("sporco_bpdn_08_s0");
  const char *dir = test_tmp_dir("solvers");
  char path[700], err[700];
  snprintf(path, sizeof path, "%s/D.npy", dir);
  ck_assert(npy_write(path, NPY_F8, 2, D.shape, D.data, err, sizeof err));
  snprintf(path, sizeof path, "%s/S.npy", dir);
  ck_assert(npy_write(path, NPY_F8, 2, S.shape, S.data, err, sizeof err));
  char *keys[] = {"lmbda=5e-3", "MaxMainIter=500", "RelStopTol=5e-4", NULL};
  npy_array h = sv_reference_history("bpdn", dir, keys);
  ag_array *d = sv_upload(dev, AG_F64, 2, D.shape, D.data), *s = sv_upload(dev, AG_F64, 2, S.shape, S.data);
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
  opt.max_iter = 500, opt.rel_stop_tol = 5e-4;
  ag_solver *b = NULL;
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 5e-3, &opt, &b), AG_OK);
  ck_assert_int_eq(ag_solver_solve(b), AG_OK);
  sv_compare_history("BPDN test_08", b, &h, 1e-7, 1e-12);
  ag_solver_destroy(b);
  npy_free(&h);
  /* NonNegCoef, LinSolveCheck, rho 2 fixed, RelaxParam 1.5, 40 iterations */
  char *keys2[] = {"lmbda=0.02", "MaxMainIter=40", "NonNegCoef=true", "LinSolveCheck=true", "rho=2",
                   "AutoRho.Enabled=false", "RelaxParam=1.5", NULL};
  h = sv_reference_history("bpdn", dir, keys2);
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
  opt.max_iter = 40, opt.nonneg = true, opt.lin_solve_check = true, opt.rho = 2, opt.auto_rho.enabled = false;
  opt.relax = 1.5;
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 0.02, &opt, &b), AG_OK);
  ck_assert_int_eq(ag_solver_solve(b), AG_OK);
  sv_compare_history("BPDN non-negative, fixed rho", b, &h, 1e-7, 1e-12);
  ag_solver_destroy(b);
  npy_free(&h);
  ag_array_free(d), ag_array_free(s);
  npy_free(&D), npy_free(&S);
}
END_TEST

/* sporco's TVL1 Set02 and TVL2 Set03 (3-D, TV over axes 0 and 1), f64: each iteration's
   statistics as tests/sporco_ref.py gives them, to 1e-8 relative. */
START_TEST(tv_iterates_match_the_numpy_transcription_of_sporco) {
  ag_device *dev = test_device(_i);
  if (best_dtype(dev) != AG_F64) {
    printf("%s: not run: the comparison is in f64, which the device does not have\n", test_label());
    return;
  }
  const tv_case *cases[2] = {&tv_cases[0], &tv_cases[4]};
  for (int ci = 0; ci < 2; ci++) {
    const tv_case *c = cases[ci];
    npy_array v = sv_load(c->data);
    double *u, *sig = tv_signal(&v, &u);
    const char *dir = test_tmp_dir("solvers");
    char path[700], err[700], lm[64], rho[64], its[64];
    snprintf(path, sizeof path, "%s/S.npy", dir);
    ck_assert(npy_write(path, NPY_F8, v.ndim, v.shape, sig, err, sizeof err));
    snprintf(lm, sizeof lm, "lmbda=%.17g", c->lmbda);
    snprintf(rho, sizeof rho, isnan(c->rho) ? "rho=none" : "rho=%.17g", c->rho);
    snprintf(its, sizeof its, "MaxMainIter=%zu", c->max_iter);
    char *keys[] = {lm, rho, its, "gEvalY=false", "axes=0,1", NULL};
    npy_array h = sv_reference_history(c->l1 ? "tvl1" : "tvl2", dir, keys);
    ag_solver *b = tv_solve(dev, AG_F64, c, &v, sig);
    sv_compare_history(c->name, b, &h, 1e-8, 1e-12);
    ag_solver_destroy(b);
    npy_free(&h);
    free(sig), free(u);
    npy_free(&v);
  }
}
END_TEST

/* sporco's RobustPCA test_01, f64: each iteration's statistics (NrmNuc in DFid, NrmL1 in Reg)
   as tests/sporco_ref.py gives them, to 1e-8 relative. */
START_TEST(rpca_iterates_match_the_numpy_transcription_of_sporco) {
  ag_device *dev = test_device(_i);
  if (best_dtype(dev) != AG_F64) {
    printf("%s: not run: the comparison is in f64, which the device does not have\n", test_label());
    return;
  }
  npy_array u, v;
  double *low, *d = rpca_problem(&u, &v, &low);
  size_t n = v.shape[0];
  const char *dir = test_tmp_dir("solvers");
  char path[700], err[700];
  snprintf(path, sizeof path, "%s/S.npy", dir);
  ck_assert(npy_write(path, NPY_F8, 2, (size_t[]){n, n}, d, err, sizeof err));
  char *keys[] = {"gEvalY=false", "MaxMainIter=250", "AutoRho.Enabled=true", NULL};
  npy_array h = sv_reference_history("rpca", dir, keys);
  ag_solver *b = rpca_solve(dev, AG_F64, d, n);
  sv_compare_history("RobustPCA test_01", b, &h, 1e-8, 1e-12);
  ag_solver_destroy(b);
  npy_free(&h);
  free(d), free(low);
  npy_free(&u), npy_free(&v);
}
END_TEST

/* scikit-image's denoise_tv_chambolle(S, weight) minimises sporco's TVL2Denoise objective with
   lmbda = weight (isotropic, forward differences, the last one 0): on a 32 x 32 part of sporco's
   TestSet02 image across its edge, 400 iterations with AutoRho on (sporco's default
   otherwise) bring the objective within 1e-5 relative of Chambolle's converged one (eps
   1e-12); both converged further (AutoRho, 10 sweeps an x step, 2000 iterations) they agree to
   3e-7 (tests/sporco_ref.py), which is too long a run for every device here. f64, or f32 where
   the device has no f64. */
START_TEST(tvl2_agrees_with_scikit_image_chambolle) {
  ag_device *dev = test_device(_i);
  npy_array v = sv_load("sporco_tvl2_2d_V");
  double *u, *sig = tv_signal(&v, &u), part[32 * 32];
  for (size_t r = 0; r < 32; r++)
    for (size_t c = 0; c < 32; c++)
      part[r * 32 + c] = sig[(16 + r) * 64 + 16 + c];
  const char *dir = test_tmp_dir("solvers");
  char path[700], err[700], script[600], out[4096];
  snprintf(path, sizeof path, "%s/tv.npy", dir);
  ck_assert(npy_write(path, NPY_F8, 2, (size_t[]){32, 32}, part, err, sizeof err));
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  snprintf(script, sizeof script, "%s/solvers_peer.py", src && *src ? src : "tests");
  char *args[] = {"python3", script, "tv", path, "0.1", NULL};
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", test_label(), script, rc, out);
  double ref;
  const char *line = strstr(out, "objective ");
  ck_assert_msg(line != NULL && sscanf(line, "objective %lf", &ref) == 1, "%s: no objective in:\n%s", test_label(),
                out);
  ag_dtype ts[1] = {best_dtype(dev)};
  for (int it = 0; it < 1; it++) {
    ag_dtype t = ts[it];
    ag_array *s = sv_upload(dev, t, 2, (size_t[]){32, 32}, part);
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_TVL2, &opt), AG_OK);
    opt.max_iter = 400, opt.rel_stop_tol = 0, opt.auto_rho.enabled = true, opt.g_eval_y = false;
    ag_solver *b = NULL;
    ck_assert_int_eq(ag_tvl2_create(NULL, s, 0.1, NULL, 0, &opt, &b), AG_OK);
    ck_assert_int_eq(ag_solver_solve(b), AG_OK);
    const ag_iter_stats *h;
    size_t k = ag_solver_history(b, &h);
    double obj = h[k - 1].obj, rel = fabs(obj - ref) / ref, tol = 1e-5;
    printf("%s: TVL2 %s: objective %.10g, scikit-image's Chambolle %.10g (relative %.2g, %zu iterations)\n",
           test_label(), ag_dtype_name(t), obj, ref, rel, k);
    ck_assert_msg(rel < tol, "%s: %s: objective %.10g, Chambolle's %.10g", test_label(), ag_dtype_name(t), obj, ref);
    ag_solver_destroy(b);
    ag_array_free(s);
  }
  free(sig), free(u);
  npy_free(&v);
}
END_TEST

static int stop_after_5(const ag_solver *s, const ag_iter_stats *st, void *user) {
  (void)s;
  ++*(int *)user;
  return st->k > 5; /* sporco's CallbackTest: obj.k > 5 */
}

/* Thirty iterations in one call, in three calls of ten, and with a callback that stops the
   run after iteration 6 as sporco's CallbackTest does: the same statistics, bit for bit. */
START_TEST(iterating_in_steps_matches_one_run_and_callbacks_stop_it) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  sv_dtypes(dev, ts);
  enum { N = 12, M = 20 };
  double dv[N * M], sv[N * 2];
  randn(dv, N * M, 3), randn(sv, N * 2, 4);
  ag_array *d = sv_upload(dev, AG_F32, 2, (size_t[]){N, M}, dv), *s = sv_upload(dev, AG_F32, 2, (size_t[]){N, 2}, sv);
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
  opt.max_iter = 30, opt.rel_stop_tol = 0;
  ag_solver *a = NULL, *b = NULL, *c = NULL;
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 0.3, &opt, &a), AG_OK);
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 0.3, &opt, &b), AG_OK);
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 0.3, &opt, &c), AG_OK);
  ag_array_free(d), ag_array_free(s); /* the solvers keep copies */
  ck_assert_int_eq(ag_solver_solve(a), AG_OK);
  size_t done;
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(ag_solver_iterate(b, 10, &done), AG_OK);
    ck_assert_uint_eq(done, 10);
  }
  const ag_iter_stats *ha, *hb, *hc;
  ck_assert_uint_eq(ag_solver_history(a, &ha), 30);
  ck_assert_uint_eq(ag_solver_history(b, &hb), 30);
  for (size_t k = 0; k < 30; k++) {
    ck_assert_uint_eq(hb[k].k, k);
    ck_assert_msg(ha[k].obj == hb[k].obj && ha[k].r == hb[k].r && ha[k].rho == hb[k].rho,
                  "%s: iteration %zu differs between one run and three", test_label(), k);
  }
  int calls = 0;
  ck_assert_int_eq(ag_solver_set_callback(c, stop_after_5, &calls), AG_OK);
  ck_assert_int_eq(ag_solver_iterate(c, 30, &done), AG_OK);
  ck_assert_uint_eq(done, 7);
  ck_assert_int_eq(calls, 7);
  ck_assert_uint_eq(ag_solver_history(c, &hc), 7);
  ck_assert(hc[6].obj == ha[6].obj);
  ck_assert(!ag_solver_converged(c));
  ag_solver_destroy(a), ag_solver_destroy(b), ag_solver_destroy(c);
}
END_TEST

START_TEST(bad_solver_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  double v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  ag_array *d = sv_upload(dev, AG_F32, 2, (size_t[]){3, 4}, v), *s = sv_upload(dev, AG_F32, 2, (size_t[]){3, 1}, v);
  ag_array *s5 = sv_upload(dev, AG_F32, 2, (size_t[]){5, 1}, v), *dd = NULL;
  ck_assert_int_eq(ag_array_from_host(dev, AG_U8, 2, (size_t[]){3, 4}, (uint8_t[12]){0}, &dd), AG_OK);
  ag_solver *b = (ag_solver *)&b;
  struct {
    const ag_array *d, *s;
    double lmbda;
    ag_status want;
    const char *says;
  } cases[] = {
      {NULL, s, 1, AG_ERR_INVALID_ARGUMENT, "ag_bpdn_create: D is NULL"},
      {d, NULL, 1, AG_ERR_INVALID_ARGUMENT, "ag_bpdn_create: S is NULL"},
      {d, s5, 1, AG_ERR_MISMATCH, "ag_bpdn_create: S has 5 rows and D 3"},
      {dd, s, 1, AG_ERR_MISMATCH, "ag_bpdn_create: D is u8"},
      {d, s, -1, AG_ERR_INVALID_ARGUMENT, "ag_bpdn_create: lmbda is -1"},
      {d, s, INFINITY, AG_ERR_INVALID_ARGUMENT, "ag_bpdn_create: lmbda is inf"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    b = (ag_solver *)&b;
    ag_status st = ag_bpdn_create(NULL, cases[i].d, cases[i].s, cases[i].lmbda, NULL, &b);
    ck_assert_msg(st == cases[i].want && strstr(ag_last_error(), cases[i].says) != NULL,
                  "%s: case %zu: %s, %s; wanted %s, %s", test_label(), i, ag_status_name(st), ag_last_error(),
                  ag_status_name(cases[i].want), cases[i].says);
    ck_assert_ptr_null(b);
  }
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
  opt.relax = 2.5;
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 1, &opt, &b), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_bpdn_create: opt->relax is 2.5"));
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
  opt.rho = -1;
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 1, &opt, &b), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_bpdn_create: opt->rho is -1"));
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &opt), AG_OK);
  opt.y0 = s5;
  ck_assert_int_eq(ag_bpdn_create(NULL, d, s, 1, &opt, &b), AG_ERR_MISMATCH);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_bpdn_create: opt->y0 is f32 of 5 elements"));
  ck_assert_ptr_null(b);
  /* TV and robust PCA */
  ag_array *s4 = NULL, *c = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_F32, 4, (size_t[]){2, 2, 2, 2}, &s4), AG_OK);
  ck_assert_int_eq(ag_array_create(dev, AG_C64, 2, (size_t[]){3, 4}, &c), AG_OK);
  struct {
    const ag_array *s;
    const int *axes;
    size_t naxes;
    double lmbda;
    ag_status want;
    const char *says;
  } tvc[] = {
      {NULL, NULL, 0, 1, AG_ERR_INVALID_ARGUMENT, "S is NULL"},
      {s4, NULL, 0, 1, AG_ERR_INVALID_ARGUMENT, "S is 4-D of 16 elements; it must be 1-D to 3-D"},
      {c, NULL, 0, 1, AG_ERR_UNSUPPORTED, "S is c64; total-variation denoising takes f32 or f64"},
      {d, (const int[]){0, 2}, 2, 1, AG_ERR_INVALID_ARGUMENT, "axes[1] is 2: not an axis of S (2-D), or repeated"},
      {d, (const int[]){1, 1}, 2, 1, AG_ERR_INVALID_ARGUMENT, "axes[1] is 1: not an axis of S (2-D), or repeated"},
      {d, (const int[]){0, 1, 0}, 3, 1, AG_ERR_INVALID_ARGUMENT, "naxes is 3; S (2-D) takes 1 to 2 axes"},
      {d, NULL, 0, -2, AG_ERR_INVALID_ARGUMENT, "lmbda is -2; it must be >= 0"},
  };
  for (size_t i = 0; i < sizeof tvc / sizeof tvc[0]; i++)
    for (int l1 = 0; l1 < 2; l1++) {
      b = (ag_solver *)&b;
      ag_status st = l1 ? ag_tvl1_create(NULL, tvc[i].s, tvc[i].lmbda, tvc[i].axes, tvc[i].naxes, NULL, &b)
                        : ag_tvl2_create(NULL, tvc[i].s, tvc[i].lmbda, tvc[i].axes, tvc[i].naxes, NULL, &b);
      const char *fn = l1 ? "ag_tvl1_create: " : "ag_tvl2_create: ";
      ck_assert_msg(st == tvc[i].want && strstr(ag_last_error(), fn) != NULL &&
                        strstr(ag_last_error(), tvc[i].says) != NULL,
                    "%s: TV case %zu: %s, %s; wanted %s, %s%s", test_label(), i, ag_status_name(st), ag_last_error(),
                    ag_status_name(tvc[i].want), fn, tvc[i].says);
      ck_assert_ptr_null(b);
    }
  ck_assert_int_eq(ag_rpca_create(NULL, s4, 1, NULL, &b), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_rpca_create: S must be a non-empty 2-D matrix"));
  ck_assert_int_eq(ag_rpca_create(NULL, c, 1, NULL, &b), AG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_rpca_create: S is c64"));
  ck_assert_int_eq(ag_rpca_create(NULL, d, -1, NULL, &b), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_rpca_create: lmbda is -1"));
  ck_assert_int_eq(ag_rpca_create(NULL, d, 1, NULL, NULL), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(b);
  ag_array_free(s4), ag_array_free(c);
  ck_assert_int_eq(ag_solver_iterate(NULL, 1, NULL), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_solver_iterate: s is NULL"));
  ck_assert_int_eq(ag_solver_solve(NULL), AG_ERR_INVALID_ARGUMENT);
  ag_solver_destroy(NULL);
  ck_assert_uint_eq(ag_solver_history(NULL, NULL), 0);
  ck_assert_ptr_null(ag_solver_var_get(NULL, AG_VAR_X));
  ag_array *arrays[] = {d, s, s5, dd};
  for (size_t i = 0; i < 4; i++)
    ag_array_free(arrays[i]);
}
END_TEST

/* ---- backend-independent ------------------------------------------------------------------- */

/* sporco 0.2.2's Options defaults for each solver. */
START_TEST(option_defaults_are_sporcos) {
  ag_admm_options o;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, &o), AG_OK);
  ck_assert_uint_eq(o.max_iter, 1000);
  ck_assert(o.abs_stop_tol == 0.0 && o.rel_stop_tol == 1e-3 && o.relax == 1.8 && isnan(o.rho));
  ck_assert(o.auto_rho.enabled && o.auto_rho.period == 10 && o.auto_rho.scaling == 1000.0 &&
            o.auto_rho.rsdl_ratio == 1.2 && o.auto_rho.auto_scaling && !o.auto_rho.std_residuals &&
            isnan(o.auto_rho.rsdl_target));
  ck_assert(!o.f_eval_x && o.g_eval_y && !o.return_x && !o.fast_solve && !o.lin_solve_check && !o.nonneg &&
            o.l1_weight == 1.0);
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &o), AG_OK);
  ck_assert(o.f_eval_x && !o.g_eval_y && !o.return_x && o.relax == 1.8 && o.auto_rho.enabled &&
            o.auto_rho.period == 1);
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_TVL2, &o), AG_OK);
  ck_assert(!o.auto_rho.enabled && o.auto_rho.period == 1 && o.auto_rho.rsdl_target == 1.0 && o.relax == 1.8 &&
            o.max_gs_iter == 2 && o.gs_tol == 0.0 && o.g_eval_y);
  ck_assert_int_eq(ag_solver_options_default((ag_solver_kind)99, &o), AG_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_solver_options_default: kind is 99"));
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_BPDN, NULL), AG_ERR_INVALID_ARGUMENT);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "option defaults are sporco's", option_defaults_are_sporcos);
    return;
  }
  add_device_test(s, "bpdn reaches sporco's pinned values", bpdn_reaches_sporcos_pinned_values);
  add_device_test(s, "bpdn linear solves are accurate as rho changes", bpdn_linear_solves_are_accurate_as_rho_changes);
  add_device_test(s, "bpdn products carried through v match the direct path as rho changes",
                  bpdn_products_carried_through_v_match_the_direct_path_as_rho_changes);
  add_device_test(s, "bpdn solutions meet the lasso optimality conditions",
                  bpdn_solutions_meet_the_lasso_optimality_conditions);
  add_device_test(s, "iterating in steps matches one run and callbacks stop it",
                  iterating_in_steps_matches_one_run_and_callbacks_stop_it);
  add_device_test(s, "tv denoisers reach sporco's pinned values", tv_denoisers_reach_sporcos_pinned_values);
  add_device_test(s, "rpca reaches sporco's pinned values", rpca_reaches_sporcos_pinned_values);
  add_device_test(s, "bad solver input is refused naming the argument", bad_solver_input_is_refused_naming_the_argument);
  char why[600];
  if (test_python_module("numpy", "numpy.__version__", "1.", "python3-numpy", why, sizeof why))
    add_device_test(s, "bpdn iterates match the numpy transcription of sporco",
                    bpdn_iterates_match_the_numpy_transcription_of_sporco),
        add_device_test(s, "tv iterates match the numpy transcription of sporco",
                        tv_iterates_match_the_numpy_transcription_of_sporco),
        add_device_test(s, "rpca iterates match the numpy transcription of sporco",
                        rpca_iterates_match_the_numpy_transcription_of_sporco);
  else
    printf("left out (three tcases): the comparisons with the numpy transcription of sporco: %s\n", why);
  if (test_python_module("sklearn.linear_model", "sklearn.__version__", "1.", "python3-sklearn", why, sizeof why))
    add_device_test(s, "bpdn agrees with scikit-learn's lasso", bpdn_agrees_with_scikit_learn_lasso);
  else
    printf("left out (one tcase): the comparison with scikit-learn: %s\n", why);
  if (test_python_module("skimage.restoration", "skimage.__version__", "0.19.", "python3-skimage", why, sizeof why))
    add_device_test(s, "tvl2 agrees with scikit-image's chambolle", tvl2_agrees_with_scikit_image_chambolle);
  else
    printf("left out (one tcase): the comparison with scikit-image: %s\n", why);
}
