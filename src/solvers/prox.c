/* src/solvers/prox.c - proximal operators, finite differences and image metrics
   (include/anygpu/prox.h, docs/prox.md): argument checks, then launches of the "prox" family's
   kernels (kernels_shared/prox.h); the nuclear norm's SVD on the host with LAPACK, or, for
   f64 on a device with an eigensolver (CUDA: cuSOLVER), its Gram matrix on the device. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/prox.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_lines, AG_SHAPE_PROX_LINES)
AG__SHAPE_LAUNCHER(launch_scale, AG_SHAPE_PROX_SCALE)
AG__SHAPE_LAUNCHER(launch_grad, AG_SHAPE_GRAD)
AG__SHAPE_LAUNCHER(launch_metric_parts, AG_SHAPE_METRIC_PARTS)

/* LAPACK's divide-and-conquer SVD, as Debian's OpenBLAS exports it (LP64 integers; the last
   argument is the length of jobz, which gfortran passes hidden). */
void sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda, float *s, float *u,
             const int *ldu, float *vt, const int *ldvt, float *work, const int *lwork, int *iwork, int *info,
             size_t jobz_len);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
             const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork, int *info,
             size_t jobz_len);

/* LAPACK's symmetric eigensolver by relatively robust representations (a range of values). */
void dsyevr_(const char *jobz, const char *range, const char *uplo, const int *n, double *a, const int *lda,
             const double *vl, const double *vu, const int *il, const int *iu, const double *abstol, int *m,
             double *w, double *z, const int *ldz, int *isuppz, double *work, const int *lwork, int *iwork,
             const int *liwork, int *info, size_t jobz_len, size_t range_len, size_t uplo_len);

/* ---- shared checks ------------------------------------------------------------------------ */

/* v (argument @p vn) of a float or complex dtype, or of a real float dtype when @p real_only. */
static ag_status check_float(const char *fn, const char *vn, const ag_array *v, bool real_only) {
  ag_status st = ag__check_takes(fn, vn, v, real_only ? AG__TAKES_REAL : AG__TAKES_FLOAT);
  if (st != AG_OK)
    return st;
  return ag__check_fp64(fn, v->dev, v->dtype);
}

/* out (argument @p on) present, on v's device, of v's dtype and shape. */
static ag_status check_like(const char *fn, const char *vn, const ag_array *v, const char *on, const ag_array *out) {
  ag_status st;
  if ((st = ag__check_array(fn, on, out)) != AG_OK || (st = ag__check_same_device(fn, vn, v, on, out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, vn, v, on, out)) != AG_OK)
    return st;
  return ag__check_same_shape(fn, vn, v, on, out);
}

/* A threshold, radius or weight: 0 or more, not NaN. */
static ag_status check_param(const char *fn, const char *name, double value) {
  if (!(value >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is %g; it must be 0 or more", fn, name, value);
  return AG_OK;
}

static ag_status check_axis(const char *fn, const char *vn, const ag_array *v, int axis, bool all_allowed) {
  if ((all_allowed && axis == AG_AXIS_ALL) || (axis >= 0 && axis < v->ndim))
    return AG_OK;
  return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d; %s has %d dimensions (use 0 to %d%s)", fn, axis, vn,
                   v->ndim, v->ndim - 1, all_allowed ? ", or AG_AXIS_ALL" : "");
}

/* v as [outer][len][inner] around @p axis (AG_AXIS_ALL: one line of every element). */
typedef struct lines {
  uint64_t outer, len, inner;
} lines;

static lines lines_of(const ag_array *v, int axis) {
  lines l = {1, v->size, 1};
  if (axis == AG_AXIS_ALL)
    return l;
  l.len = v->shape[axis];
  for (int d = 0; d < axis; d++)
    l.outer *= v->shape[d];
  for (int d = axis + 1; d < v->ndim; d++)
    l.inner *= v->shape[d];
  return l;
}

/* ---- l1 and l2 -------------------------------------------------------------------------- */

ag_status ag_prox_l1(ag_queue *q, const ag_array *v, double alpha, ag_array *out) {
  static const char fn[] = "ag_prox_l1";
  ag_status st;
  if ((st = check_float(fn, "v", v, false)) != AG_OK || (st = check_param(fn, "alpha", alpha)) != AG_OK ||
      (st = check_like(fn, "v", v, "out", out)) != AG_OK)
    return st;
  /* ag_soft_threshold is this operator, complex 0 giving 0 (ops.h). */
  return ag__prefix(ag_soft_threshold(q, v, alpha, out), fn);
}

/* The l2 family's common body: out = f(a) * w for each line along @p axis, w being v or, when
   @p use_l1, its soft threshold at @p l1, and f the factor of @p mode at @p alpha
   (kernels_shared/prox.h). Arguments are checked. */
static ag_status l2_lines(const char *fn, ag_queue *q, const ag_array *v, bool use_l1, double l1, int mode,
                          double alpha, int axis, ag_array *out) {
  if (v->size == 0)
    return AG_OK;
  ag_device *dev = v->dev;
  ag_queue *rq;
  ag_status st = ag__queue_resolve(fn, q, dev, &rq);
  if (st != AG_OK)
    return st;
  lines ln = lines_of(v, axis);
  uint64_t count = ln.outer * ln.inner, limit = ag__dev_info(dev)->max_loop_iterations;
  uint64_t units = ag__dev_info(dev)->compute_units > 0 ? (uint64_t)ag__dev_info(dev)->compute_units : 1;
  unsigned char pl1[8], pa[8];
  ag__val vl1 = ag__real_val(v->dtype, l1, pl1), va = ag__real_val(v->dtype, alpha, pa);
  /* One work-item per line, when no loop runs past the device's limit and the lines are short
     or many enough to keep the device busy; otherwise the norms from ag_nrm2 (a reduction
     that cuts long lines among work-items) and an elementwise pass. */
  if ((limit == 0 || ln.len <= limit) && (ln.len <= 1024 || count >= 4 * units)) {
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_PROX_L2_LINES + v->dtype, .n = count};
    return AG__LAUNCH(launch_lines, &l, .v = v, .len = ln.len, .inner = ln.inner, .use_l1 = use_l1 ? 1 : 0, .l1 = vl1,
                      .mode = (uint64_t)mode, .alpha = va, .out = out);
  }
  const ag_array *w = v;
  if (use_l1) {
    if ((st = ag_soft_threshold(rq, v, l1, out)) != AG_OK)
      return ag__prefix(st, fn);
    w = out;
  }
  size_t shape[AG_MAX_DIMS];
  int nd = 0;
  for (int d = 0; axis != AG_AXIS_ALL && d < v->ndim; d++)
    if (d != axis)
      shape[nd++] = v->shape[d];
  if (nd == 0)
    shape[nd++] = 1;
  ag_array *nrm = NULL;
  if ((st = ag_array_create(dev, ag__dtype_real(v->dtype), nd, shape, &nrm)) != AG_OK)
    return ag__prefix(st, fn);
  st = ag__prefix(ag_nrm2(rq, w, axis, nrm), fn);
  if (st == AG_OK) {
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_PROX_L2_SCALE + v->dtype, .n = v->size};
    st = AG__LAUNCH(launch_scale, &l, .v = w, .nrm = nrm, .len = ln.len, .inner = ln.inner, .mode = (uint64_t)mode,
                    .alpha = va, .out = out);
  }
  ag_array_free(nrm); /* its memory waits for the queue */
  return st;
}

/* The operators along an axis: checks (parameter @p pn, and @p pn2 when not NULL), then
   l2_lines with the soft threshold at p (when @p use_l1) and the factor of @p mode at p2
   (at p without the soft threshold). */
static ag_status along_axis(const char *fn, ag_queue *q, const ag_array *v, const char *pn, double p, const char *pn2,
                            double p2, bool use_l1, int mode, int axis, ag_array *out) {
  ag_status st;
  if ((st = check_float(fn, "v", v, false)) != AG_OK || (st = check_param(fn, pn, p)) != AG_OK ||
      (pn2 != NULL && (st = check_param(fn, pn2, p2)) != AG_OK) || (st = check_axis(fn, "v", v, axis, true)) != AG_OK ||
      (st = check_like(fn, "v", v, "out", out)) != AG_OK)
    return st;
  return use_l1 ? l2_lines(fn, q, v, true, p, mode, p2, axis, out) : l2_lines(fn, q, v, false, 0, mode, p, axis, out);
}

ag_status ag_prox_l2(ag_queue *q, const ag_array *v, double alpha, int axis, ag_array *out) {
  return along_axis("ag_prox_l2", q, v, "alpha", alpha, NULL, 0, false, AG_PX_SHRINK, axis, out);
}

ag_status ag_proj_l2(ag_queue *q, const ag_array *v, double gamma, int axis, ag_array *out) {
  return along_axis("ag_proj_l2", q, v, "gamma", gamma, NULL, 0, false, AG_PX_PROJECT, axis, out);
}

ag_status ag_prox_sl1l2(ag_queue *q, const ag_array *v, double alpha, double beta, int axis, ag_array *out) {
  return along_axis("ag_prox_sl1l2", q, v, "alpha", alpha, "beta", beta, true, AG_PX_SHRINK, axis, out);
}

/* ---- nuclear norm ------------------------------------------------------------------------- */

/* Whether every one of @p n values of dtype @p t at @p p is finite. */
static bool all_finite(ag_dtype t, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(t == AG_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i]))
      return false;
  return true;
}

/* The thin SVD of the column-major rows x cols matrix a (destroyed) into s, u (rows x k) and
   vt (k x cols), k = min(rows, cols), in dtype @p t; LAPACK's info in *info. */
static ag_status gesdd(const char *fn, ag_dtype t, int rows, int cols, void *a, void *s, void *u, void *vt,
                       int *info) {
  int k = rows < cols ? rows : cols, lwork = -1;
  int *iwork = malloc(8 * (size_t)k * sizeof *iwork);
  if (iwork == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the SVD's workspace", fn);
  double query = 0;
  float query_f = 0;
  if (t == AG_F32)
    sgesdd_("S", &rows, &cols, a, &rows, s, u, &rows, vt, &k, &query_f, &lwork, iwork, info, 1);
  else
    dgesdd_("S", &rows, &cols, a, &rows, s, u, &rows, vt, &k, &query, &lwork, iwork, info, 1);
  lwork = (int)(t == AG_F32 ? query_f : query) + 1;
  void *work = *info == 0 ? malloc((size_t)lwork * (t == AG_F32 ? sizeof(float) : sizeof(double))) : NULL;
  if (*info == 0 && work == NULL) {
    free(iwork);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the SVD's workspace (%d elements)", fn, lwork);
  }
  if (*info == 0) {
    if (t == AG_F32)
      sgesdd_("S", &rows, &cols, a, &rows, s, u, &rows, vt, &k, work, &lwork, iwork, info, 1);
    else
      dgesdd_("S", &rows, &cols, a, &rows, s, u, &rows, vt, &k, work, &lwork, iwork, info, 1);
  }
  free(work);
  free(iwork);
  return AG_OK;
}

/* Singular value thresholding in double precision through the Gram matrix, for alpha > 0:
   the eigenpairs (l_j, w_j) of G = v^T v (n x n, when n <= m) above alpha^2 only, by dsyevr,
   give the singular values s_j = sqrt(l_j) above alpha with their right singular vectors, and
   out = v W diag((s_j - alpha) / s_j) W^T (or W diag(..) W^T v from G = v v^T when m < n). The
   few values above the threshold of a low-rank matrix cost a fraction of the full SVD (a
   512 x 512 matrix of rank 10: 45 ms against 245 ms for dgesdd, one thread). Squaring costs
   accuracy in the smallest singular values only: an error of about eps s_max^2 / s_j in s_j,
   small for the values kept, which are above alpha. @p a is v, row-major m x n, and is
   overwritten with out; @p s receives the k thresholded values, largest first, zeros after.
   Returns LAPACK's info through *info. */
static ag_status svt_gram(const char *fn, size_t m, size_t n, double *a, double alpha, double *s, int *info) {
  bool tall = n <= m;
  int g = (int)(tall ? n : m), lda = (int)n, found = 0, lwork = -1, liwork = -1, il = 0, iu = 0, iq = 0;
  double *gm = malloc((size_t)g * (size_t)g * sizeof *gm), *w = malloc((size_t)g * sizeof *w);
  double *z = malloc((size_t)g * (size_t)g * sizeof *z), *t = malloc(m * n * sizeof *t), q = 0;
  int *isuppz = malloc(2 * (size_t)g * sizeof *isuppz), *iwork = NULL;
  double *work = NULL;
  ag_status st = AG_OK;
  if (gm == NULL || w == NULL || z == NULL || t == NULL || isuppz == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the Gram matrix of a %zu x %zu matrix", fn, m, n);
    goto done;
  }
  /* G's upper triangle, row-major (its lower one, column-major, for LAPACK) */
  cblas_dsyrk(CblasRowMajor, CblasUpper, tall ? CblasTrans : CblasNoTrans, g, (int)(tall ? m : n), 1.0, a, lda, 0.0,
              gm, g);
  double trace = 0;
  for (int i = 0; i < g; i++)
    trace += gm[(size_t)i * (size_t)g + (size_t)i];
  double vl = alpha * alpha, vu = 2 * trace + 1, abstol = 0;
  if (!(vu > vl)) /* nothing above the threshold */
    goto zero;
  dsyevr_("V", "V", "L", &g, gm, &g, &vl, &vu, &il, &iu, &abstol, &found, w, z, &g, isuppz, &q, &lwork, &iq,
          &liwork, info, 1, 1, 1);
  if (*info != 0)
    goto done;
  lwork = (int)q + 1, liwork = iq;
  work = malloc((size_t)lwork * sizeof *work), iwork = malloc((size_t)liwork * sizeof *iwork);
  if (work == NULL || iwork == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the eigensolver's workspace", fn);
    goto done;
  }
  dsyevr_("V", "V", "L", &g, gm, &g, &vl, &vu, &il, &iu, &abstol, &found, w, z, &g, isuppz, work, &lwork, iwork,
          &liwork, info, 1, 1, 1);
  if (*info != 0)
    goto done;
zero:
  /* z holds the eigenvectors as rows (column-major g x found): W^T, found x g, ascending */
  for (int j = 0; j < found; j++) {
    double sj = sqrt(w[j]), d = sj > alpha ? (sj - alpha) / sj : 0;
    s[found - 1 - j] = sj > alpha ? sj - alpha : 0;
    w[j] = d;
  }
  for (int j = found; j < g; j++)
    s[j] = 0;
  if (found == 0) {
    memset(a, 0, m * n * sizeof *a);
    goto done;
  }
  if (tall) { /* t = v W (m x found), scaled by column; out = t W^T */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m, found, g, 1.0, a, lda, z, g, 0.0, t, found);
    for (size_t i = 0; i < m; i++)
      for (int j = 0; j < found; j++)
        t[i * (size_t)found + (size_t)j] *= w[j];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, found, 1.0, t, found, z, g, 0.0, a, lda);
  } else { /* t = W^T v (found x n), scaled by row; out = W t */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, found, (int)n, g, 1.0, z, g, a, lda, 0.0, t, (int)n);
    for (int j = 0; j < found; j++)
      cblas_dscal((int)n, w[j], t + (size_t)j * n, 1);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)m, (int)n, found, 1.0, z, g, t, (int)n, 0.0, a, lda);
  }
done:
  free(gm), free(w), free(z), free(t), free(isuppz), free(work), free(iwork);
  return st;
}

/* svt_gram on the device, for f64 with alpha > 0 on a device whose backend has an eigensolver
   (ag__has_syevd: CUDA's cuSOLVER): G = v^T v (or v v^T, the smaller side) by ag_gemm, all
   its eigenpairs by ag__syevd (which synchronises @p q), the g = min(m, n) eigenvalues read
   back to choose those above alpha^2, which come last, as they ascend, and the weights
   (s_j - alpha) / s_j uploaded; then with Wr^T, the rows of the eigenvector matrix above the
   threshold (a view, r x g):
       tall (n <= m): T = v Wr (m x r), T *= d by column, out = T Wr^T;
       wide (m < n):  T = v^T Wr (n x r), T *= d by column, out = Wr T^T,
   so only columns are ever scaled (ag_mul broadcasts d, shape {r}, over T's rows). Only
   g + r values and sv cross to and from the host. *done says whether out was reached: a
   failure before (no memory, the eigensolver failing, eigenvalues that are not finite,
   which a v holding NaN or Inf gives) leaves *done false and the caller runs the host path,
   which reports such a v as it always has; a failure after is returned. The arguments are
   checked. */
static ag_status svt_device(const char *fn, ag_queue *q, const ag_array *v, double alpha, ag_array *out, ag_array *sv,
                            bool *done) {
  *done = false;
  ag_device *dev = v->dev;
  size_t m = v->shape[0], n = v->shape[1];
  bool tall = n <= m;
  size_t g = tall ? n : m, gs[2] = {g, g}, r = 0;
  ag_array *gm = NULL, *w = NULL, *wr = NULL, *d = NULL, *t = NULL;
  double *lam = malloc(2 * g * sizeof *lam), *s = lam != NULL ? lam + g : NULL;
  ag_status st = lam == NULL ? ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu eigenvalues", fn, g)
                             : ag_array_create(dev, AG_F64, 2, gs, &gm);
  if (st == AG_OK)
    st = ag_gemm(q, tall ? AG_TRANS : AG_NO_TRANS, tall ? AG_NO_TRANS : AG_TRANS, 1.0, v, v, 0.0, gm);
  if (st == AG_OK && (st = ag_array_create(dev, AG_F64, 1, &g, &w)) == AG_OK &&
      (st = ag__syevd(fn, q, gm, w)) == AG_OK)
    st = ag_array_to_host(w, lam, g * sizeof *lam);
  if (st == AG_OK && !all_finite(AG_F64, lam, g))
    st = ag__error(AG_ERR_DEVICE, "%s: the Gram matrix's eigenvalues are not all finite", fn);
  if (st != AG_OK) {
    ag__log_info("%s: %s: the eigensolver's path failed (%s); LAPACK on the host instead", fn,
            ag__dev_info(dev)->spec, ag_last_error());
    goto done;
  }
  /* Ascending: those above the threshold are the last r; sv largest first, zeros after. */
  while (r < g && sqrt(lam[g - 1 - r]) > alpha)
    r++;
  for (size_t j = 0; j < g; j++)
    s[j] = j < r ? sqrt(lam[g - 1 - j]) - alpha : 0;
  for (size_t j = 0; j < r; j++) { /* the weights, in the eigenvectors' (ascending) order */
    double sj = sqrt(lam[g - r + j]);
    lam[j] = (sj - alpha) / sj;
  }
  *done = true;
  if (r == 0) {
    st = ag_fill(q, out, 0);
  } else {
    size_t ts[2] = {tall ? m : n, r};
    if ((st = ag_array_slice(gm, g - r, r, &wr)) == AG_OK && (st = ag_array_create(dev, AG_F64, 1, &r, &d)) == AG_OK &&
        (st = ag__array_write_host(q, d, lam, r * sizeof *lam)) == AG_OK &&
        (st = ag_array_create(dev, AG_F64, 2, ts, &t)) == AG_OK &&
        (st = ag_gemm(q, tall ? AG_NO_TRANS : AG_TRANS, AG_TRANS, 1.0, v, wr, 0.0, t)) == AG_OK &&
        (st = ag_mul(q, t, d, t)) == AG_OK)
      st = tall ? ag_gemm(q, AG_NO_TRANS, AG_NO_TRANS, 1.0, t, wr, 0.0, out)
                : ag_gemm(q, AG_TRANS, AG_TRANS, 1.0, wr, t, 0.0, out);
  }
  if (st == AG_OK && sv != NULL)
    st = ag__array_write_host(q, sv, s, g * sizeof *s);
done:
  /* their memory waits for the queue */
  ag_array_free(t);
  ag_array_free(d);
  ag_array_free(wr);
  ag_array_free(w);
  ag_array_free(gm);
  free(lam);
  return *done ? ag__prefix(st, fn) : st; /* the operations after *done are public ones */
}

ag_status ag_prox_nuclear(ag_queue *q, const ag_array *v, double alpha, ag_array *out, ag_array *sv) {
  static const char fn[] = "ag_prox_nuclear";
  ag_status st = ag__check_array(fn, "v", v);
  if (st != AG_OK)
    return st;
  if (v->dtype != AG_F32 && v->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: v is %s, which %s does not take (it takes f32 and f64; the SVD of "
                     "complex matrices, c64 and c128, is not provided)", fn, ag_dtype_name(v->dtype), fn);
  if ((st = ag__check_fp64(fn, v->dev, v->dtype)) != AG_OK || (st = check_param(fn, "alpha", alpha)) != AG_OK)
    return st;
  if (v->ndim != 2)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: v has %d dimensions; it must be a matrix (2)", fn, v->ndim);
  if ((st = check_like(fn, "v", v, "out", out)) != AG_OK)
    return st;
  size_t m = v->shape[0], n = v->shape[1], k = m < n ? m : n;
  if (sv != NULL) {
    if ((st = ag__check_same_device(fn, "v", v, "sv", sv)) != AG_OK ||
        (st = ag__check_same_dtype(fn, "v", v, "sv", sv)) != AG_OK)
      return st;
    if (sv->ndim != 1 || sv->shape[0] != k)
      return ag__error(AG_ERR_MISMATCH, "%s: sv must have shape {%zu}, min(m, n) for v of shape {%zu, %zu}", fn, k,
                       m, n);
  }
  if (m >= ((size_t)1 << 31) || n >= ((size_t)1 << 31))
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: v is %zu x %zu; LAPACK takes sides below 2^31", fn, m, n);
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, v->dev, &rq)) != AG_OK || k == 0)
    return st;
  if (v->dtype == AG_F64 && alpha > 0 && ag__has_syevd(v->dev)) {
    bool done;
    st = svt_device(fn, rq, v, alpha, out, sv, &done);
    if (done)
      return st;
  }

  /* The row-major m x n matrix is the column-major n x m matrix v^T: its SVD U S V^T gives
     v's thresholded reconstruction transposed, U S' V^T, which is out in row-major order. */
  size_t es = ag_dtype_size(v->dtype), rows = n, cols = m;
  void *a = malloc(m * n * es), *s = malloc(k * es), *u = malloc(rows * k * es), *vt = malloc(k * cols * es);
  void *b = malloc(m * n * es);
  if (a == NULL || s == NULL || u == NULL || vt == NULL || b == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the SVD of a %zu x %zu matrix", fn, m, n);
    goto done;
  }
  if ((st = ag__prefix(ag_array_to_host(v, a, m * n * es), fn)) != AG_OK)
    goto done;
  if (!all_finite(v->dtype, a, m * n)) {
    st = ag__error(AG_ERR_INVALID_ARGUMENT, "%s: v holds NaN or Inf, which has no SVD", fn);
    goto done;
  }
  int info = 0;
  if (v->dtype == AG_F64 && alpha > 0) {
    if ((st = svt_gram(fn, m, n, a, alpha, s, &info)) != AG_OK)
      goto done;
    if (info != 0) {
      st = ag__error(AG_ERR_DEVICE, "%s: LAPACK's dsyevr failed (info %d)", fn, info);
      goto done;
    }
    void *t = b; /* the result is in a */
    b = a, a = t;
    goto write;
  }
  if ((st = gesdd(fn, v->dtype, (int)rows, (int)cols, a, s, u, vt, &info)) != AG_OK)
    goto done;
  if (info != 0) {
    st = ag__error(AG_ERR_DEVICE, "%s: LAPACK's %cgesdd failed (info %d)%s", fn, v->dtype == AG_F32 ? 's' : 'd',
                   info, info > 0 ? ": the SVD did not converge" : "");
    goto done;
  }
  /* Threshold the singular values, scale U's columns by them, and multiply. */
  for (size_t j = 0; j < k; j++) {
    if (v->dtype == AG_F32) {
      float *sj = (float *)s + j;
      *sj = *sj - (float)alpha > 0 ? *sj - (float)alpha : 0.0f;
      cblas_sscal((int)rows, *sj, (float *)u + j * rows, 1);
    } else {
      double *sj = (double *)s + j;
      *sj = *sj - alpha > 0 ? *sj - alpha : 0.0;
      cblas_dscal((int)rows, *sj, (double *)u + j * rows, 1);
    }
  }
  if (v->dtype == AG_F32)
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)cols, (int)k, 1.0f, u, (int)rows, vt,
                (int)k, 0.0f, b, (int)rows);
  else
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)cols, (int)k, 1.0, u, (int)rows, vt,
                (int)k, 0.0, b, (int)rows);
write:
  st = ag__prefix(ag__array_write_host(rq, out, b, m * n * es), fn);
  if (st == AG_OK && sv != NULL)
    st = ag__prefix(ag__array_write_host(rq, sv, s, k * es), fn);
done:
  free(a);
  free(s);
  free(u);
  free(vt);
  free(b);
  return st;
}

/* ---- finite differences ------------------------------------------------------------------- */

static ag_status grad(const char *fn, ag__kernel_id kernel, ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  ag_status st;
  if ((st = check_float(fn, "x", x, false)) != AG_OK || (st = check_axis(fn, "x", x, axis, false)) != AG_OK ||
      (st = check_like(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (ag__arrays_overlap(x, out))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out overlaps x in memory; it must not (each element reads a "
                     "neighbour)", fn);
  if (x->size == 0)
    return AG_OK;
  lines ln = lines_of(x, axis);
  ag__launch l = {.fn = fn, .q = q, .dev = x->dev, .kernel = kernel + x->dtype, .n = x->size};
  return AG__LAUNCH(launch_grad, &l, .x = x, .len = ln.len, .inner = ln.inner, .out = out);
}

ag_status ag_grad(ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  return grad("ag_grad", AG_K_GRAD, q, x, axis, out);
}

ag_status ag_grad_t(ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  return grad("ag_grad_t", AG_K_GRAD_T, q, x, axis, out);
}

/* ---- metrics ------------------------------------------------------------------------------ */

/* The sums of one pass over ref and x (kernels_shared/prox.h, ag_metric_parts_<t>). */
typedef struct metric_sums {
  double n, se, s1, s2, lo, hi;
} metric_sums;

static ag_status metric_sums_of(const char *fn, ag_queue *q, const ag_array *ref, const ag_array *x, double *out,
                                metric_sums *ms) {
  ag_status st;
  if ((st = check_float(fn, "ref", ref, true)) != AG_OK || (st = check_like(fn, "ref", ref, "x", x)) != AG_OK)
    return st;
  AG__CHECK_NOT_NULL(fn, out);
  if (ref->size == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ref and x have no elements, so there is no mean", fn);
  ag_device *dev = ref->dev;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, dev, &rq)) != AG_OK)
    return st;
  /* Parts: enough to fill the device, few enough that reading them back is cheap, and none
     looping past the device's limit. GPUs interleave the parts' elements, so neighbouring
     work-items read neighbouring addresses; CPUs give each part a contiguous stretch. */
  uint64_t total = ref->size;
  uint64_t units = ag__dev_info(dev)->compute_units > 0 ? (uint64_t)ag__dev_info(dev)->compute_units : 1;
  uint64_t parts = (total + 4095) / 4096, most = units * 64, least = ag__loop_items(dev, total);
  if (parts > most)
    parts = most;
  if (parts < least)
    parts = least;
  uint64_t steps = (total + parts - 1) / parts;
  parts = (total + steps - 1) / steps;
  bool interleave = !ag__device_walks_in_chunks(dev);
  size_t nvals = (size_t)parts * AG_PX_PART_VALUES;
  ag_array *part = NULL;
  if ((st = ag_array_create(dev, ref->dtype, 1, &nvals, &part)) != AG_OK)
    return ag__prefix(st, fn);
  ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_METRIC_PARTS + ref->dtype, .n = parts};
  st = AG__LAUNCH(launch_metric_parts, &l, .ref = ref, .x = x, .total = total, .steps = steps,
                  .pstep = interleave ? 1 : steps, .jstep = interleave ? parts : 1, .part = part);
  double *vals = st == AG_OK ? malloc(nvals * sizeof *vals) : NULL;
  float *f = st == AG_OK && ref->dtype == AG_F32 ? malloc(nvals * sizeof *f) : NULL;
  if (st == AG_OK && (vals == NULL || (ref->dtype == AG_F32 && f == NULL)))
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu partial sums", fn, nvals);
  if (st == AG_OK && f != NULL) {
    if ((st = ag__prefix(ag_array_to_host(part, f, nvals * sizeof *f), fn)) == AG_OK)
      for (size_t i = 0; i < nvals; i++)
        vals[i] = f[i];
  } else if (st == AG_OK) {
    st = ag__prefix(ag_array_to_host(part, vals, nvals * sizeof *vals), fn);
  }
  free(f);
  ag_array_free(part);
  if (st == AG_OK) {
    *ms = (metric_sums){.n = (double)total, .lo = vals[6], .hi = vals[7]};
    for (size_t p = 0; p < parts; p++) {
      const double *v = vals + p * AG_PX_PART_VALUES;
      ms->se += v[0] + v[1];
      ms->s1 += v[2] + v[3];
      ms->s2 += v[4] + v[5];
      ms->lo = isnan(ms->lo) || v[6] >= ms->lo ? ms->lo : v[6];
      ms->hi = isnan(ms->hi) || v[7] <= ms->hi ? ms->hi : v[7];
    }
  }
  free(vals);
  return st;
}

ag_status ag_metric_mse(ag_queue *q, const ag_array *ref, const ag_array *x, double *out) {
  metric_sums ms;
  ag_status st = metric_sums_of("ag_metric_mse", q, ref, x, out, &ms);
  if (st == AG_OK)
    *out = ms.se / ms.n;
  return st;
}

ag_status ag_snr(ag_queue *q, const ag_array *ref, const ag_array *x, double *out) {
  metric_sums ms;
  ag_status st = metric_sums_of("ag_snr", q, ref, x, out, &ms);
  if (st == AG_OK) {
    double var = (ms.s2 - ms.s1 * ms.s1 / ms.n) / ms.n;
    *out = 10.0 * log10((var < 0 ? 0.0 : var) / (ms.se / ms.n)); /* rounding may leave var below 0 */
  }
  return st;
}

ag_status ag_psnr(ag_queue *q, const ag_array *ref, const ag_array *x, double rng, double *out) {
  metric_sums ms;
  ag_status st = metric_sums_of("ag_psnr", q, ref, x, out, &ms);
  if (st == AG_OK) {
    double r = rng > 0 ? rng : fabs(ms.hi - ms.lo);
    *out = 10.0 * log10(r * r / (ms.se / ms.n));
  }
  return st;
}
