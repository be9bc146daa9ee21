/* kernels_shared/reduce_items.h - the work of one reduction work-item, as functions every
   skeleton calls: the GPU kernels (skeleton_gpu.h) for their one item, the host twins for
   each item of a work-group. x is viewed as [outer][len][inner]; see skeleton_gpu.h. */
#ifndef AG_KERNEL_REDUCE_ITEMS_H
#define AG_KERNEL_REDUCE_ITEMS_H

#include "dialect.h"

/* Elements a work-item accumulates at a time (reduce.h's accb functions, which read them):
   a block is added up in independent lanes, then into the running state once, which keeps
   the state's dependency chain (Kahan: four additions) off the critical path. */
#define AG_RBLOCK 256

#define AG_REDUCE_ITEMS(K, S, TI, TO, A, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                  \
  /* Item gid of a _cols launch: one piece of one output's range, walked in order. */         \
  AG_INLINE void AG_CAT2(K, _cols_item)(AG_GLOBAL const TI *x, AG_GLOBAL const TI *y,          \
                                        ag_u64 len, ag_u64 inner, ag_u64 parts,                \
                                        AG_GLOBAL S *part, AG_GLOBAL TO *out, ag_u64 gid) {    \
    ag_u64 i = gid % inner, p = (gid / inner) % parts, o = gid / inner / parts;                 \
    ag_u64 per = (len + parts - 1) / parts, k = p * per < len ? p * per : len;                 \
    ag_u64 k1 = len - k < per ? len : k + per;                                                  \
    x += o * len * inner + i;                                                                   \
    y += o * len * inner + i;                                                                   \
    S s = INIT();                                                                               \
    if (inner == 1) { /* contiguous: compiled for stride 1, so block loads vectorise */         \
      for (; k + AG_RBLOCK <= k1; k += AG_RBLOCK)                                               \
        s = ACCB(s, x, y, k, 1);                                                                \
    } else {                                                                                    \
      for (; k + AG_RBLOCK <= k1; k += AG_RBLOCK)                                               \
        s = ACCB(s, x, y, k, inner);                                                            \
    }                                                                                           \
    for (; k < k1; k++)                                                                         \
      s = ACC1(s, LOAD(x, y, k * inner), k);                                                    \
    if (parts == 1)                                                                             \
      out[o * inner + i] = FINAL(s);                                                            \
    else                                                                                        \
      part[(o * parts + p) * inner + i] = s;                                                    \
  }                                                                                             \
  /* Item gid of a _merge launch: one output, from its parts' states. */                       \
  AG_INLINE void AG_CAT2(K, _merge_item)(AG_GLOBAL const S *part, ag_u64 parts, ag_u64 inner,  \
                                         AG_GLOBAL TO *out, ag_u64 gid) {                       \
    ag_u64 i = gid % inner, o = gid / inner;                                                    \
    part += o * parts * inner + i;                                                              \
    S s = part[0];                                                                              \
    for (ag_u64 p = 1; p < parts; p++)                                                          \
      s = MERGE(s, part[p * inner]);                                                            \
    out[gid] = FINAL(s);                                                                        \
  }

#endif
