/* src/learn/loss_out.c — the loss and gradient outputs every loss of learn.h shares. */
#include "loss_out.h"

#include <math.h>

#include "seam.h"

ag_status ag__loss_check_out(const char *fn, const char *xname, const ag_array *x, double scale,
                             const ag_array *loss, const ag_array *grad, unsigned flags) {
  ag_status st;
  if (loss == NULL && grad == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: loss and grad are both NULL; ask for at least one", fn);
  if (!isfinite(scale))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: scale is %g; it must be finite", fn, scale);
  if (flags & ~AG_LOSS_ACCUMULATE)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: flags holds 0x%x; only AG_LOSS_ACCUMULATE is defined", fn,
                     flags);
  if (loss != NULL) {
    if ((st = ag__check_array(fn, "loss", loss)) != AG_OK ||
        (st = ag__check_same_device(fn, xname, x, "loss", loss)) != AG_OK)
      return st;
    ag_dtype want = ag__dtype_real(x->dtype);
    if (loss->dtype != want || loss->size != 1)
      return ag__error(AG_ERR_MISMATCH, "%s: loss must be one %s (the real dtype of %s's %s); it is %s of %zu", fn,
                       ag_dtype_name(want), xname, ag_dtype_name(x->dtype), ag_dtype_name(loss->dtype),
                       loss->size);
  }
  if (grad != NULL) {
    if ((st = ag__check_array(fn, "grad", grad)) != AG_OK ||
        (st = ag__check_same_device(fn, xname, x, "grad", grad)) != AG_OK ||
        (st = ag__check_same_dtype(fn, xname, x, "grad", grad)) != AG_OK ||
        (st = ag__check_same_shape(fn, xname, x, "grad", grad)) != AG_OK)
      return st;
  }
  return AG_OK;
}

ag_status ag__loss_store(const char *fn, ag_queue *q, const ag_array *terms, double scale, ag_array *loss,
                         unsigned flags) {
  if (loss == NULL)
    return AG_OK;
  ag_array *sum = NULL;
  size_t one = 1;
  ag_status st = ag_array_create(terms->dev, terms->dtype, 1, &one, &sum);
  if (st == AG_OK)
    st = ag_sum(q, terms, AG_AXIS_ALL, sum);
  /* Overwriting multiplies rather than adds to 0 times the old value, which may be NaN. */
  if (st == AG_OK)
    st = (flags & AG_LOSS_ACCUMULATE) ? ag_axpby(q, scale, sum, 1.0, loss, loss) : ag_mul_scalar(q, sum, scale, loss);
  ag_array_free(sum);
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}
