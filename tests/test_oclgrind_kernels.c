/* tests/test_oclgrind_kernels.c — every kernel of the elementwise, reduce and sparse families,
   the arith and mathfn families' on one dtype of each kind, and the template-matching kernels
   of the template family,
   launched at small sizes inside Oclgrind's simulator through tests/oclgrind-run.py, which fails
   the run when Oclgrind reports a data race, an uninitialised value, an access outside a buffer
   or an API error. Every result is also compared with the host references (reference.c,
   sparse_cases.c; template matching with the host device's), so a kernel passes only when it
   is clean and right. (The fill kernel and the FFT helpers have suites of their own, which run
   under other options: test_oclgrind_fill, test_oclgrind_fft. The template family's
   cross-correlation kernels run around 2-D VkFFT transforms, which draw reports of their own
   here, docs/kernels.md#oclgrind, so they are not in any.)

   Oclgrind's device says it is a GPU with one compute unit, so the launches take the GPU shapes
   of src/launch.c, src/reduce.c and src/sparse.c; the sizes below are chosen to reach each
   shape's paths (docs/kernels.md#oclgrind lists them). tests/meson.build runs this suite with
   work-groups of at most 64 (oclgrind --max-wgsize 64), a fourth of what anygpu gives a GPU,
   since Oclgrind's time grows with every work-item, idle or not. Operands sit at an offset in
   their buffers (oclgrind_operand) and outputs are buffers of their exact size (the suite runs
   with the memory pool off), so a read or write past an operand is one Oclgrind sees. */
#include <math.h>
#include <stdlib.h>

#include "fft_reference.h"
#include "oclgrind.h"
#include "reduce_cases.h"
#include "sparse_cases.h"

static const ag_dtype all_dtypes[AG_DTYPE_COUNT] = {AG_U8,  AG_U16, AG_U32, AG_I32, AG_F32, AG_F64, AG_C64,
                                                     AG_C128, AG_BOOL, AG_I8, AG_I16, AG_I64, AG_U64};

/* Elementwise operands: 3 rows of 60, 180 elements: three work-groups of 64 (tests/meson.build
   runs this suite with oclgrind --max-wgsize 64), the last one ragged; broadcast operands are
   one row. */
enum { ROWS = 3, COLS = 60, N = ROWS * COLS };
static const size_t shape2[2] = {ROWS, COLS}, row = COLS;

/* Reads @p out (@p n elements of @p t) and fails the test unless it is within @p tol of @p want
   (relative to @p scale where given); @p what names the case. out is kept (oclgrind_keep). */
static void check_out(ag_array *out, ag_dtype t, const ref_c *want, const long double *scale, size_t n,
                      ref_tol tol, const char *what) {
  void *got = test_array_read(out);
  ref_check(t, got, want, scale, n, tol, "%s", what);
  free(got);
  oclgrind_keep(out);
}

/* ---- elementwise ------------------------------------------------------------------------------- */

/* What an operand holds: values where every operation is defined and its tolerance holds. */
typedef enum kind { ANY, POSITIVE, BASE, EXPONENT, WIDE } kind;

/* The range of kind @p k for dtype @p t: integers over the dtype's range (i32 without INT_MIN,
   which negation and division by -1 wrap onto itself); reals and complex parts in [-3, 3], in
   [0.1, 10] for POSITIVE (sqrt and log of reals), a base in [0.5, 4] and an exponent in [-3, 3]
   for pow, and [-300, 70000] for WIDE (astype: u8 and u16 saturate at both ends). */
static void range_of(ag_dtype t, kind k, double *lo, double *hi) {
  *lo = -3;
  *hi = 3;
  if (ref_is_integer(t)) {
    /* 64 bits: a range of 2^64, which ref_random takes as the whole range (minimum excluded). */
    unsigned bits = (unsigned)ref_size(t) * 8;
    *lo = ref_is_unsigned(t) ? 0 : -ldexp(1, (int)bits - 1) + (bits < 64);
    *hi = ldexp(1, (int)bits - !ref_is_unsigned(t)) - (bits < 64);
  } else if (k == POSITIVE) {
    *lo = 0.1;
    *hi = 10;
  } else if (k == BASE) {
    *lo = 0.5;
    *hi = 4;
  } else if (k == WIDE) {
    *lo = -300;
    *hi = 70000;
  }
}

/* @p n values of @p t in the range of kind @p k. */
static void *input(ag_dtype t, size_t n, uint64_t seed, kind k) {
  void *x = test_alloc(n * ref_size(t));
  double lo, hi;
  range_of(t, k, &lo, &hi);
  ref_random(t, x, n, seed, lo, hi);
  return x;
}

/* The scalar of the scalar forms: 7 for integers, 1.5 for reals, 1.25 + 0.5i for complex. */
static ref_c scalar_of(ag_dtype t) {
  return ref_is_integer(t) ? 7 : ref_is_complex(t) ? CMPLXL(1.25, 0.5) : 1.5;
}

START_TEST(unary_operations_match_the_reference_on_every_dtype) {
  ag_device *dev = oclgrind_device(_i);
  static const char *const names[] = {"neg", "abs",  "sqrt", "exp",  "log",  "sin",
                                      "cos", "square", "sign", "conj", "real", "imag"};
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (ag_unary_op op = AG_OP_NEG; op <= AG_OP_IMAG; op++) {
      if (!ref_unary_takes(op, t))
        continue;
      void *x = input(t, N, 100u * (unsigned)k + op, op == AG_OP_SQRT || op == AG_OP_LOG ? POSITIVE : ANY);
      ag_array *ax = oclgrind_operand(dev, t, 2, shape2, x);
      ag_dtype ot = ref_unary_out_dtype(op, t);
      ag_array *out = test_array_new(dev, ot, 2, shape2);
      ref_check_ok(ag_unary(NULL, op, ax, out), "ag_unary(%s) of %s", names[op], ref_name(t));
      ref_c *want = test_alloc(N * sizeof *want);
      ref_unary(op, t, x, N, want);
      char what[64];
      snprintf(what, sizeof what, "%s of %s", names[op], ref_name(t));
      check_out(out, ot, want, NULL, N, ref_tol_unary(op, t), what);
      free(want);
      free(x);
      oclgrind_keep(ax);
    }
  }
  oclgrind_free_kept();
}
END_TEST

/* The five forms of a binary operation (elementwise.h): equal shapes, b broadcast over a's rows
   (_bb), a broadcast over b's rows (_ba), x op s (_s) and s op x (_rs). */
typedef enum form { SAME, BCAST_B, BCAST_A, SCALAR, RSCALAR } form;
static const char *const form_names[] = {"", "_bb", "_ba", "_s", "_rs"};

/* a op b in form @p f: a and b are host copies of the operands (one element where it is the
   scalar, one row where it is broadcast), checked with ref_binary, which repeats the shorter. */
static void check_binary_form(ag_device *dev, ag_binary_op op, const char *name, ag_dtype t, form f, uint64_t seed) {
  bool pow = op == AG_OP_POW;
  size_t na = f == RSCALAR ? 1 : f == BCAST_A ? COLS : N, nb = f == SCALAR ? 1 : f == BCAST_B ? COLS : N;
  ref_c s = scalar_of(t);
  void *a = input(t, na, seed, pow ? BASE : ANY), *b = input(t, nb, seed + 1, pow ? EXPONENT : ANY);
  if (f == RSCALAR)
    ref_put(t, a, 0, s);
  if (f == SCALAR)
    ref_put(t, b, 0, s);
  ag_array *out = test_array_new(dev, t, 2, shape2), *aa = NULL, *ab = NULL;
  ag_status st;
  if (f == SCALAR || f == RSCALAR) {
    aa = oclgrind_operand(dev, t, 2, shape2, f == SCALAR ? a : b);
    st = ag_binary_scalar(NULL, op, aa, (double)creall(s), (double)cimagl(s), f == RSCALAR, out);
  } else {
    aa = oclgrind_operand(dev, t, na == N ? 2 : 1, na == N ? shape2 : &row, a);
    ab = oclgrind_operand(dev, t, nb == N ? 2 : 1, nb == N ? shape2 : &row, b);
    st = ag_binary(NULL, op, aa, ab, out);
  }
  char what[64];
  snprintf(what, sizeof what, "ag_%s%s of %s", name, form_names[f], ref_name(t));
  ref_check_ok(st, "%s", what);
  ref_c *want = test_alloc(N * sizeof *want);
  ref_binary(op, t, a, na, b, nb, N, want);
  check_out(out, t, want, NULL, N, ref_tol_binary(op, t), what);
  free(want);
  free(a);
  free(b);
  oclgrind_keep(aa);
  oclgrind_keep(ab);
}

START_TEST(binary_operations_match_the_reference_in_all_five_forms) {
  ag_device *dev = oclgrind_device(_i);
  static const char *const names[] = {"add", "sub", "mul", "div", "pow", "minimum", "maximum"};
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (ag_binary_op op = AG_OP_ADD; op <= AG_OP_MAXIMUM; op++)
      if (ref_binary_takes(op, t))
        for (form f = SAME; f <= RSCALAR; f++)
          check_binary_form(dev, op, names[op], t, f, 1000u * (unsigned)k + 10u * op + f);
  }
  oclgrind_free_kept();
}
END_TEST

/* The arith family's operations in all five forms on one dtype of each kind they take (i8's
   division runs through 32-bit magnitudes, u64 is the widest, f32 the float, bool the logic),
   and ag_bitwise_invert on i8 and bool. */
START_TEST(arith_operations_match_the_reference_in_all_five_forms) {
  ag_device *dev = oclgrind_device(_i);
  static const char *const names[] = {"floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
                                      "bitwise_left_shift", "bitwise_right_shift"};
  const ag_dtype dtypes[] = {AG_I8, AG_U64, AG_F32, AG_BOOL};
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    ag_dtype t = dtypes[k];
    for (ag_binary_op op = AG_OP_FLOOR_DIVIDE; op <= AG_OP_RIGHT_SHIFT; op++)
      if (ref_binary_takes(op, t))
        for (form f = SAME; f <= RSCALAR; f++)
          check_binary_form(dev, op, names[op - AG_OP_FLOOR_DIVIDE], t, f, 50000u + 1000u * k + 10u * op + f);
    if (!ref_unary_takes(AG_OP_BITWISE_INVERT, t) || t == AG_U64)
      continue;
    void *x = input(t, N, 60000u + k, ANY);
    ag_array *ax = oclgrind_operand(dev, t, 2, shape2, x), *out = test_array_new(dev, t, 2, shape2);
    ref_check_ok(ag_bitwise_invert(NULL, ax, out), "ag_bitwise_invert of %s", ref_name(t));
    ref_c *want = test_alloc(N * sizeof *want);
    ref_unary(AG_OP_BITWISE_INVERT, t, x, N, want);
    check_out(out, t, want, NULL, N, REF_EXACT, "bitwise_invert");
    free(want);
    free(x);
    oclgrind_keep(ax);
  }
  oclgrind_free_kept();
}
END_TEST

/* More elements than the launch has work-items (src/launch.c: at most 32 work-groups per
   compute unit), so each work-item's grid-stride loop takes a second step: in the plain loop
   (add) and in the broadcast one, which tracks the repeated operand's index (add_bb). */
START_TEST(a_grid_stride_loop_takes_further_steps_when_elements_outnumber_work_items) {
  ag_device *dev = oclgrind_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  size_t wg = info.max_work_group_size < 256 ? info.max_work_group_size : 256;
  size_t items = 32 * (size_t)info.compute_units * wg, rows = items / COLS + 2;
  const size_t big[2] = {rows, COLS}, n = rows * COLS;
  void *a = input(AG_F32, n, 1, ANY), *b = input(AG_F32, n, 2, ANY);
  ref_c *want = test_alloc(n * sizeof *want);
  for (int bcast = 0; bcast < 2; bcast++) {
    ag_array *aa = oclgrind_operand(dev, AG_F32, 2, big, a);
    ag_array *ab = bcast ? oclgrind_operand(dev, AG_F32, 1, &row, b) : oclgrind_operand(dev, AG_F32, 2, big, b);
    ag_array *out = test_array_new(dev, AG_F32, 2, big);
    ref_check_ok(ag_add(NULL, aa, ab, out), "ag_add%s of %zu f32", bcast ? "_bb" : "", n);
    ref_binary(AG_OP_ADD, AG_F32, a, n, b, bcast ? COLS : n, n, want);
    check_out(out, AG_F32, want, NULL, n, ref_tol_binary(AG_OP_ADD, AG_F32), bcast ? "add_bb" : "add");
    oclgrind_keep(aa);
    oclgrind_keep(ab);
  }
  free(want);
  free(a);
  free(b);
  oclgrind_free_kept();
}
END_TEST

/* axpby and soft threshold (floats and complex), clamp (reals), where and the comparisons
   (every dtype). Tolerances
   as in test_elementwise: axpby 2 ulp of |alpha x| + |beta y| (4e-7, 1e-15 leave room for the
   parts of complex numbers); soft threshold exact for reals, and for complex 8 ulp of |v|
   (hypot's error survives the cancellation in |v| - alpha); clamp and where select, so exact. */
START_TEST(axpby_soft_threshold_clamp_where_and_comparisons_match_the_reference) {
  ag_device *dev = oclgrind_device(_i);
  const double alpha = 1.5, beta = -0.25, shrink = 0.75;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    bool single = t == AG_F32 || t == AG_C64, cx = ref_is_complex(t);
    void *x = input(t, N, 7000u + (unsigned)k, ANY), *y = input(t, N, 7100u + (unsigned)k, ANY);
    ag_array *ax = oclgrind_operand(dev, t, 2, shape2, x), *ay = oclgrind_operand(dev, t, 2, shape2, y);
    ref_c *want = test_alloc(N * sizeof *want);
    long double *scale = test_alloc(N * sizeof *scale);
    char what[64];
    if (ref_is_float(t) || cx) {
      ag_array *out = test_array_new(dev, t, 2, shape2);
      ref_check_ok(ag_axpby(NULL, alpha, ax, beta, ay, out), "ag_axpby of %s", ref_name(t));
      ref_axpby(t, alpha, x, beta, y, N, want);
      for (size_t i = 0; i < N; i++)
        scale[i] = fabsl((long double)alpha) * cabsl(ref_get(t, x, i)) +
                   fabsl((long double)beta) * cabsl(ref_get(t, y, i));
      snprintf(what, sizeof what, "axpby of %s", ref_name(t));
      check_out(out, t, want, scale, N, single ? (ref_tol){4e-7, 0} : (ref_tol){1e-15, 0}, what);

      out = test_array_new(dev, t, 2, shape2);
      ref_check_ok(ag_soft_threshold(NULL, ax, shrink, out), "ag_soft_threshold of %s", ref_name(t));
      ref_soft_threshold(t, x, shrink, N, want);
      for (size_t i = 0; i < N; i++)
        scale[i] = cabsl(ref_get(t, x, i));
      snprintf(what, sizeof what, "soft threshold of %s", ref_name(t));
      ref_tol soft_tol = !cx ? REF_EXACT : single ? (ref_tol){1e-6, 0} : (ref_tol){2e-15, 0};
      check_out(out, t, want, cx ? scale : NULL, N, soft_tol, what);
    }
    if (ref_is_float(t) || ref_is_integer(t)) {
      /* Bounds a quarter and three quarters into the inputs' range, so both bite. */
      double lo, hi;
      range_of(t, ANY, &lo, &hi);
      double clo = floor(lo + (hi - lo) / 4), chi = floor(lo + (hi - lo) * 3 / 4);
      ag_array *out = test_array_new(dev, t, 2, shape2);
      ref_check_ok(ag_clamp(NULL, ax, clo, chi, out), "ag_clamp of %s", ref_name(t));
      ref_clamp(t, x, clo, chi, N, want);
      snprintf(what, sizeof what, "clamp of %s to [%g, %g]", ref_name(t), clo, chi);
      check_out(out, t, want, NULL, N, REF_EXACT, what);
    }
    unsigned char *cond = test_alloc(N);
    ref_lcg g = ref_lcg_seeded(7200u + (unsigned)k);
    static const unsigned char picks[4] = {0, 1, 255, 7}; /* any nonzero picks a */
    for (size_t i = 0; i < N; i++)
      cond[i] = picks[ref_lcg_next(&g) % 4];
    ag_array *ac = oclgrind_operand(dev, AG_U8, 2, shape2, cond), *out = test_array_new(dev, t, 2, shape2);
    ref_check_ok(ag_where(NULL, ac, ax, ay, out), "ag_where of %s", ref_name(t));
    ref_where(t, cond, x, y, N, want);
    snprintf(what, sizeof what, "where of %s", ref_name(t));
    check_out(out, t, want, NULL, N, REF_EXACT, what);
    oclgrind_keep(ac);
    /* Comparisons, one per kernel form: a < b (complex: a == b), a != row (b repeated) and
       x >= 2 (complex: x == 2), each a u8 mask. */
    ag_compare_op same = cx ? AG_CMP_EQ : AG_CMP_LT, scalar = cx ? AG_CMP_EQ : AG_CMP_GE;
    ag_array *arow = oclgrind_operand(dev, t, 1, &row, y);
    for (int f = 0; f < 3; f++) {
      out = test_array_new(dev, AG_U8, 2, shape2);
      ag_status st = f == 0   ? ag_compare(NULL, same, ax, ay, out)
                     : f == 1 ? ag_compare(NULL, AG_CMP_NE, ax, arow, out)
                              : ag_compare_scalar(NULL, scalar, ax, 2, 0, false, out);
      ref_check_ok(st, "comparison %d of %s", f, ref_name(t));
      if (f == 2)
        ref_comparison_scalar(scalar, t, x, N, 2, 0, false, cond);
      else
        ref_comparison(f == 0 ? same : AG_CMP_NE, t, x, N, y, f == 0 ? N : COLS, N, cond);
      for (size_t i = 0; i < N; i++)
        want[i] = cond[i];
      snprintf(what, sizeof what, "comparison %d of %s", f, ref_name(t));
      check_out(out, AG_U8, want, NULL, N, REF_EXACT, what);
    }
    oclgrind_keep(arow);
    free(cond);
    free(scale);
    free(want);
    free(x);
    free(y);
    oclgrind_keep(ax);
    oclgrind_keep(ay);
  }
  oclgrind_free_kept();
}
END_TEST

/* fftshift and ifftshift of a {2, 3, 4, 5} array over its last 1, 2 and 3 axes (odd and even
   lengths), every dtype: a permutation, so the bytes must be fftref_shift's exactly. */
START_TEST(fftshift_and_ifftshift_move_every_element_where_numpy_does) {
  ag_device *dev = oclgrind_device(_i);
  const size_t shape[4] = {2, 3, 4, 5}, n = 2 * 3 * 4 * 5;
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    ag_dtype t = all_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    size_t bytes = n * ref_size(t);
    unsigned char *x = test_alloc(bytes), *want = test_alloc(bytes);
    test_fill_bytes(x, bytes, 7300u + (unsigned)k); /* any bits: a permutation copies them */
    /* oclgrind_operand takes up to 3 dimensions: the leading 2 becomes part of the first. */
    const size_t flat[3] = {2 * 3, 4, 5};
    ag_array *ax = oclgrind_operand(dev, t, 3, flat, x), *x4;
    CHECK_OK(ag_array_reshape(ax, 4, shape, &x4));
    for (int rank = 1; rank <= 3; rank++)
      for (int inverse = 0; inverse < 2; inverse++) {
        ag_array *out = test_array_new(dev, t, 4, shape);
        ag_status st = inverse ? ag_ifftshift(NULL, x4, rank, out) : ag_fftshift(NULL, x4, rank, out);
        ref_check_ok(st, "%s of %s over %d axes", inverse ? "ag_ifftshift" : "ag_fftshift", ref_name(t), rank);
        fftref_shift(x, want, ref_size(t), 4, shape, rank, inverse);
        unsigned char *got = test_array_read(out);
        char what[64];
        snprintf(what, sizeof what, "%s of %s over %d axes", inverse ? "ifftshift" : "fftshift", ref_name(t), rank);
        CHECK_BYTES(got, want, bytes, what);
        free(got);
        oclgrind_keep(out);
      }
    oclgrind_keep(x4);
    oclgrind_keep(ax);
    free(x);
    free(want);
  }
  oclgrind_free_kept();
}
END_TEST

/* astype between every pair of dtypes the kernels convert (complex converts to complex and bool):
   reals in [-300, 70000], so conversions to u8 and u16 saturate at both ends; integers over
   their range. Conversions are exact or rounded once, so the comparison is exact. */
START_TEST(astype_converts_between_every_pair_of_dtypes) {
  ag_device *dev = oclgrind_device(_i);
  for (int a = 0; a < AG_DTYPE_COUNT; a++) {
    ag_dtype from = all_dtypes[a];
    if (!test_dtype_runs(dev, from))
      continue;
    void *x = input(from, N, 7400u + (unsigned)a, WIDE);
    ag_array *ax = oclgrind_operand(dev, from, 2, shape2, x);
    for (int b = 0; b < AG_DTYPE_COUNT; b++) {
      ag_dtype to = all_dtypes[b];
      if (!test_dtype_runs(dev, to) || (ref_is_complex(from) && !ref_is_complex(to) && !ref_is_bool(to)))
        continue;
      ag_array *out = test_array_new(dev, to, 2, shape2);
      ref_check_ok(ag_astype(NULL, ax, out), "ag_astype from %s to %s", ref_name(from), ref_name(to));
      unsigned char *want_bytes = test_alloc(N * ref_size(to));
      ref_c *want = test_alloc(N * sizeof *want);
      for (size_t i = 0; i < N; i++) {
        ref_convert(from, x, i, to, want_bytes, i);
        want[i] = ref_get(to, want_bytes, i);
      }
      char what[64];
      snprintf(what, sizeof what, "astype from %s to %s", ref_name(from), ref_name(to));
      check_out(out, to, want, NULL, N, REF_EXACT, what);
      free(want);
      free(want_bytes);
    }
    oclgrind_keep(ax);
    free(x);
  }
  oclgrind_free_kept();
}
END_TEST

/* ---- reduce --------------------------------------------------------------------------------------- */

/* A shape reduced along one axis (or all of it, AG_AXIS_ALL). */
typedef struct red_shape {
  int ndim;
  size_t shape[3];
  int axis;
} red_shape;

/* Which reductions run: one per kernel (every reduction into each output dtype that has a
   kernel of its own: not mean, whose kernels are sum's, nor i32 indices, which the u32 kernels
   of argmin and argmax write), or every reduction into its natural output dtype. */
typedef enum which { EVERY_KERNEL, NATURAL_OUTPUTS } which;

/* The reductions @p w selects, on every dtype, over @p shape; the arrays are kept. */
static void check_reductions(ag_device *dev, const red_shape *shape, which w, uint64_t seed) {
  for (int r = 0; r < NRED; r++) {
    if (w == EVERY_KERNEL && reductions[r].r == REF_MEAN)
      continue;
    for (int k = 0; k < AG_DTYPE_COUNT; k++) {
      ag_dtype t = all_dtypes[k], outs[4];
      if (!test_dtype_runs(dev, t))
        continue;
      int nouts = allowed_outputs(reductions[r].r, t, outs);
      for (int o = 0; o < (w == NATURAL_OUTPUTS && nouts > 0 ? 1 : nouts); o++) {
        if (w == EVERY_KERNEL && outs[o] == AG_I32 && t != AG_I32)
          continue;
        ag_array *arrays[3];
        check_reduction(dev, &reductions[r], t, outs[o], shape->ndim, shape->shape, shape->axis,
                        seed + 100u * (unsigned)r + 10u * (unsigned)k + (unsigned)o, arrays);
        for (int a = 0; a < 3; a++)
          oclgrind_keep(arrays[a]);
      }
    }
  }
}

/* Each output cut into pieces whose states _merge combines: along axis 0 of {300, 3}, one
   work-item per piece of 75 (_cols, four pieces per output); along axis 1 of {1, 2100}, a row
   long enough for a work-group of 256 per piece (_rows, two pieces), whose states meet in a
   tree in local memory. */
START_TEST(every_reduction_kernel_cuts_columns_and_rows_into_pieces_and_merges_them) {
  ag_device *dev = oclgrind_device(_i);
  const red_shape columns = {2, {300, 3}, 0}, rows = {2, {1, 2100}, 1};
  check_reductions(dev, &columns, EVERY_KERNEL, 8000);
  check_reductions(dev, &rows, EVERY_KERNEL, 9000);
  oclgrind_free_kept();
}
END_TEST

/* Outputs of one piece, written by _cols or _rows directly: all of 100 elements (too few to
   cut) and a row of 1030 (long enough for _rows, too short for two pieces). */
START_TEST(reductions_of_one_piece_write_their_outputs_directly) {
  ag_device *dev = oclgrind_device(_i);
  const red_shape few = {1, {100}, AG_AXIS_ALL}, short_row = {2, {1, 1030}, 1};
  check_reductions(dev, &few, NATURAL_OUTPUTS, 10000);
  check_reductions(dev, &short_row, NATURAL_OUTPUTS, 11000);
  oclgrind_free_kept();
}
END_TEST

/* _cols pieces with whole blocks of 256 (reduce.h's block functions) and a tail: the device
   wants 2048 work-items, so along axis 0 of {888, 683} each of 683 outputs is cut into three
   pieces of 296 (a block and 40 more), which _merge combines. Half a million elements take
   10 to 60 seconds per launch inside Oclgrind, so three reductions stand for the block
   functions: 64-bit integer lanes (i32 sum), float lanes with a Kahan total over products of
   two operands (f32 dot) and complex lanes (c64 sum). */
START_TEST(reductions_in_pieces_with_whole_blocks_match_the_reference) {
  ag_device *dev = oclgrind_device(_i);
  const size_t shape[2] = {888, 683};
  const struct {
    ref_reduction r;
    ag_dtype t;
  } cases[] = {{REF_SUM, AG_I32}, {REF_DOT, AG_F32}, {REF_SUM, AG_C64}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    ag_dtype outs[4];
    allowed_outputs(cases[c].r, cases[c].t, outs);
    ag_array *arrays[3];
    check_reduction(dev, &reductions[cases[c].r], cases[c].t, outs[0], 2, shape, 0, 12000u + c, arrays);
    for (int a = 0; a < 3; a++)
      oclgrind_keep(arrays[a]);
  }
  oclgrind_free_kept();
}
END_TEST

/* ---- sparse ---------------------------------------------------------------------------------------- */

/* op(A) X for X of @p batch vectors (ag_spmv for batch 0), compared with the reference; the
   arrays are kept. */
static void check_sparse(ag_device *dev, ag_csr *m, const sp_host *h, ag_transpose op, size_t batch, uint64_t seed) {
  bool trans = op != AG_NO_TRANS;
  size_t b = batch > 0 ? batch : 1, in = sp_in_len(h, trans), out = sp_out_len(h, trans);
  const size_t xs[2] = {in, b}, ys[2] = {out, b};
  int nd = batch > 0 ? 2 : 1;
  void *x = input(h->t, in * b, seed, ANY);
  ag_array *ax = oclgrind_operand(dev, h->t, nd, xs, x), *ay = test_array_new(dev, h->t, nd, ys);
  ag_status st = batch > 0 ? ag_spmm(NULL, op, m, ax, ay) : ag_spmv(NULL, op, m, ax, ay);
  ref_check_ok(st, "%s of %s, op %d", batch > 0 ? "ag_spmm" : "ag_spmv", ref_name(h->t), (int)op);
  ref_c *want = test_alloc(out * b * sizeof *want);
  long double *scale = test_alloc(out * b * sizeof *scale);
  sp_product(h, trans, x, b, want, scale);
  char what[64];
  snprintf(what, sizeof what, "%s of %s, op %d", batch > 0 ? "spmm" : "spmv", ref_name(h->t), (int)op);
  check_out(ay, h->t, want, scale, out * b, sp_tol(h->t), what);
  free(scale);
  free(want);
  free(x);
  oclgrind_keep(ax);
}

/* The sparse family, f32 and f64: A x with 8 rows of 40 to 90 entries, at least 32 on average
   (a work-group per row, ag_csr_spmv_<t>_rows, whose items stride through the row and merge
   their sums in local memory; empty rows and rows of one entry among them), A^T x through the
   transpose's 60 short rows (an item per row, ag_csr_spmv_<t>), and batches of 3 both ways
   (ag_csr_spmm_<t>). The matrices' buffers are written whole, once (ag_csr_create), and kept
   until the end, as the arrays are. */
START_TEST(sparse_products_match_the_reference_in_every_kernel) {
  ag_device *dev = oclgrind_device(_i);
  const sp_kind rows = {.rows = 8, .cols = 60, .min_len = 40, .max_len = 90};
  ag_csr *kept[2] = {NULL, NULL};
  const ag_dtype dtypes[2] = {AG_F32, AG_F64};
  for (int k = 0; k < 2; k++) {
    if (!test_dtype_runs(dev, dtypes[k]))
      continue;
    sp_host h = sp_random(dtypes[k], &rows, 13000u + 4u * (unsigned)k);
    ck_assert_msg(h.nnz >= 32 * h.rows, "%s: %zu values in %zu rows are too few for the work-group kernel",
                  test_label(), h.nnz, h.rows);
    ag_csr *m = kept[k] = sp_device(dev, &h);
    check_sparse(dev, m, &h, AG_NO_TRANS, 0, 13100);
    check_sparse(dev, m, &h, AG_TRANS, 0, 13200);
    check_sparse(dev, m, &h, AG_NO_TRANS, 3, 13300);
    check_sparse(dev, m, &h, AG_TRANS, 3, 13400);
    sp_free(&h);
  }
  oclgrind_free_kept();
  ag_csr_destroy(kept[0]);
  ag_csr_destroy(kept[1]);
}
END_TEST

/* ---- template matching ------------------------------------------------------------------------ */

enum { TM_TEMPLATES = 12, TM_THETA = 36, TM_R = 10, TM_FRAMES = 2, TM_BEST = 3 };

/* Matches @p polar_host ([TM_FRAMES, TM_THETA, TM_R] of dtype t) on @p dev with @p lib_dev's
   templates; the four outputs read back into @p out (index, sign as i32; correlation and angle
   as dtype t, each TM_FRAMES x TM_BEST). */
static void template_match_on(ag_device *dev, const ag_template_library *lib, ag_dtype t, const void *polar_host,
                              const ag_template_library_match_options *o, void *out[4]) {
  const size_t ps[3] = {TM_FRAMES, TM_THETA, TM_R}, os[2] = {TM_FRAMES, TM_BEST};
  ag_array *polar = oclgrind_operand(dev, t, 3, ps, polar_host);
  ag_array *a[4] = {test_array_new(dev, AG_I32, 2, os), test_array_new(dev, t, 2, os), test_array_new(dev, t, 2, os),
                    test_array_new(dev, AG_I32, 2, os)};
  CHECK_OK(ag_template_library_match(NULL, lib, polar, o, a[0], a[1], a[2], a[3]));
  for (int k = 0; k < 4; k++) {
    out[k] = test_array_read(a[k]);
    oclgrind_keep(a[k]);
  }
  oclgrind_keep(polar);
}

/* The four kernels of ag_template_library_match in dtype @p t, with the prefilter (5 of 12 templates
   kept: ag_tm_prefilter, ag_tm_keep) and both normalisations, against the host device's
   results: the same templates, angles and signs, the correlations (of frames of [0.1, 10]
   divided by their norms: values below 1) within 1e-5 (f32) and 1e-12 (f64), room for the
   two compilers' orders of operations. One dtype per test: a match frees its scratch arrays,
   whose buffers' numbers, and Oclgrind's stale records of them, the next match's would take
   (docs/kernels.md#oclgrind). */
static void check_template_matching(int i, ag_dtype t) {
  ag_device *dev = oclgrind_device(i), *host;
  CHECK_OK(ag_device_select("host", &host));
  size_t offsets[TM_TEMPLATES + 1];
  uint32_t r[TM_TEMPLATES * 6], th[TM_TEMPLATES * 6];
  float in[TM_TEMPLATES * 6];
  uint64_t seed = 77;
  for (size_t tp = 0, k = 0; tp <= TM_TEMPLATES; tp++) {
    offsets[tp] = k;
    for (size_t j = 0; tp < TM_TEMPLATES && j < 2 + tp % 5; j++, k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      r[k] = 1 + (uint32_t)(seed >> 33) % (TM_R - 1);
      th[k] = (uint32_t)(seed >> 40) % TM_THETA;
      in[k] = (float)((seed >> 11) % 1000) / 1000.0f + 0.1f;
    }
  }
  ag_template_library *lib, *lib_host;
  CHECK_OK(ag_template_library_create(dev, TM_TEMPLATES, offsets, r, th, in, TM_THETA, TM_R, &lib));
  CHECK_OK(ag_template_library_create(host, TM_TEMPLATES, offsets, r, th, in, TM_THETA, TM_R, &lib_host));
  ag_template_library_match_options o = {
      .n_keep = 5, .n_best = TM_BEST, .normalize_image = true, .normalize_templates = true};
  void *polar = input(t, TM_FRAMES * TM_THETA * TM_R, 78, POSITIVE);
  void *got[4], *want[4];
  template_match_on(dev, lib, t, polar, &o, got);
  template_match_on(host, lib_host, t, polar, &o, want);
  for (size_t k = 0; k < TM_FRAMES * TM_BEST; k++) {
    double gc = t == AG_F32 ? ((float *)got[1])[k] : ((double *)got[1])[k];
    double wc = t == AG_F32 ? ((float *)want[1])[k] : ((double *)want[1])[k];
    double ga = t == AG_F32 ? ((float *)got[2])[k] : ((double *)got[2])[k];
    double wa = t == AG_F32 ? ((float *)want[2])[k] : ((double *)want[2])[k];
    ck_assert_msg(((int32_t *)got[0])[k] == ((int32_t *)want[0])[k] && ((int32_t *)got[3])[k] == ((int32_t *)want[3])[k] &&
                      ga == wa && fabs(gc - wc) <= (t == AG_F32 ? 1e-5 : 1e-12),
                  "%s: %s hit %zu: template %d sign %d angle %g correlation %.9g; the host: %d %d %g %.9g",
                  test_label(), ag_dtype_name(t), k, ((int32_t *)got[0])[k], ((int32_t *)got[3])[k], ga, gc,
                  ((int32_t *)want[0])[k], ((int32_t *)want[3])[k], wa, wc);
  }
  for (int k = 0; k < 4; k++) {
    free(got[k]);
    free(want[k]);
  }
  free(polar);
  oclgrind_free_kept();
  ag_template_library_destroy(lib);
  ag_template_library_destroy(lib_host);
}

START_TEST(template_matching_in_f32_agrees_with_the_host_device) {
  check_template_matching(_i, AG_F32);
}
END_TEST

START_TEST(template_matching_in_f64_agrees_with_the_host_device) {
  check_template_matching(_i, AG_F64);
}
END_TEST

/* The mathfn family's functions of one argument on f32, c64 and i8 (each where it takes the
   dtype: the tests write bool), and its four of two in all five forms on f32. Arguments in
   [-3, 3]: outside a function's domain, NaN, which the reference gives too. */
START_TEST(mathfn_functions_match_the_reference) {
  ag_device *dev = oclgrind_device(_i);
  const ag_dtype dtypes[] = {AG_F32, AG_C64, AG_I8};
  for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
    ag_dtype t = dtypes[k];
    for (ag_unary_op op = AG_OP_TAN; op <= AG_OP_SIGNBIT; op++) {
      if (!ref_unary_takes(op, t))
        continue;
      void *x = input(t, N, 70000u + 100u * k + op, ANY);
      ag_array *ax = oclgrind_operand(dev, t, 2, shape2, x);
      ag_dtype ot = ref_unary_out_dtype(op, t);
      ag_array *out = test_array_new(dev, ot, 2, shape2);
      ref_check_ok(ag_unary(NULL, op, ax, out), "ag_unary(%d) of %s", (int)op, ref_name(t));
      ref_c *want = test_alloc(N * sizeof *want);
      ref_unary(op, t, x, N, want);
      char what[64];
      snprintf(what, sizeof what, "mathfn op %d of %s", (int)op, ref_name(t));
      check_out(out, ot, want, NULL, N, ref_tol_unary(op, t), what);
      free(want);
      free(x);
      oclgrind_keep(ax);
    }
  }
  static const char *const names[] = {"atan2", "hypot", "copysign", "logaddexp"};
  for (ag_binary_op op = AG_OP_ATAN2; op <= AG_OP_LOGADDEXP; op++)
    for (form f = SAME; f <= RSCALAR; f++)
      check_binary_form(dev, op, names[op - AG_OP_ATAN2], AG_F32, f, 80000u + 10u * op + f);
  oclgrind_free_kept();
}
END_TEST

/* The create family: arange in f32 and i64, linspace in c64, eye in u8 and tril of a batch of
   f32 matrices, each into 180 elements (three work-groups of 64, the last ragged), against
   the values they must hold. */
START_TEST(create_kernels_fill_their_outputs) {
  ag_device *dev = oclgrind_device(_i);
  ag_array *f = test_array_new(dev, AG_F32, 2, shape2), *l = test_array_new(dev, AG_I64, 2, shape2);
  ag_array *c = test_array_new(dev, AG_C64, 2, shape2), *u = test_array_new(dev, AG_U8, 2, shape2);
  CHECK_OK(ag_arange(NULL, -4, 0.5, f));
  CHECK_OK(ag_arange(NULL, 1000, -3, l));
  CHECK_OK(ag_linspace(NULL, 1, -1, 2, 3, true, c));
  CHECK_OK(ag_eye(NULL, 2, u));
  ref_c *want = test_alloc(N * sizeof *want);
  for (size_t i = 0; i < N; i++)
    want[i] = -4 + 0.5L * i;
  check_out(f, AG_F32, want, NULL, N, REF_EXACT, "arange in f32");
  for (size_t i = 0; i < N; i++)
    want[i] = 1000 - 3.0L * i;
  check_out(l, AG_I64, want, NULL, N, REF_EXACT, "arange in i64");
  for (size_t i = 0; i < N; i++)
    want[i] = CMPLXL(1, -1) + (long double)i * CMPLXL(1, 4) / (N - 1);
  check_out(c, AG_C64, want, NULL, N, (ref_tol){1e-6, 1e-6}, "linspace in c64");
  for (size_t i = 0; i < N; i++)
    want[i] = (int64_t)(i % COLS) - (int64_t)(i / COLS) == 2;
  check_out(u, AG_U8, want, NULL, N, REF_EXACT, "eye in u8");
  /* tril of three 6 x 10 matrices (f holds the arange above). */
  const size_t batch[3] = {ROWS, 6, 10};
  ag_array *fb = NULL, *t = test_array_new(dev, AG_F32, 3, batch);
  CHECK_OK(ag_array_reshape(f, 3, batch, &fb));
  CHECK_OK(ag_tril(NULL, fb, -1, t));
  for (size_t i = 0; i < N; i++)
    want[i] = (int64_t)(i % 10) - (int64_t)(i / 10 % 6) <= -1 ? -4 + 0.5L * i : 0;
  check_out(t, AG_F32, want, NULL, N, REF_EXACT, "tril in f32");
  free(want);
  oclgrind_keep(fb);
  oclgrind_free_kept();
}
END_TEST

/* The scan family: a cumulative sum of 180 f32 values (cut into two pieces: every pass runs)
   and of a c64 matrix down its columns (one piece: the last pass alone), against sequential
   sums. */
START_TEST(scan_kernels_sum_cumulatively) {
  ag_device *dev = oclgrind_device(_i);
  const ag_dtype dtypes[] = {AG_F32, AG_C64};
  for (int k = 0; k < 2; k++) {
    ag_dtype t = dtypes[k];
    void *x = input(t, N, 90000u + (unsigned)k, ANY);
    ag_array *ax = k == 0 ? oclgrind_operand(dev, t, 1, &(size_t){N}, x) : oclgrind_operand(dev, t, 2, shape2, x);
    ag_array *out = k == 0 ? test_array_new(dev, t, 1, &(size_t){N}) : test_array_new(dev, t, 2, shape2);
    CHECK_OK(ag_cumulative_sum(NULL, ax, 0, out));
    ref_c *want = test_alloc(N * sizeof *want);
    size_t cols = k == 0 ? 1 : COLS;
    for (size_t j = 0; j < cols; j++) {
      ref_c s = 0;
      for (size_t i = j; i < N; i += cols)
        want[i] = s += ref_get(t, x, i);
    }
    check_out(out, t, want, NULL, N, (ref_tol){1e-5, 1e-5}, k == 0 ? "cumulative sum of f32" : "cumulative sum of c64");
    free(want);
    free(x);
    oclgrind_keep(ax);
  }
  oclgrind_free_kept();
}
END_TEST

/* The sort family: f32 sorted and i8 argsorted (descending) along rows of 60 (radix passes: a
   row a piece) and along columns of 3 (short rows, a work-item each), against qsort's order
   with ties broken by index (a stable sort's). One call a test: a sort releases its scratch
   buffers as it ends, and Oclgrind gives a released buffer's record to the next one made
   (docs/kernels.md#oclgrind). */
static const void *sort_x;
static ag_dtype sort_t;
static int sort_cmp(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  long double x = creall(ref_get(sort_t, sort_x, i)), y = creall(ref_get(sort_t, sort_x, j));
  if (sort_t == AG_I8) /* descending */
    return x > y ? -1 : x < y ? 1 : (i > j) - (i < j);
  return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

static void check_sort(int i, ag_dtype t, int axis) {
  ag_device *dev = oclgrind_device(i);
  void *x = input(t, N, 95000u + (unsigned)t, ANY);
  for (size_t e = 0; e < N; e += 4) /* ties */
    ref_put(t, x, e, 1);
  ag_array *ax = oclgrind_operand(dev, t, 2, shape2, x);
  bool arg = t == AG_I8;
  ag_array *out = test_array_new(dev, arg ? AG_I64 : t, 2, shape2);
  CHECK_OK(arg ? ag_argsort(NULL, ax, axis, true, out) : ag_sort(NULL, ax, axis, false, out));
  size_t len = axis == 0 ? ROWS : COLS, rows = N / len, step = axis == 0 ? COLS : 1;
  ref_c *want = test_alloc(N * sizeof *want);
  size_t *idx = test_alloc(len * sizeof *idx);
  sort_x = x;
  sort_t = t;
  for (size_t r = 0; r < rows; r++) {
    size_t first = axis == 0 ? r : r * COLS;
    for (size_t e = 0; e < len; e++)
      idx[e] = first + e * step;
    qsort(idx, len, sizeof *idx, sort_cmp);
    for (size_t e = 0; e < len; e++)
      want[first + e * step] = arg ? (long double)((idx[e] - first) / step) : ref_get(t, x, idx[e]);
  }
  check_out(out, arg ? AG_I64 : t, want, NULL, N, REF_EXACT, arg ? "argsort of i8" : "sort of f32");
  TEST_FREE(want, idx, x);
  oclgrind_keep(ax);
  oclgrind_free_kept();
}

START_TEST(sort_kernels_order_rows_stably) {
  check_sort(_i, AG_F32, 1);
}
END_TEST

START_TEST(sort_kernels_order_short_columns_stably) {
  check_sort(_i, AG_F32, 0);
}
END_TEST

START_TEST(argsort_kernels_order_rows_stably) {
  check_sort(_i, AG_I8, 1);
}
END_TEST

START_TEST(argsort_kernels_order_short_columns_stably) {
  check_sort(_i, AG_I8, 0);
}
END_TEST

/* The select family, a test per call as the sorts: take of f32 columns (indices negative
   too), searchsorted of i32 both sides, a c64 mask selection, and unique of i16 with every
   output, against the values they must hold. unique runs apart (OCLGRIND_UNIQUE), without
   the uninitialised-value check: it makes arrays after its argsort has released scratch
   buffers, whose records Oclgrind hands on (docs/kernels.md#oclgrind). */
START_TEST(take_kernel_gathers_columns) {
  ag_device *dev = oclgrind_device(_i);
  void *x = input(AG_F32, N, 96000u, ANY);
  ag_array *ax = oclgrind_operand(dev, AG_F32, 2, shape2, x);
  const int64_t idx[4] = {59, -60, 7, -1};
  ag_array *ai = oclgrind_operand(dev, AG_I64, 1, (const size_t[]){4}, idx);
  ag_array *out = test_array_new(dev, AG_F32, 2, (const size_t[]){ROWS, 4});
  CHECK_OK(ag_take(NULL, ax, ai, 1, out));
  ref_c want[ROWS * 4];
  for (size_t r = 0; r < ROWS; r++)
    for (size_t k = 0; k < 4; k++)
      want[r * 4 + k] = ref_get(AG_F32, x, r * COLS + (size_t)(idx[k] < 0 ? idx[k] + COLS : idx[k]));
  check_out(out, AG_F32, want, NULL, ROWS * 4, REF_EXACT, "take of f32 columns");
  free(x);
  oclgrind_keep(ax);
  oclgrind_keep(ai);
  oclgrind_free_kept();
}
END_TEST

START_TEST(searchsorted_kernel_finds_both_sides) {
  ag_device *dev = oclgrind_device(_i);
  int32_t sorted[64], v[N];
  for (int i = 0; i < 64; i++)
    sorted[i] = i / 2 * 3; /* pairs of equal values */
  for (size_t i = 0; i < N; i++)
    v[i] = (int32_t)(i % 100) - 3;
  ag_array *a1 = oclgrind_operand(dev, AG_I32, 1, (const size_t[]){64}, sorted);
  ag_array *a2 = oclgrind_operand(dev, AG_I32, 2, shape2, v);
  for (int right = 0; right < 2; right++) {
    ag_array *out = test_array_new(dev, AG_I64, 2, shape2);
    CHECK_OK(ag_searchsorted(NULL, a1, a2, right, out));
    ref_c *want = test_alloc(N * sizeof *want);
    for (size_t i = 0; i < N; i++) {
      size_t c = 0;
      for (int k = 0; k < 64; k++)
        c += right ? sorted[k] <= v[i] : sorted[k] < v[i];
      want[i] = (long double)c;
    }
    check_out(out, AG_I64, want, NULL, N, REF_EXACT, right ? "searchsorted, right" : "searchsorted, left");
    free(want);
  }
  oclgrind_keep(a1);
  oclgrind_keep(a2);
  oclgrind_free_kept();
}
END_TEST

START_TEST(mask_select_kernels_keep_what_is_true) {
  ag_device *dev = oclgrind_device(_i);
  void *x = input(AG_C64, N, 97000u, ANY);
  unsigned char mask[N];
  size_t count = 0;
  for (size_t i = 0; i < N; i++)
    count += mask[i] = i % 3 != 1;
  ag_array *ax = oclgrind_operand(dev, AG_C64, 2, shape2, x), *am = oclgrind_operand(dev, AG_BOOL, 2, shape2, mask);
  ag_array *out = NULL;
  CHECK_OK(ag_mask_select(NULL, ax, am, &out));
  ck_assert_uint_eq(ag_array_shape(out)[0], count);
  ref_c *want = test_alloc(N * sizeof *want);
  for (size_t i = 0, c = 0; i < N; i++)
    if (mask[i])
      want[c++] = ref_get(AG_C64, x, i);
  check_out(out, AG_C64, want, NULL, count, REF_EXACT, "mask selection of c64");
  TEST_FREE(want, x);
  oclgrind_keep(ax);
  oclgrind_keep(am);
  oclgrind_free_kept();
}
END_TEST

START_TEST(unique_kernels_find_runs) {
  ag_device *dev = oclgrind_device(_i);
  int16_t x[N];
  for (size_t i = 0; i < N; i++)
    x[i] = (int16_t)((i * 37) % 11) - 5;
  ag_array *ax = oclgrind_operand(dev, AG_I16, 2, shape2, x), *v = NULL, *first = NULL, *inv = NULL, *cnt = NULL;
  CHECK_OK(ag_unique(NULL, ax, &v, &first, &inv, &cnt));
  ck_assert_uint_eq(ag_array_shape(v)[0], 11);
  ref_c wv[11], wf[11], wc[11], *wi = test_alloc(N * sizeof *wi);
  for (int u = 0; u < 11; u++) {
    wv[u] = u - 5;
    wc[u] = 0;
    wf[u] = -1;
  }
  for (size_t i = 0; i < N; i++) {
    int u = x[i] + 5;
    if (creall(wf[u]) < 0)
      wf[u] = (long double)i;
    wc[u] += 1;
    wi[i] = u;
  }
  check_out(v, AG_I16, wv, NULL, 11, REF_EXACT, "unique's values");
  check_out(first, AG_I64, wf, NULL, 11, REF_EXACT, "unique's first indices");
  check_out(inv, AG_I64, wi, NULL, N, REF_EXACT, "unique's inverse");
  check_out(cnt, AG_I64, wc, NULL, 11, REF_EXACT, "unique's counts");
  free(wi);
  oclgrind_keep(ax);
  oclgrind_free_kept();
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
#ifdef OCLGRIND_UNIQUE
  /* The oclgrind unique run (tests/meson.build): this test alone. */
  add_device_test(s, "unique kernels find runs", unique_kernels_find_runs);
  return;
#else
  (void)unique_kernels_find_runs; /* the unique run's alone */
#endif
  add_device_test(s, "create kernels fill their outputs", create_kernels_fill_their_outputs);
  add_device_test(s, "scan kernels sum cumulatively", scan_kernels_sum_cumulatively);
  add_device_test(s, "sort kernels order rows stably", sort_kernels_order_rows_stably);
  add_device_test(s, "sort kernels order short columns stably", sort_kernels_order_short_columns_stably);
  add_device_test(s, "argsort kernels order rows stably", argsort_kernels_order_rows_stably);
  add_device_test(s, "argsort kernels order short columns stably", argsort_kernels_order_short_columns_stably);
  add_device_test(s, "take kernel gathers columns", take_kernel_gathers_columns);
  add_device_test(s, "searchsorted kernel finds both sides", searchsorted_kernel_finds_both_sides);
  add_device_test(s, "mask select kernels keep what is true", mask_select_kernels_keep_what_is_true);
  add_device_test(s, "mathfn functions match the reference", mathfn_functions_match_the_reference);
  add_device_test(s, "unary operations match the reference on every dtype",
                  unary_operations_match_the_reference_on_every_dtype);
  add_device_test(s, "binary operations match the reference in all five forms",
                  binary_operations_match_the_reference_in_all_five_forms);
  add_device_test(s, "arith operations match the reference in all five forms",
                  arith_operations_match_the_reference_in_all_five_forms);
  add_device_test(s, "a grid-stride loop takes further steps when elements outnumber work-items",
                  a_grid_stride_loop_takes_further_steps_when_elements_outnumber_work_items);
  add_device_test(s, "axpby, soft threshold, clamp, where and comparisons match the reference",
                  axpby_soft_threshold_clamp_where_and_comparisons_match_the_reference);
  add_device_test(s, "fftshift and ifftshift move every element where numpy does",
                  fftshift_and_ifftshift_move_every_element_where_numpy_does);
  add_device_test(s, "astype converts between every pair of dtypes", astype_converts_between_every_pair_of_dtypes);
  add_device_test(s, "every reduction kernel cuts columns and rows into pieces and merges them",
                  every_reduction_kernel_cuts_columns_and_rows_into_pieces_and_merges_them);
  add_device_test(s, "reductions of one piece write their outputs directly",
                  reductions_of_one_piece_write_their_outputs_directly);
  add_device_test(s, "reductions in pieces with whole blocks match the reference",
                  reductions_in_pieces_with_whole_blocks_match_the_reference);
  add_device_test(s, "sparse products match the reference in every kernel",
                  sparse_products_match_the_reference_in_every_kernel);
  add_device_test(s, "template matching in f32 agrees with the host device",
                  template_matching_in_f32_agrees_with_the_host_device);
  add_device_test(s, "template matching in f64 agrees with the host device",
                  template_matching_in_f64_agrees_with_the_host_device);
}
