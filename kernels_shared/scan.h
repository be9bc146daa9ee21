/* kernels_shared/scan.h - the scan family: inclusive prefix sums along an axis (the array API's
   cumulative_sum), in three passes over x viewed as [outer][len][inner], each output's axis
   cut into `parts` pieces of ceil(len / parts) elements:

   _parts: an item per (outer, part, block of `cols` neighbouring inner indices) adds up its
           piece into part[outer][part][inner];
   _carry: an item per (outer, inner) turns its parts' totals into the sums of the parts
           before each (an exclusive scan, in place);
   _apply: an item per (outer, part, block) walks its piece again from its carry, writing the
           running sum into out.

   With one part only _apply runs (carry 0). GPUs take cols 1, so neighbouring items read
   neighbouring inner indices; CPU devices take up to AG_SCOLS, so one item streams through rows
   of a block and its additions vectorise. Integer sums wrap in the dtype (unsigned arithmetic,
   as numpy's do); float sums are plain additions in order within a piece, numpy's sequential
   order but for where the pieces meet. Expanded once per dtype (AG_TC, see variant.h); kernel
   names ag_scan_<pass>_<dtype>. */

/* The pieces and blocks of items of _parts and _apply: n is outer * parts * ceil(inner /
   cols). */
#define AG_SHAPE_SCAN_PARTS(A, V, B, T1, T2, T3)                                                   \
  A(const T1, x) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, parts) V(ag_u64, cols) B(T1, part)
#define AG_SHAPE_SCAN_CARRY(A, V, B, T1, T2, T3) B(T1, part) V(ag_u64, parts) V(ag_u64, inner)
#define AG_SHAPE_SCAN_APPLY(A, V, B, T1, T2, T3)                                                   \
  A(const T1, x) A(T1, out) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, parts) V(ag_u64, cols) B(const T1, part)

/* The widest block of inner indices one item takes. */
#define AG_SCOLS 32

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if (!AG_NEEDS_F64 || AG_HAVE_F64) && !AG_BOOLEAN

#if AG_INT
#define AG_SCAN_ADD(a, b) ((AG_T)((AG_UT)(a) + (AG_UT)(b)))
#define AG_SCAN_ZERO ((AG_T)0)
#elif AG_CPLX
#define AG_SCAN_ADD(a, b) AG_MAKE((a).x + (b).x, (a).y + (b).y)
#define AG_SCAN_ZERO AG_MAKE((AG_R)0, (AG_R)0)
#else
#define AG_SCAN_ADD(a, b) ((a) + (b))
#define AG_SCAN_ZERO ((AG_T)0)
#endif

/* Item i's output o, part p, and the inner indices [j0, j0 + w) and rows [k0, k1) it takes. */
#define AG_SCAN_ITEM                                                                               \
  const ag_u64 nb_ = (inner + cols - 1) / cols, plen_ = (len + parts - 1) / parts;                 \
  const ag_u64 o = i / (nb_ * parts), p = i / nb_ % parts, j0 = i % nb_ * cols;                    \
  const ag_u64 w = inner - j0 < cols ? inner - j0 : cols;                                          \
  const ag_u64 k0 = p * plen_ < len ? p * plen_ : len, k1 = len - k0 < plen_ ? len : k0 + plen_;   \
  AG_GLOBAL const AG_T *xr_ = x + o * len * inner + j0;                                            \
  AG_T acc_[AG_SCOLS];

AG_ITEMS(AG_KN(ag_scan_parts), AG_SHAPE_SCAN_PARTS, AG_T, , , {
  AG_SCAN_ITEM
  if (w == 1u) { /* one column (GPUs, and the inner axis of 1): a scalar running sum */
    AG_T s_ = AG_SCAN_ZERO;
    for (ag_u64 k = k0; k < k1; k++)
      s_ = AG_SCAN_ADD(s_, xr_[k * inner]);
    part[(o * parts + p) * inner + j0] = s_;
  } else {
    for (ag_u64 j = 0; j < w; j++)
      acc_[j] = AG_SCAN_ZERO;
    for (ag_u64 k = k0; k < k1; k++)
      for (ag_u64 j = 0; j < w; j++)
        acc_[j] = AG_SCAN_ADD(acc_[j], xr_[k * inner + j]);
    for (ag_u64 j = 0; j < w; j++)
      part[(o * parts + p) * inner + j0 + j] = acc_[j];
  }
})

AG_ITEMS(AG_KN(ag_scan_carry), AG_SHAPE_SCAN_CARRY, AG_T, , , {
  AG_GLOBAL AG_T *c_ = part + i / inner * parts * inner + i % inner;
  AG_T run_ = AG_SCAN_ZERO;
  for (ag_u64 p = 0; p < parts; p++) {
    AG_T t_ = c_[p * inner];
    c_[p * inner] = run_;
    run_ = AG_SCAN_ADD(run_, t_);
  }
})

AG_ITEMS(AG_KN(ag_scan_apply), AG_SHAPE_SCAN_APPLY, AG_T, , , {
  AG_SCAN_ITEM
  AG_GLOBAL AG_T *or_ = out + o * len * inner + j0;
  if (w == 1u) {
    AG_T s_ = parts > 1u ? part[(o * parts + p) * inner + j0] : AG_SCAN_ZERO;
    for (ag_u64 k = k0; k < k1; k++) {
      s_ = AG_SCAN_ADD(s_, xr_[k * inner]);
      or_[k * inner] = s_;
    }
  } else {
    for (ag_u64 j = 0; j < w; j++)
      acc_[j] = parts > 1u ? part[(o * parts + p) * inner + j0 + j] : AG_SCAN_ZERO;
    for (ag_u64 k = k0; k < k1; k++)
      for (ag_u64 j = 0; j < w; j++) {
        acc_[j] = AG_SCAN_ADD(acc_[j], xr_[k * inner + j]);
        or_[k * inner + j] = acc_[j];
      }
  }
})

#undef AG_SCAN_ITEM
#undef AG_SCAN_ADD
#undef AG_SCAN_ZERO

#endif /* (!AG_NEEDS_F64 || AG_HAVE_F64) && !AG_BOOLEAN */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
