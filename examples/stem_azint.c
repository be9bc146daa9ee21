/* examples/stem_azint.c — a 4D-STEM scan integrated azimuthally in batches on any device, the
   way pyxem's to_device() / get_azimuthal_integral2d() / to_host() does it: a synthetic scan of
   16 x 16 diffraction patterns (256 x 256 pixels, uint16), each with two Debye rings whose
   radius grows across the scan (a strain map), is moved to the device 32 patterns at a time,
   integrated into 2-D (100 radial x 36 azimuthal bins, q in nm^-1) by one integrator made once,
   and brought back. The program then finds each pattern's first ring in its azimuthal average
   and checks it against the radius the pattern was drawn with.

   Pick the device with ANYGPU_DEVICE (host, opencl:pocl, cuda:0, ...). Exit status 0 when every
   ring is found within one bin of where it was drawn. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <anygpu.h>

#define SCAN 16    /* scan positions per side */
#define DET 256    /* detector pixels per side */
#define BATCH 32   /* patterns per call on the device */
#define NPT_RAD 100
#define NPT_AZIM 36

static const double pixel = 55e-6, dist = 0.1, wavelength = 2.5e-12; /* 200 keV electrons */

/* Scattering vector q (nm^-1) of a pixel centre at radius r metres from the beam. */
static double q_of_r(double r) { return 4 * M_PI * sin(0.5 * atan2(r, dist)) / wavelength * 1e-9; }

/* The radius (metres) of the first ring at scan position (sy, sx): 6 % strain across the scan. */
static double ring_radius(int sy, int sx) { return 60 * pixel * (1 + 0.06 * (sy + sx) / (2.0 * (SCAN - 1))); }

static void draw(uint16_t *pattern, int sy, int sx) {
  double r1 = ring_radius(sy, sx), r2 = 1.7 * r1, width = 1.5 * pixel;
  for (int i = 0; i < DET; i++)
    for (int j = 0; j < DET; j++) {
      double y = (i + 0.5 - DET / 2.0) * pixel, x = (j + 0.5 - DET / 2.0) * pixel, r = hypot(x, y);
      double v = 20 + 1000 * exp(-0.5 * pow((r - r1) / width, 2)) + 400 * exp(-0.5 * pow((r - r2) / width, 2));
      pattern[(size_t)i * DET + j] = (uint16_t)lround(v);
    }
}

/* Says why the last anygpu call failed: ag_last_error() names the function and the argument. */
static int fail(void) {
  fprintf(stderr, "stem_azint: %s\n", ag_last_error());
  return 1;
}

int main(void) {
  ag_device *dev;
  if (ag_device_select(NULL, &dev) != AG_OK)
    return fail();
  ag_device_info info;
  ag_device_get_info(dev, &info);

  /* The geometry: the beam at the detector's centre, no tilt. */
  ag_poni poni = {.dist = dist, .poni1 = DET / 2.0 * pixel, .poni2 = DET / 2.0 * pixel,
                  .wavelength = wavelength, .pixel1 = pixel, .pixel2 = pixel, .rows = DET, .cols = DET};
  ag_integrate_options opt = {.npt_rad = NPT_RAD, .npt_azim = NPT_AZIM, .unit = AG_RADIAL_Q_NM,
                              .split = AG_SPLIT_BBOX, .has_radial_range = true, .radial_min = 0,
                              .radial_max = q_of_r(DET / 2.0 * pixel)};
  ag_integrator *integ;
  if (ag_integrator_create(dev, &poni, &opt, &integ) != AG_OK)
    return fail();
  double q[NPT_RAD];
  ag_integrator_radial(integ, q);

  size_t n = SCAN * SCAN, per = (size_t)DET * DET;
  uint16_t *scan = malloc(n * per * sizeof *scan);
  float *result = malloc(n * NPT_AZIM * NPT_RAD * sizeof *result);
  if (scan == NULL || result == NULL)
    return fprintf(stderr, "stem_azint: no memory\n"), 1;
  for (int sy = 0; sy < SCAN; sy++)
    for (int sx = 0; sx < SCAN; sx++)
      draw(scan + (size_t)(sy * SCAN + sx) * per, sy, sx);

  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t first = 0; first < n; first += BATCH) {
    size_t count = n - first < BATCH ? n - first : BATCH, shape[3] = {count, DET, DET};
    ag_array *frames;
    ag_integrate_result res;
    /* to_device, get_azimuthal_integral2d, to_host. */
    if (ag_array_from_host(dev, AG_U16, 3, shape, scan + first * per, &frames) != AG_OK)
      return fail();
    if (ag_integrate(NULL, integ, frames, &res) != AG_OK)
      return fail();
    if (ag_array_to_host(res.intensity, result + first * NPT_AZIM * NPT_RAD,
                         count * NPT_AZIM * NPT_RAD * sizeof *result) != AG_OK)
      return fail();
    ag_integrate_result_free(&res);
    ag_array_free(frames);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

  /* Each pattern's first ring: the largest bin of its azimuthal average in the inner half. */
  int wrong = 0;
  printf("first ring (q, nm^-1) across the scan, every 4th position:\n");
  for (int sy = 0; sy < SCAN; sy++) {
    for (int sx = 0; sx < SCAN; sx++) {
      const float *img = result + (size_t)(sy * SCAN + sx) * NPT_AZIM * NPT_RAD;
      int best = 0;
      double best_v = -1;
      for (int b = 0; b < NPT_RAD / 2; b++) {
        double v = 0;
        for (int a = 0; a < NPT_AZIM; a++)
          v += img[a * NPT_RAD + b];
        if (v > best_v)
          best_v = v, best = b;
      }
      double want = q_of_r(ring_radius(sy, sx)), bin = q[1] - q[0];
      if (fabs(q[best] - want) > bin)
        wrong++;
      if (sy % 4 == 0 && sx % 4 == 0)
        printf("%s%6.3f", sx == 0 ? "  " : " ", q[best]);
    }
    if (sy % 4 == 0)
      printf("\n");
  }
  printf("%zu patterns of %d x %d on %s (%s): %.3f s, %.0f patterns/s; rings off by more than a bin: %d\n",
         n, DET, DET, info.spec, info.name, s, (double)n / s, wrong);
  free(scan);
  free(result);
  ag_integrator_destroy(integ);
  return wrong == 0 ? 0 : 1;
}
