/* kernels_cl/elementwise.cl - elementwise operations, astype, axpby, clamp, where and soft
   threshold. Built once per dtype, with -DAG_TC=<dtype code>; the math is in
   kernels_shared/elementwise.h, shared with CUDA and the host. */
#include "skeleton_gpu.h"
#include "elementwise.h"
