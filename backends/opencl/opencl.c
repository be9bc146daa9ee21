/* backends/opencl/opencl.c — the OpenCL backend (module anygpu-opencl.so): any vendor's
   OpenCL devices through the ICD loader, one context per device. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../embedded.h"
#include "opencl_internal.h"

extern const ag__embedded ag__opencl_kernels[];

const ag__core_services *ag__cl_core;
#define core ag__cl_core

/* ---- errors ------------------------------------------------------------------------------- */

const char *ag__cl_name(cl_int e) {
  switch (e) {
#define N(x)                                                                                    \
  case x:                                                                                       \
    return #x;
    N(CL_SUCCESS) N(CL_DEVICE_NOT_FOUND) N(CL_DEVICE_NOT_AVAILABLE) N(CL_COMPILER_NOT_AVAILABLE)
    N(CL_MEM_OBJECT_ALLOCATION_FAILURE) N(CL_OUT_OF_RESOURCES) N(CL_OUT_OF_HOST_MEMORY)
    N(CL_PROFILING_INFO_NOT_AVAILABLE) N(CL_MEM_COPY_OVERLAP) N(CL_BUILD_PROGRAM_FAILURE)
    N(CL_MAP_FAILURE) N(CL_MISALIGNED_SUB_BUFFER_OFFSET) N(CL_INVALID_VALUE)
    N(CL_INVALID_DEVICE_TYPE) N(CL_INVALID_PLATFORM) N(CL_INVALID_DEVICE) N(CL_INVALID_CONTEXT)
    N(CL_INVALID_QUEUE_PROPERTIES) N(CL_INVALID_COMMAND_QUEUE) N(CL_INVALID_HOST_PTR)
    N(CL_INVALID_MEM_OBJECT) N(CL_INVALID_BINARY) N(CL_INVALID_BUILD_OPTIONS)
    N(CL_INVALID_PROGRAM) N(CL_INVALID_PROGRAM_EXECUTABLE) N(CL_INVALID_KERNEL_NAME)
    N(CL_INVALID_KERNEL_DEFINITION) N(CL_INVALID_KERNEL) N(CL_INVALID_ARG_INDEX)
    N(CL_INVALID_ARG_VALUE) N(CL_INVALID_ARG_SIZE) N(CL_INVALID_KERNEL_ARGS)
    N(CL_INVALID_WORK_DIMENSION) N(CL_INVALID_WORK_GROUP_SIZE) N(CL_INVALID_WORK_ITEM_SIZE)
    N(CL_INVALID_GLOBAL_OFFSET) N(CL_INVALID_EVENT_WAIT_LIST) N(CL_INVALID_EVENT)
    N(CL_INVALID_OPERATION) N(CL_INVALID_BUFFER_SIZE) N(CL_INVALID_GLOBAL_WORK_SIZE)
    N(CL_INVALID_PROPERTY) N(CL_LINK_PROGRAM_FAILURE) N(CL_INVALID_LINKER_OPTIONS)
#undef N
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  }
  return "CL_UNKNOWN_ERROR";
}

/* The status a native error means to a caller: memory errors can be retried after a trim. */
ag_status ag__cl_status(cl_int e) {
  switch (e) {
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
  case CL_OUT_OF_HOST_MEMORY:
  case CL_INVALID_BUFFER_SIZE:
    return AG_ERR_OUT_OF_MEMORY;
  case CL_BUILD_PROGRAM_FAILURE:
  case CL_INVALID_BINARY:
    return AG_ERR_BUILD;
  case CL_INVALID_WORK_GROUP_SIZE:
  case CL_INVALID_WORK_ITEM_SIZE:
  case CL_INVALID_KERNEL_ARGS:
  case CL_INVALID_ARG_SIZE:
  case CL_INVALID_ARG_VALUE:
  case CL_INVALID_KERNEL_NAME:
    return AG_ERR_INVALID_ARGUMENT;
  default:
    return AG_ERR_DEVICE;
  }
}

/* What the call site says is formatted apart first, as it may quote a caller's string of any
   length (build options, a kernel's name); without the memory for a long one, its first 255
   characters are kept rather than the failure lost. */
ag_status ag__cl_error(ag_status st, cl_int e, const char *fmt, ...) {
  char start[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(start, sizeof start, fmt, ap);
  va_end(ap);
  char *what = n >= (int)sizeof start ? malloc((size_t)n + 1) : NULL;
  if (what != NULL) {
    va_start(ap, fmt);
    vsnprintf(what, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  st = core->error(st, "%s: %s (%d)", what != NULL ? what : n < 0 ? "" : start, ag__cl_name(e), (int)e);
  free(what);
  return st;
}

/* ---- handles ------------------------------------------------------------------------------ */

/* ag__bdevice and ag__bqueue are in opencl_internal.h, shared with the BLAS and FFT files. */

struct ag__bevent {
  cl_event ev;
  ag__bdevice *dev;
};

struct ag__bprogram {
  ag__bdevice *dev;
  cl_program prog;
};

/* clSetKernelArg is not thread-safe on one cl_kernel: setting the arguments and enqueuing is
   done under the kernel's lock (the enqueue captures the arguments). */
struct ag__bkernel {
  ag__bprogram *prog;
  cl_kernel k;
  pthread_mutex_t lock;
  size_t max_work_group;
  /* On a device with the struct-args quirk: bit i for argument i passed by value as a
     struct or union, or with a typedef'd type (ag__cl_by_value_args). */
  uint64_t records, typedefs;
};

static struct {
  int count;
  cl_platform_id *platforms;
  cl_device_id *devices;
} found;

/* ---- lifetime ----------------------------------------------------------------------------- */

static ag_status cl_probe(const ag__core_services *services, int *count, char *reason, size_t rsize) {
  core = services;
  cl_uint np = 0;
  cl_int e = clGetPlatformIDs(0, NULL, &np);
  if (e != CL_SUCCESS || np == 0) {
    snprintf(reason, rsize, "no OpenCL platform found (clGetPlatformIDs: %s (%d)); is an ICD installed in /etc/OpenCL/vendors?",
             ag__cl_name(e), (int)e);
    return AG_ERR_BACKEND_UNAVAILABLE;
  }
  cl_platform_id *plats = calloc(np, sizeof *plats);
  if (plats == NULL || clGetPlatformIDs(np, plats, NULL) != CL_SUCCESS) {
    free(plats);
    snprintf(reason, rsize, "clGetPlatformIDs failed");
    return AG_ERR_BACKEND_UNAVAILABLE;
  }
  for (cl_uint p = 0; p < np; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0)
      continue;
    cl_device_id *ids = calloc(nd, sizeof *ids);
    cl_platform_id *pp = realloc(found.platforms, (found.count + nd) * sizeof *pp);
    if (pp != NULL)
      found.platforms = pp;
    cl_device_id *dd = realloc(found.devices, (found.count + nd) * sizeof *dd);
    if (dd != NULL)
      found.devices = dd;
    if (ids == NULL || pp == NULL || dd == NULL || clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL) != CL_SUCCESS) {
      free(ids);
      continue;
    }
    for (cl_uint d = 0; d < nd; d++) {
      found.platforms[found.count] = plats[p];
      found.devices[found.count] = ids[d];
      found.count++;
    }
    free(ids);
  }
  free(plats);
  *count = found.count;
  return AG_OK;
}

static void info_string(cl_device_id d, cl_device_info what, char *out, size_t size) {
  out[0] = '\0';
  if (clGetDeviceInfo(d, what, size, out, NULL) != CL_SUCCESS)
    out[0] = '\0';
  out[size - 1] = '\0';
}

static ag_status cl_device_open(int index, ag__bdevice **out, ag_device_info *info) {
  cl_device_id id = found.devices[index];
  cl_platform_id plat = found.platforms[index];
  cl_int e;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
  cl_context ctx = clCreateContext(props, 1, &id, NULL, NULL, &e);
  if (ctx == NULL)
    return CL_FAIL("clCreateContext", e);
  cl_command_queue service = clCreateCommandQueue(ctx, id, 0, &e);
  if (service == NULL) {
    clReleaseContext(ctx);
    return CL_FAIL("clCreateCommandQueue", e);
  }
  ag__bdevice *dev = calloc(1, sizeof *dev);
  if (dev == NULL) {
    clReleaseCommandQueue(service);
    clReleaseContext(ctx);
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  dev->platform = plat;
  dev->id = id;
  dev->ctx = ctx;
  dev->service = service;
  pthread_mutex_init(&dev->lock, NULL);

  cl_device_type type = 0;
  clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  info->type = (type & CL_DEVICE_TYPE_GPU) ? AG_DEVICE_GPU
               : (type & CL_DEVICE_TYPE_CPU) ? AG_DEVICE_CPU
                                              : AG_DEVICE_ACCELERATOR;
  info_string(id, CL_DEVICE_NAME, info->name, sizeof info->name);
  info_string(id, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
  info_string(id, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
  char pname[128] = "", pvendor[128] = "";
  clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetPlatformInfo(plat, CL_PLATFORM_VENDOR, sizeof pvendor, pvendor, NULL);
  pname[sizeof pname - 1] = pvendor[sizeof pvendor - 1] = '\0';
  snprintf(info->platform, sizeof info->platform, "%s, %s", pname, pvendor);
  cl_ulong gmem = 0, maxalloc = 0, lmem = 0;
  cl_uint cu = 0;
  size_t wg = 0;
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
  clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
  clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  clGetDeviceInfo(id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
  info->global_memory = (size_t)gmem;
  info->max_allocation = (size_t)maxalloc;
  info->local_memory = (size_t)lmem;
  info->compute_units = (int)cu;
  info->max_work_group_size = wg;
  info->fp64 = fp64 != 0;
  info->compute_capability = 0;
  dev->quirks = ag__cl_quirks(pname, info->name, info->driver_version, info->quirks, sizeof info->quirks);
  info->max_loop_iterations = (dev->quirks & AG__CLQ_LOOP_LIMIT) ? 65535 : 0;
  snprintf(dev->describe, sizeof dev->describe, "%s %s (%s)", pname, info->driver_version, info->name);
  if (dev->quirks != 0)
    core->log(AG__LOG_INFO, "OpenCL device %s: working around driver quirks %s", dev->describe, info->quirks);
  *out = dev;
  return AG_OK;
}

/* ---- queues and events -------------------------------------------------------------------- */

cl_int ag__cl_finish(ag__bqueue *q) {
  if (q->dev->quirks & AG__CLQ_FINISH_MARKER) {
    /* Waiting for a new marker waits for everything before it (the queue is in order). */
    cl_event marker;
    cl_int e = clEnqueueMarkerWithWaitList(q->q, 0, NULL, &marker);
    if (e != CL_SUCCESS)
      return e;
    e = clWaitForEvents(1, &marker);
    clReleaseEvent(marker);
    if (e != CL_SUCCESS)
      return e;
  }
  return clFinish(q->q);
}

static ag_status cl_queue_create(ag__bdevice *dev, ag__bqueue **out) {
  cl_int e;
  cl_command_queue q = clCreateCommandQueue(dev->ctx, dev->id, CL_QUEUE_PROFILING_ENABLE, &e);
  if (q == NULL)
    return CL_FAIL("clCreateCommandQueue", e);
  ag__bqueue *bq = malloc(sizeof *bq);
  if (bq == NULL) {
    clReleaseCommandQueue(q);
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  bq->dev = dev;
  bq->q = q;
  *out = bq;
  return AG_OK;
}

static void cl_queue_destroy(ag__bqueue *q) {
  ag__cl_finish(q);
  clReleaseCommandQueue(q->q);
  free(q);
}

static ag_status cl_queue_finish(ag__bqueue *q) {
  CL_TRY("clFinish", ag__cl_finish(q));
  return AG_OK;
}

static ag_status cl_event_record(ag__bqueue *q, ag__bevent **out) {
  ag__bevent *ev = malloc(sizeof *ev);
  if (ev == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  cl_int e = clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev->ev);
  if (e != CL_SUCCESS) {
    free(ev);
    return CL_FAIL("clEnqueueMarkerWithWaitList", e);
  }
  ev->dev = q->dev;
  /* Markers are not always submitted until something follows them; flush so a wait on the
     event alone cannot stall. */
  clFlush(q->q);
  *out = ev;
  return AG_OK;
}

static ag_status cl_event_wait(ag__bevent *ev) {
  CL_TRY("clWaitForEvents", clWaitForEvents(1, &ev->ev));
  return AG_OK;
}

static ag_status cl_event_query(ag__bevent *ev, bool *done) {
  cl_int status = CL_QUEUED;
  CL_TRY("clGetEventInfo", clGetEventInfo(ev->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  if (status < 0)
    return ag__cl_error(AG_ERR_DEVICE, status, "clGetEventInfo: the command failed");
  *done = status == CL_COMPLETE;
  return AG_OK;
}

static ag_status cl_queue_wait_event(ag__bqueue *q, ag__bevent *ev) {
  CL_TRY("clEnqueueBarrierWithWaitList", clEnqueueBarrierWithWaitList(q->q, 1, &ev->ev, NULL));
  return AG_OK;
}

static ag_status cl_event_elapsed_ms(ag__bevent *a, ag__bevent *b, double *ms) {
  if (a->dev->quirks & AG__CLQ_NO_PROFILING)
    return core->error(AG_ERR_UNSUPPORTED,
                       "clGetEventProfilingInfo: %s gives no command timestamps (driver quirk no-profiling: "
                       "every command reports 0 to 3 ns); time with the host clock around ag_queue_finish instead",
                       a->dev->describe);
  cl_event both[2] = {a->ev, b->ev};
  CL_TRY("clWaitForEvents", clWaitForEvents(2, both));
  cl_ulong ta = 0, tb = 0;
  CL_TRY("clGetEventProfilingInfo", clGetEventProfilingInfo(a->ev, CL_PROFILING_COMMAND_END, sizeof ta, &ta, NULL));
  CL_TRY("clGetEventProfilingInfo", clGetEventProfilingInfo(b->ev, CL_PROFILING_COMMAND_END, sizeof tb, &tb, NULL));
  *ms = ((double)tb - (double)ta) * 1e-6;
  return AG_OK;
}

static void cl_event_destroy(ag__bevent *ev) {
  clReleaseEvent(ev->ev);
  free(ev);
}

/* ---- memory ------------------------------------------------------------------------------- */

static ag_status cl_mem_alloc(ag__bdevice *dev, size_t bytes, ag__bmem **out) {
  cl_int e;
  cl_mem m = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
  if (m == NULL)
    return CL_FAIL("clCreateBuffer", e);
  *out = (ag__bmem *)m;
  return AG_OK;
}

static void cl_mem_free(ag__bdevice *dev, ag__bmem *mem) {
  (void)dev;
  /* The runtime keeps the memory until enqueued commands using it are done. */
  clReleaseMemObject(MEM(mem));
}

/* A cl_mem is usable only in the context that made it: one of another context (another
   library's, or another device's) is refused rather than handed to this device's queues. */
static ag_status cl_mem_borrow(ag__bdevice *dev, void *native, size_t bytes, ag__bmem **mem) {
  cl_context ctx = NULL;
  size_t size = 0;
  CL_TRY("clGetMemObjectInfo", clGetMemObjectInfo(MEM(native), CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL));
  if (ctx != dev->ctx)
    return core->error(AG_ERR_UNSUPPORTED, "the cl_mem belongs to another OpenCL context than %s's", dev->describe);
  CL_TRY("clGetMemObjectInfo", clGetMemObjectInfo(MEM(native), CL_MEM_SIZE, sizeof size, &size, NULL));
  if (size < bytes)
    return core->error(AG_ERR_INVALID_ARGUMENT, "the cl_mem holds %zu bytes, fewer than the %zu the tensor spans",
                       size, bytes);
  *mem = (ag__bmem *)native;
  return AG_OK;
}

static ag_status cl_mem_write(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *src, size_t bytes,
                              bool blocking) {
  CL_TRY("clEnqueueWriteBuffer", clEnqueueWriteBuffer(q->q, MEM(dst), blocking ? CL_TRUE : CL_FALSE, offset,
                                                      bytes, src, 0, NULL, NULL));
  return AG_OK;
}

static ag_status cl_mem_read(ag__bqueue *q, ag__bmem *src, size_t offset, void *dst, size_t bytes,
                             bool blocking) {
  CL_TRY("clEnqueueReadBuffer", clEnqueueReadBuffer(q->q, MEM(src), blocking ? CL_TRUE : CL_FALSE, offset,
                                                    bytes, dst, 0, NULL, NULL));
  return AG_OK;
}

static ag_status cl_mem_copy(ag__bqueue *q, ag__bmem *dst, size_t dst_offset, ag__bmem *src,
                             size_t src_offset, size_t bytes) {
  CL_TRY("clEnqueueCopyBuffer",
         clEnqueueCopyBuffer(q->q, MEM(src), MEM(dst), src_offset, dst_offset, bytes, 0, NULL, NULL));
  return AG_OK;
}

/* With the fill-2g quirk, a fill that reaches past byte 2^31 is written from the host: blocking
   writes of a staging area holding the pattern over and over (the offset is a whole number of
   patterns, so each write starts in phase). */
#define FILL_LIMIT ((size_t)1 << 31)
#define FILL_STAGE ((size_t)4 << 20)

static ag_status fill_from_host(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *pattern,
                                size_t pattern_size, size_t bytes) {
  size_t stage_bytes = bytes < FILL_STAGE ? bytes : FILL_STAGE;
  unsigned char *stage = malloc(stage_bytes);
  if (stage == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "fill: no host memory for a %zu-byte staging area", stage_bytes);
  for (size_t i = 0; i < stage_bytes; i += pattern_size)
    memcpy(stage + i, pattern, pattern_size);
  ag_status st = AG_OK;
  for (size_t done = 0; done < bytes && st == AG_OK; done += stage_bytes) {
    size_t n = bytes - done < stage_bytes ? bytes - done : stage_bytes;
    cl_int e = clEnqueueWriteBuffer(q->q, MEM(dst), CL_TRUE, offset + done, n, stage, 0, NULL, NULL);
    if (e != CL_SUCCESS)
      st = CL_FAIL("clEnqueueWriteBuffer (a fill past 2^31 bytes, driver quirk fill-2g)", e);
  }
  free(stage);
  return st;
}

static ag_status cl_mem_fill(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *pattern,
                             size_t pattern_size, size_t bytes) {
  if ((q->dev->quirks & AG__CLQ_FILL_2G) && offset + bytes > FILL_LIMIT)
    return fill_from_host(q, dst, offset, pattern, pattern_size, bytes);
  CL_TRY("clEnqueueFillBuffer", clEnqueueFillBuffer(q->q, MEM(dst), pattern, pattern_size, offset, bytes, 0, NULL, NULL));
  return AG_OK;
}

/* Pinned memory: a buffer the runtime allocates in host memory, mapped for the life of the
   allocation. Copies from the mapped pointer run at the bus's full speed on discrete GPUs. */
static ag_status cl_host_alloc(ag__bdevice *dev, size_t bytes, void **ptr, void **handle) {
  cl_int e;
  cl_mem m = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
  if (m == NULL)
    return CL_FAIL("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", e);
  pthread_mutex_lock(&dev->lock);
  void *p = clEnqueueMapBuffer(dev->service, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &e);
  pthread_mutex_unlock(&dev->lock);
  if (p == NULL) {
    clReleaseMemObject(m);
    return CL_FAIL("clEnqueueMapBuffer", e);
  }
  *ptr = p;
  *handle = m;
  return AG_OK;
}

static void cl_host_free(ag__bdevice *dev, void *ptr, void *handle) {
  pthread_mutex_lock(&dev->lock);
  clEnqueueUnmapMemObject(dev->service, (cl_mem)handle, ptr, 0, NULL, NULL);
  clFinish(dev->service);
  pthread_mutex_unlock(&dev->lock);
  clReleaseMemObject((cl_mem)handle);
}

/* ---- programs and kernels ----------------------------------------------------------------- */

static char *build_log(cl_program prog, cl_device_id id) {
  size_t n = 0;
  if (clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0)
    return NULL;
  char *log = malloc(n + 1);
  if (log == NULL)
    return NULL;
  if (clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) {
    free(log);
    return NULL;
  }
  log[n] = '\0';
  return log;
}

static ag_status finish_build(ag__bdevice *dev, cl_program p, const char *options, ag__bprogram **out,
                              char **log) {
  cl_int e = clBuildProgram(p, 1, &dev->id, options, NULL, NULL);
  if (e != CL_SUCCESS) {
    if (log != NULL)
      *log = build_log(p, dev->id);
    clReleaseProgram(p);
    if (e == CL_BUILD_PROGRAM_FAILURE || e == CL_INVALID_BINARY)
      return ag__cl_error(AG_ERR_BUILD, e, "clBuildProgram");
    if (e == CL_INVALID_BUILD_OPTIONS)
      return ag__cl_error(AG_ERR_BUILD, e, "clBuildProgram: the driver refuses the build options \"%s\"", options);
    return CL_FAIL("clBuildProgram", e);
  }
  ag__bprogram *bp = malloc(sizeof *bp);
  if (bp == NULL) {
    clReleaseProgram(p);
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  bp->dev = dev;
  bp->prog = p;
  *out = bp;
  return AG_OK;
}

static ag_status cl_program_build(ag__bdevice *dev, const ag_program_desc *desc, const char *source,
                                  const char *options, ag__bprogram **out, char **log) {
  (void)desc;
  cl_int e;
  cl_program p = clCreateProgramWithSource(dev->ctx, 1, &source, NULL, &e);
  if (p == NULL)
    return CL_FAIL("clCreateProgramWithSource", e);
  return finish_build(dev, p, options, out, log);
}

static ag_status cl_program_binary(ag__bprogram *bp, void **binary, size_t *size) {
  size_t n = 0;
  CL_TRY("clGetProgramInfo", clGetProgramInfo(bp->prog, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL));
  if (n == 0)
    return core->error(AG_ERR_UNSUPPORTED, "clGetProgramInfo: the driver gives no program binary");
  unsigned char *bin = malloc(n);
  if (bin == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  cl_int e = clGetProgramInfo(bp->prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
  if (e != CL_SUCCESS) {
    free(bin);
    return CL_FAIL("clGetProgramInfo(CL_PROGRAM_BINARIES)", e);
  }
  *binary = bin;
  *size = n;
  return AG_OK;
}

static ag_status cl_program_load(ag__bdevice *dev, const void *binary, size_t size, ag__bprogram **out) {
  if ((dev->quirks & AG__CLQ_BINARY_CHECK) && !ag__cl_rusticl_binary_plausible(binary, size))
    return core->error(AG_ERR_BUILD,
                       "clCreateProgramWithBinary: the binary is not one %s wrote, so it is not handed to the "
                       "driver (driver quirk binary-check: it aborts the process on a binary it cannot read)",
                       dev->describe);
  cl_int e, status;
  const unsigned char *bin = binary;
  cl_program p = clCreateProgramWithBinary(dev->ctx, 1, &dev->id, &size, &bin, &status, &e);
  if (p == NULL)
    return ag__cl_error(AG_ERR_BUILD, e, "clCreateProgramWithBinary");
  return finish_build(dev, p, "", out, NULL);
}

static void cl_program_release(ag__bprogram *bp) {
  clReleaseProgram(bp->prog);
  free(bp);
}

static ag_status cl_kernel_create(ag__bprogram *bp, const char *name, ag__bkernel **out) {
  cl_int e;
  cl_kernel k = clCreateKernel(bp->prog, name, &e);
  if (k == NULL) {
    if (e == CL_INVALID_KERNEL_NAME)
      return ag__cl_error(AG_ERR_INVALID_ARGUMENT, e, "clCreateKernel: no kernel named \"%s\"", name);
    return CL_FAIL("clCreateKernel", e);
  }
  ag__bkernel *bk = malloc(sizeof *bk);
  if (bk == NULL) {
    clReleaseKernel(k);
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  }
  bk->prog = bp;
  bk->k = k;
  pthread_mutex_init(&bk->lock, NULL);
  bk->max_work_group = 1;
  clGetKernelWorkGroupInfo(k, bp->dev->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof bk->max_work_group,
                           &bk->max_work_group, NULL);
  bk->records = bk->typedefs = 0;
  if ((bp->dev->quirks & AG__CLQ_STRUCT_ARGS) && ag__cl_by_value_args(k, &bk->records, &bk->typedefs) < 0)
    core->log(AG__LOG_WARN, "%s: no argument information for kernel %s, so struct arguments cannot be refused",
              bp->dev->describe, name);
  *out = bk;
  return AG_OK;
}

static size_t cl_kernel_max_work_group(ag__bkernel *k) { return k->max_work_group; }

static void cl_kernel_release(ag__bkernel *k) {
  clReleaseKernel(k->k);
  pthread_mutex_destroy(&k->lock);
  free(k);
}

static ag_status cl_kernel_launch(ag__bqueue *q, ag__bkernel *k, const ag_range *range, size_t nargs,
                                  const ag__karg *args) {
  size_t global[3], local[3];
  bool has_local = range->local[0] != 0;
  for (unsigned d = 0; d < range->dims; d++) {
    local[d] = range->local[d];
    /* OpenCL 1.2 wants global a multiple of local; the contract says the range is rounded up. */
    global[d] = has_local ? (range->global[d] + local[d] - 1) / local[d] * local[d] : range->global[d];
  }
  /* records and typedefs hold a bit per argument. */
  _Static_assert(AG__KERNEL_ARGS_MAX <= 64, "AG__KERNEL_ARGS_MAX is above the 64 bits of records and typedefs");
  for (size_t i = 0; i < nargs && i < AG__KERNEL_ARGS_MAX; i++) {
    /* A typedef is refused only when its size cannot be a scalar or vector's, so that
       typedefs of scalars (anygpu's own kernels use them) still pass. */
    size_t z = args[i].size;
    bool odd_size = z == 0 || z > 128 || (z & (z - 1)) != 0;
    if (args[i].kind == AG_ARG_SCALAR && ((k->records >> i & 1) || ((k->typedefs >> i & 1) && odd_size)))
      return core->error(AG_ERR_UNSUPPORTED,
                         "argument %zu is a struct passed by value, which %s mishandles (driver quirk "
                         "struct-args: a wrong size check, or a crash in the launch); pass it in a buffer, or "
                         "as arguments of built-in scalar and vector types",
                         i, k->prog->dev->describe);
  }
  ag_status st = AG_OK;
  pthread_mutex_lock(&k->lock);
  for (size_t i = 0; i < nargs && st == AG_OK; i++) {
    cl_int e;
    switch (args[i].kind) {
    case AG_ARG_BUFFER: {
      cl_mem m = MEM(args[i].mem);
      e = clSetKernelArg(k->k, (cl_uint)i, sizeof m, &m);
      break;
    }
    case AG_ARG_SCALAR:
      e = clSetKernelArg(k->k, (cl_uint)i, args[i].size, args[i].value);
      break;
    default:
      e = clSetKernelArg(k->k, (cl_uint)i, args[i].size, NULL);
      break;
    }
    if (e != CL_SUCCESS)
      st = ag__cl_error(ag__cl_status(e), e, "clSetKernelArg(%zu)", i);
  }
  if (st == AG_OK) {
    cl_int e = clEnqueueNDRangeKernel(q->q, k->k, range->dims, NULL, global, has_local ? local : NULL, 0,
                                      NULL, NULL);
    if (e != CL_SUCCESS)
      st = CL_FAIL("clEnqueueNDRangeKernel", e);
  }
  pthread_mutex_unlock(&k->lock);
  return st;
}

/* A family built per dtype is compiled for each dtype a program uses, AG_TC selecting it
   (kernels_shared/variant.h): OpenCL compilers are slow, and a float32 program should not wait
   for the complex128 kernels. */
static ag_status cl_builtin_find(const char *family, int variant, ag__builtin_src *src) {
  for (const ag__embedded *f = ag__opencl_kernels; f->name != NULL; f++)
    if (strcmp(f->name, family) == 0) {
      src->source = (const char *)f->data;
      if (variant >= 0)
        snprintf(src->options, sizeof src->options, "-DAG_TC=%d", variant);
      return AG_OK;
    }
  return core->error(AG_ERR_UNSUPPORTED, "the OpenCL backend has no built-in kernels \"%s\"", family);
}

/* ---- BLAS and FFT ------------------------------------------------------------------------- */

/* The FFT provider named by @p provider (the core passes $ANYGPU_OPENCL_FFT); VkFFT by
   default, for it takes every length. */
static const ag__fft_ops *cl_fft(ag__bdevice *dev, const char *provider) {
  if (provider == NULL || strcmp(provider, "vkfft") == 0) {
#if AG_OPENCL_VKFFT
    return ag__cl_vkfft(dev);
#else
    core->error(AG_ERR_UNSUPPORTED, "VkFFT was not found when anygpu was built (install VkFFT's vkFFT.h, "
                                    "Debian's libvkfft-dev, and rebuild), or use ANYGPU_OPENCL_FFT=clfft");
    return NULL;
#endif
  }
  if (strcmp(provider, "clfft") == 0) {
#if AG_OPENCL_CLFFT
    return ag__cl_clfft(dev);
#else
    core->error(AG_ERR_UNSUPPORTED, "clFFT was not found when anygpu was built (install clFFT, Debian's "
                                    "libclfft-dev, and rebuild), or use ANYGPU_OPENCL_FFT=vkfft");
    return NULL;
#endif
  }
  core->error(AG_ERR_UNSUPPORTED, "unknown OpenCL FFT provider \"%s\" (vkfft or clfft)", provider);
  return NULL;
}

/* CPU drivers (pocl, rusticl on llvmpipe) run a work-group's items as a loop on one core:
   long contiguous chunks keep each core on its own stretch of memory, and a copy kernel on
   every core outruns clEnqueueCopyBuffer, which pocl runs as one memcpy on one thread. */
static void cl_device_traits(ag__bdevice *dev, ag__device_traits *traits) {
  cl_device_type type = 0;
  clGetDeviceInfo(dev->id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  /* As device_open types it: a device that says it is a GPU too (Oclgrind's simulator) is one. */
  bool cpu = (type & CL_DEVICE_TYPE_GPU) == 0 && (type & CL_DEVICE_TYPE_CPU) != 0;
  *traits = (ag__device_traits){.launch = cpu ? AG__LAUNCH_CHUNKS : AG__LAUNCH_GRID,
                                .copy_kernel = cpu,
                                .driver_caches_programs = (dev->quirks & AG__CLQ_BINARY_COMPILES_ALL) != 0};
}

static const ag__backend opencl_backend = {
    .abi = AG__BACKEND_ABI,
    .name = "opencl",
    .device_traits = cl_device_traits,
    .fft_env = "ANYGPU_OPENCL_FFT",
    /* No .mem_info: OpenCL has no standard free-memory query, so the core counts anygpu's own
       pool against CL_DEVICE_GLOBAL_MEM_SIZE. */
    .dialect = AG__DIALECT_OPENCL,
    .probe = cl_probe,
    .device_open = cl_device_open,
    .queue_create = cl_queue_create,
    .queue_destroy = cl_queue_destroy,
    .queue_finish = cl_queue_finish,
    .event_record = cl_event_record,
    .event_wait = cl_event_wait,
    .event_query = cl_event_query,
    .queue_wait_event = cl_queue_wait_event,
    .event_elapsed_ms = cl_event_elapsed_ms,
    .event_destroy = cl_event_destroy,
    .mem_alloc = cl_mem_alloc,
    .mem_free = cl_mem_free,
    .dlpack_device_type = 4, /* kDLOpenCL */
    .mem_borrow = cl_mem_borrow,
    .mem_write = cl_mem_write,
    .mem_read = cl_mem_read,
    .mem_copy = cl_mem_copy,
    .mem_fill = cl_mem_fill,
    .host_alloc = cl_host_alloc,
    .host_free = cl_host_free,
    .program_build = cl_program_build,
    .program_binary = cl_program_binary,
    .program_load = cl_program_load,
    .program_release = cl_program_release,
    .kernel_create = cl_kernel_create,
    .kernel_max_work_group = cl_kernel_max_work_group,
    .kernel_release = cl_kernel_release,
    .kernel_launch = cl_kernel_launch,
    .builtin_find = cl_builtin_find,
    .builtin_all_dtypes = false,
    .blas = ag__cl_blas,
    .fft = cl_fft,
};

AG__MODULE_EXPORT const ag__backend *ag__backend_entry(void);
const ag__backend *ag__backend_entry(void) { return &opencl_backend; }
