/* tests/test_elementwise.c — the elementwise half of ops.h: unary and binary operations, their
   scalar forms, axpby, clamp, where and soft threshold, on every dtype each takes and at sizes
   1, 7, 1023 and 2^20 + 3, against the host references of reference.c; the dtypes each
   refuses; NaN, Inf and integer wraparound; broadcasting; in-place operation; operand errors;
   empty arrays; one array above 2^31 bytes; and the comparisons, with their exact scalars. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};
static const ag_dtype float_dtypes[4] = {AG_F32, AG_F64, AG_C64, AG_C128};

/* Sizes: one element, fewer than a vector, an odd count spanning several work-groups, and more
   than 2^16: many work-groups with a ragged end on every device, past the host's one-thread
   limit (src/launch.c, AG__EW_SERIAL_MAX), and several chunks a thread there. The bench's rows
   take the large sizes; an array of more than 2^31 bytes has its own test below. */
static const size_t sizes[] = {1, 7, 1023, (1u << 16) + 3};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

typedef ag_status (*unary_fn)(ag_queue *, const ag_array *, ag_array *);

typedef struct unary_entry {
  ag_unary_op op;
  const char *name;
  unary_fn fn;
} unary_entry;

static const unary_entry unaries[] = {
    {AG_OP_NEG, "ag_neg", ag_neg},    {AG_OP_ABS, "ag_abs", ag_abs},          {AG_OP_SQRT, "ag_sqrt", ag_sqrt},
    {AG_OP_EXP, "ag_exp", ag_exp},    {AG_OP_LOG, "ag_log", ag_log},          {AG_OP_SIN, "ag_sin", ag_sin},
    {AG_OP_COS, "ag_cos", ag_cos},    {AG_OP_SQUARE, "ag_square", ag_square}, {AG_OP_SIGN, "ag_sign", ag_sign},
    {AG_OP_CONJ, "ag_conj", ag_conj}, {AG_OP_REAL, "ag_real", ag_real},       {AG_OP_IMAG, "ag_imag", ag_imag},
};
enum { NUNARY = sizeof unaries / sizeof unaries[0] };

static const binary_entry binaries[] = {
    {AG_OP_ADD, "ag_add", ag_add, "ag_add_scalar", ag_add_scalar, NULL, NULL},
    {AG_OP_SUB, "ag_sub", ag_sub, "ag_sub_scalar", ag_sub_scalar, "ag_sub_scalar_r", ag_sub_scalar_r},
    {AG_OP_MUL, "ag_mul", ag_mul, "ag_mul_scalar", ag_mul_scalar, NULL, NULL},
    {AG_OP_DIV, "ag_div", ag_div, "ag_div_scalar", ag_div_scalar, "ag_div_scalar_r", ag_div_scalar_r},
    {AG_OP_POW, "ag_pow", ag_pow, "ag_pow_scalar", ag_pow_scalar, "ag_pow_scalar_r", ag_pow_scalar_r},
    {AG_OP_MINIMUM, "ag_minimum", ag_minimum, "ag_minimum_scalar", ag_minimum_scalar, NULL, NULL},
    {AG_OP_MAXIMUM, "ag_maximum", ag_maximum, "ag_maximum_scalar", ag_maximum_scalar, NULL, NULL},
};
enum { NBINARY = sizeof binaries / sizeof binaries[0] };

/* ---- inputs ------------------------------------------------------------------------------------ */

/* The whole range of an integer dtype; signed ones without their minimum, whose negation and
   quotient by -1 wrap to itself (the wraparound test checks those on their own). */
static void int_range(ag_dtype t, double *lo, double *hi) {
  unsigned bits = (unsigned)ref_size(t) * 8;
  /* 64 bits: a range of 2^64, which ref_random takes as the whole range (minimum excluded). */
  *lo = ref_is_unsigned(t) ? 0 : -ldexp(1, (int)bits - 1) + (bits < 64);
  *hi = ldexp(1, (int)bits - !ref_is_unsigned(t)) - (bits < 64);
}

/* Inputs that make each unary operation meaningful: sqrt and log of positive reals, exp within
   the dtype's range, sin and cos within [-10, 10] (see the tolerances); complex arguments away
   from overflow. */
static void unary_range(ag_unary_op op, ag_dtype t, double *lo, double *hi) {
  if (ref_is_integer(t)) {
    int_range(t, lo, hi);
    return;
  }
  bool cx = ref_is_complex(t);
  *lo = -100;
  *hi = 100;
  switch (op) {
  case AG_OP_SQRT:
    *lo = cx ? -10 : 0;
    *hi = cx ? 10 : 1000;
    break;
  case AG_OP_LOG:
    *lo = cx ? -10 : 1e-3;
    *hi = cx ? 10 : 1e3;
    break;
  case AG_OP_EXP:
    *lo = cx ? -10 : t == AG_F32 ? -80 : -700;
    *hi = -*lo;
    break;
  case AG_OP_SIN:
  case AG_OP_COS:
    *lo = cx ? -3 : -10;
    *hi = -*lo;
    break;
  default:
    break;
  }
}

static void *unary_input(ag_unary_op op, ag_dtype t, size_t n, uint64_t seed) {
  double lo, hi;
  unary_range(op, t, &lo, &hi);
  void *x = test_alloc(n * ref_size(t));
  ref_random(t, x, n, seed, lo, hi);
  return x;
}

/* Operands for a binary operation: integers over their whole range (every third divisor small,
   zero included, so quotients vary and x / 0 occurs); reals in [-100, 100]; pow with a base in
   [0.1, 10] and an exponent in [-4, 4] (complex: base in the first quadrant, exponent within
   [-1, 1] per part). */
static void binary_inputs(ag_binary_op op, ag_dtype t, size_t n, uint64_t seed, void **a, void **b) {
  *a = test_alloc(n * ref_size(t));
  *b = test_alloc(n * ref_size(t));
  bool cx = ref_is_complex(t);
  if (ref_is_integer(t)) {
    double lo, hi;
    int_range(t, &lo, &hi);
    ref_random(t, *a, n, seed, lo, hi);
    ref_random(t, *b, n, seed + 1, lo, hi);
    if (op == AG_OP_DIV) {
      size_t m = (n + 2) / 3;
      void *small = test_alloc(m * ref_size(t));
      ref_random(t, small, m, seed + 2, ref_is_unsigned(t) ? 0 : -3, 3);
      for (size_t i = 0; i < n; i += 3)
        memcpy((char *)*b + i * ref_size(t), (char *)small + i / 3 * ref_size(t), ref_size(t));
      free(small);
    }
  } else if (op == AG_OP_POW) {
    ref_random(t, *a, n, seed, cx ? 0.3 : 0.1, cx ? 1.5 : 10);
    ref_random(t, *b, n, seed + 1, cx ? -1 : -4, cx ? 1 : 4);
  } else {
    ref_random(t, *a, n, seed, cx ? -10 : -100, cx ? 10 : 100);
    ref_random(t, *b, n, seed + 1, cx ? -10 : -100, cx ? 10 : 100);
  }
}

/* ---- unary --------------------------------------------------------------------------------------- */

static void check_unary(ag_device *dev, const unary_entry *u, ag_dtype t, size_t n, uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  ag_dtype ot = ref_unary_out_dtype(u->op, t);
  void *x = unary_input(u->op, t, n, seed);
  ag_array *ax = test_array_shaped(dev, t, n, x), *out = test_array_shaped(dev, ot, n, NULL);
  ref_check_ok(u->fn(NULL, ax, out), "%s on %zu %s elements", u->name, n, ref_name(t));
  void *got = test_array_read(out);
  ref_c *want = test_alloc(n * sizeof *want);
  ref_unary(u->op, t, x, n, want);
  ref_check(ot, got, want, NULL, n, ref_tol_unary(u->op, t), "%s of %s", u->name, ref_name(t));
  free(want);
  free(got);
  free(x);
  ag_array_free(ax);
  ag_array_free(out);
}

/* Runs every unary operation of @p ops on every dtype it takes, at every size. */
static void check_unaries(ag_device *dev, const ag_unary_op *ops, size_t nops) {
  for (size_t o = 0; o < nops; o++) {
    const unary_entry *u = NULL;
    for (int k = 0; k < NUNARY; k++)
      if (unaries[k].op == ops[o])
        u = &unaries[k];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      if (!ref_unary_takes(u->op, all_dtypes[k]))
        continue;
      for (int s = 0; s < NSIZES; s++)
        check_unary(dev, u, all_dtypes[k], sizes[s], 1000u * o + 10u * (unsigned)k + (unsigned)s);
    }
  }
}

START_TEST(neg_abs_square_and_sign_match_the_reference) {
  ag_device *dev = test_device(_i);
  const ag_unary_op ops[] = {AG_OP_NEG, AG_OP_ABS, AG_OP_SQUARE, AG_OP_SIGN};
  check_unaries(dev, ops, 4);
}
END_TEST

START_TEST(sqrt_exp_log_sin_and_cos_are_within_their_ulp_bounds) {
  ag_device *dev = test_device(_i);
  const ag_unary_op ops[] = {AG_OP_SQRT, AG_OP_EXP, AG_OP_LOG, AG_OP_SIN, AG_OP_COS};
  check_unaries(dev, ops, 5);
}
END_TEST

START_TEST(conj_real_and_imag_take_parts_and_copy_reals) {
  ag_device *dev = test_device(_i);
  const ag_unary_op ops[] = {AG_OP_CONJ, AG_OP_REAL, AG_OP_IMAG};
  check_unaries(dev, ops, 3);
}
END_TEST

START_TEST(unary_operations_refuse_dtypes_they_have_no_meaning_for) {
  ag_device *dev = test_device(_i);
  const size_t n = 5;
  for (int o = 0; o < NUNARY; o++) {
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!test_dtype_runs(dev, t))
        continue;
      if (ref_unary_takes(unaries[o].op, t))
        continue;
      ag_array *x = test_array_new(dev, t, 1, &n), *out = test_array_new(dev, t, 1, &n);
      CHECK_OK(ag_fill(NULL, x, 4));
      CHECK_OK(ag_fill(NULL, out, 9));
      CHECK_REFUSED(unaries[o].fn(NULL, x, out), AG_ERR_UNSUPPORTED, unaries[o].name, ref_name(t));
      /* The enum form may name itself or the operation. */
      char either[64];
      snprintf(either, sizeof either, "ag_unary|%s", unaries[o].name);
      CHECK_REFUSED(ag_unary(NULL, unaries[o].op, x, out), AG_ERR_UNSUPPORTED, either, ref_name(t));
      /* out is left alone. */
      unsigned char *back = test_array_read(out), nine[5 * 16];
      for (size_t i = 0; i < n; i++)
        ref_put(t, nine, i, 9);
      CHECK_BYTES(back, nine, n * ref_size(t), "the out of a refused operation");
      free(back);
      ag_array_free(x);
      ag_array_free(out);
    }
  }
  /* Without double precision, f64 and c128 are refused, naming the device. */
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    ag_array *d = test_array_new(dev, AG_F64, 1, &n);
    CHECK_REFUSED(ag_sqrt(NULL, d, d), AG_ERR_UNSUPPORTED, "ag_sqrt", info.spec);
    ag_array_free(d);
  }
}
END_TEST

/* ---- binary ---------------------------------------------------------------------------------------- */

static void check_binary(ag_device *dev, const binary_entry *e, ag_dtype t, size_t n, uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  void *a, *b;
  binary_inputs(e->op, t, n, seed, &a, &b);
  ag_array *aa = test_array_shaped(dev, t, n, a), *ab = test_array_shaped(dev, t, n, b);
  ag_array *out = test_array_shaped(dev, t, n, NULL);
  ref_check_ok(e->fn(NULL, aa, ab, out), "%s on %zu %s elements", e->name, n, ref_name(t));
  void *got = test_array_read(out);
  ref_c *want = test_alloc(n * sizeof *want);
  ref_binary(e->op, t, a, n, b, n, n, want);
  ref_check(t, got, want, NULL, n, ref_tol_binary(e->op, t), "%s of %s", e->name, ref_name(t));
  free(want);
  free(got);
  free(a);
  free(b);
  ag_array_free(aa);
  ag_array_free(ab);
  ag_array_free(out);
}

static void check_binaries(ag_device *dev, const ag_binary_op *ops, size_t nops) {
  for (size_t o = 0; o < nops; o++) {
    const binary_entry *e = NULL;
    for (int k = 0; k < NBINARY; k++)
      if (binaries[k].op == ops[o])
        e = &binaries[k];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      if (!ref_binary_takes(e->op, all_dtypes[k]))
        continue;
      for (int s = 0; s < NSIZES; s++)
        check_binary(dev, e, all_dtypes[k], sizes[s], 5000u + 1000u * o + 10u * (unsigned)k + (unsigned)s);
    }
  }
}

START_TEST(add_sub_and_mul_match_the_reference) {
  ag_device *dev = test_device(_i);
  const ag_binary_op ops[] = {AG_OP_ADD, AG_OP_SUB, AG_OP_MUL};
  check_binaries(dev, ops, 3);
}
END_TEST

START_TEST(div_truncates_integers_and_rounds_floats_within_the_bound) {
  ag_device *dev = test_device(_i);
  const ag_binary_op ops[] = {AG_OP_DIV};
  check_binaries(dev, ops, 1);
}
END_TEST

START_TEST(pow_is_within_its_ulp_bound) {
  ag_device *dev = test_device(_i);
  const ag_binary_op ops[] = {AG_OP_POW};
  check_binaries(dev, ops, 1);
}
END_TEST

START_TEST(minimum_and_maximum_match_the_reference) {
  ag_device *dev = test_device(_i);
  const ag_binary_op ops[] = {AG_OP_MINIMUM, AG_OP_MAXIMUM};
  check_binaries(dev, ops, 2);
}
END_TEST

START_TEST(binary_operations_refuse_dtypes_they_have_no_meaning_for) {
  ag_device *dev = test_device(_i);
  const size_t n = 5;
  for (int o = 0; o < NBINARY; o++) {
    const binary_entry *e = &binaries[o];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!test_dtype_runs(dev, t))
        continue;
      if (ref_binary_takes(e->op, t))
        continue;
      ag_array *a = test_array_new(dev, t, 1, &n), *b = test_array_new(dev, t, 1, &n);
      ag_array *out = test_array_new(dev, t, 1, &n);
      CHECK_OK(ag_fill(NULL, a, 2));
      CHECK_OK(ag_fill(NULL, b, 3));
      CHECK_REFUSED(e->fn(NULL, a, b, out), AG_ERR_UNSUPPORTED, e->name, ref_name(t));
      /* Enum and scalar forms may name themselves or the operation; "messages name the function
         called" checks the scalar forms strictly. */
      char either[96];
      snprintf(either, sizeof either, "ag_binary|%s", e->name);
      CHECK_REFUSED(ag_binary(NULL, e->op, a, b, out), AG_ERR_UNSUPPORTED, either, ref_name(t));
      CHECK_REFUSED(e->scalar(NULL, a, 2, out), AG_ERR_UNSUPPORTED, e->name, ref_name(t));
      if (e->scalar_r != NULL)
        CHECK_REFUSED(e->scalar_r(NULL, 2, a, out), AG_ERR_UNSUPPORTED, e->name, ref_name(t));
      snprintf(either, sizeof either, "ag_binary_scalar|%s", e->name);
      CHECK_REFUSED(ag_binary_scalar(NULL, e->op, a, 2, 0, false, out), AG_ERR_UNSUPPORTED, either, ref_name(t));
      ag_array_free(a);
      ag_array_free(b);
      ag_array_free(out);
    }
  }
}
END_TEST

/* ---- scalar forms ------------------------------------------------------------------------------- */

/* x op s (or s op x) against the reference with s as a one-element operand. */
static void check_scalar_case(ag_device *dev, const binary_entry *e, ag_dtype t, size_t n, double s, bool reversed,
                              uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  void *x, *unused;
  binary_inputs(e->op, t, n, seed, reversed ? &unused : &x, reversed ? &x : &unused);
  free(unused);
  if (reversed && e->op == AG_OP_POW && ref_is_float(t)) /* s ** x: exponents in [-4, 4] */
    ref_random(t, x, n, seed + 7, -4, 4);
  ag_array *ax = test_array_shaped(dev, t, n, x), *out = test_array_shaped(dev, t, n, NULL);
  ag_status st = reversed ? e->scalar_r(NULL, s, ax, out) : e->scalar(NULL, ax, s, out);
  ref_check_ok(st, "%s with %g on %zu %s elements", reversed ? e->scalar_r_name : e->name, s, n, ref_name(t));
  unsigned char sv[16];
  ref_put(t, sv, 0, s);
  ref_c *want = test_alloc(n * sizeof *want);
  if (reversed)
    ref_binary(e->op, t, sv, 1, x, n, n, want);
  else
    ref_binary(e->op, t, x, n, sv, 1, n, want);
  void *got = test_array_read(out);
  ref_check(t, got, want, NULL, n, ref_tol_binary(e->op, t), "%s with the scalar %g",
            reversed ? e->scalar_r_name : e->scalar_name, s);
  free(got);
  free(want);
  free(x);
  ag_array_free(ax);
  ag_array_free(out);
}

START_TEST(scalar_forms_match_the_reference) {
  ag_device *dev = test_device(_i);
  for (int o = 0; o < NBINARY; o++) {
    const binary_entry *e = &binaries[o];
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!test_dtype_runs(dev, t))
        continue;
      if (!ref_binary_takes(e->op, t))
        continue;
      /* Scalars the dtype holds: 10 wraps u8 (250 + 10), 0 divides integers to 0, 7 truncates;
         2.5, -0.75 and 1.5 for floats (exact in f32). */
      const double int_scalars[] = {10, 0, 7};
      const double float_scalars[] = {2.5, -0.75, 1.5};
      const double *scalars = ref_is_integer(t) ? int_scalars : float_scalars;
      for (int j = 0; j < 3; j++) {
        /* 7 and 1023 elements for every scalar; 2^20 + 3 for the first scalar on one dtype of
           each kind (the kernels are those of the array forms, which run every size). */
        bool large = j == 0 && (t == AG_U8 || t == AG_I32 || t == AG_F32 || t == AG_C128);
        for (int sz = 1; sz < (large ? NSIZES : NSIZES - 1); sz++) {
          uint64_t seed = 20000u + 100u * (unsigned)o + 10u * (unsigned)k + (unsigned)j;
          check_scalar_case(dev, e, t, sizes[sz], scalars[j], false, seed);
          /* s ** x needs a positive base. */
          double sr = e->op == AG_OP_POW && scalars[j] <= 0 ? 2.0 : scalars[j];
          if (e->scalar_r != NULL)
            check_scalar_case(dev, e, t, sizes[sz], sr, true, seed);
        }
      }
    }
  }
}
END_TEST

/* ag_binary_scalar with a complex scalar, in both orders. */
START_TEST(complex_scalars_apply_in_either_order) {
  ag_device *dev = test_device(_i);
  const size_t n = 1023;
  const ag_binary_op ops[] = {AG_OP_ADD, AG_OP_SUB, AG_OP_MUL, AG_OP_DIV, AG_OP_POW};
  for (ag_dtype t = AG_C64; t <= AG_C128; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      for (int first = 0; first < 2; first++) {
        void *x, *unused;
        binary_inputs(ops[o], t, n, 300u + o, first ? &unused : &x, first ? &x : &unused);
        free(unused);
        /* pow: s ** x with the base 0.75 - 0.5i, x ** s with the exponent 0.75 + 0.25i (bases in
           the first quadrant); the others with 1.5 - 0.5i. */
        double re = ops[o] == AG_OP_POW ? 0.75 : 1.5, im = ops[o] == AG_OP_POW && !first ? 0.25 : -0.5;
        ag_array *ax = test_array_1d(dev, t, n, x), *out = test_array_new(dev, t, 1, &n);
        ref_check_ok(ag_binary_scalar(NULL, ops[o], ax, re, im, first, out), "ag_binary_scalar op %d", (int)ops[o]);
        unsigned char sv[16];
        ref_put(t, sv, 0, CMPLXL(re, im));
        ref_c *want = test_alloc(n * sizeof *want);
        if (first)
          ref_binary(ops[o], t, sv, 1, x, n, n, want);
        else
          ref_binary(ops[o], t, x, n, sv, 1, n, want);
        void *got = test_array_read(out);
        ref_check(t, got, want, NULL, n, ref_tol_binary(ops[o], t), "ag_binary_scalar op %d with %g%+gi%s", (int)ops[o],
                  re, im, first ? " first" : "");
        free(got);
        free(want);
        free(x);
        ag_array_free(ax);
        ag_array_free(out);
      }
    }
  }
  /* A real dtype takes no imaginary part. */
  ag_array *r = test_array_new(dev, AG_F32, 1, &n);
  CHECK_OK(ag_fill(NULL, r, 1));
  CHECK_REFUSED(ag_binary_scalar(NULL, AG_OP_ADD, r, 1, 0.5, false, r), AG_ERR_INVALID_ARGUMENT,
                "ag_binary_scalar|ag_add", "im|s|scalar");
  ag_array_free(r);
}
END_TEST

/* The enum forms compute what the named functions compute, bit for bit; unknown ops are refused. */
START_TEST(ag_unary_and_ag_binary_dispatch_like_the_named_functions) {
  ag_device *dev = test_device(_i);
  const size_t n = 777;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int o = 0; o < NUNARY; o++) {
      if (!ref_unary_takes(unaries[o].op, t))
        continue;
      ag_dtype ot = ref_unary_out_dtype(unaries[o].op, t);
      void *x = unary_input(unaries[o].op, t, n, 40u + (unsigned)o);
      ag_array *ax = test_array_1d(dev, t, n, x), *o1 = test_array_new(dev, ot, 1, &n),
               *o2 = test_array_new(dev, ot, 1, &n);
      ref_check_ok(unaries[o].fn(NULL, ax, o1), "%s", unaries[o].name);
      ref_check_ok(ag_unary(NULL, unaries[o].op, ax, o2), "ag_unary(%s)", unaries[o].name);
      void *g1 = test_array_read(o1), *g2 = test_array_read(o2);
      CHECK_BYTES(g2, g1, n * ref_size(ot), unaries[o].name);
      free(g1);
      free(g2);
      free(x);
      ag_array_free(ax);
      ag_array_free(o1);
      ag_array_free(o2);
    }
    for (int o = 0; o < NBINARY; o++) {
      if (!ref_binary_takes(binaries[o].op, t))
        continue;
      void *a, *b;
      binary_inputs(binaries[o].op, t, n, 60u + (unsigned)o, &a, &b);
      ag_array *aa = test_array_1d(dev, t, n, a), *ab = test_array_1d(dev, t, n, b);
      ag_array *o1 = test_array_new(dev, t, 1, &n), *o2 = test_array_new(dev, t, 1, &n);
      ref_check_ok(binaries[o].fn(NULL, aa, ab, o1), "%s", binaries[o].name);
      ref_check_ok(ag_binary(NULL, binaries[o].op, aa, ab, o2), "ag_binary(%s)", binaries[o].name);
      void *g1 = test_array_read(o1), *g2 = test_array_read(o2);
      CHECK_BYTES(g2, g1, n * ref_size(t), binaries[o].name);
      free(g1);
      free(g2);
      free(a);
      free(b);
      ag_array_free(aa);
      ag_array_free(ab);
      ag_array_free(o1);
      ag_array_free(o2);
    }
  }
  ag_array *x = test_array_new(dev, AG_F32, 1, &n), *out = test_array_new(dev, AG_F32, 1, &n);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_REFUSED(ag_unary(NULL, (ag_unary_op)99, x, out), AG_ERR_INVALID_ARGUMENT, "ag_unary", "op");
  CHECK_REFUSED(ag_unary(NULL, (ag_unary_op)-1, x, out), AG_ERR_INVALID_ARGUMENT, "ag_unary", "op");
  CHECK_REFUSED(ag_binary(NULL, (ag_binary_op)99, x, x, out), AG_ERR_INVALID_ARGUMENT, "ag_binary", "op");
  CHECK_REFUSED(ag_binary_scalar(NULL, (ag_binary_op)99, x, 1, 0, false, out), AG_ERR_INVALID_ARGUMENT,
                "ag_binary_scalar", "op");
  ag_array_free(x);
  ag_array_free(out);
}
END_TEST

/* ---- special values ------------------------------------------------------------------------------- */

START_TEST(nan_and_inf_propagate_as_in_c) {
  ag_device *dev = test_device(_i);
  /* Pairs covering NaN on either side, infinities meeting finite values, each other and zero,
     division by zero, and pow's C99 special cases (pow(NaN, 0) = 1, pow(1, NaN) = 1, a negative
     base with an integer and a non-integer exponent, pow(0, -1) = Inf). */
  const double pa[] = {NAN, 1,  INFINITY, -INFINITY, INFINITY, 0, 1, -1, 0, INFINITY, NAN,
                       2,   -2, -2,       0,         -8,       1, 3, -3, 5, INFINITY, -0.0};
  const double pb[] = {1, NAN, 2,   2,  -INFINITY, 0, 0,   0,         INFINITY, INFINITY, 0,
                       3, 3,   0.5, -1, 1.0 / 3,   1, NAN, -INFINITY, -0.0,     0.5,      2};
  enum { NP = sizeof pa / sizeof pa[0] };
  const double ux[] = {NAN, INFINITY, -INFINITY, -1, -0.0, 0, 1e-30, 2, -2.5};
  enum { NU = sizeof ux / sizeof ux[0] };
  for (ag_dtype t = AG_F32; t <= AG_F64; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    unsigned char a[NP * 8], b[NP * 8], x[NU * 8];
    for (int i = 0; i < NP; i++) {
      ref_put(t, a, (size_t)i, pa[i]);
      ref_put(t, b, (size_t)i, pb[i]);
    }
    for (int i = 0; i < NU; i++)
      ref_put(t, x, (size_t)i, ux[i]);
    ag_array *aa = test_array_1d(dev, t, NP, a), *ab = test_array_1d(dev, t, NP, b),
             *out = test_array_new(dev, t, 1, &(size_t){NP});
    ref_c want[(int)NP > (int)NU ? (int)NP : (int)NU];
    for (int o = 0; o < NBINARY; o++) {
      ref_check_ok(binaries[o].fn(NULL, aa, ab, out), "%s of special values", binaries[o].name);
      ref_binary(binaries[o].op, t, a, NP, b, NP, NP, want);
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, NP, ref_tol_binary(binaries[o].op, t), "%s of NaN, Inf and zeros",
                binaries[o].name);
      free(got);
    }
    ag_array_free(out);
    ag_array *axx = test_array_1d(dev, t, NU, x);
    out = test_array_new(dev, t, 1, &(size_t){NU});
    for (int o = 0; o < NUNARY; o++) {
      ref_check_ok(unaries[o].fn(NULL, axx, out), "%s of special values", unaries[o].name);
      ref_unary(unaries[o].op, t, x, NU, want);
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, NU, ref_tol_unary(unaries[o].op, t), "%s of NaN, Inf and zeros", unaries[o].name);
      free(got);
    }
    /* Scalar forms: NaN + 1, Inf * 2, and a NaN scalar. */
    ref_check_ok(ag_add_scalar(NULL, axx, 1, out), "ag_add_scalar");
    void *got = test_array_read(out);
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 0))), "%s: NaN + 1 is not NaN", test_label());
    free(got);
    ref_check_ok(ag_mul_scalar(NULL, axx, 2, out), "ag_mul_scalar");
    got = test_array_read(out);
    ck_assert_msg(creall(ref_get(t, got, 1)) == INFINITY && creall(ref_get(t, got, 2)) == -INFINITY,
                  "%s: Inf * 2 is not Inf", test_label());
    free(got);
    ref_check_ok(ag_add_scalar(NULL, axx, NAN, out), "ag_add_scalar with NaN");
    got = test_array_read(out);
    for (size_t i = 0; i < NU; i++)
      ck_assert_msg(isnan((double)creall(ref_get(t, got, i))), "%s: element %zu + NaN is not NaN", test_label(), i);
    free(got);
    /* sqrt(-1) = NaN, named outright. */
    ref_check_ok(ag_sqrt(NULL, axx, out), "ag_sqrt");
    got = test_array_read(out);
    ck_assert_msg(isnan((double)creall(ref_get(t, got, 3))), "%s: sqrt(-1) is not NaN", test_label());
    free(got);
    ag_array_free(axx);
    ag_array_free(aa);
    ag_array_free(ab);
    ag_array_free(out);
  }
}
END_TEST

/* Worked by hand from ops.h: integers wrap, division truncates, x / 0 is 0. */
START_TEST(integers_wrap_around_and_divide_by_zero_to_zero) {
  ag_device *dev = test_device(_i);
  const struct {
    ag_dtype t;
    binary_fn fn;
    const char *name;
    double a, b, want;
  } cases[] = {
      {AG_U8, ag_add, "ag_add", 250, 10, 4},
      {AG_U8, ag_sub, "ag_sub", 3, 5, 254},
      {AG_U8, ag_mul, "ag_mul", 16, 16, 0},
      {AG_U8, ag_mul, "ag_mul", 200, 2, 144},
      {AG_U8, ag_div, "ag_div", 7, 0, 0},
      {AG_U8, ag_div, "ag_div", 255, 2, 127},
      {AG_U16, ag_add, "ag_add", 65535, 1, 0},
      {AG_U16, ag_sub, "ag_sub", 0, 1, 65535},
      {AG_U16, ag_mul, "ag_mul", 300, 300, 24464},
      {AG_U16, ag_div, "ag_div", 9, 0, 0},
      {AG_U32, ag_add, "ag_add", 4294967295.0, 1, 0},
      {AG_U32, ag_sub, "ag_sub", 0, 1, 4294967295.0},
      {AG_U32, ag_mul, "ag_mul", 65536, 65536, 0},
      {AG_U32, ag_mul, "ag_mul", 4294967295.0, 4294967295.0, 1},
      {AG_U32, ag_div, "ag_div", 100, 0, 0},
      {AG_U32, ag_div, "ag_div", 4294967295.0, 2, 2147483647},
      {AG_I32, ag_add, "ag_add", 2147483647, 1, -2147483648.0},
      {AG_I32, ag_sub, "ag_sub", -2147483648.0, 1, 2147483647},
      {AG_I32, ag_mul, "ag_mul", 65536, 65536, 0},
      {AG_I32, ag_mul, "ag_mul", -65536, 32768, -2147483648.0},
      {AG_I32, ag_div, "ag_div", -7, 2, -3},
      {AG_I32, ag_div, "ag_div", 7, -2, -3},
      {AG_I32, ag_div, "ag_div", -7, 0, 0},
      {AG_I32, ag_div, "ag_div", -2147483648.0, -1, -2147483648.0}, /* wraps (docs/operations.md) */
      {AG_I32, ag_minimum, "ag_minimum", -5, 3, -5},
      {AG_U32, ag_maximum, "ag_maximum", 4294967295.0, 3, 4294967295.0},
      {AG_I8, ag_add, "ag_add", 127, 1, -128},
      {AG_I8, ag_sub, "ag_sub", -128, 1, 127},
      {AG_I8, ag_mul, "ag_mul", 16, 8, -128},
      {AG_I8, ag_mul, "ag_mul", -128, -1, -128},
      {AG_I8, ag_div, "ag_div", -128, -1, -128},
      {AG_I8, ag_div, "ag_div", -7, 2, -3},
      {AG_I8, ag_div, "ag_div", 5, 0, 0},
      {AG_I16, ag_add, "ag_add", 32767, 1, -32768},
      {AG_I16, ag_mul, "ag_mul", 256, 128, -32768},
      {AG_I16, ag_mul, "ag_mul", 300, 300, 24464},
      {AG_I16, ag_div, "ag_div", -32768, -1, -32768},
      {AG_I16, ag_div, "ag_div", 7, -2, -3},
      {AG_I64, ag_div, "ag_div", -7, 2, -3},
      {AG_I64, ag_div, "ag_div", -7, 0, 0},
      {AG_I64, ag_mul, "ag_mul", 4294967296.0, 4294967296.0, 0},
      {AG_U64, ag_sub, "ag_sub", 0, 1, 18446744073709551615.0},
      {AG_U64, ag_div, "ag_div", 100, 0, 0},
      {AG_U64, ag_mul, "ag_mul", 4294967296.0, 4294967296.0, 0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    ag_dtype t = cases[k].t;
    unsigned char a[8], b[8];
    ref_put(t, a, 0, cases[k].a);
    ref_put(t, b, 0, cases[k].b);
    ag_array *aa = test_array_1d(dev, t, 1, a), *ab = test_array_1d(dev, t, 1, b),
             *out = test_array_new(dev, t, 1, &(size_t){1});
    ref_check_ok(cases[k].fn(NULL, aa, ab, out), "%s", cases[k].name);
    void *got = test_array_read(out);
    /* (u64 0 - 1: 2^64 - 1, which ref_get gives exactly and the double 2^64 stands for.) */
    long double want = t == AG_U64 && cases[k].want > 1.8e19 ? 18446744073709551615.0L : cases[k].want;
    ck_assert_msg(creall(ref_get(t, got, 0)) == want, "%s: %s: %.0f and %.0f as %s gave %.0Lf, expected %.0f",
                  test_label(), cases[k].name, cases[k].a, cases[k].b, ref_name(t), creall(ref_get(t, got, 0)),
                  cases[k].want);
    free(got);
    ag_array_free(aa);
    ag_array_free(ab);
    ag_array_free(out);
  }
  /* Unary wraparound and the scalar form: -INT_MIN = INT_MIN, 65536^2 = 0, 250 + 10 = 4. */
  int32_t imin = INT32_MIN, big = 65536;
  ag_array *x = test_array_1d(dev, AG_I32, 1, &imin), *y = test_array_1d(dev, AG_I32, 1, &big);
  ag_array *out = test_array_new(dev, AG_I32, 1, &(size_t){1});
  int32_t got;
  CHECK_OK(ag_neg(NULL, x, out));
  CHECK_OK(ag_array_to_host(out, &got, sizeof got));
  ck_assert_int_eq(got, INT32_MIN);
  CHECK_OK(ag_square(NULL, y, out));
  CHECK_OK(ag_array_to_host(out, &got, sizeof got));
  ck_assert_int_eq(got, 0);
  uint8_t u = 250, ug = 0;
  ag_array *ua = test_array_1d(dev, AG_U8, 1, &u);
  CHECK_OK(ag_add_scalar(NULL, ua, 10, ua));
  CHECK_OK(ag_array_to_host(ua, &ug, 1));
  ck_assert_uint_eq(ug, 4);
  CHECK_OK(ag_div_scalar_r(NULL, 9, ua, ua)); /* 9 / 4 = 2 */
  CHECK_OK(ag_array_to_host(ua, &ug, 1));
  ck_assert_uint_eq(ug, 2);
  CHECK_OK(ag_div_scalar(NULL, ua, 0, ua)); /* 2 / 0 = 0 */
  CHECK_OK(ag_array_to_host(ua, &ug, 1));
  ck_assert_uint_eq(ug, 0);
  ag_array_free(ua);
  ag_array_free(x);
  ag_array_free(y);
  ag_array_free(out);

  /* 64 bits, whose limits no double holds: INT64_MAX + 1, INT64_MIN - 1, INT64_MIN * -1,
     INT64_MIN / -1, -INT64_MIN and |INT64_MIN| all wrap to a limit; u64 wraps at 2^64. */
  const int64_t i64a[] = {INT64_MAX, INT64_MIN, INT64_MIN, INT64_MIN, 3037000500, -9};
  const int64_t i64b[] = {1, 1, -1, 2, 3037000500, 4};
  const int64_t i64want[][4] = {/* add, sub, mul, div */
                                {INT64_MIN, INT64_MAX - 1, INT64_MAX, INT64_MAX},
                                {INT64_MIN + 1, INT64_MAX, INT64_MIN, INT64_MIN},
                                {INT64_MAX, INT64_MIN + 1, INT64_MIN, INT64_MIN},
                                {INT64_MIN + 2, INT64_MAX - 1, 0, INT64_MIN / 2},
                                {6074001000, 0, (int64_t)(3037000500ull * 3037000500ull), 1},
                                {-5, -13, -36, -2}};
  const uint64_t u64a[] = {UINT64_MAX, 0, 1ull << 63, UINT64_MAX};
  const uint64_t u64b[] = {1, 1, 2, UINT64_MAX};
  const uint64_t u64want[][4] = {{0, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX},
                                 {1, UINT64_MAX, 0, 0},
                                 {(1ull << 63) + 2, (1ull << 63) - 2, 0, 1ull << 62},
                                 {UINT64_MAX - 1, 0, 1, 1}};
  const binary_fn fns[4] = {ag_add, ag_sub, ag_mul, ag_div};
  for (int w = 0; w < 2; w++) {
    ag_dtype t = w ? AG_U64 : AG_I64;
    size_t n = w ? 4 : 6;
    ag_array *a64 = test_array_1d(dev, t, n, w ? (const void *)u64a : (const void *)i64a),
             *b64 = test_array_1d(dev, t, n, w ? (const void *)u64b : (const void *)i64b),
             *o64 = test_array_new(dev, t, 1, &n);
    for (int f = 0; f < 4; f++) {
      ref_check_ok(fns[f](NULL, a64, b64, o64), "op %d of %s", f, ref_name(t));
      uint64_t back[6];
      CHECK_OK(ag_array_to_host(o64, back, n * 8));
      for (size_t i = 0; i < n; i++) {
        uint64_t want = w ? u64want[i][f] : (uint64_t)i64want[i][f];
        ck_assert_msg(back[i] == want, "%s: %s op %d, element %zu: got %#llx, expected %#llx", test_label(),
                      ref_name(t), f, i, (unsigned long long)back[i], (unsigned long long)want);
      }
    }
    if (!w) {
      int64_t gneg[6], gabs[6];
      CHECK_OK(ag_neg(NULL, a64, o64));
      CHECK_OK(ag_array_to_host(o64, gneg, sizeof gneg));
      CHECK_OK(ag_abs(NULL, a64, o64));
      CHECK_OK(ag_array_to_host(o64, gabs, sizeof gabs));
      ck_assert(gneg[0] == -INT64_MAX && gneg[1] == INT64_MIN && gabs[1] == INT64_MIN && gabs[5] == 9);
    }
    ag_array_free(a64);
    ag_array_free(b64);
    ag_array_free(o64);
  }
}
END_TEST

/* ---- mixed dtypes ----------------------------------------------------------------------------- */

/* ops.h: operands of two dtypes are converted to the one ag_result_type gives (the array API's
   promotion, numpy's for mixed kinds), which out must have; comparisons compare in it. Each
   pair below against the reference: both operands converted as ag_astype converts, then the
   operation in the promoted dtype. */
START_TEST(mixed_dtypes_promote_as_the_array_api_says) {
  ag_device *dev = test_device(_i);
  const struct {
    ag_dtype a, b, want;
  } pairs[] = {
      {AG_I8, AG_U8, AG_I16},   {AG_U16, AG_I16, AG_I32}, {AG_U32, AG_I32, AG_I64}, {AG_I8, AG_I64, AG_I64},
      {AG_U8, AG_U64, AG_U64},  {AG_U64, AG_I8, AG_F64},  {AG_I16, AG_F32, AG_F32}, {AG_I32, AG_F32, AG_F64},
      {AG_BOOL, AG_I8, AG_I8},  {AG_F32, AG_C64, AG_C64}, {AG_F64, AG_C64, AG_C128}, {AG_U8, AG_BOOL, AG_U8},
  };
  const size_t n = 77;
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    ag_dtype ta = pairs[k].a, tb = pairs[k].b, t;
    CHECK_OK(ag_result_type(ta, tb, &t));
    ck_assert_msg(t == pairs[k].want, "%s: %s with %s promotes to %s, expected %s", test_label(), ref_name(ta),
                  ref_name(tb), ref_name(t), ref_name(pairs[k].want));
    CHECK_OK(ag_result_type(tb, ta, &t));
    ck_assert(t == pairs[k].want);
    if (!test_dtype_runs(dev, t))
      continue;
    void *a = test_alloc(n * ref_size(ta)), *b = test_alloc(n * ref_size(tb));
    ref_random(ta, a, n, 50u + k, ref_is_unsigned(ta) ? 0 : -100, 100);
    ref_random(tb, b, n, 60u + k, ref_is_unsigned(tb) ? 1 : -100, 100);
    void *ca = test_alloc(n * ref_size(t)), *cb = test_alloc(n * ref_size(t));
    for (size_t i = 0; i < n; i++) {
      ref_convert(ta, a, i, t, ca, i);
      ref_convert(tb, b, i, t, cb, i);
    }
    ag_array *aa = test_array_1d(dev, ta, n, a), *ab = test_array_1d(dev, tb, n, b);
    ag_array *out = test_array_new(dev, t, 1, &n), *mask = test_array_new(dev, AG_BOOL, 1, &n);
    ref_c *want = test_alloc(n * sizeof *want);
    if (ref_binary_takes(AG_OP_SUB, t)) {
      ref_check_ok(ag_sub(NULL, aa, ab, out), "ag_sub of %s and %s", ref_name(ta), ref_name(tb));
      ref_binary(AG_OP_SUB, t, ca, n, cb, n, n, want);
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, n, ref_tol_binary(AG_OP_SUB, t), "%s - %s into %s", ref_name(ta), ref_name(tb),
                ref_name(t));
      free(got);
    }
    ag_compare_op op = ref_is_complex(t) ? AG_CMP_NE : AG_CMP_LT;
    ref_check_ok(ag_compare(NULL, op, aa, ab, mask), "ag_compare of %s and %s", ref_name(ta), ref_name(tb));
    unsigned char *wmask = test_alloc(n), *gmask = test_array_read(mask);
    ref_comparison(op, t, ca, n, cb, n, n, wmask);
    CHECK_BYTES(gmask, wmask, n, "a comparison of mixed dtypes");
    /* where(cond, a, b) into the promoted dtype. */
    ref_check_ok(ag_where(NULL, mask, aa, ab, out), "ag_where of %s and %s", ref_name(ta), ref_name(tb));
    ref_where(t, wmask, ca, cb, n, want);
    void *got = test_array_read(out);
    ref_check(t, got, want, NULL, n, REF_EXACT, "where of %s and %s into %s", ref_name(ta), ref_name(tb), ref_name(t));
    free(got);
    /* An out of another dtype is refused, naming the promoted one. */
    ag_array *wrong = test_array_new(dev, t == AG_F32 ? AG_I32 : AG_F32, 1, &n);
    CHECK_REFUSED(ag_add(NULL, aa, ab, wrong), ref_binary_takes(AG_OP_ADD, t) ? AG_ERR_MISMATCH : AG_ERR_UNSUPPORTED,
                  "ag_add", ref_name(t));
    ag_array_free(wrong);
    free(wmask);
    free(gmask);
    free(want);
    free(a);
    free(b);
    free(ca);
    free(cb);
    ag_array_free(aa);
    ag_array_free(ab);
    ag_array_free(out);
    ag_array_free(mask);
  }
  /* bool with bool stays bool, which arithmetic refuses, naming the promoted dtype. */
  ag_array *p = test_array_new(dev, AG_BOOL, 1, &n), *q8 = test_array_new(dev, AG_U8, 1, &n);
  CHECK_OK(ag_fill(NULL, p, 1));
  CHECK_OK(ag_fill(NULL, q8, 2));
  CHECK_REFUSED(ag_add(NULL, p, p, p), AG_ERR_UNSUPPORTED, "ag_add", "bool");
  CHECK_OK(ag_add(NULL, p, q8, q8)); /* bool + u8 is u8: 1 + 2 */
  unsigned char *three = test_array_read(q8);
  ck_assert_msg(three[0] == 3 && three[n - 1] == 3, "%s: bool + u8 gave %u", test_label(), three[0]);
  free(three);
  ag_array_free(p);
  ag_array_free(q8);
  ag_dtype t;
  CHECK_REFUSED(ag_result_type((ag_dtype)AG_DTYPE_COUNT, AG_F32, &t), AG_ERR_INVALID_ARGUMENT, "ag_result_type", "a");
  CHECK_REFUSED(ag_result_type(AG_F32, (ag_dtype)-1, &t), AG_ERR_INVALID_ARGUMENT, "ag_result_type", "b");
  CHECK_REFUSED(ag_result_type(AG_F32, AG_F32, NULL), AG_ERR_INVALID_ARGUMENT, "ag_result_type", "out");
}
END_TEST

/* ---- fused and selection ------------------------------------------------------------------------- */

START_TEST(axpby_computes_alpha_x_plus_beta_y) {
  ag_device *dev = test_device(_i);
  /* Scalars exact in f32, so the only rounding is the device's. BabelStream's triad: 1 * b + s * c. */
  const double ab[][2] = {{1.5, -0.25}, {1.0, 0.375}, {0.0, 2.0}};
  for (int k = 0; k < 4; k++) {
    ag_dtype t = float_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int s = 0; s < NSIZES; s++) {
      size_t n = sizes[s];
      void *x = test_alloc(n * ref_size(t)), *y = test_alloc(n * ref_size(t));
      ref_random(t, x, n, 70u + (unsigned)s, -10, 10);
      ref_random(t, y, n, 80u + (unsigned)s, -10, 10);
      ag_array *ax = test_array_shaped(dev, t, n, x), *ay = test_array_shaped(dev, t, n, y);
      ag_array *out = test_array_shaped(dev, t, n, NULL);
      ref_c *want = test_alloc(n * sizeof *want);
      long double *scale = test_alloc(n * sizeof *scale);
      for (int j = 0; j < 3; j++) {
        ref_check_ok(ag_axpby(NULL, ab[j][0], ax, ab[j][1], ay, out), "ag_axpby on %zu %s", n, ref_name(t));
        ref_axpby(t, ab[j][0], x, ab[j][1], y, n, want);
        for (size_t i = 0; i < n; i++)
          scale[i] = fabsl((long double)ab[j][0]) * cabsl(ref_get(t, x, i)) +
                     fabsl((long double)ab[j][1]) * cabsl(ref_get(t, y, i));
        void *got = test_array_read(out);
        /* Two products and a sum, with or without fma: 2 ulp of |alpha x| + |beta y| (4e-7 and
           1e-15 leave room for complex's separate parts). */
        ref_check(t, got, want, scale, n, t == AG_F32 || t == AG_C64 ? (ref_tol){4e-7, 0} : (ref_tol){1e-15, 0},
                  "ag_axpby(%g, x, %g, y)", ab[j][0], ab[j][1]);
        free(got);
      }
      free(scale);
      free(want);
      free(x);
      free(y);
      ag_array_free(ax);
      ag_array_free(ay);
      ag_array_free(out);
    }
  }
  const size_t n = 4;
  for (ag_dtype t = AG_U8; t <= AG_I32; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *x = test_array_new(dev, t, 1, &n);
    CHECK_OK(ag_fill(NULL, x, 1));
    CHECK_REFUSED(ag_axpby(NULL, 1, x, 1, x, x), AG_ERR_UNSUPPORTED, "ag_axpby", ref_name(t));
    ag_array_free(x);
  }
}
END_TEST

START_TEST(clamp_limits_to_the_range_and_keeps_nan) {
  ag_device *dev = test_device(_i);
  for (ag_dtype t = AG_U8; t <= AG_F64; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    /* Inputs spread around the clamp range [rlo, rhi] so that both bounds bite. */
    static const double ranges[6][4] = {{0, 255, 10, 200},          {0, 65535, 1000, 60000}, {0, 100000, 1000, 60000},
                                        {-5000, 5000, -1000, 1000}, {-2, 2, -0.5, 0.75},     {-2, 2, -0.5, 0.75}};
    double lo = ranges[t][0], hi = ranges[t][1], rlo = ranges[t][2], rhi = ranges[t][3];
    for (int s = 0; s < NSIZES; s++) {
      size_t n = sizes[s];
      void *x = test_alloc(n * ref_size(t));
      ref_random(t, x, n, 90u + (unsigned)s, lo, hi);
      if (!ref_is_integer(t) && n >= 7) {
        ref_put(t, x, 1, NAN);
        ref_put(t, x, 2, INFINITY);
        ref_put(t, x, 3, -INFINITY);
        ref_put(t, x, 4, rlo); /* the bounds themselves */
        ref_put(t, x, 5, rhi);
      }
      ag_array *ax = test_array_shaped(dev, t, n, x), *out = test_array_shaped(dev, t, n, NULL);
      ref_check_ok(ag_clamp(NULL, ax, rlo, rhi, out), "ag_clamp on %zu %s", n, ref_name(t));
      ref_c *want = test_alloc(n * sizeof *want);
      ref_clamp(t, x, rlo, rhi, n, want);
      void *got = test_array_read(out);
      ref_check(t, got, want, NULL, n, REF_EXACT, "ag_clamp(x, %g, %g)", rlo, rhi); /* selection: exact */
      free(got);
      /* lo == hi: everything but NaN becomes that value. */
      ref_check_ok(ag_clamp(NULL, ax, rlo, rlo, out), "ag_clamp with lo == hi");
      ref_clamp(t, x, rlo, rlo, n, want);
      got = test_array_read(out);
      ref_check(t, got, want, NULL, n, REF_EXACT, "ag_clamp(x, %g, %g)", rlo, rlo);
      free(got);
      free(want);
      free(x);
      ag_array_free(ax);
      ag_array_free(out);
    }
  }
  const size_t n = 3;
  ag_array *f = test_array_new(dev, AG_F32, 1, &n), *c = test_array_new(dev, AG_C64, 1, &n);
  CHECK_OK(ag_fill(NULL, f, 1));
  CHECK_OK(ag_fill(NULL, c, 1));
  CHECK_REFUSED(ag_clamp(NULL, f, 2, 1, f), AG_ERR_INVALID_ARGUMENT, "ag_clamp", "lo|hi");
  CHECK_REFUSED(ag_clamp(NULL, c, 0, 1, c), AG_ERR_UNSUPPORTED, "ag_clamp", "c64");
  ag_array_free(f);
  ag_array_free(c);
}
END_TEST

START_TEST(where_picks_a_where_cond_is_nonzero) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int s = 0; s < NSIZES; s++) {
      size_t n = sizes[s];
      unsigned char *cond = test_alloc(n);
      ref_lcg g = ref_lcg_seeded(100u + (unsigned)s);
      static const unsigned char values[4] = {0, 1, 255, 7}; /* any nonzero picks a */
      for (size_t i = 0; i < n; i++)
        cond[i] = values[ref_lcg_next(&g) % 4];
      void *a = test_alloc(n * ref_size(t)), *b = test_alloc(n * ref_size(t));
      test_fill_bytes(a, n * ref_size(t), 110u + (unsigned)s); /* any bits: a selection copies them */
      test_fill_bytes(b, n * ref_size(t), 120u + (unsigned)s);
      ag_array *ac = test_array_shaped(dev, AG_U8, n, cond), *aa = test_array_shaped(dev, t, n, a);
      ag_array *ab = test_array_shaped(dev, t, n, b);
      ag_array *out = test_array_shaped(dev, t, n, NULL);
      ref_check_ok(ag_where(NULL, ac, aa, ab, out), "ag_where on %zu %s", n, ref_name(t));
      unsigned char *want = test_alloc(n * ref_size(t)), *got = test_array_read(out);
      for (size_t i = 0; i < n; i++)
        memcpy(want + i * ref_size(t), (cond[i] ? (unsigned char *)a : (unsigned char *)b) + i * ref_size(t),
               ref_size(t));
      CHECK_BYTES(got, want, n * ref_size(t), "ag_where");
      free(got);
      free(want);
      free(cond);
      free(a);
      free(b);
      ag_array_free(ac);
      ag_array_free(aa);
      ag_array_free(ab);
      ag_array_free(out);
    }
  }
  const size_t n = 6, other[1] = {5};
  ag_array *f = test_array_new(dev, AG_F32, 1, &n), *fc = test_array_new(dev, AG_F32, 1, &n);
  ag_array *c5 = test_array_new(dev, AG_U8, 1, other);
  CHECK_OK(ag_fill(NULL, f, 1));
  CHECK_OK(ag_fill(NULL, fc, 1));
  CHECK_OK(ag_fill(NULL, c5, 1));
  CHECK_REFUSED2(ag_where(NULL, fc, f, f, f), AG_ERR_MISMATCH, AG_ERR_UNSUPPORTED, "ag_where", "cond");
  CHECK_REFUSED(ag_where(NULL, c5, f, f, f), AG_ERR_MISMATCH, "ag_where", "cond");
  ag_array_free(f);
  ag_array_free(fc);
  ag_array_free(c5);
}
END_TEST

START_TEST(soft_threshold_shrinks_toward_zero) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < 4; k++) {
    ag_dtype t = float_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int s = 0; s < NSIZES; s++) {
      size_t n = sizes[s];
      void *v = test_alloc(n * ref_size(t));
      ref_random(t, v, n, 130u + (unsigned)s, -2, 2);
      ag_array *av = test_array_shaped(dev, t, n, v), *out = test_array_shaped(dev, t, n, NULL);
      ref_c *want = test_alloc(n * sizeof *want);
      long double *scale = test_alloc(n * sizeof *scale);
      for (size_t i = 0; i < n; i++)
        scale[i] = cabsl(ref_get(t, v, i));
      const double alphas[] = {0.5, 0.0, 1.25};
      for (int j = 0; j < 3; j++) {
        ref_check_ok(ag_soft_threshold(NULL, av, alphas[j], out), "ag_soft_threshold on %zu %s", n, ref_name(t));
        ref_soft_threshold(t, v, alphas[j], n, want);
        void *got = test_array_read(out);
        /* Real: |v| - alpha is one rounding, so exact. Complex: v / |v| * (|v| - alpha), where
           the hypot's error (4 ulp of |v|) survives the cancellation in |v| - alpha: relative
           to |v|, 8 ulp. */
        ref_tol tol = ref_is_complex(t) ? (t == AG_C64 ? (ref_tol){1e-6, 0} : (ref_tol){2e-15, 0}) : REF_EXACT;
        ref_check(t, got, want, ref_is_complex(t) ? scale : NULL, n, tol, "ag_soft_threshold(v, %g)", alphas[j]);
        free(got);
      }
      free(scale);
      free(want);
      free(v);
      ag_array_free(av);
      ag_array_free(out);
    }
  }
  /* Worked by hand: soft(3, 1) = 2, soft(-0.5, 1) = 0, soft(-3, 1) = -2, soft(1, 1) = 0. */
  const float v[5] = {3, -0.5f, -3, 1, 0}, want[5] = {2, 0, -2, 0, 0};
  ag_array *av = test_array_1d(dev, AG_F32, 5, v);
  CHECK_OK(ag_soft_threshold(NULL, av, 1, av));
  float got[5];
  CHECK_OK(ag_array_to_host(av, got, sizeof got));
  for (int i = 0; i < 5; i++)
    ck_assert_msg(got[i] == want[i], "%s: soft threshold of %g with alpha 1 is %g, expected %g", test_label(), v[i],
                  got[i], want[i]);
  CHECK_REFUSED(ag_soft_threshold(NULL, av, -0.5, av), AG_ERR_INVALID_ARGUMENT, "ag_soft_threshold", "alpha");
  ag_array_free(av);
  const size_t n = 3;
  ag_array *u = test_array_new(dev, AG_I32, 1, &n);
  CHECK_OK(ag_fill(NULL, u, 1));
  CHECK_REFUSED(ag_soft_threshold(NULL, u, 0.5, u), AG_ERR_UNSUPPORTED, "ag_soft_threshold", "i32");
  ag_array_free(u);
}
END_TEST

/* ---- shapes ------------------------------------------------------------------------------------ */

START_TEST(a_trailing_shape_operand_is_broadcast_over_the_rows) {
  ag_device *dev = test_device(_i);
  const struct {
    int nd_small;
    size_t small[2];
    int nd_big;
    size_t big[3];
  } pairs[] = {{1, {3}, 2, {2, 3}}, {1, {4}, 3, {5, 2, 4}}, {2, {2, 4}, 3, {5, 2, 4}}, {1, {1000}, 2, {7, 1000}}};
  const ag_dtype dtypes[] = {AG_F32, AG_I32, AG_C64, AG_F64};
  const ag_binary_op ops[] = {AG_OP_ADD, AG_OP_SUB, AG_OP_MUL, AG_OP_DIV, AG_OP_POW, AG_OP_MAXIMUM};
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
    size_t ns = 1, nb = 1;
    for (int d = 0; d < pairs[p].nd_small; d++)
      ns *= pairs[p].small[d];
    for (int d = 0; d < pairs[p].nd_big; d++)
      nb *= pairs[p].big[d];
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
      ag_dtype t = dtypes[k];
      if (!test_dtype_runs(dev, t))
        continue;
      for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        const binary_entry *e = NULL;
        for (int j = 0; j < NBINARY; j++)
          if (binaries[j].op == ops[o])
            e = &binaries[j];
        if (!ref_binary_takes(e->op, t))
          continue;
        void *big, *small, *unused;
        binary_inputs(e->op, t, nb, 200u + o, &big, &unused);
        free(unused);
        binary_inputs(e->op, t, ns, 300u + o, &unused, &small);
        free(unused);
        if (e->op == AG_OP_POW) /* the small operand is a base in one order: keep it positive */
          ref_random(t, small, ns, 301u + o, 0.5, 1.5);
        ag_array *abig = test_array_from(dev, t, pairs[p].nd_big, pairs[p].big, big);
        ag_array *asmall = test_array_from(dev, t, pairs[p].nd_small, pairs[p].small, small);
        ag_array *out = test_array_new(dev, t, pairs[p].nd_big, pairs[p].big);
        ref_c *want = test_alloc(nb * sizeof *want);
        for (int order = 0; order < 2; order++) {
          /* order 0: a big, b small (a bias added to every row); order 1: a small, b big. */
          ag_status st = order ? e->fn(NULL, asmall, abig, out) : e->fn(NULL, abig, asmall, out);
          ref_check_ok(st, "%s of shapes %zu and %zu elements, %s first", e->name, nb, ns, order ? "small" : "big");
          if (order)
            ref_binary(e->op, t, small, ns, big, nb, nb, want);
          else
            ref_binary(e->op, t, big, nb, small, ns, nb, want);
          void *got = test_array_read(out);
          ref_check(t, got, want, NULL, nb, ref_tol_binary(e->op, t), "%s broadcasting %zu over %zu elements, %s first",
                    e->name, ns, nb, order ? "small" : "big");
          free(got);
        }
        /* out must have the larger shape. */
        CHECK_REFUSED(e->fn(NULL, abig, asmall, asmall), AG_ERR_MISMATCH, e->name, "out");
        free(want);
        free(big);
        free(small);
        ag_array_free(abig);
        ag_array_free(asmall);
        ag_array_free(out);
      }
    }
  }
}
END_TEST

START_TEST(a_shape_that_is_not_trailing_is_refused) {
  ag_device *dev = test_device(_i);
  const size_t s2[1] = {2}, s23[2] = {2, 3}, s4[1] = {4}, s3[1] = {3}, s32[2] = {3, 2};
  ag_array *a2 = test_array_new(dev, AG_F32, 1, s2), *a23 = test_array_new(dev, AG_F32, 2, s23);
  ag_array *a4 = test_array_new(dev, AG_F32, 1, s4), *a3 = test_array_new(dev, AG_F32, 1, s3);
  ag_array *a32 = test_array_new(dev, AG_F32, 2, s32);
  CHECK_OK(ag_fill(NULL, a2, 1));
  CHECK_OK(ag_fill(NULL, a23, 1));
  CHECK_OK(ag_fill(NULL, a4, 1));
  CHECK_OK(ag_fill(NULL, a3, 1));
  CHECK_OK(ag_fill(NULL, a32, 1));
  CHECK_REFUSED(ag_add(NULL, a2, a23, a23), AG_ERR_MISMATCH, "ag_add", "a", "b"); /* leading, not trailing */
  CHECK_REFUSED(ag_add(NULL, a23, a2, a23), AG_ERR_MISMATCH, "ag_add", "a", "b");
  CHECK_REFUSED(ag_mul(NULL, a4, a3, a4), AG_ERR_MISMATCH, "ag_mul", "a", "b");
  CHECK_REFUSED(ag_sub(NULL, a23, a32, a23), AG_ERR_MISMATCH, "ag_sub", "a", "b"); /* same count, other shape */
  CHECK_REFUSED(ag_pow(NULL, a3, a32, a32), AG_ERR_MISMATCH, "ag_pow", "a", "b");
  ag_array_free(a2);
  ag_array_free(a23);
  ag_array_free(a4);
  ag_array_free(a3);
  ag_array_free(a32);
}
END_TEST

/* The refusal names the function, both operands and both shapes in full, with the longest
   numbers a shape can hold (empty arrays: the lengths other than 0 may multiply into any byte
   count a ptrdiff_t holds, as in numpy). ag_binary reports the named function. */
START_TEST(a_shape_mismatch_names_both_shapes_in_full) {
  ag_device *dev = test_device(_i);
  const size_t sa[4] = {4294967295u, 536870911u, 0, 0}, sb[2] = {0, PTRDIFF_MAX / 4};
  ag_array *a = test_array_new(dev, AG_F32, 4, sa), *b = test_array_new(dev, AG_F32, 2, sb);
  const char *tail = ": a has shape {4294967295, 536870911, 0, 0} but b has shape {0, 2305843009213693951}, "
                     "which do not broadcast together into out's shape {4294967295, 536870911, 0, 0}";
  char want[512];
  ck_assert_int_eq(ag_add(NULL, a, b, a), AG_ERR_MISMATCH);
  snprintf(want, sizeof want, "ag_add%s", tail);
  ck_assert_str_eq(ag_last_error(), want);
  ck_assert_int_eq(ag_binary(NULL, AG_OP_SUB, a, b, a), AG_ERR_MISMATCH);
  snprintf(want, sizeof want, "ag_sub%s", tail);
  ck_assert_str_eq(ag_last_error(), want);
  ag_array_free(a);
  ag_array_free(b);
}
END_TEST

/* Every operation run out of place and then in place (out = a, out = b, out = a = b for binary
   operations), compared bitwise: the same kernel on the same inputs gives the same bits. */
START_TEST(in_place_operation_gives_the_out_of_place_result) {
  ag_device *dev = test_device(_i);
  const size_t n = 4099;
  const ag_dtype dtypes[] = {AG_I32, AG_F32, AG_F64, AG_C64, AG_C128};
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    ag_dtype t = dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    size_t bytes = n * ref_size(t);
    for (int o = 0; o < NUNARY; o++) {
      if (!ref_unary_takes(unaries[o].op, t) || ref_unary_out_dtype(unaries[o].op, t) != t)
        continue;
      void *x = unary_input(unaries[o].op, t, n, 400u + (unsigned)o);
      ag_array *ax = test_array_1d(dev, t, n, x), *out = test_array_new(dev, t, 1, &n);
      ref_check_ok(unaries[o].fn(NULL, ax, out), "%s", unaries[o].name);
      ref_check_ok(unaries[o].fn(NULL, ax, ax), "%s in place", unaries[o].name);
      void *g1 = test_array_read(out), *g2 = test_array_read(ax);
      CHECK_BYTES(g2, g1, bytes, unaries[o].name);
      free(g1);
      free(g2);
      free(x);
      ag_array_free(ax);
      ag_array_free(out);
    }
    for (int o = 0; o < NBINARY; o++) {
      const binary_entry *e = &binaries[o];
      if (!ref_binary_takes(e->op, t))
        continue;
      void *a, *b;
      binary_inputs(e->op, t, n, 500u + (unsigned)o, &a, &b);
      ag_array *aa = test_array_1d(dev, t, n, a), *ab = test_array_1d(dev, t, n, b),
               *out = test_array_new(dev, t, 1, &n);
      ref_check_ok(e->fn(NULL, aa, ab, out), "%s", e->name);
      void *want = test_array_read(out);
      ref_check_ok(e->fn(NULL, aa, ab, aa), "%s into a", e->name);
      void *got = test_array_read(aa);
      CHECK_BYTES(got, want, bytes, "out = a");
      free(got);
      ag_array_free(aa);
      aa = test_array_1d(dev, t, n, a);
      ref_check_ok(e->fn(NULL, aa, ab, ab), "%s into b", e->name);
      got = test_array_read(ab);
      CHECK_BYTES(got, want, bytes, "out = b");
      free(got);
      /* a op a, out of place and in place. */
      ref_check_ok(e->fn(NULL, aa, aa, out), "%s of a with itself", e->name);
      free(want);
      want = test_array_read(out);
      ref_check_ok(e->fn(NULL, aa, aa, aa), "%s of a with itself into a", e->name);
      got = test_array_read(aa);
      CHECK_BYTES(got, want, bytes, "out = a = b");
      free(got);
      /* The scalar form in place. */
      ag_array_free(aa);
      aa = test_array_1d(dev, t, n, a);
      double s = ref_is_integer(t) ? 3 : 1.5;
      ref_check_ok(e->scalar(NULL, aa, s, out), "%s", e->scalar_name);
      free(want);
      want = test_array_read(out);
      ref_check_ok(e->scalar(NULL, aa, s, aa), "%s in place", e->scalar_name);
      got = test_array_read(aa);
      CHECK_BYTES(got, want, bytes, e->scalar_name);
      free(got);
      free(want);
      free(a);
      free(b);
      ag_array_free(aa);
      ag_array_free(ab);
      ag_array_free(out);
    }
    if (t == AG_I32)
      continue;
    /* axpby into x and into y; soft threshold and clamp in place; where into a and into b. */
    void *x = test_alloc(bytes), *y = test_alloc(bytes);
    ref_random(t, x, n, 600, -3, 3);
    ref_random(t, y, n, 601, -3, 3);
    ag_array *ax = test_array_1d(dev, t, n, x), *ay = test_array_1d(dev, t, n, y), *out = test_array_new(dev, t, 1, &n);
    CHECK_OK(ag_axpby(NULL, 0.5, ax, -2, ay, out));
    void *want = test_array_read(out), *got;
    CHECK_OK(ag_axpby(NULL, 0.5, ax, -2, ay, ax));
    got = test_array_read(ax);
    CHECK_BYTES(got, want, bytes, "ag_axpby into x");
    free(got);
    ag_array_free(ax);
    ax = test_array_1d(dev, t, n, x);
    CHECK_OK(ag_axpby(NULL, 0.5, ax, -2, ay, ay));
    got = test_array_read(ay);
    CHECK_BYTES(got, want, bytes, "ag_axpby into y");
    free(got);
    free(want);
    CHECK_OK(ag_soft_threshold(NULL, ax, 1, out));
    want = test_array_read(out);
    CHECK_OK(ag_soft_threshold(NULL, ax, 1, ax));
    got = test_array_read(ax);
    CHECK_BYTES(got, want, bytes, "ag_soft_threshold in place");
    free(got);
    free(want);
    if (!ref_is_complex(t)) {
      CHECK_OK(ag_clamp(NULL, ay, -1, 1, out));
      want = test_array_read(out);
      CHECK_OK(ag_clamp(NULL, ay, -1, 1, ay));
      got = test_array_read(ay);
      CHECK_BYTES(got, want, bytes, "ag_clamp in place");
      free(got);
      free(want);
    }
    unsigned char *cond = test_alloc(n);
    test_fill_bytes(cond, n, 7);
    ag_array *ac = test_array_1d(dev, AG_U8, n, cond);
    ag_array_free(ax);
    ag_array_free(ay);
    ax = test_array_1d(dev, t, n, x);
    ay = test_array_1d(dev, t, n, y);
    CHECK_OK(ag_where(NULL, ac, ax, ay, out));
    want = test_array_read(out);
    CHECK_OK(ag_where(NULL, ac, ax, ay, ax));
    got = test_array_read(ax);
    CHECK_BYTES(got, want, bytes, "ag_where into a");
    free(got);
    ag_array_free(ax);
    ax = test_array_1d(dev, t, n, x);
    CHECK_OK(ag_where(NULL, ac, ax, ay, ay));
    got = test_array_read(ay);
    CHECK_BYTES(got, want, bytes, "ag_where into b");
    free(got);
    free(want);
    free(cond);
    free(x);
    free(y);
    ag_array_free(ac);
    ag_array_free(ax);
    ag_array_free(ay);
    ag_array_free(out);
  }
}
END_TEST

/* ---- operand errors ------------------------------------------------------------------------------ */

START_TEST(operands_of_other_shapes_dtypes_or_devices_are_refused) {
  ag_device *dev = test_device(_i);
  const size_t s4[1] = {4}, s5[1] = {5};
  ag_array *f4 = test_array_new(dev, AG_F32, 1, s4), *f5 = test_array_new(dev, AG_F32, 1, s5);
  ag_array *d4 = test_array_new(dev, AG_I32, 1, s4), *c4 = test_array_new(dev, AG_C64, 1, s4);
  ag_array *u4 = test_array_new(dev, AG_U8, 1, s4);
  CHECK_OK(ag_fill(NULL, f4, 1));
  CHECK_OK(ag_fill(NULL, f5, 1));
  CHECK_OK(ag_fill(NULL, d4, 1));
  CHECK_OK(ag_fill(NULL, c4, 1));
  CHECK_OK(ag_fill(NULL, u4, 1));
  /* Shapes. */
  CHECK_REFUSED(ag_add(NULL, f4, f5, f4), AG_ERR_MISMATCH, "ag_add", "a", "b");
  CHECK_REFUSED(ag_add(NULL, f4, f4, f5), AG_ERR_MISMATCH, "ag_add", "a", "out");
  CHECK_REFUSED(ag_sqrt(NULL, f4, f5), AG_ERR_MISMATCH, "ag_sqrt", "x", "out");
  CHECK_REFUSED(ag_axpby(NULL, 1, f4, 1, f5, f4), AG_ERR_MISMATCH, "ag_axpby", "x", "y");
  CHECK_REFUSED(ag_clamp(NULL, f4, 0, 1, f5), AG_ERR_MISMATCH, "ag_clamp", "x", "out");
  CHECK_REFUSED(ag_soft_threshold(NULL, f4, 1, f5), AG_ERR_MISMATCH, "ag_soft_threshold", "out");
  CHECK_REFUSED(ag_add_scalar(NULL, f4, 1, f5), AG_ERR_MISMATCH, "ag_add", "x", "out");
  CHECK_REFUSED(ag_where(NULL, u4, f4, f5, f4), AG_ERR_MISMATCH, "ag_where", "b");
  /* Dtypes. */
  CHECK_REFUSED(ag_add(NULL, f4, d4, f4), AG_ERR_MISMATCH, "ag_add", "a", "b");
  CHECK_REFUSED(ag_add(NULL, f4, f4, d4), AG_ERR_MISMATCH, "ag_add", "out");
  CHECK_REFUSED(ag_sqrt(NULL, f4, d4), AG_ERR_MISMATCH, "ag_sqrt", "x", "out");
  CHECK_REFUSED(ag_abs(NULL, c4, c4), AG_ERR_MISMATCH, "ag_abs", "out"); /* |c64| is f32 */
  CHECK_REFUSED(ag_real(NULL, c4, d4), AG_ERR_MISMATCH, "ag_real", "out");
  CHECK_REFUSED(ag_axpby(NULL, 1, f4, 1, d4, f4), AG_ERR_MISMATCH, "ag_axpby", "x", "y");
  CHECK_REFUSED(ag_mul_scalar(NULL, f4, 2, d4), AG_ERR_MISMATCH, "ag_mul", "x", "out");
  CHECK_REFUSED(ag_where(NULL, u4, f4, d4, f4), AG_ERR_MISMATCH, "ag_where", "b");
  /* Devices, and a queue of another device. */
  ag_device *other = test_other_device(dev, "operands on two devices");
  if (other != NULL) {
    ag_array *far = test_array_new(other, AG_F32, 1, s4);
    CHECK_OK(ag_fill(NULL, far, 2));
    CHECK_REFUSED(ag_add(NULL, f4, far, f4), AG_ERR_MISMATCH, "ag_add", "a", "b");
    CHECK_REFUSED(ag_add(NULL, far, f4, f4), AG_ERR_MISMATCH, "ag_add", "a", "b");
    CHECK_REFUSED(ag_add(NULL, f4, f4, far), AG_ERR_MISMATCH, "ag_add", "out");
    CHECK_REFUSED(ag_sqrt(NULL, f4, far), AG_ERR_MISMATCH, "ag_sqrt", "x", "out");
    CHECK_REFUSED(ag_sqrt(NULL, far, f4), AG_ERR_MISMATCH, "ag_sqrt", "x", "out");
    CHECK_REFUSED(ag_axpby(NULL, 1, f4, 1, far, f4), AG_ERR_MISMATCH, "ag_axpby", "x", "y");
    CHECK_REFUSED(ag_where(NULL, u4, far, f4, f4), AG_ERR_MISMATCH, "ag_where", "a");
    ag_queue *oq = NULL;
    CHECK_OK(ag_queue_create(other, &oq));
    CHECK_REFUSED(ag_add(oq, f4, f4, f4), AG_ERR_MISMATCH, "ag_add", "queue|q");
    CHECK_REFUSED(ag_neg(oq, f4, f4), AG_ERR_MISMATCH, "ag_neg", "queue|q");
    ag_queue_destroy(oq);
    float back[4];
    CHECK_OK(ag_array_to_host(far, back, sizeof back));
    ck_assert(back[0] == 2 && back[3] == 2);
    ag_array_free(far);
  }
  float back[4];
  CHECK_OK(ag_array_to_host(f4, back, sizeof back));
  ck_assert_msg(back[0] == 1 && back[3] == 1, "%s: a refused operation changed its out", test_label());
  ag_array_free(f4);
  ag_array_free(f5);
  ag_array_free(d4);
  ag_array_free(c4);
  ag_array_free(u4);
}
END_TEST

START_TEST(null_operands_are_refused_by_name) {
  ag_device *dev = test_device(_i);
  const size_t n = 4;
  ag_array *x = test_array_new(dev, AG_F32, 1, &n), *u = test_array_new(dev, AG_U8, 1, &n);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, u, 1));
  for (int o = 0; o < NUNARY; o++) {
    CHECK_REFUSED(unaries[o].fn(NULL, NULL, x), AG_ERR_INVALID_ARGUMENT, unaries[o].name, "x");
    CHECK_REFUSED(unaries[o].fn(NULL, x, NULL), AG_ERR_INVALID_ARGUMENT, unaries[o].name, "out");
  }
  for (int o = 0; o < NBINARY; o++) {
    CHECK_REFUSED(binaries[o].fn(NULL, NULL, x, x), AG_ERR_INVALID_ARGUMENT, binaries[o].name, "a");
    CHECK_REFUSED(binaries[o].fn(NULL, x, NULL, x), AG_ERR_INVALID_ARGUMENT, binaries[o].name, "b");
    CHECK_REFUSED(binaries[o].fn(NULL, x, x, NULL), AG_ERR_INVALID_ARGUMENT, binaries[o].name, "out");
    CHECK_REFUSED(binaries[o].scalar(NULL, NULL, 1, x), AG_ERR_INVALID_ARGUMENT, binaries[o].name, "x");
    CHECK_REFUSED(binaries[o].scalar(NULL, x, 1, NULL), AG_ERR_INVALID_ARGUMENT, binaries[o].name, "out");
    if (binaries[o].scalar_r != NULL)
      CHECK_REFUSED(binaries[o].scalar_r(NULL, 1, NULL, x), AG_ERR_INVALID_ARGUMENT, binaries[o].name, "x");
  }
  /* The enum forms may name themselves or the operation. */
  CHECK_REFUSED(ag_unary(NULL, AG_OP_NEG, NULL, x), AG_ERR_INVALID_ARGUMENT, "ag_unary|ag_neg", "x");
  CHECK_REFUSED(ag_binary(NULL, AG_OP_ADD, x, NULL, x), AG_ERR_INVALID_ARGUMENT, "ag_binary|ag_add", "b");
  CHECK_REFUSED(ag_binary_scalar(NULL, AG_OP_ADD, NULL, 1, 0, false, x), AG_ERR_INVALID_ARGUMENT,
                "ag_binary_scalar|ag_add", "x");
  CHECK_REFUSED(ag_axpby(NULL, 1, NULL, 1, x, x), AG_ERR_INVALID_ARGUMENT, "ag_axpby", "x");
  CHECK_REFUSED(ag_axpby(NULL, 1, x, 1, NULL, x), AG_ERR_INVALID_ARGUMENT, "ag_axpby", "y");
  CHECK_REFUSED(ag_axpby(NULL, 1, x, 1, x, NULL), AG_ERR_INVALID_ARGUMENT, "ag_axpby", "out");
  CHECK_REFUSED(ag_clamp(NULL, NULL, 0, 1, x), AG_ERR_INVALID_ARGUMENT, "ag_clamp", "x");
  CHECK_REFUSED(ag_clamp(NULL, x, 0, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_clamp", "out");
  CHECK_REFUSED(ag_where(NULL, NULL, x, x, x), AG_ERR_INVALID_ARGUMENT, "ag_where", "cond");
  CHECK_REFUSED(ag_where(NULL, u, NULL, x, x), AG_ERR_INVALID_ARGUMENT, "ag_where", "a");
  CHECK_REFUSED(ag_where(NULL, u, x, NULL, x), AG_ERR_INVALID_ARGUMENT, "ag_where", "b");
  CHECK_REFUSED(ag_where(NULL, u, x, x, NULL), AG_ERR_INVALID_ARGUMENT, "ag_where", "out");
  CHECK_REFUSED(ag_soft_threshold(NULL, NULL, 1, x), AG_ERR_INVALID_ARGUMENT, "ag_soft_threshold", "v|x");
  CHECK_REFUSED(ag_soft_threshold(NULL, x, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_soft_threshold", "out");
  ag_array_free(x);
  ag_array_free(u);
}
END_TEST

/* status.h: ag_last_error() names "the function and the argument": the function called (not the
   one it forwards to) and the argument as the header names it. */
START_TEST(messages_name_the_function_called_and_its_arguments) {
  ag_device *dev = test_device(_i);
  const size_t n = 4, m = 5;
  ag_array *x = test_array_new(dev, AG_F32, 1, &n), *y = test_array_new(dev, AG_F32, 1, &m);
  ag_array *u = test_array_new(dev, AG_BOOL, 1, &n);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, y, 1));
  CHECK_OK(ag_fill(NULL, u, 1));
  for (int o = 0; o < NBINARY; o++) {
    CHECK_REFUSED(binaries[o].scalar(NULL, NULL, 1, x), AG_ERR_INVALID_ARGUMENT, binaries[o].scalar_name, "x");
    if (binaries[o].scalar_r != NULL)
      CHECK_REFUSED(binaries[o].scalar_r(NULL, 1, NULL, x), AG_ERR_INVALID_ARGUMENT, binaries[o].scalar_r_name, "x");
  }
  CHECK_REFUSED(ag_add_scalar(NULL, x, 1, y), AG_ERR_MISMATCH, "ag_add_scalar", "x", "out");
  CHECK_REFUSED(ag_pow_scalar(NULL, u, 2, u), AG_ERR_UNSUPPORTED, "ag_pow_scalar", "bool");
  CHECK_REFUSED(ag_pow_scalar_r(NULL, 2, u, u), AG_ERR_UNSUPPORTED, "ag_pow_scalar_r", "bool");
  CHECK_REFUSED(ag_soft_threshold(NULL, NULL, 1, x), AG_ERR_INVALID_ARGUMENT, "ag_soft_threshold", "v");
  CHECK_REFUSED(ag_soft_threshold(NULL, x, 1, y), AG_ERR_MISMATCH, "ag_soft_threshold", "v", "out");
  ag_array_free(x);
  ag_array_free(y);
  ag_array_free(u);
}
END_TEST

/* Work on a created queue gives what the default queue gives; to_host waits only for the default
   queue, so the created one is finished first. */
START_TEST(operations_on_a_created_queue_match_the_default_queue) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  const size_t n = 100003;
  float *a = test_alloc(n * 4), *b = test_alloc(n * 4);
  ref_random(AG_F32, a, n, 700, 0.5, 2);
  ref_random(AG_F32, b, n, 701, -1, 1);
  ag_array *aa = test_array_1d(dev, AG_F32, n, a), *ab = test_array_1d(dev, AG_F32, n, b);
  ag_array *o1 = test_array_new(dev, AG_F32, 1, &n), *o2 = test_array_new(dev, AG_F32, 1, &n);
  /* ((a * b + a) / a) ** 2, sqrt, max with b, then axpby: a chain of dependent operations. */
  for (int pass = 0; pass < 2; pass++) {
    ag_queue *use = pass ? q : NULL;
    ag_array *o = pass ? o2 : o1;
    CHECK_OK(ag_mul(use, aa, ab, o));
    CHECK_OK(ag_add(use, o, aa, o));
    CHECK_OK(ag_div(use, o, aa, o));
    CHECK_OK(ag_pow_scalar(use, o, 2, o));
    CHECK_OK(ag_sqrt(use, o, o));
    CHECK_OK(ag_maximum(use, o, ab, o));
    CHECK_OK(ag_axpby(use, 2, o, -1, ab, o));
    if (pass)
      CHECK_OK(ag_queue_finish(q));
  }
  float *g1 = test_array_read(o1), *g2 = test_array_read(o2);
  CHECK_BYTES(g2, g1, n * 4, "a chain of operations on a created queue");
  /* And the chain is what the reference says, within the sum of its steps' bounds. */
  for (size_t i = 0; i < n; i++) {
    double v = ((double)a[i] * b[i] + a[i]) / a[i];
    v = fabs(v);
    v = v > b[i] ? v : b[i];
    v = 2 * v - b[i];
    ck_assert_msg(fabs(g1[i] - v) <= 4e-6 * (fabs(v) + fabs(b[i])),
                  "%s: element %zu of the chain is %.9g, expected %.9g", test_label(), i, g1[i], v);
  }
  free(g1);
  free(g2);
  free(a);
  free(b);
  ag_array_free(aa);
  ag_array_free(ab);
  ag_array_free(o1);
  ag_array_free(o2);
  ag_queue_destroy(q);
}
END_TEST

/* ---- sizes ----------------------------------------------------------------------------------------- */

START_TEST(empty_arrays_succeed_doing_nothing) {
  ag_device *dev = test_device(_i);
  const size_t shapes_empty[2][2] = {{0, 0}, {3, 0}};
  const int ndims[2] = {1, 2};
  for (int s = 0; s < 2; s++) {
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!test_dtype_runs(dev, t))
        continue;
      const size_t *shape = shapes_empty[s];
      int nd = ndims[s];
      ag_array *a = test_array_new(dev, t, nd, shape), *b = test_array_new(dev, t, nd, shape);
      ag_array *out = test_array_new(dev, t, nd, shape), *rout = test_array_new(dev, ref_real_dtype(t), nd, shape);
      ag_array *cond = test_array_new(dev, AG_U8, nd, shape);
      for (int o = 0; o < NUNARY; o++) {
        if (!ref_unary_takes(unaries[o].op, t))
          continue;
        ag_array *uo = ref_unary_out_dtype(unaries[o].op, t) == t ? out : rout;
        ref_check_ok(unaries[o].fn(NULL, a, uo), "%s of an empty %s array", unaries[o].name, ref_name(t));
        ref_check_ok(ag_unary(NULL, unaries[o].op, a, uo), "ag_unary of an empty %s array", ref_name(t));
      }
      for (int o = 0; o < NBINARY; o++) {
        if (!ref_binary_takes(binaries[o].op, t))
          continue;
        ref_check_ok(binaries[o].fn(NULL, a, b, out), "%s of empty %s arrays", binaries[o].name, ref_name(t));
        ref_check_ok(binaries[o].scalar(NULL, a, 2, out), "%s of an empty %s array", binaries[o].scalar_name,
                     ref_name(t));
        if (binaries[o].scalar_r != NULL)
          ref_check_ok(binaries[o].scalar_r(NULL, 2, a, out), "%s of an empty %s array", binaries[o].scalar_r_name,
                       ref_name(t));
        ref_check_ok(ag_binary_scalar(NULL, binaries[o].op, a, 2, 0, true, out), "ag_binary_scalar of empty %s",
                     ref_name(t));
      }
      ref_check_ok(ag_where(NULL, cond, a, b, out), "ag_where of empty %s arrays", ref_name(t));
      if (ref_is_float(t) || ref_is_complex(t)) {
        ref_check_ok(ag_axpby(NULL, 1, a, 2, b, out), "ag_axpby of empty %s arrays", ref_name(t));
        ref_check_ok(ag_soft_threshold(NULL, a, 1, out), "ag_soft_threshold of an empty %s array", ref_name(t));
      }
      if (ref_is_float(t) || ref_is_integer(t))
        ref_check_ok(ag_clamp(NULL, a, 0, 1, out), "ag_clamp of an empty %s array", ref_name(t));
      /* Broadcasting an empty row over {3, 0}: still nothing to do. */
      if (s == 1 && ref_binary_takes(AG_OP_ADD, t)) {
        ag_array *row = NULL;
        CHECK_OK(ag_array_index(a, 0, &row));
        ref_check_ok(ag_add(NULL, b, row, out), "ag_add broadcasting an empty row");
        ag_array_free(row);
      }
      ag_array_free(a);
      ag_array_free(b);
      ag_array_free(out);
      ag_array_free(rout);
      ag_array_free(cond);
    }
  }
}
END_TEST

/* One array above 2^31 bytes, where indexing with 32 bits would wrap: a u8 array of 2^31 + 17
   elements, 250 everywhere but three marked elements, plus 10 in place (250 + 10 wraps to 4);
   checked at its start, middle and end, and whole through max, argmax and sum. */
START_TEST(an_array_above_2_31_bytes_is_processed_whole) {
  ag_device *dev = test_device(_i);
  const size_t n = ((size_t)1 << 31) + 17;
  if (!test_device_holds(dev, n, "an array of 2^31 + 17 bytes"))
    return;
  ag_array *a = test_array_new(dev, AG_U8, 1, &n);
  CHECK_OK(ag_fill(NULL, a, 250));
  size_t offset = 0;
  ag_buffer *buf = ag_array_buffer(a, &offset);
  const size_t at[3] = {0, n / 2 + 1, n - 1};
  const uint8_t marks[3] = {1, 2, 100};
  for (int k = 0; k < 3; k++)
    CHECK_OK(ag_buffer_write(NULL, buf, offset + at[k], &marks[k], 1));
  CHECK_OK(ag_add_scalar(NULL, a, 10, a));
  /* Spot checks: 16 bytes around each mark. */
  for (int k = 0; k < 3; k++) {
    size_t from = at[k] >= 8 ? at[k] - 8 : 0, len = at[k] + 8 < n ? at[k] + 8 - from : n - from;
    uint8_t got[16];
    CHECK_OK(ag_buffer_read(NULL, buf, offset + from, got, len));
    for (size_t j = 0; j < len; j++) {
      uint8_t want = from + j == at[k] ? (uint8_t)(marks[k] + 10) : 4;
      ck_assert_msg(got[j] == want, "%s: element %zu of 2^31 + 17 is %u, expected %u", test_label(), from + j, got[j],
                    want);
    }
  }
  const size_t one = 1;
  ag_array *mx = test_array_new(dev, AG_U8, 1, &one), *am = test_array_new(dev, AG_U32, 1, &one);
  CHECK_OK(ag_max(NULL, a, AG_AXIS_ALL, mx));
  CHECK_OK(ag_argmax(NULL, a, AG_AXIS_ALL, am));
  uint8_t m = 0;
  uint32_t idx = 0;
  CHECK_OK(ag_array_to_host(mx, &m, 1));
  CHECK_OK(ag_array_to_host(am, &idx, 4));
  ck_assert_uint_eq(m, 110);
  ck_assert_uint_eq(idx, n - 1);
  if (test_dtype_runs(dev, AG_F64)) {
    ag_array *sum = test_array_new(dev, AG_F64, 1, &one);
    CHECK_OK(ag_sum(NULL, a, AG_AXIS_ALL, sum));
    double total = 0;
    CHECK_OK(ag_array_to_host(sum, &total, 8));
    /* 4 (n - 3) + 11 + 12 + 110, exact in f64: the sum is exact in 64 bits and below 2^53. */
    double want = 4.0 * (double)(n - 3) + 11 + 12 + 110;
    ck_assert_msg(total == want, "%s: the sum of 2^31 + 17 bytes is %.17g, expected %.17g", test_label(), total, want);
    ag_array_free(sum);
  }
  ag_array_free(mx);
  ag_array_free(am);
  ag_array_free(a);
}
END_TEST

/* ---- the references themselves ------------------------------------------------------------------ */

static ref_c unary1(ag_unary_op op, ag_dtype t, ref_c v) {
  unsigned char x[16];
  ref_put(t, x, 0, v);
  ref_c w;
  ref_unary(op, t, x, 1, &w);
  return w;
}

static ref_c binary1(ag_binary_op op, ag_dtype t, ref_c a, ref_c b) {
  unsigned char x[16], y[16];
  ref_put(t, x, 0, a);
  ref_put(t, y, 0, b);
  ref_c w;
  ref_binary(op, t, x, 1, y, 1, 1, &w);
  return w;
}

static bool near(ref_c got, ref_c want, double tol) { return cabsl(got - want) <= tol; }

START_TEST(the_elementwise_references_agree_with_analytic_values) {
  for (ag_dtype t = AG_F32; t <= AG_C128; t++) {
    ck_assert(near(unary1(AG_OP_SQRT, t, 4), 2, 0));
    ck_assert(near(unary1(AG_OP_EXP, t, 0), 1, 0));
    ck_assert(near(unary1(AG_OP_LOG, t, 1), 0, 0));
    ck_assert(near(unary1(AG_OP_SIN, t, 0), 0, 0));
    ck_assert(near(unary1(AG_OP_COS, t, 0), 1, 0));
    ck_assert(near(unary1(AG_OP_EXP, t, 1), 2.718281828459045235L, 1e-15));
    ck_assert(near(unary1(AG_OP_SIN, t, 0.5), 0.479425538604203000L, 1e-15));
    ck_assert(near(unary1(AG_OP_NEG, t, 2.5), -2.5, 0));
    ck_assert(near(unary1(AG_OP_SQUARE, t, -3), 9, 0));
    ck_assert(near(binary1(AG_OP_POW, t, 2, 10), 1024, 1e-12)); /* complex: through exp and log */
    ck_assert(near(binary1(AG_OP_DIV, t, 1, 4), 0.25, 0));
  }
  for (ag_dtype t = AG_C64; t <= AG_C128; t++) {
    ck_assert(near(unary1(AG_OP_ABS, t, CMPLXL(3, 4)), 5, 0));
    ck_assert(near(unary1(AG_OP_SQRT, t, -4), CMPLXL(0, 2), 1e-18));
    ck_assert(near(unary1(AG_OP_SIGN, t, CMPLXL(3, 4)), CMPLXL(0.6, 0.8), 1e-15));
    ck_assert(near(unary1(AG_OP_CONJ, t, CMPLXL(1, 2)), CMPLXL(1, -2), 0));
    ck_assert(near(unary1(AG_OP_IMAG, t, CMPLXL(1, 2)), 2, 0));
    ck_assert(near(unary1(AG_OP_SQUARE, t, CMPLXL(1, 2)), CMPLXL(-3, 4), 0));
    ck_assert(near(unary1(AG_OP_EXP, t, CMPLXL(0, M_PI)), -1, 1e-7)); /* pi is rounded to float for c64 */
    ck_assert(near(binary1(AG_OP_MUL, t, CMPLXL(1, 2), CMPLXL(3, 4)), CMPLXL(-5, 10), 0));
    ck_assert(near(binary1(AG_OP_DIV, t, CMPLXL(-5, 10), CMPLXL(3, 4)), CMPLXL(1, 2), 1e-18));
    ck_assert(near(binary1(AG_OP_POW, t, CMPLXL(0, 1), 2), -1, 1e-18));
  }
  /* Integers: wraparound, truncation, x / 0 = 0. */
  ck_assert(binary1(AG_OP_ADD, AG_U8, 250, 10) == 4);
  ck_assert(binary1(AG_OP_SUB, AG_U32, 0, 1) == 4294967295.0L);
  ck_assert(binary1(AG_OP_MUL, AG_I32, 65536, 65536) == 0);
  ck_assert(binary1(AG_OP_DIV, AG_I32, -7, 2) == -3);
  ck_assert(binary1(AG_OP_DIV, AG_U16, 7, 0) == 0);
  ck_assert(unary1(AG_OP_NEG, AG_I32, 5) == -5);
  ck_assert(unary1(AG_OP_ABS, AG_I32, -5) == 5);
  ck_assert(unary1(AG_OP_SIGN, AG_I32, -9) == -1);
  ck_assert(unary1(AG_OP_SQUARE, AG_U8, 16) == 0);
  /* IEEE specials: NaN + 1 = NaN, Inf * 2 = Inf, sqrt(-1) = NaN, min/max with NaN = NaN. */
  for (ag_dtype t = AG_F32; t <= AG_F64; t++) {
    ck_assert(isnan(creall(binary1(AG_OP_ADD, t, NAN, 1))));
    ck_assert(creall(binary1(AG_OP_MUL, t, INFINITY, 2)) == INFINITY);
    ck_assert(isnan(creall(unary1(AG_OP_SQRT, t, -1))));
    ck_assert(isnan(creall(binary1(AG_OP_MINIMUM, t, NAN, 1))));
    ck_assert(isnan(creall(binary1(AG_OP_MINIMUM, t, 1, NAN))));
    ck_assert(isnan(creall(binary1(AG_OP_MAXIMUM, t, 1, NAN))));
    ck_assert(creall(binary1(AG_OP_MAXIMUM, t, -1, 3)) == 3);
    ck_assert(creall(binary1(AG_OP_POW, t, NAN, 0)) == 1);
    ck_assert(creall(unary1(AG_OP_LOG, t, 0)) == -INFINITY);
  }
  /* Soft threshold, clamp and axpby. */
  double v[4] = {3, -0.5, -3, 0.25};
  ref_c w[4];
  ref_soft_threshold(AG_F64, v, 1, 4, w);
  ck_assert(w[0] == 2 && w[1] == 0 && w[2] == -2 && w[3] == 0);
  float cv[2] = {3, 4};
  ref_soft_threshold(AG_C64, cv, 1, 1, w);
  ck_assert(near(w[0], CMPLXL(2.4, 3.2), 1e-15)); /* (3+4i)/5 * 4 */
  double c[3] = {NAN, -5, 5};
  ref_clamp(AG_F64, c, -1, 1, 3, w);
  ck_assert(isnan(creall(w[0])) && w[1] == -1 && w[2] == 1);
  double x[1] = {3}, y[1] = {4};
  ref_axpby(AG_F64, 2, x, 3, y, 1, w);
  ck_assert(w[0] == 18);
}
END_TEST

START_TEST(the_comparison_helpers_catch_what_they_should) {
  float got[3] = {1.0f, NAN, INFINITY};
  ref_c want[3] = {1.0L, NAN, INFINITY};
  char msg[256];
  ck_assert_uint_eq(ref_compare(AG_F32, got, want, NULL, 3, REF_EXACT, msg, sizeof msg), 3);
  want[0] = 1.0L + 1e-7L;
  ck_assert_uint_eq(ref_compare(AG_F32, got, want, NULL, 1, REF_EXACT, msg, sizeof msg), 0);
  ck_assert_uint_eq(ref_compare(AG_F32, got, want, NULL, 1, (ref_tol){2e-7, 0}, msg, sizeof msg), 1);
  ck_assert_uint_eq(ref_compare(AG_F32, got, want, NULL, 1, (ref_tol){5e-8, 0}, msg, sizeof msg), 0);
  want[0] = 1.0L;
  want[1] = 0; /* NaN where a number is expected */
  ck_assert_uint_eq(ref_compare(AG_F32, got, want, NULL, 3, (ref_tol){1, 1}, msg, sizeof msg), 1);
  want[1] = NAN;
  want[2] = 3e38L; /* Inf where a large number is expected */
  ck_assert_uint_eq(ref_compare(AG_F32, got, want, NULL, 3, (ref_tol){1e-3, 0}, msg, sizeof msg), 2);
  float cg[2] = {3, 4};
  ref_c cw[1] = {CMPLXL(3, 4.000001L)};
  ck_assert_uint_eq(ref_compare(AG_C64, cg, cw, NULL, 1, (ref_tol){1e-6, 0}, msg, sizeof msg), 1);
  ck_assert_uint_eq(ref_compare(AG_C64, cg, cw, NULL, 1, REF_EXACT, msg, sizeof msg), 0);
  /* Whole words. */
  ck_assert(ref_names("ag_add: a has shape {3} but b has shape {4}", "a"));
  ck_assert(ref_names("ag_add: a has shape {3} but b has shape {4}", "b"));
  ck_assert(!ref_names("ag_add: an array", "a"));
  ck_assert(!ref_names("ag_sqrt: bad dtype u8x", "u8"));
  ck_assert(ref_names("ag_sqrt: u8 is not taken", "x|u8"));
  ck_assert(ref_names("ag_array_index: index 5", "i|index"));
}
END_TEST

/* ---- comparisons ------------------------------------------------------------------------------- */

static const char *const compare_names[] = {"AG_CMP_EQ", "AG_CMP_NE", "AG_CMP_LT",
                                            "AG_CMP_LE", "AG_CMP_GT", "AG_CMP_GE"};
enum { NCOMPARE = sizeof compare_names / sizeof compare_names[0] };

/* Operands drawn from few values, so that ties are common: small integers, the limits of each
   integer dtype (saturated by ref_put) and, for floats, fractions, NaN and infinities. Complex
   numbers take an imaginary part of 0, 1, 2 or NaN. */
static void *compare_input(ag_dtype t, size_t n, uint64_t seed) {
  static const double vals[] = {-1, 0, 1, 2, 3, 255, 256, 65535, 65536, 2147483647, 4294967295.0, -4294967295.0,
                                2.5, 0.1, NAN, INFINITY, -INFINITY};
  static const double ims[] = {0, 1, 0, 1, 2, NAN};
  unsigned nv = ref_is_integer(t) ? 12 : sizeof vals / sizeof vals[0];
  ref_lcg g = ref_lcg_seeded(seed);
  void *p = test_alloc(n * ref_size(t));
  for (size_t i = 0; i < n; i++) {
    double re = vals[ref_lcg_next(&g) % nv], im = ref_is_complex(t) ? ims[ref_lcg_next(&g) % 6] : 0;
    ref_put(t, p, i, CMPLXL(re, im));
  }
  return p;
}

/* out, a u8 mask, must hold @p want; the printf-style context says which comparison. */
static void check_mask(ag_array *out, const unsigned char *want, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void check_mask(ag_array *out, const unsigned char *want, size_t n, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  unsigned char *got = test_array_read(out);
  CHECK_BYTES(got, want, n, what);
  free(got);
}

static void check_comparison(ag_device *dev, ag_compare_op op, ag_dtype t, size_t n, uint64_t seed) {
  void *a = compare_input(t, n, seed), *b = compare_input(t, n, seed + 1);
  ag_array *aa = test_array_shaped(dev, t, n, a), *ab = test_array_shaped(dev, t, n, b);
  ag_array *out = test_array_shaped(dev, AG_U8, n, NULL);
  ref_check_ok(ag_compare(NULL, op, aa, ab, out), "ag_compare %s on %zu %s elements", compare_names[op], n,
               ref_name(t));
  unsigned char *want = test_alloc(n);
  ref_comparison(op, t, a, n, b, n, n, want);
  check_mask(out, want, n, "ag_compare %s of %zu %s elements", compare_names[op], n, ref_name(t));
  free(want);
  free(a);
  free(b);
  ag_array_free(aa);
  ag_array_free(ab);
  ag_array_free(out);
}

START_TEST(comparisons_match_the_reference) {
  ag_device *dev = test_device(_i);
  for (int o = 0; o < NCOMPARE; o++) {
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k];
      if (!ref_comparison_takes((ag_compare_op)o, t) || !test_dtype_runs(dev, t))
        continue;
      /* 2^20 + 3 elements for == and < only: every comparison is the same loop. */
      int nsizes = o == AG_CMP_EQ || o == AG_CMP_LT ? NSIZES : NSIZES - 1;
      for (int s = 0; s < nsizes; s++)
        check_comparison(dev, (ag_compare_op)o, t, sizes[s], 30000u + 100u * (unsigned)o + 10u * (unsigned)k + (unsigned)s);
    }
  }
}
END_TEST

START_TEST(comparisons_broadcast_a_trailing_shape_operand_either_side) {
  ag_device *dev = test_device(_i);
  const size_t big[2] = {4, 33}, small[1] = {33}, n = 4 * 33;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = compare_input(t, n, 400u + (unsigned)k), *y = compare_input(t, small[0], 500u + (unsigned)k);
    ag_array *ab = test_array_from(dev, t, 2, big, x), *as = test_array_from(dev, t, 1, small, y);
    ag_array *out = test_array_new(dev, AG_U8, 2, big);
    unsigned char want[4 * 33];
    for (int o = 0; o < NCOMPARE; o++) {
      if (!ref_comparison_takes((ag_compare_op)o, t))
        continue;
      ref_check_ok(ag_compare(NULL, (ag_compare_op)o, ab, as, out), "ag_compare %s, b repeated", compare_names[o]);
      ref_comparison((ag_compare_op)o, t, x, n, y, small[0], n, want);
      check_mask(out, want, n, "ag_compare %s of %s, b {33} repeated over a {4, 33}", compare_names[o], ref_name(t));
      ref_check_ok(ag_compare(NULL, (ag_compare_op)o, as, ab, out), "ag_compare %s, a repeated", compare_names[o]);
      ref_comparison((ag_compare_op)o, t, y, small[0], x, n, n, want);
      check_mask(out, want, n, "ag_compare %s of %s, a {33} repeated over b {4, 33}", compare_names[o], ref_name(t));
    }
    free(x);
    free(y);
    ag_array_free(ab);
    ag_array_free(as);
    ag_array_free(out);
  }
}
END_TEST

/* Worked by hand: a NaN compares false, except with AG_CMP_NE; a complex NaN in either part. */
START_TEST(a_nan_compares_false_but_with_ne) {
  ag_device *dev = test_device(_i);
  const double pa[4] = {NAN, 1, NAN, 1}, pb[4] = {1, NAN, NAN, 1};
  const unsigned char want[NCOMPARE][4] = {{0, 0, 0, 1}, {1, 1, 1, 0}, {0, 0, 0, 0},
                                           {0, 0, 0, 1}, {0, 0, 0, 0}, {0, 0, 0, 1}};
  ag_array *out = test_array_new(dev, AG_U8, 1, &(size_t){4});
  for (ag_dtype t = AG_F32; t <= AG_C128; t++) {
    if (!test_dtype_runs(dev, t))
      continue;
    unsigned char a[4 * 16], b[4 * 16];
    for (size_t i = 0; i < 4; i++) {
      /* Complex: the NaN in the imaginary part, the real parts equal. */
      ref_put(t, a, i, ref_is_complex(t) ? CMPLXL(1, pa[i]) : (ref_c)pa[i]);
      ref_put(t, b, i, ref_is_complex(t) ? CMPLXL(1, pb[i]) : (ref_c)pb[i]);
    }
    ag_array *aa = test_array_1d(dev, t, 4, a), *ab = test_array_1d(dev, t, 4, b);
    for (int o = 0; o < NCOMPARE; o++) {
      if (!ref_comparison_takes((ag_compare_op)o, t))
        continue;
      ref_check_ok(ag_compare(NULL, (ag_compare_op)o, aa, ab, out), "ag_compare %s", compare_names[o]);
      check_mask(out, want[o], 4, "ag_compare %s of NaN and 1 as %s", compare_names[o], ref_name(t));
      /* With a NaN scalar, every element gives the answer of NaN against 1. */
      for (int first = 0; first < 2; first++) {
        ref_check_ok(ag_compare_scalar(NULL, (ag_compare_op)o, ab, NAN, 0, first, out), "ag_compare_scalar %s",
                     compare_names[o]);
        const unsigned char all[4] = {want[o][0], want[o][0], want[o][0], want[o][0]};
        check_mask(out, all, 4, "ag_compare_scalar %s with NaN as %s", compare_names[o], ref_name(t));
      }
    }
    ag_array_free(aa);
    ag_array_free(ab);
  }
  ag_array_free(out);
}
END_TEST

/* Worked by hand from ops.h: integer x against the real number s (no rounding of s to an
   integer), float x against s rounded to x's dtype, as numpy compares. */
START_TEST(scalar_comparisons_are_exact_as_numpy_s) {
  ag_device *dev = test_device(_i);
  const struct {
    ag_dtype t;
    ag_compare_op op;
    double s;
    bool first;
    unsigned char want[5];
  } cases[] = {
      /* u8 x = {0, 1, 2, 3, 255} */
      {AG_U8, AG_CMP_LT, 2.5, false, {1, 1, 1, 0, 0}},
      {AG_U8, AG_CMP_LE, 2.5, false, {1, 1, 1, 0, 0}},
      {AG_U8, AG_CMP_GT, 2.5, false, {0, 0, 0, 1, 1}},
      {AG_U8, AG_CMP_GE, 2.5, false, {0, 0, 0, 1, 1}},
      {AG_U8, AG_CMP_EQ, 2.5, false, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_NE, 2.5, false, {1, 1, 1, 1, 1}},
      {AG_U8, AG_CMP_LT, 2.5, true, {0, 0, 0, 1, 1}}, /* 2.5 < x */
      {AG_U8, AG_CMP_GE, 2, true, {1, 1, 1, 0, 0}},   /* 2 >= x */
      {AG_U8, AG_CMP_LT, 300, false, {1, 1, 1, 1, 1}},
      {AG_U8, AG_CMP_GT, 300, false, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_EQ, 300, false, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_GT, -1, false, {1, 1, 1, 1, 1}},
      {AG_U8, AG_CMP_LT, -1, false, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_LE, 0, false, {1, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_GE, 255, false, {0, 0, 0, 0, 1}},
      {AG_U8, AG_CMP_EQ, 255, false, {0, 0, 0, 0, 1}},
      {AG_U8, AG_CMP_NE, 3, false, {1, 1, 1, 0, 1}},
      {AG_U8, AG_CMP_EQ, NAN, false, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_NE, NAN, false, {1, 1, 1, 1, 1}},
      {AG_U8, AG_CMP_LT, NAN, false, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_GE, NAN, true, {0, 0, 0, 0, 0}},
      {AG_U8, AG_CMP_LT, INFINITY, false, {1, 1, 1, 1, 1}},
      {AG_U8, AG_CMP_GT, -INFINITY, false, {1, 1, 1, 1, 1}},
      {AG_U8, AG_CMP_LE, -INFINITY, false, {0, 0, 0, 0, 0}},
      /* i32 x = {INT_MIN, -3, -2, 0, INT_MAX} */
      {AG_I32, AG_CMP_LT, -2.5, false, {1, 1, 0, 0, 0}},
      {AG_I32, AG_CMP_GT, -2.5, false, {0, 0, 1, 1, 1}},
      {AG_I32, AG_CMP_LT, -3e9, false, {0, 0, 0, 0, 0}},
      {AG_I32, AG_CMP_GT, -3e9, false, {1, 1, 1, 1, 1}},
      {AG_I32, AG_CMP_LE, 2147483647.5, false, {1, 1, 1, 1, 1}},
      {AG_I32, AG_CMP_EQ, -2147483648.0, false, {1, 0, 0, 0, 0}},
      {AG_I32, AG_CMP_GE, 2147483647.5, false, {0, 0, 0, 0, 0}},
      /* u32 x = {0, 1, 4294967294, 4294967295, 7} */
      {AG_U32, AG_CMP_GE, 4294967295.0, false, {0, 0, 0, 1, 0}},
      {AG_U32, AG_CMP_LT, 4294967295.5, false, {1, 1, 1, 1, 1}},
      {AG_U32, AG_CMP_GT, 4294967294.5, false, {0, 0, 0, 1, 0}},
      {AG_U32, AG_CMP_EQ, 4294967296.0, false, {0, 0, 0, 0, 0}},
      /* u16 x = {0, 1, 65535, 300, 7} */
      {AG_U16, AG_CMP_LT, 300, false, {1, 1, 0, 0, 1}},
      {AG_U16, AG_CMP_LE, 299.5, true, {0, 0, 1, 1, 0}}, /* 299.5 <= x */
      {AG_U16, AG_CMP_GT, 65535.5, false, {0, 0, 0, 0, 0}},
      /* f32 x = {0.1f, 0.2f, 2.5, NaN, -Inf}: 0.1 rounds to 0.1f first (exactly, 0.1f > 0.1). */
      {AG_F32, AG_CMP_EQ, 0.1, false, {1, 0, 0, 0, 0}},
      {AG_F32, AG_CMP_GT, 0.1, false, {0, 1, 1, 0, 0}},
      {AG_F32, AG_CMP_LE, 0.1, false, {1, 0, 0, 0, 1}},
      {AG_F32, AG_CMP_LT, 0.1, true, {0, 1, 1, 0, 0}}, /* 0.1 < x */
      {AG_F32, AG_CMP_LT, 1e300, false, {1, 1, 1, 0, 1}}, /* 1e300 rounds to Inf */
      /* f64 x = {0.1, 0.1f, 2.5, NaN, -Inf} */
      {AG_F64, AG_CMP_EQ, 0.1, false, {1, 0, 0, 0, 0}},
      {AG_F64, AG_CMP_GT, 0.1, false, {0, 1, 1, 0, 0}},
      {AG_F64, AG_CMP_NE, -INFINITY, false, {1, 1, 1, 1, 0}},
  };
  const double xs[][5] = {
      [AG_U8] = {0, 1, 2, 3, 255},
      [AG_U16] = {0, 1, 65535, 300, 7},
      [AG_U32] = {0, 1, 4294967294.0, 4294967295.0, 7},
      [AG_I32] = {-2147483648.0, -3, -2, 0, 2147483647},
      [AG_F32] = {0.1, 0.2, 2.5, NAN, -INFINITY},
      [AG_F64] = {0.1, (double)0.1f, 2.5, NAN, -INFINITY},
  };
  ag_array *out = test_array_new(dev, AG_U8, 1, &(size_t){5});
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    ag_dtype t = cases[k].t;
    if (!test_dtype_runs(dev, t))
      continue;
    unsigned char x[5 * 8];
    for (size_t i = 0; i < 5; i++)
      ref_put(t, x, i, xs[t][i]);
    ag_array *ax = test_array_1d(dev, t, 5, x);
    ref_check_ok(ag_compare_scalar(NULL, cases[k].op, ax, cases[k].s, 0, cases[k].first, out),
                 "ag_compare_scalar %s %g", compare_names[cases[k].op], cases[k].s);
    check_mask(out, cases[k].want, 5, "ag_compare_scalar %s of %s with %.17g%s", compare_names[cases[k].op],
               ref_name(t), cases[k].s, cases[k].first ? " first" : "");
    ag_array_free(ax);
  }
  /* c64: both parts of s round to f32. */
  const float z[4] = {0.1f, 0.2f, 0.1f, 0};
  ag_array *az = test_array_1d(dev, AG_C64, 2, z), *o2 = test_array_new(dev, AG_U8, 1, &(size_t){2});
  CHECK_OK(ag_compare_scalar(NULL, AG_CMP_EQ, az, 0.1, 0.2, false, o2));
  check_mask(o2, (const unsigned char[]){1, 0}, 2, "ag_compare_scalar AG_CMP_EQ of c64 with 0.1+0.2i");
  CHECK_OK(ag_compare_scalar(NULL, AG_CMP_NE, az, 0.1, 0, true, o2));
  check_mask(o2, (const unsigned char[]){1, 0}, 2, "ag_compare_scalar AG_CMP_NE of c64 with 0.1, first");
  ag_array_free(az);
  ag_array_free(o2);
  ag_array_free(out);
}
END_TEST

/* Every dtype, op and order against the reference, with scalars inside, between and beyond
   each dtype's values. */
START_TEST(scalar_comparisons_match_the_reference) {
  ag_device *dev = test_device(_i);
  const double int_scalars[] = {2.5, -2.5, 0, 1, -1, 255, 300, 65535.5, 70000, 2147483647.5, 4294967295.0, 5e9,
                                -5e9, NAN, INFINITY, -INFINITY};
  const double float_scalars[] = {0.1, 2.5, -1, 0, 2147483647, NAN, INFINITY, -INFINITY, 1e300};
  const double cplx_scalars[][2] = {{0, 0}, {1, 0}, {1, 1}, {0.1, 2}, {NAN, 0}, {2.5, NAN}};
  const size_t n = 1023;
  unsigned char *want = test_alloc(n);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    void *x = compare_input(t, n, 600u + (unsigned)k);
    ag_array *ax = test_array_shaped(dev, t, n, x), *out = test_array_shaped(dev, AG_U8, n, NULL);
    size_t ns = ref_is_integer(t)   ? sizeof int_scalars / sizeof int_scalars[0]
                : ref_is_complex(t) ? sizeof cplx_scalars / sizeof cplx_scalars[0]
                                    : sizeof float_scalars / sizeof float_scalars[0];
    for (int o = 0; o < NCOMPARE; o++) {
      if (!ref_comparison_takes((ag_compare_op)o, t))
        continue;
      for (size_t j = 0; j < ns; j++) {
        double re = ref_is_integer(t) ? int_scalars[j] : ref_is_complex(t) ? cplx_scalars[j][0] : float_scalars[j];
        double im = ref_is_complex(t) ? cplx_scalars[j][1] : 0;
        for (int first = 0; first < 2; first++) {
          ref_check_ok(ag_compare_scalar(NULL, (ag_compare_op)o, ax, re, im, first, out), "ag_compare_scalar %s %g",
                       compare_names[o], re);
          ref_comparison_scalar((ag_compare_op)o, t, x, n, re, im, first, want);
          check_mask(out, want, n, "ag_compare_scalar %s of %s with %.17g%+gi%s", compare_names[o], ref_name(t), re, im,
                     first ? " first" : "");
        }
      }
    }
    free(x);
    ag_array_free(ax);
    ag_array_free(out);
  }
  free(want);
}
END_TEST

START_TEST(comparisons_refuse_what_ops_h_rules_out) {
  ag_device *dev = test_device(_i);
  const size_t n = 5, m = 4;
  ag_array *a = test_array_new(dev, AG_F32, 1, &n), *b = test_array_new(dev, AG_F32, 1, &n);
  ag_array *c = test_array_new(dev, AG_I32, 1, &n), *d = test_array_new(dev, AG_F32, 1, &m);
  ag_array *z = test_array_new(dev, AG_C64, 1, &n), *out = test_array_new(dev, AG_U8, 1, &n);
  ag_array *fo = test_array_new(dev, AG_F32, 1, &n);
  ag_array *inputs[] = {a, b, c, d, z};
  for (size_t i = 0; i < 5; i++)
    CHECK_OK(ag_fill(NULL, inputs[i], 1));
  CHECK_OK(ag_fill(NULL, out, 9));
  CHECK_OK(ag_fill(NULL, fo, 9));
  /* out must be u8. */
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_LT, a, b, fo), AG_ERR_INVALID_ARGUMENT, "ag_compare", "out", "f32", "u8");
  CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_EQ, a, 1, 0, false, fo), AG_ERR_INVALID_ARGUMENT, "ag_compare_scalar",
                "out", "f32", "u8");
  /* Complex numbers are not ordered. */
  for (int o = AG_CMP_LT; o <= AG_CMP_GE; o++) {
    CHECK_REFUSED(ag_compare(NULL, (ag_compare_op)o, z, z, out), AG_ERR_UNSUPPORTED, "ag_compare", compare_names[o],
                  "c64");
    CHECK_REFUSED(ag_compare_scalar(NULL, (ag_compare_op)o, z, 1, 0, true, out), AG_ERR_UNSUPPORTED,
                  "ag_compare_scalar", compare_names[o], "c64");
  }
  /* Shapes and dtypes that do not fit. */
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, a, d, out), AG_ERR_MISMATCH, "ag_compare", "a", "b");
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, d, d, out), AG_ERR_MISMATCH, "ag_compare", "a", "out");
  /* Mixed dtypes compare in the promoted one (f32 and i32: f64), which must be ordered. */
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_LT, a, z, out), AG_ERR_UNSUPPORTED, "ag_compare", "AG_CMP_LT", "c64");
  if (test_dtype_runs(dev, AG_F64)) {
    ag_array *mixed = test_array_new(dev, AG_BOOL, 1, &n); /* out stays as it is, for the check below */
    CHECK_OK(ag_compare(NULL, AG_CMP_EQ, a, c, mixed));
    ag_array_free(mixed);
  } else
    CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, a, c, out), AG_ERR_UNSUPPORTED, "ag_compare", "f64");
  CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_EQ, d, 1, 0, false, out), AG_ERR_MISMATCH, "ag_compare_scalar", "x",
                "out");
  /* NULL, an op outside the enum, an imaginary part for a real dtype. */
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, NULL, b, out), AG_ERR_INVALID_ARGUMENT, "ag_compare", "a");
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, a, NULL, out), AG_ERR_INVALID_ARGUMENT, "ag_compare", "b");
  CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, a, b, NULL), AG_ERR_INVALID_ARGUMENT, "ag_compare", "out");
  CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_EQ, NULL, 1, 0, false, out), AG_ERR_INVALID_ARGUMENT,
                "ag_compare_scalar", "x");
  CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_EQ, a, 1, 0, false, NULL), AG_ERR_INVALID_ARGUMENT,
                "ag_compare_scalar", "out");
  CHECK_REFUSED(ag_compare(NULL, (ag_compare_op)6, a, b, out), AG_ERR_INVALID_ARGUMENT, "ag_compare", "op");
  CHECK_REFUSED(ag_compare(NULL, (ag_compare_op)-1, a, b, out), AG_ERR_INVALID_ARGUMENT, "ag_compare", "op");
  CHECK_REFUSED(ag_compare_scalar(NULL, (ag_compare_op)99, a, 1, 0, false, out), AG_ERR_INVALID_ARGUMENT,
                "ag_compare_scalar", "op");
  CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_LT, a, 1, 0.5, false, out), AG_ERR_INVALID_ARGUMENT,
                "ag_compare_scalar", "im");
  CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_LT, c, 2.5, 0.5, false, out), AG_ERR_INVALID_ARGUMENT,
                "ag_compare_scalar", "im");
  /* Without double precision, f64 is refused naming the device. */
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    ag_array *f = test_array_new(dev, AG_F64, 1, &n);
    CHECK_REFUSED(ag_compare(NULL, AG_CMP_EQ, f, f, out), AG_ERR_UNSUPPORTED, "ag_compare", info.spec);
    CHECK_REFUSED(ag_compare_scalar(NULL, AG_CMP_EQ, f, 2.5, 0, false, out), AG_ERR_UNSUPPORTED, "ag_compare_scalar",
                  info.spec);
    ag_array_free(f);
  }
  ag_array *touched[] = {out, fo};
  test_check_all_equal(touched, 2, 9, "a refused comparison");
  for (size_t i = 0; i < 5; i++)
    ag_array_free(inputs[i]);
  ag_array_free(out);
  ag_array_free(fo);
}
END_TEST

START_TEST(comparisons_of_empty_arrays_succeed_doing_nothing) {
  ag_device *dev = test_device(_i);
  const size_t zero = 0;
  ag_array *a = test_array_new(dev, AG_F32, 1, &zero), *u = test_array_new(dev, AG_U8, 1, &zero);
  ag_array *out = test_array_new(dev, AG_U8, 1, &zero);
  CHECK_OK(ag_compare(NULL, AG_CMP_LT, a, a, out));
  CHECK_OK(ag_compare_scalar(NULL, AG_CMP_GE, a, 1, 0, false, out));
  /* Integer x with answers known without a look at x: written with a fill, of nothing here. */
  CHECK_OK(ag_compare_scalar(NULL, AG_CMP_EQ, u, 2.5, 0, false, out));
  CHECK_OK(ag_compare_scalar(NULL, AG_CMP_NE, u, NAN, 0, true, out));
  CHECK_OK(ag_compare(NULL, AG_CMP_EQ, u, u, u));
  ag_array_free(a);
  ag_array_free(u);
  ag_array_free(out);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "the elementwise references agree with analytic values",
                  the_elementwise_references_agree_with_analytic_values);
    add_core_test(s, "the comparison helpers catch what they should", the_comparison_helpers_catch_what_they_should);
    return;
  }
  add_device_test(s, "neg, abs, square and sign match the reference", neg_abs_square_and_sign_match_the_reference);
  add_device_test(s, "sqrt, exp, log, sin and cos are within their ulp bounds",
                  sqrt_exp_log_sin_and_cos_are_within_their_ulp_bounds);
  add_device_test(s, "conj, real and imag take parts and copy reals", conj_real_and_imag_take_parts_and_copy_reals);
  add_device_test(s, "unary operations refuse dtypes they have no meaning for",
                  unary_operations_refuse_dtypes_they_have_no_meaning_for);
  add_device_test(s, "add, sub and mul match the reference", add_sub_and_mul_match_the_reference);
  add_device_test(s, "div truncates integers and rounds floats within the bound",
                  div_truncates_integers_and_rounds_floats_within_the_bound);
  add_device_test(s, "pow is within its ulp bound", pow_is_within_its_ulp_bound);
  add_device_test(s, "minimum and maximum match the reference", minimum_and_maximum_match_the_reference);
  add_device_test(s, "binary operations refuse dtypes they have no meaning for",
                  binary_operations_refuse_dtypes_they_have_no_meaning_for);
  add_device_test(s, "scalar forms match the reference", scalar_forms_match_the_reference);
  add_device_test(s, "complex scalars apply in either order", complex_scalars_apply_in_either_order);
  add_device_test(s, "ag_unary and ag_binary dispatch like the named functions",
                  ag_unary_and_ag_binary_dispatch_like_the_named_functions);
  add_device_test(s, "NaN and Inf propagate as in C", nan_and_inf_propagate_as_in_c);
  add_device_test(s, "mixed dtypes promote as the array API says", mixed_dtypes_promote_as_the_array_api_says);
  add_device_test(s, "integers wrap around and divide by zero to zero",
                  integers_wrap_around_and_divide_by_zero_to_zero);
  add_device_test(s, "axpby computes alpha x plus beta y", axpby_computes_alpha_x_plus_beta_y);
  add_device_test(s, "clamp limits to the range and keeps NaN", clamp_limits_to_the_range_and_keeps_nan);
  add_device_test(s, "where picks a where cond is nonzero", where_picks_a_where_cond_is_nonzero);
  add_device_test(s, "soft threshold shrinks toward zero", soft_threshold_shrinks_toward_zero);
  add_device_test(s, "a trailing-shape operand is broadcast over the rows",
                  a_trailing_shape_operand_is_broadcast_over_the_rows);
  add_device_test(s, "a shape that is not trailing is refused", a_shape_that_is_not_trailing_is_refused);
  add_device_test(s, "a shape mismatch names both shapes in full", a_shape_mismatch_names_both_shapes_in_full);
  add_device_test(s, "in-place operation gives the out-of-place result",
                  in_place_operation_gives_the_out_of_place_result);
  add_device_test(s, "operands of other shapes, dtypes or devices are refused",
                  operands_of_other_shapes_dtypes_or_devices_are_refused);
  add_device_test(s, "NULL operands are refused by name", null_operands_are_refused_by_name);
  add_device_test(s, "messages name the function called and its arguments",
                  messages_name_the_function_called_and_its_arguments);
  add_device_test(s, "operations on a created queue match the default queue",
                  operations_on_a_created_queue_match_the_default_queue);
  add_device_test(s, "empty arrays succeed doing nothing", empty_arrays_succeed_doing_nothing);
  add_device_test(s, "an array above 2^31 bytes is processed whole", an_array_above_2_31_bytes_is_processed_whole);
  add_device_test(s, "comparisons match the reference", comparisons_match_the_reference);
  add_device_test(s, "comparisons broadcast a trailing-shape operand either side",
                  comparisons_broadcast_a_trailing_shape_operand_either_side);
  add_device_test(s, "a NaN compares false but with ne", a_nan_compares_false_but_with_ne);
  add_device_test(s, "scalar comparisons are exact as numpy's", scalar_comparisons_are_exact_as_numpy_s);
  add_device_test(s, "scalar comparisons match the reference", scalar_comparisons_match_the_reference);
  add_device_test(s, "comparisons refuse what ops.h rules out", comparisons_refuse_what_ops_h_rules_out);
  add_device_test(s, "comparisons of empty arrays succeed doing nothing",
                  comparisons_of_empty_arrays_succeed_doing_nothing);
}
