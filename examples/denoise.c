/* examples/denoise.c - sporco's solvers on any device, as sporco's cupy examples use them:
   a noisy piecewise-constant image denoised by total variation (sporco's TVL2Denoise), then the
   convolutional sparse code of an image made of a few filters (sporco's ConvBPDN). The sporco
   original:

       b = tvl2.TVL2Denoise(noisy, lmbda=0.1, opt)    # opt: MaxMainIter 200
       x = b.solve(); print(psnr(clean, noisy), psnr(clean, x))
       b = cbpdn.ConvBPDN(D, S, lmbda=0.01, opt)      # opt: MaxMainIter 200
       y = b.solve(); print(b.getitstat().ObjFun[-1], np.count_nonzero(y))

   float32 throughout, so it runs on devices without double precision too. Pick the device with
   ANYGPU_DEVICE (host, opencl:pocl, cuda:0, ...). Exit status 0 when denoising raised the PSNR
   by 10 dB or more and ConvBPDN found every filter placed (its code at least half the height
   drawn, within a pixel). docs/solvers.md describes the
   solvers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <anygpu.h>

enum { H = 128, W = 128 };      /* the image */
enum { CN = 64, CM = 4, CD = 8, SPIKES = 12 }; /* ConvBPDN: a CN x CN image, CM CD x CD filters */

#define TRY(call)                                                                                \
  do {                                                                                           \
    if ((call) != AG_OK) {                                                                       \
      fprintf(stderr, "denoise: %s\n", ag_last_error());                                         \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

/* Seeded standard normal values (Box-Muller over a 64-bit LCG): the same on every run. */
static float randn(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  double u1 = ((double)(*s >> 11) + 1) * 0x1p-53;
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  double u2 = (double)(*s >> 11) * 0x1p-53;
  return (float)(sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

/* img = sum_m d_m * x_m, circular over the CN x CN image (d [CM][CD][CD], x [CM][CN][CN]). */
static void conv(const float *d, const float *x, float *img) {
  for (int i = 0; i < CN * CN; i++)
    img[i] = 0;
  for (int m = 0; m < CM; m++)
    for (int r = 0; r < CN; r++)
      for (int c = 0; c < CN; c++) {
        float v = x[(m * CN + r) * CN + c];
        if (v == 0)
          continue;
        for (int a = 0; a < CD; a++)
          for (int b = 0; b < CD; b++)
            img[((r + a) % CN) * CN + (c + b) % CN] += d[(m * CD + a) * CD + b] * v;
      }
}

int main(void) {
  ag_device *dev;
  ag_device_info info;
  TRY(ag_device_select(NULL, &dev)); /* $ANYGPU_DEVICE, else the first GPU, else the host */
  TRY(ag_device_get_info(dev, &info));
  printf("device: %s (%s)\n", info.spec, info.name);

  /* Total variation: a square and a disc on a background, plus Gaussian noise of sigma 0.1. */
  static float clean[H * W], noisy[H * W];
  uint64_t seed = 12345;
  for (int i = 0; i < H; i++)
    for (int j = 0; j < W; j++) {
      float v = 0.2f;
      if (i >= 20 && i < 60 && j >= 20 && j < 70)
        v = 0.8f;
      if ((i - 85) * (i - 85) + (j - 80) * (j - 80) < 30 * 30)
        v = 0.5f;
      clean[i * W + j] = v;
      noisy[i * W + j] = v + 0.1f * randn(&seed);
    }
  const size_t shape[2] = {H, W};
  ag_array *ref, *s;
  TRY(ag_array_from_host(dev, AG_F32, 2, shape, clean, &ref));
  TRY(ag_array_from_host(dev, AG_F32, 2, shape, noisy, &s));

  ag_admm_options opt;
  TRY(ag_solver_options_default(AG_SOLVER_TVL2, &opt)); /* sporco's TVL2Denoise.Options */
  opt.max_iter = 200;
  ag_solver *tv;
  TRY(ag_tvl2_create(NULL, s, 0.1, NULL, 0, &opt, &tv)); /* TV over axes 0 and 1 */
  TRY(ag_solver_solve(tv));
  const ag_iter_stats *hist;
  size_t iters = ag_solver_history(tv, &hist);
  double before, after;
  TRY(ag_psnr(NULL, ref, s, 0, &before)); /* rng 0: the clean image's range */
  TRY(ag_psnr(NULL, ref, ag_solver_var_get(tv, AG_VAR_RESULT), 0, &after));
  printf("TVL2 denoising %dx%d: %zu iterations, objective %.6g, PSNR %.2f dB -> %.2f dB\n", H, W, iters,
         hist[iters - 1].obj, before, after);
  ag_solver_destroy(tv);
  ag_array_free(ref), ag_array_free(s);

  /* ConvBPDN: an image made of a few copies of four random 8 x 8 filters (unit norm) at
     scattered places, circularly, plus noise; its sparse code over those filters. */
  static float d[CM * CD * CD], x0[CM * CN * CN], img[CN * CN];
  for (int i = 0; i < CM * CD * CD; i++)
    d[i] = randn(&seed);
  for (int m = 0; m < CM; m++) {
    double nrm = 0;
    for (int i = 0; i < CD * CD; i++)
      nrm += (double)d[m * CD * CD + i] * d[m * CD * CD + i];
    for (int i = 0; i < CD * CD; i++)
      d[m * CD * CD + i] /= (float)sqrt(nrm);
  }
  for (int a = 0; a < SPIKES; a++) /* spike a: filter a % CM at a place of its own */
    x0[(a % CM) * CN * CN + (a * 523 + 97) % (CN * CN)] = 1.0f + 0.1f * (float)a;
  conv(d, x0, img);
  for (int i = 0; i < CN * CN; i++)
    img[i] += 0.01f * randn(&seed);
  ag_array *D, *S;
  TRY(ag_array_from_host(dev, AG_F32, 3, (size_t[]){CM, CD, CD}, d, &D));
  TRY(ag_array_from_host(dev, AG_F32, 2, (size_t[]){CN, CN}, img, &S));
  TRY(ag_solver_options_default(AG_SOLVER_CBPDN, &opt)); /* sporco's ConvBPDN.Options */
  opt.max_iter = 200;
  ag_solver *cb;
  TRY(ag_cbpdn_create(NULL, D, S, 0.01, &opt, &cb)); /* D and S are copied: free them at will */
  ag_array_free(D), ag_array_free(S);
  TRY(ag_solver_solve(cb));
  iters = ag_solver_history(cb, &hist);
  static float y[CM * CN * CN], rec[CN * CN]; /* Y [1][CM][CN][CN], as sporco returns it */
  TRY(ag_array_to_host(ag_solver_var_get(cb, AG_VAR_RESULT), y, sizeof y));
  conv(d, y, rec);
  double err = 0, nrm = 0;
  for (int i = 0; i < CN * CN; i++)
    err += (double)(rec[i] - img[i]) * (rec[i] - img[i]), nrm += (double)img[i] * img[i];
  /* a drawn spike is found when the code's largest value for its filter within one pixel of
     it is at least half its height */
  int nonzero = 0, found = 0;
  for (int i = 0; i < CM * CN * CN; i++)
    nonzero += y[i] != 0;
  for (int a = 0; a < SPIKES; a++) {
    int m = a % CM, at = (a * 523 + 97) % (CN * CN), r = at / CN, c = at % CN;
    float best = 0;
    for (int dr = -1; dr <= 1; dr++)
      for (int dc = -1; dc <= 1; dc++)
        best = fmaxf(best, y[m * CN * CN + ((r + dr + CN) % CN) * CN + (c + dc + CN) % CN]);
    found += best >= 0.5f * (1.0f + 0.1f * (float)a);
  }
  printf("ConvBPDN %dx%d image, %d filters of %dx%d: %zu iterations (%s), objective %.6g, relative residual %.3g, "
         "%d of %d coefficients nonzero, %d of the %d drawn found\n",
         CN, CN, CM, CD, CD, iters, ag_solver_converged(cb) ? "converged" : "not converged", hist[iters - 1].obj, sqrt(err / nrm), nonzero, CM * CN * CN, found, SPIKES);
  ag_solver_destroy(cb);
  return after - before >= 10 && found == SPIKES ? 0 : 1;
}
