/* src/solvers/tv.c - total-variation denoising, sporco.admm.tvl2.TVL2Denoise and
   sporco.admm.tvl1.TVL1Denoise (solvers.h).

   X has S's shape (1 to 3 axes); Y, U and A X are stacks [comp][S's shape], component j the
   forward difference along axes[j] (sporco puts the components on a last axis instead; anygpu's
   arrays keep the stack's axis first, so each component is one contiguous array). TVL1 adds a
   last component, X itself, whose constraint is X - Y_last = S.
     TVL2: A X = (grad_j X)_j, c = 0; x step: Jacobi sweeps of (W^2 I + rho A^T A) X =
           W^2 S + rho A^T (Y - U); y step: Y = prox_l2(A X + U, lmbda / rho, over the stack).
     TVL1: A X = ((grad_j X)_j, X), c = (0, S); x step: sweeps of (I + A^T A) X =
           (S + (Y - U)_last) + A^T ((Y - U)_j, 0); y step: the gradients' components as TVL2,
           Y_last = prox_l1(AX_last + U_last - S, W / rho).
   The sweeps (sporco's GaussSeidelStep, MaxGSIter of them, fewer when the relative residual
   GSRelRes falls to GSTol) and A^T A are the tv kernel family's stencils. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admm.h"
#include "anygpu/prox.h"
#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/tv.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_jacobi, AG_SHAPE_TV_JACOBI)
AG__SHAPE_LAUNCHER(launch_laplace, AG_SHAPE_TV_LAPLACE)

typedef struct tv {
  bool l1;                /* TVL1, else TVL2 */
  int naxes, axes[3];     /* the TV axes of S, in Y's component order */
  uint64_t n[3], mask;    /* S viewed as [n0][n1][n2] and its TV axes as bits */
  ag_array *s;            /* S */
  ag_array *xnext;        /* the sweep's output, then swapped with X */
  ag_array *atyu, *rhs, *tmp; /* X-shaped: A^T (Y - U), the sweep's data term, scratch */
  ag_array *absx;         /* X-shaped, real: |.| for the l1 data term */
  ag_array *normx;        /* X-shaped, real: the gradients' norm at each element */
} tv;

static ag_status comp(const ag_array *a, int j, ag_array **view) { return ag_array_index(a, (size_t)j, view); }

/* out = A x */
static ag_status cnst_a(ag_solver *s, const ag_array *x, ag_array *out) {
  tv *p = s->impl;
  ag_status st = AG_OK;
  for (int j = 0; j < p->naxes + (p->l1 ? 1 : 0) && st == AG_OK; j++) {
    ag_array *v = NULL;
    if ((st = comp(out, j, &v)) == AG_OK)
      st = j < p->naxes ? ag_grad(s->q, x, p->axes[j], v) : ag_copy(s->q, x, v);
    ag_array_free(v);
  }
  return st;
}

/* out = A^T y (out may not be p->tmp) */
static ag_status cnst_at(ag_solver *s, const ag_array *y, ag_array *out) {
  tv *p = s->impl;
  ag_status st = AG_OK;
  for (int j = 0; j < p->naxes + (p->l1 ? 1 : 0) && st == AG_OK; j++) {
    ag_array *v = NULL;
    if ((st = comp(y, j, &v)) != AG_OK)
      break;
    ag_array *dst = j == 0 ? out : p->tmp;
    st = j < p->naxes ? ag_grad_t(s->q, v, p->axes[j], dst) : ag_copy(s->q, v, dst);
    if (st == AG_OK && j > 0)
      st = ag_add(s->q, out, p->tmp, out);
    ag_array_free(v);
  }
  return st;
}

/* One Jacobi sweep into X, then (unless @p gsrrs is NULL) GSRelRes =
   ||a A^T A X + b X - rhs2|| / ||rhs2||, rhs2 being w2 rhs + rho atyu (TVL2: a = rho, b = w2;
   TVL1: all 1). */
static ag_status sweep(ag_solver *s, double rho, double w2, double *gsrrs) {
  tv *p = s->impl;
  ag__launch l = {.fn = "ag_solver_iterate", .q = s->q, .dev = s->dev, .kernel = AG_K_TV_JACOBI + s->dtype,
                  .n = ag_array_size(s->x)};
  bool f64 = s->dtype == AG_F64;
  double rd = rho, wd = w2;
  float rf = (float)rho, wf = (float)w2;
  ag__val vr = {f64 ? (const void *)&rd : (const void *)&rf, f64 ? 8 : 4};
  ag__val vw = {f64 ? (const void *)&wd : (const void *)&wf, f64 ? 8 : 4};
  ag_status st = AG__LAUNCH(launch_jacobi, &l, .x = s->x, .atyu = p->atyu, .s = p->rhs, .n0 = p->n[0], .n1 = p->n[1],
                            .n2 = p->n[2], .axes = p->mask, .rho = vr, .w2 = vw, .out = p->xnext);
  if (st != AG_OK)
    return st;
  ag_array *t = s->x;
  s->x = p->xnext, p->xnext = t;
  if (gsrrs == NULL)
    return AG_OK;
  l.kernel = AG_K_TV_LAPLACE + s->dtype;
  double nrm[2];
  if ((st = AG__LAUNCH(launch_laplace, &l, .x = s->x, .n0 = p->n[0], .n1 = p->n[1], .n2 = p->n[2], .axes = p->mask,
                       .a = vr, .b = vw, .out = p->tmp)) != AG_OK ||
      (st = ag_axpby(s->q, w2, p->rhs, rho, p->atyu, p->xnext)) != AG_OK ||
      (st = ag_sub(s->q, p->tmp, p->xnext, p->tmp)) != AG_OK ||
      (st = ag__solver_norms(s, 2, (const ag_array *[]){p->tmp, p->xnext}, nrm)) != AG_OK)
    return st;
  *gsrrs = nrm[0] / nrm[1];
  return AG_OK;
}

static ag_status xstep(ag_solver *s) {
  tv *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  /* work = Y - U */
  if ((st = ag_sub(s->q, a->y, a->u, a->work)) != AG_OK)
    return st;
  double rho = a->rho, w2 = a->opt.dfid_weight * a->opt.dfid_weight;
  if (p->l1) {
    /* rhs = S + (Y - U)_last, then (Y - U)_last = 0 */
    ag_array *last = NULL;
    if ((st = comp(a->work, p->naxes, &last)) == AG_OK && (st = ag_add(s->q, p->s, last, p->rhs)) == AG_OK)
      st = ag_fill(s->q, last, 0.0);
    ag_array_free(last);
    if (st != AG_OK)
      return st;
    rho = 1.0, w2 = 1.0;
  } else if ((st = ag_copy(s->q, p->s, p->rhs)) != AG_OK) {
    return st;
  }
  if ((st = cnst_at(s, a->work, p->atyu)) != AG_OK)
    return st;
  /* sporco sweeps while GSRelRes > GSTol, at most MaxGSIter times. With GSTol 0 (the default)
     only an exact solution (GSRelRes 0) would stop it early, after which more sweeps leave X
     as it is, so only the last sweep's GSRelRes is computed: one reduction and read-back an
     x step instead of MaxGSIter. */
  double gsrrs = INFINITY;
  int it = 0;
  while (gsrrs > a->opt.gs_tol && it < a->opt.max_gs_iter) {
    bool need = a->opt.gs_tol > 0 || it + 1 == a->opt.max_gs_iter;
    if ((st = sweep(s, rho, w2, need ? &gsrrs : NULL)) != AG_OK)
      return st;
    it++;
  }
  a->gs_iter = it, a->xrrs = gsrrs;
  return AG_OK;
}

static ag_status ystep(ag_solver *s) {
  tv *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  const ag_array *ax = ag__admm_ax(s);
  /* Y = A X + U, then the prox of each part in place */
  if ((st = ag_add(s->q, ax, a->u, a->y)) != AG_OK)
    return st;
  double w = s->lmbda / a->rho * a->opt.tv_weight;
  if (!p->l1)
    return ag_prox_l2(s->q, a->y, w, 0, a->y);
  ag_array *g = NULL, *last = NULL;
  if ((st = ag_array_slice(a->y, 0, (size_t)p->naxes, &g)) == AG_OK && (st = ag_prox_l2(s->q, g, w, 0, g)) == AG_OK &&
      (st = comp(a->y, p->naxes, &last)) == AG_OK && (st = ag_sub(s->q, last, p->s, last)) == AG_OK)
    st = ag_prox_l1(s->q, last, a->opt.dfid_weight / a->rho, last);
  ag_array_free(g), ag_array_free(last);
  return st;
}

/* sum over the elements of the l2 norm over the gradient components of @p gv. */
static ag_status tv_norm(ag_solver *s, const ag_array *gv, double *out) {
  tv *p = s->impl;
  ag_array *g = NULL;
  ag_status st = ag_array_slice(gv, 0, (size_t)p->naxes, &g);
  if (st == AG_OK && (st = ag_nrm2(s->q, g, 0, p->normx)) == AG_OK)
    st = ag_sum(s->q, p->normx, AG_AXIS_ALL, s->scal_view[6]);
  ag_array_free(g);
  return st != AG_OK ? st : ag__solver_scalar(s, 6, out);
}

static ag_status objective(ag_solver *s, ag_iter_stats *is) {
  tv *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  /* gvar: Y, or A X - c: this iteration's AXnr (X has not changed since), copied for TVL1,
     whose last component becomes X - S below */
  const ag_array *gv = a->y;
  if (!a->opt.g_eval_y) {
    gv = ag__admm_axnr(s);
    if (p->l1) {
      if ((st = ag_copy(s->q, gv, a->work)) != AG_OK)
        return st;
      gv = a->work;
    }
  }
  double reg, dfd;
  if ((st = tv_norm(s, gv, &reg)) != AG_OK)
    return st;
  if (p->l1) {
    /* sum |W gvar_last|, gvar_last = Y_last, or X - S */
    ag_array *last = NULL;
    if ((st = comp(gv, p->naxes, &last)) == AG_OK && (a->opt.g_eval_y || (st = ag_sub(s->q, last, p->s, last)) == AG_OK))
      st = ag__solver_l1(s, last, p->absx, &dfd);
    ag_array_free(last);
    if (st != AG_OK)
      return st;
    dfd *= a->opt.dfid_weight;
  } else {
    /* (1/2) ||W (X - S)||^2 */
    double n;
    if ((st = ag_sub(s->q, s->x, p->s, p->tmp)) != AG_OK ||
        (st = ag__solver_norms(s, 1, (const ag_array *[]){p->tmp}, &n)) != AG_OK)
      return st;
    dfd = 0.5 * (a->opt.dfid_weight * n) * (a->opt.dfid_weight * n);
  }
  is->dfid = dfd;
  is->reg = a->opt.tv_weight * reg;
  is->obj = dfd + s->lmbda * is->reg;
  return AG_OK;
}

/* TVL1's residuals: sporco's rsdl_s is rho ||A^T U|| (not of Yprev - Y), which is the default's
   sn, and its rsdl_sn rho ||U||. */
static ag_status tvl1_residuals(ag_solver *s, double *r, double *sd, double *rn, double *sn) {
  ag__admm *a = ag__admm_of(s);
  (void)r, (void)rn;
  double nu;
  ag_status st = ag__solver_norms(s, 1, (const ag_array *[]){a->u}, &nu);
  if (st != AG_OK)
    return st;
  *sd = *sn;
  *sn = a->rho * nu;
  return AG_OK;
}

static void destroy(ag_solver *s) {
  tv *p = s->impl;
  ag_array *a[] = {p->s, p->xnext, p->atyu, p->rhs, p->tmp, p->absx, p->normx};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    ag_array_free(a[i]);
}

static const ag__admm_ops tvl2_ops = {.name = "TVL2Denoise", .xstep = xstep, .ystep = ystep, .cnst_a = cnst_a,
                                        .cnst_at = cnst_at, .objective = objective, .destroy = destroy};
static const ag__admm_ops tvl1_ops = {.name = "TVL1Denoise", .xstep = xstep, .ystep = ystep, .cnst_a = cnst_a,
                                        .cnst_at = cnst_at, .residuals = tvl1_residuals, .objective = objective,
                                        .destroy = destroy};

static ag_status create(const char *fn, bool l1, ag_queue *q, const ag_array *S, double lmbda, const int *axes,
                        size_t naxes, const ag_admm_options *opt, ag_solver **solver) {
  AG__CHECK_NOT_NULL(fn, solver);
  *solver = NULL;
  ag_status st = ag__check_array(fn, "S", S);
  if (st != AG_OK)
    return st;
  if (S->dtype != AG_F32 && S->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: S is %s; total-variation denoising takes f32 or f64", fn,
                     ag_dtype_name(S->dtype));
  if ((st = ag__check_fp64(fn, S->dev, S->dtype)) != AG_OK)
    return st;
  if (S->ndim > 3 || S->size == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: S is %d-D of %zu elements; it must be 1-D to 3-D and not empty", fn,
                     S->ndim, S->size);
  static const int default_axes[2] = {0, 1};
  if (axes == NULL) {
    axes = default_axes;
    naxes = S->ndim >= 2 ? 2 : 1;
  }
  if (naxes < 1 || naxes > (size_t)S->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: naxes is %zu; S (%d-D) takes 1 to %d axes", fn, naxes, S->ndim,
                     S->ndim);
  uint64_t mask = 0;
  for (size_t j = 0; j < naxes; j++) {
    if (axes[j] < 0 || axes[j] >= S->ndim || (mask & (1u << (axes[j] + 3 - S->ndim))))
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axes[%zu] is %d: not an axis of S (%d-D), or repeated", fn, j,
                       axes[j], S->ndim);
    mask |= 1u << (axes[j] + 3 - S->ndim);
  }
  ag_solver *s;
  if ((st = ag__admm_alloc(fn, l1 ? AG_SOLVER_TVL1 : AG_SOLVER_TVL2, l1 ? &tvl1_ops : &tvl2_ops, lmbda, false,
                           sizeof(tv), &s)) != AG_OK)
    return st;
  tv *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  p->l1 = l1, p->naxes = (int)naxes, p->mask = mask;
  for (size_t j = 0; j < naxes; j++)
    p->axes[j] = axes[j];
  for (int i = 0; i < 3; i++)
    p->n[i] = i < 3 - S->ndim ? 1 : S->shape[i - (3 - S->ndim)];
  ag_dtype t = S->dtype;
  if (t == AG_F32)
    lmbda = (float)lmbda;
  s->lmbda = lmbda;
  size_t yshape[AG_MAX_DIMS];
  yshape[0] = naxes + (l1 ? 1 : 0);
  memcpy(yshape + 1, S->shape, (size_t)S->ndim * sizeof *yshape);
  double rho0 = 2.0 * lmbda + 0.1;
  if (t == AG_F32)
    rho0 = (float)rho0;
  if ((st = ag__admm_init(s, fn, q, S->dev, t, opt, rho0, 1.0, S->ndim, S->shape, S->ndim + 1, yshape)) != AG_OK)
    goto fail;
  ag_dtype rt = t;
  if ((st = ag__solver_array(s, S->ndim, S->shape, &p->s)) != AG_OK || (st = ag_copy(q, S, p->s)) != AG_OK ||
      (st = ag_copy(q, S, s->x)) != AG_OK || /* sporco starts X at S */
      (st = ag__solver_array(s, S->ndim, S->shape, &p->xnext)) != AG_OK ||
      (st = ag__solver_array(s, S->ndim, S->shape, &p->atyu)) != AG_OK ||
      (st = ag__solver_array(s, S->ndim, S->shape, &p->rhs)) != AG_OK ||
      (st = ag__solver_array(s, S->ndim, S->shape, &p->tmp)) != AG_OK ||
      (st = ag_array_create(s->dev, rt, S->ndim, S->shape, &p->absx)) != AG_OK ||
      (st = ag_array_create(s->dev, rt, S->ndim, S->shape, &p->normx)) != AG_OK) {
    st = ag__prefix(st, fn);
    goto fail;
  }
  if (l1) {
    /* c = (0, ..., 0, S) */
    ag_array *last = NULL;
    if ((st = ag__solver_array(s, S->ndim + 1, yshape, &a->c)) != AG_OK || (st = ag_fill(q, a->c, 0.0)) != AG_OK ||
        (st = comp(a->c, p->naxes, &last)) != AG_OK || (st = ag_copy(q, S, last)) != AG_OK) {
      ag_array_free(last);
      st = ag__prefix(st, fn);
      goto fail;
    }
    ag_array_free(last);
  }
  *solver = s;
  return AG_OK;
fail:
  ag_solver_destroy(s);
  return st;
}

ag_status ag_tvl2_create(ag_queue *q, const ag_array *S, double lmbda, const int *axes, size_t naxes,
                         const ag_admm_options *opt, ag_solver **solver) {
  return create("ag_tvl2_create", false, q, S, lmbda, axes, naxes, opt, solver);
}

ag_status ag_tvl1_create(ag_queue *q, const ag_array *S, double lmbda, const int *axes, size_t naxes,
                         const ag_admm_options *opt, ag_solver **solver) {
  return create("ag_tvl1_create", true, q, S, lmbda, axes, naxes, opt, solver);
}
