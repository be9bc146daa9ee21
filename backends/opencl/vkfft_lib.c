/* backends/opencl/vkfft_lib.c — VkFFT's code, compiled in this file alone (vkfft_lib.h says
   why), with its printing and its view of CPU devices redirected as below. */
#include <stdarg.h>
#include <stdio.h>

#include "opencl_internal.h"

#define core ag__cl_core

/* VkFFT prints an OpenCL build log and the kernel's source to stdout when a kernel fails to
   compile. The library never prints on its caller's behalf: those lines go to the debug log
   (ANYGPU_LOG=debug), and the failure itself comes back as VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM. */
__attribute__((format(printf, 1, 2))) static int vkfft_print(const char *fmt, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  core->log(AG__LOG_DEBUG, "VkFFT: %s", line);
  return n;
}

/* pocl runs each work-group on one thread and keeps its work-items' private variables on that
   thread's stack. VkFFT sizes its kernels to the device's limits, which on pocl are 4096
   work-items and 1 MiB of local memory, and some of those kernels overflow the stack
   (single-precision Bluestein lengths between about 30000 and 50000 crash). On CPU devices
   VkFFT is shown a large GPU's limits instead: 1024 work-items and 64 KiB. Of the limits
   tried on pocl (anygpu-bench's fft rows), 256 work-items made 1024 x 1024 single-precision
   transforms 2.5 times slower than these, and 4096 gained nothing; primes from 30011 to
   100003 run correctly with these in both precisions. */
#define CPU_MAX_WORK_GROUP 1024
#define CPU_LOCAL_MEMORY (64 * 1024)

static cl_int vkfft_device_info(cl_device_id id, cl_device_info what, size_t size, void *value, size_t *ret) {
  cl_int e = clGetDeviceInfo(id, what, size, value, ret);
  cl_device_type type = 0;
  if (e != CL_SUCCESS || value == NULL || clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS ||
      !(type & CL_DEVICE_TYPE_CPU))
    return e;
  if (what == CL_DEVICE_MAX_WORK_GROUP_SIZE && size >= sizeof(size_t) && *(size_t *)value > CPU_MAX_WORK_GROUP)
    *(size_t *)value = CPU_MAX_WORK_GROUP;
  if (what == CL_DEVICE_MAX_WORK_ITEM_SIZES)
    for (size_t i = 0; i < size / sizeof(size_t); i++)
      if (((size_t *)value)[i] > CPU_MAX_WORK_GROUP)
        ((size_t *)value)[i] = CPU_MAX_WORK_GROUP;
  if (what == CL_DEVICE_LOCAL_MEM_SIZE && size >= sizeof(cl_ulong) && *(cl_ulong *)value > CPU_LOCAL_MEMORY)
    *(cl_ulong *)value = CPU_LOCAL_MEMORY;
  return e;
}

/* Every call VkFFT makes to these, in the header included below, goes to the versions above. */
#define printf(...) vkfft_print(__VA_ARGS__)
#define clGetDeviceInfo vkfft_device_info
#include "vkfft_lib.h"
#undef printf
#undef clGetDeviceInfo

VkFFTResult ag__vkfft_initialize(VkFFTApplication *app, VkFFTConfiguration c) { return initializeVkFFT(app, c); }

void ag__vkfft_delete(VkFFTApplication *app) { deleteVkFFT(app); }

VkFFTResult ag__vkfft_append(VkFFTApplication *app, int direction, VkFFTLaunchParams *lp) {
  return VkFFTAppend(app, direction, lp);
}
