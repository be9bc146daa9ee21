/* backends/backend.h — the one interface every backend (host, OpenCL, CUDA) implements.

   A backend is a table of function pointers over opaque handles of its own. The core (src/)
   validates every argument before it calls an entry, so an entry never sees a NULL handle, a
   range past the end of a buffer, a handle of another backend or a zero-sized allocation, and
   it need not check for them again. Entries report failures through the core's error
   helper, handed to the backend in probe() (ag__core_services.error), which records the
   thread's message and returns the status, naming the native call and error:
       return core->error(AG_ERR_DEVICE, "clEnqueueNDRangeKernel: CL_OUT_OF_RESOURCES (-5)");
   The core prefixes the public function's name, so entries name only the native call.

   Threading: unless an entry says otherwise, it may be called from several threads at once
   on different queues of one device; one queue is used by one thread at a time (the core
   gives every thread its own default queue). */
#ifndef ANYGPU_BACKEND_H
#define ANYGPU_BACKEND_H

#include <stdarg.h>

#include "anygpu.h"

/* Bumped whenever this table changes; a module built for another value is refused. */
#define AG__BACKEND_ABI 1

/* Opaque handles, each defined by the backend that makes them. */
typedef struct ag__bdevice ag__bdevice; /* one device, from device_open */
typedef struct ag__bqueue ag__bqueue;   /* OpenCL command queue, CUDA stream, host queue */
typedef struct ag__bevent ag__bevent;
typedef struct ag__bmem ag__bmem;       /* device memory: cl_mem, CUdeviceptr, host pointer */
typedef struct ag__bprogram ag__bprogram;
typedef struct ag__bkernel ag__bkernel;

/* Which member of ag_program_desc a backend compiles. */
typedef enum ag__dialect { AG__DIALECT_HOST, AG__DIALECT_OPENCL, AG__DIALECT_CUDA } ag__dialect;

/* A launch argument with its buffer resolved to the backend's memory handle. */
typedef struct ag__karg {
  ag_arg_kind kind;
  ag__bmem *mem;     /* AG_ARG_BUFFER */
  const void *value; /* AG_ARG_SCALAR */
  size_t size;       /* AG_ARG_SCALAR, AG_ARG_LOCAL */
} ag__karg;

/* Log levels, as ANYGPU_LOG names them. */
enum { AG__LOG_ERROR = 1, AG__LOG_WARN = 2, AG__LOG_INFO = 3, AG__LOG_DEBUG = 4 };

/* Where one family of built-in kernels (one file of kernels_cl/ and kernels_cu/) comes from on
   a backend: exactly one of the three forms is set. */
typedef struct ag__builtin_src {
  const char *source;          /* OpenCL C, built by the core through its caches */
  const char *options;         /* build options for source */
  const void *binary;          /* a binary program_load accepts (CUDA's embedded fatbin) */
  size_t binary_size;
  const ag_host_kernel_def *host_kernels; /* host C twins of the kernels */
  size_t host_kernel_count;
} ag__builtin_src;

/* What the core lends to modules: its error and log helpers, so a module need not link the
   core's internals. */
typedef struct ag__core_services {
  ag_status (*error)(ag_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void (*log)(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
} ag__core_services;

typedef struct ag__backend {
  unsigned abi;         /* AG__BACKEND_ABI */
  const char *name;     /* "host", "opencl", "cuda": the spec prefix */
  ag__dialect dialect;  /* the kernel language programs are built from */

  /* ---- lifetime ------------------------------------------------------------------------- */

  /* Called once per process, under the registry's lock, before any other entry. Loads what the
     backend needs and counts its devices. On failure it writes a one-line reason into
     reason[reason_size] ("no OpenCL platform found: CL_PLATFORM_NOT_FOUND_KHR (-1001)") and
     returns AG_ERR_BACKEND_UNAVAILABLE; no other entry is then called. Zero devices is a
     success. Required. */
  ag_status (*probe)(const ag__core_services *core, int *count, char *reason, size_t reason_size);

  /* Opens device @p index (0 <= index < count) and describes it. Called once per device,
     under the registry's lock; the device stays open for the life of the process. The core
     fills info->backend and info->spec; the backend fills the rest. Required. */
  ag_status (*device_open)(int index, ag__bdevice **dev, ag_device_info *info);

  /* ---- queues and events ---------------------------------------------------------------- */

  /* A new in-order queue. Called from any thread. Required. */
  ag_status (*queue_create)(ag__bdevice *dev, ag__bqueue **q);
  /* Waits for the queue's work and frees it. Required. */
  void (*queue_destroy)(ag__bqueue *q);
  /* Blocks until all work on @p q has finished; reports asynchronous faults. Required. */
  ag_status (*queue_finish)(ag__bqueue *q);

  /* Records an event after the work enqueued so far on @p q; it must be able to give device
     timestamps for event_elapsed_ms. Required. */
  ag_status (*event_record)(ag__bqueue *q, ag__bevent **ev);
  /* Blocks until @p ev has completed. Required. */
  ag_status (*event_wait)(ag__bevent *ev);
  /* Whether @p ev has completed, without blocking (the memory pool asks before it reuses a
     block). Any thread. Required. */
  ag_status (*event_query)(ag__bevent *ev, bool *done);
  /* Later work on @p q waits for @p ev (an event of the same device). Required. */
  ag_status (*queue_wait_event)(ag__bqueue *q, ag__bevent *ev);
  /* Milliseconds between two completed-or-pending events; waits for both. Required. */
  ag_status (*event_elapsed_ms)(ag__bevent *start, ag__bevent *end, double *ms);
  /* Frees an event, pending or not. Required. */
  void (*event_destroy)(ag__bevent *ev);

  /* ---- memory --------------------------------------------------------------------------- */

  /* @p bytes (> 0, <= the device's max_allocation) of device memory. A failure for lack of
     memory returns AG_ERR_OUT_OF_MEMORY, so the core can trim its pool and retry. Any
     thread. Required. */
  ag_status (*mem_alloc)(ag__bdevice *dev, size_t bytes, ag__bmem **mem);
  /* Frees memory once work already enqueued on it (on any queue) has finished. Required. */
  void (*mem_free)(ag__bdevice *dev, ag__bmem *mem);

  /* Host to device and back, ordered on @p q. With @p blocking the call returns once @p src
     may be reused or @p dst holds the data; without, the host memory must stay valid until
     the queue reaches the copy. bytes > 0 and the range is inside the buffer. Required. */
  ag_status (*mem_write)(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *src,
                         size_t bytes, bool blocking);
  ag_status (*mem_read)(ag__bqueue *q, ag__bmem *src, size_t offset, void *dst, size_t bytes,
                        bool blocking);
  /* Device to device on one device; ranges do not overlap. Asynchronous. Required. */
  ag_status (*mem_copy)(ag__bqueue *q, ag__bmem *dst, size_t dst_offset, ag__bmem *src,
                        size_t src_offset, size_t bytes);
  /* Repeats a pattern of 1, 2 or 4 bytes (the core fills wider patterns with the built-in
     "fill" kernels); offset and bytes are multiples of it. Asynchronous. Required. */
  ag_status (*mem_fill)(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *pattern,
                        size_t pattern_size, size_t bytes);

  /* Page-locked host memory usable for asynchronous copies with every queue of @p dev.
     *handle is whatever the backend needs to free it. Optional: NULL means the core uses
     ordinary aligned memory. */
  ag_status (*host_alloc)(ag__bdevice *dev, size_t bytes, void **ptr, void **handle);
  void (*host_free)(ag__bdevice *dev, void *ptr, void *handle);

  /* ---- programs and kernels ------------------------------------------------------------- */

  /* Builds @p source (OpenCL C or CUDA C, per dialect) with @p options for @p dev. On a
     compile error returns AG_ERR_BUILD and sets *log to the compiler's log (malloc'd, the
     caller frees it; may be NULL). The host backend reads @p desc's host kernels instead and
     ignores @p source. Any thread. Required. */
  ag_status (*program_build)(ag__bdevice *dev, const ag_program_desc *desc, const char *source,
                             const char *options, ag__bprogram **prog, char **log);
  /* The device binary of a program made by program_build, for the disk cache: malloc'd bytes
     the caller frees. Optional (NULL: programs are never cached on disk). */
  ag_status (*program_binary)(ag__bprogram *prog, void **binary, size_t *size);
  /* A program from a binary that program_binary gave earlier, perhaps in another process.
     Returns AG_ERR_BUILD when the driver rejects it (the core then rebuilds from source).
     Required when program_binary is given. */
  ag_status (*program_load)(ag__bdevice *dev, const void *binary, size_t size,
                            ag__bprogram **prog);
  /* Frees a program whose kernels are all released. Required. */
  void (*program_release)(ag__bprogram *prog);

  /* Kernel @p name of @p prog; AG_ERR_INVALID_ARGUMENT when there is none. Required. */
  ag_status (*kernel_create)(ag__bprogram *prog, const char *name, ag__bkernel **k);
  /* The largest work-group this kernel can be launched with on its device. Required. */
  size_t (*kernel_max_work_group)(ag__bkernel *k);
  void (*kernel_release)(ag__bkernel *k);
  /* Enqueues @p k. The core has checked dims (1-3), global > 0 in every used dimension,
     local all zero or all nonzero with product <= the device's max_work_group_size, and
     each argument's kind and size; the backend maps the rest (too much local memory, a
     kernel-specific limit) to AG_ERR_DEVICE or AG_ERR_INVALID_ARGUMENT naming the native
     error. Several threads may launch one kernel at once (OpenCL guards clSetKernelArg).
     Required. */
  ag_status (*kernel_launch)(ag__bqueue *q, ag__bkernel *k, const ag_range *range, size_t nargs,
                             const ag__karg *args);

  /* ---- built-in kernels ----------------------------------------------------------------- */

  /* Where built-in family @p family ("fill") comes from on this backend. Static data; any
     thread. AG_ERR_UNSUPPORTED when the backend lacks the family. Required. */
  ag_status (*builtin_find)(const char *family, ag__builtin_src *src);
} ag__backend;

/* A module (anygpu-opencl.so, anygpu-cuda.so) exports this one symbol. */
#define AG__BACKEND_ENTRY "ag__backend_entry"
typedef const ag__backend *(*ag__backend_entry_fn)(void);

#if defined(__GNUC__)
#define AG__MODULE_EXPORT __attribute__((visibility("default")))
#else
#define AG__MODULE_EXPORT
#endif

/* The host backend is linked into the core. */
const ag__backend *ag__host_backend(void);

#endif
