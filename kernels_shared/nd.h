/* kernels_shared/nd.h - strided operands: the shape and strides of up to three operands walked
   together in C order, and AG_ND_RUN, the loop over a range of that walk. Included by
   dialect.h, so that kernels of every dialect and the op layer (src/layout.c, which writes
   the walk) share one layout of it. */
#ifndef AG_KERNEL_ND_H
#define AG_KERNEL_ND_H

#define AG_ND_DIMS 8 /* AG_MAX_DIMS */
#define AG_ND_OPS 3

/* A walk is AG_ND_WORDS ag_u64 words: word 0 is ndim (1 to AG_ND_DIMS, after merging what can
   be merged), words 1 .. 8 the shape, then operand k's strides in elements (two's
   complement) at words 9 + 8k ... It travels as that many scalar arguments, w0 .. w32
   (AG_ND_PARAMS in a kernel's list), which the kernel gathers into a private array: not as a
   struct passed by value, which rusticl 22.x crashes on when an array member is indexed at
   run time (docs/portability.md, struct-args), nor in a buffer, whose write would wait for
   the queue on every launch. */
#define AG_ND_WORDS (1 + AG_ND_DIMS + AG_ND_OPS * AG_ND_DIMS)
#define AG_ND_PARAMS(V)                                                                            \
  V(ag_u64, w0) V(ag_u64, w1) V(ag_u64, w2) V(ag_u64, w3) V(ag_u64, w4) V(ag_u64, w5)              \
  V(ag_u64, w6) V(ag_u64, w7) V(ag_u64, w8) V(ag_u64, w9) V(ag_u64, w10) V(ag_u64, w11)            \
  V(ag_u64, w12) V(ag_u64, w13) V(ag_u64, w14) V(ag_u64, w15) V(ag_u64, w16) V(ag_u64, w17)        \
  V(ag_u64, w18) V(ag_u64, w19) V(ag_u64, w20) V(ag_u64, w21) V(ag_u64, w22) V(ag_u64, w23)        \
  V(ag_u64, w24) V(ag_u64, w25) V(ag_u64, w26) V(ag_u64, w27) V(ag_u64, w28) V(ag_u64, w29)        \
  V(ag_u64, w30) V(ag_u64, w31) V(ag_u64, w32)
#define AG_ND_GATHER(ND)                                                                           \
  const ag_u64 ND[AG_ND_WORDS] = {w0,  w1,  w2,  w3,  w4,  w5,  w6,  w7,  w8,  w9,  w10,           \
                                  w11, w12, w13, w14, w15, w16, w17, w18, w19, w20, w21,           \
                                  w22, w23, w24, w25, w26, w27, w28, w29, w30, w31, w32};
#define AG_ND_NDIM(ND) ((int)(ND)[0])
#define AG_ND_SHAPE(ND, d) ((ND)[1 + (d)])
#define AG_ND_STRIDE(ND, k, d) ((ag_i64)(ND)[1 + AG_ND_DIMS + AG_ND_DIMS * (k) + (d)])

/* Runs the statements for the elements [LO, HI) of the walk ND in C order, with i0, i1, i2
   the element offsets of operands 0, 1, 2 (from each operand's first element). The position
   is found once, then advanced along the last axis in a plain loop (vectorisable when the
   operands' last strides are 1, the case taken apart) and carried to the axes before it at
   the end of each row. */
#define AG_ND_RUN(ND, LO, HI, ...)                                                                 \
  {                                                                                                \
    const int l_ = AG_ND_NDIM(ND) - 1;                                                             \
    ag_u64 idx_[AG_ND_DIMS];                                                                       \
    ag_i64 b0_ = 0, b1_ = 0, b2_ = 0;                                                              \
    ag_u64 r_ = (LO);                                                                              \
    for (int d_ = l_; d_ >= 0; d_--) {                                                             \
      const ag_u64 q_ = r_ / AG_ND_SHAPE(ND, d_);                                                  \
      idx_[d_] = r_ - q_ * AG_ND_SHAPE(ND, d_);                                                    \
      r_ = q_;                                                                                     \
      b0_ += (ag_i64)idx_[d_] * AG_ND_STRIDE(ND, 0, d_);                                           \
      b1_ += (ag_i64)idx_[d_] * AG_ND_STRIDE(ND, 1, d_);                                           \
      b2_ += (ag_i64)idx_[d_] * AG_ND_STRIDE(ND, 2, d_);                                           \
    }                                                                                              \
    const ag_i64 s0_ = AG_ND_STRIDE(ND, 0, l_), s1_ = AG_ND_STRIDE(ND, 1, l_),                     \
                 s2_ = AG_ND_STRIDE(ND, 2, l_);                                                    \
    const int unit_ = s0_ == 1 && s1_ == 1 && (s2_ == 1 || s2_ == 0);                              \
    for (ag_u64 at_ = (LO); at_ < (HI);) {                                                         \
      ag_u64 len_ = AG_ND_SHAPE(ND, l_) - idx_[l_];                                                \
      if (len_ > (HI) - at_)                                                                         \
        len_ = (HI) - at_;                                                                           \
      if (unit_) {                                                                                 \
        for (ag_u64 k_ = 0; k_ < len_; k_++) {                                                     \
          const ag_i64 i0 = b0_ + (ag_i64)k_, i1 = b1_ + (ag_i64)k_, i2 = b2_ + (ag_i64)k_ * s2_;  \
          (void)i2;                                                                                \
          __VA_ARGS__;                                                                             \
        }                                                                                          \
      } else {                                                                                     \
        for (ag_u64 k_ = 0; k_ < len_; k_++) {                                                     \
          const ag_i64 i0 = b0_ + (ag_i64)k_ * s0_, i1 = b1_ + (ag_i64)k_ * s1_,                   \
                       i2 = b2_ + (ag_i64)k_ * s2_;                                                \
          (void)i2;                                                                                \
          __VA_ARGS__;                                                                             \
        }                                                                                          \
      }                                                                                            \
      at_ += len_;                                                                                 \
      idx_[l_] += len_;                                                                            \
      b0_ += (ag_i64)len_ * s0_;                                                                   \
      b1_ += (ag_i64)len_ * s1_;                                                                   \
      b2_ += (ag_i64)len_ * s2_;                                                                   \
      for (int d_ = l_; d_ > 0 && idx_[d_] == AG_ND_SHAPE(ND, d_); d_--) {                         \
        b0_ +=                                                                                     \
            AG_ND_STRIDE(ND, 0, d_ - 1) - (ag_i64)AG_ND_SHAPE(ND, d_) * AG_ND_STRIDE(ND, 0, d_);   \
        b1_ +=                                                                                     \
            AG_ND_STRIDE(ND, 1, d_ - 1) - (ag_i64)AG_ND_SHAPE(ND, d_) * AG_ND_STRIDE(ND, 1, d_);   \
        b2_ +=                                                                                     \
            AG_ND_STRIDE(ND, 2, d_ - 1) - (ag_i64)AG_ND_SHAPE(ND, d_) * AG_ND_STRIDE(ND, 2, d_);   \
        idx_[d_] = 0;                                                                              \
        idx_[d_ - 1]++;                                                                            \
      }                                                                                            \
    }                                                                                              \
  }

/* The same walk cut into tiles of its last two axes (ndim 2 or more), for operands that step
   along different axes (a copy into a transpose, a + b.T) on CPU devices: an item per tile,
   which goes through private buffers (kernels_shared/tile.h) so that every operand is read
   and written along its contiguous runs while its lines stay in the cache. Items count the
   tiles of each position of the axes before the last two, those last. The edge, by element
   size ES in bytes: 256 bytes wide (64 x 64 float32, 32 x 32 float64, 16 x 16 complex128;
   64 x 64 for smaller elements), so that each buffer holds at most 16 KiB and each run read
   or written is four cache lines (docs/performance.md, "Strided arrays"). Walks whose last
   two axes are shorter than AG_TILE_MIN run element by element. */
#define AG_TILE_STAGED_OF(ES) ((ES) >= 16 ? 16 : (ES) >= 8 ? 32 : 64)
#define AG_TILE_MIN 8
/* Declares, for item ITEM of walk ND cut into EDGE x EDGE tiles of its last two axes: rows_
   and cols_ (those axes' lengths), rlo_ and clo_ (the tile's first row and column), nr_ and
   nc_ (its rows and columns, EDGE but at the edges), each operand k's first element b<k>_ in
   the tile, and its steps r<k>_ and c<k>_ along the tile's rows and columns. */
#define AG_TILE_AT(ND, ITEM, EDGE)                                                                 \
  const int l_ = AG_ND_NDIM(ND) - 1;                                                               \
  const ag_u64 rows_ = AG_ND_SHAPE(ND, l_ - 1), cols_ = AG_ND_SHAPE(ND, l_);                       \
  const ag_u64 tr_n_ = (rows_ + (EDGE) - 1) / (EDGE), tc_n_ = (cols_ + (EDGE) - 1) / (EDGE);       \
  ag_u64 t_ = (ITEM);                                                                              \
  const ag_u64 tc_ = t_ % tc_n_;                                                                   \
  t_ /= tc_n_;                                                                                     \
  const ag_u64 tr_ = t_ % tr_n_;                                                                   \
  t_ /= tr_n_;                                                                                     \
  ag_i64 b0_ = 0, b1_ = 0, b2_ = 0;                                                                \
  for (int d_ = l_ - 2; d_ >= 0; d_--) {                                                           \
    const ag_u64 q_ = t_ / AG_ND_SHAPE(ND, d_);                                                    \
    const ag_u64 at_ = t_ - q_ * AG_ND_SHAPE(ND, d_);                                              \
    t_ = q_;                                                                                       \
    b0_ += (ag_i64)at_ * AG_ND_STRIDE(ND, 0, d_);                                                  \
    b1_ += (ag_i64)at_ * AG_ND_STRIDE(ND, 1, d_);                                                  \
    b2_ += (ag_i64)at_ * AG_ND_STRIDE(ND, 2, d_);                                                  \
  }                                                                                                \
  const ag_i64 r0_ = AG_ND_STRIDE(ND, 0, l_ - 1), c0_ = AG_ND_STRIDE(ND, 0, l_);                   \
  const ag_i64 r1_ = AG_ND_STRIDE(ND, 1, l_ - 1), c1_ = AG_ND_STRIDE(ND, 1, l_);                   \
  const ag_i64 r2_ = AG_ND_STRIDE(ND, 2, l_ - 1), c2_ = AG_ND_STRIDE(ND, 2, l_);                   \
  const ag_u64 rlo_ = tr_ * (EDGE), clo_ = tc_ * (EDGE);                                           \
  const ag_u64 nr_ = rows_ - rlo_ < (EDGE) ? rows_ - rlo_ : (EDGE);                                \
  const ag_u64 nc_ = cols_ - clo_ < (EDGE) ? cols_ - clo_ : (EDGE);                                \
  b0_ += (ag_i64)rlo_ * r0_ + (ag_i64)clo_ * c0_;                                                  \
  b1_ += (ag_i64)rlo_ * r1_ + (ag_i64)clo_ * c1_;                                                  \
  b2_ += (ag_i64)rlo_ * r2_ + (ag_i64)clo_ * c2_;

#endif
