/* tests/test_oclgrind_azint.c — the azint family (kernels_shared/azint.h: ag_azint_csr_u16_<t>
   and, for long rows, its work-group form ag_azint_csr_u16_<t>_rows) inside Oclgrind's
   simulator through tests/oclgrind-run.py, for races, uninitialised values and accesses outside
   a buffer. Each integration is also compared with the same integration on the host device. A
   detector of 12 x 10 pixels keeps Oclgrind's time short; frames sit at an offset in their
   buffers (oclgrind_operand). */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

enum { ROWS = 12, COLS = 10, NPIX = ROWS * COLS };

static ag_poni small_poni(void) {
  ag_poni p = {.dist = 0.01, .poni1 = 0.00061, .poni2 = 0.00055, .rot1 = 0.05, .wavelength = 1e-10,
               .pixel1 = 1e-4, .pixel2 = 1.2e-4, .rows = ROWS, .cols = COLS};
  return p;
}

/* Every result of @p opt for a batch of @p batch u16 frames on @p dev, read back as doubles:
   six arrays one after the other. */
static double *integrate_on(ag_device *dev, bool simulated, const ag_integrate_options *opt, size_t batch,
                            const uint16_t *frames, size_t *count) {
  ag_poni p = small_poni();
  ag_integrator *integ;
  CHECK_OK(ag_integrator_create(dev, &p, opt, &integ));
  size_t shape[3] = {batch, ROWS, COLS};
  ag_array *f = simulated ? oclgrind_operand(dev, AG_U16, 3, shape, frames) : NULL;
  if (!simulated)
    CHECK_OK(ag_array_from_host(dev, AG_U16, 3, shape, frames, &f));
  ag_integrate_result r;
  CHECK_OK(ag_integrate(NULL, integ, f, &r));
  CHECK_OK(ag_device_finish(dev));
  const ag_array *fields[6] = {r.intensity, r.sigma, r.sum_signal, r.sum_variance, r.sum_normalization, r.count};
  size_t n = ag_array_size(r.intensity);
  double *all = malloc(6 * n * sizeof *all);
  ck_assert_ptr_nonnull(all);
  for (int k = 0; k < 6; k++) {
    bool f64 = ag_array_dtype(fields[k]) == AG_F64;
    void *raw = test_array_read(fields[k]);
    for (size_t i = 0; i < n; i++)
      all[k * n + i] = f64 ? ((double *)raw)[i] : ((float *)raw)[i];
    free(raw);
  }
  *count = 6 * n;
  if (simulated) {
    /* Released only after the test's last launch (oclgrind.h). */
    ag_array **owned[6] = {&r.intensity, &r.sigma, &r.sum_signal, &r.sum_variance, &r.sum_normalization, &r.count};
    for (int k = 0; k < 6; k++) {
      oclgrind_keep(*owned[k]);
      *owned[k] = NULL;
    }
    oclgrind_keep(f);
  } else {
    ag_integrate_result_free(&r);
    ag_array_free(f);
  }
  ag_integrator_destroy(integ);
  return all;
}

/* 1-D with bounding boxes, a mask, a dark, dummies and Poisson variance; 2-D without
   splitting; 1-D into 2 bins (rows of some 60 pixels, which a GPU takes a work-group per bin);
   each for a batch of 2 frames, in f32 and (where the device has it) f64: within 1e-5 relative
   of the host device's results (floor 1e-5 of the largest). */
START_TEST(integrations_are_clean_and_match_the_host) {
  ag_device *dev = oclgrind_device(_i), *host;
  CHECK_OK(ag_device_select("host", &host));
  uint16_t frames[2 * NPIX];
  uint8_t mask[NPIX];
  float dark[NPIX];
  for (int k = 0; k < 2 * NPIX; k++)
    frames[k] = (uint16_t)(k % 7 == 3 ? 0 : 20 + (k * 37) % 50);
  for (int k = 0; k < NPIX; k++) {
    mask[k] = k % 11 == 0;
    dark[k] = 0.5f * (float)(k % 3);
  }
  ag_integrate_options cases[3] = {
      {.npt_rad = 9, .unit = AG_RADIAL_2TH_DEG, .mask = mask, .dark = dark, .has_dummy = true, .dummy = 0,
       .error_model = AG_ERROR_POISSON, .has_polarization = true, .polarization_factor = 0.5},
      {.npt_rad = 5, .npt_azim = 4, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_NO, .error_model = AG_ERROR_POISSON},
      {.npt_rad = 2, .unit = AG_RADIAL_2TH_DEG, .dark = dark, .error_model = AG_ERROR_POISSON},
  };
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  const ag_dtype dtypes[2] = {AG_F32, AG_F64};
  for (int c = 0; c < 3; c++)
    for (int t = 0; t < (info.fp64 ? 2 : 1); t++) {
      ag_integrate_options opt = cases[c];
      opt.dtype = dtypes[t];
      size_t n_sim, n_host;
      double *sim = integrate_on(dev, true, &opt, 2, frames, &n_sim);
      double *ref = integrate_on(host, false, &opt, 2, frames, &n_host);
      ck_assert_uint_eq(n_sim, n_host);
      size_t per = n_sim / 6;
      for (int k = 0; k < 6; k++) {
        double top = 0;
        for (size_t i = 0; i < per; i++)
          top = fmax(top, fabs(ref[k * per + i]));
        for (size_t i = 0; i < per; i++) {
          double a = sim[k * per + i], b = ref[k * per + i];
          ck_assert_msg(fabs(a - b) <= 1e-5 * fmax(fabs(b), 1e-5 * top),
                        "%s: case %d, %s engine, field %d, value %zu: %.9g, the host %.9g", test_label(), c,
                        ag_dtype_name(dtypes[t]), k, i, a, b);
        }
      }
      free(sim);
      free(ref);
    }
  oclgrind_free_kept();
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "integrations are clean and match the host", integrations_are_clean_and_match_the_host);
}
