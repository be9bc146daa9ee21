/* kernels_cu/reduce.cu - reductions for every dtype; the math is in
   kernels_shared/reduce.h, shared with OpenCL and the host. */
#include "skeleton_gpu.h"

#define AG_EACH_DTYPE_OF "reduce.h"
#include "each_dtype.h"
