/* src/builtin.h - the built-in kernel families and their per-device cache. */
#ifndef AG_SRC_BUILTIN_H
#define AG_SRC_BUILTIN_H

#include "../backends/backend.h"

/* One entry per file of kernels_cl/ (and its twin in kernels_cu/): the name, and whether the
   family is built once per dtype (OpenCL compiles it with -DAG_TC=<dtype>, so a program pays
   only for the dtypes it uses). */
#define AG__FAMILY_MAP(X)                                                                       \
  X(fill, false)                                                                                \
  X(elementwise, true)                                                                          \
  X(reduce, true)

typedef enum ag__family {
#define AG__FAMILY_ENUM(name, per_dtype) AG__FAMILY_##name,
  AG__FAMILY_MAP(AG__FAMILY_ENUM)
#undef AG__FAMILY_ENUM
  AG__FAMILY_COUNT
} ag__family;

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
   on @p dev, building the family on first use. Thread-safe; the result stays valid for the
   life of the process. */
ag_status ag__builtin_kernel_get(struct ag_device *dev, ag__family family, int variant,
                                 const char *name, const ag__builtin_kernel **k);

#endif
