/* src/solvers/admm.c - the ADMM algorithm of sporco 0.2.2 (sporco.admm.admm.ADMM and
   ADMMEqual), one class of the solver base (solver.h): its iteration over a problem's hooks
   (admm.h), its options and their defaults, and the checks ConvBPDN's problems share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admm.h"
#include "seam.h"

static void base_defaults(ag_admm_options *o) {
  memset(o, 0, sizeof *o);
  /* sporco.admm.admm.ADMM.Options */
  o->max_iter = 1000;
  o->abs_stop_tol = 0.0;
  o->rel_stop_tol = 1e-3;
  o->relax = 1.0;
  o->rho = NAN;
  o->auto_rho = (ag_admm_auto_rho){.enabled = false, .period = 10, .scaling = 2.0, .rsdl_ratio = 10.0,
                                   .rsdl_target = NAN, .auto_scaling = false, .std_residuals = false};
  o->fast_solve = false;
  /* ADMMEqual */
  o->f_eval_x = true;
  o->g_eval_y = true;
  o->return_x = true;
  o->l1_weight = 1.0;
  o->dfid_weight = 1.0;
  o->tv_weight = 1.0;
  o->max_gs_iter = 2;
  o->gs_tol = 0.0;
}

ag_status ag_solver_options_default(ag_solver_kind kind, ag_admm_options *opt) {
  AG__CHECK_NOT_NULL("ag_solver_options_default", opt);
  base_defaults(opt);
  /* The AutoRho settings every solver here overrides alike. */
  ag_admm_auto_rho adaptive = {.enabled = true, .period = 10, .scaling = 1000.0, .rsdl_ratio = 1.2,
                               .rsdl_target = NAN, .auto_scaling = true, .std_residuals = false};
  switch (kind) {
  case AG_SOLVER_BPDN: /* GenericBPDN.Options, AuxVarObj True */
    opt->f_eval_x = false, opt->g_eval_y = true, opt->return_x = false;
    opt->relax = 1.8;
    opt->auto_rho = adaptive;
    return AG_OK;
  case AG_SOLVER_CBPDN: /* GenericConvBPDN.Options, AuxVarObj False */
    opt->f_eval_x = true, opt->g_eval_y = false, opt->return_x = false;
    opt->relax = 1.8;
    opt->auto_rho = adaptive, opt->auto_rho.period = 1;
    return AG_OK;
  case AG_SOLVER_TVL1: /* TVL1Denoise.Options; RsdlTarget None becomes 1 */
  case AG_SOLVER_TVL2: /* TVL2Denoise.Options, the same */
    opt->g_eval_y = true;
    opt->relax = 1.8;
    opt->auto_rho = adaptive, opt->auto_rho.enabled = false, opt->auto_rho.period = 1;
    opt->auto_rho.rsdl_target = 1.0;
    return AG_OK;
  case AG_SOLVER_RPCA: /* RobustPCA.Options */
    opt->g_eval_y = true, opt->f_eval_x = true;
    opt->relax = 1.8;
    opt->auto_rho = adaptive, opt->auto_rho.period = 1;
    opt->auto_rho.rsdl_target = 1.0;
    return AG_OK;
  case AG_SOLVER_PGM_CBPDN:
    return ag__error(AG_ERR_INVALID_ARGUMENT,
                     "ag_solver_options_default: kind is AG_SOLVER_PGM_CBPDN, whose options are an ag_pgm_options: "
                     "use ag_pgm_options_default");
  }
  return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_solver_options_default: kind is %d, not an ag_solver_kind",
                   (int)kind);
}

static ag_status check_options(const char *fn, const ag_admm_options *o) {
  if (!(o->relax > 0 && o->relax < 2))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->relax is %g, not in (0, 2)", fn, o->relax);
  if (!isnan(o->rho) && !(o->rho > 0 && isfinite(o->rho)))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->rho is %g, not positive (NaN: the default)", fn, o->rho);
  if (!(o->abs_stop_tol >= 0) || !(o->rel_stop_tol >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->abs_stop_tol (%g) and opt->rel_stop_tol (%g) must be >= 0",
                     fn, o->abs_stop_tol, o->rel_stop_tol);
  const ag_admm_auto_rho *a = &o->auto_rho;
  if (a->enabled && (a->period < 1 || !(a->scaling > 0) || !(a->rsdl_ratio > 0) ||
                     !(isnan(a->rsdl_target) || a->rsdl_target > 0)))
    return ag__error(AG_ERR_INVALID_ARGUMENT,
                     "%s: opt->auto_rho needs period >= 1 (%d), scaling > 0 (%g), rsdl_ratio > 0 (%g) and "
                     "rsdl_target > 0 or NaN (%g)",
                     fn, a->period, a->scaling, a->rsdl_ratio, a->rsdl_target);
  if (o->max_gs_iter < 1 || !(o->gs_tol >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->max_gs_iter (%d) must be >= 1 and opt->gs_tol (%g) >= 0", fn,
                     o->max_gs_iter, o->gs_tol);
  if (!(o->l1_weight >= 0) || !(o->dfid_weight >= 0) || !(o->tv_weight >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->l1_weight (%g), dfid_weight (%g) and tv_weight (%g) must be >= 0",
                     fn, o->l1_weight, o->dfid_weight, o->tv_weight);
  return AG_OK;
}

/* D [M][Nd0][Nd1] (C = 1) with S [N0][N1], [K][N0][N1] or, with AG__CSC_MULTICHANNEL,
   [K][C'][N0][N1] (K C' signals, sporco's single-channel dictionary with a multi-channel
   signal), or D [M][C][Nd0][Nd1] with S [C][N0][N1] (K = 1) or [K][C][N0][N1]. */
ag_status ag__csc_check_problem(const char *fn, const char *solver, const ag_array *D, const ag_array *S, unsigned flags,
                                ag__csc_geometry *g) {
  ag_status st;
  if ((st = ag__check_array(fn, "D", D)) != AG_OK || (st = ag__check_array(fn, "S", S)) != AG_OK ||
      (st = ag__check_same_device(fn, "D", D, "S", S)) != AG_OK || (st = ag__check_same_dtype(fn, "D", D, "S", S)) != AG_OK)
    return st;
  if (D->dtype != AG_F32 && D->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: D is %s; %s takes f32 or f64", fn, ag_dtype_name(D->dtype), solver);
  if ((st = ag__check_fp64(fn, D->dev, D->dtype)) != AG_OK)
    return st;
  if (!(flags & AG__CSC_MULTICHANNEL)) {
    if (D->ndim == 4 || S->ndim == 4)
      return ag__error(AG_ERR_UNSUPPORTED, "%s: D is %d-D and S %d-D: multi-channel problems are not implemented", fn,
                       D->ndim, S->ndim);
    if (D->ndim != 3 || (S->ndim != 2 && S->ndim != 3))
      return ag__error(AG_ERR_MISMATCH, "%s: D must be 3-D [M][Nd0][Nd1] and S 2-D [N0][N1] or 3-D [K][N0][N1]; they "
                       "are %d-D and %d-D",
                       fn, D->ndim, S->ndim);
    g->c = 1, g->k = S->ndim == 3 ? S->shape[0] : 1;
  } else if (D->ndim == 3) {
    if (S->ndim < 2)
      return ag__error(AG_ERR_MISMATCH, "%s: with a 3-D D [M][Nd0][Nd1], S must be 2-D [N0][N1], 3-D [K][N0][N1] or "
                       "4-D [K][C][N0][N1]; it is %d-D", fn, S->ndim);
    g->c = 1, g->k = S->ndim == 2 ? 1 : S->ndim == 3 ? S->shape[0] : S->shape[0] * S->shape[1];
  } else if (D->ndim == 4) {
    size_t c = D->shape[1];
    if ((S->ndim != 3 && S->ndim != 4) || S->shape[S->ndim - 3] != c)
      return ag__error(AG_ERR_MISMATCH, "%s: D [M][C][Nd0][Nd1] has C = %zu channels; S must be [C][N0][N1] or "
                       "[K][C][N0][N1] with that C; it is %d-D with %zu channels", fn, c, S->ndim,
                       S->ndim >= 3 ? S->shape[S->ndim - 3] : (size_t)1);
    g->c = c, g->k = S->ndim == 4 ? S->shape[0] : 1;
  } else {
    return ag__error(AG_ERR_MISMATCH, "%s: D must be 3-D [M][Nd0][Nd1] or 4-D [M][C][Nd0][Nd1]; it is %d-D", fn,
                     D->ndim);
  }
  if (D->size == 0 || S->size == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: D (%zu values) and S (%zu values) must not be empty", fn, D->size,
                     S->size);
  g->m = D->shape[0], g->d0 = D->shape[D->ndim - 2], g->d1 = D->shape[D->ndim - 1];
  g->n0 = S->shape[S->ndim - 2], g->n1 = S->shape[S->ndim - 1];
  if (g->d0 > g->n0 || g->d1 > g->n1)
    return ag__error(AG_ERR_MISMATCH, "%s: D's filters (%zu x %zu) are larger than the signals of S (%zu x %zu)", fn,
                     g->d0, g->d1, g->n0, g->n1);
  return AG_OK;
}

/* A copy of @p init (argument @p name) into a new array of the given shape, or zeros. */
static ag_status start_value(ag_solver *s, const char *fn, const char *name, const ag_array *init, int ndim,
                             const size_t *shape, ag_array **out) {
  ag_status st = ag__solver_array(s, ndim, shape, out);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  if (init == NULL)
    return ag_fill(s->q, *out, 0.0);
  if ((st = ag__check_array(fn, name, init)) != AG_OK)
    return st;
  if (init->dev != s->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is on %s, not on %s with the problem", fn, name,
                     ag__dev_info(init->dev)->spec, ag__dev_info(s->dev)->spec);
  if (init->dtype != s->dtype || init->size != (*out)->size)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s of %zu elements; the solver needs %s of %zu", fn, name,
                     ag_dtype_name(init->dtype), init->size, ag_dtype_name(s->dtype), (*out)->size);
  return (st = ag_copy(s->q, init, *out)) == AG_OK ? AG_OK : ag__prefix(st, fn);
}

static ag_status admm_iterate(ag_solver *s, ag_iter_stats *is, bool *converged);
static const ag_array *admm_var(const ag_solver *s, ag_solver_var var);
static double admm_rho(const ag_solver *s) { return ag__admm_of(s)->rho; }
static void admm_destroy(ag_solver *s);

static const ag__solver_class admm_class = {
    .name = "ADMM", .iterate = admm_iterate, .var = admm_var, .rho = admm_rho, .destroy = admm_destroy};

ag_status ag__admm_alloc(const char *fn, ag_solver_kind kind, const ag__admm_ops *ops, double lmbda, bool nan_default,
                         size_t impl_size, ag_solver **s) {
  ag_status st = ag__solver_alloc(fn, &admm_class, kind, lmbda, nan_default, sizeof(ag__admm), impl_size, s);
  if (st != AG_OK)
    return st;
  ag__admm_of(*s)->ops = ops;
  return AG_OK;
}

ag_status ag__admm_init(ag_solver *s, const char *fn, ag_queue *q, ag_device *dev, ag_dtype t,
                        const ag_admm_options *opt, double rho_default, double xi_default, int xndim,
                        const size_t *xshape, int yndim, const size_t *yshape) {
  ag__admm *a = ag__admm_of(s);
  s->q = q, s->dev = dev, s->dtype = t;
  ag_status st;
  if (opt != NULL) {
    a->opt = *opt;
  } else {
    st = ag_solver_options_default(s->kind, &a->opt);
    if (st != AG_OK)
      return ag__prefix(st, fn);
  }
  st = check_options(fn, &a->opt);
  if (st != AG_OK)
    return st;
  s->max_iter = a->opt.max_iter, s->fast_solve = a->opt.fast_solve;
  a->rho = isnan(a->opt.rho) ? rho_default : a->opt.rho;
  a->rho_tau = a->opt.auto_rho.scaling;
  a->rho_mu = a->opt.auto_rho.rsdl_ratio;
  a->rho_xi = isnan(a->opt.auto_rho.rsdl_target) ? xi_default : a->opt.auto_rho.rsdl_target;
  a->rlx = a->opt.relax;
  a->xrrs = NAN;
  a->nx = 1, a->nc = 1;
  for (int i = 0; i < xndim; i++)
    a->nx *= (double)xshape[i];
  for (int i = 0; i < yndim; i++)
    a->nc *= (double)yshape[i];
  st = ag__solver_array(s, xndim, xshape, &s->x);
  if (st != AG_OK)
    goto fail;
  st = ag_fill(q, s->x, 0.0);
  if (st != AG_OK)
    goto fail;
  st = ag__solver_array(s, yndim, yshape, &a->yprev);
  if (st != AG_OK)
    goto fail;
  st = ag__solver_array(s, yndim, yshape, &a->work);
  if (st != AG_OK)
    goto fail;
  st = ag__solver_make_scalars(s);
  if (st != AG_OK)
    goto fail;
  st = start_value(s, fn, "opt->y0", a->opt.y0, yndim, yshape, &a->y);
  if (st != AG_OK)
    return st;
  st = start_value(s, fn, "opt->u0", a->opt.u0, yndim, yshape, &a->u);
  if (st != AG_OK)
    return st;
  a->opt.y0 = a->opt.u0 = NULL; /* copied; the caller's arrays are not kept */
  /* AX: A X when A is not the identity, or the relaxed value; AXnr aliases X when A is I. */
  if (a->ops->cnst_a != NULL) {
    st = ag__solver_array(s, yndim, yshape, &a->axnr);
    if (st != AG_OK)
      goto fail;
    st = ag__solver_array(s, xndim, xshape, &a->xtmp[0]);
    if (st != AG_OK)
      goto fail;
    st = ag__solver_array(s, xndim, xshape, &a->xtmp[1]);
    if (st != AG_OK)
      goto fail;
  }
  if (a->rlx != 1.0) {
    st = ag__solver_array(s, yndim, yshape, &a->ax);
    if (st != AG_OK)
      goto fail;
  }
  return AG_OK;
fail:
  return ag__prefix(st, fn);
}

/* sporco's relax_AX: AXnr = A X, AX = rlx AXnr + (1 - rlx) (Y + c). */
static ag_status relax(ag_solver *s) {
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  const ag_array *axnr = s->x;
  if (a->ops->cnst_a != NULL) {
    st = a->ops->cnst_a(s, s->x, a->axnr);
    if (st != AG_OK)
      return st;
    axnr = a->axnr;
  }
  if (a->rlx == 1.0)
    return AG_OK;
  const ag_array *yc = a->y;
  if (a->c != NULL) {
    st = ag_add(s->q, a->y, a->c, a->work);
    if (st != AG_OK)
      return st;
    yc = a->work;
  }
  return ag_axpby(s->q, a->rlx, axnr, 1.0 - a->rlx, yc, a->ax);
}

const ag_array *ag__admm_axnr(const ag_solver *s) {
  const ag__admm *a = ag__admm_of(s);
  return a->ops->cnst_a != NULL ? a->axnr : s->x;
}
const ag_array *ag__admm_ax(const ag_solver *s) {
  const ag__admm *a = ag__admm_of(s);
  return a->rlx != 1.0 ? a->ax : ag__admm_axnr(s);
}

/* work = @p ax - Y - c, the constraint's gap. */
static ag_status gap(ag_solver *s, const ag_array *ax) {
  ag__admm *a = ag__admm_of(s);
  ag_status st = ag_sub(s->q, ax, a->y, a->work);
  if (st != AG_OK || a->c == NULL)
    return st;
  return ag_sub(s->q, a->work, a->c, a->work);
}

/* U += AX - Y - c (sporco's ustep with B = -I). */
static ag_status ustep(ag_solver *s) {
  ag__admm *a = ag__admm_of(s);
  ag_status st = gap(s, ag__admm_ax(s));
  if (st != AG_OK)
    return st;
  return ag_add(s->q, a->u, a->work, a->u);
}

/* The norms of sporco's rsdl_r(AXnr, Y), rsdl_s(Yprev, Y), rsdl_rn and rsdl_sn, for
   A X - Y = c. */
static ag_status default_residuals(ag_solver *s, double *r, double *sd, double *rn, double *sn) {
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  /* work = AXnr - Y - c; yprev = Yprev - Y (Yprev is not needed after this). */
  st = gap(s, ag__admm_axnr(s));
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, a->yprev, a->y, a->yprev);
  if (st != AG_OK)
    return st;
  double nrm[6];
  const ag_array *v[6] = {a->work, a->yprev, ag__admm_axnr(s), a->y, a->u, a->c};
  if (a->ops->cnst_a != NULL) {
    /* A^T (Yprev - Y) and A^T U */
    st = a->ops->cnst_at(s, a->yprev, a->xtmp[0]);
    if (st != AG_OK)
      return st;
    st = a->ops->cnst_at(s, a->u, a->xtmp[1]);
    if (st != AG_OK)
      return st;
    v[1] = a->xtmp[0], v[4] = a->xtmp[1];
  }
  st = ag__solver_norms(s, 6, v, nrm);
  if (st != AG_OK)
    return st;
  *r = nrm[0];
  *sd = a->rho * nrm[1];
  *rn = fmax(fmax(nrm[2], nrm[3]), nrm[5]);
  *sn = a->rho * nrm[4];
  return AG_OK;
}

/* sporco's compute_residuals: r, s, eps_pri, eps_dua. */
static ag_status residuals(ag_solver *s, ag_iter_stats *st) {
  ag__admm *a = ag__admm_of(s);
  double r, sd, rn, sn;
  ag_status rc = default_residuals(s, &r, &sd, &rn, &sn);
  if (rc != AG_OK)
    return rc;
  if (a->ops->residuals != NULL) {
    rc = a->ops->residuals(s, &r, &sd, &rn, &sn);
    if (rc != AG_OK)
      return rc;
  }
  const ag_admm_options *o = &a->opt;
  if (o->auto_rho.std_residuals) {
    st->r = r, st->s = sd;
    st->eps_pri = sqrt(a->nc) * o->abs_stop_tol + rn * o->rel_stop_tol;
    st->eps_dua = sqrt(a->nx) * o->abs_stop_tol + sn * o->rel_stop_tol;
  } else {
    if (rn == 0.0)
      rn = 1.0;
    if (sn == 0.0)
      sn = 1.0;
    st->r = r / rn, st->s = sd / sn;
    st->eps_pri = sqrt(a->nc) * o->abs_stop_tol / rn + o->rel_stop_tol;
    st->eps_dua = sqrt(a->nx) * o->abs_stop_tol / sn + o->rel_stop_tol;
  }
  return AG_OK;
}

/* sporco's update_rho, after iteration k. */
static ag_status update_rho(ag_solver *s, size_t k, double r, double sd) {
  ag__admm *a = ag__admm_of(s);
  const ag_admm_auto_rho *ar = &a->opt.auto_rho;
  if (!ar->enabled || k == 0 || (k + 1) % (size_t)ar->period != 0)
    return AG_OK;
  double tau = a->rho_tau, mu = a->rho_mu, xi = a->rho_xi, mlt = tau;
  if (ar->auto_scaling) {
    if (sd == 0.0 || r == 0.0)
      mlt = tau;
    else
      mlt = fmin(sqrt(r > sd * xi ? r / (sd * xi) : (sd * xi) / r), tau);
  }
  double rsf = 1.0;
  if (r > xi * mu * sd)
    rsf = mlt;
  else if (sd > (mu / xi) * r)
    rsf = 1.0 / mlt;
  if (s->dtype == AG_F32 || s->dtype == AG_C64)
    a->rho = (float)(a->rho * (float)rsf); /* sporco scales rho in the solver's real dtype */
  else
    a->rho *= rsf;
  ag_status st = ag_div_scalar(s->q, a->u, rsf, a->u);
  if (st != AG_OK)
    return st;
  if (rsf != 1.0 && a->ops->rhochange != NULL)
    return a->ops->rhochange(s);
  return AG_OK;
}

/* One iteration of sporco's ADMM.solve() (admm.h); the base records the statistics, calls the
   callback and stops. */
static ag_status admm_iterate(ag_solver *s, ag_iter_stats *is, bool *converged) {
  ag__admm *a = ag__admm_of(s);
  const ag_admm_options *o = &a->opt;
  ag_status st = ag_copy(s->q, a->y, a->yprev);
  if (st != AG_OK)
    return st;
  st = a->ops->xstep(s);
  if (st != AG_OK)
    return st;
  st = relax(s);
  if (st != AG_OK)
    return st;
  st = a->ops->ystep(s);
  if (st != AG_OK)
    return st;
  st = ustep(s);
  if (st != AG_OK)
    return st;
  if (a->ops->after_ustep != NULL) {
    st = a->ops->after_ustep(s);
    if (st != AG_OK)
      return st;
  }
  *is = (ag_iter_stats){.k = s->k, .obj = NAN, .dfid = NAN, .reg = NAN, .reg2 = NAN, .r = NAN, .s = NAN,
                        .eps_pri = NAN, .eps_dua = NAN, .rho = a->rho, .xrrs = NAN, .rsdl = NAN, .f_btrack = NAN,
                        .q_btrack = NAN, .l = NAN};
  bool need_rsdl = o->auto_rho.enabled || !o->fast_solve;
  if (need_rsdl) {
    st = residuals(s, is);
    if (st != AG_OK)
      return st;
  }
  if (!o->fast_solve) {
    st = a->ops->objective(s, is);
    if (st != AG_OK)
      return st;
    is->xrrs = a->xrrs, is->gs_iter = a->gs_iter;
  }
  if (need_rsdl) {
    st = update_rho(s, s->k, is->r, is->s);
    if (st != AG_OK)
      return st;
  }
  *converged = need_rsdl && is->r < is->eps_pri && is->s < is->eps_dua;
  return AG_OK;
}

ag_status ag__admm_ystep_l1(ag_solver *s) {
  ag__admm *a = ag__admm_of(s);
  ag_status st = ag_add(s->q, ag__admm_ax(s), a->u, a->y);
  if (st != AG_OK)
    return st;
  st = ag_soft_threshold(s->q, a->y, (s->lmbda / a->rho) * a->opt.l1_weight, a->y);
  if (st != AG_OK)
    return st;
  return a->opt.nonneg ? ag_maximum_scalar(s->q, a->y, 0.0, a->y) : AG_OK;
}

static const ag_array *admm_var(const ag_solver *s, ag_solver_var var) {
  const ag__admm *a = ag__admm_of(s);
  if (a->ops->var != NULL) {
    const ag_array *v = a->ops->var(s, var);
    if (v != NULL)
      return v;
  }
  switch (var) {
  case AG_VAR_X:
    return s->x;
  case AG_VAR_Y:
    return a->y;
  case AG_VAR_U:
    return a->u;
  case AG_VAR_RESULT:
    return a->opt.return_x ? s->x : a->y;
  }
  return NULL;
}

static void admm_destroy(ag_solver *s) {
  ag__admm *a = ag__admm_of(s);
  if (a->ops != NULL && a->ops->destroy != NULL)
    a->ops->destroy(s);
  ag_array *arrays[] = {a->y, a->u, a->yprev, a->axnr, a->ax, a->work, a->xtmp[0], a->xtmp[1], a->c};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
}
