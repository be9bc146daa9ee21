/* src/builtin.h - the built-in kernel families, their kernels by id (the generated
   kernel_ids.h and kernel_table.c) and each device's table of built kernels. */
#ifndef AG_SRC_BUILTIN_H
#define AG_SRC_BUILTIN_H

#ifdef AG_SCIENCE_LAYER
#error "src/builtin.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include <pthread.h>
#include <stdatomic.h>

#include "../backends/backend.h"
#include "kernel_ids.h"
#include "seam/shared.h"

/* ag__family, one per line of kernels_shared/families.h, is in src/seam/shared.h. */

#define AG__VARIANTS AG_DTYPE_COUNT /* one per dtype */

/* An entry of an argument list (ag__kernel_info.args) that is a buffer, not a value. */
#define AG__KARG_BUFFER ((size_t)-1)

/* What the build knows of a kernel id (tools/kernel_ids.py, from the family sources). */
typedef struct ag__kernel_info {
  const char *name;   /* "ag_add_f32"; NULL: the family defines no kernel for this dtype */
  ag__family family;
  int variant;        /* the dtype code of a per-dtype family's kernel, -1 for a family built once */
  int form;           /* ag__form (src/launch.h) */
  unsigned nargs;     /* its arguments: an array is two (buffer, offset), then n (and chunk) */
  const size_t *args; /* each argument's size in bytes, AG__KARG_BUFFER for a buffer */
  uint64_t writes;    /* bit k: parameter k of its list is an array it may write (not const) */
} ag__kernel_info;

extern const ag__kernel_info ag__kernels[AG__KERNEL_COUNT];

typedef struct ag__builtin_kernel {
  ag__bkernel *bk;
  size_t max_work_group;
} ag__builtin_kernel;

/* A family's program on one device (one dtype variant of it), built on first use under its own
   lock, never the device's: launches of other families go on meanwhile. A failed build is
   remembered with its message, so it is not retried on every call. */
typedef struct ag__builtin_slot {
  atomic_bool tried;    /* set, with release, once status (and bp or message) is final */
  pthread_mutex_t lock; /* the build, and making kernels of this program */
  ag_status status;
  char *message;
  ag__bprogram *bp;
} ag__builtin_slot;

/* A device's built-in kernels: its programs, and each kernel by id once made. Launches read
   kernels[] without a lock; a kernel is published there, with release, once made. */
typedef struct ag__builtins {
  ag__builtin_slot slots[AG__FAMILY_COUNT][AG__VARIANTS];
  _Atomic(ag__builtin_kernel *) kernels[AG__KERNEL_COUNT];
} ag__builtins;

struct ag_device;

/* Makes @p b's locks; once, before the device is used. */
void ag__builtins_init(ag__builtins *b);

/* Built-in kernel @p id on @p dev, building its family on first use from what the backend's
   builtin_find gives. Thread-safe; the result stays valid for the life of the process. Once
   the kernel is made this is one atomic load. */
ag_status ag__builtin_kernel_get(struct ag_device *dev, ag__kernel_id id, const ag__builtin_kernel **k);

#endif
