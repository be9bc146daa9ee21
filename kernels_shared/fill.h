/* kernels_shared/fill.h - fills with patterns of 8 to 128 bytes, as 32-bit words.

   The pattern reaches the kernel through the destination itself: the core first writes its
   period words at the start of the range (with the backend's own 4-byte fill), and the kernel
   copies them along. The pattern is not a kernel argument because it would be a struct
   passed by value, which some drivers mishandle (docs/portability.md, struct-args). */
#include "dialect.h"

/* Word first + i of dst, for period <= i < count, becomes word first + i % period; period is
   a power of two (2 to 32). The words read are never written here, so work-items do not
   race. A grid-stride loop, so any launch size covers count. */
AG_KERNEL void ag_fill_words(AG_GLOBAL ag_u32 *dst, ag_u64 first, ag_u64 count, ag_u32 period) {
  AG_GLOBAL ag_u32 *p = dst + first;
  ag_u64 mask = period - 1;
  for (ag_u64 i = period + AG_GLOBAL_ID; i < count; i += AG_GLOBAL_SIZE)
    p[i] = p[i & mask];
}
