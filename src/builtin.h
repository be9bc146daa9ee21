/* src/builtin.h - the built-in kernel families and their per-device cache. */
#ifndef AG_SRC_BUILTIN_H
#define AG_SRC_BUILTIN_H

#ifdef AG_SCIENCE_LAYER
#error "src/builtin.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include "../backends/backend.h"
#include "seam/shared.h"

/* ag__family, one per line of kernels_shared/families.h, is in src/seam/shared.h. */

#define AG__VARIANTS 8 /* one per dtype */

typedef struct ag__builtin_kernel {
  char *name;
  ag__bkernel *bk;
  size_t max_work_group;
} ag__builtin_kernel;

/* A family's program on one device (one dtype variant of it), built on first use, with its
   kernels in an open-addressed hash table by name. A failed build is remembered with its
   message, so it is not retried on every call. */
typedef struct ag__builtin_slot {
  bool tried;
  ag_status status;
  char *message;
  ag__bprogram *bp;
  ag__builtin_kernel **table; /* capacity entries, NULL = empty; entries never move */
  size_t capacity, count;
} ag__builtin_slot;

struct ag_device;

/* The built-in kernel @p name of @p family (dtype @p variant, ignored for families built once)
   on @p dev, building the family on first use from what the backend's builtin_find gives.
   Thread-safe; the result stays valid for the life of the process. */
ag_status ag__builtin_kernel_get(struct ag_device *dev, ag__family family, int variant,
                                 const char *name, const ag__builtin_kernel **k);

#endif
