/* tests/test_fp64.c — devices without double precision (rusticl, many GPUs). Every operation
   that computes in f64 or c128 is refused there before any work, with AG_ERR_UNSUPPORTED
   naming the function and the device, and leaves its operands as they were; moving f64 data
   (create, write, read, copy, fill, views) needs no arithmetic and works everywhere. On a
   device with double precision the same calls succeed (their values are checked by the
   operation suites). */
#include <stdlib.h>

#include "reference.h"

enum { N = 4, H = N / 2 + 1 };

/* Operands of every shape the calls below need, all filled with 9 (a valid input to every
   operation, so a device with double precision runs each call without error). */
typedef struct operands {
  ag_array *d[3];    /* f64 {N} */
  ag_array *z[3];    /* c128 {N} */
  ag_array *dm[3];   /* f64 {N, N} */
  ag_array *zm[3];   /* c128 {N, N} */
  ag_array *d1, *z1; /* f64 {1}, c128 {1} */
  ag_array *zh;      /* c128 {H}: the half spectrum of a {N} f64 */
  ag_array *f;       /* f32 {N} */
  ag_array *i32;     /* i32 {N} */
  ag_array *u32;     /* u32 {1} */
  ag_array *cond;    /* u8 {N} */
} operands;

static ag_array *make(ag_device *dev, ag_dtype t, int ndim, const size_t *shape) {
  ag_array *a = test_array_new(dev, t, ndim, shape);
  CHECK_OK(ag_fill(NULL, a, 9));
  return a;
}

static void operands_make(ag_device *dev, operands *o) {
  size_t n[] = {N}, nn[] = {N, N}, one[] = {1}, h[] = {H};
  for (int i = 0; i < 3; i++) {
    o->d[i] = make(dev, AG_F64, 1, n);
    o->z[i] = make(dev, AG_C128, 1, n);
    o->dm[i] = make(dev, AG_F64, 2, nn);
    o->zm[i] = make(dev, AG_C128, 2, nn);
  }
  o->d1 = make(dev, AG_F64, 1, one);
  o->z1 = make(dev, AG_C128, 1, one);
  o->zh = make(dev, AG_C128, 1, h);
  o->f = make(dev, AG_F32, 1, n);
  o->i32 = make(dev, AG_I32, 1, n);
  o->u32 = make(dev, AG_U32, 1, one);
  o->cond = make(dev, AG_U8, 1, n);
}

static void operands_free(operands *o) {
  for (int i = 0; i < 3; i++) {
    ag_array_free(o->d[i]);
    ag_array_free(o->z[i]);
    ag_array_free(o->dm[i]);
    ag_array_free(o->zm[i]);
  }
  ag_array *rest[] = {o->d1, o->z1, o->zh, o->f, o->i32, o->u32, o->cond};
  for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
    ag_array_free(rest[i]);
}

/* Every f64 and c128 array still holds 9s. */
static void check_untouched(const operands *o, const char *what) {
  for (int i = 0; i < 3; i++) {
    ag_array *all[] = {o->d[i], o->z[i], o->dm[i], o->zm[i]};
    test_check_all_equal(all, 4, 9, what);
  }
  ag_array *rest[] = {o->d1, o->z1, o->zh};
  test_check_all_equal(rest, 3, 9, what);
}

/* The calls, one per public operation (and per dtype where one call covers several). */
static const char *const calls[] = {
    "ag_neg",   "ag_abs",    "ag_sqrt",   "ag_exp",          "ag_log",          "ag_sin",     "ag_cos",
    "ag_square", "ag_sign",  "ag_conj",   "ag_real",         "ag_imag",         "ag_sqrt c128", "ag_abs c128",
    "ag_add",   "ag_sub",    "ag_mul",    "ag_div",          "ag_pow",          "ag_minimum", "ag_maximum",
    "ag_add c128", "ag_add_scalar", "ag_sub_scalar_r", "ag_binary_scalar c128", "ag_axpby", "ag_clamp", "ag_where",
    "ag_soft_threshold", "ag_astype f64 to f32", "ag_astype f32 to f64", "ag_astype i32 to f64",
    "ag_sum",   "ag_mean",   "ag_min",    "ag_max",          "ag_argmin",       "ag_argmax",  "ag_dot",
    "ag_nrm2",  "ag_sum c128", "ag_nrm2 c128", "ag_sum i32 into f64", "ag_mean i32 into f64",
    "ag_gemm",  "ag_gemm_complex", "ag_gemv", "ag_axpy",     "ag_scal",         "ag_blas_dot", "ag_blas_nrm2",
    "ag_fft",   "ag_ifft",   "ag_rfft",   "ag_irfft",        "ag_fftshift",     "ag_ifftshift",
    "ag_compare", "ag_compare c128", "ag_compare_scalar", "ag_floor_divide", "ag_remainder_scalar_r",
};
enum { NCALLS = sizeof calls / sizeof calls[0] };

static ag_status run(int k, operands *o) {
  ag_array **d = o->d, **z = o->z, **dm = o->dm, **zm = o->zm;
  switch (k) {
  case 0: return ag_neg(NULL, d[0], d[1]);
  case 1: return ag_abs(NULL, d[0], d[1]);
  case 2: return ag_sqrt(NULL, d[0], d[1]);
  case 3: return ag_exp(NULL, d[0], d[1]);
  case 4: return ag_log(NULL, d[0], d[1]);
  case 5: return ag_sin(NULL, d[0], d[1]);
  case 6: return ag_cos(NULL, d[0], d[1]);
  case 7: return ag_square(NULL, d[0], d[1]);
  case 8: return ag_sign(NULL, d[0], d[1]);
  case 9: return ag_conj(NULL, d[0], d[1]);
  case 10: return ag_real(NULL, d[0], d[1]);
  case 11: return ag_imag(NULL, d[0], d[1]);
  case 12: return ag_sqrt(NULL, z[0], z[1]);
  case 13: return ag_abs(NULL, z[0], d[1]);
  case 14: return ag_add(NULL, d[0], d[1], d[2]);
  case 15: return ag_sub(NULL, d[0], d[1], d[2]);
  case 16: return ag_mul(NULL, d[0], d[1], d[2]);
  case 17: return ag_div(NULL, d[0], d[1], d[2]);
  case 18: return ag_pow(NULL, d[0], d[1], d[2]);
  case 19: return ag_minimum(NULL, d[0], d[1], d[2]);
  case 20: return ag_maximum(NULL, d[0], d[1], d[2]);
  case 21: return ag_add(NULL, z[0], z[1], z[2]);
  case 22: return ag_add_scalar(NULL, d[0], 1, d[1]);
  case 23: return ag_sub_scalar_r(NULL, 1, d[0], d[1]);
  case 24: return ag_binary_scalar(NULL, AG_OP_MUL, z[0], 1, 2, false, z[1]);
  case 25: return ag_axpby(NULL, 2, d[0], 3, d[1], d[2]);
  case 26: return ag_clamp(NULL, d[0], 0, 1, d[1]);
  case 27: return ag_where(NULL, o->cond, d[0], d[1], d[2]);
  case 28: return ag_soft_threshold(NULL, d[0], 1, d[1]);
  case 29: return ag_astype(NULL, d[0], o->f);
  case 30: return ag_astype(NULL, o->f, d[0]);
  case 31: return ag_astype(NULL, o->i32, d[0]);
  case 32: return ag_sum(NULL, d[0], AG_AXIS_ALL, o->d1);
  case 33: return ag_mean(NULL, d[0], AG_AXIS_ALL, o->d1);
  case 34: return ag_min(NULL, d[0], AG_AXIS_ALL, o->d1);
  case 35: return ag_max(NULL, d[0], AG_AXIS_ALL, o->d1);
  case 36: return ag_argmin(NULL, d[0], AG_AXIS_ALL, o->u32);
  case 37: return ag_argmax(NULL, d[0], AG_AXIS_ALL, o->u32);
  case 38: return ag_dot(NULL, d[0], d[1], AG_AXIS_ALL, o->d1);
  case 39: return ag_nrm2(NULL, d[0], AG_AXIS_ALL, o->d1);
  case 40: return ag_sum(NULL, z[0], AG_AXIS_ALL, o->z1);
  case 41: return ag_nrm2(NULL, z[0], AG_AXIS_ALL, o->d1);
  case 42: return ag_sum(NULL, o->i32, AG_AXIS_ALL, o->d1);
  case 43: return ag_mean(NULL, o->i32, AG_AXIS_ALL, o->d1);
  case 44: return ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, dm[0], dm[1], 0, dm[2]);
  case 45: return ag_gemm_complex(NULL, AG_NO_TRANS, AG_CONJ_TRANS, 1, 0, zm[0], zm[1], 0, 0, zm[2]);
  case 46: return ag_gemv(NULL, AG_NO_TRANS, 1, dm[0], d[0], 0, d[1]);
  case 47: return ag_axpy(NULL, 2, d[0], d[1]);
  case 48: return ag_scal(NULL, 2, d[0]);
  case 49: return ag_blas_dot(NULL, z[0], z[1], true, o->z1);
  case 50: return ag_blas_nrm2(NULL, d[0], o->d1);
  case 51: return ag_fft(NULL, z[0], 1, AG_FFT_BACKWARD, z[1]);
  case 52: return ag_ifft(NULL, z[0], 1, AG_FFT_BACKWARD, z[1]);
  case 53: return ag_rfft(NULL, d[0], 1, AG_FFT_BACKWARD, o->zh);
  case 54: return ag_irfft(NULL, o->zh, 1, AG_FFT_BACKWARD, d[0]);
  case 55: return ag_fftshift(NULL, d[0], 1, d[1]);
  case 56: return ag_ifftshift(NULL, z[0], 1, z[1]);
  case 57: return ag_compare(NULL, AG_CMP_LT, d[0], d[1], o->cond);
  case 58: return ag_compare(NULL, AG_CMP_EQ, z[0], z[1], o->cond);
  case 59: return ag_compare_scalar(NULL, AG_CMP_GE, d[0], 2.5, 0, true, o->cond);
  case 60: return ag_floor_divide(NULL, d[0], d[1], d[2]);
  case 61: return ag_remainder_scalar_r(NULL, 2.5, d[0], d[1]);
  }
  ck_abort_msg("no call number %d", k);
  return AG_ERR_INVALID_ARGUMENT;
}

START_TEST(without_double_precision_f64_and_c128_operations_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  operands o;
  operands_make(dev, &o);
  for (int k = 0; k < NCALLS; k++) {
    ag_status st = run(k, &o);
    char fn[64];
    snprintf(fn, sizeof fn, "%s", calls[k]);
    fn[strcspn(fn, " ")] = '\0';
    if (info.fp64) {
      ck_assert_msg(st == AG_OK, "%s: %s on a device with double precision returned %s: %s", test_label(), calls[k],
                    ag_status_name(st), ag_last_error());
      continue;
    }
    CHECK_REFUSED(st, AG_ERR_UNSUPPORTED, fn, info.spec);
    CHECK_MESSAGE_HAS("double precision");
    char what[96];
    snprintf(what, sizeof what, "the refused %s", calls[k]);
    check_untouched(&o, what);
  }
  CHECK_OK(ag_device_finish(dev));
  operands_free(&o);
}
END_TEST

/* Creating, writing, reading, copying, filling and viewing f64 and c128 arrays moves bytes
   without arithmetic, so it works on every device, exactly. */
START_TEST(f64_and_c128_data_moves_on_every_device) {
  ag_device *dev = test_device(_i);
  const ag_dtype types[] = {AG_F64, AG_C128};
  for (size_t t = 0; t < 2; t++) {
    size_t shape[] = {3, 5}, n = 15, bytes = n * ref_size(types[t]);
    double *src = test_alloc(bytes), *back = test_alloc(bytes);
    for (size_t i = 0; i < bytes / sizeof(double); i++)
      src[i] = 1.0 / 3.0 + (double)i * 0x1p-40; /* values no float holds */
    ag_array *a = test_array_from(dev, types[t], 2, shape, src), *b = test_array_new(dev, types[t], 2, shape);
    CHECK_OK(ag_copy(NULL, a, b));
    CHECK_OK(ag_array_to_host(b, back, bytes));
    CHECK_BYTES(back, src, bytes, "an f64/c128 array copied on the device");
    ag_array *row = NULL;
    CHECK_OK(ag_array_index(b, 1, &row));
    CHECK_OK(ag_fill_complex(NULL, row, 0.1, types[t] == AG_C128 ? -0.2 : 0));
    CHECK_OK(ag_array_to_host(b, back, bytes));
    for (size_t i = 0; i < n; i++) {
      ref_c want = i / 5 == 1 ? (types[t] == AG_C128 ? 0.1 - 0.2 * I : 0.1) : ref_get(types[t], src, i);
      ck_assert_msg(ref_get(types[t], back, i) == want, "%s: element %zu of a %s array after filling row 1",
                    test_label(), i, ref_name(types[t]));
    }
    ag_array_free(row);
    ag_array_free(a);
    ag_array_free(b);
    free(src);
    free(back);
  }
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  add_device_test(s, "without double precision, f64 and c128 operations are refused",
                  without_double_precision_f64_and_c128_operations_are_refused);
  add_device_test(s, "f64 and c128 data moves on every device", f64_and_c128_data_moves_on_every_device);
}
