/* src/blas.c - linear algebra on arrays: shape and dtype checks, then the device's BLAS
   provider (backends' ag__blas_ops: OpenBLAS, CLBlast, cuBLAS), and the internal entry to the
   optional eigensolver (ag__lapack_ops: cuSOLVER). */
#include <stdio.h>
#include <string.h>

#include "array.h"

/* The device's BLAS, looked up once. */
static ag_status device_blas(const char *fn, ag_device *dev, const ag__blas_ops **ops) {
  pthread_mutex_lock(&dev->lock);
  if (!dev->blas_tried) {
    dev->blas_tried = true;
    dev->blas = dev->be->blas ? dev->be->blas(dev->bdev) : NULL;
    if (dev->blas == NULL)
      dev->blas_reason = strdup(dev->be->blas ? ag_last_error() : "the backend has no BLAS");
  }
  *ops = dev->blas;
  pthread_mutex_unlock(&dev->lock);
  if (*ops == NULL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s has no BLAS: %s", fn, dev->info.spec,
                     dev->blas_reason ? dev->blas_reason : "");
  return AG_OK;
}

const char *ag_blas_provider(const ag_device *dev) {
  if (dev == NULL)
    return NULL;
  const ag__blas_ops *ops;
  char *saved = ag__error_save();
  ag_status st = device_blas("ag_blas_provider", (ag_device *)dev, &ops);
  ag__error_restore(saved);
  return st == AG_OK ? ops->name : NULL;
}

static bool blas_dtype(ag_dtype t) { return t == AG_F32 || t == AG_F64 || t == AG_C64 || t == AG_C128; }

static ag_status check_blas_dtype(const char *fn, const char *name, const ag_array *a) {
  if (!blas_dtype(a->dtype))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is %s; BLAS takes f32, f64, c64 and c128", fn, name,
                     ag_dtype_name(a->dtype));
  return ag__check_fp64(fn, a->dev, a->dtype);
}

/* Checks a list of operands: present, one device, one dtype, a BLAS dtype. */
static ag_status check_operands(const char *fn, size_t n, const char *const *names, const ag_array *const *arrays) {
  ag_status st;
  for (size_t i = 0; i < n; i++)
    if ((st = ag__check_array(fn, names[i], arrays[i])) != AG_OK)
      return st;
  for (size_t i = 1; i < n; i++)
    if ((st = ag__check_same_device(fn, names[0], arrays[0], names[i], arrays[i])) != AG_OK ||
        (st = ag__check_same_dtype(fn, names[0], arrays[0], names[i], arrays[i])) != AG_OK)
      return st;
  return check_blas_dtype(fn, names[0], arrays[0]);
}

static ag__bmem *mem_of(const ag_array *a) { return a->store ? a->store->buf->mem : NULL; }

/* One call into a provider: which routine, its arguments, and its operands (checked, on one
   device). */
typedef enum blas_routine { GEMM, GEMV, AXPY, SCAL, DOT, NRM2 } blas_routine;

typedef struct blas_call {
  blas_routine routine;
  const ag__gemm *gemm;       /* GEMM */
  const ag__gemv *gemv;       /* GEMV */
  const void *alpha;          /* AXPY, SCAL: in the operands' dtype */
  bool conjugate;             /* DOT */
  const ag_array *arrays[3];  /* AXPY x y, SCAL x, DOT x y out, NRM2 x out; GEMM, GEMV all three */
} blas_call;

/* The one way into a device's BLAS: the provider, the queue, the call, then every operand's
   buffer touched on the queue it ran on (the pool reuses a buffer only after its last queue's
   work), and the public function's name before any error. */
static ag_status blas_run(const char *fn, ag_queue *q, const blas_call *c) {
  const ag_array *const *a = c->arrays;
  ag_device *dev = a[0]->dev;
  const ag__blas_ops *ops;
  ag_queue *rq;
  ag_status st;
  if ((st = device_blas(fn, dev, &ops)) != AG_OK || (st = ag__queue_resolve(fn, q, dev, &rq)) != AG_OK)
    return st;
  switch (c->routine) {
  case GEMM:
    st = ops->gemm(rq->bq, c->gemm);
    break;
  case GEMV:
    st = ops->gemv(rq->bq, c->gemv);
    break;
  case AXPY:
    st = ops->axpy(rq->bq, a[0]->dtype, a[0]->size, c->alpha, mem_of(a[0]), a[0]->offset, mem_of(a[1]), a[1]->offset);
    break;
  case SCAL:
    st = ops->scal(rq->bq, a[0]->dtype, a[0]->size, c->alpha, mem_of(a[0]), a[0]->offset);
    break;
  case DOT:
    st = ops->dot(rq->bq, a[0]->dtype, c->conjugate, a[0]->size, mem_of(a[0]), a[0]->offset, mem_of(a[1]),
                  a[1]->offset, mem_of(a[2]), a[2]->offset);
    break;
  case NRM2:
    st = ops->nrm2(rq->bq, a[0]->dtype, a[0]->size, mem_of(a[0]), a[0]->offset, mem_of(a[1]), a[1]->offset);
    break;
  }
  if (st == AG_OK)
    for (int i = 0; i < 3; i++)
      if (a[i] != NULL)
        ag__buffer_touch(a[i]->store->buf, rq);
  return ag__prefix(st, fn);
}

/* C = alpha op(A) op(B) + beta C, reported as function @p fn. */
static ag_status gemm(const char *fn, ag_queue *q, ag_transpose ta, ag_transpose tb, double alpha_re,
                      double alpha_im, const ag_array *a, const ag_array *b, double beta_re, double beta_im,
                      ag_array *c) {
  const char *names[] = {"a", "b", "c"};
  const ag_array *arrays[] = {a, b, c};
  ag_status st = check_operands(fn, 3, names, arrays);
  if (st != AG_OK)
    return st;
  if ((unsigned)ta > AG_CONJ_TRANS || (unsigned)tb > AG_CONJ_TRANS)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is %d, not an ag_transpose", fn,
                     (unsigned)ta > AG_CONJ_TRANS ? "ta" : "tb", (int)((unsigned)ta > AG_CONJ_TRANS ? ta : tb));
  for (int i = 0; i < 3; i++)
    if (arrays[i]->ndim != 2 && arrays[i]->ndim != 3)
      return ag__error(AG_ERR_MISMATCH, "%s: %s has %d dimensions; a matrix has 2, a batch of them 3", fn, names[i],
                       arrays[i]->ndim);
  if (c->ndim == 2 && (a->ndim == 3 || b->ndim == 3))
    return ag__error(AG_ERR_MISMATCH, "%s: %s is a batch (3-D) but c is one matrix (2-D)", fn, a->ndim == 3 ? "a" : "b");
  size_t batch = c->ndim == 3 ? c->shape[0] : 1;
  for (int i = 0; i < 2; i++)
    if (arrays[i]->ndim == 3 && arrays[i]->shape[0] != batch)
      return ag__error(AG_ERR_MISMATCH, "%s: %s is a batch of %zu matrices but c of %zu", fn, names[i],
                       arrays[i]->shape[0], batch);
  /* The trailing two axes: rows, columns as stored. */
  size_t ar = a->shape[a->ndim - 2], ac = a->shape[a->ndim - 1];
  size_t br = b->shape[b->ndim - 2], bc = b->shape[b->ndim - 1];
  size_t cr = c->shape[c->ndim - 2], cc = c->shape[c->ndim - 1];
  size_t m = ta == AG_NO_TRANS ? ar : ac, k = ta == AG_NO_TRANS ? ac : ar;
  size_t kb = tb == AG_NO_TRANS ? br : bc, n = tb == AG_NO_TRANS ? bc : br;
  if (k != kb)
    return ag__error(AG_ERR_MISMATCH, "%s: op(a) is %zu x %zu but op(b) is %zu x %zu: the inner sizes differ", fn, m, k,
                     kb, n);
  if (cr != m || cc != n)
    return ag__error(AG_ERR_MISMATCH, "%s: op(a) op(b) is %zu x %zu but c is %zu x %zu", fn, m, n, cr, cc);
  ag__gemm g = {.dtype = a->dtype, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .batch = batch};
  if ((st = ag__scalar_to(fn, "alpha", alpha_re, alpha_im, a->dtype, g.alpha)) != AG_OK ||
      (st = ag__scalar_to(fn, "beta", beta_re, beta_im, a->dtype, g.beta)) != AG_OK)
    return st;
  if (m == 0 || n == 0 || batch == 0)
    return AG_OK;
  if (k == 0) {
    /* Nothing to multiply: C = beta C, as BLAS defines it (beta 0 clears C, NaN and all). */
    if (beta_re == 0 && beta_im == 0)
      return ag__prefix(ag_fill(q, c, 0), fn);
    return ag__prefix(ag_binary_scalar(q, AG_OP_MUL, c, beta_re, beta_im, false, c), fn);
  }
  g.a = mem_of(a);
  g.b = mem_of(b);
  g.c = mem_of(c);
  g.a_off = a->offset;
  g.b_off = b->offset;
  g.c_off = c->offset;
  g.lda = ac;
  g.ldb = bc;
  g.ldc = cc;
  g.a_stride = a->ndim == 3 ? ar * ac : 0;
  g.b_stride = b->ndim == 3 ? br * bc : 0;
  g.c_stride = c->ndim == 3 ? cr * cc : 0;
  return blas_run(fn, q, &(blas_call){.routine = GEMM, .gemm = &g, .arrays = {a, b, c}});
}

ag_status ag_gemm_complex(ag_queue *q, ag_transpose ta, ag_transpose tb, double alpha_re, double alpha_im,
                          const ag_array *a, const ag_array *b, double beta_re, double beta_im, ag_array *c) {
  return gemm("ag_gemm_complex", q, ta, tb, alpha_re, alpha_im, a, b, beta_re, beta_im, c);
}

ag_status ag_gemm(ag_queue *q, ag_transpose ta, ag_transpose tb, double alpha, const ag_array *a, const ag_array *b,
                  double beta, ag_array *c) {
  return gemm("ag_gemm", q, ta, tb, alpha, 0, a, b, beta, 0, c);
}

ag_status ag_gemv(ag_queue *q, ag_transpose ta, double alpha, const ag_array *a, const ag_array *x, double beta,
                  ag_array *y) {
  static const char fn[] = "ag_gemv";
  const char *names[] = {"a", "x", "y"};
  const ag_array *arrays[] = {a, x, y};
  ag_status st = check_operands(fn, 3, names, arrays);
  if (st != AG_OK)
    return st;
  if ((unsigned)ta > AG_CONJ_TRANS)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ta is %d, not an ag_transpose", fn, (int)ta);
  if (a->ndim != 2 || x->ndim != 1 || y->ndim != 1)
    return ag__error(AG_ERR_MISMATCH, "%s: a must be 2-D and x and y 1-D (they are %d-D, %d-D and %d-D)", fn, a->ndim,
                     x->ndim, y->ndim);
  size_t m = a->shape[0], n = a->shape[1];
  size_t xn = ta == AG_NO_TRANS ? n : m, yn = ta == AG_NO_TRANS ? m : n;
  if (x->shape[0] != xn || y->shape[0] != yn)
    return ag__error(AG_ERR_MISMATCH, "%s: op(a) is %zu x %zu, so x needs %zu elements and y %zu (they have %zu and %zu)",
                     fn, yn, xn, xn, yn, x->shape[0], y->shape[0]);
  ag__gemv g = {.dtype = a->dtype, .ta = ta, .m = m, .n = n};
  if ((st = ag__scalar_to(fn, "alpha", alpha, 0, a->dtype, g.alpha)) != AG_OK ||
      (st = ag__scalar_to(fn, "beta", beta, 0, a->dtype, g.beta)) != AG_OK || yn == 0)
    return st;
  if (xn == 0)
    return ag__prefix(beta == 0 ? ag_fill(q, y, 0) : ag_mul_scalar(q, y, beta, y), fn);
  g.a = mem_of(a);
  g.x = mem_of(x);
  g.y = mem_of(y);
  g.a_off = a->offset;
  g.x_off = x->offset;
  g.y_off = y->offset;
  return blas_run(fn, q, &(blas_call){.routine = GEMV, .gemv = &g, .arrays = {a, x, y}});
}

/* x and y of one element count. */
static ag_status check_count(const char *fn, const ag_array *x, const ag_array *y) {
  if (x->size != y->size)
    return ag__error(AG_ERR_MISMATCH, "%s: x has %zu elements but y has %zu", fn, x->size, y->size);
  return AG_OK;
}

ag_status ag_axpy(ag_queue *q, double alpha, const ag_array *x, ag_array *y) {
  static const char fn[] = "ag_axpy";
  const char *names[] = {"x", "y"};
  const ag_array *arrays[] = {x, y};
  ag_status st = check_operands(fn, 2, names, arrays);
  unsigned char a[16];
  if (st != AG_OK || (st = check_count(fn, x, y)) != AG_OK ||
      (st = ag__scalar_to(fn, "alpha", alpha, 0, x->dtype, a)) != AG_OK || x->size == 0)
    return st;
  return blas_run(fn, q, &(blas_call){.routine = AXPY, .alpha = a, .arrays = {x, y}});
}

ag_status ag_scal(ag_queue *q, double alpha, ag_array *x) {
  static const char fn[] = "ag_scal";
  const char *names[] = {"x"};
  const ag_array *arrays[] = {x};
  ag_status st = check_operands(fn, 1, names, arrays);
  unsigned char a[16];
  if (st != AG_OK || (st = ag__scalar_to(fn, "alpha", alpha, 0, x->dtype, a)) != AG_OK || x->size == 0)
    return st;
  return blas_run(fn, q, &(blas_call){.routine = SCAL, .alpha = a, .arrays = {x}});
}

/* out of shape {1} and dtype @p t. */
static ag_status check_scalar_out(const char *fn, const ag_array *x, const ag_array *out, ag_dtype t) {
  ag_status st;
  if ((st = ag__check_array(fn, "out", out)) != AG_OK || (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (out->dtype != t || out->size != 1 || out->ndim != 1)
    return ag__error(AG_ERR_MISMATCH, "%s: out must be %s of shape {1}", fn, ag_dtype_name(t));
  return AG_OK;
}

ag_status ag_blas_dot(ag_queue *q, const ag_array *x, const ag_array *y, bool conjugate, ag_array *out) {
  static const char fn[] = "ag_blas_dot";
  const char *names[] = {"x", "y"};
  const ag_array *arrays[] = {x, y};
  ag_status st = check_operands(fn, 2, names, arrays);
  if (st != AG_OK || (st = check_count(fn, x, y)) != AG_OK || (st = check_scalar_out(fn, x, out, x->dtype)) != AG_OK)
    return st;
  if (x->size == 0)
    return ag__prefix(ag_fill(q, out, 0), fn);
  return blas_run(fn, q, &(blas_call){.routine = DOT, .conjugate = conjugate, .arrays = {x, y, out}});
}

ag_status ag_blas_nrm2(ag_queue *q, const ag_array *x, ag_array *out) {
  static const char fn[] = "ag_blas_nrm2";
  const char *names[] = {"x"};
  const ag_array *arrays[] = {x};
  ag_status st = check_operands(fn, 1, names, arrays);
  if (st != AG_OK || (st = check_scalar_out(fn, x, out, ag__dtype_real(x->dtype))) != AG_OK)
    return st;
  if (x->size == 0)
    return ag__prefix(ag_fill(q, out, 0), fn);
  return blas_run(fn, q, &(blas_call){.routine = NRM2, .arrays = {x, out}});
}

/* ---- the eigensolver (internal) ----------------------------------------------------------- */

/* The device's eigensolver, looked up once; NULL when its backend has none. */
static const ag__lapack_ops *device_lapack(ag_device *dev) {
  pthread_mutex_lock(&dev->lock);
  if (!dev->lapack_tried) {
    dev->lapack_tried = true;
    dev->lapack = dev->be->lapack ? dev->be->lapack(dev->bdev) : NULL;
  }
  const ag__lapack_ops *ops = dev->lapack;
  pthread_mutex_unlock(&dev->lock);
  return ops;
}

bool ag__has_syevd(ag_device *dev) { return dev != NULL && device_lapack(dev) != NULL; }

ag_status ag__syevd(const char *fn, ag_queue *q, ag_array *a, ag_array *w) {
  const ag__lapack_ops *ops = device_lapack(a->dev);
  if (ops == NULL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s has no eigensolver", fn, a->dev->info.spec);
  if ((a->dtype != AG_F32 && a->dtype != AG_F64) || w->dtype != a->dtype || w->dev != a->dev || a->ndim != 2 ||
      a->shape[0] != a->shape[1] || w->ndim != 1 || w->shape[0] != a->shape[0])
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: the eigensolver takes a square f32 or f64 matrix and a vector of "
                     "its side", fn);
  size_t n = a->shape[0];
  if (n == 0)
    return AG_OK;
  if (n >= ((size_t)1 << 31))
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: the eigensolver takes sides below 2^31 (not %zu)", fn, n);
  ag_queue *rq;
  ag_status st = ag__queue_resolve(fn, q, a->dev, &rq);
  if (st != AG_OK)
    return st;
  st = ops->syevd(rq->bq, a->dtype, n, mem_of(a), a->offset, mem_of(w), w->offset);
  if (st == AG_OK) {
    ag__buffer_touch(a->store->buf, rq);
    ag__buffer_touch(w->store->buf, rq);
  }
  return ag__prefix(st, fn);
}
