/* kernels_shared/elementwise.h - the elementwise family: the element functions of one dtype
   variant (the math, once for every dialect), then its kernels, which
   kernels_shared/skeleton_gpu.h turns into OpenCL C or CUDA C kernels and
   backends/host/kernels/skeleton.h into host C functions. Expanded once per dtype (AG_TC, see
   variant.h). Kernel names are ag_<op>_<dtype> with a suffix for the binary forms (below);
   their parameters are the shapes' lists. */

/* ---- parameter lists (skeleton_gpu.h), also read by the op layer (src/launch.h) ---- */
/* out = f(x); T2 is out's type (real for abs, real and imag of complex x). */
#define AG_SHAPE_UNARY(A, V, B, T1, T2, T3) A(const T1, x) A(T2, out)
/* out = a op b, same shapes. */
#define AG_SHAPE_BINARY(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(T1, out)
/* out = a op b, where one operand has m elements and repeats along the other's leading axes. */
#define AG_SHAPE_BINARY_REPEAT(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) V(ag_u64, m) A(T1, out)
/* out = x op s, or s op x. */
#define AG_SHAPE_BINARY_SCALAR(A, V, B, T1, T2, T3) A(const T1, x) V(T1, s) A(T1, out)
/* out = alpha x + beta y; T2 is the real type. */
#define AG_SHAPE_AXPBY(A, V, B, T1, T2, T3) A(const T1, x) V(T2, alpha) A(const T1, y) V(T2, beta) A(T1, out)
/* out = soft threshold of x at alpha; T2 is the real type. */
#define AG_SHAPE_SOFT_THRESHOLD(A, V, B, T1, T2, T3) A(const T1, x) V(T2, alpha) A(T1, out)
#define AG_SHAPE_CLAMP(A, V, B, T1, T2, T3) A(const T1, x) V(T1, lo) V(T1, hi) A(T1, out)
/* out = (a op b) ? 1 : 0, a u8 mask: same shapes, b repeated (m elements) along a's leading
   axes, or x op s. */
#define AG_SHAPE_COMPARE(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(ag_u8, out)
#define AG_SHAPE_COMPARE_REPEAT(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) V(ag_u64, m) A(ag_u8, out)
#define AG_SHAPE_COMPARE_SCALAR(A, V, B, T1, T2, T3) A(const T1, x) V(T1, s) A(ag_u8, out)
/* out = c ? a : b, c of u8. */
#define AG_SHAPE_WHERE(A, V, B, T1, T2, T3) A(const ag_u8, c) A(const T1, a) A(const T1, b) A(T1, out)
/* x viewed as [rows][d1][d2][d3], each of the last three axes rolled by its s (0 <= s < d). */
#define AG_SHAPE_ROLL(A, V, B, T1, T2, T3)                                                         \
  A(const T1, x) A(T1, out) V(ag_u64, d1) V(ag_u64, d2) V(ag_u64, d3) V(ag_u64, s1) V(ag_u64, s2) V(ag_u64, s3)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "complex.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

#if AG_CPLX
#define AG_CF(name) AG_CAT2(ag_c##name, AG_RSFX)
#endif
#define AG_RF(name) AG_CAT3(AG_, name, AG_RSFX)

/* ---- one input ---- */
#if AG_SINT || AG_FLOAT || AG_CPLX
AG_INLINE AG_T AG_E(neg)(AG_T x) {
#if AG_SINT
  return (AG_T)((AG_UT)0 - (AG_UT)x); /* wraps, as unsigned arithmetic does; -INT_MIN is INT_MIN */
#elif AG_FLOAT
  return -x;
#else
  return AG_MAKE(-x.x, -x.y);
#endif
}
#endif

/* Arithmetic: every kind but bool, which takes comparisons, where, conversions and copies. */
#if !AG_BOOLEAN
#if AG_CPLX
AG_INLINE AG_R AG_E(abs)(AG_T x) { return AG_CF(abs)(x); }
#else
AG_INLINE AG_T AG_E(abs)(AG_T x) {
#if AG_UINT
  return x;
#elif AG_SINT
  return x < 0 ? (AG_T)((AG_UT)0 - (AG_UT)x) : x;
#else
  return AG_RF(FABS)(x);
#endif
}
#endif

#if AG_FLOAT
AG_INLINE AG_T AG_E(sqrt)(AG_T x) { return AG_RF(SQRT)(x); }
AG_INLINE AG_T AG_E(exp)(AG_T x) { return AG_RF(EXP)(x); }
AG_INLINE AG_T AG_E(log)(AG_T x) { return AG_RF(LOG)(x); }
AG_INLINE AG_T AG_E(sin)(AG_T x) { return AG_RF(SIN)(x); }
AG_INLINE AG_T AG_E(cos)(AG_T x) { return AG_RF(COS)(x); }
#elif AG_CPLX
AG_INLINE AG_T AG_E(sqrt)(AG_T x) { return AG_CF(sqrt)(x); }
AG_INLINE AG_T AG_E(exp)(AG_T x) { return AG_CF(exp)(x); }
AG_INLINE AG_T AG_E(log)(AG_T x) { return AG_CF(log)(x); }
AG_INLINE AG_T AG_E(sin)(AG_T x) { return AG_CF(sin)(x); }
AG_INLINE AG_T AG_E(cos)(AG_T x) { return AG_CF(cos)(x); }
#endif

AG_INLINE AG_T AG_E(square)(AG_T x) {
#if AG_INT
  return (AG_T)((AG_UT)x * (AG_UT)x); /* unsigned: wraps, never overflows a signed type */
#elif AG_FLOAT
  return x * x;
#else
  return AG_CF(mul)(x, x);
#endif
}

#if !AG_UINT
AG_INLINE AG_T AG_E(sign)(AG_T x) {
#if AG_SINT
  return (AG_T)((x > 0) - (x < 0));
#elif AG_FLOAT
  return x > 0 ? (AG_T)1 : x < 0 ? (AG_T)-1 : x; /* keeps NaN and the zero's sign */
#else
  return AG_CF(sign)(x);
#endif
}
#endif

#if AG_CPLX
AG_INLINE AG_T AG_E(conj)(AG_T x) { return AG_MAKE(x.x, -x.y); }
AG_INLINE AG_R AG_E(real)(AG_T x) { return x.x; }
AG_INLINE AG_R AG_E(imag)(AG_T x) { return x.y; }
#else
AG_INLINE AG_T AG_E(conj)(AG_T x) { return x; }
AG_INLINE AG_T AG_E(real)(AG_T x) { return x; }
AG_INLINE AG_T AG_E(imag)(AG_T x) {
  (void)x;
  return (AG_T)0;
}
#endif

/* ---- two inputs ---- */
#if AG_INT
/* In AG_UT, unsigned and at least 32 bits wide: results wrap modulo 2^bits as numpy's do,
   where signed arithmetic would overflow (undefined in C) and narrow operands would first be
   promoted to int. */
AG_INLINE AG_T AG_E(add)(AG_T a, AG_T b) { return (AG_T)((AG_UT)a + (AG_UT)b); }
AG_INLINE AG_T AG_E(sub)(AG_T a, AG_T b) { return (AG_T)((AG_UT)a - (AG_UT)b); }
AG_INLINE AG_T AG_E(mul)(AG_T a, AG_T b) { return (AG_T)((AG_UT)a * (AG_UT)b); }
AG_INLINE AG_T AG_E(div)(AG_T a, AG_T b) {
#if AG_SINT && AG_TC == 9
  /* i8: on magnitudes in 32 bits. rusticl 22.3 (llvmpipe) crashes running a signed division
     of 8-bit values, which a / b here would become (docs/portability.md, i8-division). x / 0
     is 0; -128 / -1 wraps back to -128. */
  ag_u32 ua = a < 0 ? 0u - (ag_u32)a : (ag_u32)a, ub = b < 0 ? 0u - (ag_u32)b : (ag_u32)b;
  ag_u32 q = b == 0 ? 0u : ua / ub;
  return (AG_T)((a < 0) != (b < 0) ? 0u - q : q);
#elif AG_SINT
  /* x / 0 is 0 (numpy's answer, where C traps); INT_MIN / -1 wraps instead of trapping. */
  return b == 0 ? (AG_T)0 : b == -1 ? (AG_T)((AG_UT)0 - (AG_UT)a) : (AG_T)(a / b);
#else
  return b == 0 ? (AG_T)0 : (AG_T)(a / b);
#endif
}
AG_INLINE AG_T AG_E(minimum)(AG_T a, AG_T b) { return a < b ? a : b; }
AG_INLINE AG_T AG_E(maximum)(AG_T a, AG_T b) { return a > b ? a : b; }
#elif AG_FLOAT
AG_INLINE AG_T AG_E(add)(AG_T a, AG_T b) { return a + b; }
AG_INLINE AG_T AG_E(sub)(AG_T a, AG_T b) { return a - b; }
AG_INLINE AG_T AG_E(mul)(AG_T a, AG_T b) { return a * b; }
AG_INLINE AG_T AG_E(div)(AG_T a, AG_T b) { return a / b; }
AG_INLINE AG_T AG_E(pow)(AG_T a, AG_T b) { return AG_RF(POW)(a, b); }
/* NaN in either operand gives NaN, as numpy.minimum does (C's fmin would drop it). */
AG_INLINE AG_T AG_E(minimum)(AG_T a, AG_T b) { return a != a ? a : b != b ? b : a < b ? a : b; }
AG_INLINE AG_T AG_E(maximum)(AG_T a, AG_T b) { return a != a ? a : b != b ? b : a > b ? a : b; }
#else
AG_INLINE AG_T AG_E(add)(AG_T a, AG_T b) { return AG_CF(add)(a, b); }
AG_INLINE AG_T AG_E(sub)(AG_T a, AG_T b) { return AG_CF(sub)(a, b); }
AG_INLINE AG_T AG_E(mul)(AG_T a, AG_T b) { return AG_CF(mul)(a, b); }
AG_INLINE AG_T AG_E(div)(AG_T a, AG_T b) { return AG_CF(div)(a, b); }
AG_INLINE AG_T AG_E(pow)(AG_T a, AG_T b) { return AG_CF(pow)(a, b); }
#endif

/* ---- fused ---- */
#if AG_FLOAT
AG_INLINE AG_T AG_E(axpby)(AG_T x, AG_T y, AG_R alpha, AG_R beta) { return alpha * x + beta * y; }
AG_INLINE AG_T AG_E(soft_threshold)(AG_T v, AG_R alpha) {
  if (v != v)
    return v;
  AG_T m = AG_RF(FABS)(v) - alpha;
  return m > 0 ? (v < 0 ? -m : m) : (AG_T)0;
}
#elif AG_CPLX
AG_INLINE AG_T AG_E(axpby)(AG_T x, AG_T y, AG_R alpha, AG_R beta) {
  return AG_MAKE(alpha * x.x + beta * y.x, alpha * x.y + beta * y.y);
}
AG_INLINE AG_T AG_E(soft_threshold)(AG_T v, AG_R alpha) {
  AG_R m = AG_CF(abs)(v);
  if (m != m)
    return v;
  AG_R s = m - alpha;
  return s > 0 ? AG_CF(scale)(v, s / m) : AG_MAKE((AG_R)0, (AG_R)0);
}
#endif
#if AG_REAL
AG_INLINE AG_T AG_E(clamp)(AG_T x, AG_T lo, AG_T hi) {
#if AG_FLOAT
  if (x != x)
    return x;
#endif
  return x < lo ? lo : x > hi ? hi : x;
}
#endif
#endif /* !AG_BOOLEAN */
AG_INLINE AG_T AG_E(where)(ag_u8 c, AG_T a, AG_T b) { return c ? a : b; }

/* ---- comparisons: 1 or 0, as C compares (a NaN operand makes all but ne false); complex
   numbers are equal when both parts are. ---- */
/* bool compares as the integers 0 and 1 (false < true), as numpy's does. */
#if AG_CPLX
AG_INLINE ag_u8 AG_E(eq)(AG_T a, AG_T b) { return (ag_u8)(a.x == b.x && a.y == b.y); }
AG_INLINE ag_u8 AG_E(ne)(AG_T a, AG_T b) { return (ag_u8)!(a.x == b.x && a.y == b.y); }
#else
AG_INLINE ag_u8 AG_E(eq)(AG_T a, AG_T b) { return (ag_u8)(a == b); }
AG_INLINE ag_u8 AG_E(ne)(AG_T a, AG_T b) { return (ag_u8)(a != b); }
AG_INLINE ag_u8 AG_E(lt)(AG_T a, AG_T b) { return (ag_u8)(a < b); }
AG_INLINE ag_u8 AG_E(le)(AG_T a, AG_T b) { return (ag_u8)(a <= b); }
AG_INLINE ag_u8 AG_E(gt)(AG_T a, AG_T b) { return (ag_u8)(a > b); }
AG_INLINE ag_u8 AG_E(ge)(AG_T a, AG_T b) { return (ag_u8)(a >= b); }
#endif

/* ---- conversions: AG_T to each other dtype (ag_astype). Float to integer truncates toward
   zero and saturates, NaN giving 0; integer to integer wraps (modulo 2^bits, as numpy and C's
   conversions to unsigned types do; to signed types every compiler the kernels meet wraps the
   same way); anything to bool is x != 0 (complex: either part; NaN is true); bool is 0 or 1.
   Complex to a real dtype has no conversion (the op layer refuses it). ---- */
#if AG_FLOAT
#define AG_SAT(x, lo, hi, TO) ((x) != (x) ? (TO)0 : (x) <= (AG_T)(lo) ? (TO)(lo) : (x) >= (AG_T)(hi) ? (TO)(hi) : (TO)(x))
AG_INLINE ag_u8 AG_E(to_u8)(AG_T x) { return AG_SAT(x, 0, 255, ag_u8); }
AG_INLINE ag_u16 AG_E(to_u16)(AG_T x) { return AG_SAT(x, 0, 65535, ag_u16); }
/* Through i32: rusticl 22.3 (llvmpipe) crashes converting a float to an 8-bit signed integer
   directly (docs/portability.md, i8-division). */
AG_INLINE ag_i8 AG_E(to_i8)(AG_T x) { return (ag_i8)AG_SAT(x, -128, 127, ag_i32); }
AG_INLINE ag_i16 AG_E(to_i16)(AG_T x) { return AG_SAT(x, -32768, 32767, ag_i16); }
#undef AG_SAT
/* The wider types' limits are not all floats: x is compared with the powers of two beyond
   them, which are. */
AG_INLINE ag_u32 AG_E(to_u32)(AG_T x) {
  return x != x ? 0u : x <= 0 ? 0u : x >= (AG_T)4294967296.0 ? 4294967295u : (ag_u32)x;
}
AG_INLINE ag_i32 AG_E(to_i32)(AG_T x) {
  return x != x ? 0 : x <= (AG_T)-2147483648.0 ? (ag_i32)(-2147483647 - 1)
                    : x >= (AG_T)2147483648.0 ? 2147483647 : (ag_i32)x;
}
AG_INLINE ag_u64 AG_E(to_u64)(AG_T x) {
  return x != x ? (ag_u64)0 : x <= 0 ? (ag_u64)0 : x >= (AG_T)18446744073709551616.0 ? ~(ag_u64)0 : (ag_u64)x;
}
AG_INLINE ag_i64 AG_E(to_i64)(AG_T x) {
  ag_i64 most = (ag_i64)(~(ag_u64)0 >> 1);
  return x != x ? (ag_i64)0 : x <= (AG_T)-9223372036854775808.0 ? -most - 1
                             : x >= (AG_T)9223372036854775808.0 ? most : (ag_i64)x;
}
#elif AG_INT || AG_BOOLEAN
AG_INLINE ag_u8 AG_E(to_u8)(AG_T x) { return (ag_u8)x; }
AG_INLINE ag_u16 AG_E(to_u16)(AG_T x) { return (ag_u16)x; }
AG_INLINE ag_u32 AG_E(to_u32)(AG_T x) { return (ag_u32)x; }
AG_INLINE ag_u64 AG_E(to_u64)(AG_T x) { return (ag_u64)x; }
AG_INLINE ag_i8 AG_E(to_i8)(AG_T x) { return (ag_i8)x; }
AG_INLINE ag_i16 AG_E(to_i16)(AG_T x) { return (ag_i16)x; }
AG_INLINE ag_i32 AG_E(to_i32)(AG_T x) { return (ag_i32)x; }
AG_INLINE ag_i64 AG_E(to_i64)(AG_T x) { return (ag_i64)x; }
#endif
#if AG_CPLX
AG_INLINE ag_u8 AG_E(to_b1)(AG_T x) { return (ag_u8)(x.x != 0 || x.y != 0); }
AG_INLINE ag_c64 AG_E(to_c64)(AG_T x) { return AG_C64((ag_f32)x.x, (ag_f32)x.y); }
#if AG_HAVE_F64
AG_INLINE ag_c128 AG_E(to_c128)(AG_T x) { return AG_C128((ag_f64)x.x, (ag_f64)x.y); }
#endif
#elif AG_BOOLEAN
AG_INLINE ag_u8 AG_E(to_b1)(AG_T x) { return x; } /* the copy kernel: bytes as they are */
#endif
#if !AG_CPLX
#if !AG_BOOLEAN
AG_INLINE ag_u8 AG_E(to_b1)(AG_T x) { return (ag_u8)(x != 0); }
#endif
AG_INLINE ag_f32 AG_E(to_f32)(AG_T x) { return (ag_f32)x; }
AG_INLINE ag_c64 AG_E(to_c64)(AG_T x) { return AG_C64((ag_f32)x, 0.0f); }
#if AG_HAVE_F64
AG_INLINE ag_f64 AG_E(to_f64)(AG_T x) { return (ag_f64)x; }
AG_INLINE ag_c128 AG_E(to_c128)(AG_T x) { return AG_C128((ag_f64)x, 0.0); }
#endif
#endif

#ifndef AG_ROLL_SOURCE
#define AG_ROLL_SOURCE
/* The source of element i of a roll: out[..., j] = x[..., (j - s) mod d] on each rolled axis. */
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

/* ---- the kernels ---- */
#if AG_CPLX
#define AG_ABS_OUT AG_R
#else
#define AG_ABS_OUT AG_T
#endif
#define AG_UNARY(K, TO, FN) AG_EW(K, AG_SHAPE_UNARY, AG_T, TO, , AG_EACH, out[i] = FN(x[i]))

#if !AG_BOOLEAN
#if AG_SINT || AG_FLOAT || AG_CPLX
AG_UNARY(AG_KN(ag_neg), AG_T, AG_E(neg))
#endif
AG_UNARY(AG_KN(ag_abs), AG_ABS_OUT, AG_E(abs))
#if AG_FLOAT || AG_CPLX
AG_UNARY(AG_KN(ag_sqrt), AG_T, AG_E(sqrt))
AG_UNARY(AG_KN(ag_exp), AG_T, AG_E(exp))
AG_UNARY(AG_KN(ag_log), AG_T, AG_E(log))
AG_UNARY(AG_KN(ag_sin), AG_T, AG_E(sin))
AG_UNARY(AG_KN(ag_cos), AG_T, AG_E(cos))
#endif
AG_UNARY(AG_KN(ag_square), AG_T, AG_E(square))
#if !AG_UINT
AG_UNARY(AG_KN(ag_sign), AG_T, AG_E(sign))
#endif
AG_UNARY(AG_KN(ag_conj), AG_T, AG_E(conj))
AG_UNARY(AG_KN(ag_real), AG_ABS_OUT, AG_E(real))
AG_UNARY(AG_KN(ag_imag), AG_ABS_OUT, AG_E(imag))
#endif /* !AG_BOOLEAN */

/* Each binary operation in five forms: ag_add_f32 (a op b), ag_add_f32_bb and _ba (b, or a,
   repeated along the other's leading axes), ag_add_f32_s and _rs (a scalar on the right, or
   on the left). */
#define AG_BINARY_FORMS(K, FN)                                                                     \
  AG_EW(AG_KN(K), AG_SHAPE_BINARY, AG_T, , , AG_EACH, out[i] = FN(a[i], b[i]))                     \
  AG_EW(AG_CAT2(AG_KN(K), _bb), AG_SHAPE_BINARY_REPEAT, AG_T, , , AG_EACH_REPEAT, out[i] = FN(a[i], b[j])) \
  AG_EW(AG_CAT2(AG_KN(K), _ba), AG_SHAPE_BINARY_REPEAT, AG_T, , , AG_EACH_REPEAT, out[i] = FN(a[j], b[i])) \
  AG_EW(AG_CAT2(AG_KN(K), _s), AG_SHAPE_BINARY_SCALAR, AG_T, , , AG_EACH, out[i] = FN(x[i], s))    \
  AG_EW(AG_CAT2(AG_KN(K), _rs), AG_SHAPE_BINARY_SCALAR, AG_T, , , AG_EACH, out[i] = FN(s, x[i]))
#if !AG_BOOLEAN
AG_BINARY_FORMS(ag_add, AG_E(add))
AG_BINARY_FORMS(ag_sub, AG_E(sub))
AG_BINARY_FORMS(ag_mul, AG_E(mul))
AG_BINARY_FORMS(ag_div, AG_E(div))
#if AG_FLOAT || AG_CPLX
AG_BINARY_FORMS(ag_pow, AG_E(pow))
#endif
#if AG_REAL
AG_BINARY_FORMS(ag_minimum, AG_E(minimum))
AG_BINARY_FORMS(ag_maximum, AG_E(maximum))
#endif

#if AG_FLOAT || AG_CPLX
AG_EW(AG_KN(ag_axpby), AG_SHAPE_AXPBY, AG_T, AG_R, , AG_EACH, out[i] = AG_E(axpby)(x[i], y[i], alpha, beta))
AG_EW(AG_KN(ag_soft_threshold), AG_SHAPE_SOFT_THRESHOLD, AG_T, AG_R, , AG_EACH,
      out[i] = AG_E(soft_threshold)(x[i], alpha))
#endif
#if AG_REAL
AG_EW(AG_KN(ag_clamp), AG_SHAPE_CLAMP, AG_T, , , AG_EACH, out[i] = AG_E(clamp)(x[i], lo, hi))
#endif
#endif /* !AG_BOOLEAN */
/* Each comparison in three forms: ag_lt_f32 (a < b), ag_lt_f32_bb (b repeated along a's leading
   axes) and ag_lt_f32_s (x < s). The op layer covers a repeated a and a scalar on the left by
   exchanging the operands (a < b is b > a). */
#define AG_COMPARE_FORMS(K, FN)                                                                    \
  AG_EW(AG_KN(K), AG_SHAPE_COMPARE, AG_T, , , AG_EACH, out[i] = FN(a[i], b[i]))                    \
  AG_EW(AG_CAT2(AG_KN(K), _bb), AG_SHAPE_COMPARE_REPEAT, AG_T, , , AG_EACH_REPEAT, out[i] = FN(a[i], b[j])) \
  AG_EW(AG_CAT2(AG_KN(K), _s), AG_SHAPE_COMPARE_SCALAR, AG_T, , , AG_EACH, out[i] = FN(x[i], s))
AG_COMPARE_FORMS(ag_eq, AG_E(eq))
AG_COMPARE_FORMS(ag_ne, AG_E(ne))
#if AG_REAL || AG_BOOLEAN
AG_COMPARE_FORMS(ag_lt, AG_E(lt))
AG_COMPARE_FORMS(ag_le, AG_E(le))
AG_COMPARE_FORMS(ag_gt, AG_E(gt))
AG_COMPARE_FORMS(ag_ge, AG_E(ge))
#endif
AG_EW(AG_KN(ag_where), AG_SHAPE_WHERE, AG_T, , , AG_EACH, out[i] = AG_E(where)(c[i], a[i], b[i]))
AG_EW(AG_KN(ag_roll), AG_SHAPE_ROLL, AG_T, , , AG_EACH, out[i] = x[ag_roll_source(i, d1, d2, d3, s1, s2, s3)])

/* ag_astype_<from>_<to>. */
#define AG_ASTYPE(to, TO) AG_UNARY(AG_CAT3(AG_KN(ag_astype), _, to), TO, AG_CAT2(ag_e_to_##to, AG_SFX))
#if !AG_CPLX
AG_ASTYPE(u8, ag_u8)
AG_ASTYPE(u16, ag_u16)
AG_ASTYPE(u32, ag_u32)
AG_ASTYPE(u64, ag_u64)
AG_ASTYPE(i8, ag_i8)
AG_ASTYPE(i16, ag_i16)
AG_ASTYPE(i32, ag_i32)
AG_ASTYPE(i64, ag_i64)
AG_ASTYPE(f32, ag_f32)
#if AG_HAVE_F64
AG_ASTYPE(f64, ag_f64)
#endif
#endif
AG_ASTYPE(b1, ag_u8)
AG_ASTYPE(c64, ag_c64)
#if AG_HAVE_F64
AG_ASTYPE(c128, ag_c128)
#endif

#undef AG_ASTYPE
#undef AG_COMPARE_FORMS
#undef AG_BINARY_FORMS
#undef AG_UNARY
#undef AG_ABS_OUT
#if AG_CPLX
#undef AG_CF
#endif
#undef AG_RF

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
