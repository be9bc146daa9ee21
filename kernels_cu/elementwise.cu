/* kernels_cu/elementwise.cu - elementwise operations for every dtype; the math is in
   kernels_shared/elementwise.h, shared with OpenCL and the host. */
#include "skeleton_gpu.h"

#define AG_EACH_DTYPE_OF "elementwise.h"
#include "each_dtype.h"
