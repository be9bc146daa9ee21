/* kernels_cu/reduce.cu - reductions for every dtype; the math is in
   kernels_shared/reduce.h, shared with OpenCL and the host. */
#include "skeleton_gpu.h"

#define AG_TC 0
#include "reduce.h"
#undef AG_TC
#define AG_TC 1
#include "reduce.h"
#undef AG_TC
#define AG_TC 2
#include "reduce.h"
#undef AG_TC
#define AG_TC 3
#include "reduce.h"
#undef AG_TC
#define AG_TC 4
#include "reduce.h"
#undef AG_TC
#define AG_TC 5
#include "reduce.h"
#undef AG_TC
#define AG_TC 6
#include "reduce.h"
#undef AG_TC
#define AG_TC 7
#include "reduce.h"
#undef AG_TC
