/* src/pool.h — the caching allocator each device keeps for its buffers. */
#ifndef AG_SRC_POOL_H
#define AG_SRC_POOL_H

#ifdef AG_SCIENCE_LAYER
#error "src/pool.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include <pthread.h>

#include "../backends/backend.h"

/* A cached block, waiting for reuse: its memory and the event after which it is free. */
typedef struct ag__block {
  ag__bmem *mem;
  size_t size;
  ag__bevent *ready; /* NULL: free now */
  struct ag__block *next;
} ag__block;

/* Cached blocks of one rounded size. */
typedef struct ag__bin {
  size_t size;
  ag__block *head;
} ag__bin;

typedef struct ag__pool {
  pthread_mutex_t lock;
  ag__bin *bins; /* sorted by size */
  size_t nbins, cap;
  ag_pool_stats stats;
} ag__pool;

struct ag_device;

void ag__pool_init(ag__pool *pool);
/* A block of at least @p bytes: a cached one whose work is done, else a new one; when the
   device is out of memory, the pool is trimmed and the allocation tried once more. */
ag_status ag__pool_alloc(struct ag_device *dev, size_t bytes, ag__bmem **mem, size_t *capacity);
/* Returns a block; @p ready (owned by the pool from here) marks when its last work is done.
   Without @p keep, the block goes straight back to the driver. */
void ag__pool_free(struct ag_device *dev, ag__bmem *mem, size_t capacity, ag__bevent *ready,
                   bool keep);
/* Frees every cached block (the pool's half of ag_device_trim). Any thread. */
void ag__pool_trim(struct ag_device *dev);
/* A copy of the pool's counters, taken under its lock. Any thread. */
void ag__pool_stats(struct ag_device *dev, ag_pool_stats *stats);

#endif
