/* kernels_shared/reduce.h - the reduce family: sum, prod, dot, min, max, argmin, argmax and nrm2,
   over everything or along one axis. For one dtype variant (AG_TC, see variant.h): each
   reduction an accumulator state with init, accumulate, merge and final functions (the math,
   once for every dialect), then its kernels ag_<op>_<in>_<out>_{cols,rows,merge}.

   x is viewed as [outer][len][inner] and reduced over len, each output's range cut into
   `parts` pieces whose states are merged afterwards (the _merge kernel) when parts > 1.
   _cols: one item per (outer, part, inner) index, walking its piece in order; neighbouring
   items take neighbouring inner indices, so GPUs read coalesced rows of the inner axis and
   CPUs stream contiguous memory when inner is 1.
   _colw: CPU devices' form of _cols when inner > 1: an item per AG_RCOLS neighbouring outputs
   of a piece, which it reads a row of at a time, each element added as it comes (the block
   form needs consecutive elements of one output).
   _rows: inner is 1; one work-group per (outer, part) strides through the piece together and
   merges its states in a tree in local memory (GPUs only). Its size is a power of two up to
   256, whatever the kernel's limit on the device allows (src/reduce.c chooses it).
   y is read only by dot (the op layer passes x again otherwise).

   Accuracy: integer sums are exact in 64 bits (wrapping modulo 2^64, as numpy's int64 and
   uint64 sums do). Float sums add blocks of AG_RBLOCK (256)
   consecutive elements in 16 lanes of plain additions, add the lanes pairwise, then add each
   block into a Kahan-compensated total, so a float32 sum of 2^24 values keeps about 1e-7
   relative error (a plain running sum loses about 1e-2); states of different work-items merge
   with the compensation carried along. Inf and NaN propagate as in plain arithmetic. nrm2
   keeps (scale, sum of squares) as LAPACK's dnrm2 does, so no square overflows or
   underflows. */

/* ---- parameter lists (skeleton_gpu.h), also read by the op layer (src/reduce.c): T1 is x's
   type, T2 the state's, T3 out's; n counts items (_cols: outer * parts * inner; _merge:
   outer * inner) or work-groups (_rows: outer * parts). ---- */
#define AG_SHAPE_REDUCE_COLS(A, V, B, T1, T2, T3)                                                  \
  A(const T1, x) A(const T1, y) V(ag_u64, len) V(ag_u64, inner) V(ag_u64, parts) B(T2, part) A(T3, out)
#define AG_SHAPE_REDUCE_ROWS(A, V, B, T1, T2, T3)                                                  \
  A(const T1, x) A(const T1, y) V(ag_u64, len) V(ag_u64, parts) B(T2, part) A(T3, out)
#define AG_SHAPE_REDUCE_MERGE(A, V, B, T1, T2, T3) B(const T2, part) V(ag_u64, parts) V(ag_u64, inner) A(T3, out)

/* Outputs a _colw item takes (neighbours along the inner axis; the op layer counts its items
   with it). */
#define AG_RCOLS 64

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "complex.h"
#include "variant.h"

/* Elements a work-item accumulates at a time (the accb functions below read them): a block is
   added up in independent lanes, then into the running state once, which keeps the state's
   dependency chain (Kahan: four additions) off the critical path. */
#define AG_RBLOCK 256

/* bool has no reductions here (the op layer refuses it). */
#if (!AG_NEEDS_F64 || AG_HAVE_F64) && !AG_BOOLEAN

/* Names of this variant's states and functions: AG_RN(init, sum) is ag_r_init_sum_f32. As in
   elementwise.h, names are pasted at once (OpenCL may define min, max and dot as macros), so
   an operation's name never travels through another macro's parameter. */
#define AG_RS(op) AG_CAT2(ag_rs_##op, AG_SFX)
#define AG_RN(fn, op) AG_CAT2(ag_r_##fn##_##op, AG_SFX)

/* The accumulated type of plain sums: for integers ag_u64, whose arithmetic wraps where
   signed overflow would be undefined; AG_AS reads it back with the input's signedness. */
#if AG_INT
#define AG_A ag_u64
#if AG_SINT
#define AG_AS ag_i64
#else
#define AG_AS ag_u64
#endif
#else
#define AG_A AG_T
#endif

/* ---- loads: one element, or the product of two (dot, unconjugated) ---- */
AG_INLINE AG_A AG_RN(load, plain)(AG_GLOBAL const AG_T *x, AG_GLOBAL const AG_T *y, ag_u64 i) {
  (void)y;
  return (AG_A)x[i];
}
AG_INLINE AG_T AG_RN(load, same)(AG_GLOBAL const AG_T *x, AG_GLOBAL const AG_T *y, ag_u64 i) {
  (void)y;
  return x[i];
}
AG_INLINE AG_A AG_RN(load, dot)(AG_GLOBAL const AG_T *x, AG_GLOBAL const AG_T *y, ag_u64 i) {
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
   stops compensating, so Inf and NaN come out as plain addition gives them. Written without a
   branch, so that a loop over neighbouring outputs' states (_colw) vectorises. */
typedef struct AG_RS(kahan) {
  AG_R s, c;
} AG_RS(kahan);
AG_INLINE AG_RS(kahan) AG_RN(kadd, sum)(AG_RS(kahan) a, AG_R v) {
  AG_R y = v - a.c, t = a.s + y;
  AG_R c = (t - a.s) - y;
  a.c = t - t == 0 ? c : (AG_R)0;
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
AG_INLINE AG_RS(sum) AG_RN(acc1, sum)(AG_RS(sum) a, AG_T v, ag_u64 k) {
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
#define AG_SUM_BLOCK(ld)                                                                           \
  AG_INLINE AG_RS(sum) AG_CAT2(ag_r_accb_sum_##ld, AG_SFX)(AG_RS(sum) a, AG_GLOBAL const AG_T *x,  \
                                                          AG_GLOBAL const AG_T *y, ag_u64 k,       \
                                                          ag_u64 inner) {                          \
    AG_R re[16], im[16];                                                                           \
    for (int j = 0; j < 16; j++)                                                                   \
      re[j] = im[j] = 0;                                                                           \
    for (int i = 0; i < AG_RBLOCK; i += 16)                                                        \
      for (int j = 0; j < 16; j++) {                                                               \
        AG_T v = AG_CAT2(ag_r_load_##ld, AG_SFX)(x, y, (k + (ag_u64)(i + j)) * inner);             \
        re[j] += v.x;                                                                              \
        im[j] += v.y;                                                                              \
      }                                                                                            \
    for (int w = 8; w > 0; w >>= 1)                                                                \
      for (int j = 0; j < w; j++) {                                                                \
        re[j] += re[j + w];                                                                        \
        im[j] += im[j + w];                                                                        \
      }                                                                                            \
    return AG_RN(acc1, sum)(a, AG_MAKE(re[0], im[0]), k);                                          \
  }
#else
#define AG_SUM_BLOCK(ld)                                                                           \
  AG_INLINE AG_RS(sum) AG_CAT2(ag_r_accb_sum_##ld, AG_SFX)(AG_RS(sum) a, AG_GLOBAL const AG_T *x,  \
                                                          AG_GLOBAL const AG_T *y, ag_u64 k,       \
                                                          ag_u64 inner) {                          \
    AG_A l[16];                                                                                    \
    for (int j = 0; j < 16; j++)                                                                   \
      l[j] = 0;                                                                                    \
    for (int i = 0; i < AG_RBLOCK; i += 16)                                                        \
      for (int j = 0; j < 16; j++)                                                                 \
        l[j] += AG_CAT2(ag_r_load_##ld, AG_SFX)(x, y, (k + (ag_u64)(i + j)) * inner);              \
    for (int w = 8; w > 0; w >>= 1)                                                                \
      for (int j = 0; j < w; j++)                                                                  \
        l[j] += l[j + w];                                                                          \
    return AG_RN(acc1, sum)(a, l[0], k);                                                           \
  }
#endif
AG_SUM_BLOCK(plain)
AG_SUM_BLOCK(dot)
#undef AG_SUM_BLOCK

/* The final value of a sum state as each output dtype. */
#if AG_INT
AG_INLINE ag_u32 AG_RN(final_u32, sum)(AG_RS(sum) a) { return (ag_u32)a.s; }
AG_INLINE ag_i32 AG_RN(final_i32, sum)(AG_RS(sum) a) { return (ag_i32)(ag_u32)a.s; }
AG_INLINE ag_u64 AG_RN(final_u64, sum)(AG_RS(sum) a) { return a.s; }
AG_INLINE ag_i64 AG_RN(final_i64, sum)(AG_RS(sum) a) { return (ag_i64)a.s; }
AG_INLINE ag_f32 AG_RN(final_f32, sum)(AG_RS(sum) a) { return (ag_f32)(AG_AS)a.s; }
#if AG_HAVE_F64
AG_INLINE ag_f64 AG_RN(final_f64, sum)(AG_RS(sum) a) { return (ag_f64)(AG_AS)a.s; }
#endif
#elif AG_FLOAT
AG_INLINE AG_T AG_RN(final_same, sum)(AG_RS(sum) a) { return a.re.s - a.re.c; }
#else
AG_INLINE AG_T AG_RN(final_same, sum)(AG_RS(sum) a) { return AG_MAKE(a.re.s - a.re.c, a.im.s - a.im.c); }
#endif

/* ---- prod: integers in 64 bits, wrapping (numpy's int64 and uint64 products); float and
   complex in the dtype, a running product per work-item (numpy multiplies in order too), the
   work-items' products multiplied together ---- */
typedef struct AG_RS(prod) {
  AG_A p;
} AG_RS(prod);
AG_INLINE AG_A AG_RN(mul, prod)(AG_A a, AG_A b) {
#if AG_CPLX
  return AG_CAT2(ag_cmul, AG_RSFX)(a, b);
#else
  return a * b;
#endif
}
AG_INLINE AG_RS(prod) AG_RN(init, prod)(void) {
  AG_RS(prod) r;
#if AG_CPLX
  r.p = AG_MAKE((AG_R)1, (AG_R)0);
#else
  r.p = 1;
#endif
  return r;
}
AG_INLINE AG_RS(prod) AG_RN(acc1, prod)(AG_RS(prod) a, AG_A v, ag_u64 k) {
  (void)k;
  a.p = AG_RN(mul, prod)(a.p, v);
  return a;
}
AG_INLINE AG_RS(prod) AG_RN(merge, prod)(AG_RS(prod) a, AG_RS(prod) b) {
  a.p = AG_RN(mul, prod)(a.p, b.p);
  return a;
}
AG_INLINE AG_RS(prod) AG_RN(accb_prod, plain)(AG_RS(prod) a, AG_GLOBAL const AG_T *x, AG_GLOBAL const AG_T *y,
                                              ag_u64 k, ag_u64 inner) {
  for (int i = 0; i < AG_RBLOCK; i++)
    a.p = AG_RN(mul, prod)(a.p, AG_RN(load, plain)(x, y, (k + (ag_u64)i) * inner));
  return a;
}
#if AG_UINT
AG_INLINE ag_u64 AG_RN(final_u64, prod)(AG_RS(prod) a) { return a.p; }
#elif AG_SINT
AG_INLINE ag_i64 AG_RN(final_i64, prod)(AG_RS(prod) a) { return (ag_i64)a.p; }
#else
AG_INLINE AG_T AG_RN(final_same, prod)(AG_RS(prod) a) { return a.p; }
#endif

#if AG_REAL
/* States hold integers at 32 bits at least: rusticl (Mesa 22.3) miscompiles a struct with a
   uchar member returned by value (docs/portability.md, narrow-struct-members). */
#if AG_WIDE
#define AG_EV AG_T
#elif AG_UINT
#define AG_EV ag_u32
#elif AG_SINT
#define AG_EV ag_i32
#else
#define AG_EV AG_T
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
#define AG_EXT_FUNCS(op, BETTER)                                                                   \
  AG_INLINE AG_RS(ext) AG_CAT2(ag_r_merge_##op, AG_SFX)(AG_RS(ext) a, AG_RS(ext) b) {              \
    if (!a.n)                                                                                      \
      return b;                                                                                    \
    if (b.n && a.v == a.v && (b.v != b.v || BETTER(b.v, a.v)))                                     \
      a.v = b.v;                                                                                   \
    return a;                                                                                      \
  }                                                                                                \
  AG_INLINE AG_RS(ext) AG_CAT2(ag_r_acc1_##op, AG_SFX)(AG_RS(ext) a, AG_T v, ag_u64 k) {           \
    (void)k;                                                                                       \
    AG_RS(ext) b;                                                                                  \
    b.v = v;                                                                                       \
    b.n = 1;                                                                                       \
    return AG_CAT2(ag_r_merge_##op, AG_SFX)(a, b);                                                 \
  }                                                                                                \
  AG_INLINE AG_RS(ext) AG_CAT2(ag_r_accb_##op##_same, AG_SFX)(AG_RS(ext) a, AG_GLOBAL const AG_T *x, \
                                                                AG_GLOBAL const AG_T *y, ag_u64 k, \
                                                                ag_u64 inner) {                    \
    for (int j = 0; j < AG_RBLOCK; j++)                                                            \
      a = AG_CAT2(ag_r_acc1_##op, AG_SFX)(a, AG_RN(load, same)(x, y, (k + (ag_u64)j) * inner),     \
                                          k + (ag_u64)j);                                          \
    return a;                                                                                      \
  }                                                                                                \
  AG_INLINE AG_T AG_CAT2(ag_r_final_same_##op, AG_SFX)(AG_RS(ext) a) { return (AG_T)a.v; }
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
#define AG_ARG_FUNCS(op, BETTER)                                                                   \
  AG_INLINE AG_RS(arg) AG_CAT2(ag_r_merge_##op, AG_SFX)(AG_RS(arg) a, AG_RS(arg) b) {              \
    if (a.i == ~(ag_u64)0)                                                                         \
      return b;                                                                                    \
    if (b.i == ~(ag_u64)0)                                                                         \
      return a;                                                                                    \
    bool an = a.v != a.v, bn = b.v != b.v;                                                         \
    if (an || bn)                                                                                  \
      return an && bn ? (b.i < a.i ? b : a) : an ? a : b;                                          \
    return BETTER(b.v, a.v) || (b.v == a.v && b.i < a.i) ? b : a;                                  \
  }                                                                                                \
  AG_INLINE AG_RS(arg) AG_CAT2(ag_r_acc1_##op, AG_SFX)(AG_RS(arg) a, AG_T v, ag_u64 k) {           \
    AG_RS(arg) b;                                                                                  \
    b.v = v;                                                                                       \
    b.i = k;                                                                                       \
    return AG_CAT2(ag_r_merge_##op, AG_SFX)(a, b);                                                 \
  }                                                                                                \
  AG_INLINE AG_RS(arg) AG_CAT2(ag_r_accb_##op##_same, AG_SFX)(AG_RS(arg) a, AG_GLOBAL const AG_T *x, \
                                                                AG_GLOBAL const AG_T *y, ag_u64 k, \
                                                                ag_u64 inner) {                    \
    for (int j = 0; j < AG_RBLOCK; j++)                                                            \
      a = AG_CAT2(ag_r_acc1_##op, AG_SFX)(a, AG_RN(load, same)(x, y, (k + (ag_u64)j) * inner),     \
                                          k + (ag_u64)j);                                          \
    return a;                                                                                      \
  }                                                                                                \
  AG_INLINE ag_u32 AG_CAT2(ag_r_final_u32_##op, AG_SFX)(AG_RS(arg) a) { return (ag_u32)a.i; }     \
  AG_INLINE ag_i64 AG_CAT2(ag_r_final_i64_##op, AG_SFX)(AG_RS(arg) a) { return (ag_i64)a.i; }
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
  AG_R scale;
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
  AG_R r = b.scale / a.scale, r2 = r * r;
  a.ssq = AG_RN(kadd, sum)(a.ssq, b.ssq.s * r2);
  a.ssq = AG_RN(kadd, sum)(a.ssq, -b.ssq.c * r2);
  if (b.scale != b.scale)
    a.scale = b.scale;
  return a;
}
AG_INLINE AG_RS(nrm2) AG_RN(add_real, nrm2)(AG_RS(nrm2) a, AG_R v) {
  AG_R m = AG_CAT2(AG_FABS, AG_RSFX)(v);
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
AG_INLINE AG_RS(nrm2) AG_RN(acc1, nrm2)(AG_RS(nrm2) a, AG_T v, ag_u64 k) {
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
AG_INLINE AG_RS(nrm2) AG_CAT2(ag_r_accb_nrm2_same, AG_SFX)(AG_RS(nrm2) a, AG_GLOBAL const AG_T *x,
                                                          AG_GLOBAL const AG_T *y, ag_u64 k, ag_u64 inner) {
  AG_R l[16];
  for (int j = 0; j < 16; j++)
    l[j] = 0;
#define AG_NRM2_MAX(c)                                                                             \
  {                                                                                                \
    AG_R t_ = AG_CAT2(AG_FABS, AG_RSFX)(c);                                                        \
    l[j] = t_ > l[j] ? t_ : l[j];                                                                  \
  }
  for (int i = 0; i < AG_RBLOCK; i += 16)
    for (int j = 0; j < 16; j++) {
      AG_T v = AG_RN(load, same)(x, y, (k + (ag_u64)(i + j)) * inner);
      AG_NRM2_PARTS(v, AG_NRM2_MAX)
    }
#undef AG_NRM2_MAX
  AG_R m = 0;
  for (int j = 0; j < 16; j++)
    m = l[j] > m ? l[j] : m;
  if (!(m > 0 && m - m == 0)) { /* zero, Inf or NaN: element by element */
    for (int j = 0; j < AG_RBLOCK; j++)
      a = AG_RN(acc1, nrm2)(a, AG_RN(load, same)(x, y, (k + (ag_u64)j) * inner), k);
    return a;
  }
  AG_R inv = (AG_R)1 / m;
  for (int j = 0; j < 16; j++)
    l[j] = 0;
#define AG_NRM2_SQUARE(c)                                                                          \
  {                                                                                                \
    AG_R t_ = (c)*inv;                                                                             \
    l[j] += t_ * t_;                                                                               \
  }
  for (int i = 0; i < AG_RBLOCK; i += 16)
    for (int j = 0; j < 16; j++) {
      AG_T v = AG_RN(load, same)(x, y, (k + (ag_u64)(i + j)) * inner);
      AG_NRM2_PARTS(v, AG_NRM2_SQUARE)
    }
#undef AG_NRM2_SQUARE
#undef AG_NRM2_PARTS
  for (int w = 8; w > 0; w >>= 1)
    for (int j = 0; j < w; j++)
      l[j] += l[j + w];
  AG_RS(nrm2) b;
  /* the maximum passed over NaNs, whose squares made the sum NaN: the NaN is the scale, so
     that merging into an infinite scale keeps it */
  b.scale = l[0] != l[0] ? l[0] : m;
  b.ssq.s = l[0];
  b.ssq.c = 0;
  return AG_RN(merge, nrm2)(a, b);
}
AG_INLINE AG_R AG_RN(final_real, nrm2)(AG_RS(nrm2) a) {
  return a.scale * AG_CAT2(AG_SQRT, AG_RSFX)(a.ssq.s - a.ssq.c);
}
#endif


/* ---- the kernels ---- */

/* The three kernels of one reduction K with state S and output type TO. */
#define AG_REDUCE_KERNELS(K, S, TO, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                          \
  /* Item i of a _cols launch: one piece of one output's range, walked in order. */                \
  AG_INLINE void AG_CAT2(K, _cols_item)(AG_GLOBAL const AG_T *x, AG_GLOBAL const AG_T *y,          \
                                        ag_u64 len, ag_u64 inner, ag_u64 parts,                    \
                                        AG_GLOBAL S *part, AG_GLOBAL TO *out, ag_u64 gid) {        \
    ag_u64 i = gid % inner, p = (gid / inner) % parts, o = gid / inner / parts;                    \
    ag_u64 per = (len + parts - 1) / parts, k = p * per < len ? p * per : len;                     \
    ag_u64 k1 = len - k < per ? len : k + per;                                                     \
    x += o * len * inner + i;                                                                      \
    y += o * len * inner + i;                                                                      \
    S s = INIT();                                                                                  \
    if (inner == 1) { /* contiguous: compiled for stride 1, so block loads vectorise */            \
      for (; k + AG_RBLOCK <= k1; k += AG_RBLOCK)                                                  \
        s = ACCB(s, x, y, k, 1);                                                                   \
    } else {                                                                                       \
      for (; k + AG_RBLOCK <= k1; k += AG_RBLOCK)                                                  \
        s = ACCB(s, x, y, k, inner);                                                               \
    }                                                                                              \
    for (; k < k1; k++)                                                                            \
      s = ACC1(s, LOAD(x, y, k * inner), k);                                                       \
    if (parts == 1)                                                                                \
      out[o * inner + i] = FINAL(s);                                                               \
    else                                                                                           \
      part[(o * parts + p) * inner + i] = s;                                                       \
  }                                                                                                \
  AG_ITEMS(AG_CAT2(K, _cols), AG_SHAPE_REDUCE_COLS, AG_T, S, TO,                                   \
           AG_CAT2(K, _cols_item)(x, y, len, inner, parts, part, out, i))                          \
  /* Item i of a _colw launch (CPU devices, inner > 1): AG_RCOLS neighbouring outputs of one     \
     piece, walked a row of them at a time, so that memory is read in runs rather than one       \
     element per row (rows a power of two apart share cache sets, and such a walk of one column   \
     missed every cache). */                                                                      \
  AG_CPU_ITEMS(AG_CAT2(K, _colw), AG_SHAPE_REDUCE_COLS, AG_T, S, TO, {                             \
    ag_u64 nw = (inner + AG_RCOLS - 1) / AG_RCOLS;                                                 \
    ag_u64 w0 = (i % nw) * AG_RCOLS, p = (i / nw) % parts, o = i / nw / parts;                     \
    ag_u64 ww = inner - w0 < AG_RCOLS ? inner - w0 : AG_RCOLS;                                     \
    ag_u64 per = (len + parts - 1) / parts, k = p * per < len ? p * per : len;                     \
    ag_u64 k1 = len - k < per ? len : k + per;                                                     \
    AG_GLOBAL const AG_T *xw = x + o * len * inner + w0, *yw = y + o * len * inner + w0;           \
    S sw[AG_RCOLS];                                                                                \
    for (ag_u64 w = 0; w < ww; w++)                                                                \
      sw[w] = INIT();                                                                              \
    for (; k < k1; k++)                                                                            \
      for (ag_u64 w = 0; w < ww; w++)                                                              \
        sw[w] = ACC1(sw[w], LOAD(xw, yw, k * inner + w), k);                                       \
    for (ag_u64 w = 0; w < ww; w++) {                                                              \
      if (parts == 1)                                                                              \
        out[o * inner + w0 + w] = FINAL(sw[w]);                                                    \
      else                                                                                         \
        part[(o * parts + p) * inner + w0 + w] = sw[w];                                            \
    }                                                                                              \
  })                                                                                               \
  /* Group g of a _rows launch: one piece of one row, a work-group reading it together. */         \
  AG_GROUPS(AG_CAT2(K, _rows), AG_SHAPE_REDUCE_ROWS, AG_T, S, TO, AG_LOCAL_MEM S sh[256];, {       \
    ag_u32 l = AG_LOCAL_ID, wg = AG_LOCAL_SIZE;                                                    \
    ag_u64 o = g / parts, p = g % parts;                                                           \
    ag_u64 per = (len + parts - 1) / parts, k0 = p * per < len ? p * per : len;                    \
    ag_u64 k1 = len - k0 < per ? len : k0 + per;                                                   \
    AG_GLOBAL const AG_T *xr = x + o * len, *yr = y + o * len;                                     \
    S s = INIT();                                                                                  \
    for (ag_u64 k = k0 + l; k < k1; k += wg)                                                       \
      s = ACC1(s, LOAD(xr, yr, k), k);                                                             \
    sh[l] = s;                                                                                     \
    AG_BARRIER();                                                                                  \
    for (ag_u32 w = wg / 2; w > 0; w >>= 1) {                                                      \
      if (l < w)                                                                                   \
        sh[l] = MERGE(sh[l], sh[l + w]);                                                           \
      AG_BARRIER();                                                                                \
    }                                                                                              \
    if (l == 0) {                                                                                  \
      if (parts == 1)                                                                              \
        out[o] = FINAL(sh[0]);                                                                     \
      else                                                                                         \
        part[o * parts + p] = sh[0];                                                               \
    }                                                                                              \
  })                                                                                               \
  /* Item i of a _merge launch: one output, from its parts' states. */                             \
  AG_INLINE void AG_CAT2(K, _merge_item)(AG_GLOBAL const S *part, ag_u64 parts, ag_u64 inner,      \
                                         AG_GLOBAL TO *out, ag_u64 gid) {                          \
    ag_u64 i = gid % inner, o = gid / inner;                                                       \
    part += o * parts * inner + i;                                                                 \
    S s = part[0];                                                                                 \
    for (ag_u64 p = 1; p < parts; p++)                                                             \
      s = MERGE(s, part[p * inner]);                                                               \
    out[gid] = FINAL(s);                                                                           \
  }                                                                                                \
  AG_ITEMS(AG_CAT2(K, _merge), AG_SHAPE_REDUCE_MERGE, AG_T, S, TO,                                 \
           AG_CAT2(K, _merge_item)(part, parts, inner, out, i))

/* AG_RED(kernel, function op, state, load, final, out dtype name, out type) defines the
   kernels named kernel_<dtype>_<out>. Every name parameter but the kernel's is only ever
   pasted. */
#define AG_RED(K, fop, st, ld, fin, out, TO)                                                       \
  AG_REDUCE_KERNELS(AG_CAT3(AG_KN(K), _, out), AG_CAT2(ag_rs_##st, AG_SFX), TO,                    \
                    AG_CAT2(ag_r_load_##ld, AG_SFX), AG_CAT2(ag_r_init_##st, AG_SFX),              \
                    AG_CAT2(ag_r_acc1_##fop, AG_SFX), AG_CAT2(ag_r_accb_##fop##_##ld, AG_SFX),     \
                    AG_CAT2(ag_r_merge_##fop, AG_SFX), AG_CAT2(ag_r_final_##fin##_##fop, AG_SFX))

/* Integer sums come out as u32 or i32 (the input's signedness), u64 or i64 (the array API's
   accumulator type), f32 or f64; float and complex sums in the input's dtype, named twice
   (ag_sum_f32_f32) so that every reduction is named the same way; nrm2 in the real dtype. */
#if AG_UINT
AG_RED(ag_sum, sum, sum, plain, u32, u32, ag_u32)
AG_RED(ag_dot, sum, sum, dot, u32, u32, ag_u32)
AG_RED(ag_sum, sum, sum, plain, u64, u64, ag_u64)
AG_RED(ag_dot, sum, sum, dot, u64, u64, ag_u64)
#elif AG_SINT
AG_RED(ag_sum, sum, sum, plain, i32, i32, ag_i32)
AG_RED(ag_dot, sum, sum, dot, i32, i32, ag_i32)
AG_RED(ag_sum, sum, sum, plain, i64, i64, ag_i64)
AG_RED(ag_dot, sum, sum, dot, i64, i64, ag_i64)
#endif
#if AG_UINT
AG_RED(ag_prod, prod, prod, plain, u64, u64, ag_u64)
#elif AG_SINT
AG_RED(ag_prod, prod, prod, plain, i64, i64, ag_i64)
#else
AG_RED(ag_prod, prod, prod, plain, same, AG_DT, AG_T)
#endif
#if AG_INT
AG_RED(ag_sum, sum, sum, plain, f32, f32, ag_f32)
AG_RED(ag_dot, sum, sum, dot, f32, f32, ag_f32)
#if AG_HAVE_F64
AG_RED(ag_sum, sum, sum, plain, f64, f64, ag_f64)
AG_RED(ag_dot, sum, sum, dot, f64, f64, ag_f64)
#endif
#else
AG_RED(ag_sum, sum, sum, plain, same, AG_DT, AG_T)
AG_RED(ag_dot, sum, sum, dot, same, AG_DT, AG_T)
AG_RED(ag_nrm2, nrm2, nrm2, same, real, AG_RDT, AG_R)
#endif
#if AG_REAL
/* min and max come out in the input's dtype; argmin and argmax as a u32 index (also read as
   i32: the op layer refuses indices that do not fit) or an i64 one. */
AG_RED(ag_min, min, ext, same, same, AG_DT, AG_T)
AG_RED(ag_max, max, ext, same, same, AG_DT, AG_T)
AG_RED(ag_argmin, argmin, arg, same, u32, u32, ag_u32)
AG_RED(ag_argmax, argmax, arg, same, u32, u32, ag_u32)
AG_RED(ag_argmin, argmin, arg, same, i64, i64, ag_i64)
AG_RED(ag_argmax, argmax, arg, same, i64, i64, ag_i64)
#endif
#undef AG_RED
#undef AG_REDUCE_KERNELS

#undef AG_A
#undef AG_AS
#undef AG_RS
#undef AG_RN

#endif /* (!AG_NEEDS_F64 || AG_HAVE_F64) && !AG_BOOLEAN */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
