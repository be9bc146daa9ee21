/* kernels_shared/reduce.h - the reductions of one dtype variant (sum, dot, min, max, argmin,
   argmax, nrm2): each an accumulator state with init, accumulate, merge and final functions
   (the math, once for every dialect), then the list of kernels, AG_DEF_REDUCE invocations
   that kernels_shared/skeleton_gpu.h or backends/host/kernels/ turn into kernels.

   Accuracy: integer sums are exact in 64 bits. Float sums add blocks of AG_RBLOCK (256)
   consecutive elements in 16 lanes of plain additions, add the lanes pairwise, then add each
   block into a Kahan-compensated total, so a float32 sum of
   2^24 values keeps about 1e-7 relative error (a plain running sum loses about 1e-2); states
   of different work-items merge with the compensation carried along. Inf and NaN propagate
   as in plain arithmetic. nrm2 keeps (scale, sum of squares) as LAPACK's dnrm2 does, so no
   square overflows or underflows.

   Include with AG_TC set (see variant.h); AG_EW_LIST_ONLY expands only the kernel list. */
#include "dialect.h"
#include "complex.h"
#include "reduce_items.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

/* Names of this variant's states and functions: AG_RN(init, sum) is ag_r_init_sum_f32. As in
   elementwise.h, names are pasted at once (OpenCL may define min, max and dot as macros), so
   an operation's name never travels through another macro's parameter. */
#define AG_RS(op) AG_CAT2(ag_rs_##op, AG_SFX)
#define AG_RN(fn, op) AG_CAT2(ag_r_##fn##_##op, AG_SFX)

#if AG_UINT
#define AG_A ag_u64
#elif AG_SINT
#define AG_A ag_i64
#else
#define AG_A T
#endif

#ifndef AG_EW_LIST_ONLY

#if AG_CPLX
#define AG_MK(re, im) AG_CAT2(AG_RMK_, AG_TC)(re, im)
#define AG_RMK_6 AG_C64
#define AG_RMK_7 AG_C128
#endif

/* ---- loads: one element, or the product of two (dot, unconjugated) ---- */
AG_INLINE AG_A AG_RN(load, plain)(AG_GLOBAL const T *x, AG_GLOBAL const T *y, ag_u64 i) {
  (void)y;
  return (AG_A)x[i];
}
AG_INLINE T AG_RN(load, same)(AG_GLOBAL const T *x, AG_GLOBAL const T *y, ag_u64 i) {
  (void)y;
  return x[i];
}
AG_INLINE AG_A AG_RN(load, dot)(AG_GLOBAL const T *x, AG_GLOBAL const T *y, ag_u64 i) {
#if AG_CPLX
  return AG_CAT2(ag_cmul, AG_RSFX)(x[i], y[i]);
#else
  return (AG_A)x[i] * (AG_A)y[i];
#endif
}

/* ---- sum (and dot) ---- */
#if AG_INT
typedef struct AG_RS(sum) {
  AG_A s;
} AG_RS(sum);
AG_INLINE AG_RS(sum) AG_RN(init, sum)(void) {
  AG_RS(sum) r;
  r.s = 0;
  return r;
}
AG_INLINE AG_RS(sum) AG_RN(acc1, sum)(AG_RS(sum) a, AG_A v, ag_u64 k) {
  (void)k;
  a.s += v;
  return a;
}
AG_INLINE AG_RS(sum) AG_RN(merge, sum)(AG_RS(sum) a, AG_RS(sum) b) {
  a.s += b.s;
  return a;
}
#else
/* Kahan's compensated addition of v to (s, c), whose true total is s - c. A non-finite total
   stops compensating, so Inf and NaN come out as plain addition gives them. */
typedef struct AG_RS(kahan) {
  R s, c;
} AG_RS(kahan);
AG_INLINE AG_RS(kahan) AG_RN(kadd, sum)(AG_RS(kahan) a, R v) {
  R y = v - a.c, t = a.s + y;
  if (t - t != 0) {
    a.s = t;
    a.c = 0;
    return a;
  }
  a.c = (t - a.s) - y;
  a.s = t;
  return a;
}
AG_INLINE AG_RS(kahan) AG_RN(kmerge, sum)(AG_RS(kahan) a, AG_RS(kahan) b) {
  return AG_RN(kadd, sum)(AG_RN(kadd, sum)(a, b.s), -b.c);
}
typedef struct AG_RS(sum) {
  AG_RS(kahan) re;
#if AG_CPLX
  AG_RS(kahan) im;
#endif
} AG_RS(sum);
AG_INLINE AG_RS(sum) AG_RN(init, sum)(void) {
  AG_RS(sum) r;
  r.re.s = 0;
  r.re.c = 0;
#if AG_CPLX
  r.im = r.re;
#endif
  return r;
}
AG_INLINE AG_RS(sum) AG_RN(acc1, sum)(AG_RS(sum) a, T v, ag_u64 k) {
  (void)k;
#if AG_CPLX
  a.re = AG_RN(kadd, sum)(a.re, v.x);
  a.im = AG_RN(kadd, sum)(a.im, v.y);
#else
  a.re = AG_RN(kadd, sum)(a.re, v);
#endif
  return a;
}
AG_INLINE AG_RS(sum) AG_RN(merge, sum)(AG_RS(sum) a, AG_RS(sum) b) {
  a.re = AG_RN(kmerge, sum)(a.re, b.re);
#if AG_CPLX
  a.im = AG_RN(kmerge, sum)(a.im, b.im);
#endif
  return a;
}
#endif
/* A block of AG_RBLOCK (256) elements, k to k + 255 at stride inner, read here: 16 lane
   totals of plain additions (independent, so compilers vectorise them), added pairwise, then
   into the compensated total once. One block's rounding is that of 16 additions; the total
   is exact to the compensation. AG_SUM_BLOCK(load) makes one per load (plain, dot). */
#if AG_CPLX
#define AG_SUM_BLOCK(ld)                                                                        \
  AG_INLINE AG_RS(sum) AG_CAT2(ag_r_accb_sum_##ld, AG_SFX)(AG_RS(sum) a, AG_GLOBAL const T *x,  \
                                                          AG_GLOBAL const T *y, ag_u64 k,       \
                                                          ag_u64 inner) {                       \
    R re[16], im[16];                                                                           \
    for (int j = 0; j < 16; j++)                                                                \
      re[j] = im[j] = 0;                                                                        \
    for (int i = 0; i < AG_RBLOCK; i += 16)                                                     \
      for (int j = 0; j < 16; j++) {                                                            \
        T v = AG_CAT2(ag_r_load_##ld, AG_SFX)(x, y, (k + (ag_u64)(i + j)) * inner);             \
        re[j] += v.x;                                                                           \
        im[j] += v.y;                                                                           \
      }                                                                                         \
    for (int w = 8; w > 0; w >>= 1)                                                             \
      for (int j = 0; j < w; j++) {                                                             \
        re[j] += re[j + w];                                                                     \
        im[j] += im[j + w];                                                                     \
      }                                                                                         \
    return AG_RN(acc1, sum)(a, AG_MK(re[0], im[0]), k);                                         \
  }
#else
#define AG_SUM_BLOCK(ld)                                                                        \
  AG_INLINE AG_RS(sum) AG_CAT2(ag_r_accb_sum_##ld, AG_SFX)(AG_RS(sum) a, AG_GLOBAL const T *x,  \
                                                          AG_GLOBAL const T *y, ag_u64 k,       \
                                                          ag_u64 inner) {                       \
    AG_A l[16];                                                                                 \
    for (int j = 0; j < 16; j++)                                                                \
      l[j] = 0;                                                                                 \
    for (int i = 0; i < AG_RBLOCK; i += 16)                                                     \
      for (int j = 0; j < 16; j++)                                                              \
        l[j] += AG_CAT2(ag_r_load_##ld, AG_SFX)(x, y, (k + (ag_u64)(i + j)) * inner);           \
    for (int w = 8; w > 0; w >>= 1)                                                             \
      for (int j = 0; j < w; j++)                                                               \
        l[j] += l[j + w];                                                                       \
    return AG_RN(acc1, sum)(a, l[0], k);                                                        \
  }
#endif
AG_SUM_BLOCK(plain)
AG_SUM_BLOCK(dot)
#undef AG_SUM_BLOCK

/* The final value of a sum state as each output dtype. */
#if AG_INT
AG_INLINE ag_u32 AG_RN(final_u32, sum)(AG_RS(sum) a) { return (ag_u32)a.s; }
AG_INLINE ag_i32 AG_RN(final_i32, sum)(AG_RS(sum) a) { return (ag_i32)(ag_u32)a.s; }
AG_INLINE ag_f32 AG_RN(final_f32, sum)(AG_RS(sum) a) { return (ag_f32)a.s; }
#if AG_HAVE_F64
AG_INLINE ag_f64 AG_RN(final_f64, sum)(AG_RS(sum) a) { return (ag_f64)a.s; }
#endif
#elif AG_FLOAT
AG_INLINE T AG_RN(final_same, sum)(AG_RS(sum) a) { return a.re.s - a.re.c; }
#else
AG_INLINE T AG_RN(final_same, sum)(AG_RS(sum) a) { return AG_MK(a.re.s - a.re.c, a.im.s - a.im.c); }
#endif

#if AG_REAL
/* States hold integers at 32 bits at least: rusticl (Mesa 22.3) miscompiles a struct with a
   uchar member returned by value (docs/portability.md, narrow-struct-members). */
#if AG_UINT
#define AG_EV ag_u32
#elif AG_SINT
#define AG_EV ag_i32
#else
#define AG_EV T
#endif
/* ---- min and max: NaN wins, as in numpy ---- */
typedef struct AG_RS(ext) {
  AG_EV v;
  ag_u32 n; /* 0 while empty */
} AG_RS(ext);
AG_INLINE AG_RS(ext) AG_RN(init, ext)(void) {
  AG_RS(ext) r;
  r.v = 0;
  r.n = 0;
  return r;
}
#define AG_EXT_FUNCS(op, BETTER)                                                                \
  AG_INLINE AG_RS(ext) AG_CAT2(ag_r_merge_##op, AG_SFX)(AG_RS(ext) a, AG_RS(ext) b) {                           \
    if (!a.n)                                                                                   \
      return b;                                                                                 \
    if (b.n && a.v == a.v && (b.v != b.v || BETTER(b.v, a.v)))                                  \
      a.v = b.v;                                                                                \
    return a;                                                                                   \
  }                                                                                             \
  AG_INLINE AG_RS(ext) AG_CAT2(ag_r_acc1_##op, AG_SFX)(AG_RS(ext) a, T v, ag_u64 k) {                           \
    (void)k;                                                                                    \
    AG_RS(ext) b;                                                                               \
    b.v = v;                                                                                    \
    b.n = 1;                                                                                    \
    return AG_CAT2(ag_r_merge_##op, AG_SFX)(a, b);                                                              \
  }                                                                                             \
  AG_INLINE AG_RS(ext) AG_CAT2(ag_r_accb_##op##_same, AG_SFX)(AG_RS(ext) a, AG_GLOBAL const T *x, \
                                                                AG_GLOBAL const T *y, ag_u64 k, \
                                                                ag_u64 inner) {                 \
    for (int j = 0; j < AG_RBLOCK; j++)                                                         \
      a = AG_CAT2(ag_r_acc1_##op, AG_SFX)(a, AG_RN(load, same)(x, y, (k + (ag_u64)j) * inner),  \
                                          k + (ag_u64)j);                                       \
    return a;                                                                                   \
  }                                                                                             \
  AG_INLINE T AG_CAT2(ag_r_final_same_##op, AG_SFX)(AG_RS(ext) a) { return (T)a.v; }
#define AG_LESS(a, b) ((a) < (b))
#define AG_MORE(a, b) ((a) > (b))
AG_EXT_FUNCS(min, AG_LESS)
AG_EXT_FUNCS(max, AG_MORE)
#undef AG_EXT_FUNCS

/* ---- argmin and argmax: the first extreme; the first NaN if there is one ---- */
typedef struct AG_RS(arg) {
  AG_EV v;
  ag_u64 i; /* ~0 while empty */
} AG_RS(arg);
AG_INLINE AG_RS(arg) AG_RN(init, arg)(void) {
  AG_RS(arg) r;
  r.v = 0;
  r.i = ~(ag_u64)0;
  return r;
}
#define AG_ARG_FUNCS(op, BETTER)                                                                \
  AG_INLINE AG_RS(arg) AG_CAT2(ag_r_merge_##op, AG_SFX)(AG_RS(arg) a, AG_RS(arg) b) {                           \
    if (a.i == ~(ag_u64)0)                                                                      \
      return b;                                                                                 \
    if (b.i == ~(ag_u64)0)                                                                      \
      return a;                                                                                 \
    bool an = a.v != a.v, bn = b.v != b.v;                                                      \
    if (an || bn)                                                                               \
      return an && bn ? (b.i < a.i ? b : a) : an ? a : b;                                       \
    return BETTER(b.v, a.v) || (b.v == a.v && b.i < a.i) ? b : a;                               \
  }                                                                                             \
  AG_INLINE AG_RS(arg) AG_CAT2(ag_r_acc1_##op, AG_SFX)(AG_RS(arg) a, T v, ag_u64 k) {                           \
    AG_RS(arg) b;                                                                               \
    b.v = v;                                                                                    \
    b.i = k;                                                                                    \
    return AG_CAT2(ag_r_merge_##op, AG_SFX)(a, b);                                                              \
  }                                                                                             \
  AG_INLINE AG_RS(arg) AG_CAT2(ag_r_accb_##op##_same, AG_SFX)(AG_RS(arg) a, AG_GLOBAL const T *x, \
                                                                AG_GLOBAL const T *y, ag_u64 k, \
                                                                ag_u64 inner) {                 \
    for (int j = 0; j < AG_RBLOCK; j++)                                                         \
      a = AG_CAT2(ag_r_acc1_##op, AG_SFX)(a, AG_RN(load, same)(x, y, (k + (ag_u64)j) * inner),  \
                                          k + (ag_u64)j);                                       \
    return a;                                                                                   \
  }                                                                                             \
  AG_INLINE ag_u32 AG_CAT2(ag_r_final_u32_##op, AG_SFX)(AG_RS(arg) a) { return (ag_u32)a.i; }
AG_ARG_FUNCS(argmin, AG_LESS)
AG_ARG_FUNCS(argmax, AG_MORE)
#undef AG_ARG_FUNCS
#undef AG_LESS
#undef AG_MORE
#undef AG_EV
#endif /* AG_REAL */

#if AG_FLOAT || AG_CPLX
/* ---- nrm2: sqrt(sum |x|^2) as scale * sqrt(ssq), the sum of squares (each at most 1)
   Kahan-compensated like sums, so float32 keeps its accuracy over long vectors ---- */
typedef struct AG_RS(nrm2) {
  R scale;
  AG_RS(kahan) ssq;
} AG_RS(nrm2);
AG_INLINE AG_RS(nrm2) AG_RN(init, nrm2)(void) {
  AG_RS(nrm2) r;
  r.scale = 0;
  r.ssq.s = 1;
  r.ssq.c = 0;
  return r;
}
AG_INLINE AG_RS(nrm2) AG_RN(merge, nrm2)(AG_RS(nrm2) a, AG_RS(nrm2) b) {
  if (b.scale == 0)
    return a;
  if (a.scale == 0)
    return b;
  if (a.scale < b.scale || a.scale != a.scale) { /* keep the larger scale; NaN stays in a */
    AG_RS(nrm2) t = a;
    a = b;
    b = t;
  }
  if (a.scale - a.scale != 0) { /* Inf (or NaN) stays; only a NaN in b changes it */
    if (b.scale != b.scale)
      a.scale = b.scale;
    return a;
  }
  R r = b.scale / a.scale, r2 = r * r;
  a.ssq = AG_RN(kadd, sum)(a.ssq, b.ssq.s * r2);
  a.ssq = AG_RN(kadd, sum)(a.ssq, -b.ssq.c * r2);
  if (b.scale != b.scale)
    a.scale = b.scale;
  return a;
}
AG_INLINE AG_RS(nrm2) AG_RN(add_real, nrm2)(AG_RS(nrm2) a, R v) {
  R m = AG_CAT2(AG_FABS, AG_RSFX)(v);
  if (m != m) {
    a.scale = m;
    return a;
  }
  AG_RS(nrm2) b;
  b.scale = m;
  b.ssq.s = 1;
  b.ssq.c = 0;
  return AG_RN(merge, nrm2)(a, b);
}
AG_INLINE AG_RS(nrm2) AG_RN(acc1, nrm2)(AG_RS(nrm2) a, T v, ag_u64 k) {
  (void)k;
#if AG_CPLX
  a = AG_RN(add_real, nrm2)(a, v.x);
  return AG_RN(add_real, nrm2)(a, v.y);
#else
  return AG_RN(add_real, nrm2)(a, v);
#endif
}
/* A block of AG_RBLOCK (256) elements: its largest magnitude m (16 lanes), then the squares of
   the elements divided by m, which are at most 1, in 16 lane totals, merged once: one division
   per block, and loops compilers vectorise. */
#if AG_CPLX
#define AG_NRM2_PARTS(v, F) F((v).x) F((v).y)
#else
#define AG_NRM2_PARTS(v, F) F(v)
#endif
AG_INLINE AG_RS(nrm2) AG_CAT2(ag_r_accb_nrm2_same, AG_SFX)(AG_RS(nrm2) a, AG_GLOBAL const T *x,
                                                          AG_GLOBAL const T *y, ag_u64 k, ag_u64 inner) {
  R l[16];
  for (int j = 0; j < 16; j++)
    l[j] = 0;
#define AG_NRM2_MAX(c)                                                                          \
  {                                                                                             \
    R t_ = AG_CAT2(AG_FABS, AG_RSFX)(c);                                                        \
    l[j] = t_ > l[j] ? t_ : l[j];                                                               \
  }
  for (int i = 0; i < AG_RBLOCK; i += 16)
    for (int j = 0; j < 16; j++) {
      T v = AG_RN(load, same)(x, y, (k + (ag_u64)(i + j)) * inner);
      AG_NRM2_PARTS(v, AG_NRM2_MAX)
    }
#undef AG_NRM2_MAX
  R m = 0;
  for (int j = 0; j < 16; j++)
    m = l[j] > m ? l[j] : m;
  if (!(m > 0 && m - m == 0)) { /* zero, Inf or NaN: element by element */
    for (int j = 0; j < AG_RBLOCK; j++)
      a = AG_RN(acc1, nrm2)(a, AG_RN(load, same)(x, y, (k + (ag_u64)j) * inner), k);
    return a;
  }
  R inv = (R)1 / m;
  for (int j = 0; j < 16; j++)
    l[j] = 0;
#define AG_NRM2_SQUARE(c)                                                                       \
  {                                                                                             \
    R t_ = (c)*inv;                                                                             \
    l[j] += t_ * t_;                                                                            \
  }
  for (int i = 0; i < AG_RBLOCK; i += 16)
    for (int j = 0; j < 16; j++) {
      T v = AG_RN(load, same)(x, y, (k + (ag_u64)(i + j)) * inner);
      AG_NRM2_PARTS(v, AG_NRM2_SQUARE)
    }
#undef AG_NRM2_SQUARE
#undef AG_NRM2_PARTS
  for (int w = 8; w > 0; w >>= 1)
    for (int j = 0; j < w; j++)
      l[j] += l[j + w];
  AG_RS(nrm2) b;
  b.scale = m;
  b.ssq.s = l[0];
  b.ssq.c = 0;
  return AG_RN(merge, nrm2)(a, b);
}
AG_INLINE R AG_RN(final_real, nrm2)(AG_RS(nrm2) a) {
  return a.scale * AG_CAT2(AG_SQRT, AG_RSFX)(a.ssq.s - a.ssq.c);
}
#endif

#if AG_CPLX
#undef AG_MK
#undef AG_RMK_6
#undef AG_RMK_7
#endif

#endif /* AG_EW_LIST_ONLY */

/* ---- the kernels: ag_<op>_<in>_<out> + _cols, _rows, _merge ----
   AG_RED(kernel op, function op, state, load, final, out dtype name, out type, accumulated
   type). Every name parameter is only ever pasted. */
#define AG_RED(kop, fop, st, ld, fin, out, TO, AT)                                              \
  AG_DEF_REDUCE(AG_CAT3(ag_##kop, AG_SFX, AG_CAT2(_, out)), AG_CAT2(ag_rs_##st, AG_SFX), T, TO, \
                AT,                                                                            \
                AG_CAT2(ag_r_load_##ld, AG_SFX), AG_CAT2(ag_r_init_##st, AG_SFX),               \
                AG_CAT2(ag_r_acc1_##fop, AG_SFX), AG_CAT2(ag_r_accb_##fop##_##ld, AG_SFX),           \
                AG_CAT2(ag_r_merge_##fop, AG_SFX), AG_CAT2(ag_r_final_##fin##_##fop, AG_SFX))

#if AG_UINT
AG_RED(sum, sum, sum, plain, u32, u32, ag_u32, AG_A)
AG_RED(dot, sum, sum, dot, u32, u32, ag_u32, AG_A)
#elif AG_SINT
AG_RED(sum, sum, sum, plain, i32, i32, ag_i32, AG_A)
AG_RED(dot, sum, sum, dot, i32, i32, ag_i32, AG_A)
#endif
#if AG_INT
AG_RED(sum, sum, sum, plain, f32, f32, ag_f32, AG_A)
AG_RED(dot, sum, sum, dot, f32, f32, ag_f32, AG_A)
#if AG_HAVE_F64
AG_RED(sum, sum, sum, plain, f64, f64, ag_f64, AG_A)
AG_RED(dot, sum, sum, dot, f64, f64, ag_f64, AG_A)
#endif
#else
/* Float and complex sums come out in the input's dtype; the kernel's name says it twice
   (ag_sum_f32_f32) so that every reduction is named the same way. */
#if AG_TC == 4
AG_RED(sum, sum, sum, plain, same, f32, T, AG_A)
AG_RED(dot, sum, sum, dot, same, f32, T, AG_A)
AG_RED(nrm2, nrm2, nrm2, same, real, f32, R, T)
#elif AG_TC == 5
AG_RED(sum, sum, sum, plain, same, f64, T, AG_A)
AG_RED(dot, sum, sum, dot, same, f64, T, AG_A)
AG_RED(nrm2, nrm2, nrm2, same, real, f64, R, T)
#elif AG_TC == 6
AG_RED(sum, sum, sum, plain, same, c64, T, AG_A)
AG_RED(dot, sum, sum, dot, same, c64, T, AG_A)
AG_RED(nrm2, nrm2, nrm2, same, real, f32, R, T)
#else
AG_RED(sum, sum, sum, plain, same, c128, T, AG_A)
AG_RED(dot, sum, sum, dot, same, c128, T, AG_A)
AG_RED(nrm2, nrm2, nrm2, same, real, f64, R, T)
#endif
#endif
#if AG_REAL
/* min and max come out in the input's dtype; argmin and argmax as a u32 index (also read as
   i32: the op layer refuses indices that do not fit). */
#if AG_TC == 0
#define AG_SAME u8
#elif AG_TC == 1
#define AG_SAME u16
#elif AG_TC == 2
#define AG_SAME u32
#elif AG_TC == 3
#define AG_SAME i32
#elif AG_TC == 4
#define AG_SAME f32
#else
#define AG_SAME f64
#endif
AG_RED(min, min, ext, same, same, AG_SAME, T, T)
AG_RED(max, max, ext, same, same, AG_SAME, T, T)
#undef AG_SAME
AG_RED(argmin, argmin, arg, same, u32, u32, ag_u32, T)
AG_RED(argmax, argmax, arg, same, u32, u32, ag_u32, T)
#endif
#undef AG_RED

#undef AG_A
#undef AG_RS
#undef AG_RN

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
