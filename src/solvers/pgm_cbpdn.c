/* src/solvers/pgm_cbpdn.c - convolutional basis pursuit denoising by the proximal gradient
   method, sporco.pgm.cbpdn.ConvBPDN (solvers.h), single-channel dictionaries: the problem's
   pieces for the iteration of pgm.c. f is (1/2) ||D X - S||^2 in the DFT domain over the two
   spatial axes, with real FFTs (ag_rfft): its gradient conj(D^) (D^ V^ - S^) per signal and
   frequency (the pgm family's grad kernel); g is lmbda ||W X||_1, whose prox is the soft
   threshold of irfft(V^) at (lmbda / L) W, clipped at 0 with NonNegCoef. D's spectrum (D zero
   padded on the device) and S's are made once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pgm.h"
#include "anygpu/fft.h"
#include "seam.h"

AG__SHAPE_LAUNCHER(launch_grad, AG_SHAPE_PGM_GRAD)
AG__SHAPE_LAUNCHER(launch_resid, AG_SHAPE_PGM_RESID)
AG__SHAPE_LAUNCHER(launch_wdiff, AG_SHAPE_PGM_WDIFF)
AG__SHAPE_LAUNCHER(launch_pad, AG_SHAPE_PGM_PAD)
AG__SHAPE_LAUNCHER(launch_nobndry, AG_SHAPE_PGM_NOBNDRY)

typedef struct pgm_cbpdn {
  size_t k, m, n0, n1, nh, d0, d1; /* signals, filters, the signal's sides, n1 / 2 + 1, the filters' */
  ag_dtype ct;                    /* the complex dtype of the spectra */
  ag_array *df;                   /* D's spectrum [M][N0][NH] */
  ag_array *sf;                   /* S's spectrum [K][N0][NH] */
  ag_array *ef;                   /* a residual's spectrum [K][N0][NH] */
  ag_array *v;                    /* irfft(V^) [K][M][N0][N1] */
  ag_array *absx;                 /* |X| [K][M][N0][N1] */
} pgm_cbpdn;

/* The pgm family's kernel @p kernel (its u8 id) for dtype @p t, over @p n items. */
static ag__launch pgm_launch(ag_solver *s, ag__kernel_id kernel, ag_dtype t, size_t n) {
  return (ag__launch){.fn = "ag_solver_iterate", .q = s->q, .dev = s->dev, .kernel = kernel + t, .n = n};
}

static ag_status grad(ag_solver *s, const ag_array *vf, ag_array *gf) {
  pgm_cbpdn *p = s->impl;
  ag__launch l = pgm_launch(s, AG_K_PGM_GRAD, p->ct, p->k * p->n0 * p->nh);
  return AG__LAUNCH(launch_grad, &l, .df = p->df, .sf = p->sf, .vf = vf, .m = (uint64_t)p->m,
                    .f = (uint64_t)(p->n0 * p->nh), .gf = gf);
}

static ag_status dft(ag_solver *s, const ag_array *x, ag_array *xf) { return ag_rfft(s->q, x, 2, AG_FFT_BACKWARD, xf); }

static ag_status prox(ag_solver *s, const ag_array *vf, ag_array *xf) {
  pgm_cbpdn *p = s->impl;
  ag__pgm *g = ag__pgm_of(s);
  const ag_pgm_options *o = &g->opt;
  ag_status st;
  st = ag_irfft(s->q, vf, 2, AG_FFT_BACKWARD, p->v);
  if (st != AG_OK)
    return st;
  st = ag_soft_threshold(s->q, p->v, (s->lmbda / g->l) * o->l1_weight, s->x);
  if (st != AG_OK)
    return st;
  if (o->nonneg) {
    st = ag_maximum_scalar(s->q, s->x, 0.0, s->x);
    if (st != AG_OK)
      return st;
  }
  if (o->no_bndry_cross) {
    ag__launch l = pgm_launch(s, AG_K_PGM_NOBNDRY, s->dtype, s->x->size);
    if ((st = AG__LAUNCH(launch_nobndry, &l, .n0 = (uint64_t)p->n0, .n1 = (uint64_t)p->n1, .d0 = (uint64_t)p->d0,
                         .d1 = (uint64_t)p->d1, .x = s->x)) != AG_OK)
      return st;
  }
  return dft(s, s->x, xf);
}

static ag_status fid_norm(ag_solver *s, const ag_array *vf, unsigned flags, ag_array *out) {
  pgm_cbpdn *p = s->impl;
  ag__launch l = pgm_launch(s, AG_K_PGM_RESID, p->ct, p->k * p->n0 * p->nh);
  ag_status st = AG__LAUNCH(launch_resid, &l, .df = p->df, .sf = p->sf, .vf = vf, .m = (uint64_t)p->m,
                            .f = (uint64_t)(p->n0 * p->nh), .nh = (uint64_t)p->nh, .n1 = (uint64_t)p->n1,
                            .flags = (uint64_t)flags, .ef = p->ef);
  return st != AG_OK ? st : ag_nrm2(s->q, p->ef, AG_AXIS_ALL, out);
}

static ag_status diff_norm(ag_solver *s, const ag_array *a, const ag_array *b, ag_array *scratch, ag_array *out) {
  pgm_cbpdn *p = s->impl;
  ag__launch l = pgm_launch(s, AG_K_PGM_WDIFF, p->ct, a->size);
  ag_status st = AG__LAUNCH(launch_wdiff, &l, .a = a, .b = b, .nh = (uint64_t)p->nh, .n1 = (uint64_t)p->n1,
                            .out = scratch);
  return st != AG_OK ? st : ag_nrm2(s->q, scratch, AG_AXIS_ALL, out);
}

static ag_status l1(ag_solver *s, ag_array *out) {
  pgm_cbpdn *p = s->impl;
  ag_status st = ag_abs(s->q, s->x, p->absx);
  return st != AG_OK ? st : ag_sum(s->q, p->absx, AG_AXIS_ALL, out);
}

static void destroy(ag_solver *s) {
  pgm_cbpdn *p = s->impl;
  ag_array *a[] = {p->df, p->sf, p->ef, p->v, p->absx};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    ag_array_free(a[i]);
}

static const ag__pgm_ops pgm_cbpdn_ops = {.grad = grad,         .prox = prox, .dft = dft, .fid_norm = fid_norm,
                                          .diff_norm = diff_norm, .l1 = l1,     .destroy = destroy};

/* D's and S's spectra: D zero padded to the signals' size on the device, then both rfft'd. */
static ag_status spectra(ag_solver *s, ag_queue *q, const ag_array *D, const ag_array *S) {
  pgm_cbpdn *p = s->impl;
  size_t n = p->m * p->n0 * p->n1;
  ag_array *dpad = NULL, *s3 = NULL;
  ag__launch l = pgm_launch(s, AG_K_PGM_PAD, D->dtype, n);
  l.q = q, l.fn = "ag_pgm_cbpdn_create";
  ag_status st;
  if ((st = ag_array_create(D->dev, D->dtype, 3, (size_t[]){p->m, p->n0, p->n1}, &dpad)) == AG_OK &&
      (st = AG__LAUNCH(launch_pad, &l, .d = D, .d0 = (uint64_t)p->d0, .d1 = (uint64_t)p->d1, .n0 = (uint64_t)p->n0,
                       .n1 = (uint64_t)p->n1, .out = dpad)) == AG_OK &&
      (st = ag_array_reshape(S, 3, (size_t[]){p->k, p->n0, p->n1}, &s3)) == AG_OK &&
      (st = ag_array_create(D->dev, p->ct, 3, (size_t[]){p->m, p->n0, p->nh}, &p->df)) == AG_OK &&
      (st = ag_array_create(D->dev, p->ct, 3, (size_t[]){p->k, p->n0, p->nh}, &p->sf)) == AG_OK &&
      (st = ag_rfft(q, dpad, 2, AG_FFT_BACKWARD, p->df)) == AG_OK)
    st = ag_rfft(q, s3, 2, AG_FFT_BACKWARD, p->sf);
  ag_array_free(dpad), ag_array_free(s3);
  return st;
}

/* sporco's default lmbda, 0.1 max |conj(D^) S^|: the gradient at V^ = 0 is -conj(D^) S^. */
static ag_status default_lmbda(ag_solver *s, double *out) {
  ag__pgm *g = ag__pgm_of(s);
  ag_array *a = NULL;
  ag_status st;
  double mx = 0;
  st = ag_fill(s->q, g->w1, 0.0);
  if (st != AG_OK)
    goto done;
  st = grad(s, g->w1, g->gf);
  if (st != AG_OK)
    goto done;
  st = ag_array_create(s->dev, s->dtype, ag_array_ndim(g->gf), ag_array_shape(g->gf), &a);
  if (st != AG_OK)
    goto done;
  st = ag_abs(s->q, g->gf, a);
  if (st != AG_OK)
    goto done;
  st = ag_max(s->q, a, AG_AXIS_ALL, s->scal_view[0]);
  if (st != AG_OK)
    goto done;
  st = ag__solver_scalars(s, 1, &mx);
done:
  ag_array_free(a);
  *out = 0.1 * mx;
  return st;
}

ag_status ag_pgm_cbpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda, const ag_pgm_options *opt,
                              ag_solver **solver) {
  static const char fn[] = "ag_pgm_cbpdn_create";
  AG__CHECK_NOT_NULL(fn, solver);
  *solver = NULL;
  ag__csc_geometry g = {0};
  ag_status st = ag__csc_check_problem(fn, "the PGM ConvBPDN", D, S, 0, &g);
  if (st != AG_OK)
    return st;
  ag_solver *s;
  st = ag__pgm_alloc(fn, AG_SOLVER_PGM_CBPDN, &pgm_cbpdn_ops, lmbda, true, sizeof(pgm_cbpdn), &s);
  if (st != AG_OK)
    return st;
  pgm_cbpdn *p = s->impl;
  ag_dtype t = D->dtype;
  p->ct = t == AG_F64 ? AG_C128 : AG_C64;
  p->m = g.m, p->d0 = g.d0, p->d1 = g.d1, p->k = g.k, p->n0 = g.n0, p->n1 = g.n1, p->nh = g.n1 / 2 + 1;
  ag__pgm_of(s)->scale = 1.0 / ((double)p->n0 * (double)p->n1);
  size_t xs[4] = {p->k, p->m, p->n0, p->n1}, xfs[4] = {p->k, p->m, p->n0, p->nh};
  s->dev = D->dev, s->dtype = t, s->q = q; /* for the launches before ag__pgm_init */
  st = spectra(s, q, D, S);
  if (st != AG_OK)
    goto fail;
  st = ag_array_create(D->dev, p->ct, 3, (size_t[]){p->k, p->n0, p->nh}, &p->ef);
  if (st != AG_OK)
    goto fail;
  st = ag__solver_array(s, 4, xs, &p->v);
  if (st != AG_OK)
    goto fail;
  st = ag__solver_array(s, 4, xs, &p->absx);
  if (st != AG_OK)
    goto fail;
  st = ag__pgm_init(s, fn, q, D->dev, t, opt, p->ct, 4, xs, 4, xfs);
  if (st != AG_OK)
    goto fail_prefixed;
  if (isnan(lmbda)) {
    st = default_lmbda(s, &lmbda);
    if (st != AG_OK)
      goto fail;
  }
  s->lmbda = t == AG_F32 ? (float)lmbda : lmbda;
  *solver = s;
  return AG_OK;
fail:
  st = ag__prefix(st, fn);
fail_prefixed:
  ag_solver_destroy(s);
  return st;
}
