/* tests/test_pool.c — the memory pool each device keeps (buffer.h): its counters, reuse of
   freed blocks by size, trimming, the rule that a block with pending work is not handed out,
   ANYGPU_POOL=0, the trim-and-retry when an allocation fails, and many threads at once. The
   counters are compared as differences from a snapshot, since the library may hold buffers of
   its own. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "reference.h"

enum { KIB = 1 << 10, MIB = 1 << 20 };

static ag_pool_stats stats_of(ag_device *dev) {
  ag_pool_stats s;
  CHECK_OK(ag_device_pool_stats(dev, &s));
  ck_assert_msg(s.peak_bytes_in_use >= s.bytes_in_use, "%s: peak_bytes_in_use %zu is below bytes_in_use %zu",
                test_label(), s.peak_bytes_in_use, s.bytes_in_use);
  ck_assert_msg(s.reuses <= s.allocations, "%s: %llu reuses of %llu allocations", test_label(),
                (unsigned long long)s.reuses, (unsigned long long)s.allocations);
  return s;
}

/* The pool's rounded size of a request (buffer.h: 512-byte steps below 1 MiB, eighths of a power
   of two above), computed here independently. */
static size_t rounded(size_t bytes) {
  if (bytes < MIB)
    return (bytes + 511) / 512 * 512;
  size_t top = 1;
  while (top <= bytes / 2)
    top *= 2;
  size_t step = top / 8;
  return (bytes + step - 1) / step * step;
}

static ag_buffer *new_buffer(ag_device *dev, size_t bytes) {
  ag_buffer *b = NULL;
  CHECK_OK(ag_buffer_alloc(dev, bytes, &b));
  ck_assert_ptr_nonnull(b);
  return b;
}

/* ---- counters and reuse ---------------------------------------------------------------------- */

START_TEST(freeing_and_allocating_the_same_size_reuses_the_block) {
  ag_device *dev = test_device(_i);
  /* One size in each regime of the rounding, and a second request that rounds to the same bin. */
  const struct { size_t first, again; } sizes[] = {{100000, 99900}, {5 * MIB + 1, 5 * MIB + 256 * KIB}, {777, 1024}};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t bin = rounded(sizes[k].first);
    ck_assert_uint_eq(rounded(sizes[k].again), bin);
    ag_pool_stats s0 = stats_of(dev);
    ag_buffer *b = new_buffer(dev, sizes[k].first);
    ag_pool_stats s1 = stats_of(dev);
    ck_assert_uint_eq(s1.allocations, s0.allocations + 1);
    ck_assert_uint_eq(s1.bytes_in_use, s0.bytes_in_use + bin);
    ck_assert_uint_ge(s1.peak_bytes_in_use, s1.bytes_in_use);
    unsigned char *data = test_alloc(sizes[k].first > sizes[k].again ? sizes[k].first : sizes[k].again);
    test_fill_bytes(data, sizes[k].first, (unsigned)k);
    CHECK_OK(ag_buffer_write(NULL, b, 0, data, sizes[k].first));
    ag_buffer_free(b);
    CHECK_OK(ag_device_finish(dev)); /* the block's last work is done, so it may be reused */
    ag_pool_stats s2 = stats_of(dev);
    ck_assert_uint_eq(s2.bytes_in_use, s0.bytes_in_use);
    ck_assert_uint_eq(s2.bytes_cached, s0.bytes_cached + bin);
    ck_assert_uint_eq(s2.reuses, s0.reuses);

    b = new_buffer(dev, sizes[k].again);
    ag_pool_stats s3 = stats_of(dev);
    ck_assert_msg(s3.reuses == s0.reuses + 1,
                  "%s: allocating %zu bytes after freeing %zu (both rounded to %zu): %llu reuses, expected %llu",
                  test_label(), sizes[k].again, sizes[k].first, bin, (unsigned long long)s3.reuses,
                  (unsigned long long)s0.reuses + 1);
    ck_assert_uint_eq(s3.allocations, s0.allocations + 2);
    ck_assert_uint_eq(s3.bytes_cached, s0.bytes_cached);
    if (k == 0) /* a fresh process: nothing was cached before, so nothing is now */
      ck_assert_uint_eq(s3.bytes_cached, 0);
    ck_assert_uint_eq(s3.bytes_in_use, s0.bytes_in_use + bin);
    ck_assert_uint_eq(ag_buffer_size(b), sizes[k].again);
    /* The reused block is a working buffer of the new size. */
    unsigned char *back = test_alloc(sizes[k].again);
    test_fill_bytes(data, sizes[k].again, 100u + (unsigned)k);
    CHECK_OK(ag_buffer_write(NULL, b, 0, data, sizes[k].again));
    CHECK_OK(ag_buffer_read(NULL, b, 0, back, sizes[k].again));
    CHECK_BYTES(back, data, sizes[k].again, "a reused block");
    ag_buffer_free(b);
    free(back);
    free(data);
  }
  /* A request of another bin does not take a cached block. */
  ag_buffer *big = new_buffer(dev, 6 * MIB + 1);
  ag_buffer_free(big);
  CHECK_OK(ag_device_finish(dev));
  ag_pool_stats before = stats_of(dev);
  ag_buffer *other = new_buffer(dev, 3 * MIB);
  ck_assert_uint_eq(stats_of(dev).reuses, before.reuses);
  ag_buffer_free(other);
}
END_TEST

START_TEST(arrays_draw_their_memory_from_the_pool) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {300, 257}; /* 308400 bytes of f32 */
  size_t bin = rounded(shape[0] * shape[1] * 4);
  ag_pool_stats s0 = stats_of(dev);
  ag_array *a = test_array_new(dev, AG_F32, 2, shape);
  CHECK_OK(ag_fill(NULL, a, 1.5));
  ag_pool_stats s1 = stats_of(dev);
  ck_assert_uint_ge(s1.bytes_in_use, s0.bytes_in_use + bin);
  ag_array_free(a);
  CHECK_OK(ag_device_finish(dev));
  ag_pool_stats s2 = stats_of(dev);
  ck_assert_uint_ge(s2.bytes_cached, s0.bytes_cached + bin);
  a = test_array_new(dev, AG_U32, 2, shape); /* same bytes, another dtype */
  ag_pool_stats s3 = stats_of(dev);
  ck_assert_msg(s3.reuses > s2.reuses, "%s: an array of the same size as a freed one was not a reuse (%llu reuses)",
                test_label(), (unsigned long long)s3.reuses);
  CHECK_OK(ag_fill(NULL, a, 7));
  uint32_t *back = test_array_read(a);
  for (size_t i = 0; i < shape[0] * shape[1]; i++)
    ck_assert_uint_eq(back[i], 7);
  free(back);
  ag_array_free(a);
}
END_TEST

START_TEST(trim_gives_the_cached_memory_back) {
  ag_device *dev = test_device(_i);
  const size_t sizes[] = {1000, 200 * KIB, 3 * MIB, 17 * MIB + 5};
  enum { N = sizeof sizes / sizeof sizes[0] };
  ag_buffer *live = new_buffer(dev, 4096);
  unsigned char pattern[4096], back[4096];
  test_fill_bytes(pattern, sizeof pattern, 9);
  CHECK_OK(ag_buffer_write(NULL, live, 0, pattern, sizeof pattern));

  ag_pool_stats s0 = stats_of(dev);
  ag_buffer *b[N];
  size_t total = 0;
  for (int k = 0; k < N; k++) {
    b[k] = new_buffer(dev, sizes[k]);
    total += rounded(sizes[k]);
  }
  for (int k = 0; k < N; k++)
    ag_buffer_free(b[k]);
  ag_pool_stats s1 = stats_of(dev);
  ck_assert_uint_eq(s1.bytes_cached, s0.bytes_cached + total);
  ck_assert_uint_ge(s1.peak_bytes_in_use, s0.bytes_in_use + total);

  CHECK_OK(ag_device_trim(dev));
  ag_pool_stats s2 = stats_of(dev);
  ck_assert_uint_eq(s2.bytes_cached, 0);
  ck_assert_uint_eq(s2.trims, s1.trims + 1);
  ck_assert_uint_eq(s2.bytes_in_use, s1.bytes_in_use); /* live buffers are not touched */
  CHECK_OK(ag_buffer_read(NULL, live, 0, back, sizeof back));
  CHECK_BYTES(back, pattern, sizeof back, "a live buffer across a trim");

  /* Nothing is cached, so the next allocation is new; a second trim of an empty pool counts too. */
  ag_buffer *again = new_buffer(dev, sizes[2]);
  ag_pool_stats s3 = stats_of(dev);
  ck_assert_uint_eq(s3.reuses, s2.reuses);
  ck_assert_uint_eq(s3.allocations, s2.allocations + 1);
  ag_buffer_free(again);
  CHECK_OK(ag_device_trim(dev));
  CHECK_OK(ag_device_trim(dev));
  ag_pool_stats s4 = stats_of(dev);
  ck_assert_uint_eq(s4.trims, s2.trims + 2);
  ck_assert_uint_eq(s4.bytes_cached, 0);
  ag_buffer_free(live);
}
END_TEST

START_TEST(peak_bytes_in_use_covers_every_moment) {
  ag_device *dev = test_device(_i);
  ag_pool_stats s0 = stats_of(dev);
  enum { N = 6 };
  ag_buffer *b[N];
  size_t held = 0;
  for (int k = 0; k < N; k++) {
    size_t bytes = (size_t)(k + 1) * 300 * KIB + 7;
    b[k] = new_buffer(dev, bytes);
    held += rounded(bytes);
    ag_pool_stats s = stats_of(dev);
    ck_assert_uint_eq(s.bytes_in_use, s0.bytes_in_use + held);
    ck_assert_uint_ge(s.peak_bytes_in_use, s0.bytes_in_use + held);
  }
  size_t high = stats_of(dev).peak_bytes_in_use;
  for (int k = 0; k < N; k++)
    ag_buffer_free(b[k]);
  ag_pool_stats s1 = stats_of(dev);
  ck_assert_uint_eq(s1.bytes_in_use, s0.bytes_in_use);
  ck_assert_uint_eq(s1.peak_bytes_in_use, high); /* the peak stays after the frees */
  CHECK_OK(ag_device_trim(dev));
  ck_assert_uint_eq(stats_of(dev).peak_bytes_in_use, high);
}
END_TEST

/* ---- pending work ------------------------------------------------------------------------------- */

/* A copy out of a freed buffer is still running on its own queue when the same size is allocated
   again and overwritten through the default queue: if the pool handed the block out early, the
   copy would read the new bytes. On the host work is synchronous, so this holds trivially; it
   runs there all the same. */
START_TEST(a_block_with_pending_work_is_not_handed_out_early) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  const size_t bytes = 48 * MIB;
  enum { ROUNDS = 3, COPIES = 4 };
  unsigned char *first = test_alloc(bytes), *second = test_alloc(bytes), *back = test_alloc(bytes);
  memset(second, 0xa5, bytes);
  for (int round = 0; round < ROUNDS; round++) {
    test_fill_bytes(first, bytes, 40u + (unsigned)round);
    ag_buffer *src = new_buffer(dev, bytes), *dst[COPIES];
    CHECK_OK(ag_buffer_write(q, src, 0, first, bytes));
    for (int k = 0; k < COPIES; k++) {
      dst[k] = new_buffer(dev, bytes);
      CHECK_OK(ag_buffer_copy(q, dst[k], 0, src, 0, bytes));
    }
    ag_buffer_free(src); /* the copies may still be reading it */
    ag_buffer *fresh = new_buffer(dev, bytes);
    CHECK_OK(ag_buffer_write(NULL, fresh, 0, second, bytes));
    CHECK_OK(ag_device_finish(dev));
    CHECK_OK(ag_queue_finish(q));
    for (int k = 0; k < COPIES; k++) {
      CHECK_OK(ag_buffer_read(q, dst[k], 0, back, bytes));
      CHECK_BYTES(back, first, bytes, "a copy out of a buffer freed while the copy was pending");
      ag_buffer_free(dst[k]);
    }
    CHECK_OK(ag_buffer_read(NULL, fresh, 0, back, bytes));
    CHECK_BYTES(back, second, bytes, "the buffer allocated after the free");
    ag_buffer_free(fresh);
  }
  free(first);
  free(second);
  free(back);
  ag_queue_destroy(q);
}
END_TEST

/* The same with an operation: out = a + b enqueued on a created queue, a and b freed at once and
   their size allocated again and filled through the default queue before the add has run. */
START_TEST(arrays_with_a_pending_operation_are_not_reused_early) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  const size_t n = (size_t)8 << 20; /* 32 MiB of f32 per array */
  float *ha = test_alloc(n * 4), *hb = test_alloc(n * 4), *back = NULL;
  ref_random(AG_F32, ha, n, 1, -1000, 1000);
  ref_random(AG_F32, hb, n, 2, -1000, 1000);
  for (int round = 0; round < 3; round++) {
    ag_array *a = test_array_1d(dev, AG_F32, n, ha), *b = test_array_1d(dev, AG_F32, n, hb);
    ag_array *out = test_array_new(dev, AG_F32, 1, &n);
    CHECK_OK(ag_device_finish(dev));
    CHECK_OK(ag_add(q, a, b, out));
    CHECK_OK(ag_mul_scalar(q, out, 2.0, out));
    ag_array_free(a);
    ag_array_free(b);
    ag_array *x = test_array_new(dev, AG_F32, 1, &n), *y = test_array_new(dev, AG_F32, 1, &n);
    CHECK_OK(ag_fill(NULL, x, -1.0));
    CHECK_OK(ag_fill(NULL, y, 12345.0));
    CHECK_OK(ag_queue_finish(q));
    back = test_array_read(out);
    for (size_t i = 0; i < n; i++) {
      float want = (ha[i] + hb[i]) * 2.0f; /* both exact in float */
      if (back[i] != want)
        ck_abort_msg("%s: round %d: element %zu of (a + b) * 2 is %.9g, expected %.9g: a or b was overwritten "
                     "by an allocation made after it was freed",
                     test_label(), round, i, back[i], want);
    }
    free(back);
    float *bx = test_array_read(x);
    ck_assert(bx[0] == -1.0f && bx[n - 1] == -1.0f);
    free(bx);
    ag_array_free(x);
    ag_array_free(y);
    ag_array_free(out);
  }
  free(ha);
  free(hb);
  ag_queue_destroy(q);
}
END_TEST

/* ---- ANYGPU_POOL=0 --------------------------------------------------------------------------- */

START_TEST(anygpu_pool_0_turns_reuse_off) {
  /* This test runs in its own forked process, where the library is not initialised yet. */
  ck_assert_int_eq(setenv("ANYGPU_POOL", "0", 1), 0);
  ag_device *dev = test_device(_i);
  ag_pool_stats s0 = stats_of(dev);
  for (int round = 0; round < 4; round++) {
    ag_buffer *b = new_buffer(dev, 100000);
    unsigned char data[1000];
    test_fill_bytes(data, sizeof data, (unsigned)round);
    CHECK_OK(ag_buffer_write(NULL, b, 0, data, sizeof data));
    ag_buffer_free(b);
    CHECK_OK(ag_device_finish(dev));
    ag_pool_stats s = stats_of(dev);
    ck_assert_uint_eq(s.reuses, 0);
    ck_assert_uint_eq(s.bytes_cached, 0);
    ck_assert_uint_eq(s.bytes_in_use, s0.bytes_in_use);
    ck_assert_uint_eq(s.allocations, s0.allocations + (uint64_t)round + 1);
  }
}
END_TEST

/* ---- a failed allocation trims --------------------------------------------------------------- */

/* Virtual memory of this process, from /proc/self/statm; 0 when it cannot be read. */
static size_t address_space_in_use(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f == NULL)
    return 0;
  if (fscanf(f, "%lu", &pages) != 1)
    pages = 0;
  fclose(f);
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* On the host, device memory is this process's address space: a limit on it (RLIMIT_AS) makes
   a device that is small without using any real memory. Four cached blocks of 256 MiB fill it so
   that a 768 MiB allocation fits only once the pool has given them back. Other devices cannot be
   made small safely, so there the test checks that explicit trims count. */
START_TEST(a_failed_allocation_trims_the_pool_and_retries) {
  ag_device *dev = test_device(_i);
  ag_pool_stats s0 = stats_of(dev);
  if (!test_backend_is("host") || UNDER_ASAN) {
    printf("note: %s: the trim forced by a failed allocation is checked on the host backend without "
           "AddressSanitizer only (it limits the address space); checking explicit trims instead\n",
           test_label());
    fflush(stdout);
    ag_buffer *b = new_buffer(dev, 1 * MIB);
    ag_buffer_free(b);
    CHECK_OK(ag_device_trim(dev));
    ag_pool_stats s1 = stats_of(dev);
    ck_assert_uint_eq(s1.trims, s0.trims + 1);
    ck_assert_uint_eq(s1.bytes_cached, 0);
    return;
  }
  const size_t block = 256 * (size_t)MIB, big = 768 * (size_t)MIB;
  size_t used = address_space_in_use();
  ck_assert_msg(used > 0, "%s: /proc/self/statm is not readable", test_label());
  struct rlimit old, lim;
  ck_assert_int_eq(getrlimit(RLIMIT_AS, &old), 0);
  lim = old;
  lim.rlim_cur = used + 4 * block + 512 * (size_t)MIB;
  ck_assert_int_eq(setrlimit(RLIMIT_AS, &lim), 0);

  ag_buffer *b[4];
  for (int k = 0; k < 4; k++)
    b[k] = new_buffer(dev, block);
  for (int k = 0; k < 4; k++)
    ag_buffer_free(b[k]);
  ag_pool_stats s1 = stats_of(dev);
  ck_assert_uint_eq(s1.bytes_cached, s0.bytes_cached + 4 * block);
  ag_buffer *large = NULL;
  ag_status st = ag_buffer_alloc(dev, big, &large);
  ag_pool_stats s2 = stats_of(dev);
  ck_assert_int_eq(setrlimit(RLIMIT_AS, &old), 0);
  ck_assert_msg(st == AG_OK, "%s: %zu bytes with %zu cached returned %s: %s", test_label(), big, s1.bytes_cached,
                ag_status_name(st), ag_last_error());
  ck_assert_uint_eq(s2.trims, s1.trims + 1);
  ck_assert_uint_eq(s2.bytes_cached, 0);
  ck_assert_uint_eq(s2.reuses, s1.reuses);
  /* The retried buffer works. */
  unsigned char ends[2][64];
  test_fill_bytes(ends[0], sizeof ends[0], 3);
  CHECK_OK(ag_buffer_write(NULL, large, big - sizeof ends[0], ends[0], sizeof ends[0]));
  CHECK_OK(ag_buffer_read(NULL, large, big - sizeof ends[0], ends[1], sizeof ends[1]));
  CHECK_BYTES(ends[1], ends[0], sizeof ends[0], "the end of a buffer allocated after a forced trim");
  ag_buffer_free(large);
}
END_TEST

/* ---- threads ----------------------------------------------------------------------------------- */

enum { THREADS = 4, ROUNDS = 40 };

typedef struct worker {
  ag_device *dev;
  int id;
  pthread_barrier_t *start;
  char error[512];
} worker;

/* Each round: an array of one of five sizes (a few elements up to 1 MiB), filled with a value of
   this thread and round, incremented in place, read back and checked whole, and freed. */
static void *array_worker(void *arg) {
  worker *w = arg;
  static const size_t sizes[] = {3, 1000, 4099, 65536, 262147};
  pthread_barrier_wait(w->start);
  for (int round = 0; round < ROUNDS && w->error[0] == '\0'; round++) {
    size_t n = sizes[(size_t)(w->id + round) % 5];
    uint32_t value = (uint32_t)(w->id * 100000 + round);
    ag_array *a = NULL;
    uint32_t *back = malloc(n * sizeof *back);
    ag_status st;
    if (back == NULL) {
      snprintf(w->error, sizeof w->error, "thread %d: out of host memory", w->id);
      break;
    }
    if ((st = ag_array_create(w->dev, AG_U32, 1, &n, &a)) != AG_OK || (st = ag_fill(NULL, a, value)) != AG_OK ||
        (st = ag_add_scalar(NULL, a, 1, a)) != AG_OK || (st = ag_array_to_host(a, back, n * sizeof *back)) != AG_OK) {
      snprintf(w->error, sizeof w->error, "thread %d round %d: %s: %s", w->id, round, ag_status_name(st),
               ag_last_error());
    } else {
      for (size_t i = 0; i < n; i++) {
        if (back[i] != value + 1) {
          snprintf(w->error, sizeof w->error, "thread %d round %d: element %zu of %zu is %u, expected %u", w->id, round,
                   i, n, back[i], value + 1);
          break;
        }
      }
    }
    ag_array_free(a);
    free(back);
  }
  return NULL;
}

START_TEST(threads_allocating_and_freeing_at_once_keep_their_data) {
  ag_device *dev = test_device(_i);
  ag_pool_stats s0 = stats_of(dev);
  worker w[THREADS];
  pthread_t t[THREADS];
  pthread_barrier_t start;
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){.dev = dev, .id = i, .start = &start};
    ck_assert_int_eq(pthread_create(&t[i], NULL, array_worker, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < THREADS; i++)
    ck_assert_msg(w[i].error[0] == '\0', "%s: %s", test_label(), w[i].error);
  CHECK_OK(ag_device_finish(dev));
  ag_pool_stats s1 = stats_of(dev);
  ck_assert_uint_ge(s1.allocations, s0.allocations + THREADS * ROUNDS);
  /* Five sizes over 160 allocations: most of them reuse a freed block. */
  ck_assert_msg(s1.reuses > s0.reuses, "%s: no allocation of %d reused a block", test_label(), THREADS * ROUNDS);
  ck_assert_msg(s1.bytes_in_use <= s0.bytes_in_use + 2 * MIB,
                "%s: %zu bytes still in use after every array was freed (%zu before)", test_label(), s1.bytes_in_use,
                s0.bytes_in_use);
}
END_TEST

/* ---- without a device ---------------------------------------------------------------------------- */

START_TEST(null_devices_and_counters_are_refused) {
  ag_pool_stats s;
  memset(&s, 0xff, sizeof s);
  CHECK_REFUSED(ag_device_pool_stats(NULL, &s), AG_ERR_INVALID_ARGUMENT, "ag_device_pool_stats", "dev");
  ck_assert_uint_eq(s.allocations, 0); /* cleared, not left as garbage */
  ag_device *dev = NULL;
  CHECK_OK(ag_device_get(0, &dev));
  CHECK_REFUSED(ag_device_pool_stats(dev, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_pool_stats", "stats");
  CHECK_REFUSED(ag_device_trim(NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_trim", "dev");
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "NULL devices and counters are refused", null_devices_and_counters_are_refused);
    return;
  }
  add_device_test(s, "freeing and allocating the same size reuses the block",
                  freeing_and_allocating_the_same_size_reuses_the_block);
  add_device_test(s, "arrays draw their memory from the pool", arrays_draw_their_memory_from_the_pool);
  add_device_test(s, "trim gives the cached memory back", trim_gives_the_cached_memory_back);
  add_device_test(s, "peak bytes in use covers every moment", peak_bytes_in_use_covers_every_moment);
  add_device_test(s, "a block with pending work is not handed out early",
                  a_block_with_pending_work_is_not_handed_out_early);
  add_device_test(s, "arrays with a pending operation are not reused early",
                  arrays_with_a_pending_operation_are_not_reused_early);
  add_device_test(s, "ANYGPU_POOL=0 turns reuse off", anygpu_pool_0_turns_reuse_off);
  add_device_test(s, "a failed allocation trims the pool and retries", a_failed_allocation_trims_the_pool_and_retries);
  add_device_test(s, "threads allocating and freeing at once keep their data",
                  threads_allocating_and_freeing_at_once_keep_their_data);
}
