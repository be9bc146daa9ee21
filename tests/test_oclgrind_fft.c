/* tests/test_oclgrind_fft.c — the three kernels the OpenCL backend adds around VkFFT
   (backends/opencl/fft_vkfft.c): ag_fft_widen (real to complex), ag_fft_narrow (the real
   parts) and ag_fft_expand (half spectra to whole rows), inside Oclgrind's simulator through
   tests/oclgrind-run.py. They run where VkFFT does not: around real transforms whose last axis
   has length 1, and around real transforms of odd lengths too long for one VkFFT kernel's local
   memory, which VkFFT refuses and anygpu runs as complex transforms of the full length. On
   Oclgrind's default 32 KiB of local memory those lengths start above 4096 (single precision),
   whose transforms take minutes inside Oclgrind; tests/meson.build runs this suite with 1 KiB,
   where 135 is long enough in both precisions. Results are compared with the naive DFTs of
   fft_reference.c. */
#include <math.h>
#include <stdlib.h>

#include "fft_reference.h"
#include "oclgrind.h"

/* The local memory the cases are sized for (oclgrind --local-mem-size, tests/meson.build). */
enum { LOCAL_MEMORY = 1024 };

/* Oclgrind's device, failing unless its local memory is what makes the long odd lengths below
   go through the helpers. */
static ag_device *fft_device(int i) {
  ag_device *dev = oclgrind_device(i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ck_assert_msg(info.local_memory == LOCAL_MEMORY,
                "%s has %zu bytes of local memory; this suite needs oclgrind --local-mem-size %d (tests/meson.build)",
                test_label(), info.local_memory, LOCAL_MEMORY);
  return dev;
}

/* Fails unless each element of @p out (dtype @p t, @p batch transforms of @p per elements) is
   within 8 eps log2(N) of the RMS of its transform in @p want, as test_fft holds every
   transform (its comment derives the bound); out is kept (oclgrind_keep). */
static void check_transform(ag_array *out, ag_dtype t, const ref_c *want, size_t batch, size_t per, size_t npoints,
                            const char *what) {
  long double *scale = test_alloc(batch * per * sizeof *scale);
  for (size_t b = 0; b < batch; b++) {
    long double sum = 0;
    for (size_t i = 0; i < per; i++)
      sum += cabsl(want[b * per + i]) * cabsl(want[b * per + i]);
    for (size_t i = 0; i < per; i++)
      scale[b * per + i] = sqrtl(sum / (long double)per);
  }
  double eps = t == AG_F32 || t == AG_C64 ? 0x1p-23 : 0x1p-52;
  void *got = test_array_read(out);
  ref_check(t, got, want, scale, batch * per, (ref_tol){8 * eps * fmax(1, log2((double)npoints)), 0}, "%s", what);
  free(got);
  free(scale);
  oclgrind_keep(out);
}

/* ag_rfft of random reals of @p shape over its last @p rank axes, against fftref_rfft; then,
   with @p inverse, ag_irfft of the device's spectrum, which must give x back (norm backward). */
static void check_real_pair(ag_device *dev, ag_dtype rt, int ndim, const size_t *shape, int rank, bool inverse,
                            uint64_t seed) {
  ag_dtype ct = rt == AG_F32 ? AG_C64 : AG_C128;
  size_t half[3], n = 1;
  for (int d = 0; d < ndim; d++) {
    half[d] = shape[d];
    n *= shape[d];
  }
  half[ndim - 1] = shape[ndim - 1] / 2 + 1;
  size_t npoints = fftref_points(ndim, shape, rank), batch = fftref_batch(ndim, shape, rank);
  size_t nh = n / shape[ndim - 1] * half[ndim - 1];
  void *x = test_alloc(n * ref_size(rt));
  ref_random(rt, x, n, seed, -1, 1);
  ref_c *in = test_alloc(n * sizeof *in), *want = test_alloc(nh * sizeof *want);
  for (size_t i = 0; i < n; i++)
    in[i] = ref_get(rt, x, i);
  fftref_rfft(in, want, ndim, shape, rank);

  ag_array *ax = oclgrind_operand(dev, rt, ndim, shape, x), *spec = test_array_new(dev, ct, ndim, half);
  ref_check_ok(ag_rfft(NULL, ax, rank, AG_FFT_BACKWARD, spec), "ag_rfft of %s over %d axes", ref_name(rt), rank);
  char what[96];
  snprintf(what, sizeof what, "ag_rfft of %zu %s over %d axes, last %zu", n, ref_name(rt), rank, shape[ndim - 1]);
  if (inverse) {
    ag_array *back = test_array_new(dev, rt, ndim, shape);
    ref_check_ok(ag_irfft(NULL, spec, rank, AG_FFT_BACKWARD, back), "ag_irfft of %s over %d axes", ref_name(rt),
                 rank);
    char back_what[96];
    snprintf(back_what, sizeof back_what, "ag_irfft(ag_rfft(x)) of %zu %s over %d axes", n, ref_name(rt), rank);
    check_transform(back, rt, in, batch, npoints, npoints, back_what);
  }
  check_transform(spec, ct, want, batch, nh / batch, npoints, what);
  oclgrind_keep(ax);
  free(want);
  free(in);
  free(x);
  oclgrind_free_kept();
}

/* One transform pair per test, each in a process of its own: a transform releases its scratch
   memory as it ends, and a later transform's buffers would inherit Oclgrind's record of it
   (oclgrind_keep in oclgrind.h says why). */

/* rfftn over (..., m, 1) is the complex transform of the widened input over (..., m), and
   irfftn its real parts: ag_fft_widen before VkFFT and ag_fft_narrow after it. */
static const size_t last_axis_1[3] = {2, 7, 1};

START_TEST(single_precision_transforms_over_a_last_axis_of_length_1_widen_and_narrow) {
  check_real_pair(fft_device(_i), AG_F32, 3, last_axis_1, 2, true, 1);
}
END_TEST

START_TEST(double_precision_transforms_over_a_last_axis_of_length_1_widen_and_narrow) {
  check_real_pair(fft_device(_i), AG_F64, 3, last_axis_1, 2, true, 2);
}
END_TEST

/* Rows of 135, which VkFFT refuses: rfft widens them into scratch memory (ag_fft_widen) for a
   complex transform of the full length; irfft expands half spectra into whole rows
   (ag_fft_expand), transforms them and keeps the real parts (ag_fft_narrow). */
static const size_t rows[2] = {2, 135};

START_TEST(single_precision_long_odd_rows_widen_expand_and_narrow) {
  check_real_pair(fft_device(_i), AG_F32, 2, rows, 1, true, 3);
}
END_TEST

START_TEST(double_precision_long_odd_rows_widen_expand_and_narrow) {
  check_real_pair(fft_device(_i), AG_F64, 2, rows, 1, true, 4);
}
END_TEST

/* Over two axes of {3, 135}, the forward transform only (ag_fft_widen): the inverse first
   transforms the leading axes with a second VkFFT plan, after which VkFFT's own kernels report
   uninitialised values, which flow on into ag_fft_narrow (docs/kernels.md#oclgrind). */
static const size_t plane[2] = {3, 135};

START_TEST(single_precision_long_odd_planes_widen) { check_real_pair(fft_device(_i), AG_F32, 2, plane, 2, false, 5); }
END_TEST

START_TEST(double_precision_long_odd_planes_widen) { check_real_pair(fft_device(_i), AG_F64, 2, plane, 2, false, 6); }
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "single-precision transforms over a last axis of length 1 widen and narrow",
                  single_precision_transforms_over_a_last_axis_of_length_1_widen_and_narrow);
  add_device_test(s, "double-precision transforms over a last axis of length 1 widen and narrow",
                  double_precision_transforms_over_a_last_axis_of_length_1_widen_and_narrow);
  add_device_test(s, "single-precision long odd rows widen, expand and narrow",
                  single_precision_long_odd_rows_widen_expand_and_narrow);
  add_device_test(s, "double-precision long odd rows widen, expand and narrow",
                  double_precision_long_odd_rows_widen_expand_and_narrow);
  add_device_test(s, "single-precision long odd planes widen", single_precision_long_odd_planes_widen);
  add_device_test(s, "double-precision long odd planes widen", double_precision_long_odd_planes_widen);
}
