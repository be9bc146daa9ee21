/* kernels_cl/reduce.cl - sum, dot, min, max, argmin, argmax and nrm2, over everything or
   along one axis. Built once per dtype, with -DAG_TC=<dtype code>; the math is in
   kernels_shared/reduce.h, shared with CUDA and the host. */
#include "skeleton_gpu.h"
#include "reduce.h"
