/* backends/opencl/opencl_internal.h — what the files of the OpenCL backend share: the device
   and queue handles, the core's services, OpenCL error reporting, and the BLAS and FFT
   providers (blas.c, fft_vkfft.c, fft_clfft.c) that opencl.c puts in its table. */
#ifndef ANYGPU_OPENCL_INTERNAL_H
#define ANYGPU_OPENCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <pthread.h>

#include "../backend.h"

#include <stdint.h>

/* Driver defects the backend works around (quirks.c has the table, docs/portability.md the
   story of each). */
enum {
  AG__CLQ_LOOP_LIMIT = 1u << 0,  /* loops end after 65535 iterations: launches are cut to fit */
  AG__CLQ_STRUCT_ARGS = 1u << 1, /* struct arguments by value break: refused */
  AG__CLQ_BINARY_CHECK = 1u << 2, /* an unreadable program binary aborts the process: checked first */
  AG__CLQ_NO_PROFILING = 1u << 3, /* command timestamps are placeholders: elapsed times refused */
  AG__CLQ_FINISH_MARKER = 1u << 4, /* clFinish does not wait after a marker: finish waits for one */
  AG__CLQ_FILL_2G = 1u << 5,      /* clEnqueueFillBuffer fails past byte 2^31: such fills written from the host */
  AG__CLQ_BINARY_COMPILES_ALL = 1u << 6, /* a program's binary compiles all its kernels: the driver's own cache serves */
};

/* The quirks of a device, from its platform and device names and driver version; their
   names, comma-separated, go to @p names. */
unsigned ag__cl_quirks(const char *platform, const char *device, const char *driver_version, char *names,
                       size_t names_size);
/* Whether @p bin could be a program binary of rusticl: its header (format version 1, the
   length of the SPIR-V that follows, the binary type) and the SPIR-V magic number. */
bool ag__cl_rusticl_binary_plausible(const void *bin, size_t size);

/* Which of @p k's first 64 arguments are passed by value as a named struct or union (bit i
   of *records) or with a typedef'd type (bit i of *typedefs), which may be a struct or a
   scalar: the driver's argument information does not say. Returns the kernel's argument
   count, or -1 when the driver gives no argument information. */
int ag__cl_by_value_args(cl_kernel k, uint64_t *records, uint64_t *typedefs);

struct ag__bdevice {
  cl_platform_id platform;
  cl_device_id id;
  cl_context ctx;
  cl_command_queue service; /* for mapping pinned memory; guarded by lock */
  pthread_mutex_t lock;
  unsigned quirks;          /* AG__CLQ_* */
  char describe[448];       /* "rusticl 22.3.6 (llvmpipe ...)", for messages about quirks */
};

struct ag__bqueue {
  ag__bdevice *dev;
  cl_command_queue q;
};

/* Blocks until every command enqueued on @p q has finished: clFinish, after waiting for a
   marker of its own where the driver's clFinish does not wait (finish-marker). */
cl_int ag__cl_finish(ag__bqueue *q);

#define MEM(m) ((cl_mem)(m))

/* The core's services, set by probe before any other entry runs. */
extern const ag__core_services *ag__cl_core;

/* "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for codes it does not know. */
const char *ag__cl_name(cl_int e);
/* The status a native OpenCL error means to a caller (memory errors: AG_ERR_OUT_OF_MEMORY). */
ag_status ag__cl_status(cl_int e);

/* Every OpenCL failure the backend reports is written here, so all read alike: @p fmt and its
   arguments name the call and whatever the call site adds ("clSetKernelArg(3)", "clCreateKernel:
   no kernel named \"k\""), followed by ": NAME (code)". Records that as the thread's error and
   returns @p st. */
ag_status ag__cl_error(ag_status st, cl_int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "call: NAME (code)" with the status the error means: "clEnqueueNDRangeKernel:
   CL_OUT_OF_RESOURCES (-5)", AG_ERR_DEVICE. CL_TRY returns that from the calling function when
   @p expr is not CL_SUCCESS. */
#define CL_FAIL(call, e) ag__cl_error(ag__cl_status(e), (e), "%s", (call))
#define CL_TRY(call, expr)                                                                      \
  do {                                                                                          \
    cl_int e_ = (expr);                                                                         \
    if (e_ != CL_SUCCESS)                                                                       \
      return CL_FAIL(call, e_);                                                                 \
  } while (0)

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
