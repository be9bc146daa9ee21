/* kernels_shared/elementwise.h - the elementwise operations of one dtype variant: first the
   element functions (the math, once for every dialect), then the list of kernels, each an
   AG_DEF_* invocation that the including file turns into OpenCL or CUDA kernels
   (kernels_shared/skeleton_gpu.h) or host C functions (backends/host/kernels/).

   Include with AG_TC set (see variant.h). With AG_EW_LIST_ONLY defined, only the kernel list
   is expanded (the host's second pass, which builds its table of kernels). Kernel names are
   ag_<op>_<dtype>; see docs/kernels.md for their arguments. */
#include "dialect.h"
#include "complex.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

#ifndef AG_EW_LIST_ONLY

#if AG_CPLX
#define AG_CF(name) AG_CAT2(ag_c##name, AG_RSFX)
#define AG_MK(re, im) AG_CAT2(AG_MK_, AG_TC)(re, im)
#define AG_MK_6 AG_C64
#define AG_MK_7 AG_C128
#endif
#define AG_RF(name) AG_CAT3(AG_, name, AG_RSFX)

/* ---- one input ---- */
#if AG_SINT || AG_FLOAT || AG_CPLX
AG_INLINE T AG_E(neg)(T x) {
#if AG_SINT
  return (T)(0u - (ag_u32)x); /* wraps, as unsigned arithmetic does; -INT_MIN is INT_MIN */
#elif AG_FLOAT
  return -x;
#else
  return AG_MK(-x.x, -x.y);
#endif
}
#endif

#if AG_CPLX
AG_INLINE R AG_E(abs)(T x) { return AG_CF(abs)(x); }
#else
AG_INLINE T AG_E(abs)(T x) {
#if AG_UINT
  return x;
#elif AG_SINT
  return x < 0 ? (T)(0u - (ag_u32)x) : x;
#else
  return AG_RF(FABS)(x);
#endif
}
#endif

#if AG_FLOAT
AG_INLINE T AG_E(sqrt)(T x) { return AG_RF(SQRT)(x); }
AG_INLINE T AG_E(exp)(T x) { return AG_RF(EXP)(x); }
AG_INLINE T AG_E(log)(T x) { return AG_RF(LOG)(x); }
AG_INLINE T AG_E(sin)(T x) { return AG_RF(SIN)(x); }
AG_INLINE T AG_E(cos)(T x) { return AG_RF(COS)(x); }
#elif AG_CPLX
AG_INLINE T AG_E(sqrt)(T x) { return AG_CF(sqrt)(x); }
AG_INLINE T AG_E(exp)(T x) { return AG_CF(exp)(x); }
AG_INLINE T AG_E(log)(T x) { return AG_CF(log)(x); }
AG_INLINE T AG_E(sin)(T x) { return AG_CF(sin)(x); }
AG_INLINE T AG_E(cos)(T x) { return AG_CF(cos)(x); }
#endif

AG_INLINE T AG_E(square)(T x) {
#if AG_INT
  return (T)((ag_u32)x * (ag_u32)x); /* 32-bit unsigned: wraps, never overflows an int */
#elif AG_FLOAT
  return x * x;
#else
  return AG_CF(mul)(x, x);
#endif
}

#if !AG_UINT
AG_INLINE T AG_E(sign)(T x) {
#if AG_SINT
  return (T)((x > 0) - (x < 0));
#elif AG_FLOAT
  return x > 0 ? (T)1 : x < 0 ? (T)-1 : x; /* keeps NaN and the zero's sign */
#else
  return AG_CF(sign)(x);
#endif
}
#endif

#if AG_CPLX
AG_INLINE T AG_E(conj)(T x) { return AG_MK(x.x, -x.y); }
AG_INLINE R AG_E(real)(T x) { return x.x; }
AG_INLINE R AG_E(imag)(T x) { return x.y; }
#else
AG_INLINE T AG_E(conj)(T x) { return x; }
AG_INLINE T AG_E(real)(T x) { return x; }
AG_INLINE T AG_E(imag)(T x) {
  (void)x;
  return (T)0;
}
#endif

/* ---- two inputs ---- */
#if AG_INT
AG_INLINE T AG_E(add)(T a, T b) { return (T)((ag_u32)a + (ag_u32)b); }
AG_INLINE T AG_E(sub)(T a, T b) { return (T)((ag_u32)a - (ag_u32)b); }
AG_INLINE T AG_E(mul)(T a, T b) { return (T)((ag_u32)a * (ag_u32)b); }
AG_INLINE T AG_E(div)(T a, T b) {
#if AG_SINT
  /* x / 0 is 0 (numpy's answer, where C traps); INT_MIN / -1 wraps instead of trapping. */
  return b == 0 ? (T)0 : b == -1 ? (T)(0u - (ag_u32)a) : (T)(a / b);
#else
  return b == 0 ? (T)0 : (T)(a / b);
#endif
}
AG_INLINE T AG_E(minimum)(T a, T b) { return a < b ? a : b; }
AG_INLINE T AG_E(maximum)(T a, T b) { return a > b ? a : b; }
#elif AG_FLOAT
AG_INLINE T AG_E(add)(T a, T b) { return a + b; }
AG_INLINE T AG_E(sub)(T a, T b) { return a - b; }
AG_INLINE T AG_E(mul)(T a, T b) { return a * b; }
AG_INLINE T AG_E(div)(T a, T b) { return a / b; }
AG_INLINE T AG_E(pow)(T a, T b) { return AG_RF(POW)(a, b); }
/* NaN in either operand gives NaN, as numpy.minimum does (C's fmin would drop it). */
AG_INLINE T AG_E(minimum)(T a, T b) { return a != a ? a : b != b ? b : a < b ? a : b; }
AG_INLINE T AG_E(maximum)(T a, T b) { return a != a ? a : b != b ? b : a > b ? a : b; }
#else
AG_INLINE T AG_E(add)(T a, T b) { return AG_CF(add)(a, b); }
AG_INLINE T AG_E(sub)(T a, T b) { return AG_CF(sub)(a, b); }
AG_INLINE T AG_E(mul)(T a, T b) { return AG_CF(mul)(a, b); }
AG_INLINE T AG_E(div)(T a, T b) { return AG_CF(div)(a, b); }
AG_INLINE T AG_E(pow)(T a, T b) { return AG_CF(pow)(a, b); }
#endif

/* ---- fused ---- */
#if AG_FLOAT
AG_INLINE T AG_E(axpby)(T x, T y, R alpha, R beta) { return alpha * x + beta * y; }
AG_INLINE T AG_E(soft_threshold)(T v, R alpha) {
  if (v != v)
    return v;
  T m = AG_RF(FABS)(v) - alpha;
  return m > 0 ? (v < 0 ? -m : m) : (T)0;
}
#elif AG_CPLX
AG_INLINE T AG_E(axpby)(T x, T y, R alpha, R beta) {
  return AG_MK(alpha * x.x + beta * y.x, alpha * x.y + beta * y.y);
}
AG_INLINE T AG_E(soft_threshold)(T v, R alpha) {
  R m = AG_CF(abs)(v);
  if (m != m)
    return v;
  R s = m - alpha;
  return s > 0 ? AG_CF(scale)(v, s / m) : AG_MK((R)0, (R)0);
}
#endif
#if AG_REAL
AG_INLINE T AG_E(clamp)(T x, T lo, T hi) {
#if AG_FLOAT
  if (x != x)
    return x;
#endif
  return x < lo ? lo : x > hi ? hi : x;
}
#endif
AG_INLINE T AG_E(where)(ag_u8 c, T a, T b) { return c ? a : b; }

/* ---- conversions: T to each other dtype (ag_astype). Float to integer truncates toward
   zero and saturates, NaN giving 0; integer to integer wraps. ---- */
#if AG_CPLX
#define AG_CVT_SRC_RE(x) (x).x
#else
#define AG_CVT_SRC_RE(x) (x)
#endif
#if AG_FLOAT
#define AG_SAT(x, lo, hi, TO) ((x) != (x) ? (TO)0 : (x) <= (T)(lo) ? (TO)(lo) : (x) >= (T)(hi) ? (TO)(hi) : (TO)(x))
AG_INLINE ag_u8 AG_E(to_u8)(T x) { return AG_SAT(x, 0, 255, ag_u8); }
AG_INLINE ag_u16 AG_E(to_u16)(T x) { return AG_SAT(x, 0, 65535, ag_u16); }
AG_INLINE ag_u32 AG_E(to_u32)(T x) {
  return x != x ? 0u : x <= 0 ? 0u : x >= (T)4294967296.0 ? 4294967295u : (ag_u32)x;
}
AG_INLINE ag_i32 AG_E(to_i32)(T x) {
  return x != x ? 0 : x <= (T)-2147483648.0 ? (ag_i32)(-2147483647 - 1)
                    : x >= (T)2147483648.0 ? 2147483647 : (ag_i32)x;
}
#undef AG_SAT
#elif AG_INT
AG_INLINE ag_u8 AG_E(to_u8)(T x) { return (ag_u8)(ag_u32)x; }
AG_INLINE ag_u16 AG_E(to_u16)(T x) { return (ag_u16)(ag_u32)x; }
AG_INLINE ag_u32 AG_E(to_u32)(T x) { return (ag_u32)x; }
AG_INLINE ag_i32 AG_E(to_i32)(T x) { return (ag_i32)(ag_u32)x; }
#endif
#if !AG_CPLX
AG_INLINE ag_f32 AG_E(to_f32)(T x) { return (ag_f32)x; }
AG_INLINE ag_c64 AG_E(to_c64)(T x) { return AG_C64((ag_f32)x, 0.0f); }
#if AG_HAVE_F64
AG_INLINE ag_f64 AG_E(to_f64)(T x) { return (ag_f64)x; }
AG_INLINE ag_c128 AG_E(to_c128)(T x) { return AG_C128((ag_f64)x, 0.0); }
#endif
#else
AG_INLINE ag_c64 AG_E(to_c64)(T x) { return AG_C64((ag_f32)x.x, (ag_f32)x.y); }
#if AG_HAVE_F64
AG_INLINE ag_c128 AG_E(to_c128)(T x) { return AG_C128((ag_f64)x.x, (ag_f64)x.y); }
#endif
#endif
#undef AG_CVT_SRC_RE

#if AG_CPLX
#undef AG_CF
#undef AG_MK
#undef AG_MK_6
#undef AG_MK_7
#endif
#undef AG_RF

#endif /* AG_EW_LIST_ONLY */

/* ---- the kernels ---- */
#if AG_CPLX
#define AG_ABS_OUT R
#else
#define AG_ABS_OUT T
#endif

#if AG_SINT || AG_FLOAT || AG_CPLX
AG_DEF_UNARY(AG_KN(neg), T, T, AG_E(neg))
#endif
AG_DEF_UNARY(AG_KN(abs), T, AG_ABS_OUT, AG_E(abs))
#if AG_FLOAT || AG_CPLX
AG_DEF_UNARY(AG_KN(sqrt), T, T, AG_E(sqrt))
AG_DEF_UNARY(AG_KN(exp), T, T, AG_E(exp))
AG_DEF_UNARY(AG_KN(log), T, T, AG_E(log))
AG_DEF_UNARY(AG_KN(sin), T, T, AG_E(sin))
AG_DEF_UNARY(AG_KN(cos), T, T, AG_E(cos))
#endif
AG_DEF_UNARY(AG_KN(square), T, T, AG_E(square))
#if !AG_UINT
AG_DEF_UNARY(AG_KN(sign), T, T, AG_E(sign))
#endif
AG_DEF_UNARY(AG_KN(conj), T, T, AG_E(conj))
AG_DEF_UNARY(AG_KN(real), T, AG_ABS_OUT, AG_E(real))
AG_DEF_UNARY(AG_KN(imag), T, AG_ABS_OUT, AG_E(imag))

/* Each binary operation in five forms: a op b, with b or a broadcast over the other's leading
   axes, and with a scalar on the right or the left. */
#define AG_BINARY_FORMS(op)                                                                    \
  AG_DEF_BINARY(AG_CAT2(ag_##op, AG_SFX), T, AG_CAT2(ag_e_##op, AG_SFX))                       \
  AG_DEF_BINARY_BCAST_B(AG_CAT3(ag_##op, AG_SFX, _bb), T, AG_CAT2(ag_e_##op, AG_SFX))          \
  AG_DEF_BINARY_BCAST_A(AG_CAT3(ag_##op, AG_SFX, _ba), T, AG_CAT2(ag_e_##op, AG_SFX))          \
  AG_DEF_BINARY_SCALAR(AG_CAT3(ag_##op, AG_SFX, _s), T, AG_CAT2(ag_e_##op, AG_SFX))            \
  AG_DEF_BINARY_RSCALAR(AG_CAT3(ag_##op, AG_SFX, _rs), T, AG_CAT2(ag_e_##op, AG_SFX))
AG_BINARY_FORMS(add)
AG_BINARY_FORMS(sub)
AG_BINARY_FORMS(mul)
AG_BINARY_FORMS(div)
#if AG_FLOAT || AG_CPLX
AG_BINARY_FORMS(pow)
#endif
#if AG_REAL
AG_BINARY_FORMS(minimum)
AG_BINARY_FORMS(maximum)
#endif
#undef AG_BINARY_FORMS

#if AG_FLOAT || AG_CPLX
AG_DEF_AXPBY(AG_KN(axpby), T, R, AG_E(axpby))
AG_DEF_SOFT(AG_KN(soft_threshold), T, R, AG_E(soft_threshold))
#endif
#if AG_REAL
AG_DEF_CLAMP(AG_KN(clamp), T, AG_E(clamp))
#endif
AG_DEF_WHERE(AG_KN(where), T, AG_E(where))
AG_DEF_ROLL(AG_KN(roll), T)

#define AG_ASTYPE(to, TO) AG_DEF_UNARY(AG_CAT3(AG_KN(astype), _, to), T, TO, AG_CAT2(ag_e_to_##to, AG_SFX))
#if !AG_CPLX
AG_ASTYPE(u8, ag_u8)
AG_ASTYPE(u16, ag_u16)
AG_ASTYPE(u32, ag_u32)
AG_ASTYPE(i32, ag_i32)
AG_ASTYPE(f32, ag_f32)
#if AG_HAVE_F64
AG_ASTYPE(f64, ag_f64)
#endif
#endif
AG_ASTYPE(c64, ag_c64)
#if AG_HAVE_F64
AG_ASTYPE(c128, ag_c128)
#endif
#undef AG_ASTYPE
#undef AG_ABS_OUT

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
