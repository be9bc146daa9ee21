/* anygpu/dlpack.h — arrays exchanged with other array libraries (numpy, PyTorch, CuPy, JAX)
   through DLPack 0.6 (dlpack/dlpack.h, Debian's libdlpack-dev), without copies.

   This header names DLPack's struct only: a program that builds or reads the tensors includes
   <dlpack/dlpack.h> itself, before or after this header.

   Which devices: the host is kDLCPU; a CUDA device is kDLCUDA with its ordinal as device_id
   (data a CUdeviceptr); an OpenCL device is kDLOpenCL with anygpu's OpenCL device index as
   device_id (data the cl_mem handle, byte_offset the array's offset in it). A consumer that
   does not take kDLOpenCL copies through the host instead (docs/dlpack.md says how).

   Layout: DLPack carries strides in elements, as anygpu's arrays do. An exported contiguous
   array has strides NULL (compact row-major, as DLPack 0.6 allows), a view its own strides
   (negative for a flipped axis, 0 for a broadcast one); byte_offset is the offset of the first
   element in the buffer. Imported tensors take any strides of 0 or more (strides NULL:
   compact row-major); the memory borrowed runs from the first element to the last.

   Synchronisation: DLPack's C structs carry no stream. The exporter's pending work must have
   finished before a consumer reads: call ag_queue_finish() (or wait for an event) on the
   queues that wrote the array before handing the tensor over; likewise the producer's work
   must be finished before an imported tensor is used on an anygpu queue. */
#ifndef ANYGPU_DLPACK_H
#define ANYGPU_DLPACK_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

struct DLManagedTensor;

/** A DLPack tensor that shares @p a's memory: no copy. The tensor is the caller's (hand it to
    a consumer, which calls its deleter once); it keeps the memory alive after @p a is freed,
    as a view does. shape holds ag_array_ndim(a) values. device_id is the device's index
    within its backend as the driver lists it (the CUDA ordinal; the N of opencl:N).
    dtype: u8, u16, u32 → kDLUInt 8, 16, 32; i32 → kDLInt 32; f32, f64 → kDLFloat 32, 64;
    c64, c128 → kDLComplex 64, 128; lanes 1.
    @return AG_ERR_INVALID_ARGUMENT for NULL; AG_ERR_OUT_OF_MEMORY. An empty array (no
            elements) gives a tensor with data NULL. */
AG_API ag_status ag_array_to_dlpack(const ag_array *a, struct DLManagedTensor **out);

/** An array over @p t's memory, without copying, on the anygpu device that t's device names:
    kDLCPU and kDLCUDAHost → the host; kDLCUDA n → cuda:n; kDLOpenCL n → opencl:n (its cl_mem
    must belong to anygpu's context for that device, as tensors from ag_array_to_dlpack do).
    On success the array owns @p t: t's deleter is called once the array and all its views
    are freed and the work enqueued on them has finished (freeing the last of them waits for
    that work). On failure t is left to the caller, untouched.
    A 0-d tensor becomes a 0-d array. A tensor with no
    elements becomes an empty array, and its deleter is called before this returns. A tensor
    from ag_array_to_dlpack that still describes its array becomes a view of that array, on
    the same ag_buffer (its deleter, anygpu's, runs at once: the view holds the memory).
    @return AG_ERR_INVALID_ARGUMENT for NULL, or a dtype anygpu has no counterpart for (bool,
            bfloat, i8, i16, i64, u64, f16, lanes other than 1: the message names it);
            AG_ERR_UNSUPPORTED for a negative stride, more than
            AG_MAX_DIMS dimensions, or a cl_mem of another context; AG_ERR_NO_DEVICE when the
            device it names is not present (the message names it); AG_ERR_OUT_OF_MEMORY. */
AG_API ag_status ag_array_from_dlpack(struct DLManagedTensor *t, ag_array **out);

#ifdef __cplusplus
}
#endif

#endif
