/* anygpu/fft.h - fast Fourier transforms over the trailing axes of an array, batched over the
   leading ones, through each platform's FFT library: cuFFT on CUDA, VkFFT (default) or clFFT
   on OpenCL (ANYGPU_OPENCL_FFT=vkfft|clfft), FFTW on the host. Plans are made on first use and
   kept per device, shape, dtype and kind; ag_device_trim frees them from any thread, leaving
   for a later trim a plan that a transform on another thread is using at that moment.
   Transforms that share a plan (one device, shape, dtype and kind) take turns with it.

   Threads and ownership: as ops.h. Every function may be called from any thread at once, on
   its own queue or NULL; operands are borrowed for the call only and may be freed on return.
   Plans are the library's, never the caller's to free. ag_fft_provider's string is static for
   the life of the process. */
#ifndef ANYGPU_FFT_H
#define ANYGPU_FFT_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Scaling, as numpy's norm= argument. */
typedef enum ag_fft_norm {
  AG_FFT_BACKWARD = 0, /* numpy's default: forward unscaled, inverse by 1/N */
  AG_FFT_ORTHO = 1,    /* both by 1/sqrt(N) */
  AG_FFT_FORWARD = 2,  /* forward by 1/N, inverse unscaled */
} ag_fft_norm;

/* The transforms run over the last @p ndim axes (1, 2 or 3) of x; the leading axes are a
   batch. N is the product of the transformed lengths. Every length is allowed, primes
   included (clFFT takes only lengths made of 2, 3, 5, 7, 11 and 13: others are
   AG_ERR_UNSUPPORTED saying so). Single precision: f32 and c64; double: f64 and c128.
   out may be x for ag_fft and ag_ifft (in place).
   Views (array.h): a view x is copied into a contiguous temporary, which is transformed; a
   view out receives the result through a contiguous temporary copied into it (a broadcast
   view out is AG_ERR_INVALID_ARGUMENT). In place on a view (out the same view as x), one
   temporary is transformed in place and copied back. Contiguous operands take no copy. */

/** Complex to complex, forward (e^-2pi i jk/n) and inverse: x and out c64 or c128, one shape. */
AG_API ag_status ag_fft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out);
AG_API ag_status ag_ifft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out);

/** Real to complex: x f32 or f64; out c64 or c128 of x's shape with the last axis n/2 + 1
    (numpy.fft.rfftn). */
AG_API ag_status ag_rfft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out);

/** Complex to real, the inverse of ag_rfft: out's last axis n says the length (x's last axis
    is n/2 + 1), as numpy.fft.irfftn's s= does. x is not changed. */
AG_API ag_status ag_irfft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out);

/** Moves the zero frequency to the centre of the last @p ndim axes (numpy.fft.fftshift: a
    roll by n/2), and back (ifftshift: by -(n/2)). Any dtype; out has x's shape and dtype and
    may not share x's memory. x and out may be views, staged as the elementwise operations'. */
AG_API ag_status ag_fftshift(ag_queue *q, const ag_array *x, int ndim, ag_array *out);
AG_API ag_status ag_ifftshift(ag_queue *q, const ag_array *x, int ndim, ag_array *out);

/** The library that runs FFTs on @p dev ("FFTW", "VkFFT", "clFFT", "cuFFT"; on OpenCL the
    one ANYGPU_OPENCL_FFT names at this call); NULL when none. Static string. */
AG_API const char *ag_fft_provider(const ag_device *dev);

#ifdef __cplusplus
}
#endif

#endif
