/* kernels_cl/fill.cl - buffer fills with wide patterns; the body is shared with CUDA. */
#include "fill.h"
