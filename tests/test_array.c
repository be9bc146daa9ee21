/* tests/test_array.c — arrays (array.h): creation and round trips for every dtype and ndim,
   the refusals, accessors, copies to other devices, views (reshape and index) and their
   lifetime, fill, astype between every pair of dtypes, copy, and empty arrays. Contents are
   compared bytewise with what was written, or with the conversion reference in reference.c. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* One shape per ndim 1..4, none of whose lengths is a power of two. */
static const size_t shapes[4][4] = {{5}, {3, 7}, {2, 3, 5}, {2, 1, 3, 5}};

static size_t count(int ndim, const size_t *shape) {
  size_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  return n;
}

static void check_shape(const ag_array *a, int ndim, const size_t *shape, const char *what) {
  ck_assert_msg(ag_array_ndim(a) == ndim, "%s: %s has ndim %d, expected %d", test_label(), what, ag_array_ndim(a),
                ndim);
  const size_t *got = ag_array_shape(a);
  ck_assert_ptr_nonnull(got);
  for (int d = 0; d < ndim; d++) {
    ck_assert_msg(got[d] == shape[d] && ag_array_dim(a, d) == shape[d],
                  "%s: %s: dimension %d is %zu (dim %zu), expected %zu", test_label(), what, d, got[d],
                  ag_array_dim(a, d), shape[d]);
  }
  ck_assert_uint_eq(ag_array_size(a), count(ndim, shape));
}

/* ---- creation and round trips ---------------------------------------------------------------- */

START_TEST(round_trips_keep_every_byte_for_every_dtype_and_ndim) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int ndim = 1; ndim <= 4; ndim++) {
      const size_t *shape = shapes[ndim - 1];
      size_t bytes = count(ndim, shape) * ref_size(t);
      unsigned char *data = test_alloc(bytes), *copy = test_alloc(bytes), *back = test_alloc(bytes + 8);
      /* Arbitrary bytes: NaN payloads and denormals must survive a copy too. */
      test_fill_bytes(data, bytes, (unsigned)(k * 10 + ndim));
      memcpy(copy, data, bytes);
      ag_array *a = test_array_from(dev, t, ndim, shape, data);
      memset(data, 0, bytes); /* from_host has returned: the host memory may be reused */
      char what[64];
      snprintf(what, sizeof what, "a %d-D %s array", ndim, ref_name(t));
      check_shape(a, ndim, shape, what);
      ck_assert_int_eq(ag_array_dtype(a), t);
      memset(back, 0x5c, bytes + 8);
      CHECK_OK(ag_array_to_host(a, back, bytes + 8)); /* more room than needed is fine */
      CHECK_BYTES(back, copy, bytes, what);
      unsigned char tail[8];
      memset(tail, 0x5c, sizeof tail);
      CHECK_BYTES(back + bytes, tail, sizeof tail, "host bytes past the array's end");

      /* A created array holds what is then written through its buffer. */
      ag_array *b = test_array_new(dev, t, ndim, shape);
      size_t offset = 99;
      ag_buffer *buf = ag_array_buffer(b, &offset);
      ck_assert_ptr_nonnull(buf);
      ck_assert_uint_eq(offset, 0);
      CHECK_OK(ag_buffer_write(NULL, buf, 0, copy, bytes));
      CHECK_OK(ag_array_to_host(b, back, bytes));
      CHECK_BYTES(back, copy, bytes, "an array written through its buffer");
      ag_array_free(a);
      ag_array_free(b);
      free(data);
      free(copy);
      free(back);
    }
  }
}
END_TEST

START_TEST(bad_dtypes_ndims_and_shapes_are_refused) {
  ag_device *dev = test_device(_i);
  const size_t shape[AG_MAX_DIMS + 1] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  unsigned char data[2048] = {0};
  const int bad_ndims[] = {AG_MAX_DIMS + 1, -1}; /* 0 is a 0-d array, AG_MAX_DIMS the most */
  for (size_t k = 0; k < sizeof bad_ndims / sizeof bad_ndims[0]; k++) {
    ag_array *a = (ag_array *)1;
    CHECK_REFUSED(ag_array_create(dev, AG_F32, bad_ndims[k], shape, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_create",
                  "ndim");
    ck_assert_ptr_null(a);
    a = (ag_array *)1;
    CHECK_REFUSED(ag_array_from_host(dev, AG_U8, bad_ndims[k], shape, data, &a), AG_ERR_INVALID_ARGUMENT,
                  "ag_array_from_host", "ndim");
    ck_assert_ptr_null(a);
  }
  ag_array *a = (ag_array *)1;
  CHECK_REFUSED(ag_array_create(dev, AG_F32, 2, NULL, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_create", "shape");
  ck_assert_ptr_null(a);
  CHECK_REFUSED(ag_array_from_host(dev, AG_F32, 2, NULL, data, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_from_host",
                "shape");
  /* A dtype outside the enum: the message names the dtype argument (t in the header). */
  CHECK_REFUSED(ag_array_create(dev, (ag_dtype)AG_DTYPE_COUNT, 1, shape, &a), AG_ERR_INVALID_ARGUMENT,
                "ag_array_create", "t|dtype");
  CHECK_REFUSED(ag_array_create(dev, (ag_dtype)-1, 1, shape, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_create",
                "t|dtype");
  CHECK_REFUSED(ag_array_from_host(dev, AG_F32, 1, shape, NULL, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_from_host",
                "data");
  ck_assert_ptr_null(a);
  /* The result pointer is a in the header. */
  CHECK_REFUSED(ag_array_create(dev, AG_F32, 1, shape, NULL), AG_ERR_INVALID_ARGUMENT, "ag_array_create", "a");
  CHECK_REFUSED(ag_array_from_host(dev, AG_F32, 1, shape, data, NULL), AG_ERR_INVALID_ARGUMENT, "ag_array_from_host",
                "a");
}
END_TEST

START_TEST(element_counts_that_overflow_are_out_of_range) {
  ag_device *dev = test_device(_i);
  const size_t t40 = (size_t)1 << 40;
  const size_t huge[][4] = {
      {t40, t40}, {SIZE_MAX, 2}, {(size_t)1 << 32, (size_t)1 << 32, 1, 1}, {3, 5, 7, (size_t)1 << 62}};
  const int ndims[] = {2, 2, 4, 4};
  for (size_t k = 0; k < 4; k++) {
    ag_array *a = (ag_array *)1;
    CHECK_REFUSED(ag_array_create(dev, AG_U8, ndims[k], huge[k], &a), AG_ERR_OUT_OF_RANGE, "ag_array_create", "shape");
    ck_assert_ptr_null(a);
  }
  /* The element count fits but the bytes do not (2^62 c128 elements are 2^66 bytes): refused as
     out of range or out of memory, never allocated short. */
  const size_t fits[1] = {(size_t)1 << 62};
  ag_array *a = (ag_array *)1;
  CHECK_REFUSED2(ag_array_create(dev, AG_C128, 1, fits, &a), AG_ERR_OUT_OF_RANGE, AG_ERR_OUT_OF_MEMORY,
                 "ag_array_create", NULL);
  ck_assert_ptr_null(a);
  /* A 0 among the lengths does not excuse the others (numpy refuses them too): their product
     in bytes must fit, or a view or an export of the empty array would carry a length past
     SIZE_MAX. */
  const size_t empty_huge[][3] = {{0, (size_t)1 << 62, 1}, {(size_t)1 << 61, 0, 4}, {0, SIZE_MAX, 2}};
  const ag_dtype empty_types[] = {AG_C128, AG_F64, AG_U8};
  for (size_t k = 0; k < 3; k++) {
    a = (ag_array *)1;
    CHECK_REFUSED(ag_array_create(dev, empty_types[k], 3, empty_huge[k], &a), AG_ERR_OUT_OF_RANGE, "ag_array_create",
                  "shape");
    ck_assert_ptr_null(a);
  }
  const size_t empty_fits[2] = {0, (size_t)1 << 40};
  CHECK_OK(ag_array_create(dev, AG_C128, 2, empty_fits, &a));
  ck_assert_uint_eq(ag_array_size(a), 0);
  ag_array_free(a);
  /* A count that is representable but beyond the device is out of memory. */
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  const size_t beyond[1] = {info.global_memory + 1};
  CHECK_REFUSED(ag_array_create(dev, AG_U8, 1, beyond, &a), AG_ERR_OUT_OF_MEMORY, "ag_array_create", NULL);
  ck_assert_ptr_null(a);
}
END_TEST

START_TEST(accessors_describe_the_array) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    const size_t shape[3] = {4, 3, 2};
    ag_array *a = test_array_new(dev, t, 3, shape);
    check_shape(a, 3, shape, "a 3-D array");
    ck_assert_int_eq(ag_array_dtype(a), t);
    ck_assert_uint_eq(ag_array_size(a), 24);
    ck_assert_uint_eq(ag_array_nbytes(a), 24 * ref_size(t));
    ck_assert_ptr_eq(ag_array_device(a), dev);
    ck_assert_uint_eq(ag_array_dim(a, -1), 0);
    ck_assert_uint_eq(ag_array_dim(a, 3), 0);
    ck_assert_uint_eq(ag_array_dim(a, 4), 0);
    size_t offset = 123;
    ag_buffer *buf = ag_array_buffer(a, &offset);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(offset, 0);
    ck_assert_uint_ge(ag_buffer_size(buf), ag_array_nbytes(a));
    ck_assert_ptr_eq(ag_buffer_device(buf), dev);
    ck_assert_ptr_eq(ag_array_buffer(a, NULL), buf); /* the offset is optional */

    /* A view: same buffer, at the frame's byte offset. */
    ag_array *v = NULL;
    CHECK_OK(ag_array_index(a, 3, &v));
    const size_t frame[2] = {3, 2};
    check_shape(v, 2, frame, "frame 3 of a 3-D array");
    ck_assert_int_eq(ag_array_dtype(v), t);
    ck_assert_uint_eq(ag_array_nbytes(v), 6 * ref_size(t));
    ck_assert_ptr_eq(ag_array_device(v), dev);
    size_t voff = 0;
    ck_assert_ptr_eq(ag_array_buffer(v, &voff), buf);
    ck_assert_uint_eq(voff, 3 * 6 * ref_size(t));
    ag_array_free(v);
    ag_array_free(a);
  }
  ck_assert_uint_eq(ag_dtype_size(AG_C128), 16);
}
END_TEST

START_TEST(to_host_refuses_too_small_a_byte_count) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {3, 5};
  uint32_t data[15], back[15];
  ref_random(AG_U32, data, 15, 1, 0, 4294967295.0);
  ag_array *a = test_array_from(dev, AG_U32, 2, shape, data);
  memset(back, 0, sizeof back);
  CHECK_REFUSED(ag_array_to_host(a, back, sizeof back - 1), AG_ERR_OUT_OF_RANGE, "ag_array_to_host", "bytes");
  CHECK_REFUSED(ag_array_to_host(a, back, 0), AG_ERR_OUT_OF_RANGE, "ag_array_to_host", "bytes");
  uint32_t zeros[15] = {0};
  CHECK_BYTES(back, zeros, sizeof back, "host memory after a refused to_host");
  CHECK_REFUSED(ag_array_to_host(a, NULL, sizeof back), AG_ERR_INVALID_ARGUMENT, "ag_array_to_host", "data");
  CHECK_REFUSED(ag_array_to_host(NULL, back, sizeof back), AG_ERR_INVALID_ARGUMENT, "ag_array_to_host", "a");
  CHECK_OK(ag_array_to_host(a, back, sizeof back));
  CHECK_BYTES(back, data, sizeof back, "an exact-size to_host");
  ag_array_free(a);
}
END_TEST

/* ---- copies to devices -------------------------------------------------------------------------- */

static void check_copy_to(const ag_array *a, ag_device *to, const void *want, const char *what) {
  ag_array *c = NULL;
  CHECK_OK(ag_array_copy_to(a, to, &c));
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_eq(ag_array_device(c), to);
  ck_assert_int_eq(ag_array_dtype(c), ag_array_dtype(a));
  check_shape(c, ag_array_ndim(a), ag_array_shape(a), what);
  void *back = test_array_read(c);
  CHECK_BYTES(back, want, ag_array_nbytes(a), what);
  free(back);
  ag_array_free(c);
}

START_TEST(copy_to_another_device_preserves_the_contents) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "copying arrays between two devices");
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    const size_t shape[3] = {3, 4, 1001};
    size_t bytes = 3 * 4 * 1001 * ref_size(t);
    unsigned char *data = test_alloc(bytes);
    test_fill_bytes(data, bytes, (unsigned)k + 7);
    ag_array *a = test_array_from(dev, t, 3, shape, data);
    check_copy_to(a, dev, data, "a copy to the same device");
    ag_array *frame = NULL;
    CHECK_OK(ag_array_index(a, 2, &frame));
    check_copy_to(frame, dev, data + 2 * bytes / 3, "a copy of a view to the same device");
    if (other != NULL) {
      check_copy_to(a, other, data, "a copy to another device");
      check_copy_to(frame, other, data + 2 * bytes / 3, "a copy of a view to another device");
      /* And back again. */
      ag_array *there = NULL, *back_here = NULL;
      CHECK_OK(ag_array_copy_to(a, other, &there));
      CHECK_OK(ag_array_copy_to(there, dev, &back_here));
      ck_assert_ptr_eq(ag_array_device(back_here), dev);
      void *back = test_array_read(back_here);
      CHECK_BYTES(back, data, bytes, "a copy there and back");
      free(back);
      ag_array_free(there);
      ag_array_free(back_here);
    }
    ag_array_free(frame);
    ag_array_free(a);
    free(data);
  }
  ag_array *c = (ag_array *)1;
  const size_t one = 1;
  ag_array *a = test_array_new(dev, AG_U8, 1, &one);
  CHECK_REFUSED(ag_array_copy_to(a, NULL, &c), AG_ERR_INVALID_ARGUMENT, "ag_array_copy_to", "dev");
  CHECK_REFUSED(ag_array_copy_to(NULL, dev, &c), AG_ERR_INVALID_ARGUMENT, "ag_array_copy_to", "a");
  CHECK_REFUSED(ag_array_copy_to(a, dev, NULL), AG_ERR_INVALID_ARGUMENT, "ag_array_copy_to", "out");
  ag_array_free(a);
}
END_TEST

/* ---- views ---------------------------------------------------------------------------------- */

START_TEST(reshape_views_share_memory) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {4, 6}, flat[1] = {24}, cube[3] = {2, 3, 4}, bad[2] = {5, 5};
  float data[24];
  for (int i = 0; i < 24; i++)
    data[i] = (float)i - 7.5f;
  ag_array *a = test_array_from(dev, AG_F32, 2, shape, data);
  ag_array *v = NULL, *w = NULL;
  CHECK_OK(ag_array_reshape(a, 3, cube, &v));
  check_shape(v, 3, cube, "a reshaped view");
  ck_assert_int_eq(ag_array_dtype(v), AG_F32);
  float *back = test_array_read(v);
  CHECK_BYTES(back, data, sizeof data, "a reshaped view");
  free(back);

  /* Written through the view, read through the parent; and the other way. */
  CHECK_OK(ag_mul_scalar(NULL, v, 2.0, v));
  back = test_array_read(a);
  for (int i = 0; i < 24; i++)
    ck_assert_msg(back[i] == 2 * data[i],
                  "%s: element %d of the parent is %g after doubling through a view, expected %g", test_label(), i,
                  back[i], 2 * data[i]);
  free(back);
  CHECK_OK(ag_add_scalar(NULL, a, 1.0, a));
  CHECK_OK(ag_array_reshape(v, 1, flat, &w)); /* a view of a view */
  back = test_array_read(w);
  for (int i = 0; i < 24; i++)
    ck_assert_msg(back[i] == 2 * data[i] + 1, "%s: element %d of a view is %g after the parent changed, expected %g",
                  test_label(), i, back[i], 2 * data[i] + 1);
  free(back);
  size_t off = 1;
  ck_assert_ptr_eq(ag_array_buffer(w, &off), ag_array_buffer(a, NULL));
  ck_assert_uint_eq(off, 0);

  ag_array *r = (ag_array *)1;
  CHECK_REFUSED(ag_array_reshape(a, 2, bad, &r), AG_ERR_MISMATCH, "ag_array_reshape", "shape|elements|element");
  ck_assert_ptr_null(r);
  CHECK_REFUSED(ag_array_reshape(a, -1, bad, &r), AG_ERR_INVALID_ARGUMENT, "ag_array_reshape", "ndim");
  CHECK_REFUSED(ag_array_reshape(a, AG_MAX_DIMS + 1, bad, &r), AG_ERR_INVALID_ARGUMENT, "ag_array_reshape", "ndim");
  CHECK_REFUSED(ag_array_reshape(a, 2, NULL, &r), AG_ERR_INVALID_ARGUMENT, "ag_array_reshape", "shape");
  CHECK_REFUSED(ag_array_reshape(NULL, 2, shape, &r), AG_ERR_INVALID_ARGUMENT, "ag_array_reshape", "a");
  ag_array_free(w);
  ag_array_free(v);
  ag_array_free(a);
}
END_TEST

/* ag_array_slice: runs of frames of a stack, a view of a view, an empty slice, and the refusals. */
START_TEST(slice_views_are_runs_of_frames) {
  ag_device *dev = test_device(_i);
  enum { F = 5, H = 3, W = 4 };
  const size_t shape[3] = {F, H, W};
  uint16_t data[F * H * W];
  ref_random(AG_U16, data, F * H * W, 5, 0, 65535);
  ag_array *a = test_array_from(dev, AG_U16, 3, shape, data);
  for (size_t start = 0; start <= F; start++)
    for (size_t count = 0; start + count <= F; count++) {
      ag_array *v = NULL;
      CHECK_OK(ag_array_slice(a, start, count, &v));
      check_shape(v, 3, (const size_t[]){count, H, W}, "a slice");
      if (count > 0) {
        uint16_t *back = test_array_read(v);
        CHECK_BYTES(back, data + start * H * W, count * H * W * sizeof *data, "a slice of a stack");
        free(back);
        /* the slice's last frame through a second slice of it */
        ag_array *w = NULL;
        CHECK_OK(ag_array_slice(v, count - 1, 1, &w));
        back = test_array_read(w);
        CHECK_BYTES(back, data + (start + count - 1) * H * W, H * W * sizeof *data, "a slice of a slice");
        free(back);
        ag_array_free(w);
      }
      ag_array_free(v);
    }
  ag_array *v = (ag_array *)&v;
  ck_assert_int_eq(ag_array_slice(a, 3, 3, &v), AG_ERR_OUT_OF_RANGE);
  ck_assert_ptr_null(v);
  ck_assert_ptr_nonnull(strstr(ag_last_error(), "ag_array_slice: start 3 + count 3 exceeds the first dimension 5"));
  ck_assert_int_eq(ag_array_slice(a, 6, 0, &v), AG_ERR_OUT_OF_RANGE);
  ck_assert_int_eq(ag_array_slice(NULL, 0, 1, &v), AG_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(ag_array_slice(a, 0, 1, NULL), AG_ERR_INVALID_ARGUMENT);
  ag_array_free(a);
}
END_TEST

START_TEST(index_views_are_frames_of_a_stack) {
  ag_device *dev = test_device(_i);
  enum { F = 5, H = 6, W = 7 };
  const size_t shape[3] = {F, H, W}, frame_shape[2] = {H, W};
  uint16_t data[F * H * W];
  ref_random(AG_U16, data, F * H * W, 3, 0, 65535);
  ag_array *a = test_array_from(dev, AG_U16, 3, shape, data);
  for (size_t i = 0; i < F; i++) {
    ag_array *v = NULL;
    CHECK_OK(ag_array_index(a, i, &v));
    check_shape(v, 2, frame_shape, "a frame");
    uint16_t *back = test_array_read(v);
    char what[48];
    snprintf(what, sizeof what, "frame %zu of a stack", i);
    CHECK_BYTES(back, data + i * H * W, H * W * sizeof *data, what);
    free(back);
    /* A row of the frame: the view of a view. */
    ag_array *row = NULL;
    CHECK_OK(ag_array_index(v, H - 1, &row));
    check_shape(row, 1, (const size_t[]){W}, "a row of a frame");
    back = test_array_read(row);
    CHECK_BYTES(back, data + i * H * W + (H - 1) * W, W * sizeof *data, "the last row of a frame");
    free(back);
    /* An element of the row: a 1-D array's index is shape {1}. */
    ag_array *elem = NULL;
    CHECK_OK(ag_array_index(row, 3, &elem));
    check_shape(elem, 1, (const size_t[]){1}, "an element of a row");
    back = test_array_read(elem);
    ck_assert_uint_eq(back[0], data[i * H * W + (H - 1) * W + 3]);
    free(back);
    ag_array_free(elem);
    ag_array_free(row);
    ag_array_free(v);
  }
  ag_array *v = (ag_array *)1;
  CHECK_REFUSED(ag_array_index(a, F, &v), AG_ERR_OUT_OF_RANGE, "ag_array_index", "i|index");
  ck_assert_ptr_null(v);
  CHECK_REFUSED(ag_array_index(a, SIZE_MAX, &v), AG_ERR_OUT_OF_RANGE, "ag_array_index", "i|index");
  CHECK_REFUSED(ag_array_index(NULL, 0, &v), AG_ERR_INVALID_ARGUMENT, "ag_array_index", "a");
  CHECK_REFUSED(ag_array_index(a, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_array_index", "view");
  /* A 4-D stack indexes to 3-D. */
  const size_t s4[4] = {2, 3, 4, 5};
  float d4[120];
  ref_random(AG_F32, d4, 120, 4, -1, 1);
  ag_array *b = test_array_from(dev, AG_F32, 4, s4, d4);
  CHECK_OK(ag_array_index(b, 1, &v));
  check_shape(v, 3, s4 + 1, "index 1 of a 4-D array");
  float *back = test_array_read(v);
  CHECK_BYTES(back, d4 + 60, 60 * sizeof *d4, "index 1 of a 4-D array");
  free(back);
  ag_array_free(v);
  ag_array_free(b);
  ag_array_free(a);
}
END_TEST

START_TEST(views_keep_their_memory_alive_after_the_parent_is_freed) {
  ag_device *dev = test_device(_i);
  enum { F = 4, N = 100000 };
  const size_t shape[2] = {F, N};
  float *data = test_alloc(F * N * sizeof *data);
  ref_random(AG_F32, data, F * N, 5, -100, 100);
  ag_array *a = test_array_from(dev, AG_F32, 2, shape, data);
  ag_array *v = NULL, *r = NULL;
  CHECK_OK(ag_array_index(a, 2, &v));
  CHECK_OK(ag_array_reshape(a, 1, (const size_t[]){F * N}, &r));
  ag_array_free(a);
  /* Arrays of the parent's size, allocated and overwritten now, must not get its memory. */
  ag_array *fresh[3];
  for (int k = 0; k < 3; k++) {
    fresh[k] = test_array_new(dev, AG_F32, 2, shape);
    CHECK_OK(ag_fill(NULL, fresh[k], 999.0));
  }
  float *back = test_array_read(v);
  CHECK_BYTES(back, data + 2 * N, N * sizeof *data, "a frame after its parent was freed");
  free(back);
  CHECK_OK(ag_add_scalar(NULL, v, 0.5, v));
  back = test_array_read(v);
  for (size_t i = 0; i < N; i++)
    if (back[i] != data[2 * N + i] + 0.5f)
      ck_abort_msg("%s: element %zu of a frame whose parent was freed is %g after adding 0.5, expected %g",
                   test_label(), i, back[i], data[2 * N + i] + 0.5f);
  free(back);
  ag_array_free(v);
  /* The reshaped view still holds everything, frame 2 changed. */
  back = test_array_read(r);
  for (size_t i = 0; i < F * N; i++) {
    float want = i / N == 2 ? data[i] + 0.5f : data[i];
    if (back[i] != want)
      ck_abort_msg("%s: element %zu of a reshaped view of a freed parent is %g, expected %g", test_label(), i, back[i],
                   want);
  }
  free(back);
  ag_array_free(r);
  for (int k = 0; k < 3; k++)
    ag_array_free(fresh[k]);
  free(data);
}
END_TEST

START_TEST(operations_on_a_view_change_only_that_view) {
  ag_device *dev = test_device(_i);
  enum { F = 4, H = 33, W = 65 };
  const size_t shape[3] = {F, H, W};
  float *data = test_alloc(F * H * W * sizeof *data), *want = test_alloc(F * H * W * sizeof *data);
  ref_random(AG_F32, data, F * H * W, 6, -10, 10);
  memcpy(want, data, F * H * W * sizeof *data);
  ag_array *a = test_array_from(dev, AG_F32, 3, shape, data);
  ag_array *f2 = NULL, *f0 = NULL;
  CHECK_OK(ag_array_index(a, 2, &f2));
  CHECK_OK(ag_array_index(a, 0, &f0));
  CHECK_OK(ag_mul_scalar(NULL, f2, 3.0, f2));
  for (size_t i = 0; i < H * W; i++)
    want[2 * H * W + i] *= 3.0f; /* correctly rounded in float, here and on the device */
  /* Two views as operands and out: frame 0 = frame 0 + frame 2. */
  CHECK_OK(ag_add(NULL, f0, f2, f0));
  for (size_t i = 0; i < H * W; i++)
    want[i] += want[2 * H * W + i];
  /* A fill of frame 3's first row only. */
  ag_array *f3 = NULL, *row = NULL;
  CHECK_OK(ag_array_index(a, 3, &f3));
  CHECK_OK(ag_array_index(f3, 0, &row));
  CHECK_OK(ag_fill(NULL, row, -1.25));
  for (size_t i = 0; i < W; i++)
    want[3 * H * W + i] = -1.25f;
  float *back = test_array_read(a);
  CHECK_BYTES(back, want, F * H * W * sizeof *data, "a stack after operations on views of its frames");
  free(back);
  ag_array_free(row);
  ag_array_free(f3);
  ag_array_free(f0);
  ag_array_free(f2);
  ag_array_free(a);
  free(data);
  free(want);
}
END_TEST

/* ---- fill -------------------------------------------------------------------------------------- */

/* Fills @p a (dtype @p t, @p n elements) with each of @p values and compares every element with
   the value converted by the reference. */
static void check_fills(ag_array *a, ag_dtype t, size_t n, const double *values, size_t nvalues) {
  ref_c *want = test_alloc(n * sizeof *want);
  for (size_t j = 0; j < nvalues; j++) {
    CHECK_OK(ag_fill(NULL, a, values[j]));
    unsigned char one[16];
    ref_put(t, one, 0, values[j]);
    for (size_t i = 0; i < n; i++)
      want[i] = ref_get(t, one, 0);
    void *back = test_array_read(a);
    ref_check(t, back, want, NULL, n, REF_EXACT, "ag_fill with %g", values[j]);
    free(back);
  }
  free(want);
}

START_TEST(fill_sets_every_element_for_every_dtype) {
  ag_device *dev = test_device(_i);
  /* Values every dtype holds exactly, then signed, fractional and special values where the
     dtype holds them (0.1 and 16777217 round once to f32). */
  const double everywhere[] = {3.0, 0.0, 1.0};
  const double wide_values[] = {127.0, 255.0}; /* i8 holds the first */
  const double signed_values[] = {-1.0, -2147483648.0, 2147483647.0};
  const double float_values[] = {0.1, -2.5e-3, 16777217.0, 1e30, NAN, INFINITY, -INFINITY};
  /* bool: any nonzero value, NaN too, is true (array.h). */
  const double bool_values[] = {0.5, -2.0, NAN, 0.0, -0.0};
  const size_t n = 1023;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *a = test_array_new(dev, t, 1, &n);
    check_fills(a, t, n, everywhere, sizeof everywhere / sizeof everywhere[0]);
    if (t == AG_BOOL) {
      check_fills(a, t, n, bool_values, sizeof bool_values / sizeof bool_values[0]);
    } else {
      check_fills(a, t, n, wide_values, t == AG_I8 ? 1 : 2);
    }
    if (t == AG_I32 || t == AG_I64 || ref_is_float(t) || ref_is_complex(t))
      check_fills(a, t, n, signed_values, sizeof signed_values / sizeof signed_values[0]);
    if (ref_is_float(t) || ref_is_complex(t))
      check_fills(a, t, n, float_values, sizeof float_values / sizeof float_values[0]);
    ag_array_free(a);
  }
  CHECK_REFUSED(ag_fill(NULL, NULL, 1.0), AG_ERR_INVALID_ARGUMENT, "ag_fill", "a");
}
END_TEST

/* array.h: "converted as ag_astype converts": truncation toward zero, saturation, NaN to 0. */
START_TEST(fill_refuses_values_an_integer_dtype_cannot_hold) {
  ag_device *dev = test_device(_i);
  /* array.h: for integer dtypes the value must be an integer in the dtype's range; anything
     else is refused and the array keeps its contents (a scalar is never silently rounded or
     wrapped into an integer array). The limits themselves are accepted exactly. */
  const double refused[] = {3.7, -3.7, 300.5, 1e10, -1e10, NAN, INFINITY, -INFINITY, 65535.9};
  const size_t n = 1023;
  const ag_dtype ints[] = {AG_U8, AG_U16, AG_U32, AG_U64, AG_I8, AG_I16, AG_I32, AG_I64};
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
    ag_dtype t = ints[k];
    ag_array *a = test_array_new(dev, t, 1, &n);
    /* The limits; for 64 bits the doubles nearest inside them (2^63 - 1024, 2^64 - 2048), the
       next doubles out being 2^63 and 2^64 (and -2^63 - 2048). */
    unsigned bits = (unsigned)ref_size(t) * 8;
    bool sgn = !ref_is_unsigned(t);
    double lo = sgn ? -ldexp(1, (int)bits - 1) : 0, edge = ldexp(1, (int)bits - sgn);
    double hi = bits == 64 ? edge - (sgn ? 1024 : 2048) : edge - 1;
    const double limits[] = {lo, hi};
    check_fills(a, t, n, limits, 2);
    CHECK_OK(ag_fill(NULL, a, 7));
    for (size_t j = 0; j < sizeof refused / sizeof refused[0]; j++)
      if (!(refused[j] == floor(refused[j]) && refused[j] >= lo && refused[j] <= hi)) /* 1e10 fits 64 bits */
        CHECK_REFUSED(ag_fill(NULL, a, refused[j]), AG_ERR_INVALID_ARGUMENT, "ag_fill", "value");
    const double below = sgn ? (bits == 64 ? lo - 2048 : lo - 1) : -1, above = edge;
    CHECK_REFUSED(ag_fill(NULL, a, below), AG_ERR_INVALID_ARGUMENT, "ag_fill", "value");
    CHECK_REFUSED(ag_fill(NULL, a, above), AG_ERR_INVALID_ARGUMENT, "ag_fill", "value");
    const double seven = 7;
    check_fills(a, t, n, &seven, 1); /* still 7 everywhere: the refusals changed nothing */
    ag_array_free(a);
  }
}
END_TEST

START_TEST(fill_complex_sets_both_parts) {
  ag_device *dev = test_device(_i);
  const double parts[][2] = {{1.5, -2.25}, {0.1, 1e30}, {-0.0, 3.0}, {NAN, 1.0}, {2.0, INFINITY}};
  const size_t shape[2] = {17, 61};
  for (ag_dtype t = AG_C64; t <= AG_C128; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *a = test_array_new(dev, t, 2, shape);
    for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++) {
      CHECK_OK(ag_fill_complex(NULL, a, parts[j][0], parts[j][1]));
      ref_c *want = test_alloc(17 * 61 * sizeof *want);
      unsigned char one[16];
      ref_put(t, one, 0, CMPLXL(parts[j][0], parts[j][1]));
      for (size_t i = 0; i < 17 * 61; i++)
        want[i] = ref_get(t, one, 0);
      void *back = test_array_read(a);
      ref_check(t, back, want, NULL, 17 * 61, REF_EXACT, "ag_fill_complex with %g%+gi", parts[j][0], parts[j][1]);
      free(back);
      free(want);
    }
    /* ag_fill on a complex array: imaginary part 0. */
    CHECK_OK(ag_fill(NULL, a, -4.5));
    void *back = test_array_read(a);
    for (size_t i = 0; i < 17 * 61; i++) {
      ref_c v = ref_get(t, back, i);
      ck_assert_msg(creall(v) == -4.5L && cimagl(v) == 0, "%s: ag_fill(-4.5) of %s gave %Lg%+Lgi at %zu", test_label(),
                    ref_name(t), creall(v), cimagl(v), i);
    }
    free(back);
    ag_array_free(a);
  }
  CHECK_REFUSED(ag_fill_complex(NULL, NULL, 1.0, 2.0), AG_ERR_INVALID_ARGUMENT, "ag_fill_complex", "a");
}
END_TEST

/* ---- astype and copy ------------------------------------------------------------------------- */

START_TEST(astype_turns_u16_detector_frames_into_f32_exactly) {
  ag_device *dev = test_device(_i);
  enum { F = 3, H = 128, W = 96 };
  const size_t shape[3] = {F, H, W};
  uint16_t *frames = test_alloc(F * H * W * sizeof *frames);
  ref_random(AG_U16, frames, F * H * W, 11, 0, 65535);
  frames[0] = 0;
  frames[1] = 65535;
  ag_array *raw = test_array_from(dev, AG_U16, 3, shape, frames);
  ag_array *f = test_array_new(dev, AG_F32, 3, shape), *back16 = test_array_new(dev, AG_U16, 3, shape);
  CHECK_OK(ag_astype(NULL, raw, f));
  float *got = test_array_read(f);
  for (size_t i = 0; i < F * H * W; i++)
    if (got[i] != (float)frames[i])
      ck_abort_msg("%s: pixel %zu is %.9g as f32, expected %u", test_label(), i, got[i], frames[i]);
  free(got);
  /* And back: every u16 is exact in f32, so the round trip is the identity. */
  CHECK_OK(ag_astype(NULL, f, back16));
  uint16_t *again = test_array_read(back16);
  CHECK_BYTES(again, frames, F * H * W * sizeof *frames, "u16 -> f32 -> u16");
  free(again);
  ag_array_free(raw);
  ag_array_free(f);
  ag_array_free(back16);
  free(frames);
}
END_TEST

/* Values that exercise every conversion rule: fractions (truncation), the edges of every integer
   type and one past them (wraparound from integers, saturation from floats), integers float
   cannot hold (rounding), NaN, infinities, and a value beyond f32's range. */
static const double convert_values[] = {
    0,          -0.0,        1,           -1,         0.5,        -0.5,     1.9,       -1.9,         2.5,
    -2.5,       127,         128,         200,        255,        255.9,    256,       300,          -129,
    32767,      32768,       65535,       65535.5,    65536,      -65536,   16777217,  -16777217,    2147483647,
    2147483648, -2147483648, -2147483649, 4294967295, 4294967296, 1e10,     -1e10,     0.1,          123456.789,
    1e30,       3.4e38,      1e300,       -1e300,     NAN,        INFINITY, -INFINITY, -2147483648.9,
    0x1p62,     9.3e18,      -9.3e18,     1.8e19,     2e19,       -0x1p63,  0x1p53};
enum { NCONVERT = sizeof convert_values / sizeof convert_values[0] };

START_TEST(astype_converts_between_every_pair_of_dtypes) {
  ag_device *dev = test_device(_i);
  const size_t n = NCONVERT;
  for (int a = 0; a < AG_DTYPE_COUNT; a++) {
    ag_dtype from = all_dtypes[a];
    if (!test_dtype_runs(dev, from))
      continue;
    /* The source array: each value as the source dtype holds it (an imaginary part of -value/4
       for complex sources). */
    unsigned char *src = test_alloc(n * ref_size(from));
    for (size_t i = 0; i < n; i++) {
      double v = convert_values[i];
      if (ref_is_integer(from) && isfinite(v) && v == floor(v))
        ref_put_int64(from, src, i, (int64_t)fmax(fmin(v, 9e18), -9e18)); /* wraps, as C would */
      else
        ref_put(from, src, i, CMPLXL(v, -v / 4));
    }
    ag_array *x = test_array_1d(dev, from, n, src);
    for (int b = 0; b < AG_DTYPE_COUNT; b++) {
      ag_dtype to = all_dtypes[b];
      if (!test_dtype_runs(dev, to))
        continue;
      ag_array *out = test_array_new(dev, to, 1, &n);
      if (ref_is_complex(from) && !ref_is_complex(to) && !ref_is_bool(to)) {
        CHECK_REFUSED(ag_astype(NULL, x, out), AG_ERR_UNSUPPORTED, "ag_astype", ref_name(from));
        ag_array_free(out);
        continue;
      }
      CHECK_OK(ag_astype(NULL, x, out));
      unsigned char *want_bytes = test_alloc(n * ref_size(to));
      ref_c *want = test_alloc(n * sizeof *want);
      for (size_t i = 0; i < n; i++) {
        ref_convert(from, src, i, to, want_bytes, i);
        want[i] = ref_get(to, want_bytes, i);
      }
      void *got = test_array_read(out);
      /* Conversions are exact or rounded once to nearest: exact comparison. */
      ref_check(to, got, want, NULL, n, REF_EXACT, "ag_astype from %s to %s", ref_name(from), ref_name(to));
      free(got);
      free(want);
      free(want_bytes);
      ag_array_free(out);
    }
    ag_array_free(x);
    free(src);
  }
}
END_TEST

START_TEST(astype_and_copy_refuse_mismatched_operands) {
  ag_device *dev = test_device(_i);
  const size_t s1[1] = {6}, s2[2] = {2, 3}, s3[1] = {7};
  ag_array *x = test_array_new(dev, AG_F32, 1, s1), *o2 = test_array_new(dev, AG_I32, 2, s2);
  ag_array *o3 = test_array_new(dev, AG_I32, 1, s3), *y = test_array_new(dev, AG_F32, 1, s1);
  ag_array *z = test_array_new(dev, AG_I32, 1, s1);
  CHECK_OK(ag_fill(NULL, x, 2.0));
  /* The same element count in another shape is a mismatch too. */
  CHECK_REFUSED(ag_astype(NULL, x, o2), AG_ERR_MISMATCH, "ag_astype", "x", "out");
  CHECK_REFUSED(ag_astype(NULL, x, o3), AG_ERR_MISMATCH, "ag_astype", "x", "out");
  CHECK_REFUSED(ag_copy(NULL, x, o3), AG_ERR_MISMATCH, "ag_copy", "x", "out");
  CHECK_REFUSED(ag_copy(NULL, x, z), AG_ERR_MISMATCH, "ag_copy", "x", "out"); /* dtypes differ */
  CHECK_REFUSED(ag_astype(NULL, NULL, y), AG_ERR_INVALID_ARGUMENT, "ag_astype", "x");
  CHECK_REFUSED(ag_astype(NULL, x, NULL), AG_ERR_INVALID_ARGUMENT, "ag_astype", "out");
  CHECK_REFUSED(ag_copy(NULL, NULL, y), AG_ERR_INVALID_ARGUMENT, "ag_copy", "x");
  CHECK_REFUSED(ag_copy(NULL, x, NULL), AG_ERR_INVALID_ARGUMENT, "ag_copy", "out");
  /* Arrays of another device. */
  ag_device *other = test_other_device(dev, "astype and copy between devices");
  if (other != NULL) {
    ag_array *far = test_array_new(other, AG_F32, 1, s1);
    CHECK_REFUSED(ag_astype(NULL, x, far), AG_ERR_MISMATCH, "ag_astype", "x", "out");
    CHECK_REFUSED(ag_copy(NULL, far, y), AG_ERR_MISMATCH, "ag_copy", "x", "out");
    ag_array_free(far);
  }
  ag_array_free(x);
  ag_array_free(y);
  ag_array_free(z);
  ag_array_free(o2);
  ag_array_free(o3);
}
END_TEST

START_TEST(copy_duplicates_an_array) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    const size_t shape[2] = {31, 33};
    size_t bytes = 31 * 33 * ref_size(t);
    unsigned char *data = test_alloc(bytes);
    test_fill_bytes(data, bytes, 50u + (unsigned)k);
    ag_array *x = test_array_from(dev, t, 2, shape, data), *out = test_array_new(dev, t, 2, shape);
    CHECK_OK(ag_copy(NULL, x, out));
    void *back = test_array_read(out);
    CHECK_BYTES(back, data, bytes, "ag_copy");
    free(back);
    /* Between views: row 5 of x into row 30 of out. */
    ag_array *row = NULL, *row_out = NULL;
    CHECK_OK(ag_array_index(x, 5, &row));
    CHECK_OK(ag_array_index(out, 30, &row_out));
    CHECK_OK(ag_copy(NULL, row, row_out));
    back = test_array_read(out);
    CHECK_BYTES(back, data, 30 * 33 * ref_size(t), "rows before the copied one");
    CHECK_BYTES((unsigned char *)back + 30 * 33 * ref_size(t), data + 5 * 33 * ref_size(t), 33 * ref_size(t),
                "a row copied between views");
    free(back);
    ag_array_free(row);
    ag_array_free(row_out);
    ag_array_free(x);
    ag_array_free(out);
    free(data);
  }
}
END_TEST

/* ---- empty arrays -------------------------------------------------------------------------------- */

START_TEST(empty_arrays_pass_through_every_function) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "copying an empty array to another device");
  const size_t shapes_empty[2][2] = {{0, 0}, {3, 0}};
  const int ndims[2] = {1, 2};
  unsigned char host[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (int s = 0; s < 2; s++) {
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!test_dtype_runs(dev, t))
        continue;
      const size_t *shape = shapes_empty[s];
      int nd = ndims[s];
      ag_array *a = test_array_new(dev, t, nd, shape), *b = test_array_from(dev, t, nd, shape, host);
      check_shape(a, nd, shape, "an empty array");
      ck_assert_uint_eq(ag_array_size(a), 0);
      ck_assert_uint_eq(ag_array_nbytes(a), 0);
      ck_assert_ptr_eq(ag_array_device(a), dev);
      size_t off = 5;
      ck_assert_ptr_null(ag_array_buffer(a, &off));
      CHECK_OK(ag_array_to_host(a, host, 0));
      CHECK_OK(ag_array_to_host(b, host, sizeof host));
      const unsigned char same[8] = {1, 2, 3, 4, 5, 6, 7, 8};
      CHECK_BYTES(host, same, sizeof host, "host memory after reading an empty array");
      CHECK_OK(ag_fill(NULL, a, 1.0));
      if (ref_is_complex(t))
        CHECK_OK(ag_fill_complex(NULL, a, 1.0, 2.0));
      CHECK_OK(ag_copy(NULL, a, b));
      ag_array *c = test_array_new(dev, ref_is_complex(t) ? AG_C64 : AG_F32, nd, shape);
      CHECK_OK(ag_astype(NULL, a, c));
      ag_array *d = NULL;
      CHECK_OK(ag_array_copy_to(a, dev, &d));
      check_shape(d, nd, shape, "an empty copy");
      ag_array_free(d);
      if (other != NULL) {
        CHECK_OK(ag_array_copy_to(a, other, &d));
        check_shape(d, nd, shape, "an empty copy on another device");
        ck_assert_ptr_eq(ag_array_device(d), other);
        ag_array_free(d);
      }
      /* Reshapes between empty shapes; a nonzero count is a mismatch. */
      ag_array *v = NULL;
      const size_t to[2] = {0, 4};
      CHECK_OK(ag_array_reshape(a, 2, to, &v));
      check_shape(v, 2, to, "an empty reshape");
      ag_array_free(v);
      CHECK_REFUSED(ag_array_reshape(a, 1, (const size_t[]){1}, &v), AG_ERR_MISMATCH, "ag_array_reshape",
                    "shape|elements|element");
      /* Indexing: {3, 0} has three empty frames; {0} has none. */
      if (shape[0] > 0) {
        CHECK_OK(ag_array_index(a, 2, &v));
        check_shape(v, 1, (const size_t[]){0}, "an empty frame");
        ck_assert_ptr_null(ag_array_buffer(v, NULL));
        CHECK_OK(ag_fill(NULL, v, 3.0));
        ag_array_free(v);
      }
      CHECK_REFUSED(ag_array_index(a, shape[0], &v), AG_ERR_OUT_OF_RANGE, "ag_array_index", "i|index");
      ag_array_free(c);
      ag_array_free(a);
      ag_array_free(b);
    }
  }
}
END_TEST

/* ---- without a device ---------------------------------------------------------------------------- */

START_TEST(dtype_sizes_and_names_follow_the_table) {
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    ck_assert_uint_eq(ag_dtype_size(t), ref_size(t));
    ck_assert_str_eq(ag_dtype_name(t), ref_name(t));
  }
  ck_assert_uint_eq(ag_dtype_size(AG_C64), 8);
  ck_assert_str_eq(ag_dtype_name(AG_C128), "c128");
  ck_assert_uint_eq(ag_dtype_size((ag_dtype)AG_DTYPE_COUNT), 0);
  ck_assert_uint_eq(ag_dtype_size((ag_dtype)-1), 0);
  ck_assert_str_eq(ag_dtype_name((ag_dtype)AG_DTYPE_COUNT), "unknown");
  ck_assert_str_eq(ag_dtype_name((ag_dtype)-1), "unknown");
}
END_TEST

/* The conversion reference against values worked out by hand from array.h's rules. */
START_TEST(the_conversion_reference_follows_the_astype_rules) {
  const struct {
    ag_dtype from;
    double v;
    ag_dtype to;
    double re, im;
  } cases[] = {
      {AG_F64, 3.9, AG_U8, 3, 0},
      {AG_F64, -3.9, AG_I32, -3, 0},
      {AG_F64, 300, AG_U8, 255, 0},
      {AG_F64, -1, AG_U32, 0, 0},
      {AG_F64, NAN, AG_I32, 0, 0},
      {AG_F32, NAN, AG_U16, 0, 0},
      {AG_F64, 1e10, AG_I32, 2147483647, 0},
      {AG_F64, -1e10, AG_I32, -2147483648.0, 0},
      {AG_F64, INFINITY, AG_U8, 255, 0},
      {AG_F64, -INFINITY, AG_U32, 0, 0},
      {AG_U32, 4294967295.0, AG_I32, -1, 0},
      {AG_I32, -1, AG_U8, 255, 0},
      {AG_I32, -1, AG_U32, 4294967295.0, 0},
      {AG_U16, 65535, AG_U8, 255, 0},
      {AG_U16, 256, AG_U8, 0, 0},
      {AG_U32, 16777217, AG_F32, 16777216, 0},
      {AG_I32, 2147483647, AG_F32, 2147483648.0, 0},
      {AG_I32, 5, AG_C64, 5, 0},
      {AG_F64, 0.5, AG_C128, 0.5, 0},
      {AG_F64, 1e300, AG_F32, INFINITY, 0},
      {AG_U8, 200, AG_I32, 200, 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    unsigned char src[16], dst[16];
    if (ref_is_integer(cases[k].from))
      ref_put_int64(cases[k].from, src, 0, (int64_t)cases[k].v);
    else
      ref_put(cases[k].from, src, 0, cases[k].v);
    ref_convert(cases[k].from, src, 0, cases[k].to, dst, 0);
    ref_c got = ref_get(cases[k].to, dst, 0);
    ck_assert_msg(creall(got) == cases[k].re && cimagl(got) == cases[k].im,
                  "case %zu: %g from %s to %s gave %Lg%+Lgi, expected %g%+gi", k, cases[k].v, ref_name(cases[k].from),
                  ref_name(cases[k].to), creall(got), cimagl(got), cases[k].re, cases[k].im);
  }
  /* 0.1 to f32 rounds once, to the float nearest 0.1. */
  unsigned char src[8], dst[4];
  ref_put(AG_F64, src, 0, 0.1);
  ref_convert(AG_F64, src, 0, AG_F32, dst, 0);
  ck_assert(creall(ref_get(AG_F32, dst, 0)) == (long double)0.1f);
  /* c64 -> c128 keeps both parts. */
  unsigned char c64[8], c128[16];
  ref_put(AG_C64, c64, 0, CMPLXL(1.5, -2));
  ref_convert(AG_C64, c64, 0, AG_C128, c128, 0);
  ck_assert(ref_get(AG_C128, c128, 0) == CMPLXL(1.5, -2));
}
END_TEST

START_TEST(null_devices_and_arrays_are_refused) {
  const size_t shape[1] = {4};
  float data[4] = {0};
  ag_array *a = (ag_array *)1;
  CHECK_REFUSED(ag_array_create(NULL, AG_F32, 1, shape, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_create", "dev");
  ck_assert_ptr_null(a);
  CHECK_REFUSED(ag_array_from_host(NULL, AG_F32, 1, shape, data, &a), AG_ERR_INVALID_ARGUMENT, "ag_array_from_host",
                "dev");
  ag_array_free(NULL);
}
END_TEST

/* Mesa's llvmpipe ends any loop after 65535 iterations, silently (docs/portability.md,
   loop-limit): a launch that gave each work-item more elements than that lost the last one of
   each stretch. 2^25 + 5 one-byte elements make stretches of over 65536 elements on such a
   device as launches were cut before; every element must come out, on every device. */
START_TEST(launches_longer_than_a_loop_limit_reach_every_element) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ck_assert_msg(strstr(info.name, "llvmpipe") == NULL || info.max_loop_iterations == 65535,
                "%s: llvmpipe's loop limit is not reported (max_loop_iterations %llu)", test_label(),
                info.max_loop_iterations);
  const size_t n = ((size_t)1 << 25) + 5;
  unsigned char *x = test_alloc(n), *back = test_alloc(n);
  for (size_t i = 0; i < n; i++)
    x[i] = (unsigned char)(i * 7 + i / 65536);
  ag_array *a = test_array_1d(dev, AG_U8, n, x), *b = test_array_new(dev, AG_U8, 1, &n);
  ag_array *total = test_array_new(dev, AG_U32, 1, &(size_t){1});
  CHECK_OK(ag_copy(NULL, a, b));
  CHECK_OK(ag_array_to_host(b, back, n));
  CHECK_BYTES(back, x, n, "a copy of 2^25 + 5 bytes");
  CHECK_OK(ag_add(NULL, a, a, b));
  CHECK_OK(ag_array_to_host(b, back, n));
  size_t i = 0;
  while (i < n && back[i] == (unsigned char)(2 * x[i]))
    i++;
  ck_assert_msg(i == n, "%s: element %zu of a + a over 2^25 + 5 bytes is %u, expected %u", test_label(), i,
                i < n ? back[i] : 0, i < n ? (unsigned char)(2 * x[i]) : 0);
  CHECK_OK(ag_sum(NULL, a, AG_AXIS_ALL, total));
  uint64_t want = 0;
  for (i = 0; i < n; i++)
    want += x[i];
  uint32_t got = 0;
  CHECK_OK(ag_array_to_host(total, &got, sizeof got));
  ck_assert_msg(got == (uint32_t)want, "%s: the sum of 2^25 + 5 bytes is %u, expected %u", test_label(), got,
                (uint32_t)want);
  ag_array_free(a);
  ag_array_free(b);
  ag_array_free(total);
  free(x);
  free(back);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "dtype sizes and names follow the table", dtype_sizes_and_names_follow_the_table);
    add_core_test(s, "the conversion reference follows the astype rules",
                  the_conversion_reference_follows_the_astype_rules);
    add_core_test(s, "NULL devices and arrays are refused", null_devices_and_arrays_are_refused);
    return;
  }
  add_device_test(s, "round trips keep every byte for every dtype and ndim",
                  round_trips_keep_every_byte_for_every_dtype_and_ndim);
  add_device_test(s, "bad dtypes, ndims and shapes are refused", bad_dtypes_ndims_and_shapes_are_refused);
  add_device_test(s, "element counts that overflow are out of range", element_counts_that_overflow_are_out_of_range);
  add_device_test(s, "accessors describe the array", accessors_describe_the_array);
  add_device_test(s, "to_host refuses too small a byte count", to_host_refuses_too_small_a_byte_count);
  add_device_test(s, "copy_to another device preserves the contents", copy_to_another_device_preserves_the_contents);
  add_device_test(s, "reshape views share memory", reshape_views_share_memory);
  add_device_test(s, "index views are frames of a stack", index_views_are_frames_of_a_stack);
  add_device_test(s, "slice views are runs of frames", slice_views_are_runs_of_frames);
  add_device_test(s, "views keep their memory alive after the parent is freed",
                  views_keep_their_memory_alive_after_the_parent_is_freed);
  add_device_test(s, "operations on a view change only that view", operations_on_a_view_change_only_that_view);
  add_device_test(s, "fill sets every element for every dtype", fill_sets_every_element_for_every_dtype);
  add_device_test(s, "fill refuses values an integer dtype cannot hold",
                  fill_refuses_values_an_integer_dtype_cannot_hold);
  add_device_test(s, "fill_complex sets both parts", fill_complex_sets_both_parts);
  add_device_test(s, "astype turns u16 detector frames into f32 exactly",
                  astype_turns_u16_detector_frames_into_f32_exactly);
  add_device_test(s, "astype converts between every pair of dtypes", astype_converts_between_every_pair_of_dtypes);
  add_device_test(s, "astype and copy refuse mismatched operands", astype_and_copy_refuse_mismatched_operands);
  add_device_test(s, "copy duplicates an array", copy_duplicates_an_array);
  add_device_test(s, "empty arrays pass through every function", empty_arrays_pass_through_every_function);
  add_device_test(s, "launches longer than a loop limit reach every element",
                  launches_longer_than_a_loop_limit_reach_every_element);
}
