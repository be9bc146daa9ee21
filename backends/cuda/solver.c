/* backends/cuda/solver.c — the symmetric eigensolver on CUDA devices through cuSOLVER's dense
   API (cusolverDn<t>syevd, divide and conquer), on the caller's stream, in the device's primary
   context.

   Handles: one cusolverDnHandle_t per device, made on first use in the primary context and kept
   for the life of the process, as blas.c keeps cuBLAS's (the core never closes a device). The
   handle's stream is state of the handle, so every call sets it and enqueues its work under
   the device's solver_lock; the lock is released before the call waits for the result.

   Synchronisation: syevd reports a failure to converge in an int it writes to device memory
   (devInfo), so the call reads it back and waits for the stream: it returns when the work
   enqueued on the queue before it, and the decomposition, have finished. Its workspace (the
   size cusolverDn<t>syevd_bufferSize asks for, with devInfo behind it) is allocated for the
   call and freed once the stream is idle; a caller that thresholds the eigenvalues reads them
   back at once anyway (src/solvers/prox.c). */
#include <cusolverDn.h>
#include <limits.h>
#include <string.h>

#include "cuda_internal.h"

#define core ag__cuda_core

/* cuSOLVER has no function that names its statuses. */
static const char *status_name(cusolverStatus_t s) {
  switch (s) {
  case CUSOLVER_STATUS_SUCCESS:
    return "CUSOLVER_STATUS_SUCCESS";
  case CUSOLVER_STATUS_NOT_INITIALIZED:
    return "CUSOLVER_STATUS_NOT_INITIALIZED";
  case CUSOLVER_STATUS_ALLOC_FAILED:
    return "CUSOLVER_STATUS_ALLOC_FAILED";
  case CUSOLVER_STATUS_INVALID_VALUE:
    return "CUSOLVER_STATUS_INVALID_VALUE";
  case CUSOLVER_STATUS_ARCH_MISMATCH:
    return "CUSOLVER_STATUS_ARCH_MISMATCH";
  case CUSOLVER_STATUS_MAPPING_ERROR:
    return "CUSOLVER_STATUS_MAPPING_ERROR";
  case CUSOLVER_STATUS_EXECUTION_FAILED:
    return "CUSOLVER_STATUS_EXECUTION_FAILED";
  case CUSOLVER_STATUS_INTERNAL_ERROR:
    return "CUSOLVER_STATUS_INTERNAL_ERROR";
  case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
    return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
  case CUSOLVER_STATUS_NOT_SUPPORTED:
    return "CUSOLVER_STATUS_NOT_SUPPORTED";
  case CUSOLVER_STATUS_INVALID_WORKSPACE:
    return "CUSOLVER_STATUS_INVALID_WORKSPACE";
  default:
    return "CUSOLVER_STATUS_UNKNOWN";
  }
}

/* "cusolverDnDsyevd: CUSOLVER_STATUS_INVALID_VALUE (3)". Called with the context current. */
static ag_status solver_fail(const char *call, cusolverStatus_t s) {
  return core->error(s == CUSOLVER_STATUS_ALLOC_FAILED ? AG_ERR_OUT_OF_MEMORY : AG_ERR_DEVICE, "%s: %s (%d)", call,
                     status_name(s), (int)s);
}

/* Takes @p q's device's cuSOLVER handle, made on first use, set to q's stream. The caller has
   entered the context; on AG_OK it holds solver_lock and gives it back, on failure it does not
   hold it. */
static ag_status begin(ag__bqueue *q, cusolverDnHandle_t *out) {
  ag__bdevice *dev = q->dev;
  pthread_mutex_lock(&dev->solver_lock);
  cusolverStatus_t s = CUSOLVER_STATUS_SUCCESS;
  const char *call = NULL;
  if (dev->solver == NULL) {
    cusolverDnHandle_t h = NULL;
    if ((s = cusolverDnCreate(&h)) != CUSOLVER_STATUS_SUCCESS) {
      call = "cusolverDnCreate";
    } else {
      dev->solver = h;
      int version = 0;
      if (cusolverGetVersion(&version) == CUSOLVER_STATUS_SUCCESS)
        core->log(AG__LOG_DEBUG, "cuda: cuSOLVER %d.%d.%d handle made for device %d", version / 1000,
                  version / 100 % 10, version % 100, (int)dev->id);
    }
  }
  if (call == NULL && (s = cusolverDnSetStream(dev->solver, q->stream)) != CUSOLVER_STATUS_SUCCESS)
    call = "cusolverDnSetStream";
  if (call != NULL) {
    pthread_mutex_unlock(&dev->solver_lock);
    return solver_fail(call, s);
  }
  *out = dev->solver;
  return AG_OK;
}

/* The eigenvalues (ascending) and eigenvectors of the symmetric n x n matrix at a: cuSOLVER is
   column-major, and a symmetric matrix is its own transpose, so the row-major matrix is passed
   as it is; the eigenvectors come back as the column-major matrix's columns, which are the
   row-major matrix's rows (backend.h). The lower triangle is read, of a matrix stored whole. */
static ag_status cs_syevd(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *a, size_t a_off, ag__bmem *w,
                          size_t w_off) {
  bool f64 = t == AG_F64;
  size_t es = f64 ? sizeof(double) : sizeof(float);
  if (n > (size_t)INT_MAX)
    return core->error(AG_ERR_OUT_OF_RANGE, "cusolverDn%csyevd: n is %zu; it takes sizes below 2^31", f64 ? 'D' : 'S',
                       n);
  int ni = (int)n, lwork = 0;
  void *pa = (void *)(uintptr_t)(DPTR(a) + (CUdeviceptr)(a_off * es));
  void *pw = (void *)(uintptr_t)(DPTR(w) + (CUdeviceptr)(w_off * es));
  const cusolverEigMode_t jobz = CUSOLVER_EIG_MODE_VECTOR;
  const cublasFillMode_t uplo = CUBLAS_FILL_MODE_LOWER;
  ag_status st = ag__cuda_enter(q->dev);
  if (st != AG_OK)
    return st;
  cusolverDnHandle_t h = NULL;
  if ((st = begin(q, &h)) != AG_OK)
    return ag__cuda_leave(st);
  cusolverStatus_t s = f64 ? cusolverDnDsyevd_bufferSize(h, jobz, uplo, ni, pa, ni, pw, &lwork)
                           : cusolverDnSsyevd_bufferSize(h, jobz, uplo, ni, pa, ni, pw, &lwork);
  if (s != CUSOLVER_STATUS_SUCCESS) {
    pthread_mutex_unlock(&q->dev->solver_lock);
    return ag__cuda_leave(solver_fail(f64 ? "cusolverDnDsyevd_bufferSize" : "cusolverDnSsyevd_bufferSize", s));
  }
  /* The workspace, then devInfo at the next multiple of 16 bytes. */
  size_t work_bytes = ((size_t)(lwork > 0 ? lwork : 0) * es + 15) / 16 * 16;
  CUdeviceptr scratch = 0;
  CUresult e = cuMemAlloc(&scratch, work_bytes + sizeof(int));
  if (e != CUDA_SUCCESS) {
    pthread_mutex_unlock(&q->dev->solver_lock);
    return ag__cuda_leave(ag__cuda_check("cuMemAlloc", e));
  }
  void *work = (void *)(uintptr_t)scratch;
  int *dinfo = (int *)(uintptr_t)(scratch + work_bytes);
  s = f64 ? cusolverDnDsyevd(h, jobz, uplo, ni, pa, ni, pw, work, lwork, dinfo)
          : cusolverDnSsyevd(h, jobz, uplo, ni, pa, ni, pw, work, lwork, dinfo);
  pthread_mutex_unlock(&q->dev->solver_lock);
  int info = 0;
  if (s != CUSOLVER_STATUS_SUCCESS)
    st = solver_fail(f64 ? "cusolverDnDsyevd" : "cusolverDnSsyevd", s);
  /* Waits for the stream whatever happened: the workspace is freed only once nothing uses it. */
  e = cuMemcpyDtoHAsync(&info, scratch + work_bytes, sizeof info, q->stream);
  if (e == CUDA_SUCCESS)
    e = cuStreamSynchronize(q->stream);
  if (st == AG_OK && e != CUDA_SUCCESS)
    st = ag__cuda_check("cuStreamSynchronize", e);
  else if (e != CUDA_SUCCESS)
    ag__cuda_warn("cuStreamSynchronize", e);
  CUresult fe = cuMemFree(scratch);
  if (fe != CUDA_SUCCESS)
    ag__cuda_warn("cuMemFree", fe);
  if (st == AG_OK && info != 0)
    st = core->error(AG_ERR_DEVICE, "cusolverDn%csyevd: info %d: %s", f64 ? 'D' : 'S', info,
                     info > 0 ? "the eigensolver did not converge" : "an argument was refused");
  return ag__cuda_leave(st);
}

static const ag__lapack_ops cusolver_ops = {
    .name = "cuSOLVER",
    .syevd = cs_syevd,
};

/* cuSOLVER comes with the module (it is linked), so every device has it; the handle is made on
   the first call, so a device that never decomposes spends no memory on it. */
const ag__lapack_ops *ag__cuda_lapack(ag__bdevice *dev) {
  (void)dev;
  return &cusolver_ops;
}
