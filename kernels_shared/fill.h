/* kernels_shared/fill.h - fills with patterns of 8 to 128 bytes, as 32-bit words.

   The pattern reaches the kernel through the destination itself: the core first writes its
   period words at the start of the range (with the backend's own 4-byte fill), and the kernel
   copies them along. The pattern is not a kernel argument because it would be a struct
   passed by value, which some drivers mishandle (docs/portability.md, struct-args). */

/* ag_fill_words: words first + period + i of dst, for i < n, copy word first + (period + i)
   % period; period is a power of two (2 to 32). */
#define AG_SHAPE_FILL_WORDS(A, V, B, T1, T2, T3) B(ag_u32, dst) V(ag_u64, first) V(ag_u32, period)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"

/* The words read are never written here, so work-items do not race. */
AG_ITEMS(ag_fill_words, AG_SHAPE_FILL_WORDS, , , , {
  ag_u64 w = period + i;
  dst[first + w] = dst[first + (w & (ag_u64)(period - 1))];
})
#endif
