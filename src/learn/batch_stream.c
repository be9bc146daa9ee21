/* src/learn/batch_stream.c — batches of a host data set streamed to a device (learn.h,
   ag_batch_stream): each batch's rows gathered on the host, in the epoch's shuffled order, into
   page-locked staging, then copied on a queue of the stream's own into one of two device
   buffers while the caller's queue computes on the other. Events order the two queues: the
   caller's queue waits for a batch's copy, and a copy into a buffer waits for the work the
   caller enqueued on that buffer's previous batch. */
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "seam.h"

struct ag_batch_stream {
  ag_device *dev;
  ag_queue *copyq;              /* the stream's: copies only */
  const unsigned char *x, *y;   /* the caller's rows (y may be NULL) */
  size_t xrow, yrow;            /* bytes per row */
  size_t n, batch, nb;          /* samples, samples per batch, batches per epoch */
  uint64_t seed;
  size_t *perm;                 /* the order of epoch perm_epoch */
  uint64_t perm_epoch;
  bool perm_valid;
  ag_array *xd[2], *yd[2];      /* the two device buffers of each array, [batch][row] */
  void *xs[2], *ys[2];          /* their page-locked staging */
  ag_event *done[2];            /* the end of the last copy into each buffer, or NULL */
  /* the batch the next call returns: epoch, index in the epoch, buffer; whether its copy has
     started; whether the previous call returned an epoch's last batch */
  uint64_t epoch;
  size_t k;
  int slot;
  bool started, at_end;
  ag_array *vx, *vy;            /* the views the last call returned */
};

/* Samples in batch @p k of an epoch. */
static size_t batch_count(const ag_batch_stream *s, size_t k) {
  size_t first = k * s->batch;
  return s->n - first < s->batch ? s->n - first : s->batch;
}

/* Makes s->perm epoch @p e's order: Fisher–Yates from the identity with a generator of
   (seed, e), so that an epoch's order depends on the seed and the epoch only; the identity for
   seed 0. */
static void order_epoch(ag_batch_stream *s, uint64_t e) {
  if (s->perm_valid && s->perm_epoch == e)
    return;
  for (size_t i = 0; i < s->n; i++)
    s->perm[i] = i;
  if (s->seed != 0) {
    ag__rng r = ag__rng_seed(s->seed, e);
    for (size_t i = s->n - 1; i > 0; i--) {
      size_t j = (size_t)ag__rng_below(&r, (uint64_t)i + 1), t = s->perm[i];
      s->perm[i] = s->perm[j], s->perm[j] = t;
    }
  }
  s->perm_epoch = e, s->perm_valid = true;
}

/* Starts the copy of batch @p k of epoch @p e into buffer @p slot, after @p after (the work
   enqueued on the caller's queue so far, which covers that buffer's previous batch). */
static ag_status start_copy(const char *fn, ag_batch_stream *s, uint64_t e, size_t k, int slot, const ag_event *after) {
  ag_status st;
  /* the staging of this buffer is free once its previous copy has run */
  if (s->done[slot] != NULL) {
    if ((st = ag_event_wait(s->done[slot])) != AG_OK)
      return ag__prefix(st, fn);
    ag_event_destroy(s->done[slot]);
    s->done[slot] = NULL;
  }
  order_epoch(s, e);
  size_t cnt = batch_count(s, k);
  const size_t *rows = s->perm + k * s->batch;
  unsigned char *xs = s->xs[slot], *ys = s->ys[slot];
  for (size_t r = 0; r < cnt; r++) {
    memcpy(xs + r * s->xrow, s->x + rows[r] * s->xrow, s->xrow);
    if (s->y != NULL)
      memcpy(ys + r * s->yrow, s->y + rows[r] * s->yrow, s->yrow);
  }
  size_t off;
  ag_buffer *xb = ag_array_buffer(s->xd[slot], &off);
  if ((st = ag_queue_wait_event(s->copyq, after)) != AG_OK ||
      (st = ag_buffer_write_async(s->copyq, xb, off, xs, cnt * s->xrow)) != AG_OK)
    return ag__prefix(st, fn);
  if (s->y != NULL) {
    ag_buffer *yb = ag_array_buffer(s->yd[slot], &off);
    if ((st = ag_buffer_write_async(s->copyq, yb, off, ys, cnt * s->yrow)) != AG_OK)
      return ag__prefix(st, fn);
  }
  if ((st = ag_event_record(s->copyq, &s->done[slot])) != AG_OK)
    return ag__prefix(st, fn);
  return AG_OK;
}

void ag_batch_stream_destroy(ag_batch_stream *s) {
  if (s == NULL)
    return;
  /* copies in flight read the staging and write the buffers: let them end first */
  if (s->copyq != NULL)
    ag_queue_finish(s->copyq);
  ag_array_free(s->vx), ag_array_free(s->vy);
  for (int i = 0; i < 2; i++) {
    ag_event_destroy(s->done[i]);
    ag_array_free(s->xd[i]), ag_array_free(s->yd[i]);
    ag_host_free(s->xs[i]), ag_host_free(s->ys[i]);
  }
  ag_queue_destroy(s->copyq);
  free(s->perm);
  free(s);
}

ag_status ag_batch_stream_create(ag_device *dev, const void *x, ag_dtype x_dtype, size_t x_row, const void *y,
                                 ag_dtype y_dtype, size_t y_row, size_t n, size_t batch, uint64_t seed,
                                 ag_batch_stream **out) {
  static const char fn[] = "ag_batch_stream_create";
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  AG__CHECK_NOT_NULL(fn, x);
  if (!ag__dtype_valid(x_dtype))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x_dtype is %d, not an ag_dtype", fn, (int)x_dtype);
  if (x_row == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x_row is 0; a row holds at least one element", fn);
  if (y != NULL && !ag__dtype_valid(y_dtype))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: y_dtype is %d, not an ag_dtype", fn, (int)y_dtype);
  if (y != NULL && y_row == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: y_row is 0; a row holds at least one element", fn);
  if (n == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: n is 0; the data set needs at least one sample", fn);
  if (batch == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: batch is 0; a batch holds at least one sample", fn);
  size_t xes = ag_dtype_size(x_dtype), yes = y != NULL ? ag_dtype_size(y_dtype) : 0;
  if (x_row > SIZE_MAX / xes / n || (y != NULL && y_row > SIZE_MAX / yes / n))
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: n (%zu) rows of x_row or y_row elements overflow a size_t", fn, n);
  ag_batch_stream *s = calloc(1, sizeof *s);
  if (s == NULL || (s->perm = malloc(n * sizeof *s->perm)) == NULL) {
    free(s);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: host memory for a stream of %zu samples", fn, n);
  }
  s->dev = dev, s->x = x, s->y = y, s->xrow = x_row * xes, s->yrow = y_row * yes;
  s->n = n, s->batch = batch < n ? batch : n, s->nb = (n + s->batch - 1) / s->batch, s->seed = seed;
  ag_status st = ag_queue_create(dev, &s->copyq);
  for (int i = 0; i < 2 && st == AG_OK; i++) {
    if ((st = ag_array_create(dev, x_dtype, 2, (size_t[]){s->batch, x_row}, &s->xd[i])) == AG_OK)
      st = ag_host_alloc(dev, s->batch * s->xrow, &s->xs[i]);
    if (st == AG_OK && y != NULL && (st = ag_array_create(dev, y_dtype, 2, (size_t[]){s->batch, y_row}, &s->yd[i])) == AG_OK)
      st = ag_host_alloc(dev, s->batch * s->yrow, &s->ys[i]);
  }
  if (st != AG_OK) {
    ag_batch_stream_destroy(s);
    return ag__prefix(st, fn);
  }
  *out = s;
  return AG_OK;
}

ag_status ag_batch_stream_next(ag_batch_stream *s, ag_queue *q, ag_array **x, ag_array **y, size_t *count) {
  static const char fn[] = "ag_batch_stream_next";
  AG__CHECK_NOT_NULL(fn, s);
  AG__CHECK_NOT_NULL(fn, x);
  AG__CHECK_NOT_NULL(fn, count);
  ag_status st;
  if (q == NULL && (st = ag_queue_default(s->dev, &q)) != AG_OK)
    return ag__prefix(st, fn);
  ag_device *qd = ag_queue_device(q);
  if (qd != s->dev) {
    ag_device_info a, b;
    ag_device_get_info(qd, &a), ag_device_get_info(s->dev, &b);
    return ag__error(AG_ERR_MISMATCH, "%s: q runs on %s but the stream's buffers are on %s", fn, a.spec, b.spec);
  }
  *x = NULL, *count = 0;
  if (y != NULL)
    *y = NULL;
  ag_array_free(s->vx), ag_array_free(s->vy);
  s->vx = s->vy = NULL;
  if (s->at_end) { /* the epoch's end: the next call starts the next one (its first copy runs) */
    s->at_end = false;
    return AG_OK;
  }
  /* the work enqueued on q so far, which the copy into the other buffer must follow */
  ag_event *before = NULL;
  if ((st = ag_event_record(q, &before)) != AG_OK)
    return ag__prefix(st, fn);
  if (!s->started) {
    if ((st = start_copy(fn, s, s->epoch, s->k, s->slot, before)) != AG_OK)
      goto out;
    s->started = true;
  }
  int slot = s->slot;
  size_t cnt = batch_count(s, s->k);
  if ((st = ag_queue_wait_event(q, s->done[slot])) != AG_OK ||
      (st = ag_array_slice(s->xd[slot], 0, cnt, &s->vx)) != AG_OK ||
      (s->y != NULL && (st = ag_array_slice(s->yd[slot], 0, cnt, &s->vy)) != AG_OK)) {
    st = ag__prefix(st, fn);
    goto out;
  }
  /* the batch after this one, into the other buffer */
  uint64_t e = s->epoch;
  size_t k = s->k + 1;
  s->at_end = k == s->nb;
  if (s->at_end)
    e++, k = 0;
  if ((st = start_copy(fn, s, e, k, 1 - slot, before)) != AG_OK) {
    s->started = false; /* the next call starts this batch's copy again */
    ag_array_free(s->vx), ag_array_free(s->vy);
    s->vx = s->vy = NULL;
    s->at_end = false;
    goto out;
  }
  s->epoch = e, s->k = k, s->slot = 1 - slot;
  *x = s->vx, *count = cnt;
  if (y != NULL)
    *y = s->vy;
out:
  ag_event_destroy(before);
  return st;
}
