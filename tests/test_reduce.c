/* tests/test_reduce.c — the reductions of ops.h: sum, mean, min, max, argmin, argmax, dot and
   nrm2 over every element and along each axis of 1-D to 4-D arrays, for every input dtype and
   every output dtype the header allows, against the host references of reference.c; the output
   dtypes and input dtypes refused; float32 accuracy over 2^24 terms; nrm2 at the ends of the
   exponent range; ties, NaN and Inf; unconjugated complex dot; empty arrays; operand errors. */
#include <math.h>
#include <stdlib.h>

#include "reduce_cases.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* Sizes, as for the elementwise operations: 1, less than a vector, several work-groups with a
   ragged end, and more than 2^20 (many work-groups, a multi-stage combination). */
static const size_t sizes[] = {1, 7, 1023, (1u << 20) + 3};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* Every element, every size, every input dtype and every allowed output dtype of the listed
   reductions; the largest size with the natural output only. */
static void check_all_elements(ag_device *dev, const ref_reduction *which, size_t nwhich) {
  for (size_t w = 0; w < nwhich; w++) {
    const reduction *red = NULL;
    for (int k = 0; k < NRED; k++)
      if (reductions[k].r == which[w])
        red = &reductions[k];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k], outs[4];
      if (!test_dtype_runs(dev, t))
        continue;
      int nouts = allowed_outputs(red->r, t, outs);
      for (int o = 0; o < nouts; o++)
        for (int s = 0; s < (o == 0 ? NSIZES : NSIZES - 1); s++)
          check_reduction(dev, red, t, outs[o], 1, &sizes[s], AG_AXIS_ALL, 100u * w + 10u * (unsigned)k + (unsigned)s,
                          NULL);
    }
  }
}

START_TEST(sum_mean_and_dot_of_every_element_match_the_reference) {
  ag_device *dev = test_device(_i);
  const ref_reduction which[] = {REF_SUM, REF_MEAN, REF_DOT};
  check_all_elements(dev, which, 3);
}
END_TEST

START_TEST(min_max_argmin_and_argmax_of_every_element_match_the_reference) {
  ag_device *dev = test_device(_i);
  const ref_reduction which[] = {REF_MIN, REF_MAX, REF_ARGMIN, REF_ARGMAX};
  check_all_elements(dev, which, 4);
}
END_TEST

START_TEST(nrm2_of_every_element_matches_the_reference) {
  ag_device *dev = test_device(_i);
  const ref_reduction which[] = {REF_NRM2};
  check_all_elements(dev, which, 1);
}
END_TEST

START_TEST(reductions_along_each_axis_match_the_reference) {
  ag_device *dev = test_device(_i);
  const struct {
    int ndim;
    size_t shape[4];
  } shapes[] = {{1, {37}}, {2, {37, 53}}, {3, {5, 7, 11}}, {4, {3, 4, 5, 6}}, {2, {300, 1025}}, {3, {2, 2049, 3}}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    for (int axis = 0; axis < shapes[s].ndim; axis++) {
      for (int r = 0; r < NRED; r++) {
        for (int k = 0; k < AG_DTYPE_COUNT; k++) {
          ag_dtype t = all_dtypes[k], outs[4];
          if (!test_dtype_runs(dev, t))
            continue;
          int nouts = allowed_outputs(reductions[r].r, t, outs);
          /* The large shapes on two dtypes only; the others on all, with every output. */
          if (s >= 4 && t != AG_F32 && t != AG_I32)
            continue;
          for (int o = 0; o < nouts; o++)
            check_reduction(dev, &reductions[r], t, outs[o], shapes[s].ndim, shapes[s].shape, axis,
                            1000u * s + 100u * (unsigned)axis + 10u * (unsigned)r + (unsigned)k, NULL);
        }
      }
    }
  }
}
END_TEST

START_TEST(reductions_refuse_output_dtypes_the_header_does_not_allow) {
  ag_device *dev = test_device(_i);
  const size_t n = 5, one = 1;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *x = test_array_new(dev, t, 1, &n);
    CHECK_OK(ag_fill(NULL, x, 1));
    for (int r = 0; r < NRED; r++) {
      const reduction *red = &reductions[r];
      ag_dtype outs[4];
      int nouts = allowed_outputs(red->r, t, outs);
      for (int o = 0; o < AG_DTYPE_COUNT; o++) {
        ag_dtype ot = all_dtypes[o];
        if (!test_dtype_runs(dev, ot))
          continue;
        bool allowed = false;
        for (int j = 0; j < nouts; j++)
          allowed |= outs[j] == ot;
        if (allowed)
          continue;
        ag_array *out = test_array_new(dev, ot, 1, &one);
        CHECK_OK(ag_fill(NULL, out, 3));
        char words[64];
        if (nouts == 0) {
          /* The input dtype itself is refused: the message names the operation and the dtype. */
          CHECK_REFUSED(run_reduction(red, NULL, x, x, AG_AXIS_ALL, out), AG_ERR_UNSUPPORTED, red->name, ref_name(t));
        } else {
          /* A refused output dtype: the header leaves mismatch or unsupported open. */
          snprintf(words, sizeof words, "out|%s", ref_name(ot));
          CHECK_REFUSED2(run_reduction(red, NULL, x, x, AG_AXIS_ALL, out), AG_ERR_MISMATCH, AG_ERR_UNSUPPORTED,
                         red->name, words);
        }
        unsigned char three[16], *back = test_array_read(out);
        ref_put(ot, three, 0, 3);
        CHECK_BYTES(back, three, ref_size(ot), "the out of a refused reduction");
        free(back);
        ag_array_free(out);
      }
    }
    ag_array_free(x);
  }
}
END_TEST

/* ---- accuracy ------------------------------------------------------------------------------------ */

/* 2^24 float32 values 1 + u, u in [0, 1e-3): the exact sum (in double, whose 53 bits hold it
   within 2^-29 per term) is about 16785604. A naive float running sum stalls once the total
   reaches 2^24, where floats are 2 apart and each further 1.0005 rounds to 1 (ties to even):
   it ends near 16777236, off by 5e-4 relative. The header promises Kahan-compensated partial
   sums combined pairwise, about 1e-7; the test asserts 1e-6, and proves that it can tell: the
   naive loop below must miss by more than 1e-4. */
START_TEST(a_float32_sum_of_2_24_values_keeps_1e_6_relative_accuracy) {
  ag_device *dev = test_device(_i);
  const size_t n = (size_t)1 << 24;
  float *x = test_alloc(n * sizeof *x);
  ref_lcg g = ref_lcg_seeded(2024);
  for (size_t i = 0; i < n; i++)
    x[i] = 1.0f + (float)ref_lcg_uniform(&g, 0, 1e-3);
  double exact = 0;
  float naive = 0;
  for (size_t i = 0; i < n; i++) {
    exact += x[i];
    naive += x[i];
  }
  double naive_err = fabs((double)naive - exact) / exact;
  ck_assert_msg(naive_err > 1e-4, "%s: the naive float sum is off by only %.3g: the test would not notice it",
                test_label(), naive_err);
  ag_array *ax = test_array_1d(dev, AG_F32, n, x);
  const size_t one = 1;
  ag_array *sum = test_array_new(dev, AG_F32, 1, &one), *mean = test_array_new(dev, AG_F32, 1, &one);
  CHECK_OK(ag_sum(NULL, ax, AG_AXIS_ALL, sum));
  CHECK_OK(ag_mean(NULL, ax, AG_AXIS_ALL, mean));
  float s = 0, m = 0;
  CHECK_OK(ag_array_to_host(sum, &s, sizeof s));
  CHECK_OK(ag_array_to_host(mean, &m, sizeof m));
  double err = fabs((double)s - exact) / exact, merr = fabs((double)m - exact / (double)n) / (exact / (double)n);
  ck_assert_msg(err <= 1e-6,
                "%s: the f32 sum of 2^24 values near 1 is %.9g, exactly %.9g: relative error %.3g "
                "(a naive loop: %.3g)",
                test_label(), s, exact, err, naive_err);
  ck_assert_msg(merr <= 1e-6, "%s: the f32 mean of 2^24 values near 1 is %.9g, exactly %.9g: relative error %.3g",
                test_label(), m, exact / (double)n, merr);
  /* Along an axis: 2^12 rows of 2^12 values each, and columns. */
  const size_t sq[2] = {4096, 4096};
  ag_array *mat = NULL, *rows = test_array_new(dev, AG_F32, 1, &sq[0]);
  CHECK_OK(ag_array_reshape(ax, 2, sq, &mat));
  for (int axis = 0; axis < 2; axis++) {
    CHECK_OK(ag_sum(NULL, mat, axis, rows));
    float *got = test_array_read(rows);
    for (size_t r = 0; r < 4096; r++) {
      double e = 0;
      for (size_t c = 0; c < 4096; c++)
        e += axis == 1 ? x[r * 4096 + c] : x[c * 4096 + r];
      ck_assert_msg(fabs(got[r] - e) <= 1e-6 * e, "%s: the f32 sum along axis %d at %zu is %.9g, exactly %.9g",
                    test_label(), axis, r, got[r], e);
    }
    free(got);
  }
  ag_array_free(mat);
  ag_array_free(rows);
  ag_array_free(ax);
  ag_array_free(sum);
  ag_array_free(mean);
  free(x);
}
END_TEST

/* Squares of 1e30 overflow float and squares of 1e300 double; squares of 1e-30 and 1e-300
   underflow to zero. nrm2 scales (ops.h), so each result is compared with the scaled reference:
   1e-6 relative in single precision and 1e-13 in double, as for sums. */
START_TEST(nrm2_neither_overflows_nor_underflows) {
  ag_device *dev = test_device(_i);
  const double mags[2][2] = {{1e30, 1e-30}, {1e300, 1e-300}};
  const ag_dtype dtypes[4] = {AG_F32, AG_C64, AG_F64, AG_C128};
  const size_t lens[2] = {1000, 100003};
  for (int k = 0; k < 4; k++) {
    ag_dtype t = dtypes[k], ot = ref_real_dtype(t);
    bool dbl = t == AG_F64 || t == AG_C128;
    if (!test_dtype_runs(dev, t))
      continue; /* refused without double precision: the fp64 suite checks that */
    for (int m = 0; m < 2; m++) {
      for (int l = 0; l < 2; l++) {
        size_t n = lens[l];
        void *x = test_alloc(n * ref_size(t));
        double mag = mags[dbl][m];
        ref_random(t, x, n, 77u + (unsigned)m, 0.5 * mag, 2 * mag);
        ag_array *ax = test_array_1d(dev, t, n, x), *out = test_array_new(dev, ot, 1, &(size_t){1});
        CHECK_OK(ag_nrm2(NULL, ax, AG_AXIS_ALL, out));
        ref_c want;
        ref_reduce(REF_NRM2, t, x, NULL, 1, n, 1, &want, NULL);
        void *got = test_array_read(out);
        ck_assert_msg(isfinite((double)creall(ref_get(ot, got, 0))) && creall(ref_get(ot, got, 0)) > 0,
                      "%s: nrm2 of %zu %s values near %g is %Lg", test_label(), n, ref_name(t), mag,
                      creall(ref_get(ot, got, 0)));
        ref_check(ot, got, &want, NULL, 1, ref_tol_reduce(REF_NRM2, t), "nrm2 of %zu values near %g", n, mag);
        free(got);
        free(x);
        ag_array_free(ax);
        ag_array_free(out);
      }
    }
  }
  /* Along an axis, rows of very different magnitudes. */
  if (!test_dtype_runs(dev, AG_F64))
    return;
  const size_t shape[2] = {3, 513};
  double *rows = test_alloc(3 * 513 * sizeof *rows);
  ref_random(AG_F64, rows, 513, 1, 1e300, 1e301);
  ref_random(AG_F64, rows + 513, 513, 2, 1e-301, 1e-300);
  ref_random(AG_F64, rows + 1026, 513, 3, -1, 1);
  ag_array *ar = test_array_from(dev, AG_F64, 2, shape, rows), *out = test_array_new(dev, AG_F64, 1, &shape[0]);
  CHECK_OK(ag_nrm2(NULL, ar, 1, out));
  ref_c want[3];
  ref_reduce(REF_NRM2, AG_F64, rows, NULL, 3, 513, 1, want, NULL);
  void *got = test_array_read(out);
  ref_check(AG_F64, got, want, NULL, 3, ref_tol_reduce(REF_NRM2, AG_F64), "nrm2 along rows of 1e300, 1e-300 and 1");
  free(got);
  free(rows);
  ag_array_free(ar);
  ag_array_free(out);
}
END_TEST

/* ---- ties, NaN, Inf ------------------------------------------------------------------------------ */

START_TEST(argmin_and_argmax_return_the_first_of_equal_extremes) {
  ag_device *dev = test_device(_i);
  const size_t n = (1u << 20) + 3;
  const ag_dtype dtypes[] = {AG_U8, AG_I32, AG_F32, AG_F64};
  /* The extremes appear first late (past several work-groups) and then again at the very end and
     at spots in between, so a reduction that keeps the last or an arbitrary one is caught. */
  const size_t first[2] = {777777, 1000};
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    ag_dtype t = dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(n * ref_size(t));
    ref_random(t, x, n, 5u + (unsigned)k, 10, 20);
    for (int e = 0; e < 2; e++) {
      size_t at[4] = {first[e], first[e] + 1, first[e] + 65536, n - 1};
      for (int j = 0; j < 4; j++)
        ref_put(t, x, at[j], e == 0 ? 30 : 1); /* e 0: the maximum; e 1: the minimum */
    }
    ag_array *ax = test_array_1d(dev, t, n, x);
    const size_t one = 1;
    for (int it = 0; it < 2; it++) {
      ag_dtype ot = it ? AG_I32 : AG_U32;
      ag_array *out = test_array_new(dev, ot, 1, &one);
      CHECK_OK(ag_argmax(NULL, ax, AG_AXIS_ALL, out));
      unsigned char got[4];
      CHECK_OK(ag_array_to_host(out, got, 4));
      ck_assert_msg(creall(ref_get(ot, got, 0)) == first[0],
                    "%s: argmax of %s into %s is %Lg, expected %zu (the first)", test_label(), ref_name(t),
                    ref_name(ot), creall(ref_get(ot, got, 0)), first[0]);
      CHECK_OK(ag_argmin(NULL, ax, AG_AXIS_ALL, out));
      CHECK_OK(ag_array_to_host(out, got, 4));
      ck_assert_msg(creall(ref_get(ot, got, 0)) == first[1],
                    "%s: argmin of %s into %s is %Lg, expected %zu (the first)", test_label(), ref_name(t),
                    ref_name(ot), creall(ref_get(ot, got, 0)), first[1]);
      ag_array_free(out);
    }
    /* All equal: index 0. */
    CHECK_OK(ag_fill(NULL, ax, 3));
    ag_array *out = test_array_new(dev, AG_U32, 1, &one);
    uint32_t idx = 99;
    CHECK_OK(ag_argmax(NULL, ax, AG_AXIS_ALL, out));
    CHECK_OK(ag_array_to_host(out, &idx, 4));
    ck_assert_uint_eq(idx, 0);
    CHECK_OK(ag_argmin(NULL, ax, AG_AXIS_ALL, out));
    CHECK_OK(ag_array_to_host(out, &idx, 4));
    ck_assert_uint_eq(idx, 0);
    ag_array_free(out);
    ag_array_free(ax);
    free(x);
  }
  /* Along an axis: in each column of a 4 x 6 matrix the extreme repeats; the first row wins. */
  const float m[4][6] = {{1, 5, 5, 0, 2, 9}, {1, 5, 7, 0, 9, 9}, {0, 2, 7, 0, 9, 1}, {0, 5, 1, 3, 2, 9}};
  const uint32_t amax0[6] = {0, 0, 1, 3, 1, 0}, amin0[6] = {2, 2, 3, 0, 0, 2};
  const uint32_t amax1[4] = {5, 4, 4, 5}, amin1[4] = {3, 3, 0, 0};
  ag_array *am = test_array_from(dev, AG_F32, 2, (const size_t[]){4, 6}, m);
  ag_array *o6 = test_array_new(dev, AG_U32, 1, &(size_t){6}), *o4 = test_array_new(dev, AG_U32, 1, &(size_t){4});
  uint32_t got[6];
  CHECK_OK(ag_argmax(NULL, am, 0, o6));
  CHECK_OK(ag_array_to_host(o6, got, sizeof got));
  CHECK_BYTES(got, amax0, sizeof amax0, "argmax along axis 0 with ties");
  CHECK_OK(ag_argmin(NULL, am, 0, o6));
  CHECK_OK(ag_array_to_host(o6, got, sizeof got));
  CHECK_BYTES(got, amin0, sizeof amin0, "argmin along axis 0 with ties");
  CHECK_OK(ag_argmax(NULL, am, 1, o4));
  CHECK_OK(ag_array_to_host(o4, got, 16));
  CHECK_BYTES(got, amax1, sizeof amax1, "argmax along axis 1 with ties");
  CHECK_OK(ag_argmin(NULL, am, 1, o4));
  CHECK_OK(ag_array_to_host(o4, got, 16));
  CHECK_BYTES(got, amin1, sizeof amin1, "argmin along axis 1 with ties");
  ag_array_free(am);
  ag_array_free(o6);
  ag_array_free(o4);
}
END_TEST

START_TEST(nan_propagates_through_min_and_max_and_is_the_extreme_of_argmin_and_argmax) {
  ag_device *dev = test_device(_i);
  const size_t n = (1u << 20) + 3;
  for (ag_dtype t = AG_F32; t <= AG_F64; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(n * ref_size(t));
    ref_random(t, x, n, 9, -1, 1);
    ref_put(t, x, 5, -INFINITY);
    ref_put(t, x, 6, INFINITY);
    ref_put(t, x, 700001, NAN); /* the first NaN */
    ref_put(t, x, 900000, NAN);
    ref_put(t, x, n - 1, NAN);
    ag_array *ax = test_array_1d(dev, t, n, x);
    const size_t one = 1;
    ag_array *v = test_array_new(dev, t, 1, &one), *idx = test_array_new(dev, AG_I32, 1, &one);
    unsigned char got[8];
    int32_t at = -1;
    CHECK_OK(ag_min(NULL, ax, AG_AXIS_ALL, v));
    CHECK_OK(ag_array_to_host(v, got, ref_size(t)));
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 0))), "%s: min of %s with NaN is %Lg", test_label(), ref_name(t),
                  creall(ref_get(t, got, 0)));
    CHECK_OK(ag_max(NULL, ax, AG_AXIS_ALL, v));
    CHECK_OK(ag_array_to_host(v, got, ref_size(t)));
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 0))), "%s: max of %s with NaN is %Lg", test_label(), ref_name(t),
                  creall(ref_get(t, got, 0)));
    CHECK_OK(ag_argmax(NULL, ax, AG_AXIS_ALL, idx));
    CHECK_OK(ag_array_to_host(idx, &at, 4));
    ck_assert_msg(at == 700001, "%s: argmax of %s with NaN is %d, expected 700001 (the first NaN)", test_label(),
                  ref_name(t), at);
    CHECK_OK(ag_argmin(NULL, ax, AG_AXIS_ALL, idx));
    CHECK_OK(ag_array_to_host(idx, &at, 4));
    ck_assert_msg(at == 700001, "%s: argmin of %s with NaN is %d, expected 700001 (the first NaN)", test_label(),
                  ref_name(t), at);
    /* Sum and nrm2 propagate NaN; without the NaNs, Inf + -Inf is NaN (nrm2 with Inf: below). */
    CHECK_OK(ag_sum(NULL, ax, AG_AXIS_ALL, v));
    CHECK_OK(ag_array_to_host(v, got, ref_size(t)));
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 0))), "%s: sum of %s with NaN is %Lg", test_label(), ref_name(t),
                  creall(ref_get(t, got, 0)));
    CHECK_OK(ag_nrm2(NULL, ax, AG_AXIS_ALL, v));
    CHECK_OK(ag_array_to_host(v, got, ref_size(t)));
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 0))), "%s: nrm2 of %s with NaN is %Lg", test_label(),
                  ref_name(t), creall(ref_get(t, got, 0)));
    /* The first 700001 elements hold -Inf and Inf but no NaN. */
    void *part = test_alloc(700001 * ref_size(t));
    memcpy(part, x, 700001 * ref_size(t));
    ag_array *pre = test_array_1d(dev, t, 700001, part);
    CHECK_OK(ag_sum(NULL, pre, AG_AXIS_ALL, v));
    CHECK_OK(ag_array_to_host(v, got, ref_size(t)));
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 0))), "%s: sum of %s with Inf and -Inf is %Lg, expected NaN",
                  test_label(), ref_name(t), creall(ref_get(t, got, 0)));
    CHECK_OK(ag_max(NULL, pre, AG_AXIS_ALL, v));
    CHECK_OK(ag_array_to_host(v, got, ref_size(t)));
    ck_assert(creall(ref_get(t, got, 0)) == INFINITY);
    CHECK_OK(ag_argmin(NULL, pre, AG_AXIS_ALL, idx));
    CHECK_OK(ag_array_to_host(idx, &at, 4));
    ck_assert_int_eq(at, 5);
    free(part);
    ag_array_free(pre);
    /* Along an axis: NaN in some columns only. */
    const size_t shape[2] = {5, 4};
    double m[20];
    for (int i = 0; i < 20; i++)
      m[i] = (double)((i * 7) % 11);
    m[1 * 4 + 2] = NAN;
    m[3 * 4 + 2] = NAN;
    m[4 * 4 + 0] = NAN;
    unsigned char mt[20 * 8];
    for (int i = 0; i < 20; i++)
      ref_put(t, mt, (size_t)i, m[i]);
    ag_array *am = test_array_from(dev, t, 2, shape, mt), *o4 = test_array_new(dev, t, 1, &shape[1]);
    ag_array *i4 = test_array_new(dev, AG_U32, 1, &shape[1]);
    ref_c want[4];
    ref_reduce(REF_MAX, t, mt, NULL, 1, 5, 4, want, NULL);
    CHECK_OK(ag_max(NULL, am, 0, o4));
    void *back = test_array_read(o4);
    ref_check(t, back, want, NULL, 4, REF_EXACT, "max along axis 0 with NaN in two columns");
    free(back);
    ref_reduce(REF_ARGMIN, t, mt, NULL, 1, 5, 4, want, NULL);
    CHECK_OK(ag_argmin(NULL, am, 0, i4));
    back = test_array_read(i4);
    ref_check(AG_U32, back, want, NULL, 4, REF_EXACT, "argmin along axis 0 with NaN in two columns");
    free(back);
    ag_array_free(am);
    ag_array_free(o4);
    ag_array_free(i4);
    ag_array_free(ax);
    ag_array_free(v);
    ag_array_free(idx);
    free(x);
  }
}
END_TEST

/* sqrt(sum |x|^2) with an infinite term is Inf (numpy, and LAPACK's dnrm2 since 3.10); a scaled
   implementation that divides by the largest magnitude gets Inf / Inf = NaN unless it takes care. */
START_TEST(nrm2_with_infinite_elements_is_inf) {
  ag_device *dev = test_device(_i);
  const size_t n = 100003;
  for (int k = 0; k < 4; k++) {
    ag_dtype t = (ag_dtype[]){AG_F32, AG_F64, AG_C64, AG_C128}[k], ot = ref_real_dtype(t);
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = test_alloc(n * ref_size(t));
    ref_random(t, x, n, 3, -1, 1);
    /* One infinity, then a second one far from it, then a third next to the first. */
    const size_t at[3] = {4567, n - 10, 4568};
    for (int j = 0; j < 3; j++) {
      ref_put(t, x, at[j],
              ref_is_complex(t) ? CMPLXL(1, j == 1 ? INFINITY : -INFINITY) : (ref_c)(j == 1 ? INFINITY : -INFINITY));
      ag_array *ax = test_array_1d(dev, t, n, x), *out = test_array_new(dev, ot, 1, &(size_t){1});
      CHECK_OK(ag_nrm2(NULL, ax, AG_AXIS_ALL, out));
      unsigned char got[8];
      CHECK_OK(ag_array_to_host(out, got, ref_size(ot)));
      ck_assert_msg(creall(ref_get(ot, got, 0)) == INFINITY,
                    "%s: nrm2 of %zu %s values, %d of them infinite, is %Lg, expected Inf", test_label(), n,
                    ref_name(t), j + 1, creall(ref_get(ot, got, 0)));
      ag_array_free(ax);
      ag_array_free(out);
    }
    free(x);
  }
}
END_TEST

START_TEST(dot_of_complex_vectors_is_not_conjugated) {
  ag_device *dev = test_device(_i);
  const size_t one = 1, two = 2;
  /* (1 + 2i, 3 - i) . (2 - i, i) = (4 + 3i) + (1 + 3i) = 5 + 6i; with x conjugated (numpy's vdot)
     it would be -5i + (-1 + 3i) = -1 - 2i. (1 + i) . (1 + i) = 2i, twice: 4i (conjugated: 4). */
  const float a64[4] = {1, 2, 3, -1}, b64[4] = {2, -1, 0, 1};
  const double a128[4] = {1, 2, 3, -1}, b128[4] = {2, -1, 0, 1};
  for (ag_dtype t = AG_C64; t <= AG_C128; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    const void *a = t == AG_C64 ? (const void *)a64 : (const void *)a128;
    const void *b = t == AG_C64 ? (const void *)b64 : (const void *)b128;
    ag_array *x = test_array_1d(dev, t, two, a), *y = test_array_1d(dev, t, two, b);
    ag_array *out = test_array_new(dev, t, 1, &one);
    CHECK_OK(ag_dot(NULL, x, y, AG_AXIS_ALL, out));
    unsigned char got[16];
    CHECK_OK(ag_array_to_host(out, got, ref_size(t)));
    ref_c v = ref_get(t, got, 0);
    ck_assert_msg(v == CMPLXL(5, 6), "%s: dot of %s vectors is %Lg%+Lgi, expected 5+6i (conjugated: %s)", test_label(),
                  ref_name(t), creall(v), cimagl(v), v == CMPLXL(-1, -2) ? "yes" : "no");
    CHECK_OK(ag_fill_complex(NULL, x, 1, 1));
    CHECK_OK(ag_dot(NULL, x, x, AG_AXIS_ALL, out));
    CHECK_OK(ag_array_to_host(out, got, ref_size(t)));
    v = ref_get(t, got, 0);
    ck_assert_msg(v == CMPLXL(0, 4), "%s: dot of (1+i, 1+i) with itself is %Lg%+Lgi, expected 4i", test_label(),
                  creall(v), cimagl(v));
    ag_array_free(x);
    ag_array_free(y);
    ag_array_free(out);
  }
}
END_TEST

/* ---- empty arrays and errors --------------------------------------------------------------------- */

/* ops.h: an operation on an empty array succeeds doing nothing. A reduction over nothing has no
   value everyone agrees on (numpy: sum 0, mean NaN, min an error), so the test accepts the out
   left as it was or the numpy value, and nothing else. */
static void check_empty_reductions(ag_device *dev, const ref_reduction *which, size_t nwhich) {
  const size_t zero = 0, one = 1, s30[2] = {3, 0}, three = 3;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *e = test_array_new(dev, t, 1, &zero), *e2 = test_array_new(dev, t, 2, s30);
    for (size_t w = 0; w < nwhich; w++) {
      const reduction *red = NULL;
      for (int r = 0; r < NRED; r++)
        if (reductions[r].r == which[w])
          red = &reductions[r];
      ag_dtype outs[4];
      if (allowed_outputs(red->r, t, outs) == 0)
        continue;
      ag_dtype ot = outs[0];
      if (!test_dtype_runs(dev, ot))
        continue;
      ag_array *o1 = test_array_new(dev, ot, 1, &one), *o3 = test_array_new(dev, ot, 1, &three);
      ag_array *o0 = test_array_new(dev, ot, 1, &zero);
      CHECK_OK(ag_fill(NULL, o1, 7));
      CHECK_OK(ag_fill(NULL, o3, 7));
      /* An empty out: nothing to do, for every reduction. */
      ref_check_ok(run_reduction(red, NULL, e2, e2, 0, o0), "%s along axis 0 of {3, 0}", red->name);
      bool selection = red->r == REF_MIN || red->r == REF_MAX || red->r == REF_ARGMIN || red->r == REF_ARGMAX;
      if (selection) {
        /* ops.h: no extreme of nothing (numpy raises too), and out is left as it was. */
        CHECK_REFUSED(run_reduction(red, NULL, e, e, AG_AXIS_ALL, o1), AG_ERR_INVALID_ARGUMENT, red->name, "x");
        CHECK_REFUSED(run_reduction(red, NULL, e2, e2, AG_AXIS_ALL, o1), AG_ERR_INVALID_ARGUMENT, red->name, "x");
        CHECK_REFUSED(run_reduction(red, NULL, e2, e2, 1, o3), AG_ERR_INVALID_ARGUMENT, red->name, "x");
      } else {
        ref_check_ok(run_reduction(red, NULL, e, e, AG_AXIS_ALL, o1), "%s of an empty %s array", red->name,
                     ref_name(t));
        ref_check_ok(run_reduction(red, NULL, e2, e2, AG_AXIS_ALL, o1), "%s of a {3, 0} %s array", red->name,
                     ref_name(t));
        ref_check_ok(run_reduction(red, NULL, e2, e2, 1, o3), "%s along the empty axis of {3, 0}", red->name);
      }
      /* Sums of nothing are 0 and means NaN, as in numpy; refused selections left the 7s. */
      void *back = test_array_read(o3);
      for (size_t i = 0; i < 3; i++) {
        long double v = creall(ref_get(ot, back, i));
        bool ok = selection ? v == 7 : red->r == REF_MEAN ? isnan(v) : v == 0;
        ck_assert_msg(ok, "%s: %s along an empty axis left %Lg", test_label(), red->name, v);
      }
      free(back);
      ag_array_free(o0);
      ag_array_free(o1);
      ag_array_free(o3);
    }
    ag_array_free(e);
    ag_array_free(e2);
  }
}

START_TEST(sums_of_empty_arrays_succeed) {
  ag_device *dev = test_device(_i);
  const ref_reduction which[] = {REF_SUM, REF_MEAN, REF_DOT, REF_NRM2};
  check_empty_reductions(dev, which, 4);
}
END_TEST

/* ops.h: min, max, argmin and argmax of an empty axis have no answer and are refused (numpy
   raises too), unless out is empty as well. */
START_TEST(selections_of_empty_axes_are_refused) {
  ag_device *dev = test_device(_i);
  const ref_reduction which[] = {REF_MIN, REF_MAX, REF_ARGMIN, REF_ARGMAX};
  check_empty_reductions(dev, which, 4);
}
END_TEST

START_TEST(a_wrong_axis_out_shape_or_operand_is_refused) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {3, 4}, s1[1] = {1}, s2[1] = {2}, s3[1] = {3}, s4[1] = {4}, s14[2] = {1, 4};
  ag_array *x = test_array_new(dev, AG_F32, 2, shape), *d = test_array_new(dev, AG_I32, 2, shape);
  ag_array *x43 = test_array_new(dev, AG_F32, 2, (const size_t[]){4, 3});
  ag_array *o1 = test_array_new(dev, AG_F32, 1, s1), *o2 = test_array_new(dev, AG_F32, 1, s2);
  ag_array *o3 = test_array_new(dev, AG_F32, 1, s3), *o4 = test_array_new(dev, AG_F32, 1, s4);
  ag_array *o14 = test_array_new(dev, AG_F32, 2, s14), *i4 = test_array_new(dev, AG_U32, 1, s4);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, d, 1));
  CHECK_OK(ag_fill(NULL, x43, 1));
  for (int r = 0; r < NRED; r++) {
    const reduction *red = &reductions[r];
    bool arg = red->r == REF_ARGMIN || red->r == REF_ARGMAX;
    ag_array *out4 = arg ? i4 : o4;
    const int bad_axes[] = {2, 3, 4, -2, 100};
    for (size_t k = 0; k < sizeof bad_axes / sizeof bad_axes[0]; k++)
      CHECK_REFUSED2(run_reduction(red, NULL, x, x, bad_axes[k], out4), AG_ERR_INVALID_ARGUMENT, AG_ERR_OUT_OF_RANGE,
                     red->name, "axis");
    if (!arg) {
      /* Every element: out must be {1}. Along axis 0: {4}, not {3} nor {1, 4} (no kept dimensions). */
      CHECK_REFUSED(run_reduction(red, NULL, x, x, AG_AXIS_ALL, o2), AG_ERR_MISMATCH, red->name, "out");
      CHECK_REFUSED(run_reduction(red, NULL, x, x, 0, o3), AG_ERR_MISMATCH, red->name, "out");
      CHECK_REFUSED(run_reduction(red, NULL, x, x, 0, o14), AG_ERR_MISMATCH, red->name, "out");
      CHECK_REFUSED(run_reduction(red, NULL, x, x, 1, o4), AG_ERR_MISMATCH, red->name, "out");
      CHECK_REFUSED(run_reduction(red, NULL, NULL, x, AG_AXIS_ALL, o1), AG_ERR_INVALID_ARGUMENT, red->name, "x");
      CHECK_REFUSED(run_reduction(red, NULL, x, x, AG_AXIS_ALL, NULL), AG_ERR_INVALID_ARGUMENT, red->name, "out");
    }
  }
  CHECK_REFUSED(ag_dot(NULL, x, NULL, AG_AXIS_ALL, o1), AG_ERR_INVALID_ARGUMENT, "ag_dot", "y");
  CHECK_REFUSED(ag_dot(NULL, x, x43, AG_AXIS_ALL, o1), AG_ERR_MISMATCH, "ag_dot", "x", "y");
  CHECK_REFUSED(ag_dot(NULL, x, d, AG_AXIS_ALL, o1), AG_ERR_MISMATCH, "ag_dot", "x", "y");
  float back[4];
  CHECK_OK(ag_fill(NULL, o4, 5));
  CHECK_REFUSED(ag_sum(NULL, x, 1, o4), AG_ERR_MISMATCH, "ag_sum", "out");
  CHECK_OK(ag_array_to_host(o4, back, sizeof back));
  ck_assert_msg(back[0] == 5 && back[3] == 5, "%s: a refused reduction changed its out", test_label());
  ag_array_free(x);
  ag_array_free(d);
  ag_array_free(x43);
  ag_array_free(o1);
  ag_array_free(o2);
  ag_array_free(o3);
  ag_array_free(o4);
  ag_array_free(o14);
  ag_array_free(i4);
}
END_TEST

START_TEST(operands_on_different_devices_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "reductions with operands on two devices");
  if (other == NULL)
    return;
  const size_t n = 8, one = 1;
  ag_array *x = test_array_new(dev, AG_F32, 1, &n), *far = test_array_new(other, AG_F32, 1, &n);
  ag_array *o = test_array_new(dev, AG_F32, 1, &one), *ofar = test_array_new(other, AG_F32, 1, &one);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, far, 1));
  for (int r = 0; r < NRED; r++) {
    const reduction *red = &reductions[r];
    if (red->r == REF_ARGMIN || red->r == REF_ARGMAX)
      continue;
    CHECK_REFUSED(run_reduction(red, NULL, x, x, AG_AXIS_ALL, ofar), AG_ERR_MISMATCH, red->name, "x", "out");
    CHECK_REFUSED(run_reduction(red, NULL, far, far, AG_AXIS_ALL, o), AG_ERR_MISMATCH, red->name, "x", "out");
  }
  CHECK_REFUSED(ag_dot(NULL, x, far, AG_AXIS_ALL, o), AG_ERR_MISMATCH, "ag_dot", "x", "y");
  ag_queue *oq = NULL;
  CHECK_OK(ag_queue_create(other, &oq));
  CHECK_REFUSED(ag_sum(oq, x, AG_AXIS_ALL, o), AG_ERR_MISMATCH, "ag_sum", "queue|q");
  ag_queue_destroy(oq);
  ag_array_free(x);
  ag_array_free(far);
  ag_array_free(o);
  ag_array_free(ofar);
}
END_TEST

/* Reductions of views (a frame of a stack) and on a created queue. */
START_TEST(reductions_of_views_on_a_created_queue_match_the_reference) {
  ag_device *dev = test_device(_i);
  enum { F = 4, H = 65, W = 129 };
  if (!test_dtype_runs(dev, AG_F64))
    return;
  const size_t shape[3] = {F, H, W};
  double *data = test_alloc(F * H * W * sizeof *data);
  ref_random(AG_F64, data, F * H * W, 31, -1, 1);
  ag_array *a = test_array_from(dev, AG_F64, 3, shape, data), *frame = NULL;
  CHECK_OK(ag_array_index(a, 2, &frame));
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  const size_t one = 1, h = H;
  ag_array *s = test_array_new(dev, AG_F64, 1, &one), *rows = test_array_new(dev, AG_F64, 1, &h);
  CHECK_OK(ag_sum(q, frame, AG_AXIS_ALL, s));
  CHECK_OK(ag_nrm2(q, frame, 1, rows));
  CHECK_OK(ag_queue_finish(q));
  ref_c want[H];
  long double scale[H];
  ref_reduce(REF_SUM, AG_F64, data + 2 * H * W, NULL, 1, H * W, 1, want, scale);
  void *got = test_array_read(s);
  ref_check(AG_F64, got, want, scale, 1, ref_tol_reduce(REF_SUM, AG_F64), "sum of frame 2 on a created queue");
  free(got);
  ref_reduce(REF_NRM2, AG_F64, data + 2 * H * W, NULL, H, W, 1, want, NULL);
  got = test_array_read(rows);
  ref_check(AG_F64, got, want, NULL, H, ref_tol_reduce(REF_NRM2, AG_F64), "nrm2 of the rows of frame 2");
  free(got);
  ag_queue_destroy(q);
  ag_array_free(s);
  ag_array_free(rows);
  ag_array_free(frame);
  ag_array_free(a);
  free(data);
}
END_TEST

/* ---- the references themselves ------------------------------------------------------------------ */

START_TEST(the_reduction_references_agree_with_analytic_values) {
  enum { N = 1000 };
  double x[N];
  int32_t xi[N];
  uint8_t xu[N];
  for (int i = 0; i < N; i++) {
    x[i] = i + 1;
    xi[i] = i + 1;
    xu[i] = (uint8_t)(i % 250 + 1);
  }
  ref_c w;
  long double sc;
  ref_reduce(REF_SUM, AG_F64, x, NULL, 1, N, 1, &w, &sc);
  ck_assert(w == (long double)N * (N + 1) / 2); /* 1 + ... + n = n (n + 1) / 2 */
  ck_assert(sc == w);
  ref_reduce(REF_SUM, AG_I32, xi, NULL, 1, N, 1, &w, NULL);
  ck_assert(w == 500500);
  ref_reduce(REF_SUM, AG_U8, xu, NULL, 1, N, 1, &w, NULL);
  ck_assert(w == 4 * 250 * 251 / 2);
  ref_reduce(REF_MEAN, AG_F64, x, NULL, 1, N, 1, &w, NULL);
  ck_assert(w == 500.5L);
  ref_reduce(REF_DOT, AG_F64, x, x, 1, N, 1, &w, NULL);
  ck_assert(w == (long double)N * (N + 1) * (2 * N + 1) / 6);
  const double v34[2] = {3, 4}, big[2] = {3e300, 4e300}, tiny[2] = {3e-300, 4e-300};
  ref_reduce(REF_NRM2, AG_F64, v34, NULL, 1, 2, 1, &w, NULL);
  ck_assert(w == 5);
  ref_reduce(REF_NRM2, AG_F64, big, NULL, 1, 2, 1, &w, NULL);
  ck_assert(cabsl(w - 5e300L) <= 1e-15L * 5e300L); /* 3e300 and 4e300 are rounded to double */
  ref_reduce(REF_NRM2, AG_F64, tiny, NULL, 1, 2, 1, &w, NULL);
  ck_assert(cabsl(w - 5e-300L) <= 1e-15L * 5e-300L);
  const float c34[2] = {3, 4};
  ref_reduce(REF_NRM2, AG_C64, c34, NULL, 1, 1, 1, &w, NULL);
  ck_assert(w == 5); /* |3 + 4i| */
  const double withinf[3] = {1, INFINITY, 2}, withnan[3] = {1, INFINITY, NAN};
  ref_reduce(REF_NRM2, AG_F64, withinf, NULL, 1, 3, 1, &w, NULL);
  ck_assert(creall(w) == INFINITY);
  ref_reduce(REF_NRM2, AG_F64, withnan, NULL, 1, 3, 1, &w, NULL);
  ck_assert(isnan(creall(w)));
  /* Ties and NaN: the first extreme wins; NaN is the extreme. */
  const double ties[12] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 9};
  ref_reduce(REF_MIN, AG_F64, ties, NULL, 1, 12, 1, &w, NULL);
  ck_assert(w == 1);
  ref_reduce(REF_ARGMIN, AG_F64, ties, NULL, 1, 12, 1, &w, NULL);
  ck_assert(w == 1);
  ref_reduce(REF_ARGMAX, AG_F64, ties, NULL, 1, 12, 1, &w, NULL);
  ck_assert(w == 5);
  const double nans[4] = {1, NAN, 3, NAN};
  ref_reduce(REF_ARGMAX, AG_F64, nans, NULL, 1, 4, 1, &w, NULL);
  ck_assert(w == 1);
  ref_reduce(REF_ARGMIN, AG_F64, nans, NULL, 1, 4, 1, &w, NULL);
  ck_assert(w == 1);
  ref_reduce(REF_MAX, AG_F64, nans, NULL, 1, 4, 1, &w, NULL);
  ck_assert(isnan(creall(w)));
  /* Complex dot is unconjugated: (1 + i) . (1 + i) = 2i. */
  const double ci[2] = {1, 1};
  ref_reduce(REF_DOT, AG_C128, ci, ci, 1, 1, 1, &w, NULL);
  ck_assert(w == CMPLXL(0, 2));
  /* Along axes of [[1, 2, 3], [4, 5, 6]]. */
  const double m[6] = {1, 2, 3, 4, 5, 6};
  ref_c cols[3], rows[2];
  ref_reduce(REF_SUM, AG_F64, m, NULL, 1, 2, 3, cols, NULL);
  ck_assert(cols[0] == 5 && cols[1] == 7 && cols[2] == 9);
  ref_reduce(REF_SUM, AG_F64, m, NULL, 2, 3, 1, rows, NULL);
  ck_assert(rows[0] == 6 && rows[1] == 15);
  ref_reduce(REF_ARGMAX, AG_F64, m, NULL, 2, 3, 1, rows, NULL);
  ck_assert(rows[0] == 2 && rows[1] == 2);
  /* Integer sums converted once: 2^24 + 1 into f32 is 2^24; 2^32 + 5 into u32 wraps to 5. */
  float f;
  uint32_t u;
  ref_put_int64(AG_F32, &f, 0, (1 << 24) + 1);
  ck_assert(f == 16777216.0f);
  ref_put_int64(AG_U32, &u, 0, (int64_t)4294967296 + 5);
  ck_assert_uint_eq(u, 5);
}
END_TEST

/* ops.h's ag_prod and ag_prod_axes: every numeric dtype, over everything, along each axis and
   with keepdims, against products on the host (integers in 64 bits, wrapping: the factors of
   185 elements up to 3 in size overflow them), within 2 n ulp of the dtype for n factors; an
   empty product is 1; bool and a 32-bit integer out are refused. */
START_TEST(prod_multiplies_in_the_accumulator_type) {
  ag_device *dev = test_device(_i);
  static const ag_dtype types[] = {AG_U8, AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64, AG_C128, AG_I8,
                                   AG_I16, AG_I64, AG_U64};
  enum { R = 5, C = 37 };
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    ag_dtype t = types[k];
    if (!test_dtype_runs(dev, t))
      continue;
    bool is_int = ref_is_integer(t), cx = ref_is_complex(t);
    ag_dtype ot = !is_int ? t : ref_is_unsigned(t) ? AG_U64 : AG_I64;
    unsigned char *h = test_alloc(R * C * ref_size(t));
    ref_random(t, h, R * C, 40 + k, ref_is_unsigned(t) ? 0 : is_int ? -3 : cx ? 0.6 : 0.8, is_int ? 3 : cx ? 0.9 : 1.25);
    if (cx) /* imaginary parts in [-0.5, 0.5] */
      for (size_t i = 0; i < R * C; i++)
        ref_put(t, h, i, creall(ref_get(t, h, i)) + I * (cimagl(ref_get(t, h, i)) - 0.75L) * 3.3L);
    ag_array *x = test_array_from(dev, t, 2, (const size_t[]){R, C}, h);
    /* want[0]: everything; want[1 .. C]: along axis 0; want[1 + C ..]: along axis 1. */
    ref_c want[1 + C + R];
    uint64_t iw[1 + C + R];
    for (size_t i = 0; i < 1 + C + R; i++) {
      want[i] = 1;
      iw[i] = 1;
    }
    for (size_t r = 0; r < R; r++)
      for (size_t c = 0; c < C; c++) {
        ref_c v = ref_get(t, h, r * C + c);
        uint64_t u = (uint64_t)(int64_t)creall(v);
        size_t at[3] = {0, 1 + c, 1 + C + r};
        for (int j = 0; j < 3; j++) {
          want[at[j]] *= v;
          iw[at[j]] *= u;
        }
      }
    if (is_int)
      for (size_t i = 0; i < 1 + C + R; i++)
        want[i] = ot == AG_U64 ? (long double)iw[i] : (long double)(int64_t)iw[i];
    double eps = t == AG_F32 || t == AG_C64 ? 0x1p-24 : 0x1p-53;
    ref_tol tol = is_int ? REF_EXACT : (ref_tol){2.0 * R * C * eps, 0};
    ag_array *all = test_array_new(dev, ot, 1, (const size_t[]){1}), *ax0 = test_array_new(dev, ot, 1, (const size_t[]){C});
    ag_array *keep = test_array_new(dev, ot, 2, (const size_t[]){R, 1});
    ref_check_ok(ag_prod(NULL, x, AG_AXIS_ALL, all), "ag_prod %s", ref_name(t));
    ref_check_ok(ag_prod(NULL, x, 0, ax0), "ag_prod %s, axis 0", ref_name(t));
    ref_check_ok(ag_prod_axes(NULL, x, 1, (const int[]){-1}, keep), "ag_prod_axes %s, keepdims", ref_name(t));
    void *got = test_array_read(all);
    ref_check(ot, got, want, NULL, 1, tol, "prod of %s", ref_name(t));
    free(got);
    got = test_array_read(ax0);
    ref_check(ot, got, want + 1, NULL, C, tol, "prod of %s along axis 0", ref_name(t));
    free(got);
    got = test_array_read(keep);
    ref_check(ot, got, want + 1 + C, NULL, R, tol, "prod of %s along axis 1", ref_name(t));
    free(got);
    /* Empty: x of {0, 3} along axis 0 gives ones. */
    ag_array *e = test_array_new(dev, t, 2, (const size_t[]){0, 3}), *e3 = test_array_new(dev, ot, 1, (const size_t[]){3});
    ref_check_ok(ag_prod(NULL, e, 0, e3), "ag_prod of an empty %s", ref_name(t));
    ref_c ones[3] = {1, 1, 1};
    got = test_array_read(e3);
    ref_check(ot, got, ones, NULL, 3, REF_EXACT, "empty prod of %s", ref_name(t));
    free(got);
    ag_array *arrays[] = {x, all, ax0, keep, e, e3};
    for (size_t a = 0; a < sizeof arrays / sizeof arrays[0]; a++)
      ag_array_free(arrays[a]);
    free(h);
  }
  ag_array *b = test_array_new(dev, AG_BOOL, 1, (const size_t[]){4}), *i = test_array_new(dev, AG_I32, 1, (const size_t[]){4});
  ag_array *o = test_array_new(dev, AG_I32, 1, (const size_t[]){1});
  CHECK_FAILS(ag_prod(NULL, b, AG_AXIS_ALL, o), AG_ERR_UNSUPPORTED, "ag_prod", "bool");
  CHECK_FAILS(ag_prod(NULL, i, AG_AXIS_ALL, o), AG_ERR_MISMATCH, "ag_prod", "i64");
  ag_array_free(b);
  ag_array_free(i);
  ag_array_free(o);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "the reduction references agree with analytic values",
                  the_reduction_references_agree_with_analytic_values);
    return;
  }
  add_device_test(s, "sum, mean and dot of every element match the reference",
                  sum_mean_and_dot_of_every_element_match_the_reference);
  add_device_test(s, "min, max, argmin and argmax of every element match the reference",
                  min_max_argmin_and_argmax_of_every_element_match_the_reference);
  add_device_test(s, "nrm2 of every element matches the reference", nrm2_of_every_element_matches_the_reference);
  add_device_test(s, "reductions along each axis match the reference", reductions_along_each_axis_match_the_reference);
  add_device_test(s, "reductions refuse output dtypes the header does not allow",
                  reductions_refuse_output_dtypes_the_header_does_not_allow);
  add_device_test(s, "a float32 sum of 2^24 values keeps 1e-6 relative accuracy",
                  a_float32_sum_of_2_24_values_keeps_1e_6_relative_accuracy);
  add_device_test(s, "nrm2 neither overflows nor underflows", nrm2_neither_overflows_nor_underflows);
  add_device_test(s, "argmin and argmax return the first of equal extremes",
                  argmin_and_argmax_return_the_first_of_equal_extremes);
  add_device_test(s, "NaN propagates through min and max and is the extreme of argmin and argmax",
                  nan_propagates_through_min_and_max_and_is_the_extreme_of_argmin_and_argmax);
  add_device_test(s, "nrm2 with infinite elements is Inf", nrm2_with_infinite_elements_is_inf);
  add_device_test(s, "dot of complex vectors is not conjugated", dot_of_complex_vectors_is_not_conjugated);
  add_device_test(s, "sums of empty arrays succeed", sums_of_empty_arrays_succeed);
  add_device_test(s, "prod multiplies in the accumulator type", prod_multiplies_in_the_accumulator_type);
  add_device_test(s, "selections of empty axes are refused", selections_of_empty_axes_are_refused);
  add_device_test(s, "a wrong axis, out shape or operand is refused", a_wrong_axis_out_shape_or_operand_is_refused);
  add_device_test(s, "operands on different devices are refused", operands_on_different_devices_are_refused);
  add_device_test(s, "reductions of views on a created queue match the reference",
                  reductions_of_views_on_a_created_queue_match_the_reference);
}
