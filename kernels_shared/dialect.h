/* kernels_shared/dialect.h - lets one kernel body compile as OpenCL C (kernels_cl/) and as
   CUDA C (kernels_cu/): qualifiers, index helpers and fixed-width types under one spelling. */
#ifndef AG_KERNEL_DIALECT_H
#define AG_KERNEL_DIALECT_H

#ifdef __CUDACC__
typedef unsigned char ag_u8;
typedef unsigned short ag_u16;
typedef unsigned int ag_u32;
typedef int ag_i32;
typedef unsigned long long ag_u64;
typedef long long ag_i64;
#define AG_KERNEL extern "C" __global__
#define AG_GLOBAL
#define AG_INLINE static __device__ __forceinline__
#define AG_GLOBAL_ID ((ag_u64)blockIdx.x * blockDim.x + threadIdx.x)
#define AG_GLOBAL_SIZE ((ag_u64)gridDim.x * blockDim.x)
#else
typedef uchar ag_u8;
typedef ushort ag_u16;
typedef uint ag_u32;
typedef int ag_i32;
typedef ulong ag_u64;
typedef long ag_i64;
#define AG_KERNEL __kernel
#define AG_GLOBAL __global
#define AG_INLINE static inline
#define AG_GLOBAL_ID ((ag_u64)get_global_id(0))
#define AG_GLOBAL_SIZE ((ag_u64)get_global_size(0))
#endif

#endif
