/* kernels_cu/fill.cu - buffer fills with wide patterns; the body is shared with OpenCL. */
#include "fill.h"
