/* tests/test_select.c — ag_take, ag_take_along_axis, ag_searchsorted, ag_nonzero,
   ag_mask_select and ag_unique (ops.h, the select kernel family) against references computed
   here element by element as numpy (and the standard, for unique's NaN) defines them: every
   dtype each takes, every axis, negative and out-of-range indices, NaN and signed zeros,
   empty results, views, and the arguments each refuses. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* Values with repeats, and for floats NaN, -0.0 and +0.0 among them. */
static void *sample(ag_dtype t, size_t n, unsigned seed) {
  void *x = test_alloc(n * ref_size(t));
  ref_random(t, x, n, seed, 0, ref_is_bool(t) ? 1 : 5);
  if (ref_is_float(t) || ref_is_complex(t))
    for (size_t i = 0; i < n; i++) {
      ref_c v = ref_get(t, x, i);
      ref_put(t, x, i, i % 7 == 3 ? NAN : i % 5 == 1 ? -0.0 : i % 3 == 0 ? CMPLXL(roundl(creall(v)), 0) : v);
    }
  return x;
}

START_TEST(take_gathers_along_every_axis_in_every_dtype) {
  ag_device *dev = test_device(_i);
  const size_t shape[3] = {3, 4, 5}, n = 60;
  const int64_t idx[5] = {2, -1, 0, 2, -3};
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = sample(t, n, 10u + (unsigned)d);
    ag_array *ax = test_array_from(dev, t, 3, shape, x);
    for (int axis = 0; axis < 3; axis++) {
      size_t len = shape[axis], outer = 1, inner = 1;
      for (int k = 0; k < axis; k++)
        outer *= shape[k];
      for (int k = axis + 1; k < 3; k++)
        inner *= shape[k];
      /* take: 5 indices (those valid for the axis: -3 needs a length of 3). */
      size_t ni = 5, oshape[3] = {shape[0], shape[1], shape[2]};
      oshape[axis] = ni;
      ag_array *ai = test_array_1d(dev, AG_I64, ni, idx), *out = test_array_new(dev, t, 3, oshape);
      ref_check_ok(ag_take(NULL, ax, ai, axis, out), "ag_take of %s along %d", ref_name(t), axis);
      ref_c *want = test_alloc(outer * ni * inner * sizeof *want);
      for (size_t o = 0; o < outer; o++)
        for (size_t k = 0; k < ni; k++)
          for (size_t j = 0; j < inner; j++) {
            int64_t s = idx[k] < 0 ? idx[k] + (int64_t)len : idx[k];
            want[(o * ni + k) * inner + j] = ref_get(t, x, (o * len + (size_t)s) * inner + j);
          }
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, outer * ni * inner, REF_EXACT, "ag_take of %s along axis %d", ref_name(t), axis);
      free(got);
      /* take_along_axis: indices of x's shape but 2 along the axis, each (o + k + j) % len. */
      size_t ishape[3] = {shape[0], shape[1], shape[2]};
      ishape[axis] = 2;
      size_t m = outer * 2 * inner;
      int64_t *along = test_alloc(m * sizeof *along);
      for (size_t o = 0; o < outer; o++)
        for (size_t k = 0; k < 2; k++)
          for (size_t j = 0; j < inner; j++)
            along[(o * 2 + k) * inner + j] = (int64_t)((o + k + j) % len) - (k == 1 ? (int64_t)len : 0);
      ag_array *aa = test_array_from(dev, AG_I64, 3, ishape, along), *oa = test_array_new(dev, t, 3, ishape);
      ref_check_ok(ag_take_along_axis(NULL, ax, aa, axis, oa), "ag_take_along_axis of %s along %d", ref_name(t), axis);
      for (size_t o = 0; o < outer; o++)
        for (size_t k = 0; k < 2; k++)
          for (size_t j = 0; j < inner; j++)
            want[(o * 2 + k) * inner + j] = ref_get(t, x, (o * len + (o + k + j) % len) * inner + j);
      got = test_array_read(oa);
      ref_check(t, got, want, NULL, m, REF_EXACT, "ag_take_along_axis of %s along axis %d", ref_name(t), axis);
      TEST_FREE(got, want, along);
      TEST_ARRAY_FREE(ai, out, aa, oa);
    }
    /* An index out of range: refused, whichever side. */
    ag_array *bad = test_array_1d(dev, AG_I64, 2, (const int64_t[]){1, 3}), *o2 = NULL;
    const size_t o2shape[3] = {2, 4, 5};
    o2 = test_array_new(dev, t, 3, o2shape);
    CHECK_REFUSED(ag_take(NULL, ax, bad, 0, o2), AG_ERR_OUT_OF_RANGE, "ag_take", "indices");
    ag_array *bad2 = test_array_1d(dev, AG_I64, 2, (const int64_t[]){-4, 0});
    CHECK_REFUSED(ag_take(NULL, ax, bad2, 0, o2), AG_ERR_OUT_OF_RANGE, "ag_take", "indices");
    free(x);
    TEST_ARRAY_FREE(ax, bad, bad2, o2);
  }
}
END_TEST

/* The count of x1's elements before v in the sort's order (NaN last), or not after it. */
static size_t search_reference(ag_dtype t, const void *x1, size_t m, ref_c v, bool right) {
  size_t c = 0;
  long double b = creall(v);
  for (size_t i = 0; i < m; i++) {
    long double a = creall(ref_get(t, x1, i));
    bool lt = a < b || (isnan(b) && !isnan(a)), gt = b < a || (isnan(a) && !isnan(b));
    c += right ? !gt : lt;
  }
  return c;
}

START_TEST(searchsorted_finds_both_sides_in_every_real_dtype) {
  ag_device *dev = test_device(_i);
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (ref_is_complex(t) || !test_dtype_runs(dev, t))
      continue;
    /* x1: 40 values sorted (NaN last); x2: 3 x 7 values, some equal to x1's, NaN among them. */
    const size_t m = 40, n2 = 21, shape2[2] = {3, 7};
    void *x1 = sample(t, m, 30u + (unsigned)d), *x2 = sample(t, n2, 60u + (unsigned)d);
    ag_array *a1 = test_array_1d(dev, t, m, x1), *s1 = test_array_new(dev, t, 1, &m);
    CHECK_OK(ag_sort(NULL, a1, 0, false, s1));
    void *sorted = test_array_read(s1);
    ag_array *a2 = test_array_from(dev, t, 2, shape2, x2), *out = test_array_new(dev, AG_I64, 2, shape2);
    ref_c *want = test_alloc(n2 * sizeof *want);
    for (int right = 0; right < 2; right++) {
      ref_check_ok(ag_searchsorted(NULL, s1, a2, right, out), "ag_searchsorted of %s", ref_name(t));
      for (size_t i = 0; i < n2; i++)
        want[i] = (long double)search_reference(t, sorted, m, ref_get(t, x2, i), right);
      void *got = test_array_read(out);
      ref_check(AG_I64, got, want, NULL, n2, REF_EXACT, "ag_searchsorted of %s, side %s", ref_name(t),
                right ? "right" : "left");
      free(got);
    }
    TEST_FREE(x1, x2, sorted, want);
    TEST_ARRAY_FREE(a1, s1, a2, out);
  }
}
END_TEST

START_TEST(nonzero_and_mask_select_keep_what_is_true) {
  ag_device *dev = test_device(_i);
  const size_t shape[3] = {4, 3, 6}, n = 72;
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = sample(t, n, 80u + (unsigned)d);
    ag_array *ax = test_array_from(dev, t, 3, shape, x), *nz = NULL;
    ref_check_ok(ag_nonzero(NULL, ax, &nz), "ag_nonzero of %s", ref_name(t));
    size_t count = 0;
    ref_c *want = test_alloc(3 * n * sizeof *want);
    for (size_t i = 0; i < n; i++)
      count += ref_get(t, x, i) != 0;
    ck_assert_int_eq(ag_array_ndim(nz), 2);
    ck_assert_uint_eq(ag_array_shape(nz)[0], 3);
    ck_assert_uint_eq(ag_array_shape(nz)[1], count);
    for (size_t i = 0, c = 0; i < n; i++)
      if (ref_get(t, x, i) != 0) {
        want[c] = (long double)(i / 18);
        want[count + c] = (long double)(i / 6 % 3);
        want[2 * count + c] = (long double)(i % 6);
        c++;
      }
    void *got = test_array_read(nz);
    ref_check(AG_I64, got, want, NULL, 3 * count, REF_EXACT, "ag_nonzero of %s", ref_name(t));
    free(got);
    /* x[mask] for a mask of x's shape, and of its first two axes (blocks of 6). */
    unsigned char *mk = test_alloc(n);
    for (size_t i = 0; i < n; i++)
      mk[i] = (i * 7 + (size_t)d) % 3 == 0;
    for (int nd = 3; nd >= 2; nd--) {
      ag_array *am = test_array_from(dev, AG_BOOL, nd, shape, mk), *sel = NULL;
      ref_check_ok(ag_mask_select(NULL, ax, am, &sel), "ag_mask_select of %s by a %d-D mask", ref_name(t), nd);
      size_t block = nd == 3 ? 1 : 6, nm = n / block, c = 0;
      for (size_t k = 0; k < nm; k++)
        if (mk[k])
          for (size_t j = 0; j < block; j++)
            want[c++] = ref_get(t, x, k * block + j);
      ck_assert_int_eq(ag_array_ndim(sel), nd == 3 ? 1 : 2);
      ck_assert_uint_eq(ag_array_shape(sel)[0], c / block);
      got = test_array_read(sel);
      ref_check(t, got, want, NULL, c, REF_EXACT, "ag_mask_select of %s by a %d-D mask", ref_name(t), nd);
      free(got);
      TEST_ARRAY_FREE(am, sel);
    }
    /* Nothing true: empty results. */
    ag_array *zeros = test_array_new(dev, t, 3, shape), *none = NULL;
    CHECK_OK(ag_fill(NULL, zeros, 0));
    CHECK_OK(ag_nonzero(NULL, zeros, &none));
    ck_assert_uint_eq(ag_array_shape(none)[1], 0);
    TEST_FREE(x, want, mk);
    TEST_ARRAY_FREE(ax, nz, zeros, none);
  }
}
END_TEST

/* x before y in unique's order (NaN last; -0.0 == +0.0); equal NaNs are distinct. */
static int unique_order(ref_c a, ref_c b) {
  long double x = creall(a), y = creall(b);
  if (isnan(x) || isnan(y))
    return isnan(x) && isnan(y) ? 0 : isnan(x) ? 1 : -1;
  return x < y ? -1 : x > y;
}

START_TEST(unique_gives_values_first_indices_inverse_and_counts) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {9, 11}, n = 99;
  for (int d = 0; d < AG_DTYPE_COUNT; d++) {
    ag_dtype t = all_dtypes[d];
    if (ref_is_complex(t) || !test_dtype_runs(dev, t))
      continue;
    void *x = sample(t, n, 90u + (unsigned)d);
    ag_array *ax = test_array_from(dev, t, 2, shape, x), *v = NULL, *first = NULL, *inv = NULL, *cnt = NULL;
    ref_check_ok(ag_unique(NULL, ax, &v, &first, &inv, &cnt), "ag_unique of %s", ref_name(t));
    /* The reference: for each element, whether an earlier one equals it (NaN equals nothing);
       the distinct ones sorted (stably: the first of equals stays first). */
    size_t *firsts = test_alloc(n * sizeof *firsts), nu = 0;
    for (size_t i = 0; i < n; i++) {
      bool seen = false;
      for (size_t j = 0; j < i && !seen; j++)
        seen = !isnan(creall(ref_get(t, x, i))) && unique_order(ref_get(t, x, j), ref_get(t, x, i)) == 0;
      if (!seen)
        firsts[nu++] = i;
    }
    for (size_t a = 1; a < nu; a++) /* insertion sort: stable */
      for (size_t b = a; b > 0 && unique_order(ref_get(t, x, firsts[b - 1]), ref_get(t, x, firsts[b])) > 0; b--) {
        size_t s = firsts[b];
        firsts[b] = firsts[b - 1];
        firsts[b - 1] = s;
      }
    ref_c *wv = test_alloc(nu * sizeof *wv), *wf = test_alloc(nu * sizeof *wf), *wc = test_alloc(nu * sizeof *wc);
    ref_c *wi = test_alloc(n * sizeof *wi);
    for (size_t u = 0; u < nu; u++) {
      wv[u] = ref_get(t, x, firsts[u]);
      wf[u] = (long double)firsts[u];
      wc[u] = 0;
    }
    for (size_t i = 0; i < n; i++)
      for (size_t u = 0; u < nu; u++) {
        bool same = isnan(creall(ref_get(t, x, i))) ? firsts[u] == i
                                                     : unique_order(ref_get(t, x, i), wv[u]) == 0;
        if (same) {
          wi[i] = (long double)u;
          wc[u] += 1;
          break;
        }
      }
    ck_assert_uint_eq(ag_array_shape(v)[0], nu);
    void *g[4] = {test_array_read(v), test_array_read(first), test_array_read(inv), test_array_read(cnt)};
    ref_check(t, g[0], wv, NULL, nu, REF_EXACT, "ag_unique's values of %s", ref_name(t));
    ref_check(AG_I64, g[1], wf, NULL, nu, REF_EXACT, "ag_unique's indices of %s", ref_name(t));
    ref_check(AG_I64, g[2], wi, NULL, n, REF_EXACT, "ag_unique's inverse of %s", ref_name(t));
    ref_check(AG_I64, g[3], wc, NULL, nu, REF_EXACT, "ag_unique's counts of %s", ref_name(t));
    ck_assert_int_eq(ag_array_ndim(inv), 2);
    /* Values alone, from a transposed view. */
    ag_array *xt = NULL, *vt = NULL;
    CHECK_OK(ag_array_permute(ax, (const int[]){1, 0}, &xt));
    CHECK_OK(ag_unique(NULL, xt, &vt, NULL, NULL, NULL));
    void *gt = test_array_read(vt);
    ref_check(t, gt, wv, NULL, nu, REF_EXACT, "ag_unique's values of a transposed %s view", ref_name(t));
    TEST_FREE(x, firsts, wv, wf, wc, wi, g[0], g[1], g[2], g[3], gt);
    TEST_ARRAY_FREE(ax, v, first, inv, cnt, xt, vt);
  }
}
END_TEST

START_TEST(bad_arguments_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 4, sq[2] = {2, 2};
  ag_array *f = test_array_new(dev, AG_F32, 1, &n), *l = test_array_new(dev, AG_I64, 1, &n);
  ag_array *i = test_array_new(dev, AG_I32, 1, &n), *c = test_array_new(dev, AG_C64, 1, &n);
  ag_array *m = test_array_new(dev, AG_F32, 2, sq), *b = test_array_new(dev, AG_BOOL, 1, &n), *z = NULL, *r = NULL;
  ag_array *l2 = test_array_new(dev, AG_I64, 2, sq);
  CHECK_OK(ag_array_create(dev, AG_F32, 0, NULL, &z));
  CHECK_OK(ag_fill(NULL, l, 0));
  CHECK_REFUSED(ag_take(NULL, f, i, 0, f), AG_ERR_MISMATCH, "ag_take", "indices", "i64");
  CHECK_REFUSED(ag_take(NULL, f, l, 1, f), AG_ERR_INVALID_ARGUMENT, "ag_take", "axis");
  CHECK_REFUSED(ag_take(NULL, f, l2, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_take", "indices");
  CHECK_REFUSED(ag_take(NULL, f, l, 0, m), AG_ERR_MISMATCH, "ag_take", "out");
  CHECK_REFUSED(ag_take(NULL, z, l, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_take", "x");
  CHECK_REFUSED(ag_take(NULL, f, NULL, 0, f), AG_ERR_INVALID_ARGUMENT, "ag_take", "indices");
  CHECK_REFUSED(ag_take_along_axis(NULL, m, l, 0, m), AG_ERR_MISMATCH, "ag_take_along_axis", "indices");
  CHECK_REFUSED(ag_searchsorted(NULL, m, f, false, l), AG_ERR_INVALID_ARGUMENT, "ag_searchsorted", "x1");
  CHECK_REFUSED(ag_searchsorted(NULL, f, i, false, l), AG_ERR_MISMATCH, "ag_searchsorted", "x1", "x2");
  CHECK_REFUSED(ag_searchsorted(NULL, f, f, false, f), AG_ERR_MISMATCH, "ag_searchsorted", "out", "i64");
  CHECK_REFUSED(ag_searchsorted(NULL, c, c, false, l), AG_ERR_UNSUPPORTED, "ag_searchsorted", "x1", "c64");
  CHECK_REFUSED(ag_nonzero(NULL, z, &r), AG_ERR_INVALID_ARGUMENT, "ag_nonzero", "x");
  CHECK_REFUSED(ag_nonzero(NULL, f, NULL), AG_ERR_INVALID_ARGUMENT, "ag_nonzero", "out");
  CHECK_REFUSED(ag_mask_select(NULL, f, f, &r), AG_ERR_MISMATCH, "ag_mask_select", "mask", "bool");
  CHECK_REFUSED(ag_mask_select(NULL, m, b, &r), AG_ERR_MISMATCH, "ag_mask_select", "mask");
  CHECK_REFUSED(ag_unique(NULL, c, &r, NULL, NULL, NULL), AG_ERR_UNSUPPORTED, "ag_unique", "x", "c64");
  CHECK_REFUSED(ag_unique(NULL, NULL, &r, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT, "ag_unique", "x");
  ck_assert_ptr_null(r);
  TEST_ARRAY_FREE(f, l, i, c, m, b, z, l2);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "take gathers along every axis in every dtype", take_gathers_along_every_axis_in_every_dtype);
  add_device_test(s, "searchsorted finds both sides in every real dtype",
                  searchsorted_finds_both_sides_in_every_real_dtype);
  add_device_test(s, "nonzero and mask_select keep what is true", nonzero_and_mask_select_keep_what_is_true);
  add_device_test(s, "unique gives values, first indices, inverse and counts",
                  unique_gives_values_first_indices_inverse_and_counts);
  add_device_test(s, "bad arguments are refused by name", bad_arguments_are_refused_by_name);
}
