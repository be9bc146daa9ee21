/* src/learn/nn.c — activations and their gradients, softmax and log-softmax along an axis with
   their gradients, and the dense layers' losses (mean squared error, logit cross-entropy)
   with their gradients (learn.h, docs/learn.md): argument checks, then launches of the nn
   family's kernels (kernels_shared/nn.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "loss_out.h"
#include "nn_launch.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/nn.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_act, AG_SHAPE_NN_ACT)
AG__SHAPE_LAUNCHER(launch_act_grad, AG_SHAPE_NN_ACT_GRAD)
AG__SHAPE_LAUNCHER(launch_softmax, AG_SHAPE_NN_SOFTMAX)
AG__SHAPE_LAUNCHER(launch_softmax_grad, AG_SHAPE_NN_SOFTMAX_GRAD)
AG__SHAPE_LAUNCHER(launch_mse, AG_SHAPE_NN_MSE)
AG__SHAPE_LAUNCHER(launch_lce, AG_SHAPE_NN_LCE)

_Static_assert(AG_ACT_IDENTITY == AG_NN_IDENTITY && AG_ACT_SIGMOID == AG_NN_SIGMOID &&
                   AG_ACT_SOFTPLUS == AG_NN_SOFTPLUS && AG_ACT_RELU == AG_NN_RELU && AG_ACT_TANH == AG_NN_TANH &&
                   AG_ACT_EXP == AG_NN_EXP && AG_ACT_LOG == AG_NN_LOG,
               "the nn family numbers activations as learn.h does");

/* ---- shared checks and launches (nn_launch.h) ------------------------------------------- */

ag_status ag__nn_check_float(const char *fn, const char *name, const ag_array *a) {
  ag_status st = ag__check_takes(fn, name, a, AG__TAKES_REAL);
  if (st != AG_OK)
    return st;
  return ag__check_fp64(fn, a->dev, a->dtype);
}

ag_status ag__nn_check_like(const char *fn, const char *na, const ag_array *a, const char *nb, const ag_array *b) {
  ag_status st;
  if ((st = ag__check_array(fn, nb, b)) != AG_OK || (st = ag__check_same_device(fn, na, a, nb, b)) != AG_OK ||
      (st = ag__check_same_dtype(fn, na, a, nb, b)) != AG_OK)
    return st;
  return ag__check_same_shape(fn, na, a, nb, b);
}

ag_status ag__nn_check_act(const char *fn, ag_activation act) {
  if ((int)act < AG_ACT_IDENTITY || (int)act > AG_ACT_LOG)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: act is %d, not an ag_activation (0 to %d)", fn, (int)act,
                     (int)AG_ACT_LOG);
  return AG_OK;
}

ag__launch ag__nn_launch(const char *fn, ag_queue *q, ag_device *dev, ag_dtype t, ag__kernel_id kernel, size_t n) {
  return (ag__launch){.fn = fn, .q = q, .dev = dev, .kernel = kernel + t, .n = n};
}

/* ---- activations --------------------------------------------------------------------------- */

ag_status ag_activate(ag_queue *q, ag_activation act, const ag_array *x, ag_array *y) {
  static const char fn[] = "ag_activate";
  ag_status st;
  if ((st = ag__nn_check_act(fn, act)) != AG_OK || (st = ag__nn_check_float(fn, "x", x)) != AG_OK ||
      (st = ag__nn_check_like(fn, "x", x, "y", y)) != AG_OK)
    return st;
  ag__launch l = ag__nn_launch(fn, q, x->dev, x->dtype, AG_K_NN_ACT, x->size);
  return AG__LAUNCH(launch_act, &l, .x = x, .act = (uint64_t)act, .y = y);
}

ag_status ag_activate_grad(ag_queue *q, ag_activation act, const ag_array *y, const ag_array *dy, ag_array *dx) {
  static const char fn[] = "ag_activate_grad";
  ag_status st;
  if ((st = ag__nn_check_act(fn, act)) != AG_OK || (st = ag__nn_check_float(fn, "y", y)) != AG_OK ||
      (st = ag__nn_check_like(fn, "y", y, "dy", dy)) != AG_OK || (st = ag__nn_check_like(fn, "y", y, "dx", dx)) != AG_OK)
    return st;
  ag__launch l = ag__nn_launch(fn, q, y->dev, y->dtype, AG_K_NN_ACT_GRAD, y->size);
  return AG__LAUNCH(launch_act_grad, &l, .y = y, .dy = dy, .act = (uint64_t)act, .dx = dx);
}

/* ---- softmax along an axis ----------------------------------------------------------------- */

/* x viewed as [outer][len][inner] around axis. */
typedef struct lines {
  uint64_t outer, len, inner;
} lines;

/* Checks @p axis of @p x (argument @p xn) and that a line fits one work-item's loop on the
   device (ag_device_info.max_loop_iterations: 65535 on llvmpipe); gives the lines. */
static ag_status lines_of(const char *fn, const char *xn, const ag_array *x, int axis, lines *out) {
  if (axis < 0 || axis >= x->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d; %s has %d dimensions (use 0 to %d)", fn, axis, xn,
                     x->ndim, x->ndim - 1);
  lines l = {1, x->shape[axis], 1};
  for (int d = 0; d < axis; d++)
    l.outer *= x->shape[d];
  for (int d = axis + 1; d < x->ndim; d++)
    l.inner *= x->shape[d];
  uint64_t limit = ag__dev_info(x->dev)->max_loop_iterations;
  if (limit != 0 && l.len > limit)
    return ag__error(AG_ERR_UNSUPPORTED,
                     "%s: axis %d of %s has %llu elements, more than one loop may run on %s (%llu): a line is one "
                     "work-item's",
                     fn, axis, xn, (unsigned long long)l.len, ag__dev_info(x->dev)->spec, (unsigned long long)limit);
  *out = l;
  return AG_OK;
}

static ag_status softmax(const char *fn, ag_queue *q, const ag_array *x, int axis, ag_array *y, bool is_log) {
  ag_status st;
  lines ln;
  if ((st = ag__nn_check_float(fn, "x", x)) != AG_OK || (st = lines_of(fn, "x", x, axis, &ln)) != AG_OK ||
      (st = ag__nn_check_like(fn, "x", x, "y", y)) != AG_OK)
    return st;
  if (x->size == 0)
    return AG_OK;
  ag__launch l = ag__nn_launch(fn, q, x->dev, x->dtype, AG_K_NN_SOFTMAX, ln.outer * ln.inner);
  return AG__LAUNCH(launch_softmax, &l, .x = x, .len = ln.len, .inner = ln.inner, .is_log = is_log ? 1 : 0, .y = y);
}

ag_status ag_softmax(ag_queue *q, const ag_array *x, int axis, ag_array *y) {
  return softmax("ag_softmax", q, x, axis, y, false);
}

ag_status ag_logsoftmax(ag_queue *q, const ag_array *x, int axis, ag_array *y) {
  return softmax("ag_logsoftmax", q, x, axis, y, true);
}

static ag_status softmax_grad(const char *fn, ag_queue *q, const ag_array *y, const ag_array *dy, int axis,
                              ag_array *dx, bool is_log) {
  ag_status st;
  lines ln;
  if ((st = ag__nn_check_float(fn, "y", y)) != AG_OK || (st = lines_of(fn, "y", y, axis, &ln)) != AG_OK ||
      (st = ag__nn_check_like(fn, "y", y, "dy", dy)) != AG_OK || (st = ag__nn_check_like(fn, "y", y, "dx", dx)) != AG_OK)
    return st;
  if (y->size == 0)
    return AG_OK;
  ag__launch l =
      ag__nn_launch(fn, q, y->dev, y->dtype, AG_K_NN_SOFTMAX_GRAD, ln.outer * ln.inner);
  return AG__LAUNCH(launch_softmax_grad, &l, .y = y, .dy = dy, .len = ln.len, .inner = ln.inner,
                    .is_log = is_log ? 1 : 0, .dx = dx);
}

ag_status ag_softmax_grad(ag_queue *q, const ag_array *y, const ag_array *dy, int axis, ag_array *dx) {
  return softmax_grad("ag_softmax_grad", q, y, dy, axis, dx, false);
}

ag_status ag_logsoftmax_grad(ag_queue *q, const ag_array *y, const ag_array *dy, int axis, ag_array *dx) {
  return softmax_grad("ag_logsoftmax_grad", q, y, dy, axis, dx, true);
}

/* ---- losses ---------------------------------------------------------------------------------- */

/* The kernels' flags for a loss call. */
static uint64_t loss_flags(const ag_array *loss, const ag_array *grad, unsigned flags) {
  return (loss != NULL ? AG_NN_TERMS : 0) | (grad != NULL ? AG_NN_GRAD : 0) |
         ((flags & AG_LOSS_ACCUMULATE) ? AG_NN_ADD : 0);
}

/* A loss's per-element or per-row terms ({n} of dtype @p t), or NULL when the loss is not
   wanted. */
static ag_status make_terms(const char *fn, const ag_array *x, size_t n, const ag_array *loss, ag_array **terms) {
  *terms = NULL;
  if (loss == NULL)
    return AG_OK;
  ag_status st = ag_array_create(x->dev, x->dtype, 1, &n, terms);
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}

ag_status ag_loss_mse(ag_queue *q, const ag_array *yhat, const ag_array *y, double scale, ag_array *loss,
                      ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_mse";
  ag_status st;
  if ((st = ag__nn_check_float(fn, "yhat", yhat)) != AG_OK || (st = ag__nn_check_like(fn, "yhat", yhat, "y", y)) != AG_OK ||
      (st = ag__loss_check_out(fn, "yhat", yhat, scale, loss, grad, flags)) != AG_OK)
    return st;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, yhat->dev, &rq)) != AG_OK)
    return st;
  size_t n = yhat->size;
  ag_array *terms;
  if ((st = make_terms(fn, yhat, n, loss, &terms)) != AG_OK)
    return st;
  /* d(mean(d^2))/d yhat = 2 d / n */
  unsigned char gb[8];
  ag__val gscale = ag__real_val(yhat->dtype, 2.0 * scale / (double)n, gb);
  ag__launch l = ag__nn_launch(fn, rq, yhat->dev, yhat->dtype, AG_K_NN_MSE, n);
  /* an output not wanted is stood in for by the other, which the kernel does not write there */
  st = AG__LAUNCH(launch_mse, &l, .yhat = yhat, .y = y, .gscale = gscale, .flags = loss_flags(loss, grad, flags),
                  .terms = terms ? terms : grad, .grad = grad ? grad : terms);
  if (st == AG_OK)
    st = ag__loss_store(fn, rq, terms, scale / (double)n, loss, flags);
  ag_array_free(terms); /* its memory waits for the queue */
  return st;
}

ag_status ag_loss_logitcrossentropy(ag_queue *q, const ag_array *logits, const ag_array *y, double scale,
                                    ag_array *loss, ag_array *grad, unsigned flags) {
  static const char fn[] = "ag_loss_logitcrossentropy";
  ag_status st;
  if ((st = ag__nn_check_float(fn, "logits", logits)) != AG_OK)
    return st;
  if (logits->ndim != 2)
    return ag__error(AG_ERR_MISMATCH, "%s: logits has %d dimensions; it must be [batch][classes]", fn, logits->ndim);
  lines ln;
  if ((st = lines_of(fn, "logits", logits, 1, &ln)) != AG_OK ||
      (st = ag__nn_check_like(fn, "logits", logits, "y", y)) != AG_OK ||
      (st = ag__loss_check_out(fn, "logits", logits, scale, loss, grad, flags)) != AG_OK)
    return st;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, logits->dev, &rq)) != AG_OK)
    return st;
  size_t b = logits->shape[0], c = logits->shape[1];
  ag_array *terms;
  if ((st = make_terms(fn, logits, b, loss, &terms)) != AG_OK)
    return st;
  unsigned char gb[8];
  ag__val gscale = ag__real_val(logits->dtype, scale / (double)b, gb);
  ag__launch l = ag__nn_launch(fn, rq, logits->dev, logits->dtype, AG_K_NN_LCE, c == 0 ? 0 : b);
  st = AG__LAUNCH(launch_lce, &l, .logits = logits, .y = y, .c = (uint64_t)c, .gscale = gscale,
                  .flags = loss_flags(loss, grad, flags), .terms = terms ? terms : grad, .grad = grad ? grad : terms);
  if (st == AG_OK && c == 0 && terms != NULL) /* rows without classes add nothing */
    st = ag__prefix(ag_fill(rq, terms, 0.0), fn);
  if (st == AG_OK)
    st = ag__loss_store(fn, rq, terms, scale / (double)b, loss, flags);
  ag_array_free(terms);
  return st;
}
