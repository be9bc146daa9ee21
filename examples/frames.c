/* examples/frames.c - a short numpy computation on a stack of detector frames, written with
   anygpu, and checked against the same computation in plain C. The numpy original:

       frames = raw.astype(np.float32)          # (100, 256, 256) uint16 counts -> float32
       frames -= dark                           # dark frame (256, 256), every frame
       np.maximum(frames, 0, out=frames)        # no negative counts
       total = frames.sum(axis=0)               # (256, 256)
       peak = total.argmax()                    # brightest pixel (flat index)
       norm = np.linalg.norm(total)

   Run it on any device: ANYGPU_DEVICE=host|opencl:pocl|cuda:0 ./frames */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <anygpu.h>

enum { N = 100, H = 256, W = 256 };

#define TRY(call)                                                                               \
  do {                                                                                          \
    if ((call) != AG_OK) {                                                                      \
      fprintf(stderr, "frames: %s\n", ag_last_error());                                         \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

int main(void) {
  /* Made-up data: a smooth spot plus a little noise, and a dark frame. */
  uint16_t *raw = malloc(sizeof(uint16_t) * N * H * W);
  float *dark = malloc(sizeof(float) * H * W);
  if (raw == NULL || dark == NULL)
    return 1;
  unsigned seed = 1;
  for (size_t i = 0; i < (size_t)N * H * W; i++) {
    size_t y = (i / W) % H, x = i % W;
    double r2 = ((double)y - 100) * ((double)y - 100) + ((double)x - 140) * ((double)x - 140);
    seed = seed * 1103515245u + 12345u;
    raw[i] = (uint16_t)(1000 * exp(-r2 / 800) + (seed >> 16) % 20);
  }
  for (size_t i = 0; i < (size_t)H * W; i++)
    dark[i] = 9.5f;

  ag_device *dev;
  TRY(ag_device_select(NULL, &dev));
  ag_device_info info;
  TRY(ag_device_get_info(dev, &info));

  const size_t stack[] = {N, H, W}, frame[] = {H, W}, one[] = {1};
  ag_array *d_raw, *frames, *d_dark, *total, *peak, *norm;
  TRY(ag_array_from_host(dev, AG_U16, 3, stack, raw, &d_raw));
  TRY(ag_array_from_host(dev, AG_F32, 2, frame, dark, &d_dark));
  TRY(ag_array_create(dev, AG_F32, 3, stack, &frames));
  TRY(ag_array_create(dev, AG_F32, 2, frame, &total));
  TRY(ag_array_create(dev, AG_U32, 1, one, &peak));
  TRY(ag_array_create(dev, AG_F32, 1, one, &norm));

  TRY(ag_astype(NULL, d_raw, frames));              /* frames = raw.astype(np.float32) */
  TRY(ag_sub(NULL, frames, d_dark, frames));        /* frames -= dark (every frame) */
  TRY(ag_maximum_scalar(NULL, frames, 0, frames));  /* np.maximum(frames, 0, out=frames) */
  TRY(ag_sum(NULL, frames, 0, total));              /* total = frames.sum(axis=0) */
  TRY(ag_argmax(NULL, total, AG_AXIS_ALL, peak));   /* peak = total.argmax() */
  TRY(ag_nrm2(NULL, total, AG_AXIS_ALL, norm));     /* norm = np.linalg.norm(total) */

  float *t = malloc(sizeof(float) * H * W);
  uint32_t p;
  float n;
  if (t == NULL)
    return 1;
  TRY(ag_array_to_host(total, t, sizeof(float) * H * W)); /* waits for the work above */
  TRY(ag_array_to_host(peak, &p, sizeof p));
  TRY(ag_array_to_host(norm, &n, sizeof n));

  /* The same in plain C, in double precision, to check against. */
  double ref_norm = 0, worst = 0;
  size_t ref_peak = 0;
  double *ref = calloc((size_t)H * W, sizeof *ref);
  if (ref == NULL)
    return 1;
  for (size_t k = 0; k < N; k++)
    for (size_t i = 0; i < (size_t)H * W; i++) {
      double v = (double)(float)raw[k * H * W + i] - dark[i];
      ref[i] += v > 0 ? v : 0;
    }
  for (size_t i = 0; i < (size_t)H * W; i++) {
    ref_norm += ref[i] * ref[i];
    if (ref[i] > ref[ref_peak])
      ref_peak = i;
    double e = fabs(t[i] - ref[i]) / (ref[i] > 1 ? ref[i] : 1);
    worst = e > worst ? e : worst;
  }
  ref_norm = sqrt(ref_norm);

  printf("device: %s (%s)\n", info.spec, info.name);
  printf("total:  largest relative difference from plain C %.1e\n", worst);
  printf("peak:   pixel %u (y %u, x %u); plain C says %zu\n", p, p / W, p % W, ref_peak);
  printf("norm:   %.6g; plain C says %.6g\n", n, ref_norm);
  bool ok = worst < 1e-5 && p == ref_peak && fabs(n - ref_norm) / ref_norm < 1e-5;
  printf("%s\n", ok ? "agrees" : "DISAGREES");

  ag_array_free(d_raw);
  ag_array_free(frames);
  ag_array_free(d_dark);
  ag_array_free(total);
  ag_array_free(peak);
  ag_array_free(norm);
  free(raw);
  free(dark);
  free(t);
  free(ref);
  return ok ? 0 : 1;
}
