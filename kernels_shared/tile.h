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

/* BUF[r][c] = X at row r, column c of the tile. */
#define AG_TILE_STAGE_IN(BUF, ST, X, B, R, C)                                                      \
  if ((R) == 1) {                                                                                  \
    for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                            \
      AG_SCALAR_LOOP for (ag_u64 r_ = 0; r_ < nr_; r_++)                                           \
        BUF[r_ * (ST) + c_] = X[(B) + (ag_i64)c_ * (C) + (ag_i64)r_];                              \
  } else if ((C) == 1) {                                                                           \
    for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                            \
      for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                          \
        BUF[r_ * (ST) + c_] = X[(B) + (ag_i64)r_ * (R) + (ag_i64)c_];                              \
  } else if (AG_TILE_SABS(R) < AG_TILE_SABS(C)) {                                                  \
    for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                            \
      for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                          \
        BUF[r_ * (ST) + c_] = X[(B) + (ag_i64)r_ * (R) + (ag_i64)c_ * (C)];                        \
  } else {                                                                                         \
    for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                            \
      for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                          \
        BUF[r_ * (ST) + c_] = X[(B) + (ag_i64)r_ * (R) + (ag_i64)c_ * (C)];                        \
  }

/* X at row r, column c of the tile = BUF[r][c]. */
#define AG_TILE_STAGE_OUT(X, B, R, C, ST, BUF)                                                     \
  if ((R) == 1) {                                                                                  \
    for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                            \
      for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                          \
        X[(B) + (ag_i64)c_ * (C) + (ag_i64)r_] = BUF[r_ * (ST) + c_];                              \
  } else if ((C) == 1) {                                                                           \
    for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                            \
      for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                          \
        X[(B) + (ag_i64)r_ * (R) + (ag_i64)c_] = BUF[r_ * (ST) + c_];                              \
  } else if (AG_TILE_SABS(R) < AG_TILE_SABS(C)) {                                                  \
    for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                            \
      for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                          \
        X[(B) + (ag_i64)r_ * (R) + (ag_i64)c_ * (C)] = BUF[r_ * (ST) + c_];                        \
  } else {                                                                                         \
    for (ag_u64 r_ = 0; r_ < nr_; r_++)                                                            \
      for (ag_u64 c_ = 0; c_ < nc_; c_++)                                                          \
        X[(B) + (ag_i64)r_ * (R) + (ag_i64)c_ * (C)] = BUF[r_ * (ST) + c_];                        \
  }

#endif
