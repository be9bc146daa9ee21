/* backends/host/kernels/kernels.h - the host's C twins of the built-in kernel families. */
#ifndef AG_HOST_KERNELS_H
#define AG_HOST_KERNELS_H

#include "anygpu.h"

/* A family's kernels: the entries from first up to (not including) end. */
typedef struct ag__host_family {
  const char *name;
  const ag_host_kernel_def *first, *end;
} ag__host_family;

/* Every family of kernels_shared/families.h, then an entry whose name is NULL. */
extern const ag__host_family ag__host_families[];

#endif
