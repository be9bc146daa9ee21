/* tests/test_threads.c — several threads on one device at once: buffers through default and
   own queues, one kernel launched from many threads, programs built and freed concurrently.
   Each thread checks its own results and reports the first wrong one; the test fails on any. */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "programs.h"
#include "runner.h"

typedef struct worker {
  ag_device *dev;
  int id;
  ag_kernel *kernel; /* shared by every worker of a test */
  pthread_barrier_t *start;
  char error[512]; /* empty while all is well */
} worker;

static void *report(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *report(worker *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = snprintf(w->error, sizeof w->error, "thread %d: ", w->id);
  vsnprintf(w->error + n, sizeof w->error - (size_t)n, fmt, ap);
  va_end(ap);
  return NULL;
}

/* Starts @p n workers running @p fn, all released at once, joins them and fails the test with
   the first report. */
static void run_workers(ag_device *dev, ag_kernel *k, int n, void *(*fn)(void *)) {
  worker w[16];
  pthread_t t[16];
  pthread_barrier_t start;
  ck_assert_int_le(n, 16);
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, (unsigned)n), 0);
  for (int i = 0; i < n; i++) {
    w[i] = (worker){.dev = dev, .id = i, .kernel = k, .start = &start};
    ck_assert_int_eq(pthread_create(&t[i], NULL, fn, &w[i]), 0);
  }
  for (int i = 0; i < n; i++)
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < n; i++)
    ck_assert_msg(w[i].error[0] == '\0', "%s: %s", test_label(), w[i].error);
}

/* ---- buffers --------------------------------------------------------------------------------- */

enum { BUFFER_THREADS = 8, BUFFER_ROUNDS = 50 };

static void *buffer_worker(void *arg) {
  worker *w = arg;
  ag_queue *own = NULL;
  ag_status st = ag_queue_create(w->dev, &own);
  pthread_barrier_wait(w->start);
  if (st != AG_OK)
    return report(w, "ag_queue_create: %s", ag_last_error());
  for (int round = 0; round < BUFFER_ROUNDS && w->error[0] == '\0'; round++) {
    /* Odd sizes, different in every thread and round; patterns distinct per thread. */
    size_t n = 1000 + (size_t)w->id * 37 + (size_t)round * 13;
    unsigned char *src = malloc(n), *want = malloc(n), *back = malloc(n);
    ag_buffer *a = NULL, *b = NULL;
    ag_queue *q = round % 2 ? own : NULL;
    const uint64_t pattern = 0x0101010101010101ull * (uint64_t)(w->id + 1) + (uint64_t)round;
    if (src == NULL || want == NULL || back == NULL) {
      report(w, "out of host memory");
      goto next;
    }
    test_fill_bytes(src, n, (unsigned)(w->id * 1000 + round));
    /* b: the copy of a, then an 8-byte-pattern fill over its first 64 bytes (built-in kernels,
       built on first use while other threads use them). */
    memcpy(want, src, n);
    for (size_t i = 0; i < 64; i += 8)
      memcpy(want + i, &pattern, 8);
    if ((st = ag_buffer_alloc(w->dev, n, &a)) != AG_OK || (st = ag_buffer_alloc(w->dev, n, &b)) != AG_OK ||
        (st = ag_buffer_write(q, a, 0, src, n)) != AG_OK || (st = ag_buffer_copy(q, b, 0, a, 0, n)) != AG_OK ||
        (st = ag_buffer_fill(q, b, 0, &pattern, 8, 64)) != AG_OK ||
        (st = ag_buffer_read(q, b, 0, back, n)) != AG_OK) {
      report(w, "round %d: %s: %s", round, ag_status_name(st), ag_last_error());
      goto next;
    }
    size_t at = test_first_difference(back, want, n);
    if (at != n)
      report(w, "round %d (%s queue): byte %zu of %zu is 0x%02x, expected 0x%02x", round, q ? "own" : "default", at,
             n, back[at], want[at]);
  next:
    ag_buffer_free(a);
    ag_buffer_free(b);
    free(src);
    free(want);
    free(back);
  }
  ag_queue_destroy(own);
  return NULL;
}

START_TEST(threads_share_a_device_for_buffers) {
  ag_device *dev = test_device(_i);
  run_workers(dev, NULL, BUFFER_THREADS, buffer_worker);
}
END_TEST

/* ---- one kernel, many threads ---------------------------------------------------------------- */

enum { KERNEL_THREADS = 6, KERNEL_ROUNDS = 20 };

/* Each launch has its own buffers and its own scalar: arguments crossing between threads show
   as wrong sums. */
static void *kernel_worker(void *arg) {
  worker *w = arg;
  uint32_t n = 2048 + (uint32_t)w->id * 3;
  uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
  ag_buffer *din = NULL, *dout = NULL;
  ag_status st = AG_OK;
  if (in == NULL || out == NULL) {
    pthread_barrier_wait(w->start);
    report(w, "out of host memory");
    goto done;
  }
  for (uint32_t i = 0; i < n; i++)
    in[i] = i * 7u + (uint32_t)w->id * 100000u;
  if ((st = ag_buffer_alloc(w->dev, n * 4, &din)) != AG_OK ||
      (st = ag_buffer_alloc(w->dev, n * 4, &dout)) != AG_OK ||
      (st = ag_buffer_write(NULL, din, 0, in, n * 4)) != AG_OK) {
    pthread_barrier_wait(w->start);
    report(w, "setting up: %s", ag_last_error());
    goto done;
  }
  pthread_barrier_wait(w->start);
  for (int round = 0; round < KERNEL_ROUNDS; round++) {
    uint32_t k = (uint32_t)w->id * 1000u + (uint32_t)round;
    ag_arg args[] = {AG_ARG_BUF(din), AG_ARG_BUF(dout), AG_ARG_VAL(k), AG_ARG_VAL(n)};
    ag_range r = {.dims = 1, .global = {n}, .local = {round % 2 ? 64u : 0u}};
    test_fit_local(w->kernel, &r);
    if ((st = ag_kernel_launch(NULL, w->kernel, &r, 4, args)) != AG_OK ||
        (st = ag_buffer_read(NULL, dout, 0, out, n * 4)) != AG_OK) {
      report(w, "round %d: %s: %s", round, ag_status_name(st), ag_last_error());
      goto done;
    }
    for (uint32_t i = 0; i < n; i++)
      if (out[i] != in[i] + k) {
        report(w, "round %d: out[%u] is %u, expected %u (in %u + k %u)", round, i, out[i], in[i] + k, in[i], k);
        goto done;
      }
  }
done:
  ag_buffer_free(din);
  ag_buffer_free(dout);
  free(in);
  free(out);
  return NULL;
}

START_TEST(threads_launch_one_kernel_at_once) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = NULL;
  ag_kernel *k = NULL;
  CHECK_OK(ag_program_create(dev, &desc, &p));
  CHECK_OK(ag_kernel_get(p, "add_scalar", &k));
  run_workers(dev, k, KERNEL_THREADS, kernel_worker);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

/* ---- programs -------------------------------------------------------------------------------- */

enum { PROGRAM_THREADS = 4, PROGRAM_ROUNDS = 3 };

static void *program_worker(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(w->start);
  for (int round = 0; round < PROGRAM_ROUNDS; round++) {
    char why[400];
    /* Half the threads build with options of their own, so several programs are built at
       once, not only loaded. */
    char options[64] = "";
    if (w->id % 2)
      snprintf(options, sizeof options, "-DAG_TEST_VARIANT=%d", w->id * 10 + round);
    if (programs_build_and_run(w->dev, options, 3000 + (size_t)w->id, why, sizeof why) != 0)
      return report(w, "round %d: %s", round, why);
  }
  return NULL;
}

START_TEST(threads_create_and_destroy_programs_at_once) {
  ag_device *dev = test_device(_i);
  run_workers(dev, NULL, PROGRAM_THREADS, program_worker);
}
END_TEST

/* ---- launches while a family builds ----------------------------------------------------- */

/* Eight threads add two one-element arrays over and over, timing each launch, while another
   thread makes the device build a family no one has used yet (prox, through ag_grad). Each
   build is made slow (ANYGPU_TEST_BUILD_DELAY_MS, on top of the compiler's own time), and the
   disk cache is empty, so the build takes seconds; a launch of the add, whose family is built,
   must not wait for it. What would show a wait is a stretch of the build in which no thread's
   launch ends (every launch held up); one launch made long by the scheduler (nine busy threads
   on a machine of two cores) shows none. */
enum { ADD_THREADS = 8, BUILD_DELAY_MS = 3000 };

static atomic_bool build_started, build_done;
static _Atomic double last_end_ms; /* when the latest launch ended, any thread's */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef struct adder {
  worker w;
  double worst_ms;      /* the longest launch that started while the build ran */
  double gap_ms;        /* the longest stretch of the build that ended with this thread's launch */
  long during;          /* launches that started after the build began and ended before it did */
} adder;

static void *add_worker(void *arg) {
  adder *a = arg;
  worker *w = &a->w;
  const size_t one = 1;
  float x = (float)w->id, y = 0.5f, sum = -1;
  ag_array *xa = NULL, *ya = NULL, *out = NULL;
  ag_status st = ag_array_from_host(w->dev, AG_F32, 1, &one, &x, &xa);
  if (st == AG_OK)
    st = ag_array_from_host(w->dev, AG_F32, 1, &one, &y, &ya);
  if (st == AG_OK)
    st = ag_array_create(w->dev, AG_F32, 1, &one, &out);
  pthread_barrier_wait(w->start);
  while (st == AG_OK && !atomic_load(&build_started))
    ;
  /* Launches until the build has ended, and at least 20. */
  for (long i = 0; st == AG_OK && (i < 20 || !atomic_load(&build_done)); i++) {
    double t0 = now_ms();
    st = ag_add(NULL, xa, ya, out);
    double t1 = now_ms();
    if (!atomic_load(&build_done)) {
      a->during++;
      if (t1 - t0 > a->worst_ms)
        a->worst_ms = t1 - t0;
      double gap = t1 - atomic_exchange(&last_end_ms, t1);
      if (gap > a->gap_ms)
        a->gap_ms = gap;
    }
  }
  if (st == AG_OK)
    st = ag_array_to_host(out, &sum, sizeof sum);
  ag_array_free(xa), ag_array_free(ya), ag_array_free(out);
  if (st != AG_OK)
    return report(w, "ag_add: %s", ag_last_error());
  if (sum != (float)w->id + 0.5f)
    return report(w, "ag_add gave %g, not %g", (double)sum, (double)w->id + 0.5);
  return NULL;
}

START_TEST(threads_launch_while_a_family_builds) {
  ag_device *dev = test_device(_i);
  /* The add's family built, and its kernel made, before the clock starts. */
  const size_t one = 1, four = 4;
  float v = 1, g[4] = {1, 2, 4, 8}, d[4] = {-1, -1, -1, -1};
  ag_array *a = NULL, *x = NULL, *dx = NULL;
  CHECK_OK(ag_array_from_host(dev, AG_F32, 1, &one, &v, &a));
  CHECK_OK(ag_add(NULL, a, a, a));
  CHECK_OK(ag_array_to_host(a, &v, sizeof v));
  ck_assert_float_eq(v, 2.0f);
  CHECK_OK(ag_array_from_host(dev, AG_F32, 1, &four, g, &x));
  CHECK_OK(ag_array_create(dev, AG_F32, 1, &four, &dx));
  char cache[] = "/tmp/anygpu-test-build-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(cache));
  setenv("ANYGPU_CACHE_DIR", cache, 1);
  char delay[16];
  snprintf(delay, sizeof delay, "%d", (int)BUILD_DELAY_MS);
  setenv("ANYGPU_TEST_BUILD_DELAY_MS", delay, 1);

  adder ad[ADD_THREADS];
  pthread_t t[ADD_THREADS];
  pthread_barrier_t start;
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, ADD_THREADS + 1), 0);
  for (int i = 0; i < ADD_THREADS; i++) {
    ad[i] = (adder){.w = {.dev = dev, .id = i, .start = &start}};
    ck_assert_int_eq(pthread_create(&t[i], NULL, add_worker, &ad[i]), 0);
  }
  pthread_barrier_wait(&start);
  double t0 = now_ms();
  atomic_store(&last_end_ms, t0);
  atomic_store(&build_started, true);
  ag_status st = ag_grad(NULL, x, 0, dx); /* the prox family's first use: its build */
  double t1 = now_ms(), build_ms = t1 - t0;
  atomic_store(&build_done, true);
  double gap = t1 - atomic_load(&last_end_ms); /* from the last launch to the build's end */
  for (int i = 0; i < ADD_THREADS; i++)
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  pthread_barrier_destroy(&start);
  ck_assert_msg(st == AG_OK, "%s: ag_grad: %s", test_label(), ag_last_error());
  CHECK_OK(ag_array_to_host(dx, d, sizeof d));
  ck_assert_float_eq(d[0], 1.0f); /* forward differences, 0 at the end (sporco's grad) */
  ck_assert_float_eq(d[1], 2.0f);
  ck_assert_float_eq(d[2], 4.0f);
  ck_assert_float_eq(d[3], 0.0f);
  ag_array_free(a), ag_array_free(x), ag_array_free(dx);

  double worst = 0;
  long during = 0;
  for (int i = 0; i < ADD_THREADS; i++) {
    ck_assert_msg(ad[i].w.error[0] == '\0', "%s: %s", test_label(), ad[i].w.error);
    if (ad[i].worst_ms > worst)
      worst = ad[i].worst_ms;
    if (ad[i].gap_ms > gap)
      gap = ad[i].gap_ms;
    during += ad[i].during;
  }
  fprintf(stderr,
          "%s: the prox family built in %.0f ms; meanwhile %ld launches of ag_add, the longest %.2f ms, the longest "
          "stretch without a launch ending %.2f ms\n",
          test_label(), build_ms, during, worst, gap);
  ck_assert_msg(build_ms >= BUILD_DELAY_MS, "%s: the build took %.0f ms, less than the %d ms it was made to take",
                test_label(), build_ms, (int)BUILD_DELAY_MS);
  ck_assert_msg(during >= ADD_THREADS, "%s: %ld launches while the family built, fewer than one a thread",
                test_label(), during);
  ck_assert_msg(gap < build_ms / 10, "%s: no launch ended for %.1f ms while the family built in %.0f ms: they waited",
                test_label(), gap, build_ms);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "threads share a device for buffers", threads_share_a_device_for_buffers);
  add_device_test(s, "threads launch one kernel at once", threads_launch_one_kernel_at_once);
  add_device_test(s, "threads create and destroy programs at once", threads_create_and_destroy_programs_at_once);
  add_device_test(s, "threads launch while a family builds", threads_launch_while_a_family_builds);
}
