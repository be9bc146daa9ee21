/* anygpu/buffer.h — raw device memory, copies between host and device, pinned host memory.

   Threads: every function here may be called from any thread at once. A buffer has no lock:
   several threads may enqueue work on one buffer at once, each on its own queue (or NULL),
   but that work is unordered, so the caller orders writes against other work on it with
   events, as for any two queues (queue.h). Freeing does not wait for other threads: free a
   buffer once, when no other thread is using it.

   Ownership: buffers from ag_buffer_alloc() and memory from ag_host_alloc() are the caller's.
   A buffer may be freed with work still enqueued on it: the memory is not handed out again
   until the work last enqueued on it has finished. A buffer of an array (ag_array_buffer) is
   the array's. */
#ifndef ANYGPU_BUFFER_H
#define ANYGPU_BUFFER_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @p bytes of uninitialised memory on @p dev, the caller's: free it with ag_buffer_free().
    @return AG_ERR_INVALID_ARGUMENT for 0 bytes; AG_ERR_OUT_OF_MEMORY when the device cannot
            hold it (more than its memory or its largest allocation), the library staying
            usable. */
AG_API ag_status ag_buffer_alloc(ag_device *dev, size_t bytes, ag_buffer **buf);

/** Frees a buffer without waiting: its memory goes back to the device's pool with an event
    after the work last enqueued on it, and is handed out again only once that has finished
    (with ANYGPU_POOL=0 the driver frees it after that work). Work on it from an earlier queue
    is covered only when the caller ordered it before the last (events). NULL is a no-op. */
AG_API void ag_buffer_free(ag_buffer *buf);

/** The buffer's size in bytes, and its device (the library's); 0 and NULL for NULL. */
AG_API size_t ag_buffer_size(const ag_buffer *buf);
AG_API ag_device *ag_buffer_device(const ag_buffer *buf);

/* Copies. @p q NULL means the calling thread's default queue of the buffer's device; a queue
   of another device is AG_ERR_MISMATCH. A range past the end of a buffer is
   AG_ERR_OUT_OF_RANGE; zero bytes is a valid no-op (the pointers must still be valid).

   ag_buffer_write and ag_buffer_read return once the host memory may be reused (write) or
   holds the data (read): they are ordered after earlier work on the queue. The _async forms
   return at once and borrow the host memory: it must stay valid and untouched until the queue
   reaches the copy (ag_queue_finish, or an event). They are truly asynchronous with pinned
   memory from ag_host_alloc(); with ordinary memory a backend may copy synchronously. */
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
    it. The pattern is copied: it may be reused on return. */
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

/** The counters of @p dev's pool, copied at one moment (other threads may be allocating). */
AG_API ag_status ag_device_pool_stats(const ag_device *dev, ag_pool_stats *stats);

/** Page-locked host memory for @p dev, for asynchronous copies at full speed. On the host
    backend it is ordinary aligned memory. The caller's: free it with ag_host_free(). */
AG_API ag_status ag_host_alloc(ag_device *dev, size_t bytes, void **ptr);

/** Frees memory from ag_host_alloc(), once. It does not wait for the _async copies that use
    the memory on every backend (only CUDA waits, and only for @p ptr's device): finish them
    first (ag_queue_finish, or an event). NULL is a no-op; any other pointer is ignored with
    an error in ag_last_error(). */
AG_API void ag_host_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
