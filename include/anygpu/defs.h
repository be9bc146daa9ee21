/* anygpu/defs.h — export macro and the opaque handle types shared by every public header. */
#ifndef ANYGPU_DEFS_H
#define ANYGPU_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(AG_BUILDING_LIBRARY) && defined(__GNUC__)
#define AG_API __attribute__((visibility("default")))
#else
#define AG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A compute device: the host, one CUDA GPU or one OpenCL device. Owned by the library,
    shared by all threads, valid for the life of the process. */
typedef struct ag_device ag_device;
/** An ordered stream of work on one device (an OpenCL command queue, a CUDA stream). The
    caller's when made by ag_queue_create(), used by one thread at a time; each thread's
    default queues are the library's (queue.h). */
typedef struct ag_queue ag_queue;
/** A point in a queue, for timing and for ordering work between queues. The caller's
    (ag_event_record / ag_event_destroy); it outlives its queue. */
typedef struct ag_event ag_event;
/** Untyped device memory. The caller's (ag_buffer_alloc / ag_buffer_free), except an array's
    buffer (ag_array_buffer), which the array frees. */
typedef struct ag_buffer ag_buffer;
/** A compiled set of user kernels for one device. The caller's (ag_program_create /
    ag_program_destroy); its kernels keep it alive. */
typedef struct ag_program ag_program;
/** One kernel of a program. The caller's (ag_kernel_get / ag_kernel_destroy); it keeps its
    program alive. */
typedef struct ag_kernel ag_kernel;

#ifdef __cplusplus
}
#endif

#endif
