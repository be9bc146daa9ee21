/* tests/test_buffer.c — device buffers: allocation, copies between host and device and within
   a device, fills, pinned host memory, and the errors each refuses with. Every test keeps a
   host model of each buffer and compares the whole buffer with it after each change. */
#include <stdint.h>
#include <stdlib.h>

#include "runner.h"

enum { MIB = 1 << 20 };

static ag_buffer *new_buffer(ag_device *dev, size_t bytes) {
  ag_buffer *b = NULL;
  CHECK_OK(ag_buffer_alloc(dev, bytes, &b));
  ck_assert_ptr_nonnull(b);
  return b;
}

static void *new_host(size_t bytes) {
  void *p = malloc(bytes);
  ck_assert_ptr_nonnull(p);
  return p;
}

/* A buffer and its host model, filled with seeded bytes. */
typedef struct modelled {
  ag_buffer *buf;
  unsigned char *model;
  size_t size;
} modelled;

static modelled new_modelled(ag_device *dev, size_t size, unsigned seed) {
  modelled m = {.buf = new_buffer(dev, size), .model = new_host(size), .size = size};
  test_fill_bytes(m.model, size, seed);
  CHECK_OK(ag_buffer_write(NULL, m.buf, 0, m.model, size));
  return m;
}

static void free_modelled(modelled *m) {
  ag_buffer_free(m->buf);
  free(m->model);
}

/* Reads the whole buffer through @p q and compares it with its model. */
static void check_model(ag_queue *q, const modelled *m, const char *what) {
  unsigned char *back = new_host(m->size);
  memset(back, 0x5a, m->size);
  CHECK_OK(ag_buffer_read(q, m->buf, 0, back, m->size));
  CHECK_BYTES(back, m->model, m->size, what);
  free(back);
}

/* ---- allocation ----------------------------------------------------------------------------- */

START_TEST(allocations_of_any_size_hold_what_is_written) {
  ag_device *dev = test_device(_i);
  const size_t sizes[] = {1, 3, 4097, 1000003, 64 * MIB};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    modelled m = new_modelled(dev, sizes[k], (unsigned)k);
    ck_assert_uint_eq(ag_buffer_size(m.buf), sizes[k]);
    ck_assert_ptr_eq(ag_buffer_device(m.buf), dev);
    char what[64];
    snprintf(what, sizeof what, "a buffer of %zu bytes", sizes[k]);
    check_model(NULL, &m, what);
    free_modelled(&m);
  }
}
END_TEST

START_TEST(zero_bytes_are_refused) {
  ag_device *dev = test_device(_i);
  ag_buffer *b = (ag_buffer *)1;
  CHECK_FAILS(ag_buffer_alloc(dev, 0, &b), AG_ERR_INVALID_ARGUMENT, "ag_buffer_alloc", "bytes");
  ck_assert_ptr_null(b);
}
END_TEST

START_TEST(allocations_beyond_the_device_are_out_of_memory) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  const size_t sizes[] = {info.global_memory + 1, info.max_allocation + 1, SIZE_MAX, SIZE_MAX / 2 + 1};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    ag_buffer *b = (ag_buffer *)1;
    CHECK_FAILS(ag_buffer_alloc(dev, sizes[k], &b), AG_ERR_OUT_OF_MEMORY, "ag_buffer_alloc", "bytes");
    ck_assert_ptr_null(b);
  }
  /* The library stays usable. */
  modelled m = new_modelled(dev, 12345, 1);
  check_model(NULL, &m, "a buffer allocated after running out of memory");
  free_modelled(&m);
}
END_TEST

/* ---- host <-> device ------------------------------------------------------------------------ */

START_TEST(writes_and_reads_at_offsets) {
  ag_device *dev = test_device(_i);
  ag_queue *own = NULL;
  CHECK_OK(ag_queue_create(dev, &own));
  const size_t size = 1031;
  /* start, middle, end, odd unaligned offsets, single bytes */
  const struct {
    size_t offset, bytes;
  } at[] = {{0, 10}, {500, 17}, {size - 13, 13}, {3, 5}, {777, 1}, {size - 1, 1}, {1, size - 2}, {0, size}};
  for (int pass = 0; pass < 2; pass++) {
    ag_queue *q = pass ? own : NULL;
    modelled m = new_modelled(dev, size, 10u + (unsigned)pass);
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
      unsigned char *chunk = new_host(at[k].bytes), *back = new_host(at[k].bytes);
      test_fill_bytes(chunk, at[k].bytes, 100u + (unsigned)k);
      char what[96];
      snprintf(what, sizeof what, "after writing %zu bytes at offset %zu%s", at[k].bytes, at[k].offset,
               pass ? " on a created queue" : "");
      CHECK_OK(ag_buffer_write(q, m.buf, at[k].offset, chunk, at[k].bytes));
      memcpy(m.model + at[k].offset, chunk, at[k].bytes);
      check_model(q, &m, what);
      /* Reading the same range, and a range shifted by one, gives the model's bytes. */
      CHECK_OK(ag_buffer_read(q, m.buf, at[k].offset, back, at[k].bytes));
      CHECK_BYTES(back, chunk, at[k].bytes, what);
      if (at[k].bytes < size) {
        size_t shifted = at[k].offset + at[k].bytes < size ? at[k].offset + 1 : at[k].offset - 1;
        CHECK_OK(ag_buffer_read(q, m.buf, shifted, back, at[k].bytes));
        CHECK_BYTES(back, m.model + shifted, at[k].bytes, what);
      }
      free(chunk);
      free(back);
    }
    /* The _async forms with ordinary memory, completed by a finish. */
    unsigned char chunk[200], back[200];
    test_fill_bytes(chunk, sizeof chunk, 77);
    CHECK_OK(ag_buffer_write_async(q, m.buf, 401, chunk, sizeof chunk));
    memcpy(m.model + 401, chunk, sizeof chunk);
    CHECK_OK(ag_buffer_read_async(q, m.buf, 399, back, sizeof back));
    CHECK_OK(pass ? ag_queue_finish(own) : ag_device_finish(dev));
    CHECK_BYTES(back, m.model + 399, sizeof back, "an asynchronous read after an asynchronous write");
    check_model(q, &m, "after an asynchronous write");
    free_modelled(&m);
  }
  ag_queue_destroy(own);
}
END_TEST

START_TEST(zero_length_transfers_at_the_end_change_nothing) {
  ag_device *dev = test_device(_i);
  const size_t size = 257;
  modelled m = new_modelled(dev, size, 5);
  ag_buffer *other = new_buffer(dev, size);
  CHECK_OK(ag_buffer_write(NULL, other, 0, m.model, size));
  unsigned char host[16];
  memset(host, 0x77, sizeof host);
  const size_t offsets[] = {0, 1, size - 1, size};
  for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
    size_t off = offsets[k];
    CHECK_OK(ag_buffer_write(NULL, m.buf, off, host, 0));
    CHECK_OK(ag_buffer_write_async(NULL, m.buf, off, host, 0));
    CHECK_OK(ag_buffer_read(NULL, m.buf, off, host, 0));
    CHECK_OK(ag_buffer_read_async(NULL, m.buf, off, host, 0));
    CHECK_OK(ag_buffer_copy(NULL, m.buf, off, other, off, 0));
    CHECK_OK(ag_buffer_copy(NULL, other, off, m.buf, size - off, 0));
    CHECK_OK(ag_buffer_copy(NULL, m.buf, off, m.buf, off, 0));
    CHECK_OK(ag_buffer_fill(NULL, m.buf, off, host, 1, 0));
  }
  CHECK_OK(ag_device_finish(dev));
  unsigned char untouched[sizeof host];
  memset(untouched, 0x77, sizeof untouched);
  CHECK_BYTES(host, untouched, sizeof host, "host memory after zero-length reads");
  check_model(NULL, &m, "after zero-length transfers");
  free_modelled(&m);
  ag_buffer_free(other);
}
END_TEST

/* Ranges that do not fit in a buffer of @p size, the overflowing ones included. */
typedef struct span {
  size_t offset, bytes;
} span;

static span past_end(size_t size, int k) {
  const span r[] = {{size + 1, 0},
                    {size, 1},
                    {size - 1, 2},
                    {0, size + 1},
                    {SIZE_MAX, 2},
                    {2, SIZE_MAX},
                    {SIZE_MAX, 0},
                    {SIZE_MAX, SIZE_MAX},
                    {size / 2, SIZE_MAX - size / 2 + 2}};
  return r[k];
}
enum { NPAST = 9 };

START_TEST(transfers_past_the_end_are_refused) {
  ag_device *dev = test_device(_i);
  const size_t size = 100;
  modelled m = new_modelled(dev, size, 6);
  unsigned char host[256];
  memset(host, 0x33, sizeof host);
  for (int k = 0; k < NPAST; k++) {
    size_t off = past_end(size, k).offset, n = past_end(size, k).bytes;
    CHECK_FAILS(ag_buffer_write(NULL, m.buf, off, host, n), AG_ERR_OUT_OF_RANGE, "ag_buffer_write", "offset");
    CHECK_FAILS(ag_buffer_write_async(NULL, m.buf, off, host, n), AG_ERR_OUT_OF_RANGE, "ag_buffer_write_async",
                "offset");
    CHECK_FAILS(ag_buffer_read(NULL, m.buf, off, host, n), AG_ERR_OUT_OF_RANGE, "ag_buffer_read", "offset");
    CHECK_FAILS(ag_buffer_read_async(NULL, m.buf, off, host, n), AG_ERR_OUT_OF_RANGE, "ag_buffer_read_async",
                "offset");
  }
  CHECK_OK(ag_device_finish(dev));
  unsigned char untouched[sizeof host];
  memset(untouched, 0x33, sizeof untouched);
  CHECK_BYTES(host, untouched, sizeof host, "host memory after refused reads");
  check_model(NULL, &m, "after refused transfers");
  free_modelled(&m);
}
END_TEST

START_TEST(copies_past_the_end_are_refused) {
  ag_device *dev = test_device(_i);
  const size_t size = 100;
  modelled a = new_modelled(dev, size, 7), b = new_modelled(dev, size * 3, 8);
  for (int k = 0; k < NPAST; k++) {
    size_t off = past_end(size, k).offset, n = past_end(size, k).bytes;
    /* a's range is out; b is big enough for every in-range part. */
    CHECK_FAILS(ag_buffer_copy(NULL, a.buf, off, b.buf, 0, n), AG_ERR_OUT_OF_RANGE, "ag_buffer_copy", "offset");
    CHECK_FAILS(ag_buffer_copy(NULL, b.buf, 0, a.buf, off, n), AG_ERR_OUT_OF_RANGE, "ag_buffer_copy", "offset");
  }
  /* In range for one buffer, out for the other. */
  CHECK_FAILS(ag_buffer_copy(NULL, a.buf, 0, b.buf, 0, size + 1), AG_ERR_OUT_OF_RANGE, "ag_buffer_copy", "dst");
  CHECK_FAILS(ag_buffer_copy(NULL, b.buf, 0, a.buf, 0, size + 1), AG_ERR_OUT_OF_RANGE, "ag_buffer_copy", "src");
  CHECK_FAILS(ag_buffer_copy(NULL, b.buf, size * 3 - 10, a.buf, 0, 11), AG_ERR_OUT_OF_RANGE, "ag_buffer_copy",
              "offset");
  CHECK_OK(ag_device_finish(dev));
  check_model(NULL, &a, "after refused copies (destination)");
  check_model(NULL, &b, "after refused copies (source)");
  free_modelled(&a);
  free_modelled(&b);
}
END_TEST

START_TEST(null_host_pointers_are_refused) {
  ag_device *dev = test_device(_i);
  modelled m = new_modelled(dev, 64, 9);
  for (size_t n = 0; n <= 8; n += 8) {
    CHECK_FAILS(ag_buffer_write(NULL, m.buf, 0, NULL, n), AG_ERR_INVALID_ARGUMENT, "ag_buffer_write", "src");
    CHECK_FAILS(ag_buffer_write_async(NULL, m.buf, 0, NULL, n), AG_ERR_INVALID_ARGUMENT, "ag_buffer_write_async",
                "src");
    CHECK_FAILS(ag_buffer_read(NULL, m.buf, 0, NULL, n), AG_ERR_INVALID_ARGUMENT, "ag_buffer_read", "dst");
    CHECK_FAILS(ag_buffer_read_async(NULL, m.buf, 0, NULL, n), AG_ERR_INVALID_ARGUMENT, "ag_buffer_read_async",
                "dst");
  }
  check_model(NULL, &m, "after refused NULL transfers");
  free_modelled(&m);
}
END_TEST

/* ---- device <-> device ---------------------------------------------------------------------- */

START_TEST(copies_between_buffers_at_offsets) {
  ag_device *dev = test_device(_i);
  ag_queue *own = NULL;
  CHECK_OK(ag_queue_create(dev, &own));
  modelled a = new_modelled(dev, 5003, 11), b = new_modelled(dev, 4099, 12);
  const struct {
    size_t dst, src, bytes;
  } at[] = {{0, 0, 4099}, {100, 3, 77}, {1, 4098, 1}, {4098, 0, 1}, {17, 1001, 2048}, {0, 904, 4099}};
  for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
    ag_queue *q = k % 2 ? own : NULL;
    char what[96];
    /* a -> b, then b -> a elsewhere, so both directions and both models change. */
    CHECK_OK(ag_buffer_copy(q, b.buf, at[k].dst, a.buf, at[k].src, at[k].bytes));
    memmove(b.model + at[k].dst, a.model + at[k].src, at[k].bytes);
    snprintf(what, sizeof what, "%zu bytes copied from offset %zu to offset %zu", at[k].bytes, at[k].src,
             at[k].dst);
    check_model(q, &b, what);
    CHECK_OK(ag_buffer_copy(q, a.buf, at[k].src, b.buf, at[k].dst, at[k].bytes / 2));
    memmove(a.model + at[k].src, b.model + at[k].dst, at[k].bytes / 2);
    check_model(q, &a, what);
  }
  free_modelled(&a);
  free_modelled(&b);
  ag_queue_destroy(own);
}
END_TEST

START_TEST(copies_within_one_buffer) {
  ag_device *dev = test_device(_i);
  const size_t size = 1000;
  modelled m = new_modelled(dev, size, 13);
  /* Ranges that touch but do not overlap work. */
  const struct {
    size_t dst, src, bytes;
  } ok[] = {{0, 100, 100}, {100, 0, 100}, {size - 1, 0, 1}, {0, 500, 500}, {777, 3, 200}};
  for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
    CHECK_OK(ag_buffer_copy(NULL, m.buf, ok[k].dst, m.buf, ok[k].src, ok[k].bytes));
    memmove(m.model + ok[k].dst, m.model + ok[k].src, ok[k].bytes);
    check_model(NULL, &m, "after a copy between disjoint ranges of one buffer");
  }
  /* Overlapping ranges are refused, by one byte or wholly. */
  const struct {
    size_t dst, src, bytes;
  } bad[] = {{0, 99, 100}, {99, 0, 100}, {10, 10, 1}, {0, 0, size}, {1, 0, size - 1}, {400, 450, 100}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    CHECK_FAILS(ag_buffer_copy(NULL, m.buf, bad[k].dst, m.buf, bad[k].src, bad[k].bytes), AG_ERR_INVALID_ARGUMENT,
                "ag_buffer_copy", "overlap");
  check_model(NULL, &m, "after refused overlapping copies");
  free_modelled(&m);
}
END_TEST

START_TEST(buffers_and_queues_of_another_device_are_refused) {
  ag_device *dev = test_device(_i);
  modelled m = new_modelled(dev, 256, 14);
  ag_device *other = test_other_device(dev, "mixing buffers and queues of two devices");
  if (other != NULL) {
    ag_buffer *theirs = new_buffer(other, 256);
    unsigned char filler[256];
    memset(filler, 0xee, sizeof filler);
    CHECK_OK(ag_buffer_write(NULL, theirs, 0, filler, sizeof filler));
    CHECK_FAILS(ag_buffer_copy(NULL, m.buf, 0, theirs, 0, 16), AG_ERR_MISMATCH, "ag_buffer_copy", "src");
    CHECK_FAILS(ag_buffer_copy(NULL, theirs, 0, m.buf, 0, 16), AG_ERR_MISMATCH, "ag_buffer_copy", "dst");

    ag_queue *oq = NULL;
    CHECK_OK(ag_queue_create(other, &oq));
    unsigned char host[16] = {0};
    const uint32_t pattern = 1;
    CHECK_FAILS(ag_buffer_write(oq, m.buf, 0, filler, 16), AG_ERR_MISMATCH, "ag_buffer_write", "queue");
    CHECK_FAILS(ag_buffer_write_async(oq, m.buf, 0, filler, 16), AG_ERR_MISMATCH, "ag_buffer_write_async", "queue");
    CHECK_FAILS(ag_buffer_read(oq, m.buf, 0, host, 16), AG_ERR_MISMATCH, "ag_buffer_read", "queue");
    CHECK_FAILS(ag_buffer_read_async(oq, m.buf, 0, host, 16), AG_ERR_MISMATCH, "ag_buffer_read_async", "queue");
    ag_buffer *mine2 = new_buffer(dev, 256);
    CHECK_FAILS(ag_buffer_copy(oq, mine2, 0, m.buf, 0, 16), AG_ERR_MISMATCH, "ag_buffer_copy", "queue");
    CHECK_FAILS(ag_buffer_fill(oq, m.buf, 0, &pattern, 4, 16), AG_ERR_MISMATCH, "ag_buffer_fill", "queue");
    CHECK_OK(ag_queue_finish(oq));
    ag_queue_destroy(oq);
    ag_buffer_free(mine2);
    ag_buffer_free(theirs);
  }
  check_model(NULL, &m, "after refused mixes of devices");
  free_modelled(&m);
}
END_TEST

/* ---- fills ---------------------------------------------------------------------------------- */

static const size_t pattern_sizes[] = {1, 2, 4, 8, 16, 32, 64, 128};

/* Fills [offset, offset + bytes) of @p m with @p pattern through @p q, updates the model and
   compares every byte of the buffer, those just before and after the range included. */
static void fill_and_check(ag_queue *q, modelled *m, size_t offset, const unsigned char *pattern, size_t ps,
                           size_t bytes) {
  CHECK_OK(ag_buffer_fill(q, m->buf, offset, pattern, ps, bytes));
  for (size_t i = 0; i < bytes; i += ps)
    memcpy(m->model + offset + i, pattern, ps);
  char what[128];
  snprintf(what, sizeof what, "after filling %zu bytes at offset %zu with a %zu-byte pattern", bytes, offset, ps);
  check_model(q, m, what);
}

START_TEST(fills_repeat_every_pattern_size) {
  ag_device *dev = test_device(_i);
  ag_queue *own = NULL;
  CHECK_OK(ag_queue_create(dev, &own));
  /* An odd size, so the last aligned range has bytes after it. */
  const size_t size = 4099;
  for (size_t k = 0; k < sizeof pattern_sizes / sizeof pattern_sizes[0]; k++) {
    size_t ps = pattern_sizes[k];
    ag_queue *q = k % 2 ? own : NULL;
    unsigned char pattern[128];
    for (size_t j = 0; j < ps; j++)
      pattern[j] = (unsigned char)(0x10 * (k + 1) + 13 * j + 1);
    modelled m = new_modelled(dev, size, 20u + (unsigned)k);
    fill_and_check(q, &m, 0, pattern, ps, ps);                        /* the start */
    fill_and_check(q, &m, ps * 3, pattern, ps, ps * 5);               /* the middle */
    fill_and_check(q, &m, (size / ps - 2) * ps, pattern, ps, ps * 2); /* the last aligned bytes */
    fill_and_check(q, &m, ps * 9, pattern, ps, ps);                   /* one copy */
    fill_and_check(q, &m, ps, pattern, ps, (size / ps - 1) * ps);     /* nearly all */
    free_modelled(&m);
  }
  ag_queue_destroy(own);
}
END_TEST

START_TEST(fills_larger_than_one_launch) {
  ag_device *dev = test_device(_i);
  /* 32 MiB is 8 Mi words, more than one launch of the fill kernels covers. */
  const size_t size = 32 * MIB + 384;
  modelled m = new_modelled(dev, size, 30);
  const size_t sizes[] = {8, 128, 4};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    unsigned char pattern[128];
    test_fill_bytes(pattern, sizes[k], 31u + (unsigned)k);
    fill_and_check(NULL, &m, 128 * (k + 1), pattern, sizes[k], size - 384);
  }
  free_modelled(&m);
}
END_TEST

START_TEST(malformed_fills_are_refused) {
  ag_device *dev = test_device(_i);
  const size_t size = 1024;
  modelled m = new_modelled(dev, size, 40);
  unsigned char pattern[512];
  memset(pattern, 0xcd, sizeof pattern);
  const size_t bad_sizes[] = {0, 3, 5, 6, 12, 24, 96, 127, 129, 256, SIZE_MAX};
  for (size_t k = 0; k < sizeof bad_sizes / sizeof bad_sizes[0]; k++)
    CHECK_FAILS(ag_buffer_fill(NULL, m.buf, 0, pattern, bad_sizes[k], 256), AG_ERR_INVALID_ARGUMENT,
                "ag_buffer_fill", "pattern_size");
  for (size_t k = 1; k < sizeof pattern_sizes / sizeof pattern_sizes[0]; k++) {
    size_t ps = pattern_sizes[k];
    CHECK_FAILS(ag_buffer_fill(NULL, m.buf, ps / 2, pattern, ps, ps), AG_ERR_INVALID_ARGUMENT, "ag_buffer_fill",
                "offset");
    CHECK_FAILS(ag_buffer_fill(NULL, m.buf, 0, pattern, ps, ps + ps / 2), AG_ERR_INVALID_ARGUMENT, "ag_buffer_fill",
                "bytes");
    CHECK_FAILS(ag_buffer_fill(NULL, m.buf, 1, pattern, ps, ps), AG_ERR_INVALID_ARGUMENT, "ag_buffer_fill",
                "offset");
  }
  CHECK_FAILS(ag_buffer_fill(NULL, m.buf, 0, NULL, 4, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_fill", "pattern");
  CHECK_FAILS(ag_buffer_fill(NULL, NULL, 0, pattern, 4, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_fill", "buf");
  /* Aligned but past the end. */
  CHECK_FAILS(ag_buffer_fill(NULL, m.buf, size, pattern, 4, 4), AG_ERR_OUT_OF_RANGE, "ag_buffer_fill", "offset");
  CHECK_FAILS(ag_buffer_fill(NULL, m.buf, 0, pattern, 128, size + 128), AG_ERR_OUT_OF_RANGE, "ag_buffer_fill",
              "offset");
  CHECK_FAILS(ag_buffer_fill(NULL, m.buf, SIZE_MAX - 7, pattern, 8, 16), AG_ERR_OUT_OF_RANGE, "ag_buffer_fill",
              "offset");
  CHECK_FAILS(ag_buffer_fill(NULL, m.buf, 16, pattern, 16, SIZE_MAX - 15), AG_ERR_OUT_OF_RANGE, "ag_buffer_fill",
              "offset");
  CHECK_OK(ag_device_finish(dev));
  check_model(NULL, &m, "after refused fills");
  free_modelled(&m);
}
END_TEST

/* ---- pinned host memory --------------------------------------------------------------------- */

START_TEST(asynchronous_copies_with_pinned_memory) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  const size_t sizes[] = {1, 4099, 8 * MIB + 5};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    unsigned char *src = NULL, *dst = NULL;
    CHECK_OK(ag_host_alloc(dev, n, (void **)&src));
    CHECK_OK(ag_host_alloc(dev, n, (void **)&dst));
    ck_assert(src != NULL && dst != NULL && src != dst);
    /* All of it is writable host memory. */
    test_fill_bytes(src, n, 50u + (unsigned)k);
    memset(dst, 0, n);
    ag_buffer *a = new_buffer(dev, n), *b = new_buffer(dev, n);
    CHECK_OK(ag_buffer_write_async(q, a, 0, src, n));
    CHECK_OK(ag_buffer_copy(q, b, 0, a, 0, n));
    CHECK_OK(ag_buffer_read_async(q, b, 0, dst, n));
    CHECK_OK(ag_queue_finish(q));
    CHECK_BYTES(dst, src, n, "an asynchronous round trip through pinned memory");
    ag_buffer_free(a);
    ag_buffer_free(b);
    ag_host_free(src);
    ag_host_free(dst);
  }
  ag_queue_destroy(q);
}
END_TEST

START_TEST(pinned_memory_refuses_what_it_did_not_give) {
  ag_device *dev = test_device(_i);
  void *p = (void *)1;
  CHECK_FAILS(ag_host_alloc(dev, 0, &p), AG_ERR_INVALID_ARGUMENT, "ag_host_alloc", "bytes");
  ck_assert_ptr_null(p);
  CHECK_FAILS(ag_host_alloc(dev, 16, NULL), AG_ERR_INVALID_ARGUMENT, "ag_host_alloc", "ptr");

  /* NULL is a no-op that leaves the last error alone. */
  char before[512];
  snprintf(before, sizeof before, "%s", ag_last_error());
  ag_host_free(NULL);
  ck_assert_str_eq(ag_last_error(), before);

  unsigned char *mine = NULL;
  CHECK_OK(ag_host_alloc(dev, 4096, (void **)&mine));
  memset(mine, 1, 4096);
  unsigned char *foreign = new_host(64);
  ag_host_free(foreign);
  CHECK_MESSAGE_HAS("ag_host_free");
  ck_assert_str_ne(ag_last_error(), before);
  /* A pointer inside a pinned allocation is not one ag_host_alloc gave. */
  CHECK_FAILS(ag_buffer_alloc(dev, 0, &(ag_buffer *){NULL}), AG_ERR_INVALID_ARGUMENT, "ag_buffer_alloc", "bytes");
  ag_host_free(mine + 1);
  CHECK_MESSAGE_HAS("ag_host_free");
  /* The real allocation is still intact and freed once; a second free is refused. */
  unsigned char ones[4096];
  memset(ones, 1, sizeof ones);
  CHECK_BYTES(mine, ones, sizeof ones, "pinned memory after refused frees");
  ag_host_free(mine);
  CHECK_FAILS(ag_buffer_alloc(dev, 0, &(ag_buffer *){NULL}), AG_ERR_INVALID_ARGUMENT, "ag_buffer_alloc", "bytes");
  ag_host_free(mine);
  CHECK_MESSAGE_HAS("ag_host_free");
  free(foreign);
}
END_TEST

/* ---- without a device ----------------------------------------------------------------------- */

START_TEST(null_handles_are_refused) {
  ag_device *dev = NULL;
  CHECK_OK(ag_device_get(0, &dev));
  ag_buffer *b = (ag_buffer *)1;
  CHECK_FAILS(ag_buffer_alloc(NULL, 16, &b), AG_ERR_INVALID_ARGUMENT, "ag_buffer_alloc", "dev");
  ck_assert_ptr_null(b);
  CHECK_FAILS(ag_buffer_alloc(dev, 16, NULL), AG_ERR_INVALID_ARGUMENT, "ag_buffer_alloc", "buf");
  CHECK_OK(ag_buffer_alloc(dev, 16, &b));
  CHECK_FAILS(ag_buffer_copy(NULL, NULL, 0, b, 0, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_copy", "dst");
  CHECK_FAILS(ag_buffer_copy(NULL, b, 0, NULL, 0, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_copy", "src");
  CHECK_FAILS(ag_host_alloc(NULL, 16, (void **)&(void *){NULL}), AG_ERR_INVALID_ARGUMENT, "ag_host_alloc", "dev");
  ck_assert_uint_eq(ag_buffer_size(NULL), 0);
  ck_assert_ptr_null(ag_buffer_device(NULL));
  ag_buffer_free(NULL);
  ag_buffer_free(b);
}
END_TEST

/* The buffer argument is dst in the writes and src in the reads; the message names it so. */
START_TEST(a_null_buffer_is_named_by_its_argument) {
  unsigned char host[16] = {0};
  CHECK_FAILS(ag_buffer_write(NULL, NULL, 0, host, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_write", "dst");
  CHECK_FAILS(ag_buffer_write_async(NULL, NULL, 0, host, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_write_async",
              "dst");
  CHECK_FAILS(ag_buffer_read(NULL, NULL, 0, host, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_read", "src");
  CHECK_FAILS(ag_buffer_read_async(NULL, NULL, 0, host, 16), AG_ERR_INVALID_ARGUMENT, "ag_buffer_read_async",
              "src");
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "NULL handles are refused", null_handles_are_refused);
    add_core_test(s, "a NULL buffer is named by its argument", a_null_buffer_is_named_by_its_argument);
    return;
  }
  add_device_test(s, "allocations of any size hold what is written", allocations_of_any_size_hold_what_is_written);
  add_device_test(s, "zero bytes are refused", zero_bytes_are_refused);
  add_device_test(s, "allocations beyond the device are out of memory",
                  allocations_beyond_the_device_are_out_of_memory);
  add_device_test(s, "writes and reads at offsets", writes_and_reads_at_offsets);
  add_device_test(s, "zero-length transfers at the end change nothing",
                  zero_length_transfers_at_the_end_change_nothing);
  add_device_test(s, "transfers past the end are refused", transfers_past_the_end_are_refused);
  add_device_test(s, "copies past the end are refused", copies_past_the_end_are_refused);
  add_device_test(s, "NULL host pointers are refused", null_host_pointers_are_refused);
  add_device_test(s, "copies between buffers at offsets", copies_between_buffers_at_offsets);
  add_device_test(s, "copies within one buffer", copies_within_one_buffer);
  add_device_test(s, "buffers and queues of another device are refused",
                  buffers_and_queues_of_another_device_are_refused);
  add_device_test(s, "fills repeat every pattern size", fills_repeat_every_pattern_size);
  add_device_test(s, "fills larger than one launch", fills_larger_than_one_launch);
  add_device_test(s, "malformed fills are refused", malformed_fills_are_refused);
  add_device_test(s, "asynchronous copies with pinned memory", asynchronous_copies_with_pinned_memory);
  add_device_test(s, "pinned memory refuses what it did not give", pinned_memory_refuses_what_it_did_not_give);
}
