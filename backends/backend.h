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
   gives every thread its own default queue). The one exception is a blocking mem_read that
   reads an array back on the queue of the work last enqueued on its memory, which may be
   another thread's (src/buffer.c): a backend's queues must take that read while their owner
   enqueues work (OpenCL command queues and CUDA streams do; the host's work is synchronous). */
#ifndef ANYGPU_BACKEND_H
#define ANYGPU_BACKEND_H

#ifdef AG_SCIENCE_LAYER
#error "backends/backend.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include <stdarg.h>

#include "anygpu.h"

/* Bumped whenever this table changes; a module built for another value is refused. */
#define AG__BACKEND_ABI 11

/* Opaque handles, each defined by the backend that makes them. */
typedef struct ag__bdevice ag__bdevice; /* one device, from device_open */
typedef struct ag__bqueue ag__bqueue;   /* OpenCL command queue, CUDA stream, host queue */
typedef struct ag__bevent ag__bevent;
/* Device memory: the native handle itself, cast (cl_mem, CUdeviceptr, host pointer). The core
   relies on that where it hands memory to other libraries (DLPack's data, src/dlpack.c). */
typedef struct ag__bmem ag__bmem;
typedef struct ag__bprogram ag__bprogram;
typedef struct ag__bkernel ag__bkernel;

/* Which member of ag_program_desc a backend compiles. */
typedef enum ag__dialect { AG__DIALECT_HOST, AG__DIALECT_OPENCL, AG__DIALECT_CUDA } ag__dialect;

/* The most arguments a kernel launch passes (an array parameter of a built-in kernel is two:
   its buffer and its offset). Every backend sizes its argument arrays by it; the built-in
   kernels' lists are checked against it when the build makes their ids (kernel_table.c). */
#define AG__KERNEL_ARGS_MAX 64

/* A launch argument with its buffer resolved to the backend's memory handle. */
typedef struct ag__karg {
  ag_arg_kind kind;
  ag__bmem *mem;     /* AG_ARG_BUFFER */
  const void *value; /* AG_ARG_SCALAR */
  size_t size;       /* AG_ARG_SCALAR, AG_ARG_LOCAL */
} ag__karg;

/* Log levels, as ANYGPU_LOG names them. */
enum { AG__LOG_ERROR = 1, AG__LOG_WARN = 2, AG__LOG_INFO = 3, AG__LOG_DEBUG = 4 };

/* Where one built-in kernel family (kernels_shared/families.h) comes from on a backend, as
   builtin_find describes it: exactly one of the three forms is set. */
typedef struct ag__builtin_src {
  const char *source;          /* OpenCL C, built by the core through its caches */
  char options[64];            /* build options for source (which dtype: "-DAG_TC=5") */
  const void *binary;          /* a binary program_load accepts (CUDA's embedded fatbin) */
  size_t binary_size;
  const ag_host_kernel_def *host_kernels; /* host C twins of the kernels */
  size_t host_kernel_count;
} ag__builtin_src;

/* ---- BLAS, FFT and LAPACK: the optional provider tables -------------------------------- */

/* Bytes of one element of a BLAS dtype (f32, f64, c64, c128); 0 for the others. */
static inline size_t ag__blas_dtype_size(ag_dtype t) {
  return t == AG_F32 ? 4 : t == AG_F64 || t == AG_C64 ? 8 : t == AG_C128 ? 16 : 0;
}

/* The name of a BLAS dtype, for messages (backends do not call the core's ag_dtype_name). */
static inline const char *ag__blas_dtype_name(ag_dtype t) {
  return t == AG_F32 ? "f32" : t == AG_F64 ? "f64" : t == AG_C64 ? "c64" : t == AG_C128 ? "c128" : "a dtype BLAS lacks";
}

/* The real dtype of a complex one (what nrm2 writes); real dtypes are their own. */
static inline ag_dtype ag__blas_real_dtype(ag_dtype t) {
  return t == AG_C64 ? AG_F32 : t == AG_C128 ? AG_F64 : t;
}

/* One (batched) row-major GEMM: C = alpha op(A) op(B) + beta C for `batch` matrices. Offsets,
   leading dimensions and strides count elements; a stride of 0 reuses one matrix for the
   whole batch. alpha and beta hold a value of the dtype (complex: re then im). The core has
   checked shapes, dtypes (f32, f64, c64, c128) and ranges. */
typedef struct ag__gemm {
  ag_dtype dtype;
  ag_transpose ta, tb;
  size_t m, n, k, batch;
  unsigned char alpha[16], beta[16];
  ag__bmem *a, *b, *c;
  size_t a_off, b_off, c_off;
  size_t lda, ldb, ldc;
  size_t a_stride, b_stride, c_stride;
} ag__gemm;

/* y = alpha op(A) x + beta y, A row-major m x n with rows lda >= n elements apart, x and y
   contiguous. */
typedef struct ag__gemv {
  ag_dtype dtype;
  ag_transpose ta;
  size_t m, n, lda;
  unsigned char alpha[16], beta[16];
  ag__bmem *a, *x, *y;
  size_t a_off, x_off, y_off;
} ag__gemv;

/* A backend's BLAS for one device. Entries are asynchronous on q where the provider is (a
   provider that computes on the host, like OpenBLAS on mapped pocl buffers, may finish before
   returning). Offsets and n count elements. dot and nrm2 write their {1} result to out on the
   device. Any thread; one queue per thread, as everywhere. */
typedef struct ag__blas_ops {
  const char *name; /* "cuBLAS", "CLBlast", "OpenBLAS", "OpenBLAS (mapped)" */
  ag_status (*gemm)(ag__bqueue *q, const ag__gemm *g);
  ag_status (*gemv)(ag__bqueue *q, const ag__gemv *g);
  ag_status (*axpy)(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off,
                    ag__bmem *y, size_t y_off);
  ag_status (*scal)(ag__bqueue *q, ag_dtype t, size_t n, const void *alpha, ag__bmem *x, size_t x_off);
  ag_status (*dot)(ag__bqueue *q, ag_dtype t, bool conjugate, size_t n, ag__bmem *x, size_t x_off,
                   ag__bmem *y, size_t y_off, ag__bmem *out, size_t out_off);
  ag_status (*nrm2)(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *x, size_t x_off, ag__bmem *out,
                    size_t out_off);
} ag__blas_ops;

/* ---- LAPACK: the optional dense eigensolver ---------------------------------------------- */

/* A backend's dense linear algebra beyond BLAS for one device: today the one routine the core
   needs on the device (ag_prox_nuclear's Gram matrix, src/solvers/prox.c). Backends without
   it give no table, and the core then computes on the host with LAPACK.

   syevd: the eigen-decomposition of the symmetric n x n matrix of dtype t (f32 or f64) at
   element a_off of a, stored whole (both triangles; the provider may read either): the n
   eigenvalues, ascending, into w at element w_off, and the eigenvectors over the matrix,
   vector j in row j of the row-major matrix (column j of the column-major one, as LAPACK
   leaves them). The core has checked the dtype, 0 < n < 2^31 and the ranges. It may block
   until the work enqueued on q so far and the decomposition have finished (cuSOLVER's status
   is read back from the device): callers treat it as synchronising q. AG_ERR_DEVICE naming
   the provider's routine and status, or its info when the iteration did not converge;
   AG_ERR_OUT_OF_MEMORY for the workspace. Any thread; one queue per thread, as everywhere. */
typedef struct ag__lapack_ops {
  const char *name; /* "cuSOLVER" */
  ag_status (*syevd)(ag__bqueue *q, ag_dtype t, size_t n, ag__bmem *a, size_t a_off, ag__bmem *w, size_t w_off);
} ag__lapack_ops;

typedef enum ag__fft_kind { AG__FFT_C2C, AG__FFT_R2C, AG__FFT_C2R } ag__fft_kind;

/* A transform over the trailing `rank` axes of contiguous arrays, `batch` of them one after
   another. n[] are the real-space lengths, slowest axis first. R2C's complex side, and C2R's,
   has last axis n[rank-1]/2 + 1, as numpy's rfftn. */
typedef struct ag__fft_desc {
  ag__fft_kind kind;
  bool f64;       /* double precision */
  int rank;       /* 1, 2 or 3 */
  size_t n[3];
  size_t batch;
  bool in_place;  /* in and out are the same memory (C2C only) */
} ag__fft_desc;

typedef struct ag__bfft ag__bfft; /* a plan, the provider's */

/* A backend's FFT provider for one device. The core keeps plans per device and descriptor,
   makes them one at a time per device, and runs one plan from one thread at a time (it holds
   the plan's lock around exec), so providers need no locks of their own. exec computes the
   unnormalised transform (the core scales); byte offsets locate in and out in their buffers
   (zero when `offsets` is false: the core then stages data at offset 0). */
typedef struct ag__fft_ops {
  const char *name;           /* "FFTW", "VkFFT", "clFFT", "cuFFT" */
  bool offsets;               /* exec takes nonzero byte offsets */
  bool complex_aligned;       /* takes only offsets that are whole complex elements, a real
                                 array's too (cuFFT answers a float array at an odd offset
                                 with CUFFT_INVALID_VALUE); the core stages the others */
  bool c2r_destroys_input;    /* C2R overwrites its input: the core passes a copy */
  /* AG_ERR_UNSUPPORTED saying why when the provider cannot do it (clFFT: a length with a
     prime factor above 13); AG_ERR_DEVICE with the provider's status otherwise. */
  ag_status (*plan)(ag__bdevice *dev, const ag__fft_desc *d, ag__bfft **plan);
  ag_status (*exec)(ag__bqueue *q, ag__bfft *plan, bool inverse, ag__bmem *in, size_t in_off,
                    ag__bmem *out, size_t out_off);
  void (*destroy)(ag__bfft *plan);
} ag__fft_ops;

/* What the core lends to modules: its error and log helpers, so a module need not link the
   core's internals. */
typedef struct ag__core_services {
  ag_status (*error)(ag_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void (*log)(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  /* The host's BLAS (OpenBLAS), over host memory: an ag__bmem here is a host address. A
     backend whose device memory the host can map (a CPU OpenCL device) may run BLAS with it
     on mapped buffers. The queue argument is ignored (pass NULL). */
  const ag__blas_ops *host_blas;
  /* Blobs a backend keeps between processes in the cache folder ($ANYGPU_CACHE_DIR, as the
     kernel cache; nothing is read or written when it is "off"), such as a library's tuning
     data. A blob is found by @p name (letters, digits and '-': part of the file name) and
     @p key (every fact that makes the blob valid: library version, machine, settings); a file
     whose key differs, or that is damaged, is not returned. cache_read returns malloc'd bytes
     the caller frees, or NULL. cache_write replaces the blob atomically (a reader sees the
     old file or the new one, whole) and reports nothing: a cache that cannot be written is
     logged and otherwise ignored. Any thread. */
  void *(*cache_read)(const char *name, const char *key, size_t *size);
  void (*cache_write)(const char *name, const char *key, const void *data, size_t size);
} ag__core_services;

/* How the core cuts the launches of its built-in kernels on a device (src/launch.c,
   src/reduce.c), chosen by the backend for each device. */
typedef enum ag__launch_style {
  /* One work-item per element and no work-groups: the backend itself hands each thread a few
     long stretches (the host, whose compiler vectorises them). */
  AG__LAUNCH_ITEMS,
  /* Few, large work-groups whose work-items each stream through a contiguous chunk: devices
     that run a work-group's items as a loop on one core (CPU OpenCL drivers). */
  AG__LAUNCH_CHUNKS,
  /* Work-groups of up to 256, enough to fill the device several times over, and grid-stride
     loops of one element a step, so neighbouring work-items touch neighbouring addresses. */
  AG__LAUNCH_GRID,
} ag__launch_style;

/* What the core must know of a device to shape its work, from device_traits. */
typedef struct ag__device_traits {
  ag__launch_style launch;
  /* Array copies (ag_copy) run the built-in copy kernel rather than mem_copy, which on this
     device is slower than a kernel on every core. */
  bool copy_kernel;
  /* The driver keeps the programs it compiles between processes itself, and program_binary
     costs more than that cache saves (pocl compiles every kernel of the program for it): the
     core neither reads nor writes its own disk cache for this device. */
  bool driver_caches_programs;
} ag__device_traits;

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
  /* How the core shapes work on @p dev (ag__device_traits). Called once, after device_open,
     under the registry's lock. Required. */
  void (*device_traits)(ag__bdevice *dev, ag__device_traits *traits);

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

  /* The free and total bytes of @p dev's memory as its driver counts them, every process's
     use included, for ag_device_get_load and the by-load spec. It may make the device's
     context current (CUDA) but must not allocate on the device. Any thread. Optional: NULL,
     or AG_ERR_UNSUPPORTED from a device whose driver cannot say, makes the core count
     anygpu's own pool in this process against global_memory instead (OpenCL, whose standard
     has no such query). Other failures are the caller's AG_ERR_DEVICE. */
  ag_status (*mem_info)(ag__bdevice *dev, size_t *free_bytes, size_t *total_bytes);

  /* ---- memory shared with other libraries (DLPack, src/dlpack.c) ------------------------ */

  /* DLPack's device type for this backend's devices (DLDeviceType: kDLCPU 1, kDLCUDA 2,
     kDLOpenCL 4), whose device_id is the index device_open was given; 0: none, and the core
     neither exports nor imports memory of this backend. */
  int dlpack_device_type;
  /* Memory another library allocated on @p dev, named by its native handle @p native (what
     DLPack's data holds: a host pointer, a CUdeviceptr, a cl_mem), as this backend's handle,
     once it has checked that the memory is @p dev's and holds at least @p bytes: a cl_mem of
     the device's own context (AG_ERR_UNSUPPORTED for another's), a CUdeviceptr of its primary
     context. The memory stays the other library's: the core never passes the handle to
     mem_free, and tells that library when its work on it is done. Any thread. Optional: NULL
     means the backend's devices import no memory (AG_ERR_UNSUPPORTED). */
  ag_status (*mem_borrow)(ag__bdevice *dev, void *native, size_t bytes, ag__bmem **mem);

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

  /* Where built-in family @p family ("fill") comes from on this backend: for dtype code
     @p variant (0 to 7) of a family built per dtype, -1 for a family built once. The backend
     chooses the build options that select the dtype. Static data; any thread.
     AG_ERR_UNSUPPORTED when the backend lacks the family. Required. */
  ag_status (*builtin_find)(const char *family, int variant, ag__builtin_src *src);
  /* Whether the program builtin_find gives for a per-dtype family holds every dtype (CUDA's
     fatbin, the host's table): the core then builds it once per device, as variant 0, rather
     than once for each dtype a program uses (OpenCL, whose compilers are slow). */
  bool builtin_all_dtypes;

  /* ---- BLAS, FFT and LAPACK ------------------------------------------------------------ */

  /* The BLAS for @p dev, or NULL when it has none. Called once per device, under the
     registry's device lock. Optional (NULL: no BLAS on this backend). */
  const ag__blas_ops *(*blas)(ag__bdevice *dev);
  /* The FFT provider for @p dev: @p provider names one ("vkfft", "clfft"), NULL the default.
     NULL when unavailable, with a reason through core->error (AG_ERR_UNSUPPORTED for an
     unknown name). Called once per device and provider, under the device lock. Optional. */
  const ag__fft_ops *(*fft)(ag__bdevice *dev, const char *provider);
  /* The environment variable that names the provider fft() is asked for on this backend's
     devices ("ANYGPU_OPENCL_FFT"), read by the core at every transform; NULL: the default
     always. */
  const char *fft_env;
  /* The dense eigensolver for @p dev (ag__lapack_ops), or NULL when it has none. Called once
     per device, under the registry's device lock. Optional (NULL: the core runs LAPACK on the
     host, as it does for the host and OpenCL backends). */
  const ag__lapack_ops *(*lapack)(ag__bdevice *dev);
} ag__backend;

/* A module (anygpu-opencl.so, anygpu-cuda.so) exports this one symbol. */
#define AG__BACKEND_ENTRY "ag__backend_entry"
typedef const ag__backend *(*ag__backend_entry_fn)(void);

#if defined(__GNUC__)
#define AG__MODULE_EXPORT __attribute__((visibility("default")))
#else
#define AG__MODULE_EXPORT
#endif

/* The host backend is linked into the core: its table, and its BLAS (OpenBLAS over host
   memory, backends/host/blas.c), which the core lends other backends as
   ag__core_services.host_blas. */
const ag__backend *ag__host_backend(void);
extern const ag__blas_ops ag__host_blas_ops;

#endif
