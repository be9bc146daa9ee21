/* src/learn/mpol.c — MPoL's losses with their gradients and its forward model with its adjoint
   (learn.h; MPoL v0.2.0's mpol/losses.py, images.py, fourier.py and utils.py; docs/learn.md).
   Each loss is one pass of the mpol family (kernels_shared/mpol.h) that writes every element's
   share of the loss and its gradient together, then the shared sum and store of loss_out.c;
   the forward model is the family's layout, convolution and conversion passes around ag_fft. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anygpu/fft.h"
#include "anygpu/learn.h"
#include "loss_out.h"
#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/mpol.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_nll, AG_SHAPE_MPOL_NLL)
AG__SHAPE_LAUNCHER(launch_sparsity, AG_SHAPE_MPOL_SPARSITY)
AG__SHAPE_LAUNCHER(launch_entropy, AG_SHAPE_MPOL_ENTROPY)
AG__SHAPE_LAUNCHER(launch_tv, AG_SHAPE_MPOL_TV)
AG__SHAPE_LAUNCHER(launch_shuffle, AG_SHAPE_MPOL_SHUFFLE)
AG__SHAPE_LAUNCHER(launch_hann, AG_SHAPE_MPOL_HANN)
AG__SHAPE_LAUNCHER(launch_widen, AG_SHAPE_MPOL_WIDEN)
AG__SHAPE_LAUNCHER(launch_re, AG_SHAPE_MPOL_RE)

/* ---- operands ----------------------------------------------------------------------------- */

typedef enum mpol_kind { MPOL_REAL, MPOL_COMPLEX } mpol_kind;

/* Checks operand @p a (argument @p name of @p fn): not NULL; f32 or f64 (MPOL_REAL) or c64 or
   c128 (MPOL_COMPLEX), else AG_ERR_UNSUPPORTED; @p ndim dimensions unless ndim is 0, else
   AG_ERR_MISMATCH; f64 or c128 only on a device with double precision, else
   AG_ERR_UNSUPPORTED naming the argument. */
static ag_status check_operand(const char *fn, const char *name, const ag_array *a, mpol_kind kind, int ndim) {
  ag_status st = ag__check_takes(fn, name, a, kind == MPOL_REAL ? AG__TAKES_REAL : AG__TAKES_COMPLEX);
  if (st != AG_OK)
    return st;
  if (ndim != 0 && a->ndim != ndim)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %d-D; it must be a cube [nchan][npix][npix]", fn, name, a->ndim);
  st = ag__check_fp64_arg(fn, name, a->dev, a->dtype);
  if (st != AG_OK)
    return st;
  return AG_OK;
}

/* ---- the losses ------------------------------------------------------------------------- */

/* What a loss's kernel writes into: the terms (x's size in the loss's real dtype, or one
   untouched element when no loss is wanted), the gradient (the caller's, or one untouched
   element of x's dtype), and the kernel's flags. */
typedef struct loss_io {
  ag_array *terms, *grad_dummy;
  ag_array *grad;
  uint64_t flags;
} loss_io;

static ag_status io_begin(const char *fn, const ag_array *x, ag_array *loss, ag_array *grad, unsigned flags,
                         loss_io *io) {
  *io = (loss_io){.grad = grad};
  size_t one = 1;
  ag_status st = ag_array_create(x->dev, ag__dtype_real(x->dtype), 1, loss != NULL ? &x->size : &one, &io->terms);
  if (st == AG_OK && grad == NULL)
    st = ag_array_create(x->dev, x->dtype, 1, &one, &io->grad_dummy), io->grad = io->grad_dummy;
  io->flags = (loss != NULL ? AG_MPOL_TERMS : 0) | (grad != NULL ? AG_MPOL_GRAD : 0) |
              ((flags & AG_LOSS_ACCUMULATE) ? AG_MPOL_ACCUMULATE : 0);
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}

static ag_status io_end(const char *fn, ag_queue *q, ag_status st, loss_io *io, double scale, ag_array *loss,
                        unsigned flags) {
  if (st == AG_OK)
    st = ag__loss_store(fn, q, io->terms, scale, loss, flags);
  ag_array_free(io->terms);
  ag_array_free(io->grad_dummy);
  return st;
}

/* The mpol family's kernel @p kernel (its u8 id) for @p x's dtype, an item per element of x. */
static ag__launch mpol_launch(const char *fn, ag_queue *q, const ag_array *x, ag__kernel_id kernel) {
  return (ag__launch){.fn = fn, .q = q, .dev = x->dev, .kernel = kernel + x->dtype, .n = x->size};
}

ag_status ag_loss_nll_gridded(ag_queue *q, const ag_array *vis, const ag_array *data, const ag_array *weight,
                              const ag_array *mask, double scale, ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_nll_gridded";
  ag_status st;
  if ((st = check_operand(fn, "vis", vis, MPOL_COMPLEX, 0)) != AG_OK ||
      (st = ag__check_array(fn, "data", data)) != AG_OK || (st = ag__check_array(fn, "weight", weight)) != AG_OK ||
      (st = ag__check_array(fn, "mask", mask)) != AG_OK ||
      (st = ag__check_same_device(fn, "vis", vis, "data", data)) != AG_OK ||
      (st = ag__check_same_device(fn, "vis", vis, "weight", weight)) != AG_OK ||
      (st = ag__check_same_device(fn, "vis", vis, "mask", mask)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "vis", vis, "data", data)) != AG_OK ||
      (st = ag__check_same_shape(fn, "vis", vis, "data", data)) != AG_OK ||
      (st = ag__check_same_shape(fn, "vis", vis, "weight", weight)) != AG_OK ||
      (st = ag__check_same_shape(fn, "vis", vis, "mask", mask)) != AG_OK)
    return st;
  ag_dtype rt = ag__dtype_real(vis->dtype);
  if (weight->dtype != rt)
    return ag__error(AG_ERR_MISMATCH, "%s: weight is %s; it must be %s, the real dtype of vis's %s", fn,
                     ag_dtype_name(weight->dtype), ag_dtype_name(rt), ag_dtype_name(vis->dtype));
  if (mask->dtype != AG_U8)
    return ag__error(AG_ERR_MISMATCH, "%s: mask is %s; it must be u8 (nonzero: the cell holds data)", fn,
                     ag_dtype_name(mask->dtype));
  if ((st = ag__loss_check_out(fn, "vis", vis, scale, loss, grad, flags)) != AG_OK)
    return st;

  /* N, the cells in the mask, stays on the device: the kernel divides by it there. */
  ag_array *count = NULL;
  size_t one = 1;
  loss_io io;
  if ((st = ag_array_create(vis->dev, rt, 1, &one, &count)) != AG_OK)
    return ag__prefix(st, fn);
  st = io_begin(fn, vis, loss, grad, flags, &io);
  if (st == AG_OK && (st = ag_sum(q, mask, AG_AXIS_ALL, count)) != AG_OK)
    st = ag__prefix(st, fn);
  if (st == AG_OK) {
    char sb[8];
    ag__launch l = mpol_launch(fn, q, vis, AG_K_MPOL_NLL);
    st = AG__LAUNCH(launch_nll, &l, .vis = vis, .data = data, .weight = weight, .mask = mask, .count = count,
                    .scale = ag__real_val(rt, scale, sb), .flags = io.flags, .terms = io.terms, .grad = io.grad);
  }
  st = io_end(fn, q, st, &io, scale, loss, flags);
  ag_array_free(count);
  return st;
}

ag_status ag_loss_sparsity(ag_queue *q, const ag_array *cube, double scale, ag_array *loss, ag_array *grad,
                           unsigned flags) {
  static const char fn[] = "ag_loss_sparsity";
  ag_status st;
  if ((st = check_operand(fn, "cube", cube, MPOL_REAL, 0)) != AG_OK ||
      (st = ag__loss_check_out(fn, "cube", cube, scale, loss, grad, flags)) != AG_OK)
    return st;
  loss_io io;
  st = io_begin(fn, cube, loss, grad, flags, &io);
  if (st == AG_OK) {
    char sb[8];
    ag__launch l = mpol_launch(fn, q, cube, AG_K_MPOL_SPARSITY);
    st = AG__LAUNCH(launch_sparsity, &l, .x = cube, .scale = ag__real_val(cube->dtype, scale, sb), .flags = io.flags,
                    .terms = io.terms, .grad = io.grad);
  }
  return io_end(fn, q, st, &io, scale, loss, flags);
}

ag_status ag_loss_entropy(ag_queue *q, const ag_array *cube, const ag_array *prior, double tot_flux, double scale,
                          ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_entropy";
  ag_status st;
  if ((st = check_operand(fn, "cube", cube, MPOL_REAL, 0)) != AG_OK ||
      (st = ag__check_array(fn, "prior", prior)) != AG_OK ||
      (st = ag__check_same_device(fn, "cube", cube, "prior", prior)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "cube", cube, "prior", prior)) != AG_OK ||
      (st = ag__check_same_shape(fn, "cube", cube, "prior", prior)) != AG_OK)
    return st;
  if (!(tot_flux > 0) || !isfinite(tot_flux))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: tot_flux is %g; it must be positive and finite", fn, tot_flux);
  if ((st = ag__loss_check_out(fn, "cube", cube, scale, loss, grad, flags)) != AG_OK)
    return st;
  loss_io io;
  st = io_begin(fn, cube, loss, grad, flags, &io);
  if (st == AG_OK) {
    char sf[8], sb[8];
    ag__launch l = mpol_launch(fn, q, cube, AG_K_MPOL_ENTROPY);
    st = AG__LAUNCH(launch_entropy, &l, .x = cube, .prior = prior,
                    .inv_flux = ag__real_val(cube->dtype, 1.0 / tot_flux, sf),
                    .scale = ag__real_val(cube->dtype, scale, sb), .flags = io.flags, .terms = io.terms,
                    .grad = io.grad);
  }
  return io_end(fn, q, st, &io, scale, loss, flags);
}

/* TV_image and TSV: one kernel each, the same arguments. */
static ag_status variation(const char *fn, ag__kernel_id kernel, ag_queue *q, const ag_array *cube, double eps,
                           double scale, ag_array *loss, ag_array *grad, unsigned flags) {
  ag_status st;
  if ((st = ag__loss_check_out(fn, "cube", cube, scale, loss, grad, flags)) != AG_OK)
    return st;
  loss_io io;
  st = io_begin(fn, cube, loss, grad, flags, &io);
  if (st == AG_OK) {
    char se[8], sb[8];
    ag__launch l = mpol_launch(fn, q, cube, kernel);
    st = AG__LAUNCH(launch_tv, &l, .x = cube, .ny = (uint64_t)cube->shape[1], .nx = (uint64_t)cube->shape[2],
                    .eps = ag__real_val(cube->dtype, eps, se), .scale = ag__real_val(cube->dtype, scale, sb),
                    .flags = io.flags, .terms = io.terms, .grad = io.grad);
  }
  return io_end(fn, q, st, &io, scale, loss, flags);
}

ag_status ag_loss_tv_image(ag_queue *q, const ag_array *cube, double epsilon, double scale, ag_array *loss,
                           ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_tv_image";
  ag_status st = check_operand(fn, "cube", cube, MPOL_REAL, 3);
  if (st != AG_OK)
    return st;
  if (!(epsilon >= 0) || !isfinite(epsilon))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: epsilon is %g; it must be 0 or more and finite", fn, epsilon);
  return variation(fn, AG_K_MPOL_TV, q, cube, epsilon, scale, loss, grad, flags);
}

ag_status ag_loss_tsv(ag_queue *q, const ag_array *cube, double scale, ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_tsv";
  ag_status st = check_operand(fn, "cube", cube, MPOL_REAL, 3);
  return st != AG_OK ? st : variation(fn, AG_K_MPOL_TSV, q, cube, 0.0, scale, loss, grad, flags);
}

/* ---- the forward model ------------------------------------------------------------------ */

/* Refuses @p out when it shares memory with @p in: the kernels read neighbours and permuted
   elements of in while writing out. */
static ag_status check_apart(const char *fn, const char *nin, const ag_array *in, const char *nout,
                             const ag_array *out) {
  size_t oi = 0, oo = 0;
  const ag_buffer *bi = ag_array_buffer(in, &oi), *bo = ag_array_buffer(out, &oo);
  if (bi != NULL && bi == bo && oi < oo + ag_array_nbytes(out) && oo < oi + ag_array_nbytes(in))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s overlaps %s; it must be another array", fn, nout, nin);
  return AG_OK;
}

/* in -> out, both real cubes of one shape, dtype and device, apart. */
static ag_status check_map(const char *fn, const char *nin, const ag_array *in, const char *nout,
                           const ag_array *out) {
  ag_status st;
  if ((st = check_operand(fn, nin, in, MPOL_REAL, 3)) != AG_OK ||
      (st = ag__check_array(fn, nout, out)) != AG_OK ||
      (st = ag__check_same_device(fn, nin, in, nout, out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, nin, in, nout, out)) != AG_OK ||
      (st = ag__check_same_shape(fn, nin, in, nout, out)) != AG_OK)
    return st;
  return check_apart(fn, nin, in, nout, out);
}

static ag_status shuffle(const char *fn, ag_queue *q, const char *nin, const ag_array *in, const char *nout,
                         ag_array *out, uint64_t dir) {
  ag_status st = check_map(fn, nin, in, nout, out);
  if (st != AG_OK)
    return st;
  ag__launch l = mpol_launch(fn, q, out, AG_K_MPOL_SHUFFLE);
  return AG__LAUNCH(launch_shuffle, &l, .x = in, .ny = (uint64_t)in->shape[1], .nx = (uint64_t)in->shape[2], .dir = dir,
                    .out = out);
}

ag_status ag_mpol_sky_to_packed(ag_queue *q, const ag_array *sky, ag_array *packed) {
  return shuffle("ag_mpol_sky_to_packed", q, "sky", sky, "packed", packed, 0);
}

ag_status ag_mpol_packed_to_sky(ag_queue *q, const ag_array *packed, ag_array *sky) {
  return shuffle("ag_mpol_packed_to_sky", q, "packed", packed, "sky", sky, 1);
}

ag_status ag_mpol_hann_conv(ag_queue *q, const ag_array *cube, ag_array *out) {
  static const char fn[] = "ag_mpol_hann_conv";
  ag_status st = check_map(fn, "cube", cube, "out", out);
  if (st != AG_OK)
    return st;
  ag__launch l = mpol_launch(fn, q, out, AG_K_MPOL_HANN);
  return AG__LAUNCH(launch_hann, &l, .x = cube, .ny = (uint64_t)cube->shape[1], .nx = (uint64_t)cube->shape[2],
                    .out = out);
}

/* A real cube @p re and a complex cube @p cx of the same precision, shape and device, and
   cell_size positive and finite. */
static ag_status check_fourier(const char *fn, const char *nre, const ag_array *re, const char *ncx,
                               const ag_array *cx, double cell_size) {
  ag_status st;
  if ((st = check_operand(fn, nre, re, MPOL_REAL, 3)) != AG_OK ||
      (st = check_operand(fn, ncx, cx, MPOL_COMPLEX, 3)) != AG_OK ||
      (st = ag__check_same_device(fn, nre, re, ncx, cx)) != AG_OK ||
      (st = ag__check_same_shape(fn, nre, re, ncx, cx)) != AG_OK)
    return st;
  if (ag__dtype_real(cx->dtype) != re->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s and %s is %s; f32 goes with c64, f64 with c128", fn, nre,
                     ag_dtype_name(re->dtype), ncx, ag_dtype_name(cx->dtype));
  if (!(cell_size > 0) || !isfinite(cell_size))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: cell_size is %g; it must be positive and finite", fn, cell_size);
  return check_apart(fn, nre, re, ncx, cx);
}

ag_status ag_mpol_fourier_cube(ag_queue *q, const ag_array *packed, double cell_size, ag_array *vis) {
  static const char fn[] = "ag_mpol_fourier_cube";
  ag_status st = check_fourier(fn, "packed", packed, "vis", vis, cell_size);
  if (st != AG_OK)
    return st;
  /* cell^2 x as complex, then one complex FFT in place: the whole spectrum comes out at once,
     where a real FFT would need a second pass to fill in the Hermitian half. */
  char sb[8];
  ag__launch l = mpol_launch(fn, q, vis, AG_K_MPOL_WIDEN);
  if ((st = AG__LAUNCH(launch_widen, &l, .x = packed, .s = ag__real_val(vis->dtype, cell_size * cell_size, sb),
                       .out = vis)) != AG_OK)
    return st;
  st = ag_fft(q, vis, 2, AG_FFT_BACKWARD, vis);
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}

/* With v = c^2 F x for real x, dL/dx_k = sum_j dL/dRe v_j Re(c^2 F_jk) + dL/dIm v_j Im(c^2 F_jk)
   = c^2 Re(sum_j conj(F_jk) g_j) for g = dL/dRe v + i dL/dIm v: c^2 Re(F^H g), and F^H g is the
   unscaled inverse transform (numpy's ifft2 with norm="forward"). */
ag_status ag_mpol_fourier_cube_adjoint(ag_queue *q, const ag_array *dvis, double cell_size, ag_array *dpacked) {
  static const char fn[] = "ag_mpol_fourier_cube_adjoint";
  ag_status st = check_fourier(fn, "dpacked", dpacked, "dvis", dvis, cell_size);
  if (st != AG_OK)
    return st;
  ag_array *tmp = NULL;
  if ((st = ag_array_create(dvis->dev, dvis->dtype, 3, dvis->shape, &tmp)) != AG_OK)
    return ag__prefix(st, fn);
  st = ag_ifft(q, dvis, 2, AG_FFT_FORWARD, tmp);
  if (st == AG_OK) {
    char sb[8];
    ag__launch l = mpol_launch(fn, q, tmp, AG_K_MPOL_RE);
    st = AG__LAUNCH(launch_re, &l, .z = tmp, .s = ag__real_val(tmp->dtype, cell_size * cell_size, sb), .out = dpacked);
  } else {
    st = ag__prefix(st, fn);
  }
  ag_array_free(tmp);
  return st;
}
