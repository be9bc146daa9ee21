/* backends/host/kernels/skeleton.h - turns the kernel definitions of a family source
   (kernels_shared/<family>.h) into host kernels: one C function per kernel, called once per
   work-group with the same arguments as its OpenCL and CUDA twins (kernels_shared/
   skeleton_gpu.h documents the definitions), and an entry {name, function} for the family's
   table, kept in the linker section ag_host_<family> (family.c.in reads it back). */
#ifndef AG_HOST_SKELETON_H
#define AG_HOST_SKELETON_H

#include "anygpu.h"
#include "../../../kernels_shared/dialect.h"

#define AG_HOST_STR_(x) #x
#define AG_HOST_STR(x) AG_HOST_STR_(x)
#define AG_HOST_FN(K) AG_CAT2(host_, K)

/* Host kernels are built for the baseline x86-64 and again for AVX2 and AVX-512, the loader
   picking the best the CPU has (an ifunc), as numpy's own loops do: memory-bound loops gain a
   little from wider vectors, sqrt and division a lot. A family's file may ask for the baseline
   only (AG_HOST_WANT_CLONES 0, backends/host/meson.build). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) &&             \
    (!defined(AG_HOST_WANT_CLONES) || AG_HOST_WANT_CLONES)
#define AG_HOST_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#else
#define AG_HOST_CLONES
#endif

/* The table entry of kernel K, in the section of family AG_HOST_FAMILY (set by family.c.in).
   Sections named like C identifiers are left alone by AddressSanitizer, so entries lie
   back to back, as an array; their size is a power of two and their alignment that size. */
#define AG_HOST_ENTRY(K)                                                                           \
  static const ag_host_kernel_def AG_CAT2(entry_, K)                                               \
      __attribute__((used, aligned(sizeof(ag_host_kernel_def)),                                    \
                     section("ag_host_" AG_HOST_STR(AG_HOST_FAMILY)))) = {AG_HOST_STR(K), AG_HOST_FN(K)};
_Static_assert((sizeof(ag_host_kernel_def) & (sizeof(ag_host_kernel_def) - 1)) == 0,
               "host kernel table entries must be a power of two bytes long");

/* A shape's parameters, unpacked from args in the order of its list (skeleton_gpu.h). */
#define AG_HOST_ARRAY(TY, name)                                                                    \
  TY *const name = (TY *)args[a_] + *(const ag_u64 *)args[a_ + 1];                                 \
  a_ += 2;
#define AG_HOST_VALUE(TY, name) const TY name = *(const TY *)args[a_++];
#define AG_HOST_BUFFER(TY, name) TY *const name = (TY *)args[a_++];
#define AG_HOST_PARAMS(SHAPE, T1, T2, T3)                                                          \
  unsigned a_ = 0;                                                                                 \
  SHAPE(AG_HOST_ARRAY, AG_HOST_VALUE, AG_HOST_BUFFER, T1, T2, T3)                                  \
  const ag_u64 n = *(const ag_u64 *)args[a_++];

/* The elements of this work-group: items [group*local, (group+1)*local) of the launch, each covering
   chunk elements, repeated every (launch * chunk) elements. The op layer launches the host
   with global * chunk >= n, so each group makes one pass over one stretch of memory. */
#define AG_EW(K, SHAPE, T1, T2, T3, LOOP, ...)                                                     \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *grp_, void *const *args) {         \
    AG_HOST_PARAMS(SHAPE, T1, T2, T3)                                                              \
    const ag_u64 chunk = *(const ag_u64 *)args[a_];                                                \
    const ag_u64 per_ = (ag_u64)grp_->local_size[0] * chunk;                                       \
    const ag_u64 step_ = (ag_u64)grp_->num_groups[0] * per_;                                       \
    for (ag_u64 lo_ = (ag_u64)grp_->group_id[0] * per_; lo_ < n; lo_ += step_) {                   \
      const ag_u64 hi_ = n - lo_ < per_ ? n : lo_ + per_;                                          \
      LOOP(__VA_ARGS__)                                                                            \
    }                                                                                              \
  }                                                                                                \
  AG_HOST_ENTRY(K)

/* AG_EW's loops over [lo_, hi_): every element i, as a plain vectorisable loop; and i with
   j = i % m, taken row by row of the repeated operand so the inner loop stays one. */
#define AG_EACH(...) _Pragma("omp simd") for (ag_u64 i = lo_; i < hi_; i++) { __VA_ARGS__; }
#define AG_EACH_REPEAT(...)                                                                        \
  for (ag_u64 row_ = lo_ - lo_ % m; row_ < hi_; row_ += m) {                                       \
    const ag_u64 s_ = row_ < lo_ ? lo_ : row_, e_ = row_ + m < hi_ ? row_ + m : hi_;               \
    _Pragma("omp simd") for (ag_u64 i = s_; i < e_; i++) {                                         \
      const ag_u64 j = i - row_;                                                                   \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  }

/* And a strided walk (kernels_shared/nd.h) over [lo_, hi_), row by row. */
#define AG_EACH_ND(...)                                                                            \
  {                                                                                                \
    AG_ND_GATHER(nd_)                                                                              \
    AG_ND_RUN(nd_, lo_, hi_, __VA_ARGS__)                                                          \
  }

/* This group's share of [0, n): one contiguous stretch. */
#define AG_ITEMS(K, SHAPE, T1, T2, T3, ...)                                                        \
  AG_HOST_CLONES static void AG_HOST_FN(K)(const ag_host_group *grp_, void *const *args) {         \
    AG_HOST_PARAMS(SHAPE, T1, T2, T3)                                                              \
    const ag_u64 per_ = (n + grp_->num_groups[0] - 1) / grp_->num_groups[0];                       \
    const ag_u64 lo_ = (ag_u64)grp_->group_id[0] * per_;                                           \
    const ag_u64 hi_ = lo_ >= n ? lo_ : n - lo_ < per_ ? n : lo_ + per_;                           \
    for (ag_u64 i = lo_; i < hi_; i++) {                                                           \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  }                                                                                                \
  AG_HOST_ENTRY(K)

/* The host is a CPU device: its CPU-only kernels are items kernels like the others. */
#define AG_CPU_ITEMS(K, SHAPE, T1, T2, T3, ...) AG_ITEMS(K, SHAPE, T1, T2, T3, __VA_ARGS__)

/* Work-group kernels are for GPUs; the op layer never launches them on the host. */
#define AG_GROUPS(K, SHAPE, T1, T2, T3, LOCALS, ...)

#endif
