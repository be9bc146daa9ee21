/* tests/test_manip.c — ag_concat, ag_roll, ag_tile and ag_repeat (ops.h) on every dtype, against
   references computed here as numpy's concatenate, roll, tile and repeat place each element:
   joins along every axis, empty and view inputs, mixed dtypes, shifts of either sign and beyond
   the length, several and repeated axes, the flattened roll, in place, repetitions of 0, and the
   arguments each refuses. */
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

START_TEST(concat_joins_along_every_axis_in_every_dtype) {
  ag_device *dev = test_device(_i);
  /* Three inputs of {2, 3, 4} with their length along the joined axis 1, 0 (empty) and 2. */
  const size_t lens[3] = {1, 0, 2};
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int axis = -1; axis < 3; axis++) {
      int ax = axis < 0 ? 2 : axis;
      size_t base[3] = {2, 3, 4}, oshape[3] = {2, 3, 4};
      oshape[ax] = 3;
      ag_array *xs[3];
      void *h[3];
      for (int j = 0; j < 3; j++) {
        size_t sh[3] = {base[0], base[1], base[2]};
        sh[ax] = lens[j];
        size_t n = sh[0] * sh[1] * sh[2];
        h[j] = test_alloc((n + 1) * ref_size(t));
        ref_random(t, h[j], n, 70u * (unsigned)k + 7u * (unsigned)j + (unsigned)ax, 0, 100);
        xs[j] = test_array_from(dev, t, 3, sh, h[j]);
      }
      size_t n = oshape[0] * oshape[1] * oshape[2];
      ag_array *out = test_array_new(dev, t, 3, oshape);
      ref_check_ok(ag_concat(NULL, 3, (const ag_array *const *)xs, axis, out), "ag_concat of %s along %d",
                   ref_name(t), axis);
      ref_c *want = test_alloc(n * sizeof *want);
      for (size_t i = 0; i < n; i++) {
        size_t c[3] = {i / (oshape[1] * oshape[2]), i / oshape[2] % oshape[1], i % oshape[2]};
        size_t j = c[ax] < lens[0] ? 0 : 2, at = c[ax] - (j == 0 ? 0 : lens[0]);
        size_t sh[3] = {base[0], base[1], base[2]};
        sh[ax] = lens[j];
        c[ax] = at;
        want[i] = ref_get(t, h[j], (c[0] * sh[1] + c[1]) * sh[2] + c[2]);
      }
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, n, REF_EXACT, "ag_concat of %s along axis %d", ref_name(t), axis);
      TEST_FREE(got, want, h[0], h[1], h[2]);
      TEST_ARRAY_FREE(out, xs[0], xs[1], xs[2]);
    }
  }
}
END_TEST

/* A transposed view and an i8 array joined into f32: views are read in place, dtypes promoted. */
START_TEST(concat_takes_views_and_promotes) {
  ag_device *dev = test_device(_i);
  const size_t s13[2] = {1, 3}, s33[2] = {3, 3};
  const float a[6] = {1, 2, 3, 4, 5, 6}; /* {3, 2} transposed: rows {1, 3, 5}, {2, 4, 6} */
  const int8_t b[3] = {-7, 8, -9};
  ag_array *a32 = test_array_from(dev, AG_F32, 2, (const size_t[]){3, 2}, a), *at = NULL;
  CHECK_OK(ag_array_permute(a32, (const int[]){1, 0}, &at));
  ag_array *b8 = test_array_from(dev, AG_I8, 2, s13, b), *out = test_array_new(dev, AG_F32, 2, s33);
  const ag_array *xs[2] = {at, b8};
  CHECK_OK(ag_concat(NULL, 2, xs, 0, out));
  const float want[9] = {1, 3, 5, 2, 4, 6, -7, 8, -9};
  void *got = test_array_read(out);
  CHECK_BYTES(got, want, sizeof want, "concat of a.T and int8 rows into float32");
  free(got);
  ag_array *o8 = test_array_new(dev, AG_I8, 2, s33);
  CHECK_REFUSED(ag_concat(NULL, 2, xs, 0, o8), AG_ERR_MISMATCH, "ag_concat", "f32", "i8");
  TEST_ARRAY_FREE(a32, at, b8, out, o8);
}
END_TEST

/* numpy.roll of x {3, 4, 5} by @p shifts along @p axes (n of them; axes NULL: flattened). */
static void roll_reference(ag_dtype t, const void *x, int n, const int64_t *shifts, const int *axes, ref_c *want) {
  const size_t sh[3] = {3, 4, 5}, N = 60;
  for (size_t i = 0; i < N; i++) {
    if (axes == NULL) {
      int64_t s = ((shifts[0] % (int64_t)N) + (int64_t)N) % (int64_t)N;
      want[(i + (size_t)s) % N] = ref_get(t, x, i);
      continue;
    }
    size_t c[3] = {i / 20, i / 5 % 4, i % 5};
    for (int j = 0; j < n; j++) {
      int d = axes[j] < 0 ? axes[j] + 3 : axes[j];
      int64_t len = (int64_t)sh[d];
      c[d] = (size_t)((((int64_t)c[d] + shifts[j]) % len + len) % len);
    }
    want[(c[0] * 4 + c[1]) * 5 + c[2]] = ref_get(t, x, i);
  }
}

START_TEST(roll_moves_every_element_where_numpy_does) {
  ag_device *dev = test_device(_i);
  const size_t sh[3] = {3, 4, 5}, N = 60;
  const struct {
    int n;
    int64_t shifts[3];
    int axes[3];
    bool flat;
  } cases[] = {{1, {1}, {0}, false},         {1, {-2}, {-1}, false},      {2, {7, -1}, {1, 2}, false},
               {3, {1, 2, 3}, {0, 1, 2}, false}, {2, {2, 3}, {2, 2}, false},   {1, {0}, {1}, false},
               {1, {13}, {0}, true},         {1, {-61}, {0}, true}};
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(N * ref_size(t));
    ref_random(t, x, N, 80u + (unsigned)k, 0, 100);
    ag_array *ax = test_array_from(dev, t, 3, sh, x), *out = test_array_new(dev, t, 3, sh);
    ref_c *want = test_alloc(N * sizeof *want);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      const int *axes = cases[c].flat ? NULL : cases[c].axes;
      ref_check_ok(ag_roll(NULL, ax, cases[c].n, cases[c].shifts, axes, out), "ag_roll case %zu of %s", c,
                   ref_name(t));
      roll_reference(t, x, cases[c].n, cases[c].shifts, axes, want);
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, N, REF_EXACT, "ag_roll case %zu of %s", c, ref_name(t));
      free(got);
    }
    /* In place, and of a transposed view (flattened: its C order, not memory's). */
    CHECK_OK(ag_roll(NULL, ax, 3, cases[3].shifts, cases[3].axes, ax));
    roll_reference(t, x, 3, cases[3].shifts, cases[3].axes, want);
    void *got = test_array_read(ax);
    ref_check(t, got, want, NULL, N, REF_EXACT, "ag_roll in place, %s", ref_name(t));
    free(got);
    ag_array *xt = NULL, *ot = test_array_new(dev, t, 3, (const size_t[]){5, 4, 3});
    CHECK_OK(ag_array_permute(ax, (const int[]){2, 1, 0}, &xt));
    const int64_t s7 = 7;
    CHECK_OK(ag_roll(NULL, xt, 1, &s7, NULL, ot));
    got = test_array_read(ot);
    void *rolled = test_array_read(ax);
    for (size_t i = 0; i < N; i++) { /* xt's C order is x's element (i % 3, i / 3 % 4, i / 12) */
      size_t src = (i % 3) * 20 + (i / 3 % 4) * 5 + i / 12;
      want[(i + 7) % N] = ref_get(t, rolled, src);
    }
    ref_check(t, got, want, NULL, N, REF_EXACT, "ag_roll of a transposed %s view, flattened", ref_name(t));
    TEST_FREE(got, rolled, want, x);
    TEST_ARRAY_FREE(ax, out, xt, ot);
  }
}
END_TEST

/* numpy.tile and numpy.repeat's placement, element by element, for x {2, 3, 4}: tile by reps
   of 1 to 4 entries (more than x's dims too), repeat along each axis and the flattened array;
   a transposed view in, and a stepped view out. */
START_TEST(tile_and_repeat_place_every_element_where_numpy_does) {
  ag_device *dev = test_device(_i);
  const size_t sh[3] = {2, 3, 4}, N = 24;
  const struct {
    int n;
    size_t reps[4];
  } tiles[] = {{1, {2}}, {3, {2, 1, 3}}, {2, {1, 1}}, {4, {2, 1, 2, 1}}, {3, {1, 0, 2}}};
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(N * ref_size(t));
    ref_random(t, x, N, 90u + (unsigned)k, 0, 100);
    ag_array *ax = test_array_from(dev, t, 3, sh, x);
    for (size_t c = 0; c < sizeof tiles / sizeof tiles[0]; c++) {
      int n = tiles[c].n, nd = n > 3 ? n : 3;
      size_t xs[4], os[4], m = 1;
      for (int d = 0; d < nd; d++) {
        int dx = d - (nd - 3), dr = d - (nd - n);
        xs[d] = dx >= 0 ? sh[dx] : 1;
        os[d] = xs[d] * (dr >= 0 ? tiles[c].reps[dr] : 1);
        m *= os[d];
      }
      ag_array *out = test_array_new(dev, t, nd, os);
      ref_check_ok(ag_tile(NULL, ax, n, tiles[c].reps, out), "ag_tile case %zu of %s", c, ref_name(t));
      ref_c *want = test_alloc((m + 1) * sizeof *want);
      for (size_t i = 0; i < m; i++) { /* out's index, wrapped onto x's along each axis */
        size_t rem = i, src = 0, stride = 1, oc[4];
        for (int d = nd - 1; d >= 0; d--) {
          oc[d] = rem % os[d];
          rem /= os[d];
        }
        for (int d = nd - 1; d >= 0; d--) {
          src += (oc[d] % xs[d]) * stride;
          stride *= xs[d];
        }
        want[i] = ref_get(t, x, src);
      }
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, m, REF_EXACT, "ag_tile case %zu of %s", c, ref_name(t));
      TEST_FREE(got, want);
      ag_array_free(out);
    }
    for (int axis = -1; axis < 3; axis++) {
      const size_t r = 3;
      bool flat = axis < 0;
      size_t os[3] = {2, 3, 4}, m = N * r;
      if (!flat)
        os[axis] *= r;
      else
        os[0] = m;
      ag_array *out = test_array_new(dev, t, flat ? 1 : 3, os);
      ref_check_ok(ag_repeat(NULL, ax, r, flat ? AG_AXIS_ALL : axis, out), "ag_repeat along %d of %s", axis,
                   ref_name(t));
      ref_c *want = test_alloc(m * sizeof *want);
      for (size_t i = 0; i < m; i++) {
        if (flat) {
          want[i] = ref_get(t, x, i / r);
          continue;
        }
        size_t oc[3] = {i / (os[1] * os[2]), i / os[2] % os[1], i % os[2]};
        oc[axis] /= r;
        want[i] = ref_get(t, x, (oc[0] * 3 + oc[1]) * 4 + oc[2]);
      }
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, m, REF_EXACT, "ag_repeat along %d of %s", axis, ref_name(t));
      TEST_FREE(got, want);
      ag_array_free(out);
    }
    TEST_FREE(x);
    ag_array_free(ax);
  }
  /* A transposed view in ({3, 2} from {2, 3}), every other column of a wider array out. */
  const float v[6] = {1, 2, 3, 4, 5, 6};
  ag_array *a = test_array_from(dev, AG_F32, 2, (const size_t[]){2, 3}, v), *at = NULL, *wide = NULL, *ov = NULL;
  CHECK_OK(ag_array_permute(a, (const int[]){1, 0}, &at));
  wide = test_array_new(dev, AG_F32, 2, (const size_t[]){3, 8});
  CHECK_OK(ag_fill(NULL, wide, 0));
  const ag_index cols[2] = {ag_all(), ag_slice(0, AG_INDEX_NONE, 2)};
  CHECK_OK(ag_array_view(wide, 2, cols, &ov));
  CHECK_OK(ag_tile(NULL, at, 1, (const size_t[]){2}, ov));
  const float want[24] = {1, 0, 4, 0, 1, 0, 4, 0, 2, 0, 5, 0, 2, 0, 5, 0, 3, 0, 6, 0, 3, 0, 6, 0};
  void *got = test_array_read(wide);
  CHECK_BYTES(got, want, sizeof want, "tile of a.T by 2 into every other column");
  free(got);
  TEST_ARRAY_FREE(a, at, wide, ov);
}
END_TEST

START_TEST(bad_arguments_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t s23[2] = {2, 3}, s24[2] = {2, 4}, s33[2] = {3, 3}, s3 = 3;
  ag_array *a = test_array_new(dev, AG_F32, 2, s23), *b = test_array_new(dev, AG_F32, 2, s24);
  ag_array *o = test_array_new(dev, AG_F32, 2, s33), *v = test_array_new(dev, AG_F32, 1, &s3);
  ag_array *oi = test_array_new(dev, AG_I32, 2, s23), *bc = NULL;
  CHECK_OK(ag_array_broadcast_to(v, 2, s33, &bc));
  const ag_array *ab[2] = {a, b}, *aa[2] = {a, a}, *av[2] = {a, v}, *an[2] = {a, NULL};
  const int64_t one = 1;
  const int ax0 = 0, ax5 = 5;
  CHECK_REFUSED(ag_concat(NULL, 2, ab, 0, o), AG_ERR_MISMATCH, "ag_concat", "xs[1]");
  CHECK_REFUSED(ag_concat(NULL, 2, aa, 1, o), AG_ERR_MISMATCH, "ag_concat", "xs[0]");
  CHECK_REFUSED(ag_concat(NULL, 2, aa, 0, o), AG_ERR_MISMATCH, "ag_concat", "axis");
  CHECK_REFUSED(ag_concat(NULL, 2, av, 0, o), AG_ERR_MISMATCH, "ag_concat", "xs[1]");
  CHECK_REFUSED(ag_concat(NULL, 2, an, 0, o), AG_ERR_INVALID_ARGUMENT, "ag_concat", "xs[1]");
  CHECK_REFUSED(ag_concat(NULL, 0, ab, 0, o), AG_ERR_INVALID_ARGUMENT, "ag_concat", "n");
  CHECK_REFUSED(ag_concat(NULL, 2, aa, 2, o), AG_ERR_INVALID_ARGUMENT, "ag_concat", "axis");
  CHECK_REFUSED(ag_concat(NULL, 1, (const ag_array *const[]){o}, 0, bc), AG_ERR_INVALID_ARGUMENT, "ag_concat", "out");
  CHECK_REFUSED(ag_roll(NULL, a, 1, &one, &ax5, a), AG_ERR_INVALID_ARGUMENT, "ag_roll", "axes[0]");
  CHECK_REFUSED(ag_roll(NULL, a, 2, &one, NULL, a), AG_ERR_INVALID_ARGUMENT, "ag_roll", "axes");
  CHECK_REFUSED(ag_roll(NULL, a, 1, &one, &ax0, oi), AG_ERR_MISMATCH, "ag_roll", "out");
  CHECK_REFUSED(ag_roll(NULL, a, 1, &one, &ax0, o), AG_ERR_MISMATCH, "ag_roll", "out");
  CHECK_REFUSED(ag_roll(NULL, o, 1, &one, &ax0, bc), AG_ERR_INVALID_ARGUMENT, "ag_roll", "out");
  const size_t two = 2;
  CHECK_REFUSED(ag_tile(NULL, a, 1, &two, o), AG_ERR_MISMATCH, "ag_tile", "out");
  CHECK_REFUSED(ag_tile(NULL, a, 9, &two, o), AG_ERR_INVALID_ARGUMENT, "ag_tile", "n");
  CHECK_REFUSED(ag_tile(NULL, a, 1, NULL, o), AG_ERR_INVALID_ARGUMENT, "ag_tile", "reps");
  CHECK_REFUSED(ag_tile(NULL, a, 1, &two, oi), AG_ERR_MISMATCH, "ag_tile", "out");
  CHECK_REFUSED(ag_repeat(NULL, a, 2, 2, o), AG_ERR_INVALID_ARGUMENT, "ag_repeat", "axis");
  CHECK_REFUSED(ag_repeat(NULL, a, 2, 0, o), AG_ERR_MISMATCH, "ag_repeat", "out");
  CHECK_REFUSED(ag_repeat(NULL, o, 1, 0, bc), AG_ERR_INVALID_ARGUMENT, "ag_repeat", "out");
  TEST_ARRAY_FREE(a, b, o, v, oi, bc);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "concat joins along every axis in every dtype", concat_joins_along_every_axis_in_every_dtype);
  add_device_test(s, "concat takes views and promotes", concat_takes_views_and_promotes);
  add_device_test(s, "roll moves every element where numpy does", roll_moves_every_element_where_numpy_does);
  add_device_test(s, "tile and repeat place every element where numpy does",
                  tile_and_repeat_place_every_element_where_numpy_does);
  add_device_test(s, "bad arguments are refused by name", bad_arguments_are_refused_by_name);
}
