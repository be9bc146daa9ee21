/* backends/host/kernels/families.c — the table of host built-in families, by name. */
#include "kernels.h"

const ag__host_family *const ag__host_families[] = {&ag__host_family_fill, &ag__host_family_elementwise,
                                                     &ag__host_family_reduce, NULL};
