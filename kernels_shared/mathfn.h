/* kernels_shared/mathfn.h - the mathfn family: the elementwise functions of the Python array API
   standard that the elementwise family lacks. Trigonometric and hyperbolic functions and their
   inverses, expm1, log1p, log2, log10 (float and complex); floor, ceil, trunc and round; the
   tests isnan, isinf, isfinite and signbit, which give bool; and atan2, hypot, copysign and
   logaddexp of two real floats. Expanded once per dtype (AG_TC, see variant.h); kernel names
   and forms as the elementwise family's (ag_tan_f32; ag_atan2_f32, _bb, _ba, _s, _rs), whose
   parameter lists they take, so src/elementwise.c launches all three families alike. A family
   of its own, as arith is, so that the elementwise family's programs, built per dtype at first
   use, do not grow. */

/* The parameter lists: elementwise.h's. */
#include "ew_shapes.h"

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "complex.h"
#include "variant.h"

/* ---- complex functions, once per precision (CT the complex type, RT its real type, P the
   suffix), on complex.h's: Kahan's formulas for the inverse sine, cosine and hyperbolic cosine
   ("Branch cuts for complex elementary functions", 1987), which take their branch cuts on the
   real or imaginary axis where C99 and numpy do and keep full relative accuracy near 0 and 1,
   and his tanh (as FreeBSD's ctanh) for tanh and tan. Finite arguments of moderate size take
   the formulas; one beyond about 1e19 (f32) where squares overflow gives no promised value. An
   infinite or NaN part gives C99 Annex G's value, which is the array API standard's special
   case (tanh(+0 + inf i) = +0 + NaN i, as C23): the _nf functions below, each for arguments
   with such a part only. ---- */
#ifndef AG_KERNEL_MATHFN_COMPLEX_H
#define AG_KERNEL_MATHFN_COMPLEX_H
#define AG_PI_4 0.785398163397448309616
#define AG_PI_2 1.57079632679489661923
#define AG_PI_3_4 2.35619449019234492885
#define AG_PI 3.14159265358979323846
#define AG_COMPLEX_MATH(CT, RT, P, MAKE)                                                          \
  /* asinh and atanh are odd and commute with conjugation: the table for |x|, |y|, signed back. \
     acosh and acos commute with conjugation: the table for |y|. */                            \
  AG_INLINE CT ag_casinh_nf##P(CT a) {                                                         \
    RT x = AG_FABS##P(a.x), y = AG_FABS##P(a.y), nan = (a.x - a.x) + (a.y - a.y), re, im;      \
    if (AG_ISINFV(y)) {                                                                        \
      re = y;                                                                                  \
      im = x != x ? nan : AG_ISINFV(x) ? (RT)AG_PI_4 : (RT)AG_PI_2;                            \
    } else if (AG_ISINFV(x)) {                                                                 \
      re = x;                                                                                  \
      im = y == y ? (RT)0 : nan;                                                               \
    } else {                                                                                   \
      re = nan;                                                                                \
      im = y == 0 ? y : nan;                                                                   \
    }                                                                                          \
    return MAKE(AG_COPYSIGN##P(re, a.x), AG_COPYSIGN##P(im, a.y));                             \
  }                                                                                            \
  AG_INLINE CT ag_catanh_nf##P(CT a) {                                                         \
    RT x = AG_FABS##P(a.x), y = AG_FABS##P(a.y), nan = (a.x - a.x) + (a.y - a.y), re, im;      \
    if (AG_ISINFV(y) || AG_ISINFV(x)) {                                                        \
      re = 0;                                                                                  \
      im = AG_ISINFV(y) || y == y ? (RT)AG_PI_2 : nan;                                         \
    } else {                                                                                   \
      re = x == 0 ? x : nan;                                                                   \
      im = nan;                                                                                \
    }                                                                                          \
    return MAKE(AG_COPYSIGN##P(re, a.x), AG_COPYSIGN##P(im, a.y));                             \
  }                                                                                            \
  AG_INLINE CT ag_cacosh_nf##P(CT a) {                                                         \
    RT x = a.x, y = AG_FABS##P(a.y), nan = (a.x - a.x) + (a.y - a.y), re, im;                  \
    if (AG_ISINFV(y)) {                                                                        \
      re = y;                                                                                  \
      im = x != x ? nan : AG_ISINFV(x) ? (x < 0 ? (RT)AG_PI_3_4 : (RT)AG_PI_4) : (RT)AG_PI_2;  \
    } else if (AG_ISINFV(x)) {                                                                 \
      re = AG_FABS##P(x);                                                                      \
      im = y != y ? nan : x < 0 ? (RT)AG_PI : (RT)0;                                           \
    } else {                                                                                   \
      re = nan;                                                                                \
      im = x == 0 ? (RT)AG_PI_2 : nan;                                                         \
    }                                                                                          \
    return MAKE(re, AG_COPYSIGN##P(im, a.y));                                                  \
  }                                                                                            \
  AG_INLINE CT ag_cacos_nf##P(CT a) {                                                          \
    RT x = a.x, y = AG_FABS##P(a.y), nan = (a.x - a.x) + (a.y - a.y), re, im;                  \
    if (AG_ISINFV(y)) {                                                                        \
      re = x != x ? nan : AG_ISINFV(x) ? (x < 0 ? (RT)AG_PI_3_4 : (RT)AG_PI_4) : (RT)AG_PI_2;  \
      im = y;                                                                                  \
    } else if (AG_ISINFV(x)) {                                                                 \
      re = y != y ? nan : x < 0 ? (RT)AG_PI : (RT)0;                                           \
      im = AG_FABS##P(x);                                                                      \
    } else {                                                                                   \
      re = x == 0 ? (RT)AG_PI_2 : nan;                                                         \
      im = nan;                                                                                \
    }                                                                                          \
    return MAKE(re, -AG_COPYSIGN##P(im, a.y));                                                 \
  }                                                                                            \
  AG_INLINE CT ag_ctanh##P(CT a) {                                                             \
    if (AG_NOTFIN(a.y)) { /* +-0 + NaN i, +-1 +- 0i (infinite x), else NaN + NaN i */          \
      if (a.x == 0)                                                                            \
        return MAKE(a.x, a.y - a.y);                                                           \
      if (AG_ISINFV(a.x))                                                                      \
        return MAKE(AG_COPYSIGN##P((RT)1, a.x), AG_COPYSIGN##P((RT)0, a.y));                   \
      return MAKE(a.y - a.y, a.y - a.y);                                                       \
    }                                                                                          \
    if (a.y == 0)                                                                              \
      return MAKE(AG_TANH##P(a.x), a.y);                                                       \
    if (AG_ISINFV(a.x)) /* the standard's 1 + 0i for y > 0 (C99's 1 + 0 sin(2y) i) */          \
      return MAKE(AG_COPYSIGN##P((RT)1, a.x), AG_COPYSIGN##P((RT)0, a.y));                     \
    /* Beyond |x| = 22, tanh(x) is 1 to double precision: the imaginary part's sign only. */   \
    if (AG_FABS##P(a.x) > (RT)22)                                                              \
      return MAKE(AG_COPYSIGN##P((RT)1, a.x), AG_COPYSIGN##P((RT)0, AG_SIN##P(a.y) * AG_COS##P(a.y))); \
    RT t = AG_TAN##P(a.y), b = 1 + t * t, s = AG_SINH##P(a.x), r = AG_SQRT##P(1 + s * s);     \
    RT d = 1 + b * s * s;                                                                      \
    return MAKE(b * r * s / d, t / d);                                                         \
  }                                                                                            \
  AG_INLINE CT ag_ctan##P(CT a) { /* tan z = -i tanh(i z) */                                   \
    CT w = ag_ctanh##P(MAKE(-a.y, a.x));                                                       \
    return MAKE(w.y, -w.x);                                                                    \
  }                                                                                            \
  AG_INLINE CT ag_casin##P(CT a) {                                                             \
    if (AG_NOTFIN(a.x) || AG_NOTFIN(a.y)) { /* asin z = -i asinh(i z) */                       \
      CT w = ag_casinh_nf##P(MAKE(-a.y, a.x));                                                 \
      return MAKE(w.y, -w.x);                                                                  \
    }                                                                                          \
    CT s1 = ag_csqrt##P(MAKE(1 - a.x, -a.y)), s2 = ag_csqrt##P(MAKE(1 + a.x, a.y));           \
    return MAKE(AG_ATAN2##P(a.x, s1.x * s2.x - s1.y * s2.y), AG_ASINH##P(s1.x * s2.y - s1.y * s2.x)); \
  }                                                                                            \
  AG_INLINE CT ag_cacos##P(CT a) {                                                             \
    if (AG_NOTFIN(a.x) || AG_NOTFIN(a.y))                                                      \
      return ag_cacos_nf##P(a);                                                                \
    CT s1 = ag_csqrt##P(MAKE(1 - a.x, -a.y)), s2 = ag_csqrt##P(MAKE(1 + a.x, a.y));           \
    return MAKE(2 * AG_ATAN2##P(s1.x, s2.x), AG_ASINH##P(s2.x * s1.y - s2.y * s1.x));          \
  }                                                                                            \
  AG_INLINE CT ag_cacosh##P(CT a) {                                                            \
    if (AG_NOTFIN(a.x) || AG_NOTFIN(a.y))                                                      \
      return ag_cacosh_nf##P(a);                                                               \
    CT s1 = ag_csqrt##P(MAKE(a.x - 1, a.y)), s2 = ag_csqrt##P(MAKE(a.x + 1, a.y));            \
    return MAKE(AG_ASINH##P(s1.x * s2.x + s1.y * s2.y), 2 * AG_ATAN2##P(s1.y, s2.x));          \
  }                                                                                            \
  AG_INLINE CT ag_casinh##P(CT a) { /* asinh z = -i asin(i z) */                               \
    if (AG_NOTFIN(a.x) || AG_NOTFIN(a.y))                                                      \
      return ag_casinh_nf##P(a);                                                               \
    CT w = ag_casin##P(MAKE(-a.y, a.x));                                                       \
    return MAKE(w.y, -w.x);                                                                    \
  }                                                                                            \
  AG_INLINE CT ag_catanh##P(CT a) {                                                            \
    /* (log1p(z) - log1p(-z)) / 2, its real part as one log1p of |1 + z|^2 / |1 - z|^2 - 1,    \
       taken for Re z >= 0 (atanh(-z) = -atanh(z)), where that argument is not below 0 and     \
       log1p keeps its accuracy near z = -1 too. */                                            \
    if (AG_NOTFIN(a.x) || AG_NOTFIN(a.y))                                                      \
      return ag_catanh_nf##P(a);                                                               \
    RT s = a.x < 0 ? (RT)-1 : (RT)1, x = s * a.x, y = s * a.y, m = 1 - x, d = m * m + y * y;   \
    return MAKE(s * (RT)0.25 * AG_LOG1P##P(4 * x / d), s * (RT)0.5 * AG_ATAN2##P(2 * y, m * (1 + x) - y * y)); \
  }                                                                                            \
  AG_INLINE CT ag_catan##P(CT a) { /* atan z = -i atanh(i z) */                                \
    CT w = ag_catanh##P(MAKE(-a.y, a.x));                                                      \
    return MAKE(w.y, -w.x);                                                                    \
  }                                                                                            \
  AG_INLINE CT ag_cexpm1##P(CT a) {                                                            \
    /* e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y / 2), without the cancellation near 0. An    \
       imaginary part of 0 stays 0 (and expm1(-0 + 0i) is +0 + 0i, as the standard says);      \
       -inf gives -1 + 0 cis(y); +inf with an infinite or NaN y gives inf + NaN i. */          \
    if (a.y == 0)                                                                              \
      return MAKE(a.x == 0 ? (RT)0 : AG_EXPM1##P(a.x), a.y);                                   \
    if (AG_ISINFV(a.x) && a.x < 0)                                                             \
      return MAKE((RT)-1, AG_NOTFIN(a.y) ? (RT)0 : AG_COPYSIGN##P((RT)0, AG_SIN##P(a.y)));     \
    if (AG_ISINFV(a.x) && AG_NOTFIN(a.y))                                                      \
      return MAKE(a.x, a.y - a.y);                                                             \
    RT h = AG_SIN##P(a.y * (RT)0.5);                                                           \
    return MAKE(AG_EXPM1##P(a.x) * AG_COS##P(a.y) - 2 * h * h, AG_EXP##P(a.x) * AG_SIN##P(a.y)); \
  }                                                                                            \
  AG_INLINE CT ag_clog1p##P(CT a) {                                                            \
    /* log|1 + z| as log1p(|1 + z|^2 - 1) / 2 where |1 + z| is near 1, else from the hypot. */ \
    RT h = AG_HYPOT##P(1 + a.x, a.y);                                                          \
    RT re = h > (RT)0.5 && h < 2 ? (RT)0.5 * AG_LOG1P##P(a.x * (2 + a.x) + a.y * a.y) : AG_LOG##P(h); \
    return MAKE(re, AG_ATAN2##P(a.y, 1 + a.x));                                                \
  }                                                                                            \
  AG_INLINE CT ag_clog2##P(CT a) {                                                             \
    return MAKE(AG_LOG2##P(ag_cabs##P(a)), AG_ATAN2##P(a.y, a.x) * (RT)1.44269504088896340736); \
  }                                                                                            \
  AG_INLINE CT ag_clog10##P(CT a) {                                                            \
    return MAKE(AG_LOG10##P(ag_cabs##P(a)), AG_ATAN2##P(a.y, a.x) * (RT)0.434294481903251827651); \
  }

AG_COMPLEX_MATH(ag_c64, ag_f32, _f32, AG_C64)
#if AG_HAVE_F64
AG_COMPLEX_MATH(ag_c128, ag_f64, _f64, AG_C128)
#endif
#undef AG_COMPLEX_MATH
#endif /* AG_KERNEL_MATHFN_COMPLEX_H */

#if !AG_NEEDS_F64 || AG_HAVE_F64

#define AG_RF(name) AG_CAT3(AG_, name, AG_RSFX)

/* ---- functions of floats and complex numbers: each as the real math library's (OpenCL's,
   CUDA's, the host's libm), or the complex forms above. ---- */
#if AG_FLOAT
#define AG_MATH_FN(name, NAME)                                                                     \
  AG_INLINE AG_T AG_CAT2(ag_e_##name, AG_SFX)(AG_T x) { return AG_RF(NAME)(x); }
#elif AG_CPLX
#define AG_MATH_FN(name, NAME)                                                                     \
  AG_INLINE AG_T AG_CAT2(ag_e_##name, AG_SFX)(AG_T x) { return AG_CAT2(ag_c##name, AG_RSFX)(x); }
#endif
#if AG_FLOAT || AG_CPLX
AG_MATH_FN(tan, TAN)
AG_MATH_FN(asin, ASIN)
AG_MATH_FN(acos, ACOS)
AG_MATH_FN(atan, ATAN)
AG_MATH_FN(sinh, SINH)
AG_MATH_FN(cosh, COSH)
AG_MATH_FN(tanh, TANH)
AG_MATH_FN(asinh, ASINH)
AG_MATH_FN(acosh, ACOSH)
AG_MATH_FN(atanh, ATANH)
AG_MATH_FN(expm1, EXPM1)
AG_MATH_FN(log1p, LOG1P)
AG_MATH_FN(log2, LOG2)
AG_MATH_FN(log10, LOG10)
#undef AG_MATH_FN
#endif

/* ---- rounding: integers are their own floor, ceil, trunc and round; round is to the nearest
   integer, halves to even (rint in the default rounding mode), as numpy's and the standard's;
   complex round rounds both parts. ---- */
#if AG_INT
AG_INLINE AG_T AG_E(floor)(AG_T x) { return x; }
AG_INLINE AG_T AG_E(ceil)(AG_T x) { return x; }
AG_INLINE AG_T AG_E(trunc)(AG_T x) { return x; }
AG_INLINE AG_T AG_E(round)(AG_T x) { return x; }
#elif AG_FLOAT
AG_INLINE AG_T AG_E(floor)(AG_T x) { return AG_RF(FLOOR)(x); }
AG_INLINE AG_T AG_E(ceil)(AG_T x) { return AG_RF(CEIL)(x); }
AG_INLINE AG_T AG_E(trunc)(AG_T x) { return AG_RF(TRUNC)(x); }
AG_INLINE AG_T AG_E(round)(AG_T x) { return AG_RF(RINT)(x); }
#elif AG_CPLX
AG_INLINE AG_T AG_E(round)(AG_T x) { return AG_MAKE(AG_RF(RINT)(x.x), AG_RF(RINT)(x.y)); }
#endif

/* ---- tests, 1 or 0: NaN, infinite, finite (complex: either part NaN or infinite, both parts
   finite; integers and bool are finite), and the sign bit (integers: x < 0). ---- */
#if AG_FLOAT
AG_INLINE ag_u8 AG_E(isnan)(AG_T x) { return (ag_u8)(x != x); }
AG_INLINE ag_u8 AG_E(isinf)(AG_T x) { return (ag_u8)(x == x && x - x != x - x); }
AG_INLINE ag_u8 AG_E(isfinite)(AG_T x) { return (ag_u8)(x - x == x - x); }
AG_INLINE ag_u8 AG_E(signbit)(AG_T x) { return (ag_u8)(AG_RF(COPYSIGN)((AG_T)1, x) < 0); }
#elif AG_CPLX
AG_INLINE ag_u8 AG_E(isnan)(AG_T x) { return (ag_u8)(x.x != x.x || x.y != x.y); }
AG_INLINE ag_u8 AG_E(isinf)(AG_T x) {
  return (ag_u8)((x.x == x.x && x.x - x.x != x.x - x.x) || (x.y == x.y && x.y - x.y != x.y - x.y));
}
AG_INLINE ag_u8 AG_E(isfinite)(AG_T x) { return (ag_u8)(x.x - x.x == x.x - x.x && x.y - x.y == x.y - x.y); }
#else
AG_INLINE ag_u8 AG_E(isnan)(AG_T x) {
  (void)x;
  return 0;
}
AG_INLINE ag_u8 AG_E(isinf)(AG_T x) {
  (void)x;
  return 0;
}
AG_INLINE ag_u8 AG_E(isfinite)(AG_T x) {
  (void)x;
  return 1;
}
#if AG_SINT
AG_INLINE ag_u8 AG_E(signbit)(AG_T x) { return (ag_u8)(x < 0); }
#elif AG_UINT
AG_INLINE ag_u8 AG_E(signbit)(AG_T x) {
  (void)x;
  return 0;
}
#endif
#endif

/* ---- two real floats: atan2 and hypot of the math library; copysign; logaddexp as numpy's
   npy_logaddexp: log(e^a + e^b) from the larger operand, a + log 2 for equal ones (infinities
   too), NaN for a NaN operand. ---- */
#if AG_FLOAT
AG_INLINE AG_T AG_E(atan2)(AG_T a, AG_T b) { return AG_RF(ATAN2)(a, b); }
AG_INLINE AG_T AG_E(hypot)(AG_T a, AG_T b) { return AG_RF(HYPOT)(a, b); }
AG_INLINE AG_T AG_E(copysign)(AG_T a, AG_T b) { return AG_RF(COPYSIGN)(a, b); }
AG_INLINE AG_T AG_E(logaddexp)(AG_T a, AG_T b) {
  if (a == b)
    return a + (AG_T)0.693147180559945309417232121458176568;
  AG_T d = a - b;
  if (d > 0)
    return a + AG_RF(LOG1P)(AG_RF(EXP)(-d));
  if (d <= 0)
    return b + AG_RF(LOG1P)(AG_RF(EXP)(d));
  return d;
}
#endif

/* ---- the kernels ---- */
#define AG_UNARY(K, TO, FN) AG_EW(AG_KN(K), AG_SHAPE_UNARY, AG_T, TO, , AG_EACH, out[i] = FN(x[i]))
#if AG_FLOAT || AG_CPLX
AG_UNARY(ag_tan, AG_T, AG_E(tan))
AG_UNARY(ag_asin, AG_T, AG_E(asin))
AG_UNARY(ag_acos, AG_T, AG_E(acos))
AG_UNARY(ag_atan, AG_T, AG_E(atan))
AG_UNARY(ag_sinh, AG_T, AG_E(sinh))
AG_UNARY(ag_cosh, AG_T, AG_E(cosh))
AG_UNARY(ag_tanh, AG_T, AG_E(tanh))
AG_UNARY(ag_asinh, AG_T, AG_E(asinh))
AG_UNARY(ag_acosh, AG_T, AG_E(acosh))
AG_UNARY(ag_atanh, AG_T, AG_E(atanh))
AG_UNARY(ag_expm1, AG_T, AG_E(expm1))
AG_UNARY(ag_log1p, AG_T, AG_E(log1p))
AG_UNARY(ag_log2, AG_T, AG_E(log2))
AG_UNARY(ag_log10, AG_T, AG_E(log10))
#endif
#if AG_REAL
AG_UNARY(ag_floor, AG_T, AG_E(floor))
AG_UNARY(ag_ceil, AG_T, AG_E(ceil))
AG_UNARY(ag_trunc, AG_T, AG_E(trunc))
AG_UNARY(ag_signbit, ag_u8, AG_E(signbit))
#endif
#if !AG_BOOLEAN
AG_UNARY(ag_round, AG_T, AG_E(round))
#endif
AG_UNARY(ag_isnan, ag_u8, AG_E(isnan))
AG_UNARY(ag_isinf, ag_u8, AG_E(isinf))
AG_UNARY(ag_isfinite, ag_u8, AG_E(isfinite))

/* Each binary function in elementwise.h's five forms (AG_BINARY_FORMS). */
#if AG_FLOAT
AG_BINARY_FORMS(ag_atan2, AG_E(atan2))
AG_BINARY_FORMS(ag_hypot, AG_E(hypot))
AG_BINARY_FORMS(ag_copysign, AG_E(copysign))
AG_BINARY_FORMS(ag_logaddexp, AG_E(logaddexp))
#endif

#undef AG_UNARY

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
