/* src/solvers/pgm.c - the proximal gradient algorithm of sporco 0.2.2 (pgm.h), one class of
   the solver base (solver.h): the options and their defaults, sporco's PGMDFT iteration with
   its xstep and ystep, the momentum coefficients, the step size policies and the two
   backtrackings. The scalars (L, t, the objective, the backtracking's F and Q) are the host's;
   each iteration reads back a few norms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgm.h"
#include "seam.h"

AG__SHAPE_LAUNCHER(launch_redot, AG_SHAPE_PGM_REDOT)

ag_status ag_pgm_options_default(ag_pgm_options *opt) {
  AG__CHECK_NOT_NULL("ag_pgm_options_default", opt);
  memset(opt, 0, sizeof *opt);
  /* sporco.pgm.pgm.PGM.Options, with sporco.pgm.cbpdn.ConvBPDN.Options' additions */
  opt->max_iter = 1000;
  opt->rel_stop_tol = 1e-3;
  opt->l = 500.0; /* ConvBPDN's; PGM's own is None, which is 1 */
  opt->auto_stop.enabled = false, opt->auto_stop.tau0 = 1e-2;
  opt->monotone = false;
  opt->momentum = AG_PGM_MOMENTUM_NESTEROV;
  opt->momentum_a = 50.0, opt->momentum_b = 2.0; /* MomentumGenLinear(a=50, b=2), MomentumLinear(b=2) */
  opt->step_policy = AG_PGM_STEP_FIXED;
  opt->backtrack.kind = AG_PGM_BACKTRACK_NONE;
  opt->backtrack.gamma_u = NAN; /* 1.2 for BacktrackStandard, 2 for BacktrackRobust */
  opt->backtrack.gamma_d = 0.9, opt->backtrack.maxiter = 50;
  opt->fast_solve = false;
  opt->nonneg = false, opt->no_bndry_cross = false;
  opt->l1_weight = 1.0;
  opt->x0 = NULL;
  return AG_OK;
}

static ag_status check_options(const char *fn, const ag_pgm_options *o) {
  if (!(o->rel_stop_tol >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->rel_stop_tol is %g; it must be >= 0", fn, o->rel_stop_tol);
  if (!isnan(o->l) && !(o->l > 0 && isfinite(o->l)))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->l is %g, not positive (NaN: 1, sporco's None)", fn, o->l);
  if (o->auto_stop.enabled && !(o->auto_stop.tau0 >= 0 && isfinite(o->auto_stop.tau0)))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->auto_stop.tau0 is %g; it must be >= 0", fn, o->auto_stop.tau0);
  if (o->momentum != AG_PGM_MOMENTUM_NESTEROV && o->momentum != AG_PGM_MOMENTUM_LINEAR &&
      o->momentum != AG_PGM_MOMENTUM_GENLINEAR)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->momentum is %d, not an ag_pgm_momentum", fn, (int)o->momentum);
  if (o->momentum != AG_PGM_MOMENTUM_NESTEROV && !(o->momentum_b > 0 && isfinite(o->momentum_b) && isfinite(o->momentum_a)))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->momentum_b (%g) must be > 0 and opt->momentum_a (%g) finite", fn,
                     o->momentum_b, o->momentum_a);
  if (o->step_policy != AG_PGM_STEP_FIXED && o->step_policy != AG_PGM_STEP_CAUCHY && o->step_policy != AG_PGM_STEP_BB)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->step_policy is %d, not an ag_pgm_step_policy", fn,
                     (int)o->step_policy);
  const ag_pgm_backtrack bk = o->backtrack.kind;
  if (bk != AG_PGM_BACKTRACK_NONE && bk != AG_PGM_BACKTRACK_STANDARD && bk != AG_PGM_BACKTRACK_ROBUST)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->backtrack.kind is %d, not an ag_pgm_backtrack", fn, (int)bk);
  if (bk != AG_PGM_BACKTRACK_NONE &&
      (!(isnan(o->backtrack.gamma_u) || (o->backtrack.gamma_u > 1 && isfinite(o->backtrack.gamma_u))) ||
       o->backtrack.maxiter < 1 || (bk == AG_PGM_BACKTRACK_ROBUST && !(o->backtrack.gamma_d > 0 && o->backtrack.gamma_d <= 1))))
    return ag__error(AG_ERR_INVALID_ARGUMENT,
                     "%s: opt->backtrack needs gamma_u > 1 or NaN (%g), maxiter >= 1 (%d) and, robust, gamma_d in (0, 1] "
                     "(%g)",
                     fn, o->backtrack.gamma_u, o->backtrack.maxiter, o->backtrack.gamma_d);
  if (!(o->l1_weight >= 0 && isfinite(o->l1_weight)))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->l1_weight is %g; it must be >= 0", fn, o->l1_weight);
  return AG_OK;
}

ag_status ag__pgm_init(ag_solver *s, const char *fn, ag_queue *q, ag_device *dev, ag_dtype t, const ag_pgm_options *opt,
                       ag_dtype ct, int xndim, const size_t *xshape, int fndim, const size_t *fshape) {
  ag__pgm *p = ag__pgm_of(s);
  const ag__pgm_ops *ops = p->ops;
  s->q = q, s->dev = dev, s->dtype = t;
  ag_status st;
  if (opt != NULL)
    p->opt = *opt;
  else
    ag_pgm_options_default(&p->opt);
  if ((st = check_options(fn, &p->opt)) != AG_OK)
    return st;
  const ag_pgm_options *o = &p->opt;
  p->l = isnan(o->l) ? 1.0 : o->l;
  if (t == AG_F32)
    p->l = (float)p->l; /* sporco's L in the solver's dtype */
  p->t = 1.0;
  p->f = p->q = NAN;
  p->gamma_u = !isnan(o->backtrack.gamma_u) ? o->backtrack.gamma_u
               : o->backtrack.kind == AG_PGM_BACKTRACK_ROBUST ? 2.0
                                                               : 1.2;
  if (o->backtrack.kind != AG_PGM_BACKTRACK_NONE)
    p->opt.step_policy = AG_PGM_STEP_FIXED; /* sporco: "only Backtrack will be used" */
  /* what the base's loop reads */
  s->max_iter = o->max_iter, s->fast_solve = o->fast_solve;
  st = ag__solver_make_scalars(s);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  st = ag__solver_array(s, xndim, xshape, &s->x);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  const ag_array *x0 = o->x0;
  p->opt.x0 = NULL; /* copied below; the caller's array is not kept */
  if (x0 == NULL) {
    if ((st = ag_fill(q, s->x, 0.0)) != AG_OK)
      return ag__prefix(st, fn);
  } else {
    if ((st = ag__check_array(fn, "opt->x0", x0)) != AG_OK)
      return st;
    if (x0->dev != dev || x0->dtype != t || x0->size != s->x->size)
      return ag__error(AG_ERR_MISMATCH, "%s: opt->x0 is %s of %zu elements on %s; the solver needs %s of %zu on %s", fn,
                       ag_dtype_name(x0->dtype), x0->size, ag__dev_info(x0->dev)->spec, ag_dtype_name(t), s->x->size,
                       ag__dev_info(dev)->spec);
    if ((st = ag_copy(q, x0, s->x)) != AG_OK)
      return ag__prefix(st, fn);
  }
  bool bb = o->step_policy == AG_PGM_STEP_BB, robust = o->backtrack.kind == AG_PGM_BACKTRACK_ROBUST;
  bool dots = bb || o->backtrack.kind != AG_PGM_BACKTRACK_NONE;
  struct {
    ag_array **a;
    bool need;
  } make[] = {{&p->xf, true},    {&p->yf, true},    {&p->xfprv, true}, {&p->yfprv, !o->fast_solve},
              {&p->gf, true},    {&p->vf, true},    {&p->w1, true},    {&p->w2, true},
              {&p->zzf, o->monotone}, {&p->bbx, bb}, {&p->bbg, bb},    {&p->zrb, robust}};
  for (size_t i = 0; i < sizeof make / sizeof make[0]; i++)
    if (make[i].need && (st = ag_array_create(dev, ct, fndim, fshape, make[i].a)) != AG_OK)
      return ag__prefix(st, fn);
  if (dots && (st = ag_array_create(dev, t, fndim, fshape, &p->re)) != AG_OK)
    return ag__prefix(st, fn);
  st = ops->dft(s, s->x, p->xf);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  st = ag_copy(q, p->xf, p->yf);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  return AG_OK;
}

/* sum re(conj(a) b) into the device scalar @p out. */
static ag_status redot(ag_solver *s, const ag_array *a, const ag_array *b, ag_array *out) {
  ag__pgm *p = ag__pgm_of(s);
  ag__launch l = {.fn = "ag_solver_iterate", .q = s->q, .dev = s->dev, .kernel = AG_K_PGM_REDOT + a->dtype,
                  .n = a->size};
  ag_status st = AG__LAUNCH(launch_redot, &l, .a = a, .b = b, .out = p->re);
  return st != AG_OK ? st : ag_sum(s->q, p->re, AG_AXIS_ALL, out);
}

/* Enqueues the norms of sporco's eval_objfn at X and X^ into s->scal[i] and s->scal[i + 1]. */
static ag_status objfn_norms(ag_solver *s, int i) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st = p->ops->fid_norm(s, p->xf, AG_PGM_WEIGH | AG_PGM_WITH_S, s->scal_view[i]);
  return st != AG_OK ? st : p->ops->l1(s, s->scal_view[i + 1]);
}

/* (obj, dfid, reg) from those norms: ||w (D X^ - S^)|| and sum |X|. */
static void objfn_of(const ag_solver *s, const double v[2], double out[3]) {
  const ag__pgm *p = ag__pgm_of(s);
  out[1] = 0.5 * v[0] * v[0] * p->scale;
  out[2] = p->opt.l1_weight * v[1];
  out[0] = out[1] + s->lmbda * out[2];
}

/* sporco's eval_objfn: (obj, dfid, reg). */
static ag_status eval_objfn(ag_solver *s, double out[3]) {
  double v[2];
  ag_status st;
  st = objfn_norms(s, 0);
  if (st != AG_OK)
    return st;
  st = ag__solver_scalars(s, 2, v);
  if (st != AG_OK)
    return st;
  objfn_of(s, v, out);
  return AG_OK;
}

/* The step size policy's new L at gradient gf (sporco's StepSizePolicyCauchy and
   StepSizePolicyBB update). */
static ag_status step_size(ag_solver *s) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st;
  double v[2];
  if (p->opt.step_policy == AG_PGM_STEP_CAUCHY) {
    /* g^H H g / g^H g with H = D^H D: ||D g||^2 / ||g||^2 over the raw half spectra */
    st = p->ops->fid_norm(s, p->gf, 0, s->scal_view[0]);
    if (st != AG_OK)
      return st;
    st = ag_nrm2(s->q, p->gf, AG_AXIS_ALL, s->scal_view[1]);
    if (st != AG_OK)
      return st;
    st = ag__solver_scalars(s, 2, v);
    if (st != AG_OK)
      return st;
    p->l = (v[0] * v[0]) / (v[1] * v[1]);
    return AG_OK;
  }
  /* Barzilai-Borwein: dx = X^ - X^stored, dg = g - g_stored, L = |dg|^2 / re(dx^H dg), kept
     when negative */
  st = ag_sub(s->q, p->xf, p->bbx, p->w1);
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, p->gf, p->bbg, p->w2);
  if (st != AG_OK)
    return st;
  st = redot(s, p->w1, p->w2, s->scal_view[0]);
  if (st != AG_OK)
    return st;
  st = ag_nrm2(s->q, p->w2, AG_AXIS_ALL, s->scal_view[1]);
  if (st != AG_OK)
    return st;
  st = ag__solver_scalars(s, 2, v);
  if (st != AG_OK)
    return st;
  double l = (v[1] * v[1]) / v[0];
  if (!(l < 0.0))
    p->l = l;
  return AG_OK;
}

/* sporco's PGMDFT.xstep: the gradient at Y^ (unless @p have_grad: p->gf holds it), the step
   size policy, V^ = Y^ - (1 / L) g, X = prox(V), X^ = dft(X); with monotone from the second
   iteration, X^ goes back to X^prev when the objective rose (X itself keeps the new value, as
   in sporco). */
static ag_status xstep(ag_solver *s, bool have_grad) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st;
  if (!have_grad && (st = p->ops->grad(s, p->yf, p->gf)) != AG_OK)
    return st;
  if (p->opt.step_policy != AG_PGM_STEP_FIXED) {
    if (s->k > 1 && (st = step_size(s)) != AG_OK)
      return st;
    if (p->opt.step_policy == AG_PGM_STEP_BB) {
      st = ag_copy(s->q, p->xf, p->bbx);
      if (st != AG_OK)
        return st;
      st = ag_copy(s->q, p->gf, p->bbg);
      if (st != AG_OK)
        return st;
    }
  }
  st = ag_axpby(s->q, 1.0, p->yf, -(1.0 / p->l), p->gf, p->vf);
  if (st != AG_OK)
    return st;
  st = p->ops->prox(s, p->vf, p->xf);
  if (st != AG_OK)
    return st;
  if (p->opt.monotone && s->k > 0) {
    st = ag_copy(s->q, p->xf, p->zzf);
    if (st != AG_OK)
      return st;
    st = eval_objfn(s, p->objfn);
    if (st != AG_OK)
      return st;
    if (p->objfn_prev[0] < p->objfn[0]) {
      if ((st = ag_copy(s->q, p->xfprv, p->xf)) != AG_OK)
        return st;
      memcpy(p->objfn, p->objfn_prev, sizeof p->objfn);
    }
  }
  return AG_OK;
}

/* The momentum coefficient after @p t (Nesterov) or at iteration @p k. */
static double momentum(const ag_pgm_options *o, double t, size_t k) {
  switch (o->momentum) {
  case AG_PGM_MOMENTUM_LINEAR:
    return ((double)k + o->momentum_b) / o->momentum_b;
  case AG_PGM_MOMENTUM_GENLINEAR:
    return ((double)k + o->momentum_a) / o->momentum_b;
  case AG_PGM_MOMENTUM_NESTEROV:
    break;
  }
  return 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
}

/* sporco's PGMDFT.ystep: Y^ = X^ + ((t_prev - 1) / t) (X^ - X^prev), and with monotone from the
   second iteration Y^ = X^ + (t_prev / t) (Z^ - X^) + ((t_prev - 1) / t) (X^ - X^prev). */
static ag_status ystep(ag_solver *s) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st;
  double tprv = p->t;
  p->t = momentum(&p->opt, p->t, s->k);
  if ((st = ag_sub(s->q, p->xf, p->xfprv, p->w1)) != AG_OK)
    return st;
  if (!(p->opt.monotone && s->k > 0))
    return ag_axpby(s->q, 1.0, p->xf, (tprv - 1.0) / p->t, p->w1, p->yf);
  st = ag_sub(s->q, p->zzf, p->xf, p->w2);
  if (st != AG_OK)
    return st;
  st = ag_axpby(s->q, 1.0, p->xf, tprv / p->t, p->w2, p->yf);
  if (st != AG_OK)
    return st;
  return ag_axpby(s->q, 1.0, p->yf, (tprv - 1.0) / p->t, p->w1, p->yf);
}

/* F = f(X^) and Q = f(Y^) + re((X^ - Y^)^H g) + (L / 2) ||X^ - Y^||^2, sporco's backtracking
   test, over the raw half spectra; f(Y^) is read when @p fy is NaN. Leaves X^ - Y^ in w1. */
static ag_status f_and_q(ag_solver *s, double *fy, double *f, double *q) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st;
  double v[4];
  size_t n = isnan(*fy) ? 4 : 3;
  st = p->ops->fid_norm(s, p->xf, AG_PGM_WITH_S, s->scal_view[0]);
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, p->xf, p->yf, p->w1);
  if (st != AG_OK)
    return st;
  st = ag_nrm2(s->q, p->w1, AG_AXIS_ALL, s->scal_view[1]);
  if (st != AG_OK)
    return st;
  st = redot(s, p->w1, p->gf, s->scal_view[2]);
  if (st != AG_OK)
    return st;
  if (n == 4) {
    st = p->ops->fid_norm(s, p->yf, AG_PGM_WITH_S, s->scal_view[3]);
    if (st != AG_OK)
      return st;
  }
  st = ag__solver_scalars(s, n, v);
  if (st != AG_OK)
    return st;
  if (n == 4)
    *fy = 0.5 * v[3] * v[3];
  *f = 0.5 * v[0] * v[0];
  *q = *fy + v[2] + (p->l / 2.0) * (v[1] * v[1]);
  return AG_OK;
}

/* sporco's BacktrackStandard.update: the gradient at Y^ once, then the x step with L grown by
   gamma_u until F <= Q, at most maxiter tries (a last failed try still grows L); then the
   y step. */
static ag_status backtrack_standard(ag_solver *s) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st;
  if ((st = p->ops->grad(s, p->yf, p->gf)) != AG_OK)
    return st;
  double fy = NAN, f = NAN, q = NAN;
  int n = 0;
  for (bool search = true; search && n < p->opt.backtrack.maxiter; n++) {
    st = xstep(s, true);
    if (st != AG_OK)
      return st;
    st = f_and_q(s, &fy, &f, &q);
    if (st != AG_OK)
      return st;
    if (f <= q)
      search = false;
    else
      p->l *= p->gamma_u;
  }
  p->f = f, p->q = q, p->iter_btrack = n;
  return ystep(s);
}

/* sporco's BacktrackRobust.update (Florea and Vorobyov): L shrunk by gamma_d, then per try
   t = (1 + sqrt(1 + 4 L Tk)) / (2 L), Y^ = (Tk X^prev + t Zrb) / (Tk + t), the x step at Y^,
   L grown by gamma_u until F <= Q; then Tk += t and Zrb += t L (X^ - Y^). No y step. */
static ag_status backtrack_robust(ag_solver *s) {
  ag__pgm *p = ag__pgm_of(s);
  ag_status st;
  if (!p->zrb_set) {
    if ((st = ag_copy(s->q, p->xf, p->zrb)) != AG_OK)
      return st;
    p->zrb_set = true;
  }
  p->l *= p->opt.backtrack.gamma_d;
  double f = NAN, q = NAN, t = 0, tt = p->tk;
  int n = 0;
  for (bool search = true; search && n < p->opt.backtrack.maxiter; n++) {
    t = (1.0 + sqrt(1.0 + 4.0 * p->l * p->tk)) / (2.0 * p->l);
    tt = p->tk + t;
    double fy = NAN;
    st = ag_axpby(s->q, p->tk, p->xfprv, t, p->zrb, p->yf);
    if (st != AG_OK)
      return st;
    st = ag_div_scalar(s->q, p->yf, tt, p->yf);
    if (st != AG_OK)
      return st;
    st = xstep(s, false);
    if (st != AG_OK)
      return st;
    st = f_and_q(s, &fy, &f, &q);
    if (st != AG_OK)
      return st;
    if (f <= q)
      search = false;
    else
      p->l *= p->gamma_u;
  }
  p->tk = tt;
  /* w1 holds X^ - Y^ of the last try */
  if ((st = ag_axpby(s->q, 1.0, p->zrb, t * p->l, p->w1, p->zrb)) != AG_OK)
    return st;
  p->f = f, p->q = q, p->iter_btrack = n;
  return AG_OK;
}

/* One iteration of sporco's PGM.solve() (pgm.h); the base records the statistics, calls the
   callback and stops. */
static ag_status pgm_iterate(ag_solver *s, ag_iter_stats *is, bool *converged) {
  ag__pgm *p = ag__pgm_of(s);
  const ag_pgm_options *o = &p->opt;
  /* on_iteration_start */
  ag_status st = ag_copy(s->q, p->xf, p->xfprv);
  if (st != AG_OK)
    return st;
  if (!o->fast_solve) {
    st = ag_copy(s->q, p->yf, p->yfprv);
    if (st != AG_OK)
      return st;
  }
  if (o->monotone) {
    if (s->k == 0) {
      st = eval_objfn(s, p->objfn);
      if (st != AG_OK)
        return st;
    }
    memcpy(p->objfn_prev, p->objfn, sizeof p->objfn);
  }
  switch (o->backtrack.kind) {
  case AG_PGM_BACKTRACK_STANDARD:
    st = backtrack_standard(s);
    break;
  case AG_PGM_BACKTRACK_ROBUST:
    st = backtrack_robust(s);
    break;
  case AG_PGM_BACKTRACK_NONE:
    st = xstep(s, false);
    if (st == AG_OK)
      st = ystep(s);
    break;
  }
  if (st != AG_OK)
    return st;
  *is = (ag_iter_stats){.k = s->k, .obj = NAN, .dfid = NAN, .reg = NAN, .reg2 = NAN, .r = NAN, .s = NAN,
                        .eps_pri = NAN, .eps_dua = NAN, .rho = NAN, .xrrs = NAN, .rsdl = NAN, .f_btrack = p->f,
                        .q_btrack = p->q, .iter_btrack = p->iter_btrack, .l = p->l};
  double tol = o->auto_stop.enabled ? o->auto_stop.tau0 / (1.0 + (double)s->k) : o->rel_stop_tol;
  if (!o->fast_solve) {
    /* the residual ||X^ - Y^prev||^2 (rfl2norm2) and, unless monotone keeps its own, the
       objective, read back together */
    double v[3], obj[3];
    size_t n = o->monotone ? 1 : 3;
    st = p->ops->diff_norm(s, p->xf, p->yfprv, p->w2, s->scal_view[0]);
    if (st != AG_OK)
      return st;
    if (!o->monotone) {
      st = objfn_norms(s, 1);
      if (st != AG_OK)
        return st;
    }
    st = ag__solver_scalars(s, n, v);
    if (st != AG_OK)
      return st;
    is->rsdl = v[0] * v[0] * p->scale;
    if (o->monotone)
      memcpy(obj, p->objfn, sizeof obj);
    else
      objfn_of(s, v + 1, obj);
    is->obj = obj[0], is->dfid = obj[1], is->reg = obj[2];
  }
  *converged = !o->fast_solve && is->rsdl < tol;
  return AG_OK;
}

/* PGM has X (its spatial iterate, also sporco's solve() result) and no Y or U. */
static const ag_array *pgm_var(const ag_solver *s, ag_solver_var var) {
  return var == AG_VAR_X || var == AG_VAR_RESULT ? s->x : NULL;
}

static double pgm_rho(const ag_solver *s) {
  (void)s;
  return NAN;
}

static void pgm_destroy(ag_solver *s) {
  ag__pgm *p = ag__pgm_of(s);
  if (p->ops != NULL && p->ops->destroy != NULL)
    p->ops->destroy(s);
  ag_array *a[] = {p->xf, p->yf, p->xfprv, p->yfprv, p->gf, p->vf, p->w1, p->w2, p->zzf, p->bbx, p->bbg, p->zrb, p->re};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    ag_array_free(a[i]);
}

static const ag__solver_class pgm_class = {
    .name = "PGM", .iterate = pgm_iterate, .var = pgm_var, .rho = pgm_rho, .destroy = pgm_destroy};

ag_status ag__pgm_alloc(const char *fn, ag_solver_kind kind, const ag__pgm_ops *ops, double lmbda, bool nan_default,
                        size_t impl_size, ag_solver **s) {
  ag_status st = ag__solver_alloc(fn, &pgm_class, kind, lmbda, nan_default, sizeof(ag__pgm), impl_size, s);
  if (st != AG_OK)
    return st;
  ag__pgm_of(*s)->ops = ops;
  return AG_OK;
}

double ag_solver_pgm_l(const ag_solver *s) {
  if (s == NULL || s->cls != &pgm_class)
    return NAN;
  return ag__pgm_of(s)->l;
}
