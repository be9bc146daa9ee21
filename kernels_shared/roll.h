/* kernels_shared/roll.h - index arithmetic of the roll kernels (fftshift), shared by every
   skeleton: x viewed as [rows][d1][d2][d3], each of the last three axes rolled by its s
   (0 <= s < d), so out[..., j] = x[..., (j - s) mod d]. Returns the source of element i. */
#ifndef AG_KERNEL_ROLL_H
#define AG_KERNEL_ROLL_H

#include "dialect.h"

AG_INLINE ag_u64 ag_roll_source(ag_u64 i, ag_u64 d1, ag_u64 d2, ag_u64 d3, ag_u64 s1, ag_u64 s2, ag_u64 s3) {
  ag_u64 c3 = i % d3, t = i / d3, c2 = t % d2, c1;
  t /= d2;
  c1 = t % d1;
  t /= d1;
  c1 = c1 >= s1 ? c1 - s1 : c1 + d1 - s1;
  c2 = c2 >= s2 ? c2 - s2 : c2 + d2 - s2;
  c3 = c3 >= s3 ? c3 - s3 : c3 + d3 - s3;
  return ((t * d1 + c1) * d2 + c2) * d3 + c3;
}

#endif
