/* src/internal.h — the core's objects behind the public handles, shared by src/ files. */
#ifndef AG_SRC_INTERNAL_H
#define AG_SRC_INTERNAL_H

#ifdef AG_SCIENCE_LAYER
#error "src/internal.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include <pthread.h>
#include <stdatomic.h>

#include "anygpu.h"
#include "../backends/backend.h"
#include "builtin.h"
#include "error.h"
#include "pool.h"
#include "seam/shared.h" /* ag__queue_resolve, ag__csr_parts_of */

typedef struct ag__fft_cache ag__fft_cache;

struct ag_device {
  const ag__backend *be;
  ag__bdevice *bdev;
  ag_device_info info;
  ag__device_traits traits;    /* from the backend's device_traits */
  int index;                   /* position in enumeration order */
  int ordinal;                 /* the backend's own index of it, as device_open was given */
  pthread_mutex_t lock;        /* guards the BLAS and LAPACK look-ups below */
  ag__builtins builtins;       /* src/builtin.c: its own locks, none on the launch path */
  ag__pool pool;
  /* BLAS provider, looked up once under lock (src/blas.c). */
  bool blas_tried;
  const ag__blas_ops *blas;
  char *blas_reason;
  /* Dense eigensolver (ag__lapack_ops), looked up once under lock (src/blas.c); NULL when the
     backend has none. */
  bool lapack_tried;
  const ag__lapack_ops *lapack;
  /* FFT providers and plans (src/fft.c), under their own lock: planning can take seconds. */
  pthread_mutex_t fft_lock;
  ag__fft_cache *fft;
};

/* A queue outlives its destruction while buffers still name it as their last queue: the
   struct is freed when the last reference goes, the backend queue at ag_queue_destroy. */
struct ag_queue {
  ag_device *dev;
  ag__bqueue *bq;              /* NULL once destroyed */
  bool is_default;             /* a thread's default queue, owned by the library */
  atomic_int refs;             /* the owner's, plus one per buffer whose last queue it is */
  pthread_mutex_t lock;        /* orders destruction against another thread's event record */
};

struct ag_event {
  ag_device *dev;
  ag__bevent *bev;
};

struct ag_buffer {
  ag_device *dev;
  ag__bmem *mem;
  size_t size;                 /* as asked */
  size_t capacity;             /* of the pool's block */
  _Atomic(ag_queue *) last;    /* queue of the latest work on it, referenced; NULL for none */
  /* Borrowed memory (ag__buffer_borrow): another library's, never the pool's; freeing the
     buffer calls release(release_ctx) once the work on it has finished. NULL otherwise. */
  void (*release)(void *ctx);
  void *release_ctx;
};

struct ag_program {
  ag_device *dev;
  ag__bprogram *bp;
  atomic_int refs; /* the caller's reference until ag_program_destroy, and one per live kernel */
};

struct ag_kernel {
  ag_program *prog;
  ag__bkernel *bk;
  size_t max_work_group;
  char name[];
};

/* src/registry.c */
ag_status ag__registry_init(void);   /* enumerates once; every public entry calls it first */
int ag__device_total(void);
ag_device *ag__device_at(int index);
const ag__core_services *ag__services(void);

/* src/queue.c: queue references, and the "last queue" each buffer remembers so that later
   reads and the pool can wait for the work enqueued on it. */
void ag__queue_ref(ag_queue *q);
void ag__queue_unref(ag_queue *q);
void ag__buffer_touch(ag_buffer *b, ag_queue *q);
/* The buffer's last queue, referenced (ag__queue_unref it), or NULL. */
ag_queue *ag__buffer_last_queue(const ag_buffer *b);
/* Records an event on the buffer's last queue, if it still exists, and forgets that queue:
   *ev is NULL when there is nothing to wait for. */
ag_status ag__buffer_retire(ag_buffer *b, ag__bevent **ev);

/* src/buffer.c: a blocking read ordered after the work last enqueued on @p b, whichever queue
   that was (the calling thread's default queue when none). */
ag_status ag__buffer_read_after_last(ag_buffer *b, size_t offset, void *dst, size_t bytes);

/* src/buffer.c: a buffer over memory another library owns (@p mem, from the backend's
   mem_borrow, @p bytes long), which the pool never takes: ag_buffer_free waits for the work
   last enqueued on it, then calls @p release(@p ctx) instead of freeing the memory. On failure
   (out of host memory) release is not called. */
ag_status ag__buffer_borrow(ag_device *dev, ag__bmem *mem, size_t bytes, void (*release)(void *ctx), void *ctx,
                            ag_buffer **out);

/* src/fft.c: destroys the device's FFT plans once their last runs are done, except those a
   transform holds at that moment. Any thread. */
void ag__fft_trim(ag_device *dev);

/* src/cache.c: builds @p source for @p dev through the disk cache. */
ag_status ag__program_build_cached(ag_device *dev, const ag_program_desc *desc, const char *source,
                                   const char *options, ag__bprogram **out);

/* src/cache.c: named blobs in the cache folder (ag__core_services.cache_read, cache_write). */
void *ag__cache_blob_read(const char *name, const char *key, size_t *size);
void ag__cache_blob_write(const char *name, const char *key, const void *data, size_t size);

/* src/launch.c: a launch with arguments already resolved to backend handles, its range
   checked against the kernel's limit @p max_wg first. */
ag_status ag__launch_checked(const char *fn, ag_queue *q, ag_device *dev, ag__bkernel *bk,
                             size_t max_wg, const ag_range *range, size_t nargs,
                             const ag__karg *args);

#endif
