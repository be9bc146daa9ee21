/* backends/host/kernels/skeleton.h - turns the AG_DEF_* lists of the shared kernel headers
   into host kernels: one C function per kernel, called once per work-group, with the same
   arguments as the OpenCL and CUDA kernels. Define AG_HOST_TABLE_PASS before including to get
   table entries {"name", function} instead. */
#include "anygpu.h"
#include "../../../kernels_shared/reduce_items.h"
#include "../../../kernels_shared/roll.h"

/* Bytes the op layer reserves per partial reduction state (src/reduce.c). */
#define AG_REDUCE_STATE_MAX 32

#define AG_STR_(x) #x
#define AG_STR(x) AG_STR_(x)
#define AG_HOST_FN(K) AG_CAT2(host_, K)

/* Host kernels are built for the baseline x86-64 and again for AVX2 and AVX-512, the loader
   picking the best the CPU has (an ifunc), as numpy's own loops do: memory-bound loops gain a
   little from wider vectors, sqrt and division a lot. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define AG_HOST_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define AG_HOST_CLONES
#endif

#ifdef AG_HOST_TABLE_PASS
#define AG_HOST_ENTRY(K) {AG_STR(K), AG_HOST_FN(K)},
#define AG_DEF_UNARY(K, TI, TO, FN) AG_HOST_ENTRY(K)
#define AG_DEF_BINARY(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_BINARY_BCAST_B(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_BINARY_BCAST_A(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_BINARY_SCALAR(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_BINARY_RSCALAR(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_AXPBY(K, T_, R_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_SOFT(K, T_, R_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_CLAMP(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_WHERE(K, T_, FN) AG_HOST_ENTRY(K)
#define AG_DEF_ROLL(K, T_) AG_HOST_ENTRY(K)
/* The host runs reductions in _cols form only (src/reduce.c), so it has no _rows twins. */
#define AG_DEF_REDUCE(K, S, TI, TO, A, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                    \
  AG_HOST_ENTRY(AG_CAT2(K, _cols)) AG_HOST_ENTRY(AG_CAT2(K, _merge))
#else

#define AG_ARG(i, type) (*(const type *)args[i])

/* The elements of this work-group: items [g*local, (g+1)*local) of the launch, each covering
   chunk elements, repeated every (launch * chunk) elements. The op layer launches the host
   with global * chunk >= n, so each group makes one pass over one stretch of memory. */
#define AG_HOST_LOOP(BODY)                                                                      \
  const ag_u64 per_ = (ag_u64)g->local_size[0] * chunk;                                        \
  const ag_u64 step_ = (ag_u64)g->num_groups[0] * per_;                                        \
  for (ag_u64 lo_ = (ag_u64)g->group_id[0] * per_; lo_ < n; lo_ += step_) {                     \
    const ag_u64 hi_ = n - lo_ < per_ ? n : lo_ + per_;                                         \
    _Pragma("omp simd") for (ag_u64 i = lo_; i < hi_; i++) { BODY; }                            \
  }

#define AG_DEF_UNARY(K, TI, TO, FN)                                                             \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const TI *x = (const TI *)args[0] + AG_ARG(1, ag_u64);                                      \
    TO *out = (TO *)args[2] + AG_ARG(3, ag_u64);                                                \
    const ag_u64 n = AG_ARG(4, ag_u64), chunk = AG_ARG(5, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(x[i]))                                                             \
  }

#define AG_DEF_BINARY(K, T_, FN)                                                                \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *a = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const T_ *b = (const T_ *)args[2] + AG_ARG(3, ag_u64);                                      \
    T_ *out = (T_ *)args[4] + AG_ARG(5, ag_u64);                                                \
    const ag_u64 n = AG_ARG(6, ag_u64), chunk = AG_ARG(7, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(a[i], b[i]))                                                       \
  }

/* The broadcast operand has m elements; the index into it is i % m, taken row by row so the
   inner loop stays a plain vectorisable loop. */
#define AG_DEF_BCAST(K, T_, FN, AX, BX)                                                         \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *a = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const T_ *b = (const T_ *)args[2] + AG_ARG(3, ag_u64);                                      \
    const ag_u64 m = AG_ARG(4, ag_u64);                                                         \
    T_ *out = (T_ *)args[5] + AG_ARG(6, ag_u64);                                                \
    const ag_u64 n = AG_ARG(7, ag_u64), chunk = AG_ARG(8, ag_u64);                              \
    const ag_u64 per = (ag_u64)g->local_size[0] * chunk;                                       \
    const ag_u64 step = (ag_u64)g->num_groups[0] * per;                                        \
    for (ag_u64 lo = (ag_u64)g->group_id[0] * per; lo < n; lo += step) {                        \
      const ag_u64 hi = n - lo < per ? n : lo + per;                                            \
      for (ag_u64 row = lo - lo % m; row < hi; row += m) {                                      \
        ag_u64 s = row < lo ? lo : row, e = row + m < hi ? row + m : hi;                        \
        _Pragma("omp simd") for (ag_u64 i = s; i < e; i++) {                                    \
          ag_u64 j = i - row;                                                                   \
          out[i] = FN(AX, BX);                                                                  \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
  }
#define AG_DEF_BINARY_BCAST_B(K, T_, FN) AG_DEF_BCAST(K, T_, FN, a[i], b[j])
#define AG_DEF_BINARY_BCAST_A(K, T_, FN) AG_DEF_BCAST(K, T_, FN, a[j], b[i])

#define AG_DEF_BINARY_SCALAR(K, T_, FN)                                                         \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *x = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const T_ s = AG_ARG(2, T_);                                                                 \
    T_ *out = (T_ *)args[3] + AG_ARG(4, ag_u64);                                                \
    const ag_u64 n = AG_ARG(5, ag_u64), chunk = AG_ARG(6, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(x[i], s))                                                          \
  }

#define AG_DEF_BINARY_RSCALAR(K, T_, FN)                                                        \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *x = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const T_ s = AG_ARG(2, T_);                                                                 \
    T_ *out = (T_ *)args[3] + AG_ARG(4, ag_u64);                                                \
    const ag_u64 n = AG_ARG(5, ag_u64), chunk = AG_ARG(6, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(s, x[i]))                                                          \
  }

#define AG_DEF_AXPBY(K, T_, R_, FN)                                                             \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *x = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const R_ alpha = AG_ARG(2, R_);                                                             \
    const T_ *y = (const T_ *)args[3] + AG_ARG(4, ag_u64);                                      \
    const R_ beta = AG_ARG(5, R_);                                                              \
    T_ *out = (T_ *)args[6] + AG_ARG(7, ag_u64);                                                \
    const ag_u64 n = AG_ARG(8, ag_u64), chunk = AG_ARG(9, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(x[i], y[i], alpha, beta))                                          \
  }

#define AG_DEF_SOFT(K, T_, R_, FN)                                                              \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *x = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const R_ alpha = AG_ARG(2, R_);                                                             \
    T_ *out = (T_ *)args[3] + AG_ARG(4, ag_u64);                                                \
    const ag_u64 n = AG_ARG(5, ag_u64), chunk = AG_ARG(6, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(x[i], alpha))                                                      \
  }

#define AG_DEF_CLAMP(K, T_, FN)                                                                 \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const T_ *x = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    const T_ lo = AG_ARG(2, T_), hi = AG_ARG(3, T_);                                            \
    T_ *out = (T_ *)args[4] + AG_ARG(5, ag_u64);                                                \
    const ag_u64 n = AG_ARG(6, ag_u64), chunk = AG_ARG(7, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(x[i], lo, hi))                                                     \
  }

#define AG_DEF_WHERE(K, T_, FN)                                                                 \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {                        \
    const ag_u8 *c = (const ag_u8 *)args[0] + AG_ARG(1, ag_u64);                                \
    const T_ *a = (const T_ *)args[2] + AG_ARG(3, ag_u64);                                      \
    const T_ *b = (const T_ *)args[4] + AG_ARG(5, ag_u64);                                      \
    T_ *out = (T_ *)args[6] + AG_ARG(7, ag_u64);                                                \
    const ag_u64 n = AG_ARG(8, ag_u64), chunk = AG_ARG(9, ag_u64);                              \
    AG_HOST_LOOP(out[i] = FN(c[i], a[i], b[i]))                                                 \
  }

/* See kernels_shared/roll.h. */
#define AG_DEF_ROLL(K, T_)                                                                      \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *g, void *const *args) {         \
    const T_ *x = (const T_ *)args[0] + AG_ARG(1, ag_u64);                                      \
    T_ *out = (T_ *)args[2] + AG_ARG(3, ag_u64);                                                \
    const ag_u64 d1 = AG_ARG(4, ag_u64), d2 = AG_ARG(5, ag_u64), d3 = AG_ARG(6, ag_u64);        \
    const ag_u64 s1 = AG_ARG(7, ag_u64), s2 = AG_ARG(8, ag_u64), s3 = AG_ARG(9, ag_u64);        \
    const ag_u64 n = AG_ARG(10, ag_u64), chunk = AG_ARG(11, ag_u64);                            \
    AG_HOST_LOOP(out[i] = x[ag_roll_source(i, d1, d2, d3, s1, s2, s3)])                         \
  }

/* The items of this work-group, each one piece of one output (see reduce_items.h). */
#define AG_DEF_REDUCE(K, S, TI, TO, A, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                    \
  AG_REDUCE_ITEMS(K, S, TI, TO, A, LOAD, INIT, ACC1, ACCB, MERGE, FINAL)                        \
  _Static_assert(sizeof(S) <= AG_REDUCE_STATE_MAX, "a reduction state is larger than reserved"); \
  AG_HOST_CLONES static void AG_HOST_FN(AG_CAT2(K, _cols))(const ag_host_group *g, void *const *args) {        \
    const TI *x = (const TI *)args[0] + AG_ARG(1, ag_u64);                                      \
    const TI *y = (const TI *)args[2] + AG_ARG(3, ag_u64);                                      \
    const ag_u64 outer = AG_ARG(4, ag_u64), len = AG_ARG(5, ag_u64);                            \
    const ag_u64 inner = AG_ARG(6, ag_u64), parts = AG_ARG(7, ag_u64);                          \
    S *part = (S *)args[8];                                                                     \
    TO *out = (TO *)args[9] + AG_ARG(10, ag_u64);                                               \
    const ag_u64 total = outer * parts * inner, lo = (ag_u64)g->group_id[0] * g->local_size[0]; \
    const ag_u64 hi = total - lo < g->local_size[0] ? total : lo + g->local_size[0];           \
    for (ag_u64 gid = lo; gid < hi; gid++)                                                      \
      AG_CAT2(K, _cols_item)(x, y, len, inner, parts, part, out, gid);                   \
  }                                                                                             \
  AG_HOST_CLONES static void AG_HOST_FN(AG_CAT2(K, _merge))(const ag_host_group *g, void *const *args) {       \
    const S *part = (const S *)args[0];                                                         \
    const ag_u64 outer = AG_ARG(1, ag_u64), parts = AG_ARG(2, ag_u64), inner = AG_ARG(3, ag_u64); \
    TO *out = (TO *)args[4] + AG_ARG(5, ag_u64);                                                \
    const ag_u64 total = outer * inner, lo = (ag_u64)g->group_id[0] * g->local_size[0];         \
    const ag_u64 hi = total - lo < g->local_size[0] ? total : lo + g->local_size[0];           \
    for (ag_u64 gid = lo; gid < hi; gid++)                                                      \
      AG_CAT2(K, _merge_item)(part, parts, inner, out, gid);                                    \
  }
#endif
