/* kernels_shared/skeleton_gpu.h - turns the kernel definitions of a family source
   (kernels_shared/<family>.h) into OpenCL C or CUDA C kernels. Its twin for the host is
   backends/host/kernels/skeleton.h; both read the same definitions:

     AG_EW(name, SHAPE, T1, T2, T3, LOOP, body...)  elementwise: body for each element i
     AG_ITEMS(name, SHAPE, T1, T2, T3, body...)     body for each index i in [0, n)
     AG_CPU_ITEMS(name, SHAPE, T1, T2, T3, body...) the same, for CPU devices only: the op
                                                    layer launches it on no GPU, and the CUDA
                                                    module leaves it out
     AG_GROUPS(name, SHAPE, T1, T2, T3, LOCALS, body...)
                                                    a work-group for each index g in [0, n),
                                                    with local memory LOCALS and barriers
                                                    (GPU only: the host has no twin)

   SHAPE is the kernel's parameter list, written once at the top of the family source as
   AG_SHAPE_<NAME>(A, V, B, T1, T2, T3): A(type, name) an array (its buffer, then the offset of
   its first element in elements), V(type, name) a value, B(type, name) a whole buffer. The
   same list makes the host twin's argument unpacking and the op layer's launch function
   (src/launch.h), so the three cannot disagree. A kernel's parameters are its list followed
   by ag_u64 n (and, for AG_EW, ag_u64 chunk). Inside the body every array parameter already
   points at its first element. */
#ifndef AG_KERNEL_SKELETON_GPU_H
#define AG_KERNEL_SKELETON_GPU_H

#include "dialect.h"

#define AG_GPU_ARRAY(TY, name) AG_GLOBAL TY *name, ag_u64 name##_off,
#define AG_GPU_VALUE(TY, name) TY name,
#define AG_GPU_BUFFER(TY, name) AG_GLOBAL TY *name,
#define AG_GPU_ARRAY_START(TY, name) name += name##_off;
#define AG_GPU_NOTHING(TY, name)
#define AG_GPU_PARAMS(SHAPE, T1, T2, T3) SHAPE(AG_GPU_ARRAY, AG_GPU_VALUE, AG_GPU_BUFFER, T1, T2, T3)
#define AG_GPU_START(SHAPE, T1, T2, T3) SHAPE(AG_GPU_ARRAY_START, AG_GPU_NOTHING, AG_GPU_NOTHING, T1, T2, T3)

/* Elementwise kernels take the element count n and chunk: each work-item handles chunk
   consecutive elements, then steps by the whole launch (a grid-stride loop). GPUs run chunk 1,
   so neighbouring work-items touch neighbouring elements; CPU devices run long chunks, so each
   work-item streams through its own stretch of memory. */
#define AG_EW(K, SHAPE, T1, T2, T3, LOOP, ...)                                                     \
  AG_KERNEL void K(AG_GPU_PARAMS(SHAPE, T1, T2, T3) ag_u64 n, ag_u64 chunk) {                      \
    AG_GPU_START(SHAPE, T1, T2, T3)                                                                \
    LOOP(__VA_ARGS__)                                                                              \
  }

/* AG_EW's loops: every element i; and i with j = i % m, for an operand of m elements repeated
   along the other's leading axes (tracked incrementally: one division per stretch). */
#define AG_EACH(...)                                                                               \
  for (ag_u64 base_ = AG_GLOBAL_ID * chunk; base_ < n; base_ += AG_GLOBAL_SIZE * chunk) {          \
    ag_u64 end_ = n - base_ < chunk ? n : base_ + chunk;                                           \
    for (ag_u64 i = base_; i < end_; i++) {                                                        \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  }
#define AG_EACH_REPEAT(...)                                                                        \
  for (ag_u64 base_ = AG_GLOBAL_ID * chunk; base_ < n; base_ += AG_GLOBAL_SIZE * chunk) {          \
    ag_u64 end_ = n - base_ < chunk ? n : base_ + chunk;                                           \
    ag_u64 j = base_ % m;                                                                          \
    for (ag_u64 i = base_; i < end_; i++) {                                                        \
      __VA_ARGS__;                                                                                 \
      if (++j == m)                                                                                \
        j = 0;                                                                                     \
    }                                                                                              \
  }

/* And each element of a strided walk (kernels_shared/nd.h), for a kernel whose list has
   AG_ND_PARAMS (kernels_shared/nd.h): the body reads i0 .. i2, its operands' offsets. */
#define AG_EACH_ND(...)                                                                            \
  AG_ND_GATHER(nd_)                                                                                \
  for (ag_u64 base_ = AG_GLOBAL_ID * chunk; base_ < n; base_ += AG_GLOBAL_SIZE * chunk) {          \
    ag_u64 end_ = n - base_ < chunk ? n : base_ + chunk;                                           \
    AG_ND_RUN(nd_, base_, end_, __VA_ARGS__)                                                       \
  }

#define AG_ITEMS(K, SHAPE, T1, T2, T3, ...)                                                        \
  AG_KERNEL void K(AG_GPU_PARAMS(SHAPE, T1, T2, T3) ag_u64 n) {                                    \
    AG_GPU_START(SHAPE, T1, T2, T3)                                                                \
    for (ag_u64 i = AG_GLOBAL_ID; i < n; i += AG_GLOBAL_SIZE) {                                    \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  }

/* Forms the op layer launches on CPU devices alone (the tiles of views, src/layout.c's
   ag__walk_tiles): an OpenCL program keeps them, since OpenCL's CPU drivers run them, but CUDA
   devices are GPUs, and nvcc spent two minutes of the strided family's two and a quarter on
   them. */
#if AG_DIALECT_CUDA
#define AG_CPU_ITEMS(K, SHAPE, T1, T2, T3, ...)
#else
#define AG_CPU_ITEMS(K, SHAPE, T1, T2, T3, ...) AG_ITEMS(K, SHAPE, T1, T2, T3, __VA_ARGS__)
#endif

/* Every work-item of a group runs the loop the same number of times, so barriers in the body
   are reached by the whole group. */
#define AG_GROUPS(K, SHAPE, T1, T2, T3, LOCALS, ...)                                               \
  AG_KERNEL void K(AG_GPU_PARAMS(SHAPE, T1, T2, T3) ag_u64 n) {                                    \
    LOCALS                                                                                         \
    AG_GPU_START(SHAPE, T1, T2, T3)                                                                \
    for (ag_u64 g = AG_GROUP_ID; g < n; g += AG_NUM_GROUPS) {                                      \
      __VA_ARGS__;                                                                                 \
    }                                                                                              \
  }

#endif
