/* backends/host/kernels/reduce.c - host twins of kernels_cl/reduce.cl: the same shared math
   (kernels_shared/reduce.h), expanded for every dtype into C functions. */
#include "../../../kernels_shared/dialect.h"
#include "kernels.h"
#include "skeleton.h"

#define AG_TC 0
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 1
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 2
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 3
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 4
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 5
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 6
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 7
#include "../../../kernels_shared/reduce.h"
#undef AG_TC

/* Second pass: the same lists, as table entries. */
#define AG_EW_LIST_ONLY
#define AG_HOST_TABLE_PASS
#include "skeleton_undef.h"
#include "skeleton.h"
static const ag_host_kernel_def kernels[] = {
#define AG_TC 0
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 1
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 2
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 3
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 4
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 5
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 6
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
#define AG_TC 7
#include "../../../kernels_shared/reduce.h"
#undef AG_TC
};

const ag__host_family ag__host_family_reduce = {"reduce", kernels,
                                                      sizeof kernels / sizeof kernels[0]};
