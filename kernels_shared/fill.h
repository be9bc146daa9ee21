/* kernels_shared/fill.h - fills with patterns of 8 to 128 bytes, as 32-bit words. */
#include "dialect.h"

typedef struct ag_fill_pattern {
  ag_u32 w[32];
} ag_fill_pattern;

/* Word first + i of dst becomes pattern.w[i % period]; period is a power of two (2 to 32).
   A grid-stride loop, so any launch size covers count. */
AG_KERNEL void ag_fill_words(AG_GLOBAL ag_u32 *dst, ag_u64 first, ag_u64 count, ag_u32 period,
                             ag_fill_pattern pattern) {
  AG_GLOBAL ag_u32 *p = dst + first;
  ag_u64 mask = period - 1;
  for (ag_u64 i = AG_GLOBAL_ID; i < count; i += AG_GLOBAL_SIZE)
    p[i] = pattern.w[i & mask];
}
