/* kernels_shared/each_dtype.h - includes the kernel-family header named by AG_EACH_DTYPE_OF
   (a quoted file name in kernels_shared/) once for each dtype code, AG_TC 0 to 7: the CUDA
   files and the host twins build every dtype in one translation unit, where OpenCL builds
   one program per dtype with -DAG_TC. No include guard: a file may expand it more than once
   (the host twins do, for their functions and for their table). */
#define AG_TC 0
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 1
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 2
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 3
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 4
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 5
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 6
#include AG_EACH_DTYPE_OF
#undef AG_TC
#define AG_TC 7
#include AG_EACH_DTYPE_OF
#undef AG_TC
