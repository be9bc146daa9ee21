/* anygpu/queue.h — queues (ordered streams of device work) and events. */
#ifndef ANYGPU_QUEUE_H
#define ANYGPU_QUEUE_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every operation takes a queue. NULL means the calling thread's default queue of the device
   the operation's data lives on: each thread gets its own default queue per device (like
   CUDA's per-thread default stream), so any number of threads may pass NULL at once. Work on
   one queue runs in order; work on different queues may overlap, and ordering between them is
   made with ag_event_record() and ag_queue_wait_event().

   Threads: a queue made by ag_queue_create() is used by one thread at a time: it may change
   threads, but calls on it must not overlap. A default queue is made on its thread's first
   use and destroyed when that thread exits; it is for that thread only. An event may be
   waited on, timed and waited for by queues from several threads at once.

   Ownership: queues from ag_queue_create() and events from ag_event_record() are the
   caller's, released with ag_queue_destroy() and ag_event_destroy(), each once and when no
   other thread uses it. An event stays valid after its queue is destroyed. Default queues are
   the library's. */

/** A new queue on @p dev, the caller's: release it with ag_queue_destroy(). */
AG_API ag_status ag_queue_create(ag_device *dev, ag_queue **q);

/** Blocks until everything enqueued on @p q has finished. NULL is invalid here, since it would
    not say which device; use ag_device_finish(). */
AG_API ag_status ag_queue_finish(ag_queue *q);

/** Blocks until the calling thread's default queue of @p dev has finished. */
AG_API ag_status ag_device_finish(ag_device *dev);

/** Waits for @p q's work, then frees it. Buffers used on it and events recorded on it stay
    valid. NULL and default queues are a no-op (a default queue goes when its thread exits). */
AG_API void ag_queue_destroy(ag_queue *q);

/** The device @p q runs on (the library's); NULL for NULL. */
AG_API ag_device *ag_queue_device(const ag_queue *q);

/** The calling thread's default queue of @p dev: the queue that a NULL queue argument means.
    It belongs to the library and lives until the thread exits; ag_queue_destroy() on it does
    nothing. Use it on the calling thread only, where a call has no data to name the device
    (ag_event_record()). */
AG_API ag_status ag_queue_default(ag_device *dev, ag_queue **q);

/** Records an event at the current end of @p q (not NULL: see ag_queue_default()). It
    completes when all work enqueued on @p q before it has. The event is the caller's: release
    it with ag_event_destroy(). */
AG_API ag_status ag_event_record(ag_queue *q, ag_event **ev);

/** Blocks the calling thread until @p ev has completed. */
AG_API ag_status ag_event_wait(const ag_event *ev);

/** Makes later work on @p q wait for @p ev (which may come from another queue of the same
    device) without blocking the calling thread. @p ev may be destroyed as soon as this
    returns. */
AG_API ag_status ag_queue_wait_event(ag_queue *q, const ag_event *ev);

/** Milliseconds of device time between two events recorded on the same device. Waits for
    both. A negative result means @p end was recorded before @p start. */
AG_API ag_status ag_event_elapsed_ms(const ag_event *start, const ag_event *end, double *ms);

/** Frees an event, pending or not (the work before it runs on). NULL is a no-op. */
AG_API void ag_event_destroy(ag_event *ev);

#ifdef __cplusplus
}
#endif

#endif
