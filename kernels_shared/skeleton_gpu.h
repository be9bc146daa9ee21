/* kernels_shared/skeleton_gpu.h - turns the AG_DEF_* lists of the shared kernel headers into
   OpenCL C or CUDA C kernels. Elementwise kernels take element offsets (arrays may be views
   into a buffer), the element count n, and chunk: each work-item handles chunk consecutive
   elements, then steps by the whole launch (a grid-stride loop). GPUs run chunk 1, so
   neighbouring work-items touch neighbouring elements; CPU devices run long chunks, so each
   work-item streams through its own stretch of memory. */
#ifndef AG_KERNEL_SKELETON_GPU_H
#define AG_KERNEL_SKELETON_GPU_H

#include "dialect.h"
#include "reduce_items.h"
#include "roll.h"

#define AG_EW_LOOP(BODY)                                                                        \
  for (ag_u64 base_ = AG_GLOBAL_ID * chunk; base_ < n; base_ += AG_GLOBAL_SIZE * chunk) {       \
    ag_u64 end_ = n - base_ < chunk ? n : base_ + chunk;                                        \
    for (ag_u64 i = base_; i < end_; i++) {                                                      \
      BODY;                                                                                     \
    }                                                                                           \
  }


#define AG_DEF_UNARY(K, TI, TO, FN)                                                             \
  AG_KERNEL void K(AG_GLOBAL const TI *x, ag_u64 xoff, AG_GLOBAL TO *out, ag_u64 ooff, ag_u64 n, \
                   ag_u64 chunk) {                                                              \
    x += xoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(x[i]))                                                               \
  }

#define AG_DEF_BINARY(K, T_, FN)                                                                \
  AG_KERNEL void K(AG_GLOBAL const T_ *a, ag_u64 aoff, AG_GLOBAL const T_ *b, ag_u64 boff,      \
                   AG_GLOBAL T_ *out, ag_u64 ooff, ag_u64 n, ag_u64 chunk) {                    \
    a += aoff;                                                                                  \
    b += boff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(a[i], b[i]))                                                         \
  }

/* b (or a) has m elements and repeats along the other's leading axes: element i pairs with
   element i % m, tracked incrementally so there is one division per stretch. */
#define AG_EW_LOOP_BCAST(BODY)                                                                  \
  for (ag_u64 base_ = AG_GLOBAL_ID * chunk; base_ < n; base_ += AG_GLOBAL_SIZE * chunk) {       \
    ag_u64 end_ = n - base_ < chunk ? n : base_ + chunk;                                        \
    ag_u64 j = base_ % m;                                                                       \
    for (ag_u64 i = base_; i < end_; i++) {                                                      \
      BODY;                                                                                     \
      if (++j == m)                                                                             \
        j = 0;                                                                                  \
    }                                                                                           \
  }

#define AG_DEF_BINARY_BCAST_B(K, T_, FN)                                                        \
  AG_KERNEL void K(AG_GLOBAL const T_ *a, ag_u64 aoff, AG_GLOBAL const T_ *b, ag_u64 boff,      \
                   ag_u64 m, AG_GLOBAL T_ *out, ag_u64 ooff, ag_u64 n, ag_u64 chunk) {          \
    a += aoff;                                                                                  \
    b += boff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP_BCAST(out[i] = FN(a[i], b[j]))                                                   \
  }

#define AG_DEF_BINARY_BCAST_A(K, T_, FN)                                                        \
  AG_KERNEL void K(AG_GLOBAL const T_ *a, ag_u64 aoff, AG_GLOBAL const T_ *b, ag_u64 boff,      \
                   ag_u64 m, AG_GLOBAL T_ *out, ag_u64 ooff, ag_u64 n, ag_u64 chunk) {          \
    a += aoff;                                                                                  \
    b += boff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP_BCAST(out[i] = FN(a[j], b[i]))                                                   \
  }

#define AG_DEF_BINARY_SCALAR(K, T_, FN)                                                         \
  AG_KERNEL void K(AG_GLOBAL const T_ *x, ag_u64 xoff, T_ s, AG_GLOBAL T_ *out, ag_u64 ooff,    \
                   ag_u64 n, ag_u64 chunk) {                                                    \
    x += xoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(x[i], s))                                                            \
  }

#define AG_DEF_BINARY_RSCALAR(K, T_, FN)                                                        \
  AG_KERNEL void K(AG_GLOBAL const T_ *x, ag_u64 xoff, T_ s, AG_GLOBAL T_ *out, ag_u64 ooff,    \
                   ag_u64 n, ag_u64 chunk) {                                                    \
    x += xoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(s, x[i]))                                                            \
  }

#define AG_DEF_AXPBY(K, T_, R_, FN)                                                             \
  AG_KERNEL void K(AG_GLOBAL const T_ *x, ag_u64 xoff, R_ alpha, AG_GLOBAL const T_ *y,         \
                   ag_u64 yoff, R_ beta, AG_GLOBAL T_ *out, ag_u64 ooff, ag_u64 n,              \
                   ag_u64 chunk) {                                                              \
    x += xoff;                                                                                  \
    y += yoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(x[i], y[i], alpha, beta))                                            \
  }

#define AG_DEF_SOFT(K, T_, R_, FN)                                                              \
  AG_KERNEL void K(AG_GLOBAL const T_ *x, ag_u64 xoff, R_ alpha, AG_GLOBAL T_ *out, ag_u64 ooff, \
                   ag_u64 n, ag_u64 chunk) {                                                    \
    x += xoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(x[i], alpha))                                                        \
  }

#define AG_DEF_CLAMP(K, T_, FN)                                                                 \
  AG_KERNEL void K(AG_GLOBAL const T_ *x, ag_u64 xoff, T_ lo, T_ hi, AG_GLOBAL T_ *out,         \
                   ag_u64 ooff, ag_u64 n, ag_u64 chunk) {                                       \
    x += xoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(x[i], lo, hi))                                                       \
  }

#define AG_DEF_WHERE(K, T_, FN)                                                                 \
  AG_KERNEL void K(AG_GLOBAL const ag_u8 *c, ag_u64 coff, AG_GLOBAL const T_ *a, ag_u64 aoff,   \
                   AG_GLOBAL const T_ *b, ag_u64 boff, AG_GLOBAL T_ *out, ag_u64 ooff,          \
                   ag_u64 n, ag_u64 chunk) {                                                    \
    c += coff;                                                                                  \
    a += aoff;                                                                                  \
    b += boff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = FN(c[i], a[i], b[i]))                                                   \
  }

/* Rolls (fftshift), index arithmetic in roll.h. */
#define AG_DEF_ROLL(K, T_)                                                                      \
  AG_KERNEL void K(AG_GLOBAL const T_ *x, ag_u64 xoff, AG_GLOBAL T_ *out, ag_u64 ooff, ag_u64 d1, \
                   ag_u64 d2, ag_u64 d3, ag_u64 s1, ag_u64 s2, ag_u64 s3, ag_u64 n, ag_u64 chunk) { \
    x += xoff;                                                                                  \
    out += ooff;                                                                                \
    AG_EW_LOOP(out[i] = x[ag_roll_source(i, d1, d2, d3, s1, s2, s3)])                           \
  }

/* Reductions view x as [outer][K][inner] and reduce over K, each output's K range cut into
   `parts` pieces whose states are merged afterwards (the _merge kernel) when parts > 1.
   _cols: one work-item per (outer, part, inner), walking its piece sequentially; neighbouring
   work-items take neighbouring inner indices, so GPUs read coalesced rows of the inner axis
   and CPUs stream contiguous memory when inner is 1.
   _rows: inner is 1; one work-group per (outer, part) strides through the piece together
   and merges its states in a tree in local memory (GPUs). Its size is a power of two up to
   256, whatever the kernel's limit on the device allows (src/reduce.c chooses it).
   y is read only by dot (the op layer passes x again otherwise). */
#define AG_DEF_REDUCE(K, S, TI, TO, A, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                    \
  AG_REDUCE_ITEMS(K, S, TI, TO, A, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                        \
  AG_KERNEL void AG_CAT2(K, _cols)(AG_GLOBAL const TI *x, ag_u64 xoff, AG_GLOBAL const TI *y,   \
                                   ag_u64 yoff, ag_u64 outer, ag_u64 len, ag_u64 inner,         \
                                   ag_u64 parts, AG_GLOBAL S *part, AG_GLOBAL TO *out,          \
                                   ag_u64 ooff) {                                               \
    ag_u64 gid = AG_GLOBAL_ID;                                                                  \
    if (gid < outer * parts * inner)                                                            \
      AG_CAT2(K, _cols_item)(x + xoff, y + yoff, len, inner, parts, part, out + ooff, gid); \
  }                                                                                             \
  AG_KERNEL void AG_CAT2(K, _rows)(AG_GLOBAL const TI *x, ag_u64 xoff, AG_GLOBAL const TI *y,   \
                                   ag_u64 yoff, ag_u64 outer, ag_u64 len, ag_u64 parts,         \
                                   AG_GLOBAL S *part, AG_GLOBAL TO *out, ag_u64 ooff) {         \
    AG_LOCAL_MEM S sh[256];                                                                     \
    ag_u32 l = AG_LOCAL_ID, wg = AG_LOCAL_SIZE;                                                 \
    ag_u64 g = AG_GROUP_ID, o = g / parts, p = g % parts;                                       \
    ag_u64 per = (len + parts - 1) / parts, k0 = p * per < len ? p * per : len;                 \
    ag_u64 k1 = len - k0 < per ? len : k0 + per;                                                \
    x += xoff + o * len;                                                                        \
    y += yoff + o * len;                                                                        \
    S s = INIT();                                                                               \
    for (ag_u64 k = k0 + l; k < k1; k += wg)                                                    \
      s = ACC1(s, LOAD(x, y, k), k);                                                            \
    sh[l] = s;                                                                                  \
    AG_BARRIER();                                                                               \
    for (ag_u32 w = wg / 2; w > 0; w >>= 1) {                                                   \
      if (l < w)                                                                                \
        sh[l] = MERGE(sh[l], sh[l + w]);                                                        \
      AG_BARRIER();                                                                             \
    }                                                                                           \
    if (l == 0) {                                                                               \
      if (parts == 1)                                                                           \
        out[ooff + o] = FINAL(sh[0]);                                                           \
      else                                                                                      \
        part[o * parts + p] = sh[0];                                                            \
    }                                                                                           \
  }                                                                                             \
  AG_KERNEL void AG_CAT2(K, _merge)(AG_GLOBAL const S *part, ag_u64 outer, ag_u64 parts,        \
                                    ag_u64 inner, AG_GLOBAL TO *out, ag_u64 ooff) {             \
    ag_u64 gid = AG_GLOBAL_ID;                                                                  \
    if (gid < outer * inner)                                                                    \
      AG_CAT2(K, _merge_item)(part, parts, inner, out + ooff, gid);                             \
  }

#endif
