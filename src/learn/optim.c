/* src/learn/optim.c — the optimisers of learn.h: an ag_optimizer holds one parameter array's
   state, and each step is one launch of the optim family (kernels_shared/optim.h). The values
   that change with the step (torch's bias corrections in double, Optimisers.jl's running
   powers of beta in the parameter's precision) are worked out here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anygpu.h>

#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/optim.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_sgd, AG_SHAPE_OPTIM_SGD)
AG__SHAPE_LAUNCHER(launch_sgd_momentum, AG_SHAPE_OPTIM_SGD_MOMENTUM)
AG__SHAPE_LAUNCHER(launch_momentum_flux, AG_SHAPE_OPTIM_MOMENTUM_FLUX)
AG__SHAPE_LAUNCHER(launch_adam, AG_SHAPE_OPTIM_ADAM)
AG__SHAPE_LAUNCHER(launch_adam_amsgrad, AG_SHAPE_OPTIM_ADAM_AMSGRAD)
AG__SHAPE_LAUNCHER(launch_adam_flux, AG_SHAPE_OPTIM_ADAM_FLUX)

struct ag_optimizer {
  ag_optim_options opt;
  ag_device *dev;
  ag_dtype dtype;
  int ndim;
  size_t shape[AG_MAX_DIMS];
  size_t size;
  /* The state, param's shape: torch SGD's momentum buffer, Momentum's velocity, or Adam's
     first moment (s1), second moment (s2) and running maximum of the second (s3, amsgrad). */
  ag_array *s1, *s2, *s3;
  uint64_t steps;
  /* Optimisers.Adam's beta1^t and beta2^t, as it keeps them: products in the parameter's
     precision, one factor a step. */
  double bt1, bt2;
};

static const char *kind_name(ag_optim_kind k) {
  switch (k) {
  case AG_OPTIM_SGD:
    return "AG_OPTIM_SGD";
  case AG_OPTIM_MOMENTUM_FLUX:
    return "AG_OPTIM_MOMENTUM_FLUX";
  case AG_OPTIM_MOMENTUM_TORCH:
    return "AG_OPTIM_MOMENTUM_TORCH";
  case AG_OPTIM_ADAM_TORCH:
    return "AG_OPTIM_ADAM_TORCH";
  case AG_OPTIM_ADAM_FLUX:
    return "AG_OPTIM_ADAM_FLUX";
  }
  return "?";
}

static bool kind_valid(ag_optim_kind k) { return k >= AG_OPTIM_SGD && k <= AG_OPTIM_ADAM_FLUX; }

ag_status ag_optim_options_default(ag_optim_kind kind, ag_optim_options *opt) {
  static const char fn[] = "ag_optim_options_default";
  if (opt == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt is NULL", fn);
  if (!kind_valid(kind))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: kind is %d, not an ag_optim_kind", fn, (int)kind);
  bool adam = kind == AG_OPTIM_ADAM_TORCH || kind == AG_OPTIM_ADAM_FLUX;
  *opt = (ag_optim_options){.kind = kind, .lr = adam ? 1e-3 : 1e-2, .momentum = 0.9, .beta1 = 0.9,
                            .beta2 = 0.999, .eps = 1e-8};
  return AG_OK;
}

/* ---- checks ---- */

/* A parameter @p name that must be finite and at least 0. */
static ag_status check_nonneg(const char *fn, const char *name, double v) {
  if (!(isfinite(v) && v >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->%s is %g; it must be finite and at least 0", fn, name, v);
  return AG_OK;
}

static ag_status check_beta(const char *fn, const char *name, double v) {
  if (!(v >= 0 && v < 1))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->%s is %g; it must be in [0, 1)", fn, name, v);
  return AG_OK;
}

/* A field that @p kind does not use, which must keep its zero: a maximize or a weight decay
   asked of a rule that has none would otherwise be dropped without a word. */
static ag_status check_unused(const char *fn, ag_optim_kind kind, const char *name, bool set) {
  if (set)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->%s is set, but %s has no such setting (leave it 0 or false)",
                     fn, name, kind_name(kind));
  return AG_OK;
}

/* Every option that @p o's kind reads is in its range; the zero-by-default ones it does not
   read are zero. Fields with other defaults (momentum, betas, eps) are ignored by the kinds
   that do not use them, so ag_optim_options_default()'s values pass for every kind. */
static ag_status check_options(const char *fn, const ag_optim_options *o) {
  ag_status st;
  if (o == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt is NULL", fn);
  if (!kind_valid(o->kind))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->kind is %d, not an ag_optim_kind", fn, (int)o->kind);
  if ((st = check_nonneg(fn, "lr", o->lr)) != AG_OK)
    return st;
  ag_optim_kind k = o->kind;
  bool torch = k == AG_OPTIM_SGD || k == AG_OPTIM_MOMENTUM_TORCH || k == AG_OPTIM_ADAM_TORCH;
  if (torch) {
    if ((st = check_nonneg(fn, "weight_decay", o->weight_decay)) != AG_OK)
      return st;
  } else if ((st = check_unused(fn, k, "weight_decay", o->weight_decay != 0)) != AG_OK ||
             (st = check_unused(fn, k, "maximize", o->maximize)) != AG_OK) {
    return st;
  }
  if (k == AG_OPTIM_MOMENTUM_TORCH) {
    if ((st = check_nonneg(fn, "momentum", o->momentum)) != AG_OK)
      return st;
    if (!isfinite(o->dampening))
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->dampening is %g; it must be finite", fn, o->dampening);
    /* torch.optim.SGD's own rule: Nesterov momentum needs a momentum and no dampening. */
    if (o->nesterov && !(o->momentum > 0 && o->dampening == 0))
      return ag__error(AG_ERR_INVALID_ARGUMENT,
                       "%s: opt->nesterov needs opt->momentum > 0 and opt->dampening 0 (they are %g and %g)", fn,
                       o->momentum, o->dampening);
  } else if ((st = check_unused(fn, k, "dampening", o->dampening != 0)) != AG_OK ||
             (st = check_unused(fn, k, "nesterov", o->nesterov)) != AG_OK) {
    return st;
  }
  if (k == AG_OPTIM_MOMENTUM_FLUX && (st = check_nonneg(fn, "momentum", o->momentum)) != AG_OK)
    return st;
  if (k == AG_OPTIM_ADAM_TORCH || k == AG_OPTIM_ADAM_FLUX) {
    if ((st = check_beta(fn, "beta1", o->beta1)) != AG_OK || (st = check_beta(fn, "beta2", o->beta2)) != AG_OK ||
        (st = check_nonneg(fn, "eps", o->eps)) != AG_OK)
      return st;
  }
  if (k != AG_OPTIM_ADAM_TORCH && (st = check_unused(fn, k, "amsgrad", o->amsgrad)) != AG_OK)
    return st;
  return AG_OK;
}

/* @p a (argument @p name) is on the optimiser's device with its dtype and shape. */
static ag_status check_like(const char *fn, const ag_optimizer *o, const char *name, const ag_array *a) {
  ag_status st;
  if ((st = ag__check_array(fn, name, a)) != AG_OK)
    return st;
  if (a->dev != o->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is on %s but the optimiser's parameters are on %s", fn, name,
                     ag__dev_info(a->dev)->spec, ag__dev_info(o->dev)->spec);
  if (a->dtype != o->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s but the optimiser was made for %s", fn, name,
                     ag_dtype_name(a->dtype), ag_dtype_name(o->dtype));
  bool same = a->ndim == o->ndim;
  for (int d = 0; same && d < a->ndim; d++)
    same = a->shape[d] == o->shape[d];
  if (!same) {
    char want[96], got[96];
    int w = 0, h = 0;
    for (int d = 0; d < o->ndim; d++)
      w += snprintf(want + w, sizeof want - (size_t)w, "%s%zu", d ? " x " : "", o->shape[d]);
    for (int d = 0; d < a->ndim; d++)
      h += snprintf(got + h, sizeof got - (size_t)h, "%s%zu", d ? " x " : "", a->shape[d]);
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s but the optimiser was made for %s", fn, name, a->ndim ? got : "0-D",
                     o->ndim ? want : "0-D");
  }
  return AG_OK;
}

/* ---- create, step, destroy ---- */

ag_status ag_optimizer_create(const ag_optim_options *opt, const ag_array *param, ag_optimizer **out) {
  static const char fn[] = "ag_optimizer_create";
  ag_status st = AG_OK;
  if (out == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
  *out = NULL;
  st = check_options(fn, opt);
  if (st != AG_OK)
    return st;
  st = ag__check_takes(fn, "param", param, AG__TAKES_REAL);
  if (st != AG_OK)
    return st;
  st = ag__check_fp64(fn, param->dev, param->dtype);
  if (st != AG_OK)
    return st;
  ag_optimizer *o = calloc(1, sizeof *o);
  if (o == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no memory for the optimiser", fn);
  o->opt = *opt;
  o->dev = param->dev, o->dtype = param->dtype, o->ndim = param->ndim, o->size = param->size;
  memcpy(o->shape, param->shape, sizeof o->shape);
  o->bt1 = 1, o->bt2 = 1;
  int nstate = 0;
  switch (opt->kind) {
  case AG_OPTIM_SGD:
    break;
  case AG_OPTIM_MOMENTUM_TORCH:
    nstate = opt->momentum != 0; /* torch keeps no buffer without momentum */
    break;
  case AG_OPTIM_MOMENTUM_FLUX:
    nstate = 1;
    break;
  case AG_OPTIM_ADAM_TORCH:
    nstate = opt->amsgrad ? 3 : 2;
    break;
  case AG_OPTIM_ADAM_FLUX:
    nstate = 2;
    break;
  }
  ag_array **s[] = {&o->s1, &o->s2, &o->s3};
  for (int i = 0; i < nstate && st == AG_OK; i++)
    st = ag_array_create(o->dev, o->dtype, o->ndim, o->shape, s[i]);
  /* The state starts at zero, as the references' does. The fill runs on this thread's default
     queue, which create has to finish: a step may come on any queue. */
  if (nstate > 0 && st == AG_OK && o->size > 0) {
    ag_queue *dq = NULL;
    st = ag_queue_default(o->dev, &dq);
    for (int i = 0; i < nstate && st == AG_OK; i++)
      st = ag_fill(dq, *s[i], 0.0);
    if (st == AG_OK)
      st = ag_queue_finish(dq);
  }
  if (st != AG_OK) {
    ag_optimizer_destroy(o);
    return ag__prefix(st, fn);
  }
  *out = o;
  return AG_OK;
}

/* @p v rounded to the precision of dtype @p t. */
static double in_precision(ag_dtype t, double v) { return t == AG_F32 ? (double)(float)v : v; }

/* The launch of optim kernel @p kernel (its u8 id) on @p o's parameters. */
static ag__launch optim_launch(const char *fn, ag_queue *q, const ag_optimizer *o, ag__kernel_id kernel) {
  return (ag__launch){.fn = fn, .q = q, .dev = o->dev, .kernel = kernel + o->dtype, .n = o->size};
}

static ag_status step_torch_sgd(const char *fn, ag_queue *q, ag_optimizer *o, ag_array *x, const ag_array *g) {
  const ag_optim_options *p = &o->opt;
  ag_dtype t = o->dtype;
  uint64_t flags = (p->maximize ? AG_OPTIM_F_MAXIMIZE : 0) | (p->weight_decay != 0 ? AG_OPTIM_F_DECAY : 0) |
                   (o->steps == 0 ? AG_OPTIM_F_FIRST : 0) | (p->nesterov ? AG_OPTIM_F_NESTEROV : 0);
  unsigned char b_nlr[8], b_wd[8], b_mom[8], b_omd[8];
  if (o->s1 == NULL) {
    ag__launch l = optim_launch(fn, q, o, AG_K_OPTIM_SGD);
    return AG__LAUNCH(launch_sgd, &l, .x = x, .g = g, .nlr = ag__real_val(t, -p->lr, b_nlr),
                      .wd = ag__real_val(t, p->weight_decay, b_wd), .flags = flags);
  }
  ag__launch l = optim_launch(fn, q, o, AG_K_OPTIM_SGD_MOMENTUM);
  return AG__LAUNCH(launch_sgd_momentum, &l, .x = x, .g = g, .buf = o->s1, .nlr = ag__real_val(t, -p->lr, b_nlr),
                    .wd = ag__real_val(t, p->weight_decay, b_wd), .mom = ag__real_val(t, p->momentum, b_mom),
                    .omd = ag__real_val(t, 1 - p->dampening, b_omd), .flags = flags);
}

static ag_status step_momentum_flux(const char *fn, ag_queue *q, ag_optimizer *o, ag_array *x, const ag_array *g) {
  unsigned char b_eta[8], b_rho[8];
  ag__launch l = optim_launch(fn, q, o, AG_K_OPTIM_MOMENTUM_FLUX);
  return AG__LAUNCH(launch_momentum_flux, &l, .x = x, .g = g, .v = o->s1,
                    .eta = ag__real_val(o->dtype, o->opt.lr, b_eta),
                    .rho = ag__real_val(o->dtype, o->opt.momentum, b_rho));
}

/* torch's Adam at step t = steps + 1: step_size = lr / (1 - beta1^t) and
   sqrt(1 - beta2^t) in double, as torch works them out in Python floats. */
static ag_status step_adam_torch(const char *fn, ag_queue *q, ag_optimizer *o, ag_array *x, const ag_array *g) {
  const ag_optim_options *p = &o->opt;
  ag_dtype t = o->dtype;
  double step = (double)(o->steps + 1);
  double bc1 = 1 - pow(p->beta1, step), bc2 = 1 - pow(p->beta2, step);
  double nss = -(p->lr / bc1), bc2s = sqrt(bc2);
  uint64_t flags = (p->maximize ? AG_OPTIM_F_MAXIMIZE : 0) | (p->weight_decay != 0 ? AG_OPTIM_F_DECAY : 0);
  unsigned char b_b1[8], b_omb1[8], b_b2[8], b_omb2[8], b_wd[8], b_nss[8], b_bc2s[8], b_eps[8];
  ag__val vb1 = ag__real_val(t, p->beta1, b_b1), vomb1 = ag__real_val(t, 1 - p->beta1, b_omb1), vb2 = ag__real_val(t, p->beta2, b_b2),
          vomb2 = ag__real_val(t, 1 - p->beta2, b_omb2), vwd = ag__real_val(t, p->weight_decay, b_wd), vnss = ag__real_val(t, nss, b_nss),
          vbc2s = ag__real_val(t, bc2s, b_bc2s), veps = ag__real_val(t, p->eps, b_eps);
  if (p->amsgrad) {
    ag__launch l = optim_launch(fn, q, o, AG_K_OPTIM_ADAM_AMSGRAD);
    return AG__LAUNCH(launch_adam_amsgrad, &l, .x = x, .g = g, .m = o->s1, .v = o->s2, .vmax = o->s3, .b1 = vb1,
                      .omb1 = vomb1, .b2 = vb2, .omb2 = vomb2, .wd = vwd, .nss = vnss, .bc2s = vbc2s, .eps = veps,
                      .flags = flags);
  }
  ag__launch l = optim_launch(fn, q, o, AG_K_OPTIM_ADAM);
  return AG__LAUNCH(launch_adam, &l, .x = x, .g = g, .m = o->s1, .v = o->s2, .b1 = vb1, .omb1 = vomb1, .b2 = vb2,
                    .omb2 = vomb2, .wd = vwd, .nss = vnss, .bc2s = vbc2s, .eps = veps, .flags = flags);
}

/* Optimisers.Adam: its state's beta^t is beta^(steps + 1) at this step, the product of
   beta's rounded to the element type. */
static ag_status step_adam_flux(const char *fn, ag_queue *q, ag_optimizer *o, ag_array *x, const ag_array *g) {
  const ag_optim_options *p = &o->opt;
  ag_dtype t = o->dtype;
  double b1 = in_precision(t, p->beta1), b2 = in_precision(t, p->beta2);
  double bt1 = in_precision(t, o->bt1 * b1), bt2 = in_precision(t, o->bt2 * b2);
  unsigned char b_eta[8], b_b1[8], b_b2[8], b_c1[8], b_c2[8], b_eps[8];
  ag__launch l = optim_launch(fn, q, o, AG_K_OPTIM_ADAM_FLUX);
  ag_status st = AG__LAUNCH(launch_adam_flux, &l, .x = x, .g = g, .m = o->s1, .v = o->s2,
                            .eta = ag__real_val(t, p->lr, b_eta), .b1 = ag__real_val(t, b1, b_b1),
                            .b2 = ag__real_val(t, b2, b_b2), .c1 = ag__real_val(t, 1 - bt1, b_c1),
                            .c2 = ag__real_val(t, 1 - bt2, b_c2), .eps = ag__real_val(t, p->eps, b_eps));
  if (st == AG_OK)
    o->bt1 = bt1, o->bt2 = bt2;
  return st;
}

ag_status ag_optimizer_step(ag_queue *q, ag_optimizer *opt, ag_array *param, const ag_array *grad) {
  static const char fn[] = "ag_optimizer_step";
  ag_status st;
  if (opt == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt is NULL", fn);
  if ((st = check_like(fn, opt, "param", param)) != AG_OK || (st = check_like(fn, opt, "grad", grad)) != AG_OK)
    return st;
  if (q != NULL && ag_queue_device(q) != opt->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: q is a queue of %s but the optimiser's parameters are on %s", fn,
                     ag__dev_info(ag_queue_device(q))->spec, ag__dev_info(opt->dev)->spec);
  /* Each element's update reads its own gradient before writing its parameter; a gradient
     that shares memory with the parameter anywhere else would be read after it changed. */
  if (ag__arrays_overlap(param, grad))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: param and grad overlap in one buffer", fn);
  switch (opt->opt.kind) {
  case AG_OPTIM_SGD:
  case AG_OPTIM_MOMENTUM_TORCH:
    st = step_torch_sgd(fn, q, opt, param, grad);
    break;
  case AG_OPTIM_MOMENTUM_FLUX:
    st = step_momentum_flux(fn, q, opt, param, grad);
    break;
  case AG_OPTIM_ADAM_TORCH:
    st = step_adam_torch(fn, q, opt, param, grad);
    break;
  case AG_OPTIM_ADAM_FLUX:
    st = step_adam_flux(fn, q, opt, param, grad);
    break;
  }
  if (st == AG_OK)
    opt->steps++;
  return st;
}

uint64_t ag_optimizer_steps(const ag_optimizer *opt) { return opt == NULL ? 0 : opt->steps; }

void ag_optimizer_destroy(ag_optimizer *opt) {
  if (opt == NULL)
    return;
  /* Arrays' memory waits for the work enqueued on it (the pool), so a step still running keeps
     its state alive. */
  ag_array_free(opt->s1);
  ag_array_free(opt->s2);
  ag_array_free(opt->s3);
  free(opt);
}
