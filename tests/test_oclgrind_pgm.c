/* tests/test_oclgrind_pgm.c — the pgm family (kernels_shared/pgm.h) inside Oclgrind's simulator
   through tests/oclgrind-run.py, for races, accesses outside a buffer and API errors: three
   iterations of sporco's ConvBPDN by PGM (ag_pgm_cbpdn_create) on an 8 x 8 signal with two 3 x 3
   filters, f32 and f64, once with Barzilai-Borwein steps and once with standard backtracking
   and NoBndryCross, so that every kernel runs (the filters' padding, the gradient, the data
   term, the weighted difference, re(a^H b), the boundary mask); X and each iteration's
   statistics compared with the host device's. Not for uninitialised values: the solver starts
   its arrays with ag_fill, as tv's do (tests/meson.build). */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

#define ITERS 3

static ag_solver *make(ag_device *dev, ag_dtype t, bool backtrack) {
  ag_array *d, *s;
  oclgrind_csc_problem(dev, t, 100, &d, &s);
  ag_pgm_options o;
  CHECK_OK(ag_pgm_options_default(&o));
  o.max_iter = ITERS, o.rel_stop_tol = 0, o.l = 50;
  if (backtrack) {
    o.backtrack.kind = AG_PGM_BACKTRACK_STANDARD;
    o.no_bndry_cross = true;
  } else {
    o.step_policy = AG_PGM_STEP_BB;
  }
  ag_solver *b = NULL;
  CHECK_OK(ag_pgm_cbpdn_create(NULL, d, s, 0.05, &o, &b));
  return b;
}

static void check(ag_dtype t) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  double tol = t == AG_F32 ? 1e-4 : 1e-10;
  ag_solver *kept[2];
  for (int bt = 0; bt < 2; bt++) {
    ag_solver *a = make(dev, t, bt), *b = make(host, t, bt);
    CHECK_OK(ag_solver_solve(a));
    CHECK_OK(ag_solver_solve(b));
    const ag_iter_stats *ha, *hb;
    ck_assert_uint_eq(ag_solver_history(a, &ha), ITERS);
    ck_assert_uint_eq(ag_solver_history(b, &hb), ITERS);
    for (int k = 0; k < ITERS; k++)
      ck_assert_msg(fabs(ha[k].obj - hb[k].obj) <= tol * fabs(hb[k].obj) &&
                        fabs(ha[k].rsdl - hb[k].rsdl) <= tol * fmax(1, hb[k].rsdl) &&
                        fabs(ha[k].l - hb[k].l) <= tol * hb[k].l,
                    "%s: %s, %s, iteration %d: ObjFun %.17g Rsdl %.17g L %.17g, the host %.17g %.17g %.17g",
                    test_label(), bt ? "backtracking" : "BB steps", ref_name(t), k, ha[k].obj, ha[k].rsdl, ha[k].l,
                    hb[k].obj, hb[k].rsdl, hb[k].l);
    oclgrind_same(bt ? "X, backtracking" : "X, BB steps", ag_solver_var_get(a, AG_VAR_X), ag_solver_var_get(b, AG_VAR_X),
                  tol);
    kept[bt] = a;
    ag_solver_destroy(b);
  }
  oclgrind_free_kept();
  ag_solver_destroy(kept[0]);
  ag_solver_destroy(kept[1]);
}

START_TEST(every_pgm_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32);
}
END_TEST

START_TEST(every_pgm_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "every pgm kernel is clean in f32", every_pgm_kernel_is_clean_in_f32);
  add_device_test(s, "every pgm kernel is clean in f64", every_pgm_kernel_is_clean_in_f64);
}
