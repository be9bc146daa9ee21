/* src/buffer.c — device buffers, copies between host and device, pinned host memory. */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/fill.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_fill_words, AG_SHAPE_FILL_WORDS)

ag_status ag_buffer_alloc(ag_device *dev, size_t bytes, ag_buffer **buf) {
  static const char fn[] = "ag_buffer_alloc";
  AG__CHECK_NOT_NULL(fn, buf);
  *buf = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  if (bytes == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: bytes is 0", fn);
  if (bytes > dev->info.max_allocation)
    return ag__error(AG_ERR_OUT_OF_MEMORY,
                     "%s: %zu bytes exceeds the largest allocation of %s (%zu bytes; device memory %zu bytes)",
                     fn, bytes, dev->info.spec, dev->info.max_allocation, dev->info.global_memory);
  ag_buffer *b = calloc(1, sizeof *b);
  if (b == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ag_status st = ag__pool_alloc(dev, bytes, &b->mem, &b->capacity);
  if (st != AG_OK) {
    free(b);
    return ag__prefix(st, fn);
  }
  b->dev = dev;
  b->size = bytes;
  atomic_init(&b->last, NULL);
  *buf = b;
  return AG_OK;
}

ag_status ag__buffer_borrow(ag_device *dev, ag__bmem *mem, size_t bytes, void (*release)(void *ctx), void *ctx,
                            ag_buffer **out) {
  ag_buffer *b = calloc(1, sizeof *b);
  if (b == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  b->dev = dev;
  b->mem = mem;
  b->size = bytes;
  atomic_init(&b->last, NULL);
  b->release = release;
  b->release_ctx = ctx;
  *out = b;
  return AG_OK;
}

/* Borrowed memory goes back to its owner only once the work last enqueued on it has finished,
   so this waits for that work. When no event can be recorded to wait for, the owner is never
   told: its memory stays alive rather than be freed under work that may still run. */
static void buffer_return(ag_buffer *buf) {
  ag__bevent *done = NULL;
  ag_status st = ag__buffer_retire(buf, &done);
  if (st == AG_OK && done != NULL) {
    st = buf->dev->be->event_wait(done);
    buf->dev->be->event_destroy(done);
  }
  if (st == AG_OK)
    buf->release(buf->release_ctx);
  else
    ag__log(AG__LOG_WARN, "ag_buffer_free: borrowed memory on %s is kept, not returned to its owner: %s",
            buf->dev->info.spec, ag_last_error());
  free(buf);
}

void ag_buffer_free(ag_buffer *buf) {
  if (buf == NULL)
    return;
  if (buf->release != NULL) {
    buffer_return(buf);
    return;
  }
  /* The block goes back to the pool with an event after the last work enqueued on it, so it
     is not handed out again while that work runs; no event means that queue is gone, and its
     work with it. If the event cannot be recorded, the block goes back to the driver, which
     frees it after the work. */
  ag__bevent *ready = NULL;
  bool keep = ag__buffer_retire(buf, &ready) == AG_OK;
  ag__pool_free(buf->dev, buf->mem, buf->capacity, ready, keep);
  free(buf);
}

size_t ag_buffer_size(const ag_buffer *buf) { return buf ? buf->size : 0; }

ag_device *ag_buffer_device(const ag_buffer *buf) { return buf ? buf->dev : NULL; }

/* offset + bytes <= size, without overflow. */
static ag_status check_range(const char *fn, const char *name, const ag_buffer *b, size_t offset,
                             size_t bytes) {
  if (offset > b->size || bytes > b->size - offset)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: %s offset %zu + %zu bytes exceeds buffer size %zu", fn,
                     name, offset, bytes, b->size);
  return AG_OK;
}

static ag_status transfer(const char *fn, ag_queue *q, ag_buffer *buf, size_t offset, void *host,
                          size_t bytes, bool write, bool blocking) {
  if (buf == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, write ? "dst" : "src");
  if (host == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, write ? "src" : "dst");
  ag_status st = check_range(fn, write ? "dst" : "src", buf, offset, bytes);
  if (st != AG_OK)
    return st;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, buf->dev, &rq)) != AG_OK)
    return st;
  if (bytes == 0)
    return AG_OK;
  ag__buffer_touch(buf, rq);
  const ag__backend *be = buf->dev->be;
  st = write ? be->mem_write(rq->bq, buf->mem, offset, host, bytes, blocking)
             : be->mem_read(rq->bq, buf->mem, offset, host, bytes, blocking);
  return ag__prefix(st, fn);
}

ag_status ag_buffer_write(ag_queue *q, ag_buffer *dst, size_t offset, const void *src, size_t bytes) {
  return transfer("ag_buffer_write", q, dst, offset, (void *)src, bytes, true, true);
}

ag_status ag_buffer_read(ag_queue *q, const ag_buffer *src, size_t offset, void *dst, size_t bytes) {
  return transfer("ag_buffer_read", q, (ag_buffer *)src, offset, dst, bytes, false, true);
}

ag_status ag__buffer_read_after_last(ag_buffer *b, size_t offset, void *dst, size_t bytes) {
  ag_queue *q = ag__buffer_last_queue(b);
  if (q != NULL) {
    /* The queue may belong to another thread; its lock keeps it from being destroyed during
       the read, and backends accept work on one queue from several threads. */
    ag_status st = AG_OK;
    bool done = false;
    pthread_mutex_lock(&q->lock);
    if (q->bq != NULL) {
      st = b->dev->be->mem_read(q->bq, b->mem, offset, dst, bytes, true);
      done = true;
    }
    pthread_mutex_unlock(&q->lock);
    ag__queue_unref(q);
    if (done)
      return st;
  }
  ag_queue *dq;
  ag_status st = ag__queue_resolve("ag_array_to_host", NULL, b->dev, &dq);
  if (st != AG_OK)
    return st;
  return b->dev->be->mem_read(dq->bq, b->mem, offset, dst, bytes, true);
}

ag_status ag_buffer_write_async(ag_queue *q, ag_buffer *dst, size_t offset, const void *src,
                                size_t bytes) {
  return transfer("ag_buffer_write_async", q, dst, offset, (void *)src, bytes, true, false);
}

ag_status ag_buffer_read_async(ag_queue *q, const ag_buffer *src, size_t offset, void *dst,
                               size_t bytes) {
  return transfer("ag_buffer_read_async", q, (ag_buffer *)src, offset, dst, bytes, false, false);
}

ag_status ag_buffer_copy(ag_queue *q, ag_buffer *dst, size_t dst_offset, const ag_buffer *src,
                         size_t src_offset, size_t bytes) {
  static const char fn[] = "ag_buffer_copy";
  AG__CHECK_NOT_NULL(fn, dst);
  AG__CHECK_NOT_NULL(fn, src);
  if (src->dev != dst->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: dst is on %s but src is on %s", fn, dst->dev->info.spec,
                     src->dev->info.spec);
  ag_status st = check_range(fn, "dst", dst, dst_offset, bytes);
  if (st == AG_OK)
    st = check_range(fn, "src", src, src_offset, bytes);
  if (st != AG_OK)
    return st;
  if (src == dst && bytes > 0 && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ranges [%zu, %zu) and [%zu, %zu) of one buffer overlap",
                     fn, src_offset, src_offset + bytes, dst_offset, dst_offset + bytes);
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, dst->dev, &rq)) != AG_OK)
    return st;
  if (bytes == 0)
    return AG_OK;
  ag__buffer_touch(dst, rq);
  ag__buffer_touch((ag_buffer *)src, rq);
  return ag__prefix(dst->dev->be->mem_copy(rq->bq, dst->mem, dst_offset, src->mem, src_offset, bytes), fn);
}

/* Patterns of up to 4 bytes are filled by the backend's native fill (cuMemsetD32Async,
   clEnqueueFillBuffer, memset); longer ones by the built-in "fill" kernels, which every backend
   has, so no backend needs its own wide-pattern code. */
ag_status ag_buffer_fill(ag_queue *q, ag_buffer *buf, size_t offset, const void *pattern,
                         size_t pattern_size, size_t bytes) {
  static const char fn[] = "ag_buffer_fill";
  AG__CHECK_NOT_NULL(fn, buf);
  AG__CHECK_NOT_NULL(fn, pattern);
  if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)) != 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: pattern_size %zu is not one of 1, 2, 4, 8, 16, 32, 64, 128",
                     fn, pattern_size);
  if (offset % pattern_size != 0 || bytes % pattern_size != 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: offset %zu and bytes %zu must be multiples of pattern_size %zu",
                     fn, offset, bytes, pattern_size);
  ag_status st = check_range(fn, "buf", buf, offset, bytes);
  if (st != AG_OK)
    return st;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, buf->dev, &rq)) != AG_OK)
    return st;
  if (bytes == 0)
    return AG_OK;
  ag__buffer_touch(buf, rq);
  if (pattern_size <= 4)
    return ag__prefix(buf->dev->be->mem_fill(rq->bq, buf->mem, offset, pattern, pattern_size, bytes), fn);

  /* Wider patterns: the first copy of the pattern by the native fill, a word at a time, then
     the "fill" kernel copies it along the range (kernels_shared/fill.h says why). */
  const unsigned char *words = pattern;
  for (size_t w = 0; w < pattern_size; w += 4)
    if ((st = buf->dev->be->mem_fill(rq->bq, buf->mem, offset + w, words + w, 4, 4)) != AG_OK)
      return ag__prefix(st, fn);
  uint64_t first = offset / 4, count = bytes / 4;
  uint32_t period = (uint32_t)(pattern_size / 4);
  ag__launch l = {.fn = fn, .q = rq, .dev = buf->dev, .kernel = AG_K_FILL_WORDS, .n = count - period};
  return AG__LAUNCH(launch_fill_words, &l, .dst = buf, .first = first, .period = period);
}

/* Pinned host allocations, so ag_host_free() needs only the pointer. */
typedef struct pinned {
  void *ptr;
  void *handle;
  ag_device *dev;
  struct pinned *next;
} pinned;

static pinned *pinned_list;
static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;

ag_status ag_host_alloc(ag_device *dev, size_t bytes, void **ptr) {
  static const char fn[] = "ag_host_alloc";
  AG__CHECK_NOT_NULL(fn, ptr);
  *ptr = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  if (bytes == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: bytes is 0", fn);
  pinned *p = calloc(1, sizeof *p);
  if (p == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ag_status st = AG_OK;
  if (dev->be->host_alloc != NULL) {
    st = dev->be->host_alloc(dev->bdev, bytes, &p->ptr, &p->handle);
  } else {
    size_t rounded = (bytes + 4095) & ~(size_t)4095;
    if (rounded < bytes || (p->ptr = aligned_alloc(4096, rounded)) == NULL)
      st = ag__error(AG_ERR_OUT_OF_MEMORY, "%zu bytes of host memory are not available", bytes);
  }
  if (st != AG_OK) {
    free(p);
    return ag__prefix(st, fn);
  }
  p->dev = dev;
  pthread_mutex_lock(&pinned_lock);
  p->next = pinned_list;
  pinned_list = p;
  pthread_mutex_unlock(&pinned_lock);
  *ptr = p->ptr;
  return AG_OK;
}

void ag_host_free(void *ptr) {
  if (ptr == NULL)
    return;
  pthread_mutex_lock(&pinned_lock);
  pinned **link = &pinned_list;
  while (*link != NULL && (*link)->ptr != ptr)
    link = &(*link)->next;
  pinned *p = *link;
  if (p != NULL)
    *link = p->next;
  pthread_mutex_unlock(&pinned_lock);
  if (p == NULL) {
    ag__error(AG_ERR_INVALID_ARGUMENT, "ag_host_free: %p did not come from ag_host_alloc", ptr);
    return;
  }
  if (p->dev->be->host_free != NULL)
    p->dev->be->host_free(p->dev->bdev, p->ptr, p->handle);
  else
    free(p->ptr);
  free(p);
}
