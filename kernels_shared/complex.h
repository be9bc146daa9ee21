/* kernels_shared/complex.h - complex arithmetic on ag_c64 and ag_c128 ({x, y} = re + i im),
   the same in every dialect. Written for accuracy where it is cheap: Smith's division, hypot
   for magnitudes, the half-angle square root. */
#ifndef AG_KERNEL_COMPLEX_H
#define AG_KERNEL_COMPLEX_H

#include "dialect.h"

/* One set of functions per precision: CT the complex type, RT its real type, P the suffix. */
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
    if (a.x == 0 && a.y == 0)                                                                  \
      return MAKE((RT)0, a.y);                                                                 \
    RT t = AG_SQRT##P((AG_FABS##P(a.x) + AG_HYPOT##P(a.x, a.y)) * (RT)0.5);                    \
    if (a.x >= 0)                                                                              \
      return MAKE(t, a.y / (2 * t));                                                           \
    return MAKE(AG_FABS##P(a.y) / (2 * t), a.y < 0 ? -t : t);                                  \
  }                                                                                            \
  AG_INLINE CT ag_cexp##P(CT a) {                                                              \
    RT e = AG_EXP##P(a.x);                                                                     \
    return MAKE(e * AG_COS##P(a.y), e * AG_SIN##P(a.y));                                       \
  }                                                                                            \
  AG_INLINE CT ag_clog##P(CT a) { return MAKE(AG_LOG##P(ag_cabs##P(a)), AG_ATAN2##P(a.y, a.x)); } \
  AG_INLINE CT ag_csin##P(CT a) {                                                              \
    return MAKE(AG_SIN##P(a.x) * AG_COSH##P(a.y), AG_COS##P(a.x) * AG_SINH##P(a.y));          \
  }                                                                                            \
  AG_INLINE CT ag_ccos##P(CT a) {                                                              \
    return MAKE(AG_COS##P(a.x) * AG_COSH##P(a.y), -(AG_SIN##P(a.x) * AG_SINH##P(a.y)));       \
  }                                                                                            \
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
