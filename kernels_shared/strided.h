/* kernels_shared/strided.h - the strided family: the binary operations of the elementwise
   family (add, sub, mul, div, pow, minimum, maximum) on operands of any layout, read and
   written in place: transposed, sliced, flipped and broadcast views (docs/arrays.md), so that
   c = a + b.T makes one pass over the three arrays instead of staging b.T in a contiguous
   stand-in first. Expanded once per dtype (AG_TC, variant.h), with the element functions of
   kernels_shared/element.h. Each operation in two forms: ag_<op>_<dtype>_nd walks the shape
   in C order (kernels_shared/nd.h, AG_ND_RUN), and ag_<op>_<dtype>_tiles, for CPU devices,
   takes an item per tile of the last two axes (AG_TILE_RUN) when the operands step along
   different axes. */

/* out = a op b over a walk of three operands: 0 is out, 1 is a, 2 is b (src/strided.c). */
#define AG_SHAPE_BINARY_ND(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(T1, out) AG_ND_PARAMS(V)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "complex.h"
#include "variant.h"

#if (!AG_NEEDS_F64 || AG_HAVE_F64) && !AG_BOOLEAN

#include "element.h"

#define AG_STRIDED_FORMS(K, FN)                                                                    \
  AG_EW(AG_CAT2(AG_KN(K), _nd), AG_SHAPE_BINARY_ND, AG_T, , , AG_EACH_ND, out[i0] = FN(a[i1], b[i2]))  \
  AG_ITEMS(AG_CAT2(AG_KN(K), _tiles), AG_SHAPE_BINARY_ND, AG_T, , , {                              \
    AG_ND_GATHER(nd_)                                                                              \
    AG_TILE_RUN(nd_, i, out[i0] = FN(a[i1], b[i2]))                                                \
  })
AG_BINARY_OPS(AG_STRIDED_FORMS)
#undef AG_STRIDED_FORMS

#endif

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
