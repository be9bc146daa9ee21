/* kernels_shared/arith.h - the arith family: floor division, remainder, bitwise operations and
   shifts, with numpy's answers for every operand (negative, zero, out of range). Expanded once
   per dtype (AG_TC, see variant.h); kernel names and forms as the elementwise family's binary
   and unary kernels (ag_floor_divide_i32, _bb, _ba, _s, _rs), whose parameter lists they take,
   so src/elementwise.c launches both families alike. A family of its own so that the
   elementwise family's programs, built per dtype at first use, do not grow. */

/* The parameter lists: elementwise.h's. */
#include "ew_shapes.h"

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

#define AG_RF(name) AG_CAT3(AG_, name, AG_RSFX)

/* ---- floor division and remainder: a == (a // b) * b + a % b, a % b of b's sign ---- */
#if AG_UINT
/* x // 0 and x % 0 are 0, as numpy gives (C traps). */
AG_INLINE AG_T AG_E(floor_divide)(AG_T a, AG_T b) { return b == 0 ? (AG_T)0 : (AG_T)(a / b); }
AG_INLINE AG_T AG_E(remainder)(AG_T a, AG_T b) { return b == 0 ? (AG_T)0 : (AG_T)(a % b); }
#elif AG_SINT && AG_TC == 9
/* i8: on magnitudes in 32 bits, as ag_e_div_i8 (elementwise.h): rusticl 22.3 (llvmpipe)
   crashes running a signed division of 8-bit values (docs/portability.md, i8-division). The
   truncated quotient q and remainder r of the magnitudes, then rounded toward -inf: one less
   (in magnitude, one more) when the signs differ and r is not 0. x // 0 and x % 0 are 0;
   -128 // -1 is 128, which wraps to -128, and -128 % -1 is 0, as numpy gives. */
AG_INLINE AG_T AG_E(floor_divide)(AG_T a, AG_T b) {
  ag_u32 ua = a < 0 ? 0u - (ag_u32)a : (ag_u32)a, ub = b < 0 ? 0u - (ag_u32)b : (ag_u32)b;
  if (ub == 0u)
    return (AG_T)0;
  ag_u32 q = ua / ub, r = ua - q * ub;
  if ((a < 0) == (b < 0))
    return (AG_T)q;
  return (AG_T)(0u - q - (r != 0u ? 1u : 0u));
}
AG_INLINE AG_T AG_E(remainder)(AG_T a, AG_T b) {
  ag_u32 ua = a < 0 ? 0u - (ag_u32)a : (ag_u32)a, ub = b < 0 ? 0u - (ag_u32)b : (ag_u32)b;
  if (ub == 0u)
    return (AG_T)0;
  ag_u32 r = ua - ua / ub * ub;
  if (r == 0u)
    return (AG_T)0;
  /* r has a's sign in C's remainder; of b's sign instead, it is ub - r. */
  ag_u32 m = (a < 0) == (b < 0) ? r : ub - r;
  return (AG_T)(b < 0 ? 0u - m : m);
}
#elif AG_SINT
/* x // 0 and x % 0 are 0 (numpy's answer, where C traps); INT_MIN // -1 wraps to INT_MIN and
   INT_MIN % -1 is 0 (C's division overflows there). */
AG_INLINE AG_T AG_E(floor_divide)(AG_T a, AG_T b) {
  if (b == 0)
    return (AG_T)0;
  if (b == -1)
    return (AG_T)((AG_UT)0 - (AG_UT)a);
  AG_T q = (AG_T)(a / b), r = (AG_T)(a % b);
  return r != 0 && (r < 0) != (b < 0) ? (AG_T)(q - 1) : q;
}
AG_INLINE AG_T AG_E(remainder)(AG_T a, AG_T b) {
  if (b == 0 || b == -1)
    return (AG_T)0;
  AG_T r = (AG_T)(a % b);
  return r != 0 && (r < 0) != (b < 0) ? (AG_T)(r + b) : r;
}
#elif AG_FLOAT
/* numpy's npy_divmod (npymath, after CPython's float divmod): the remainder from fmod, moved
   to b's sign; the quotient (a - mod) / b, nearly an integer, snapped to the nearest one. A
   zero remainder takes b's sign, a zero quotient the sign of a / b. b == 0 is apart: the
   quotient is a / b (inf, or NaN for 0 / 0 and NaN a), the remainder fmod's NaN. */
AG_INLINE AG_T AG_E(divmod)(AG_T a, AG_T b, AG_T *mod_out) {
  AG_T mod = AG_RF(FMOD)(a, b);
  if (b == 0) {
    *mod_out = mod;
    return a / b;
  }
  AG_T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= (AG_T)1;
    }
  } else {
    mod = AG_RF(COPYSIGN)((AG_T)0, b);
  }
  AG_T floordiv;
  if (div != 0) {
    floordiv = AG_RF(FLOOR)(div);
    if (div - floordiv > (AG_T)0.5)
      floordiv += (AG_T)1;
  } else {
    floordiv = AG_RF(COPYSIGN)((AG_T)0, a / b);
  }
  *mod_out = mod;
  return floordiv;
}
AG_INLINE AG_T AG_E(floor_divide)(AG_T a, AG_T b) {
  AG_T mod;
  return AG_E(divmod)(a, b, &mod);
}
AG_INLINE AG_T AG_E(remainder)(AG_T a, AG_T b) {
  AG_T mod;
  AG_E(divmod)(a, b, &mod);
  return mod;
}
#endif

/* ---- bitwise: integers, and bool as logic (its bytes may hold any nonzero value for true) ---- */
#if AG_INT
AG_INLINE AG_T AG_E(bitwise_and)(AG_T a, AG_T b) { return (AG_T)(a & b); }
AG_INLINE AG_T AG_E(bitwise_or)(AG_T a, AG_T b) { return (AG_T)(a | b); }
AG_INLINE AG_T AG_E(bitwise_xor)(AG_T a, AG_T b) { return (AG_T)(a ^ b); }
AG_INLINE AG_T AG_E(bitwise_invert)(AG_T x) { return (AG_T)~x; }

/* Shifts: numpy takes the count as unsigned, so a negative count is a huge one, and a count of
   the width or more shifts every bit out: 0, or -1 for a negative x shifted right. C leaves
   such counts undefined and OpenCL takes them modulo the width, so they are decided here.
   Left: in AG_UT, wrapping as numpy's does; right: arithmetic for signed x, as every dialect's
   >> is on signed values. */
#define AG_BITS (8u * (ag_u32)sizeof(AG_T))
AG_INLINE AG_T AG_E(left_shift)(AG_T a, AG_T b) {
  return (AG_UT)b < (AG_UT)AG_BITS ? (AG_T)((AG_UT)a << (AG_UT)b) : (AG_T)0;
}
AG_INLINE AG_T AG_E(right_shift)(AG_T a, AG_T b) {
#if AG_SINT
  return (AG_UT)b < (AG_UT)AG_BITS ? (AG_T)(a >> (AG_UT)b) : a < 0 ? (AG_T)-1 : (AG_T)0;
#else
  return (AG_UT)b < (AG_UT)AG_BITS ? (AG_T)(a >> (AG_UT)b) : (AG_T)0;
#endif
}
#undef AG_BITS
#elif AG_BOOLEAN
AG_INLINE AG_T AG_E(bitwise_and)(AG_T a, AG_T b) { return (AG_T)(a != 0 && b != 0); }
AG_INLINE AG_T AG_E(bitwise_or)(AG_T a, AG_T b) { return (AG_T)(a != 0 || b != 0); }
AG_INLINE AG_T AG_E(bitwise_xor)(AG_T a, AG_T b) { return (AG_T)((a != 0) != (b != 0)); }
AG_INLINE AG_T AG_E(bitwise_invert)(AG_T x) { return (AG_T)(x == 0); }
#endif

/* ---- the kernels: each binary operation in elementwise.h's five forms (AG_BINARY_FORMS) ---- */

#if AG_INT || AG_FLOAT
AG_BINARY_FORMS(ag_floor_divide, AG_E(floor_divide))
AG_BINARY_FORMS(ag_remainder, AG_E(remainder))
#endif
#if AG_INT || AG_BOOLEAN
AG_BINARY_FORMS(ag_bitwise_and, AG_E(bitwise_and))
AG_BINARY_FORMS(ag_bitwise_or, AG_E(bitwise_or))
AG_BINARY_FORMS(ag_bitwise_xor, AG_E(bitwise_xor))
AG_EW(AG_KN(ag_bitwise_invert), AG_SHAPE_UNARY, AG_T, AG_T, , AG_EACH, out[i] = AG_E(bitwise_invert)(x[i]))
#endif
#if AG_INT
AG_BINARY_FORMS(ag_bitwise_left_shift, AG_E(left_shift))
AG_BINARY_FORMS(ag_bitwise_right_shift, AG_E(right_shift))
#endif

#undef AG_RF

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
