/* src/learn/mpol_loss.c — MPoL's losses with their gradients (learn.h; MPoL v0.2.0's
   mpol/losses.py): nll_gridded, sparsity, entropy, TV_image and TSV. Each is one pass of the
   mpol family (kernels_shared/mpol.h) that writes every element's share of the loss and its
   gradient together, then the shared sum and store of loss_out.c. */
#include <math.h>
#include <stdio.h>

#include "anygpu/learn.h"
#include "loss_out.h"
#include "mpol.h"
#include "../error.h"
#include "../launch.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/mpol.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_nll, AG_SHAPE_MPOL_NLL)
AG__SHAPE_LAUNCHER(launch_sparsity, AG_SHAPE_MPOL_SPARSITY)
AG__SHAPE_LAUNCHER(launch_entropy, AG_SHAPE_MPOL_ENTROPY)
AG__SHAPE_LAUNCHER(launch_tv, AG_SHAPE_MPOL_TV)

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
  ag_status st = ag_array_create(x->dev, ag__loss_real(x->dtype), 1, loss != NULL ? &x->size : &one, &io->terms);
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

static ag__launch mpol_launch(const char *fn, ag_queue *q, const ag_array *x, const char *base, char *name,
                              size_t cap) {
  snprintf(name, cap, "%s_%s", base, ag_dtype_name(x->dtype));
  return (ag__launch){.fn = fn, .q = q, .dev = x->dev, .family = AG__FAMILY_mpol, .variant = (int)x->dtype,
                      .kernel = name, .form = AG__FORM_ITEMS, .n = x->size};
}

ag_status ag_loss_nll_gridded(ag_queue *q, const ag_array *vis, const ag_array *data, const ag_array *weight,
                              const ag_array *mask, double scale, ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_nll_gridded";
  ag_status st;
  if ((st = ag__mpol_check(fn, "vis", vis, AG__MPOL_COMPLEX, 0)) != AG_OK ||
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
  ag_dtype rt = ag__loss_real(vis->dtype);
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
    char name[48], sb[8];
    ag__launch l = mpol_launch(fn, q, vis, "ag_mpol_nll", name, sizeof name);
    st = launch_nll(&l, vis, data, weight, mask, count, ag__mpol_real(rt, scale, sb), io.flags, io.terms, io.grad);
  }
  st = io_end(fn, q, st, &io, scale, loss, flags);
  ag_array_free(count);
  return st;
}

ag_status ag_loss_sparsity(ag_queue *q, const ag_array *cube, double scale, ag_array *loss, ag_array *grad,
                           unsigned flags) {
  static const char fn[] = "ag_loss_sparsity";
  ag_status st;
  if ((st = ag__mpol_check(fn, "cube", cube, AG__MPOL_REAL, 0)) != AG_OK ||
      (st = ag__loss_check_out(fn, "cube", cube, scale, loss, grad, flags)) != AG_OK)
    return st;
  loss_io io;
  st = io_begin(fn, cube, loss, grad, flags, &io);
  if (st == AG_OK) {
    char name[48], sb[8];
    ag__launch l = mpol_launch(fn, q, cube, "ag_mpol_sparsity", name, sizeof name);
    st = launch_sparsity(&l, cube, ag__mpol_real(cube->dtype, scale, sb), io.flags, io.terms, io.grad);
  }
  return io_end(fn, q, st, &io, scale, loss, flags);
}

ag_status ag_loss_entropy(ag_queue *q, const ag_array *cube, const ag_array *prior, double tot_flux, double scale,
                          ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_entropy";
  ag_status st;
  if ((st = ag__mpol_check(fn, "cube", cube, AG__MPOL_REAL, 0)) != AG_OK ||
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
    char name[48], sf[8], sb[8];
    ag__launch l = mpol_launch(fn, q, cube, "ag_mpol_entropy", name, sizeof name);
    st = launch_entropy(&l, cube, prior, ag__mpol_real(cube->dtype, 1.0 / tot_flux, sf),
                        ag__mpol_real(cube->dtype, scale, sb), io.flags, io.terms, io.grad);
  }
  return io_end(fn, q, st, &io, scale, loss, flags);
}

/* TV_image and TSV: one kernel each, the same arguments. */
static ag_status variation(const char *fn, const char *base, ag_queue *q, const ag_array *cube, double eps,
                           double scale, ag_array *loss, ag_array *grad, unsigned flags) {
  ag_status st;
  if ((st = ag__loss_check_out(fn, "cube", cube, scale, loss, grad, flags)) != AG_OK)
    return st;
  loss_io io;
  st = io_begin(fn, cube, loss, grad, flags, &io);
  if (st == AG_OK) {
    char name[48], se[8], sb[8];
    ag__launch l = mpol_launch(fn, q, cube, base, name, sizeof name);
    st = launch_tv(&l, cube, (uint64_t)cube->shape[1], (uint64_t)cube->shape[2], ag__mpol_real(cube->dtype, eps, se),
                   ag__mpol_real(cube->dtype, scale, sb), io.flags, io.terms, io.grad);
  }
  return io_end(fn, q, st, &io, scale, loss, flags);
}

ag_status ag_loss_tv_image(ag_queue *q, const ag_array *cube, double epsilon, double scale, ag_array *loss,
                           ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_tv_image";
  ag_status st = ag__mpol_check(fn, "cube", cube, AG__MPOL_REAL, 3);
  if (st != AG_OK)
    return st;
  if (!(epsilon >= 0) || !isfinite(epsilon))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: epsilon is %g; it must be 0 or more and finite", fn, epsilon);
  return variation(fn, "ag_mpol_tv", q, cube, epsilon, scale, loss, grad, flags);
}

ag_status ag_loss_tsv(ag_queue *q, const ag_array *cube, double scale, ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_tsv";
  ag_status st = ag__mpol_check(fn, "cube", cube, AG__MPOL_REAL, 3);
  return st != AG_OK ? st : variation(fn, "ag_mpol_tsv", q, cube, 0.0, scale, loss, grad, flags);
}
