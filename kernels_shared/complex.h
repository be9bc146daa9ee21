/* kernels_shared/complex.h - complex arithmetic on ag_c64 and ag_c128 ({x, y} = re + i im),
   the same in every dialect. Written for accuracy where it is cheap: Smith's division, hypot
   for magnitudes, the half-angle square root. */
#ifndef AG_KERNEL_COMPLEX_H
#define AG_KERNEL_COMPLEX_H

#include "dialect.h"

/* Tests that every dialect compiles alike (no fast-math flag is ever given): v is infinite or NaN;
   v is infinite. */
#define AG_NOTFIN(v) (!((v) - (v) == (v) - (v)))
#define AG_ISINFV(v) ((v) == (v) && AG_NOTFIN(v))

/* One set of functions per precision: CT the complex type, RT its real type, P the suffix.
   exp, sinh, cosh and the sine and cosine built on them give C99 Annex G's values (the array
   API standard's special cases) where a part is infinite or NaN, as does the square root;
   finite arguments take the plain formulas. */
#define AG_COMPLEX_FUNCS(CT, RT, P, MAKE)                                                       \
  AG_INLINE CT ag_cadd##P(CT a, CT b) { return MAKE(a.x + b.x, a.y + b.y); }                   \
  AG_INLINE CT ag_csub##P(CT a, CT b) { return MAKE(a.x - b.x, a.y - b.y); }                   \
  AG_INLINE CT ag_cmul##P(CT a, CT b) { return MAKE(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); } \
  AG_INLINE CT ag_cscale##P(CT a, RT s) { return MAKE(a.x * s, a.y * s); }                     \
  AG_INLINE RT ag_cabs##P(CT a) { return AG_HYPOT##P(a.x, a.y); }                              \
  AG_INLINE CT ag_cdiv##P(CT a, CT b) {                                                        \
    /* Smith (1962): divides by the larger part of b, so no intermediate overflows early. */   \
    if (AG_FABS##P(b.x) >= AG_FABS##P(b.y)) {                                                  \
      RT r = b.y / b.x, d = b.x + b.y * r;                                                     \
      return MAKE((a.x + a.y * r) / d, (a.y - a.x * r) / d);                                   \
    }                                                                                          \
    RT r = b.x / b.y, d = b.x * r + b.y;                                                       \
    return MAKE((a.x * r + a.y) / d, (a.y * r - a.x) / d);                                     \
  }                                                                                            \
  AG_INLINE CT ag_csqrt##P(CT a) {                                                             \
    /* The root in the right half-plane, its imaginary part signed as y (-0 too: sqrt(-1 - 0i) \
       is -i); inf for an infinite y; 0 + inf i or inf + 0i for an infinite x. */              \
    if (AG_ISINFV(a.y))                                                                        \
      return MAKE(AG_FABS##P(a.y), a.y);                                                       \
    if (AG_ISINFV(a.x) && a.x > 0)                                                             \
      return MAKE(a.x, a.y == a.y ? AG_COPYSIGN##P((RT)0, a.y) : a.y);                         \
    if (AG_ISINFV(a.x))                                                                        \
      return MAKE(a.y == a.y ? (RT)0 : a.y, AG_COPYSIGN##P(-a.x, a.y));                        \
    if (a.x == 0 && a.y == 0)                                                                  \
      return MAKE((RT)0, a.y);                                                                 \
    RT t = AG_SQRT##P((AG_FABS##P(a.x) + AG_HYPOT##P(a.x, a.y)) * (RT)0.5);                    \
    if (a.x >= 0)                                                                              \
      return MAKE(t, a.y / (2 * t));                                                           \
    return MAKE(AG_FABS##P(a.y) / (2 * t), AG_COPYSIGN##P(t, a.y));                            \
  }                                                                                            \
  AG_INLINE CT ag_cexp##P(CT a) {                                                              \
    /* An imaginary part of 0 stays 0, whatever the real part; an infinite real part with an     \
       infinite or NaN imaginary part gives inf + NaN i (+inf) or 0 + 0i (-inf). */            \
    if (a.y == 0)                                                                              \
      return MAKE(AG_EXP##P(a.x), a.y);                                                        \
    if (AG_ISINFV(a.x) && AG_NOTFIN(a.y))                                                      \
      return a.x > 0 ? MAKE(a.x, a.y - a.y) : MAKE((RT)0, (RT)0);                              \
    RT e = AG_EXP##P(a.x);                                                                     \
    return MAKE(e * AG_COS##P(a.y), e * AG_SIN##P(a.y));                                       \
  }                                                                                            \
  AG_INLINE CT ag_clog##P(CT a) { return MAKE(AG_LOG##P(ag_cabs##P(a)), AG_ATAN2##P(a.y, a.x)); } \
  AG_INLINE CT ag_csinh##P(CT a) {                                                             \
    /* Imaginary part 0: sinh of the real part; an infinite or NaN imaginary part with a real   \
       part of 0 or infinity keeps that real part beside NaN. */                               \
    if (a.y == 0)                                                                              \
      return MAKE(AG_SINH##P(a.x), a.y);                                                       \
    if (AG_NOTFIN(a.y) && a.x == 0)                                                            \
      return MAKE(a.x, a.y - a.y);                                                             \
    if (AG_NOTFIN(a.y) && AG_ISINFV(a.x)) /* +inf, as C libraries and numpy give */           \
      return MAKE(AG_FABS##P(a.x), a.y - a.y);                                                 \
    return MAKE(AG_SINH##P(a.x) * AG_COS##P(a.y), AG_COSH##P(a.x) * AG_SIN##P(a.y));          \
  }                                                                                            \
  AG_INLINE CT ag_ccosh##P(CT a) {                                                             \
    /* Imaginary part 0: cosh of the real part beside a 0 signed as sinh(x) * 0; an infinite    \
       or NaN imaginary part gives NaN + 0i (real part 0) or +inf + NaN i (real part infinite). */ \
    if (a.y == 0)                                                                              \
      return MAKE(AG_COSH##P(a.x), a.x != a.x ? a.y : AG_COPYSIGN##P((RT)1, a.x) * a.y);      \
    if (AG_NOTFIN(a.y) && a.x == 0)                                                            \
      return MAKE(a.y - a.y, (RT)0);                                                           \
    if (AG_NOTFIN(a.y) && AG_ISINFV(a.x))                                                      \
      return MAKE(AG_FABS##P(a.x), a.y - a.y);                                                 \
    return MAKE(AG_COSH##P(a.x) * AG_COS##P(a.y), AG_SINH##P(a.x) * AG_SIN##P(a.y));          \
  }                                                                                            \
  AG_INLINE CT ag_csin##P(CT a) { /* sin z = -i sinh(i z) */                                   \
    CT w = ag_csinh##P(MAKE(-a.y, a.x));                                                       \
    if (w.y != w.y && AG_ISINFV(w.x)) /* NaN + inf i, the sign C leaves open as numpy gives it */ \
      return MAKE(w.y, AG_FABS##P(w.x));                                                       \
    return MAKE(w.y, -w.x);                                                                    \
  }                                                                                            \
  AG_INLINE CT ag_ccos##P(CT a) { return ag_ccosh##P(MAKE(-a.y, a.x)); } /* cos z = cosh(i z) */ \
  AG_INLINE CT ag_cpow##P(CT a, CT b) {                                                        \
    if (a.x == 0 && a.y == 0)                                                                  \
      return b.x == 0 && b.y == 0 ? MAKE((RT)1, (RT)0) : MAKE((RT)0, (RT)0);                   \
    return ag_cexp##P(ag_cmul##P(b, ag_clog##P(a)));                                          \
  }                                                                                            \
  AG_INLINE CT ag_csign##P(CT a) {                                                             \
    RT m = ag_cabs##P(a);                                                                      \
    return m == 0 ? MAKE((RT)0, (RT)0) : MAKE(a.x / m, a.y / m);                               \
  }

AG_COMPLEX_FUNCS(ag_c64, ag_f32, _f32, AG_C64)
#if AG_HAVE_F64
AG_COMPLEX_FUNCS(ag_c128, ag_f64, _f64, AG_C128)
#endif

#endif
