/* src/pool.c — a caching allocator per device. Device allocation is slow and, on CUDA,
   synchronises the device, so freed blocks are kept in bins of rounded sizes and handed out
   again once the work last enqueued on them is done. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ANYGPU_POOL=0 turns the pool off; read once. */
static bool pool_on;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_read_env(void) {
  const char *v = getenv("ANYGPU_POOL");
  pool_on = !(v != NULL && strcmp(v, "0") == 0);
}

static bool pool_enabled(void) {
  pthread_once(&pool_once, pool_read_env);
  return pool_on;
}

/* 512-byte steps below 1 MiB; above, eight steps per power of two, so at most 1/8 is wasted. */
static size_t round_size(size_t bytes) {
  if (bytes < ((size_t)1 << 20))
    return (bytes + 511) & ~(size_t)511;
  size_t top = (size_t)1 << (63 - __builtin_clzll(bytes)); /* largest power of two <= bytes */
  size_t step = top / 8;
  size_t r = (bytes + step - 1) / step * step;
  return r < bytes ? bytes : r;
}

void ag__pool_init(ag__pool *pool) {
  memset(pool, 0, sizeof *pool);
  pthread_mutex_init(&pool->lock, NULL);
}

/* The bin for @p size, or where it would go. Called with the lock held. */
static size_t bin_search(const ag__pool *pool, size_t size) {
  size_t lo = 0, hi = pool->nbins;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (pool->bins[mid].size < size)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A cached block of exactly @p size whose work is done, unlinked, or NULL. Lock held. */
static ag__block *take_ready(ag_device *dev, size_t size) {
  ag__pool *pool = &dev->pool;
  size_t i = bin_search(pool, size);
  if (i == pool->nbins || pool->bins[i].size != size)
    return NULL;
  for (ag__block **link = &pool->bins[i].head; *link != NULL; link = &(*link)->next) {
    ag__block *b = *link;
    bool done = true;
    if (b->ready != NULL && dev->be->event_query(b->ready, &done) != AG_OK)
      done = false; /* a failed query: leave the block for trim, which waits */
    if (!done)
      continue;
    *link = b->next;
    return b;
  }
  return NULL;
}

static void block_release(ag_device *dev, ag__block *b) {
  if (b->ready != NULL) {
    dev->be->event_wait(b->ready);
    dev->be->event_destroy(b->ready);
  }
  dev->be->mem_free(dev->bdev, b->mem);
  free(b);
}

/* Empties every bin. Lock held. */
static void trim_locked(ag_device *dev) {
  ag__pool *pool = &dev->pool;
  for (size_t i = 0; i < pool->nbins; i++) {
    ag__block *b = pool->bins[i].head;
    while (b != NULL) {
      ag__block *next = b->next;
      block_release(dev, b);
      b = next;
    }
    pool->bins[i].head = NULL;
  }
  pool->nbins = 0;
  pool->stats.bytes_cached = 0;
  pool->stats.trims++;
}

ag_status ag__pool_alloc(ag_device *dev, size_t bytes, ag__bmem **mem, size_t *capacity) {
  ag__pool *pool = &dev->pool;
  size_t size = pool_enabled() ? round_size(bytes) : bytes;
  if (size > dev->info.max_allocation)
    size = bytes; /* rounding must not push a legal size over the limit */
  pthread_mutex_lock(&pool->lock);
  ag__block *b = pool_enabled() ? take_ready(dev, size) : NULL;
  ag_status st = AG_OK;
  if (b != NULL) {
    *mem = b->mem;
    if (b->ready != NULL)
      dev->be->event_destroy(b->ready);
    free(b);
    pool->stats.bytes_cached -= size;
    pool->stats.reuses++;
  } else {
    /* Allocation can be slow; the lock still covers it so that a trim-and-retry below sees a
       consistent pool. */
    st = dev->be->mem_alloc(dev->bdev, size, mem);
    if (st == AG_ERR_OUT_OF_MEMORY && pool->stats.bytes_cached > 0) {
      ag__log(AG__LOG_INFO, "%s: out of memory for %zu bytes; trimming %zu cached bytes and retrying",
              dev->info.spec, size, pool->stats.bytes_cached);
      trim_locked(dev);
      st = dev->be->mem_alloc(dev->bdev, size, mem);
    }
  }
  if (st == AG_OK) {
    *capacity = size;
    pool->stats.allocations++;
    pool->stats.bytes_in_use += size;
    if (pool->stats.bytes_in_use > pool->stats.peak_bytes_in_use)
      pool->stats.peak_bytes_in_use = pool->stats.bytes_in_use;
  }
  pthread_mutex_unlock(&pool->lock);
  return st;
}

void ag__pool_free(ag_device *dev, ag__bmem *mem, size_t capacity, ag__bevent *ready, bool keep) {
  ag__pool *pool = &dev->pool;
  ag__block *b = keep && pool_enabled() ? malloc(sizeof *b) : NULL;
  pthread_mutex_lock(&pool->lock);
  pool->stats.bytes_in_use -= capacity;
  size_t i = b ? bin_search(pool, capacity) : 0;
  if (b != NULL && (i == pool->nbins || pool->bins[i].size != capacity)) {
    if (pool->nbins == pool->cap) {
      size_t cap = pool->cap ? pool->cap * 2 : 16;
      ag__bin *bins = realloc(pool->bins, cap * sizeof *bins);
      if (bins == NULL) {
        free(b);
        b = NULL;
      } else {
        pool->bins = bins;
        pool->cap = cap;
      }
    }
    if (b != NULL) {
      memmove(&pool->bins[i + 1], &pool->bins[i], (pool->nbins - i) * sizeof *pool->bins);
      pool->bins[i] = (ag__bin){.size = capacity};
      pool->nbins++;
    }
  }
  if (b != NULL) {
    *b = (ag__block){.mem = mem, .size = capacity, .ready = ready, .next = pool->bins[i].head};
    pool->bins[i].head = b;
    pool->stats.bytes_cached += capacity;
  }
  pthread_mutex_unlock(&pool->lock);
  if (b == NULL) {
    /* No pool (or no host memory to track the block): the driver frees it once its work is
       done. */
    if (ready != NULL)
      dev->be->event_destroy(ready);
    dev->be->mem_free(dev->bdev, mem);
  }
}

void ag__pool_trim(ag_device *dev) {
  pthread_mutex_lock(&dev->pool.lock);
  trim_locked(dev);
  pthread_mutex_unlock(&dev->pool.lock);
}

void ag__pool_stats(ag_device *dev, ag_pool_stats *stats) {
  pthread_mutex_lock(&dev->pool.lock);
  *stats = dev->pool.stats;
  pthread_mutex_unlock(&dev->pool.lock);
}
