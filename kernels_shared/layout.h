/* kernels_shared/layout.h - the layout family: a copy between any two layouts of one element
   size (a transposed, sliced, flipped or broadcast view into a contiguous array, and back),
   which src/layout.c launches for ag_copy, for views handed to kernels that take contiguous
   arrays, and for the results they write. Built once: a copy moves bytes, whatever the dtype,
   so there is one kernel per element size, ag_copy_nd_<bytes>, and its tiled form
   ag_copy_tiles_<bytes>. */

/* out[i1] = x[i0] over a walk (kernels_shared/nd.h): operand 0 is x, operand 1 is out. */
#define AG_SHAPE_COPY_ND(A, V, B, T1, T2, T3) A(const T1, x) A(T1, out) AG_ND_PARAMS(V)
/* The same copy, an item per tile of the last two axes (kernels_shared/nd.h, AG_TILE_AT, with
   AG_TILE_STAGED_OF elements a side): on CPU devices, for operands that step along different
   axes. The tile goes through a private buffer (kernels_shared/tile.h), read from x and
   written to out along each one's contiguous runs. */
#define AG_SHAPE_COPY_TILES(A, V, B, T1, T2, T3) A(const T1, x) A(T1, out) AG_ND_PARAMS(V)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"

AG_EW(ag_copy_nd_1, AG_SHAPE_COPY_ND, ag_u8, , , AG_EACH_ND, out[i1] = x[i0])
AG_EW(ag_copy_nd_2, AG_SHAPE_COPY_ND, ag_u16, , , AG_EACH_ND, out[i1] = x[i0])
AG_EW(ag_copy_nd_4, AG_SHAPE_COPY_ND, ag_u32, , , AG_EACH_ND, out[i1] = x[i0])
AG_EW(ag_copy_nd_8, AG_SHAPE_COPY_ND, ag_u64, , , AG_EACH_ND, out[i1] = x[i0])
AG_EW(ag_copy_nd_16, AG_SHAPE_COPY_ND, ag_b16, , , AG_EACH_ND, out[i1] = x[i0])

#include "tile.h"
#define AG_COPY_TILES(K, T)                                                                        \
  AG_CPU_ITEMS(K, AG_SHAPE_COPY_TILES, T, , , {                                                    \
    AG_ND_GATHER(nd_)                                                                              \
    AG_TILE_AT(nd_, i, AG_TILE_STAGED_OF(sizeof(T)))                                               \
    (void)b2_;                                                                                     \
    T buf_[AG_TILE_STAGED_OF(sizeof(T)) * AG_TILE_STAGED_OF(sizeof(T))];                           \
    AG_TILE_STAGE_IN(buf_, AG_TILE_STAGED_OF(sizeof(T)), x, b0_, r0_, c0_)                         \
    AG_TILE_STAGE_OUT(out, b1_, r1_, c1_, AG_TILE_STAGED_OF(sizeof(T)), buf_)                      \
  })
AG_COPY_TILES(ag_copy_tiles_1, ag_u8)
AG_COPY_TILES(ag_copy_tiles_2, ag_u16)
AG_COPY_TILES(ag_copy_tiles_4, ag_u32)
AG_COPY_TILES(ag_copy_tiles_8, ag_u64)
AG_COPY_TILES(ag_copy_tiles_16, ag_b16)
#undef AG_COPY_TILES
#endif
