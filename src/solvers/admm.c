/* src/solvers/admm.c - the ADMM iteration of sporco 0.2.2 (sporco.admm.admm.ADMM and
   ADMMEqual) over a solver's hooks (admm.h), the options' defaults, and the solver object's
   public functions. */
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

ag_status ag__solver_alloc(const char *fn, double lmbda, bool nan_default, size_t impl_size, ag_solver **s) {
  *s = NULL;
  if (!((nan_default && isnan(lmbda)) || (lmbda >= 0 && isfinite(lmbda))))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: lmbda is %g; it must be >= 0%s", fn, lmbda,
                     nan_default ? " (NaN: sporco's default)" : "");
  ag_solver *n = calloc(1, sizeof *n);
  void *impl = calloc(1, impl_size);
  if (n == NULL || impl == NULL) {
    free(n), free(impl);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  n->impl = impl;
  *s = n;
  return AG_OK;
}

ag_status ag__solver_array(ag_solver *s, int ndim, const size_t *shape, ag_array **a) {
  return ag_array_create(s->dev, s->dtype, ndim, shape, a);
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

ag_status ag__solver_init(ag_solver *s, const char *fn, ag_solver_kind kind, const ag__solver_ops *ops, ag_queue *q,
                          ag_device *dev, ag_dtype t, const ag_admm_options *opt, double rho_default, double xi_default,
                          int xndim, const size_t *xshape, int yndim, const size_t *yshape) {
  s->kind = kind, s->ops = ops, s->q = q, s->dev = dev, s->dtype = t;
  ag_status st;
  if (opt != NULL)
    s->opt = *opt;
  else if ((st = ag_solver_options_default(kind, &s->opt)) != AG_OK)
    return ag__prefix(st, fn);
  if ((st = check_options(fn, &s->opt)) != AG_OK)
    return st;
  s->rho = isnan(s->opt.rho) ? rho_default : s->opt.rho;
  s->rho_tau = s->opt.auto_rho.scaling;
  s->rho_mu = s->opt.auto_rho.rsdl_ratio;
  s->rho_xi = isnan(s->opt.auto_rho.rsdl_target) ? xi_default : s->opt.auto_rho.rsdl_target;
  s->rlx = s->opt.relax;
  s->xrrs = NAN;
  s->nx = 1, s->nc = 1;
  for (int i = 0; i < xndim; i++)
    s->nx *= (double)xshape[i];
  for (int i = 0; i < yndim; i++)
    s->nc *= (double)yshape[i];
  if ((st = ag__solver_array(s, xndim, xshape, &s->x)) != AG_OK || (st = ag_fill(q, s->x, 0.0)) != AG_OK ||
      (st = ag__solver_array(s, yndim, yshape, &s->yprev)) != AG_OK ||
      (st = ag__solver_array(s, yndim, yshape, &s->work)) != AG_OK || (st = ag__solver_make_scalars(s)) != AG_OK)
    return ag__prefix(st, fn);
  if ((st = start_value(s, fn, "opt->y0", s->opt.y0, yndim, yshape, &s->y)) != AG_OK ||
      (st = start_value(s, fn, "opt->u0", s->opt.u0, yndim, yshape, &s->u)) != AG_OK)
    return st;
  s->opt.y0 = s->opt.u0 = NULL; /* copied; the caller's arrays are not kept */
  /* AX: A X when A is not the identity, or the relaxed value; AXnr aliases X when A is I. */
  if (ops->cnst_a != NULL && ((st = ag__solver_array(s, yndim, yshape, &s->axnr)) != AG_OK ||
                              (st = ag__solver_array(s, xndim, xshape, &s->xtmp[0])) != AG_OK ||
                              (st = ag__solver_array(s, xndim, xshape, &s->xtmp[1])) != AG_OK))
    return ag__prefix(st, fn);
  if (s->rlx != 1.0 && (st = ag__solver_array(s, yndim, yshape, &s->ax)) != AG_OK)
    return ag__prefix(st, fn);
  return AG_OK;
}

ag_status ag__solver_make_scalars(ag_solver *s) {
  ag_status st = ag_array_create(s->dev, ag__dtype_real(s->dtype), 1, (size_t[]){8}, &s->scal);
  for (size_t i = 0; st == AG_OK && i < 8; i++)
    st = ag_array_index(s->scal, i, &s->scal_view[i]);
  return st;
}

ag_status ag__solver_scalars(ag_solver *s, size_t n, double *out) {
  ag_status st;
  if (s->scal->dtype == AG_F64) {
    double d[8];
    if ((st = ag_array_to_host(s->scal, d, sizeof d)) != AG_OK)
      return st;
    memcpy(out, d, n * sizeof(double));
    return AG_OK;
  }
  float f[8];
  if ((st = ag_array_to_host(s->scal, f, sizeof f)) != AG_OK)
    return st;
  for (size_t i = 0; i < n; i++)
    out[i] = f[i];
  return AG_OK;
}

ag_status ag__solver_norms(ag_solver *s, size_t n, const ag_array *const *x, double *out) {
  ag_status st;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == NULL) {
      if ((st = ag_fill(s->q, s->scal_view[i], 0.0)) != AG_OK)
        return st;
    } else if ((st = ag_nrm2(s->q, x[i], AG_AXIS_ALL, s->scal_view[i])) != AG_OK) {
      return st;
    }
  }
  return ag__solver_scalars(s, n, out);
}

ag_status ag__solver_l1(ag_solver *s, const ag_array *x, ag_array *tmp, double *out) {
  ag_status st;
  if ((st = ag_abs(s->q, x, tmp)) != AG_OK || (st = ag_sum(s->q, tmp, AG_AXIS_ALL, s->scal_view[7])) != AG_OK)
    return st;
  return ag__solver_scalar(s, 7, out);
}

ag_status ag__solver_scalar(ag_solver *s, int i, double *out) {
  double v[8];
  ag_status st = ag__solver_scalars(s, (size_t)i + 1, v);
  *out = v[i];
  return st;
}

/* sporco's relax_AX: AXnr = A X, AX = rlx AXnr + (1 - rlx) (Y + c). */
static ag_status relax(ag_solver *s) {
  ag_status st;
  const ag_array *axnr = s->x;
  if (s->ops->cnst_a != NULL) {
    if ((st = s->ops->cnst_a(s, s->x, s->axnr)) != AG_OK)
      return st;
    axnr = s->axnr;
  }
  if (s->rlx == 1.0)
    return AG_OK;
  const ag_array *yc = s->y;
  if (s->c != NULL) {
    if ((st = ag_add(s->q, s->y, s->c, s->work)) != AG_OK)
      return st;
    yc = s->work;
  }
  return ag_axpby(s->q, s->rlx, axnr, 1.0 - s->rlx, yc, s->ax);
}

static const ag_array *axnr_of(const ag_solver *s) { return s->ops->cnst_a != NULL ? s->axnr : s->x; }
static const ag_array *ax_of(const ag_solver *s) { return s->rlx != 1.0 ? s->ax : axnr_of(s); }

/* U += AX - Y - c (sporco's ustep with B = -I). */
static ag_status ustep(ag_solver *s) {
  ag_status st;
  if ((st = ag_sub(s->q, ax_of(s), s->y, s->work)) != AG_OK ||
      (s->c != NULL && (st = ag_sub(s->q, s->work, s->c, s->work)) != AG_OK))
    return st;
  return ag_add(s->q, s->u, s->work, s->u);
}

/* The norms of sporco's rsdl_r(AXnr, Y), rsdl_s(Yprev, Y), rsdl_rn and rsdl_sn, for
   A X - Y = c. */
static ag_status default_residuals(ag_solver *s, double *r, double *sd, double *rn, double *sn) {
  ag_status st;
  /* work = AXnr - Y - c; yprev = Yprev - Y (Yprev is not needed after this). */
  if ((st = ag_sub(s->q, axnr_of(s), s->y, s->work)) != AG_OK ||
      (s->c != NULL && (st = ag_sub(s->q, s->work, s->c, s->work)) != AG_OK) ||
      (st = ag_sub(s->q, s->yprev, s->y, s->yprev)) != AG_OK)
    return st;
  double nrm[6];
  const ag_array *v[6] = {s->work, s->yprev, axnr_of(s), s->y, s->u, s->c};
  if (s->ops->cnst_a != NULL) {
    /* A^T (Yprev - Y) and A^T U */
    if ((st = s->ops->cnst_at(s, s->yprev, s->xtmp[0])) != AG_OK || (st = s->ops->cnst_at(s, s->u, s->xtmp[1])) != AG_OK)
      return st;
    v[1] = s->xtmp[0], v[4] = s->xtmp[1];
  }
  if ((st = ag__solver_norms(s, 6, v, nrm)) != AG_OK)
    return st;
  *r = nrm[0];
  *sd = s->rho * nrm[1];
  *rn = fmax(fmax(nrm[2], nrm[3]), nrm[5]);
  *sn = s->rho * nrm[4];
  return AG_OK;
}

/* sporco's compute_residuals: r, s, eps_pri, eps_dua. */
static ag_status residuals(ag_solver *s, ag_iter_stats *st) {
  double r, sd, rn, sn;
  ag_status rc = default_residuals(s, &r, &sd, &rn, &sn);
  if (rc == AG_OK && s->ops->residuals != NULL)
    rc = s->ops->residuals(s, &r, &sd, &rn, &sn);
  if (rc != AG_OK)
    return rc;
  const ag_admm_options *o = &s->opt;
  if (o->auto_rho.std_residuals) {
    st->r = r, st->s = sd;
    st->eps_pri = sqrt(s->nc) * o->abs_stop_tol + rn * o->rel_stop_tol;
    st->eps_dua = sqrt(s->nx) * o->abs_stop_tol + sn * o->rel_stop_tol;
  } else {
    if (rn == 0.0)
      rn = 1.0;
    if (sn == 0.0)
      sn = 1.0;
    st->r = r / rn, st->s = sd / sn;
    st->eps_pri = sqrt(s->nc) * o->abs_stop_tol / rn + o->rel_stop_tol;
    st->eps_dua = sqrt(s->nx) * o->abs_stop_tol / sn + o->rel_stop_tol;
  }
  return AG_OK;
}

/* sporco's update_rho, after iteration k. */
static ag_status update_rho(ag_solver *s, size_t k, double r, double sd) {
  const ag_admm_auto_rho *a = &s->opt.auto_rho;
  if (!a->enabled || k == 0 || (k + 1) % (size_t)a->period != 0)
    return AG_OK;
  double tau = s->rho_tau, mu = s->rho_mu, xi = s->rho_xi, mlt = tau;
  if (a->auto_scaling) {
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
    s->rho = (float)(s->rho * (float)rsf); /* sporco scales rho in the solver's real dtype */
  else
    s->rho *= rsf;
  ag_status st;
  if ((st = ag_div_scalar(s->q, s->u, rsf, s->u)) != AG_OK)
    return st;
  if (rsf != 1.0 && s->ops->rhochange != NULL)
    return s->ops->rhochange(s);
  return AG_OK;
}

ag_status ag__solver_push_stats(ag_solver *s, const ag_iter_stats *st) {
  if (s->nhist == s->caphist) {
    size_t cap = s->caphist ? 2 * s->caphist : 64;
    ag_iter_stats *h = realloc(s->hist, cap * sizeof *h);
    if (h == NULL)
      return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu iteration statistics", cap);
    s->hist = h, s->caphist = cap;
  }
  s->hist[s->nhist++] = *st;
  return AG_OK;
}

static ag_status one_iteration(ag_solver *s, bool *stop) {
  ag_status st;
  const ag_admm_options *o = &s->opt;
  if ((st = ag_copy(s->q, s->y, s->yprev)) != AG_OK || (st = s->ops->xstep(s)) != AG_OK ||
      (st = relax(s)) != AG_OK)
    return st;
  if ((st = s->ops->ystep(s)) != AG_OK || (st = ustep(s)) != AG_OK)
    return st;
  ag_iter_stats is = {.k = s->k, .obj = NAN, .dfid = NAN, .reg = NAN, .reg2 = NAN, .r = NAN, .s = NAN,
                      .eps_pri = NAN, .eps_dua = NAN, .rho = s->rho, .xrrs = NAN, .rsdl = NAN, .f_btrack = NAN,
                      .q_btrack = NAN, .l = NAN};
  bool need_rsdl = o->auto_rho.enabled || !o->fast_solve;
  if (need_rsdl && (st = residuals(s, &is)) != AG_OK)
    return st;
  if (!o->fast_solve) {
    if ((st = s->ops->objective(s, &is)) != AG_OK)
      return st;
    is.xrrs = s->xrrs, is.gs_iter = s->gs_iter;
    if ((st = ag__solver_push_stats(s, &is)) != AG_OK)
      return st;
  }
  if (need_rsdl && (st = update_rho(s, s->k, is.r, is.s)) != AG_OK)
    return st;
  *stop = false;
  if (s->cb != NULL && s->cb(s, o->fast_solve ? &is : &s->hist[s->nhist - 1], s->cb_user) != 0)
    *stop = true;
  s->converged = need_rsdl && is.r < is.eps_pri && is.s < is.eps_dua;
  if (s->converged)
    *stop = true;
  return AG_OK;
}

const ag_array *ag__solver_ax(const ag_solver *s) { return ax_of(s); }

ag_status ag__solver_ystep_l1(ag_solver *s) {
  ag_status st;
  if ((st = ag_add(s->q, ax_of(s), s->u, s->y)) != AG_OK ||
      (st = ag_soft_threshold(s->q, s->y, (s->lmbda / s->rho) * s->opt.l1_weight, s->y)) != AG_OK)
    return st;
  return s->opt.nonneg ? ag_maximum_scalar(s->q, s->y, 0.0, s->y) : AG_OK;
}
const ag_array *ag__solver_axnr(const ag_solver *s) { return axnr_of(s); }

ag_status ag_solver_iterate(ag_solver *s, size_t n, size_t *done) {
  AG__CHECK_NOT_NULL("ag_solver_iterate", s);
  if (done != NULL)
    *done = 0;
  for (size_t i = 0; i < n; i++) {
    bool stop = false;
    ag_status st = s->ops->iterate != NULL ? s->ops->iterate(s, &stop) : one_iteration(s, &stop);
    if (st != AG_OK)
      return ag__prefix(st, "ag_solver_iterate");
    s->k++;
    if (done != NULL)
      *done = i + 1;
    if (stop)
      break;
  }
  return AG_OK;
}

ag_status ag_solver_solve(ag_solver *s) {
  AG__CHECK_NOT_NULL("ag_solver_solve", s);
  ag_status st = ag_solver_iterate(s, s->opt.max_iter, NULL);
  return st == AG_OK ? AG_OK : ag__prefix(st, "ag_solver_solve");
}

bool ag_solver_converged(const ag_solver *s) { return s != NULL && s->converged; }

ag_status ag_solver_set_callback(ag_solver *s, ag_solver_callback cb, void *user) {
  AG__CHECK_NOT_NULL("ag_solver_set_callback", s);
  s->cb = cb, s->cb_user = user;
  return AG_OK;
}

size_t ag_solver_history(const ag_solver *s, const ag_iter_stats **stats) {
  if (stats != NULL)
    *stats = s != NULL ? s->hist : NULL;
  return s != NULL ? s->nhist : 0;
}

const ag_array *ag_solver_var_get(const ag_solver *s, ag_solver_var var) {
  if (s == NULL)
    return NULL;
  if (s->ops->var != NULL) {
    const ag_array *a = s->ops->var(s, var);
    if (a != NULL)
      return a;
  }
  switch (var) {
  case AG_VAR_X:
    return s->x;
  case AG_VAR_Y:
    return s->y;
  case AG_VAR_U:
    return s->u;
  case AG_VAR_RESULT:
    return s->opt.return_x ? s->x : s->y;
  }
  return NULL;
}

double ag_solver_rho(const ag_solver *s) { return s != NULL ? s->rho : NAN; }
double ag_solver_lambda(const ag_solver *s) { return s != NULL ? s->lmbda : NAN; }
ag_solver_kind ag_solver_kind_of(const ag_solver *s) { return s != NULL ? s->kind : AG_SOLVER_BPDN; }

void ag_solver_destroy(ag_solver *s) {
  if (s == NULL)
    return;
  if (s->ops != NULL && s->ops->destroy != NULL)
    s->ops->destroy(s);
  ag_array *arrays[] = {s->x, s->y, s->u, s->yprev, s->axnr, s->ax, s->work, s->xtmp[0], s->xtmp[1], s->c, s->scal};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
  for (size_t i = 0; i < 8; i++)
    ag_array_free(s->scal_view[i]);
  free(s->hist);
  free(s);
}
