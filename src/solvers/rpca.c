/* src/solvers/rpca.c - robust PCA, sporco.admm.rpca.RobustPCA (solvers.h):
     argmin_{X, Y} ||X||_* + lmbda ||Y||_1 such that X + Y = S.
   sporco's constraint is X + Y = S (B = +I, c = S); the iteration here keeps Y' = -Y, for
   which it is X - Y' = S, the framework's form (admm.h), and every step, residual and
   relaxation is sporco's with Y replaced by -Y':
     x step: X = prox_nuclear(S - Y - U, 1 / rho) = prox_nuclear(S + Y' - U, 1 / rho),
     y step: Y = prox_l1(S - AX - U, lmbda / rho), so Y' = prox_l1(AX + U - S, lmbda / rho)
             (prox_l1 is odd);
   ag_solver_var_get(AG_VAR_Y) gives Y itself. The singular value decomposition runs on the
   host (ag_prox_nuclear: LAPACK, the matrix read back and the result written each x step). */
#include <math.h>
#include <stdlib.h>

#include "admm.h"
#include "anygpu/prox.h"
#include "seam.h"

typedef struct rpca {
  ag_array *s;      /* S */
  ag_array *sv;     /* the thresholded singular values of the last x step (min(m, n)) */
  ag_array *yout;   /* Y = -Y', made when asked for */
  ag_array *absy;   /* |.| of Y's shape (real) */
  ag_array *tmp;    /* S's shape */
} rpca;

static ag_status xstep(ag_solver *s) {
  rpca *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  /* work = S + Y' - U */
  st = ag_add(s->q, p->s, a->y, a->work);
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, a->work, a->u, a->work);
  if (st != AG_OK)
    return st;
  return ag_prox_nuclear(s->q, a->work, 1.0 / a->rho, s->x, p->sv);
}

static ag_status ystep(ag_solver *s) {
  rpca *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  st = ag_add(s->q, ag__admm_ax(s), a->u, a->y);
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, a->y, p->s, a->y);
  if (st != AG_OK)
    return st;
  return ag_prox_l1(s->q, a->y, s->lmbda / a->rho, a->y);
}

static ag_status objective(ag_solver *s, ag_iter_stats *is) {
  rpca *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  double nuc, l1, cns;
  /* ||fvar||_*: the x step's singular values, or those of S - Y = S + Y' */
  if (!a->opt.f_eval_x) {
    st = ag_add(s->q, p->s, a->y, p->tmp);
    if (st != AG_OK)
      return st;
    st = ag_prox_nuclear(s->q, p->tmp, 0.0, a->work, p->sv);
    if (st != AG_OK)
      return st;
  }
  st = ag_sum(s->q, p->sv, AG_AXIS_ALL, s->scal_view[6]);
  if (st != AG_OK)
    return st;
  st = ag__solver_scalar(s, 6, &nuc);
  if (st != AG_OK)
    return st;
  /* ||gvar||_1: Y (|Y'|), or S - X */
  const ag_array *g = a->y;
  if (!a->opt.g_eval_y) {
    if ((st = ag_sub(s->q, p->s, s->x, p->tmp)) != AG_OK)
      return st;
    g = p->tmp;
  }
  if ((st = ag__solver_l1(s, g, p->absy, &l1)) != AG_OK)
    return st;
  /* ||X + Y - S|| = ||X - Y' - S|| */
  st = ag_sub(s->q, s->x, a->y, p->tmp);
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, p->tmp, p->s, p->tmp);
  if (st != AG_OK)
    return st;
  st = ag__solver_norms(s, 1, (const ag_array *[]){p->tmp}, &cns);
  if (st != AG_OK)
    return st;
  is->dfid = nuc;
  is->reg = l1;
  is->reg2 = cns;
  is->obj = nuc + s->lmbda * l1;
  return AG_OK;
}

static const ag_array *var(const ag_solver *s, ag_solver_var v) {
  rpca *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  if (v != AG_VAR_Y && !(v == AG_VAR_RESULT && !a->opt.return_x))
    return NULL;
  if (ag_neg(s->q, a->y, p->yout) != AG_OK)
    return NULL;
  return p->yout;
}

static void destroy(ag_solver *s) {
  rpca *p = s->impl;
  ag_array *a[] = {p->s, p->sv, p->yout, p->absy, p->tmp};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    ag_array_free(a[i]);
}

static const ag__admm_ops rpca_ops = {.name = "RobustPCA", .xstep = xstep, .ystep = ystep, .objective = objective,
                                        .var = var, .destroy = destroy};

ag_status ag_rpca_create(ag_queue *q, const ag_array *S, double lmbda, const ag_admm_options *opt,
                         ag_solver **solver) {
  static const char fn[] = "ag_rpca_create";
  AG__CHECK_NOT_NULL(fn, solver);
  *solver = NULL;
  ag_status st = ag__check_array(fn, "S", S);
  if (st != AG_OK)
    return st;
  if (S->dtype != AG_F32 && S->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: S is %s; robust PCA takes f32 or f64", fn, ag_dtype_name(S->dtype));
  if ((st = ag__check_fp64(fn, S->dev, S->dtype)) != AG_OK)
    return st;
  if (S->ndim != 2 || S->size == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: S must be a non-empty 2-D matrix; it is %d-D of %zu elements", fn,
                     S->ndim, S->size);
  if (isnan(lmbda))
    lmbda = 1.0 / sqrt((double)S->shape[0]);
  ag_solver *s;
  if ((st = ag__admm_alloc(fn, AG_SOLVER_RPCA, &rpca_ops, lmbda, true, sizeof(rpca), &s)) != AG_OK)
    return st;
  rpca *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_dtype t = S->dtype;
  if (t == AG_F32)
    lmbda = (float)lmbda;
  s->lmbda = lmbda;
  double rho0 = 2.0 * lmbda + 0.1;
  if (t == AG_F32)
    rho0 = (float)rho0;
  /* sporco's Y0 is Y; the iteration's Y' is -Y0, set after the common part copies it */
  if ((st = ag__admm_init(s, fn, q, S->dev, t, opt, rho0, 1.0, 2, S->shape, 2, S->shape)) != AG_OK)
    goto fail;
  size_t k = S->shape[0] < S->shape[1] ? S->shape[0] : S->shape[1];
  /* S, and c = S (the constraint X - Y' = S) */
  st = ag__solver_array(s, 2, S->shape, &p->s);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag_copy(q, S, p->s);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag__solver_array(s, 2, S->shape, &a->c);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag_copy(q, S, a->c);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag__solver_array(s, 1, &k, &p->sv);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag_fill(q, p->sv, 0.0);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag__solver_array(s, 2, S->shape, &p->yout);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag__solver_array(s, 2, S->shape, &p->tmp);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag_array_create(s->dev, t, 2, S->shape, &p->absy);
  if (st != AG_OK)
    goto fail_prefix;
  st = ag_neg(q, a->y, a->y);
  if (st != AG_OK)
    goto fail_prefix;
  /* sporco's uinit: with Y0 and no U0, U = (lmbda / rho) sign(Y) = -(lmbda / rho) sign(Y') */
  if (opt != NULL && opt->y0 != NULL && opt->u0 == NULL) {
    st = ag_sign(q, a->y, a->u);
    if (st != AG_OK)
      goto fail_prefix;
    st = ag_mul_scalar(q, a->u, -lmbda / a->rho, a->u);
    if (st != AG_OK)
      goto fail_prefix;
  }
  *solver = s;
  return AG_OK;
fail_prefix:
  st = ag__prefix(st, fn);
fail:
  ag_solver_destroy(s);
  return st;
}
