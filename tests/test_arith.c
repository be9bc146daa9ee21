/* tests/test_arith.c — floor division, remainder, the bitwise operations and the shifts (ops.h,
   the arith kernel family): every dtype each takes, against the host references of reference.c
   and against numpy 1.24's answers written out for the special cases (negative operands, zero
   divisors, INT_MIN // -1, shift counts of 0, the width and beyond, negative counts, +-0, inf
   and NaN); their broadcast and scalar forms, mixed dtypes, and the dtypes each refuses. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};


static const binary_entry binaries[] = {
    {AG_OP_FLOOR_DIVIDE, "ag_floor_divide", ag_floor_divide, "ag_floor_divide_scalar", ag_floor_divide_scalar,
     "ag_floor_divide_scalar_r", ag_floor_divide_scalar_r},
    {AG_OP_REMAINDER, "ag_remainder", ag_remainder, "ag_remainder_scalar", ag_remainder_scalar,
     "ag_remainder_scalar_r", ag_remainder_scalar_r},
    {AG_OP_BITWISE_AND, "ag_bitwise_and", ag_bitwise_and, "ag_bitwise_and_scalar", ag_bitwise_and_scalar, NULL,
     NULL},
    {AG_OP_BITWISE_OR, "ag_bitwise_or", ag_bitwise_or, "ag_bitwise_or_scalar", ag_bitwise_or_scalar, NULL, NULL},
    {AG_OP_BITWISE_XOR, "ag_bitwise_xor", ag_bitwise_xor, "ag_bitwise_xor_scalar", ag_bitwise_xor_scalar, NULL,
     NULL},
    {AG_OP_LEFT_SHIFT, "ag_bitwise_left_shift", ag_bitwise_left_shift, "ag_bitwise_left_shift_scalar",
     ag_bitwise_left_shift_scalar, "ag_bitwise_left_shift_scalar_r", ag_bitwise_left_shift_scalar_r},
    {AG_OP_RIGHT_SHIFT, "ag_bitwise_right_shift", ag_bitwise_right_shift, "ag_bitwise_right_shift_scalar",
     ag_bitwise_right_shift_scalar, "ag_bitwise_right_shift_scalar_r", ag_bitwise_right_shift_scalar_r},
};
enum { NBINARY = sizeof binaries / sizeof binaries[0] };

static bool is_shift(ag_binary_op op) { return op == AG_OP_LEFT_SHIFT || op == AG_OP_RIGHT_SHIFT; }

static unsigned bits_of(ag_dtype t) { return 8u * (unsigned)ref_size(t); }

/* The smallest and largest value of integer dtype @p t. */
static void int_limits(ag_dtype t, int64_t *lo, uint64_t *hi) {
  unsigned bits = bits_of(t);
  bool u = ref_is_unsigned(t);
  *lo = u ? 0 : -(int64_t)(((uint64_t)1 << (bits - 1)) - 1) - 1;
  *hi = u ? (bits == 64 ? ~0ull : ((uint64_t)1 << bits) - 1) : ((uint64_t)1 << (bits - 1)) - 1;
}

/* Operands for @p op in dtype @p t, n of them: random over the integers' whole range (b for
   division small every third element, zero and -1 included; shift counts from -3 to the width
   + 3), reals in [-100, 100], bool 0 and 1; then, from the first element on, the cases numpy's
   answers are known for: MIN // -1, MIN % -1, x // 0, negative operands, shifts by 0, the width
   - 1, the width, beyond it and by negative counts. */
static void inputs(ag_binary_op op, ag_dtype t, size_t n, uint64_t seed, void *a, void *b) {
  if (ref_is_integer(t)) {
    int64_t lo;
    uint64_t hi;
    int_limits(t, &lo, &hi);
    double dlo = (double)lo, dhi = bits_of(t) == 64 ? ldexp(1, 64 - !ref_is_unsigned(t)) : (double)hi;
    ref_random(t, a, n, seed, dlo, dhi);
    if (is_shift(op))
      ref_random(t, b, n, seed + 1, ref_is_unsigned(t) ? 0 : -3, bits_of(t) + 3);
    else
      ref_random(t, b, n, seed + 1, dlo, dhi);
    if (op == AG_OP_FLOOR_DIVIDE || op == AG_OP_REMAINDER)
      for (size_t i = 0; i < n; i += 3)
        ref_put_int64(t, b, i, (int64_t)(i / 3 % 7) - (ref_is_unsigned(t) ? 0 : 3));
    /* The special cases, as many as fit. */
    int64_t w = (int64_t)bits_of(t);
    int64_t sa[] = {lo, lo, 7, -7, 7, -7, -1, 5, 0, lo, -8, 1, -1, 1, 1, -5};
    int64_t sb[] = {-1, 0, -2, 2, 2, -2, 3, 0, -4, 1, 1, 0, w - 1, w, w + 1, -1};
    if (is_shift(op)) {
      int64_t shift_a[] = {-8, 1, -1, 1, 1, -5, -1, lo, 3, -3, 100, -100};
      int64_t shift_b[] = {1, 0, w - 1, w, w + 1, -1, w, w - 1, 2, 2, w + 40, 100};
      memcpy(sa, shift_a, sizeof shift_a);
      memcpy(sb, shift_b, sizeof shift_b);
    }
    for (size_t i = 0; i < n && i < sizeof sa / sizeof sa[0]; i++) {
      if (ref_is_unsigned(t) && (sa[i] < 0 || sb[i] < 0)) /* wrapped: -1 is the largest */
        continue;
      ref_put_int64(t, a, i, sa[i]);
      ref_put_int64(t, b, i, sb[i]);
    }
  } else if (ref_is_bool(t)) {
    ref_random(t, a, n, seed, 0, 1);
    ref_random(t, b, n, seed + 1, 0, 1);
  } else {
    ref_random(t, a, n, seed, -100, 100);
    ref_random(t, b, n, seed + 1, -100, 100);
    /* Integral quotients and exact multiples, whose remainders are zeros of b's sign. */
    for (size_t i = 0; i + 1 < n && i < 8; i += 2) {
      ref_put(t, a, i, (long double)(int)(i + 3) * (i % 4 ? -1.5L : 2.25L));
      ref_put(t, b, i, i % 4 ? 1.5L : -2.25L);
    }
  }
}

static void check_binary(ag_device *dev, const binary_entry *e, ag_dtype t, size_t n, uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  void *a = test_alloc(n * ref_size(t)), *b = test_alloc(n * ref_size(t));
  inputs(e->op, t, n, seed, a, b);
  ag_array *aa = test_array_shaped(dev, t, n, a), *ab = test_array_shaped(dev, t, n, b);
  ag_array *out = test_array_shaped(dev, t, n, NULL);
  ref_check_ok(e->fn(NULL, aa, ab, out), "%s on %zu %s elements", e->name, n, ref_name(t));
  void *got = test_array_read(out);
  ref_c *want = test_alloc(n * sizeof *want);
  ref_binary(e->op, t, a, n, b, n, n, want);
  ref_check(t, got, want, NULL, n, ref_tol_binary(e->op, t), "%s of %s", e->name, ref_name(t));
  /* The same through ag_binary. */
  CHECK_OK(ag_fill(NULL, out, 0));
  ref_check_ok(ag_binary(NULL, e->op, aa, ab, out), "ag_binary(%s) on %zu %s elements", e->name, n, ref_name(t));
  free(got);
  got = test_array_read(out);
  ref_check(t, got, want, NULL, n, ref_tol_binary(e->op, t), "ag_binary(%s) of %s", e->name, ref_name(t));
  TEST_FREE(want, got, a, b);
  TEST_ARRAY_FREE(aa, ab, out);
}

static const size_t sizes[] = {1, 16, 1023};

START_TEST(every_operation_matches_the_reference_on_every_dtype_it_takes) {
  ag_device *dev = test_device(_i);
  for (int o = 0; o < NBINARY; o++)
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      if (!ref_binary_takes(binaries[o].op, all_dtypes[k]))
        continue;
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        check_binary(dev, &binaries[o], all_dtypes[k], sizes[s], 100u * (unsigned)o + 10u * (unsigned)k + s);
    }
}
END_TEST

/* numpy 1.24's answers, written out: np.floor_divide and np.remainder of int8 and of float64
   (float32 gives the same values), np.left_shift and np.right_shift of int8 and uint8. */
START_TEST(special_cases_give_numpy_s_answers) {
  ag_device *dev = test_device(_i);
  /* i8 */
  const int8_t ia[] = {-128, -128, 7, -7, 7, -7, 0, 5, -128};
  const int8_t ib[] = {-1, 0, -2, 2, 2, -2, -3, 0, 1};
  const int8_t fd[] = {-128, 0, -4, -4, 3, 3, 0, 0, -128};
  const int8_t rm[] = {0, 0, -1, 1, 1, -1, 0, 0, 0};
  const size_t ni = sizeof ia;
  ag_array *a = test_array_1d(dev, AG_I8, ni, ia), *b = test_array_1d(dev, AG_I8, ni, ib);
  ag_array *out = test_array_new(dev, AG_I8, 1, &ni);
  CHECK_OK(ag_floor_divide(NULL, a, b, out));
  int8_t *got = test_array_read(out);
  CHECK_BYTES(got, fd, ni, "int8 floor_divide");
  free(got);
  CHECK_OK(ag_remainder(NULL, a, b, out));
  got = test_array_read(out);
  CHECK_BYTES(got, rm, ni, "int8 remainder");
  free(got);
  TEST_ARRAY_FREE(a, b, out);

  /* Shifts: x of {1, -1, -128, 127} by 0, 7, 8, 9, 100 and -1. */
  const int8_t sx[] = {1, -1, -128, 127};
  const int8_t counts[] = {0, 7, 8, 9, 100, -1};
  const int8_t left[6][4] = {{1, -1, -128, 127}, {-128, -128, 0, -128}, {0}, {0}, {0}, {0}};
  const int8_t right[6][4] = {{1, -1, -128, 127}, {0, -1, -1, 0}, {0, -1, -1, 0},
                              {0, -1, -1, 0},     {0, -1, -1, 0}, {0, -1, -1, 0}};
  const size_t four = 4;
  ag_array *x = test_array_1d(dev, AG_I8, 4, sx), *r = test_array_new(dev, AG_I8, 1, &four);
  for (int c = 0; c < 6; c++) {
    CHECK_OK(ag_bitwise_left_shift_scalar(NULL, x, counts[c], r));
    got = test_array_read(r);
    CHECK_BYTES(got, left[c], 4, counts[c] == 0 ? "int8 << 0" : counts[c] < 0 ? "int8 << -1" : "int8 << 7 or more");
    free(got);
    CHECK_OK(ag_bitwise_right_shift_scalar(NULL, x, counts[c], r));
    got = test_array_read(r);
    CHECK_BYTES(got, right[c], 4, counts[c] == 0 ? "int8 >> 0" : counts[c] < 0 ? "int8 >> -1" : "int8 >> 7 or more");
    free(got);
  }
  TEST_ARRAY_FREE(x, r);
  /* u8: 255 << 1 is 254, 1 << 8 and 255 >> 200 are 0. */
  const uint8_t ua[] = {255, 1, 255}, ub[] = {1, 8, 200}, ul[] = {254, 0, 0}, ur[] = {127, 0, 0};
  const size_t three = 3;
  ag_array *au = test_array_1d(dev, AG_U8, 3, ua), *bu = test_array_1d(dev, AG_U8, 3, ub);
  ag_array *ou = test_array_new(dev, AG_U8, 1, &three);
  CHECK_OK(ag_bitwise_left_shift(NULL, au, bu, ou));
  uint8_t *gu = test_array_read(ou);
  CHECK_BYTES(gu, ul, 3, "uint8 left_shift");
  free(gu);
  CHECK_OK(ag_bitwise_right_shift(NULL, au, bu, ou));
  gu = test_array_read(ou);
  CHECK_BYTES(gu, ur, 3, "uint8 right_shift");
  free(gu);
  TEST_ARRAY_FREE(au, bu, ou);

  /* Floats: numpy's values, zeros' signs included. */
  const double inf = INFINITY, nan = NAN;
  const double fa[] = {1, -1, 0, -0.0, inf, -inf, nan, 5, -5, 0, 1, inf, 3, -3, 0.0, -0.0, 6, -6};
  const double fb[] = {0, 0, 0, 0, 0, 3, 1, inf, inf, -2, -inf, inf, -0.0, 0, 5, 5, -3, 3};
  const double ffd[] = {inf, -inf, nan, nan, inf, nan, nan, 0, -1, -0.0, -1, nan, -inf, -inf, 0, -0.0, -2, -2};
  const double frm[] = {nan, nan, nan, nan, nan, nan, nan, 5, inf, -0.0, -inf, nan, nan, nan, 0, 0, -0.0, 0};
  const size_t nf = sizeof fa / sizeof fa[0];
  for (ag_dtype t = AG_F32; t <= AG_F64; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    unsigned char pa[sizeof fa], pb[sizeof fb];
    for (size_t i = 0; i < nf; i++) {
      ref_put(t, pa, i, fa[i]);
      ref_put(t, pb, i, fb[i]);
    }
    ag_array *fx = test_array_1d(dev, t, nf, pa), *fy = test_array_1d(dev, t, nf, pb);
    ag_array *fo = test_array_new(dev, t, 1, &nf);
    for (int which = 0; which < 2; which++) {
      CHECK_OK(which == 0 ? ag_floor_divide(NULL, fx, fy, fo) : ag_remainder(NULL, fx, fy, fo));
      void *g = test_array_read(fo);
      const double *want = which == 0 ? ffd : frm;
      for (size_t i = 0; i < nf; i++) {
        long double v = creall(ref_get(t, g, i));
        bool same = isnan(want[i]) ? isnan(v) : v == want[i] && !signbit(v) == !signbit(want[i]);
        ck_assert_msg(same, "%s: %s of %s: %g and %g give %Lg, numpy gives %g", test_label(),
                      which == 0 ? "floor_divide" : "remainder", ref_name(t), fa[i], fb[i], v, want[i]);
      }
      free(g);
    }
    TEST_ARRAY_FREE(fx, fy, fo);
  }
}
END_TEST

/* One operand repeated over the other's leading axes (the _bb and _ba kernels), and shapes that
   broadcast only together ({3, 1} with {1, 4}), against the reference of the expanded pair. */
START_TEST(operands_broadcast_as_numpy_s) {
  ag_device *dev = test_device(_i);
  const size_t big[2] = {5, 7}, row = 7;
  for (int o = 0; o < NBINARY; o++) {
    const binary_entry *e = &binaries[o];
    ag_dtype t = e->op == AG_OP_BITWISE_XOR ? AG_BOOL : e->op == AG_OP_REMAINDER ? AG_F32 : AG_I16;
    void *a = test_alloc(35 * ref_size(t)), *b = test_alloc(35 * ref_size(t));
    inputs(e->op, t, 35, 900u + (unsigned)o, a, b);
    ag_array *A = test_array_from(dev, t, 2, big, a), *B = test_array_1d(dev, t, row, b);
    ag_array *out = test_array_new(dev, t, 2, big);
    ref_c *want = test_alloc(35 * sizeof *want);
    /* b repeated over a's rows, then a's row repeated over b's (a's first 7 as the row). */
    for (int side = 0; side < 2; side++) {
      ag_array *R = side == 0 ? B : test_array_1d(dev, t, row, a);
      CHECK_OK(side == 0 ? e->fn(NULL, A, R, out) : e->fn(NULL, R, A, out));
      void *got = test_array_read(out);
      if (side == 0)
        ref_binary(e->op, t, a, 35, b, row, 35, want);
      else
        ref_binary(e->op, t, a, row, a, 35, 35, want);
      ref_check(t, got, want, NULL, 35, ref_tol_binary(e->op, t), "%s with a repeated %s", e->name,
                side == 0 ? "b" : "a");
      free(got);
      if (side == 1)
        ag_array_free(R);
    }
    /* {3, 1} op {1, 4} into {3, 4}. */
    const size_t s31[2] = {3, 1}, s14[2] = {1, 4}, s34[2] = {3, 4};
    ag_array *C = test_array_from(dev, t, 2, s31, a), *D = test_array_from(dev, t, 2, s14, b);
    ag_array *o34 = test_array_new(dev, t, 2, s34);
    CHECK_OK(e->fn(NULL, C, D, o34));
    void *got = test_array_read(o34);
    unsigned char ea[12 * 8], eb[12 * 8];
    for (size_t i = 0; i < 12; i++) {
      memcpy(ea + i * ref_size(t), (char *)a + i / 4 * ref_size(t), ref_size(t));
      memcpy(eb + i * ref_size(t), (char *)b + i % 4 * ref_size(t), ref_size(t));
    }
    ref_binary(e->op, t, ea, 12, eb, 12, 12, want);
    ref_check(t, got, want, NULL, 12, ref_tol_binary(e->op, t), "%s of {3, 1} and {1, 4}", e->name);
    TEST_FREE(got, want, a, b);
    TEST_ARRAY_FREE(A, B, out, C, D, o34);
  }
}
END_TEST

/* x op s and s op x for scalars the dtype holds, against the reference with s as a one-element
   operand. */
START_TEST(scalar_forms_match_the_reference) {
  ag_device *dev = test_device(_i);
  const size_t n = 37;
  for (int o = 0; o < NBINARY; o++) {
    const binary_entry *e = &binaries[o];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!ref_binary_takes(e->op, t) || !test_dtype_runs(dev, t))
        continue;
      double w = bits_of(t);
      const double int_s[] = {0, 3, -1, -7}, shift_s[] = {0, w - 1, w, -1}, float_s[] = {2.5, -0.75, 0, -0.0};
      const double bool_s[] = {0, 1, 1, 0};
      const double *ss = ref_is_bool(t) ? bool_s : ref_is_float(t) ? float_s : is_shift(e->op) ? shift_s : int_s;
      for (int j = 0; j < 4; j++) {
        double s = ss[j];
        if (ref_is_unsigned(t) && s < 0)
          s = 5;
        void *x = test_alloc(n * ref_size(t)), *y = test_alloc(n * ref_size(t));
        inputs(e->op, t, n, 3000u + 10u * (unsigned)o + (unsigned)j, x, y);
        ag_array *ax = test_array_1d(dev, t, n, x), *out = test_array_new(dev, t, 1, &n);
        unsigned char sv[16];
        ref_put(t, sv, 0, s);
        ref_c *want = test_alloc(n * sizeof *want);
        for (int rev = 0; rev < 2; rev++) {
          if (rev == 1 && e->scalar_r == NULL)
            break;
          /* s << x and s >> x: counts as the array form's. */
          ag_array *src = ax;
          void *xs = x;
          if (rev == 1 && is_shift(e->op)) {
            src = test_array_1d(dev, t, n, y);
            xs = y;
          }
          ag_status st = rev ? e->scalar_r(NULL, s, src, out) : e->scalar(NULL, src, s, out);
          ref_check_ok(st, "%s with %g on %s", rev ? e->scalar_r_name : e->scalar_name, s, ref_name(t));
          if (rev)
            ref_binary(e->op, t, sv, 1, xs, n, n, want);
          else
            ref_binary(e->op, t, xs, n, sv, 1, n, want);
          void *got = test_array_read(out);
          ref_check(t, got, want, NULL, n, ref_tol_binary(e->op, t), "%s with the scalar %g",
                    rev ? e->scalar_r_name : e->scalar_name, s);
          /* And through ag_binary_scalar. */
          CHECK_OK(ag_binary_scalar(NULL, e->op, src, s, 0, rev, out));
          free(got);
          got = test_array_read(out);
          ref_check(t, got, want, NULL, n, ref_tol_binary(e->op, t), "ag_binary_scalar(%s) with %g", e->name, s);
          free(got);
          if (src != ax)
            ag_array_free(src);
        }
        TEST_FREE(want, x, y);
        TEST_ARRAY_FREE(ax, out);
      }
    }
  }
}
END_TEST

START_TEST(bitwise_invert_flips_every_bit_and_negates_bool) {
  ag_device *dev = test_device(_i);
  const size_t n = 1023;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!ref_unary_takes(AG_OP_BITWISE_INVERT, t))
      continue;
    void *x = test_alloc(n * ref_size(t)), *unused = test_alloc(n * ref_size(t));
    inputs(AG_OP_BITWISE_AND, t, n, 7000u + (unsigned)k, x, unused);
    ag_array *ax = test_array_shaped(dev, t, n, x), *out = test_array_shaped(dev, t, n, NULL);
    ref_c *want = test_alloc(n * sizeof *want);
    ref_unary(AG_OP_BITWISE_INVERT, t, x, n, want);
    for (int how = 0; how < 2; how++) {
      CHECK_OK(how == 0 ? ag_bitwise_invert(NULL, ax, out) : ag_unary(NULL, AG_OP_BITWISE_INVERT, ax, out));
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, n, REF_EXACT, "%s of %s", how == 0 ? "ag_bitwise_invert" : "ag_unary",
                ref_name(t));
      free(got);
    }
    TEST_FREE(want, x, unused);
    TEST_ARRAY_FREE(ax, out);
  }
  /* numpy: ~0 is -1 in i32, ~0 is 255 in u8, ~True is False. */
  const int32_t i0 = 0, im1 = -1;
  const uint8_t u0 = 0, u255 = 255, t1 = 1, f0 = 0;
  const size_t one = 1;
  ag_array *xi = test_array_1d(dev, AG_I32, 1, &i0), *oi = test_array_new(dev, AG_I32, 1, &one);
  ag_array *xu = test_array_1d(dev, AG_U8, 1, &u0), *ou = test_array_new(dev, AG_U8, 1, &one);
  ag_array *xb = test_array_1d(dev, AG_BOOL, 1, &t1), *ob = test_array_new(dev, AG_BOOL, 1, &one);
  CHECK_OK(ag_bitwise_invert(NULL, xi, oi));
  CHECK_OK(ag_bitwise_invert(NULL, xu, ou));
  CHECK_OK(ag_bitwise_invert(NULL, xb, ob));
  void *gi = test_array_read(oi), *gu = test_array_read(ou), *gb = test_array_read(ob);
  CHECK_BYTES(gi, &im1, 4, "~0 in i32");
  CHECK_BYTES(gu, &u255, 1, "~0 in u8");
  CHECK_BYTES(gb, &f0, 1, "~True");
  TEST_FREE(gi, gu, gb);
  TEST_ARRAY_FREE(xi, oi, xu, ou, xb, ob);
}
END_TEST

/* Operands of two dtypes compute in the promoted one: i8 << i32 in i32, u8 & bool in u8,
   f32 // i16 in f32 (numpy: an integer of 8 or 16 bits with f32 is f32). */
START_TEST(mixed_dtypes_promote_as_the_other_operations) {
  ag_device *dev = test_device(_i);
  const size_t n = 4;
  const int8_t a8[] = {1, -1, 3, -128};
  const int32_t c32[] = {3, 31, 32, 1}, s32[] = {8, -2147483647 - 1, 0, -256};
  ag_array *a = test_array_1d(dev, AG_I8, n, a8), *c = test_array_1d(dev, AG_I32, n, c32);
  ag_array *o32 = test_array_new(dev, AG_I32, 1, &n);
  CHECK_OK(ag_bitwise_left_shift(NULL, a, c, o32));
  void *g = test_array_read(o32);
  CHECK_BYTES(g, s32, sizeof s32, "int8 << int32");
  free(g);
  const uint8_t u[] = {0xf0, 0x0f, 7, 255}, bo[] = {1, 0, 1, 1}, ub[] = {0, 0, 1, 1};
  ag_array *au = test_array_1d(dev, AG_U8, n, u), *ab = test_array_1d(dev, AG_BOOL, n, bo);
  ag_array *ou = test_array_new(dev, AG_U8, 1, &n);
  CHECK_OK(ag_bitwise_and(NULL, au, ab, ou));
  g = test_array_read(ou);
  CHECK_BYTES(g, ub, sizeof ub, "uint8 & bool");
  free(g);
  const float fx[] = {7.5f, -7.5f, 1, -0.0f}, fq[] = {3, -4, -1, -0.0f};
  const int16_t d16[] = {2, 2, -3, 1};
  ag_array *af = test_array_1d(dev, AG_F32, n, fx), *ad = test_array_1d(dev, AG_I16, n, d16);
  ag_array *of = test_array_new(dev, AG_F32, 1, &n);
  CHECK_OK(ag_floor_divide(NULL, af, ad, of));
  g = test_array_read(of);
  CHECK_BYTES(g, fq, sizeof fq, "float32 // int16");
  free(g);
  /* An out of another dtype than the promoted one is refused. */
  CHECK_FAILS(ag_bitwise_left_shift(NULL, a, c, ou), AG_ERR_MISMATCH, "ag_bitwise_left_shift", "i32");
  TEST_ARRAY_FREE(a, c, o32, au, ab, ou, af, ad, of);
}
END_TEST

START_TEST(dtypes_without_a_meaning_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 5;
  for (int o = 0; o < NBINARY; o++) {
    const binary_entry *e = &binaries[o];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (ref_binary_takes(e->op, t) || !test_dtype_runs(dev, t))
        continue;
      ag_array *a = test_array_new(dev, t, 1, &n), *b = test_array_new(dev, t, 1, &n);
      ag_array *out = test_array_new(dev, t, 1, &n);
      /* Filled with values every dtype holds, bool too; out with one no operation gives. */
      CHECK_OK(ag_fill(NULL, a, 1));
      CHECK_OK(ag_fill(NULL, b, 1));
      CHECK_OK(ag_fill(NULL, out, 0));
      CHECK_REFUSED(e->fn(NULL, a, b, out), AG_ERR_UNSUPPORTED, e->name, ref_name(t));
      CHECK_REFUSED(ag_binary(NULL, e->op, a, b, out), AG_ERR_UNSUPPORTED, e->name, ref_name(t));
      CHECK_REFUSED(e->scalar(NULL, a, 2, out), AG_ERR_UNSUPPORTED, e->scalar_name, ref_name(t));
      if (e->scalar_r != NULL)
        CHECK_REFUSED(e->scalar_r(NULL, 2, a, out), AG_ERR_UNSUPPORTED, e->scalar_r_name, ref_name(t));
      ag_array *all[] = {a, b, out};
      test_check_all_equal(all, 2, 1, e->name);
      test_check_all_equal(all + 2, 1, 0, e->name);
      TEST_ARRAY_FREE(a, b, out);
    }
  }
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (ref_unary_takes(AG_OP_BITWISE_INVERT, t) || !test_dtype_runs(dev, t))
      continue;
    ag_array *x = test_array_new(dev, t, 1, &n);
    CHECK_REFUSED(ag_bitwise_invert(NULL, x, x), AG_ERR_UNSUPPORTED, "ag_bitwise_invert", ref_name(t));
    ag_array_free(x);
  }
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "every operation matches the reference on every dtype it takes",
                  every_operation_matches_the_reference_on_every_dtype_it_takes);
  add_device_test(s, "special cases give numpy's answers", special_cases_give_numpy_s_answers);
  add_device_test(s, "operands broadcast as numpy's", operands_broadcast_as_numpy_s);
  add_device_test(s, "scalar forms match the reference", scalar_forms_match_the_reference);
  add_device_test(s, "bitwise invert flips every bit and negates bool",
                  bitwise_invert_flips_every_bit_and_negates_bool);
  add_device_test(s, "mixed dtypes promote as the other operations", mixed_dtypes_promote_as_the_other_operations);
  add_device_test(s, "dtypes without a meaning are refused by name", dtypes_without_a_meaning_are_refused_by_name);
}
