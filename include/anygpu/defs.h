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

/** A compute device: the host, one CUDA GPU or one OpenCL device. Owned by the library. */
typedef struct ag_device ag_device;
/** An ordered stream of work on one device (an OpenCL command queue, a CUDA stream). */
typedef struct ag_queue ag_queue;
/** A point in a queue, for timing and for ordering work between queues. */
typedef struct ag_event ag_event;
/** Untyped device memory. */
typedef struct ag_buffer ag_buffer;
/** A compiled set of user kernels for one device. */
typedef struct ag_program ag_program;
/** One kernel of a program. */
typedef struct ag_kernel ag_kernel;

#ifdef __cplusplus
}
#endif

#endif
