/* tests/test_oclgrind_layout.c - the layout family (kernels_shared/layout.h: ag_copy_nd_<bytes>)
   and the strided family's walk (kernels_shared/strided.h) inside Oclgrind's simulator,
   through tests/oclgrind-run.py, for races and accesses outside the buffers: copies between
   layouts of every element size, in both directions, with views whose strides are negative,
   zero and larger than a row, into arrays that end where the copy does, and an addition of
   broadcast operands. The bytes are compared with a gather on the host. */
#include <stdlib.h>

#include "oclgrind.h"

/* For each element size: x of 5 x 7 elements; x.T flipped along its first axis copied into a
   contiguous 7 x 5 array c; then c.T into rows 1, 3, 5, 7 and 9 of an 11 x 7 array (a stride
   of two rows), the rows between left as they were written. */
START_TEST(copies_between_layouts_stay_inside_their_arrays) {
  ag_device *dev = oclgrind_device(_i);
  static const ag_dtype types[] = {AG_U8, AG_U16, AG_F32, AG_C64, AG_C128};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    ag_dtype t = types[k];
    size_t es = ref_size(t);
    unsigned char *host = test_alloc(35 * es), *want = test_alloc(77 * es);
    test_fill_bytes(host, 35 * es, (unsigned)k + 1);
    ag_array *x = test_array_from(dev, t, 2, (const size_t[]){5, 7}, host), *xt, *xtf;
    CHECK_OK(ag_array_transpose(x, &xt));
    CHECK_OK(ag_array_flip(xt, 1, (const int[]){0}, &xtf));
    ag_array *c = test_array_new(dev, t, 2, (const size_t[]){7, 5});
    CHECK_OK(ag_copy(NULL, xtf, c));
    unsigned char *got = test_array_read(c);
    for (size_t j = 0; j < 7; j++)
      for (size_t i = 0; i < 5; i++)
        memcpy(want + (j * 5 + i) * es, host + (i * 7 + (6 - j)) * es, es);
    CHECK_BYTES(got, want, 35 * es, ref_name(t));
    free(got);
    /* c.T (5 x 7, strides 1 and 5) into rows 1, 3, ..., 9 of an 11 x 7 array. */
    unsigned char *before = test_alloc(77 * es);
    test_fill_bytes(before, 77 * es, 99);
    ag_array *big = test_array_from(dev, t, 2, (const size_t[]){11, 7}, before), *rows, *ct;
    const ag_index odd[1] = {ag_slice(1, AG_INDEX_NONE, 2)};
    CHECK_OK(ag_array_view(big, 1, odd, &rows));
    CHECK_OK(ag_array_transpose(c, &ct));
    CHECK_OK(ag_copy(NULL, ct, rows));
    memcpy(want, before, 77 * es);
    for (size_t i = 0; i < 5; i++)
      for (size_t j = 0; j < 7; j++)
        memcpy(want + ((2 * i + 1) * 7 + j) * es, host + (i * 7 + (6 - j)) * es, es);
    got = test_array_read(big);
    CHECK_BYTES(got, want, 77 * es, ref_name(t));
    free(got);
    free(before);
    free(host);
    free(want);
    ag_array *arrays[] = {x, xt, xtf, c, big, rows, ct};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++)
      ag_array_free(arrays[a]);
  }
}
END_TEST

/* Broadcast operands (stride 0) read in place by the strided family's walk: one row and one
   column read many times. */
START_TEST(broadcast_operands_are_read_in_place) {
  ag_device *dev = oclgrind_device(_i);
  float row[7] = {1, 2, 3, 4, 5, 6, 7}, col[3] = {10, 20, 30};
  ag_array *r = test_array_from(dev, AG_F32, 1, (const size_t[]){7}, row);
  ag_array *c = test_array_from(dev, AG_F32, 2, (const size_t[]){3, 1}, col);
  ag_array *out = test_array_new(dev, AG_F32, 2, (const size_t[]){3, 7});
  CHECK_OK(ag_add(NULL, c, r, out));
  float *got = test_array_read(out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 7; j++)
      ck_assert_float_eq(got[i * 7 + j], col[i] + row[j]);
  free(got);
  ag_array_free(r);
  ag_array_free(c);
  ag_array_free(out);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "copies between layouts stay inside their arrays", copies_between_layouts_stay_inside_their_arrays);
  add_device_test(s, "broadcast operands are read in place", broadcast_operands_are_read_in_place);
}
