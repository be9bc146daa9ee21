/* tests/test_oclgrind_fill.c — the fill kernel (kernels_shared/fill.h: ag_fill_words) inside
   Oclgrind's simulator, through tests/oclgrind-run.py, for races and accesses outside the
   buffer. Oclgrind's uninitialised-value check cannot follow a fill: the core writes the
   pattern's first copy with the driver's own 4-byte fills, and that check takes each such
   write for the buffer's whole contents (docs/kernels.md#oclgrind), so tests/meson.build runs this
   suite without it. The bytes are compared with the pattern. */
#include <stdlib.h>

#include "oclgrind.h"

/* Patterns of 8 to 128 bytes (the fill kernel; narrower ones are the driver's own fill) at
   offsets of 0, 1 and 3 periods, over 1 period (the native fill alone), 2 and 37 periods. The
   buffer ends where the fill does, so a write past the range is outside the buffer; the bytes
   before the offset must come back as they were written. */
START_TEST(wide_fills_repeat_their_pattern_over_the_range_and_nowhere_else) {
  ag_device *dev = oclgrind_device(_i);
  static const size_t offsets[] = {0, 1, 3}, periods[] = {1, 2, 37};
  for (size_t ps = 8; ps <= 128; ps *= 2)
    for (int o = 0; o < 3; o++)
      for (int p = 0; p < 3; p++) {
        size_t offset = offsets[o] * ps, bytes = periods[p] * ps, total = offset + bytes;
        unsigned char pattern[128], *want = test_alloc(total);
        test_fill_bytes(pattern, ps, (unsigned)ps);
        test_fill_bytes(want, offset, 3);
        for (size_t i = 0; i < bytes; i++)
          want[offset + i] = pattern[i % ps];
        ag_buffer *buf;
        CHECK_OK(ag_buffer_alloc(dev, total, &buf));
        if (offset > 0)
          CHECK_OK(ag_buffer_write(NULL, buf, 0, want, offset));
        CHECK_OK(ag_buffer_fill(NULL, buf, offset, pattern, ps, bytes));
        unsigned char *got = test_alloc(total);
        CHECK_OK(ag_buffer_read(NULL, buf, 0, got, total));
        char what[96];
        snprintf(what, sizeof what, "a %zu-byte pattern over %zu bytes at offset %zu", ps, bytes, offset);
        CHECK_BYTES(got, want, total, what);
        free(got);
        free(want);
        ag_buffer_free(buf);
      }
}
END_TEST

/* ag_fill of complex arrays: 8- and 16-byte elements, so the fill kernel again, here at the
   element offset of a view. */
START_TEST(complex_arrays_are_filled_through_the_fill_kernel) {
  ag_device *dev = oclgrind_device(_i);
  const size_t shape[2] = {2, 300};
  for (ag_dtype t = AG_C64; t <= AG_C128; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *whole = test_array_new(dev, t, 2, shape), *row = NULL;
    CHECK_OK(ag_array_index(whole, 1, &row));
    CHECK_OK(ag_fill_complex(NULL, row, 1.5, -0.25));
    unsigned char *got = test_array_read(row), *want = test_alloc(300 * ref_size(t));
    for (size_t i = 0; i < 300; i++)
      ref_put(t, want, i, CMPLXL(1.5, -0.25));
    CHECK_BYTES(got, want, 300 * ref_size(t), ref_name(t));
    free(got);
    free(want);
    ag_array_free(row);
    ag_array_free(whole);
  }
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "wide fills repeat their pattern over the range and nowhere else",
                  wide_fills_repeat_their_pattern_over_the_range_and_nowhere_else);
  add_device_test(s, "complex arrays are filled through the fill kernel",
                  complex_arrays_are_filled_through_the_fill_kernel);
}
