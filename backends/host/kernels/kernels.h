/* backends/host/kernels/kernels.h — the host's C twins of the built-in kernel families. */
#ifndef AG_HOST_KERNELS_H
#define AG_HOST_KERNELS_H

#include "anygpu.h"

typedef struct ag__host_family {
  const char *name;
  const ag_host_kernel_def *kernels;
  size_t count;
} ag__host_family;

/* Terminated by NULL. */
extern const ag__host_family *const ag__host_families[];

extern const ag__host_family ag__host_family_fill;
extern const ag__host_family ag__host_family_elementwise;
extern const ag__host_family ag__host_family_reduce;

#endif
