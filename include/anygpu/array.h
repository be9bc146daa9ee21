/* anygpu/array.h - typed arrays of 0 to 8 dimensions on a device: a buffer, the offset of the
   first element, a shape and strides, as numpy's ndarray.

   Layout: an array made here (ag_array_create, ag_array_from_host, ag_array_copy_to) is
   C-contiguous. Views (ag_array_view, ag_array_permute, ag_array_broadcast_to, ...) share
   their parent's memory with other strides, negative and zero included, and no copy. Every
   function of this header and of ops.h takes views (copies, astype, fill, elementwise
   operations, comparisons, where, reductions), and so do BLAS and FFT (blas.h, fft.h: a
   view the platform library's layout describes is passed as it lies, any other is copied
   through a contiguous temporary); the scientific layers, sparse products and user kernels
   (ag_array_buffer) take contiguous arrays and refuse a strided view with AG_ERR_UNSUPPORTED
   naming it (ag_copy it into a contiguous array first). docs/arrays.md says how each
   operation meets a view.

   Threads: every function here may be called from any thread at once. An array has no lock
   and follows its buffer's rules (buffer.h): several threads may enqueue work on one array at
   once, each on its own queue, the caller ordering writes against other work with events.
   ag_array_to_host() and ag_array_copy_to() read on the queue that last enqueued work on the
   array's memory, so they must not run while another thread enqueues work on that memory.

   Ownership: every function that gives an ag_array (ag_array_create, ag_array_from_host,
   ag_array_copy_to, and the views) gives the caller one to release with ag_array_free(),
   once, when no other thread is using it. A view keeps its parent's memory alive: parent and
   views may be freed in any order. Shapes, indices and host data passed in are copied during
   the call. ag_fill, ag_fill_complex, ag_astype and ag_copy follow ops.h's convention. */
#ifndef ANYGPU_ARRAY_H
#define ANYGPU_ARRAY_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element types, numpy's and the array API standard's. Complex types are interleaved (re, im)
    pairs of float or double, as C99 `float complex` and numpy's complex64/complex128. AG_BOOL
    is one byte holding 0 or 1, as numpy's bool and C's `bool`. The values are fixed: the
    dtypes after AG_C128 came later, so codes do not follow kinds. */
typedef enum ag_dtype {
  AG_U8 = 0,
  AG_U16 = 1,
  AG_U32 = 2,
  AG_I32 = 3,
  AG_F32 = 4,
  AG_F64 = 5,
  AG_C64 = 6,
  AG_C128 = 7,
  AG_BOOL = 8,
  AG_I8 = 9,
  AG_I16 = 10,
  AG_I64 = 11,
  AG_U64 = 12,
} ag_dtype;

#define AG_DTYPE_COUNT 13
/** The most dimensions an array has (numpy has 64, PyTorch and CuPy 64, ArrayFire 4); more is
    AG_ERR_INVALID_ARGUMENT naming the limit. */
#define AG_MAX_DIMS 8

/** An array: a device buffer (or part of one) with a dtype, a shape and strides. Arrays own
    their memory; a view shares its parent's memory, keeps it alive, and is freed with
    ag_array_free like any array. */
typedef struct ag_array ag_array;

/** Bytes per element (1 for AG_U8 ... 16 for AG_C128); 0 for a value outside the enum. */
AG_API size_t ag_dtype_size(ag_dtype t);
/** "u8", "u16", "u32", "i32", "f32", "f64", "c64", "c128", "bool", "i8", "i16", "i64",
    "u64"; "unknown" outside the enum. Static strings. */
AG_API const char *ag_dtype_name(ag_dtype t);

/** A new C-contiguous array of @p ndim (0 to AG_MAX_DIMS) dimensions, uninitialised, the
    caller's: release it with ag_array_free(). ndim 0 is a scalar array of one element (shape
    may then be NULL). A zero in the shape gives an empty array, valid everywhere: operations
    on it succeed doing nothing.
    @return AG_ERR_INVALID_ARGUMENT for a bad dtype, ndim or NULL shape; AG_ERR_OUT_OF_RANGE
            when the lengths other than 0 multiply into more bytes than a size_t holds (as
            numpy, even when a 0 makes the array empty); AG_ERR_OUT_OF_MEMORY. */
AG_API ag_status ag_array_create(ag_device *dev, ag_dtype t, int ndim, const size_t *shape,
                                 ag_array **a);

/** A new array holding a copy of @p data (C order, ag_array_nbytes() bytes), the caller's.
    Returns when @p data may be reused. */
AG_API ag_status ag_array_from_host(ag_device *dev, ag_dtype t, int ndim, const size_t *shape,
                                    const void *data, ag_array **a);

/** Copies the array into @p data in C order (a view is gathered: @p data is always compact),
    which holds @p bytes (at least ag_array_nbytes()), and returns once @p data holds it. The read is enqueued on the queue of the latest work on the
    array's memory (its own or a view's), whichever thread's queue that was (when that queue
    is gone, the calling thread's default queue), so it follows all work enqueued on that
    queue; work on other queues must be ordered before it by the caller (ag_queue_finish, or
    an event).
    @return AG_ERR_OUT_OF_RANGE when @p bytes is too small. */
AG_API ag_status ag_array_to_host(const ag_array *a, void *data, size_t bytes);

/** A new C-contiguous array on @p dev with @p a's dtype, shape and contents, the caller's. Between devices
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
/** The strides of all ndim axes, in elements (numpy's strides divided by the item size; 0 for
    a broadcast axis, negative for a flipped one), the array's own, valid while it lives. */
AG_API const ptrdiff_t *ag_array_strides(const ag_array *a);
/** Whether the elements lie back to back in C order from the first (every array made by
    ag_array_create, and views that keep that layout); false for NULL. */
AG_API bool ag_array_is_contiguous(const ag_array *a);
/** The buffer holding the array's data and the byte offset of its first element, for use with
    user kernels, which must follow ag_array_strides() for a view that is not contiguous. The
    buffer belongs to the array and its views: never free it; it is valid while any of them
    lives. NULL for an empty array. */
AG_API ag_buffer *ag_array_buffer(const ag_array *a, size_t *offset);

/** @p a with another shape of the same element count, the caller's to release with
    ag_array_free(). A view sharing @p a's memory (and keeping it alive) whenever @p a's
    strides allow it, which they always do for a contiguous @p a (numpy's rule: axes merged or
    split must be laid out evenly); otherwise a new contiguous array holding a copy, enqueued
    on the calling thread's default queue of @p a's device as ag_copy(NULL, ...) is. Test
    ag_array_buffer() against @p a's to tell which.
    @return AG_ERR_MISMATCH when the element counts differ. */
AG_API ag_status ag_array_reshape(const ag_array *a, int ndim, const size_t *shape,
                                  ag_array **view);

/** A view of index @p i along the first axis (one frame of a stack): ndim-1 dimensions, or
    shape {1} for a 1-D array (ag_array_view with ag_at(i) gives a 0-d view). No copy;
    released and kept alive as every view.
    @return AG_ERR_OUT_OF_RANGE when i is not below the first dimension. */
AG_API ag_status ag_array_index(const ag_array *a, size_t i, ag_array **view);

/** A view of @p count indices from @p start along the first axis (numpy's a[start:start+count]):
    @p a's ndim and shape but the first dimension, which is count (0 gives an empty view). No
    copy.
    @return AG_ERR_OUT_OF_RANGE when start + count exceeds the first dimension. */
AG_API ag_status ag_array_slice(const ag_array *a, size_t start, size_t count, ag_array **view);

/* ---- views: numpy's basic indexing ------------------------------------------------------ */

/** What one entry of ag_array_view's index does. */
typedef enum ag_index_kind {
  AG_INDEX_SLICE,    /* start:stop:step of one axis, kept */
  AG_INDEX_INT,      /* one position of one axis (start), which the view drops */
  AG_INDEX_NEWAXIS,  /* a new axis of length 1 (numpy's None) */
  AG_INDEX_ELLIPSIS, /* every axis not otherwise indexed, whole (numpy's ...); at most one */
} ag_index_kind;

/** start or stop of a slice left out, as Python's None: the start or end of the axis in the
    direction of the step. */
#define AG_INDEX_NONE INT64_MIN

/** One entry of an index. Slices follow Python exactly: negative start and stop count from the
    end, out-of-range ones are clipped, step may be negative but not 0. */
typedef struct ag_index {
  ag_index_kind kind;
  int64_t start, stop, step;
} ag_index;

static inline ag_index ag_slice(int64_t start, int64_t stop, int64_t step) {
  ag_index i = {AG_INDEX_SLICE, start, stop, step};
  return i;
}
/** The whole axis, ':'. */
static inline ag_index ag_all(void) { return ag_slice(AG_INDEX_NONE, AG_INDEX_NONE, 1); }
/** Position @p i (negative counts from the end), which drops the axis. */
static inline ag_index ag_at(int64_t i) {
  ag_index x = {AG_INDEX_INT, i, 0, 0};
  return x;
}
static inline ag_index ag_newaxis(void) {
  ag_index x = {AG_INDEX_NEWAXIS, 0, 0, 0};
  return x;
}
static inline ag_index ag_ellipsis(void) {
  ag_index x = {AG_INDEX_ELLIPSIS, 0, 0, 0};
  return x;
}

/** The view a[idx[0], idx[1], ...] of numpy's basic indexing: entries apply to the leading
    axes in order (an ellipsis stands for the axes no entry names), axes after the last entry
    are taken whole. No copy.
    @return AG_ERR_OUT_OF_RANGE for an integer index outside the axis; AG_ERR_INVALID_ARGUMENT
            for a step of 0, more entries than axes, two ellipses, a kind outside the enum, or
            a result of more than AG_MAX_DIMS dimensions; each naming idx[k]. */
AG_API ag_status ag_array_view(const ag_array *a, int nidx, const ag_index *idx, ag_array **view);

/** A view with the axes in the order @p axes gives (numpy.permute_dims / transpose(axes)):
    axis k of the view is axis axes[k] of @p a; @p axes holds ndim entries, each axis once
    (negative counts from the end). */
AG_API ag_status ag_array_permute(const ag_array *a, const int *axes, ag_array **view);
/** The axes reversed (numpy's a.T; the matrix transpose of a 2-D array). */
AG_API ag_status ag_array_transpose(const ag_array *a, ag_array **view);
/** Axes @p axis1 and @p axis2 exchanged (numpy.swapaxes; a.mT is axes -2 and -1). */
AG_API ag_status ag_array_swapaxes(const ag_array *a, int axis1, int axis2, ag_array **view);
/** A view of @p a repeated to @p shape by numpy's broadcasting rules (trailing axes aligned; a
    length-1 axis or a missing leading one repeats with stride 0). Read-only in spirit: an
    operation writing into it writes each element several times.
    @return AG_ERR_MISMATCH, naming both shapes, when @p a does not broadcast to @p shape. */
AG_API ag_status ag_array_broadcast_to(const ag_array *a, int ndim, const size_t *shape, ag_array **view);
/** A view with a new axis of length 1 at position @p axis, -ndim-1 to ndim (numpy.expand_dims). */
AG_API ag_status ag_array_expand_dims(const ag_array *a, int axis, ag_array **view);
/** A view without the axes @p axes (each of length 1), or, when @p naxes is 0, without every
    axis of length 1 (numpy.squeeze).
    @return AG_ERR_INVALID_ARGUMENT for an axis whose length is not 1. */
AG_API ag_status ag_array_squeeze(const ag_array *a, int naxes, const int *axes, ag_array **view);
/** A view with the order of the elements along @p axes reversed, or along every axis when
    @p naxes is 0 (numpy.flip). */
AG_API ag_status ag_array_flip(const ag_array *a, int naxes, const int *axes, ag_array **view);

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
    integer wraps, as C converts to unsigned types; to bool is x != 0 (complex: either part,
    NaN true), bool to anything 0 or 1. Complex to real is refused (AG_ERR_UNSUPPORTED): take
    ag_real or ag_abs. Shapes must match. */
AG_API ag_status ag_astype(ag_queue *q, const ag_array *x, ag_array *out);

/** The dtype an operation on operands of dtypes @p a and @p b computes in and gives, in
    @p out: the array API standard's type promotion, and numpy's where the standard leaves a
    pair open (mixed kinds): bool with anything is the other; integers of one signedness the
    wider; a signed and an unsigned integer the smallest signed type holding both (u8 and i8:
    i16; u32 and i32: i64), but u64 with a signed integer f64; an integer with a float f32 for
    integers up to 16 bits and f32, else f64; a real with a complex the complex type holding
    both (f64 and c64: c128). ag_binary, ag_compare and ag_where promote mixed operands so.
    @return AG_ERR_INVALID_ARGUMENT for a value outside ag_dtype or a NULL out. */
AG_API ag_status ag_result_type(ag_dtype a, ag_dtype b, ag_dtype *out);

/** Copies @p x into @p out (same dtype and shape) on @p out's device, in any layouts of
    either (a transposed view into a contiguous array, and back); x and out may not share
    memory unless they are the same view. */
AG_API ag_status ag_copy(ag_queue *q, const ag_array *x, ag_array *out);

#ifdef __cplusplus
}
#endif

#endif
