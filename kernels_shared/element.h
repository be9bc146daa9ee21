/* kernels_shared/element.h - the element functions of one dtype variant: the math of the
   elementwise operations, comparisons and conversions, once for every dialect, as
   ag_e_<name>_<dtype> (AG_E). Included inside a variant (kernels_shared/variant.h) by the
   families whose kernels apply them: elementwise (contiguous operands) and strided (views);
   variant_end.h undoes its AG_CF and AG_RF. */

#if AG_CPLX
#define AG_CF(name) AG_CAT2(ag_c##name, AG_RSFX)
#endif
#define AG_RF(name) AG_CAT3(AG_, name, AG_RSFX)

/* ---- one input ---- */
#if !AG_BOOLEAN
AG_INLINE AG_T AG_E(neg)(AG_T x) {
#if AG_INT
  /* wraps, as unsigned arithmetic does: -INT_MIN is INT_MIN, and unsigned -x is 2^bits - x, as
     numpy's */
  return (AG_T)((AG_UT)0 - (AG_UT)x);
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

AG_INLINE AG_T AG_E(sign)(AG_T x) {
#if AG_UINT
  return (AG_T)(x > 0);
#elif AG_SINT
  return (AG_T)((x > 0) - (x < 0));
#elif AG_FLOAT
  return x > 0 ? (AG_T)1 : x < 0 ? (AG_T)-1 : x == 0 ? (AG_T)0 : x; /* NaN stays NaN; +0 for -0 */
#else
  return AG_CF(sign)(x);
#endif
}

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
/* a to the power b by squaring, wrapping as numpy's integer power does. A negative b (which
   numpy refuses) gives 1 / a^|b| truncated toward 0: 1 for a = 1, +-1 for a = -1, else 0. */
AG_INLINE AG_T AG_E(pow)(AG_T a, AG_T b) {
  AG_UT r = 1, base = (AG_UT)a, e = (AG_UT)b;
#if AG_SINT
  /* In AG_UT: rusticl 22.3 (llvmpipe) crashes on this choice made in i8 (docs/portability.md,
     i8-division). */
  if (b < 0)
    return (AG_T)(base == r ? r : base == (AG_UT)0 - r ? ((e & 1u) != 0 ? base : r) : (AG_UT)0);
#endif
#define AG_POW_STEP                                                                                \
  if ((e & 1u) != 0)                                                                               \
    r *= base;                                                                                     \
  base *= base;                                                                                    \
  e >>= 1;
#if AG_DIALECT_OPENCL
  /* One step per bit of the dtype, written out: no loop on OpenCL, because llvmpipe ends a
     work-item's loops after 65535 iterations in all (docs/portability.md, loop-limit), which a
     loop here, inside a kernel's loop over elements, reached. */
#define AG_POW_8 AG_POW_STEP AG_POW_STEP AG_POW_STEP AG_POW_STEP AG_POW_STEP AG_POW_STEP AG_POW_STEP AG_POW_STEP
  AG_POW_8
#if AG_TC != 0 && AG_TC != 9 /* 16 bits and more */
  AG_POW_8
#endif
#if AG_TC == 2 || AG_TC == 3 || AG_TC == 11 || AG_TC == 12 /* 32 and 64 */
  AG_POW_8 AG_POW_8
#endif
#if AG_TC == 11 || AG_TC == 12 /* 64 */
  AG_POW_8 AG_POW_8 AG_POW_8 AG_POW_8
#endif
#undef AG_POW_8
#else
  while (e != 0) {
    AG_POW_STEP
  }
#endif
#undef AG_POW_STEP
  return (AG_T)r;
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

/* The binary arithmetic operations this variant has, as F(kernel name, element function) for
   each: the list the elementwise (contiguous) and strided (views) families both expand. */
#if AG_BOOLEAN
#define AG_BINARY_OPS(F)
#else
#define AG_BINARY_POW_(F) F(ag_pow, AG_E(pow))
#if AG_REAL
#define AG_BINARY_EXTREMES_(F) F(ag_minimum, AG_E(minimum)) F(ag_maximum, AG_E(maximum))
#else
#define AG_BINARY_EXTREMES_(F)
#endif
#define AG_BINARY_OPS(F)                                                                           \
  F(ag_add, AG_E(add)) F(ag_sub, AG_E(sub)) F(ag_mul, AG_E(mul)) F(ag_div, AG_E(div)) AG_BINARY_POW_(F)      \
  AG_BINARY_EXTREMES_(F)
#endif
