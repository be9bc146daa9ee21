/* examples/rml_imaging.c - regularised maximum likelihood imaging as MPoL's tutorials do it
   (MPoL v0.2.0, docs/ci-tutorials/gpu_setup.rst), on any device. The MPoL original:

       model = SimpleNet(coords=coords, nchan=dataset.nchan)
       optimizer = torch.optim.Adam(model.parameters(), lr=0.5)
       for i in range(600):
           model.zero_grad()
           vis = model()                    # softplus(base) -> HannConvCube -> FourierCube
           sky_cube = model.icube.sky_cube
           loss = (losses.nll_gridded(vis, dset) + 1e-4 * losses.sparsity(sky_cube)
                   + 1e-4 * losses.TV_image(sky_cube))
           loss.backward()
           optimizer.step()

   The data are made here: a sky of a few Gaussian sources, its visibilities on the 256 x 256
   grid (cell 0.005 arcsec) sampled at a seeded random set of cells, denser near the origin as
   an interferometer's uv coverage is, with Gaussian noise and its weights 1 / sigma^2. Each
   backward step is the adjoint of its forward step, written out (docs/learn.md).

   Double precision where the device has it, else single. Pick the device with ANYGPU_DEVICE
   (host, opencl:pocl, cuda:0, ...). Prints the loss every 100 epochs, writes the final sky
   image (MPoL's ImageCube.sky_cube, [1][npix][npix], north up, east left) as .npy, and exits 0
   when the loss fell tenfold and the image correlates with the true sky (r > 0.9).

       rml_imaging [--npix N] [--epochs E] [--out FILE.npy] [--save DIR] [--f32]

   --save DIR writes what the PyTorch transcription in tests/torch_mpol.py needs to run the
   same loop (data, weight, mask, params) and every epoch's loss (losses.npy). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anygpu.h>

#define TRY(call)                                                                                \
  do {                                                                                           \
    if ((call) != AG_OK) {                                                                       \
      fprintf(stderr, "rml_imaging: %s\n", ag_last_error());                                     \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

static const double cell = 0.005;          /* arcsec: the pixel's side */
static const double lambda_sparsity = 1e-4; /* the tutorial's config */
static const double lambda_tv = 1e-4;
static const double lr = 0.5;

/* ---- data ------------------------------------------------------------------------------------ */

static double uniform(uint64_t *s) { /* [0, 1), a 64-bit LCG */
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) * 0x1p-53;
}

static double randn(uint64_t *s) { /* Box-Muller */
  double u1 = 1 - uniform(s), u2 = uniform(s);
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The true sky [npix][npix] in Jy / arcsec^2: four Gaussian sources placed in fractions of the
   field, so that every npix shows the same scene. */
static void true_sky(size_t npix, double *sky) {
  static const double src[][4] = {/* row, column (fractions of npix), sigma (of npix), peak */
                                  {0.50, 0.50, 0.030, 40.0},
                                  {0.38, 0.60, 0.020, 25.0},
                                  {0.62, 0.35, 0.045, 12.0},
                                  {0.55, 0.66, 0.015, 30.0}};
  for (size_t r = 0; r < npix; r++)
    for (size_t c = 0; c < npix; c++) {
      double v = 0;
      for (size_t k = 0; k < sizeof src / sizeof src[0]; k++) {
        double dr = (double)r - src[k][0] * (double)npix, dc = (double)c - src[k][1] * (double)npix;
        double s = src[k][2] * (double)npix;
        v += src[k][3] * exp(-(dr * dr + dc * dc) / (2 * s * s));
      }
      sky[r * npix + c] = v;
    }
}

/* ---- .npy output ------------------------------------------------------------------------------ */

/* Writes @p n doubles of @p shape as numpy's .npy version 1.0 ('<f8', little-endian hosts). */
static int write_npy(const char *path, const double *data, size_t n, int ndim, const size_t *shape) {
  char dims[128] = "", header[256];
  size_t at = 0;
  for (int k = 0; k < ndim; k++)
    at += (size_t)snprintf(dims + at, sizeof dims - at, "%zu%s", shape[k], ndim == 1 || k + 1 < ndim ? ", " : "");
  int len = snprintf(header, sizeof header, "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }", dims);
  size_t total = 10 + (size_t)len + 1, pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return -1;
  unsigned short hl = (unsigned short)(len + pad + 1);
  fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  fwrite(&hl, 2, 1, f);
  fwrite(header, 1, (size_t)len, f);
  for (size_t k = 0; k < pad; k++)
    fputc(' ', f);
  fputc('\n', f);
  fwrite(data, sizeof *data, n, f);
  return fclose(f) == 0 ? 0 : -1;
}

/* ---- the model ------------------------------------------------------------------------------- */

typedef struct rml {
  ag_queue *q; /* NULL: the default queue */
  ag_array *base;                    /* the parameters, packed */
  ag_array *img, *s1, *sky, *cube;   /* softplus(base), its sky layout, Hann'd, packed again */
  ag_array *vis, *data, *weight, *mask;
  ag_array *loss;
  ag_array *gvis, *gcube, *gsky, *gs1, *gimg, *gbase;
  ag_optimizer *adam;
} rml;

/* One epoch: the forward model, the loss and its gradient, the backward pass and Adam's step,
   all enqueued on r->q. The loss of this epoch's parameters is in r->loss afterwards. */
static ag_status epoch(rml *r) {
  ag_status st;
  ag_queue *q = r->q;
  /* forward: BaseCube, HannConvCube (on the sky layout), FourierCube */
  if ((st = ag_activate(q, AG_ACT_SOFTPLUS, r->base, r->img)) != AG_OK ||
      (st = ag_mpol_packed_to_sky(q, r->img, r->s1)) != AG_OK || (st = ag_mpol_hann_conv(q, r->s1, r->sky)) != AG_OK ||
      (st = ag_mpol_sky_to_packed(q, r->sky, r->cube)) != AG_OK ||
      (st = ag_mpol_fourier_cube(q, r->cube, cell, r->vis)) != AG_OK)
    return st;
  /* the loss; the likelihood's gradient reaches the sky through the Fourier cube's adjoint and
     the inverse layout, and the regularisers' gradients add to it there */
  if ((st = ag_loss_nll_gridded(q, r->vis, r->data, r->weight, r->mask, 1.0, r->loss, r->gvis, 0)) != AG_OK ||
      (st = ag_mpol_fourier_cube_adjoint(q, r->gvis, cell, r->gcube)) != AG_OK ||
      (st = ag_mpol_packed_to_sky(q, r->gcube, r->gsky)) != AG_OK ||
      (st = ag_loss_sparsity(q, r->sky, lambda_sparsity, r->loss, r->gsky, AG_LOSS_ACCUMULATE)) != AG_OK ||
      (st = ag_loss_tv_image(q, r->sky, 1e-10, lambda_tv, r->loss, r->gsky, AG_LOSS_ACCUMULATE)) != AG_OK)
    return st;
  /* backward through the Hann convolution (its own adjoint), the layout and softplus; step */
  if ((st = ag_mpol_hann_conv(q, r->gsky, r->gs1)) != AG_OK || (st = ag_mpol_sky_to_packed(q, r->gs1, r->gimg)) != AG_OK ||
      (st = ag_activate_grad(q, AG_ACT_SOFTPLUS, r->img, r->gimg, r->gbase)) != AG_OK)
    return st;
  return ag_optimizer_step(q, r->adam, r->base, r->gbase);
}

/* @p m values of @p a (f32 or c64 with @p f32, else f64 or c128) as doubles into @p out. */
static void read_doubles(const ag_array *a, bool f32, double *out, size_t m) {
  if (!f32) {
    TRY(ag_array_to_host(a, out, m * sizeof *out));
    return;
  }
  float *f = malloc(m * sizeof *f);
  TRY(ag_array_to_host(a, f, m * sizeof *f));
  for (size_t i = 0; i < m; i++)
    out[i] = f[i];
  free(f);
}

static double read_scalar(const ag_array *a, bool f32) {
  double d;
  read_doubles(a, f32, &d, 1);
  return d;
}

/* An array of @p t and @p shape from doubles (interleaved parts for complex). */
static ag_array *upload(ag_device *dev, ag_dtype t, const size_t *shape, const double *v, size_t n) {
  bool single = t == AG_F32 || t == AG_C64;
  void *buf = malloc(n * 8);
  for (size_t i = 0; i < n; i++) {
    if (t == AG_U8)
      ((unsigned char *)buf)[i] = (unsigned char)v[i];
    else if (single)
      ((float *)buf)[i] = (float)v[i];
    else
      ((double *)buf)[i] = v[i];
  }
  ag_array *a;
  TRY(ag_array_from_host(dev, t, 3, shape, buf, &a));
  free(buf);
  return a;
}

int main(int argc, char **argv) {
  size_t npix = 256;
  long epochs = 600;
  const char *out = "rml_sky.npy", *save = NULL;
  bool force_f32 = false;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--npix") == 0 && k + 1 < argc)
      npix = (size_t)strtoul(argv[++k], NULL, 10);
    else if (strcmp(argv[k], "--epochs") == 0 && k + 1 < argc)
      epochs = strtol(argv[++k], NULL, 10);
    else if (strcmp(argv[k], "--out") == 0 && k + 1 < argc)
      out = argv[++k];
    else if (strcmp(argv[k], "--save") == 0 && k + 1 < argc)
      save = argv[++k];
    else if (strcmp(argv[k], "--f32") == 0)
      force_f32 = true;
    else {
      fprintf(stderr, "usage: rml_imaging [--npix N] [--epochs E] [--out FILE.npy] [--save DIR] [--f32]\n");
      return 2;
    }
  }
  /* MPoL's sky and packed layouts are each other's inverse for even sides only */
  if (npix < 8 || npix % 2 != 0 || epochs < 1) {
    fprintf(stderr, "rml_imaging: npix must be even and 8 or more, epochs 1 or more\n");
    return 2;
  }

  ag_device *dev;
  ag_device_info info;
  TRY(ag_device_select(NULL, &dev));
  TRY(ag_device_get_info(dev, &info));
  bool f32 = force_f32 || !info.fp64;
  ag_dtype rt = f32 ? AG_F32 : AG_F64, ct = f32 ? AG_C64 : AG_C128;
  printf("rml_imaging: %s (%s), %s, npix %zu, %ld epochs\n", info.name, info.spec, ag_dtype_name(rt), npix, epochs);

  /* the data: the true sky's visibilities through the same forward model, sampled and noisy */
  size_t n = npix * npix, shape[3] = {1, npix, npix};
  double *sky = malloc(n * sizeof *sky), *vis = malloc(2 * n * sizeof *vis);
  double *weight = malloc(n * sizeof *weight), *mask = malloc(n * sizeof *mask);
  true_sky(npix, sky);
  {
    ag_array *s = upload(dev, rt, shape, sky, n), *p, *v;
    TRY(ag_array_create(dev, rt, 3, shape, &p));
    TRY(ag_array_create(dev, ct, 3, shape, &v));
    TRY(ag_mpol_sky_to_packed(NULL, s, p));
    TRY(ag_mpol_fourier_cube(NULL, p, cell, v));
    read_doubles(v, f32, vis, 2 * n);
    ag_array_free(s), ag_array_free(p), ag_array_free(v);
  }
  uint64_t seed = 20231110;
  const double sigma = 0.0005; /* Jy, per part */
  size_t sampled = 0;
  for (size_t r = 0; r < npix; r++)
    for (size_t c = 0; c < npix; c++) {
      /* the packed grid's frequencies, the origin at [0][0] */
      double u = (double)(c <= npix / 2 ? c : npix - c), v = (double)(r <= npix / 2 ? r : npix - r);
      double q = sqrt(u * u + v * v) / (double)(npix / 2);
      bool on = q < 0.9 && uniform(&seed) < exp(-4 * q);
      size_t i = r * npix + c;
      mask[i] = on;
      weight[i] = 1 / (sigma * sigma);
      vis[2 * i] += sigma * randn(&seed), vis[2 * i + 1] += sigma * randn(&seed);
      sampled += on;
    }
  printf("rml_imaging: %zu of %zu cells sampled\n", sampled, n);

  rml r = {0};
  r.data = upload(dev, ct, shape, vis, 2 * n);
  r.weight = upload(dev, rt, shape, weight, n);
  r.mask = upload(dev, AG_U8, shape, mask, n);
  ag_array **real_cubes[] = {&r.base, &r.img, &r.s1, &r.sky, &r.cube, &r.gcube, &r.gsky, &r.gs1, &r.gimg, &r.gbase};
  for (size_t k = 0; k < sizeof real_cubes / sizeof real_cubes[0]; k++)
    TRY(ag_array_create(dev, rt, 3, shape, real_cubes[k]));
  TRY(ag_array_create(dev, ct, 3, shape, &r.vis));
  TRY(ag_array_create(dev, ct, 3, shape, &r.gvis));
  TRY(ag_array_create(dev, rt, 1, (size_t[]){1}, &r.loss));
  TRY(ag_fill(NULL, r.base, 0.05)); /* BaseCube's default */
  ag_optim_options opt;
  TRY(ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &opt));
  opt.lr = lr;
  TRY(ag_optimizer_create(&opt, r.base, &r.adam));

  double *history = save ? malloc((size_t)epochs * sizeof *history) : NULL;
  double first = 0, last = 0;
  for (long e = 0; e < epochs; e++) {
    TRY(epoch(&r));
    bool report = e == 0 || (e + 1) % 100 == 0 || e + 1 == epochs;
    if (history || report) {
      last = read_scalar(r.loss, f32);
      if (e == 0)
        first = last;
      if (history)
        history[e] = last;
      if (report)
        printf("epoch %4ld  loss %.6e\n", e + 1, last);
    }
  }

  /* the image: the last step's sky (ImageCube.sky_cube of the final parameters) */
  TRY(ag_activate(NULL, AG_ACT_SOFTPLUS, r.base, r.img));
  TRY(ag_mpol_packed_to_sky(NULL, r.img, r.s1));
  TRY(ag_mpol_hann_conv(NULL, r.s1, r.sky));
  double *img = malloc(n * sizeof *img);
  read_doubles(r.sky, f32, img, n);
  int rc = write_npy(out, img, n, 3, shape);
  if (rc != 0)
    fprintf(stderr, "rml_imaging: cannot write %s\n", out);
  else
    printf("rml_imaging: wrote %s\n", out);
  double mi = 0, mt = 0, sit = 0, sii = 0, stt = 0;
  for (size_t i = 0; i < n; i++)
    mi += img[i] / (double)n, mt += sky[i] / (double)n;
  for (size_t i = 0; i < n; i++)
    sit += (img[i] - mi) * (sky[i] - mt), sii += (img[i] - mi) * (img[i] - mi), stt += (sky[i] - mt) * (sky[i] - mt);
  double corr = sit / sqrt(sii * stt);
  printf("rml_imaging: loss %.6e -> %.6e, correlation with the true sky %.4f\n", first, last, corr);

  if (save != NULL && rc == 0) {
    char path[1024];
    double params[5] = {cell, lambda_sparsity, lambda_tv, lr, (double)epochs};
    const char *names[] = {"data", "weight", "mask", "params", "losses"};
    const double *arrays[] = {vis, weight, mask, params, history};
    size_t cshape[4] = {1, npix, npix, 2}, one[1] = {5}, eps_shape[1] = {(size_t)epochs};
    for (int k = 0; k < 5 && rc == 0; k++) {
      snprintf(path, sizeof path, "%s/%s.npy", save, names[k]);
      if (k == 0)
        rc = write_npy(path, arrays[k], 2 * n, 4, cshape);
      else if (k < 3)
        rc = write_npy(path, arrays[k], n, 3, shape);
      else
        rc = write_npy(path, arrays[k], k == 3 ? 5 : (size_t)epochs, 1, k == 3 ? one : eps_shape);
      if (rc != 0)
        fprintf(stderr, "rml_imaging: cannot write %s\n", path);
    }
  }

  ag_optimizer_destroy(r.adam);
  for (size_t k = 0; k < sizeof real_cubes / sizeof real_cubes[0]; k++)
    ag_array_free(*real_cubes[k]);
  ag_array *rest[] = {r.vis, r.gvis, r.loss, r.data, r.weight, r.mask};
  for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++)
    ag_array_free(rest[k]);
  free(sky), free(vis), free(weight), free(mask), free(img), free(history);
  if (rc != 0)
    return 1;
  return last < first / 10 && corr > 0.9 ? 0 : 1;
}
