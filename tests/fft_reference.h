/* tests/fft_reference.h — naive discrete Fourier transforms in long double, the references of
   test_fft: O(n^2) sums per axis, with twiddles e^(+-2 pi i m/n) evaluated directly for each
   m < n (no recurrences), so their error (~1e-19 relative) is far below that of any float or
   double FFT. Arrays are C-ordered ref_c values; the transformed axes are the trailing ones and
   the leading ones a batch, as in fft.h. Nothing here calls the library. */
#ifndef AG_TESTS_FFT_REFERENCE_H
#define AG_TESTS_FFT_REFERENCE_H

#include "reference.h"

/* out = the unnormalised DFT of in over the last @p rank axes of the @p ndim-D @p shape:
   X[k] = sum_j x[j] e^(sign 2 pi i j.k / n), sign -1 forward (numpy.fft.fftn's convention), +1
   inverse (n * numpy.fft.ifftn). in and out may be the same memory. */
void fftref_dft(const ref_c *in, ref_c *out, int ndim, const size_t *shape, int rank, int sign);

/* numpy.fft.rfftn, unnormalised: the forward DFT of @p in (real values, stored as ref_c) over
   the last @p rank axes, keeping the first n/2 + 1 bins of the last axis. @p shape is in's;
   out has the last axis n/2 + 1. */
void fftref_rfft(const ref_c *in, ref_c *out, int ndim, const size_t *shape, int rank);

/* numpy.fft.irfftn with s = the last @p rank lengths of @p shape, times N (unnormalised): the
   inverse DFT over the leading transformed axes, then along the last one the Hermitian
   extension X[n - k] = conj(X[k]) with the imaginary parts of bin 0 and (n even) bin n/2
   ignored, as pocketfft's c2r does. @p shape is out's (real) shape; in has the last axis n/2 + 1.
   out receives real values. */
void fftref_irfft(const ref_c *in, ref_c *out, int ndim, const size_t *shape, int rank);

/* The product of the last @p rank lengths of @p shape (N of fft.h), and of the leading ones
   (the batch). */
size_t fftref_points(int ndim, const size_t *shape, int rank);
size_t fftref_batch(int ndim, const size_t *shape, int rank);

/* numpy.fft.fftshift (@p inverse false: a roll by n/2 along each of the last @p rank axes) and
   ifftshift (a roll by -(n/2)) of @p ndim-D elements of @p size bytes; exact. */
void fftref_shift(const void *in, void *out, size_t size, int ndim, const size_t *shape, int rank, bool inverse);

/* The largest prime factor of @p n (1 for n = 1). */
size_t fftref_largest_prime_factor(size_t n);

#endif
