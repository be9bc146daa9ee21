/* backends/opencl/opencl_internal.h — what the files of the OpenCL backend share: the device
   and queue handles, the core's services, OpenCL error names, and the BLAS and FFT providers
   (blas.c, fft_vkfft.c, fft_clfft.c) that opencl.c puts in its table. */
#ifndef ANYGPU_OPENCL_INTERNAL_H
#define ANYGPU_OPENCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <pthread.h>

#include "../backend.h"

struct ag__bdevice {
  cl_platform_id platform;
  cl_device_id id;
  cl_context ctx;
  cl_command_queue service; /* for mapping pinned memory; guarded by lock */
  pthread_mutex_t lock;
};

struct ag__bqueue {
  ag__bdevice *dev;
  cl_command_queue q;
};

#define MEM(m) ((cl_mem)(m))

/* The core's services, set by probe before any other entry runs. */
extern const ag__core_services *ag__cl_core;

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for codes it does not know. */
const char *ag__cl_name(cl_int e);
/* The status a native OpenCL error means to a caller (memory errors: AG_ERR_OUT_OF_MEMORY). */
ag_status ag__cl_status(cl_int e);

/* The BLAS for a device: CLBlast on GPUs and accelerators, OpenBLAS on mapped buffers on CPU
   devices (ANYGPU_OPENCL_BLAS=clblast|openblas overrides that); NULL when neither is there. */
const ag__blas_ops *ag__cl_blas(ag__bdevice *dev);

/* The FFT providers, each built only where its library was found at configure time. */
#if AG_OPENCL_VKFFT
const ag__fft_ops *ag__cl_vkfft(ag__bdevice *dev);
#endif
#if AG_OPENCL_CLFFT
const ag__fft_ops *ag__cl_clfft(ag__bdevice *dev);
#endif

#endif
