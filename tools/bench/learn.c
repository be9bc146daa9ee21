/* tools/bench/learn.c — the learning rows (--only learn): adam, one torch-Adam step over 2^24
   parameters (ag_optimizer_step) in GB/s against the device's copy bandwidth measured in the
   same child; mlp-epoch, an epoch of a 784-256-10 perceptron trained with Adam, in samples/s.
   The peer is PyTorch on the CPU (peer_learn.py). The child (--learn-child) and the peer run
   alternating rounds, as the solver rows do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "npy.h"

#define LN_MAX_ROUNDS 20
#define LN_MIN_ROUNDS 5
#define LN_TIME_CAP_MS 20000.0
/* rml-epoch's first losses (the same data and start on both sides) agree within this,
   relative: float64 on both sides differs by rounding only (the FFT's, the sums' order);
   float32 carries float32's rounding through a 65536-cell sum. */
#define LN_TOL_F64 1e-9
#define LN_TOL_F32 1e-3

/* adam: parameters of one step; 7 arrays move (read x, g, m, v; write x, m, v). */
#define ADAM_N ((size_t)1 << 24)
#define ADAM_ARRAYS 7
#define ADAM_LR 1e-3

/* mlp-epoch: Flux's model-zoo MLP on MNIST's shapes: 784 -> 256 (relu) -> 10, logit
   cross-entropy, Adam (torch's, lr 1e-3), batches of 128 over MLP_SAMPLES samples a round. */
#define MLP_SAMPLES 8192
#define MLP_IN 784
#define MLP_HIDDEN 256
#define MLP_OUT 10
#define MLP_BATCH 128

/* rml-epoch: MPoL v0.2's RML loop (examples/rml_imaging.c, its tutorial's) on one 256 x 256
   channel: RML_EPOCHS epochs a round. */
#define RML_NPIX 256
#define RML_EPOCHS 10
#define RML_CELL 0.005 /* arcsec */
#define RML_LAMBDA 1e-4 /* sparsity's and TV's */
#define RML_LR 0.5

typedef struct ln_row {
  const char *name; /* the row, and peer_learn.py's setup ROW */
  const char *unit;
  size_t size;      /* the size column */
} ln_row;

enum { LN_ADAM, LN_RML, LN_MLP, LN_COUNT };

static const ln_row ln_rows[LN_COUNT] = {
    [LN_ADAM] = {"adam", "GB/s", ADAM_N},
    [LN_RML] = {"rml-epoch", "epochs/s", RML_NPIX * RML_NPIX},
    [LN_MLP] = {"mlp-epoch", "samples/s", MLP_SAMPLES},
};

unsigned learn_mask(const char *only) {
  unsigned rows = only == NULL || strcmp(only, "learn") == 0 ? (1u << LN_COUNT) - 1 : 0;
  for (int r = 0; r < LN_COUNT && only != NULL; r++)
    if (strcmp(only, ln_rows[r].name) == 0)
      rows |= 1u << r;
  return rows;
}

/* ---- the child: one device, one row at a time -------------------------------------------- */

typedef struct ln_state {
  ag_device *dev;
  ag_queue *q;
  ag_dtype dtype;
  int row; /* -1: none set up */
  /* adam */
  ag_array *x, *g, *a, *c; /* the parameters, the gradient; a and c the copy's */
  ag_optimizer *opt;
  /* mlp-epoch: the data set on the host, the stream over it, the layers' parameters (w1, b1,
     w2, b2), their gradients and optimisers, the activations and their gradients, the loss */
  void *data_x, *data_y;
  ag_batch_stream *stream;
  ag_array *p[4], *dp[4];
  ag_optimizer *popt[4];
  ag_array *h, *logits, *dlogits, *dh, *loss;
  /* rml-epoch: the base cube (packed), the forward model's cubes and their gradients, the
     gridded data, Adam */
  ag_array *base, *img, *s1, *sky, *cube, *vis, *data, *weight, *mask;
  ag_array *gvis, *gcube, *gsky, *gs1, *gimg, *gbase;
} ln_state;

static void ln_release(ln_state *s) {
  ag_optimizer_destroy(s->opt);
  ag_array *arrays[] = {s->x,    s->g,   s->a,     s->c,   s->h,      s->logits, s->dlogits, s->dh,
                        s->loss, s->base, s->img,   s->s1,  s->sky,    s->cube,   s->vis,     s->data,
                        s->weight, s->mask, s->gvis, s->gcube, s->gsky, s->gs1,    s->gimg,    s->gbase};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
  for (int i = 0; i < 4; i++) {
    ag_optimizer_destroy(s->popt[i]);
    ag_array_free(s->p[i]);
    ag_array_free(s->dp[i]);
  }
  ag_batch_stream_destroy(s->stream);
  free(s->data_x);
  free(s->data_y);
  ag_queue *q = s->q;
  ag_device *dev = s->dev;
  ag_dtype t = s->dtype;
  *s = (ln_state){.dev = dev, .q = q, .dtype = t, .row = -1};
}

/* Deterministic values in [lo, hi): x0 and g of the adam row. */
static double ln_value(size_t i, unsigned salt, double lo, double hi) {
  uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + salt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) / 9007199254740992.0;
}

/* The host's array of @p n values ln_value(i, salt, lo, hi) in dtype @p t, as an array on the
   device. */
static ag_status ln_upload(ln_state *s, size_t n, unsigned salt, double lo, double hi, ag_array **out) {
  size_t es = s->dtype == AG_F64 ? sizeof(double) : sizeof(float);
  void *h = malloc(n * es);
  if (h == NULL)
    return AG_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < n; i++) {
    double v = ln_value(i, salt, lo, hi);
    if (s->dtype == AG_F64)
      ((double *)h)[i] = v;
    else
      ((float *)h)[i] = (float)v;
  }
  ag_status st = ag_array_from_host(s->dev, s->dtype, 1, &n, h, out);
  free(h);
  return st;
}

/* The first step, checked: every parameter against torch's first Adam step worked out on the
   host in double (m = 0.1 g, v = 0.001 g^2, x - lr m / (1 - 0.9) / (sqrt(v) / sqrt(1 - 0.999)
   + eps)), within 1e-6 relative in float32 and 1e-12 in float64. */
static int adam_check(ln_state *s) {
  size_t n = ADAM_N, es = s->dtype == AG_F64 ? sizeof(double) : sizeof(float);
  void *h = malloc(n * es);
  if (h == NULL)
    return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
  if (ag_array_to_host(s->x, h, n * es) != AG_OK) {
    free(h);
    return fail("reading the parameters back");
  }
  double tol = s->dtype == AG_F64 ? 1e-12 : 1e-6, bc2s = sqrt(1 - 0.999);
  size_t bad = 0, first = 0;
  double got0 = 0, want0 = 0;
  for (size_t i = 0; i < n; i++) {
    double x = ln_value(i, 1, -1, 1), g = ln_value(i, 2, -1, 1);
    if (s->dtype == AG_F32)
      x = (float)x, g = (float)g;
    double m = (1 - 0.9) * g, v = (1 - 0.999) * g * g;
    double want = x + -(ADAM_LR / (1 - 0.9)) * m / (sqrt(v) / bc2s + 1e-8);
    double got = s->dtype == AG_F64 ? ((double *)h)[i] : ((float *)h)[i];
    if (!(fabs(got - want) <= tol * fmax(1, fabs(want))) && bad++ == 0)
      first = i, got0 = got, want0 = want;
  }
  free(h);
  if (bad != 0)
    return fprintf(stderr, "anygpu-bench: adam: %zu of %zu parameters wrong after the first step; [%zu] is %.17g, "
                           "expected %.17g\n",
                   bad, n, first, got0, want0),
           1;
  return 0;
}

static ag_status adam_setup(ln_state *s) {
  size_t n = ADAM_N;
  ag_optim_options o;
  ag_status st;
  if ((st = ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &o)) != AG_OK)
    return st;
  o.lr = ADAM_LR;
  if ((st = ln_upload(s, n, 1, -1, 1, &s->x)) != AG_OK || (st = ln_upload(s, n, 2, -1, 1, &s->g)) != AG_OK ||
      (st = ag_array_create(s->dev, s->dtype, 1, &n, &s->a)) != AG_OK ||
      (st = ag_array_create(s->dev, s->dtype, 1, &n, &s->c)) != AG_OK || (st = ag_fill(s->q, s->a, 0.5)) != AG_OK ||
      (st = ag_optimizer_create(&o, s->x, &s->opt)) != AG_OK)
    return st;
  /* The checked step, then one of each timed call as a warm-up. */
  if ((st = ag_optimizer_step(s->q, s->opt, s->x, s->g)) != AG_OK || (st = ag_queue_finish(s->q)) != AG_OK)
    return st;
  return AG_OK;
}

/* ---- mlp-epoch ---- */

/* The loss the last epoch computed: its last batch's (mlp-epoch), of the parameters before the
   step (rml-epoch). */
static ag_status read_loss(ln_state *s, double *loss) {
  if (s->dtype == AG_F64)
    return ag_array_to_host(s->loss, loss, sizeof *loss);
  float f;
  ag_status st = ag_array_to_host(s->loss, &f, sizeof f);
  *loss = f;
  return st;
}


/* The data set: inputs uniform in [0, 1) (pixels), each sample's class the largest of 10 fixed
   random projections of it, one-hot, so the model has something to learn. */
static int mlp_data(ln_state *s) {
  size_t es = s->dtype == AG_F64 ? sizeof(double) : sizeof(float);
  double *proj = malloc((size_t)MLP_OUT * MLP_IN * sizeof *proj);
  s->data_x = malloc((size_t)MLP_SAMPLES * MLP_IN * es);
  s->data_y = calloc((size_t)MLP_SAMPLES * MLP_OUT, es);
  if (proj == NULL || s->data_x == NULL || s->data_y == NULL) {
    free(proj);
    return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
  }
  for (size_t i = 0; i < (size_t)MLP_OUT * MLP_IN; i++)
    proj[i] = ln_value(i, 7, -1, 1);
  for (size_t k = 0; k < MLP_SAMPLES; k++) {
    double best = -INFINITY;
    size_t cls = 0;
    for (size_t j = 0; j < MLP_IN; j++) {
      double v = ln_value(k * MLP_IN + j, 8, 0, 1);
      if (s->dtype == AG_F64)
        ((double *)s->data_x)[k * MLP_IN + j] = v;
      else
        ((float *)s->data_x)[k * MLP_IN + j] = (float)v;
    }
    for (size_t c = 0; c < MLP_OUT; c++) {
      double z = 0;
      for (size_t j = 0; j < MLP_IN; j++)
        z += proj[c * MLP_IN + j] * ln_value(k * MLP_IN + j, 8, 0, 1);
      if (z > best)
        best = z, cls = c;
    }
    if (s->dtype == AG_F64)
      ((double *)s->data_y)[k * MLP_OUT + cls] = 1;
    else
      ((float *)s->data_y)[k * MLP_OUT + cls] = 1;
  }
  free(proj);
  return 0;
}

static ag_status mlp_setup(ln_state *s) {
  ag_dtype t = s->dtype;
  const size_t shapes[4][2] = {{MLP_HIDDEN, MLP_IN}, {MLP_HIDDEN, 0}, {MLP_OUT, MLP_HIDDEN}, {MLP_OUT, 0}};
  ag_status st = AG_OK;
  for (int i = 0; i < 4 && st == AG_OK; i++) {
    int nd = shapes[i][1] ? 2 : 1;
    if ((st = ag_array_create(s->dev, t, nd, shapes[i], &s->p[i])) == AG_OK)
      st = ag_array_create(s->dev, t, nd, shapes[i], &s->dp[i]);
  }
  ag_optim_options o;
  if (st == AG_OK)
    st = ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &o);
  for (int i = 0; i < 4 && st == AG_OK; i++)
    st = ag_optimizer_create(&o, s->p[i], &s->popt[i]);
  size_t one = 1;
  if (st != AG_OK || (st = ag_glorot_uniform(s->q, s->p[0], 1)) != AG_OK ||
      (st = ag_glorot_uniform(s->q, s->p[2], 2)) != AG_OK || (st = ag_fill(s->q, s->p[1], 0)) != AG_OK ||
      (st = ag_fill(s->q, s->p[3], 0)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_HIDDEN}, &s->h)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_HIDDEN}, &s->dh)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_OUT}, &s->logits)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_OUT}, &s->dlogits)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 1, &one, &s->loss)) != AG_OK)
    return st;
  if (mlp_data(s) != 0)
    return AG_ERR_OUT_OF_MEMORY;
  return ag_batch_stream_create(s->dev, s->data_x, t, MLP_IN, s->data_y, t, MLP_OUT, MLP_SAMPLES, MLP_BATCH, 1,
                                &s->stream);
}

/* One epoch: for each batch, forward, loss and its gradient, backward, an Adam step of each of
   the four parameter arrays; all enqueued on the child's queue, which is finished at the end.
   The last batch's loss into *loss. */
static ag_status mlp_epoch(ln_state *s, double *loss) {
  ag_status st;
  for (;;) {
    ag_array *x, *y;
    size_t count;
    if ((st = ag_batch_stream_next(s->stream, s->q, &x, &y, &count)) != AG_OK)
      return st;
    if (count == 0)
      break;
    if (count != MLP_BATCH) /* MLP_SAMPLES is a multiple of the batch */
      return AG_ERR_MISMATCH;
    if ((st = ag_dense_forward(s->q, x, s->p[0], s->p[1], AG_ACT_RELU, s->h)) != AG_OK ||
        (st = ag_dense_forward(s->q, s->h, s->p[2], s->p[3], AG_ACT_IDENTITY, s->logits)) != AG_OK ||
        (st = ag_loss_logitcrossentropy(s->q, s->logits, y, 1.0, s->loss, s->dlogits, 0)) != AG_OK ||
        (st = ag_dense_backward(s->q, s->h, s->p[2], AG_ACT_IDENTITY, s->logits, s->dlogits, s->dh, s->dp[2],
                                s->dp[3])) != AG_OK ||
        (st = ag_dense_backward(s->q, x, s->p[0], AG_ACT_RELU, s->h, s->dh, NULL, s->dp[0], s->dp[1])) != AG_OK)
      return st;
    for (int i = 0; i < 4; i++)
      if ((st = ag_optimizer_step(s->q, s->popt[i], s->p[i], s->dp[i])) != AG_OK)
        return st;
  }
  if ((st = ag_queue_finish(s->q)) != AG_OK)
    return st;
  return read_loss(s, loss);
}

/* ---- rml-epoch ---- */

/* The gridded data, as examples/rml_imaging.c makes them: four Gaussian sources, their
   visibilities through the forward model, sampled at a seeded random set of cells denser near
   the origin, with Gaussian noise of 0.0005 Jy and weights 1 / sigma^2. Written into @p dir as
   data.npy (float64 [1][npix][npix][2]), weight.npy and mask.npy (uint8) for the peer. */
static ag_status rml_data(ln_state *s, const char *dir) {
  size_t n = RML_NPIX * RML_NPIX, shape[3] = {1, RML_NPIX, RML_NPIX};
  bool f32 = s->dtype == AG_F32;
  ag_dtype ct = f32 ? AG_C64 : AG_C128;
  double *sky = malloc(n * sizeof *sky), *vis = malloc(2 * n * sizeof *vis), *weight = malloc(n * sizeof *weight);
  unsigned char *mask = malloc(n);
  void *buf = malloc(2 * n * sizeof(double));
  ag_status st = AG_ERR_OUT_OF_MEMORY;
  if (sky == NULL || vis == NULL || weight == NULL || mask == NULL || buf == NULL)
    goto out;
  static const double src[4][4] = {{0.50, 0.50, 0.030, 40.0}, {0.38, 0.60, 0.020, 25.0}, {0.62, 0.35, 0.045, 12.0},
                                   {0.55, 0.66, 0.015, 30.0}};
  for (size_t r = 0; r < RML_NPIX; r++)
    for (size_t c = 0; c < RML_NPIX; c++) {
      double v = 0;
      for (int k = 0; k < 4; k++) {
        double dr = (double)r - src[k][0] * RML_NPIX, dc = (double)c - src[k][1] * RML_NPIX, w = src[k][2] * RML_NPIX;
        v += src[k][3] * exp(-(dr * dr + dc * dc) / (2 * w * w));
      }
      sky[r * RML_NPIX + c] = v;
    }
  for (size_t i = 0; i < n; i++) {
    if (f32)
      ((float *)buf)[i] = (float)sky[i];
    else
      ((double *)buf)[i] = sky[i];
  }
  if ((st = ag_array_from_host(s->dev, s->dtype, 3, shape, buf, &s->s1)) != AG_OK ||
      (st = ag_mpol_sky_to_packed(s->q, s->s1, s->cube)) != AG_OK ||
      (st = ag_mpol_fourier_cube(s->q, s->cube, RML_CELL, s->vis)) != AG_OK ||
      (st = ag_array_to_host(s->vis, buf, 2 * n * (f32 ? sizeof(float) : sizeof(double)))) != AG_OK)
    goto out;
  for (size_t i = 0; i < 2 * n; i++)
    vis[i] = f32 ? (double)((float *)buf)[i] : ((double *)buf)[i];
  const double sigma = 0.0005;
  for (size_t r = 0; r < RML_NPIX; r++)
    for (size_t c = 0; c < RML_NPIX; c++) {
      size_t i = r * RML_NPIX + c;
      double u = (double)(c <= RML_NPIX / 2 ? c : RML_NPIX - c), v = (double)(r <= RML_NPIX / 2 ? r : RML_NPIX - r);
      double q = sqrt(u * u + v * v) / (RML_NPIX / 2);
      mask[i] = q < 0.9 && ln_value(i, 11, 0, 1) < exp(-4 * q);
      weight[i] = 1 / (sigma * sigma);
      /* Gaussian noise from two uniforms (Box-Muller) */
      double u1 = 1 - ln_value(i, 12, 0, 1), u2 = ln_value(i, 13, 0, 1), u3 = ln_value(i, 14, 0, 1);
      vis[2 * i] += sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
      vis[2 * i + 1] += sigma * sqrt(-2 * log(u1)) * sin(2 * M_PI * u3);
    }
  char path[1100], err[512];
  size_t cshape[4] = {1, RML_NPIX, RML_NPIX, 2};
  snprintf(path, sizeof path, "%s/data.npy", dir);
  bool ok = npy_write(path, NPY_F8, 4, cshape, vis, err, sizeof err);
  snprintf(path, sizeof path, "%s/weight.npy", dir);
  ok = ok && npy_write(path, NPY_F8, 3, shape, weight, err, sizeof err);
  snprintf(path, sizeof path, "%s/mask.npy", dir);
  ok = ok && npy_write(path, NPY_U1, 3, shape, mask, err, sizeof err);
  if (!ok) {
    fprintf(stderr, "anygpu-bench: %s\n", err);
    st = AG_ERR_INVALID_ARGUMENT;
    goto out;
  }
  for (size_t i = 0; i < 2 * n; i++) {
    if (f32)
      ((float *)buf)[i] = (float)vis[i];
    else
      ((double *)buf)[i] = vis[i];
  }
  if ((st = ag_array_from_host(s->dev, ct, 3, shape, buf, &s->data)) != AG_OK ||
      (st = ag_array_from_host(s->dev, AG_U8, 3, shape, mask, &s->mask)) != AG_OK)
    goto out;
  for (size_t i = 0; i < n; i++) {
    if (f32)
      ((float *)buf)[i] = (float)weight[i];
    else
      ((double *)buf)[i] = weight[i];
  }
  st = ag_array_from_host(s->dev, s->dtype, 3, shape, buf, &s->weight);
out:
  free(sky), free(vis), free(weight), free(mask), free(buf);
  return st;
}

static ag_status rml_setup(ln_state *s, const char *dir) {
  size_t shape[3] = {1, RML_NPIX, RML_NPIX}, one = 1;
  ag_dtype ct = s->dtype == AG_F32 ? AG_C64 : AG_C128;
  ag_array **real[] = {&s->base, &s->img, &s->sky, &s->cube, &s->gcube, &s->gsky, &s->gs1, &s->gimg, &s->gbase};
  ag_status st = AG_OK;
  for (size_t k = 0; k < sizeof real / sizeof real[0] && st == AG_OK; k++)
    st = ag_array_create(s->dev, s->dtype, 3, shape, real[k]);
  if (st != AG_OK || (st = ag_array_create(s->dev, ct, 3, shape, &s->vis)) != AG_OK ||
      (st = ag_array_create(s->dev, ct, 3, shape, &s->gvis)) != AG_OK ||
      (st = ag_array_create(s->dev, s->dtype, 1, &one, &s->loss)) != AG_OK || (st = rml_data(s, dir)) != AG_OK ||
      (st = ag_fill(s->q, s->base, 0.05)) != AG_OK) /* BaseCube's default */
    return st;
  ag_optim_options o;
  if ((st = ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &o)) != AG_OK)
    return st;
  o.lr = RML_LR;
  return ag_optimizer_create(&o, s->base, &s->opt);
}

/* One epoch of examples/rml_imaging.c: softplus, the sky layout, the Hann convolution, the
   packed layout, the Fourier cube; nll_gridded + 1e-4 sparsity + 1e-4 TV_image on the sky
   cube, their gradient back through each map's adjoint; Adam's step. Enqueued on the child's
   queue. */
static ag_status rml_epoch(ln_state *s) {
  ag_status st;
  ag_queue *q = s->q;
  if ((st = ag_activate(q, AG_ACT_SOFTPLUS, s->base, s->img)) != AG_OK ||
      (st = ag_mpol_packed_to_sky(q, s->img, s->s1)) != AG_OK || (st = ag_mpol_hann_conv(q, s->s1, s->sky)) != AG_OK ||
      (st = ag_mpol_sky_to_packed(q, s->sky, s->cube)) != AG_OK ||
      (st = ag_mpol_fourier_cube(q, s->cube, RML_CELL, s->vis)) != AG_OK ||
      (st = ag_loss_nll_gridded(q, s->vis, s->data, s->weight, s->mask, 1.0, s->loss, s->gvis, 0)) != AG_OK ||
      (st = ag_mpol_fourier_cube_adjoint(q, s->gvis, RML_CELL, s->gcube)) != AG_OK ||
      (st = ag_mpol_packed_to_sky(q, s->gcube, s->gsky)) != AG_OK ||
      (st = ag_loss_sparsity(q, s->sky, RML_LAMBDA, s->loss, s->gsky, AG_LOSS_ACCUMULATE)) != AG_OK ||
      (st = ag_loss_tv_image(q, s->sky, 1e-10, RML_LAMBDA, s->loss, s->gsky, AG_LOSS_ACCUMULATE)) != AG_OK ||
      (st = ag_mpol_hann_conv(q, s->gsky, s->gs1)) != AG_OK ||
      (st = ag_mpol_sky_to_packed(q, s->gs1, s->gimg)) != AG_OK ||
      (st = ag_activate_grad(q, AG_ACT_SOFTPLUS, s->img, s->gimg, s->gbase)) != AG_OK)
    return st;
  return ag_optimizer_step(q, s->opt, s->base, s->gbase);
}

/* ---- adam ---- */

enum { CALL_ADAM, CALL_COPY, CALL_BUFFER_COPY };

static ag_status adam_call(void *ctx, int which) {
  ln_state *s = ctx;
  switch (which) {
  case CALL_ADAM:
    return ag_optimizer_step(s->q, s->opt, s->x, s->g);
  case CALL_COPY:
    return ag_copy(s->q, s->a, s->c);
  default: {
    size_t off_a = 0, off_c = 0;
    ag_buffer *ba = ag_array_buffer(s->a, &off_a), *bc = ag_array_buffer(s->c, &off_c);
    return ag_buffer_copy(s->q, bc, off_c, ba, off_a, ag_array_nbytes(s->a));
  }
  }
}

/* "setup ROW": the row's data and a checked first call; "ready MS" (the setup's wall time) or
   "skip REASON". Returns nonzero when the child must end. */
static int ln_setup(ln_state *s, const char *line) {
  char name[32], dir[1024] = "";
  int row = -1;
  if (sscanf(line, "setup %31s %1023s", name, dir) >= 1)
    for (int r = 0; r < LN_COUNT; r++)
      if (strcmp(name, ln_rows[r].name) == 0)
        row = r;
  if (row < 0)
    return fprintf(stderr, "anygpu-bench: the learning child was asked \"%s\"\n", line), 1;
  double t0 = now_ms();
  ag_status st = AG_ERR_INVALID_ARGUMENT;
  s->row = row;
  double loss0 = NAN, loss1 = NAN;
  if (row == LN_ADAM)
    st = adam_setup(s);
  else if (row == LN_MLP && (st = mlp_setup(s)) == AG_OK && (st = mlp_epoch(s, &loss0)) == AG_OK)
    st = mlp_epoch(s, &loss1);
  else if (row == LN_RML && (st = rml_setup(s, dir)) == AG_OK && (st = rml_epoch(s)) == AG_OK &&
           (st = read_loss(s, &loss0)) == AG_OK && (st = rml_epoch(s)) == AG_OK)
    st = read_loss(s, &loss1);
  if (st == AG_ERR_UNSUPPORTED) {
    printf("skip %s\n", ag_last_error());
    ln_release(s);
    return 0;
  }
  if (st != AG_OK)
    return fail(name);
  if (row == LN_ADAM && adam_check(s) != 0)
    return 1;
  /* Two epochs of training must have lowered the loss from log(10), a guess's, and kept it
     finite. */
  if (row == LN_MLP && !(loss1 < 0.9 * log(10.0)))
    return fprintf(stderr, "anygpu-bench: mlp-epoch: the loss after two epochs is %g (after one %g); it should "
                           "fall below 0.9 log(10)\n", loss1, loss0), 1;
  /* The second epoch's loss is below the first's (the peer's first is compared with ours by
     the parent). */
  if (row == LN_RML && !(loss1 < loss0))
    return fprintf(stderr, "anygpu-bench: rml-epoch: the loss went from %g to %g in the first step\n", loss0, loss1),
           1;
  double ms;
  for (int k = CALL_ADAM; row == LN_ADAM && k <= CALL_BUFFER_COPY; k++)
    if (event_time(s->q, adam_call, s, k, &ms) != AG_OK)
      return fail(name);
  if (row == LN_RML)
    printf("ready %.6f %.17g\n", now_ms() - t0, loss0);
  else
    printf("ready %.6f\n", now_ms() - t0);
  return 0;
}

/* "round": the row's timed calls, "time MS..." (adam: the step, ag_copy and ag_buffer_copy of
   as many elements, each timed with events on an idle queue; mlp-epoch: an epoch, wall clock
   from an idle queue to an idle queue, as the host loop reads the stream between batches). */
static int ln_round(ln_state *s) {
  double ms[3];
  if (s->row == LN_RML) {
    double t0 = now_ms();
    ag_status st = AG_OK;
    for (int e = 0; e < RML_EPOCHS && st == AG_OK; e++)
      st = rml_epoch(s);
    if (st != AG_OK || ag_queue_finish(s->q) != AG_OK)
      return fail("rml-epoch");
    printf("time %.6f\n", now_ms() - t0);
    return 0;
  }
  if (s->row == LN_MLP) {
    double loss, t0 = now_ms();
    if (mlp_epoch(s, &loss) != AG_OK)
      return fail("mlp-epoch");
    printf("time %.6f\n", now_ms() - t0);
    return 0;
  }
  for (int k = CALL_ADAM; k <= CALL_BUFFER_COPY; k++)
    if (event_time(s->q, adam_call, s, k, &ms[k]) != AG_OK)
      return fail(ln_rows[s->row].name);
  printf("time %.6f %.6f %.6f\n", ms[0], ms[1], ms[2]);
  return 0;
}

int learn_child(const char *spec, const char *dtype_name) {
  ln_state s = {.row = -1};
  if (ag_device_select(spec, &s.dev) != AG_OK || ag_queue_create(s.dev, &s.q) != AG_OK)
    return fail("opening the device");
  ag_device_info info;
  ag_device_get_info(s.dev, &info);
  /* float64 unless asked for float32, or the device has no float64. */
  s.dtype = strcmp(dtype_name, "f32") == 0 || !info.fp64 ? AG_F32 : AG_F64;
  printf("device %s\t%s\t%s\n", info.platform, info.name, s.dtype == AG_F64 ? "f64" : "f32");
  fflush(stdout);
  char line[256];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "setup ", 6) == 0)
      rc = ln_setup(&s, line);
    else if (strcmp(line, "round") == 0 && s.row >= 0)
      rc = ln_round(&s);
    else {
      ln_release(&s);
      printf("ok\n");
    }
    fflush(stdout);
  }
  ln_release(&s);
  ag_queue_destroy(s.q);
  return rc;
}

/* ---- the parent's side ------------------------------------------------------------------- */

/* What a row measured: the best times in ms (infinite for none): the call, the copy and the
   buffer copy (adam), the peer's call; the rounds. */
typedef struct ln_figures {
  double best, copy, bcopy, peer_best;
  int rounds;
  double loss_diff; /* rml-epoch: the first losses' relative difference, NaN for none */
} ln_figures;

static void ln_print(const device_entry *d, const ln_row *row, const char *dtype, bool csv, const char *peer,
                     ln_figures f) {
  double es = strcmp(dtype, "f64") == 0 ? 8 : 4;
  /* What one call does: bytes moved (adam, GB/s) or samples trained (mlp-epoch, per second). */
  bool adam = row == &ln_rows[LN_ADAM];
  double work = adam ? ADAM_ARRAYS * es * (double)ADAM_N * 1e-6
                     : row == &ln_rows[LN_RML] ? RML_EPOCHS * 1e3 : (double)row->size * 1e3;
  double value = 0, peer_value = 0, pct = NAN;
  if (isfinite(f.best))
    value = work / f.best;
  if (isfinite(f.peer_best))
    peer_value = work / f.peer_best;
  double limit_ms = adam ? fmin(f.copy, f.bcopy) : INFINITY;
  if (value > 0 && isfinite(limit_ms))
    pct = 100.0 * value / (2 * es * (double)ADAM_N / (limit_ms * 1e6));
  char v[32] = "-", p[32] = "", pv[32] = "", ratio[32] = "", nr[16] = "";
  if (value > 0)
    snprintf(v, sizeof v, csv ? "%.3f" : adam ? "%.2f" : "%.0f", value);
  if (isfinite(pct))
    snprintf(p, sizeof p, csv ? "%.1f" : "%.1f%%", pct);
  if (peer[0])
    snprintf(pv, sizeof pv, "-");
  if (peer_value > 0) {
    snprintf(pv, sizeof pv, csv ? "%.3f" : adam ? "%.2f" : "%.0f", peer_value);
    if (value > 0)
      snprintf(ratio, sizeof ratio, csv ? "%.3f" : "%.2fx", value / peer_value);
  }
  if (f.rounds > 0)
    snprintf(nr, sizeof nr, "%d", f.rounds);
  if (csv)
    printf("%s,%s,%s,%zu,%s,%s,%s,%s,%s,%s\n", d->spec, row->name, dtype, row->size, v, row->unit, p,
           peer_value > 0 ? peer : "", peer_value > 0 ? pv : "", ratio);
  else
    printf("  %-12s %10s %-10s %9s %-6s %10s %8s %6s\n", row->name, v, row->unit, p, peer, pv, ratio, nr);
  if (!csv && isfinite(f.loss_diff))
    printf("  %-12s the first epoch's loss is torch's within %.1e, relative\n", "", f.loss_diff);
  /* The limit itself, a row of its own, so that the percentage can be checked. */
  if (isfinite(limit_ms)) {
    double limit = 2 * es * (double)ADAM_N / (limit_ms * 1e6);
    if (csv)
      printf("%s,copy-limit,%s,%zu,%.3f,GB/s,100.0,,,\n", d->spec, dtype, row->size, limit);
    else
      printf("  %-12s %10.2f %-10s %9s\n", "copy-limit", limit, "GB/s", "100.0%");
  }
  fflush(stdout);
}

/* Asks @p c for a round: its first @p count times into @p ms. -1 when the answer is not that. */
static int ln_ask_round(coproc *c, double *ms, int count) {
  char line[256];
  if (coproc_ask(c, "round", line, sizeof line) == NULL)
    return -1;
  int got = sscanf(line, "time %lf %lf %lf", &ms[0], &ms[1], &ms[2]);
  return got >= count && ms[0] > 0 ? 0 : -1;
}

/* Runs @p row on both sides, rounds alternating (each side first in turn). Returns 0 with *f
   filled (a side that cannot run leaves its figures empty, said on stderr), 1 when the child
   failed. *peer_on goes false when the peer fails. */
static int ln_run_row(coproc *child, coproc *py, bool *peer_on, const device_entry *d, const ln_row *row,
                      const char *dir, double tol, ln_figures *f) {
  char cmd[1100], line[1024];
  double ms[3], loss = NAN, peer_loss = NAN;
  *f = (ln_figures){INFINITY, INFINITY, INFINITY, INFINITY, 0, NAN};
  snprintf(cmd, sizeof cmd, "setup %s %s", row->name, dir);
  if (coproc_ask(child, cmd, line, sizeof line) == NULL)
    return 1;
  if (strncmp(line, "skip ", 5) == 0) {
    fprintf(stderr, "anygpu-bench: %s on %s: %s\n", row->name, d->spec, line + 5);
    return 0;
  }
  sscanf(line, "ready %lf %lf", &ms[0], &loss);
  bool peer = *peer_on;
  if (peer && (coproc_ask(py, cmd, line, sizeof line) == NULL || strncmp(line, "ready ", 6) != 0)) {
    fprintf(stderr, "anygpu-bench: %s on %s, the torch peer: %s\n", row->name, d->spec, line);
    peer = false;
    if (strncmp(line, "skip ", 5) != 0)
      *peer_on = false;
  }
  /* rml-epoch: both sides' first loss, of the same data and start, must agree. */
  if (peer && sscanf(line, "ready %lf %lf", &ms[0], &peer_loss) == 2 && isfinite(loss)) {
    f->loss_diff = fabs(loss - peer_loss) / fabs(peer_loss);
    if (!(f->loss_diff <= tol))
      return fprintf(stderr, "anygpu-bench: %s on %s: the first epoch's loss is %.17g, torch's %.17g: %.2g apart, "
                             "relative, beyond %g\n",
                     row->name, d->spec, loss, peer_loss, f->loss_diff, tol),
             1;
  }
  double spent = 0;
  while (f->rounds < LN_MAX_ROUNDS && (f->rounds < LN_MIN_ROUNDS || spent < LN_TIME_CAP_MS)) {
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == (f->rounds % 2 == 0)) {
        bool adam = row == &ln_rows[LN_ADAM];
        if (ln_ask_round(child, ms, adam ? 3 : 1) != 0)
          return 1;
        f->best = fmin(f->best, ms[0]), spent += ms[0];
        if (adam)
          f->copy = fmin(f->copy, ms[1]), f->bcopy = fmin(f->bcopy, ms[2]), spent += ms[1] + ms[2];
      } else if (peer) {
        if (ln_ask_round(py, ms, 1) != 0)
          peer = *peer_on = false;
        else
          f->peer_best = fmin(f->peer_best, ms[0]), spent += ms[0];
      }
    }
    f->rounds++;
  }
  if (coproc_ask(child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0)
    return 1;
  if (peer && (coproc_ask(py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
    *peer_on = false;
  return 0;
}

int learn_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--learn-child", (char *)d->spec, (char *)dtype_short(f32), NULL};
  char line[1024], platform[256], name[256], dtype[8], py_name[16] = "torch", dir[32] = "";
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      sscanf(line, "device %255[^\t]\t%255[^\t]\t%7s", platform, name, dtype) != 3) {
    fprintf(stderr, "anygpu-bench: the learning rows failed on %s (exit status %d)\n", d->spec, coproc_end(&child));
    return 1;
  }
  /* torch on the CPU whatever the device, in the child's dtype. */
  const char *args[3] = {strcmp(dtype, "f64") == 0 ? "float64" : "float32", NULL, NULL};
  bool py_on = peer_start_torch("peer_learn", args, &py, py_name, sizeof py_name) == 0;
  /* Where the child writes rml-epoch's data for the peer. */
  if (peer_folder_make(dir) != 0) {
    coproc_end(&child);
    if (py_on)
      coproc_end(&py);
    return 1;
  }
  double tol = strcmp(dtype, "f64") == 0 ? LN_TOL_F64 : LN_TOL_F32;
  if (!csv) {
    tot->any_learn = true;
    printf("\n%s: %s (%s); learning, %s (the peer the same, on the CPU)\n", d->spec, d->name, d->type,
           strcmp(dtype, "f64") == 0 ? "float64" : "float32");
    printf("  %-12s %10s %-10s %9s %-6s %10s %8s %6s\n", "row", "value", "unit", "% of limit", "peer", "peer value",
           "ratio", "rounds");
  }
  int rc = 0;
  for (int r = 0; r < LN_COUNT && rc == 0; r++) {
    if (!(rows & (1u << r)))
      continue;
    ln_figures f;
    bool had_peer = py_on;
    rc = ln_run_row(&child, &py, &py_on, d, &ln_rows[r], dir, tol, &f);
    if (had_peer && !py_on)
      fprintf(stderr, "anygpu-bench: the torch peer failed in %s (exit status %d)\n", ln_rows[r].name,
              coproc_end(&py));
    ln_print(d, &ln_rows[r], dtype, csv, py_name, f);
  }
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the learning rows failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (py_on)
    coproc_end(&py);
  static const char *const files[] = {"data.npy", "weight.npy", "mask.npy"};
  peer_folder_remove(dir, files, 3);
  return rc;
}

void learn_footer(const totals *tot) {
  if (tot->any_learn)
    printf("\nadam: one step of torch.optim.Adam's rule (ag_optimizer_step, AG_OPTIM_ADAM_TORCH, lr %g, the\n"
           "  other options torch's defaults) over %zu parameters; GB/s counts %d arrays moved (read\n"
           "  x, g, m, v; write x, m, v; GB = 1e9 bytes) over the best time in at most %d rounds (at\n"
           "  least %d; fewer once %.0f s are spent), each timed with events on an idle queue; the first\n"
           "  step is checked against the host. %% of limit: of the device's copy bandwidth measured in the\n"
           "  same child and rounds, the better of ag_copy and ag_buffer_copy of %zu elements (2 arrays\n"
           "  moved).\n"
           "mlp-epoch: one epoch of %d samples (784 inputs uniform in [0, 1), 10 classes set by fixed\n"
           "  random projections) through Dense(784, 256, relu), Dense(256, 10), logit cross-entropy and\n"
           "  torch's Adam (lr 1e-3) on each of the 4 parameter arrays, in batches of %d from\n"
           "  ag_batch_stream (shuffled, the next batch copied while the device computes); samples/s over\n"
           "  the best epoch, wall clock from an idle queue to an idle queue. Two epochs go first, which\n"
           "  must bring the loss below 0.9 log(10).\n"
           "rml-epoch: MPoL v0.2's RML loop (examples/rml_imaging.c) on a 256 x 256 channel: softplus\n"
           "  of the packed base cube, the sky layout, HannConvCube, the packed layout, FourierCube\n"
           "  (cell 0.005 arcsec), nll_gridded + 1e-4 sparsity + 1e-4 TV_image, the gradient back\n"
           "  through each map's adjoint, torch's Adam (lr 0.5); epochs/s over the best round of %d\n"
           "  epochs, wall clock from an idle queue to an idle queue. The child makes the gridded data\n"
           "  (rml_imaging's four sources, sampled cells and noise) and writes them for the peer; both\n"
           "  sides' first losses must agree (within %g in float64, %g in float32).\n"
           "peer: torch (PyTorch) on the CPU whatever the device, in the same dtype, with torch's own\n"
           "  thread count (docs/performance.md, Learning, says what it was): adam\n"
           "  torch.optim.Adam's step() on as many parameters, its default (single-tensor) path;\n"
           "  rml-epoch MPoL's SimpleNet as tests/torch_mpol.py transcribes it, with autograd;\n"
           "  mlp-epoch nn.Linear, ReLU, nn.Linear, F.cross_entropy, backward() and Adam's step() on\n"
           "  batches gathered from a random permutation each epoch; timed with time.perf_counter, in\n"
           "  rounds that alternate with anygpu's.\n",
           ADAM_LR, ADAM_N, ADAM_ARRAYS, LN_MAX_ROUNDS, LN_MIN_ROUNDS, LN_TIME_CAP_MS * 1e-3, ADAM_N, MLP_SAMPLES,
           MLP_BATCH, RML_EPOCHS, LN_TOL_F64, LN_TOL_F32);
}
