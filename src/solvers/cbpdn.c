/* src/solvers/cbpdn.c - convolutional basis pursuit denoising, sporco.admm.cbpdn.ConvBPDN
   (solvers.h), single- and multi-channel dictionaries.

   X = Y (ADMMEqual). The x step works in the DFT domain over the two spatial axes, with real
   FFTs: Zf = rfft(Y - U), then per signal and frequency the solve of
   (rho I + sum_c d_c d_c^H) x = sum_c conj(d_c) s_c + rho z over the C channels of the
   dictionary (C = 1 for a single-channel one; sporco's solvedbi_sm, and solvemdbi_ism for
   C > 1), X = irfft(Xf). The csc family's gram kernel makes the per-frequency factors E of
   that system for the current rho (again whenever rho changed), its xstep kernel the solve
   from them without dividing by rho (kernels_shared/csc.h). D's spectrum (D zero padded to the
   signal's size, channels first) and S's are made once. The y step is prox_l1(AX + U,
   lmbda / rho W), then clipped at 0 with NonNegCoef. The data term of the objective, summed
   over the channels, is taken from the half spectra as sporco's rfl2norm2 does (the csc
   family's resid kernel weighs the bins), the l1 term over X (ConvBPDN's AuxVarObj False). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admm.h"
#include "anygpu/fft.h"
#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/csc.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_gram, AG_SHAPE_CSC_GRAM)
AG__SHAPE_LAUNCHER(launch_xstep, AG_SHAPE_CSC_XSTEP)
AG__SHAPE_LAUNCHER(launch_check, AG_SHAPE_CSC_CHECK)
AG__SHAPE_LAUNCHER(launch_resid, AG_SHAPE_CSC_RESID)

typedef struct cbpdn {
  size_t k, c, m, n0, n1, nh; /* signals, channels of D, filters, the signal's sides, n1 / 2 + 1 */
  ag_dtype ct;             /* the complex dtype of the spectra */
  ag_array *df;            /* D's spectrum [C][M][N0][NH] (as [C M][N0][NH]) */
  ag_array *sf;            /* S's spectrum [K][C][N0][NH] (as [K C][N0][NH]) */
  ag_array *e, *h;         /* the x step's factors for rho_e [C][M][N0][NH], the gram kernel's
                              scratch [C][C][N0][NH] */
  double rho_e;            /* the rho e was made for; NaN: none yet */
  ag_array *zf, *xf;       /* rfft(Y - U) and X's spectrum [K][M][N0][NH] */
  ag_array *ef;            /* the weighted residual's spectrum [K][C][N0][NH] */
  ag_array *bf, *rf;       /* the linear system's right side and residual (LinSolveCheck) */
  ag_array *absx;          /* |X| [K][M][N0][N1], real */
} cbpdn;

/* The csc family's kernel @p kernel (its u8 id) for the solver's complex dtype, with its n items. */
static ag__launch csc_launch(ag_solver *s, ag__kernel_id kernel, size_t n) {
  cbpdn *p = s->impl;
  return (ag__launch){.fn = "ag_solver_iterate", .q = s->q, .dev = s->dev, .kernel = kernel + p->ct, .n = n};
}

/* rho in the kernels' real type. */
typedef struct real_val {
  double d;
  float f;
} real_val;
static ag__val real_of(const ag_solver *s, real_val *v, double x) {
  v->d = x, v->f = (float)x;
  return s->dtype == AG_F64 ? (ag__val){&v->d, 8} : (ag__val){&v->f, 4};
}

static ag_status xstep(ag_solver *s) {
  cbpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  uint64_t c = p->c, m = p->m, f = p->n0 * p->nh;
  ag__launch l;
  real_val rv;
  if (a->rho != p->rho_e) {
    l = csc_launch(s, AG_K_CSC_GRAM, f);
    if ((st = AG__LAUNCH(launch_gram, &l, .df = p->df, .c = c, .m = m, .f = f, .rho = real_of(s, &rv, a->rho),
                         .h = p->h, .e = p->e)) != AG_OK)
      return st;
    p->rho_e = a->rho;
  }
  l = csc_launch(s, AG_K_CSC_XSTEP, p->k * f);
  if ((st = ag_sub(s->q, a->y, a->u, a->work)) != AG_OK || (st = ag_rfft(s->q, a->work, 2, AG_FFT_BACKWARD, p->zf)) != AG_OK ||
      (st = AG__LAUNCH(launch_xstep, &l, .df = p->df, .e = p->e, .sf = p->sf, .zf = p->zf, .c = c, .m = m, .f = f,
                       .xf = p->xf)) != AG_OK ||
      (st = ag_irfft(s->q, p->xf, 2, AG_FFT_BACKWARD, s->x)) != AG_OK)
    return st;
  if (!a->opt.lin_solve_check)
    return AG_OK;
  /* sporco's rrs(D^H D Xf + rho Xf, b) = ||residual|| / ||b||, over the half spectra */
  l = csc_launch(s, AG_K_CSC_CHECK, p->k * f);
  double nrm[2];
  if ((st = AG__LAUNCH(launch_check, &l, .df = p->df, .sf = p->sf, .zf = p->zf, .xf = p->xf, .c = c, .m = m, .f = f,
                       .rho = real_of(s, &rv, a->rho), .bf = p->bf, .rf = p->rf)) != AG_OK ||
      (st = ag__solver_norms(s, 2, (const ag_array *[]){p->rf, p->bf}, nrm)) != AG_OK)
    return st;
  a->xrrs = nrm[0] / nrm[1];
  return AG_OK;
}

static ag_status objective(ag_solver *s, ag_iter_stats *is) {
  cbpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_status st;
  /* fvar's spectrum: Xf from the x step, or rfft(Y) (into zf, not needed any more) */
  const ag_array *fv = p->xf;
  if (!a->opt.f_eval_x) {
    if ((st = ag_rfft(s->q, a->y, 2, AG_FFT_BACKWARD, p->zf)) != AG_OK)
      return st;
    fv = p->zf;
  }
  uint64_t c = p->c, m = p->m, f = p->n0 * p->nh, nh = p->nh, n1 = p->n1;
  ag__launch l = csc_launch(s, AG_K_CSC_RESID, p->k * c * f);
  double en, l1;
  if ((st = AG__LAUNCH(launch_resid, &l, .df = p->df, .sf = p->sf, .xf = fv, .c = c, .m = m, .f = f, .nh = nh, .n1 = n1,
                       .ef = p->ef)) != AG_OK ||
      (st = ag__solver_norms(s, 1, (const ag_array *[]){p->ef}, &en)) != AG_OK ||
      (st = ag__solver_l1(s, a->opt.g_eval_y ? a->y : s->x, p->absx, &l1)) != AG_OK)
    return st;
  is->dfid = 0.5 * en * en / ((double)p->n0 * (double)p->n1);
  is->reg = a->opt.l1_weight * l1;
  is->obj = is->dfid + s->lmbda * is->reg;
  return AG_OK;
}

static void destroy(ag_solver *s) {
  cbpdn *p = s->impl;
  ag_array *a[] = {p->df, p->sf, p->e, p->h, p->zf, p->xf, p->ef, p->bf, p->rf, p->absx};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    ag_array_free(a[i]);
}

static const ag__admm_ops cbpdn_ops = {
    .name = "ConvBPDN", .xstep = xstep, .ystep = ag__admm_ystep_l1, .objective = objective, .destroy = destroy};

/* The largest |conj(Df) Sf| over signals, channels, filters and frequencies, channel by
   channel (not summed over them), as sporco computes it: its default lmbda is a tenth of it.
   Read back once, at creation. */
static ag_status max_dhs(const cbpdn *p, double *out) {
  double *d = NULL, *sv = NULL;
  ag_status st;
  if ((st = ag__array_to_doubles(p->df, &d)) == AG_OK && (st = ag__array_to_doubles(p->sf, &sv)) == AG_OK) {
    double mx = 0;
    size_t fr = p->n0 * p->nh;
    for (size_t k = 0; k < p->k; k++)
      for (size_t c = 0; c < p->c; c++)
        for (size_t j = 0; j < p->m; j++)
          for (size_t i = 0; i < fr; i++) {
            const double *a = d + 2 * ((c * p->m + j) * fr + i), *b = sv + 2 * ((k * p->c + c) * fr + i);
            mx = fmax(mx, hypot(a[0] * b[0] + a[1] * b[1], a[0] * b[1] - a[1] * b[0]));
          }
    *out = mx;
  }
  free(d), free(sv);
  return st;
}

/* D [M][C][Nd0][Nd1] (C = 1 for a 3-D D) zero padded and reordered to [C M][N0][N1], channel
   major, in a new array (made on the host, once). */
static ag_status pad_filters(const ag_array *D, const ag__csc_geometry *g, ag_array **out) {
  size_t es = ag_dtype_size(D->dtype), n0 = g->n0, n1 = g->n1, d0 = g->d0, d1 = g->d1;
  unsigned char *src = malloc(D->size * es), *dst = calloc(g->c * g->m * n0 * n1, es);
  ag_status st = AG_OK;
  if (src == NULL || dst == NULL)
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for the padded filters");
  if (st == AG_OK)
    st = ag_array_to_host(D, src, D->size * es);
  for (size_t j = 0; st == AG_OK && j < g->m; j++)
    for (size_t c = 0; c < g->c; c++)
      for (size_t a = 0; a < d0; a++)
        memcpy(dst + (((c * g->m + j) * n0 + a) * n1) * es, src + (((j * g->c + c) * d0 + a) * d1) * es, d1 * es);
  if (st == AG_OK)
    st = ag_array_from_host(D->dev, D->dtype, 3, (size_t[]){g->c * g->m, n0, n1}, dst, out);
  free(src), free(dst);
  return st;
}

ag_status ag_cbpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda, const ag_admm_options *opt,
                          ag_solver **solver) {
  static const char fn[] = "ag_cbpdn_create";
  AG__CHECK_NOT_NULL(fn, solver);
  *solver = NULL;
  ag__csc_geometry g = {0};
  ag_status st = ag__csc_check_problem(fn, "ConvBPDN", D, S, AG__CSC_MULTICHANNEL, &g);
  if (st != AG_OK)
    return st;
  ag_solver *s;
  if ((st = ag__admm_alloc(fn, AG_SOLVER_CBPDN, &cbpdn_ops, lmbda, true, sizeof(cbpdn), &s)) != AG_OK)
    return st;
  cbpdn *p = s->impl;
  ag__admm *a = ag__admm_of(s);
  ag_dtype t = D->dtype;
  p->ct = t == AG_F64 ? AG_C128 : AG_C64;
  p->m = g.m, p->c = g.c, p->k = g.k, p->n0 = g.n0, p->n1 = g.n1, p->nh = g.n1 / 2 + 1;
  p->rho_e = NAN;
  size_t k = p->k, c = p->c, m = p->m, n0 = p->n0, n1 = p->n1, nh = p->nh;
  size_t xs[4] = {k, m, n0, n1}, xfs[4] = {k, m, n0, nh}, sfs[3] = {k * c, n0, nh}, dfs[3] = {c * m, n0, nh};
  ag_array *dpad = NULL, *s3 = NULL;
  if ((st = pad_filters(D, &g, &dpad)) != AG_OK ||
      (st = ag_array_reshape(S, 3, (size_t[]){k * c, n0, n1}, &s3)) != AG_OK ||
      (st = ag_array_create(D->dev, p->ct, 3, dfs, &p->df)) != AG_OK ||
      (st = ag_array_create(D->dev, p->ct, 3, sfs, &p->sf)) != AG_OK ||
      (st = ag_rfft(q, dpad, 2, AG_FFT_BACKWARD, p->df)) != AG_OK || (st = ag_rfft(q, s3, 2, AG_FFT_BACKWARD, p->sf)) != AG_OK)
    goto fail;
  if (isnan(lmbda)) {
    double mx = 0;
    if ((st = max_dhs(p, &mx)) != AG_OK)
      goto fail;
    lmbda = 0.1 * mx;
  }
  if (t == AG_F32)
    lmbda = (float)lmbda;
  s->lmbda = lmbda;
  double xi = lmbda != 0.0 ? 1.0 + pow(18.3, log10(lmbda) + 1.0) : 1.0;
  if ((st = ag__admm_init(s, fn, q, D->dev, t, opt, 50.0 * lmbda + 1.0, xi, 4, xs, 4, xs)) != AG_OK)
    goto fail_prefixed;
  if (t == AG_F32)
    a->rho = (float)a->rho, a->rho_xi = (float)a->rho_xi;
  /* sporco's uinit: with Y0 and no U0, U = (lmbda / rho) sign(Y), which meets the dual
     optimality condition (sporco 0.2.2 itself fails there, reading lmbda before setting it) */
  if (opt != NULL && opt->y0 != NULL && opt->u0 == NULL &&
      ((st = ag_sign(q, a->y, a->u)) != AG_OK || (st = ag_mul_scalar(q, a->u, lmbda / a->rho, a->u)) != AG_OK))
    goto fail;
  if ((st = ag_array_create(s->dev, p->ct, 4, xfs, &p->zf)) != AG_OK ||
      (st = ag_array_create(s->dev, p->ct, 4, xfs, &p->xf)) != AG_OK ||
      (st = ag_array_create(s->dev, p->ct, 3, sfs, &p->ef)) != AG_OK ||
      (st = ag_array_create(s->dev, p->ct, 3, dfs, &p->e)) != AG_OK ||
      (st = ag_array_create(s->dev, p->ct, 3, (size_t[]){c * c, n0, nh}, &p->h)) != AG_OK ||
      (st = ag__solver_array(s, 4, xs, &p->absx)) != AG_OK ||
      (a->opt.lin_solve_check && ((st = ag_array_create(s->dev, p->ct, 4, xfs, &p->bf)) != AG_OK ||
                                  (st = ag_array_create(s->dev, p->ct, 4, xfs, &p->rf)) != AG_OK)))
    goto fail;
  ag_array_free(dpad), ag_array_free(s3);
  *solver = s;
  return AG_OK;
fail:
  st = ag__prefix(st, fn);
fail_prefixed:
  ag_array_free(dpad), ag_array_free(s3);
  ag_solver_destroy(s);
  return st;
}
