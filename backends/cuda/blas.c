/* backends/cuda/blas.c — BLAS on CUDA devices through cuBLAS: row-major operations mapped onto
   cuBLAS's column-major ones, on the caller's stream, in the device's primary context.

   Handles: one cublasHandle_t per device, made on first use in the primary context and kept
   for the life of the process (cublasDestroy synchronises the whole device, and the core never
   closes a device). A handle's stream and pointer mode are state of the handle, so every call
   sets both and makes its cuBLAS call under the device's blas_lock: threads on different
   queues then never see each other's stream, as NVIDIA asks of threads that share a handle.
   The lock is held only while the work is enqueued (microseconds); the GPU still runs the
   queues' work concurrently. cuBLAS itself picks the workspace of kernels that run at once on
   different streams from its default pool, which is correct but, per the cuBLAS guide
   ("Results reproducibility"), may then choose other kernels than a lone stream would: results
   are bitwise reproducible for work on one queue at a time, not across concurrent queues.

   Row-major through column-major: a row-major matrix read column-major is its transpose, so
   C = op(A) op(B) (C m x n, row length ldc) is computed as C^T = op(B)^T op(A)^T, that is
       cublas<t>gemm(tb, ta, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc)
   with each operation passed through unchanged: cuBLAS reads the stored B as X = B^T (n x k
   for N, k x n for T and C, leading dimension ldb either way), and op(B)^T is B^T = X for N,
   B = X^T for T, and (B^H)^T = conj(B) = X^H for C; likewise for A. GEMV reads A (m x n, row
   length n) as the column-major n x m matrix A^T, so A x is (A^T)^T x: OP_T for AG_NO_TRANS
   and OP_N for AG_TRANS. cuBLAS has no conjugate-without-transpose operation, so a complex
   A^H x goes through GEMM instead (see cb_gemv).

   Scalars: alpha and beta are read from host memory (CUBLAS_POINTER_MODE_HOST) before the call
   returns; dot and nrm2 write their result to device memory (CUBLAS_POINTER_MODE_DEVICE), so
   they stay asynchronous. Sizes above INT_MAX go to cuBLAS's 64-bit integer API (the _64
   functions, CUDA 12+); smaller ones to the classic API. */
#include <cublas_v2.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

#define core ag__cuda_core

static bool is_complex(ag_dtype t) { return t == AG_C64 || t == AG_C128; }

/* The letters cuBLAS names a routine's types with: cublasSgemm, cublasZdotc, cublasScnrm2. */
static const char *prefix(ag_dtype t, bool nrm2) {
  switch (t) {
  case AG_F32:
    return "S";
  case AG_F64:
    return "D";
  case AG_C64:
    return nrm2 ? "Sc" : "C";
  default:
    return nrm2 ? "Dz" : "Z";
  }
}

/* A scalar of any of the four dtypes, copied out of the caller's bytes so that cuBLAS reads it
   with its type's alignment (cuDoubleComplex is 16-byte aligned; ag__gemm's bytes need not
   be). */
typedef union scalar {
  float s;
  double d;
  cuComplex c;
  cuDoubleComplex z;
} scalar;

static scalar load(ag_dtype t, const void *v) {
  scalar x;
  memset(&x, 0, sizeof x);
  memcpy(&x, v, ag__blas_dtype_size(t));
  return x;
}

static bool scalar_is_zero(ag_dtype t, const scalar *v) {
  switch (t) {
  case AG_F32:
    return v->s == 0.0f;
  case AG_F64:
    return v->d == 0.0;
  case AG_C64:
    return v->c.x == 0.0f && v->c.y == 0.0f;
  default:
    return v->z.x == 0.0 && v->z.y == 0.0;
  }
}

/* Element @p off of @p m, for a type of @p es bytes, as cuBLAS takes it. */
static void *at(ag__bmem *m, size_t off, size_t es) { return (void *)(uintptr_t)(DPTR(m) + (CUdeviceptr)(off * es)); }

static bool fits(size_t v) { return v <= (size_t)INT_MAX; }

/* A leading dimension as cuBLAS checks it: at least 1 even where a matrix has no columns. */
static int64_t ld(size_t v) { return v > 0 ? (int64_t)v : 1; }

/* Calls the classic routine when every size fits in an int, else its 64-bit twin (fn_64). The
   64-bit arguments convert to int exactly when `wide` is false. */
#define CALL(wide, fn, ...) ((wide) ? fn##_64(__VA_ARGS__) : fn(__VA_ARGS__))

/* ---- errors ------------------------------------------------------------------------------- */

/* "cublasSgemm: CUBLAS_STATUS_INVALID_VALUE (7): an unsupported value or parameter was passed
   to the function". cuBLAS reports a failed kernel launch as EXECUTION_FAILED (or
   INTERNAL_ERROR); the stream then tells whether the context itself is broken, which is added.
   Called with the context current. */
static ag_status cublas_fail(ag__bqueue *q, const char *routine, ag_dtype t, bool wide, cublasStatus_t s) {
  ag_status st = s == CUBLAS_STATUS_ALLOC_FAILED ? AG_ERR_OUT_OF_MEMORY : AG_ERR_DEVICE;
  const char *name = cublasGetStatusName(s), *desc = cublasGetStatusString(s);
  char call[160];
  int n = snprintf(call, sizeof call, "cublas%s%s%s: %s (%d)", prefix(t, strcmp(routine, "nrm2") == 0), routine,
                   wide ? "_64" : "", name ? name : "CUBLAS_STATUS_UNKNOWN", (int)s);
  CUresult e = CUDA_SUCCESS;
  if (s == CUBLAS_STATUS_EXECUTION_FAILED || s == CUBLAS_STATUS_INTERNAL_ERROR)
    e = cuStreamQuery(q->stream);
  if (e != CUDA_SUCCESS && e != CUDA_ERROR_NOT_READY && n > 0 && (size_t)n < sizeof call) {
    /* "cublasSgemm: CUBLAS_STATUS_EXECUTION_FAILED (13); the stream reports: CUDA_ERROR_..." */
    snprintf(call + n, sizeof call - (size_t)n, "; the stream reports");
    return ag__cuda_error(st, call, e);
  }
  return core->error(st, "%s: %s", call, desc ? desc : "no description");
}

/* ---- the handle --------------------------------------------------------------------------- */

/* Enters @p q's device and takes its cuBLAS handle, made on first use, set to q's stream and
   pointer mode @p mode. On AG_OK the caller holds blas_lock and the context and gives both
   back with end(); on failure it holds neither. */
static ag_status begin(ag__bqueue *q, cublasPointerMode_t mode, cublasHandle_t *out) {
  ag__bdevice *dev = q->dev;
  ag_status st = ag__cuda_enter(dev);
  if (st != AG_OK)
    return st;
  pthread_mutex_lock(&dev->blas_lock);
  cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
  const char *call = NULL;
  if (dev->blas == NULL) {
    cublasHandle_t h = NULL;
    if ((s = cublasCreate(&h)) != CUBLAS_STATUS_SUCCESS) {
      call = "cublasCreate";
    } else {
      dev->blas = h;
      int version = 0;
      if (cublasGetVersion(h, &version) == CUBLAS_STATUS_SUCCESS)
        core->log(AG__LOG_DEBUG, "cuda: cuBLAS %d.%d.%d handle made for device %d", version / 10000,
                  version / 100 % 100, version % 100, (int)dev->id);
    }
  }
  if (call == NULL && (s = cublasSetStream(dev->blas, q->stream)) != CUBLAS_STATUS_SUCCESS)
    call = "cublasSetStream";
  if (call == NULL && (s = cublasSetPointerMode(dev->blas, mode)) != CUBLAS_STATUS_SUCCESS)
    call = "cublasSetPointerMode";
  if (call != NULL) {
    pthread_mutex_unlock(&dev->blas_lock);
    const char *name = cublasGetStatusName(s), *desc = cublasGetStatusString(s);
    return ag__cuda_leave(core->error(s == CUBLAS_STATUS_ALLOC_FAILED ? AG_ERR_OUT_OF_MEMORY : AG_ERR_DEVICE,
                                      "%s: %s (%d): %s", call, name ? name : "CUBLAS_STATUS_UNKNOWN", (int)s,
                                      desc ? desc : "no description"));
  }
  *out = dev->blas;
  return AG_OK;
}

static ag_status end(ag__bqueue *q, ag_status st) {
  pthread_mutex_unlock(&q->dev->blas_lock);
  return ag__cuda_leave(st);
}

/* Zeroes @p count elements of @p es bytes at @p off, on q (the context current). Zero bits
   are 0.0 and 0 + 0i. */
static ag_status zero(ag__bqueue *q, ag__bmem *mem, size_t off, size_t count, size_t es) {
  return ag__cuda_check("cuMemsetD8Async", cuMemsetD8Async(DPTR(mem) + off * es, 0, count * es, q->stream));
}

/* ---- level 1 ------------------------------------------------------------------------------ */

/* x *= alpha over @p n elements @p inc apart; under begin(). */
static cublasStatus_t scal_call(cublasHandle_t h, ag_dtype t, bool wide, int64_t n, const scalar *a, void *x,
                                int64_t inc) {
  switch (t) {
  case AG_F32:
    return CALL(wide, cublasSscal, h, n, &a->s, x, inc);
  case AG_F64:
    return CALL(wide, cublasDscal, h, n, &a->d, x, inc);
  case AG_C64:
    return CALL(wide, cublasCscal, h, n, &a->c, x, inc);
  default:
    return CALL(wide, cublasZscal, h, n, &a->z, x, inc);
  }
}

static ag_status cb_axpy(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off,
                         ag__bmem *y, size_t y_off) {
  if (n == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(t);
  scalar a = load(t, alpha);
  bool wide = !fits(n);
  cublasHandle_t h;
  ag_status st = begin(q, CUBLAS_POINTER_MODE_HOST, &h);
  if (st != AG_OK)
    return st;
  void *px = at(x, x_off, es), *py = at(y, y_off, es);
  int64_t len = (int64_t)n;
  cublasStatus_t s;
  switch (t) {
  case AG_F32:
    s = CALL(wide, cublasSaxpy, h, len, &a.s, px, 1, py, 1);
    break;
  case AG_F64:
    s = CALL(wide, cublasDaxpy, h, len, &a.d, px, 1, py, 1);
    break;
  case AG_C64:
    s = CALL(wide, cublasCaxpy, h, len, &a.c, px, 1, py, 1);
    break;
  default:
    s = CALL(wide, cublasZaxpy, h, len, &a.z, px, 1, py, 1);
    break;
  }
  return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "axpy", t, wide, s));
}

static ag_status cb_scal(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off) {
  if (n == 0)
    return AG_OK;
  scalar a = load(t, alpha);
  bool wide = !fits(n);
  cublasHandle_t h;
  ag_status st = begin(q, CUBLAS_POINTER_MODE_HOST, &h);
  if (st != AG_OK)
    return st;
  cublasStatus_t s = scal_call(h, t, wide, (int64_t)n, &a, at(x, x_off, ag__blas_dtype_size(t)), 1);
  return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "scal", t, wide, s));
}

/* The result goes straight to device memory (device pointer mode), so nothing waits. An empty
   dot is 0, written here rather than trusting cuBLAS to write it for n = 0. */
static ag_status cb_dot(ag__bqueue *q, ag_dtype t, bool conjugate, size_t n, ag__bmem *x, size_t x_off,
                        ag__bmem *y, size_t y_off, ag__bmem *out, size_t out_off) {
  size_t es = ag__blas_dtype_size(t);
  bool wide = !fits(n);
  cublasHandle_t h;
  ag_status st = begin(q, CUBLAS_POINTER_MODE_DEVICE, &h);
  if (st != AG_OK)
    return st;
  if (n == 0)
    return end(q, zero(q, out, out_off, 1, es));
  void *px = at(x, x_off, es), *py = at(y, y_off, es), *r = at(out, out_off, es);
  int64_t len = (int64_t)n;
  const char *routine = "dot";
  cublasStatus_t s;
  switch (t) {
  case AG_F32:
    s = CALL(wide, cublasSdot, h, len, px, 1, py, 1, r);
    break;
  case AG_F64:
    s = CALL(wide, cublasDdot, h, len, px, 1, py, 1, r);
    break;
  case AG_C64:
    routine = conjugate ? "dotc" : "dotu";
    s = conjugate ? CALL(wide, cublasCdotc, h, len, px, 1, py, 1, r) : CALL(wide, cublasCdotu, h, len, px, 1, py, 1, r);
    break;
  default:
    routine = conjugate ? "dotc" : "dotu";
    s = conjugate ? CALL(wide, cublasZdotc, h, len, px, 1, py, 1, r) : CALL(wide, cublasZdotu, h, len, px, 1, py, 1, r);
    break;
  }
  return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, routine, t, wide, s));
}

/* out (of the real dtype, out_off counting its elements) = ||x||_2, on the device. */
static ag_status cb_nrm2(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *x, size_t x_off, ag__bmem *out,
                         size_t out_off) {
  size_t es = ag__blas_dtype_size(t), res = ag__blas_dtype_size(ag__blas_real_dtype(t));
  bool wide = !fits(n);
  cublasHandle_t h;
  ag_status st = begin(q, CUBLAS_POINTER_MODE_DEVICE, &h);
  if (st != AG_OK)
    return st;
  if (n == 0)
    return end(q, zero(q, out, out_off, 1, res));
  void *px = at(x, x_off, es), *r = at(out, out_off, res);
  int64_t len = (int64_t)n;
  cublasStatus_t s;
  switch (t) {
  case AG_F32:
    s = CALL(wide, cublasSnrm2, h, len, px, 1, r);
    break;
  case AG_F64:
    s = CALL(wide, cublasDnrm2, h, len, px, 1, r);
    break;
  case AG_C64:
    s = CALL(wide, cublasScnrm2, h, len, px, 1, r);
    break;
  default:
    s = CALL(wide, cublasDznrm2, h, len, px, 1, r);
    break;
  }
  return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "nrm2", t, wide, s));
}

/* ---- level 2 and 3 ------------------------------------------------------------------------ */

/* A real dtype's conjugate transpose is its transpose. */
static cublasOperation_t op(ag_transpose t, ag_dtype dtype) {
  if (t == AG_NO_TRANS)
    return CUBLAS_OP_N;
  return t == AG_CONJ_TRANS && is_complex(dtype) ? CUBLAS_OP_C : CUBLAS_OP_T;
}

/* C = beta C for a GEMM with k = 0 (nothing to multiply), under begin(): zeroed when beta is 0
   (BLAS ignores C then, NaN included), else scaled through scal, along C's rows or its
   columns (ldc apart), whichever are fewer. Whether cuBLAS's gemm does this itself for k = 0
   is not documented, so it is not asked to. */
static ag_status scale_c(ag__bqueue *q, cublasHandle_t h, const ag__gemm *g, const scalar *beta) {
  size_t es = ag__blas_dtype_size(g->dtype), m = g->m, n = g->n;
  for (size_t b = 0; b < g->batch; b++) {
    size_t base = g->c_off + b * g->c_stride;
    CUresult e;
    if (scalar_is_zero(g->dtype, beta)) {
      e = cuMemsetD2D8Async(DPTR(g->c) + base * es, g->ldc * es, 0, n * es, m, q->stream);
      if (e != CUDA_SUCCESS)
        return ag__cuda_check("cuMemsetD2D8Async", e);
      continue;
    }
    bool contiguous = g->ldc == n, by_rows = contiguous || m <= n;
    size_t runs = contiguous ? 1 : by_rows ? m : n;
    size_t len = contiguous ? m * n : by_rows ? n : m;
    size_t step = by_rows ? g->ldc : 1, inc = by_rows ? 1 : g->ldc;
    bool wide = !fits(len) || !fits(inc);
    for (size_t r = 0; r < runs; r++) {
      cublasStatus_t s =
          scal_call(h, g->dtype, wide, (int64_t)len, beta, at(g->c, base + r * step, es), (int64_t)inc);
      if (s != CUBLAS_STATUS_SUCCESS)
        return cublas_fail(q, "scal", g->dtype, wide, s);
    }
  }
  return AG_OK;
}

/* Row-major C = alpha op(A) op(B) + beta C as the column-major C^T = op(B)^T op(A)^T (see the
   top of the file): B comes first, m and n swap, each operation passes through unchanged.
   One matrix goes to cublas<t>gemm, a batch to cublas<t>gemmStridedBatched (strides in
   elements; 0 reuses a matrix). */
static ag_status cb_gemm(ag__bqueue *q, const ag__gemm *g) {
  if (g->m == 0 || g->n == 0 || g->batch == 0)
    return AG_OK;
  ag_dtype t = g->dtype;
  size_t es = ag__blas_dtype_size(t);
  scalar alpha = load(t, g->alpha), beta = load(t, g->beta);
  cublasHandle_t h;
  ag_status st = begin(q, CUBLAS_POINTER_MODE_HOST, &h);
  if (st != AG_OK)
    return st;
  if (g->k == 0)
    return end(q, scale_c(q, h, g, &beta));

  cublasOperation_t ta = op(g->tb, t), tb = op(g->ta, t); /* cuBLAS's A is our B */
  int64_t m = (int64_t)g->n, n = (int64_t)g->m, k = (int64_t)g->k;
  int64_t lda = ld(g->ldb), ldb = ld(g->lda), ldc = ld(g->ldc);
  const void *A = at(g->b, g->b_off, es), *B = at(g->a, g->a_off, es);
  void *C = at(g->c, g->c_off, es);
  long long sa = (long long)g->b_stride, sb = (long long)g->a_stride, sc = (long long)g->c_stride;
  int64_t batch = (int64_t)g->batch;
  bool wide = !fits(g->m) || !fits(g->n) || !fits(g->k) || !fits(g->lda) || !fits(g->ldb) || !fits(g->ldc) ||
              !fits(g->batch);
  cublasStatus_t s;
  if (g->batch == 1) {
    switch (t) {
    case AG_F32:
      s = CALL(wide, cublasSgemm, h, ta, tb, m, n, k, &alpha.s, A, lda, B, ldb, &beta.s, C, ldc);
      break;
    case AG_F64:
      s = CALL(wide, cublasDgemm, h, ta, tb, m, n, k, &alpha.d, A, lda, B, ldb, &beta.d, C, ldc);
      break;
    case AG_C64:
      s = CALL(wide, cublasCgemm, h, ta, tb, m, n, k, &alpha.c, A, lda, B, ldb, &beta.c, C, ldc);
      break;
    default:
      s = CALL(wide, cublasZgemm, h, ta, tb, m, n, k, &alpha.z, A, lda, B, ldb, &beta.z, C, ldc);
      break;
    }
    return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "gemm", t, wide, s));
  }
  switch (t) {
  case AG_F32:
    s = CALL(wide, cublasSgemmStridedBatched, h, ta, tb, m, n, k, &alpha.s, A, lda, sa, B, ldb, sb, &beta.s, C, ldc,
             sc, batch);
    break;
  case AG_F64:
    s = CALL(wide, cublasDgemmStridedBatched, h, ta, tb, m, n, k, &alpha.d, A, lda, sa, B, ldb, sb, &beta.d, C, ldc,
             sc, batch);
    break;
  case AG_C64:
    s = CALL(wide, cublasCgemmStridedBatched, h, ta, tb, m, n, k, &alpha.c, A, lda, sa, B, ldb, sb, &beta.c, C, ldc,
             sc, batch);
    break;
  default:
    s = CALL(wide, cublasZgemmStridedBatched, h, ta, tb, m, n, k, &alpha.z, A, lda, sa, B, ldb, sb, &beta.z, C, ldc,
             sc, batch);
    break;
  }
  return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "gemmStridedBatched", t, wide, s));
}

/* y = alpha op(A) x + beta y with A row-major m x n (rows lda apart), read by cuBLAS as the
   column-major n x m matrix A^T: A x is then gemv(OP_T) and A^T x gemv(OP_N), with cuBLAS's
   m = n and n = m. cuBLAS has no conjugate-without-transpose, which a complex A^H x would need
   (A^H x = conj(A^T) x), so that one is the GEMM y^T (1 x n) = x^T (1 x m) conj(A) (m x n):
   row-major, C = op(A') op(B') with A' = A stored (m x n), ta = AG_CONJ_TRANS, B' = x as an
   m x 1 matrix; cb_gemm then calls cublas<t>gemm(OP_N, OP_C, 1, n, m, alpha, x, 1, A, n,
   beta, y, 1). An empty x (nothing to multiply) leaves y = beta y, done here. */
static ag_status cb_gemv(ag__bqueue *q, const ag__gemv *g) {
  ag_dtype t = g->dtype;
  bool trans = g->ta != AG_NO_TRANS;
  size_t ylen = trans ? g->n : g->m, xlen = trans ? g->m : g->n;
  if (ylen == 0)
    return AG_OK;
  if (xlen > 0 && g->ta == AG_CONJ_TRANS && is_complex(t)) {
    ag__gemm gg = {
        .dtype = t, .ta = AG_CONJ_TRANS, .tb = AG_NO_TRANS, .m = g->n, .n = 1, .k = g->m, .batch = 1,
        .a = g->a, .b = g->x, .c = g->y, .a_off = g->a_off, .b_off = g->x_off, .c_off = g->y_off,
        .lda = g->lda, .ldb = 1, .ldc = 1,
    };
    memcpy(gg.alpha, g->alpha, sizeof gg.alpha);
    memcpy(gg.beta, g->beta, sizeof gg.beta);
    return cb_gemm(q, &gg);
  }
  size_t es = ag__blas_dtype_size(t);
  scalar alpha = load(t, g->alpha), beta = load(t, g->beta);
  cublasHandle_t h;
  ag_status st = begin(q, CUBLAS_POINTER_MODE_HOST, &h);
  if (st != AG_OK)
    return st;
  if (xlen == 0) {
    if (scalar_is_zero(t, &beta))
      return end(q, zero(q, g->y, g->y_off, ylen, es));
    bool wide = !fits(ylen);
    cublasStatus_t s = scal_call(h, t, wide, (int64_t)ylen, &beta, at(g->y, g->y_off, es), 1);
    return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "scal", t, wide, s));
  }
  cublasOperation_t ta = trans ? CUBLAS_OP_N : CUBLAS_OP_T;
  int64_t rows = (int64_t)g->n, cols = (int64_t)g->m, lda = (int64_t)g->lda;
  const void *A = at(g->a, g->a_off, es), *x = at(g->x, g->x_off, es);
  void *y = at(g->y, g->y_off, es);
  bool wide = !fits(g->m) || !fits(g->n);
  cublasStatus_t s;
  switch (t) {
  case AG_F32:
    s = CALL(wide, cublasSgemv, h, ta, rows, cols, &alpha.s, A, lda, x, 1, &beta.s, y, 1);
    break;
  case AG_F64:
    s = CALL(wide, cublasDgemv, h, ta, rows, cols, &alpha.d, A, lda, x, 1, &beta.d, y, 1);
    break;
  case AG_C64:
    s = CALL(wide, cublasCgemv, h, ta, rows, cols, &alpha.c, A, lda, x, 1, &beta.c, y, 1);
    break;
  default:
    s = CALL(wide, cublasZgemv, h, ta, rows, cols, &alpha.z, A, lda, x, 1, &beta.z, y, 1);
    break;
  }
  return end(q, s == CUBLAS_STATUS_SUCCESS ? AG_OK : cublas_fail(q, "gemv", t, wide, s));
}

static const ag__blas_ops cublas_ops = {
    .name = "cuBLAS",
    .gemm = cb_gemm,
    .gemv = cb_gemv,
    .axpy = cb_axpy,
    .scal = cb_scal,
    .dot = cb_dot,
    .nrm2 = cb_nrm2,
};

/* cuBLAS comes with the module (it is linked), so every device has it; the handle is made on
   the first call, so a device that never runs BLAS spends no memory on it. */
const ag__blas_ops *ag__cuda_blas(ag__bdevice *dev) {
  (void)dev;
  return &cublas_ops;
}
