/* anygpu/learn.h — imaging and learning: activations and losses with their gradients, MPoL's
   forward model and its adjoint, fused optimiser steps, dense layers and a batch stream. The
   forward maps come with hand-derived gradients, each computed as PyTorch's autograd computes
   it (PyTorch 1.13 is the reference the tests compare with); docs/learn.md describes the
   kernels, the accuracy and where a result differs from its reference.

   Calling convention (ops.h): queue NULL means the calling thread's default queue of the
   operands' device; outputs are existing arrays of the stated shape and dtype; operations are
   asynchronous on the queue. All operands live on one device (AG_ERR_MISMATCH names both
   otherwise). Every function takes f32 and f64 (the complex visibilities of MPoL's model c64
   and c128); f64 and c128 are AG_ERR_UNSUPPORTED on devices without double precision.

   Gradients of complex arguments follow PyTorch: for a real loss L of complex z = a + ib, the
   gradient is dL/da + i dL/db.

   Errors: a NULL array or an array of another device, a dtype a function does not take, a
   shape that does not match, a NaN or out-of-range parameter: each is refused before anything
   is enqueued, with a status and a message in ag_last_error() that names the function and the
   argument.

   Threads and ownership: as ops.h. Every function may be called from any thread at once, each
   thread on its own queue or NULL; operands are borrowed for the call only. An ag_optimizer
   or an ag_batch_stream is used by one thread at a time. */
#ifndef ANYGPU_LEARN_H
#define ANYGPU_LEARN_H

#include <stdbool.h>
#include <stdint.h>

#include "array.h"
#include "queue.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- activations ------------------------------------------------------------------------ */

/** Elementwise activations y = f(x). */
typedef enum ag_activation {
  AG_ACT_IDENTITY = 0, /* y = x */
  AG_ACT_SIGMOID = 1,  /* y = 1 / (1 + exp(-x)) */
  AG_ACT_SOFTPLUS = 2, /* y = x > 20 ? x : log1p(exp(x)) (torch.nn.Softplus(beta=1, threshold=20),
                          MPoL's pixel mapping) */
  AG_ACT_RELU = 3,     /* y = max(x, 0); NaN stays NaN */
  AG_ACT_TANH = 4,     /* y = tanh(x) */
  AG_ACT_EXP = 5,      /* y = exp(x) */
  AG_ACT_LOG = 6,      /* y = log(x) */
} ag_activation;

/** y = f(x), one elementwise pass.
    @param x  f32 or f64
    @param y  x's shape and dtype; may be x */
AG_API ag_status ag_activate(ag_queue *q, ag_activation act, const ag_array *x, ag_array *y);

/** dx = dy * f'(x), one elementwise pass, with f' taken from the output y = f(x) (every
    activation's derivative is a function of its output: sigmoid y (1 - y), softplus
    1 - exp(-y), relu y > 0, tanh 1 - y^2, exp y, log exp(-y), identity 1). The derivatives
    are PyTorch's: relu's is 0 at 0 (and passes dy where y is NaN); softplus's is 1 above the
    threshold, which y tells apart as y > log1p(exp(20)) = 20 + 2.06e-9 (so for x in
    (20, 20 + 2.06e-9] it is 1 - 2e-9 where PyTorch's is 1); log's is exp(-y).
    @param y   f(x), f32 or f64
    @param dy  the gradient with respect to y, y's shape and dtype
    @param dx  y's shape and dtype; may be dy */
AG_API ag_status ag_activate_grad(ag_queue *q, ag_activation act, const ag_array *y, const ag_array *dy,
                                  ag_array *dx);

/** Softmax along @p axis (0 to ndim - 1): y = exp(x - max) / sum exp(x - max) over each line.
    A line is one work-item's: one longer than the device's loop limit
    (ag_device_info.max_loop_iterations, 65535 on llvmpipe) is AG_ERR_UNSUPPORTED. The same
    holds for the three below.
    @param y  x's shape and dtype; may be x */
AG_API ag_status ag_softmax(ag_queue *q, const ag_array *x, int axis, ag_array *y);
/** Log-softmax along @p axis: y = x - max - log(sum exp(x - max)). */
AG_API ag_status ag_logsoftmax(ag_queue *q, const ag_array *x, int axis, ag_array *y);
/** The softmax's gradient from its output: dx = y (dy - sum(dy y)) over each line; dx may be
    dy. */
AG_API ag_status ag_softmax_grad(ag_queue *q, const ag_array *y, const ag_array *dy, int axis, ag_array *dx);
/** The log-softmax's gradient from its output: dx = dy - exp(y) sum(dy) over each line; dx
    may be dy. */
AG_API ag_status ag_logsoftmax_grad(ag_queue *q, const ag_array *y, const ag_array *dy, int axis,
                                    ag_array *dx);

/* ---- losses with their gradients ---------------------------------------------------------

   Every loss writes scale * L into loss (a device array of shape {1}, the real dtype of the
   input's precision) and scale * dL/dinput into grad (the input's shape and dtype) in one
   call. With AG_LOSS_ACCUMULATE in flags both are added to what they hold, so a sum of terms
   (MPoL's nll + lambda_sparsity sparsity + lambda_TV TV) builds one loss and one gradient.
   loss or grad may be NULL (not both). scale is finite. */

#define AG_LOSS_ACCUMULATE 1u

/** Mean squared error, L = mean((yhat - y)^2) (Flux.mse, torch.nn.MSELoss()). */
AG_API ag_status ag_loss_mse(ag_queue *q, const ag_array *yhat, const ag_array *y, double scale, ag_array *loss,
                             ag_array *grad, unsigned flags);

/** Flux.logitcrossentropy: L = mean over the batch of -sum_c y_c logsoftmax(logits)_c, and
    dL/dlogits = (softmax(logits) sum_c y_c - y) / B. A row is one work-item's: more classes
    than the device's loop limit is AG_ERR_UNSUPPORTED.
    @param logits  [B][C], the class axis last (Flux's columns are C's rows here)
    @param y       [B][C], one-hot or probabilities */
AG_API ag_status ag_loss_logitcrossentropy(ag_queue *q, const ag_array *logits, const ag_array *y, double scale,
                                           ag_array *loss, ag_array *grad, unsigned flags);

/** MPoL's nll_gridded: the negative log likelihood of the model visibilities @p vis (c64 or
    c128, [nchan][npix][npix], packed) against the gridded data (vis_gridded, weight_gridded
    and mask of MPoL's GriddedDataset: @p data of vis's shape and dtype, @p weight of its shape
    in the real dtype, @p mask a u8 array of its shape), over the cells where mask != 0:
    L = (1 / 2N) sum over those cells of weight |data - vis|^2, N their count (MPoL v0.2.0's
    nll; the same whether or not the mask holds Hermitian pairs). The gradient is
    weight (vis - data) / N there and 0 elsewhere. N is counted on the device: an empty mask
    gives a loss of 0 and a zero gradient (MPoL raises ZeroDivisionError). docs/learn.md states the formulas and the MPoL
    release they follow. */
AG_API ag_status ag_loss_nll_gridded(ag_queue *q, const ag_array *vis, const ag_array *data, const ag_array *weight,
                                     const ag_array *mask, double scale, ag_array *loss, ag_array *grad,
                                     unsigned flags);

/** MPoL's sparsity (without its mask): L = sum |cube|; the gradient is sign(cube), 0 at 0 as
    torch.abs's. @param cube f32 or f64, any shape */
AG_API ag_status ag_loss_sparsity(ag_queue *q, const ag_array *cube, double scale, ag_array *loss, ag_array *grad,
                                  unsigned flags);

/** MPoL's entropy (v0.2): L = (1 / tot_flux) sum cube log(cube / prior); the gradient is
    (log(cube / prior) + 1) / tot_flux. cube must be positive, as MPoL asserts; the values are
    not checked (they are on the device): a pixel of 0 gives NaN, as in PyTorch.
    @param cube      f32 or f64, any shape
    @param prior     cube's shape and dtype, positive
    @param tot_flux  zeta, positive and finite */
AG_API ag_status ag_loss_entropy(ag_queue *q, const ag_array *cube, const ag_array *prior, double tot_flux,
                                 double scale, ag_array *loss, ag_array *grad, unsigned flags);

/** MPoL's TV_image: L = sum over [nchan][ny - 1][nx - 1] of
    sqrt((c[y][x + 1] - c[y][x])^2 + (c[y + 1][x] - c[y][x])^2 + epsilon) (epsilon 1e-10 in
    MPoL). Each pixel's gradient gathers the up to three terms it appears in, in one pass.
    @param cube     f32 or f64 [nchan][ny][nx]
    @param epsilon  0 or more, finite */
AG_API ag_status ag_loss_tv_image(ag_queue *q, const ag_array *cube, double epsilon, double scale, ag_array *loss,
                                  ag_array *grad, unsigned flags);

/** MPoL's TSV: L = sum over [nchan][ny - 1][nx - 1] of (c[y][x + 1] - c[y][x])^2 +
    (c[y + 1][x] - c[y][x])^2. */
AG_API ag_status ag_loss_tsv(ag_queue *q, const ag_array *cube, double scale, ag_array *loss, ag_array *grad,
                             unsigned flags);

/* ---- MPoL's forward model ----------------------------------------------------------------
   Cubes are [nchan][npix][npix]. A sky cube has north up and east left (MPoL's ImageCube.sky_cube);
   a packed cube is the layout the FFT wants (the origin at [0][0]). */

/** packed = fftshift(flip(sky, last axis)) over the last two axes (MPoL's sky_cube_to_packed_cube).
    sky f32 or f64 [nchan][ny][nx]; packed its shape and dtype, sharing no memory with it. */
AG_API ag_status ag_mpol_sky_to_packed(ag_queue *q, const ag_array *sky, ag_array *packed);
/** sky = flip(fftshift(packed), last axis) (MPoL's packed_cube_to_sky_cube). For even sides it
    is the inverse of the above, and each is the other's adjoint; MPoL shifts by fftshift both
    ways, and so does this, so for an odd side the two are not inverses. */
AG_API ag_status ag_mpol_packed_to_sky(ag_queue *q, const ag_array *packed, ag_array *sky);

/** MPoL's HannConvCube: each channel convolved with the 3 x 3 Hann kernel, zero padded, same
    size (the layer's Conv2d; HannConvCube applies it between packed_to_sky and sky_to_packed,
    examples/rml_imaging.c shows the chain). out: cube's shape and dtype, sharing no memory
    with it. The kernel is symmetric, so the map is its own adjoint: the gradient is the same call
    on the output's gradient. */
AG_API ag_status ag_mpol_hann_conv(ag_queue *q, const ag_array *cube, ag_array *out);

/** MPoL's FourierCube: vis = cell_size^2 fft2(packed) per channel, for a real packed cube.
    @param packed     f32 or f64 [nchan][npix][npix]
    @param cell_size  the pixel's side, positive and finite, in the unit the intensity is per
                      square of (MPoL v0.2.0: arcsec, the cube in Jy/arcsec^2, vis in Jy)
    @param vis        c64 or c128 of packed's shape */
AG_API ag_status ag_mpol_fourier_cube(ag_queue *q, const ag_array *packed, double cell_size, ag_array *vis);
/** Its adjoint for a real image: dpacked = cell_size^2 Re(conj(F)^T dvis), the gradient with
    respect to packed of a real loss whose gradient with respect to vis is dvis. */
AG_API ag_status ag_mpol_fourier_cube_adjoint(ag_queue *q, const ag_array *dvis, double cell_size, ag_array *dpacked);

/* ---- optimisers --------------------------------------------------------------------------
   One optimiser holds the state of one parameter array (as Optimisers.jl's setup does per
   leaf). A step is one fused pass over the parameter, its gradient and the state. */

typedef enum ag_optim_kind {
  AG_OPTIM_SGD = 0,            /* Optimisers.Descent, torch.optim.SGD without momentum: x -= lr g */
  AG_OPTIM_MOMENTUM_FLUX = 1,  /* Optimisers.Momentum(eta, rho): v = rho v + eta g; x -= v */
  AG_OPTIM_MOMENTUM_TORCH = 2, /* torch.optim.SGD(momentum, dampening, nesterov, weight_decay) */
  AG_OPTIM_ADAM_TORCH = 3,     /* torch.optim.Adam 1.13 (weight_decay, amsgrad, maximize) */
  AG_OPTIM_ADAM_FLUX = 4,      /* Optimisers.Adam(eta, (beta1, beta2), epsilon) */
} ag_optim_kind;

/** What a step does. ag_optim_options_default() fills in each kind's reference defaults. */
typedef struct ag_optim_options {
  ag_optim_kind kind;
  double lr;           /* eta; finite, >= 0 */
  double momentum;     /* rho (MOMENTUM_FLUX), momentum (MOMENTUM_TORCH; 0 keeps no buffer); >= 0 */
  double dampening;    /* MOMENTUM_TORCH; finite */
  bool nesterov;       /* MOMENTUM_TORCH; needs momentum > 0 and dampening 0, as torch does */
  double beta1, beta2; /* ADAM_*; each in [0, 1) */
  double eps;          /* ADAM_*; >= 0 */
  double weight_decay; /* SGD, MOMENTUM_TORCH, ADAM_TORCH: g += weight_decay x (coupled); >= 0 */
  bool amsgrad;        /* ADAM_TORCH: the denominator uses the running max of v */
  bool maximize;       /* SGD, MOMENTUM_TORCH, ADAM_TORCH: ascend (the gradient is negated first) */
} ag_optim_options;

/** The defaults of @p kind's reference: lr 0.001 for the ADAM kinds (torch.optim.Adam,
    Optimisers.Adam), 0.01 for the others (Optimisers.Momentum's; torch.optim.SGD has none;
    Optimisers.Descent's 0.1 is not taken), momentum 0.9 (torch's 0 would be plain SGD), beta
    0.9 / 0.999, eps 1e-8, the rest 0 / false.
    A kind ignores momentum, beta1, beta2 and eps when it does not use them, so these defaults
    suit every kind; dampening, nesterov, weight_decay, amsgrad and maximize set for a kind
    that has no such setting are refused (AG_ERR_INVALID_ARGUMENT) rather than dropped. */
AG_API ag_status ag_optim_options_default(ag_optim_kind kind, ag_optim_options *opt);

typedef struct ag_optimizer ag_optimizer;

/** An optimiser for parameters of @p param's shape and dtype (f32 or f64) on its device; its
    state starts as the reference's (zeros, step 0): create zeroes it on the calling thread's
    default queue and waits for that, so steps may then run on any queue of the device.
    The caller's: ag_optimizer_destroy().
    @return AG_ERR_INVALID_ARGUMENT for an option out of range (the message names the field),
            AG_ERR_UNSUPPORTED for another dtype or f64 on a device without double precision,
            AG_ERR_OUT_OF_MEMORY when the state does not fit. */
AG_API ag_status ag_optimizer_create(const ag_optim_options *opt, const ag_array *param, ag_optimizer **out);
/** One step: param is updated in place from grad, and the state with it, in one pass.
    @param param  the optimiser's shape, dtype and device
    @param grad   the same, sharing no memory with param
    @return AG_ERR_MISMATCH for another shape, dtype or device (q's included); on any error
            nothing is enqueued and the step count stays. */
AG_API ag_status ag_optimizer_step(ag_queue *q, ag_optimizer *opt, ag_array *param, const ag_array *grad);
/** The steps taken so far (0 for NULL). */
AG_API uint64_t ag_optimizer_steps(const ag_optimizer *opt);
/** Frees the optimiser and its state (work already enqueued on it still runs); NULL is a no-op. */
AG_API void ag_optimizer_destroy(ag_optimizer *opt);

/* ---- dense layers ------------------------------------------------------------------------ */

/** Y = act(X W^T + b) (Flux.Dense, torch.nn.Linear followed by act) through ag_gemm.
    @param x  [B][in]   @param w  [out][in]   @param b  [out], or NULL for no bias
    @param y  [B][out] */
AG_API ag_status ag_dense_forward(ag_queue *q, const ag_array *x, const ag_array *w, const ag_array *b,
                                  ag_activation act, ag_array *y);

/** The gradients of a dense layer from its input x, its output y and dy = dL/dy:
    dz = dy f'(y), dW = dz^T X, db = sum over the batch of dz, dX = dz W. dx ([B][in]), dw
    ([out][in]) and db ([out]) may each be NULL when not wanted, but not all three
    (AG_ERR_INVALID_ARGUMENT). They must not overlap the inputs. */
AG_API ag_status ag_dense_backward(ag_queue *q, const ag_array *x, const ag_array *w, ag_activation act,
                                   const ag_array *y, const ag_array *dy, ag_array *dx, ag_array *dw, ag_array *db);

/** Glorot (Xavier) uniform initialisation of w [fan_out][fan_in]: each element drawn from
    U(-s, s), s = sqrt(6 / (fan_in + fan_out)), from a generator seeded with @p seed. The same
    seed gives the same values on every device: they are drawn on the host (xoshiro256**
    seeded by splitmix64, a double each, rounded for f32) and written to w, which returns once
    they have been copied. w is 2-D, f32 or f64. */
AG_API ag_status ag_glorot_uniform(ag_queue *q, ag_array *w, uint64_t seed);

/* ---- batch stream ------------------------------------------------------------------------
   Batches of a host data set moved to the device on a queue of their own into two device
   buffers, through page-locked host memory, while the device computes on the previous batch
   (Flux's CuIterator over a DataLoader). */

typedef struct ag_batch_stream ag_batch_stream;

/** A stream over @p n samples: x holds n rows of @p x_row elements of @p x_dtype, y (or NULL)
    n rows of @p y_row elements of @p y_dtype; both are borrowed for the stream's lifetime.
    Batches hold @p batch samples, the last of an epoch fewer. @p seed != 0 shuffles each
    epoch's order (a seeded generator: epoch e's order is the same on every run); 0 keeps the
    data's order. The rows may be of any dtype (nothing is computed on them); y_dtype and
    y_row are ignored when y is NULL. A batch larger than n is cut to n. The stream holds a
    queue of its own, two device buffers per array and their page-locked staging. The caller's:
    ag_batch_stream_destroy(), which waits for the copies in flight. */
AG_API ag_status ag_batch_stream_create(ag_device *dev, const void *x, ag_dtype x_dtype, size_t x_row,
                                        const void *y, ag_dtype y_dtype, size_t y_row, size_t n, size_t batch,
                                        uint64_t seed, ag_batch_stream **out);

/** The next batch of the epoch, ready for work enqueued on @p q afterwards: views *x
    [count][x_row] and *y [count][y_row] (NULL without y), the stream's, valid until the next
    call. The call starts the transfer of the batch after it into the other buffer; the next
    call's transfer into this one waits for the work enqueued on q before that call. At the
    end of an epoch it sets *count to 0 (and the views to NULL), and the next call starts the
    next epoch. q NULL is the calling thread's default queue of the stream's device; a queue of
    another device is AG_ERR_MISMATCH. y may be NULL when the caller does not want y's view. */
AG_API ag_status ag_batch_stream_next(ag_batch_stream *s, ag_queue *q, ag_array **x, ag_array **y, size_t *count);

AG_API void ag_batch_stream_destroy(ag_batch_stream *s);

#ifdef __cplusplus
}
#endif

#endif
