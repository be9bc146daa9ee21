/* src/solvers/bpdn.c - basis pursuit denoising, sporco.admm.bpdn.BPDN (solvers.h).

   The x step solves (D^T D + rho I) X = b, b = D^T S + rho C, C = Y - U. sporco factorises
   D^T D + rho I (or D D^T + rho I, with the Woodbury identity) by Cholesky, again at every change
   of rho. Here one eigendecomposition of the smaller Gram matrix, made once on the host in
   double precision, serves every rho: D^T D = V diag(l) V^T with V (M x r, r = min(N, M))
   orthonormal (from D D^T = W diag(l) W^T when N < M: V = D^T W diag(l)^-1/2). Since D^T S
   lies in V's span, the part of X outside it is that of C, and
     X = C + V Z,  Z = diag(-l / (l + rho)) V^T C + diag(1 / (l + rho)) V^T D^T S,
   where V^T D^T S is made once. Nothing is divided by rho, so X keeps its precision when rho
   is small: the Woodbury form b / rho - ... loses a factor (l + rho) / rho of it, which in
   float32 stalls sporco's test problems. Each x step is two products with V and a scaling of
   r columns; rho changes only the 2r weights.

   The objective's D X costs a third product with D, unless D is wide (N < M) with no direction
   left out of V: then D = W diag(l)^1/2 V^T exactly, with W (N x N) orthogonal, so
     ||D X - S|| = ||diag(l)^1/2 (V^T C + Z) - W^T S||,
   a difference of two r x K arrays, with W^T S made once and V^T C from the x step: no product
   at all.

   sporco's BPDN evaluates the objective at Y (AuxVarObj), whose D Y is a full product. With sl,
   ||D Y - S|| = ||diag(l)^1/2 V^T Y - W^T S|| instead, and the same V^T Y gives the next x step
   its V^T C = V^T Y - V^T U, with V^T U carried along U's own update
     U' = (U + relax X + (1 - relax) Yprev - Y) rho / rho'
   in r x K arrays: two products an iteration (V^T Y, V Z) where there were three. Both are
   brought up to date at the two points where the ADMM iteration changes Y and U, its
   after_ustep and rhochange hooks (admm.h), and nowhere else. */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admm.h"
#include "lapack.h"
#include "anygpu/blas.h"
#include "seam.h"

typedef struct bpdn {
  ag_array *d, *s;   /* D (N, M) and S (N, K) */
  ag_array *dts;     /* D^T S (M, K), for the linear solve check */
  ag_array *v;       /* V (M, r) */
  ag_array *et;      /* (V^T D^T S)^T (K, r) */
  ag_array *wa, *wb; /* the weights (r) for the current rho: -l / (l + rho), 1 / (l + rho) */
  ag_array *tt, *zt; /* (V^T C)^T and Z^T (K, r) */
  ag_array *sl;      /* l^1/2 (r) when D = W diag(l)^1/2 V^T (wide, nothing left out), else NULL */
  ag_array *wts;     /* (W^T S)^T (K, r) with sl */
  ag_array *vx;      /* (V^T X)^T (K, r) after the x step; a temporary within it */
  /* With sl: (V^T Y)^T and (V^T U)^T (K, r), made at creation and kept equal to the products
     of the current Y and U by after_ustep and rhochange, the two points where the ADMM
     iteration changes Y and U (admm.h). */
  ag_array *ty, *tu;
  ag_array *rt;      /* with sl: l^1/2 V^T fvar - W^T S, transposed (K, r) */
  double rho_tu;     /* the rho U was scaled for when tu was last brought up to date */
  ag_array *c;       /* C = Y - U (M, K), then b for the check */
  ag_array *resid;   /* D X - S (N, K) */
  ag_array *absx;    /* |Y| (M, K), real */
  double *l;         /* the eigenvalues (r), host */
  size_t n, m, k, r;
} bpdn;

static ag_status set_weights(ag_solver *s) {
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  double *w = malloc(2 * p->r * sizeof *w);
  float *wf = malloc(2 * p->r * sizeof *wf);
  if (w == NULL || wf == NULL) {
    free(w), free(wf);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "BPDN: out of host memory for %zu weights", p->r);
  }
  for (size_t i = 0; i < p->r; i++) {
    w[i] = -p->l[i] / (p->l[i] + a->rho);
    w[p->r + i] = 1.0 / (p->l[i] + a->rho);
  }
  for (size_t i = 0; i < 2 * p->r; i++)
    wf[i] = (float)w[i];
  ag_array_free(p->wa), ag_array_free(p->wb);
  p->wa = p->wb = NULL;
  const char *src = s->dtype == AG_F64 ? (const char *)w : (const char *)wf;
  size_t half = p->r * ag_dtype_size(s->dtype);
  ag_status st = ag_array_from_host(s->dev, s->dtype, 1, &p->r, src, &p->wa);
  if (st == AG_OK)
    st = ag_array_from_host(s->dev, s->dtype, 1, &p->r, src + half, &p->wb);
  free(w), free(wf);
  return st;
}

/* ty = Y^T V and tu = U^T V from Y and U themselves: at creation, for the start values. */
static ag_status project_yu(ag_solver *s) {
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, a->y, p->v, 0.0, p->ty);
  if (st != AG_OK)
    return st;
  st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, a->u, p->v, 0.0, p->tu);
  if (st != AG_OK)
    return st;
  p->rho_tu = a->rho;
  return AG_OK;
}

/* The ADMM hook after U's update (admm.h), with sl: tu and ty follow U and Y without a product
   with U. U' = U + relax X + (1 - relax) Yprev - Y, so
     tu += relax vx + (1 - relax) ty (ty still V^T Yprev), ty = Y^T V, tu -= ty. */
static ag_status after_ustep(ag_solver *s) {
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  if (p->sl == NULL)
    return AG_OK;
  ag_status st = ag_axpby(s->q, a->rlx, p->vx, 1.0, p->tu, p->tu);
  if (st != AG_OK)
    return st;
  if (a->rlx != 1.0) {
    st = ag_axpby(s->q, 1.0 - a->rlx, p->ty, 1.0, p->tu, p->tu);
    if (st != AG_OK)
      return st;
  }
  st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, a->y, p->v, 0.0, p->ty);
  if (st != AG_OK)
    return st;
  return ag_sub(s->q, p->tu, p->ty, p->tu);
}

/* The ADMM hook after a change of rho, which divided U by the same factor (admm.h): the
   weights for the new rho, and with sl tu scaled as U was. */
static ag_status rhochange(ag_solver *s) {
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st = set_weights(s);
  if (st != AG_OK || p->sl == NULL)
    return st;
  if (p->rho_tu != a->rho) {
    st = ag_mul_scalar(s->q, p->tu, p->rho_tu / a->rho, p->tu);
    if (st != AG_OK)
      return st;
  }
  p->rho_tu = a->rho;
  return AG_OK;
}

static ag_status xstep(ag_solver *s) {
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  /* C = Y - U; tt = C^T V (ty - tu with sl); zt = wa tt + wb et (columns scaled);
     X = C + V zt^T; vx = tt + zt */
  ag_status st = ag_sub(s->q, a->y, a->u, p->c);
  if (st != AG_OK)
    return st;
  if (p->sl == NULL)
    st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, p->c, p->v, 0.0, p->tt);
  else
    st = ag_sub(s->q, p->ty, p->tu, p->tt);
  if (st != AG_OK)
    return st;
  st = ag_mul(s->q, p->tt, p->wa, p->zt);
  if (st != AG_OK)
    return st;
  st = ag_mul(s->q, p->et, p->wb, p->vx);
  if (st != AG_OK)
    return st;
  st = ag_add(s->q, p->zt, p->vx, p->zt);
  if (st != AG_OK)
    return st;
  st = ag_copy(s->q, p->c, s->x);
  if (st != AG_OK)
    return st;
  st = ag_gemm(s->q, AG_NO_TRANS, AG_TRANS, 1.0, p->v, p->zt, 1.0, s->x);
  if (st != AG_OK)
    return st;
  st = ag_add(s->q, p->tt, p->zt, p->vx);
  if (st != AG_OK)
    return st;
  if (!a->opt.lin_solve_check)
    return AG_OK;
  /* sporco's rrs(D^T D X + rho X, b) = ||ax - b|| / ||b||, b = D^T S + rho C (into c), ax in
     work */
  st = ag_axpby(s->q, 1.0, p->dts, a->rho, p->c, p->c);
  if (st != AG_OK)
    return st;
  st = ag_gemm(s->q, AG_NO_TRANS, AG_NO_TRANS, 1.0, p->d, s->x, 0.0, p->resid);
  if (st != AG_OK)
    return st;
  st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, p->d, p->resid, 0.0, a->work);
  if (st != AG_OK)
    return st;
  st = ag_axpby(s->q, 1.0, a->work, a->rho, s->x, a->work);
  if (st != AG_OK)
    return st;
  st = ag_sub(s->q, a->work, p->c, a->work);
  if (st != AG_OK)
    return st;
  double nrm[2];
  st = ag__solver_norms(s, 2, (const ag_array *[]){a->work, p->c}, nrm);
  if (st != AG_OK)
    return st;
  a->xrrs = nrm[0] / nrm[1];
  return AG_OK;
}

static ag_status objective(ag_solver *s, ag_iter_stats *st) {
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  const ag_array *fvar = a->opt.f_eval_x ? s->x : a->y, *gvar = a->opt.g_eval_y ? a->y : s->x;
  ag_status rc;
  double dn, l1;
  /* (1/2) ||D fvar - S||^2: with sl, ||l^1/2 V^T fvar - W^T S|| (transposed), V^T X = vx and
     V^T Y = ty (after_ustep has brought it up to date) */
  const ag_array *resid;
  if (p->sl != NULL) {
    rc = ag_mul(s->q, fvar == a->y ? p->ty : p->vx, p->sl, p->rt);
    if (rc != AG_OK)
      return rc;
    rc = ag_sub(s->q, p->rt, p->wts, p->rt);
    if (rc != AG_OK)
      return rc;
    resid = p->rt;
  } else {
    rc = ag_copy(s->q, p->s, p->resid);
    if (rc != AG_OK)
      return rc;
    rc = ag_gemm(s->q, AG_NO_TRANS, AG_NO_TRANS, 1.0, p->d, fvar, -1.0, p->resid);
    if (rc != AG_OK)
      return rc;
    resid = p->resid;
  }
  rc = ag__solver_norms(s, 1, (const ag_array *[]){resid}, &dn);
  if (rc != AG_OK)
    return rc;
  rc = ag__solver_l1(s, gvar, p->absx, &l1);
  if (rc != AG_OK)
    return rc;
  st->dfid = 0.5 * dn * dn;
  st->reg = a->opt.l1_weight * l1;
  st->obj = st->dfid + s->lmbda * st->reg;
  return AG_OK;
}

static void destroy(ag_solver *s) {
  bpdn *p = s->impl;
  ag_array *arrays[] = {p->d,  p->s,  p->dts, p->v,  p->et, p->wa, p->wb, p->tt,    p->zt,
                        p->sl, p->wts, p->vx,  p->ty, p->tu, p->rt, p->c,  p->resid, p->absx};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
  free(p->l);
}

static const ag__admm_ops bpdn_ops = {.name = "BPDN",
                                      .xstep = xstep,
                                      .ystep = ag__admm_ystep_l1,
                                      .after_ustep = after_ustep,
                                      .objective = objective,
                                      .rhochange = rhochange,
                                      .destroy = destroy};

/* The eigendecomposition of the smaller Gram matrix of D (host, double): p->l, V (host,
   row-major M x r, into *v) and, for a wide D, (W^T S)^T (K x r, into *wts) from @p sh, S.
   Directions of eigenvalues below r l_max 2^-52 (rounding, a D of lower rank) are left out of
   V (a zero column), so D's null space joins the part of X outside V's span, as it should. */
static ag_status factor(const char *fn, bpdn *p, const double *d, const double *sh, double **v, double **wts,
                        bool *dropped) {
  size_t n = p->n, m = p->m, r = p->r;
  bool wide = n < m;
  double *g = malloc(r * r * sizeof *g);
  *v = calloc(m * r, sizeof **v);
  *wts = wide ? malloc(p->k * r * sizeof **wts) : NULL;
  p->l = malloc(r * sizeof *p->l);
  if (g == NULL || *v == NULL || p->l == NULL || (wide && *wts == NULL)) {
    free(g);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the Gram matrix of D (%zu x %zu)", fn, r, r);
  }
  if (!wide) /* D^T D */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)m, (int)m, (int)n, 1.0, d, (int)m, d, (int)m, 0.0, g,
                (int)m);
  else /* D D^T */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)m, 1.0, d, (int)m, d, (int)m, 0.0, g,
                (int)n);
  ag_status st = ag__lapack_syev(fn, (int)r, g, p->l);
  if (st == AG_OK) {
    /* g's row j is eigenvector j (of D^T D, or W's column j of D D^T); l ascends */
    double floor = p->l[r - 1] * (double)r * 0x1p-52;
    if (wide) { /* V = D^T W, then its columns scaled by l^-1/2; (W^T S)^T = S^T W */
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasTrans, (int)m, (int)r, (int)n, 1.0, d, (int)m, g, (int)r, 0.0, *v,
                  (int)r);
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasTrans, (int)p->k, (int)r, (int)n, 1.0, sh, (int)p->k, g, (int)r, 0.0,
                  *wts, (int)r);
    }
    *dropped = false;
    for (size_t j = 0; j < r; j++) {
      bool keep = p->l[j] > floor;
      *dropped = *dropped || !keep;
      p->l[j] = keep ? p->l[j] : 0.0;
      for (size_t i = 0; i < m; i++)
        (*v)[i * r + j] = !keep ? 0.0 : wide ? (*v)[i * r + j] / sqrt(p->l[j]) : g[j * r + i];
    }
  }
  free(g);
  return st;
}

static ag_status check_problem(const char *fn, const ag_array *D, const ag_array *S) {
  ag_status st;
  if ((st = ag__check_array(fn, "D", D)) != AG_OK || (st = ag__check_array(fn, "S", S)) != AG_OK ||
      (st = ag__check_same_device(fn, "D", D, "S", S)) != AG_OK || (st = ag__check_same_dtype(fn, "D", D, "S", S)) != AG_OK)
    return st;
  if (D->dtype != AG_F32 && D->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: D is %s; BPDN takes f32 or f64", fn, ag_dtype_name(D->dtype));
  if ((st = ag__check_fp64(fn, D->dev, D->dtype)) != AG_OK)
    return st;
  if (D->ndim != 2 || (S->ndim != 1 && S->ndim != 2))
    return ag__error(AG_ERR_MISMATCH, "%s: D must be 2-D (N, M) and S 1-D (N) or 2-D (N, K); they are %d-D and %d-D", fn,
                     D->ndim, S->ndim);
  if (S->shape[0] != D->shape[0])
    return ag__error(AG_ERR_MISMATCH, "%s: S has %zu rows and D %zu; both must have N", fn, S->shape[0], D->shape[0]);
  if (D->size == 0 || S->size == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: D (%zu x %zu) and S (%zu values) must not be empty", fn, D->shape[0],
                     D->shape[1], S->size);
  if (D->shape[0] > INT32_MAX / 2 || D->shape[1] > INT32_MAX / 2)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: D's sides (%zu x %zu) exceed LAPACK's int", fn, D->shape[0], D->shape[1]);
  return AG_OK;
}

/* The device arrays of @p s from the host's D (@p dh), S (@p sh), D^T S (@p dtsh), V (@p vh),
   (V^T D^T S)^T (@p eth) and, for the products through W, l^1/2 (@p slh, NULL without) and
   (W^T S)^T (@p wtsh); the work arrays; the weights for rho; with sl, ty and tu from Y and U. */
static ag_status make_arrays(ag_solver *s, const double *dh, const double *sh, const double *dtsh, const double *vh,
                             const double *eth, const double *slh, const double *wtsh) {
  bpdn *p = s->impl;
  ag_dtype t = s->dtype;
  size_t n = p->n, m = p->m, k = p->k, r = p->r;
  ag_status st = ag__array_from_doubles(s->dev, t, 2, (size_t[]){n, m}, dh, &p->d);
  if (st != AG_OK)
    return st;
  st = ag__array_from_doubles(s->dev, t, 2, (size_t[]){n, k}, sh, &p->s);
  if (st != AG_OK)
    return st;
  st = ag__array_from_doubles(s->dev, t, 2, (size_t[]){m, k}, dtsh, &p->dts);
  if (st != AG_OK)
    return st;
  st = ag__array_from_doubles(s->dev, t, 2, (size_t[]){m, r}, vh, &p->v);
  if (st != AG_OK)
    return st;
  st = ag__array_from_doubles(s->dev, t, 2, (size_t[]){k, r}, eth, &p->et);
  if (st != AG_OK)
    return st;
  /* the (K, r) arrays: tt, zt, vx and, with sl, ty, tu, rt */
  ag_array **kr[] = {&p->tt, &p->zt, &p->vx, &p->ty, &p->tu, &p->rt};
  size_t nkr = slh != NULL ? 6 : 3;
  for (size_t i = 0; i < nkr; i++) {
    st = ag__solver_array(s, 2, (size_t[]){k, r}, kr[i]);
    if (st != AG_OK)
      return st;
  }
  if (slh != NULL) {
    st = ag__array_from_doubles(s->dev, t, 1, &r, slh, &p->sl);
    if (st != AG_OK)
      return st;
    st = ag__array_from_doubles(s->dev, t, 2, (size_t[]){k, r}, wtsh, &p->wts);
    if (st != AG_OK)
      return st;
  }
  st = ag__solver_array(s, 2, (size_t[]){m, k}, &p->c);
  if (st != AG_OK)
    return st;
  st = ag__solver_array(s, 2, (size_t[]){n, k}, &p->resid);
  if (st != AG_OK)
    return st;
  st = ag_array_create(s->dev, t, 2, (size_t[]){m, k}, &p->absx);
  if (st != AG_OK)
    return st;
  st = set_weights(s);
  if (st != AG_OK)
    return st;
  return slh != NULL ? project_yu(s) : AG_OK;
}

ag_status ag_bpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda, const ag_admm_options *opt,
                         ag_solver **solver) {
  static const char fn[] = "ag_bpdn_create";
  AG__CHECK_NOT_NULL(fn, solver);
  *solver = NULL;
  ag_status st = check_problem(fn, D, S);
  if (st != AG_OK)
    return st;
  ag_solver *s;
  st = ag__admm_alloc(fn, AG_SOLVER_BPDN, &bpdn_ops, lmbda, true, sizeof(bpdn), &s);
  if (st != AG_OK)
    return st;
  bpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  double *dh = NULL, *qh = NULL, *sh = NULL, *dtsh = NULL, *eth = NULL, *wtsh = NULL, *slh = NULL;
  bool dropped = true;
  p->n = D->shape[0], p->m = D->shape[1], p->k = S->ndim == 2 ? S->shape[1] : 1;
  p->r = p->n < p->m ? p->n : p->m;
  ag_dtype t = D->dtype;
  size_t n = p->n, m = p->m, k = p->k;
  /* D and S on the host, D^T S and lmbda's default there too (once). */
  st = ag__array_to_doubles(D, &dh);
  if (st != AG_OK)
    goto fail;
  st = ag__array_to_doubles(S, &sh);
  if (st != AG_OK)
    goto fail;
  dtsh = malloc(m * k * sizeof *dtsh);
  if (dtsh == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    goto fail;
  }
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)m, (int)k, (int)n, 1.0, dh, (int)m, sh, (int)k, 0.0, dtsh,
              (int)k);
  if (isnan(lmbda)) {
    double mx = 0;
    for (size_t i = 0; i < m * k; i++)
      mx = fmax(mx, fabs(dtsh[i]));
    lmbda = 0.1 * mx;
  }
  if (t == AG_F32)
    lmbda = (float)lmbda;
  s->lmbda = lmbda;
  double xi = lmbda != 0.0 ? 1.0 + pow(18.3, log10(lmbda) + 1.0) : 1.0;
  st = ag__admm_init(s, fn, q, D->dev, t, opt, 50.0 * lmbda + 1.0, xi, 2, (size_t[]){m, k}, 2, (size_t[]){m, k});
  if (st != AG_OK)
    goto fail;
  if (t == AG_F32)
    a->rho = (float)a->rho, a->rho_xi = (float)a->rho_xi;
  /* sporco's uinit: with Y0 and no U0, U = (lmbda / rho) sign(Y), which meets the dual
     optimality condition */
  if (opt != NULL && opt->y0 != NULL && opt->u0 == NULL) {
    st = ag_sign(q, a->y, a->u);
    if (st != AG_OK)
      goto fail_prefix;
    st = ag_mul_scalar(q, a->u, lmbda / a->rho, a->u);
    if (st != AG_OK)
      goto fail_prefix;
  }
  st = factor(fn, p, dh, sh, &qh, &wtsh, &dropped);
  if (st != AG_OK)
    goto fail;
  if (n < m && !dropped) { /* l^1/2 */
    slh = malloc(p->r * sizeof *slh);
    if (slh == NULL) {
      st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
      goto fail;
    }
    for (size_t j = 0; j < p->r; j++)
      slh[j] = sqrt(p->l[j]);
  }
  eth = malloc(k * p->r * sizeof *eth);
  if (eth == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    goto fail;
  }
  /* et = (V^T D^T S)^T = (D^T S)^T V, K x r */
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)p->r, (int)m, 1.0, dtsh, (int)k, qh, (int)p->r,
              0.0, eth, (int)p->r);
  st = make_arrays(s, dh, sh, dtsh, qh, eth, slh, wtsh);
  if (st != AG_OK)
    goto fail_prefix;
  free(dh), free(sh), free(dtsh), free(qh), free(eth), free(wtsh), free(slh);
  *solver = s;
  return AG_OK;
fail_prefix:
  st = ag__prefix(st, fn);
fail:
  free(dh), free(sh), free(dtsh), free(qh), free(eth), free(wtsh), free(slh);
  ag_solver_destroy(s);
  return st;
}
