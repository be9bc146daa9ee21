/* src/split.c — a batch of items run over every device of a set (split.h, ag_split_run).

   One worker per device (a thread of its own when the set has several). Chunks are handed out
   in order from one atomic counter, so each device takes the next chunk when it has room for
   it. A worker has two slots, each a device buffer for a chunk's items and one for its results,
   and two queues: `work`, where the caller's run() enqueues the chunk's work, and `copy`, for
   the transfers. For chunk k in slot s, iteration k of a worker
     1. waits until slot s's previous chunk (k - 2) has been copied out, which frees both of
        the slot's buffers and bounds the work in flight to two chunks;
     2. takes the chunk, enqueues its copy in on `copy`, makes `work` wait for it, calls run();
        records the end of run()'s work;
     3. only then enqueues the copy out of the previous chunk (k - 1), behind the end of its
        work, so that on the in-order `copy` queue chunk k's copy in goes before chunk k - 1's
        copy out and overlaps chunk k - 1's work.
   The first failure (a callback's status, a copy's or a wait's) is recorded with its message,
   stops every worker from taking further chunks, and is what ag_split_run() returns. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"

typedef struct split_job {
  const ag_split_options *opt;
  const unsigned char *in;
  unsigned char *out;
  size_t n, chunk, nchunks;
  size_t in_item, out_item; /* bytes per item */
  atomic_size_t next;       /* the next chunk to hand out */
  atomic_bool stop;
  pthread_mutex_t lock;     /* guards status and message */
  ag_status status;         /* the first failure */
  char *message;
} split_job;

typedef struct split_slot {
  ag_array *in, *out;   /* [chunk, shape...] on the device, or NULL without input / output */
  ag_event *ran;        /* the end of run()'s work on the slot's chunk */
  ag_event *free;       /* the end of the slot's last copy out (or of its work, without output) */
  size_t first, count;  /* the slot's chunk; count 0 when it holds none */
} split_slot;

typedef struct split_worker {
  split_job *job;
  int index;
  ag_device *dev;
  char spec[32];
  pthread_t thread;
  size_t items;         /* items whose run() succeeded */
} split_worker;

/* Records the first failure: this thread's last error, prefixed with where it happened. */
static void fail(split_worker *w, ag_status st, const char *where) {
  split_job *job = w->job;
  atomic_store(&job->stop, true);
  pthread_mutex_lock(&job->lock);
  if (job->status == AG_OK) {
    const char *msg = ag_last_error();
    const char *fmt = "ag_split_run: device %d (%s)%s: %s";
    int len = snprintf(NULL, 0, fmt, w->index, w->spec, where, msg);
    job->status = st;
    job->message = len < 0 ? NULL : malloc((size_t)len + 1);
    if (job->message != NULL)
      snprintf(job->message, (size_t)len + 1, fmt, w->index, w->spec, where, msg);
  }
  pthread_mutex_unlock(&job->lock);
}

static void fail_items(split_worker *w, ag_status st, size_t first, size_t count) {
  char where[64];
  snprintf(where, sizeof where, ", items [%zu, %zu)", first, first + count);
  fail(w, st, where);
}

/* A device array of @p count items of @p shape (one item's @p ndim dims) and @p t. */
static ag_status make_items(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, size_t count,
                            ag_array **a) {
  size_t full[AG_MAX_DIMS] = {count};
  memcpy(full + 1, shape, (size_t)ndim * sizeof *shape);
  return ag_array_create(dev, t, ndim + 1, full, a);
}

/* Enqueues the copy out of slot @p s's chunk behind its work, and records the slot free. */
static ag_status copy_out(split_worker *w, ag_queue *copy, ag_queue *work, split_slot *s) {
  split_job *job = w->job;
  ag_status st;
  ag_queue *last = work;
  if (job->out != NULL) {
    size_t off;
    ag_buffer *buf = ag_array_buffer(s->out, &off);
    if ((st = ag_queue_wait_event(copy, s->ran)) != AG_OK ||
        (st = ag_buffer_read_async(copy, buf, off, job->out + s->first * job->out_item, s->count * job->out_item)) !=
            AG_OK)
      return st;
    last = copy;
  }
  return ag_event_record(last, &s->free);
}

/* Enqueues the copy in of chunk [first, first + count) into slot @p s and calls run() on it. */
static ag_status start_chunk(split_worker *w, ag_queue *copy, ag_queue *work, split_slot *s, void *state) {
  split_job *job = w->job;
  const ag_split_options *opt = job->opt;
  ag_array *in = NULL, *out = NULL;
  ag_status st = AG_OK;
  if (s->in != NULL) {
    size_t off;
    ag_buffer *buf = ag_array_buffer(s->in, &off);
    ag_event *copied = NULL;
    if ((st = ag_buffer_write_async(copy, buf, off, job->in + s->first * job->in_item, s->count * job->in_item)) !=
            AG_OK ||
        (st = ag_event_record(copy, &copied)) != AG_OK || (st = ag_queue_wait_event(work, copied)) != AG_OK ||
        (st = ag_array_slice(s->in, 0, s->count, &in)) != AG_OK) {
      ag_event_destroy(copied);
      return st;
    }
    ag_event_destroy(copied);
  }
  if (s->out != NULL && (st = ag_array_slice(s->out, 0, s->count, &out)) != AG_OK) {
    ag_array_free(in);
    return st;
  }
  ag_split_chunk c = {.device = w->index, .dev = w->dev, .queue = work, .first = s->first, .count = s->count,
                      .in = in, .out = out, .state = state};
  st = opt->run(&c, opt->user);
  ag_array_free(in);
  ag_array_free(out);
  if (st == AG_OK)
    st = ag_event_record(work, &s->ran);
  return st;
}

/* Waits for slot @p s's last copy out; a failure there is its chunk's. */
static bool wait_free(split_worker *w, split_slot *s) {
  if (s->free == NULL)
    return true;
  ag_status st = ag_event_wait(s->free);
  ag_event_destroy(s->free);
  s->free = NULL;
  if (st != AG_OK) {
    fail_items(w, st, s->first, s->count);
    return false;
  }
  return true;
}

static void *work_loop(void *arg) {
  split_worker *w = arg;
  split_job *job = w->job;
  const ag_split_options *opt = job->opt;
  ag_queue *work = NULL, *copy = NULL;
  split_slot slot[2] = {{0}};
  void *state = NULL;
  bool set_up = false;
  ag_status st;

  if ((st = ag_queue_create(w->dev, &work)) != AG_OK || (st = ag_queue_create(w->dev, &copy)) != AG_OK) {
    fail(w, st, "");
    goto done;
  }
  for (int i = 0; i < 2; i++)
    if ((job->in != NULL &&
         (st = make_items(w->dev, opt->in_dtype, opt->in_ndim, opt->in_shape, job->chunk, &slot[i].in)) != AG_OK) ||
        (job->out != NULL &&
         (st = make_items(w->dev, opt->out_dtype, opt->out_ndim, opt->out_shape, job->chunk, &slot[i].out)) != AG_OK)) {
      fail(w, st, "");
      goto done;
    }
  if (opt->setup != NULL) {
    if ((st = opt->setup(w->dev, w->index, opt->user, &state)) != AG_OK) {
      fail(w, st, ", setup");
      goto done;
    }
  }
  set_up = true;

  split_slot *prev = NULL;
  for (int k = 0;; k ^= 1) {
    split_slot *s = &slot[k];
    bool took = false;
    if (wait_free(w, s) && !atomic_load(&job->stop)) {
      size_t c = atomic_fetch_add(&job->next, 1);
      if (c < job->nchunks) {
        s->first = c * job->chunk;
        s->count = job->n - s->first < job->chunk ? job->n - s->first : job->chunk;
        if ((st = start_chunk(w, copy, work, s, state)) == AG_OK) {
          w->items += s->count;
          took = true;
        } else {
          fail_items(w, st, s->first, s->count);
        }
      }
    }
    if (prev != NULL) {
      if ((st = copy_out(w, copy, work, prev)) != AG_OK)
        fail_items(w, st, prev->first, prev->count);
      ag_event_destroy(prev->ran);
      prev->ran = NULL;
    }
    if (!took)
      break;
    prev = s;
  }
  for (int i = 0; i < 2; i++)
    wait_free(w, &slot[i]);

done:
  /* Whatever happened, nothing of this worker's is in flight when teardown() runs. */
  if (work != NULL && (st = ag_queue_finish(work)) != AG_OK)
    fail(w, st, "");
  if (copy != NULL && (st = ag_queue_finish(copy)) != AG_OK)
    fail(w, st, "");
  if (set_up && opt->teardown != NULL)
    opt->teardown(w->dev, state, opt->user);
  for (int i = 0; i < 2; i++) {
    ag_event_destroy(slot[i].ran);
    ag_event_destroy(slot[i].free);
    ag_array_free(slot[i].in);
    ag_array_free(slot[i].out);
  }
  ag_queue_destroy(work);
  ag_queue_destroy(copy);
  return NULL;
}

/* Checks one item's description and gives its bytes. */
static ag_status item_bytes(const char *what, ag_dtype t, int ndim, const size_t *shape, size_t *bytes) {
  if (!ag__dtype_valid(t))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_split_run: opt->%s_dtype %d is not an ag_dtype", what, (int)t);
  if (ndim < 0 || ndim > AG_MAX_DIMS - 1)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_split_run: opt->%s_ndim %d is outside 0 to %d", what, ndim,
                     AG_MAX_DIMS - 1);
  size_t b = ag_dtype_size(t);
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_split_run: opt->%s_shape[%d] is 0", what, i);
    if (b > SIZE_MAX / shape[i])
      return ag__error(AG_ERR_OUT_OF_RANGE, "ag_split_run: one item of opt->%s_shape overflows size_t", what);
    b *= shape[i];
  }
  *bytes = b;
  return AG_OK;
}

ag_status ag_split_run(const ag_device_set *set, size_t n, const void *in, void *out, const ag_split_options *opt) {
  AG__CHECK_NOT_NULL("ag_split_run", set);
  AG__CHECK_NOT_NULL("ag_split_run", opt);
  if (opt->run == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_split_run: opt->run is NULL");
  split_job job = {.opt = opt, .in = in, .out = out, .n = n, .chunk = opt->chunk ? opt->chunk : 16};
  ag_status st;
  if (in != NULL && (st = item_bytes("in", opt->in_dtype, opt->in_ndim, opt->in_shape, &job.in_item)) != AG_OK)
    return st;
  if (out != NULL && (st = item_bytes("out", opt->out_dtype, opt->out_ndim, opt->out_shape, &job.out_item)) != AG_OK)
    return st;
  if ((job.in_item && n > SIZE_MAX / job.in_item) || (job.out_item && n > SIZE_MAX / job.out_item))
    return ag__error(AG_ERR_OUT_OF_RANGE, "ag_split_run: n (%zu) items overflow size_t bytes", n);
  int count;
  if ((st = ag_device_set_count(set, &count)) != AG_OK)
    return ag__prefix(st, "ag_split_run");
  if (opt->device_items != NULL)
    memset(opt->device_items, 0, (size_t)count * sizeof *opt->device_items);
  if (n == 0)
    return AG_OK;
  if (job.chunk > n)
    job.chunk = n;
  job.nchunks = n / job.chunk + (n % job.chunk != 0);
  atomic_init(&job.next, 0);
  atomic_init(&job.stop, false);

  split_worker *workers = calloc((size_t)count, sizeof *workers);
  if (workers == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "ag_split_run: no memory for %d workers", count);
  pthread_mutex_init(&job.lock, NULL);
  for (int i = 0; i < count; i++) {
    ag_device_info info;
    workers[i].job = &job;
    workers[i].index = i;
    ag_device_set_get(set, i, &workers[i].dev);
    if (ag_device_get_info(workers[i].dev, &info) == AG_OK)
      memcpy(workers[i].spec, info.spec, sizeof workers[i].spec);
  }
  /* One device works on the calling thread; several each on a thread of their own. */
  int started = 0;
  if (count == 1) {
    work_loop(&workers[0]);
  } else {
    for (; started < count; started++)
      if (pthread_create(&workers[started].thread, NULL, work_loop, &workers[started]) != 0) {
        atomic_store(&job.stop, true);
        ag__error(AG_ERR_OUT_OF_MEMORY, "could not start a thread");
        fail(&workers[started], AG_ERR_OUT_OF_MEMORY, "");
        break;
      }
    for (int i = 0; i < started; i++)
      pthread_join(workers[i].thread, NULL);
  }
  if (opt->device_items != NULL)
    for (int i = 0; i < count; i++)
      opt->device_items[i] = workers[i].items;
  free(workers);
  pthread_mutex_destroy(&job.lock);
  if (job.status != AG_OK) {
    if (job.message != NULL)
      ag__error(job.status, "%s", job.message);
    else
      ag__error(job.status, "ag_split_run: a device failed (no memory for its message)");
    free(job.message);
  }
  return job.status;
}
