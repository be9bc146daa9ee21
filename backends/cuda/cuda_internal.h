/* backends/cuda/cuda_internal.h — what the files of the CUDA backend share: the device, queue
   and program handles, the core's services, the context and error helpers of cuda.c, and the
   program entries (program.c) and BLAS, FFT and eigensolver providers (blas.c, fft.c,
   solver.c) that cuda.c puts in its table. The module is built with hidden visibility, so none of these leave it. */
#ifndef ANYGPU_CUDA_INTERNAL_H
#define ANYGPU_CUDA_INTERNAL_H

#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../backend.h"

struct cublasContext;     /* cublasHandle_t, from cublas_api.h */
struct cusolverDnContext; /* cusolverDnHandle_t, from cusolverDn.h */

struct ag__bdevice {
  CUdevice id;
  _Atomic(CUcontext) ctx;   /* the primary context once retained, else NULL */
  pthread_mutex_t ctx_lock; /* serialises the retain */
  int cc;                   /* compute capability, major * 10 + minor */
  int max_block[3];         /* threads per block in x, y, z */
  int max_grid[3];          /* blocks per grid in x, y, z */
  size_t smem_optin;        /* shared memory a block may have once a kernel opts in */
  /* blas.c: the device's one cuBLAS handle, made on first use; blas_lock guards both its
     making and every use, since its stream and pointer mode are state of the handle. */
  pthread_mutex_t blas_lock;
  struct cublasContext *blas;
  /* solver.c: the device's one cuSOLVER handle, made on first use; solver_lock guards its
     making and every enqueue on it (its stream is state of the handle, as cuBLAS's). */
  pthread_mutex_t solver_lock;
  struct cusolverDnContext *solver;
};

struct ag__bqueue {
  ag__bdevice *dev;
  CUstream stream;
};

struct ag__bprogram {
  ag__bdevice *dev;
  CUmodule module;
  void *image; /* the CUBIN or PTX that NVRTC made, for program_binary; NULL when loaded */
  size_t image_size;
};

#define DPTR(m) ((CUdeviceptr)(uintptr_t)(m))

/* The core's services, set by probe before any other entry runs. */
extern const ag__core_services *ag__cuda_core;

/* Makes @p dev's primary context current on the calling thread (retaining it on first use);
   every AG_OK is to be paired with ag__cuda_leave(), which pops it and passes @p st through. */
ag_status ag__cuda_enter(ag__bdevice *dev);
ag_status ag__cuda_leave(ag_status st);

/* The name of @p e ("CUDA_ERROR_OUT_OF_MEMORY"): the driver's, or where it cannot say (the
   toolkit's stub library, an older driver) cuda.c's own for the errors that come before a
   device is used; and the driver's description of it. */
const char *ag__cuda_name(CUresult e);
const char *ag__cuda_desc(CUresult e);

/* "call: NAME (code): description" as the thread's error, returning @p st; ag__cuda_check
   picks the status itself (AG_ERR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY, else
   AG_ERR_DEVICE) and passes CUDA_SUCCESS as AG_OK. ag__cuda_warn logs instead, for entries
   that return nothing. */
ag_status ag__cuda_error(ag_status st, const char *call, CUresult e);
ag_status ag__cuda_check(const char *call, CUresult e);
void ag__cuda_warn(const char *call, CUresult e);
ag_status ag__cuda_no_memory(void);

/* The program entries (program.c), the backend table's .program_build, .program_binary,
   .program_load and .program_release: NVRTC compiles and module loads, as backend.h describes
   them. */
ag_status ag__cuda_program_build(ag__bdevice *dev, const ag_program_desc *desc, const char *source,
                                 const char *options, ag__bprogram **out, char **log);
ag_status ag__cuda_program_binary(ag__bprogram *p, void **binary, size_t *size);
ag_status ag__cuda_program_load(ag__bdevice *dev, const void *binary, size_t size, ag__bprogram **out);
void ag__cuda_program_release(ag__bprogram *p);

/* The providers: cuBLAS (blas.c), cuFFT (fft.c) and cuSOLVER (solver.c), the backend table's
   .blas, .fft and .lapack. */
const ag__blas_ops *ag__cuda_blas(ag__bdevice *dev);
const ag__fft_ops *ag__cuda_fft(ag__bdevice *dev, const char *provider);
const ag__lapack_ops *ag__cuda_lapack(ag__bdevice *dev);

#endif
