/* kernels_cu/elementwise.cu - elementwise operations for every dtype; the math is in
   kernels_shared/elementwise.h, shared with OpenCL and the host. */
#include "skeleton_gpu.h"

#define AG_TC 0
#include "elementwise.h"
#undef AG_TC
#define AG_TC 1
#include "elementwise.h"
#undef AG_TC
#define AG_TC 2
#include "elementwise.h"
#undef AG_TC
#define AG_TC 3
#include "elementwise.h"
#undef AG_TC
#define AG_TC 4
#include "elementwise.h"
#undef AG_TC
#define AG_TC 5
#include "elementwise.h"
#undef AG_TC
#define AG_TC 6
#include "elementwise.h"
#undef AG_TC
#define AG_TC 7
#include "elementwise.h"
#undef AG_TC
