/* tests/test_oclgrind_csc.c — the csc family (kernels_shared/csc.h) inside Oclgrind's simulator
   through tests/oclgrind-run.py, for races, accesses outside a buffer and API errors: the
   DFT-domain solves ag_solvedbi_sm and ag_solvemdbi_ism (the factors, then the solve) on 3
   right-hand sides of 4 unknowns at 5 frequencies, c64 and c128, and three iterations of
   ConvBPDN (ag_cbpdn_create) on an 8 x 8 signal with two 3 x 3 filters with LinSolveCheck, f32
   and f64 (its x step, the check's residual, the data term); each result compared with the
   host device's. Not for uninitialised values: the solver starts its arrays with ag_fill, as
   tv's do (tests/meson.build). */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

#define K 3
#define MM 4
#define F 5
#define C 2

static void solves(ag_dtype c) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  size_t es = ref_size(c);
  void *ah = test_alloc(C * MM * F * es), *b = test_alloc(K * MM * F * es);
  ref_random(c, ah, C * MM * F, 110, -1, 1);
  ref_random(c, b, K * MM * F, 111, -1, 1);
  const size_t ah1[2] = {MM, F}, ahc[3] = {C, MM, F}, bs[3] = {K, MM, F};
  double tol = c == AG_C64 ? 1e-5 : 1e-12;
  for (int multi = 0; multi < 2; multi++) {
    ag_array *x[2];
    ag_device *devs[2] = {dev, host};
    for (int h = 0; h < 2; h++) {
      ag_array *aa = oclgrind_input(devs[h], c, multi ? 3 : 2, multi ? ahc : ah1, ah),
               *ba = oclgrind_input(devs[h], c, 3, bs, b);
      x[h] = test_array_new(devs[h], c, 3, bs);
      CHECK_OK((multi ? ag_solvemdbi_ism : ag_solvedbi_sm)(NULL, aa, 0.7, ba, x[h]));
      oclgrind_keep(aa), oclgrind_keep(ba);
    }
    oclgrind_same(multi ? "ag_solvemdbi_ism" : "ag_solvedbi_sm", x[0], x[1], tol);
    oclgrind_keep(x[0]), oclgrind_keep(x[1]);
  }
  oclgrind_free_kept();
  free(ah), free(b);
}

#define ITERS 3

static ag_solver *make(ag_device *dev, ag_dtype t) {
  ag_array *d, *s;
  oclgrind_csc_problem(dev, t, 112, &d, &s);
  ag_admm_options o;
  CHECK_OK(ag_solver_options_default(AG_SOLVER_CBPDN, &o));
  o.max_iter = ITERS, o.rel_stop_tol = 0, o.lin_solve_check = true;
  ag_solver *b = NULL;
  CHECK_OK(ag_cbpdn_create(NULL, d, s, 0.05, &o, &b));
  return b;
}

static void cbpdn(ag_dtype t) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  double tol = t == AG_F32 ? 1e-4 : 1e-10;
  ag_solver *a = make(dev, t), *b = make(host, t);
  CHECK_OK(ag_solver_solve(a));
  CHECK_OK(ag_solver_solve(b));
  const ag_iter_stats *ha, *hb;
  ck_assert_uint_eq(ag_solver_history(a, &ha), ITERS);
  ck_assert_uint_eq(ag_solver_history(b, &hb), ITERS);
  for (int k = 0; k < ITERS; k++)
    ck_assert_msg(fabs(ha[k].obj - hb[k].obj) <= tol * fabs(hb[k].obj) && fabs(ha[k].r - hb[k].r) <= tol * fmax(1, hb[k].r) &&
                      fabs(ha[k].xrrs - hb[k].xrrs) <= tol * fmax(1e-3, hb[k].xrrs),
                  "%s: %s iteration %d: ObjFun %.17g r %.17g XSlvRelRes %.3g, the host %.17g %.17g %.3g", test_label(),
                  ref_name(t), k, ha[k].obj, ha[k].r, ha[k].xrrs, hb[k].obj, hb[k].r, hb[k].xrrs);
  oclgrind_same("X", ag_solver_var_get(a, AG_VAR_X), ag_solver_var_get(b, AG_VAR_X), tol);
  ag_solver_destroy(b);
  oclgrind_free_kept();
  ag_solver_destroy(a);
}

START_TEST(the_dft_domain_solves_are_clean_in_c64) {
  (void)_i;
  solves(AG_C64);
}
END_TEST

START_TEST(the_dft_domain_solves_are_clean_in_c128) {
  (void)_i;
  solves(AG_C128);
}
END_TEST

START_TEST(cbpdn_x_steps_are_clean_in_f32) {
  (void)_i;
  cbpdn(AG_F32);
}
END_TEST

START_TEST(cbpdn_x_steps_are_clean_in_f64) {
  (void)_i;
  cbpdn(AG_F64);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "the dft-domain solves are clean in c64", the_dft_domain_solves_are_clean_in_c64);
  add_device_test(s, "the dft-domain solves are clean in c128", the_dft_domain_solves_are_clean_in_c128);
  add_device_test(s, "cbpdn x steps are clean in f32", cbpdn_x_steps_are_clean_in_f32);
  add_device_test(s, "cbpdn x steps are clean in f64", cbpdn_x_steps_are_clean_in_f64);
}
