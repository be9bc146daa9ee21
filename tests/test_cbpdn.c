/* tests/test_cbpdn.c - sporco's ConvBPDN (ag_cbpdn_create) on every device: sporco 0.2.2's
   cbpdn test problems (tests/data, see its README) reaching sporco's pinned values, single-
   and multi-channel; the DFT-domain linear solves (LinSolveCheck); each iteration's
   statistics against the numpy transcription of sporco (tests/sporco_ref.py, skipped without
   numpy); the public DFT-domain solves ag_solvedbi_sm and ag_solvemdbi_ism against a double
   reference, as sporco's tests/test_linalg.py; refused input. f64 (c128) where the device has
   double precision, f32 (c64) everywhere; tolerances stated per test and dtype. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npy.h"
#include "python.h"
#include "solvers_common.h"

/* ---- data ---------------------------------------------------------------------------------- */

/* tests/data's sporco_cbpdn_BASE_D and _S, and _X0 with @p with_x0 (solvers_common.h). */
static sv_csc_problem load_problem(const char *base, bool with_x0) {
  char d[100], sn[100], x0[100];
  snprintf(d, sizeof d, "sporco_cbpdn_%s_D", base);
  snprintf(sn, sizeof sn, "sporco_cbpdn_%s_S", base);
  snprintf(x0, sizeof x0, "sporco_cbpdn_%s_X0", base);
  return sv_csc_load(d, sn, with_x0 ? x0 : NULL);
}

/* The solver for @p p on @p dev in dtype @p t: a multi-channel D as [M][C][Nd0][Nd1] with S
   [C][N0][N1]. */
static ag_solver *make_solver(ag_device *dev, ag_dtype t, const sv_csc_problem *p, double lmbda,
                              const ag_admm_options *opt) {
  ag_array *d = p->c > 1 ? sv_upload(dev, t, 4, (size_t[]){p->m, p->c, p->d0, p->d1}, p->d)
                         : sv_upload(dev, t, 3, (size_t[]){p->m, p->d0, p->d1}, p->d);
  ag_array *s = p->k == 1 ? sv_upload(dev, t, 2, (size_t[]){p->n0, p->n1}, p->s)
                          : sv_upload(dev, t, 3, (size_t[]){p->k, p->n0, p->n1}, p->s);
  ag_solver *b = NULL;
  ag_status st = ag_cbpdn_create(NULL, d, s, lmbda, opt, &b);
  ck_assert_msg(st == AG_OK, "%s: ag_cbpdn_create: %s", test_label(), ag_last_error());
  ag_array_free(d), ag_array_free(s);
  return b;
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
    sv_csc_problem p = load_problem(bases[c], true);
    for (int ti = 0; ti < 1; ti++) {
      ag_admm_options opt;
      ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
      opt.max_iter = 500, opt.rel_stop_tol = 1e-3, opt.rho = 0.1, opt.auto_rho.enabled = false;
      ag_solver *b = make_solver(dev, ts[ti], &p, 1e-4, &opt);
      ck_assert_int_eq(ag_solver_solve(b), AG_OK);
      const ag_array *y = ag_solver_var_get(b, AG_VAR_RESULT);
      ck_assert_ptr_eq(y, ag_solver_var_get(b, AG_VAR_Y));
      ck_assert_int_eq(ag_array_ndim(y), 4);
      double *yh = sv_download(y), *sr = sv_csc_reconstruct(&p, yh);
      size_t nx = p.m * p.n0 * p.n1;
      double ex = sv_rrs(p.x0, yh, nx), es = sv_rrs(p.s, sr, p.n0 * p.n1);
      double bx = 5e-5, bs = 1e-4;
      printf("%s: test_%s %s: %zu iterations, rrs(X0, Y) %.3g, rrs(S, D * Y) %.3g\n", test_label(), bases[c],
             ag_dtype_name(ts[ti]), ag_solver_history(b, NULL), ex, es);
      ck_assert_msg(ex < bx && es < bs, "%s: test_%s %s: rrs(X0, Y) %g (bound %g), rrs(S, D * Y) %g (bound %g)",
                    test_label(), bases[c], ag_dtype_name(ts[ti]), ex, bx, es, bs);
      free(yh), free(sr);
      ag_solver_destroy(b);
    }
    sv_csc_free(&p);
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
    sv_csc_problem p = load_problem(bases[c], false);
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
    sv_csc_free(&p);
  }
}
END_TEST

/* sporco's test_13: a 3-channel dictionary (D (5, 5, 3, 4), [4][3][5][5] here) with a
   3-channel signal (16 x 16), lmbda 0.1, LinSolveCheck, defaults otherwise (rho 6, AutoRho
   every iteration, MaxMainIter 1000, RelStopTol 1e-3), run to its stopping test (sporco's run:
   184 iterations, max XSlvRelRes 1.1e-13). sporco asserts max XSlvRelRes < 1e-5. f64: 1e-10
   (rounding of the O(C M) sums per frequency, 1e-16 each, times the growth of the iterates);
   f32: sporco's 1e-5 (float32's 6e-8 per operation). */
START_TEST(cbpdn_multichannel_linear_solves_reach_sporcos_bound) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  int nt = sv_dtypes(dev, ts);
  sv_csc_problem p = load_problem("13", false);
  ck_assert(p.c == 3 && p.m == 4 && p.k == 3);
  for (int ti = 0; ti < nt; ti++) {
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
    opt.lin_solve_check = true;
    ag_solver *b = make_solver(dev, ts[ti], &p, 0.1, &opt);
    ck_assert_int_eq(ag_solver_solve(b), AG_OK);
    const ag_array *x = ag_solver_var_get(b, AG_VAR_X);
    ck_assert_int_eq(ag_array_ndim(x), 4);
    const size_t *xs = ag_array_shape(x);
    ck_assert(xs[0] == 1 && xs[1] == 4 && xs[2] == 16 && xs[3] == 16);
    const ag_iter_stats *st;
    size_t n = ag_solver_history(b, &st);
    double worst = 0;
    for (size_t i = 0; i < n; i++)
      worst = fmax(worst, st[i].xrrs);
    double bound = ts[ti] == AG_F64 ? 1e-10 : 1e-5;
    printf("%s: test_13 %s: %zu iterations (sporco 184), max XSlvRelRes %.3g, converged %d\n", test_label(),
           ag_dtype_name(ts[ti]), n, worst, ag_solver_converged(b));
    ck_assert_msg(worst < bound && ag_solver_converged(b) && n < 1000,
                  "%s: test_13 %s: max XSlvRelRes %g (bound %g), %zu iterations, converged %d", test_label(),
                  ag_dtype_name(ts[ti]), worst, bound, n, ag_solver_converged(b));
    ag_solver_destroy(b);
  }
  sv_csc_free(&p);
}
END_TEST

/* A single-channel D with S [K][C][N0][N1] is K C single-channel signals (sporco's Cd = 1 with
   C channels and K signals): test_12's D with its 3 channels as S [1][3][16][16] gives, bit
   for bit, the statistics and X of S [3][16][16] (the same memory, the same problem). */
START_TEST(cbpdn_takes_multichannel_signals_with_a_single_channel_dictionary) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2];
  sv_dtypes(dev, ts);
  sv_csc_problem p = load_problem("12", false);
  ag_array *d = sv_upload(dev, ts[0], 3, (size_t[]){p.m, p.d0, p.d1}, p.d);
  ag_array *s3 = sv_upload(dev, ts[0], 3, (size_t[]){p.k, p.n0, p.n1}, p.s);
  ag_array *s4 = sv_upload(dev, ts[0], 4, (size_t[]){1, p.k, p.n0, p.n1}, p.s);
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
  opt.max_iter = 15;
  ag_solver *b3 = NULL, *b4 = NULL;
  ck_assert_int_eq(ag_cbpdn_create(NULL, d, s3, 0.1, &opt, &b3), AG_OK);
  ck_assert_msg(ag_cbpdn_create(NULL, d, s4, 0.1, &opt, &b4) == AG_OK, "%s: %s", test_label(), ag_last_error());
  ck_assert_int_eq(ag_solver_solve(b3), AG_OK);
  ck_assert_int_eq(ag_solver_solve(b4), AG_OK);
  const ag_iter_stats *h3, *h4;
  size_t n = ag_solver_history(b3, &h3);
  ck_assert_uint_eq(ag_solver_history(b4, &h4), n);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(h3[i].obj == h4[i].obj && h3[i].r == h4[i].r && h3[i].s == h4[i].s && h3[i].rho == h4[i].rho,
                  "%s: iteration %zu: ObjFun %.17g and %.17g", test_label(), i, h3[i].obj, h4[i].obj);
  const ag_array *x3 = ag_solver_var_get(b3, AG_VAR_X), *x4 = ag_solver_var_get(b4, AG_VAR_X);
  ck_assert_uint_eq(ag_array_shape(x4)[0], 3);
  double *v3 = sv_download(x3), *v4 = sv_download(x4);
  size_t nb = ag_array_size(x3) * sizeof *v3;
  ck_assert_msg(test_first_difference(v3, v4, nb) == nb, "%s: X differs", test_label());
  free(v3), free(v4);
  ag_solver_destroy(b3), ag_solver_destroy(b4);
  ag_array_free(d), ag_array_free(s3), ag_array_free(s4);
  sv_csc_free(&p);
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
  const char *base2; /* with a multi-channel D: S is K = 2 signals, base's and base2's */
} ref_case;

/* The default lmbda (0.1 max |conj(D^) S^|, 2.1 here) drives test_08's X to about 1e-16 of
   rounding from iteration 53 on, where numpy's primal residual is 0 / 0 (then 0) and anygpu's
   FFTs leave it 1: the run stops at 40. */
static const ref_case ref_cases[] = {
    {"test_08, the default lmbda and rho", "08", {"MaxMainIter=40", "LinSolveCheck=true", NULL}, NAN, 40, true, false,
     false, NAN, 1.8, NULL},
    {"test_12 as three signals", "12", {"lmbda=0.1", "MaxMainIter=60", "dimK=0", NULL}, 0.1, 60, true, false, false, NAN,
     1.8, NULL},
    {"test_08 non-negative, fixed rho, objective on Y", "08",
     {"lmbda=0.05", "MaxMainIter=40", "NonNegCoef=true", "rho=2", "AutoRho.Enabled=false", "RelaxParam=1.5",
      "AuxVarObj=true", NULL},
     0.05, 40, false, true, true, 2.0, 1.5, NULL},
    {"test_13, a 3-channel dictionary, to sporco's stop", "13", {"lmbda=0.1", "dimK=0", NULL}, 0.1, 1000, true, false,
     false, NAN, 1.8, NULL},
    {"test_13, the default lmbda", "13", {"MaxMainIter=30", "dimK=0", NULL}, NAN, 30, true, false, false, NAN, 1.8,
     NULL},
    {"test_13's D with two 3-channel signals (test_13's and test_12's S)", "13", {"lmbda=0.1", "MaxMainIter=40", NULL},
     0.1, 40, true, false, false, NAN, 1.8, "12"},
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
    sv_csc_problem p = load_problem(rc->base, false);
    const char *dir = test_tmp_dir("cbpdn");
    char path[700], err[700];
    snprintf(path, sizeof path, "%s/D.npy", dir);
    ck_assert(npy_write(path, NPY_F8, p.d_src.ndim, p.d_src.shape, p.d_src.data, err, sizeof err));
    snprintf(path, sizeof path, "%s/S.npy", dir);
    double *s2 = NULL, *s2_src = NULL; /* base2: S [2][C][N0][N1], sporco's (N0, N1, C, 2) */
    if (rc->base2 != NULL) {
      sv_csc_problem p2 = load_problem(rc->base2, false);
      size_t plane = p.k * p.n0 * p.n1;
      ck_assert(p.c > 1 && p2.k == p.k && p2.n0 == p.n0 && p2.n1 == p.n1);
      s2 = malloc(2 * plane * sizeof *s2), s2_src = malloc(2 * plane * sizeof *s2_src);
      ck_assert(s2 != NULL && s2_src != NULL);
      memcpy(s2, p.s, plane * sizeof *s2), memcpy(s2 + plane, p2.s, plane * sizeof *s2);
      const double *a = p.s_src.data, *b2 = p2.s_src.data;
      for (size_t i = 0; i < plane; i++)
        s2_src[2 * i] = a[i], s2_src[2 * i + 1] = b2[i];
      ck_assert(npy_write(path, NPY_F8, 4, (size_t[]){p.n0, p.n1, p.k, 2}, s2_src, err, sizeof err));
      sv_csc_free(&p2);
    } else {
      ck_assert(npy_write(path, NPY_F8, p.s_src.ndim, p.s_src.shape, p.s_src.data, err, sizeof err));
    }
    npy_array h = sv_reference_history("cbpdn", dir, rc->keys);
    ag_admm_options opt;
    ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
    opt.max_iter = rc->max_iter, opt.auto_rho.enabled = rc->auto_rho, opt.nonneg = rc->nonneg, opt.rho = rc->rho;
    opt.relax = rc->relax, opt.lin_solve_check = true;
    if (rc->aux_var_obj)
      opt.f_eval_x = false, opt.g_eval_y = true;
    ag_solver *b = NULL;
    if (s2 != NULL) {
      ag_array *d = sv_upload(dev, AG_F64, 4, (size_t[]){p.m, p.c, p.d0, p.d1}, p.d);
      ag_array *s = sv_upload(dev, AG_F64, 4, (size_t[]){2, p.k, p.n0, p.n1}, s2);
      ck_assert_msg(ag_cbpdn_create(NULL, d, s, rc->lmbda, &opt, &b) == AG_OK, "%s: %s", test_label(), ag_last_error());
      ck_assert_uint_eq(ag_array_shape(ag_solver_var_get(b, AG_VAR_X))[0], 2);
      ag_array_free(d), ag_array_free(s);
    } else {
      b = make_solver(dev, AG_F64, &p, rc->lmbda, &opt);
    }
    ck_assert_int_eq(ag_solver_solve(b), AG_OK);
    sv_compare_history(rc->name, b, &h, 1e-8, 1e-12);
    ag_solver_destroy(b);
    free(s2), free(s2_src);
    npy_free(&h);
    sv_csc_free(&p);
  }
}
END_TEST

/* ---- the DFT-domain solves: ag_solvedbi_sm and ag_solvemdbi_ism ------------------------------ */

/* Standard normal draws from a fixed seed (xorshift64 and Box-Muller): the same data on every
   device. */
static double gauss(uint64_t *st) {
  double u[2];
  for (int i = 0; i < 2; i++) {
    *st ^= *st << 13, *st ^= *st >> 7, *st ^= *st << 17;
    u[i] = ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
  }
  return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* out = (rho I + sum_c a_c a_c^H) v at frequency fi, a_c = conj(ah_c): ah points at one
   system's [C][M][F], v and out at one right-hand side's [M][F] (complex, interleaved). */
static void apply_system(const double *ah, size_t c, size_t m, size_t f, size_t fi, double rho, const double *v,
                         double *out) {
  for (size_t j = 0; j < m; j++)
    out[2 * (j * f + fi)] = rho * v[2 * (j * f + fi)], out[2 * (j * f + fi) + 1] = rho * v[2 * (j * f + fi) + 1];
  for (size_t q = 0; q < c; q++) {
    const double *h = ah + 2 * q * m * f;
    double tr = 0, ti = 0; /* ah_q . v */
    for (size_t l = 0; l < m; l++) {
      const double *a = h + 2 * (l * f + fi), *x = v + 2 * (l * f + fi);
      tr += a[0] * x[0] - a[1] * x[1], ti += a[0] * x[1] + a[1] * x[0];
    }
    for (size_t j = 0; j < m; j++) { /* += conj(ah_qj) (ah_q . v) */
      const double *a = h + 2 * (j * f + fi);
      out[2 * (j * f + fi)] += a[0] * tr + a[1] * ti, out[2 * (j * f + fi) + 1] += a[0] * ti - a[1] * tr;
    }
  }
}

/* One layout of the solves: sm (ah [M][F] or [K][M][F]) or ism (ah [C][M][F] or
   [K][C][M][F]), K right-hand sides (0: b [M][F]), x a new array or b itself. */
typedef struct dbi_case {
  const char *what;
  bool ism, ah_per_k, in_place;
  size_t c, k;
} dbi_case;

static const dbi_case dbi_cases[] = {
    {"solvedbi_sm, ah [M][F] shared by b [K][M][F]", false, false, false, 1, 4},
    {"solvedbi_sm, ah [K][M][F]", false, true, false, 1, 4},
    {"solvedbi_sm, b [M][F], in place", false, false, true, 1, 0},
    {"solvemdbi_ism, ah [C][M][F] shared by b [K][M][F]", true, false, false, 3, 4},
    {"solvemdbi_ism, ah [K][C][M][F], in place", true, true, true, 3, 4},
    {"solvemdbi_ism, ah [C][M][F] with C = 1, b [M][F]", true, false, false, 1, 0},
};

/* sporco's tests/test_linalg.py (test_09, test_11, test_12) for the public solves: random
   complex a_c and x0 (M = 16, F = 37 frequencies, C = 3 terms for ism, K = 4 right-hand
   sides), rho 0.1 as there, b = (rho I + sum_c a_c a_c^H) x0 in double; the solution's residual
   ||A x - b|| / ||b|| and error ||x - x0|| / ||x0||, both in double on the host. Both lose
   about the systems' condition number of the dtype's precision, which is at most
   kappa = (rho + sum_c |a_c|^2) / rho (the trace bounds the largest eigenvalue), 4.5e2 to
   5.8e2 (sm) and 1.3e3 to 1.4e3 (ism) here: c128 within sporco's 1e-11 (1.1e-16 kappa is
   2e-13); c64 within 4 kappa float32 roundings (6e-8 each: 1.1e-4 to 3.4e-4 here; reached: 0.6
   to 1 kappa's). */
START_TEST(dbi_solves_match_a_double_reference) {
  ag_device *dev = test_device(_i);
  ag_dtype ts[2], cts[2];
  int nt = sv_dtypes(dev, ts);
  for (int i = 0; i < nt; i++)
    cts[i] = ts[i] == AG_F64 ? AG_C128 : AG_C64;
  const size_t m = 16, f = 37;
  const double rho = 0.1;
  for (int ti = 0; ti < nt; ti++)
    for (size_t ci = 0; ci < sizeof dbi_cases / sizeof dbi_cases[0]; ci++) {
      const dbi_case *dc = &dbi_cases[ci];
      size_t kk = dc->k ? dc->k : 1, g = dc->ah_per_k ? kk : 1, c = dc->c;
      size_t nah = g * c * m * f, nb = kk * m * f;
      double *ah = malloc(2 * nah * sizeof *ah), *x0 = malloc(2 * nb * sizeof *x0), *b = malloc(2 * nb * sizeof *b);
      double *ax = malloc(2 * nb * sizeof *ax);
      ck_assert(ah != NULL && x0 != NULL && b != NULL && ax != NULL);
      uint64_t seed = 12345 + ci;
      /* the values as the device holds them: rounded to float32 for c64 */
      bool single = cts[ti] == AG_C64;
      for (size_t i = 0; i < 2 * nah; i++)
        ah[i] = single ? (double)(float)gauss(&seed) : gauss(&seed);
      for (size_t i = 0; i < 2 * nb; i++)
        x0[i] = single ? (double)(float)gauss(&seed) : gauss(&seed);
      double r = single ? (double)(float)rho : rho, kappa = 0;
      for (size_t q = 0; q < g; q++)
        for (size_t fi = 0; fi < f; fi++) {
          double t = 0;
          for (size_t j = 0; j < c * m; j++) {
            const double *a = ah + 2 * ((q * c * m + j) * f + fi);
            t += a[0] * a[0] + a[1] * a[1];
          }
          kappa = fmax(kappa, (r + t) / r);
        }
      for (size_t k = 0; k < kk; k++)
        for (size_t fi = 0; fi < f; fi++)
          apply_system(ah + 2 * (dc->ah_per_k ? k : 0) * c * m * f, c, m, f, fi, r, x0 + 2 * k * m * f,
                       b + 2 * k * m * f);
      if (single)
        for (size_t i = 0; i < 2 * nb; i++)
          b[i] = (double)(float)b[i];
      size_t ahs[4], bs[3];
      int ahn = 0, bn = 0;
      if (dc->ah_per_k)
        ahs[ahn++] = kk;
      if (dc->ism)
        ahs[ahn++] = c;
      ahs[ahn++] = m, ahs[ahn++] = f;
      if (dc->k)
        bs[bn++] = kk;
      bs[bn++] = m, bs[bn++] = f;
      ag_array *a_d = sv_upload(dev, cts[ti], ahn, ahs, ah), *b_d = sv_upload(dev, cts[ti], bn, bs, b);
      ag_array *x_d = b_d;
      if (!dc->in_place)
        ck_assert_int_eq(ag_array_create(dev, cts[ti], bn, bs, &x_d), AG_OK);
      ag_status st = dc->ism ? ag_solvemdbi_ism(NULL, a_d, rho, b_d, x_d) : ag_solvedbi_sm(NULL, a_d, rho, b_d, x_d);
      ck_assert_msg(st == AG_OK, "%s: %s: %s", test_label(), dc->what, ag_last_error());
      double *x = sv_download(x_d);
      double er = 0, e0 = 0, rr = 0, r0 = 0;
      for (size_t k = 0; k < kk; k++)
        for (size_t fi = 0; fi < f; fi++)
          apply_system(ah + 2 * (dc->ah_per_k ? k : 0) * c * m * f, c, m, f, fi, r, x + 2 * k * m * f,
                       ax + 2 * k * m * f);
      for (size_t i = 0; i < 2 * nb; i++) {
        er += (x[i] - x0[i]) * (x[i] - x0[i]), e0 += x0[i] * x0[i];
        rr += (ax[i] - b[i]) * (ax[i] - b[i]), r0 += b[i] * b[i];
      }
      double res = sqrt(rr / r0), err = sqrt(er / e0), bound = single ? 4 * kappa * FLT_EPSILON / 2 : 1e-11;
      printf("%s: %s %s: residual %.3g, error %.3g (bound %.3g, kappa %.3g)\n", test_label(), dc->what,
             ag_dtype_name(cts[ti]), res, err, bound, kappa);
      ck_assert_msg(res < bound && err < bound, "%s: %s %s: residual %g, error %g, bound %g", test_label(), dc->what,
                    ag_dtype_name(cts[ti]), res, err, bound);
      free(ah), free(x0), free(b), free(ax), free(x);
      if (x_d != b_d)
        ag_array_free(x_d);
      ag_array_free(a_d), ag_array_free(b_d);
    }
}
END_TEST

/* With C = 1, ag_solvemdbi_ism is ag_solvedbi_sm: the same values, bit for bit. */
START_TEST(solvemdbi_ism_with_one_term_is_solvedbi_sm) {
  ag_device *dev = test_device(_i);
  const size_t m = 5, f = 9, k = 2, n = k * m * f;
  double v[2 * 2 * 5 * 9];
  uint64_t seed = 7;
  for (size_t i = 0; i < 2 * n; i++)
    v[i] = gauss(&seed);
  ag_array *a2 = sv_upload(dev, AG_C64, 2, (size_t[]){m, f}, v);
  ag_array *a3 = sv_upload(dev, AG_C64, 3, (size_t[]){1, m, f}, v);
  ag_array *b = sv_upload(dev, AG_C64, 3, (size_t[]){k, m, f}, v), *x1 = NULL, *x2 = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_C64, 3, (size_t[]){k, m, f}, &x1), AG_OK);
  ck_assert_int_eq(ag_array_create(dev, AG_C64, 3, (size_t[]){k, m, f}, &x2), AG_OK);
  ck_assert_int_eq(ag_solvedbi_sm(NULL, a2, 0.5, b, x1), AG_OK);
  ck_assert_int_eq(ag_solvemdbi_ism(NULL, a3, 0.5, b, x2), AG_OK);
  double *y1 = sv_download(x1), *y2 = sv_download(x2);
  ck_assert_msg(test_first_difference(y1, y2, 2 * n * sizeof *y1) == 2 * n * sizeof *y1, "%s: they differ",
                test_label());
  free(y1), free(y2);
  ag_array *arrays[] = {a2, a3, b, x1, x2};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
}
END_TEST

/* Bad arrays, dtypes, shapes and rho, each refused with its status and a message naming the
   function and the argument, and x left as it was. */
START_TEST(bad_dbi_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  static const char sm[] = "ag_solvedbi_sm", ism[] = "ag_solvemdbi_ism";
  double v[2 * 3 * 4 * 5 * 6] = {0}, one[2 * 4 * 5 * 7]; /* complex: re, im; x and xs */
  for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
    one[i] = 1.0;
  ag_array *ah = sv_upload(dev, AG_C64, 2, (size_t[]){5, 6}, v);        /* sm's [M][F] */
  ag_array *ahc = sv_upload(dev, AG_C64, 3, (size_t[]){3, 5, 6}, v);    /* ism's [C][M][F] */
  ag_array *ahk = sv_upload(dev, AG_C64, 3, (size_t[]){2, 5, 6}, v);    /* sm's [K][M][F], K 2 */
  ag_array *ah4 = sv_upload(dev, AG_C64, 4, (size_t[]){2, 3, 5, 6}, v); /* ism's [K][C][M][F] */
  ag_array *ah0 = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_C64, 3, (size_t[]){0, 5, 6}, &ah0), AG_OK);
  ag_array *b = sv_upload(dev, AG_C64, 3, (size_t[]){4, 5, 6}, v);
  ag_array *b2 = sv_upload(dev, AG_C64, 2, (size_t[]){5, 6}, v);
  ag_array *bm = sv_upload(dev, AG_C64, 3, (size_t[]){4, 4, 6}, v);     /* M 4 */
  ag_array *x = sv_upload(dev, AG_C64, 3, (size_t[]){4, 5, 6}, one);
  ag_array *xs = sv_upload(dev, AG_C64, 3, (size_t[]){4, 5, 7}, one);  /* F 7 */
  ag_array *bf = NULL, *b128 = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_F32, 3, (size_t[]){4, 5, 6}, &bf), AG_OK);
  ag_array *ahf = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_F32, 2, (size_t[]){5, 6}, &ahf), AG_OK);
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  if (info.fp64)
    ck_assert_int_eq(ag_array_create(dev, AG_C128, 3, (size_t[]){4, 5, 6}, &b128), AG_OK);
  ag_array *ahv = NULL; /* x's own memory, as ah */
  ck_assert_int_eq(ag_array_reshape(x, 2, (size_t[]){20, 6}, &ahv), AG_OK);
  ag_array *ahv2 = NULL;
  ck_assert_int_eq(ag_array_slice(ahv, 0, 5, &ahv2), AG_OK);

  CHECK_FAILS(ag_solvedbi_sm(NULL, NULL, 1.0, b, x), AG_ERR_INVALID_ARGUMENT, sm, "ah");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ah, 1.0, NULL, x), AG_ERR_INVALID_ARGUMENT, sm, "b");
  CHECK_FAILS(ag_solvemdbi_ism(NULL, ahc, 1.0, b, NULL), AG_ERR_INVALID_ARGUMENT, ism, "x");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ahf, 1.0, b, x), AG_ERR_UNSUPPORTED, sm, "f32");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ah, 1.0, bf, x), AG_ERR_MISMATCH, sm, "b");
  if (b128 != NULL)
    CHECK_FAILS(ag_solvedbi_sm(NULL, ah, 1.0, b128, x), AG_ERR_MISMATCH, sm, "b");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ah, 1.0, b, xs), AG_ERR_MISMATCH, sm, "x");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ah, 1.0, bm, x), AG_ERR_MISMATCH, sm, "b has M = 4");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ah4, 1.0, b, x), AG_ERR_MISMATCH, sm, "ah must be [M][F] or [K][M][F]");
  CHECK_FAILS(ag_solvemdbi_ism(NULL, ah, 1.0, b, x), AG_ERR_MISMATCH, ism, "ah must be [C][M][F]");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ahk, 1.0, b, x), AG_ERR_MISMATCH, sm, "K = 2");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ahk, 1.0, b2, b2), AG_ERR_MISMATCH, sm, "K = 2");
  CHECK_FAILS(ag_solvemdbi_ism(NULL, ah4, 1.0, b, x), AG_ERR_MISMATCH, ism, "K = 2");
  const double bad_rho[] = {0.0, -1.0, NAN, INFINITY};
  for (size_t i = 0; i < 4; i++)
    CHECK_FAILS(ag_solvemdbi_ism(NULL, ahc, bad_rho[i], b, x), AG_ERR_INVALID_ARGUMENT, ism, "rho");
  CHECK_FAILS(ag_solvemdbi_ism(NULL, ah0, 1.0, b, x), AG_ERR_INVALID_ARGUMENT, ism, "C = 0");
  CHECK_FAILS(ag_solvedbi_sm(NULL, ahv2, 1.0, b, x), AG_ERR_INVALID_ARGUMENT, sm, "x and ah overlap");
  if (!info.fp64) {
    ag_array *a128 = NULL, *x128 = NULL;
    ck_assert_int_eq(ag_array_create(dev, AG_C128, 2, (size_t[]){5, 6}, &a128), AG_OK);
    ck_assert_int_eq(ag_array_create(dev, AG_C128, 2, (size_t[]){5, 6}, &x128), AG_OK);
    CHECK_FAILS(ag_solvedbi_sm(NULL, a128, 1.0, x128, x128), AG_ERR_UNSUPPORTED, sm, "c128");
    ag_array_free(a128), ag_array_free(x128);
  }
  /* the refused calls left x as it was */
  double *xv = sv_download(x);
  for (size_t i = 0; i < 240; i++)
    ck_assert_msg(xv[i] == 1.0, "%s: x[%zu] is %g after refused calls", test_label(), i / 2, xv[i]);
  free(xv);
  /* and a good call works, in place: ah 0 leaves x = b / rho */
  ck_assert_int_eq(ag_solvemdbi_ism(NULL, ahc, 2.0, x, x), AG_OK);
  xv = sv_download(x);
  for (size_t i = 0; i < 240; i++)
    ck_assert_msg(xv[i] == 0.5, "%s: x[%zu] is %g, not 1 / 2", test_label(), i / 2, xv[i]);
  free(xv);
  ag_array *arrays[] = {ah, ahc, ahk, ah4, ah0, b, b2, bm, x, xs, bf, b128, ahf, ahv, ahv2};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
}
END_TEST

/* ---- refused input --------------------------------------------------------------------------- */

static ag_status create_default(const ag_array *D, const ag_array *S, double lmbda, ag_solver **solver) {
  return ag_cbpdn_create(NULL, D, S, lmbda, NULL, solver);
}

START_TEST(bad_cbpdn_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  static const char fn[] = "ag_cbpdn_create";
  sv_csc_check_refusals(dev, fn, create_default, "S must be 2-D");
  double v[4 * 8 * 8] = {1};
  ag_array *d = sv_upload(dev, AG_F32, 3, (size_t[]){2, 3, 3}, v), *s = sv_upload(dev, AG_F32, 2, (size_t[]){8, 8}, v);
  ag_array *d4 = sv_upload(dev, AG_F32, 4, (size_t[]){2, 3, 3, 3}, v);
  ag_array *s4 = sv_upload(dev, AG_F32, 4, (size_t[]){1, 3, 8, 8}, v);
  ag_array *s2c = sv_upload(dev, AG_F32, 4, (size_t[]){1, 2, 8, 8}, v);
  ag_array *d2 = sv_upload(dev, AG_F32, 2, (size_t[]){3, 3}, v);
  ag_solver *b = (ag_solver *)&b;
  CHECK_FAILS(ag_cbpdn_create(NULL, d4, s, 0.1, NULL, &b), AG_ERR_MISMATCH, fn, "C = 3 channels");
  ck_assert_ptr_null(b);
  CHECK_FAILS(ag_cbpdn_create(NULL, d4, s2c, 0.1, NULL, &b), AG_ERR_MISMATCH, fn, "4-D with 2 channels");
  CHECK_FAILS(ag_cbpdn_create(NULL, d2, s, 0.1, NULL, &b), AG_ERR_MISMATCH, fn, "D must be 3-D");
  ag_admm_options opt;
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
  opt.relax = 2.5;
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, 0.1, &opt, &b), AG_ERR_INVALID_ARGUMENT, fn, "opt->relax");
  ck_assert_int_eq(ag_solver_options_default(AG_SOLVER_CBPDN, &opt), AG_OK);
  opt.y0 = s;
  CHECK_FAILS(ag_cbpdn_create(NULL, d, s, 0.1, &opt, &b), AG_ERR_MISMATCH, fn, "opt->y0");
  ck_assert_ptr_null(b);
  /* good calls after the refused ones work: the default lmbda, single- and multi-channel */
  ck_assert_int_eq(ag_cbpdn_create(NULL, d, s, NAN, NULL, &b), AG_OK);
  ck_assert(ag_solver_lambda(b) > 0 && ag_solver_kind_of(b) == AG_SOLVER_CBPDN);
  ag_solver_destroy(b);
  ck_assert_int_eq(ag_cbpdn_create(NULL, d4, s4, NAN, NULL, &b), AG_OK);
  ck_assert(ag_solver_lambda(b) > 0);
  ag_solver_destroy(b);
  ag_array *arrays[] = {d, s, d4, s4, s2c, d2};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
}
END_TEST

/* Before any device is touched: missing arrays of the DFT-domain solves. */
START_TEST(dbi_solves_refuse_null_arguments) {
  CHECK_FAILS(ag_solvedbi_sm(NULL, NULL, 1.0, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_solvedbi_sm", "ah");
  CHECK_FAILS(ag_solvemdbi_ism(NULL, NULL, 1.0, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_solvemdbi_ism", "ah");
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
    add_core_test(s, "dbi solves refuse null arguments", dbi_solves_refuse_null_arguments);
    return;
  }
  add_device_test(s, "cbpdn reaches sporco's pinned values", cbpdn_reaches_sporcos_pinned_values);
  add_device_test(s, "cbpdn linear solves are accurate", cbpdn_linear_solves_are_accurate);
  add_device_test(s, "cbpdn multichannel linear solves reach sporco's bound",
                  cbpdn_multichannel_linear_solves_reach_sporcos_bound);
  add_device_test(s, "cbpdn takes multichannel signals with a single-channel dictionary",
                  cbpdn_takes_multichannel_signals_with_a_single_channel_dictionary);
  add_device_test(s, "bad cbpdn input is refused naming the argument", bad_cbpdn_input_is_refused_naming_the_argument);
  add_device_test(s, "dbi solves match a double reference", dbi_solves_match_a_double_reference);
  add_device_test(s, "solvemdbi_ism with one term is solvedbi_sm", solvemdbi_ism_with_one_term_is_solvedbi_sm);
  add_device_test(s, "bad dbi input is refused naming the argument", bad_dbi_input_is_refused_naming_the_argument);
  char why[600];
  if (test_python_module("numpy", "numpy.__version__", "1.", "python3-numpy", why, sizeof why))
    add_device_test(s, "cbpdn iterates match the numpy transcription of sporco",
                    cbpdn_iterates_match_the_numpy_transcription_of_sporco);
  else
    printf("left out (one tcase): the comparison with the numpy transcription of sporco: %s\n", why);
}
