/* tests/solvers_common.c - what the solver suites share (solvers_common.h). */
#include <math.h>
#include <stdlib.h>

#include "python.h"
#include "solvers_common.h"

/* tests/data/NAME.npy, read whole (f8). */
npy_array sv_load(const char *name) {
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  char path[700], err[700];
  snprintf(path, sizeof path, "%s/data/%s.npy", src && *src ? src : "tests", name);
  npy_array a;
  ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s: %s (ANYGPU_TEST_SOURCE_DIR names the tests' folder)",
                test_label(), err);
  ck_assert_msg(a.dtype == NPY_F8, "%s: %s is not float64", test_label(), path);
  return a;
}

/* An array of dtype @p t on @p dev from doubles. */
ag_array *sv_upload(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const double *v) {
  size_t n = 1;
  for (int i = 0; i < ndim; i++)
    n *= shape[i];
  ag_array *a = NULL;
  if (t == AG_F64) {
    ck_assert_int_eq(ag_array_from_host(dev, t, ndim, shape, v, &a), AG_OK);
    return a;
  }
  float *f = malloc((n ? n : 1) * sizeof *f);
  ck_assert_ptr_nonnull(f);
  for (size_t i = 0; i < n; i++)
    f[i] = (float)v[i];
  ck_assert_int_eq(ag_array_from_host(dev, t, ndim, shape, f, &a), AG_OK);
  free(f);
  return a;
}

/* An array's values as doubles (the caller frees). */
double *sv_download(const ag_array *a) {
  size_t n = ag_array_size(a);
  double *d = malloc((n ? n : 1) * sizeof *d);
  ck_assert_ptr_nonnull(d);
  if (ag_array_dtype(a) == AG_F64) {
    ck_assert_int_eq(ag_array_to_host(a, d, n * sizeof *d), AG_OK);
  } else {
    float *f = malloc((n ? n : 1) * sizeof *f);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ag_array_to_host(a, f, n * sizeof *f), AG_OK);
    for (size_t i = 0; i < n; i++)
      d[i] = f[i];
    free(f);
  }
  return d;
}

/* The dtypes a device computes in: f64 where it has double precision, and f32. */
int sv_dtypes(ag_device *dev, ag_dtype out[2]) {
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  int n = 0;
  if (info.fp64)
    out[n++] = AG_F64;
  else
    printf("%s: f64 not run: the device has no double precision\n", test_label());
  out[n++] = AG_F32;
  return n;
}

/* Runs tests/sporco_ref.py's `run SOLVER DIR OUT key=value...` on the inputs written to DIR and
   returns its history (iterations x 9: k, ObjFun, DFid, Reg, r, s, eps_pri, eps_dua, rho). */
npy_array sv_reference_history(const char *solver, const char *dir, char *const *keys) {
  char script[600], out_dir[600], path[700], err[700], out[8192];
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  snprintf(script, sizeof script, "%s/sporco_ref.py", src && *src ? src : "tests");
  snprintf(out_dir, sizeof out_dir, "%s/out", dir);
  char *args[24] = {"python3", script, "run", (char *)solver, (char *)dir, out_dir};
  int n = 6;
  for (; keys[n - 6] != NULL && n < 23; n++)
    args[n] = keys[n - 6];
  args[n] = NULL;
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", test_label(), script, rc, out);
  snprintf(path, sizeof path, "%s/history.npy", out_dir);
  npy_array h;
  ck_assert_msg(npy_read(path, &h, err, sizeof err), "%s: %s", test_label(), err);
  ck_assert_msg(h.dtype == NPY_F8 && h.ndim == 2 && h.shape[1] == 9, "%s: %s is not (iterations, 9) float64",
                test_label(), path);
  return h;
}

/* The solver's history against the reference's, iteration by iteration: the same number of
   iterations, rho equal to 1e-9 relative, and ObjFun, DFid, Reg and the residuals to @p tol
   relative (of the larger of the values and @p floor). */
void sv_compare_history(const char *what, const ag_solver *b, const npy_array *h, double tol, double floor) {
  const ag_iter_stats *st;
  size_t n = ag_solver_history(b, &st);
  const double *r = h->data;
  double worst = 0;
  for (size_t k = 0; k < n && k < h->shape[0]; k++) {
    const double *row = r + 9 * k;
    double mine[6] = {st[k].obj, st[k].dfid, st[k].reg, st[k].r, st[k].s, st[k].rho};
    double ref[6] = {row[1], row[2], row[3], row[4], row[5], row[8]};
    for (int j = 0; j < 6; j++) {
      double e = fabs(mine[j] - ref[j]) / fmax(fmax(fabs(mine[j]), fabs(ref[j])), floor);
      worst = fmax(worst, e);
      ck_assert_msg(e <= (j == 5 ? 1e-9 : tol), "%s: %s iteration %zu field %d: %.17g, the reference %.17g",
                    test_label(), what, k, j, mine[j], ref[j]);
    }
  }
  ck_assert_msg(n == h->shape[0], "%s: %s: %zu iterations, the reference %zu", test_label(), what, n, h->shape[0]);
  printf("%s: %s: %zu iterations agree with the numpy transcription of sporco (worst relative %.2g)\n", test_label(),
         what, n, worst);
}
