/* kernels_shared/strided.h - the strided family: the binary operations of the elementwise
   family (add, sub, mul, div, pow, minimum, maximum) on operands of any layout, read and
   written in place: transposed, sliced, flipped and broadcast views (docs/arrays.md), so that
   c = a + b.T makes one pass over the three arrays instead of staging b.T in a contiguous
   stand-in first. Expanded once per dtype (AG_TC, variant.h), with the element functions of
   kernels_shared/element.h. Each operation in two forms: ag_<op>_<dtype>_nd walks the shape
   in C order (kernels_shared/nd.h, AG_ND_RUN), and ag_<op>_<dtype>_tiles, for CPU devices,
   takes an item per tile of the last two axes (below; AG_TILE_STAGED_OF elements a side,
   256 bytes wide) when the operands step along different axes. */

/* out = a op b over a walk of three operands: 0 is out, 1 is a, 2 is b (src/strided.c). */
#define AG_SHAPE_BINARY_ND(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(T1, out) AG_ND_PARAMS(V)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "complex.h"
#include "variant.h"

#if (!AG_NEEDS_F64 || AG_HAVE_F64) && !AG_BOOLEAN

#include "element.h"
#include "tile.h"

#define AG_ST AG_TILE_STAGED_OF(sizeof(AG_T))

/* Item ITEM of walk ND (its last two axes cut into AG_ST x AG_ST tiles, AG_TILE_AT) with
   a and b each copied into a private tile in the order of its own memory and out computed
   into one when it steps along the tile's columns, then written in its order: every operand
   is read and written along its contiguous runs, four cache lines long (docs/performance.md,
   "Strided arrays", has the figures; asking for the next tile's lines ahead made it slower). */
#define AG_STRIDED_TILE(ND, ITEM, FN)                                                              \
  {                                                                                                \
    AG_TILE_AT(ND, ITEM, AG_ST)                                                                    \
    AG_T ta_[AG_ST * AG_ST], tb_[AG_ST * AG_ST];                                                   \
    AG_TILE_STAGE_IN(ta_, AG_ST, a, b1_, r1_, c1_)                                                 \
    AG_TILE_STAGE_IN(tb_, AG_ST, b, b2_, r2_, c2_)                                                 \
    if (c0_ == 1) {                                                                                \
      for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                          \
        for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                        \
          out[b0_ + (ag_i64)r_ * r0_ + (ag_i64)c_] = FN(ta_[r_ * AG_ST + c_], tb_[r_ * AG_ST + c_]); \
    } else if (AG_TILE_SABS(r0_) < AG_TILE_SABS(c0_)) {                                            \
      for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                          \
        for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                        \
          ta_[r_ * AG_ST + c_] = FN(ta_[r_ * AG_ST + c_], tb_[r_ * AG_ST + c_]);                   \
      AG_TILE_STAGE_OUT(out, b0_, r0_, c0_, AG_ST, ta_)                                            \
    } else {                                                                                       \
      for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                          \
        for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                        \
          out[b0_ + (ag_i64)r_ * r0_ + (ag_i64)c_ * c0_] = FN(ta_[r_ * AG_ST + c_], tb_[r_ * AG_ST + c_]); \
    }                                                                                              \
  }

#define AG_STRIDED_FORMS(K, FN)                                                                    \
  AG_EW(AG_CAT2(AG_KN(K), _nd), AG_SHAPE_BINARY_ND, AG_T, , , AG_EACH_ND, out[i0] = FN(a[i1], b[i2]))  \
  AG_CPU_ITEMS(AG_CAT2(AG_KN(K), _tiles), AG_SHAPE_BINARY_ND, AG_T, , , {                          \
    AG_ND_GATHER(nd_)                                                                              \
    AG_STRIDED_TILE(nd_, i, FN)                                                                    \
  })
AG_BINARY_OPS(AG_STRIDED_FORMS)
#undef AG_STRIDED_FORMS
#undef AG_STRIDED_TILE
#undef AG_ST

#endif

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
