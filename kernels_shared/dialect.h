/* kernels_shared/dialect.h - lets one kernel body compile as OpenCL C (kernels_cl/), as CUDA C
   (kernels_cu/) and as host C (backends/host/kernels/): qualifiers, indices, fixed-width and
   complex types under one spelling. */
#ifndef AG_KERNEL_DIALECT_H
#define AG_KERNEL_DIALECT_H

#if defined(__CUDACC__)
#define AG_DIALECT_CUDA 1
#elif defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define AG_DIALECT_OPENCL 1
#else
#define AG_DIALECT_HOST 1
#endif

#if AG_DIALECT_CUDA
typedef unsigned char ag_u8;
typedef unsigned short ag_u16;
typedef unsigned int ag_u32;
typedef signed char ag_i8;
typedef short ag_i16;
typedef int ag_i32;
typedef unsigned long long ag_u64;
typedef long long ag_i64;
typedef float ag_f32;
typedef double ag_f64;
typedef float2 ag_c64;
typedef double2 ag_c128;
#define AG_HAVE_F64 1
#define AG_KERNEL extern "C" __global__
#define AG_GLOBAL
#define AG_LOCAL_MEM __shared__
#define AG_INLINE static __device__ __forceinline__
#define AG_GLOBAL_ID ((ag_u64)blockIdx.x * blockDim.x + threadIdx.x)
#define AG_GLOBAL_SIZE ((ag_u64)gridDim.x * blockDim.x)
#define AG_LOCAL_ID ((ag_u32)threadIdx.x)
#define AG_LOCAL_SIZE ((ag_u32)blockDim.x)
#define AG_GROUP_ID ((ag_u64)blockIdx.x)
#define AG_NUM_GROUPS ((ag_u64)gridDim.x)
#define AG_BARRIER() __syncthreads()
#define AG_C64(re, im) make_float2((re), (im))
#define AG_C128(re, im) make_double2((re), (im))

#elif AG_DIALECT_OPENCL
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define AG_HAVE_F64 1
#endif
typedef uchar ag_u8;
typedef ushort ag_u16;
typedef uint ag_u32;
typedef char ag_i8;
typedef short ag_i16;
typedef int ag_i32;
typedef ulong ag_u64;
typedef long ag_i64;
typedef float ag_f32;
typedef float2 ag_c64;
#if AG_HAVE_F64
typedef double ag_f64;
typedef double2 ag_c128;
#endif
#define AG_KERNEL __kernel
#define AG_GLOBAL __global
#define AG_LOCAL_MEM __local
#define AG_INLINE static inline
#define AG_GLOBAL_ID ((ag_u64)get_global_id(0))
#define AG_GLOBAL_SIZE ((ag_u64)get_global_size(0))
#define AG_LOCAL_ID ((ag_u32)get_local_id(0))
#define AG_LOCAL_SIZE ((ag_u32)get_local_size(0))
#define AG_GROUP_ID ((ag_u64)get_group_id(0))
#define AG_NUM_GROUPS ((ag_u64)get_num_groups(0))
#define AG_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define AG_C64(re, im) ((float2)((re), (im)))
#define AG_C128(re, im) ((double2)((re), (im)))

#else /* host C11 */
#include <math.h>
#include <stdint.h>
typedef uint8_t ag_u8;
typedef uint16_t ag_u16;
typedef uint32_t ag_u32;
typedef int8_t ag_i8;
typedef int16_t ag_i16;
typedef int32_t ag_i32;
typedef uint64_t ag_u64;
typedef int64_t ag_i64;
typedef float ag_f32;
typedef double ag_f64;
typedef struct __attribute__((aligned(8))) ag_c64 {
  float x, y;
} ag_c64;
typedef struct __attribute__((aligned(16))) ag_c128 {
  double x, y;
} ag_c128;
#define AG_HAVE_F64 1
#define AG_GLOBAL
/* Forced inline: the host builds each kernel for several instruction sets (target_clones),
   and only code inlined into a clone is compiled for that clone's set. */
#define AG_INLINE static inline __attribute__((always_inline))
#define AG_C64(re, im) ((ag_c64){(re), (im)})
#define AG_C128(re, im) ((ag_c128){(re), (im)})
#endif

/* Before a short loop of independent lanes (a fixed count of accumulators): the host
   compiler is asked to vectorise it. OpenCL unrolls it in full, so that the accumulators are
   registers: pocl otherwise vectorises the loop as it stands and keeps the accumulators in
   memory, a load and a store around each vector's multiply-add (2.3 times the time of
   ag_tm_score). CUDA runs each work-item's loop as it is. */
#if AG_DIALECT_HOST
#define AG_SIMD _Pragma("omp simd")
#elif AG_DIALECT_OPENCL
#define AG_SIMD _Pragma("unroll")
#else
#define AG_SIMD
#endif

/* Reads of memory the caller names AG_AHEAD steps before it needs it: on the host, where a
   gather of scattered pixels (a sparse row's) misses the caches and the CPU prefetches only
   what it can predict; GPUs hide the wait behind other work-items, so AG_AHEAD is 0 there and
   the prefetching code folds away. */
#if AG_DIALECT_HOST
#define AG_AHEAD 32
#define AG_PREFETCH(p) __builtin_prefetch(p)
#else
#define AG_AHEAD 0
#define AG_PREFETCH(p) ((void)(p))
#endif

/* Before a loop whose vectorised form would scatter or gather (a contiguous run copied to
   a strided one): OpenCL compilers built on clang (pocl, rusticl) vectorise it with AVX-512
   scatters, which on AMD's cores ran a + b.T several times slower than scalar stores. */
#if AG_DIALECT_OPENCL && defined(__clang__)
#define AG_SCALAR_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define AG_SCALAR_LOOP
#endif

/* Real math on one spelling: OpenCL C and CUDA C++ overload sqrt, exp... on float and double;
   host C gets the float forms by name. */
#if AG_DIALECT_HOST
#define AG_SQRT_f32 sqrtf
#define AG_EXP_f32 expf
#define AG_LOG_f32 logf
#define AG_SIN_f32 sinf
#define AG_COS_f32 cosf
#define AG_POW_f32 powf
#define AG_FABS_f32 fabsf
#define AG_HYPOT_f32 hypotf
#define AG_ATAN2_f32 atan2f
#define AG_SINH_f32 sinhf
#define AG_COSH_f32 coshf
#define AG_FMAX_f32 fmaxf
#define AG_FMOD_f32 fmodf
#define AG_FLOOR_f32 floorf
#define AG_COPYSIGN_f32 copysignf
#define AG_TAN_f32 tanf
#define AG_ASIN_f32 asinf
#define AG_ACOS_f32 acosf
#define AG_ATAN_f32 atanf
#define AG_TANH_f32 tanhf
#define AG_ASINH_f32 asinhf
#define AG_ACOSH_f32 acoshf
#define AG_ATANH_f32 atanhf
#define AG_EXPM1_f32 expm1f
#define AG_LOG1P_f32 log1pf
#define AG_LOG2_f32 log2f
#define AG_LOG10_f32 log10f
#define AG_CEIL_f32 ceilf
#define AG_TRUNC_f32 truncf
#define AG_RINT_f32 rintf
#else
#define AG_SQRT_f32 sqrt
#define AG_EXP_f32 exp
#define AG_LOG_f32 log
#define AG_SIN_f32 sin
#define AG_COS_f32 cos
#define AG_POW_f32 pow
#define AG_FABS_f32 fabs
#define AG_HYPOT_f32 hypot
#define AG_ATAN2_f32 atan2
#define AG_SINH_f32 sinh
#define AG_COSH_f32 cosh
#define AG_FMAX_f32 fmax
#define AG_FMOD_f32 fmod
#define AG_FLOOR_f32 floor
#define AG_COPYSIGN_f32 copysign
#define AG_TAN_f32 tan
#define AG_ASIN_f32 asin
#define AG_ACOS_f32 acos
#define AG_ATAN_f32 atan
#define AG_TANH_f32 tanh
#define AG_ASINH_f32 asinh
#define AG_ACOSH_f32 acosh
#define AG_ATANH_f32 atanh
#define AG_EXPM1_f32 expm1
#define AG_LOG1P_f32 log1p
#define AG_LOG2_f32 log2
#define AG_LOG10_f32 log10
#define AG_CEIL_f32 ceil
#define AG_TRUNC_f32 trunc
#define AG_RINT_f32 rint
#endif
#define AG_SQRT_f64 sqrt
#define AG_EXP_f64 exp
#define AG_LOG_f64 log
#define AG_SIN_f64 sin
#define AG_COS_f64 cos
#define AG_POW_f64 pow
#define AG_FABS_f64 fabs
#define AG_HYPOT_f64 hypot
#define AG_ATAN2_f64 atan2
#define AG_SINH_f64 sinh
#define AG_COSH_f64 cosh
#define AG_FMAX_f64 fmax
#define AG_FMOD_f64 fmod
#define AG_FLOOR_f64 floor
#define AG_COPYSIGN_f64 copysign
#define AG_TAN_f64 tan
#define AG_ASIN_f64 asin
#define AG_ACOS_f64 acos
#define AG_ATAN_f64 atan
#define AG_TANH_f64 tanh
#define AG_ASINH_f64 asinh
#define AG_ACOSH_f64 acosh
#define AG_ATANH_f64 atanh
#define AG_EXPM1_f64 expm1
#define AG_LOG1P_f64 log1p
#define AG_LOG2_f64 log2
#define AG_LOG10_f64 log10
#define AG_CEIL_f64 ceil
#define AG_TRUNC_f64 trunc
#define AG_RINT_f64 rint

/* 16 bytes moved as one (the layout family's copies of c128 elements). */
#if AG_DIALECT_CUDA
typedef ulonglong2 ag_b16;
#elif AG_DIALECT_OPENCL
typedef ulong2 ag_b16;
#else
typedef struct __attribute__((aligned(16))) ag_b16 {
  uint64_t lo, hi;
} ag_b16;
#endif

/* A float's bits as an unsigned integer of its width, and back (the sort family's keys). */
#if AG_DIALECT_CUDA
#define AG_F32_BITS(v) __float_as_uint(v)
#define AG_BITS_F32(b) __uint_as_float(b)
#define AG_F64_BITS(v) ((ag_u64)__double_as_longlong(v))
#define AG_BITS_F64(b) __longlong_as_double((long long)(b))
#elif AG_DIALECT_OPENCL
#define AG_F32_BITS(v) as_uint(v)
#define AG_BITS_F32(b) as_float(b)
#define AG_F64_BITS(v) as_ulong(v)
#define AG_BITS_F64(b) as_double(b)
#else
AG_INLINE ag_u32 ag_f32_bits(ag_f32 v) {
  union { ag_f32 f; ag_u32 u; } c;
  c.f = v;
  return c.u;
}
AG_INLINE ag_f32 ag_bits_f32(ag_u32 b) {
  union { ag_f32 f; ag_u32 u; } c;
  c.u = b;
  return c.f;
}
AG_INLINE ag_u64 ag_f64_bits(ag_f64 v) {
  union { ag_f64 f; ag_u64 u; } c;
  c.f = v;
  return c.u;
}
AG_INLINE ag_f64 ag_bits_f64(ag_u64 b) {
  union { ag_f64 f; ag_u64 u; } c;
  c.u = b;
  return c.f;
}
#define AG_F32_BITS(v) ag_f32_bits(v)
#define AG_BITS_F32(b) ag_bits_f32(b)
#define AG_F64_BITS(v) ag_f64_bits(v)
#define AG_BITS_F64(b) ag_bits_f64(b)
#endif

#include "nd.h"

#define AG_CAT2_(a, b) a##b
#define AG_CAT2(a, b) AG_CAT2_(a, b)
#define AG_CAT3_(a, b, c) a##b##c
#define AG_CAT3(a, b, c) AG_CAT3_(a, b, c)

#endif
