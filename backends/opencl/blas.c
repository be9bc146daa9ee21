/* backends/opencl/blas.c — BLAS on OpenCL devices: CLBlast on the queue's device, or, on a CPU
   device (pocl), the core's OpenBLAS over the buffers mapped into host memory, which runs
   several times faster there (docs/performance.md has the figures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

#if AG_OPENCL_CLBLAST
#include <clblast_c.h>
#endif

#define core ag__cl_core

/* Whether a BLAS scalar is zero; -0.0 counts, as in C. */
static bool scalar_is_zero(ag_dtype t, const void *v) {
  switch (t) {
  case AG_F32:
    return *(const float *)v == 0.0f;
  case AG_F64:
    return *(const double *)v == 0.0;
  case AG_C64:
    return ((const float *)v)[0] == 0.0f && ((const float *)v)[1] == 0.0f;
  case AG_C128:
    return ((const double *)v)[0] == 0.0 && ((const double *)v)[1] == 0.0;
  default:
    return false;
  }
}

/* Elements one matrix of `rows` rows spans with leading dimension ld, and `batch` of them
   `stride` apart. */
static size_t extent(size_t rows, size_t cols, size_t ld, size_t batch, size_t stride) {
  if (rows == 0 || cols == 0 || batch == 0)
    return 0;
  return (batch - 1) * stride + (rows - 1) * ld + cols;
}

/* The runs of C = the m x n matrices of a gemm: one run when they lie end to end, else one
   per batch element, or one per row when ldc > n. Calls fn(ctx, offset, count) on each. */
typedef ag_status (*run_fn)(void *ctx, size_t off, size_t count);
static ag_status for_each_run_of_c(const ag__gemm *g, run_fn fn, void *ctx) {
  size_t m = g->m, n = g->n;
  if (g->ldc == n && (g->batch == 1 || g->c_stride == m * n))
    return fn(ctx, g->c_off, g->batch * m * n);
  for (size_t b = 0; b < g->batch; b++) {
    size_t base = g->c_off + b * g->c_stride;
    if (g->ldc == n) {
      ag_status st = fn(ctx, base, m * n);
      if (st != AG_OK)
        return st;
      continue;
    }
    for (size_t i = 0; i < m; i++) {
      ag_status st = fn(ctx, base + i * g->ldc, n);
      if (st != AG_OK)
        return st;
    }
  }
  return AG_OK;
}

/* ---- zero fills, on the device ------------------------------------------------------------ */

typedef struct fill_ctx {
  ag__bqueue *q;
  cl_mem mem;
  size_t es;
} fill_ctx;

static ag_status fill_zero_run(void *ctx, size_t off, size_t count) {
  fill_ctx *f = ctx;
  const cl_uint zero = 0;
  CL_TRY("clEnqueueFillBuffer",
         clEnqueueFillBuffer(f->q->q, f->mem, &zero, sizeof zero, off * f->es, count * f->es, 0, NULL, NULL));
  return AG_OK;
}

static ag_status fill_zero(ag__bqueue *q, ag__bmem *mem, size_t off, size_t count, size_t es) {
  fill_ctx f = {q, MEM(mem), es};
  return fill_zero_run(&f, off, count);
}

/* =============================================================================================
   CLBlast
   ============================================================================================= */

#if AG_OPENCL_CLBLAST

static const char *clblast_name(CLBlastStatusCode s) {
  switch (s) {
#define N(x)                                                                                    \
  case x:                                                                                       \
    return #x;
    N(CLBlastSuccess) N(CLBlastOpenCLCompilerNotAvailable) N(CLBlastTempBufferAllocFailure)
    N(CLBlastOpenCLOutOfResources) N(CLBlastOpenCLOutOfHostMemory) N(CLBlastOpenCLBuildProgramFailure)
    N(CLBlastInvalidValue) N(CLBlastInvalidCommandQueue) N(CLBlastInvalidMemObject) N(CLBlastInvalidBinary)
    N(CLBlastInvalidBuildOptions) N(CLBlastInvalidProgram) N(CLBlastInvalidProgramExecutable)
    N(CLBlastInvalidKernelName) N(CLBlastInvalidKernelDefinition) N(CLBlastInvalidKernel)
    N(CLBlastInvalidArgIndex) N(CLBlastInvalidArgValue) N(CLBlastInvalidArgSize) N(CLBlastInvalidKernelArgs)
    N(CLBlastInvalidLocalNumDimensions) N(CLBlastInvalidLocalThreadsTotal) N(CLBlastInvalidLocalThreadsDim)
    N(CLBlastInvalidGlobalOffset) N(CLBlastInvalidEventWaitList) N(CLBlastInvalidEvent)
    N(CLBlastInvalidOperation) N(CLBlastInvalidBufferSize) N(CLBlastInvalidGlobalWorkSize)
    N(CLBlastNotImplemented) N(CLBlastInvalidMatrixA) N(CLBlastInvalidMatrixB) N(CLBlastInvalidMatrixC)
    N(CLBlastInvalidVectorX) N(CLBlastInvalidVectorY) N(CLBlastInvalidDimension) N(CLBlastInvalidLeadDimA)
    N(CLBlastInvalidLeadDimB) N(CLBlastInvalidLeadDimC) N(CLBlastInvalidIncrementX)
    N(CLBlastInvalidIncrementY) N(CLBlastInsufficientMemoryA) N(CLBlastInsufficientMemoryB)
    N(CLBlastInsufficientMemoryC) N(CLBlastInsufficientMemoryX) N(CLBlastInsufficientMemoryY)
    N(CLBlastInsufficientMemoryTemp) N(CLBlastInvalidBatchCount) N(CLBlastInvalidOverrideKernel)
    N(CLBlastMissingOverrideParameter) N(CLBlastInvalidLocalMemUsage) N(CLBlastNoHalfPrecision)
    N(CLBlastNoDoublePrecision) N(CLBlastInvalidVectorScalar) N(CLBlastInsufficientMemoryScalar)
    N(CLBlastDatabaseError) N(CLBlastUnknownError) N(CLBlastUnexpectedError)
#undef N
  }
  return "CLBlastUnknownStatus";
}

/* "CLBlastSgemm: CLBlastInvalidLeadDimA (-1016)". Allocation failures (CLBlast allocates
   temporary buffers for padded GEMM) can be retried after a trim. */
static ag_status clblast_fail(const char *routine, ag_dtype t, CLBlastStatusCode s) {
  ag_status st = AG_ERR_DEVICE;
  switch (s) {
  case CLBlastTempBufferAllocFailure:
  case CLBlastOpenCLOutOfHostMemory:
  case CLBlastInvalidBufferSize:
    st = AG_ERR_OUT_OF_MEMORY;
    break;
  case CLBlastNoDoublePrecision:
  case CLBlastNoHalfPrecision:
  case CLBlastNotImplemented:
    st = AG_ERR_UNSUPPORTED;
    break;
  default:
    break;
  }
  const char *prefix = t == AG_F32 ? "S" : t == AG_F64 ? "D" : t == AG_C64 ? "C" : "Z";
  /* nrm2 of complex vectors is ScNrm2 / DzNrm2. */
  if (strcmp(routine, "nrm2") == 0)
    prefix = t == AG_F32 ? "S" : t == AG_F64 ? "D" : t == AG_C64 ? "Sc" : "Dz";
  return core->error(st, "CLBlast%s%s: %s (%d)", prefix, routine, clblast_name(s), (int)s);
}

static CLBlastTranspose clblast_trans(ag_transpose t, bool complex) {
  if (t == AG_NO_TRANS)
    return CLBlastTransposeNo;
  return t == AG_CONJ_TRANS && complex ? CLBlastTransposeConjugate : CLBlastTransposeYes;
}

typedef struct scal_ctx {
  ag__bqueue *q;
  ag_dtype t;
  const void *alpha;
  cl_mem mem;
} scal_ctx;

static ag_status clblast_scal_run(void *ctx, size_t off, size_t count) {
  scal_ctx *c = ctx;
  cl_command_queue *q = &c->q->q;
  CLBlastStatusCode s;
  switch (c->t) {
  case AG_F32:
    s = CLBlastSscal(count, *(const float *)c->alpha, c->mem, off, 1, q, NULL);
    break;
  case AG_F64:
    s = CLBlastDscal(count, *(const double *)c->alpha, c->mem, off, 1, q, NULL);
    break;
  case AG_C64: {
    cl_float2 a;
    memcpy(&a, c->alpha, sizeof a);
    s = CLBlastCscal(count, a, c->mem, off, 1, q, NULL);
    break;
  }
  default: {
    cl_double2 a;
    memcpy(&a, c->alpha, sizeof a);
    s = CLBlastZscal(count, a, c->mem, off, 1, q, NULL);
    break;
  }
  }
  return s == CLBlastSuccess ? AG_OK : clblast_fail("scal", c->t, s);
}

/* CLBlast computes beta * C even for beta = 0, so NaN in C would reach the result; BLAS
   ignores C then, and so do we: C is zeroed first and CLBlast then adds 0 * 0. */
static ag_status clb_gemm(ag__bqueue *q, const ag__gemm *g) {
  if (g->m == 0 || g->n == 0 || g->batch == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(g->dtype);
  bool beta_zero = scalar_is_zero(g->dtype, g->beta);
  if (beta_zero) {
    fill_ctx f = {q, MEM(g->c), es};
    ag_status st = for_each_run_of_c(g, fill_zero_run, &f);
    if (st != AG_OK)
      return st;
  }
  if (g->k == 0) { /* C = beta C: CLBlast refuses k = 0 */
    if (beta_zero)
      return AG_OK;
    scal_ctx c = {q, g->dtype, g->beta, MEM(g->c)};
    return for_each_run_of_c(g, clblast_scal_run, &c);
  }
  bool cx = g->dtype == AG_C64 || g->dtype == AG_C128;
  CLBlastTranspose ta = clblast_trans(g->ta, cx), tb = clblast_trans(g->tb, cx);
  const CLBlastLayout L = CLBlastLayoutRowMajor;
  cl_mem a = MEM(g->a), b = MEM(g->b), c = MEM(g->c);
  cl_command_queue *cq = &q->q;
  CLBlastStatusCode s;
  if (g->batch == 1) {
    switch (g->dtype) {
    case AG_F32:
      s = CLBlastSgemm(L, ta, tb, g->m, g->n, g->k, *(const float *)g->alpha, a, g->a_off, g->lda, b, g->b_off,
                       g->ldb, *(const float *)g->beta, c, g->c_off, g->ldc, cq, NULL);
      break;
    case AG_F64:
      s = CLBlastDgemm(L, ta, tb, g->m, g->n, g->k, *(const double *)g->alpha, a, g->a_off, g->lda, b, g->b_off,
                       g->ldb, *(const double *)g->beta, c, g->c_off, g->ldc, cq, NULL);
      break;
    case AG_C64: {
      cl_float2 al, be;
      memcpy(&al, g->alpha, sizeof al);
      memcpy(&be, g->beta, sizeof be);
      s = CLBlastCgemm(L, ta, tb, g->m, g->n, g->k, al, a, g->a_off, g->lda, b, g->b_off, g->ldb, be, c, g->c_off,
                       g->ldc, cq, NULL);
      break;
    }
    default: {
      cl_double2 al, be;
      memcpy(&al, g->alpha, sizeof al);
      memcpy(&be, g->beta, sizeof be);
      s = CLBlastZgemm(L, ta, tb, g->m, g->n, g->k, al, a, g->a_off, g->lda, b, g->b_off, g->ldb, be, c, g->c_off,
                       g->ldc, cq, NULL);
      break;
    }
    }
    return s == CLBlastSuccess ? AG_OK : clblast_fail("gemm", g->dtype, s);
  }
  switch (g->dtype) {
  case AG_F32:
    s = CLBlastSgemmStridedBatched(L, ta, tb, g->m, g->n, g->k, *(const float *)g->alpha, a, g->a_off, g->lda,
                                   g->a_stride, b, g->b_off, g->ldb, g->b_stride, *(const float *)g->beta, c,
                                   g->c_off, g->ldc, g->c_stride, g->batch, cq, NULL);
    break;
  case AG_F64:
    s = CLBlastDgemmStridedBatched(L, ta, tb, g->m, g->n, g->k, *(const double *)g->alpha, a, g->a_off, g->lda,
                                   g->a_stride, b, g->b_off, g->ldb, g->b_stride, *(const double *)g->beta, c,
                                   g->c_off, g->ldc, g->c_stride, g->batch, cq, NULL);
    break;
  case AG_C64: {
    cl_float2 al, be;
    memcpy(&al, g->alpha, sizeof al);
    memcpy(&be, g->beta, sizeof be);
    s = CLBlastCgemmStridedBatched(L, ta, tb, g->m, g->n, g->k, al, a, g->a_off, g->lda, g->a_stride, b, g->b_off,
                                   g->ldb, g->b_stride, be, c, g->c_off, g->ldc, g->c_stride, g->batch, cq, NULL);
    break;
  }
  default: {
    cl_double2 al, be;
    memcpy(&al, g->alpha, sizeof al);
    memcpy(&be, g->beta, sizeof be);
    s = CLBlastZgemmStridedBatched(L, ta, tb, g->m, g->n, g->k, al, a, g->a_off, g->lda, g->a_stride, b, g->b_off,
                                   g->ldb, g->b_stride, be, c, g->c_off, g->ldc, g->c_stride, g->batch, cq, NULL);
    break;
  }
  }
  return s == CLBlastSuccess ? AG_OK : clblast_fail("gemmStridedBatched", g->dtype, s);
}

static ag_status clb_gemv(ag__bqueue *q, const ag__gemv *g) {
  size_t ylen = g->ta == AG_NO_TRANS ? g->m : g->n, xlen = g->ta == AG_NO_TRANS ? g->n : g->m;
  if (ylen == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(g->dtype);
  bool beta_zero = scalar_is_zero(g->dtype, g->beta);
  if (beta_zero) {
    ag_status st = fill_zero(q, g->y, g->y_off, ylen, es);
    if (st != AG_OK)
      return st;
  }
  if (xlen == 0) { /* y = beta y */
    if (beta_zero)
      return AG_OK;
    scal_ctx c = {q, g->dtype, g->beta, MEM(g->y)};
    return clblast_scal_run(&c, g->y_off, ylen);
  }
  bool cx = g->dtype == AG_C64 || g->dtype == AG_C128;
  CLBlastTranspose ta = clblast_trans(g->ta, cx);
  const CLBlastLayout L = CLBlastLayoutRowMajor;
  cl_mem a = MEM(g->a), x = MEM(g->x), y = MEM(g->y);
  cl_command_queue *cq = &q->q;
  CLBlastStatusCode s;
  switch (g->dtype) {
  case AG_F32:
    s = CLBlastSgemv(L, ta, g->m, g->n, *(const float *)g->alpha, a, g->a_off, g->lda, x, g->x_off, 1,
                     *(const float *)g->beta, y, g->y_off, 1, cq, NULL);
    break;
  case AG_F64:
    s = CLBlastDgemv(L, ta, g->m, g->n, *(const double *)g->alpha, a, g->a_off, g->lda, x, g->x_off, 1,
                     *(const double *)g->beta, y, g->y_off, 1, cq, NULL);
    break;
  case AG_C64: {
    cl_float2 al, be;
    memcpy(&al, g->alpha, sizeof al);
    memcpy(&be, g->beta, sizeof be);
    s = CLBlastCgemv(L, ta, g->m, g->n, al, a, g->a_off, g->lda, x, g->x_off, 1, be, y, g->y_off, 1, cq, NULL);
    break;
  }
  default: {
    cl_double2 al, be;
    memcpy(&al, g->alpha, sizeof al);
    memcpy(&be, g->beta, sizeof be);
    s = CLBlastZgemv(L, ta, g->m, g->n, al, a, g->a_off, g->lda, x, g->x_off, 1, be, y, g->y_off, 1, cq, NULL);
    break;
  }
  }
  return s == CLBlastSuccess ? AG_OK : clblast_fail("gemv", g->dtype, s);
}

static ag_status clb_axpy(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off,
                          ag__bmem *y, size_t y_off) {
  if (n == 0)
    return AG_OK;
  cl_command_queue *cq = &q->q;
  CLBlastStatusCode s;
  switch (t) {
  case AG_F32:
    s = CLBlastSaxpy(n, *(const float *)alpha, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  case AG_F64:
    s = CLBlastDaxpy(n, *(const double *)alpha, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  case AG_C64: {
    cl_float2 a;
    memcpy(&a, alpha, sizeof a);
    s = CLBlastCaxpy(n, a, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  }
  default: {
    cl_double2 a;
    memcpy(&a, alpha, sizeof a);
    s = CLBlastZaxpy(n, a, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  }
  }
  return s == CLBlastSuccess ? AG_OK : clblast_fail("axpy", t, s);
}

static ag_status clb_scal(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off) {
  if (n == 0)
    return AG_OK;
  scal_ctx c = {q, t, alpha, MEM(x)};
  return clblast_scal_run(&c, x_off, n);
}

static ag_status clb_dot(ag__bqueue *q, ag_dtype t, bool conjugate, size_t n, ag__bmem *x, size_t x_off,
                         ag__bmem *y, size_t y_off, ag__bmem *out, size_t out_off) {
  if (n == 0)
    return fill_zero(q, out, out_off, 1, ag__blas_dtype_size(t));
  cl_command_queue *cq = &q->q;
  CLBlastStatusCode s;
  const char *routine = "dot";
  switch (t) {
  case AG_F32:
    s = CLBlastSdot(n, MEM(out), out_off, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  case AG_F64:
    s = CLBlastDdot(n, MEM(out), out_off, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  case AG_C64:
    routine = conjugate ? "dotc" : "dotu";
    s = conjugate ? CLBlastCdotc(n, MEM(out), out_off, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL)
                  : CLBlastCdotu(n, MEM(out), out_off, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  default:
    routine = conjugate ? "dotc" : "dotu";
    s = conjugate ? CLBlastZdotc(n, MEM(out), out_off, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL)
                  : CLBlastZdotu(n, MEM(out), out_off, MEM(x), x_off, 1, MEM(y), y_off, 1, cq, NULL);
    break;
  }
  return s == CLBlastSuccess ? AG_OK : clblast_fail(routine, t, s);
}

static ag_status clb_nrm2(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *x, size_t x_off, ag__bmem *out,
                          size_t out_off) {
  if (n == 0)
    return fill_zero(q, out, out_off, 1, ag__blas_dtype_size(ag__blas_real_dtype(t)));
  cl_command_queue *cq = &q->q;
  CLBlastStatusCode s;
  switch (t) {
  case AG_F32:
    s = CLBlastSnrm2(n, MEM(out), out_off, MEM(x), x_off, 1, cq, NULL);
    break;
  case AG_F64:
    s = CLBlastDnrm2(n, MEM(out), out_off, MEM(x), x_off, 1, cq, NULL);
    break;
  default: {
    /* CLBlast's ScNrm2 and DzNrm2 (1.5.3) take the result's offset in complex elements and
       want a whole complex element there; the real result goes through a scratch buffer. */
    size_t res = ag__blas_dtype_size(ag__blas_real_dtype(t));
    cl_int e;
    cl_mem tmp = clCreateBuffer(q->dev->ctx, CL_MEM_READ_WRITE, 2 * res, NULL, &e);
    if (tmp == NULL)
      return CL_FAIL("clCreateBuffer", e);
    s = t == AG_C64 ? CLBlastScnrm2(n, tmp, 0, MEM(x), x_off, 1, cq, NULL)
                    : CLBlastDznrm2(n, tmp, 0, MEM(x), x_off, 1, cq, NULL);
    e = s == CLBlastSuccess ? clEnqueueCopyBuffer(q->q, tmp, MEM(out), 0, out_off * res, res, 0, NULL, NULL)
                            : CL_SUCCESS;
    /* Released now, freed by OpenCL once the copy has run. */
    clReleaseMemObject(tmp);
    if (e != CL_SUCCESS)
      return CL_FAIL("clEnqueueCopyBuffer", e);
    break;
  }
  }
  return s == CLBlastSuccess ? AG_OK : clblast_fail("nrm2", t, s);
}

static const ag__blas_ops clblast_ops = {
    .name = "CLBlast",
    .gemm = clb_gemm,
    .gemv = clb_gemv,
    .axpy = clb_axpy,
    .scal = clb_scal,
    .dot = clb_dot,
    .nrm2 = clb_nrm2,
};

#endif /* AG_OPENCL_CLBLAST */

/* =============================================================================================
   OpenBLAS on mapped buffers (CPU devices)

   Each operand's range is mapped into host memory with a blocking clEnqueueMapBuffer on the
   caller's queue, so the work enqueued before it has finished; the core's OpenBLAS
   (core->host_blas) runs on the mapped pointers; the ranges are unmapped on the same queue and
   the call waits for that, so the result is in the buffers when it returns. On pocl a map of
   a buffer on its CPU device is the buffer's own memory: nothing is copied. Operands in one
   buffer are mapped once, over the union of their ranges (OpenCL leaves overlapping
   mappings for writing undefined).
   ============================================================================================= */

/* Mapped ranges start on this boundary, a multiple of every element size, so an operand's
   offset from the mapped pointer is still a whole number of its elements. */
#define MAP_ALIGN 64

typedef struct map_range {
  cl_mem mem;
  size_t lo, hi; /* bytes */
  bool write;
  void *ptr; /* the host address of byte lo */
} map_range;

typedef struct mapping {
  ag__bqueue *q;
  map_range m[4];
  int n;
} mapping;

/* Adds `count` elements of es bytes at element offset off (count > 0). */
static void mapping_add(mapping *mp, ag__bmem *mem, size_t off, size_t count, size_t es, bool write) {
  size_t lo = off * es / MAP_ALIGN * MAP_ALIGN, hi = (off + count) * es;
  for (int i = 0; i < mp->n; i++)
    if (mp->m[i].mem == MEM(mem)) {
      if (lo < mp->m[i].lo)
        mp->m[i].lo = lo;
      if (hi > mp->m[i].hi)
        mp->m[i].hi = hi;
      mp->m[i].write |= write;
      return;
    }
  mp->m[mp->n++] = (map_range){MEM(mem), lo, hi, write, NULL};
}

static ag_status mapping_unmap(mapping *mp) {
  cl_int first = CL_SUCCESS;
  for (int i = 0; i < mp->n; i++) {
    if (mp->m[i].ptr == NULL)
      continue;
    cl_int e = clEnqueueUnmapMemObject(mp->q->q, mp->m[i].mem, mp->m[i].ptr, 0, NULL, NULL);
    if (e != CL_SUCCESS && first == CL_SUCCESS)
      first = e;
    mp->m[i].ptr = NULL;
  }
  if (first != CL_SUCCESS)
    return CL_FAIL("clEnqueueUnmapMemObject", first);
  CL_TRY("clFinish", ag__cl_finish(mp->q));
  return AG_OK;
}

static ag_status mapping_map(mapping *mp) {
  for (int i = 0; i < mp->n; i++) {
    map_range *m = &mp->m[i];
    cl_int e;
    cl_map_flags flags = m->write ? CL_MAP_READ | CL_MAP_WRITE : CL_MAP_READ;
    m->ptr = clEnqueueMapBuffer(mp->q->q, m->mem, CL_TRUE, flags, m->lo, m->hi - m->lo, 0, NULL, NULL, &e);
    if (m->ptr == NULL) {
      ag_status st = CL_FAIL("clEnqueueMapBuffer", e);
      mapping_unmap(mp);
      return st;
    }
  }
  return AG_OK;
}

/* The host address of operand (mem, off) as an ag__bmem for host_blas, and its offset there. */
static ag__bmem *mapping_at(const mapping *mp, ag__bmem *mem, size_t off, size_t es, size_t *host_off) {
  for (int i = 0; i < mp->n; i++)
    if (mp->m[i].mem == MEM(mem)) {
      *host_off = (off * es - mp->m[i].lo) / es;
      return (ag__bmem *)mp->m[i].ptr;
    }
  *host_off = 0;
  return NULL;
}

/* C = beta C on mapped memory, for k = 0, which BLAS implementations treat unevenly. */
typedef struct host_scale_ctx {
  const mapping *mp;
  const ag__gemm *g;
  bool zero;
} host_scale_ctx;

static ag_status host_scale_run(void *ctx, size_t off, size_t count) {
  host_scale_ctx *h = ctx;
  size_t es = ag__blas_dtype_size(h->g->dtype), hoff;
  ag__bmem *c = mapping_at(h->mp, h->g->c, off, es, &hoff);
  if (h->zero) {
    memset((char *)c + hoff * es, 0, count * es);
    return AG_OK;
  }
  return core->host_blas->scal(NULL, h->g->dtype, count, h->g->beta, c, hoff);
}

static ag_status map_gemm(ag__bqueue *q, const ag__gemm *g) {
  if (g->m == 0 || g->n == 0 || g->batch == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(g->dtype);
  mapping mp = {.q = q};
  size_t ar = g->ta == AG_NO_TRANS ? g->m : g->k, ac = g->ta == AG_NO_TRANS ? g->k : g->m;
  size_t br = g->tb == AG_NO_TRANS ? g->k : g->n, bc = g->tb == AG_NO_TRANS ? g->n : g->k;
  if (g->k > 0) {
    mapping_add(&mp, g->a, g->a_off, extent(ar, ac, g->lda, g->batch, g->a_stride), es, false);
    mapping_add(&mp, g->b, g->b_off, extent(br, bc, g->ldb, g->batch, g->b_stride), es, false);
  }
  mapping_add(&mp, g->c, g->c_off, extent(g->m, g->n, g->ldc, g->batch, g->c_stride), es, true);
  ag_status st = mapping_map(&mp);
  if (st != AG_OK)
    return st;
  if (g->k == 0) {
    host_scale_ctx h = {&mp, g, scalar_is_zero(g->dtype, g->beta)};
    st = for_each_run_of_c(g, host_scale_run, &h);
  } else {
    ag__gemm h = *g;
    h.a = mapping_at(&mp, g->a, g->a_off, es, &h.a_off);
    h.b = mapping_at(&mp, g->b, g->b_off, es, &h.b_off);
    h.c = mapping_at(&mp, g->c, g->c_off, es, &h.c_off);
    st = core->host_blas->gemm(NULL, &h);
  }
  ag_status su = mapping_unmap(&mp);
  return st != AG_OK ? st : su;
}

static ag_status map_gemv(ag__bqueue *q, const ag__gemv *g) {
  size_t ylen = g->ta == AG_NO_TRANS ? g->m : g->n, xlen = g->ta == AG_NO_TRANS ? g->n : g->m;
  if (ylen == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(g->dtype);
  mapping mp = {.q = q};
  if (xlen > 0) {
    mapping_add(&mp, g->a, g->a_off, (g->m - 1) * g->lda + g->n, es, false);
    mapping_add(&mp, g->x, g->x_off, xlen, es, false);
  }
  mapping_add(&mp, g->y, g->y_off, ylen, es, true);
  ag_status st = mapping_map(&mp);
  if (st != AG_OK)
    return st;
  size_t yoff;
  ag__bmem *y = mapping_at(&mp, g->y, g->y_off, es, &yoff);
  if (xlen == 0) {
    if (scalar_is_zero(g->dtype, g->beta))
      memset((char *)y + yoff * es, 0, ylen * es);
    else
      st = core->host_blas->scal(NULL, g->dtype, ylen, g->beta, y, yoff);
  } else {
    ag__gemv h = *g;
    h.a = mapping_at(&mp, g->a, g->a_off, es, &h.a_off);
    h.x = mapping_at(&mp, g->x, g->x_off, es, &h.x_off);
    h.y = y;
    h.y_off = yoff;
    st = core->host_blas->gemv(NULL, &h);
  }
  ag_status su = mapping_unmap(&mp);
  return st != AG_OK ? st : su;
}

static ag_status map_axpy(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off,
                          ag__bmem *y, size_t y_off) {
  if (n == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(t), hx, hy;
  mapping mp = {.q = q};
  mapping_add(&mp, x, x_off, n, es, false);
  mapping_add(&mp, y, y_off, n, es, true);
  ag_status st = mapping_map(&mp);
  if (st != AG_OK)
    return st;
  ag__bmem *px = mapping_at(&mp, x, x_off, es, &hx), *py = mapping_at(&mp, y, y_off, es, &hy);
  st = core->host_blas->axpy(NULL, t, n, alpha, px, hx, py, hy);
  ag_status su = mapping_unmap(&mp);
  return st != AG_OK ? st : su;
}

static ag_status map_scal(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off) {
  if (n == 0)
    return AG_OK;
  size_t es = ag__blas_dtype_size(t), hx;
  mapping mp = {.q = q};
  mapping_add(&mp, x, x_off, n, es, true);
  ag_status st = mapping_map(&mp);
  if (st != AG_OK)
    return st;
  ag__bmem *px = mapping_at(&mp, x, x_off, es, &hx);
  st = core->host_blas->scal(NULL, t, n, alpha, px, hx);
  ag_status su = mapping_unmap(&mp);
  return st != AG_OK ? st : su;
}

static ag_status map_dot(ag__bqueue *q, ag_dtype t, bool conjugate, size_t n, ag__bmem *x, size_t x_off,
                         ag__bmem *y, size_t y_off, ag__bmem *out, size_t out_off) {
  size_t es = ag__blas_dtype_size(t), hx, hy, ho;
  if (n == 0)
    return fill_zero(q, out, out_off, 1, es);
  mapping mp = {.q = q};
  mapping_add(&mp, x, x_off, n, es, false);
  mapping_add(&mp, y, y_off, n, es, false);
  mapping_add(&mp, out, out_off, 1, es, true);
  ag_status st = mapping_map(&mp);
  if (st != AG_OK)
    return st;
  ag__bmem *px = mapping_at(&mp, x, x_off, es, &hx), *py = mapping_at(&mp, y, y_off, es, &hy);
  ag__bmem *po = mapping_at(&mp, out, out_off, es, &ho);
  st = core->host_blas->dot(NULL, t, conjugate, n, px, hx, py, hy, po, ho);
  ag_status su = mapping_unmap(&mp);
  return st != AG_OK ? st : su;
}

static ag_status map_nrm2(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *x, size_t x_off, ag__bmem *out,
                          size_t out_off) {
  size_t es = ag__blas_dtype_size(t), res = ag__blas_dtype_size(ag__blas_real_dtype(t)), hx, ho;
  if (n == 0)
    return fill_zero(q, out, out_off, 1, res);
  mapping mp = {.q = q};
  mapping_add(&mp, x, x_off, n, es, false);
  mapping_add(&mp, out, out_off, 1, res, true);
  ag_status st = mapping_map(&mp);
  if (st != AG_OK)
    return st;
  ag__bmem *px = mapping_at(&mp, x, x_off, es, &hx), *po = mapping_at(&mp, out, out_off, res, &ho);
  st = core->host_blas->nrm2(NULL, t, n, px, hx, po, ho);
  ag_status su = mapping_unmap(&mp);
  return st != AG_OK ? st : su;
}

static const ag__blas_ops mapped_ops = {
    .name = "OpenBLAS (mapped)",
    .gemm = map_gemm,
    .gemv = map_gemv,
    .axpy = map_axpy,
    .scal = map_scal,
    .dot = map_dot,
    .nrm2 = map_nrm2,
};

/* ---- choice ------------------------------------------------------------------------------- */

/* GPUs and accelerators get CLBlast. On a CPU device OpenBLAS on the mapped buffers is faster
   for every routine we measured on pocl (docs/performance.md), so it is the default there;
   ANYGPU_OPENCL_BLAS=clblast|openblas overrides the choice on CPU devices (to compare them, or
   where a CPU OpenCL runtime copies on map). */
const ag__blas_ops *ag__cl_blas(ag__bdevice *dev) {
  cl_device_type type = 0;
  clGetDeviceInfo(dev->id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  bool cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  const ag__blas_ops *clblast = NULL;
#if AG_OPENCL_CLBLAST
  clblast = &clblast_ops;
#endif
  const ag__blas_ops *on_host = core->host_blas != NULL ? &mapped_ops : NULL;
  if (!cpu) {
    if (clblast == NULL)
      core->log(AG__LOG_INFO, "opencl: no BLAS on this device: CLBlast was not found when anygpu was built");
    return clblast;
  }
  const char *want = getenv("ANYGPU_OPENCL_BLAS");
  if (want != NULL && want[0] != '\0') {
    if (strcmp(want, "clblast") == 0) {
      if (clblast != NULL)
        return clblast;
      core->log(AG__LOG_WARN, "ANYGPU_OPENCL_BLAS=clblast: CLBlast was not found when anygpu was built; "
                              "using OpenBLAS on mapped buffers");
    } else if (strcmp(want, "openblas") == 0) {
      if (on_host != NULL)
        return on_host;
      core->log(AG__LOG_WARN, "ANYGPU_OPENCL_BLAS=openblas: the core has no OpenBLAS; using CLBlast");
    } else {
      core->log(AG__LOG_WARN, "ANYGPU_OPENCL_BLAS=%s is neither clblast nor openblas; ignored", want);
    }
  }
  return on_host != NULL ? on_host : clblast;
}
