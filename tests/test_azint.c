/* tests/test_azint.c — azimuthal integration (azint.h): the sparse matrix of pixel shares
   against pyFAI 0.21.3's own (tests/pyfai_azint.py) entry by entry; integrations on every device
   against a long double reference computed here from pyFAI's formulas, and against pyFAI's
   results; refused input.

   Where the build's Python (python.h) does not import pyFAI 0.21, the comparisons with pyFAI are
   not added; the executable then runs the others itself and, when they pass, exits 77 (SKIP)
   with the reason, or 1 under -Dreferences=required, so that a comparison that did not run is
   never reported as passed. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "npy.h"
#include "python.h"
#include "runner.h"

enum { ROWS = 64, COLS = 48, NPIX = ROWS * COLS };

/* ---- geometries and images --------------------------------------------------------------- */

/* Two geometries: the beam near the detector's middle, no rotation; and three rotations with
   the PONI near a corner, so that chi crosses its discontinuity on the detector. */
static const char *const poni_plain = "poni_version: 2\nDetector: Detector\n"
                                      "Detector_config: {\"pixel1\": 0.0001, \"pixel2\": 0.00012, \"max_shape\": [64, 48]}\n"
                                      "Distance: 0.1\nPoni1: 0.0031\nPoni2: 0.0027\nRot1: 0\nRot2: 0\nRot3: 0\n"
                                      "Wavelength: 1e-10\n";
static const char *const poni_tilted = "poni_version: 2\nDetector: Detector\n"
                                       "Detector_config: {\"pixel1\": 0.0001, \"pixel2\": 0.00012, \"max_shape\": [64, 48]}\n"
                                       "Distance: 0.08\nPoni1: 0.0012\nPoni2: 0.0049\nRot1: 0.12\nRot2: -0.07\nRot3: 0.3\n"
                                       "Wavelength: 1.3e-10\n";

/* Pixels of 1e300 m, beyond float32: numpy computes their centres in float64 (pyFAI's arrays,
   test_geometry.c), every pixel at 2th of 90 degrees or so, and r beyond a double. */
static const char *const poni_huge = "poni_version: 2\nDetector: Detector\n"
                                     "Detector_config: {\"pixel1\": 1e300, \"pixel2\": 1e300, \"max_shape\": [64, 48]}\n"
                                     "Distance: 0.1\nPoni1: 0.0031\nPoni2: 0.0027\nRot1: 0.1\nRot2: 0.05\nRot3: 0.2\n"
                                     "Wavelength: 1e-10\n";

static ag_poni load_poni(const char *text, char *path, size_t size) {
  test_write_text("azint", text == poni_plain ? "plain.poni" : "tilted.poni", text, path, size);
  ag_poni p;
  CHECK_OK(ag_poni_read(path, &p));
  return p;
}

/* A frame of counts around 100, varying over the detector; a few pixels set to the dummy
   value -1 when @p dummies. */
static void make_frame(uint16_t *f, bool dummies) {
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      f[i * COLS + j] = (uint16_t)(100 + 60 * sin(0.37 * i) * cos(0.23 * j) + (i * 7 + j * 3) % 11);
  if (dummies)
    for (int k = 5; k < NPIX; k += 97)
      f[k] = 0;
}

static void make_mask(uint8_t *m) {
  for (int k = 0; k < NPIX; k++)
    m[k] = (k % 13 == 0) || (k / COLS > 40 && k / COLS < 44 && k % COLS > 10);
}

static void make_dark_flat(float *dark, float *flat) {
  for (int k = 0; k < NPIX; k++) {
    dark[k] = (float)(3 + k % 5) * 0.5f;
    flat[k] = 0.9f + 0.2f * (float)((k * 7) % 10) / 10.0f;
  }
}

static void save_npy(const char *path, npy_dtype t, const void *data) {
  char err[700];
  size_t shape[2] = {ROWS, COLS};
  ck_assert_msg(npy_write(path, t, 2, shape, data, err, sizeof err), "%s", err);
}

/* ---- one case: options, and the same for pyFAI ------------------------------------------- */

typedef struct azcase {
  const char *poni;
  ag_integrate_options opt;
  bool frame_dummies, use_mask, use_dark_flat, use_variance;
  bool low_counts; /* counts 0 to 3 in place of make_frame's */
  ag_dtype frame_dtype; /* AG_U16 or AG_F32 */
  bool nonfinite;       /* f32 frames: +-inf and NaN pixels (set_nonfinite) */
  size_t inf_pixel;     /* ... and +inf here too */
} azcase;

/* The non-finite pixels of a case's f32 frame: +inf, -inf and NaN alone, a +inf beside a -inf
   (a bin may get both), and +inf at c->inf_pixel. */
static void set_nonfinite(const azcase *c, float *f) {
  if (!c->nonfinite)
    return;
  f[100] = INFINITY;
  f[1000] = -INFINITY;
  f[777] = NAN;
  f[2000] = INFINITY;
  f[2001] = -INFINITY;
  f[c->inf_pixel] = INFINITY;
}

typedef struct inputs {
  uint16_t frame[NPIX];
  uint8_t mask[NPIX];
  float dark[NPIX], flat[NPIX], variance[NPIX];
} inputs;

static void fill_inputs(azcase *c, inputs *in) {
  make_frame(in->frame, c->frame_dummies);
  if (c->low_counts)
    for (int k = 0; k < NPIX; k++)
      in->frame[k] = (uint16_t)((k * 7 + k / COLS) % 4);
  make_mask(in->mask);
  make_dark_flat(in->dark, in->flat);
  for (int k = 0; k < NPIX; k++)
    in->variance[k] = 2.0f + (float)(k % 17) * 0.75f;
  if (c->use_variance)
    c->opt.variance = in->variance;
  if (c->use_mask)
    c->opt.mask = in->mask;
  if (c->use_dark_flat) {
    c->opt.dark = in->dark;
    c->opt.flat = in->flat;
  }
}

/* Runs pyfai_azint.py for case @p c into a new folder @p dir. */
/* *unstable: pyFAI gave no reference (pyfai_azint.py's exit 3: its 2-D matrix without splitting
   did not come out the same three times in 40 builds). */
static void run_pyfai(const char *label, const azcase *c, const inputs *in, char *dir, size_t dsize, bool *unstable) {
  static int serial;
  const char *root = test_tmp_dir("azint");
  snprintf(dir, dsize, "%s/case%d", root, serial++);
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  char poni[700], frame[700], mask[700], dark[700], flat[700], var[700];
  test_write_text("azint", "case.poni", c->poni, poni, sizeof poni);
  snprintf(frame, sizeof frame, "%s/frame.npy", dir);
  if (c->frame_dtype == AG_F32) {
    float f[NPIX];
    for (int k = 0; k < NPIX; k++)
      f[k] = in->frame[k];
    set_nonfinite(c, f);
    save_npy(frame, NPY_F4, f);
  } else {
    save_npy(frame, NPY_U2, in->frame);
  }
  const ag_integrate_options *o = &c->opt;
  char kv[24][800];
  int n = 0;
  snprintf(kv[n++], sizeof kv[0], "frame=%s", frame);
  snprintf(kv[n++], sizeof kv[0], "npt_rad=%zu", o->npt_rad);
  snprintf(kv[n++], sizeof kv[0], "npt_azim=%zu", o->npt_azim);
  snprintf(kv[n++], sizeof kv[0], "unit=%s", ag_radial_unit_name(o->unit));
  snprintf(kv[n++], sizeof kv[0], "split=%s", o->split == AG_SPLIT_NO ? "no" : o->split == AG_SPLIT_FULL ? "full" : "bbox");
  if (o->has_radial_range)
    snprintf(kv[n++], sizeof kv[0], "radial=%.17g,%.17g", o->radial_min, o->radial_max);
  if (o->has_azimuth_range)
    snprintf(kv[n++], sizeof kv[0], "azimuth=%.17g,%.17g", o->azimuth_min, o->azimuth_max);
  if (o->has_dummy) {
    snprintf(kv[n++], sizeof kv[0], "dummy=%.17g", o->dummy);
    if (o->delta_dummy != 0)
      snprintf(kv[n++], sizeof kv[0], "delta_dummy=%.17g", o->delta_dummy);
  }
  if (o->has_polarization)
    snprintf(kv[n++], sizeof kv[0], "polarization=%.17g", o->polarization_factor);
  if (o->no_solid_angle)
    snprintf(kv[n++], sizeof kv[0], "solid_angle=0");
  if (o->normalization_factor != 0)
    snprintf(kv[n++], sizeof kv[0], "normalization=%.17g", o->normalization_factor);
  if (o->error_model == AG_ERROR_POISSON)
    snprintf(kv[n++], sizeof kv[0], "error_model=poisson");
  char *args[32] = {"python3", NULL, poni, dir};
  int a = 4;
  char script[600];
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  snprintf(script, sizeof script, "%s/pyfai_azint.py", src && *src ? src : "tests");
  args[1] = script;
  for (int k = 0; k < n; k++)
    args[a++] = kv[k];
  if (c->use_mask) {
    snprintf(mask, sizeof mask, "mask=%s/mask.npy", dir);
    save_npy(mask + 5, NPY_U1, in->mask);
    args[a++] = mask;
  }
  if (c->use_dark_flat) {
    snprintf(dark, sizeof dark, "dark=%s/dark.npy", dir);
    snprintf(flat, sizeof flat, "flat=%s/flat.npy", dir);
    save_npy(dark + 5, NPY_F4, in->dark);
    save_npy(flat + 5, NPY_F4, in->flat);
    args[a++] = dark;
    args[a++] = flat;
  }
  if (c->use_variance) {
    snprintf(var, sizeof var, "variance=%s/variance.npy", dir);
    save_npy(var + 9, NPY_F4, in->variance);
    args[a++] = var;
  }
  args[a] = NULL;
  char out[8192];
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0 || rc == 3, "%s: %s exited with %d:\n%s", label, script, rc, out);
  *unstable = rc == 3;
}

static npy_array read_npy(const char *dir, const char *name) {
  char path[800], err[900];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  npy_array a;
  ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s", err);
  return a;
}

/* Values of @p ours within @p rel of pyFAI's @p name (relative to each value, with a floor of
   @p rel times the array's largest magnitude for values near 0); prints the largest
   difference. */
static void compare_values(const char *label, const char *dir, const char *name, const double *ours, size_t n,
                           double rel) {
  npy_array a = read_npy(dir, name);
  ck_assert_msg(a.count == n, "%s: %s has %zu values in pyFAI's, %zu here", label, name, a.count, n);
  double top = 0, worst = 0;
  size_t nonfinite = 0;
  for (size_t k = 0; k < n; k++)
    if (isfinite(npy_get(&a, k)))
      top = fmax(top, fabs(npy_get(&a, k)));
  for (size_t k = 0; k < n; k++) {
    double want = npy_get(&a, k);
    if (!isfinite(want) || !isfinite(ours[k])) { /* +-inf and NaN must be pyFAI's exactly */
      ck_assert_msg(ours[k] == want || (isnan(ours[k]) && isnan(want)), "%s: %s[%zu] is %.9g, pyFAI's %.9g", label,
                    name, k, ours[k], want);
      nonfinite++;
      continue;
    }
    double d = fabs(ours[k] - want);
    double scale = fmax(fabs(want), top * 1e-3);
    ck_assert_msg(d <= rel * scale + 1e-300, "%s: %s[%zu] is %.9g, pyFAI's %.9g (%.3g relative, allowed %.1g)",
                  label, name, k, ours[k], want, d / scale, rel);
    if (scale > 0)
      worst = fmax(worst, d / scale);
  }
  char also[64] = "";
  if (nonfinite > 0)
    snprintf(also, sizeof also, " (%zu of them +-inf or NaN, as pyFAI's)", nonfinite);
  printf("%s: %s: %zu values%s, largest difference from pyFAI %.3g relative\n", label, name, n, also, worst);
  npy_free(&a);
}

/* ---- the matrix against pyFAI's lut ------------------------------------------------------ */

/* When pyFAI gave no reference, says so (printed, so that a comparison that did not run is
   never taken for one that passed) and returns true. */
static bool no_reference(const char *label, bool unstable) {
  if (unstable) {
    printf("%s: NOT COMPARED: no 2-D matrix without splitting came out of pyFAI 0.21.3 three times in 40 "
           "builds, so it gave no reference (docs/diffraction.md)\n", label);
    fflush(stdout);
  }
  return unstable;
}

static void check_matrix(const char *label, azcase c) {
  inputs in;
  fill_inputs(&c, &in);
  char dir[700], poni_path[700];
  bool unstable = false;
  run_pyfai(label, &c, &in, dir, sizeof dir, &unstable);
  if (no_reference(label, unstable))
    return;
  ag_poni p = load_poni(c.poni, poni_path, sizeof poni_path);
  ag_device *dev;
  CHECK_OK(ag_device_select("host", &dev));
  ag_integrator *integ;
  CHECK_OK(ag_integrator_create(dev, &p, &c.opt, &integ));
  const ag_csr *m;
  CHECK_OK(ag_integrator_csr(integ, &m));
  ag_csr_info info;
  CHECK_OK(ag_csr_get_info(m, &info));
  npy_array data = read_npy(dir, "lut_data"), indices = read_npy(dir, "lut_indices"),
            indptr = read_npy(dir, "lut_indptr");
  ck_assert_msg(indptr.count == info.rows + 1, "%s: pyFAI has %zu rows, here %zu", label, indptr.count - 1,
                info.rows);
  ck_assert_msg(data.count == info.nnz, "%s: pyFAI has %zu entries, here %zu", label, data.count, info.nnz);
  uint64_t *rp = malloc((info.rows + 1) * sizeof *rp);
  uint32_t *ci = malloc((info.nnz + 1) * sizeof *ci);
  float *v = malloc((info.nnz + 1) * sizeof *v);
  ck_assert(rp && ci && v);
  CHECK_OK(ag_csr_to_host(m, rp, ci, v));
  for (size_t i = 0; i <= info.rows; i++)
    ck_assert_msg(rp[i] == (uint64_t)npy_get(&indptr, i), "%s: indptr[%zu] is %llu, pyFAI's %.0f", label, i,
                  (unsigned long long)rp[i], npy_get(&indptr, i));
  double worst = 0;
  for (size_t k = 0; k < info.nnz; k++) {
    ck_assert_msg(ci[k] == (uint32_t)npy_get(&indices, k), "%s: indices[%zu] is %u, pyFAI's %.0f", label, k, ci[k],
                  npy_get(&indices, k));
    /* full splitting keeps the zero shares of the cells a pixel's box touches, as pyFAI's */
    double want = npy_get(&data, k), d = want == 0 ? fabs(v[k]) : fabs(v[k] - want) / fabs(want);
    /* a pixel of no area (pixels of 1e300 m, each corner at 90 degrees) has NaN shares, as pyFAI's */
    if (isnan(want) && isnan(v[k]))
      d = 0;
    ck_assert_msg(d <= 1e-6, "%s: data[%zu] is %.9g, pyFAI's %.9g", label, k, v[k], want);
    worst = fmax(worst, d);
  }
  printf("%s: %zu bins, %zu entries: indptr and indices identical, data within %.3g relative\n", label, info.rows,
         info.nnz, worst);
  double *centres = malloc(c.opt.npt_rad * sizeof *centres);
  CHECK_OK(ag_integrator_radial(integ, centres));
  compare_values(label, dir, "radial", centres, c.opt.npt_rad, 1e-9);
  free(centres);
  if (c.opt.npt_azim) {
    centres = malloc(c.opt.npt_azim * sizeof *centres);
    CHECK_OK(ag_integrator_azimuthal(integ, centres));
    compare_values(label, dir, "azimuthal", centres, c.opt.npt_azim, 1e-9);
    free(centres);
  }
  free(rp), free(ci), free(v);
  npy_free(&data), npy_free(&indices), npy_free(&indptr);
  ag_integrator_destroy(integ);
}

START_TEST(the_1d_matrix_is_pyfais_bbox_and_no_split) {
  check_matrix("1-D bbox, 2th_deg", (azcase){.poni = poni_plain, .opt = {.npt_rad = 50, .unit = AG_RADIAL_2TH_DEG}});
  check_matrix("1-D no split, q_nm^-1, mask, radial range",
               (azcase){.poni = poni_tilted, .use_mask = true,
                        .opt = {.npt_rad = 40, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_NO, .has_radial_range = true,
                                .radial_min = 5.0, .radial_max = 8.0}});
  check_matrix("1-D bbox, r_mm, mask, an azimuth range across the discontinuity",
               (azcase){.poni = poni_plain, .use_mask = true,
                        .opt = {.npt_rad = 33, .unit = AG_RADIAL_R_MM, .has_azimuth_range = true,
                                .azimuth_min = 150, .azimuth_max = -150}});
}
END_TEST

START_TEST(the_2d_matrix_is_pyfais_bbox_and_no_split) {
  check_matrix("2-D bbox, 2th_deg",
               (azcase){.poni = poni_plain, .opt = {.npt_rad = 20, .npt_azim = 16, .unit = AG_RADIAL_2TH_DEG}});
  check_matrix("2-D bbox, r_mm, mask, chi across the discontinuity",
               (azcase){.poni = poni_plain, .use_mask = true,
                        .opt = {.npt_rad = 15, .npt_azim = 36, .unit = AG_RADIAL_R_MM}});
  check_matrix("2-D no split, r_mm, mask",
               (azcase){.poni = poni_tilted, .use_mask = true,
                        .opt = {.npt_rad = 24, .npt_azim = 12, .unit = AG_RADIAL_R_MM, .split = AG_SPLIT_NO}});
  check_matrix("2-D bbox, q_A^-1, mask, radial and azimuth ranges",
               (azcase){.poni = poni_tilted, .use_mask = true,
                        .opt = {.npt_rad = 18, .npt_azim = 10, .unit = AG_RADIAL_Q_A, .has_radial_range = true,
                                .radial_min = 0.5, .radial_max = 0.8, .has_azimuth_range = true,
                                .azimuth_min = 10, .azimuth_max = 40}});
}
END_TEST

/* An absurd geometry, pixels of 1e300 m: pyFAI's bins, centres and matrix, as for any other
   (its centres in float64 where float32 would be inf). */
START_TEST(the_matrix_of_pixels_of_1e300_m_is_pyfais) {
  check_matrix("1-D bbox, 2th_deg, pixels of 1e300 m",
               (azcase){.poni = poni_huge, .opt = {.npt_rad = 20, .unit = AG_RADIAL_2TH_DEG}});
  check_matrix("2-D bbox, q_nm^-1, pixels of 1e300 m",
               (azcase){.poni = poni_huge, .opt = {.npt_rad = 10, .npt_azim = 8, .unit = AG_RADIAL_Q_NM}});
  check_matrix("2-D full, 2th_deg, pixels of 1e300 m",
               (azcase){.poni = poni_huge, .opt = {.npt_rad = 10, .npt_azim = 8, .split = AG_SPLIT_FULL}});
}
END_TEST

START_TEST(the_1d_matrix_is_pyfais_full_split) {
  check_matrix("1-D full, 2th_deg", (azcase){.poni = poni_plain, .opt = {.npt_rad = 50, .split = AG_SPLIT_FULL}});
  check_matrix("1-D full, q_nm^-1, rotations, mask, radial range",
               (azcase){.poni = poni_tilted, .use_mask = true,
                        .opt = {.npt_rad = 40, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_FULL,
                                .has_radial_range = true, .radial_min = 5.0, .radial_max = 8.0}});
  check_matrix("1-D full, r_mm, mask, an azimuth range across the discontinuity",
               (azcase){.poni = poni_plain, .use_mask = true,
                        .opt = {.npt_rad = 33, .unit = AG_RADIAL_R_MM, .split = AG_SPLIT_FULL,
                                .has_azimuth_range = true, .azimuth_min = 150, .azimuth_max = -150}});
}
END_TEST

START_TEST(the_2d_matrix_is_pyfais_full_split) {
  check_matrix("2-D full, 2th_deg",
               (azcase){.poni = poni_plain, .opt = {.npt_rad = 20, .npt_azim = 16, .split = AG_SPLIT_FULL}});
  check_matrix("2-D full, r_mm, mask, chi across the discontinuity",
               (azcase){.poni = poni_plain, .use_mask = true,
                        .opt = {.npt_rad = 15, .npt_azim = 36, .unit = AG_RADIAL_R_MM, .split = AG_SPLIT_FULL}});
  check_matrix("2-D full, q_A^-1, rotations, mask, radial and azimuth ranges",
               (azcase){.poni = poni_tilted, .use_mask = true,
                        .opt = {.npt_rad = 18, .npt_azim = 10, .unit = AG_RADIAL_Q_A, .split = AG_SPLIT_FULL,
                                .has_radial_range = true, .radial_min = 0.5, .radial_max = 0.8,
                                .has_azimuth_range = true, .azimuth_min = 10, .azimuth_max = 40}});
}
END_TEST

/* ---- integration on a device ------------------------------------------------------------- */

/* Reads a result array (engine dtype) into doubles. */
static double *fetch(const ag_array *a) {
  size_t n = ag_array_size(a);
  double *d = malloc((n ? n : 1) * sizeof *d);
  ck_assert_ptr_nonnull(d);
  if (ag_array_dtype(a) == AG_F64) {
    CHECK_OK(ag_array_to_host(a, d, n * sizeof *d));
  } else {
    float *f = malloc((n ? n : 1) * sizeof *f);
    CHECK_OK(ag_array_to_host(a, f, n * sizeof *f));
    for (size_t k = 0; k < n; k++)
      d[k] = f[k];
    free(f);
  }
  return d;
}

/* Integrates @p batch copies of the case's frame, copy b times (b + 1), on device @p dev in
   @p dtype; the results of copy b into @p res. */
static void integrate(ag_device *dev, azcase *c, const inputs *in, ag_dtype dtype, size_t batch,
                      ag_integrate_result *res, ag_integrator **integ_out) {
  char poni_path[700];
  ag_poni p = load_poni(c->poni, poni_path, sizeof poni_path);
  c->opt.dtype = dtype;
  CHECK_OK(ag_integrator_create(dev, &p, &c->opt, integ_out));
  size_t shape[3] = {batch, ROWS, COLS};
  ag_array *frames;
  if (c->frame_dtype == AG_F32) {
    float *f = malloc(batch * NPIX * sizeof *f);
    for (size_t b = 0; b < batch; b++) {
      for (int k = 0; k < NPIX; k++)
        f[b * NPIX + k] = (float)(b + 1) * in->frame[k];
      set_nonfinite(c, f + b * NPIX);
    }
    CHECK_OK(ag_array_from_host(dev, AG_F32, 3, shape, f, &frames));
    free(f);
  } else {
    ck_assert_int_eq(batch, 1);
    CHECK_OK(ag_array_from_host(dev, AG_U16, 2, shape + 1, in->frame, &frames));
  }
  CHECK_OK(ag_integrate(NULL, *integ_out, frames, res));
  ag_array_free(frames);
}

static const char *const field_names[6] = {"intensity", "sigma", "signal", "variance", "normalization", "count"};

static void result_fields(const ag_integrate_result *r, const ag_array *f[6]) {
  f[0] = r->intensity, f[1] = r->sigma, f[2] = r->sum_signal, f[3] = r->sum_variance, f[4] = r->sum_normalization;
  f[5] = r->count;
}

/* Compares every field of every frame of a batch with pyFAI's result for the case's frame: frame
   b is (b + 1) times that frame, so its intensity, signal and variance (a 2-D Poisson variance
   is the raw value) are b + 1 times pyFAI's, sigma sqrt(b + 1) times, the rest the same.
   Tolerance: the f32 engine rounds each pixel's values once to float and compensates each bin's
   sums (sparse.md), pyFAI sums float values in double, so 1e-5 relative leaves room for a few
   float ulps; the f64 engine is held to the same, pyFAI's own inputs being floats. */
static void check_against_pyfai(ag_device *dev, const char *what, azcase c, size_t batch) {
  inputs in;
  fill_inputs(&c, &in);
  char dir[700], label[300];
  snprintf(label, sizeof label, "%s: %s", test_label(), what);
  bool unstable = false;
  run_pyfai(label, &c, &in, dir, sizeof dir, &unstable);
  if (no_reference(label, unstable))
    return;
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  const ag_dtype dtypes[2] = {AG_F32, AG_F64};
  for (int t = 0; t < (info.fp64 ? 2 : 1); t++) {
    ag_integrate_result res;
    ag_integrator *integ;
    integrate(dev, &c, &in, dtypes[t], batch, &res, &integ);
    size_t nout = c.opt.npt_rad * (c.opt.npt_azim ? c.opt.npt_azim : 1);
    const ag_array *f[6];
    result_fields(&res, f);
    for (int k = 0; k < 6; k++) {
      if (k == 1 || k == 3) {
        if (c.opt.error_model == AG_ERROR_NONE)
          continue;
      }
      ck_assert_uint_eq(ag_array_size(f[k]), batch * nout);
      double *v = fetch(f[k]);
      for (size_t b = 0; b < batch; b++) {
        double scale = (k == 0 || k == 2 || k == 3) ? (double)(b + 1) : k == 1 ? sqrt((double)(b + 1)) : 1.0;
        for (size_t o = 0; o < nout; o++)
          v[b * nout + o] /= scale;
        char l2[400];
        snprintf(l2, sizeof l2, "%s, %s engine, frame %zu of %zu", label, ag_dtype_name(dtypes[t]), b, batch);
        compare_values(l2, dir, field_names[k], v + b * nout, nout, 1e-5);
      }
      free(v);
    }
    ag_integrate_result_free(&res);
    ag_integrator_destroy(integ);
  }
}

START_TEST(one_d_integrations_match_pyfai) {
  ag_device *dev = test_device(_i);
  check_against_pyfai(dev, "1-D bbox, u16 frame, mask, dummies, dark, flat, polarisation, Poisson, normalisation",
                      (azcase){.poni = poni_tilted, .use_mask = true, .frame_dummies = true, .use_dark_flat = true,
                               .frame_dtype = AG_U16,
                               .opt = {.npt_rad = 40, .unit = AG_RADIAL_Q_NM, .has_dummy = true, .dummy = 0,
                                       .has_polarization = true, .polarization_factor = 0.9,
                                       .normalization_factor = 2.5, .error_model = AG_ERROR_POISSON}},
                      1);
  /* 1-D Poisson's variance is max(raw, 1): counts of 0 and 1 from an integer frame. */
  check_against_pyfai(dev, "1-D bbox, u16 frame of counts 0 to 3, Poisson",
                      (azcase){.poni = poni_plain, .frame_dtype = AG_U16, .low_counts = true,
                               .opt = {.npt_rad = 25, .unit = AG_RADIAL_Q_NM, .error_model = AG_ERROR_POISSON}},
                      1);
  check_against_pyfai(dev, "1-D no split, radial and azimuth ranges, no solid angle",
                      (azcase){.poni = poni_plain, .frame_dtype = AG_F32,
                               .opt = {.npt_rad = 30, .unit = AG_RADIAL_2TH_DEG, .split = AG_SPLIT_NO,
                                       .has_radial_range = true, .radial_min = 0.5, .radial_max = 3.5,
                                       .has_azimuth_range = true, .azimuth_min = -120, .azimuth_max = 30,
                                       .no_solid_angle = true}},
                      1);
  check_against_pyfai(dev, "1-D bbox, a variance array, dummies",
                      (azcase){.poni = poni_plain, .frame_dtype = AG_F32, .use_variance = true, .frame_dummies = true,
                               .opt = {.npt_rad = 35, .unit = AG_RADIAL_Q_A, .error_model = AG_ERROR_VARIANCE,
                                       .has_dummy = true, .dummy = 0}},
                      1);
}
END_TEST

START_TEST(two_d_integrations_match_pyfai) {
  ag_device *dev = test_device(_i);
  check_against_pyfai(dev, "2-D bbox, a batch of 3, Poisson, polarisation",
                      (azcase){.poni = poni_tilted, .frame_dtype = AG_F32,
                               .opt = {.npt_rad = 20, .npt_azim = 12, .unit = AG_RADIAL_2TH_DEG,
                                       .has_polarization = true, .polarization_factor = -0.4,
                                       .error_model = AG_ERROR_POISSON}},
                      3);
  check_against_pyfai(dev, "2-D no split, mask, dummies within delta, dark, flat, azimuth range",
                      (azcase){.poni = poni_tilted, .use_mask = true, .frame_dummies = true, .use_dark_flat = true,
                               .frame_dtype = AG_U16,
                               .opt = {.npt_rad = 16, .npt_azim = 9, .unit = AG_RADIAL_R_MM, .split = AG_SPLIT_NO,
                                       .has_dummy = true, .dummy = 0.25, .delta_dummy = 0.5,
                                       .has_azimuth_range = true, .azimuth_min = 20, .azimuth_max = 45}},
                      1);
}
END_TEST

/* Full splitting, every output against pyFAI's, to 1e-5 relative as above: the matrix is
   pyFAI's bit for bit (the tcases above), so only the engine's sums differ. */
START_TEST(full_split_integrations_match_pyfai) {
  ag_device *dev = test_device(_i);
  check_against_pyfai(dev, "1-D full, rotations, mask, dummies, dark, flat, Poisson, radial and azimuth ranges",
                      (azcase){.poni = poni_tilted, .use_mask = true, .frame_dummies = true, .use_dark_flat = true,
                               .frame_dtype = AG_F32,
                               .opt = {.npt_rad = 30, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_FULL,
                                       .has_dummy = true, .dummy = 0, .error_model = AG_ERROR_POISSON,
                                       .has_radial_range = true, .radial_min = 4.0, .radial_max = 9.0,
                                       .has_azimuth_range = true, .azimuth_min = 15, .azimuth_max = 40}},
                      1);
  check_against_pyfai(dev, "2-D full, rotations, mask, polarisation, a variance array, radial and azimuth ranges",
                      (azcase){.poni = poni_tilted, .use_mask = true, .use_variance = true, .frame_dtype = AG_U16,
                               .opt = {.npt_rad = 14, .npt_azim = 9, .unit = AG_RADIAL_R_MM, .split = AG_SPLIT_FULL,
                                       .has_polarization = true, .polarization_factor = 0.8,
                                       .error_model = AG_ERROR_VARIANCE, .has_radial_range = true,
                                       .radial_min = 8.0, .radial_max = 13.0, .has_azimuth_range = true,
                                       .azimuth_min = 10, .azimuth_max = 45}},
                      1);
  check_against_pyfai(dev, "2-D full, a batch of 2, chi across the discontinuity, Poisson, normalisation",
                      (azcase){.poni = poni_plain, .frame_dtype = AG_F32,
                               .opt = {.npt_rad = 12, .npt_azim = 18, .unit = AG_RADIAL_2TH_DEG,
                                       .split = AG_SPLIT_FULL, .error_model = AG_ERROR_POISSON,
                                       .normalization_factor = 1.5}},
                      2);
}
END_TEST

/* ---- a reference from pyFAI's formulas --------------------------------------------------- */

/* 1-D, bounding boxes, mask, dark, flat, polarisation and solid angle, Poisson: the sums of
   pyFAI's CSR engine in long double from the integrator's own matrix and the geometry's
   corrections, each correction rounded to float as pyFAI's arrays are. Tolerance: f32, the
   float rounding of each pixel's normalisation and values (a few 2^-24) and of the sums,
   1e-5; f64, 1e-12, where only double roundings separate the two. */
START_TEST(one_d_integration_matches_a_long_double_reference) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  azcase c = {.poni = poni_tilted, .use_mask = true, .use_dark_flat = true, .frame_dtype = AG_F32,
              .opt = {.npt_rad = 25, .unit = AG_RADIAL_2TH_DEG, .has_polarization = true,
                      .polarization_factor = 0.7, .normalization_factor = 3, .error_model = AG_ERROR_POISSON}};
  inputs in;
  fill_inputs(&c, &in);
  char poni_path[700];
  ag_poni p = load_poni(c.poni, poni_path, sizeof poni_path);
  double *sa = malloc(NPIX * sizeof *sa), *pol = malloc(NPIX * sizeof *pol);
  CHECK_OK(ag_geometry_solid_angle(&p, ROWS, COLS, sa));
  CHECK_OK(ag_geometry_polarization(&p, ROWS, COLS, 0.7, 0, pol));
  const ag_dtype dtypes[2] = {AG_F32, AG_F64};
  for (int t = 0; t < (info.fp64 ? 2 : 1); t++) {
    ag_integrate_result res;
    ag_integrator *integ;
    integrate(dev, &c, &in, dtypes[t], 1, &res, &integ);
    const ag_csr *m;
    CHECK_OK(ag_integrator_csr(integ, &m));
    ag_csr_info ci;
    CHECK_OK(ag_csr_get_info(m, &ci));
    uint64_t *rp = malloc((ci.rows + 1) * sizeof *rp);
    uint32_t *col = malloc(ci.nnz * sizeof *col);
    double *w = malloc(ci.nnz * sizeof *w);
    float *wf = malloc(ci.nnz * sizeof *wf);
    CHECK_OK(ag_csr_to_host(m, rp, col, dtypes[t] == AG_F32 ? (void *)wf : (void *)w));
    for (size_t k = 0; dtypes[t] == AG_F32 && k < ci.nnz; k++)
      w[k] = wf[k];
    const ag_array *f[6];
    result_fields(&res, f);
    double *got[6];
    for (int k = 0; k < 6; k++)
      got[k] = fetch(f[k]);
    double tol = dtypes[t] == AG_F32 ? 1e-5 : 1e-12;
    for (size_t r = 0; r < ci.rows; r++) {
      long double sig = 0, var = 0, norm = 0, cnt = 0;
      for (uint64_t e = rp[r]; e < rp[r + 1]; e++) {
        size_t px = col[e];
        long double raw = in.frame[px], dk = in.dark[px];
        long double nm = 3.0L * in.flat[px] * (long double)(float)pol[px] * (long double)(float)sa[px];
        sig += w[e] * (raw - dk);
        var += (long double)w[e] * w[e] * (raw > 1 ? raw : 1);
        norm += w[e] * nm;
        cnt += w[e];
      }
      long double want[6] = {cnt > 0 ? sig / norm : 0, cnt > 0 ? sqrtl(var) / norm : 0, sig, var, norm, cnt};
      for (int k = 0; k < 6; k++)
        ck_assert_msg(fabsl(got[k][r] - want[k]) <= tol * fabsl(want[k]) + 1e-300L,
                      "%s: %s engine: %s[%zu] is %.12g, the reference %.12Lg", test_label(), ag_dtype_name(dtypes[t]),
                      field_names[k], r, got[k][r], want[k]);
    }
    for (int k = 0; k < 6; k++)
      free(got[k]);
    free(rp), free(col), free(w), free(wf);
    ag_integrate_result_free(&res);
    ag_integrator_destroy(integ);
  }
  free(sa), free(pol);
}
END_TEST

/* ---- a matrix of the caller's ------------------------------------------------------------ */

/* An integrator made from another's exported matrix and centres gives the same results, bit
   for bit: the same matrix, the same corrections, the same kernels. */
START_TEST(an_integrator_from_an_exported_matrix_gives_the_same_results) {
  ag_device *dev = test_device(_i);
  azcase c = {.poni = poni_tilted, .use_mask = true, .frame_dtype = AG_F32,
              .opt = {.npt_rad = 12, .npt_azim = 7, .unit = AG_RADIAL_Q_NM, .error_model = AG_ERROR_POISSON}};
  inputs in;
  fill_inputs(&c, &in);
  ag_integrate_result ra, rb;
  ag_integrator *a, *b;
  integrate(dev, &c, &in, AG_F32, 2, &ra, &a);
  const ag_csr *m;
  CHECK_OK(ag_integrator_csr(a, &m));
  double rad[12], azim[7];
  CHECK_OK(ag_integrator_radial(a, rad));
  CHECK_OK(ag_integrator_azimuthal(a, azim));
  char poni_path[700];
  ag_poni p = load_poni(c.poni, poni_path, sizeof poni_path);
  CHECK_OK(ag_integrator_create_from_csr(dev, &p, &c.opt, m, rad, azim, &b));
  ag_integrator_destroy(a);
  size_t shape[3] = {2, ROWS, COLS};
  float *f = malloc(2 * NPIX * sizeof *f);
  for (int k = 0; k < 2 * NPIX; k++)
    f[k] = (float)(k / NPIX + 1) * in.frame[k % NPIX];
  ag_array *frames;
  CHECK_OK(ag_array_from_host(dev, AG_F32, 3, shape, f, &frames));
  CHECK_OK(ag_integrate(NULL, b, frames, &rb));
  const ag_array *fa[6], *fb[6];
  result_fields(&ra, fa);
  result_fields(&rb, fb);
  for (int k = 0; k < 6; k++) {
    double *va = fetch(fa[k]), *vb = fetch(fb[k]);
    CHECK_BYTES(vb, va, ag_array_size(fa[k]) * sizeof *va, field_names[k]);
    free(va), free(vb);
  }
  double rad_b[12], azim_b[7];
  CHECK_OK(ag_integrator_radial(b, rad_b));
  CHECK_OK(ag_integrator_azimuthal(b, azim_b));
  CHECK_BYTES(rad_b, rad, sizeof rad, "radial centres");
  CHECK_BYTES(azim_b, azim, sizeof azim, "azimuthal centres");
  ag_integrator *bad;
  ag_integrate_options wrong = c.opt;
  wrong.npt_rad = 13;
  CHECK_FAILS(ag_integrator_create_from_csr(dev, &p, &wrong, NULL, rad, azim, &bad),
              AG_ERR_INVALID_ARGUMENT, "ag_integrator_create_from_csr", "shares");
  const ag_csr *mb;
  CHECK_OK(ag_integrator_csr(b, &mb));
  CHECK_FAILS(ag_integrator_create_from_csr(dev, &p, &wrong, mb, rad, azim, &bad), AG_ERR_MISMATCH,
              "ag_integrator_create_from_csr", "shares");
  ck_assert_ptr_null(bad);
  ag_array_free(frames);
  free(f);
  ag_integrate_result_free(&ra);
  ag_integrate_result_free(&rb);
  ag_integrator_destroy(b);
}
END_TEST

/* @p n f32 frames (the caller's to free), frame b the case's frame times b + 1, plus @p offset. */
static float *scaled_frames(const azcase *c, size_t n, float offset) {
  azcase own = *c;
  inputs in;
  fill_inputs(&own, &in);
  float *f = malloc(n * NPIX * sizeof *f);
  ck_assert_ptr_nonnull(f);
  for (size_t k = 0; k < n * NPIX; k++)
    f[k] = (float)(k / NPIX + 1) * in.frame[k % NPIX] + offset;
  return f;
}

/* Each of the @p n f32 frames at @p f (ROWS x COLS each) integrated alone by @p integ gives,
   bit for bit, its part of @p all, the results of them all at once. */
static void check_each_frame_alone(ag_device *dev, ag_integrator *integ, const ag_integrate_result *all,
                                   const float *f, size_t n, const char *label) {
  const ag_array *fa[6];
  result_fields(all, fa);
  size_t per = ag_array_size(fa[0]) / n, shape[2] = {ROWS, COLS};
  for (size_t b = 0; b < n; b++) {
    ag_array *one;
    ag_integrate_result r;
    CHECK_OK(ag_array_from_host(dev, AG_F32, 2, shape, f + b * NPIX, &one));
    CHECK_OK(ag_integrate(NULL, integ, one, &r));
    const ag_array *fo[6];
    result_fields(&r, fo);
    for (int k = 0; k < 6; k++) {
      double *va = fetch(fa[k]), *vo = fetch(fo[k]);
      char what[160];
      snprintf(what, sizeof what, "%s, %s, frame %zu of %zu", label, field_names[k], b, n);
      CHECK_BYTES(va + b * per, vo, per * sizeof *vo, what);
      free(va), free(vo);
    }
    ag_integrate_result_free(&r);
    ag_array_free(one);
  }
}

/* A batch of 7 frames (CPU devices take them 4 an item, then 3) gives each frame the results it
   gets alone, bit for bit: with and without the dummy and Poisson's variance, and with a frame
   holding a NaN and one holding the dummy, whose bins are then integrated again pixel by pixel. */
START_TEST(a_batch_gives_each_frame_its_own_results) {
  ag_device *dev = test_device(_i);
  enum { B = 7 };
  azcase c = {.poni = poni_tilted, .frame_dtype = AG_F32,
              .opt = {.npt_rad = 14, .npt_azim = 9, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_BBOX}};
  float *f = scaled_frames(&c, B, 0.25f);
  f[4 * NPIX + NPIX / 2] = NAN;
  f[5 * NPIX + NPIX / 3] = -7.0f;
  for (int pass = 0; pass < 4; pass++) {
    ag_integrate_options opt = c.opt;
    opt.npt_azim = pass % 2 ? 0 : c.opt.npt_azim;
    if (pass >= 2)
      opt.has_dummy = true, opt.dummy = -7, opt.error_model = AG_ERROR_POISSON;
    char poni_path[700];
    ag_poni p = load_poni(c.poni, poni_path, sizeof poni_path);
    ag_integrator *integ;
    CHECK_OK(ag_integrator_create(dev, &p, &opt, &integ));
    size_t shape[3] = {B, ROWS, COLS};
    ag_array *frames;
    ag_integrate_result all;
    CHECK_OK(ag_array_from_host(dev, AG_F32, 3, shape, f, &frames));
    CHECK_OK(ag_integrate(NULL, integ, frames, &all));
    check_each_frame_alone(dev, integ, &all, f, B, opt.npt_azim ? "2-D" : "1-D");
    ag_integrate_result_free(&all);
    ag_array_free(frames);
    ag_integrator_destroy(integ);
  }
  free(f);
}
END_TEST

/* Frames after two scan axes, [2, 3, rows, cols] (pyxem's 4D-STEM layout, as an array holds it
   at most), give results [2, 3, npt_rad] in 1-D and [2, 3, npt_azim, npt_rad] in 2-D, each
   frame's bit for bit what it gives alone. */
START_TEST(scan_axes_are_kept_in_the_results) {
  ag_device *dev = test_device(_i);
  enum { S1 = 2, S2 = 3, B = S1 * S2 };
  azcase c = {.poni = poni_tilted, .frame_dtype = AG_F32, .opt = {.npt_rad = 14, .unit = AG_RADIAL_Q_NM}};
  float *f = scaled_frames(&c, B, 0.5f);
  char poni_path[700];
  ag_poni p = load_poni(c.poni, poni_path, sizeof poni_path);
  size_t shape[4] = {S1, S2, ROWS, COLS};
  ag_array *frames;
  CHECK_OK(ag_array_from_host(dev, AG_F32, 4, shape, f, &frames));
  for (int two_d = 0; two_d < 2; two_d++) {
    ag_integrate_options opt = c.opt;
    opt.npt_azim = two_d ? 9 : 0;
    ag_integrator *integ;
    CHECK_OK(ag_integrator_create(dev, &p, &opt, &integ));
    ag_integrate_result all;
    CHECK_OK(ag_integrate(NULL, integ, frames, &all));
    const ag_array *fa[6];
    result_fields(&all, fa);
    size_t want[4] = {S1, S2, two_d ? 9 : 14, 14};
    for (int k = 0; k < 6; k++) {
      ck_assert_int_eq(ag_array_ndim(fa[k]), two_d ? 4 : 3);
      for (int d = 0; d < ag_array_ndim(fa[k]); d++)
        ck_assert_uint_eq(ag_array_shape(fa[k])[d], want[d]);
    }
    check_each_frame_alone(dev, integ, &all, f, B, two_d ? "2-D, a 2 x 3 scan" : "1-D, a 2 x 3 scan");
    ag_integrate_result_free(&all);
    ag_integrator_destroy(integ);
  }
  /* A frame of one dimension is no frame. */
  ag_integrator *integ;
  CHECK_OK(ag_integrator_create(dev, &p, &c.opt, &integ));
  size_t flat = NPIX;
  ag_array *line;
  ag_integrate_result r;
  CHECK_OK(ag_array_create(dev, AG_F32, 1, &flat, &line));
  CHECK_FAILS(ag_integrate(NULL, integ, line, &r), AG_ERR_MISMATCH, "ag_integrate", "frames has shape {3072}");
  ag_array_free(line);
  ag_integrator_destroy(integ);
  ag_array_free(frames);
  free(f);
}
END_TEST

/* A pixel in a host integrator's matrix for @p c whose share of some bin is 0 (full splitting
   keeps such entries, as pyFAI does). */
static size_t pixel_with_a_zero_share(const azcase *c) {
  char poni_path[700];
  ag_poni p = load_poni(c->poni, poni_path, sizeof poni_path);
  ag_device *dev;
  CHECK_OK(ag_device_select("host", &dev));
  ag_integrator *integ;
  CHECK_OK(ag_integrator_create(dev, &p, &c->opt, &integ));
  const ag_csr *m;
  CHECK_OK(ag_integrator_csr(integ, &m));
  ag_csr_info info;
  CHECK_OK(ag_csr_get_info(m, &info));
  uint64_t *rp = malloc((info.rows + 1) * sizeof *rp);
  uint32_t *ci = malloc((info.nnz + 1) * sizeof *ci);
  float *v = malloc((info.nnz + 1) * sizeof *v);
  ck_assert(rp && ci && v);
  CHECK_OK(ag_csr_to_host(m, rp, ci, v));
  size_t k = 0;
  while (k < info.nnz && v[k] != 0)
    k++;
  ck_assert_msg(k < info.nnz, "no share of 0 in %zu entries", info.nnz);
  size_t pixel = ci[k];
  free(rp), free(ci), free(v);
  ag_integrator_destroy(integ);
  return pixel;
}

/* pyFAI 0.21.3 keeps pixels of +-inf (their bins become +-inf, NaN where the two meet) and
   leaves out NaN ones and shares of 0: every output against pyFAI's, the non-finite ones
   exactly. A batch of 2 on CPU devices takes the walk's quick pass and then walks the rows of
   the non-finite pixels again. */
START_TEST(non_finite_pixels_are_integrated_as_pyfai_integrates_them) {
  ag_device *dev = test_device(_i);
  /* 1-D Poisson's variance of -inf is max(-inf, 1) = 1 in every frame, which the batch's
     scaled copies would not scale: one frame there. */
  check_against_pyfai(dev, "1-D bbox, +-inf and NaN pixels, Poisson",
                      (azcase){.poni = poni_tilted, .frame_dtype = AG_F32, .nonfinite = true, .inf_pixel = 5,
                               .opt = {.npt_rad = 30, .unit = AG_RADIAL_Q_NM, .error_model = AG_ERROR_POISSON}},
                      1);
  check_against_pyfai(dev, "1-D no split, +-inf and NaN pixels, dummies",
                      (azcase){.poni = poni_tilted, .frame_dtype = AG_F32, .nonfinite = true, .inf_pixel = 5,
                               .frame_dummies = true,
                               .opt = {.npt_rad = 30, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_NO,
                                       .has_dummy = true, .dummy = 0}},
                      2);
  azcase full = {.poni = poni_plain, .frame_dtype = AG_F32, .nonfinite = true,
                 .opt = {.npt_rad = 12, .npt_azim = 18, .unit = AG_RADIAL_2TH_DEG, .split = AG_SPLIT_FULL,
                         .error_model = AG_ERROR_POISSON}};
  full.inf_pixel = pixel_with_a_zero_share(&full);
  check_against_pyfai(dev, "2-D full, +-inf and NaN pixels, +inf with a share of 0, Poisson", full, 2);
}
END_TEST

/* ---- refused input ------------------------------------------------------------------------- */

START_TEST(bad_input_is_refused_naming_the_argument) {
  ag_device *dev;
  CHECK_OK(ag_device_select("host", &dev));
  char poni_path[700];
  ag_poni p = load_poni(poni_plain, poni_path, sizeof poni_path);
  ag_integrate_options opt = {.npt_rad = 10};
  ag_integrator *integ = (ag_integrator *)&opt;
  CHECK_FAILS(ag_integrator_create(NULL, &p, &opt, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create", "dev");
  ck_assert_ptr_null(integ);
  CHECK_FAILS(ag_integrator_create(dev, NULL, &opt, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create", "poni");
  CHECK_FAILS(ag_integrator_create(dev, &p, NULL, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create", "opt");
  CHECK_FAILS(ag_integrator_create(dev, &p, &opt, NULL), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create", "out");
  ag_integrate_options bad = opt;
  bad.npt_rad = 0;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->npt_rad");
  bad = opt;
  bad.unit = (ag_radial_unit)42;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->unit");
  bad = opt;
  bad.split = (ag_split)7;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->split");
  bad.split = (ag_split)(AG_SPLIT_FULL + 1);
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->split");
  bad.split = (ag_split)-1;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->split");
  bad = opt;
  bad.has_radial_range = true, bad.radial_min = 3, bad.radial_max = 3;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->radial_min");
  bad = opt;
  bad.has_azimuth_range = true, bad.azimuth_min = 10, bad.azimuth_max = NAN;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->azimuth_min");
  bad = opt;
  bad.error_model = AG_ERROR_VARIANCE;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->variance");
  bad = opt;
  bad.dtype = AG_I32;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->dtype");
  ag_poni nowave = p;
  nowave.wavelength = 0;
  bad = opt;
  bad.unit = AG_RADIAL_Q_NM;
  CHECK_FAILS(ag_integrator_create(dev, &nowave, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "wavelength");
  CHECK_MESSAGE_HAS("opt->unit q_nm^-1 needs a wavelength, and ag_poni.wavelength is 0");
  ag_poni noshape = p;
  noshape.rows = noshape.cols = 0;
  CHECK_FAILS(ag_integrator_create(dev, &noshape, &opt, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "opt->rows");
  ag_poni nan_rot = p;
  nan_rot.rot2 = NAN;
  CHECK_FAILS(ag_integrator_create(dev, &nan_rot, &opt, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "ag_poni.rot2 is nan");
  ck_assert_msg(strstr(ag_last_error(), "ag_geometry") == NULL, "the message names a function not called: %s",
                ag_last_error());

  /* Frames of another shape than the detector's, which pyFAI refuses too; a detector of no
     shape takes any. */
  bad = opt;
  bad.rows = 64, bad.cols = 64;
  CHECK_FAILS(ag_integrator_create(dev, &p, &bad, &integ), AG_ERR_MISMATCH, "ag_integrator_create",
              "opt->rows x opt->cols are 64 x 64, but the detector (ag_poni.rows x ag_poni.cols) is 64 x 48");
  ck_assert_ptr_null(integ);
  CHECK_OK(ag_integrator_create(dev, &noshape, &bad, &integ));
  ag_integrator_destroy(integ);
  bad.rows = 64, bad.cols = 48;
  CHECK_OK(ag_integrator_create(dev, &p, &bad, &integ));
  const ag_csr *shares;
  CHECK_OK(ag_integrator_csr(integ, &shares));
  double radial[10];
  CHECK_OK(ag_integrator_radial(integ, radial));
  ag_integrator *other = NULL;
  ag_poni wide = p;
  wide.cols = 64;
  CHECK_FAILS(ag_integrator_create_from_csr(dev, &wide, &bad, shares, radial, NULL, &other), AG_ERR_MISMATCH,
              "ag_integrator_create_from_csr", "is 64 x 64");
  ag_integrator_destroy(integ);

  /* A geometry that puts pixels beyond a double: pixels of 1e300 m in r, where pyFAI's bins
     are NaN; pixels of 1e37 m, whose float32 centres overflow, which pyFAI leaves out. */
  char huge_path[700];
  test_write_text("azint", "huge.poni", poni_huge, huge_path, sizeof huge_path);
  ag_poni huge;
  CHECK_OK(ag_poni_read(huge_path, &huge));
  bad = opt;
  bad.unit = AG_RADIAL_R_MM;
  CHECK_FAILS(ag_integrator_create(dev, &huge, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "pixel (0, 0) has a radial position (r_m) of inf");
  CHECK_MESSAGE_HAS("ag_poni.pixel1 1e+300 m");
  bad.split = AG_SPLIT_FULL;
  CHECK_FAILS(ag_integrator_create(dev, &huge, &bad, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "has a corner (radial position in r_m, chi) of");
  huge.pixel1 = huge.pixel2 = 1e37;
  CHECK_FAILS(ag_integrator_create(dev, &huge, &opt, &integ), AG_ERR_INVALID_ARGUMENT, "ag_integrator_create",
              "radial position (2th_rad) of nan");
  /* ... unless those pixels are masked */
  uint8_t mask[NPIX];
  double tth[NPIX];
  CHECK_OK(ag_geometry_radial(&huge, ROWS, COLS, AG_RADIAL_2TH_RAD, AG_PIXEL_CENTER, tth));
  size_t kept = 0;
  for (int k = 0; k < NPIX; k++)
    mask[k] = !isfinite(tth[k]), kept += !mask[k];
  ck_assert(kept > 0 && kept < NPIX);
  bad = opt;
  bad.mask = mask;
  bad.split = AG_SPLIT_NO;
  CHECK_OK(ag_integrator_create(dev, &huge, &bad, &integ));
  ag_integrator_destroy(integ);

  CHECK_OK(ag_integrator_create(dev, &p, &opt, &integ));
  ag_integrate_result res = {0};
  size_t wrong[2] = {ROWS, COLS + 1};
  ag_array *frame;
  CHECK_OK(ag_array_create(dev, AG_F32, 2, wrong, &frame));
  CHECK_FAILS(ag_integrate(NULL, integ, frame, &res), AG_ERR_MISMATCH, "ag_integrate", "frames");
  ck_assert_ptr_null(res.intensity);
  ag_array_free(frame);
  size_t right[2] = {ROWS, COLS};
  CHECK_OK(ag_array_create(dev, AG_C64, 2, right, &frame));
  CHECK_FAILS(ag_integrate(NULL, integ, frame, &res), AG_ERR_UNSUPPORTED, "ag_integrate", "frames");
  CHECK_FAILS(ag_integrate(NULL, NULL, frame, &res), AG_ERR_INVALID_ARGUMENT, "ag_integrate", "integ");
  CHECK_FAILS(ag_integrate(NULL, integ, NULL, &res), AG_ERR_INVALID_ARGUMENT, "ag_integrate", "frames");
  CHECK_FAILS(ag_integrate(NULL, integ, frame, NULL), AG_ERR_INVALID_ARGUMENT, "ag_integrate", "result");
  ag_array_free(frame);
  double centres[10];
  CHECK_FAILS(ag_integrator_azimuthal(integ, centres), AG_ERR_INVALID_ARGUMENT, "ag_integrator_azimuthal", "integ");
  CHECK_FAILS(ag_integrator_radial(integ, NULL), AG_ERR_INVALID_ARGUMENT, "ag_integrator_radial", "centres");
  ag_integrator_destroy(integ);
  ag_integrator_destroy(NULL);
  ag_integrate_result_free(NULL);
}
END_TEST

/* A new f32 frame of @p rows x @p cols pixels of @p value on @p dev. */
static ag_array *filled_frame(ag_device *dev, size_t rows, size_t cols, double value) {
  size_t shape[2] = {rows, cols};
  ag_array *frame;
  CHECK_OK(ag_array_create(dev, AG_F32, 2, shape, &frame));
  CHECK_OK(ag_fill(NULL, frame, value));
  return frame;
}

/* An integrator whose estimated memory exceeds what the host or the device has is refused
   before anything of its size is allocated: at once, naming the bins and the estimate. The
   process's address space is limited to what it maps plus 1 GB (not under AddressSanitizer,
   whose shadow memory needs more), so that an allocation made anyway fails rather than
   filling the machine; a size that fits still integrates. */
START_TEST(an_integrator_beyond_memory_is_refused_before_it_is_built) {
  ag_device *dev;
  CHECK_OK(ag_device_select("host", &dev));
  char poni_path[700];
  ag_poni p = load_poni(poni_plain, poni_path, sizeof poni_path);
  if (!UNDER_ASAN) {
    long page = sysconf(_SC_PAGESIZE);
    unsigned long mapped = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    ck_assert_msg(f != NULL && fscanf(f, "%lu", &mapped) == 1, "/proc/self/statm: %s", strerror(errno));
    fclose(f);
    struct rlimit rl = {.rlim_cur = mapped * (rlim_t)page + ((rlim_t)1 << 30), .rlim_max = RLIM_INFINITY};
    rl.rlim_max = rl.rlim_cur;
    ck_assert_int_eq(setrlimit(RLIMIT_AS, &rl), 0);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ag_integrator *integ = NULL;
  /* 2^30 bins: 8 GB of bin centres alone, more than the process may take */
  ag_integrate_options opt = {.npt_rad = (size_t)1 << 30, .unit = AG_RADIAL_2TH_DEG};
  CHECK_FAILS(ag_integrator_create(dev, &p, &opt, &integ), AG_ERR_OUT_OF_MEMORY, "ag_integrator_create",
              "opt->npt_rad (1073741824 bins) over 3072 pixels need an estimated");
  ck_assert_ptr_null(integ);
  opt = (ag_integrate_options){.npt_rad = 32768, .npt_azim = 32768, .split = AG_SPLIT_FULL};
  CHECK_FAILS(ag_integrator_create(dev, &p, &opt, &integ), AG_ERR_OUT_OF_MEMORY, "ag_integrator_create",
              "opt->npt_rad x opt->npt_azim (32768 x 32768 bins)");
  /* few bins, each pixel over thousands of them: the matrix's 3e8 entries are too many */
  opt = (ag_integrate_options){.npt_rad = 5000000, .unit = AG_RADIAL_2TH_DEG};
  if (!UNDER_ASAN) {
    CHECK_FAILS(ag_integrator_create(dev, &p, &opt, &integ), AG_ERR_OUT_OF_MEMORY, "ag_integrator_create",
                "opt->npt_rad (5000000 bins)");
    CHECK_MESSAGE_HAS("a matrix of");
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("%s: refused in %.3f s: %s\n", test_label(), seconds, ag_last_error());
  ck_assert_msg(seconds < 10, "the refusals took %.1f s", seconds);

  /* 200 000 bins fit: a frame of 3 gives 3 in every bin it reaches, and each pixel's shares
     sum to 1 (to the float32 rounding of some thousands of shares). */
  opt = (ag_integrate_options){.npt_rad = 200000, .unit = AG_RADIAL_2TH_DEG, .no_solid_angle = true};
  CHECK_OK(ag_integrator_create(dev, &p, &opt, &integ));
  ag_array *frame = filled_frame(dev, ROWS, COLS, 3.0);
  ag_integrate_result r;
  CHECK_OK(ag_integrate(NULL, integ, frame, &r));
  double *v = fetch(r.intensity), *count = fetch(r.count), total = 0;
  for (size_t k = 0; k < opt.npt_rad; k++) {
    total += count[k];
    if (count[k] > 0)
      ck_assert_msg(fabs(v[k] - 3) <= 3e-5, "bin %zu: %.9g", k, v[k]);
  }
  ck_assert_msg(fabs(total - NPIX) <= 1e-3 * NPIX, "the counts sum to %.9g of %d pixels", total, NPIX);
  free(v), free(count);
  ag_integrate_result_free(&r);
  ag_array_free(frame);
  ag_integrator_destroy(integ);
}
END_TEST

/* A device without double precision refuses an f64 engine; one with it runs it (the
   comparisons above). */
START_TEST(an_f64_engine_needs_double_precision) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  char poni_path[700];
  ag_poni p = load_poni(poni_plain, poni_path, sizeof poni_path);
  ag_integrate_options opt = {.npt_rad = 10, .dtype = AG_F64};
  ag_integrator *integ;
  if (info.fp64) {
    CHECK_OK(ag_integrator_create(dev, &p, &opt, &integ));
    ag_integrator_destroy(integ);
    printf("%s: has double precision; the f64 engine is compared with pyFAI above\n", test_label());
    return;
  }
  CHECK_FAILS(ag_integrator_create(dev, &p, &opt, &integ), AG_ERR_UNSUPPORTED, "ag_integrator_create", "opt->dtype");
  ck_assert_ptr_null(integ);
}
END_TEST

/* A bin of more pixels than the device's loop limit (rusticl's llvmpipe: 65535) is refused
   there, naming the limit; elsewhere it integrates: 300 x 300 pixels of the same value into
   one bin give that value. */
START_TEST(a_bin_beyond_the_loop_limit_is_refused_or_integrated) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  enum { SIDE = 300 };
  ag_poni p = {.dist = 0.1, .poni1 = 0.0151, .poni2 = 0.0149, .pixel1 = 1e-4, .pixel2 = 1e-4, .rows = SIDE,
               .cols = SIDE};
  ag_integrate_options opt = {.npt_rad = 1, .unit = AG_RADIAL_R_MM, .no_solid_angle = true};
  ag_integrator *integ;
  CHECK_OK(ag_integrator_create(dev, &p, &opt, &integ));
  ag_array *frame = filled_frame(dev, SIDE, SIDE, 7.0);
  ag_integrate_result r;
  if (info.max_loop_iterations != 0 && info.max_loop_iterations < SIDE * SIDE) {
    CHECK_FAILS(ag_integrate(NULL, integ, frame, &r), AG_ERR_UNSUPPORTED, "ag_integrate", "loop-limit");
    ck_assert_ptr_null(r.intensity);
    printf("%s: a bin of %d pixels is refused: %s\n", test_label(), SIDE * SIDE, ag_last_error());
  } else {
    CHECK_OK(ag_integrate(NULL, integ, frame, &r));
    float got[2];
    CHECK_OK(ag_array_to_host(r.intensity, got, sizeof(float)));
    CHECK_OK(ag_array_to_host(r.count, got + 1, sizeof(float)));
    ck_assert_msg(fabsf(got[0] - 7.0f) <= 7.0f * 1e-6f && got[1] > 0.99f * SIDE * SIDE,
                  "%s: one bin of %d pixels of 7: intensity %.9g, count %.9g", test_label(), SIDE * SIDE, got[0],
                  got[1]);
    ag_integrate_result_free(&r);
  }
  ag_array_free(frame);
  ag_integrator_destroy(integ);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  char why[600];
  bool pyfai = test_pyfai_available(why, sizeof why);
  Suite *own = pyfai ? s : suite_create("test_azint");
  if (strcmp(backend, "core") == 0) {
    if (pyfai) {
      add_core_test(s, "the 1-D matrix is pyFAI's, bbox and no split", the_1d_matrix_is_pyfais_bbox_and_no_split);
      add_core_test(s, "the 2-D matrix is pyFAI's, bbox and no split", the_2d_matrix_is_pyfais_bbox_and_no_split);
      add_core_test(s, "the 1-D matrix is pyFAI's, full splitting", the_1d_matrix_is_pyfais_full_split);
      add_core_test(s, "the 2-D matrix is pyFAI's, full splitting", the_2d_matrix_is_pyfais_full_split);
      add_core_test(s, "the matrix of pixels of 1e300 m is pyFAI's", the_matrix_of_pixels_of_1e300_m_is_pyfais);
    }
    add_core_test(own, "bad input is refused naming the argument", bad_input_is_refused_naming_the_argument);
    add_core_test(own, "an integrator beyond memory is refused before it is built",
                  an_integrator_beyond_memory_is_refused_before_it_is_built);
  } else {
    if (pyfai) {
      add_device_test(s, "1-D integrations match pyFAI", one_d_integrations_match_pyfai);
      add_device_test(s, "2-D integrations match pyFAI", two_d_integrations_match_pyfai);
      add_device_test(s, "full splitting integrations match pyFAI", full_split_integrations_match_pyfai);
      add_device_test(s, "non-finite pixels are integrated as pyFAI integrates them",
                      non_finite_pixels_are_integrated_as_pyfai_integrates_them);
    }
    add_device_test(own, "1-D integration matches a long double reference",
                    one_d_integration_matches_a_long_double_reference);
    add_device_test(own, "an f64 engine needs double precision", an_f64_engine_needs_double_precision);
    add_device_test(own, "a bin beyond the loop limit is refused or integrated",
                    a_bin_beyond_the_loop_limit_is_refused_or_integrated);
    add_device_test(own, "an integrator from an exported matrix gives the same results",
                    an_integrator_from_an_exported_matrix_gives_the_same_results);
    add_device_test(own, "a batch gives each frame its own results", a_batch_gives_each_frame_its_own_results);
    add_device_test(own, "scan axes are kept in the results", scan_axes_are_kept_in_the_results);
  }
  if (pyfai)
    return;
  test_run_without(own, "pyFAI", why);
}
