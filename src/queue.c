/* src/queue.c — queues, each thread's default queues, and events. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Each thread's default queues, one per device, made on first use and destroyed when the thread
   exits (the pthread key's destructor). */
typedef struct default_queues {
  int n;
  ag_queue **q;
} default_queues;

static _Thread_local default_queues tls_defaults;
static pthread_key_t defaults_key;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;

void ag__queue_ref(ag_queue *q) { atomic_fetch_add(&q->refs, 1); }

void ag__queue_unref(ag_queue *q) {
  if (q != NULL && atomic_fetch_sub(&q->refs, 1) == 1) {
    pthread_mutex_destroy(&q->lock);
    free(q);
  }
}

/* Destroys the backend queue (waiting for its work) and drops the owner's reference; buffers
   that still name the queue keep the struct until they move on. */
static void queue_close(ag_queue *q) {
  pthread_mutex_lock(&q->lock);
  q->dev->be->queue_destroy(q->bq);
  q->bq = NULL;
  pthread_mutex_unlock(&q->lock);
  ag__queue_unref(q);
}

static void defaults_free(void *p) {
  default_queues *d = p;
  for (int i = 0; i < d->n; i++)
    if (d->q[i] != NULL)
      queue_close(d->q[i]);
  free(d->q);
  d->q = NULL;
  d->n = 0;
}

void ag__buffer_touch(ag_buffer *b, ag_queue *q) {
  if (atomic_load_explicit(&b->last, memory_order_relaxed) == q)
    return;
  ag__queue_ref(q);
  ag__queue_unref(atomic_exchange(&b->last, q));
}

ag_queue *ag__buffer_last_queue(const ag_buffer *b) {
  /* The reference is taken under no lock: a concurrent touch could drop the queue between the
     load and the ref. Buffers are used by one thread at a time when queues change hands,
     which the API asks of any cross-queue use. */
  ag_queue *q = atomic_load(&((ag_buffer *)b)->last);
  if (q != NULL)
    ag__queue_ref(q);
  return q;
}

ag_status ag__buffer_retire(ag_buffer *b, ag__bevent **ev) {
  *ev = NULL;
  ag_queue *q = atomic_exchange(&b->last, NULL);
  if (q == NULL)
    return AG_OK;
  ag_status st = AG_OK;
  pthread_mutex_lock(&q->lock);
  if (q->bq != NULL)
    st = q->dev->be->event_record(q->bq, ev);
  pthread_mutex_unlock(&q->lock);
  ag__queue_unref(q);
  return st;
}

static void defaults_key_init(void) { pthread_key_create(&defaults_key, defaults_free); }

static ag_status queue_new(ag_device *dev, bool is_default, ag_queue **out) {
  ag_queue *q = calloc(1, sizeof *q);
  if (q == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for a queue");
  ag_status st = dev->be->queue_create(dev->bdev, &q->bq);
  if (st != AG_OK) {
    free(q);
    return st;
  }
  q->dev = dev;
  q->is_default = is_default;
  atomic_init(&q->refs, 1);
  pthread_mutex_init(&q->lock, NULL);
  *out = q;
  return AG_OK;
}

static ag_status default_queue(ag_device *dev, ag_queue **out) {
  default_queues *d = &tls_defaults;
  if (d->q == NULL) {
    pthread_once(&defaults_once, defaults_key_init);
    d->q = calloc((size_t)ag__device_total(), sizeof *d->q);
    if (d->q == NULL)
      return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for default queues");
    d->n = ag__device_total();
    pthread_setspecific(defaults_key, d);
  }
  if (d->q[dev->index] == NULL) {
    ag_status st = queue_new(dev, true, &d->q[dev->index]);
    if (st != AG_OK)
      return st;
  }
  *out = d->q[dev->index];
  return AG_OK;
}

ag_status ag__queue_resolve(const char *fn, ag_queue *q, ag_device *dev, ag_queue **out) {
  if (q == NULL)
    return ag__prefix(default_queue(dev, out), fn);
  if (q->dev != dev)
    return ag__error(AG_ERR_MISMATCH, "%s: queue is on %s but the data is on %s", fn, q->dev->info.spec,
                     dev->info.spec);
  *out = q;
  return AG_OK;
}

ag_status ag_queue_create(ag_device *dev, ag_queue **q) {
  AG__CHECK_NOT_NULL("ag_queue_create", q);
  *q = NULL;
  AG__CHECK_NOT_NULL("ag_queue_create", dev);
  return ag__prefix(queue_new(dev, false, q), "ag_queue_create");
}

ag_status ag_queue_default(ag_device *dev, ag_queue **q) {
  AG__CHECK_NOT_NULL("ag_queue_default", q);
  *q = NULL;
  AG__CHECK_NOT_NULL("ag_queue_default", dev);
  return ag__prefix(default_queue(dev, q), "ag_queue_default");
}

ag_status ag_queue_finish(ag_queue *q) {
  AG__CHECK_NOT_NULL("ag_queue_finish", q);
  return ag__prefix(q->dev->be->queue_finish(q->bq), "ag_queue_finish");
}

ag_status ag_device_finish(ag_device *dev) {
  AG__CHECK_NOT_NULL("ag_device_finish", dev);
  ag_queue *q = NULL;
  ag_status st = default_queue(dev, &q);
  if (st == AG_OK)
    st = dev->be->queue_finish(q->bq);
  return ag__prefix(st, "ag_device_finish");
}

void ag_queue_destroy(ag_queue *q) {
  if (q == NULL || q->is_default)
    return;
  queue_close(q);
}

ag_device *ag_queue_device(const ag_queue *q) { return q ? q->dev : NULL; }

ag_status ag_event_record(ag_queue *q, ag_event **ev) {
  static const char fn[] = "ag_event_record";
  AG__CHECK_NOT_NULL(fn, ev);
  *ev = NULL;
  AG__CHECK_NOT_NULL(fn, q);
  ag_event *e = calloc(1, sizeof *e);
  if (e == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ag_status st = q->dev->be->event_record(q->bq, &e->bev);
  if (st != AG_OK) {
    free(e);
    return ag__prefix(st, fn);
  }
  e->dev = q->dev;
  *ev = e;
  return AG_OK;
}

ag_status ag_event_wait(const ag_event *ev) {
  AG__CHECK_NOT_NULL("ag_event_wait", ev);
  return ag__prefix(ev->dev->be->event_wait(ev->bev), "ag_event_wait");
}

ag_status ag_queue_wait_event(ag_queue *q, const ag_event *ev) {
  static const char fn[] = "ag_queue_wait_event";
  AG__CHECK_NOT_NULL(fn, q);
  AG__CHECK_NOT_NULL(fn, ev);
  if (ev->dev != q->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: event is on %s but the queue is on %s", fn, ev->dev->info.spec,
                     q->dev->info.spec);
  return ag__prefix(q->dev->be->queue_wait_event(q->bq, ev->bev), fn);
}

ag_status ag_event_elapsed_ms(const ag_event *start, const ag_event *end, double *ms) {
  static const char fn[] = "ag_event_elapsed_ms";
  AG__CHECK_NOT_NULL(fn, ms);
  *ms = 0;
  AG__CHECK_NOT_NULL(fn, start);
  AG__CHECK_NOT_NULL(fn, end);
  if (start->dev != end->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: start is on %s but end is on %s", fn, start->dev->info.spec,
                     end->dev->info.spec);
  return ag__prefix(start->dev->be->event_elapsed_ms(start->bev, end->bev, ms), fn);
}

void ag_event_destroy(ag_event *ev) {
  if (ev == NULL)
    return;
  ev->dev->be->event_destroy(ev->bev);
  free(ev);
}
