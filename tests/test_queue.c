/* tests/test_queue.c — queues, each thread's default queues, and events. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "runner.h"

enum { MIB = 1 << 20 };

static ag_buffer *new_buffer(ag_device *dev, size_t bytes) {
  ag_buffer *b = NULL;
  CHECK_OK(ag_buffer_alloc(dev, bytes, &b));
  return b;
}

/* Writes @p bytes of seeded data through @p q and reads them back through @p q. */
static void round_trip(ag_device *dev, ag_queue *q, size_t bytes, unsigned seed) {
  unsigned char *src = malloc(bytes), *dst = malloc(bytes);
  ck_assert(src != NULL && dst != NULL);
  test_fill_bytes(src, bytes, seed);
  memset(dst, 0, bytes);
  ag_buffer *b = new_buffer(dev, bytes);
  CHECK_OK(ag_buffer_write(q, b, 0, src, bytes));
  CHECK_OK(ag_buffer_read(q, b, 0, dst, bytes));
  CHECK_BYTES(dst, src, bytes, q ? "round trip through a queue" : "round trip through the default queue");
  ag_buffer_free(b);
  free(src);
  free(dst);
}

START_TEST(queues_are_created_finished_and_destroyed) {
  ag_device *dev = test_device(_i);
  ag_queue *q[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++) {
    CHECK_OK(ag_queue_create(dev, &q[k]));
    ck_assert_ptr_nonnull(q[k]);
    ck_assert_ptr_eq(ag_queue_device(q[k]), dev);
    for (int j = 0; j < k; j++)
      ck_assert_ptr_ne(q[k], q[j]);
  }
  for (int k = 0; k < 3; k++) {
    round_trip(dev, q[k], 4096 + (size_t)k, (unsigned)k);
    CHECK_OK(ag_queue_finish(q[k]));
  }
  /* An idle queue finishes at once, as often as asked. */
  CHECK_OK(ag_queue_finish(q[0]));
  CHECK_OK(ag_queue_finish(q[0]));
  for (int k = 0; k < 3; k++)
    ag_queue_destroy(q[k]);
}
END_TEST

typedef struct other_thread {
  ag_device *dev;
  ag_queue *first, *second;
  ag_status st;
  char error[512];
} other_thread;

static void *default_queue_thread(void *arg) {
  other_thread *t = arg;
  t->st = ag_queue_default(t->dev, &t->first);
  if (t->st == AG_OK)
    t->st = ag_queue_default(t->dev, &t->second);
  if (t->st == AG_OK) {
    /* The thread's default queue does work. */
    uint32_t in[64], out[64];
    for (int i = 0; i < 64; i++)
      in[i] = (uint32_t)i * 7919u;
    ag_buffer *b = NULL;
    t->st = ag_buffer_alloc(t->dev, sizeof in, &b);
    if (t->st == AG_OK)
      t->st = ag_buffer_write(NULL, b, 0, in, sizeof in);
    if (t->st == AG_OK)
      t->st = ag_buffer_read(t->first, b, 0, out, sizeof out);
    if (t->st == AG_OK && memcmp(in, out, sizeof in) != 0) {
      t->st = AG_ERR_DEVICE;
      snprintf(t->error, sizeof t->error, "data read back differs");
      ag_buffer_free(b);
      return NULL;
    }
    ag_buffer_free(b);
  }
  snprintf(t->error, sizeof t->error, "%s", ag_last_error());
  return NULL;
}

START_TEST(the_default_queue_is_per_thread) {
  ag_device *dev = test_device(_i);
  ag_queue *a = NULL, *b = NULL;
  CHECK_OK(ag_queue_default(dev, &a));
  CHECK_OK(ag_queue_default(dev, &b));
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_eq(a, b);
  ck_assert_ptr_eq(ag_queue_device(a), dev);

  other_thread t = {.dev = dev};
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, default_queue_thread, &t), 0);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_msg(t.st == AG_OK, "%s: in another thread: %s: %s", test_label(), ag_status_name(t.st), t.error);
  ck_assert_ptr_eq(t.first, t.second);
  ck_assert_ptr_ne(t.first, a);

  /* Destroying a default queue does nothing: it still works and is still the default. */
  ag_queue_destroy(a);
  round_trip(dev, a, 1000, 1);
  round_trip(dev, NULL, 1000, 2);
  CHECK_OK(ag_queue_finish(a));
  CHECK_OK(ag_device_finish(dev));
  CHECK_OK(ag_queue_default(dev, &b));
  ck_assert_ptr_eq(a, b);
}
END_TEST

/* Whether the device's driver gives no command timestamps (docs/portability.md). */
static bool no_timestamps(ag_device *dev) {
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  return strstr(info.quirks, "no-profiling") != NULL;
}

START_TEST(events_mark_points_in_a_queue) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL, *other = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  CHECK_OK(ag_queue_create(dev, &other));
  const size_t bytes = 16 * MIB;
  ag_buffer *b = new_buffer(dev, bytes);
  const uint32_t pattern = 0x01020304u;

  ag_event *start = NULL, *end = NULL;
  CHECK_OK(ag_event_record(q, &start));
  ck_assert_ptr_nonnull(start);
  CHECK_OK(ag_buffer_fill(q, b, 0, &pattern, sizeof pattern, bytes));
  CHECK_OK(ag_event_record(q, &end));
  ck_assert_ptr_nonnull(end);

  /* Once the event completes, the fill before it is visible to another queue. */
  CHECK_OK(ag_event_wait(end));
  CHECK_OK(ag_event_wait(end));
  uint32_t *back = malloc(bytes);
  ck_assert_ptr_nonnull(back);
  CHECK_OK(ag_buffer_read(other, b, 0, back, bytes));
  /* One assertion for the whole buffer: Check records every assertion it passes. */
  size_t bad = 0;
  while (bad < bytes / 4 && back[bad] == pattern)
    bad++;
  ck_assert_msg(bad == bytes / 4, "%s: word %zu is 0x%08x after the event", test_label(), bad, back[bad]);

  /* A driver that gives no command timestamps refuses, naming itself (docs/portability.md,
     no-profiling); otherwise the times are checked. */
  if (no_timestamps(dev)) {
    double ms = -1;
    CHECK_FAILS(ag_event_elapsed_ms(start, end, &ms), AG_ERR_UNSUPPORTED, "ag_event_elapsed_ms", "no-profiling");
    ag_device_info info;
    CHECK_OK(ag_device_get_info(dev, &info));
    CHECK_MESSAGE_HAS(info.driver_version);
    ck_assert_msg(ms == 0, "%s: a refused ag_event_elapsed_ms left %g in *ms", test_label(), ms);
  } else {
    /* end was recorded after start, with a 16 MiB fill between: the time between them is
       positive, and the other way round negative. */
    double forward = -1, backward = 1;
    CHECK_OK(ag_event_elapsed_ms(start, end, &forward));
    CHECK_OK(ag_event_elapsed_ms(end, start, &backward));
    ck_assert_msg(forward > 0 && isfinite(forward), "%s: elapsed(start, end) = %g ms", test_label(), forward);
    ck_assert_msg(backward < 0 && isfinite(backward), "%s: elapsed(end, start) = %g ms", test_label(), backward);
    ck_assert_msg(fabs(forward + backward) <= 1e-3, "%s: elapsed %g ms one way, %g ms the other", test_label(),
                  forward, backward);
    double zero = -1;
    CHECK_OK(ag_event_elapsed_ms(end, end, &zero));
    ck_assert_msg(zero == 0, "%s: elapsed(end, end) = %g ms", test_label(), zero);

    /* Events of the default queue, and between queues of one device. */
    ag_queue *dq = NULL;
    ag_event *d1 = NULL, *o1 = NULL;
    CHECK_OK(ag_queue_default(dev, &dq));
    CHECK_OK(ag_event_record(dq, &d1));
    CHECK_OK(ag_event_record(other, &o1));
    CHECK_OK(ag_event_wait(d1));
    double ms = NAN;
    CHECK_OK(ag_event_elapsed_ms(d1, o1, &ms));
    ck_assert_msg(isfinite(ms), "%s: elapsed between two queues is %g", test_label(), ms);
    ag_event_destroy(d1);
    ag_event_destroy(o1);
  }

  ag_event_destroy(start);
  ag_event_destroy(end);
  ag_buffer_free(b);
  free(back);
  ag_queue_destroy(q);
  ag_queue_destroy(other);
}
END_TEST

START_TEST(an_event_orders_work_between_queues) {
  ag_device *dev = test_device(_i);
  ag_queue *q1 = NULL, *q2 = NULL;
  CHECK_OK(ag_queue_create(dev, &q1));
  CHECK_OK(ag_queue_create(dev, &q2));
  const size_t bytes = 16 * MIB + 12;
  unsigned char *pinned = NULL;
  CHECK_OK(ag_host_alloc(dev, bytes, (void **)&pinned));
  test_fill_bytes(pinned, bytes, 42);
  unsigned char *want = malloc(bytes), *back = malloc(bytes);
  ck_assert(want != NULL && back != NULL);
  memcpy(want, pinned, bytes);
  const uint32_t pattern = 0xa1b2c3d4u;
  for (size_t i = 0; i < MIB; i += 4)
    memcpy(want + i, &pattern, 4);

  ag_buffer *a = new_buffer(dev, bytes), *b = new_buffer(dev, bytes);
  /* q1: an asynchronous write, then a fill over its first MiB, then the event. */
  CHECK_OK(ag_buffer_write_async(q1, a, 0, pinned, bytes));
  CHECK_OK(ag_buffer_fill(q1, a, 0, &pattern, 4, MIB));
  ag_event *ev = NULL;
  CHECK_OK(ag_event_record(q1, &ev));
  /* q2: waits for the event, then copies and reads. */
  CHECK_OK(ag_queue_wait_event(q2, ev));
  CHECK_OK(ag_buffer_copy(q2, b, 0, a, 0, bytes));
  CHECK_OK(ag_buffer_read(q2, b, 0, back, bytes));
  CHECK_BYTES(back, want, bytes, "data copied on q2 after waiting for q1's event");

  CHECK_OK(ag_queue_finish(q1));
  CHECK_OK(ag_queue_finish(q2));
  ag_event_destroy(ev);
  ag_buffer_free(a);
  ag_buffer_free(b);
  ag_host_free(pinned);
  free(want);
  free(back);
  ag_queue_destroy(q1);
  ag_queue_destroy(q2);
}
END_TEST

START_TEST(an_event_outlives_its_queue) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL, *other = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  CHECK_OK(ag_queue_create(dev, &other));
  const size_t bytes = 4 * MIB;
  ag_buffer *b = new_buffer(dev, bytes);
  const uint16_t pattern = 0x1234;
  ag_event *start = NULL, *end = NULL;
  CHECK_OK(ag_event_record(q, &start));
  CHECK_OK(ag_buffer_fill(q, b, 0, &pattern, 2, bytes));
  CHECK_OK(ag_event_record(q, &end));
  /* The queue goes (after its work); its events stay usable. */
  ag_queue_destroy(q);
  CHECK_OK(ag_event_wait(end));
  double ms = -1;
  if (no_timestamps(dev))
    CHECK_FAILS(ag_event_elapsed_ms(start, end, &ms), AG_ERR_UNSUPPORTED, "ag_event_elapsed_ms", "no-profiling");
  else
    CHECK_OK(ag_event_elapsed_ms(start, end, &ms));
  ck_assert_msg(no_timestamps(dev) ? ms == 0 : ms > 0, "%s: elapsed %g ms", test_label(), ms);
  CHECK_OK(ag_queue_wait_event(other, end));
  uint16_t *back = malloc(bytes);
  ck_assert_ptr_nonnull(back);
  CHECK_OK(ag_buffer_read(other, b, 0, back, bytes));
  size_t bad = 0;
  while (bad < bytes / 2 && back[bad] == pattern)
    bad++;
  ck_assert_msg(bad == bytes / 2, "%s: element %zu is 0x%04x", test_label(), bad, back[bad]);
  free(back);
  ag_event_destroy(start);
  ag_event_destroy(end);
  ag_buffer_free(b);
  ag_queue_destroy(other);
}
END_TEST

START_TEST(events_of_another_device_are_refused) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  ag_event *mine = NULL, *mine2 = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  CHECK_OK(ag_event_record(q, &mine));
  CHECK_OK(ag_event_record(q, &mine2));
  /* The same calls with events of this device work. */
  CHECK_OK(ag_queue_wait_event(q, mine));
  double ms = NAN;
  if (no_timestamps(dev))
    CHECK_FAILS(ag_event_elapsed_ms(mine, mine2, &ms), AG_ERR_UNSUPPORTED, "ag_event_elapsed_ms", "no-profiling");
  else
    CHECK_OK(ag_event_elapsed_ms(mine, mine2, &ms));

  ag_device *other = test_other_device(dev, "mixing events of two devices");
  if (other != NULL) {
    ag_queue *oq = NULL;
    ag_event *theirs = NULL;
    CHECK_OK(ag_queue_default(other, &oq));
    CHECK_OK(ag_event_record(oq, &theirs));
    CHECK_FAILS(ag_queue_wait_event(q, theirs), AG_ERR_MISMATCH, "ag_queue_wait_event", "event");
    CHECK_FAILS(ag_queue_wait_event(oq, mine), AG_ERR_MISMATCH, "ag_queue_wait_event", "queue");
    /* A failed call leaves no stale output behind. */
    ms = 12345;
    CHECK_FAILS(ag_event_elapsed_ms(mine, theirs, &ms), AG_ERR_MISMATCH, "ag_event_elapsed_ms", "start");
    ck_assert_msg(ms == 0, "%s: a refused ag_event_elapsed_ms left %g in *ms", test_label(), ms);
    ms = 12345;
    CHECK_FAILS(ag_event_elapsed_ms(theirs, mine, &ms), AG_ERR_MISMATCH, "ag_event_elapsed_ms", "end");
    ck_assert_msg(ms == 0, "%s: a refused ag_event_elapsed_ms left %g in *ms", test_label(), ms);
    ag_event_destroy(theirs);
  }
  /* The queue still works after the refusals. */
  round_trip(dev, q, 333, 3);
  ag_event_destroy(mine);
  ag_event_destroy(mine2);
  ag_queue_destroy(q);
}
END_TEST

START_TEST(device_finish_waits_for_the_default_queue) {
  ag_device *dev = test_device(_i);
  const size_t bytes = 4 * MIB + 3;
  unsigned char *src = NULL, *dst = NULL;
  CHECK_OK(ag_host_alloc(dev, bytes, (void **)&src));
  CHECK_OK(ag_host_alloc(dev, bytes, (void **)&dst));
  test_fill_bytes(src, bytes, 9);
  memset(dst, 0, bytes);
  ag_buffer *b = new_buffer(dev, bytes);
  CHECK_OK(ag_buffer_write_async(NULL, b, 0, src, bytes));
  CHECK_OK(ag_buffer_read_async(NULL, b, 0, dst, bytes));
  CHECK_OK(ag_device_finish(dev));
  CHECK_BYTES(dst, src, bytes, "asynchronous round trip on the default queue");
  ag_buffer_free(b);
  ag_host_free(src);
  ag_host_free(dst);
}
END_TEST

/* A finish waits for all the work before it, also when the last thing on the queue is an
   event's marker (rusticl's clFinish did not: docs/portability.md, finish-marker). */
START_TEST(finish_waits_for_the_work_before_an_event) {
  ag_device *dev = test_device(_i);
  const size_t bytes = 16 * MIB + 5;
  unsigned char *src = NULL, *dst = NULL;
  CHECK_OK(ag_host_alloc(dev, bytes, (void **)&src));
  CHECK_OK(ag_host_alloc(dev, bytes, (void **)&dst));
  ag_buffer *b = new_buffer(dev, bytes);
  ag_queue *own = NULL, *dq = NULL;
  CHECK_OK(ag_queue_create(dev, &own));
  CHECK_OK(ag_queue_default(dev, &dq));
  for (int round = 0; round < 2; round++) {
    ag_queue *q = round == 0 ? own : dq;
    test_fill_bytes(src, bytes, 20u + (unsigned)round);
    memset(dst, 0, bytes);
    /* A write, a fill by a kernel (8-byte pattern) over the middle, a read into pinned host
       memory, then the event's marker. */
    const uint64_t pattern = 0x0123456789abcdefull + (uint64_t)round;
    for (size_t i = MIB; i < 9 * MIB; i += 8)
      memcpy(src + i, &pattern, 8);
    ag_event *ev = NULL;
    CHECK_OK(ag_buffer_write_async(q, b, 0, src, bytes));
    CHECK_OK(ag_buffer_fill(q, b, MIB, &pattern, 8, 8 * MIB));
    CHECK_OK(ag_buffer_read_async(q, b, 0, dst, bytes));
    CHECK_OK(ag_event_record(q, &ev));
    if (round == 0)
      CHECK_OK(ag_queue_finish(q));
    else
      CHECK_OK(ag_device_finish(dev));
    CHECK_BYTES(dst, src, bytes, round == 0 ? "after ag_queue_finish" : "after ag_device_finish");
    ag_event_destroy(ev);
  }
  ag_queue_destroy(own);
  ag_buffer_free(b);
  ag_host_free(src);
  ag_host_free(dst);
}
END_TEST

START_TEST(null_handles_are_refused) {
  ag_device *dev = NULL;
  CHECK_OK(ag_device_get(0, &dev));
  ag_queue *q = (ag_queue *)1;
  CHECK_FAILS(ag_queue_create(NULL, &q), AG_ERR_INVALID_ARGUMENT, "ag_queue_create", "dev");
  ck_assert_ptr_null(q);
  CHECK_FAILS(ag_queue_create(dev, NULL), AG_ERR_INVALID_ARGUMENT, "ag_queue_create", "q");
  q = (ag_queue *)1;
  CHECK_FAILS(ag_queue_default(NULL, &q), AG_ERR_INVALID_ARGUMENT, "ag_queue_default", "dev");
  ck_assert_ptr_null(q);
  CHECK_FAILS(ag_queue_default(dev, NULL), AG_ERR_INVALID_ARGUMENT, "ag_queue_default", "q");
  CHECK_FAILS(ag_queue_finish(NULL), AG_ERR_INVALID_ARGUMENT, "ag_queue_finish", "q");
  CHECK_FAILS(ag_device_finish(NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_finish", "dev");
  ck_assert_ptr_null(ag_queue_device(NULL));

  CHECK_OK(ag_queue_create(dev, &q));
  ag_event *ev = (ag_event *)1;
  CHECK_FAILS(ag_event_record(NULL, &ev), AG_ERR_INVALID_ARGUMENT, "ag_event_record", "q");
  ck_assert_ptr_null(ev);
  CHECK_FAILS(ag_event_record(q, NULL), AG_ERR_INVALID_ARGUMENT, "ag_event_record", "ev");
  CHECK_OK(ag_event_record(q, &ev));
  CHECK_FAILS(ag_event_wait(NULL), AG_ERR_INVALID_ARGUMENT, "ag_event_wait", "ev");
  CHECK_FAILS(ag_queue_wait_event(NULL, ev), AG_ERR_INVALID_ARGUMENT, "ag_queue_wait_event", "q");
  CHECK_FAILS(ag_queue_wait_event(q, NULL), AG_ERR_INVALID_ARGUMENT, "ag_queue_wait_event", "ev");
  double ms = 5;
  CHECK_FAILS(ag_event_elapsed_ms(NULL, ev, &ms), AG_ERR_INVALID_ARGUMENT, "ag_event_elapsed_ms", "start");
  CHECK_FAILS(ag_event_elapsed_ms(ev, NULL, &ms), AG_ERR_INVALID_ARGUMENT, "ag_event_elapsed_ms", "end");
  CHECK_FAILS(ag_event_elapsed_ms(ev, ev, NULL), AG_ERR_INVALID_ARGUMENT, "ag_event_elapsed_ms", "ms");

  /* Destroy functions accept NULL. */
  ag_queue_destroy(NULL);
  ag_event_destroy(NULL);
  ag_event_destroy(ev);
  ag_queue_destroy(q);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "NULL handles are refused", null_handles_are_refused);
    return;
  }
  add_device_test(s, "queues are created, finished and destroyed", queues_are_created_finished_and_destroyed);
  add_device_test(s, "the default queue is per thread", the_default_queue_is_per_thread);
  add_device_test(s, "events mark points in a queue", events_mark_points_in_a_queue);
  add_device_test(s, "an event orders work between queues", an_event_orders_work_between_queues);
  add_device_test(s, "an event outlives its queue", an_event_outlives_its_queue);
  add_device_test(s, "events of another device are refused", events_of_another_device_are_refused);
  add_device_test(s, "ag_device_finish waits for the default queue", device_finish_waits_for_the_default_queue);
  add_device_test(s, "finish waits for the work before an event", finish_waits_for_the_work_before_an_event);
}
