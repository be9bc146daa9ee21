/* tests/test_views.c - strided arrays (array.h's views, 0-d arrays, ag_copy between layouts,
   operations and reductions taking views, numpy's broadcasting), on every device, against
   plain C references that walk the parent's host copy by index arithmetic of their own. The
   Python suite (tests/python/test_views.py) compares the same operations with numpy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* Element (i, j) of the C-ordered rows x cols host matrix @p m of @p es-byte elements. */
static const unsigned char *at2(const unsigned char *m, size_t cols, size_t es, size_t i, size_t j) {
  return m + (i * cols + j) * es;
}

/* A transposed view, a view flipped along both axes and a view of every second row from the
   end, each copied into a contiguous array and read back, for every element size (70 x 67:
   whole and partial tiles of every edge AG_TILE_STAGED_OF gives on CPU devices). */
START_TEST(copies_between_layouts_move_every_element_of_every_dtype) {
  ag_device *dev = test_device(_i);
  const size_t rows = 70, cols = 67, shape[2] = {rows, cols};
  for (int t = 0; t < AG_DTYPE_COUNT; t++) {
    size_t es = ag_dtype_size((ag_dtype)t);
    unsigned char *host = malloc(rows * cols * es), *want = malloc(rows * cols * es);
    test_fill_bytes(host, rows * cols * es, 17u + (unsigned)t);
    ag_array *a = test_array_from(dev, (ag_dtype)t, 2, shape, host);
    ag_array *tv, *fv, *sv;
    CHECK_OK(ag_array_transpose(a, &tv));
    CHECK_OK(ag_array_flip(a, 0, NULL, &fv));
    const ag_index every2[1] = {ag_slice(AG_INDEX_NONE, AG_INDEX_NONE, -2)};
    CHECK_OK(ag_array_view(a, 1, every2, &sv));
    ck_assert(!ag_array_is_contiguous(tv) && !ag_array_is_contiguous(fv) && !ag_array_is_contiguous(sv));
    ck_assert_int_eq(ag_array_strides(tv)[0], 1);
    ck_assert_int_eq(ag_array_strides(tv)[1], (ptrdiff_t)cols);
    ck_assert_int_eq(ag_array_strides(fv)[1], -1);

    /* Transposed: out[j][i] = a[i][j]. */
    ag_array *c = test_array_new(dev, (ag_dtype)t, 2, (size_t[]){cols, rows});
    CHECK_OK(ag_copy(NULL, tv, c));
    for (size_t j = 0; j < cols; j++)
      for (size_t i = 0; i < rows; i++)
        memcpy(want + (j * rows + i) * es, at2(host, cols, es, i, j), es);
    unsigned char *got = test_array_read(c);
    CHECK_BYTES(got, want, rows * cols * es, "a transposed view copied");
    free(got);
    /* And back: a contiguous array written into a transposed view of another. */
    ag_array *b = test_array_new(dev, (ag_dtype)t, 2, shape), *bt;
    CHECK_OK(ag_array_transpose(b, &bt));
    CHECK_OK(ag_copy(NULL, c, bt));
    got = test_array_read(b);
    CHECK_BYTES(got, host, rows * cols * es, "a contiguous array copied into a transposed view");
    free(got);
    /* Flipped: to_host gathers the view itself. */
    for (size_t i = 0; i < rows; i++)
      for (size_t j = 0; j < cols; j++)
        memcpy(want + (i * cols + j) * es, at2(host, cols, es, rows - 1 - i, cols - 1 - j), es);
    got = test_array_read(fv);
    CHECK_BYTES(got, want, rows * cols * es, "a view flipped along both axes");
    free(got);
    /* Rows 36, 34, ..., 0. */
    ck_assert_uint_eq(ag_array_dim(sv, 0), (rows + 1) / 2);
    for (size_t i = 0; i < (rows + 1) / 2; i++)
      memcpy(want + i * cols * es, at2(host, cols, es, rows - 1 - 2 * i, 0), cols * es);
    ag_array *sc = test_array_new(dev, (ag_dtype)t, 2, (size_t[]){(rows + 1) / 2, cols});
    CHECK_OK(ag_copy(NULL, sv, sc));
    got = test_array_read(sc);
    CHECK_BYTES(got, want, (rows + 1) / 2 * cols * es, "every second row from the end");
    free(got);
    ag_array *arrays[] = {a, tv, fv, sv, c, b, bt, sc};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
      ag_array_free(arrays[k]);
    free(host);
    free(want);
  }
}
END_TEST

/* Python's slice rules on one axis: clipping, negative bounds and steps, empty results. */
START_TEST(slices_follow_python) {
  ag_device *dev = test_device(_i);
  const size_t n = 11;
  float host[11];
  for (size_t i = 0; i < n; i++)
    host[i] = (float)i;
  ag_array *a = test_array_from(dev, AG_F32, 1, &n, host);
  static const struct {
    int64_t start, stop, step;
  } cases[] = {{2, 9, 3},          {-3, AG_INDEX_NONE, 1}, {AG_INDEX_NONE, AG_INDEX_NONE, -1}, {9, 2, -3},
               {-100, 100, 4},     {100, -100, -5},        {5, 5, 1},                          {5, 2, 1},
               {AG_INDEX_NONE, -12, -1}, {-1, AG_INDEX_NONE, -4}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    /* The reference: Python's slice.indices, then the walk. */
    int64_t step = cases[k].step, len = (int64_t)n, start = cases[k].start, stop = cases[k].stop;
    int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? len : len - 1;
    start = start == AG_INDEX_NONE ? (step > 0 ? lo : hi) : start < 0 ? (start + len < lo ? lo : start + len)
                                                                     : (start > hi ? hi : start);
    stop = stop == AG_INDEX_NONE ? (step > 0 ? hi : lo) : stop < 0 ? (stop + len < lo ? lo : stop + len)
                                                                  : (stop > hi ? hi : stop);
    float want[11];
    size_t m = 0;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
      want[m++] = host[i];
    ag_array *v;
    const ag_index idx[1] = {ag_slice(cases[k].start, cases[k].stop, cases[k].step)};
    CHECK_OK(ag_array_view(a, 1, idx, &v));
    ck_assert_msg(ag_array_dim(v, 0) == m, "%s: slice %zu has %zu elements, expected %zu", test_label(), k,
                  ag_array_dim(v, 0), m);
    if (m > 0) {
      float *got = test_array_read(v);
      CHECK_BYTES(got, want, m * sizeof *want, "a slice");
      free(got);
    }
    ag_array_free(v);
  }
  ag_array_free(a);
}
END_TEST

/* Integer indices drop their axis (down to a 0-d view), None adds one, an ellipsis stands for
   the axes no entry names; permute, swapaxes, expand_dims and squeeze move axes as numpy. */
START_TEST(indices_new_axes_and_permutations_place_every_axis) {
  ag_device *dev = test_device(_i);
  const size_t shape[4] = {2, 3, 4, 5};
  float host[120];
  for (int i = 0; i < 120; i++)
    host[i] = (float)i;
  ag_array *a = test_array_from(dev, AG_F32, 4, shape, host);
  /* a[1, ..., None, -2]: shape {3, 4, 1}, element (j, k, 0) = a[1][j][k][3]. */
  const ag_index idx[4] = {ag_at(1), ag_ellipsis(), ag_newaxis(), ag_at(-2)};
  ag_array *v;
  CHECK_OK(ag_array_view(a, 4, idx, &v));
  ck_assert_int_eq(ag_array_ndim(v), 3);
  ck_assert_uint_eq(ag_array_dim(v, 0), 3);
  ck_assert_uint_eq(ag_array_dim(v, 1), 4);
  ck_assert_uint_eq(ag_array_dim(v, 2), 1);
  float *got = test_array_read(v);
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 4; k++)
      ck_assert_float_eq(got[j * 4 + k], host[((1 * 3 + j) * 4 + k) * 5 + 3]);
  free(got);
  ag_array_free(v);
  /* a[1, 2, 3, 4]: a 0-d view of one element. */
  const ag_index one[4] = {ag_at(1), ag_at(2), ag_at(3), ag_at(4)};
  CHECK_OK(ag_array_view(a, 4, one, &v));
  ck_assert_int_eq(ag_array_ndim(v), 0);
  ck_assert_uint_eq(ag_array_size(v), 1);
  float x = 0;
  CHECK_OK(ag_array_to_host(v, &x, sizeof x));
  ck_assert_float_eq(x, host[119]);
  ag_array_free(v);
  /* permute {2, 0, 3, 1}: element (k, i, l, j) = a[i][j][k][l]. */
  ag_array *p;
  CHECK_OK(ag_array_permute(a, (const int[]){2, 0, -1, 1}, &p));
  got = test_array_read(p);
  for (int k = 0, n = 0; k < 4; k++)
    for (int i = 0; i < 2; i++)
      for (int l = 0; l < 5; l++)
        for (int j = 0; j < 3; j++, n++)
          ck_assert_float_eq(got[n], host[((i * 3 + j) * 4 + k) * 5 + l]);
  free(got);
  /* swapaxes(0, -1) of that, expand_dims at -1, squeeze it back. */
  ag_array *s, *e, *q;
  CHECK_OK(ag_array_swapaxes(p, 0, -1, &s));
  ck_assert_uint_eq(ag_array_dim(s, 0), 3);
  ck_assert_uint_eq(ag_array_dim(s, 3), 4);
  CHECK_OK(ag_array_expand_dims(s, -1, &e));
  ck_assert_int_eq(ag_array_ndim(e), 5);
  ck_assert_uint_eq(ag_array_dim(e, 4), 1);
  CHECK_OK(ag_array_squeeze(e, 1, (const int[]){4}, &q));
  ck_assert_int_eq(ag_array_ndim(q), 4);
  float *gs = test_array_read(s), *gq = test_array_read(q);
  CHECK_BYTES(gq, gs, 120 * sizeof(float), "squeeze of expand_dims");
  free(gs);
  free(gq);
  ag_array *arrays[] = {a, p, s, e, q};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    ag_array_free(arrays[k]);
}
END_TEST

/* Every operation takes views: a + b.T, sqrt of a slice with a negative step, a comparison
   and where on views, written into a strided out; numpy's broadcasting of {3, 1} with {1, 4}
   and of a broadcast_to view. */
START_TEST(operations_take_views_and_broadcast_any_shapes) {
  ag_device *dev = test_device(_i);
  const size_t n = 6, sq[2] = {n, n};
  float ha[36], hb[36];
  for (int i = 0; i < 36; i++) {
    ha[i] = (float)(i * 3 % 7) + 0.5f;
    hb[i] = (float)(i % 5) * 1.25f;
  }
  ag_array *a = test_array_from(dev, AG_F32, 2, sq, ha), *b = test_array_from(dev, AG_F32, 2, sq, hb);
  ag_array *bt, *out = test_array_new(dev, AG_F32, 2, sq);
  CHECK_OK(ag_array_transpose(b, &bt));
  CHECK_OK(ag_add(NULL, a, bt, out));
  float *got = test_array_read(out);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      ck_assert_float_eq(got[i * n + j], ha[i * n + j] + hb[j * n + i]);
  free(got);
  /* sqrt of a's rows reversed, written into out's transpose. */
  ag_array *ar, *ot;
  const ag_index rev[1] = {ag_slice(AG_INDEX_NONE, AG_INDEX_NONE, -1)};
  CHECK_OK(ag_array_view(a, 1, rev, &ar));
  CHECK_OK(ag_array_transpose(out, &ot));
  CHECK_OK(ag_sqrt(NULL, ar, ot));
  got = test_array_read(out);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      ck_assert_float_eq(got[j * n + i], sqrtf(ha[(n - 1 - i) * n + j]));
  free(got);
  /* where(a > b.T, a, b.T) is maximum(a, b.T). */
  ag_array *mask = test_array_new(dev, AG_U8, 2, sq);
  CHECK_OK(ag_compare(NULL, AG_CMP_GT, a, bt, mask));
  CHECK_OK(ag_where(NULL, mask, a, bt, out));
  got = test_array_read(out);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      ck_assert_float_eq(got[i * n + j], fmaxf(ha[i * n + j], hb[j * n + i]));
  free(got);
  /* {3, 1} + {1, 4} into {3, 4}, and {4} broadcast to {3, 4} by a view. */
  float hc[3] = {1, 2, 3}, hd[4] = {10, 20, 30, 40};
  ag_array *c = test_array_from(dev, AG_F32, 2, (size_t[]){3, 1}, hc);
  ag_array *d = test_array_from(dev, AG_F32, 2, (size_t[]){1, 4}, hd);
  ag_array *o34 = test_array_new(dev, AG_F32, 2, (size_t[]){3, 4}), *d1, *dv;
  CHECK_OK(ag_mul(NULL, c, d, o34));
  got = test_array_read(o34);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      ck_assert_float_eq(got[i * 4 + j], hc[i] * hd[j]);
  free(got);
  CHECK_OK(ag_array_reshape(d, 1, (size_t[]){4}, &d1));
  CHECK_OK(ag_array_broadcast_to(d1, 2, (size_t[]){3, 4}, &dv));
  ck_assert_int_eq(ag_array_strides(dv)[0], 0);
  CHECK_OK(ag_sub(NULL, dv, c, o34));
  got = test_array_read(o34);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      ck_assert_float_eq(got[i * 4 + j], hd[j] - hc[i]);
  free(got);
  ag_array *arrays[] = {a, b, bt, out, ar, ot, mask, c, d, o34, d1, dv};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    ag_array_free(arrays[k]);
}
END_TEST

/* Every binary arithmetic operation and numeric dtype on operands that step along different
   axes, read and written in place by the strided family (kernels_shared/strided.h): a (2, 70,
   67) array plus b stored (2, 67, 70) and transposed, into a contiguous out and into a
   transposed view (tiles on CPU devices, AG_TILE_STAGED_OF: 70 x 67 is one whole 64 x 64 tile
   and three partial ones per batch for 1- to 4-byte elements, more of 32 x 32 and 16 x 16 for
   wider ones), and a shifted view of one array into another of the same memory (a[:, 1:] op
   a[:, :-1] into a[:, 1:]), which numpy computes as if the inputs were copied first; against
   ref_binary on host copies. */
START_TEST(binary_operations_walk_views_in_place) {
  ag_device *dev = test_device(_i);
  static const ag_binary_op ops[] = {AG_OP_ADD, AG_OP_SUB,     AG_OP_MUL,    AG_OP_DIV,
                                     AG_OP_POW, AG_OP_MINIMUM, AG_OP_MAXIMUM};
  static const ag_dtype types[] = {AG_U8, AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                   AG_C128, AG_I8, AG_I16, AG_I64, AG_U64};
  const size_t B = 2, R = 70, C = 67, n = B * R * C;
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    ag_dtype t = types[k];
    if (!test_dtype_runs(dev, t))
      continue;
    size_t es = ref_size(t);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      ag_binary_op op = ops[o];
      if (!ref_binary_takes(op, t))
        continue;
      unsigned char *ha = test_alloc(n * es), *hb = test_alloc(n * es), *hbt = test_alloc(n * es);
      bool pw = op == AG_OP_POW, cx = ref_is_complex(t);
      double lo = ref_is_unsigned(t) ? 1 : pw ? (cx ? 0.3 : 0.1) : -20, hi = pw ? (cx ? 1.5 : 4) : 20;
      ref_random(t, ha, n, 10 * k + o, lo, hi);
      ref_random(t, hb, n, 10 * k + o + 1, pw ? -2 : lo, pw ? 2 : hi);
      /* hbt: b's transpose in C order, the operand the view b.T presents. */
      for (size_t z = 0; z < B; z++)
        for (size_t i = 0; i < R; i++)
          for (size_t j = 0; j < C; j++)
            memcpy(hbt + ((z * R + i) * C + j) * es, hb + ((z * C + j) * R + i) * es, es);
      ref_c *want = test_alloc(n * sizeof *want);
      ref_binary(op, t, ha, n, hbt, n, n, want);
      ag_array *a = test_array_from(dev, t, 3, (const size_t[]){B, R, C}, ha);
      ag_array *b = test_array_from(dev, t, 3, (const size_t[]){B, C, R}, hb), *bt;
      CHECK_OK(ag_array_permute(b, (const int[]){0, 2, 1}, &bt));
      ag_array *out = test_array_new(dev, t, 3, (const size_t[]){B, R, C});
      ag_array *store = test_array_new(dev, t, 3, (const size_t[]){B, C, R}), *outt;
      CHECK_OK(ag_array_permute(store, (const int[]){0, 2, 1}, &outt));
      ref_check_ok(ag_binary(NULL, op, a, bt, out), "%s a + b.T", ref_name(t));
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, n, ref_tol_binary(op, t), "op %d, %s, a op b.T", (int)op, ref_name(t));
      free(got);
      ref_check_ok(ag_binary(NULL, op, a, bt, outt), "%s into a transposed view", ref_name(t));
      ag_array *back = test_array_new(dev, t, 3, (const size_t[]){B, R, C});
      CHECK_OK(ag_copy(NULL, outt, back));
      got = test_array_read(back);
      ref_check(t, got, want, NULL, n, ref_tol_binary(op, t), "op %d, %s, into out.T", (int)op, ref_name(t));
      free(got);
      /* a[:, :, 1:] op a[:, :, :-1] into a[:, :, 1:]: each row's want from the host copy. */
      ag_array *right, *left;
      CHECK_OK(ag_array_view(a, 3, (const ag_index[]){ag_all(), ag_all(), ag_slice(1, AG_INDEX_NONE, 1)}, &right));
      CHECK_OK(ag_array_view(a, 3, (const ag_index[]){ag_all(), ag_all(), ag_slice(AG_INDEX_NONE, -1, 1)}, &left));
      size_t m = B * R * (C - 1);
      unsigned char *hr = test_alloc(m * es), *hl = test_alloc(m * es), *res = test_alloc(m * es);
      for (size_t r = 0; r < B * R; r++) {
        memcpy(hr + r * (C - 1) * es, ha + (r * C + 1) * es, (C - 1) * es);
        memcpy(hl + r * (C - 1) * es, ha + r * C * es, (C - 1) * es);
      }
      ref_binary(op, t, hr, m, hl, m, m, want);
      ref_check_ok(ag_binary(NULL, op, right, left, right), "%s a[..., 1:] op a[..., :-1]", ref_name(t));
      got = test_array_read(a);
      for (size_t r = 0; r < B * R; r++)
        memcpy(res + r * (C - 1) * es, (unsigned char *)got + (r * C + 1) * es, (C - 1) * es);
      ref_check(t, res, want, NULL, m, ref_tol_binary(op, t), "op %d, %s, overlapping views", (int)op,
                ref_name(t));
      for (size_t r = 0; r < B * R; r++)
        ck_assert_msg(memcmp((unsigned char *)got + r * C * es, ha + r * C * es, es) == 0,
                      "%s: column 0 of row %zu changed", ref_name(t), r);
      free(got);
      ag_array *arrays[] = {a, b, bt, out, store, outt, back, right, left};
      for (size_t q = 0; q < sizeof arrays / sizeof arrays[0]; q++)
        ag_array_free(arrays[q]);
      free(ha);
      free(hb);
      free(hbt);
      free(hr);
      free(hl);
      free(res);
      free(want);
    }
  }
}
END_TEST

/* Sums and maxima over sets of axes, with and without keepdims, of a contiguous array and of
   a transposed view, against loops over the host copy; the mean scales the sum once. */
START_TEST(reductions_take_any_set_of_axes) {
  ag_device *dev = test_device(_i);
  const size_t shape[3] = {4, 5, 6};
  float host[120];
  for (int i = 0; i < 120; i++)
    host[i] = (float)((i * 37) % 23) - 11.0f;
  ag_array *x = test_array_from(dev, AG_F32, 3, shape, host);
  /* sum over axes 0 and 2: out {5}; keepdims {1, 5, 1}. */
  ag_array *s = test_array_new(dev, AG_F32, 1, (size_t[]){5});
  ag_array *sk = test_array_new(dev, AG_F32, 3, (size_t[]){1, 5, 1});
  CHECK_OK(ag_sum_axes(NULL, x, 2, (const int[]){0, -1}, s));
  CHECK_OK(ag_sum_axes(NULL, x, 2, (const int[]){2, 0}, sk));
  float *got = test_array_read(s), *gk = test_array_read(sk);
  for (int j = 0; j < 5; j++) {
    double want = 0;
    for (int i = 0; i < 4; i++)
      for (int k = 0; k < 6; k++)
        want += host[(i * 5 + j) * 6 + k];
    ck_assert_float_eq_tol(got[j], want, 1e-4);
    ck_assert_float_eq(gk[j], got[j]);
  }
  free(got);
  free(gk);
  /* max over axes 1 and 2 of the transposed view {6, 5, 4}: out {6}. */
  ag_array *xt, *m = test_array_new(dev, AG_F32, 1, (size_t[]){6});
  CHECK_OK(ag_array_transpose(x, &xt));
  CHECK_OK(ag_max_axes(NULL, xt, 2, (const int[]){1, 2}, m));
  got = test_array_read(m);
  for (int k = 0; k < 6; k++) {
    float want = -INFINITY;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 5; j++)
        want = fmaxf(want, host[(i * 5 + j) * 6 + k]);
    ck_assert_float_eq(got[k], want);
  }
  free(got);
  /* The mean over every axis into a 0-d out. */
  ag_array *all = test_array_new(dev, AG_F32, 0, NULL);
  CHECK_OK(ag_mean_axes(NULL, xt, 0, NULL, all));
  float mean = 0;
  CHECK_OK(ag_array_to_host(all, &mean, sizeof mean));
  double want = 0;
  for (int i = 0; i < 120; i++)
    want += host[i];
  ck_assert_float_eq_tol(mean, want / 120, 1e-5);
  /* Refusals: an axis twice, out of the wrong shape. */
  CHECK_REFUSED(ag_sum_axes(NULL, x, 2, (const int[]){1, -2}, s), AG_ERR_INVALID_ARGUMENT, "ag_sum_axes", "axes[1]",
                "twice");
  CHECK_REFUSED(ag_sum_axes(NULL, x, 1, (const int[]){3}, s), AG_ERR_INVALID_ARGUMENT, "ag_sum_axes", "axes[0]");
  CHECK_REFUSED(ag_sum_axes(NULL, x, 1, (const int[]){0}, s), AG_ERR_MISMATCH, "ag_sum_axes", "out");
  ag_array *arrays[] = {x, s, sk, xt, m, all};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    ag_array_free(arrays[k]);
}
END_TEST

/* 0-d arrays: made, filled, added, read. reshape gives a view where the strides allow and a
   copy where they do not. */
START_TEST(zero_d_arrays_and_reshape_of_views) {
  ag_device *dev = test_device(_i);
  ag_array *z = test_array_new(dev, AG_F32, 0, NULL), *w = test_array_new(dev, AG_F32, 0, NULL);
  ck_assert_uint_eq(ag_array_size(z), 1);
  CHECK_OK(ag_fill(NULL, z, 1.5));
  CHECK_OK(ag_add(NULL, z, z, w));
  float v = 0;
  CHECK_OK(ag_array_to_host(w, &v, sizeof v));
  ck_assert_float_eq(v, 3.0f);
  const size_t shape[2] = {4, 6};
  float host[24];
  for (int i = 0; i < 24; i++)
    host[i] = (float)i;
  ag_array *a = test_array_from(dev, AG_F32, 2, shape, host), *cols, *r1, *t, *r2;
  /* a[:, 1:5]: rows of 4 elements 6 apart; {4, 2, 2} splits each row, a view. */
  const ag_index idx[2] = {ag_all(), ag_slice(1, 5, 1)};
  CHECK_OK(ag_array_view(a, 2, idx, &cols));
  CHECK_OK(ag_array_reshape(cols, 3, (size_t[]){4, 2, 2}, &r1));
  ck_assert_ptr_eq(ag_array_buffer(r1, NULL), ag_array_buffer(a, NULL));
  float *got = test_array_read(r1);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      ck_assert_float_eq(got[i * 4 + j], host[i * 6 + 1 + j]);
  free(got);
  /* a.T flattened: no strides give it, so a copy in C order of the transpose. */
  CHECK_OK(ag_array_transpose(a, &t));
  CHECK_OK(ag_array_reshape(t, 1, (size_t[]){24}, &r2));
  ck_assert_ptr_ne(ag_array_buffer(r2, NULL), ag_array_buffer(a, NULL));
  got = test_array_read(r2);
  for (int j = 0; j < 6; j++)
    for (int i = 0; i < 4; i++)
      ck_assert_float_eq(got[j * 4 + i], host[i * 6 + j]);
  free(got);
  ag_array *arrays[] = {z, w, a, cols, r1, t, r2};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    ag_array_free(arrays[k]);
}
END_TEST

/* Bad indices and writes into a broadcast view are refused, naming the argument; functions
   that take contiguous arrays refuse a view rather than reading it wrongly. */
START_TEST(bad_views_and_writes_are_refused) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {3, 4};
  ag_array *a = test_array_new(dev, AG_F32, 2, shape), *v = (ag_array *)1;
  CHECK_OK(ag_fill(NULL, a, 1));
  CHECK_REFUSED(ag_array_view(a, 1, (const ag_index[]){ag_slice(0, 3, 0)}, &v), AG_ERR_INVALID_ARGUMENT,
                "ag_array_view", "idx[0]", "step 0");
  ck_assert_ptr_null(v);
  CHECK_REFUSED(ag_array_view(a, 2, (const ag_index[]){ag_all(), ag_at(4)}, &v), AG_ERR_OUT_OF_RANGE,
                "ag_array_view", "idx[1]");
  CHECK_REFUSED(ag_array_view(a, 2, (const ag_index[]){ag_ellipsis(), ag_ellipsis()}, &v), AG_ERR_INVALID_ARGUMENT,
                "ag_array_view", "idx[1]", "ellipsis");
  CHECK_REFUSED(ag_array_view(a, 3, (const ag_index[]){ag_at(0), ag_at(0), ag_at(0)}, &v), AG_ERR_INVALID_ARGUMENT,
                "ag_array_view", "idx", "3 axes");
  ag_index many[AG_MAX_DIMS + 1];
  for (int k = 0; k < AG_MAX_DIMS + 1; k++)
    many[k] = ag_newaxis();
  CHECK_REFUSED(ag_array_view(a, AG_MAX_DIMS, many, &v), AG_ERR_INVALID_ARGUMENT, "ag_array_view", "AG_MAX_DIMS");
  CHECK_REFUSED(ag_array_permute(a, (const int[]){1, 1}, &v), AG_ERR_INVALID_ARGUMENT, "ag_array_permute", "axes[1]");
  CHECK_REFUSED(ag_array_broadcast_to(a, 2, (const size_t[]){3, 5}, &v), AG_ERR_MISMATCH, "ag_array_broadcast_to",
                "{3, 4}", "{3, 5}");
  CHECK_REFUSED(ag_array_squeeze(a, 1, (const int[]){0}, &v), AG_ERR_INVALID_ARGUMENT, "ag_array_squeeze", "axis 0");
  /* Writes into a broadcast view. */
  ag_array *row = test_array_new(dev, AG_F32, 1, (size_t[]){4}), *bv;
  CHECK_OK(ag_fill(NULL, row, 2));
  CHECK_OK(ag_array_broadcast_to(row, 2, shape, &bv));
  CHECK_REFUSED(ag_copy(NULL, a, bv), AG_ERR_INVALID_ARGUMENT, "ag_copy", "out", "broadcast");
  CHECK_REFUSED(ag_fill(NULL, bv, 3), AG_ERR_INVALID_ARGUMENT, "ag_fill", "broadcast");
  CHECK_REFUSED(ag_add(NULL, a, a, bv), AG_ERR_INVALID_ARGUMENT, "ag_add", "out", "broadcast");
  float *got = test_array_read(row);
  for (int j = 0; j < 4; j++)
    ck_assert_float_eq(got[j], 2.0f);
  free(got);
  /* Shapes that do not broadcast. */
  ag_array *c3 = test_array_new(dev, AG_F32, 1, (size_t[]){3});
  CHECK_OK(ag_fill(NULL, c3, 0));
  CHECK_REFUSED(ag_add(NULL, a, c3, a), AG_ERR_MISMATCH, "ag_add", "{3, 4}", "{3}", "broadcast");
  /* BLAS takes a transposed view (a strided vector through a contiguous temporary). */
  ag_array *t;
  CHECK_OK(ag_array_transpose(a, &t));
  size_t off;
  ck_assert_ptr_nonnull(ag_array_buffer(t, &off)); /* user kernels follow the strides themselves */
  ag_array *o = test_array_new(dev, AG_F32, 2, (size_t[]){4, 3});
  CHECK_OK(ag_fill(NULL, o, 1));
  float *tv = test_array_read(t);
  CHECK_OK(ag_axpy(NULL, 2, t, o));
  float *ov = test_array_read(o);
  for (size_t i = 0; i < 12; i++)
    ck_assert_msg(ov[i] == 2 * tv[i] + 1, "%s: axpy of a transposed view: element %zu is %g, expected %g",
                  test_label(), i, ov[i], 2 * tv[i] + 1);
  free(tv);
  free(ov);
  ag_array *arrays[] = {a, row, bv, c3, t, o};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
    ag_array_free(arrays[k]);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "copies between layouts move every element of every dtype",
                  copies_between_layouts_move_every_element_of_every_dtype);
  add_device_test(s, "slices follow Python", slices_follow_python);
  add_device_test(s, "indices, new axes and permutations place every axis",
                  indices_new_axes_and_permutations_place_every_axis);
  add_device_test(s, "operations take views and broadcast any shapes", operations_take_views_and_broadcast_any_shapes);
  add_device_test(s, "binary operations walk views in place", binary_operations_walk_views_in_place);
  add_device_test(s, "reductions take any set of axes", reductions_take_any_set_of_axes);
  add_device_test(s, "0-d arrays, and reshape of views", zero_d_arrays_and_reshape_of_views);
  add_device_test(s, "bad views and writes are refused", bad_views_and_writes_are_refused);
}
