/* tests/test_fft.c — fft.h: complex, real-to-complex and complex-to-real transforms over 1, 2
   and 3 trailing axes with batches, in single and double precision, against the naive DFTs of
   fft_reference.c and against analytic transforms (deltas, exponentials, constants, Parseval,
   linearity); the three norms as numpy defines them; in-place transforms; views; the plan
   cache and ag_device_trim, also while other threads transform; fftshift and ifftshift; the
   providers; refused operands. Run on OpenCL a second time with ANYGPU_OPENCL_FFT=clfft
   (tests/meson.build), where lengths with a prime factor above 13 must be refused. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "fft_reference.h"

typedef ag_status (*fft_fn)(ag_queue *, const ag_array *, int, ag_fft_norm, ag_array *);
typedef ag_status (*shift_fn)(ag_queue *, const ag_array *, int, ag_array *);

static const ag_dtype complex_dtypes[2] = {AG_C64, AG_C128};
static const ag_fft_norm all_norms[3] = {AG_FFT_BACKWARD, AG_FFT_ORTHO, AG_FFT_FORWARD};
static const char *const norm_names[3] = {"backward", "ortho", "forward"};

/* ---- the provider under test ------------------------------------------------------------------ */

/* Whether this run uses clFFT: the OpenCL backend with ANYGPU_OPENCL_FFT=clfft (the second
   meson entry of this suite). */
static bool clfft_mode(void) {
  const char *p = getenv("ANYGPU_OPENCL_FFT");
  return test_backend_is("opencl") && p != NULL && strcmp(p, "clfft") == 0;
}

/* Whether the provider takes the transformed lengths: every length, except in clFFT mode,
   where fft.h allows only lengths made of 2, 3, 5, 7, 11 and 13. */
static bool lengths_run(int ndim, const size_t *shape, int rank) {
  if (!clfft_mode())
    return true;
  for (int d = ndim - rank; d < ndim; d++)
    if (fftref_largest_prime_factor(shape[d]) > 13)
      return false;
  return true;
}

/* ---- tolerances --------------------------------------------------------------------------------

   A Cooley-Tukey FFT with accurate twiddles computes each output with an error of about
   u * sqrt(log2 N) times the output's RMS magnitude on average, and at most about u * log2 N
   (u = eps / 2, the unit roundoff; Higham, "Accuracy and Stability of Numerical Algorithms",
   section 24.1, and Schatzman 1996). Lengths with large prime factors go through Bluestein's or
   Rader's algorithm, a convolution of two to four power-of-two FFTs of more than twice the
   length, which multiplies the constant by a few. Each element of a result is therefore held
   to

       |got - want| <= 8 eps log2(N) * rms(want over its transform),   log2(N) taken >= 1,

   with eps = 2^-23 (single) or 2^-52 (double): for N = 4099 about 1.2e-5 (single) and 2.2e-14
   (double) of the RMS. The largest of N normally distributed errors is about 4 standard
   deviations for N near 4096, so this leaves a margin of a few times over that too, while a
   wrong sign, a wrong scale, a wrong axis or a misplaced element errs by about 1 (100% of the
   RMS) and an error of one ulp in the twiddles of a length-N transform stays within it. */

static double precision_eps(ag_dtype t) { return t == AG_F32 || t == AG_C64 ? 0x1p-23 : 0x1p-52; }

static double fft_tol(ag_dtype t, size_t npoints) {
  double lg = npoints > 2 ? log2((double)npoints) : 1.0;
  return 8.0 * precision_eps(t) * lg;
}

/* numpy's scaling: forward by 1, 1/sqrt(N) or 1/N for backward, ortho, forward; the inverse
   by 1/N, 1/sqrt(N) or 1. */
static long double norm_factor(ag_fft_norm norm, bool inverse, size_t npoints) {
  long double n = (long double)npoints;
  switch (norm) {
  case AG_FFT_BACKWARD:
    return inverse ? 1.0L / n : 1.0L;
  case AG_FFT_ORTHO:
    return 1.0L / sqrtl(n);
  case AG_FFT_FORWARD:
    return inverse ? 1.0L : 1.0L / n;
  }
  return 0;
}

/* ---- helpers ------------------------------------------------------------------------------------ */

static size_t count(int ndim, const size_t *shape) {
  size_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  return n;
}

/* "2x8x12" into a static buffer, for messages. */
static const char *shape_str(int ndim, const size_t *shape) {
  static char buf[4][64];
  static int next;
  char *s = buf[next++ % 4];
  size_t at = 0;
  s[0] = '\0';
  for (int d = 0; d < ndim; d++)
    at += (size_t)snprintf(s + at, 64 - at, "%s%zu", d ? "x" : "", shape[d]);
  return s;
}

/* The @p n elements of dtype @p t at @p p as ref_c values (free() them). */
static ref_c *values(ag_dtype t, const void *p, size_t n) {
  ref_c *v = test_alloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    v[i] = ref_get(t, p, i);
  return v;
}

static void scale_all(ref_c *v, size_t n, long double f) {
  for (size_t i = 0; i < n; i++)
    v[i] *= f;
}

/* scale[i] = the RMS magnitude of the transform (of @p per elements, @p batch of them in @p want)
   that element i belongs to: the scale of an FFT's error. */
static void rms_scale(const ref_c *want, size_t batch, size_t per, long double *scale) {
  for (size_t b = 0; b < batch; b++) {
    long double ss = 0;
    for (size_t i = 0; i < per; i++) {
      long double m = cabsl(want[b * per + i]);
      ss += m * m;
    }
    long double rms = per > 0 ? sqrtl(ss / (long double)per) : 0;
    for (size_t i = 0; i < per; i++)
      scale[b * per + i] = rms;
  }
}

/* Fails unless each of the @p batch transforms of @p per elements in @p got (dtype @p t) is
   within @p tol times the RMS magnitude of its transform in @p want, element by element. */
static void check_close(ag_dtype t, const void *got, const ref_c *want, size_t batch, size_t per, double tol,
                        const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void check_close(ag_dtype t, const void *got, const ref_c *want, size_t batch, size_t per, double tol,
                        const char *fmt, ...) {
  size_t n = batch * per;
  long double *scale = test_alloc(n * sizeof *scale);
  rms_scale(want, batch, per, scale);
  char msg[512];
  size_t at = ref_compare(t, got, want, scale, n, (ref_tol){tol, 0}, msg, sizeof msg);
  free(scale);
  if (at == n)
    return;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  ck_abort_msg("%s: %s (%s; transform %zu of %zu, element %zu of %zu; tolerance %.3g of the RMS): %s", test_label(),
               what, ref_name(t), per ? at / per : 0, batch, per ? at % per : 0, per, tol, msg);
}

/* Fails unless the array still holds the @p bytes at @p want. */
static void check_unchanged(const ag_array *a, const void *want, const char *what) {
  void *back = test_array_read(a);
  CHECK_BYTES(back, want, ag_array_nbytes(a), what);
  free(back);
}

/* ---- complex transforms against the naive DFT ------------------------------------------------- */

/* The forward and the inverse transform, with @p norm, of a random array of dtype @p t and
   @p shape over its last @p rank axes, each against the naive DFT; x must be left as it was.
   In clFFT mode a shape it cannot take must be refused, saying which factors it takes. */
static void check_c2c(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, int rank, ag_fft_norm norm,
                      uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  size_t n = count(ndim, shape), npoints = fftref_points(ndim, shape, rank), batch = n / npoints;
  void *x = test_alloc(n * ref_size(t));
  ref_random(t, x, n, seed, -1, 1);
  ag_array *ax = test_array_from(dev, t, ndim, shape, x), *out = test_array_new(dev, t, ndim, shape);
  if (!lengths_run(ndim, shape, rank)) {
    CHECK_REFUSED(ag_fft(NULL, ax, rank, norm, out), AG_ERR_UNSUPPORTED, "ag_fft", "13");
    CHECK_REFUSED(ag_ifft(NULL, ax, rank, norm, out), AG_ERR_UNSUPPORTED, "ag_ifft", "13");
  } else {
    ref_c *in = values(t, x, n), *want = test_alloc(n * sizeof *want);
    for (int inverse = 0; inverse < 2; inverse++) {
      const char *fn = inverse ? "ag_ifft" : "ag_fft";
      fftref_dft(in, want, ndim, shape, rank, inverse ? +1 : -1);
      scale_all(want, n, norm_factor(norm, inverse, npoints));
      ref_check_ok((inverse ? ag_ifft : ag_fft)(NULL, ax, rank, norm, out), "%s of %s over %d axes, norm %s", fn,
                   shape_str(ndim, shape), rank, norm_names[norm]);
      void *got = test_array_read(out);
      check_close(t, got, want, batch, npoints, fft_tol(t, npoints), "%s of %s over %d axes, norm %s", fn,
                  shape_str(ndim, shape), rank, norm_names[norm]);
      free(got);
      check_unchanged(ax, x, inverse ? "x after ag_ifft" : "x after ag_fft");
    }
    free(in);
    free(want);
  }
  ag_array_free(ax);
  ag_array_free(out);
  free(x);
}

/* One-dimensional lengths: small primes and composites, powers of two, the primes 17, 31, 97,
   127 and 4099 (Bluestein or Rader), 12, 100, 210 and 1000 (mixed radices), and 4096. A batch
   of 4 below 1000, 2 to 1024, a plain 1-D array above. Length 1 has a test of its own.

   Plans are per shape, batch included, and VkFFT compiles kernels for each (about a second on
   pocl); they do not outlive a test (Check forks each), but pocl keeps compiled kernels on disk.
   So the other tests take their shapes from the sweeps' where they can: {4, n}, {2, 1000},
   {16, 17}, {2, 3, 4, 5}. */
static const size_t lengths_1d[] = {2, 3, 5, 7, 8, 12, 16, 17, 31, 64, 97, 100, 127, 210, 256, 1000, 1024, 4096, 4099};
enum { NLENGTHS_1D = sizeof lengths_1d / sizeof lengths_1d[0] };

static void check_lengths_1d(ag_device *dev, ag_dtype t) {
  for (int i = 0; i < NLENGTHS_1D; i++) {
    size_t n = lengths_1d[i];
    if (n > 1024) {
      check_c2c(dev, t, 1, &n, 1, AG_FFT_BACKWARD, 100u + (unsigned)i);
    } else {
      const size_t shape[2] = {n < 1000 ? 4 : 2, n};
      check_c2c(dev, t, 2, shape, 1, AG_FFT_BACKWARD, 100u + (unsigned)i);
    }
  }
}

START_TEST(one_dimensional_transforms_of_every_length_match_the_naive_dft_in_single_precision) {
  check_lengths_1d(test_device(_i), AG_C64);
}
END_TEST

START_TEST(one_dimensional_transforms_of_every_length_match_the_naive_dft_in_double_precision) {
  check_lengths_1d(test_device(_i), AG_C128);
}
END_TEST

/* Over 2 and 3 trailing axes, with and without a batch, with odd and prime lengths. */
static const struct {
  int ndim, rank;
  size_t shape[4];
} shapes_nd[] = {
    {2, 2, {3, 5}}, {3, 2, {2, 8, 12}}, {2, 2, {16, 17}}, {2, 2, {64, 100}}, {4, 3, {2, 3, 4, 5}}, {3, 3, {3, 17, 4}},
};
enum { NSHAPES_ND = sizeof shapes_nd / sizeof shapes_nd[0] };

START_TEST(two_and_three_dimensional_transforms_with_batches_match_the_naive_dft) {
  ag_device *dev = test_device(_i);
  for (int k = 0; k < 2; k++)
    for (int s = 0; s < NSHAPES_ND; s++)
      check_c2c(dev, complex_dtypes[k], shapes_nd[s].ndim, shapes_nd[s].shape, shapes_nd[s].rank, AG_FFT_BACKWARD,
                200u + 10u * (unsigned)s + (unsigned)k);
}
END_TEST

/* ---- real transforms ---------------------------------------------------------------------------- */

/* The body of check_real for a shape the provider takes: x is the input, in ax; spec and back
   receive the spectrum and the inverse. */
static void check_real_runs(ag_device *dev, ag_dtype rt, int ndim, const size_t *shape, int rank, ag_fft_norm norm,
                            const void *x, ag_array *ax, ag_array *spec, ag_array *back) {
  ag_dtype ct = rt == AG_F32 ? AG_C64 : AG_C128;
  size_t half[AG_MAX_DIMS];
  memcpy(half, shape, (size_t)ndim * sizeof *shape);
  half[ndim - 1] = shape[ndim - 1] / 2 + 1;
  size_t n = count(ndim, shape), nh = count(ndim, half), npoints = fftref_points(ndim, shape, rank);
  size_t batch = n / npoints, per_half = nh / batch;
  double tol = fft_tol(rt, npoints);
  ref_c *in = values(rt, x, n), *want = test_alloc(nh * sizeof *want);
  fftref_rfft(in, want, ndim, shape, rank);
  scale_all(want, nh, norm_factor(norm, false, npoints));
  ref_check_ok(ag_rfft(NULL, ax, rank, norm, spec), "ag_rfft of %s over %d axes, norm %s", shape_str(ndim, shape),
               rank, norm_names[norm]);
  void *got = test_array_read(spec);
  check_close(ct, got, want, batch, per_half, tol, "ag_rfft of %s over %d axes, norm %s", shape_str(ndim, shape),
              rank, norm_names[norm]);
  check_unchanged(ax, x, "x after ag_rfft");

  /* irfft of the device's spectrum: x again, and the spectrum unchanged (fft.h: "x is not
     changed", though the c2r transforms of FFTW and cuFFT overwrite their input). */
  ref_check_ok(ag_irfft(NULL, spec, rank, norm, back), "ag_irfft of the spectrum of %s over %d axes, norm %s",
               shape_str(ndim, shape), rank, norm_names[norm]);
  void *rt_got = test_array_read(back);
  check_close(rt, rt_got, in, batch, npoints, 2 * tol, "ag_irfft(ag_rfft(x)) for %s over %d axes, norm %s",
              shape_str(ndim, shape), rank, norm_names[norm]);
  check_unchanged(spec, got, "the spectrum after ag_irfft");
  free(rt_got);

  /* irfft of the reference spectrum rounded to the dtype, against numpy's irfftn of it. */
  void *s = test_alloc(nh * ref_size(ct));
  for (size_t i = 0; i < nh; i++)
    ref_put(ct, s, i, want[i]);
  ag_array *as = test_array_from(dev, ct, ndim, half, s);
  ref_c *sv = values(ct, s, nh), *inv = test_alloc(n * sizeof *inv);
  fftref_irfft(sv, inv, ndim, shape, rank);
  scale_all(inv, n, norm_factor(norm, true, npoints));
  ref_check_ok(ag_irfft(NULL, as, rank, norm, back), "ag_irfft into %s over %d axes, norm %s", shape_str(ndim, shape),
               rank, norm_names[norm]);
  rt_got = test_array_read(back);
  check_close(rt, rt_got, inv, batch, npoints, tol, "ag_irfft into %s over %d axes, norm %s", shape_str(ndim, shape),
              rank, norm_names[norm]);
  check_unchanged(as, s, "x after ag_irfft");
  free(rt_got);
  free(sv);
  free(inv);
  free(s);
  ag_array_free(as);
  free(got);
  free(in);
  free(want);
}

/* rfft of a random real array of @p shape over its last @p rank axes, with @p norm, against
   the naive DFT; then irfft of the reference spectrum (rounded to the dtype) against the naive
   inverse, and irfft of the device's own spectrum, which must give x back. Neither input may
   change. */
static void check_real(ag_device *dev, ag_dtype rt, int ndim, const size_t *shape, int rank, ag_fft_norm norm,
                       uint64_t seed) {
  ag_dtype ct = rt == AG_F32 ? AG_C64 : AG_C128;
  if (!test_dtype_runs(dev, rt))
    return;
  size_t half[AG_MAX_DIMS];
  memcpy(half, shape, (size_t)ndim * sizeof *shape);
  half[ndim - 1] = shape[ndim - 1] / 2 + 1;
  size_t n = count(ndim, shape);
  void *x = test_alloc(n * ref_size(rt));
  ref_random(rt, x, n, seed, -1, 1);
  ag_array *ax = test_array_from(dev, rt, ndim, shape, x), *spec = test_array_new(dev, ct, ndim, half);
  ag_array *back = test_array_new(dev, rt, ndim, shape);
  if (!lengths_run(ndim, shape, rank)) {
    CHECK_REFUSED(ag_rfft(NULL, ax, rank, norm, spec), AG_ERR_UNSUPPORTED, "ag_rfft", "13");
    CHECK_REFUSED(ag_irfft(NULL, spec, rank, norm, back), AG_ERR_UNSUPPORTED, "ag_irfft", "13");
  } else {
    check_real_runs(dev, rt, ndim, shape, rank, norm, x, ax, spec, back);
  }
  ag_array_free(ax);
  ag_array_free(spec);
  ag_array_free(back);
  free(x);
}

/* Even and odd last axes (n/2 + 1 bins either way), a prime, 1-D to 3-D, batched. */
static const struct {
  int ndim, rank;
  size_t shape[4];
} shapes_real[] = {
    {2, 1, {4, 7}}, {2, 1, {2, 16}}, {1, 1, {97}}, {3, 2, {2, 5, 6}}, {2, 2, {12, 7}}, {3, 3, {3, 4, 5}},
};
enum { NSHAPES_REAL = sizeof shapes_real / sizeof shapes_real[0] };

START_TEST(real_transforms_match_the_naive_dft_and_invert_for_even_and_odd_lengths) {
  ag_device *dev = test_device(_i);
  const ag_dtype real_dtypes[2] = {AG_F32, AG_F64};
  for (int k = 0; k < 2; k++)
    for (int s = 0; s < NSHAPES_REAL; s++)
      check_real(dev, real_dtypes[k], shapes_real[s].ndim, shapes_real[s].shape, shapes_real[s].rank,
                 AG_FFT_BACKWARD, 300u + 10u * (unsigned)s + (unsigned)k);
}
END_TEST

/* fft.h allows every length, 1 included: a transform over an axis of length 1 is the identity
   along it. Unit axes alone and among longer ones, complex and real. */
START_TEST(axes_of_length_1_are_transformed_too) {
  ag_device *dev = test_device(_i);
  const struct {
    int ndim, rank;
    size_t shape[4];
  } cases[] = {{2, 1, {4, 1}}, {4, 3, {2, 1, 12, 1}}, {3, 2, {2, 7, 1}}};
  for (int k = 0; k < 2; k++)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
      check_c2c(dev, complex_dtypes[k], cases[c].ndim, cases[c].shape, cases[c].rank, AG_FFT_BACKWARD,
                250u + 10u * (unsigned)c + (unsigned)k);
  /* A real transform over a last axis of length 1: one bin. */
  for (int k = 0; k < 2; k++)
    check_real(dev, ref_real_dtype(complex_dtypes[k]), 3, cases[2].shape, 2, AG_FFT_ORTHO, 290u + (unsigned)k);
}
END_TEST

/* ---- norms --------------------------------------------------------------------------------------- */

/* numpy.fft's norm=: "backward" leaves the forward transform unscaled and divides the inverse
   by N, "ortho" divides both by sqrt(N), "forward" divides the forward one by N. Every norm,
   complex and real, 1-D to 3-D, in both precisions. */
START_TEST(every_norm_scales_as_numpy_does) {
  ag_device *dev = test_device(_i);
  const size_t s1[2] = {4, 12}, s2[2] = {16, 17}, s3[4] = {2, 3, 4, 5}, r1[2] = {4, 7}, r2[2] = {12, 7};
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    for (int m = 0; m < 3; m++) {
      uint64_t seed = 400u + 10u * (unsigned)m + (unsigned)k;
      check_c2c(dev, t, 2, s1, 1, all_norms[m], seed);
      check_c2c(dev, t, 2, s2, 2, all_norms[m], seed + 1);
      check_c2c(dev, t, 4, s3, 3, all_norms[m], seed + 2);
      check_real(dev, ref_real_dtype(t), 2, r1, 1, all_norms[m], seed + 3);
      check_real(dev, ref_real_dtype(t), 2, r2, 2, all_norms[m], seed + 4);
    }
  }
}
END_TEST

/* Forward then inverse with the same norm is the identity, for every norm. */
START_TEST(the_inverse_undoes_the_forward_transform_for_every_norm) {
  ag_device *dev = test_device(_i);
  const struct {
    int ndim, rank;
    size_t shape[4];
  } cases[] = {{2, 1, {2, 1000}}, {2, 2, {16, 17}}, {4, 3, {2, 3, 4, 5}}};
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int ndim = cases[c].ndim, rank = cases[c].rank;
      const size_t *shape = cases[c].shape;
      if (!lengths_run(ndim, shape, rank))
        continue;
      size_t n = count(ndim, shape), npoints = fftref_points(ndim, shape, rank);
      void *x = test_alloc(n * ref_size(t));
      ref_random(t, x, n, 500u + (unsigned)c, -1, 1);
      ag_array *ax = test_array_from(dev, t, ndim, shape, x), *f = test_array_new(dev, t, ndim, shape);
      ag_array *b = test_array_new(dev, t, ndim, shape);
      ref_c *want = values(t, x, n);
      for (int m = 0; m < 3; m++) {
        ref_check_ok(ag_fft(NULL, ax, rank, all_norms[m], f), "ag_fft of %s, norm %s", shape_str(ndim, shape),
                     norm_names[m]);
        ref_check_ok(ag_ifft(NULL, f, rank, all_norms[m], b), "ag_ifft of %s, norm %s", shape_str(ndim, shape),
                     norm_names[m]);
        void *got = test_array_read(b);
        /* Two transforms: twice the error of one. */
        check_close(t, got, want, n / npoints, npoints, 2 * fft_tol(t, npoints), "ag_ifft(ag_fft(x)) of %s, norm %s",
                    shape_str(ndim, shape), norm_names[m]);
        free(got);
      }
      free(want);
      free(x);
      ag_array_free(ax);
      ag_array_free(f);
      ag_array_free(b);
    }
  }
}
END_TEST

/* ---- analytic transforms ------------------------------------------------------------------------- */

/* e^(-2 pi i m / n) for an integer m, the angle reduced exactly first. */
static ref_c unit_root(size_t m, size_t n, int sign) {
  long double a = 6.283185307179586476925286766559005768L * (long double)(m % n) / (long double)n;
  return CMPLXL(cosl(a), sign * sinl(a));
}

/* Four signals in one batched call: a delta at 0 (transform: all ones), a delta at j
   (e^(-2 pi i j k / n)), a complex exponential e^(2 pi i f j / n) (n at bin f, 0 elsewhere) and
   a constant c (n c at bin 0, 0 elsewhere). Then the inverse of each expected spectrum must
   give the signal back. The references are the formulas, not a DFT. */
START_TEST(deltas_exponentials_and_constants_have_their_analytic_transforms) {
  ag_device *dev = test_device(_i);
  const size_t lengths[] = {12, 17, 210};
  const ref_c c = CMPLXL(0.75, -0.5);
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
      size_t n = lengths[l], j = n / 3, f = 2 * n / 5, shape[2] = {4, n};
      if (!lengths_run(2, shape, 1))
        continue;
      ref_c *sig = test_alloc(4 * n * sizeof *sig), *spec = test_alloc(4 * n * sizeof *spec);
      for (size_t i = 0; i < n; i++) {
        sig[i] = i == 0;
        sig[n + i] = i == j;
        sig[2 * n + i] = unit_root(f * i, n, +1);
        sig[3 * n + i] = c;
        spec[i] = 1;
        spec[n + i] = unit_root(j * i, n, -1);
        spec[2 * n + i] = i == f ? (long double)n : 0;
        spec[3 * n + i] = i == 0 ? c * (long double)n : 0;
      }
      void *x = test_alloc(4 * n * ref_size(t)), *y = test_alloc(4 * n * ref_size(t));
      for (size_t i = 0; i < 4 * n; i++) {
        ref_put(t, x, i, sig[i]);
        ref_put(t, y, i, spec[i]);
      }
      ag_array *ax = test_array_from(dev, t, 2, shape, x), *ay = test_array_from(dev, t, 2, shape, y);
      ag_array *out = test_array_new(dev, t, 2, shape);
      ref_check_ok(ag_fft(NULL, ax, 1, AG_FFT_BACKWARD, out), "ag_fft of four signals of length %zu", n);
      void *got = test_array_read(out);
      check_close(t, got, spec, 4, n, fft_tol(t, n),
                  "ag_fft of [delta at 0, delta at %zu, exp(2 pi i %zu j / n), constant] of length %zu", j, f, n);
      free(got);
      /* The inverse of each spectrum (default norm: 1/n) is its signal. */
      ref_check_ok(ag_ifft(NULL, ay, 1, AG_FFT_BACKWARD, out), "ag_ifft of four spectra of length %zu", n);
      got = test_array_read(out);
      check_close(t, got, sig, 4, n, fft_tol(t, n),
                  "ag_ifft of [ones, exp(-2 pi i %zu k / n), n at %zu, n c at 0] of length %zu", j, f, n);
      free(got);
      free(sig);
      free(spec);
      free(x);
      free(y);
      ag_array_free(ax);
      ag_array_free(ay);
      ag_array_free(out);
    }
  }
}
END_TEST

/* Parseval: sum |x|^2 = sum |X|^2 / N (default norm), = sum |X|^2 (ortho), over a batch too. The relative error of
   a sum of squares is at most twice the relative RMS error of X, so 2 * the FFT tolerance. */
START_TEST(transforms_keep_the_energy_as_parseval_says) {
  ag_device *dev = test_device(_i);
  const struct {
    int ndim, rank;
    size_t shape[4];
  } cases[] = {{2, 1, {2, 1000}}, {2, 1, {4, 97}}, {2, 2, {16, 17}}, {4, 3, {2, 3, 4, 5}}};
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int ndim = cases[c].ndim, rank = cases[c].rank;
      const size_t *shape = cases[c].shape;
      if (!lengths_run(ndim, shape, rank))
        continue;
      size_t n = count(ndim, shape);
      void *x = test_alloc(n * ref_size(t));
      ref_random(t, x, n, 600u + (unsigned)c, -1, 1);
      ag_array *ax = test_array_from(dev, t, ndim, shape, x), *out = test_array_new(dev, t, ndim, shape);
      long double ex = 0;
      for (size_t i = 0; i < n; i++) {
        long double m = cabsl(ref_get(t, x, i));
        ex += m * m;
      }
      for (int m = 0; m < 2; m++) {
        ag_fft_norm norm = m == 0 ? AG_FFT_BACKWARD : AG_FFT_ORTHO;
        ref_check_ok(ag_fft(NULL, ax, rank, norm, out), "ag_fft of %s", shape_str(ndim, shape));
        void *got = test_array_read(out);
        long double eX = 0;
        for (size_t i = 0; i < n; i++) {
          long double a = cabsl(ref_get(t, got, i));
          eX += a * a;
        }
        if (norm == AG_FFT_BACKWARD)
          eX /= (long double)fftref_points(ndim, shape, rank);
        long double rel = fabsl(eX - ex) / ex;
        ck_assert_msg(rel <= 2 * fft_tol(t, n),
                      "%s: ag_fft of %s (%s, norm %s): sum |x|^2 = %.17Lg but sum |X|^2%s = %.17Lg (relative "
                      "difference %.3Lg, allowed %.3g)",
                      test_label(), shape_str(ndim, shape), ref_name(t), norm_names[norm], ex,
                      norm == AG_FFT_BACKWARD ? " / N" : "", eX, rel, 2 * fft_tol(t, n));
        free(got);
      }
      free(x);
      ag_array_free(ax);
      ag_array_free(out);
    }
  }
}
END_TEST

/* fft(a x + b y) = a fft(x) + b fft(y), with a and b complex; a x + b y is formed on the host and
   rounded once, so the two sides differ by the transforms' errors: three transforms' worth. */
START_TEST(transforms_are_linear) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {4, 210};
  const ref_c a = CMPLXL(1.5, -0.25), b = CMPLXL(-0.5, 2);
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    size_t n = 4 * 210;
    void *x = test_alloc(n * ref_size(t)), *y = test_alloc(n * ref_size(t)), *z = test_alloc(n * ref_size(t));
    ref_random(t, x, n, 700, -1, 1);
    ref_random(t, y, n, 701, -1, 1);
    for (size_t i = 0; i < n; i++)
      ref_put(t, z, i, a * ref_get(t, x, i) + b * ref_get(t, y, i));
    ag_array *ax = test_array_from(dev, t, 2, shape, x), *ay = test_array_from(dev, t, 2, shape, y);
    ag_array *az = test_array_from(dev, t, 2, shape, z), *out = test_array_new(dev, t, 2, shape);
    CHECK_OK(ag_fft(NULL, ax, 1, AG_FFT_BACKWARD, out));
    void *fx = test_array_read(out);
    CHECK_OK(ag_fft(NULL, ay, 1, AG_FFT_BACKWARD, out));
    void *fy = test_array_read(out);
    CHECK_OK(ag_fft(NULL, az, 1, AG_FFT_BACKWARD, out));
    void *fz = test_array_read(out);
    ref_c *want = test_alloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++)
      want[i] = a * ref_get(t, fx, i) + b * ref_get(t, fy, i);
    check_close(t, fz, want, 4, 210, 3 * fft_tol(t, 210), "ag_fft(a x + b y) against a ag_fft(x) + b ag_fft(y)");
    free(want);
    free(fx);
    free(fy);
    free(fz);
    free(x);
    free(y);
    free(z);
    ag_array_free(ax);
    ag_array_free(ay);
    ag_array_free(az);
    ag_array_free(out);
  }
}
END_TEST

/* ---- in place, views, queues ------------------------------------------------------------------- */

/* fft.h: out may be x for ag_fft and ag_ifft. The in-place result must match the naive DFT and
   the out-of-place result (to the tolerance: the provider may take another algorithm). */
START_TEST(in_place_transforms_equal_out_of_place_ones) {
  ag_device *dev = test_device(_i);
  const struct {
    int ndim, rank;
    size_t shape[4];
  } cases[] = {{2, 1, {4, 17}}, {3, 2, {2, 8, 12}}, {4, 3, {2, 3, 4, 5}}};
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int ndim = cases[c].ndim, rank = cases[c].rank;
      const size_t *shape = cases[c].shape;
      if (!lengths_run(ndim, shape, rank))
        continue;
      size_t n = count(ndim, shape), npoints = fftref_points(ndim, shape, rank);
      void *x = test_alloc(n * ref_size(t));
      ref_random(t, x, n, 800u + (unsigned)c, -1, 1);
      ref_c *in = values(t, x, n), *want = test_alloc(n * sizeof *want);
      ag_array *ax = test_array_from(dev, t, ndim, shape, x), *out = test_array_new(dev, t, ndim, shape);
      for (int inverse = 0; inverse < 2; inverse++) {
        fft_fn fn = inverse ? ag_ifft : ag_fft;
        const char *name = inverse ? "ag_ifft" : "ag_fft";
        fftref_dft(in, want, ndim, shape, rank, inverse ? +1 : -1);
        scale_all(want, n, norm_factor(AG_FFT_BACKWARD, inverse, npoints));
        ag_array_free(ax); /* x again: the forward pass transformed it in place */
        ax = test_array_from(dev, t, ndim, shape, x);
        ref_check_ok(fn(NULL, ax, rank, AG_FFT_BACKWARD, out), "%s of %s out of place", name, shape_str(ndim, shape));
        ref_check_ok(fn(NULL, ax, rank, AG_FFT_BACKWARD, ax), "%s of %s in place", name, shape_str(ndim, shape));
        void *outside = test_array_read(out), *inside = test_array_read(ax);
        check_close(t, inside, want, n / npoints, npoints, fft_tol(t, npoints), "%s of %s in place", name,
                    shape_str(ndim, shape));
        ref_c *ov = values(t, outside, n);
        check_close(t, inside, ov, n / npoints, npoints, 2 * fft_tol(t, npoints),
                    "%s of %s in place against out of place", name, shape_str(ndim, shape));
        free(ov);
        free(outside);
        free(inside);
      }
      free(in);
      free(want);
      free(x);
      ag_array_free(ax);
      ag_array_free(out);
    }
  }
}
END_TEST

/* Frame 1 of a stack (ag_array_index: a view at a nonzero offset, for single precision not a
   multiple of 16 bytes, the alignment FFTW's SIMD plans assume) transforms as the frame copied out, into a plain array and into a
   frame of another stack, on a created queue; the rest of the output stack is left alone. */
START_TEST(transforms_of_views_equal_transforms_of_the_frame_copied_out) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  const struct {
    int ndim, rank;
    size_t shape[3];
  } cases[] = {{2, 1, {4, 3}}, {3, 2, {3, 5, 7}}};
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int ndim = cases[c].ndim, rank = cases[c].rank;
      const size_t *shape = cases[c].shape, *fshape = shape + 1;
      if (!lengths_run(ndim, shape, rank))
        continue;
      size_t n = count(ndim, shape), per = n / shape[0], frame = 1, es = ref_size(t);
      void *x = test_alloc(n * es), *guard = test_alloc(n * es);
      ref_random(t, x, n, 900u + (unsigned)c, -1, 1);
      ref_random(t, guard, n, 950u + (unsigned)c, -1, 1);
      ag_array *stack = test_array_from(dev, t, ndim, shape, x), *ostack = test_array_from(dev, t, ndim, shape, guard);
      ag_array *view = NULL, *oview = NULL;
      CHECK_OK(ag_array_index(stack, frame, &view));
      CHECK_OK(ag_array_index(ostack, frame, &oview));
      ag_array *copy = test_array_from(dev, t, ndim - 1, fshape, (char *)x + frame * per * es);
      ag_array *o1 = test_array_new(dev, t, ndim - 1, fshape), *o2 = test_array_new(dev, t, ndim - 1, fshape);
      ref_c *in = values(t, (char *)x + frame * per * es, per), *want = test_alloc(per * sizeof *want);
      for (int inverse = 0; inverse < 2; inverse++) {
        fft_fn fn = inverse ? ag_ifft : ag_fft;
        const char *name = inverse ? "ag_ifft" : "ag_fft";
        fftref_dft(in, want, ndim - 1, fshape, rank, inverse ? +1 : -1);
        scale_all(want, per, norm_factor(AG_FFT_BACKWARD, inverse, per));
        ref_check_ok(fn(q, view, rank, AG_FFT_BACKWARD, o1), "%s of frame %zu of %s", name, frame,
                     shape_str(ndim, shape));
        ref_check_ok(fn(q, copy, rank, AG_FFT_BACKWARD, o2), "%s of frame %zu copied out", name, frame);
        ref_check_ok(fn(q, view, rank, AG_FFT_BACKWARD, oview), "%s of frame %zu into frame %zu of another stack",
                     name, frame, frame);
        CHECK_OK(ag_queue_finish(q));
        void *g1 = test_array_read(o1), *g2 = test_array_read(o2), *g3 = test_array_read(ostack);
        check_close(t, g1, want, 1, per, fft_tol(t, per), "%s of frame %zu of %s", name, frame,
                    shape_str(ndim, shape));
        ref_c *v2 = values(t, g2, per);
        check_close(t, g1, v2, 1, per, 2 * fft_tol(t, per), "%s of frame %zu of %s against the frame copied out",
                    name, frame, shape_str(ndim, shape));
        check_close(t, (char *)g3 + frame * per * es, want, 1, per, fft_tol(t, per),
                    "%s of frame %zu of %s into a frame of another stack", name, frame, shape_str(ndim, shape));
        CHECK_BYTES(g3, guard, frame * per * es, "the frame before the output frame");
        CHECK_BYTES((char *)g3 + (frame + 1) * per * es, (char *)guard + (frame + 1) * per * es,
                    (n - (frame + 1) * per) * es, "the frames after the output frame");
        check_unchanged(stack, x, "the input stack");
        free(v2);
        free(g1);
        free(g2);
        free(g3);
      }
      free(in);
      free(want);
      free(x);
      free(guard);
      ag_array_free(view);
      ag_array_free(oview);
      ag_array_free(stack);
      ag_array_free(ostack);
      ag_array_free(copy);
      ag_array_free(o1);
      ag_array_free(o2);
    }
  }
  /* A real frame: rfft of frame 1 of a {3, 7} f32 stack (offset 28 bytes), and irfft back into
     frame 1 of another stack. */
  for (int k = 0; k < 2; k++) {
    ag_dtype rt = k == 0 ? AG_F32 : AG_F64, ct = k == 0 ? AG_C64 : AG_C128;
    if (!test_dtype_runs(dev, rt))
      continue;
    const size_t shape[2] = {3, 7}, hshape[2] = {3, 4};
    double tol = fft_tol(rt, 7);
    void *x = test_alloc(21 * ref_size(rt)), *guard = test_alloc(21 * ref_size(rt));
    ref_random(rt, x, 21, 990, -1, 1);
    ref_random(rt, guard, 21, 991, -1, 1);
    ag_array *stack = test_array_from(dev, rt, 2, shape, x), *ostack = test_array_from(dev, rt, 2, shape, guard);
    ag_array *spec = test_array_new(dev, ct, 2, hshape), *view = NULL, *oview = NULL, *sview = NULL;
    CHECK_OK(ag_array_index(stack, 1, &view));
    CHECK_OK(ag_array_index(ostack, 1, &oview));
    CHECK_OK(ag_array_index(spec, 1, &sview));
    ref_c *in = values(rt, (char *)x + 7 * ref_size(rt), 7), want[4];
    fftref_rfft(in, want, 1, &shape[1], 1);
    CHECK_OK(ag_rfft(q, view, 1, AG_FFT_BACKWARD, sview));
    CHECK_OK(ag_irfft(q, sview, 1, AG_FFT_BACKWARD, oview));
    CHECK_OK(ag_queue_finish(q));
    void *s = test_array_read(spec), *back = test_array_read(ostack);
    check_close(ct, (char *)s + 4 * ref_size(ct), want, 1, 4, tol, "ag_rfft of frame 1 of a {3, 7} stack");
    check_close(rt, (char *)back + 7 * ref_size(rt), in, 1, 7, 2 * tol, "ag_irfft into frame 1 of a {3, 7} stack");
    CHECK_BYTES(back, guard, 7 * ref_size(rt), "frame 0 of the stack ag_irfft wrote frame 1 of");
    CHECK_BYTES((char *)back + 14 * ref_size(rt), (char *)guard + 14 * ref_size(rt), 7 * ref_size(rt),
                "frame 2 of the stack ag_irfft wrote frame 1 of");
    free(s);
    free(back);
    free(in);
    free(x);
    free(guard);
    ag_array_free(view);
    ag_array_free(oview);
    ag_array_free(sview);
    ag_array_free(stack);
    ag_array_free(ostack);
    ag_array_free(spec);
  }
  ag_queue_destroy(q);
}
END_TEST

/* ---- transforms of views of any layout -------------------------------------------------------- */

/* The views these tests take (test_view_fn; no context). */
typedef ag_array *(*view_maker)(const ag_array *parent, const void *ctx);

static ag_array *every_other_column(const ag_array *p, const void *ctx) {
  (void)ctx;
  ag_array *v = NULL;
  CHECK_OK(ag_array_view(p, 2, (ag_index[]){ag_all(), ag_slice(1, AG_INDEX_NONE, 2)}, &v));
  return v;
}
static ag_array *transposed(const ag_array *p, const void *ctx) {
  (void)ctx;
  ag_array *v = NULL;
  CHECK_OK(ag_array_transpose(p, &v));
  return v;
}
static ag_array *rows_reversed(const ag_array *p, const void *ctx) {
  (void)ctx;
  ag_array *v = NULL;
  CHECK_OK(ag_array_flip(p, 1, (const int[]){0}, &v));
  return v;
}

/* A random array of dtype @p t and @p shape, and its view by @p make; *host the parent's
   values, *dense the view's in C order (free() both). */
static ag_array *random_view(ag_device *dev, ag_dtype t, const size_t *shape, uint64_t seed, view_maker make,
                             ag_array **parent, void **host, void **dense) {
  size_t n = shape[0] * shape[1];
  *host = test_alloc(n * ref_size(t));
  ref_random(t, *host, n, seed, -1, 1);
  *parent = test_array_from(dev, t, 2, shape, *host);
  ag_array *v = make(*parent, NULL);
  *dense = test_array_read(v);
  return v;
}

/* ag_fft and ag_ifft of a view (every other column of a 4 x 16 array over its last axis; the
   transpose of a 5 x 6 one over both) into a view (every other column, the rows reversed),
   and in place on the first: each against the naive DFT of the view's values, the output's
   parent unchanged outside the view (fft.h: views stand in contiguous). Few shapes: clFFT
   compiles kernels for each plan. */
START_TEST(complex_transforms_of_views_match_the_naive_dft) {
  ag_device *dev = test_device(_i);
  const struct {
    size_t xparent[2];
    view_maker xview;
    size_t oparent[2];
    view_maker oview;
    int rank;
    bool in_place; /* also in place on the view */
    const char *what;
  } cases[] = {
      {{4, 16}, every_other_column, {4, 16}, every_other_column, 1, true, "every other column into every other column"},
      {{5, 6}, transposed, {6, 5}, rows_reversed, 2, false, "a transpose over both axes into rows reversed"},
  };
  for (int k = 0; k < 2; k++) {
    ag_dtype t = complex_dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
      for (int inverse = 0; inverse < 2; inverse++) {
        fft_fn fn = inverse ? ag_ifft : ag_fft;
        uint64_t seed = 200000u + 100u * (unsigned)c + 10u * (unsigned)k + (unsigned)inverse;
        ag_array *px, *po;
        void *hx, *ho, *x, *o;
        ag_array *vx = random_view(dev, t, cases[c].xparent, seed, cases[c].xview, &px, &hx, &x);
        ag_array *vo = random_view(dev, t, cases[c].oparent, seed + 1, cases[c].oview, &po, &ho, &o);
        int nd = ag_array_ndim(vx), rank = cases[c].rank;
        const size_t *shape = ag_array_shape(vx);
        if (!lengths_run(nd, shape, rank))
          goto next;
        size_t n = count(nd, shape), per = fftref_points(nd, shape, rank);
        ref_c *in = values(t, x, n), *want = test_alloc(n * sizeof *want);
        fftref_dft(in, want, nd, shape, rank, inverse ? +1 : -1);
        scale_all(want, n, norm_factor(AG_FFT_ORTHO, inverse, per));
        ref_check_ok(fn(NULL, vx, rank, AG_FFT_ORTHO, vo), "%s of %s", inverse ? "ag_ifft" : "ag_fft",
                     cases[c].what);
        void *got = test_array_read(vo);
        check_close(t, got, want, n / per, per, fft_tol(t, per), "%s of %s", inverse ? "ag_ifft" : "ag_fft",
                    cases[c].what);
        check_unchanged(px, hx, "x's parent after a transform of a view");
        test_check_outside_view(po, ho, cases[c].oview, NULL, cases[c].what);
        if (!cases[c].in_place)
          goto done;
        /* In place on the view: x = out. */
        ref_check_ok(fn(NULL, vx, rank, AG_FFT_ORTHO, vx), "%s in place on %s", inverse ? "ag_ifft" : "ag_fft",
                     cases[c].what);
        void *gin = test_array_read(vx);
        check_close(t, gin, want, n / per, per, fft_tol(t, per), "%s in place on %s", inverse ? "ag_ifft" : "ag_fft",
                    cases[c].what);
        test_check_outside_view(px, hx, cases[c].xview, NULL, "a transform in place on a view");
        free(gin);
      done:
        TEST_FREE(got, in, want);
      next:
        TEST_FREE(hx, ho, x, o);
        TEST_ARRAY_FREE(vx, vo, px, po);
      }
  }
}
END_TEST

/* ag_rfft of every other column of a real 3 x 14 array into the rows reversed of a 3 x 4
   complex one, and ag_irfft of a transposed complex 4 x 3 array into every other column of a
   real 3 x 12 one: against numpy's rfftn and irfftn of the views' values (fftref); the
   parents unchanged outside the views, the input of irfft unchanged. */
START_TEST(real_transforms_of_views_match_the_naive_dft) {
  ag_device *dev = test_device(_i);
  const ag_dtype reals[2] = {AG_F32, AG_F64};
  for (int k = 0; k < 2; k++) {
    ag_dtype rt = reals[k], ct = complex_dtypes[k];
    if (!test_dtype_runs(dev, rt))
      continue;
    uint64_t seed = 210000u + 100u * (unsigned)k;
    ag_array *px, *po, *pc, *pr;
    void *hx, *ho, *hc, *hr, *x, *o, *cx, *ro;
    /* rfft: x (3, 7), out (3, 4). */
    ag_array *vx = random_view(dev, rt, (const size_t[]){3, 14}, seed, every_other_column, &px, &hx, &x);
    ag_array *vo = random_view(dev, ct, (const size_t[]){3, 4}, seed + 1, rows_reversed, &po, &ho, &o);
    const size_t rshape[2] = {3, 7};
    ref_c *in = values(rt, x, 21), *want = test_alloc(21 * sizeof *want);
    fftref_rfft(in, want, 2, rshape, 1);
    ref_check_ok(ag_rfft(NULL, vx, 1, AG_FFT_BACKWARD, vo), "ag_rfft of every other column");
    void *got = test_array_read(vo);
    check_close(ct, got, want, 3, 4, fft_tol(ct, 7), "ag_rfft of every other column into rows reversed");
    check_unchanged(px, hx, "rfft's x parent");
    free(got);
    free(in);
    /* irfft: x (3, 4) the transpose of (4, 3), out (3, 6) every other column of (3, 12). */
    hc = test_alloc(12 * ref_size(ct));
    ref_random(ct, hc, 12, seed + 2, -1, 1);
    /* Bins 0 and n/2 of a transform of real values are real; numpy's irfft ignores their
       imaginary parts, the providers need not: they are zero here (rows 0 and 3 of the
       parent, columns 0 and 3 of its transpose). */
    for (size_t j = 0; j < 3; j++) {
      ref_put(ct, hc, j, creall(ref_get(ct, hc, j)));
      ref_put(ct, hc, 9 + j, creall(ref_get(ct, hc, 9 + j)));
    }
    pc = test_array_from(dev, ct, 2, (const size_t[]){4, 3}, hc);
    ag_array *vc = transposed(pc, NULL);
    cx = test_array_read(vc);
    ag_array *vr = random_view(dev, rt, (const size_t[]){3, 12}, seed + 3, every_other_column, &pr, &hr, &ro);
    const size_t oshape[2] = {3, 6};
    in = values(ct, cx, 12);
    ref_c *rwant = test_alloc(18 * sizeof *rwant);
    fftref_irfft(in, rwant, 2, oshape, 1);
    scale_all(rwant, 18, 1.0L / 6);
    ref_check_ok(ag_irfft(NULL, vc, 1, AG_FFT_BACKWARD, vr), "ag_irfft of a transposed view");
    got = test_array_read(vr);
    check_close(rt, got, rwant, 3, 6, fft_tol(rt, 6), "ag_irfft of a transposed view into every other column");
    check_unchanged(pc, hc, "irfft's x parent");
    test_check_outside_view(pr, hr, every_other_column, NULL, "ag_irfft into every other column");
    TEST_FREE(hx, ho, hc, hr, x, o, cx, ro, in, want, rwant, got);
    TEST_ARRAY_FREE(px, po, pc, pr, vx, vo, vc, vr);
  }
}
END_TEST

/* fftshift and ifftshift of a transposed view into every other column of another array, as
   numpy rolls the view's values (exact); views keep the shape and broadcast checks. */
START_TEST(shifts_and_refusals_on_views) {
  ag_device *dev = test_device(_i);
  ag_dtype t = AG_C64;
  ag_array *px, *po;
  void *hx, *ho, *x, *o;
  ag_array *vx = random_view(dev, t, (const size_t[]){5, 4}, 220000, transposed, &px, &hx, &x); /* (4, 5) */
  ag_array *vo = random_view(dev, t, (const size_t[]){4, 10}, 220001, every_other_column, &po, &ho, &o);
  size_t es = ref_size(t);
  void *want = test_alloc(20 * es);
  for (int inverse = 0; inverse < 2; inverse++) {
    shift_fn fn = inverse ? ag_ifftshift : ag_fftshift;
    fftref_shift(x, want, es, 2, ag_array_shape(vx), 2, inverse);
    ref_check_ok(fn(NULL, vx, 2, vo), "%s of a transposed view", inverse ? "ag_ifftshift" : "ag_fftshift");
    void *got = test_array_read(vo);
    CHECK_BYTES(got, want, 20 * es, inverse ? "ag_ifftshift of a transposed view" : "ag_fftshift of a transposed view");
    free(got);
  }
  test_check_outside_view(po, ho, every_other_column, NULL, "fftshift into every other column");
  /* A view of the wrong shape, and a broadcast out. */
  ag_array *row = test_array_new(dev, t, 2, (const size_t[]){1, 4}), *bc = NULL;
  CHECK_REFUSED(ag_fft(NULL, vx, 1, AG_FFT_BACKWARD, po), AG_ERR_MISMATCH, "ag_fft", "out");
  CHECK_OK(ag_fill(NULL, row, 0));
  CHECK_OK(ag_array_broadcast_to(row, 2, (const size_t[]){5, 4}, &bc));
  CHECK_REFUSED(ag_fft(NULL, px, 1, AG_FFT_BACKWARD, bc), AG_ERR_INVALID_ARGUMENT, "ag_fft", "out", "broadcast");
  CHECK_REFUSED(ag_fftshift(NULL, px, 1, bc), AG_ERR_INVALID_ARGUMENT, "ag_fftshift", "out", "broadcast");
  TEST_FREE(hx, ho, x, o, want);
  TEST_ARRAY_FREE(px, po, vx, vo, row, bc);
}
END_TEST

/* ---- plans ---------------------------------------------------------------------------------------- */

/* fft.h keeps plans per device, shape, dtype and kind. Transforms that share a shape but differ
   in batch, rank, precision, direction, placement or kind must each get their own right
   answer, in an order that would reuse a wrongly shared plan; a repeated transform gives the
   same bits (same plan, same input); after ag_device_trim frees the plans, the next call
   makes them again and is still right. */
START_TEST(plans_are_cached_per_transform_and_trim_frees_them) {
  ag_device *dev = test_device(_i);
  const size_t s412[2] = {4, 12}, s212[2] = {2, 12}, s46[2] = {4, 6};
  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < 2; k++) {
      ag_dtype t = complex_dtypes[k];
      check_c2c(dev, t, 2, s412, 1, AG_FFT_BACKWARD, 1000);
      check_c2c(dev, t, 2, s212, 1, AG_FFT_BACKWARD, 1001); /* another batch */
      check_c2c(dev, t, 2, s46, 2, AG_FFT_BACKWARD, 1002);  /* one 4 x 6 transform */
      check_c2c(dev, t, 2, s46, 1, AG_FFT_BACKWARD, 1003);  /* four of length 6 */
      check_real(dev, ref_real_dtype(t), 2, s412, 1, AG_FFT_BACKWARD, 1004);
      check_c2c(dev, t, 2, s412, 1, AG_FFT_ORTHO, 1005);
    }
    /* The same transform twice: the same bits, and in place after out of place. */
    if (test_dtype_runs(dev, AG_C128)) {
      void *x = test_alloc(48 * 16);
      ref_random(AG_C128, x, 48, 1010, -1, 1);
      ag_array *ax = test_array_from(dev, AG_C128, 2, s412, x), *out = test_array_new(dev, AG_C128, 2, s412);
      CHECK_OK(ag_fft(NULL, ax, 1, AG_FFT_BACKWARD, out));
      void *first = test_array_read(out);
      CHECK_OK(ag_fft(NULL, ax, 1, AG_FFT_BACKWARD, out));
      void *second = test_array_read(out);
      CHECK_BYTES(second, first, 48 * 16, "a repeated ag_fft");
      CHECK_OK(ag_fft(NULL, ax, 1, AG_FFT_BACKWARD, ax));
      void *inplace = test_array_read(ax);
      ref_c *fv = values(AG_C128, first, 48);
      check_close(AG_C128, inplace, fv, 4, 12, 2 * fft_tol(AG_C128, 12), "ag_fft in place after out of place");
      free(fv);
      free(inplace);
      free(first);
      free(second);
      free(x);
      ag_array_free(ax);
      ag_array_free(out);
    }
    if (round == 0)
      CHECK_OK(ag_device_trim(dev));
  }
}
END_TEST

/* ---- trim beside transforms on other threads ------------------------------------------------ */

/* buffer.h promises that ag_device_trim is thread-safe, and it frees the device's plans: a plan
   another thread has just looked up, or is running, must survive until that thread is done
   with it. Workers transform over and over on the default queue, each checking every result
   against the naive DFT, while this thread trims the device until they finish. Two shapes, so
   that some workers share a plan and the plan cache holds more than one. */
enum { TRIM_WORKERS = 3, TRIM_ROUNDS = 25 };

typedef struct trim_worker {
  ag_device *dev;
  int id;
  ag_dtype dtype;
  pthread_barrier_t *start;
  atomic_int *running; /* workers not yet done; the trimming stops at 0 */
  char error[512];     /* empty while all is well */
} trim_worker;

/* The worker's transforms; a failure is written to w->error, since Check's assertions belong
   to the test's own thread. */
static void trim_worker_transforms(trim_worker *w) {
  const size_t shape[2] = {4, w->id % 2 ? 16 : 12}, n = shape[0] * shape[1];
  const ag_dtype t = w->dtype;
  void *x = malloc(n * ref_size(t)), *got = malloc(n * ref_size(t));
  ref_c *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  long double *scale = malloc(n * sizeof *scale);
  ag_array *ax = NULL, *out = NULL;
  ag_status st;
  if (x == NULL || got == NULL || in == NULL || want == NULL || scale == NULL) {
    snprintf(w->error, sizeof w->error, "worker %d: out of host memory", w->id);
    goto done;
  }
  ref_random(t, x, n, 3000u + (unsigned)w->id, -1, 1);
  for (size_t i = 0; i < n; i++)
    in[i] = ref_get(t, x, i);
  fftref_dft(in, want, 2, shape, 1, -1);
  rms_scale(want, shape[0], shape[1], scale); /* held as check_close holds results */
  if ((st = ag_array_from_host(w->dev, t, 2, shape, x, &ax)) != AG_OK ||
      (st = ag_array_create(w->dev, t, 2, shape, &out)) != AG_OK) {
    snprintf(w->error, sizeof w->error, "worker %d: setting up: %s: %s", w->id, ag_status_name(st), ag_last_error());
    goto done;
  }
  for (int round = 0; round < TRIM_ROUNDS; round++) {
    if ((st = ag_fft(NULL, ax, 1, AG_FFT_BACKWARD, out)) != AG_OK ||
        (st = ag_array_to_host(out, got, n * ref_size(t))) != AG_OK) {
      snprintf(w->error, sizeof w->error, "worker %d, round %d: %s: %s", w->id, round, ag_status_name(st),
               ag_last_error());
      break;
    }
    char msg[256];
    size_t at = ref_compare(t, got, want, scale, n, (ref_tol){fft_tol(t, shape[1]), 0}, msg, sizeof msg);
    if (at != n) {
      snprintf(w->error, sizeof w->error, "worker %d, round %d: ag_fft of 4x%zu, element %zu: %s", w->id, round,
               shape[1], at, msg);
      break;
    }
  }
done:
  ag_array_free(ax);
  ag_array_free(out);
  free(x);
  free(got);
  free(in);
  free(want);
  free(scale);
}

static void *trim_worker_main(void *arg) {
  trim_worker *w = arg;
  pthread_barrier_wait(w->start);
  trim_worker_transforms(w);
  atomic_fetch_sub(w->running, 1);
  return NULL;
}

/* Both precisions: each has its own FFTW planner on the host, and both must plan safely on
   several threads at once. */
static void trim_beside_transforms(ag_device *dev, ag_dtype t) {
  trim_worker w[TRIM_WORKERS];
  pthread_t threads[TRIM_WORKERS];
  pthread_barrier_t start;
  atomic_int running = TRIM_WORKERS;
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, TRIM_WORKERS + 1), 0);
  for (int i = 0; i < TRIM_WORKERS; i++) {
    w[i] = (trim_worker){.dev = dev, .id = i, .dtype = t, .start = &start, .running = &running};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, trim_worker_main, &w[i]), 0);
  }
  pthread_barrier_wait(&start);
  long trims = 0;
  ag_status st = AG_OK;
  do {
    st = ag_device_trim(dev);
    trims++;
  } while (st == AG_OK && atomic_load(&running) > 0);
  for (int i = 0; i < TRIM_WORKERS; i++)
    ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
  pthread_barrier_destroy(&start);
  ck_assert_msg(st == AG_OK, "%s: ag_device_trim after %ld trims: %s: %s", test_label(), trims,
                ag_status_name(st), ag_last_error());
  for (int i = 0; i < TRIM_WORKERS; i++)
    ck_assert_msg(w[i].error[0] == '\0', "%s: with ag_device_trim beside it: %s", test_label(), w[i].error);
  /* The cache still works after the last trim. */
  check_c2c(dev, t, 2, (const size_t[]){4, 12}, 1, AG_FFT_BACKWARD, 3100);
}

START_TEST(trim_on_another_thread_leaves_running_transforms_right) {
  ag_device *dev = test_device(_i);
  trim_beside_transforms(dev, AG_C64);
  if (test_dtype_runs(dev, AG_C128))
    trim_beside_transforms(dev, AG_C128);
}
END_TEST

/* ---- fftshift --------------------------------------------------------------------------------------- */

/* numpy.fft.fftshift rolls each of the last ndim axes by n/2, ifftshift by -(n/2): they differ
   for odd n and undo each other. Even and odd lengths, 1 to 3 axes, with a batch; the results
   must be exact. */
START_TEST(fftshift_and_ifftshift_roll_as_numpy_does) {
  ag_device *dev = test_device(_i);
  const struct {
    int ndim, rank;
    size_t shape[4];
  } cases[] = {{1, 1, {1}},       {1, 1, {8}},          {1, 1, {7}},          {2, 1, {3, 9}},
               {2, 2, {5, 6}},    {3, 2, {2, 4, 7}},    {3, 3, {3, 4, 5}},    {4, 3, {2, 5, 6, 3}},
               {4, 1, {2, 3, 4, 5}}, {2, 2, {1000, 7}}};
  /* Element sizes 1, 4 and 16 (the roll kernel is compiled per dtype, seconds each on pocl). */
  const ag_dtype dtypes[3] = {AG_U8, AG_F32, AG_C128};
  for (int k = 0; k < 3; k++) {
    ag_dtype t = dtypes[k];
    if (!test_dtype_runs(dev, t))
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      int ndim = cases[c].ndim, rank = cases[c].rank;
      const size_t *shape = cases[c].shape;
      size_t n = count(ndim, shape), bytes = n * ref_size(t);
      void *x = test_alloc(bytes), *want = test_alloc(bytes);
      test_fill_bytes(x, bytes, 1100u + 10u * (unsigned)c + (unsigned)k);
      ag_array *ax = test_array_from(dev, t, ndim, shape, x), *out = test_array_new(dev, t, ndim, shape);
      ag_array *back = test_array_new(dev, t, ndim, shape);
      for (int inverse = 0; inverse < 2; inverse++) {
        shift_fn fn = inverse ? ag_ifftshift : ag_fftshift, undo = inverse ? ag_fftshift : ag_ifftshift;
        const char *name = inverse ? "ag_ifftshift" : "ag_fftshift";
        char what[160];
        fftref_shift(x, want, ref_size(t), ndim, shape, rank, inverse);
        ref_check_ok(fn(NULL, ax, rank, out), "%s of %s %s over %d axes", name, ref_name(t), shape_str(ndim, shape),
                     rank);
        void *got = test_array_read(out);
        snprintf(what, sizeof what, "%s of %s %s over %d axes", name, ref_name(t), shape_str(ndim, shape), rank);
        CHECK_BYTES(got, want, bytes, what);
        ref_check_ok(undo(NULL, out, rank, back), "the inverse of %s", what);
        void *again = test_array_read(back);
        snprintf(what, sizeof what, "the inverse of %s of %s %s over %d axes", name, ref_name(t),
                 shape_str(ndim, shape), rank);
        CHECK_BYTES(again, x, bytes, what);
        check_unchanged(ax, x, "x after a shift");
        free(got);
        free(again);
      }
      free(x);
      free(want);
      ag_array_free(ax);
      ag_array_free(out);
      ag_array_free(back);
    }
  }
}
END_TEST

START_TEST(fftshift_refuses_out_equal_to_x_and_bad_operands) {
  ag_device *dev = test_device(_i);
  const size_t s[2] = {4, 5}, s2[2] = {5, 4}, s3[3] = {1, 4, 5};
  ag_array *x = test_array_new(dev, AG_F32, 2, s), *out = test_array_new(dev, AG_F32, 2, s);
  ag_array *wrong = test_array_new(dev, AG_F32, 2, s2), *w3 = test_array_new(dev, AG_F32, 3, s3);
  ag_array *wt = test_array_new(dev, AG_I32, 2, s);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, out, 3));
  const shift_fn fns[2] = {ag_fftshift, ag_ifftshift};
  const char *const names[2] = {"ag_fftshift", "ag_ifftshift"};
  for (int f = 0; f < 2; f++) {
    CHECK_REFUSED(fns[f](NULL, x, 1, x), AG_ERR_INVALID_ARGUMENT, names[f], "out|x");
    const int bad_ndims[] = {0, 3, 4, -1};
    for (size_t b = 0; b < sizeof bad_ndims / sizeof bad_ndims[0]; b++)
      CHECK_REFUSED(fns[f](NULL, x, bad_ndims[b], out), AG_ERR_INVALID_ARGUMENT, names[f], "ndim");
    CHECK_REFUSED(fns[f](NULL, x, 1, wrong), AG_ERR_MISMATCH, names[f], "out");
    CHECK_REFUSED(fns[f](NULL, x, 1, w3), AG_ERR_MISMATCH, names[f], "out");
    CHECK_REFUSED(fns[f](NULL, x, 1, wt), AG_ERR_MISMATCH, names[f], "out");
    CHECK_REFUSED(fns[f](NULL, NULL, 1, out), AG_ERR_INVALID_ARGUMENT, names[f], "x");
    CHECK_REFUSED(fns[f](NULL, x, 1, NULL), AG_ERR_INVALID_ARGUMENT, names[f], "out");
  }
  float back[20];
  CHECK_OK(ag_array_to_host(out, back, sizeof back));
  for (int i = 0; i < 20; i++)
    ck_assert_msg(back[i] == 3, "%s: a refused shift changed out[%d] to %g", test_label(), i, back[i]);
  ag_array_free(x);
  ag_array_free(out);
  ag_array_free(wrong);
  ag_array_free(w3);
  ag_array_free(wt);
}
END_TEST

/* ---- refusals -------------------------------------------------------------------------------------- */

START_TEST(transforms_refuse_bad_ndim_dtypes_shapes_and_null_operands) {
  ag_device *dev = test_device(_i);
  const size_t s8[2] = {4, 8}, s9[2] = {4, 9}, s5[2] = {4, 5}, s35[2] = {3, 5}, s4d[4] = {2, 2, 2, 2};
  ag_array *c8 = test_array_new(dev, AG_C64, 2, s8), *o8 = test_array_new(dev, AG_C64, 2, s8);
  ag_array *o9 = test_array_new(dev, AG_C64, 2, s9), *z8 = test_array_new(dev, AG_C128, 2, s8);
  ag_array *f8 = test_array_new(dev, AG_F32, 2, s8), *g8 = test_array_new(dev, AG_F32, 2, s8);
  ag_array *h5 = test_array_new(dev, AG_C64, 2, s5), *h35 = test_array_new(dev, AG_C64, 2, s35);
  ag_array *r9 = test_array_new(dev, AG_F32, 2, s9), *r7 = test_array_new(dev, AG_F32, 2, (const size_t[]){4, 7});
  ag_array *f5 = test_array_new(dev, AG_F32, 2, s5), *c4d = test_array_new(dev, AG_C64, 4, s4d);
  ag_array *o4d = test_array_new(dev, AG_C64, 4, s4d), *z5 = test_array_new(dev, AG_C128, 2, s5);
  ag_array *all[] = {c8, o8, o9, z8, f8, g8, h5, h35, r9, r7, f5, c4d, o4d, z5};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    CHECK_OK(ag_fill(NULL, all[i], 3));
  const fft_fn c2c[2] = {ag_fft, ag_ifft};
  const char *const c2c_names[2] = {"ag_fft", "ag_ifft"};
  for (int f = 0; f < 2; f++) {
    const char *fn = c2c_names[f];
    /* ndim: 1, 2 or 3, and no more than x has. */
    const int bad[] = {0, 4, 5, -1};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
      CHECK_REFUSED(c2c[f](NULL, c4d, bad[b], AG_FFT_BACKWARD, o4d), AG_ERR_INVALID_ARGUMENT, fn, "ndim");
    CHECK_REFUSED(c2c[f](NULL, c8, 3, AG_FFT_BACKWARD, o8), AG_ERR_INVALID_ARGUMENT, fn, "ndim");
    /* Real input: not a dtype ag_fft takes (unsupported) or one that does not fit (mismatch). */
    CHECK_REFUSED2(c2c[f](NULL, f8, 1, AG_FFT_BACKWARD, g8), AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH, fn, "f32");
    CHECK_REFUSED2(c2c[f](NULL, f8, 1, AG_FFT_BACKWARD, o8), AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH, fn, "f32");
    CHECK_REFUSED(c2c[f](NULL, c8, 1, AG_FFT_BACKWARD, z8), AG_ERR_MISMATCH, fn, "out|c128");
    CHECK_REFUSED(c2c[f](NULL, c8, 1, AG_FFT_BACKWARD, o9), AG_ERR_MISMATCH, fn, "out");
    CHECK_REFUSED(c2c[f](NULL, c8, 1, (ag_fft_norm)7, o8), AG_ERR_INVALID_ARGUMENT, fn, "norm");
    CHECK_REFUSED(c2c[f](NULL, NULL, 1, AG_FFT_BACKWARD, o8), AG_ERR_INVALID_ARGUMENT, fn, "x");
    CHECK_REFUSED(c2c[f](NULL, c8, 1, AG_FFT_BACKWARD, NULL), AG_ERR_INVALID_ARGUMENT, fn, "out");
  }
  /* rfft: x real, out complex of the precision with the last axis n/2 + 1. */
  CHECK_REFUSED(ag_rfft(NULL, f8, 1, AG_FFT_BACKWARD, o8), AG_ERR_MISMATCH, "ag_rfft", "out");
  CHECK_REFUSED(ag_rfft(NULL, f8, 1, AG_FFT_BACKWARD, h35), AG_ERR_MISMATCH, "ag_rfft", "out");
  CHECK_REFUSED(ag_rfft(NULL, r9, 1, AG_FFT_BACKWARD, o8), AG_ERR_MISMATCH, "ag_rfft", "out");
  CHECK_REFUSED2(ag_rfft(NULL, c8, 1, AG_FFT_BACKWARD, h5), AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH, "ag_rfft", "c64");
  CHECK_REFUSED2(ag_rfft(NULL, f8, 1, AG_FFT_BACKWARD, f5), AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH, "ag_rfft", "out|f32");
  CHECK_REFUSED(ag_rfft(NULL, f8, 1, AG_FFT_BACKWARD, z5), AG_ERR_MISMATCH, "ag_rfft", "out|c128");
  CHECK_REFUSED(ag_rfft(NULL, f8, 3, AG_FFT_BACKWARD, h5), AG_ERR_INVALID_ARGUMENT, "ag_rfft", "ndim");
  CHECK_REFUSED(ag_rfft(NULL, f8, 0, AG_FFT_BACKWARD, h5), AG_ERR_INVALID_ARGUMENT, "ag_rfft", "ndim");
  CHECK_REFUSED(ag_rfft(NULL, NULL, 1, AG_FFT_BACKWARD, h5), AG_ERR_INVALID_ARGUMENT, "ag_rfft", "x");
  CHECK_REFUSED(ag_rfft(NULL, f8, 1, AG_FFT_BACKWARD, NULL), AG_ERR_INVALID_ARGUMENT, "ag_rfft", "out");
  /* irfft: out's last axis n says the length; x's must be n/2 + 1 (8 and 9 both take 5). */
  CHECK_REFUSED(ag_irfft(NULL, h5, 1, AG_FFT_BACKWARD, r7), AG_ERR_MISMATCH, "ag_irfft", "out|x");
  CHECK_REFUSED(ag_irfft(NULL, o8, 1, AG_FFT_BACKWARD, f8), AG_ERR_MISMATCH, "ag_irfft", "out|x");
  CHECK_REFUSED(ag_irfft(NULL, h35, 1, AG_FFT_BACKWARD, f8), AG_ERR_MISMATCH, "ag_irfft", "out|x");
  CHECK_REFUSED2(ag_irfft(NULL, f5, 1, AG_FFT_BACKWARD, f8), AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH, "ag_irfft",
                 "x|f32");
  CHECK_REFUSED(ag_irfft(NULL, h5, 1, AG_FFT_BACKWARD, o8), AG_ERR_MISMATCH, "ag_irfft", "out|c64");
  CHECK_REFUSED(ag_irfft(NULL, h5, 4, AG_FFT_BACKWARD, f8), AG_ERR_INVALID_ARGUMENT, "ag_irfft", "ndim");
  CHECK_REFUSED(ag_irfft(NULL, NULL, 1, AG_FFT_BACKWARD, f8), AG_ERR_INVALID_ARGUMENT, "ag_irfft", "x");
  CHECK_REFUSED(ag_irfft(NULL, h5, 1, AG_FFT_BACKWARD, NULL), AG_ERR_INVALID_ARGUMENT, "ag_irfft", "out");
  /* The outputs of refused calls keep their 3s. */
  ag_array *outs[] = {o8, o9, z8, f8, g8, h5, h35, r9, r7, f5, o4d, z5};
  test_check_all_equal(outs, sizeof outs / sizeof outs[0], 3, "a refused transform");
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    ag_array_free(all[i]);
}
END_TEST

START_TEST(operands_on_different_devices_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "transforms with operands on two devices");
  if (other == NULL)
    return;
  const size_t s[2] = {2, 8}, h[2] = {2, 5};
  ag_array *x = test_array_new(dev, AG_C64, 2, s), *far = test_array_new(other, AG_C64, 2, s);
  ag_array *r = test_array_new(dev, AG_F32, 2, s), *hfar = test_array_new(other, AG_C64, 2, h);
  CHECK_OK(ag_fill(NULL, x, 1));
  CHECK_OK(ag_fill(NULL, r, 1));
  CHECK_REFUSED(ag_fft(NULL, x, 1, AG_FFT_BACKWARD, far), AG_ERR_MISMATCH, "ag_fft", "x", "out");
  CHECK_REFUSED(ag_ifft(NULL, x, 1, AG_FFT_BACKWARD, far), AG_ERR_MISMATCH, "ag_ifft", "x", "out");
  CHECK_REFUSED(ag_rfft(NULL, r, 1, AG_FFT_BACKWARD, hfar), AG_ERR_MISMATCH, "ag_rfft", "x", "out");
  CHECK_REFUSED(ag_fftshift(NULL, x, 1, far), AG_ERR_MISMATCH, "ag_fftshift", "x", "out");
  ag_queue *oq = NULL;
  CHECK_OK(ag_queue_create(other, &oq));
  ag_array *o = test_array_new(dev, AG_C64, 2, s);
  CHECK_REFUSED(ag_fft(oq, x, 1, AG_FFT_BACKWARD, o), AG_ERR_MISMATCH, "ag_fft", "queue|q");
  ag_queue_destroy(oq);
  /* The fills are done before the arrays go (and before the process exits, which pocl does not
     survive while it is still compiling a kernel). */
  CHECK_OK(ag_device_finish(dev));
  ag_array_free(o);
  ag_array_free(x);
  ag_array_free(far);
  ag_array_free(r);
  ag_array_free(hfar);
}
END_TEST

/* array.h: an operation on an empty array succeeds doing nothing. */
START_TEST(transforms_of_empty_batches_succeed) {
  ag_device *dev = test_device(_i);
  const size_t e[2] = {0, 8}, eh[2] = {0, 5}, z[1] = {0};
  ag_array *x = test_array_new(dev, AG_C64, 2, e), *out = test_array_new(dev, AG_C64, 2, e);
  ag_array *r = test_array_new(dev, AG_F32, 2, e), *h = test_array_new(dev, AG_C64, 2, eh);
  ag_array *x0 = test_array_new(dev, AG_C64, 1, z), *o0 = test_array_new(dev, AG_C64, 1, z);
  CHECK_OK(ag_fft(NULL, x, 1, AG_FFT_BACKWARD, out));
  CHECK_OK(ag_ifft(NULL, x, 1, AG_FFT_BACKWARD, out));
  CHECK_OK(ag_fft(NULL, x, 1, AG_FFT_BACKWARD, x));
  CHECK_OK(ag_rfft(NULL, r, 1, AG_FFT_BACKWARD, h));
  CHECK_OK(ag_irfft(NULL, h, 1, AG_FFT_BACKWARD, r));
  CHECK_OK(ag_fft(NULL, x0, 1, AG_FFT_BACKWARD, o0));
  CHECK_OK(ag_fftshift(NULL, x, 2, out));
  CHECK_OK(ag_ifftshift(NULL, x0, 1, o0));
  ag_array_free(x);
  ag_array_free(out);
  ag_array_free(r);
  ag_array_free(h);
  ag_array_free(x0);
  ag_array_free(o0);
}
END_TEST

/* ---- providers ------------------------------------------------------------------------------------- */

/* FFTW on the host; VkFFT by default on OpenCL and clFFT with ANYGPU_OPENCL_FFT=clfft; cuFFT
   on CUDA. In clFFT mode, lengths with a prime factor above 13 are refused, saying which
   factors it takes. */
START_TEST(the_provider_is_the_platform_fft_library) {
  ag_device *dev = test_device(_i);
  const char *want = test_backend_is("host") ? "FFTW" : test_backend_is("cuda") ? "cuFFT" : clfft_mode() ? "clFFT" : "VkFFT";
  const char *got = ag_fft_provider(dev);
  ck_assert_msg(got != NULL && strcmp(got, want) == 0, "%s: ag_fft_provider gave \"%s\", expected \"%s\"", test_label(),
                got ? got : "(null)", want);
  if (!clfft_mode())
    return;
  const size_t lengths[] = {17, 97, 4099, 34, 3 * 19};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    size_t n = lengths[i];
    char nword[32];
    snprintf(nword, sizeof nword, "%zu", n);
    ag_array *x = test_array_new(dev, AG_C64, 1, &n), *out = test_array_new(dev, AG_C64, 1, &n);
    CHECK_OK(ag_fill(NULL, x, 1));
    CHECK_OK(ag_fill(NULL, out, 3));
    CHECK_REFUSED(ag_fft(NULL, x, 1, AG_FFT_BACKWARD, out), AG_ERR_UNSUPPORTED, "ag_fft", "13", nword);
    float *back = test_array_read(out);
    ck_assert_msg(back[0] == 3 && back[2 * n - 2] == 3, "%s: a refused ag_fft of length %zu changed out", test_label(),
                  n);
    free(back);
    ag_array_free(x);
    ag_array_free(out);
  }
}
END_TEST

/* ---- the references themselves ----------------------------------------------------------------------- */

START_TEST(the_dft_and_shift_references_agree_with_analytic_values) {
  /* DFT of a delta at 0: all ones; of a delta at 1 of length 4: 1, -i, -1, i. */
  ref_c x[4] = {1, 0, 0, 0}, X[4];
  const size_t four = 4;
  fftref_dft(x, X, 1, &four, 1, -1);
  for (int k = 0; k < 4; k++)
    ck_assert(X[k] == 1);
  ref_c d1[4] = {0, 1, 0, 0};
  fftref_dft(d1, X, 1, &four, 1, -1);
  ck_assert(X[0] == 1 && X[1] == CMPLXL(0, -1) && X[2] == -1 && X[3] == CMPLXL(0, 1));
  fftref_dft(d1, X, 1, &four, 1, +1);
  ck_assert(X[1] == CMPLXL(0, 1) && X[3] == CMPLXL(0, -1));
  /* An exponential of length 7 at frequency 3: 7 at bin 3, 0 elsewhere (to 1e-17). */
  ref_c e[7], E[7];
  const size_t seven = 7;
  for (int j = 0; j < 7; j++)
    e[j] = cexpl(CMPLXL(0, 6.283185307179586476925286766559005768L * 3 * j / 7));
  fftref_dft(e, E, 1, &seven, 1, -1);
  for (int k = 0; k < 7; k++)
    ck_assert_msg(cabsl(E[k] - (k == 3 ? 7 : 0)) < 1e-17L, "bin %d is %Lg%+Lgi", k, creall(E[k]), cimagl(E[k]));
  /* 2-D, over both axes of [[1, 2], [3, 4]]: [[10, -2], [-4, 0]]; over the last only:
     [[3, -1], [7, -1]]. */
  ref_c m[4] = {1, 2, 3, 4}, M[4];
  const size_t s22[2] = {2, 2};
  fftref_dft(m, M, 2, s22, 2, -1);
  ck_assert(M[0] == 10 && M[1] == -2 && M[2] == -4 && M[3] == 0);
  fftref_dft(m, M, 2, s22, 1, -1);
  ck_assert(M[0] == 3 && M[1] == -1 && M[2] == 7 && M[3] == -1);
  /* rfft keeps n/2 + 1 bins of the full DFT, and irfft inverts it (times N) for even and odd n,
     over one and two axes. */
  const size_t shapes[3][2] = {{3, 6}, {3, 7}, {4, 5}};
  for (int s = 0; s < 3; s++) {
    for (int rank = 1; rank <= 2; rank++) {
      size_t r = shapes[s][0], c = shapes[s][1], h = c / 2 + 1;
      ref_c in[28], full[28], half[16], back[28];
      double v[28];
      ref_random(AG_F64, v, r * c, 50u + (unsigned)s, -1, 1);
      for (size_t i = 0; i < r * c; i++)
        in[i] = v[i];
      fftref_dft(in, full, 2, shapes[s], rank, -1);
      fftref_rfft(in, half, 2, shapes[s], rank);
      for (size_t i = 0; i < r; i++)
        for (size_t k = 0; k < h; k++)
          ck_assert_msg(cabsl(half[i * h + k] - full[i * c + k]) < 1e-17L, "rfft of %zu x %zu, rank %d, at %zu, %zu", r,
                        c, rank, i, k);
      fftref_irfft(half, back, 2, shapes[s], rank);
      size_t npoints = rank == 2 ? r * c : c;
      for (size_t i = 0; i < r * c; i++)
        ck_assert_msg(fabsl(creall(back[i]) / (long double)npoints - v[i]) < 1e-17L && cimagl(back[i]) == 0,
                      "irfft(rfft) of %zu x %zu, rank %d, at %zu", r, c, rank, i);
    }
  }
  /* numpy: fftshift(arange(5)) = [3 4 0 1 2], ifftshift(arange(5)) = [2 3 4 0 1],
     fftshift(arange(6)) = [3 4 5 0 1 2], fftshift(arange(6).reshape(2, 3)) = [[5 3 4] [2 0 1]],
     and over the last axis only [[2 0 1] [5 3 4]]. */
  const unsigned char a5[5] = {0, 1, 2, 3, 4}, a6[6] = {0, 1, 2, 3, 4, 5};
  unsigned char o[6];
  const size_t five = 5, six = 6, s23[2] = {2, 3};
  fftref_shift(a5, o, 1, 1, &five, 1, false);
  ck_assert(memcmp(o, (const unsigned char[]){3, 4, 0, 1, 2}, 5) == 0);
  fftref_shift(a5, o, 1, 1, &five, 1, true);
  ck_assert(memcmp(o, (const unsigned char[]){2, 3, 4, 0, 1}, 5) == 0);
  fftref_shift(a6, o, 1, 1, &six, 1, false);
  ck_assert(memcmp(o, (const unsigned char[]){3, 4, 5, 0, 1, 2}, 6) == 0);
  fftref_shift(a6, o, 1, 2, s23, 2, false);
  ck_assert(memcmp(o, (const unsigned char[]){5, 3, 4, 2, 0, 1}, 6) == 0);
  fftref_shift(a6, o, 1, 2, s23, 1, false);
  ck_assert(memcmp(o, (const unsigned char[]){2, 0, 1, 5, 3, 4}, 6) == 0);
  ck_assert_uint_eq(fftref_largest_prime_factor(4099), 4099);
  ck_assert_uint_eq(fftref_largest_prime_factor(1000), 5);
  ck_assert_uint_eq(fftref_largest_prime_factor(2 * 13 * 13), 13);
  ck_assert_uint_eq(fftref_largest_prime_factor(1), 1);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "the DFT and shift references agree with analytic values",
                  the_dft_and_shift_references_agree_with_analytic_values);
    return;
  }
  add_device_test(s, "the provider is the platform FFT library", the_provider_is_the_platform_fft_library);
  add_device_test(s, "one-dimensional transforms of every length match the naive DFT in single precision",
                  one_dimensional_transforms_of_every_length_match_the_naive_dft_in_single_precision);
  add_device_test(s, "one-dimensional transforms of every length match the naive DFT in double precision",
                  one_dimensional_transforms_of_every_length_match_the_naive_dft_in_double_precision);
  add_device_test(s, "two- and three-dimensional transforms with batches match the naive DFT",
                  two_and_three_dimensional_transforms_with_batches_match_the_naive_dft);
  add_device_test(s, "axes of length 1 are transformed too", axes_of_length_1_are_transformed_too);
  add_device_test(s, "real transforms match the naive DFT and invert for even and odd lengths",
                  real_transforms_match_the_naive_dft_and_invert_for_even_and_odd_lengths);
  add_device_test(s, "every norm scales as numpy does", every_norm_scales_as_numpy_does);
  add_device_test(s, "the inverse undoes the forward transform for every norm",
                  the_inverse_undoes_the_forward_transform_for_every_norm);
  add_device_test(s, "deltas, exponentials and constants have their analytic transforms",
                  deltas_exponentials_and_constants_have_their_analytic_transforms);
  add_device_test(s, "transforms keep the energy as Parseval says", transforms_keep_the_energy_as_parseval_says);
  add_device_test(s, "transforms are linear", transforms_are_linear);
  add_device_test(s, "in-place transforms equal out-of-place ones", in_place_transforms_equal_out_of_place_ones);
  add_device_test(s, "transforms of views equal transforms of the frame copied out",
                  transforms_of_views_equal_transforms_of_the_frame_copied_out);
  add_device_test(s, "complex transforms of views match the naive DFT", complex_transforms_of_views_match_the_naive_dft);
  add_device_test(s, "real transforms of views match the naive DFT", real_transforms_of_views_match_the_naive_dft);
  add_device_test(s, "shifts and refusals on views", shifts_and_refusals_on_views);
  add_device_test(s, "plans are cached per transform and trim frees them",
                  plans_are_cached_per_transform_and_trim_frees_them);
  add_device_test(s, "trim on another thread leaves running transforms right",
                  trim_on_another_thread_leaves_running_transforms_right);
  add_device_test(s, "fftshift and ifftshift roll as numpy does", fftshift_and_ifftshift_roll_as_numpy_does);
  add_device_test(s, "fftshift refuses out equal to x and bad operands",
                  fftshift_refuses_out_equal_to_x_and_bad_operands);
  add_device_test(s, "transforms refuse bad ndim, dtypes, shapes and NULL operands",
                  transforms_refuse_bad_ndim_dtypes_shapes_and_null_operands);
  add_device_test(s, "operands on different devices are refused", operands_on_different_devices_are_refused);
  add_device_test(s, "transforms of empty batches succeed", transforms_of_empty_batches_succeed);
}
