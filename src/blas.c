/* src/blas.c - linear algebra on arrays: shape and dtype checks, views passed in place or
   through contiguous stand-ins, then the device's BLAS provider (backends' ag__blas_ops:
   OpenBLAS, CLBlast, cuBLAS), and the internal entry to the optional eigensolver
   (ag__lapack_ops: cuSOLVER). */
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "layout.h"

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

/* Checks a list of operands, of any layout: present, one device, one dtype, a BLAS dtype. */
static ag_status check_operands(const char *fn, size_t n, const char *const *names, const ag_array *const *arrays) {
  ag_status st;
  for (size_t i = 0; i < n; i++)
    if ((st = ag__check_operand(fn, names[i], arrays[i])) != AG_OK)
      return st;
  for (size_t i = 1; i < n; i++)
    if ((st = ag__check_same_device(fn, names[0], arrays[0], names[i], arrays[i])) != AG_OK ||
        (st = ag__check_same_dtype(fn, names[0], arrays[0], names[i], arrays[i])) != AG_OK)
      return st;
  return check_blas_dtype(fn, names[0], arrays[0]);
}

static ag__bmem *mem_of(const ag_array *a) { return a->store ? a->store->buf->mem : NULL; }

/* ---- views: in place where the provider's layout allows, else a contiguous stand-in ------ */

/* Whether a provider takes the trailing two axes of @p a (2-D or 3-D, none empty) where they
   are: rows of unit stride, *ld >= columns elements apart (a row slice, a column block of a
   bigger matrix), or, when @p may_flip, columns of unit stride (a transpose), read as the
   transposed matrix stored by rows (*flipped). A batch axis steps *batch_stride >= 0 elements
   (0 for a 2-D operand, which serves every product). Negative strides, zero strides within a
   matrix and steps along both axes are not taken. */
static bool in_place(const ag_array *a, bool may_flip, bool *flipped, size_t *ld, size_t *batch_stride) {
  size_t r = a->shape[a->ndim - 2], c = a->shape[a->ndim - 1];
  ptrdiff_t sr = a->strides[a->ndim - 2], sc = a->strides[a->ndim - 1];
  *batch_stride = 0;
  if (a->ndim == 3 && a->shape[0] > 1) {
    if (a->strides[0] < 0)
      return false;
    *batch_stride = (size_t)a->strides[0];
  }
  /* A length-1 axis has no stride to speak of: any is taken. */
  if ((c == 1 || sc == 1) && (r == 1 || sr >= (ptrdiff_t)c)) {
    *flipped = false;
    *ld = r == 1 ? c : (size_t)sr;
    return true;
  }
  if (may_flip && (r == 1 || sr == 1) && (c == 1 || sc >= (ptrdiff_t)r)) {
    *flipped = true;
    *ld = c == 1 ? r : (size_t)sc;
    return true;
  }
  return false;
}

/* The transpose flag that reads a matrix stored transposed as the caller's op(): N <-> T, and
   for a real dtype C (which is T) -> N. A complex C has none (conj alone is no BLAS flag):
   in_place is not asked to flip then. */
static ag_transpose flip(ag_transpose t) { return t == AG_NO_TRANS ? AG_TRANS : AG_NO_TRANS; }

/* *use is @p a, or, when @p copy, a new contiguous array (*tmp) holding a copy of it if
   @p read (an output the provider overwrites whole needs none). Errors name @p fn. */
static ag_status stand_in(const char *fn, ag_queue *q, const ag_array *a, bool copy, bool read, const ag_array **use,
                          ag_array **tmp) {
  *use = a;
  *tmp = NULL;
  if (!copy)
    return AG_OK;
  ag_status st = ag__stand_in(fn, q, a, read, tmp);
  if (st != AG_OK)
    return st;
  *use = *tmp;
  return AG_OK;
}

/* After a call that wrote @p tmp in place of @p out (when it stood in): the copy back, on
   @p q, when @p st is AG_OK. Frees tmp either way. */
static ag_status write_back(const char *fn, ag_queue *q, ag_status st, ag_array *tmp, ag_array *out) {
  if (tmp != NULL && st == AG_OK)
    st = ag__copy_layout(fn, q, tmp, out);
  ag_array_free(tmp);
  return st;
}

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
  /* C is written in place when its rows have unit stride; A and B are read in place when
     in_place allows, flipping their flags; every other operand stands in contiguous. */
  if ((st = ag__check_writable(fn, "c", c)) != AG_OK)
    return st;
  bool complex = ag__dtype_is_complex(a->dtype), fa = false, fb = false, fc = false;
  bool a_here = in_place(a, !(complex && ta == AG_CONJ_TRANS), &fa, &g.lda, &g.a_stride);
  bool b_here = in_place(b, !(complex && tb == AG_CONJ_TRANS), &fb, &g.ldb, &g.b_stride);
  bool c_here = in_place(c, false, &fc, &g.ldc, &g.c_stride);
  const ag_array *ua, *ub, *uc;
  ag_array *ta_tmp = NULL, *tb_tmp = NULL, *tc_tmp = NULL;
  bool beta_reads = beta_re != 0 || beta_im != 0;
  st = stand_in(fn, q, a, !a_here, true, &ua, &ta_tmp);
  if (st != AG_OK)
    goto done;
  st = stand_in(fn, q, b, !b_here, true, &ub, &tb_tmp);
  if (st != AG_OK)
    goto done;
  st = stand_in(fn, q, c, !c_here, beta_reads, &uc, &tc_tmp);
  if (st != AG_OK)
    goto done;
  if (a_here && fa)
    g.ta = flip(ta);
  if (b_here && fb)
    g.tb = flip(tb);
  if (!a_here) {
    g.lda = ac;
    g.a_stride = a->ndim == 3 ? ar * ac : 0;
  }
  if (!b_here) {
    g.ldb = bc;
    g.b_stride = b->ndim == 3 ? br * bc : 0;
  }
  if (!c_here) {
    g.ldc = cc;
    g.c_stride = c->ndim == 3 ? cr * cc : 0;
  }
  g.a = mem_of(ua);
  g.b = mem_of(ub);
  g.c = mem_of(uc);
  g.a_off = ua->offset;
  g.b_off = ub->offset;
  g.c_off = uc->offset;
  st = blas_run(fn, q, &(blas_call){.routine = GEMM, .gemm = &g, .arrays = {ua, ub, uc}});
done:
  ag_array_free(ta_tmp);
  ag_array_free(tb_tmp);
  return write_back(fn, q, st, tc_tmp, c);
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
  /* A is read in place where gemm's would be: rows of unit stride a leading dimension apart,
     or the transpose of such a matrix (flags flipped); x and y when contiguous; other operands
     stand in contiguous. */
  if ((st = ag__check_writable(fn, "y", y)) != AG_OK)
    return st;
  bool flipped = false;
  size_t ld, batch_stride;
  bool complex = ag__dtype_is_complex(a->dtype);
  bool a_here = in_place(a, !(complex && ta == AG_CONJ_TRANS), &flipped, &ld, &batch_stride);
  const ag_array *ua, *ux, *uy;
  ag_array *ta_tmp = NULL, *tx_tmp = NULL, *ty_tmp = NULL;
  st = stand_in(fn, q, a, !a_here, true, &ua, &ta_tmp);
  if (st != AG_OK)
    goto done;
  st = stand_in(fn, q, x, !x->contiguous, true, &ux, &tx_tmp);
  if (st != AG_OK)
    goto done;
  st = stand_in(fn, q, y, !y->contiguous, beta != 0, &uy, &ty_tmp);
  if (st != AG_OK)
    goto done;
  g.lda = a_here ? ld : n;
  if (a_here && flipped) {
    g.ta = flip(ta);
    g.m = n;
    g.n = m;
  }
  g.a = mem_of(ua);
  g.x = mem_of(ux);
  g.y = mem_of(uy);
  g.a_off = ua->offset;
  g.x_off = ux->offset;
  g.y_off = uy->offset;
  st = blas_run(fn, q, &(blas_call){.routine = GEMV, .gemv = &g, .arrays = {ua, ux, uy}});
done:
  ag_array_free(ta_tmp);
  ag_array_free(tx_tmp);
  return write_back(fn, q, st, ty_tmp, y);
}

/* Runs a level-1 call whose @p n operands may be views: each that is not contiguous stands in
   contiguous (the routines take unit increments), operand @p written (the one the routine
   writes) is copied back after. */
static ag_status level_1(const char *fn, ag_queue *q, blas_call *c, int n, int written, const char *written_name) {
  ag_array *out = (ag_array *)c->arrays[written];
  ag_status st = ag__check_writable(fn, written_name, out);
  if (st != AG_OK)
    return st;
  ag_array *tmp[3] = {NULL, NULL, NULL};
  for (int i = 0; i < n && st == AG_OK; i++)
    st = stand_in(fn, q, c->arrays[i], !c->arrays[i]->contiguous, true, &c->arrays[i], &tmp[i]);
  if (st == AG_OK)
    st = blas_run(fn, q, c);
  for (int i = 0; i < n; i++)
    if (i != written)
      ag_array_free(tmp[i]);
  return write_back(fn, q, st, tmp[written], out);
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
  return level_1(fn, q, &(blas_call){.routine = AXPY, .alpha = a, .arrays = {x, y}}, 2, 1, "y");
}

ag_status ag_scal(ag_queue *q, double alpha, ag_array *x) {
  static const char fn[] = "ag_scal";
  const char *names[] = {"x"};
  const ag_array *arrays[] = {x};
  ag_status st = check_operands(fn, 1, names, arrays);
  unsigned char a[16];
  if (st != AG_OK || (st = ag__scalar_to(fn, "alpha", alpha, 0, x->dtype, a)) != AG_OK || x->size == 0)
    return st;
  return level_1(fn, q, &(blas_call){.routine = SCAL, .alpha = a, .arrays = {x}}, 1, 0, "x");
}

/* out of shape {1} and dtype @p t. */
static ag_status check_scalar_out(const char *fn, const ag_array *x, const ag_array *out, ag_dtype t) {
  ag_status st;
  if ((st = ag__check_operand(fn, "out", out)) != AG_OK || (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK)
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
  return level_1(fn, q, &(blas_call){.routine = DOT, .conjugate = conjugate, .arrays = {x, y, out}}, 3, 2, "out");
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
  return level_1(fn, q, &(blas_call){.routine = NRM2, .arrays = {x, out}}, 2, 1, "out");
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
