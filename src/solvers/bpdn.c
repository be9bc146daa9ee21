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
   in r x K arrays: two products an iteration (V^T Y, V Z) where there were three. */
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
  ag_array *ty, *tu; /* with sl: (V^T Y)^T and (V^T U)^T (K, r) */
  ag_array *rt;      /* with sl: l^1/2 V^T fvar - W^T S, transposed (K, r) */
  bool fresh;        /* ty and tu are to be made from Y and U (the first x step) */
  bool advanced;     /* ty and tu follow the last y and u steps */
  double rho_tu;     /* rho when tu was last scaled */
  ag_array *c;       /* C = Y - U (M, K), then b for the check */
  ag_array *resid;   /* D X - S (N, K) */
  ag_array *absx;    /* |Y| (M, K), real */
  double *l;         /* the eigenvalues (r), host */
  size_t n, m, k, r;
} bpdn;

static ag_status set_weights(ag_solver *s) {
  bpdn *p = s->impl;
  double *w = malloc(2 * p->r * sizeof *w);
  float *wf = malloc(2 * p->r * sizeof *wf);
  if (w == NULL || wf == NULL) {
    free(w), free(wf);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "BPDN: out of host memory for %zu weights", p->r);
  }
  for (size_t i = 0; i < p->r; i++) {
    w[i] = -p->l[i] / (p->l[i] + s->rho);
    w[p->r + i] = 1.0 / (p->l[i] + s->rho);
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

static ag_status rhochange(ag_solver *s) { return set_weights(s); }

/* ty and tu after a y and u step: tu += relax vx + (1 - relax) ty (the old Y), ty = Y^T V,
   tu -= ty. Once an iteration: by the objective, which needs ty, or else by the next x step. */
static ag_status advance(ag_solver *s) {
  bpdn *p = s->impl;
  ag_status st;
  if (p->advanced)
    return AG_OK;
  p->advanced = true;
  if ((st = ag_axpby(s->q, s->rlx, p->vx, 1.0, p->tu, p->tu)) != AG_OK ||
      (s->rlx != 1.0 && (st = ag_axpby(s->q, 1.0 - s->rlx, p->ty, 1.0, p->tu, p->tu)) != AG_OK) ||
      (st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, s->y, p->v, 0.0, p->ty)) != AG_OK)
    return st;
  return ag_sub(s->q, p->tu, p->ty, p->tu);
}

/* tt = C^T V, C = Y - U: from ty and tu with sl (U's scaling by a change of rho applied to tu
   here), else a product. */
static ag_status project_c(ag_solver *s) {
  bpdn *p = s->impl;
  ag_status st;
  if (p->sl == NULL)
    return ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, p->c, p->v, 0.0, p->tt);
  if (p->fresh) {
    p->fresh = false;
    if ((st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, s->y, p->v, 0.0, p->ty)) != AG_OK ||
        (st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, s->u, p->v, 0.0, p->tu)) != AG_OK)
      return st;
  } else if ((st = advance(s)) != AG_OK ||
             (p->rho_tu != s->rho && (st = ag_mul_scalar(s->q, p->tu, p->rho_tu / s->rho, p->tu)) != AG_OK)) {
    return st;
  }
  p->rho_tu = s->rho;
  return ag_sub(s->q, p->ty, p->tu, p->tt);
}

static ag_status xstep(ag_solver *s) {
  bpdn *p = s->impl;
  ag_status st;
  /* C = Y - U; tt = C^T V; zt = wa tt + wb et (columns scaled); X = C + V zt^T; vx = tt + zt */
  if ((st = ag_sub(s->q, s->y, s->u, p->c)) != AG_OK || (st = project_c(s)) != AG_OK ||
      (st = ag_mul(s->q, p->tt, p->wa, p->zt)) != AG_OK || (st = ag_mul(s->q, p->et, p->wb, p->vx)) != AG_OK ||
      (st = ag_add(s->q, p->zt, p->vx, p->zt)) != AG_OK || (st = ag_copy(s->q, p->c, s->x)) != AG_OK ||
      (st = ag_gemm(s->q, AG_NO_TRANS, AG_TRANS, 1.0, p->v, p->zt, 1.0, s->x)) != AG_OK ||
      (st = ag_add(s->q, p->tt, p->zt, p->vx)) != AG_OK)
    return st;
  p->advanced = false;
  if (!s->opt.lin_solve_check)
    return AG_OK;
  /* sporco's rrs(D^T D X + rho X, b) = ||ax - b|| / ||b||, b = D^T S + rho C (into c), ax in
     work */
  double nrm[2];
  if ((st = ag_axpby(s->q, 1.0, p->dts, s->rho, p->c, p->c)) != AG_OK ||
      (st = ag_gemm(s->q, AG_NO_TRANS, AG_NO_TRANS, 1.0, p->d, s->x, 0.0, p->resid)) != AG_OK ||
      (st = ag_gemm(s->q, AG_TRANS, AG_NO_TRANS, 1.0, p->d, p->resid, 0.0, s->work)) != AG_OK ||
      (st = ag_axpby(s->q, 1.0, s->work, s->rho, s->x, s->work)) != AG_OK ||
      (st = ag_sub(s->q, s->work, p->c, s->work)) != AG_OK ||
      (st = ag__solver_norms(s, 2, (const ag_array *[]){s->work, p->c}, nrm)) != AG_OK)
    return st;
  s->xrrs = nrm[0] / nrm[1];
  return AG_OK;
}

static ag_status objective(ag_solver *s, ag_iter_stats *st) {
  bpdn *p = s->impl;
  const ag_array *fvar = s->opt.f_eval_x ? s->x : s->y, *gvar = s->opt.g_eval_y ? s->y : s->x;
  ag_status rc;
  double dn, l1;
  /* (1/2) ||D fvar - S||^2: with sl, ||l^1/2 V^T fvar - W^T S|| (transposed), V^T X = vx and
     V^T Y = ty */
  bool via_v = p->sl != NULL;
  const ag_array *resid = via_v ? p->rt : p->resid;
  if ((via_v && ((fvar == s->y && (rc = advance(s)) != AG_OK) ||
                 (rc = ag_mul(s->q, fvar == s->y ? p->ty : p->vx, p->sl, p->rt)) != AG_OK ||
                 (rc = ag_sub(s->q, p->rt, p->wts, p->rt)) != AG_OK)) ||
      (!via_v && ((rc = ag_copy(s->q, p->s, p->resid)) != AG_OK ||
                  (rc = ag_gemm(s->q, AG_NO_TRANS, AG_NO_TRANS, 1.0, p->d, fvar, -1.0, p->resid)) != AG_OK)) ||
      (rc = ag__solver_norms(s, 1, (const ag_array *[]){resid}, &dn)) != AG_OK ||
      (rc = ag__solver_l1(s, gvar, p->absx, &l1)) != AG_OK)
    return rc;
  st->dfid = 0.5 * dn * dn;
  st->reg = s->opt.l1_weight * l1;
  st->obj = st->dfid + s->lmbda * st->reg;
  return AG_OK;
}

static void destroy(ag_solver *s) {
  bpdn *p = s->impl;
  if (p == NULL)
    return;
  ag_array *a[] = {p->d,  p->s,  p->dts, p->v,  p->et, p->wa, p->wb, p->tt,    p->zt,
                   p->sl, p->wts, p->vx,  p->ty, p->tu, p->rt, p->c,  p->resid, p->absx};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    ag_array_free(a[i]);
  free(p->l);
  free(p);
}

static const ag__solver_ops bpdn_ops = {
    .name = "BPDN", .xstep = xstep, .ystep = ag__solver_ystep_l1, .objective = objective, .rhochange = rhochange, .destroy = destroy};

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

/* @p host (doubles) as an array of dtype t. */
static ag_status upload(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const double *host, ag_array **a) {
  if (t == AG_F64)
    return ag_array_from_host(dev, t, ndim, shape, host, a);
  size_t n = 1;
  for (int i = 0; i < ndim; i++)
    n *= shape[i];
  float *f = malloc((n ? n : 1) * sizeof *f);
  if (f == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu values", n);
  for (size_t i = 0; i < n; i++)
    f[i] = (float)host[i];
  ag_status st = ag_array_from_host(dev, t, ndim, shape, f, a);
  free(f);
  return st;
}

/* @p a's values as doubles (a new host array). */
static ag_status download(const ag_array *a, double **out) {
  size_t n = ag_array_size(a);
  *out = malloc((n ? n : 1) * sizeof **out);
  if (*out == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu values", n);
  if (a->dtype == AG_F64)
    return ag_array_to_host(a, *out, n * sizeof(double));
  float *f = malloc((n ? n : 1) * sizeof *f);
  if (f == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu values", n);
  ag_status st = ag_array_to_host(a, f, n * sizeof *f);
  for (size_t i = 0; st == AG_OK && i < n; i++)
    (*out)[i] = f[i];
  free(f);
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

ag_status ag_bpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda, const ag_admm_options *opt,
                         ag_solver **solver) {
  static const char fn[] = "ag_bpdn_create";
  AG__CHECK_NOT_NULL(fn, solver);
  *solver = NULL;
  ag_status st = check_problem(fn, D, S);
  if (st != AG_OK)
    return st;
  ag_solver *s;
  if ((st = ag__solver_alloc(fn, lmbda, true, sizeof(bpdn), &s)) != AG_OK)
    return st;
  bpdn *p = s->impl;
  double *dh = NULL, *qh = NULL, *sh = NULL, *dtsh = NULL, *eth = NULL, *wtsh = NULL, *slh = NULL;
  bool dropped = true;
  p->n = D->shape[0], p->m = D->shape[1], p->k = S->ndim == 2 ? S->shape[1] : 1;
  p->r = p->n < p->m ? p->n : p->m;
  ag_dtype t = D->dtype;
  size_t n = p->n, m = p->m, k = p->k;
  /* D and S on the host, D^T S and lmbda's default there too (once). */
  if ((st = download(D, &dh)) != AG_OK || (st = download(S, &sh)) != AG_OK)
    goto fail;
  if ((dtsh = malloc(m * k * sizeof *dtsh)) == NULL) {
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
  if ((st = ag__solver_init(s, fn, AG_SOLVER_BPDN, &bpdn_ops, q, D->dev, t, opt, 50.0 * lmbda + 1.0, xi, 2,
                            (size_t[]){m, k}, 2, (size_t[]){m, k})) != AG_OK)
    goto fail;
  if (t == AG_F32)
    s->rho = (float)s->rho, s->rho_xi = (float)s->rho_xi;
  /* sporco's uinit: with Y0 and no U0, U = (lmbda / rho) sign(Y), which meets the dual
     optimality condition */
  if (opt != NULL && opt->y0 != NULL && opt->u0 == NULL &&
      ((st = ag_sign(q, s->y, s->u)) != AG_OK || (st = ag_mul_scalar(q, s->u, lmbda / s->rho, s->u)) != AG_OK)) {
    st = ag__prefix(st, fn);
    goto fail;
  }
  if ((st = factor(fn, p, dh, sh, &qh, &wtsh, &dropped)) != AG_OK)
    goto fail;
  if (n < m && !dropped) { /* l^1/2 */
    if ((slh = malloc(p->r * sizeof *slh)) == NULL) {
      st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
      goto fail;
    }
    for (size_t j = 0; j < p->r; j++)
      slh[j] = sqrt(p->l[j]);
  }
  if ((eth = malloc(k * p->r * sizeof *eth)) == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    goto fail;
  }
  /* et = (V^T D^T S)^T = (D^T S)^T V, K x r */
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)p->r, (int)m, 1.0, dtsh, (int)k, qh, (int)p->r,
              0.0, eth, (int)p->r);
  if ((st = upload(s->dev, t, 2, (size_t[]){n, m}, dh, &p->d)) != AG_OK ||
      (st = upload(s->dev, t, 2, (size_t[]){n, k}, sh, &p->s)) != AG_OK ||
      (st = upload(s->dev, t, 2, (size_t[]){m, k}, dtsh, &p->dts)) != AG_OK ||
      (st = upload(s->dev, t, 2, (size_t[]){m, p->r}, qh, &p->v)) != AG_OK ||
      (st = upload(s->dev, t, 2, (size_t[]){k, p->r}, eth, &p->et)) != AG_OK ||
      (st = ag__solver_array(s, 2, (size_t[]){k, p->r}, &p->tt)) != AG_OK ||
      (st = ag__solver_array(s, 2, (size_t[]){k, p->r}, &p->zt)) != AG_OK ||
      (st = ag__solver_array(s, 2, (size_t[]){k, p->r}, &p->vx)) != AG_OK ||
      (slh != NULL && ((st = upload(s->dev, t, 1, &p->r, slh, &p->sl)) != AG_OK ||
                       (st = upload(s->dev, t, 2, (size_t[]){k, p->r}, wtsh, &p->wts)) != AG_OK ||
                       (st = ag__solver_array(s, 2, (size_t[]){k, p->r}, &p->ty)) != AG_OK ||
                       (st = ag__solver_array(s, 2, (size_t[]){k, p->r}, &p->tu)) != AG_OK ||
                       (st = ag__solver_array(s, 2, (size_t[]){k, p->r}, &p->rt)) != AG_OK)) ||
      (st = ag__solver_array(s, 2, (size_t[]){m, k}, &p->c)) != AG_OK ||
      (st = ag__solver_array(s, 2, (size_t[]){n, k}, &p->resid)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){m, k}, &p->absx)) != AG_OK || (st = set_weights(s)) != AG_OK) {
    st = ag__prefix(st, fn);
    goto fail;
  }
  free(dh), free(sh), free(dtsh), free(qh), free(eth), free(wtsh), free(slh);
  p->fresh = true;
  *solver = s;
  return AG_OK;
fail:
  free(dh), free(sh), free(dtsh), free(qh), free(eth), free(wtsh), free(slh);
  ag_solver_destroy(s);
  return st;
}
