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

/* An array of dtype @p t on @p dev from doubles (complex: re, im interleaved). */
ag_array *sv_upload(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const double *v) {
  size_t n = t == AG_C64 || t == AG_C128 ? 2 : 1;
  for (int i = 0; i < ndim; i++)
    n *= shape[i];
  ag_array *a = NULL;
  if (t == AG_F64 || t == AG_C128) {
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

/* An array's values as doubles (complex: re, im interleaved; the caller frees). */
double *sv_download(const ag_array *a) {
  ag_dtype t = ag_array_dtype(a);
  size_t n = ag_array_size(a) * (t == AG_C64 || t == AG_C128 ? 2 : 1);
  double *d = malloc((n ? n : 1) * sizeof *d);
  ck_assert_ptr_nonnull(d);
  if (t == AG_F64 || t == AG_C128) {
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
   iterations, and ObjFun, DFid, Reg, the residuals and rho to @p tol relative (of the larger of
   the values and @p floor). rho is held to the residuals' tolerance because AutoRho's scaling
   (AutoScaling) is a continuous function of them: on an AVX-512 CPU, whose OpenBLAS kernels
   round differently from an AVX2 one's, BPDN test_08's rho at iteration 70 differed from
   the transcription's by 2.3e-9 relative. */
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
      ck_assert_msg(e <= tol, "%s: %s iteration %zu field %d: %.17g, the reference %.17g",
                    test_label(), what, k, j, mine[j], ref[j]);
    }
  }
  ck_assert_msg(n == h->shape[0], "%s: %s: %zu iterations, the reference %zu", test_label(), what, n, h->shape[0]);
  printf("%s: %s: %zu iterations agree with the numpy transcription of sporco (worst relative %.2g)\n", test_label(),
         what, n, worst);
}

sv_csc_problem sv_csc_load(const char *d_name, const char *s_name, const char *x0_name) {
  sv_csc_problem p = {0};
  p.d_src = sv_load(d_name);
  p.s_src = sv_load(s_name);
  ck_assert((p.d_src.ndim == 3 || p.d_src.ndim == 4) && (p.s_src.ndim == 2 || p.s_src.ndim == 3));
  p.d0 = p.d_src.shape[0], p.d1 = p.d_src.shape[1], p.m = p.d_src.shape[p.d_src.ndim - 1];
  p.c = p.d_src.ndim == 4 ? p.d_src.shape[2] : 1;
  p.n0 = p.s_src.shape[0], p.n1 = p.s_src.shape[1], p.k = p.s_src.ndim == 3 ? p.s_src.shape[2] : 1;
  ck_assert(p.c == 1 || p.c == p.k);
  size_t nd = p.d0 * p.d1, ns = p.n0 * p.n1;
  p.d = malloc(p.m * p.c * nd * sizeof *p.d);
  p.s = malloc(p.k * ns * sizeof *p.s);
  ck_assert(p.d != NULL && p.s != NULL);
  const double *d = p.d_src.data, *s = p.s_src.data;
  for (size_t j = 0; j < p.m; j++)
    for (size_t c = 0; c < p.c; c++)
      for (size_t a = 0; a < nd; a++)
        p.d[(j * p.c + c) * nd + a] = d[(a * p.c + c) * p.m + j];
  for (size_t k = 0; k < p.k; k++)
    for (size_t a = 0; a < ns; a++)
      p.s[k * ns + a] = s[a * p.k + k];
  if (x0_name != NULL) {
    npy_array x0 = sv_load(x0_name);
    ck_assert(x0.ndim == 3 && x0.shape[0] == p.n0 && x0.shape[1] == p.n1 && x0.shape[2] == p.m);
    p.x0 = malloc(p.m * ns * sizeof *p.x0);
    ck_assert_ptr_nonnull(p.x0);
    const double *x = x0.data;
    for (size_t j = 0; j < p.m; j++)
      for (size_t a = 0; a < ns; a++)
        p.x0[j * ns + a] = x[a * p.m + j];
    npy_free(&x0);
  }
  return p;
}

void sv_csc_free(sv_csc_problem *p) {
  npy_free(&p->d_src), npy_free(&p->s_src);
  free(p->d), free(p->s), free(p->x0);
}

double *sv_csc_reconstruct(const sv_csc_problem *p, const double *x) {
  ck_assert(p->c == 1);
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

double sv_rrs(const double *a, const double *b, size_t n) {
  double e = 0, na = 0, nb = 0;
  for (size_t i = 0; i < n; i++)
    e += (a[i] - b[i]) * (a[i] - b[i]), na += a[i] * a[i], nb += b[i] * b[i];
  return sqrt(e) / sqrt(fmax(na, nb));
}

void sv_csc_check_refusals(ag_device *dev, const char *fn, sv_csc_create create, const char *s_1d) {
  double v[8 * 8] = {1};
  ag_array *d = sv_upload(dev, AG_F32, 3, (size_t[]){2, 3, 3}, v), *s = sv_upload(dev, AG_F32, 2, (size_t[]){8, 8}, v);
  ag_array *big = sv_upload(dev, AG_F32, 3, (size_t[]){1, 9, 3}, v);
  ag_array *s1 = sv_upload(dev, AG_F32, 1, (size_t[]){8}, v);
  ag_array *si = NULL, *di = NULL;
  ck_assert_int_eq(ag_array_create(dev, AG_I32, 2, (size_t[]){8, 8}, &si), AG_OK);
  ck_assert_int_eq(ag_array_create(dev, AG_I32, 3, (size_t[]){2, 3, 3}, &di), AG_OK);
  ag_solver *b = (ag_solver *)&b;
  CHECK_FAILS(create(d, s, 0.1, NULL), AG_ERR_INVALID_ARGUMENT, fn, "solver");
  CHECK_FAILS(create(NULL, s, 0.1, &b), AG_ERR_INVALID_ARGUMENT, fn, "D");
  ck_assert_ptr_null(b);
  CHECK_FAILS(create(d, si, 0.1, &b), AG_ERR_MISMATCH, fn, "S");
  CHECK_FAILS(create(di, si, 0.1, &b), AG_ERR_UNSUPPORTED, fn, "i32");
  CHECK_FAILS(create(big, s, 0.1, &b), AG_ERR_MISMATCH, fn, "larger than the signals");
  CHECK_FAILS(create(d, s1, 0.1, &b), AG_ERR_MISMATCH, fn, s_1d);
  CHECK_FAILS(create(d, s, -1.0, &b), AG_ERR_INVALID_ARGUMENT, fn, "lmbda");
  CHECK_FAILS(create(d, s, INFINITY, &b), AG_ERR_INVALID_ARGUMENT, fn, "lmbda");
  ck_assert_ptr_null(b);
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  if (!info.fp64) {
    ag_array *d64 = NULL, *s64 = NULL;
    ck_assert_int_eq(ag_array_create(dev, AG_F64, 3, (size_t[]){2, 3, 3}, &d64), AG_OK);
    ck_assert_int_eq(ag_array_create(dev, AG_F64, 2, (size_t[]){8, 8}, &s64), AG_OK);
    CHECK_FAILS(create(d64, s64, 0.1, &b), AG_ERR_UNSUPPORTED, fn, "f64");
    ag_array_free(d64), ag_array_free(s64);
  }
  ag_array *arrays[] = {d, s, big, s1, si, di};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
}
