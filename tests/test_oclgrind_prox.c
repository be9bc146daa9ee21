/* tests/test_oclgrind_prox.c — the prox family (kernels_shared/prox.h) inside Oclgrind's
   simulator through tests/oclgrind-run.py, for races, uninitialised values and accesses outside
   a buffer: a work-item per line (ag_prox_l2_lines_<t>) along each axis of {3, 5, 7}, the
   differences (ag_grad_<t>, ag_grad_t_<t>), every float and complex dtype; the elementwise
   scaling after ag_nrm2 (ag_prox_l2_scale_<t>) and the metrics' partial sums
   (ag_metric_parts_<t>), which make and release temporary buffers, each in a test of its own
   (oclgrind.h says why). Every result is also compared with the host device's. */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

/* @p got (from the simulator) against @p want (the host) for @p n values of @p t: within
   @p rel of the largest magnitude of @p v, the operator's input. */
static void check_close(ag_dtype t, const void *got, const void *want, const void *v, size_t n, double rel,
                        const char *what) {
  long double top = 0;
  for (size_t i = 0; i < n; i++)
    top = fmaxl(top, cabsl(ref_get(t, v, i)));
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(cabsl(ref_get(t, got, i) - ref_get(t, want, i)) <= rel * top,
                  "%s: %s of %s, element %zu: %Lg%+Lgi, the host %Lg%+Lgi", test_label(), what, ref_name(t), i,
                  creall(ref_get(t, got, i)), cimagl(ref_get(t, got, i)), creall(ref_get(t, want, i)),
                  cimagl(ref_get(t, want, i)));
}

static double tolerance(ag_dtype t) { return t == AG_F32 || t == AG_C64 ? 1e-5 : 1e-12; }

typedef enum op { OP_SL1L2, OP_PROJ, OP_GRAD, OP_GRAD_T } op;

static ag_status run(op o, ag_array *v, int axis, ag_array *out) {
  switch (o) {
  case OP_SL1L2:
    return ag_prox_sl1l2(NULL, v, 0.2, 0.5, axis, out);
  case OP_PROJ:
    return ag_proj_l2(NULL, v, 1, axis, out);
  case OP_GRAD:
    return ag_grad(NULL, v, axis, out);
  case OP_GRAD_T:
    return ag_grad_t(NULL, v, axis, out);
  }
  return AG_ERR_INVALID_ARGUMENT;
}

/* @p o of random values of @p t and @p shape along @p axis on the simulator (the operand at an
   offset in its buffer, every array kept to the test's end) and on the host. */
static void compare(ag_device *dev, ag_device *host, op o, ag_dtype t, int nd, const size_t *shape, int axis) {
  static const char *const names[4] = {"ag_prox_sl1l2", "ag_proj_l2", "ag_grad", "ag_grad_t"};
  size_t n = 1;
  for (int d = 0; d < nd; d++)
    n *= shape[d];
  void *v = test_alloc(n * ref_size(t));
  ref_random(t, v, n, 40 + (unsigned)o, -1, 1);
  ag_array *sv = oclgrind_operand(dev, t, nd, shape, v), *so = test_array_new(dev, t, nd, shape);
  ag_array *hv = test_array_from(host, t, nd, shape, v), *ho = test_array_new(host, t, nd, shape);
  CHECK_OK(run(o, sv, axis, so));
  CHECK_OK(run(o, hv, axis, ho));
  void *got = test_array_read(so), *want = test_array_read(ho);
  check_close(t, got, want, v, n, tolerance(t), names[o]);
  oclgrind_keep(sv);
  oclgrind_keep(so);
  ag_array_free(hv);
  ag_array_free(ho);
  free(got);
  free(want);
  free(v);
}

START_TEST(lines_and_differences_are_clean_and_match_the_host) {
  ag_device *dev = oclgrind_device(_i), *host;
  CHECK_OK(ag_device_select("host", &host));
  const ag_dtype dtypes[4] = {AG_F32, AG_F64, AG_C64, AG_C128};
  const size_t shape[3] = {3, 5, 7};
  for (int k = 0; k < 4; k++)
    for (int axis = 0; axis < 3; axis++)
      for (int o = 0; o < 4; o++)
        compare(dev, host, (op)o, dtypes[k], 3, shape, axis);
  oclgrind_free_kept();
}
END_TEST

/* More than 1024 values as one line: the norm from ag_nrm2, then ag_prox_l2_scale_<t>. */
static void scale_case(int i, ag_dtype t) {
  ag_device *dev = oclgrind_device(i), *host;
  CHECK_OK(ag_device_select("host", &host));
  const size_t n = 1100;
  compare(dev, host, OP_SL1L2, t, 1, &n, AG_AXIS_ALL);
  oclgrind_free_kept();
}

START_TEST(the_scaling_after_nrm2_is_clean_in_f32) { scale_case(_i, AG_F32); }
END_TEST

START_TEST(the_scaling_after_nrm2_is_clean_in_c128) { scale_case(_i, AG_C128); }
END_TEST

/* The metrics of 9000 values, three parts on a GPU, against the host's. */
static void metric_case(int i, ag_dtype t) {
  ag_device *dev = oclgrind_device(i), *host;
  CHECK_OK(ag_device_select("host", &host));
  const size_t n = 9000;
  void *r = test_alloc(n * ref_size(t)), *x = test_alloc(n * ref_size(t));
  ref_random(t, r, n, 60, 0, 1);
  ref_random(t, x, n, 61, 0, 1);
  ag_array *sr = oclgrind_operand(dev, t, 1, &n, r), *sx = oclgrind_operand(dev, t, 1, &n, x);
  ag_array *hr = test_array_1d(host, t, n, r), *hx = test_array_1d(host, t, n, x);
  double got, want;
  CHECK_OK(ag_psnr(NULL, sr, sx, 0, &got));
  CHECK_OK(ag_psnr(NULL, hr, hx, 0, &want));
  ck_assert_msg(fabs(got - want) <= 1e-9 * fabs(want), "%s: ag_psnr of %s is %.17g, the host %.17g", test_label(),
                ref_name(t), got, want);
  oclgrind_keep(sr);
  oclgrind_keep(sx);
  ag_array_free(hr);
  ag_array_free(hx);
  free(r);
  free(x);
  oclgrind_free_kept();
}

START_TEST(the_metrics_are_clean_in_f32) { metric_case(_i, AG_F32); }
END_TEST

START_TEST(the_metrics_are_clean_in_f64) { metric_case(_i, AG_F64); }
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "lines and differences are clean and match the host",
                  lines_and_differences_are_clean_and_match_the_host);
  add_device_test(s, "the scaling after nrm2 is clean in f32", the_scaling_after_nrm2_is_clean_in_f32);
  add_device_test(s, "the scaling after nrm2 is clean in c128", the_scaling_after_nrm2_is_clean_in_c128);
  add_device_test(s, "the metrics are clean in f32", the_metrics_are_clean_in_f32);
  add_device_test(s, "the metrics are clean in f64", the_metrics_are_clean_in_f64);
}
