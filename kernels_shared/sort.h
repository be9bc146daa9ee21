/* kernels_shared/sort.h - the sort family: stable sorts along an axis (the array API's sort and
   argsort) by least-significant-digit radix sort. x is viewed as [outer][len][inner] and sorted
   as rows = outer * inner rows of len keys, key r * len + k taken from x[(o * len + k) * inner
   + j] for r = o * inner + j:

   ag_sort_keys_<t>:   x's elements as unsigned keys (ag_u32, or ag_u64 for 8-byte dtypes) whose
                       unsigned order is the sort's: signed integers with their sign bit
                       flipped, floats with every bit flipped when negative and the sign bit set
                       when not, NaN as the largest key; flags 1 (descending) flips every bit
                       of the key's width, flags 2 (argsort) takes -0.0 as +0.0, so that equal
                       values keep their order as numpy's stable sort keeps it, and writes each
                       key's index along its row into idx;
   ag_sort_values_<t>: the keys back into out's elements, in x's layout;
   ag_radix_hist_<k>:  one pass of 8 bits at `shift`: an item per (row, piece of the row)
                       counts its keys' digits into counts[row][digit][piece];
   ag_radix_scatter_<k>: after an inclusive scan of each row's counts (ends, digit-major, so
                       ends - counts is where a piece's keys of a digit start), each item moves
                       its keys, in order, to their places in keys_out (and their indices,
                       with_idx); one pass per byte of the dtype, so equal keys keep their order;
   ag_sort_small_<k>:  a row of a few keys sorted in place by one item (insertion, stable);
   ag_sort_place_u64:  argsort's indices into out, in x's layout.
   Expanded once per dtype (AG_TC, see variant.h): keys and values for the real dtypes and bool,
   the passes for the key types u32 and u64. */

#define AG_SHAPE_SORT_KEYS(A, V, B, T1, T2, T3)                                                    \
  A(const T1, x) B(T2, keys) B(ag_u64, idx) V(ag_u64, len) V(ag_u64, inner) V(ag_u32, flags)
#define AG_SHAPE_SORT_VALUES(A, V, B, T1, T2, T3)                                                  \
  B(const T2, keys) A(T1, out) V(ag_u64, len) V(ag_u64, inner) V(ag_u32, flags)
#define AG_SHAPE_SORT_PLACE(A, V, B, T1, T2, T3) B(const T1, idx) A(T1, out) V(ag_u64, len) V(ag_u64, inner)
/* n is the batch's rows (from row0) times parts. */
#define AG_SHAPE_RADIX_HIST(A, V, B, T1, T2, T3)                                                   \
  B(const T1, keys) B(ag_u64, counts) V(ag_u64, len) V(ag_u64, row0) V(ag_u64, parts) V(ag_u32, shift)
#define AG_SHAPE_RADIX_SCATTER(A, V, B, T1, T2, T3)                                                \
  B(const T1, keys) B(T1, keys_out) B(const ag_u64, idx) B(ag_u64, idx_out) B(const ag_u64, counts)             \
  B(const ag_u64, ends) V(ag_u64, len) V(ag_u64, row0) V(ag_u64, parts) V(ag_u32, shift) V(ag_u32, with_idx)
/* n is the rows. */
#define AG_SHAPE_SORT_SMALL(A, V, B, T1, T2, T3) B(T1, keys) B(ag_u64, idx) V(ag_u64, len) V(ag_u32, with_idx)

/* Rows this long or shorter are sorted by ag_sort_small, one item a row. */
#define AG_SORT_SMALL 32

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

/* The key's width in bits, by dtype code (variant.h's AG_TC). */
#if AG_TC == 0 || AG_TC == 8 || AG_TC == 9
#define AG_SORT_BITS 8
#elif AG_TC == 1 || AG_TC == 10
#define AG_SORT_BITS 16
#elif AG_TC == 2 || AG_TC == 3 || AG_TC == 4
#define AG_SORT_BITS 32
#elif AG_TC == 5 || AG_TC == 11 || AG_TC == 12
#define AG_SORT_BITS 64
#endif

#if defined(AG_SORT_BITS) && (!AG_NEEDS_F64 || AG_HAVE_F64)

#if AG_SORT_BITS == 64
#define AG_SK ag_u64
#define AG_SORT_MASK (~(ag_u64)0)
#define AG_SORT_SIGN ((ag_u64)1 << 63)
#elif AG_SORT_BITS == 32
#define AG_SK ag_u32
#define AG_SORT_MASK 0xffffffffu
#define AG_SORT_SIGN 0x80000000u
#else
#define AG_SK ag_u32
#define AG_SORT_MASK ((1u << AG_SORT_BITS) - 1u)
#define AG_SORT_SIGN (1u << (AG_SORT_BITS - 1))
#endif

AG_INLINE AG_SK AG_KN(ag_sort_enc)(AG_T v, ag_u32 flags) {
  AG_SK k;
#if AG_FLOAT
#if AG_SORT_BITS == 64
  k = AG_F64_BITS(v);
#else
  k = AG_F32_BITS(v);
#endif
  if (v != v)
    k = AG_SORT_MASK >> 1; /* every NaN one NaN, after +inf */
  if ((flags & 2u) != 0u && k == AG_SORT_SIGN)
    k = 0; /* -0.0 as +0.0 */
  k = (k & AG_SORT_SIGN) != 0 ? ~k : k | AG_SORT_SIGN;
#elif AG_SINT
  k = ((AG_SK)v & AG_SORT_MASK) ^ AG_SORT_SIGN;
#else
  k = (AG_SK)v;
#endif
  return (flags & 1u) != 0u ? k ^ AG_SORT_MASK : k;
}

AG_INLINE AG_T AG_KN(ag_sort_dec)(AG_SK k, ag_u32 flags) {
  if ((flags & 1u) != 0u)
    k ^= AG_SORT_MASK;
#if AG_FLOAT
  k = (k & AG_SORT_SIGN) != 0 ? k ^ AG_SORT_SIGN : ~k;
#if AG_SORT_BITS == 64
  return AG_BITS_F64(k);
#else
  return AG_BITS_F32(k);
#endif
#elif AG_SINT
  return (AG_T)(k ^ AG_SORT_SIGN);
#else
  return (AG_T)k;
#endif
}

/* Key i's place in x and out: row r = o * inner + j, element k. */
#define AG_SORT_AT(i) ((((i) / len) / inner * len + (i) % len) * inner + ((i) / len) % inner)

AG_EW(AG_KN(ag_sort_keys), AG_SHAPE_SORT_KEYS, AG_T, AG_SK, , AG_EACH,
      keys[i] = AG_KN(ag_sort_enc)(x[inner == 1u ? i : AG_SORT_AT(i)], flags);
      if ((flags & 2u) != 0u) idx[i] = i % len)

AG_EW(AG_KN(ag_sort_values), AG_SHAPE_SORT_VALUES, AG_T, AG_SK, , AG_EACH,
      out[inner == 1u ? i : AG_SORT_AT(i)] = AG_KN(ag_sort_dec)(keys[i], flags))

#if AG_TC == 12
AG_EW(AG_KN(ag_sort_place), AG_SHAPE_SORT_PLACE, AG_T, , , AG_EACH,
      out[inner == 1u ? i : AG_SORT_AT(i)] = idx[i])
#endif

#if AG_TC == 2 || AG_TC == 12
/* Item i's row (in the batch) b, piece p, and the piece's keys [k0, k1) of the row. */
#define AG_RADIX_ITEM                                                                              \
  const ag_u64 b = i / parts, p = i % parts, plen_ = (len + parts - 1) / parts;                    \
  const ag_u64 k0 = p * plen_ < len ? p * plen_ : len, k1 = len - k0 < plen_ ? len : k0 + plen_;   \
  const ag_u64 base_ = (row0 + b) * len, table_ = b * 256u * parts + p;

AG_ITEMS(AG_KN(ag_radix_hist), AG_SHAPE_RADIX_HIST, AG_T, , , {
  AG_RADIX_ITEM
  ag_u64 c_[256];
  for (int d = 0; d < 256; d++)
    c_[d] = 0;
  for (ag_u64 k = k0; k < k1; k++)
    c_[(keys[base_ + k] >> shift) & 255u]++;
  for (int d = 0; d < 256; d++)
    counts[table_ + (ag_u64)d * parts] = c_[d];
})

AG_ITEMS(AG_KN(ag_radix_scatter), AG_SHAPE_RADIX_SCATTER, AG_T, , , {
  AG_RADIX_ITEM
  ag_u64 at_[256];
  for (int d = 0; d < 256; d++)
    at_[d] = base_ + ends[table_ + (ag_u64)d * parts] - counts[table_ + (ag_u64)d * parts];
  for (ag_u64 k = k0; k < k1; k++) {
    const AG_T v_ = keys[base_ + k];
    const ag_u64 to_ = at_[(v_ >> shift) & 255u]++;
    keys_out[to_] = v_;
    if (with_idx != 0u)
      idx_out[to_] = idx[base_ + k];
  }
})

AG_ITEMS(AG_KN(ag_sort_small), AG_SHAPE_SORT_SMALL, AG_T, , , {
  AG_GLOBAL AG_T *kr_ = keys + i * len;
  AG_GLOBAL ag_u64 *ir_ = idx + i * len;
  for (ag_u64 a = 1; a < len; a++) {
    const AG_T v_ = kr_[a];
    const ag_u64 w_ = with_idx != 0u ? ir_[a] : 0u;
    ag_u64 c = a;
    for (; c > 0 && kr_[c - 1] > v_; c--) {
      kr_[c] = kr_[c - 1];
      if (with_idx != 0u)
        ir_[c] = ir_[c - 1];
    }
    kr_[c] = v_;
    if (with_idx != 0u)
      ir_[c] = w_;
  }
})
#undef AG_RADIX_ITEM
#endif /* u32, u64 */

#undef AG_SORT_AT
#undef AG_SK
#undef AG_SORT_MASK
#undef AG_SORT_SIGN
#endif /* AG_SORT_BITS && (!AG_NEEDS_F64 || AG_HAVE_F64) */

#undef AG_SORT_BITS
#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
