/* tools/bench/child.c — what the measuring children share: the wall clock, the event timing of
   one call (with the host clock where the driver gives no timestamps), the failed call's line. */
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "bench.h"

double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Says on stderr that @p what (a step, in words: ag_last_error() names the function itself)
   failed, with the library's message; returns 1, the child's exit status. */
int fail(const char *what) {
  fprintf(stderr, "anygpu-bench: %s: %s\n", what, ag_last_error());
  return 1;
}

/* Set once the device's driver turns out to give no command timestamps (ag_event_elapsed_ms
   refuses: docs/portability.md, no-profiling). */
static bool host_clock;

/* Times call(ctx, which) between two events on @p q into @p ms: device time; the second event
   is waited for, so the queue is idle when the next call starts. Where the driver gives no
   timestamps, host time from an idle queue to the end of ag_queue_finish after the call,
   which also counts the launch and the wake-up. */
ag_status event_time(ag_queue *q, ag_status (*call)(void *, int), void *ctx, int which, double *ms) {
  if (host_clock) {
    ag_status st = ag_queue_finish(q);
    double t0 = now_ms();
    if (st == AG_OK)
      st = call(ctx, which);
    if (st == AG_OK)
      st = ag_queue_finish(q);
    *ms = now_ms() - t0;
    return st;
  }
  ag_event *e0 = NULL, *e1 = NULL;
  ag_status st = ag_event_record(q, &e0);
  if (st == AG_OK)
    st = call(ctx, which);
  if (st == AG_OK)
    st = ag_event_record(q, &e1);
  if (st == AG_OK)
    st = ag_event_elapsed_ms(e0, e1, ms);
  ag_event_destroy(e0);
  ag_event_destroy(e1);
  if (st == AG_ERR_UNSUPPORTED) {
    fprintf(stderr, "anygpu-bench: %s\nanygpu-bench: so this device is timed with the host clock\n", ag_last_error());
    host_clock = true;
    return event_time(q, call, ctx, which, ms);
  }
  return st;
}
