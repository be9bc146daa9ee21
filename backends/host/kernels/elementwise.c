/* backends/host/kernels/elementwise.c - host twins of kernels_cl/elementwise.cl: the same
   shared math (kernels_shared/elementwise.h), expanded for every dtype into C functions. */
#include "../../../kernels_shared/dialect.h"
#include "kernels.h"
#include "skeleton.h"

#define AG_EACH_DTYPE_OF "elementwise.h"
#include "../../../kernels_shared/each_dtype.h"

/* Second pass: the same lists, as table entries. */
#define AG_EW_LIST_ONLY
#define AG_HOST_TABLE_PASS
#include "skeleton_undef.h"
#include "skeleton.h"
static const ag_host_kernel_def kernels[] = {
#include "../../../kernels_shared/each_dtype.h"
};

const ag__host_family ag__host_family_elementwise = {"elementwise", kernels,
                                                      sizeof kernels / sizeof kernels[0]};
