/* tests/test_oclgrind_tv.c — the tv family (kernels_shared/tv.h) inside Oclgrind's simulator
   through tests/oclgrind-run.py, for races, uninitialised values and accesses outside a buffer:
   three iterations of TVL2 (ag_tv_jacobi_<t> and ag_tv_laplace_<t>, TV over two axes of a 2-D
   image) and of TVL1 (over all three axes of a 3-D volume, where every stencil reaches both
   ends of each axis), f32 and f64, each compared with the same iterations on the host device. */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

static void tv_case(int i, ag_dtype t, bool l1) {
  ag_device *dev = oclgrind_device(i), *host;
  CHECK_OK(ag_device_select("host", &host));
  const size_t shape2[2] = {5, 7}, shape3[3] = {3, 4, 5};
  int nd = l1 ? 3 : 2;
  const size_t *shape = l1 ? shape3 : shape2;
  size_t n = l1 ? 60 : 35;
  void *v = test_alloc(n * ref_size(t));
  ref_random(t, v, n, 70 + (int)l1, -1, 1);
  ag_array *sv = oclgrind_operand(dev, t, nd, shape, v), *hv = test_array_from(host, t, nd, shape, v);
  const int axes[3] = {0, 1, 2};
  ag_admm_options opt;
  CHECK_OK(ag_solver_options_default(l1 ? AG_SOLVER_TVL1 : AG_SOLVER_TVL2, &opt));
  opt.max_iter = 3, opt.rel_stop_tol = 0;
  ag_solver *a = NULL, *b = NULL;
  if (l1) {
    CHECK_OK(ag_tvl1_create(NULL, sv, 0.3, axes, 3, &opt, &a));
    CHECK_OK(ag_tvl1_create(NULL, hv, 0.3, axes, 3, &opt, &b));
  } else {
    CHECK_OK(ag_tvl2_create(NULL, sv, 0.3, axes, 2, &opt, &a));
    CHECK_OK(ag_tvl2_create(NULL, hv, 0.3, axes, 2, &opt, &b));
  }
  CHECK_OK(ag_solver_solve(a));
  CHECK_OK(ag_solver_solve(b));
  const ag_iter_stats *ha, *hb;
  ck_assert_uint_eq(ag_solver_history(a, &ha), 3);
  ck_assert_uint_eq(ag_solver_history(b, &hb), 3);
  double tol = t == AG_F32 ? 1e-5 : 1e-12;
  for (int k = 0; k < 3; k++)
    ck_assert_msg(fabs(ha[k].obj - hb[k].obj) <= tol * fabs(hb[k].obj) && fabs(ha[k].r - hb[k].r) <= tol * hb[k].r,
                  "%s: %s %s iteration %d: ObjFun %.17g r %.17g, the host %.17g %.17g", test_label(),
                  l1 ? "TVL1" : "TVL2", ref_name(t), k, ha[k].obj, ha[k].r, hb[k].obj, hb[k].r);
  ag_solver_destroy(a);
  ag_solver_destroy(b);
  oclgrind_keep(sv);
  ag_array_free(hv);
  free(v);
  oclgrind_free_kept();
}

START_TEST(tvl2_sweeps_are_clean_in_f32) { tv_case(_i, AG_F32, false); }
END_TEST

START_TEST(tvl1_sweeps_are_clean_in_f64) { tv_case(_i, AG_F64, true); }
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "tvl2 sweeps are clean in f32", tvl2_sweeps_are_clean_in_f32);
  add_device_test(s, "tvl1 sweeps are clean in f64", tvl1_sweeps_are_clean_in_f64);
}
