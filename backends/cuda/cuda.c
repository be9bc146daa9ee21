/* backends/cuda/cuda.c — the CUDA backend (module anygpu-cuda.so): NVIDIA GPUs through the
   driver API (cuda.h) on each device's primary context, user kernels compiled by NVRTC, and the
   built-in kernel families (kernels_shared/families.h) embedded as one fatbin each.

   Handles:
     device   the CUdevice, its limits, and its primary context, retained on first use: a
              context takes a few hundred MiB of device memory, so GPUs that are enumerated but
              never used (every GPU of a node is enumerated) get none
     queue    a CUstream made with CU_STREAM_NON_BLOCKING, so it never waits for the legacy
              default stream that other CUDA code in the process may use
     event    a CUevent with timing
     memory   the CUdeviceptr itself, cast to ag__bmem * (no host allocation per buffer)
     program  a CUmodule, plus the CUBIN or PTX that NVRTC made for it (for the disk cache)
     kernel   a CUfunction with its attributes and parameter sizes

   Every entry makes the device's primary context current on the calling thread with
   cuCtxPushCurrent and pops it before returning, so any thread may call any entry and a
   caller's own current context is left as it was. The primary context is the one the CUDA
   runtime, cuBLAS and cuFFT use, so device pointers pass between them and anygpu.

   Programs: NVRTC and module loading are in program.c. BLAS and FFT: cuBLAS (blas.c) and cuFFT
   (fft.c) run in the same primary contexts, on the queues' streams. cuda_internal.h holds what
   those files share with this one.

   Threading: the driver API is thread-safe, and kernel arguments are passed at launch
   (cuLaunchKernel copies them), so unlike OpenCL no lock is taken per kernel. NVRTC compiles
   are serialised (see nvrtc_lock in program.c).

   Local memory: CUDA has one dynamic shared memory region per block. Each AG_ARG_LOCAL argument
   takes a 16-byte aligned part of it and reaches the kernel as an `unsigned int` byte offset:
       extern "C" __global__ void k(float *x, unsigned tile_at) {
         extern __shared__ __align__(16) unsigned char shared[];
         float *tile = (float *)(shared + tile_at);
         ...
*/
#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../embedded.h"
#include "cuda_internal.h"

extern const ag__embedded ag__cuda_kernels[];

const ag__core_services *ag__cuda_core;
#define core ag__cuda_core

_Static_assert(sizeof(CUdeviceptr) <= sizeof(void *), "a CUdeviceptr is kept in a pointer");

enum { MAX_ARGS = AG__KERNEL_ARGS_MAX };

/* ---- errors ------------------------------------------------------------------------------- */

/* The driver names its errors, except the toolkit's stub library (which fails every call,
   cuGetErrorName included) and a driver older than the code; then the names of the errors
   that matter before a device is ever used come from here. */
static const char *cu_name(CUresult e) {
  const char *s = NULL;
  if (cuGetErrorName(e, &s) == CUDA_SUCCESS && s != NULL)
    return s;
  switch (e) {
#define N(x)                                                                                    \
  case x:                                                                                       \
    return #x;
    N(CUDA_ERROR_INVALID_VALUE) N(CUDA_ERROR_OUT_OF_MEMORY) N(CUDA_ERROR_NOT_INITIALIZED)
    N(CUDA_ERROR_DEINITIALIZED) N(CUDA_ERROR_STUB_LIBRARY) N(CUDA_ERROR_DEVICE_UNAVAILABLE)
    N(CUDA_ERROR_NO_DEVICE) N(CUDA_ERROR_INVALID_DEVICE)
    N(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) N(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    N(CUDA_ERROR_SYSTEM_NOT_READY) N(CUDA_ERROR_OPERATING_SYSTEM) N(CUDA_ERROR_UNKNOWN)
#undef N
  default:
    return "CUDA_ERROR_UNRECOGNIZED";
  }
}

static const char *cu_desc(CUresult e) {
  const char *s = NULL;
  if (cuGetErrorString(e, &s) != CUDA_SUCCESS || s == NULL)
    s = "the driver library gives no description";
  return s;
}

/* Errors after which the context cannot be used again (cuda.h: "the process must be terminated
   and relaunched"). Numbers rather than names, as some are newer than CUDA 12.4's header. */
static bool cu_sticky(CUresult e) {
  switch ((int)e) {
  case 226: /* CUDA_ERROR_CONTAINED */
  case 700: /* CUDA_ERROR_ILLEGAL_ADDRESS */
  case 702: /* CUDA_ERROR_LAUNCH_TIMEOUT */
  case 710: /* CUDA_ERROR_ASSERT */
  case 714: /* CUDA_ERROR_HARDWARE_STACK_ERROR */
  case 715: /* CUDA_ERROR_ILLEGAL_INSTRUCTION */
  case 716: /* CUDA_ERROR_MISALIGNED_ADDRESS */
  case 717: /* CUDA_ERROR_INVALID_ADDRESS_SPACE */
  case 718: /* CUDA_ERROR_INVALID_PC */
  case 719: /* CUDA_ERROR_LAUNCH_FAILED */
  case 721: /* CUDA_ERROR_TENSOR_MEMORY_LEAK */
  case 810: /* CUDA_ERROR_MPS_CLIENT_TERMINATED */
  case 911: /* CUDA_ERROR_EXTERNAL_DEVICE */
    return true;
  default:
    return false;
  }
}

/* Records "call: NAME (code): description" as the thread's error and returns @p st. */
static ag_status cu_error(ag_status st, const char *call, CUresult e) {
  return core->error(st, "%s: %s (%d): %s%s", call, cu_name(e), (int)e, cu_desc(e),
                     cu_sticky(e) ? "; the device's CUDA context is unusable from now on: restart the process" : "");
}

/* What a failure means where the call site knows no better: lack of memory is told apart, so
   the core can trim its pool and retry. */
static ag_status cu_status(CUresult e) {
  return e == CUDA_ERROR_OUT_OF_MEMORY ? AG_ERR_OUT_OF_MEMORY : AG_ERR_DEVICE;
}

static ag_status cu_check(const char *call, CUresult e) {
  return e == CUDA_SUCCESS ? AG_OK : cu_error(cu_status(e), call, e);
}

/* For entries that return nothing: the failure goes to the log. */
static void cu_warn(const char *call, CUresult e) {
  if (e != CUDA_SUCCESS)
    core->log(AG__LOG_WARN, "cuda: %s: %s (%d): %s", call, cu_name(e), (int)e, cu_desc(e));
}

static ag_status no_memory(void) { return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory"); }

const char *ag__cuda_name(CUresult e) { return cu_name(e); }
const char *ag__cuda_desc(CUresult e) { return cu_desc(e); }
ag_status ag__cuda_error(ag_status st, const char *call, CUresult e) { return cu_error(st, call, e); }
ag_status ag__cuda_check(const char *call, CUresult e) { return cu_check(call, e); }
void ag__cuda_warn(const char *call, CUresult e) { cu_warn(call, e); }
ag_status ag__cuda_no_memory(void) { return no_memory(); }

/* ---- handles ------------------------------------------------------------------------------ */

/* ag__bdevice, ag__bqueue and ag__bprogram are in cuda_internal.h, shared with the program,
   BLAS and FFT files. */

struct ag__bevent {
  ag__bdevice *dev;
  CUevent ev;
};

struct ag__bkernel {
  ag__bprogram *prog;
  CUfunction fn;
  size_t max_threads;                  /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
  size_t static_smem;                  /* __shared__ arrays of fixed size */
  _Atomic size_t dynamic_smem_limit;   /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES now */
  int nparams;                         /* -1 when the driver cannot tell */
  size_t param_size[MAX_ARGS];
  char name[];
};

/* Makes @p dev's primary context current on the calling thread, retaining it on first use.
   Every AG_OK is to be paired with leave(). */
static ag_status enter(ag__bdevice *dev) {
  CUcontext ctx = atomic_load_explicit(&dev->ctx, memory_order_acquire);
  if (ctx == NULL) {
    CUresult e = CUDA_SUCCESS;
    pthread_mutex_lock(&dev->ctx_lock);
    ctx = atomic_load_explicit(&dev->ctx, memory_order_relaxed);
    if (ctx == NULL && (e = cuDevicePrimaryCtxRetain(&ctx, dev->id)) == CUDA_SUCCESS)
      atomic_store_explicit(&dev->ctx, ctx, memory_order_release);
    pthread_mutex_unlock(&dev->ctx_lock);
    if (e != CUDA_SUCCESS)
      return cu_error(cu_status(e), "cuDevicePrimaryCtxRetain", e);
  }
  return cu_check("cuCtxPushCurrent", cuCtxPushCurrent(ctx));
}

/* Pops what enter() pushed; passes @p st through. */
static ag_status leave(ag_status st) {
  CUcontext popped;
  cu_warn("cuCtxPopCurrent", cuCtxPopCurrent(&popped));
  return st;
}

ag_status ag__cuda_enter(ag__bdevice *dev) { return enter(dev); }
ag_status ag__cuda_leave(ag_status st) { return leave(st); }

/* ---- lifetime ----------------------------------------------------------------------------- */

/* "580.65.06, CUDA 13.0, NVRTC 13.0": the kernel driver's version (what nvidia-smi shows, when
   /proc tells it), the CUDA version the driver supports, and NVRTC's, which together decide
   what the compiled programs in the disk cache are worth. */
static char version_text[64];

static void describe_versions(int driver) {
  char kernel_driver[24] = "";
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  if (f != NULL) {
    /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." */
    char line[256];
    if (fgets(line, sizeof line, f) != NULL) {
      char *save = NULL;
      for (char *tok = strtok_r(line, " \t\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\n", &save)) {
        unsigned a, b;
        if (sscanf(tok, "%u.%u", &a, &b) == 2 && strchr(tok, '_') == NULL) {
          snprintf(kernel_driver, sizeof kernel_driver, "%s, ", tok);
          break;
        }
      }
    }
    fclose(f);
  }
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    major = minor = 0;
  snprintf(version_text, sizeof version_text, "%sCUDA %d.%d, NVRTC %d.%d", kernel_driver, driver / 1000,
           driver % 1000 / 10, major, minor);
}

static ag_status cu_probe(const ag__core_services *services, int *count, char *reason, size_t rsize) {
  core = services;
  CUresult e = cuInit(0);
  if (e != CUDA_SUCCESS) {
    int n = snprintf(reason, rsize, "cuInit: %s (%d): %s", cu_name(e), (int)e, cu_desc(e));
    size_t used = n < 0 ? 0 : (size_t)n < rsize ? (size_t)n : rsize;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    Dl_info where;
    if (e == CUDA_ERROR_NO_DEVICE && visible != NULL)
      snprintf(reason + used, rsize - used, " (CUDA_VISIBLE_DEVICES=%s)", visible);
    else if (e == CUDA_ERROR_STUB_LIBRARY && dladdr((void *)&cuInit, &where) != 0 && where.dli_fname != NULL)
      snprintf(reason + used, rsize - used, " (%s is the toolkit's stub, not the driver's library)",
               where.dli_fname);
    return AG_ERR_BACKEND_UNAVAILABLE;
  }
  int n = 0, driver = 0;
  const char *call = "cuDeviceGetCount";
  e = cuDeviceGetCount(&n);
  if (e == CUDA_SUCCESS) {
    call = "cuDriverGetVersion";
    e = cuDriverGetVersion(&driver);
  }
  if (e != CUDA_SUCCESS) {
    snprintf(reason, rsize, "%s: %s (%d): %s", call, cu_name(e), (int)e, cu_desc(e));
    return AG_ERR_BACKEND_UNAVAILABLE;
  }
  describe_versions(driver);
  /* The embedded kernels come from this toolkit's nvcc; a driver for an older CUDA may refuse
     them (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), which the first use of the device then says. */
  if (driver < CUDA_VERSION)
    core->log(AG__LOG_WARN,
              "cuda: the driver supports CUDA %d.%d, older than the CUDA %d.%d this module was built with; "
              "its kernels may not load",
              driver / 1000, driver % 1000 / 10, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
  *count = n;
  return AG_OK;
}

/* Describes device @p index without making its context (see enter()). */
static ag_status cu_device_open(int index, ag__bdevice **out, ag_device_info *info) {
  CUdevice id;
  ag_status st = cu_check("cuDeviceGet", cuDeviceGet(&id, index));
  if (st != AG_OK)
    return st;
  enum { MAJOR, MINOR, SMS, THREADS, SMEM_OPTIN, BX, BY, BZ, GX, GY, GZ, MODE, NATTR };
  static const CUdevice_attribute which[NATTR] = {
      [MAJOR] = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
      [MINOR] = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
      [SMS] = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
      [THREADS] = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      [SMEM_OPTIN] = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
      [BX] = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
      [BY] = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
      [BZ] = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
      [GX] = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
      [GY] = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
      [GZ] = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z,
      [MODE] = CU_DEVICE_ATTRIBUTE_COMPUTE_MODE,
  };
  int v[NATTR];
  for (int i = 0; i < NATTR; i++)
    if ((st = cu_check("cuDeviceGetAttribute", cuDeviceGetAttribute(&v[i], which[i], id))) != AG_OK)
      return st;
  if (v[MODE] == CU_COMPUTEMODE_PROHIBITED)
    return core->error(AG_ERR_DEVICE, "CUDA device %d is in compute mode \"prohibited\" (nvidia-smi -c)", index);
  size_t total = 0;
  if ((st = cu_check("cuDeviceTotalMem", cuDeviceTotalMem(&total, id))) != AG_OK)
    return st;
  if ((st = cu_check("cuDeviceGetName", cuDeviceGetName(info->name, (int)sizeof info->name, id))) != AG_OK)
    return st;
  info->name[sizeof info->name - 1] = '\0';

  ag__bdevice *dev = calloc(1, sizeof *dev);
  if (dev == NULL)
    return no_memory();
  dev->id = id;
  atomic_init(&dev->ctx, NULL);
  pthread_mutex_init(&dev->ctx_lock, NULL);
  pthread_mutex_init(&dev->blas_lock, NULL);
  pthread_mutex_init(&dev->solver_lock, NULL);
  dev->cc = v[MAJOR] * 10 + v[MINOR];
  for (int d = 0; d < 3; d++) {
    dev->max_block[d] = v[BX + d];
    dev->max_grid[d] = v[GX + d];
  }
  dev->smem_optin = (size_t)v[SMEM_OPTIN];

  info->type = AG_DEVICE_GPU;
  snprintf(info->vendor, sizeof info->vendor, "NVIDIA");
  snprintf(info->platform, sizeof info->platform, "CUDA");
  snprintf(info->driver_version, sizeof info->driver_version, "%s", version_text);
  info->global_memory = total;
  info->max_allocation = total;
  info->compute_units = v[SMS];
  info->max_work_group_size = (size_t)v[THREADS];
  info->local_memory = dev->smem_optin;
  info->fp64 = true;
  info->compute_capability = dev->cc;
  *out = dev;
  return AG_OK;
}

/* ---- queues and events -------------------------------------------------------------------- */

static ag_status cu_queue_create(ag__bdevice *dev, ag__bqueue **out) {
  ag__bqueue *q = malloc(sizeof *q);
  if (q == NULL)
    return no_memory();
  ag_status st = enter(dev);
  if (st == AG_OK)
    st = leave(cu_check("cuStreamCreate", cuStreamCreate(&q->stream, CU_STREAM_NON_BLOCKING)));
  if (st != AG_OK) {
    free(q);
    return st;
  }
  q->dev = dev;
  *out = q;
  return AG_OK;
}

static void cu_queue_destroy(ag__bqueue *q) {
  if (enter(q->dev) == AG_OK) {
    cu_warn("cuStreamSynchronize", cuStreamSynchronize(q->stream));
    cu_warn("cuStreamDestroy", cuStreamDestroy(q->stream));
    leave(AG_OK);
  }
  free(q);
}

static ag_status cu_queue_finish(ag__bqueue *q) {
  ag_status st = enter(q->dev);
  if (st != AG_OK)
    return st;
  return leave(cu_check("cuStreamSynchronize", cuStreamSynchronize(q->stream)));
}

static ag_status cu_event_record(ag__bqueue *q, ag__bevent **out) {
  ag__bevent *ev = malloc(sizeof *ev);
  if (ev == NULL)
    return no_memory();
  ag_status st = enter(q->dev);
  if (st != AG_OK) {
    free(ev);
    return st;
  }
  st = cu_check("cuEventCreate", cuEventCreate(&ev->ev, CU_EVENT_DEFAULT));
  if (st == AG_OK) {
    st = cu_check("cuEventRecord", cuEventRecord(ev->ev, q->stream));
    if (st != AG_OK)
      cu_warn("cuEventDestroy", cuEventDestroy(ev->ev));
  }
  leave(st);
  if (st != AG_OK) {
    free(ev);
    return st;
  }
  ev->dev = q->dev;
  *out = ev;
  return AG_OK;
}

static ag_status cu_event_wait(ag__bevent *ev) {
  ag_status st = enter(ev->dev);
  if (st != AG_OK)
    return st;
  return leave(cu_check("cuEventSynchronize", cuEventSynchronize(ev->ev)));
}

/* cuEventQuery answers CUDA_ERROR_NOT_READY while the work before the event runs. */
static ag_status cu_event_query(ag__bevent *ev, bool *done) {
  ag_status st = enter(ev->dev);
  if (st != AG_OK)
    return st;
  CUresult e = cuEventQuery(ev->ev);
  *done = e == CUDA_SUCCESS;
  return leave(e == CUDA_SUCCESS || e == CUDA_ERROR_NOT_READY ? AG_OK : cu_check("cuEventQuery", e));
}

static ag_status cu_queue_wait_event(ag__bqueue *q, ag__bevent *ev) {
  ag_status st = enter(q->dev);
  if (st != AG_OK)
    return st;
  return leave(cu_check("cuStreamWaitEvent", cuStreamWaitEvent(q->stream, ev->ev, CU_EVENT_WAIT_DEFAULT)));
}

/* cuEventElapsedTime answers CUDA_ERROR_NOT_READY for pending events, so both are waited for. */
static ag_status cu_event_elapsed_ms(ag__bevent *a, ag__bevent *b, double *ms) {
  ag_status st = enter(a->dev);
  if (st != AG_OK)
    return st;
  float f = 0;
  st = cu_check("cuEventSynchronize", cuEventSynchronize(a->ev));
  if (st == AG_OK)
    st = cu_check("cuEventSynchronize", cuEventSynchronize(b->ev));
  if (st == AG_OK)
    st = cu_check("cuEventElapsedTime", cuEventElapsedTime(&f, a->ev, b->ev));
  if (st == AG_OK)
    *ms = f;
  return leave(st);
}

/* A pending event may be destroyed: the driver frees it once it completes. */
static void cu_event_destroy(ag__bevent *ev) {
  if (enter(ev->dev) == AG_OK) {
    cu_warn("cuEventDestroy", cuEventDestroy(ev->ev));
    leave(AG_OK);
  }
  free(ev);
}

/* ---- memory ------------------------------------------------------------------------------- */

static ag_status cu_mem_alloc(ag__bdevice *dev, size_t bytes, ag__bmem **out) {
  ag_status st = enter(dev);
  if (st != AG_OK)
    return st;
  CUdeviceptr p = 0;
  CUresult e = cuMemAlloc(&p, bytes);
  leave(AG_OK);
  if (e != CUDA_SUCCESS)
    return cu_error(cu_status(e), "cuMemAlloc", e);
  *out = (ag__bmem *)(uintptr_t)p;
  return AG_OK;
}

/* cuMemGetInfo answers for the current context's device, so the primary context is made
   current (and retained, on first use) around it. */
static ag_status cu_mem_info(ag__bdevice *dev, size_t *free_bytes, size_t *total_bytes) {
  ag_status st = enter(dev);
  if (st != AG_OK)
    return st;
  return leave(cu_check("cuMemGetInfo", cuMemGetInfo(free_bytes, total_bytes)));
}

/* The memory may still be in use by work enqueued on any queue of the device, other threads'
   included. cuMemFree promises only that it "may perform implicit synchronization", and our
   queues are non-blocking streams, which implicit synchronisation does not order anyway; so
   the whole context is synchronised first. cuMemFreeAsync would not wait, but it needs the one
   stream that last used the memory, which this entry is not told. The core's memory pool keeps
   frees rare. */
static void cu_mem_free(ag__bdevice *dev, ag__bmem *mem) {
  if (enter(dev) != AG_OK)
    return;
  cu_warn("cuCtxSynchronize", cuCtxSynchronize());
  cu_warn("cuMemFree", cuMemFree(DPTR(mem)));
  leave(AG_OK);
}

/* Another library's allocation (PyTorch's, CuPy's) in this device's primary context, which the
   CUDA runtime uses too, so its pointer works on anygpu's streams as it is; a pointer of
   another context, or an allocation shorter than @p bytes, is refused. */
static ag_status cu_mem_borrow(ag__bdevice *dev, void *native, size_t bytes, ag__bmem **mem) {
  CUdeviceptr p = (CUdeviceptr)(uintptr_t)native;
  ag_status st = enter(dev);
  if (st != AG_OK)
    return st;
  CUcontext owner = NULL;
  CUdeviceptr base = 0;
  size_t size = 0;
  st = cu_check("cuPointerGetAttribute", cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p));
  if (st == AG_OK && owner != atomic_load(&dev->ctx))
    st = core->error(AG_ERR_UNSUPPORTED, "the CUdeviceptr 0x%llx belongs to another context than CUDA device %d's "
                     "primary context", (unsigned long long)p, (int)dev->id);
  if (st == AG_OK)
    st = cu_check("cuMemGetAddressRange", cuMemGetAddressRange(&base, &size, p));
  if (st == AG_OK && (p - base > size || bytes > size - (p - base)))
    st = core->error(AG_ERR_INVALID_ARGUMENT, "the allocation at 0x%llx holds %zu bytes from 0x%llx, fewer than the "
                     "%zu the tensor spans", (unsigned long long)base, size, (unsigned long long)p, bytes);
  if (st == AG_OK)
    *mem = (ag__bmem *)(uintptr_t)p;
  return leave(st);
}

/* A copy from pageable memory returns once the driver has staged the data, so @p src may be
   reused then even without @p blocking; the contract asks no more. */
static ag_status cu_mem_write(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *src, size_t bytes,
                              bool blocking) {
  ag_status st = enter(q->dev);
  if (st != AG_OK)
    return st;
  st = cu_check("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync(DPTR(dst) + offset, src, bytes, q->stream));
  if (st == AG_OK && blocking)
    st = cu_check("cuStreamSynchronize", cuStreamSynchronize(q->stream));
  return leave(st);
}

static ag_status cu_mem_read(ag__bqueue *q, ag__bmem *src, size_t offset, void *dst, size_t bytes,
                             bool blocking) {
  ag_status st = enter(q->dev);
  if (st != AG_OK)
    return st;
  st = cu_check("cuMemcpyDtoHAsync", cuMemcpyDtoHAsync(dst, DPTR(src) + offset, bytes, q->stream));
  if (st == AG_OK && blocking)
    st = cu_check("cuStreamSynchronize", cuStreamSynchronize(q->stream));
  return leave(st);
}

static ag_status cu_mem_copy(ag__bqueue *q, ag__bmem *dst, size_t dst_offset, ag__bmem *src,
                             size_t src_offset, size_t bytes) {
  ag_status st = enter(q->dev);
  if (st != AG_OK)
    return st;
  return leave(cu_check("cuMemcpyDtoDAsync",
                        cuMemcpyDtoDAsync(DPTR(dst) + dst_offset, DPTR(src) + src_offset, bytes, q->stream)));
}

/* Patterns of 1, 2 and 4 bytes; the core fills with wider ones through the built-in "fill"
   kernels. Offsets are multiples of the pattern and allocations 256-byte aligned, so the
   alignment cuMemsetD16/D32 need holds. */
static ag_status cu_mem_fill(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *pattern,
                             size_t pattern_size, size_t bytes) {
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4)
    return core->error(AG_ERR_UNSUPPORTED, "the CUDA backend fills with patterns of 1, 2 or 4 bytes, not %zu",
                       pattern_size);
  ag_status st = enter(q->dev);
  if (st != AG_OK)
    return st;
  CUdeviceptr p = DPTR(dst) + offset;
  if (pattern_size == 1) {
    st = cu_check("cuMemsetD8Async", cuMemsetD8Async(p, *(const unsigned char *)pattern, bytes, q->stream));
  } else if (pattern_size == 2) {
    unsigned short v;
    memcpy(&v, pattern, sizeof v);
    st = cu_check("cuMemsetD16Async", cuMemsetD16Async(p, v, bytes / 2, q->stream));
  } else {
    unsigned int v;
    memcpy(&v, pattern, sizeof v);
    st = cu_check("cuMemsetD32Async", cuMemsetD32Async(p, v, bytes / 4, q->stream));
  }
  return leave(st);
}

/* Portable pinned memory, usable for asynchronous copies with every context. */
static ag_status cu_host_alloc(ag__bdevice *dev, size_t bytes, void **ptr, void **handle) {
  ag_status st = enter(dev);
  if (st != AG_OK)
    return st;
  void *p = NULL;
  CUresult e = cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE);
  leave(AG_OK);
  if (e != CUDA_SUCCESS)
    return cu_error(cu_status(e), "cuMemHostAlloc", e);
  *ptr = p;
  *handle = NULL;
  return AG_OK;
}

/* Waits for this device's work first, as cu_mem_free does, since an asynchronous copy may still
   read or write the memory. Copies on other devices' queues are the caller's to finish. */
static void cu_host_free(ag__bdevice *dev, void *ptr, void *handle) {
  (void)handle;
  if (enter(dev) != AG_OK)
    return;
  cu_warn("cuCtxSynchronize", cuCtxSynchronize());
  cu_warn("cuMemFreeHost", cuMemFreeHost(ptr));
  leave(AG_OK);
}

/* ---- kernels ------------------------------------------------------------------------------ */

/* Kernel @p name of @p p, with what launches check against: its thread limit, its static shared
   memory, and its parameters' sizes (cuFuncGetParamInfo; nparams -1 when the driver cannot
   tell, and then nothing is checked). */
static ag_status cu_kernel_create(ag__bprogram *p, const char *name, ag__bkernel **out) {
  size_t len = strlen(name);
  ag__bkernel *k = calloc(1, sizeof *k + len + 1);
  if (k == NULL)
    return no_memory();
  memcpy(k->name, name, len + 1);
  ag_status st = enter(p->dev);
  if (st != AG_OK) {
    free(k);
    return st;
  }
  /* The driver may answer an empty or malformed name with CUDA_ERROR_INVALID_VALUE. */
  CUresult e = name[0] ? cuModuleGetFunction(&k->fn, p->module, name) : CUDA_ERROR_NOT_FOUND;
  if (e == CUDA_ERROR_NOT_FOUND || e == CUDA_ERROR_INVALID_VALUE) {
    st = core->error(AG_ERR_INVALID_ARGUMENT,
                     "cuModuleGetFunction: no kernel named \"%s\" in the program: %s (%d) (CUDA kernels are found "
                     "by their unmangled name: declare them extern \"C\" __global__)",
                     name, cu_name(e), (int)e);
  } else {
    st = cu_check("cuModuleGetFunction", e);
  }
  int threads = 0, smem = 0, dyn = 0;
  if (st == AG_OK)
    st = cu_check("cuFuncGetAttribute",
                  cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn));
  if (st == AG_OK)
    st = cu_check("cuFuncGetAttribute", cuFuncGetAttribute(&smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn));
  if (st == AG_OK)
    st = cu_check("cuFuncGetAttribute",
                  cuFuncGetAttribute(&dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->fn));
  if (st == AG_OK) {
    /* Parameters are counted by asking for each until the index is past the last one. */
    k->nparams = -1;
    for (int i = 0; i <= MAX_ARGS; i++) {
      size_t offset = 0, psize = 0;
      e = cuFuncGetParamInfo(k->fn, (size_t)i, &offset, &psize);
      if (e == CUDA_ERROR_INVALID_VALUE) {
        k->nparams = i;
        break;
      }
      if (e != CUDA_SUCCESS) {
        core->log(AG__LOG_DEBUG, "cuda: cuFuncGetParamInfo(%s, %d): %s (%d); arguments are not checked", name, i,
                  cu_name(e), (int)e);
        break;
      }
      if (i < MAX_ARGS)
        k->param_size[i] = psize;
    }
  }
  leave(AG_OK);
  if (st != AG_OK) {
    free(k);
    return st;
  }
  k->prog = p;
  k->max_threads = threads > 0 ? (size_t)threads : 1;
  k->static_smem = (size_t)smem;
  atomic_init(&k->dynamic_smem_limit, (size_t)(dyn > 0 ? dyn : 0));
  *out = k;
  return AG_OK;
}

static size_t cu_kernel_max_work_group(ag__bkernel *k) { return k->max_threads; }

static void cu_kernel_release(ag__bkernel *k) { free(k); }

/* A block shape for a launch that leaves local to the backend: 256 threads (16 x 16 in 2-D,
   8 x 8 x 4 in 3-D), no wider in a dimension than the range, the threads freed that way given
   to the other dimensions, and cut to what the kernel and the device allow. 256 threads keep
   several blocks resident per multiprocessor at any register count up to 64 per thread, and
   is what most CUDA code is tuned for. */
static void choose_block(const ag__bdevice *dev, const ag__bkernel *k, const ag_range *r, unsigned block[3]) {
  static const unsigned shapes[3][3] = {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}};
  unsigned dims = r->dims;
  size_t limit = k->max_threads < 256 ? k->max_threads : 256;
  for (unsigned d = 0; d < 3; d++)
    block[d] = shapes[dims - 1][d];
  for (unsigned d = 0; d < dims; d++)
    while (block[d] > 1 && block[d] / 2 >= r->global[d])
      block[d] /= 2;
  for (bool grew = true; grew;) {
    grew = false;
    for (unsigned d = 0; d < dims; d++)
      if ((size_t)block[0] * block[1] * block[2] * 2 <= limit && block[d] < r->global[d] &&
          block[d] * 2 <= (unsigned)dev->max_block[d]) {
        block[d] *= 2;
        grew = true;
      }
  }
  while ((size_t)block[0] * block[1] * block[2] > limit) {
    unsigned widest = 0;
    for (unsigned d = 1; d < dims; d++)
      if (block[d] > block[widest])
        widest = d;
    block[widest] /= 2;
  }
}

/* The size a parameter has in the kernel for argument @p a: a device pointer for a buffer, the
   32-bit shared-memory offset for local memory, the value's own size for a scalar. */
static size_t arg_size(const ag__karg *a) {
  return a->kind == AG_ARG_BUFFER ? sizeof(CUdeviceptr) : a->kind == AG_ARG_LOCAL ? sizeof(unsigned int) : a->size;
}

static const char *kind_name(ag_arg_kind kind) {
  return kind == AG_ARG_BUFFER ? "buffer" : kind == AG_ARG_LOCAL ? "local-memory offset" : "scalar";
}

/* Enqueues @p k. The core has checked the range (dims, global, local against the kernel's
   limit) and each argument's kind and size; this checks what is CUDA's own: threads per block
   in each dimension, blocks per grid (y and z at most 65535), the arguments against the
   kernel's parameters, and shared memory. Launch errors (CUDA_ERROR_INVALID_VALUE,
   CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) are not sticky; the context stays usable. */
static ag_status cu_kernel_launch(ag__bqueue *q, ag__bkernel *k, const ag_range *range, size_t nargs,
                                  const ag__karg *args) {
  static const char axis[3] = {'x', 'y', 'z'};
  ag__bdevice *dev = q->dev;
  unsigned block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
  if (range->local[0] == 0) {
    choose_block(dev, k, range, block);
  } else {
    for (unsigned d = 0; d < range->dims; d++) {
      if (range->local[d] > (size_t)dev->max_block[d])
        return core->error(AG_ERR_INVALID_ARGUMENT,
                           "range->local[%u] is %zu; CUDA allows at most %d threads per block in %c", d,
                           range->local[d], dev->max_block[d], axis[d]);
      block[d] = (unsigned)range->local[d];
    }
  }
  for (unsigned d = 0; d < range->dims; d++) {
    size_t blocks = (range->global[d] + block[d] - 1) / block[d];
    if (blocks > (size_t)dev->max_grid[d])
      return core->error(AG_ERR_INVALID_ARGUMENT,
                         "range->global[%u] is %zu: %zu blocks of %u threads in %c, above CUDA's limit of %d "
                         "blocks%s",
                         d, range->global[d], blocks, block[d], axis[d], dev->max_grid[d],
                         d == 0 ? "" : "; use larger work-groups, or make the longest dimension the first");
    grid[d] = (unsigned)blocks;
  }

  if (nargs > MAX_ARGS)
    return core->error(AG_ERR_INVALID_ARGUMENT, "%zu arguments, above the limit of %d", nargs, MAX_ARGS);
  if (k->nparams >= 0 && (size_t)k->nparams != nargs)
    return core->error(AG_ERR_INVALID_ARGUMENT, "kernel \"%s\" takes %d arguments, not %zu", k->name, k->nparams,
                       nargs);
  void *params[MAX_ARGS];
  CUdeviceptr ptrs[MAX_ARGS];
  unsigned int offsets[MAX_ARGS];
  size_t dynamic = 0;
  for (size_t i = 0; i < nargs; i++) {
    if (k->nparams >= 0 && arg_size(&args[i]) != k->param_size[i])
      return core->error(AG_ERR_INVALID_ARGUMENT,
                         "args[%zu] is a %s of %zu bytes, but parameter %zu of kernel \"%s\" has %zu bytes", i,
                         kind_name(args[i].kind), arg_size(&args[i]), i, k->name, k->param_size[i]);
    switch (args[i].kind) {
    case AG_ARG_BUFFER:
      ptrs[i] = DPTR(args[i].mem);
      params[i] = &ptrs[i];
      break;
    case AG_ARG_LOCAL:
      dynamic = (dynamic + 15) & ~(size_t)15;
      offsets[i] = (unsigned int)dynamic;
      dynamic += args[i].size;
      params[i] = &offsets[i];
      break;
    default:
      params[i] = (void *)args[i].value;
      break;
    }
  }
  if (k->static_smem + dynamic > dev->smem_optin)
    return core->error(AG_ERR_INVALID_ARGUMENT,
                       "kernel \"%s\" has %zu bytes of static shared memory and its local arguments ask %zu more; "
                       "a block may have %zu",
                       k->name, k->static_smem, dynamic, dev->smem_optin);

  ag_status st = enter(dev);
  if (st != AG_OK)
    return st;
  /* Above the default limit (48 KiB less the static part) a kernel must opt in. It is raised
     once to all the device allows; the value only grows, so launches on other threads that
     read the old one are not hurt, and setting it twice is harmless. */
  if (dynamic > atomic_load(&k->dynamic_smem_limit)) {
    size_t most = dev->smem_optin - k->static_smem;
    CUresult e = cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)most);
    if (e != CUDA_SUCCESS)
      return leave(cu_error(AG_ERR_DEVICE, "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)", e));
    atomic_store(&k->dynamic_smem_limit, most);
  }
  CUresult e = cuLaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2], (unsigned)dynamic,
                              q->stream, nargs > 0 ? params : NULL, NULL);
  leave(AG_OK);
  if (e == CUDA_SUCCESS)
    return AG_OK;
  ag_status why = e == CUDA_ERROR_INVALID_VALUE ? AG_ERR_INVALID_ARGUMENT : cu_status(e);
  return core->error(why, "cuLaunchKernel: %s (%d): %s (kernel \"%s\", grid %ux%ux%u, block %ux%ux%u, %zu bytes of "
                          "dynamic shared memory)%s",
                     cu_name(e), (int)e, cu_desc(e), k->name, grid[0], grid[1], grid[2], block[0], block[1],
                     block[2], dynamic,
                     cu_sticky(e) ? "; the device's CUDA context is unusable from now on: restart the process" : "");
}

/* ---- built-in kernels --------------------------------------------------------------------- */

static ag_status cu_builtin_find(const char *family, int variant, ag__builtin_src *src) {
  (void)variant; /* each fatbin holds every dtype */
  for (const ag__embedded *f = ag__cuda_kernels; f->name != NULL; f++)
    if (strcmp(f->name, family) == 0) {
      src->binary = f->data;
      src->binary_size = f->size;
      return AG_OK;
    }
  return core->error(AG_ERR_UNSUPPORTED, "the CUDA backend has no built-in kernels \"%s\"", family);
}

static void cu_device_traits(ag__bdevice *dev, ag__device_traits *traits) {
  (void)dev;
  *traits = (ag__device_traits){.launch = AG__LAUNCH_GRID};
}

static const ag__backend cuda_backend = {
    .abi = AG__BACKEND_ABI,
    .name = "cuda",
    .device_traits = cu_device_traits,
    .dialect = AG__DIALECT_CUDA,
    .probe = cu_probe,
    .device_open = cu_device_open,
    .queue_create = cu_queue_create,
    .queue_destroy = cu_queue_destroy,
    .queue_finish = cu_queue_finish,
    .event_record = cu_event_record,
    .event_wait = cu_event_wait,
    .event_query = cu_event_query,
    .queue_wait_event = cu_queue_wait_event,
    .event_elapsed_ms = cu_event_elapsed_ms,
    .event_destroy = cu_event_destroy,
    .mem_alloc = cu_mem_alloc,
    .mem_free = cu_mem_free,
    .mem_write = cu_mem_write,
    .mem_read = cu_mem_read,
    .mem_copy = cu_mem_copy,
    .mem_fill = cu_mem_fill,
    .mem_info = cu_mem_info,
    .dlpack_device_type = 2, /* kDLCUDA */
    .mem_borrow = cu_mem_borrow,
    .host_alloc = cu_host_alloc,
    .host_free = cu_host_free,
    .program_build = ag__cuda_program_build,
    .program_binary = ag__cuda_program_binary,
    .program_load = ag__cuda_program_load,
    .program_release = ag__cuda_program_release,
    .kernel_create = cu_kernel_create,
    .kernel_max_work_group = cu_kernel_max_work_group,
    .kernel_release = cu_kernel_release,
    .kernel_launch = cu_kernel_launch,
    .builtin_find = cu_builtin_find,
    .builtin_all_dtypes = true,
    .blas = ag__cuda_blas,
    .fft = ag__cuda_fft,
    .lapack = ag__cuda_lapack,
};

AG__MODULE_EXPORT const ag__backend *ag__backend_entry(void);
const ag__backend *ag__backend_entry(void) { return &cuda_backend; }
