/* tests/fft_reference.c — naive DFTs in long double and numpy's fftshift, the references of
   test_fft. See fft_reference.h. */
#include <math.h>
#include <stdlib.h>

#include "fft_reference.h"

static const long double two_pi = 6.283185307179586476925286766559005768L;

size_t fftref_points(int ndim, const size_t *shape, int rank) {
  size_t n = 1;
  for (int d = ndim - rank; d < ndim; d++)
    n *= shape[d];
  return n;
}

size_t fftref_batch(int ndim, const size_t *shape, int rank) {
  size_t n = 1;
  for (int d = 0; d < ndim - rank; d++)
    n *= shape[d];
  return n;
}

/* Twiddles e^(sign 2 pi i m / n) for m < n, each from its own angle, with the angle folded into
   [0, pi/4] by symmetry so that cosl and sinl are evaluated where they are most accurate and
   exact values (1, i, -1, -i) come out exact. */
static void twiddles(size_t n, int sign, long double *wr, long double *wi) {
  for (size_t m = 0; m < n; m++) {
    /* angle = 2 pi m / n = (pi / 4) * (8 m / n); octant and remainder in exact integers. */
    size_t num = 8 * m, oct = num / n, rem = num % n;
    long double f = (long double)rem / (long double)n; /* fraction of the octant, [0, 1) */
    long double c, s;
    /* cos and sin of (pi / 4) * (oct + f), from the first octant. */
    long double a = two_pi / 8 * f, b = two_pi / 8 * (1 - f);
    switch (oct) {
    case 0: c = cosl(a); s = sinl(a); break;
    case 1: c = sinl(b); s = cosl(b); break;
    case 2: c = -sinl(a); s = cosl(a); break;
    case 3: c = -cosl(b); s = sinl(b); break;
    case 4: c = -cosl(a); s = -sinl(a); break;
    case 5: c = -sinl(b); s = -cosl(b); break;
    case 6: c = sinl(a); s = -cosl(a); break;
    default: c = cosl(b); s = -sinl(b); break;
    }
    wr[m] = c;
    wi[m] = sign < 0 ? -s : s;
  }
}

/* The DFT of the @p n values at re/im (stride 1) into ore/oim, with twiddle table wr/wi. */
static void dft_1d(size_t n, const long double *re, const long double *im, const long double *wr,
                   const long double *wi, long double *ore, long double *oim, size_t nout) {
  for (size_t k = 0; k < nout; k++) {
    long double sr = 0, si = 0;
    size_t idx = 0; /* j * k mod n, kept without overflow */
    for (size_t j = 0; j < n; j++) {
      sr += re[j] * wr[idx] - im[j] * wi[idx];
      si += re[j] * wi[idx] + im[j] * wr[idx];
      idx += k;
      if (idx >= n)
        idx -= n;
    }
    ore[k] = sr;
    oim[k] = si;
  }
}

/* Transforms axis @p axis of the @p ndim-D array @p data of @p shape in place, keeping the
   first @p nout (<= the length) bins along it, packed: the array's length along the axis
   becomes nout. Each outer block is read whole before its packed output is written, and the
   packed block o ends no later than block o + 1 begins, so nothing unread is overwritten. */
static void transform_axis(ref_c *data, int ndim, const size_t *shape, int axis, int sign, size_t nout) {
  size_t len = shape[axis], outer = 1, inner = 1;
  for (int d = 0; d < axis; d++)
    outer *= shape[d];
  for (int d = axis + 1; d < ndim; d++)
    inner *= shape[d];
  if (len == 0 || outer == 0 || inner == 0)
    return;
  long double *wr = test_alloc(len * sizeof *wr), *wi = test_alloc(len * sizeof *wi);
  long double *re = test_alloc(len * sizeof *re), *im = test_alloc(len * sizeof *im);
  long double *ore = test_alloc(len * sizeof *ore), *oim = test_alloc(len * sizeof *oim);
  twiddles(len, sign, wr, wi);
  for (size_t o = 0; o < outer; o++) {
    ref_c *block_in = data + o * len * inner, *block_out = data + o * nout * inner;
    ref_c *tmp = test_alloc(nout * inner * sizeof *tmp);
    for (size_t i = 0; i < inner; i++) {
      for (size_t j = 0; j < len; j++) {
        re[j] = creall(block_in[j * inner + i]);
        im[j] = cimagl(block_in[j * inner + i]);
      }
      dft_1d(len, re, im, wr, wi, ore, oim, nout);
      for (size_t k = 0; k < nout; k++)
        tmp[k * inner + i] = CMPLXL(ore[k], oim[k]);
    }
    memcpy(block_out, tmp, nout * inner * sizeof *tmp);
    free(tmp);
  }
  free(wr);
  free(wi);
  free(re);
  free(im);
  free(ore);
  free(oim);
}

static size_t count(int ndim, const size_t *shape) {
  size_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  return n;
}

void fftref_dft(const ref_c *in, ref_c *out, int ndim, const size_t *shape, int rank, int sign) {
  size_t n = count(ndim, shape);
  if (out != in)
    memmove(out, in, n * sizeof *out);
  for (int axis = ndim - rank; axis < ndim; axis++)
    transform_axis(out, ndim, shape, axis, sign, shape[axis]);
}

void fftref_rfft(const ref_c *in, ref_c *out, int ndim, const size_t *shape, int rank) {
  /* The last axis first, keeping n/2 + 1 bins, then the others over the packed shape. */
  size_t n = count(ndim, shape);
  ref_c *work = test_alloc((n > 0 ? n : 1) * sizeof *work);
  for (size_t i = 0; i < n; i++)
    work[i] = creall(in[i]); /* real input: any imaginary part is not part of it */
  size_t half[AG_MAX_DIMS];
  memcpy(half, shape, (size_t)ndim * sizeof *shape);
  half[ndim - 1] = shape[ndim - 1] / 2 + 1;
  transform_axis(work, ndim, shape, ndim - 1, -1, half[ndim - 1]);
  for (int axis = ndim - rank; axis < ndim - 1; axis++)
    transform_axis(work, ndim, half, axis, -1, half[axis]);
  memcpy(out, work, count(ndim, half) * sizeof *out);
  free(work);
}

void fftref_irfft(const ref_c *in, ref_c *out, int ndim, const size_t *shape, int rank) {
  size_t half[AG_MAX_DIMS];
  memcpy(half, shape, (size_t)ndim * sizeof *shape);
  size_t n = shape[ndim - 1], h = n / 2 + 1;
  half[ndim - 1] = h;
  size_t nh = count(ndim, half);
  ref_c *work = test_alloc((nh > 0 ? nh : 1) * sizeof *work);
  memcpy(work, in, nh * sizeof *work);
  /* numpy.fft.irfftn: complex inverse transforms over every transformed axis but the last. */
  for (int axis = ndim - rank; axis < ndim - 1; axis++)
    transform_axis(work, ndim, half, axis, +1, half[axis]);
  /* Then c2r along the last axis: x[j] = sum over the Hermitian extension, real part. */
  long double *wr = test_alloc((n > 0 ? n : 1) * sizeof *wr), *wi = test_alloc((n > 0 ? n : 1) * sizeof *wi);
  twiddles(n, +1, wr, wi);
  size_t lines = n > 0 ? nh / h : 0;
  for (size_t l = 0; l < lines; l++) {
    const ref_c *x = work + l * h;
    for (size_t j = 0; j < n; j++) {
      long double s = 0;
      size_t idx = 0; /* j * k mod n */
      for (size_t k = 0; k < n; k++, idx = idx + j >= n ? idx + j - n : idx + j) {
        /* Bin k of the extension: X[k] for k <= n/2, conj(X[n - k]) above; bin 0 and the
           Nyquist bin count with their real parts only. */
        long double xr, xi;
        if (k < h) {
          xr = creall(x[k]);
          xi = cimagl(x[k]);
        } else {
          xr = creall(x[n - k]);
          xi = -cimagl(x[n - k]);
        }
        if (k == 0 || 2 * k == n)
          xi = 0;
        s += xr * wr[idx] - xi * wi[idx];
      }
      out[l * n + j] = s;
    }
  }
  free(wr);
  free(wi);
  free(work);
}

void fftref_shift(const void *in, void *out, size_t size, int ndim, const size_t *shape, int rank, bool inverse) {
  size_t n = count(ndim, shape);
  const unsigned char *src = in;
  unsigned char *dst = out;
  for (size_t i = 0; i < n; i++) {
    /* numpy.roll: out[(idx + shift) mod len] = in[idx] along each shifted axis. */
    size_t rest = i, o = 0, stride = 1;
    size_t idx[AG_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    for (int d = ndim - 1; d >= 0; d--) {
      size_t j = idx[d];
      if (d >= ndim - rank) {
        size_t len = shape[d], shift = len / 2;
        j = inverse ? (j + len - shift) % len : (j + shift) % len;
      }
      o += j * stride;
      stride *= shape[d];
    }
    memcpy(dst + o * size, src + i * size, size);
  }
}

size_t fftref_largest_prime_factor(size_t n) {
  size_t largest = 1;
  for (size_t p = 2; p * p <= n; p++) {
    while (n % p == 0) {
      largest = p;
      n /= p;
    }
  }
  return n > 1 ? n : largest;
}
