/* src/builtin.h — the built-in kernel families and their per-device cache. */
#ifndef AG_SRC_BUILTIN_H
#define AG_SRC_BUILTIN_H

#include "../backends/backend.h"

/* One entry per file of kernels_cl/ (and its twin in kernels_cu/). */
#define AG__FAMILY_MAP(X) X(fill)

typedef enum ag__family {
#define AG__FAMILY_ENUM(name) AG__FAMILY_##name,
  AG__FAMILY_MAP(AG__FAMILY_ENUM)
#undef AG__FAMILY_ENUM
  AG__FAMILY_COUNT
} ag__family;

typedef struct ag__builtin_kernel {
  const char *name;
  ag__bkernel *bk;
  size_t max_work_group;
} ag__builtin_kernel;

/* A family's program on one device, built on first use. A failed build is remembered with its
   message, so it is not retried on every call. */
typedef struct ag__builtin_slot {
  bool tried;
  ag_status status;
  char *message;
  ag__bprogram *bp;
  ag__builtin_kernel *kernels;
  size_t nkernels;
} ag__builtin_slot;

struct ag_device;

/* The built-in kernel @p name of @p family on @p dev, building the family on first use.
   Thread-safe. */
ag_status ag__builtin_kernel_get(struct ag_device *dev, ag__family family, const char *name,
                                 const ag__builtin_kernel **k);

#endif
