/* anygpu/program.h — user kernels in OpenCL C, CUDA C or plain C, and launching them.

   Threads: every function here may be called from any thread at once. Several threads may
   build programs at once, get kernels from one program at once, and launch one kernel at
   once, each on its own queue (or NULL).

   Ownership: programs and kernels are the caller's, released with ag_program_destroy() and
   ag_kernel_destroy(), each once and when no other thread is using it. A kernel holds its
   program, as a view holds its storage, so the two may be destroyed in either order, and
   launches already enqueued run to the end after either is destroyed. */
#ifndef ANYGPU_PROGRAM_H
#define ANYGPU_PROGRAM_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One work-group of a host kernel launch. A host kernel is called once per work-group, on
    one of the host's threads, and loops over the group's items itself; groups run in
    parallel. Local-memory arguments are private to the call, so a barrier between phases is
    simply the end of one loop and the start of the next. */
typedef struct ag_host_group {
  unsigned dims;           /* 1, 2 or 3 */
  size_t group_id[3];      /* this group's index in each dimension */
  size_t num_groups[3];
  size_t local_size[3];    /* work-items per group in each dimension */
  size_t global_size[3];   /* the launch's range as given (not rounded up) */
} ag_host_group;

/** A host kernel. @p args has one entry per launch argument: a buffer argument gives a pointer
    to the buffer's first byte, a scalar a pointer to its value, a local argument a pointer to
    scratch memory of the requested size. */
typedef void (*ag_host_kernel_fn)(const ag_host_group *group, void *const *args);

typedef struct ag_host_kernel_def {
  const char *name;
  ag_host_kernel_fn fn;
} ag_host_kernel_def;

/** A program's sources. Give the dialects you have; a device whose dialect is missing gets
    AG_ERR_UNSUPPORTED from ag_program_create() naming it. Zeroed fields mean "none". Read
    during ag_program_create() and not kept, except host kernel names: the host_kernels array
    is copied, but each name is kept by pointer and must stay valid while ag_kernel_get() may
    be called on the program (string literals do). */
typedef struct ag_program_desc {
  const char *opencl_source;  /* OpenCL C 1.2 */
  const char *opencl_options; /* clBuildProgram options, "-cl-fast-relaxed-math" */
  const char *cuda_source;    /* CUDA C, kernels declared extern "C" __global__ */
  const char *cuda_options;   /* NVRTC options, space separated */
  const ag_host_kernel_def *host_kernels;
  size_t host_kernel_count;
} ag_program_desc;

/** Compiles @p desc for @p dev into a program, the caller's: release it with
    ag_program_destroy(). Compiled OpenCL and CUDA programs are kept on disk
    ($ANYGPU_CACHE_DIR) and reused by later processes.
    @return AG_ERR_BUILD with the compiler's log in ag_last_error() when the source does not
            compile; AG_ERR_UNSUPPORTED when @p desc has no source for the device's backend. */
AG_API ag_status ag_program_create(ag_device *dev, const ag_program_desc *desc,
                                   ag_program **prog);

/** The folder compiled programs are kept in between runs: $ANYGPU_CACHE_DIR, else
    $XDG_CACHE_HOME/anygpu, else $HOME/.cache/anygpu. NULL when the disk cache is off
    (ANYGPU_CACHE_DIR=off, or no folder can be named). The string is the library's and the
    calling thread's: it stays valid until that thread calls this function again or exits. */
AG_API const char *ag_kernel_cache_dir(void);

/** Lets go of a program. Its kernels hold it, as views hold their storage: the program is
    freed once this has been called and its last kernel destroyed, in either order, so
    kernels got from it keep working after this call; @p prog itself may not be used again
    (no more ag_kernel_get). NULL is a no-op. Once per program. */
AG_API void ag_program_destroy(ag_program *prog);

/** The kernel @p name of @p prog. AG_ERR_INVALID_ARGUMENT when there is none of that name.
    Each call makes a new kernel, the caller's, holding @p prog: release it with
    ag_kernel_destroy() (a _get whose result the caller releases: docs/design.md says why).
    @p name is copied. */
AG_API ag_status ag_kernel_get(ag_program *prog, const char *name, ag_kernel **k);

/** Frees a kernel, and its program if the program was destroyed and this was its last
    kernel. Launches already enqueued still run; call it once, after the last
    ag_kernel_launch() of it has returned on every thread. NULL is a no-op. */
AG_API void ag_kernel_destroy(ag_kernel *k);

/** The largest work-group @p k may be launched with on its device (product of local[]):
    OpenCL's CL_KERNEL_WORK_GROUP_SIZE, CUDA's maximum threads per block for the function.
    It can be far below the device's max_work_group_size (32 on some drivers for kernels with
    barriers or many registers), so choose local sizes from it. 0 for NULL. */
AG_API size_t ag_kernel_max_work_group(const ag_kernel *k);

/** A launch's extent. global[d] work-items in dimension d, in work-groups of local[d] (CUDA:
    threads per block). local all zero lets the backend choose. The launched range is rounded
    up to a multiple of the work-group size, so a kernel compares its index with the problem
    size. Unused dimensions (d >= dims) are ignored. */
typedef struct ag_range {
  unsigned dims;
  size_t global[3];
  size_t local[3];
} ag_range;

typedef enum ag_arg_kind {
  AG_ARG_BUFFER = 1, /* a buffer of the kernel's device: __global pointer / device pointer */
  AG_ARG_SCALAR = 2, /* size bytes at value, passed by value */
  AG_ARG_LOCAL = 3,  /* size bytes of local memory per work-group; see docs/kernels.md for
                        how CUDA kernels reach it */
} ag_arg_kind;

typedef struct ag_arg {
  ag_arg_kind kind;
  const ag_buffer *buffer; /* AG_ARG_BUFFER */
  const void *value;       /* AG_ARG_SCALAR */
  size_t size;             /* AG_ARG_SCALAR, AG_ARG_LOCAL */
} ag_arg;

#define AG_ARG_BUF(b) ((ag_arg){.kind = AG_ARG_BUFFER, .buffer = (b)})
#define AG_ARG_VAL(lvalue) ((ag_arg){.kind = AG_ARG_SCALAR, .value = &(lvalue), .size = sizeof(lvalue)})
#define AG_ARG_LOCAL_BYTES(n) ((ag_arg){.kind = AG_ARG_LOCAL, .size = (n)})

/** Enqueues @p k on @p q over @p range with @p args (copied, scalar values included; they
    may be reused on return). @p q NULL means the calling thread's default queue of the
    kernel's device. Several threads may launch one kernel at once. The buffers in @p args are
    not held: one freed before the launch has run keeps its memory until it has
    (ag_buffer_free).
    @return AG_ERR_MISMATCH for a buffer or queue of another device; AG_ERR_INVALID_ARGUMENT
            for a malformed range or argument; AG_ERR_DEVICE (with the native error) when the
            device refuses the launch, the library staying usable. */
AG_API ag_status ag_kernel_launch(ag_queue *q, ag_kernel *k, const ag_range *range, size_t nargs,
                                  const ag_arg *args);

#ifdef __cplusplus
}
#endif

#endif
