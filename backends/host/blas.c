/* backends/host/blas.c - the host's BLAS: OpenBLAS through its CBLAS interface, on host
   memory. The host backend uses it, and so may a backend whose device memory the host can
   map (ag__core_services.host_blas), so an ag__bmem here is a host address. */
#include <cblas.h>
#include <limits.h>
#include <string.h>

#include "../backend.h"
#include "host_internal.h"

#define AT(mem, off, t) ((char *)(mem) + (off) * ag__blas_dtype_size(t))

static enum CBLAS_TRANSPOSE trans(ag_transpose t) {
  return t == AG_NO_TRANS ? CblasNoTrans : t == AG_TRANS ? CblasTrans : CblasConjTrans;
}

/* CBLAS counts in int (this OpenBLAS is not built for 64-bit indices). */
static ag_status fits(const char *call, size_t v) {
  if (v > (size_t)INT_MAX)
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "%s: %zu exceeds OpenBLAS's index limit %d", call, v, INT_MAX);
  return AG_OK;
}

static ag_status host_gemm(ag__bqueue *q, const ag__gemm *g) {
  (void)q;
  ag_status st;
  if ((st = fits("cblas_gemm", g->m)) != AG_OK || (st = fits("cblas_gemm", g->n)) != AG_OK ||
      (st = fits("cblas_gemm", g->k)) != AG_OK || (st = fits("cblas_gemm", g->lda)) != AG_OK ||
      (st = fits("cblas_gemm", g->ldb)) != AG_OK || (st = fits("cblas_gemm", g->ldc)) != AG_OK)
    return st;
  const int m = (int)g->m, n = (int)g->n, k = (int)g->k;
  const int lda = (int)g->lda, ldb = (int)g->ldb, ldc = (int)g->ldc;
  /* A batch is a loop: each call already runs on every core. */
  for (size_t i = 0; i < g->batch; i++) {
    const void *a = AT(g->a, g->a_off + i * g->a_stride, g->dtype);
    const void *b = AT(g->b, g->b_off + i * g->b_stride, g->dtype);
    void *c = AT(g->c, g->c_off + i * g->c_stride, g->dtype);
    switch (g->dtype) {
    case AG_F32:
      cblas_sgemm(CblasRowMajor, trans(g->ta), trans(g->tb), m, n, k, *(const float *)g->alpha, a, lda, b, ldb,
                  *(const float *)g->beta, c, ldc);
      break;
    case AG_F64:
      cblas_dgemm(CblasRowMajor, trans(g->ta), trans(g->tb), m, n, k, *(const double *)g->alpha, a, lda, b, ldb,
                  *(const double *)g->beta, c, ldc);
      break;
    case AG_C64:
      cblas_cgemm(CblasRowMajor, trans(g->ta), trans(g->tb), m, n, k, g->alpha, a, lda, b, ldb, g->beta, c, ldc);
      break;
    case AG_C128:
      cblas_zgemm(CblasRowMajor, trans(g->ta), trans(g->tb), m, n, k, g->alpha, a, lda, b, ldb, g->beta, c, ldc);
      break;
    default:
      return ag__host_core()->error(AG_ERR_UNSUPPORTED, "cblas_gemm: no routine for %s", ag__blas_dtype_name(g->dtype));
    }
  }
  return AG_OK;
}

static ag_status host_gemv(ag__bqueue *q, const ag__gemv *g) {
  (void)q;
  ag_status st;
  if ((st = fits("cblas_gemv", g->m)) != AG_OK || (st = fits("cblas_gemv", g->n)) != AG_OK ||
      (st = fits("cblas_gemv", g->lda)) != AG_OK)
    return st;
  const int m = (int)g->m, n = (int)g->n, lda = (int)g->lda;
  const void *a = AT(g->a, g->a_off, g->dtype), *x = AT(g->x, g->x_off, g->dtype);
  void *y = AT(g->y, g->y_off, g->dtype);
  switch (g->dtype) {
  case AG_F32:
    cblas_sgemv(CblasRowMajor, trans(g->ta), m, n, *(const float *)g->alpha, a, lda, x, 1, *(const float *)g->beta, y, 1);
    break;
  case AG_F64:
    cblas_dgemv(CblasRowMajor, trans(g->ta), m, n, *(const double *)g->alpha, a, lda, x, 1, *(const double *)g->beta, y,
                1);
    break;
  case AG_C64:
    cblas_cgemv(CblasRowMajor, trans(g->ta), m, n, g->alpha, a, lda, x, 1, g->beta, y, 1);
    break;
  case AG_C128:
    cblas_zgemv(CblasRowMajor, trans(g->ta), m, n, g->alpha, a, lda, x, 1, g->beta, y, 1);
    break;
  default:
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "cblas_gemv: no routine for %s", ag__blas_dtype_name(g->dtype));
  }
  return AG_OK;
}

static ag_status host_axpy(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off,
                           ag__bmem *y, size_t y_off) {
  (void)q;
  ag_status st = fits("cblas_axpy", n);
  if (st != AG_OK)
    return st;
  const void *xp = AT(x, x_off, t);
  void *yp = AT(y, y_off, t);
  switch (t) {
  case AG_F32:
    cblas_saxpy((int)n, *(const float *)alpha, xp, 1, yp, 1);
    break;
  case AG_F64:
    cblas_daxpy((int)n, *(const double *)alpha, xp, 1, yp, 1);
    break;
  case AG_C64:
    cblas_caxpy((int)n, alpha, xp, 1, yp, 1);
    break;
  case AG_C128:
    cblas_zaxpy((int)n, alpha, xp, 1, yp, 1);
    break;
  default:
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "cblas_axpy: no routine for %s", ag__blas_dtype_name(t));
  }
  return AG_OK;
}

static ag_status host_scal(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off) {
  (void)q;
  ag_status st = fits("cblas_scal", n);
  if (st != AG_OK)
    return st;
  void *xp = AT(x, x_off, t);
  switch (t) {
  case AG_F32:
    cblas_sscal((int)n, *(const float *)alpha, xp, 1);
    break;
  case AG_F64:
    cblas_dscal((int)n, *(const double *)alpha, xp, 1);
    break;
  case AG_C64:
    cblas_cscal((int)n, alpha, xp, 1);
    break;
  case AG_C128:
    cblas_zscal((int)n, alpha, xp, 1);
    break;
  default:
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "cblas_scal: no routine for %s", ag__blas_dtype_name(t));
  }
  return AG_OK;
}

static ag_status host_dot(ag__bqueue *q, ag_dtype t, bool conjugate, size_t n, ag__bmem *x, size_t x_off,
                          ag__bmem *y, size_t y_off, ag__bmem *out, size_t out_off) {
  (void)q;
  ag_status st = fits("cblas_dot", n);
  if (st != AG_OK)
    return st;
  const void *xp = AT(x, x_off, t), *yp = AT(y, y_off, t);
  void *o = AT(out, out_off, t);
  switch (t) {
  case AG_F32:
    *(float *)o = cblas_sdot((int)n, xp, 1, yp, 1);
    break;
  case AG_F64:
    *(double *)o = cblas_ddot((int)n, xp, 1, yp, 1);
    break;
  case AG_C64:
    if (conjugate)
      cblas_cdotc_sub((int)n, xp, 1, yp, 1, o);
    else
      cblas_cdotu_sub((int)n, xp, 1, yp, 1, o);
    break;
  case AG_C128:
    if (conjugate)
      cblas_zdotc_sub((int)n, xp, 1, yp, 1, o);
    else
      cblas_zdotu_sub((int)n, xp, 1, yp, 1, o);
    break;
  default:
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "cblas_dot: no routine for %s", ag__blas_dtype_name(t));
  }
  return AG_OK;
}

static ag_status host_nrm2(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *x, size_t x_off, ag__bmem *out,
                           size_t out_off) {
  (void)q;
  ag_status st = fits("cblas_nrm2", n);
  if (st != AG_OK)
    return st;
  const void *xp = AT(x, x_off, t);
  switch (t) {
  case AG_F32:
    *(float *)AT(out, out_off, AG_F32) = cblas_snrm2((int)n, xp, 1);
    break;
  case AG_F64:
    *(double *)AT(out, out_off, AG_F64) = cblas_dnrm2((int)n, xp, 1);
    break;
  case AG_C64:
    *(float *)AT(out, out_off, AG_F32) = cblas_scnrm2((int)n, xp, 1);
    break;
  case AG_C128:
    *(double *)AT(out, out_off, AG_F64) = cblas_dznrm2((int)n, xp, 1);
    break;
  default:
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "cblas_nrm2: no routine for %s", ag__blas_dtype_name(t));
  }
  return AG_OK;
}

const ag__blas_ops ag__host_blas_ops = {
    .name = "OpenBLAS",
    .gemm = host_gemm,
    .gemv = host_gemv,
    .axpy = host_axpy,
    .scal = host_scal,
    .dot = host_dot,
    .nrm2 = host_nrm2,
};
