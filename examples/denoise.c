/* examples/denoise.c - sporco's solvers on any device, as sporco's cupy examples use them:
   a noisy piecewise-constant image denoised by total variation (sporco's TVL2Denoise), then a
   sparse code of a few signals over a random dictionary (sporco's BPDN). The sporco original:

       b = tvl2.TVL2Denoise(noisy, lmbda=0.1, opt)    # opt: MaxMainIter 200
       x = b.solve(); print(psnr(clean, noisy), psnr(clean, x))
       b = bpdn.BPDN(D, S, lmbda=0.05, opt)           # opt: MaxMainIter 500
       y = b.solve(); print(b.getitstat().ObjFun[-1], np.count_nonzero(y))

   float32 throughout, so it runs on devices without double precision too. Pick the device with
   ANYGPU_DEVICE (host, opencl:pocl, cuda:0, ...). Exit status 0 when denoising raised the PSNR
   by 10 dB or more and BPDN found every coefficient drawn. docs/solvers.md describes the
   solvers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <anygpu.h>

enum { H = 128, W = 128 };      /* the image */
enum { N = 64, M = 128, K = 8 }; /* the dictionary D (N, M) and K signals S (N, K) */

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

  /* BPDN: K signals, each 4 atoms of a random dictionary with unit-norm columns, plus noise. */
  static float d[N * M], x0[M * K], sig[N * K];
  for (int i = 0; i < N * M; i++)
    d[i] = randn(&seed);
  for (int j = 0; j < M; j++) {
    double nrm = 0;
    for (int i = 0; i < N; i++)
      nrm += (double)d[i * M + j] * d[i * M + j];
    for (int i = 0; i < N; i++)
      d[i * M + j] /= (float)sqrt(nrm);
  }
  for (int k = 0; k < K; k++)
    for (int a = 0; a < 4; a++)
      x0[((k * 37 + a * 29) % M) * K + k] = 1.0f + 0.25f * (float)a;
  for (int i = 0; i < N; i++)
    for (int k = 0; k < K; k++) {
      float acc = 0;
      for (int j = 0; j < M; j++)
        acc += d[i * M + j] * x0[j * K + k];
      sig[i * K + k] = acc + 0.01f * randn(&seed);
    }
  ag_array *D, *S;
  TRY(ag_array_from_host(dev, AG_F32, 2, (size_t[]){N, M}, d, &D));
  TRY(ag_array_from_host(dev, AG_F32, 2, (size_t[]){N, K}, sig, &S));
  TRY(ag_solver_options_default(AG_SOLVER_BPDN, &opt)); /* sporco's BPDN.Options */
  opt.max_iter = 500;
  ag_solver *bp;
  TRY(ag_bpdn_create(NULL, D, S, 0.05, &opt, &bp)); /* D and S are copied: free them at will */
  ag_array_free(D), ag_array_free(S);
  TRY(ag_solver_solve(bp));
  iters = ag_solver_history(bp, &hist);
  static float y[M * K];
  TRY(ag_array_to_host(ag_solver_var_get(bp, AG_VAR_RESULT), y, sizeof y)); /* Y, as sporco */
  int nonzero = 0, found = 0;
  for (int i = 0; i < M * K; i++)
    nonzero += y[i] != 0, found += y[i] != 0 && x0[i] != 0;
  printf("BPDN %dx%d dictionary, %d signals: %zu iterations (%s), objective %.6g, %d of %d coefficients "
         "nonzero, %d of the %d drawn found\n",
         N, M, K, iters, ag_solver_converged(bp) ? "converged" : "not converged", hist[iters - 1].obj, nonzero,
         M * K, found, 4 * K);
  ag_solver_destroy(bp);
  return after - before >= 10 && found == 4 * K ? 0 : 1;
}
