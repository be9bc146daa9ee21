/* anygpu/array.h — typed, C-ordered arrays of up to 4 dimensions on a device.

   Threads: every function here may be called from any thread at once. An array has no lock
   and follows its buffer's rules (buffer.h): several threads may enqueue work on one array at
   once, each on its own queue, the caller ordering writes against other work with events.
   ag_array_to_host() and ag_array_copy_to() read on the queue that last enqueued work on the
   array's memory, so they must not run while another thread enqueues work on that memory.

   Ownership: every function that gives an ag_array (ag_array_create, ag_array_from_host,
   ag_array_copy_to, and the views ag_array_reshape and ag_array_index) gives the caller one
   to release with ag_array_free(), once, when no other thread is using it. A view keeps its
   parent's memory alive: parent and views may be freed in any order. Shapes and host data
   passed in are copied during the call. ag_fill, ag_fill_complex, ag_astype and ag_copy
   follow ops.h's convention. */
#ifndef ANYGPU_ARRAY_H
#define ANYGPU_ARRAY_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element types. Complex types are interleaved (re, im) pairs of float or double, as C99
    `float complex` and numpy's complex64/complex128. */
typedef enum ag_dtype {
  AG_U8 = 0,
  AG_U16 = 1,
  AG_U32 = 2,
  AG_I32 = 3,
  AG_F32 = 4,
  AG_F64 = 5,
  AG_C64 = 6,
  AG_C128 = 7,
} ag_dtype;

#define AG_DTYPE_COUNT 8
#define AG_MAX_DIMS 4

/** An array: a device buffer (or part of one) with a dtype and a shape. Arrays own their
    memory; a view (ag_array_index, ag_array_reshape) shares its parent's memory, keeps it
    alive, and is freed with ag_array_free like any array. */
typedef struct ag_array ag_array;

/** Bytes per element (1 for AG_U8 ... 16 for AG_C128); 0 for a value outside the enum. */
AG_API size_t ag_dtype_size(ag_dtype t);
/** "u8", "u16", "u32", "i32", "f32", "f64", "c64", "c128"; "unknown" outside the enum. Static
    strings. */
AG_API const char *ag_dtype_name(ag_dtype t);

/** A new array of @p ndim (1 to 4) dimensions, uninitialised, the caller's: release it with
    ag_array_free(). A zero in the shape gives an empty array, valid everywhere: operations on
    it succeed doing nothing.
    @return AG_ERR_INVALID_ARGUMENT for a bad dtype, ndim or NULL shape; AG_ERR_OUT_OF_RANGE
            when the lengths other than 0 multiply into more bytes than a size_t holds (as
            numpy, even when a 0 makes the array empty); AG_ERR_OUT_OF_MEMORY. */
AG_API ag_status ag_array_create(ag_device *dev, ag_dtype t, int ndim, const size_t *shape,
                                 ag_array **a);

/** A new array holding a copy of @p data (C order, ag_array_nbytes() bytes), the caller's.
    Returns when @p data may be reused. */
AG_API ag_status ag_array_from_host(ag_device *dev, ag_dtype t, int ndim, const size_t *shape,
                                    const void *data, ag_array **a);

/** Copies the array into @p data, which holds @p bytes (at least ag_array_nbytes()), and
    returns once @p data holds it. The read is enqueued on the queue of the latest work on the
    array's memory (its own or a view's), whichever thread's queue that was (when that queue
    is gone, the calling thread's default queue), so it follows all work enqueued on that
    queue; work on other queues must be ordered before it by the caller (ag_queue_finish, or
    an event).
    @return AG_ERR_OUT_OF_RANGE when @p bytes is too small. */
AG_API ag_status ag_array_to_host(const ag_array *a, void *data, size_t bytes);

/** A new array on @p dev with @p a's dtype, shape and contents, the caller's. Between devices
    it goes through the host, after @p a's work as ag_array_to_host(), and returns when done;
    on @p a's own device it is an ag_copy() enqueued on the calling thread's default queue,
    so work on @p a from other queues must be ordered before it. */
AG_API ag_status ag_array_copy_to(const ag_array *a, ag_device *dev, ag_array **out);

/** Frees an array or a view without waiting. The memory goes back to the device's pool when
    the last array or view using it is freed, and is handed out again only once the work last
    enqueued on it has finished (ag_buffer_free). NULL is a no-op. */
AG_API void ag_array_free(ag_array *a);

/* Accessors: 0, NULL (AG_U8 for the dtype) when @p a is NULL. */
AG_API ag_dtype ag_array_dtype(const ag_array *a);
AG_API int ag_array_ndim(const ag_array *a);
/** Length of dimension @p axis; 0 for an axis outside 0..ndim-1. */
AG_API size_t ag_array_dim(const ag_array *a, int axis);
/** All ndim lengths (the array's own, valid while the array lives). */
AG_API const size_t *ag_array_shape(const ag_array *a);
/** Number of elements, and of bytes. */
AG_API size_t ag_array_size(const ag_array *a);
AG_API size_t ag_array_nbytes(const ag_array *a);
AG_API ag_device *ag_array_device(const ag_array *a);
/** The buffer holding the array's data and the byte offset of its first element, for use with
    user kernels. The buffer belongs to the array and its views: never free it; it is valid
    while any of them lives. NULL for an empty array. */
AG_API ag_buffer *ag_array_buffer(const ag_array *a, size_t *offset);

/** A view of @p a with another shape of the same element count, sharing its memory, the
    caller's to release with ag_array_free(); it keeps the memory alive after @p a is freed.
    @return AG_ERR_MISMATCH when the element counts differ. */
AG_API ag_status ag_array_reshape(const ag_array *a, int ndim, const size_t *shape,
                                  ag_array **view);

/** A view of index @p i along the first axis (one frame of a stack): ndim-1 dimensions, or
    shape {1} for a 1-D array. No copy; released and kept alive as ag_array_reshape()'s.
    @return AG_ERR_OUT_OF_RANGE when i is not below the first dimension. */
AG_API ag_status ag_array_index(const ag_array *a, size_t i, ag_array **view);

/** A view of @p count indices from @p start along the first axis (numpy's a[start:start+count]):
    @p a's ndim and shape but the first dimension, which is count (0 gives an empty view). No
    copy; released and kept alive as ag_array_reshape()'s.
    @return AG_ERR_OUT_OF_RANGE when start + count exceeds the first dimension. */
AG_API ag_status ag_array_slice(const ag_array *a, size_t start, size_t count, ag_array **view);
/** Every element of @p a becomes @p value (for complex dtypes: value + 0i). For integer
    dtypes the value must be an integer in the dtype's range, else AG_ERR_INVALID_ARGUMENT:
    a scalar is never silently wrapped or rounded into an integer array. */
AG_API ag_status ag_fill(ag_queue *q, ag_array *a, double value);
/** Every element becomes re + i*im; im must be 0 for real dtypes. */
AG_API ag_status ag_fill_complex(ag_queue *q, ag_array *a, double re, double im);

/** Converts @p x into @p out's dtype, element by element. Integer to float and float to
    float round to nearest, as C converts; real to complex gives a zero imaginary part; float
    to integer truncates toward zero and saturates to the integer type's range, NaN giving 0
    (the same on every device, where C leaves out-of-range values undefined); integer to
    integer wraps, as C converts to unsigned types. Complex to real is refused
    (AG_ERR_UNSUPPORTED): take ag_real or ag_abs. Shapes must match. */
AG_API ag_status ag_astype(ag_queue *q, const ag_array *x, ag_array *out);

/** Copies @p x into @p out (same dtype and shape) on @p out's device. */
AG_API ag_status ag_copy(ag_queue *q, const ag_array *x, ag_array *out);

#ifdef __cplusplus
}
#endif

#endif
