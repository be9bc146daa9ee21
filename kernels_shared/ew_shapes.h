/* kernels_shared/ew_shapes.h - the elementwise family's parameter lists (AG_SHAPE_UNARY,
   AG_SHAPE_BINARY...) and AG_BINARY_FORMS alone, written once in elementwise.h, for the
   families whose kernels take them: arith and mathfn, which src/elementwise.c launches as the
   elementwise family's. */
#ifndef AG_SHAPE_BINARY
#ifdef AG_SHAPES_ONLY
#include "elementwise.h"
#else
#define AG_SHAPES_ONLY
#include "elementwise.h"
#undef AG_SHAPES_ONLY
#endif
#endif
