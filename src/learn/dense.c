/* src/learn/dense.c — dense layers (learn.h): the forward pass as ag_gemm and one fused
   bias-and-activation kernel, the backward pass as one activation-gradient kernel, two
   ag_gemm and an ag_sum, and Glorot's uniform initialisation drawn on the host. */
#include <math.h>
#include <stdlib.h>

#include "anygpu/blas.h"
#include "nn_launch.h"
#include "rng.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/nn.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_bias_act, AG_SHAPE_NN_BIAS_ACT)

/* @p a (argument @p name) a 2-D array of @p ref's dtype on its device, of @p rows x @p cols
   (SIZE_MAX: any). */
static ag_status check_matrix(const char *fn, const char *rn, const ag_array *ref, const char *name,
                              const ag_array *a, size_t rows, size_t cols, const char *what) {
  ag_status st;
  if ((st = ag__check_array(fn, name, a)) != AG_OK || (st = ag__check_same_device(fn, rn, ref, name, a)) != AG_OK ||
      (st = ag__check_same_dtype(fn, rn, ref, name, a)) != AG_OK)
    return st;
  if (a->ndim != 2 || (rows != SIZE_MAX && a->shape[0] != rows) || (cols != SIZE_MAX && a->shape[1] != cols))
    return ag__error(AG_ERR_MISMATCH, "%s: %s has %d dimensions (%zu x %zu); it must be %s", fn, name, a->ndim,
                     a->shape[0], a->ndim > 1 ? a->shape[1] : (size_t)1, what);
  return AG_OK;
}

/* A bias or its gradient: 1-D of @p n elements, @p ref's dtype and device. */
static ag_status check_bias(const char *fn, const char *rn, const ag_array *ref, const char *name, const ag_array *b,
                            size_t n) {
  ag_status st;
  if ((st = ag__check_array(fn, name, b)) != AG_OK || (st = ag__check_same_device(fn, rn, ref, name, b)) != AG_OK ||
      (st = ag__check_same_dtype(fn, rn, ref, name, b)) != AG_OK)
    return st;
  if (b->ndim != 1 || b->shape[0] != n)
    return ag__error(AG_ERR_MISMATCH, "%s: %s has %d dimensions (first %zu); it must be [out] = [%zu]", fn, name,
                     b->ndim, b->shape[0], n);
  return AG_OK;
}

ag_status ag_dense_forward(ag_queue *q, const ag_array *x, const ag_array *w, const ag_array *b, ag_activation act,
                           ag_array *y) {
  static const char fn[] = "ag_dense_forward";
  ag_status st;
  if ((st = ag__nn_check_act(fn, act)) != AG_OK || (st = ag__nn_check_float(fn, "x", x)) != AG_OK ||
      (st = check_matrix(fn, "x", x, "x", x, SIZE_MAX, SIZE_MAX, "[batch][in]")) != AG_OK ||
      (st = check_matrix(fn, "x", x, "w", w, SIZE_MAX, x->shape[1], "[out][in], in being x's second dimension")) !=
          AG_OK ||
      (b != NULL && (st = check_bias(fn, "x", x, "b", b, w->shape[0])) != AG_OK) ||
      (st = check_matrix(fn, "x", x, "y", y, x->shape[0], w->shape[0], "[batch][out], x's batch and w's out")) != AG_OK)
    return st;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, x->dev, &rq)) != AG_OK)
    return st;
  if (y->size == 0)
    return AG_OK;
  if ((st = ag_gemm(rq, AG_NO_TRANS, AG_TRANS, 1.0, x, w, 0.0, y)) != AG_OK)
    return ag__prefix(st, fn);
  if (b == NULL && act == AG_ACT_IDENTITY)
    return AG_OK;
  ag__launch l = ag__nn_launch(fn, rq, x->dev, x->dtype, AG_K_NN_BIAS_ACT, y->size);
  /* without a bias, y stands in for b, which the kernel then does not read */
  return AG__LAUNCH(launch_bias_act, &l, .b = b != NULL ? b : y, .m = (uint64_t)w->shape[0], .has_b = b != NULL ? 1 : 0,
                    .act = (uint64_t)act, .y = y);
}

ag_status ag_dense_backward(ag_queue *q, const ag_array *x, const ag_array *w, ag_activation act, const ag_array *y,
                            const ag_array *dy, ag_array *dx, ag_array *dw, ag_array *db) {
  static const char fn[] = "ag_dense_backward";
  ag_status st;
  if ((st = ag__nn_check_act(fn, act)) != AG_OK || (st = ag__nn_check_float(fn, "x", x)) != AG_OK ||
      (st = check_matrix(fn, "x", x, "x", x, SIZE_MAX, SIZE_MAX, "[batch][in]")) != AG_OK ||
      (st = check_matrix(fn, "x", x, "w", w, SIZE_MAX, x->shape[1], "[out][in], in being x's second dimension")) !=
          AG_OK ||
      (st = check_matrix(fn, "x", x, "y", y, x->shape[0], w->shape[0], "[batch][out], x's batch and w's out")) !=
          AG_OK ||
      (st = check_matrix(fn, "x", x, "dy", dy, x->shape[0], w->shape[0], "[batch][out], y's shape")) != AG_OK ||
      (dx != NULL && (st = check_matrix(fn, "x", x, "dx", dx, x->shape[0], x->shape[1], "x's shape")) != AG_OK) ||
      (dw != NULL && (st = check_matrix(fn, "x", x, "dw", dw, w->shape[0], w->shape[1], "w's shape")) != AG_OK) ||
      (db != NULL && (st = check_bias(fn, "x", x, "db", db, w->shape[0])) != AG_OK))
    return st;
  if (dx == NULL && dw == NULL && db == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: dx, dw and db are all NULL; ask for at least one", fn);
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, x->dev, &rq)) != AG_OK)
    return st;
  /* dz = dy f'(y); for the identity dz is dy itself */
  ag_array *dz = NULL;
  const ag_array *z = dy;
  if (act != AG_ACT_IDENTITY) {
    if ((st = ag_array_create(x->dev, x->dtype, 2, y->shape, &dz)) != AG_OK ||
        (st = ag_activate_grad(rq, act, y, dy, dz)) != AG_OK) {
      ag_array_free(dz);
      return ag__prefix(st, fn);
    }
    z = dz;
  }
  st = AG_OK;
  if (dw != NULL) /* dW = dz^T X */
    st = ag_gemm(rq, AG_TRANS, AG_NO_TRANS, 1.0, z, x, 0.0, dw);
  if (st == AG_OK && dx != NULL) /* dX = dz W */
    st = ag_gemm(rq, AG_NO_TRANS, AG_NO_TRANS, 1.0, z, w, 0.0, dx);
  if (st == AG_OK && db != NULL) /* db = sum over the batch of dz */
    st = ag_sum(rq, z, 0, db);
  ag_array_free(dz); /* its memory waits for the queue */
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}

ag_status ag_glorot_uniform(ag_queue *q, ag_array *w, uint64_t seed) {
  static const char fn[] = "ag_glorot_uniform";
  ag_status st;
  if ((st = ag__nn_check_float(fn, "w", w)) != AG_OK)
    return st;
  if (w->ndim != 2)
    return ag__error(AG_ERR_MISMATCH, "%s: w has %d dimensions; it must be [fan_out][fan_in]", fn, w->ndim);
  if (w->size == 0)
    return AG_OK;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, w->dev, &rq)) != AG_OK)
    return st;
  double s = sqrt(6.0 / (double)(w->shape[0] + w->shape[1]));
  size_t es = ag_dtype_size(w->dtype);
  void *host = malloc(w->size * es);
  if (host == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory for the draws", fn, w->size * es);
  ag__rng r = ag__rng_seed(seed, 0);
  for (size_t i = 0; i < w->size; i++) {
    double v = s * (2.0 * ag__rng_uniform(&r) - 1.0); /* in [-s, s) */
    if (w->dtype == AG_F32)
      ((float *)host)[i] = (float)v;
    else
      ((double *)host)[i] = v;
  }
  st = ag__array_write_host(rq, w, host, w->size * es);
  free(host);
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}
