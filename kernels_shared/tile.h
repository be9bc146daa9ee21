/* kernels_shared/tile.h - a tile of the last two axes of a walk (kernels_shared/nd.h,
   AG_TILE_AT) copied between an operand and a private row-major buffer, along whichever axis
   the operand steps less, so that both sides read and write runs of consecutive elements: the
   strided family's (strided.h) and the layout family's (layout.h) tiled forms on CPU devices.
   Both macros take the tile's extent from nr_ and nc_ (rows and columns, at most ST each) and
   the operand's first element B and steps R (along the tile's rows) and C (along its columns);
   BUF is ST x ST. Unit steps have loops of their own, which compilers vectorise. */
#ifndef AG_KERNEL_TILE_H
#define AG_KERNEL_TILE_H

#define AG_TILE_SABS(s) ((s) < 0 ? -(s) : (s))

/* STMT for every element of the tile, with r_ and c_ its row and column and o_ its offset in
   the operand from B, in the order the operand's runs go: along the axis it steps less.
   COLUMN_LOOP goes before the loop down a column of unit step (AG_SCALAR_LOOP or nothing). */
#define AG_TILE_RUNS(R, C, COLUMN_LOOP, STMT)                                                      \
  if ((R) == 1) {                                                                                  \
    for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                            \
      COLUMN_LOOP for (ag_u64 r_ = 0; r_ < nr_; r_++) {                                            \
        const ag_i64 o_ = (ag_i64)c_ * (C) + (ag_i64)r_;                                           \
        STMT;                                                                                      \
      }                                                                                            \
  } else if ((C) == 1) {                                                                           \
    for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                            \
      for (ag_u64 c_ = 0; c_ < nc_; c_++) {                                                        \
        const ag_i64 o_ = (ag_i64)r_ * (R) + (ag_i64)c_;                                           \
        STMT;                                                                                      \
      }                                                                                            \
  } else if (AG_TILE_SABS(R) < AG_TILE_SABS(C)) {                                                  \
    for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                            \
      for (ag_u64 r_ = 0; r_ < nr_; r_++) {                                                        \
        const ag_i64 o_ = (ag_i64)r_ * (R) + (ag_i64)c_ * (C);                                     \
        STMT;                                                                                      \
      }                                                                                            \
  } else {                                                                                         \
    for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                            \
      for (ag_u64 c_ = 0; c_ < nc_; c_++) {                                                        \
        const ag_i64 o_ = (ag_i64)r_ * (R) + (ag_i64)c_ * (C);                                     \
        STMT;                                                                                      \
      }                                                                                            \
  }

/* BUF[r][c] = X at row r, column c of the tile; a column of X copied into BUF's column is kept
   scalar (AG_SCALAR_LOOP: its vectorised form scatters). */
#define AG_TILE_STAGE_IN(BUF, ST, X, B, R, C)                                                      \
  AG_TILE_RUNS(R, C, AG_SCALAR_LOOP, BUF[r_ * (ST) + c_] = X[(B) + o_])

/* X at row r, column c of the tile = BUF[r][c]. */
#define AG_TILE_STAGE_OUT(X, B, R, C, ST, BUF) AG_TILE_RUNS(R, C, , X[(B) + o_] = BUF[r_ * (ST) + c_])

#endif
