/* anygpu/buffer.h — raw device memory, copies between host and device, pinned host memory. */
#ifndef ANYGPU_BUFFER_H
#define ANYGPU_BUFFER_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @p bytes of uninitialised memory on @p dev. Free it with ag_buffer_free().
    @return AG_ERR_INVALID_ARGUMENT for 0 bytes; AG_ERR_OUT_OF_MEMORY when the device cannot
            hold it (more than its memory or its largest allocation), the library staying
            usable. Thread-safe. */
AG_API ag_status ag_buffer_alloc(ag_device *dev, size_t bytes, ag_buffer **buf);

/** Frees a buffer once the work already enqueued on it has finished (the caller need not
    wait). NULL is a no-op. */
AG_API void ag_buffer_free(ag_buffer *buf);

/** The buffer's size in bytes, and its device. */
AG_API size_t ag_buffer_size(const ag_buffer *buf);
AG_API ag_device *ag_buffer_device(const ag_buffer *buf);

/* Copies. @p q NULL means the calling thread's default queue of the buffer's device; a queue
   of another device is AG_ERR_MISMATCH. A range past the end of a buffer is
   AG_ERR_OUT_OF_RANGE; zero bytes is a valid no-op (the pointers must still be valid).

   ag_buffer_write and ag_buffer_read return once the host memory may be reused (write) or
   holds the data (read): they are ordered after earlier work on the queue. The _async forms
   return at once; the host memory must stay untouched until the queue reaches the copy
   (ag_queue_finish, or an event). They are truly asynchronous with pinned memory from
   ag_host_alloc(); with ordinary memory a backend may copy synchronously. */
AG_API ag_status ag_buffer_write(ag_queue *q, ag_buffer *dst, size_t offset, const void *src,
                                 size_t bytes);
AG_API ag_status ag_buffer_read(ag_queue *q, const ag_buffer *src, size_t offset, void *dst,
                                size_t bytes);
AG_API ag_status ag_buffer_write_async(ag_queue *q, ag_buffer *dst, size_t offset,
                                       const void *src, size_t bytes);
AG_API ag_status ag_buffer_read_async(ag_queue *q, const ag_buffer *src, size_t offset,
                                      void *dst, size_t bytes);

/** Device-to-device copy within one device, enqueued on @p q. Overlapping ranges of one
    buffer are AG_ERR_INVALID_ARGUMENT. */
AG_API ag_status ag_buffer_copy(ag_queue *q, ag_buffer *dst, size_t dst_offset,
                                const ag_buffer *src, size_t src_offset, size_t bytes);

/** Fills @p bytes from @p offset with copies of a @p pattern_size -byte pattern, enqueued on
    @p q. pattern_size is 1, 2, 4, 8, 16, 32, 64 or 128, and offset and bytes are multiples of
    it. */
AG_API ag_status ag_buffer_fill(ag_queue *q, ag_buffer *buf, size_t offset, const void *pattern,
                                size_t pattern_size, size_t bytes);

/* The memory pool. Each device keeps the memory of freed buffers for reuse by later
   allocations of the same rounded size (512-byte steps below 1 MiB, eighths of a power of two
   above), since device allocation is slow and synchronising. A block is reused only once the
   work last enqueued on it has finished. ANYGPU_POOL=0 turns the pool off: freed memory goes
   straight back to the driver. */

/** Counters of a device's pool. */
typedef struct ag_pool_stats {
  size_t bytes_in_use;      /* held by live buffers (rounded sizes) */
  size_t bytes_cached;      /* held by the pool for reuse */
  size_t peak_bytes_in_use;
  uint64_t allocations;     /* buffers handed out */
  uint64_t reuses;          /* of which from the pool */
  uint64_t trims;           /* ag_device_trim calls, and trims forced by a failed allocation */
} ag_pool_stats;

/** Gives the memory the pool holds for @p dev back to the driver, waiting for the work still
    enqueued on it. Also frees what ag_fft plans and other caches keep. Thread-safe: it may run
    while other threads use @p dev, ag_fft and its kin included; an FFT plan that a transform
    on another thread is about to run, or running, is left for a later trim, and every other
    plan is destroyed once its last run has completed. */
AG_API ag_status ag_device_trim(ag_device *dev);

/** The counters of @p dev's pool. */
AG_API ag_status ag_device_pool_stats(const ag_device *dev, ag_pool_stats *stats);

/** Page-locked host memory for @p dev, for asynchronous copies at full speed. On the host
    backend it is ordinary aligned memory. Free it with ag_host_free(). */
AG_API ag_status ag_host_alloc(ag_device *dev, size_t bytes, void **ptr);

/** Frees memory from ag_host_alloc(). NULL is a no-op; any other pointer is ignored with an
    error in ag_last_error(). */
AG_API void ag_host_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
