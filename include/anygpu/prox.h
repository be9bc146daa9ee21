/* anygpu/prox.h — proximal operators, finite differences and image metrics, as the sparse-coding
   package sporco defines them (sporco.prox, sporco.signal.grad and gradT, sporco.metric): the
   building blocks of ADMM and proximal-gradient solvers. docs/prox.md describes the kernels,
   the accuracy and where the results differ from sporco's.

   Calling convention (ops.h): queue NULL means the calling thread's default queue of the
   operands' device; out is an existing array of v's (or x's) shape and dtype; operations are
   asynchronous on the queue, except the metrics and ag_prox_nuclear, which wait (below). All
   operands live on one device (AG_ERR_MISMATCH names both otherwise). Empty arrays are valid
   and leave nothing to do.

   Axes: an axis argument is 0 to ndim - 1, or AG_AXIS_ALL (ops.h) to treat the whole array as
   one vector. An operation "along an axis" takes the 2-norm of every line of the array along
   that axis (keepdims, as sporco's axis argument does) and scales that line by it.

   Errors: a NULL array or an array of another device, a dtype an operation does not take, a
   shape that does not match, an axis out of range, a negative or NaN parameter: each is
   refused before anything is enqueued, with a status and a message in ag_last_error() that
   names the function and the argument. f64 and c128 are AG_ERR_UNSUPPORTED on devices without
   double precision.

   Threads and ownership: as ops.h. Every function may be called from any thread at once, each
   thread on its own queue or NULL; operands are borrowed for the call only. */
#ifndef ANYGPU_PROX_H
#define ANYGPU_PROX_H

#include "array.h"
#include "ops.h" /* AG_AXIS_ALL */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- proximal operators ---------------------------------------------------------------- */

/** The l1 proximal operator (soft thresholding, sporco.prox.prox_l1):
    out = sign(v) max(|v| - alpha, 0); for complex v, v / |v| max(|v| - alpha, 0), with 0 at
    v = 0 (where sporco divides 0 by 0 and gives NaN). NaN stays NaN. One elementwise pass
    (ag_soft_threshold).
    @param v      f32, f64, c64 or c128
    @param alpha  0 or more
    @param out    v's shape and dtype; may be v
    @return AG_ERR_INVALID_ARGUMENT (NULL array, alpha negative or NaN), AG_ERR_UNSUPPORTED
            (another dtype; f64 or c128 without double precision), AG_ERR_MISMATCH (out's
            dtype, shape or device). */
AG_API ag_status ag_prox_l1(ag_queue *q, const ag_array *v, double alpha, ag_array *out);

/** The l2 proximal operator (vector soft thresholding, sporco.prox.prox_l2): with a the
    2-norm of each line of v along @p axis, out = max(a - alpha, 0) / a * v, and 0 on a line
    whose norm is 0. Along an axis this is the proximal operator of the l2,1 norm (the sum of
    the lines' norms).
    @param v      f32, f64, c64 or c128
    @param alpha  0 or more
    @param axis   0 to ndim - 1, or AG_AXIS_ALL
    @param out    v's shape and dtype; may be v
    @return as ag_prox_l1, and AG_ERR_INVALID_ARGUMENT for an axis out of range. */
AG_API ag_status ag_prox_l2(ag_queue *q, const ag_array *v, double alpha, int axis, ag_array *out);

/** The projection onto the l2 ball of radius gamma (sporco.prox.proj_l2): with d the 2-norm
    of each line along @p axis, out = v on lines where d <= gamma, gamma / d * v on the others.
    @param gamma  0 or more
    Otherwise as ag_prox_l2. */
AG_API ag_status ag_proj_l2(ag_queue *q, const ag_array *v, double gamma, int axis, ag_array *out);

/** The proximal operator of alpha ||x||_1 + beta ||x||_2 (sporco.prox.prox_sl1l2):
    ag_prox_l2(ag_prox_l1(v, alpha), beta, axis), in one pass over v where the lines are
    short enough (docs/prox.md), in three otherwise.
    @param alpha, beta  0 or more
    Otherwise as ag_prox_l2. */
AG_API ag_status ag_prox_sl1l2(ag_queue *q, const ag_array *v, double alpha, double beta, int axis,
                               ag_array *out);

/** The nuclear-norm proximal operator (singular value thresholding, sporco.prox.prox_nuclear)
    of a matrix v of shape {m, n}: with the thin SVD v = U diag(s) V^T,
    out = U diag(max(s - alpha, 0)) V^T.

    For f64 and alpha > 0 only the singular values above alpha are computed, from the
    eigenpairs above alpha^2 of the smaller Gram matrix (the squaring costs accuracy in the
    small singular values only, which are thresholded away). On a CUDA device this runs on
    the device: the Gram matrix and the products by cuBLAS, the eigenpairs by cuSOLVER's
    syevd (which waits for @p q), only the min(m, n) eigenvalues read back; out is left
    enqueued on @p q and sv written with a blocking write. Elsewhere (host, OpenCL), for f32,
    for alpha = 0, and when the device route fails before out is written, the SVD runs on the
    host with LAPACK in v's precision (dsyevr on the Gram matrix for f64 and alpha > 0, else
    the divide-and-conquer ?gesdd): the call reads v to the host (waiting for the work
    enqueued on it), computes, and writes out (and sv) back with blocking writes on @p q, so
    it returns when the results are on the device. Host memory of about
    2 m n + (m + n) min(m, n) elements, plus LAPACK's workspace, is used for that route
    (docs/prox.md, "The nuclear norm").
    @param v      f32 or f64, 2-D, every value finite
    @param alpha  0 or more
    @param out    v's shape and dtype; may be v
    @param sv     NULL, or an array of shape {min(m, n)} and v's dtype that receives the
                  thresholded singular values max(s - alpha, 0), largest first
    @return AG_ERR_UNSUPPORTED for complex dtypes (and integers); AG_ERR_INVALID_ARGUMENT for
            a v that is not 2-D or holds NaN or Inf, alpha negative or NaN; AG_ERR_MISMATCH for
            out or sv of the wrong shape, dtype or device; AG_ERR_OUT_OF_RANGE for a side of
            2^31 or more; AG_ERR_DEVICE when LAPACK fails to converge; AG_ERR_OUT_OF_MEMORY. */
AG_API ag_status ag_prox_nuclear(ag_queue *q, const ag_array *v, double alpha, ag_array *out, ag_array *sv);

/* ---- finite differences ---------------------------------------------------------------- */

/** The forward difference along @p axis (sporco.signal.grad with zero_pad=False):
    out[.., j, ..] = x[.., j + 1, ..] - x[.., j, ..], and 0 at the last index j = n - 1 (so all
    of out is 0 when the axis has length 1).
    @param x     f32, f64, c64 or c128, 1 to 4 dimensions
    @param axis  0 to ndim - 1
    @param out   x's shape and dtype, in memory that does not overlap x's
    @return AG_ERR_INVALID_ARGUMENT (NULL array, axis out of range, out overlapping x),
            AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH as for ag_prox_l1. */
AG_API ag_status ag_grad(ag_queue *q, const ag_array *x, int axis, ag_array *out);

/** The adjoint of ag_grad along @p axis (sporco.signal.gradT with zero_pad=False), for an
    axis of length n: out[0] = -x[0], out[j] = x[j - 1] - x[j] for 0 < j < n - 1,
    out[n - 1] = x[n - 2]. For n == 1 out is 0, the adjoint of ag_grad's zero map there
    (sporco raises an error for that length). So <ag_grad(x), y> == <x, ag_grad_t(y)>.
    Parameters and errors as ag_grad. */
AG_API ag_status ag_grad_t(ag_queue *q, const ag_array *x, int axis, ag_array *out);

/* ---- metrics --------------------------------------------------------------------------- */

/* The metrics compare x with the reference ref (sporco.metric), both of one shape and real
   float dtype (f32 or f64), with at least one element. They run one pass over both on the
   device, wait for it and return a host double in *out. Sums are accumulated in double where
   the device has double precision and Kahan-compensated in single precision otherwise; the
   variance is taken about ref's first element, so a large common offset costs no accuracy.
   Errors: AG_ERR_INVALID_ARGUMENT (NULL array or out, empty arrays), AG_ERR_UNSUPPORTED
   (another dtype), AG_ERR_MISMATCH (ref and x differ in dtype, shape or device). */

/** Mean squared error: mean((ref - x)^2). */
AG_API ag_status ag_metric_mse(ag_queue *q, const ag_array *ref, const ag_array *x, double *out);

/** Signal-to-noise ratio in decibels: 10 log10(var(ref) / mse(ref, x)), var being the
    population variance (numpy.var). +Inf when x equals ref, NaN when ref is also constant. */
AG_API ag_status ag_snr(ag_queue *q, const ag_array *ref, const ag_array *x, double *out);

/** Peak signal-to-noise ratio in decibels: 10 log10(rng^2 / mse(ref, x)). @p rng is the
    signal's range (255 for 8-bit samples); 0, a negative value or NaN means ref's own range,
    |max(ref) - min(ref)| (sporco's rng=None). */
AG_API ag_status ag_psnr(ag_queue *q, const ag_array *ref, const ag_array *x, double rng, double *out);

#ifdef __cplusplus
}
#endif

#endif
