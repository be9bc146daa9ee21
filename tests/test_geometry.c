/* tests/test_geometry.c — diffraction geometry (diffraction.h): PONI files, the per-pixel
   arrays against analytic values, and against pyFAI 0.21.3 itself (tests/pyfai_geometry.py,
   run by the build's Python, python.h) for three geometries; and the .npy reader and writer the
   comparison uses (tests/npy.h).

   Where that Python does not import pyFAI 0.21, the other tcases run here, in suite_build, and
   the executable then exits 77 (SKIP) with the reason if they passed, or 1 under
   -Dreferences=required: the comparison with pyFAI is never reported as passed when it did
   not run. */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy.h"
#include "python.h"
#include "runner.h"

static double *alloc_doubles(size_t n) {
  double *p = malloc((n ? n : 1) * sizeof *p);
  ck_assert_ptr_nonnull(p);
  return p;
}

/* ---- analytic values --------------------------------------------------------------------- */

/* Pixels of 2^-13 m by 2^-12 m, the PONI at the centre of pixel (I0, J0): every float32 step
   pyFAI takes on a pixel centre is exact, so the arrays can be checked against the exact
   formulas to a few ulps. */
enum { ROWS = 64, COLS = 48, I0 = 20, J0 = 30 };
static const double PX1 = 1.0 / 8192, PX2 = 1.0 / 4096;

static ag_poni grid_poni(void) {
  ag_poni p = {.dist = 0.05, .poni1 = (I0 + 0.5) * PX1, .poni2 = (J0 + 0.5) * PX2, .wavelength = 1e-10,
               .pixel1 = PX1, .pixel2 = PX2, .rows = ROWS, .cols = COLS};
  snprintf(p.detector, sizeof p.detector, "Detector");
  return p;
}

/* Centre offsets from the PONI along axis 1 (y) and axis 2 (x). */
static double y_of(int i) { return (i - I0) * PX1; }
static double x_of(int j) { return (j - J0) * PX2; }

static void check_close(double got, double want, double rel, const char *what, int i, int j) {
  ck_assert_msg(fabs(got - want) <= rel * fabs(want) + 1e-300, "%s at pixel (%d, %d): %.17g, expected %.17g", what, i,
                j, got, want);
}

START_TEST(two_theta_is_the_arctangent_of_the_offset_over_the_distance) {
  ag_poni p = grid_poni();
  double *tth = alloc_doubles(ROWS * COLS), *deg = alloc_doubles(ROWS * COLS), *r = alloc_doubles(ROWS * COLS),
         *r_mm = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_2TH_RAD, AG_PIXEL_CENTER, tth));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_2TH_DEG, AG_PIXEL_CENTER, deg));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_R_M, AG_PIXEL_CENTER, r));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_R_MM, AG_PIXEL_CENTER, r_mm));
  /* atan2(sqrt(x² + y²), d) against atan(hypot(x, y) / d): a few ulps apart. */
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      double h = hypot(x_of(j), y_of(i)), want = atan(h / p.dist);
      check_close(tth[i * COLS + j], want, 1e-14, "2th_rad", i, j);
      check_close(deg[i * COLS + j], want * 180 / M_PI, 1e-14, "2th_deg", i, j);
      check_close(r[i * COLS + j], h, 1e-15, "r_m", i, j);
      check_close(r_mm[i * COLS + j], h * 1000, 1e-15, "r_mm", i, j);
    }
  ck_assert_double_eq(tth[I0 * COLS + J0], 0.0);
  free(tth), free(deg), free(r), free(r_mm);

  /* 75 µm pixels are not exact in float32: pyFAI's centres, and these, are within ~1e-7. */
  ag_poni q = {.dist = 0.2, .poni1 = 0.01234, .poni2 = 0.02345, .pixel1 = 75e-6, .pixel2 = 75e-6};
  double got[4 * 5];
  CHECK_OK(ag_geometry_radial(&q, 4, 5, AG_RADIAL_2TH_RAD, AG_PIXEL_CENTER, got));
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) {
      double x = (j + 0.5) * 75e-6 - q.poni2, y = (i + 0.5) * 75e-6 - q.poni1;
      check_close(got[i * 5 + j], atan(hypot(x, y) / q.dist), 1e-6, "2th_rad with 75 um pixels", i, j);
    }
}
END_TEST

START_TEST(chi_is_the_angle_from_axis_2_towards_axis_1) {
  ag_poni p = grid_poni();
  double *chi = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_chi(&p, ROWS, COLS, AG_PIXEL_CENTER, chi));
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      check_close(chi[i * COLS + j], atan2(y_of(i), x_of(j)), 1e-15, "chi", i, j);
  /* The four directions: along +x 0, +y π/2, -y -π/2, and -x π: the discontinuity at π, with
     chi in (-π, π] for the pixels on it. */
  ck_assert_double_eq(chi[I0 * COLS + J0 + 5], 0.0);
  ck_assert_double_eq_tol(chi[(I0 + 5) * COLS + J0], M_PI / 2, 1e-15);
  ck_assert_double_eq_tol(chi[(I0 - 5) * COLS + J0], -M_PI / 2, 1e-15);
  ck_assert_double_eq(chi[I0 * COLS + J0 - 5], M_PI);
  free(chi);
}
END_TEST

START_TEST(q_follows_from_two_theta_and_the_wavelength) {
  ag_poni p = grid_poni();
  double *tth = alloc_doubles(ROWS * COLS), *q_nm = alloc_doubles(ROWS * COLS), *q_a = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_2TH_RAD, AG_PIXEL_CENTER, tth));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_Q_NM, AG_PIXEL_CENTER, q_nm));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_Q_A, AG_PIXEL_CENTER, q_a));
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      /* q = 4π sin(2θ/2) / λ, λ in nm for nm^-1 and in Å for Å^-1. */
      double want = 4 * M_PI * sin(tth[i * COLS + j] / 2) / (p.wavelength * 1e9);
      check_close(q_nm[i * COLS + j], want, 1e-14, "q_nm^-1", i, j);
      check_close(q_a[i * COLS + j], 4 * M_PI * sin(tth[i * COLS + j] / 2) / (p.wavelength * 1e10), 1e-14, "q_A^-1",
                  i, j);
    }
  free(tth), free(q_nm), free(q_a);
}
END_TEST

START_TEST(the_solid_angle_is_the_cube_of_the_incidence_cosine) {
  ag_poni p = grid_poni();
  double *sa = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_solid_angle(&p, ROWS, COLS, sa));
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      double x = x_of(j), y = y_of(i), c = p.dist / sqrt(p.dist * p.dist + x * x + y * y);
      check_close(sa[i * COLS + j], c * c * c, 1e-14, "solid angle", i, j);
    }
  ck_assert_double_eq(sa[I0 * COLS + J0], 1.0);
  free(sa);
}
END_TEST

/* Unpolarised light gives (1 + cos²2θ)/2; light polarised along axis 2 (factor 1) gives cos²2θ
   along axis 2 (chi 0) and 1 along axis 1 (chi π/2); factor -1 the other way round. pyFAI
   stores the correction as float32. */
START_TEST(polarization_at_factors_0_and_plus_minus_1) {
  ag_poni p = grid_poni();
  double *pol = alloc_doubles(ROWS * COLS), *tth = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_2TH_RAD, AG_PIXEL_CENTER, tth));
  const int along2 = I0 * COLS + J0 + 12, along1 = (I0 + 25) * COLS + J0;
  const double factors[3] = {0, 1, -1};
  for (int f = 0; f < 3; f++) {
    CHECK_OK(ag_geometry_polarization(&p, ROWS, COLS, factors[f], 0, pol));
    for (int k = 0; k < ROWS * COLS; k++)
      ck_assert_msg(pol[k] == (double)(float)pol[k], "factor %g: pixel %d is %.17g, not a float", factors[f], k,
                    pol[k]);
    for (int k = 0; k < 2; k++) {
      int at = k == 0 ? along2 : along1;
      double c2 = cos(tth[at]) * cos(tth[at]);
      double want = factors[f] == 0 ? (1 + c2) / 2 : (factors[f] == 1) == (k == 0) ? c2 : 1.0;
      check_close(pol[at], want, 1.2e-7, factors[f] == 0 ? "factor 0" : factors[f] == 1 ? "factor 1" : "factor -1",
                  at / COLS, at % COLS);
    }
    ck_assert_double_eq(pol[I0 * COLS + J0], 1.0);
  }
  /* An axis offset of π/2 turns factor 1 into factor -1. */
  double *turned = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_polarization(&p, ROWS, COLS, 1, M_PI / 2, turned));
  check_close(turned[along2], 1.0, 1.2e-7, "factor 1 turned by pi/2", I0, J0 + 12);
  free(pol), free(tth), free(turned);
}
END_TEST

/* With the PONI below and left of the detector every pixel lies in one quadrant, where 2θ
   grows with both offsets and chi grows with y and falls with x: corner 0 (i, j) has the
   smallest 2θ, corner 2 (i + 1, j + 1) the largest, corner 1 (i + 1, j) the largest chi and
   corner 3 (i, j + 1) the smallest, and the centre lies strictly between. */
START_TEST(the_corners_of_a_pixel_bracket_its_centre) {
  ag_poni p = grid_poni();
  p.poni1 = -0.001;
  p.poni2 = -0.002;
  double *c = alloc_doubles(ROWS * COLS * 8), *tth = alloc_doubles(ROWS * COLS), *chi = alloc_doubles(ROWS * COLS),
         *delta = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_corners(&p, ROWS, COLS, AG_RADIAL_2TH_RAD, c));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_2TH_RAD, AG_PIXEL_CENTER, tth));
  CHECK_OK(ag_geometry_chi(&p, ROWS, COLS, AG_PIXEL_CENTER, chi));
  CHECK_OK(ag_geometry_radial(&p, ROWS, COLS, AG_RADIAL_2TH_RAD, AG_PIXEL_DELTA, delta));
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++) {
      const double *k = c + (size_t)(i * COLS + j) * 8;
      double t = tth[i * COLS + j], h = chi[i * COLS + j];
      ck_assert_msg(k[0] < t && t < k[4], "pixel (%d, %d): 2th %.9g not between corners 0 and 2 (%.9g, %.9g)", i, j,
                    t, k[0], k[4]);
      ck_assert_msg(k[7] < h && h < k[3], "pixel (%d, %d): chi %.9g not between corners 3 and 1 (%.9g, %.9g)", i, j,
                    h, k[7], k[3]);
      /* Each corner is its grid point, rounded to float as pyFAI keeps corners. */
      for (int n = 0; n < 4; n++) {
        int a = i + (n == 1 || n == 2), b = j + (n == 2 || n == 3);
        double x = b * PX2 - p.poni2, y = a * PX1 - p.poni1;
        ck_assert_double_eq(k[2 * n], (double)(float)atan(hypot(x, y) / p.dist));
        ck_assert_double_eq(k[2 * n + 1], (double)(float)atan2(y, x));
      }
      /* The spread is the largest distance from the centre to a corner, exactly. */
      double largest = 0;
      for (int n = 0; n < 4; n++)
        largest = fmax(largest, fabs(k[2 * n] - t));
      ck_assert_double_eq(delta[i * COLS + j], largest);
    }
  free(c), free(tth), free(chi), free(delta);
}
END_TEST

/* A pixel on chi's discontinuity (along -x) has corners near +π and near -π; its spread in chi
   is measured round the circle, so it stays as small as its neighbours'. */
START_TEST(the_chi_spread_of_a_pixel_on_the_discontinuity_is_small) {
  ag_poni p = grid_poni();
  double *c = alloc_doubles(ROWS * COLS * 8), *dchi = alloc_doubles(ROWS * COLS);
  CHECK_OK(ag_geometry_corners(&p, ROWS, COLS, AG_RADIAL_2TH_DEG, c));
  CHECK_OK(ag_geometry_chi(&p, ROWS, COLS, AG_PIXEL_DELTA, dchi));
  for (int j = 0; j < J0 - 2; j++) {
    const double *k = c + (size_t)(I0 * COLS + j) * 8;
    ck_assert_msg(k[1] < -3 && k[3] > 3, "pixel (%d, %d): corners' chi %g and %g do not straddle pi", I0, j, k[1],
                  k[3]);
    double want = atan2(0.5 * PX1, fabs(x_of(j)) - 0.5 * PX2); /* the nearest corner's angle */
    ck_assert_msg(fabs(dchi[I0 * COLS + j] - want) < 1e-6, "pixel (%d, %d): chi spread %g, expected %g", I0, j,
                  dchi[I0 * COLS + j], want);
  }
  free(c), free(dchi);
}
END_TEST

/* ---- PONI files ---------------------------------------------------------------------------- */

/* As pyFAI 0.21.3 writes them (Geometry.save). */
static const char poni_v2[] = "# Nota: C-Order, 1 refers to the Y axis, 2 to the X axis \n"
                              "# Calibration done at Thu Nov 26 00:14:15 2026\n"
                              "poni_version: 2\n"
                              "Detector: Detector\n"
                              "Detector_config: {\"pixel1\": 7.5e-05, \"pixel2\": 0.000172, \"max_shape\": [1065, 1030]}\n"
                              "Distance: 0.1\n"
                              "Poni1: 0.04\n"
                              "Poni2: 0.05\n"
                              "Rot1: 0.1\n"
                              "Rot2: -0.05\n"
                              "Rot3: 0.3\n"
                              "Wavelength: 1e-10\n";

static const char poni_v1[] = "# Calibration done at Mon Sep 12 10:00:00 2016\n"
                              "PixelSize1: 0.0001\n"
                              "PixelSize2: 0.0002\n"
                              "Distance: 0.25\n"
                              "Poni1: -0.01\n"
                              "Poni2: 0.125\n"
                              "Rot1: 0\n"
                              "Rot2: 0\n"
                              "Rot3: 0\n"
                              "SplineFile: None\n"
                              "Wavelength: 7.0e-11\n";

START_TEST(poni_files_of_version_2_and_1_are_read) {
  ag_poni p;
  CHECK_OK(ag_poni_parse(poni_v2, &p));
  ck_assert_double_eq(p.dist, 0.1);
  ck_assert_double_eq(p.poni1, 0.04);
  ck_assert_double_eq(p.poni2, 0.05);
  ck_assert_double_eq(p.rot1, 0.1);
  ck_assert_double_eq(p.rot2, -0.05);
  ck_assert_double_eq(p.rot3, 0.3);
  ck_assert_double_eq(p.wavelength, 1e-10);
  ck_assert_double_eq(p.pixel1, 7.5e-05);
  ck_assert_double_eq(p.pixel2, 0.000172);
  ck_assert_uint_eq(p.rows, 1065);
  ck_assert_uint_eq(p.cols, 1030);
  ck_assert_str_eq(p.detector, "Detector");

  CHECK_OK(ag_poni_parse(poni_v1, &p));
  ck_assert_double_eq(p.dist, 0.25);
  ck_assert_double_eq(p.poni1, -0.01);
  ck_assert_double_eq(p.poni2, 0.125);
  ck_assert_double_eq(p.rot1, 0.0);
  ck_assert_double_eq(p.wavelength, 7.0e-11);
  ck_assert_double_eq(p.pixel1, 0.0001);
  ck_assert_double_eq(p.pixel2, 0.0002);
  ck_assert_uint_eq(p.rows, 0);
  ck_assert_uint_eq(p.cols, 0);
  ck_assert_str_eq(p.detector, "Detector");

  /* From a file, the same. */
  char path[600];
  ag_poni f;
  CHECK_OK(ag_poni_read(test_write_text("geometry", "v2.poni", poni_v2, path, sizeof path), &f));
  CHECK_OK(ag_poni_parse(poni_v2, &p));
  ck_assert_int_eq(memcmp(&f, &p, sizeof p), 0);
}
END_TEST

START_TEST(crlf_comments_blank_lines_and_equals_signs_are_taken) {
  const char *text = "# a comment: with a colon\r\n"
                     "\r\n"
                     "   # an indented comment\r\n"
                     "a line without a separator is skipped, as pyFAI skips it\r\n"
                     "poni_version = 2\r\n"
                     "DETECTOR :  Detector  \r\n"
                     "detector_config: {\"pixel1\":1e-4,\"pixel2\": 2e-4 , \"max_shape\" : null}\r\n"
                     "distance=0.3\r\n"
                     "Poni1: 1.5e-2\r\n"
                     "Rot3: -0.25\r\n"
                     "Distance: 0.35\r\n"; /* a key given twice keeps its last value, as in pyFAI */
  ag_poni p;
  CHECK_OK(ag_poni_parse(text, &p));
  ck_assert_double_eq(p.dist, 0.35);
  ck_assert_double_eq(p.poni1, 1.5e-2);
  ck_assert_double_eq(p.poni2, 0.0);
  ck_assert_double_eq(p.rot3, -0.25);
  ck_assert_double_eq(p.wavelength, 0.0);
  ck_assert_double_eq(p.pixel1, 1e-4);
  ck_assert_double_eq(p.pixel2, 2e-4);
  ck_assert_uint_eq(p.rows, 0);
}
END_TEST

START_TEST(named_detectors_take_their_pixels_from_the_table) {
  ag_poni p;
  CHECK_OK(ag_poni_parse("poni_version: 2\nDetector: Pilatus1M\nDetector_config: {}\nDistance: 0.2\n", &p));
  ck_assert_str_eq(p.detector, "Pilatus1M");
  ck_assert_double_eq(p.pixel1, 172e-6);
  ck_assert_double_eq(p.pixel2, 172e-6);
  ck_assert_uint_eq(p.rows, 1043);
  ck_assert_uint_eq(p.cols, 981);
  /* pyFAI's registry names, in any case, in version 1 too. */
  CHECK_OK(ag_poni_parse("Detector: EIGER_4M\nDistance: 0.2\n", &p));
  ck_assert_str_eq(p.detector, "Eiger4M");
  ck_assert_double_eq(p.pixel1, 75e-6);
  ck_assert_uint_eq(p.rows, 2167);
  ck_assert_uint_eq(p.cols, 2070);
  CHECK_OK(ag_poni_parse("Detector: pilatus 6m\nDistance: 0.2\n", &p));
  ck_assert_str_eq(p.detector, "Pilatus6M");
  /* A version 2.1 file of a later pyFAI, orientation 3; a max_shape in the config wins. */
  CHECK_OK(ag_poni_parse("poni_version: 2.1\nDetector: Eiger2_1M\nDetector_config: {\"orientation\": 3, "
                         "\"max_shape\": [100, 200]}\nDistance: 0.2\n",
                         &p));
  ck_assert_double_eq(p.pixel2, 75e-6);
  ck_assert_uint_eq(p.rows, 100);
  ck_assert_uint_eq(p.cols, 200);
  /* Another name with its pixel sizes in the file is a flat grid of them. */
  CHECK_OK(ag_poni_parse("poni_version: 2\nDetector: Mar345\nDetector_config: {\"pixel1\": 0.0001, \"pixel2\": "
                         "0.0001}\nDistance: 0.2\n",
                         &p));
  ck_assert_str_eq(p.detector, "Mar345");
  ck_assert_double_eq(p.pixel1, 1e-4);
}
END_TEST

START_TEST(bad_poni_input_is_refused_naming_the_key) {
  ag_poni p, untouched;
  memset(&untouched, 0x5a, sizeof untouched);
  p = untouched;
  static const struct {
    const char *text;
    ag_status want;
    const char *names; /* in the message, besides the function */
  } bad[] = {
      {"Detector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4}\nponi_version: 2\n",
       AG_ERR_INVALID_ARGUMENT, "Distance"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4}\nDistance: 0.1\n"
       "Poni1: 0.0.1\n",
       AG_ERR_INVALID_ARGUMENT, "Poni1"},
      {"PixelSize1: 1e-4\nPixelSize2: 1e-4\nDistance: 0.1\nRot2: nan\n", AG_ERR_INVALID_ARGUMENT, "Rot2"},
      {"PixelSize1: 1e-4\nPixelSize2: 1e-4\nDistance: 0.1\nWavelength: 1e-10 m\n", AG_ERR_INVALID_ARGUMENT,
       "Wavelength"},
      {"PixelSize1: 1e-4\nPixelSize2: 1e-4\nDistance: -0.1\n", AG_ERR_INVALID_ARGUMENT, "Distance"},
      {"PixelSize1: 1e-4\nPixelSize2: 0\nDistance: 0.1\n", AG_ERR_INVALID_ARGUMENT, "PixelSize2"},
      {"PixelSize1: 1e-4\nDistance: 0.1\n", AG_ERR_INVALID_ARGUMENT, "PixelSize2"},
      {"Distance: 0.1\n", AG_ERR_INVALID_ARGUMENT, "PixelSize1"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": -1e-4, \"pixel2\": 1e-4}\nDistance: 0.1\n",
       AG_ERR_INVALID_ARGUMENT, "pixel1"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4}\nDistance: 0.1\n",
       AG_ERR_INVALID_ARGUMENT, "pixel2"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4\nDistance: 0.1\n",
       AG_ERR_INVALID_ARGUMENT, "Detector_config"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: [1e-4, 1e-4]\nDistance: 0.1\n", AG_ERR_INVALID_ARGUMENT,
       "Detector_config"},
      {"poni_version: 2\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4}\nDistance: 0.1\n",
       AG_ERR_INVALID_ARGUMENT, "Detector"},
      {"poni_version: 7\nDistance: 0.1\n", AG_ERR_UNSUPPORTED, "poni_version"},
      {"poni_version: 2\nDetector: Mar345\nDetector_config: {}\nDistance: 0.1\n", AG_ERR_UNSUPPORTED,
       "Detector_config"},
      {"Detector: Frelon\nDistance: 0.1\n", AG_ERR_UNSUPPORTED, "Frelon"},
      {"poni_version: 2\nDetector: ImXPadS10\nDetector_config: {\"pixel1\": 1.3e-4, \"pixel2\": 1.3e-4}\n"
       "Distance: 0.1\n",
       AG_ERR_UNSUPPORTED, "ImXPadS10"},
      {"PixelSize1: 1e-4\nPixelSize2: 1e-4\nDistance: 0.1\nSplineFile: /data/frelon.spline\n", AG_ERR_UNSUPPORTED,
       "SplineFile"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4, \"splineFile\": "
       "\"f.spline\"}\nDistance: 0.1\n",
       AG_ERR_UNSUPPORTED, "splineFile"},
      {"poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4, \"radius\": 0.3}\n"
       "Distance: 0.1\n",
       AG_ERR_UNSUPPORTED, "radius"},
      {"poni_version: 2.1\nDetector: Detector\nDetector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4, "
       "\"orientation\": 1}\nDistance: 0.1\n",
       AG_ERR_UNSUPPORTED, "orientation"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    CHECK_FAILS(ag_poni_parse(bad[k].text, &p), bad[k].want, "ag_poni_parse", bad[k].names);
    ck_assert_msg(memcmp(&p, &untouched, sizeof p) == 0, "case %zu: a refused parse wrote its output", k);
  }
  /* The line is named where there is one. */
  CHECK_FAILS(ag_poni_parse(bad[1].text, &p), AG_ERR_INVALID_ARGUMENT, "line 5", "0.0.1");
  CHECK_FAILS(ag_poni_parse(NULL, &p), AG_ERR_INVALID_ARGUMENT, "ag_poni_parse", "text");
  CHECK_FAILS(ag_poni_parse(poni_v1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_poni_parse", "out");

  /* ag_poni_read names the file, and the line. */
  char path[600], missing[600];
  snprintf(missing, sizeof missing, "%s/no-such.poni", test_tmp_dir("geometry"));
  CHECK_FAILS(ag_poni_read(missing, &p), AG_ERR_INVALID_ARGUMENT, "ag_poni_read", missing);
  CHECK_MESSAGE_HAS("No such file");
  test_write_text("geometry", "bad.poni", bad[1].text, path, sizeof path);
  CHECK_FAILS(ag_poni_read(path, &p), AG_ERR_INVALID_ARGUMENT, "ag_poni_read", path);
  CHECK_MESSAGE_HAS("line 5: Poni1");
  CHECK_FAILS(ag_poni_read(test_tmp_dir("geometry"), &p), AG_ERR_INVALID_ARGUMENT, "ag_poni_read", test_tmp_dir("geometry"));
  ck_assert_int_eq(memcmp(&p, &untouched, sizeof p), 0);
}
END_TEST

/* ---- numbers as pyFAI reads them --------------------------------------------------------- */

/* What a value's text gives: a number, a refusal as not a number, or a refusal as not finite
   (which pyFAI takes, and then integrates into bins of 0 or NaN). */
typedef enum number_outcome { READ, NOT_A_NUMBER, NOT_FINITE } number_outcome;

/* Values of Poni1 (which may be 0) and what each gives. pyFAI 0.21.3 reads every value with
   Python's float(); the pyFAI tcase below checks this table against it value by value, except
   the last, the one difference: float() takes other scripts' digits (U+0661 ARABIC-INDIC DIGIT
   ONE is 1.0), which this reader refuses. */
static const struct {
  const char *text;
  number_outcome outcome;
  double value;
  bool pyfai_differs;
} poni_numbers[] = {
    {"0.0125", READ, 0.0125, false},   {"+1", READ, 1, false},          {"-.5", READ, -0.5, false},
    {"5.", READ, 5, false},            {"1e-1", READ, 0.1, false},      {"1E-1", READ, 0.1, false},
    {"1.5e+2", READ, 150, false},      {"1_0", READ, 10, false},        {"1_0.5_5e1_0", READ, 1.055e11, false},
    {"1e-400", READ, 0, false},        {"4.9e-324", READ, 4.9e-324, false},
    {"0x10", NOT_A_NUMBER, 0, false},  {"0b1", NOT_A_NUMBER, 0, false}, {"1d0", NOT_A_NUMBER, 0, false},
    {"1.0f", NOT_A_NUMBER, 0, false},  {"1e", NOT_A_NUMBER, 0, false},  {"1__0", NOT_A_NUMBER, 0, false},
    {"_10", NOT_A_NUMBER, 0, false},   {"1_", NOT_A_NUMBER, 0, false},  {"1_.5", NOT_A_NUMBER, 0, false},
    {"1._5", NOT_A_NUMBER, 0, false},  {".", NOT_A_NUMBER, 0, false},   {"0.0.1", NOT_A_NUMBER, 0, false},
    {"1 m", NOT_A_NUMBER, 0, false},   {"infinit", NOT_A_NUMBER, 0, false},
    {"inf", NOT_FINITE, 0, false},     {"-Infinity", NOT_FINITE, 0, false}, {"iNf", NOT_FINITE, 0, false},
    {"nan", NOT_FINITE, 0, false},     {"-NaN", NOT_FINITE, 0, false},  {"1e400", NOT_FINITE, 0, false},
    {"\xd9\xa1", NOT_A_NUMBER, 0, true},
};

static const char poni_number_head[] = "poni_version: 2\nDetector: Detector\n"
                                       "Detector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4}\nDistance: 0.1\n";

START_TEST(poni_numbers_are_read_as_pythons_float_reads_them) {
  for (size_t k = 0; k < sizeof poni_numbers / sizeof poni_numbers[0]; k++) {
    char text[400];
    snprintf(text, sizeof text, "%sPoni1: %s\n", poni_number_head, poni_numbers[k].text);
    ag_poni p;
    ag_status st = ag_poni_parse(text, &p);
    switch (poni_numbers[k].outcome) {
    case READ:
      ck_assert_msg(st == AG_OK, "Poni1: %s: refused: %s", poni_numbers[k].text, ag_last_error());
      ck_assert_msg(p.poni1 == poni_numbers[k].value, "Poni1: %s: read as %.17g, not %.17g", poni_numbers[k].text,
                    p.poni1, poni_numbers[k].value);
      break;
    case NOT_A_NUMBER:
      CHECK_FAILS(st, AG_ERR_INVALID_ARGUMENT, "line 5: Poni1", "is not a number");
      break;
    case NOT_FINITE:
      CHECK_FAILS(st, AG_ERR_INVALID_ARGUMENT, "line 5: Poni1", "is not finite");
      break;
    }
  }
  /* Detector_config is JSON, read as Python's json reads it: no '+', no leading zero, no
     trailing point; NaN and Infinity are JSON's own spellings, and not finite. */
  static const struct {
    const char *pixel1;
    const char *says;
  } config[] = {{"+1e-4", "is not a number"}, {"01e-4", "is not a number"}, {"1.e-4", "is not a number"},
                {"0x1", "is not a number"}, {"NaN", "is not finite"}, {"-Infinity", "is not finite"}};
  for (size_t k = 0; k < sizeof config / sizeof config[0]; k++) {
    char text[400];
    snprintf(text, sizeof text, "poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": %s, \"pixel2\": "
             "1e-4}\nDistance: 0.1\n", config[k].pixel1);
    ag_poni p;
    CHECK_FAILS(ag_poni_parse(text, &p), AG_ERR_INVALID_ARGUMENT, "line 3: Detector_config", config[k].says);
  }
  ag_poni p;
  CHECK_OK(ag_poni_parse("poni_version: 2\nDetector: Detector\nDetector_config: {\"pixel1\": 1.5E-4, \"pixel2\": "
                         "2E-4}\nDistance: 1_0\n", &p));
  ck_assert_double_eq(p.pixel1, 1.5e-4);
  ck_assert_double_eq(p.pixel2, 2e-4);
  ck_assert_double_eq(p.dist, 10);
}
END_TEST

/* pyFAI 0.21.3 itself on each value of the table: a value read here is pyFAI's bit for bit, one
   refused as not a number pyFAI refuses too (float()'s ValueError), and one refused as not
   finite pyFAI takes as inf or nan. */
START_TEST(pyfai_reads_poni_numbers_as_the_table_says) {
  enum { N = sizeof poni_numbers / sizeof poni_numbers[0] };
  static char paths[N][600];
  char *args[N + 4] = {"python3", "-c",
                       "import sys, logging\n"
                       "logging.disable(logging.CRITICAL)\n"
                       "import pyFAI\n"
                       "for path in sys.argv[1:]:\n"
                       "    try:\n"
                       "        print(repr(pyFAI.load(path).poni1))\n"
                       "    except ValueError:\n"
                       "        print('refused')\n"};
  for (size_t k = 0; k < N; k++) {
    char name[32], text[400];
    snprintf(name, sizeof name, "number%zu.poni", k);
    snprintf(text, sizeof text, "%sPoni1: %s\n", poni_number_head, poni_numbers[k].text);
    test_write_text("geometry", name, text, paths[k], sizeof paths[k]);
    args[3 + k] = paths[k];
  }
  args[3 + N] = NULL;
  char out[8192];
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "pyFAI exited with %d:\n%s", rc, out);
  char *line = out;
  for (size_t k = 0; k < N; k++) {
    char *end = strchr(line, '\n');
    ck_assert_msg(end != NULL, "pyFAI printed %zu lines for %d values:\n%s", k, (int)N, out);
    *end = '\0';
    bool refused = strcmp(line, "refused") == 0;
    double v = refused ? 0 : strtod(line, NULL);
    number_outcome theirs = refused ? NOT_A_NUMBER : isfinite(v) ? READ : NOT_FINITE;
    printf("Poni1: %-14s pyFAI: %-12s here: %s\n", poni_numbers[k].text, line,
           poni_numbers[k].outcome == READ ? "read" : poni_numbers[k].outcome == NOT_FINITE ? "not finite"
                                                                                          : "not a number");
    if (poni_numbers[k].pyfai_differs)
      ck_assert_msg(theirs != poni_numbers[k].outcome, "Poni1: %s: pyFAI now agrees (%s); update the table",
                    poni_numbers[k].text, line);
    else
      ck_assert_msg(theirs == poni_numbers[k].outcome && (theirs != READ || v == poni_numbers[k].value),
                    "Poni1: %s: pyFAI gives %s", poni_numbers[k].text, line);
    line = end + 1;
  }
}
END_TEST

/* ---- refused geometry calls ------------------------------------------------------------------ */

START_TEST(bad_geometry_calls_are_refused_and_leave_the_output) {
  ag_poni p = grid_poni();
  double out[6] = {7, 7, 7, 7, 7, 7};
  CHECK_FAILS(ag_geometry_radial(NULL, 2, 3, AG_RADIAL_2TH_DEG, AG_PIXEL_CENTER, out), AG_ERR_INVALID_ARGUMENT,
              "ag_geometry_radial", "poni");
  CHECK_FAILS(ag_geometry_chi(&p, 2, 3, AG_PIXEL_CENTER, NULL), AG_ERR_INVALID_ARGUMENT, "ag_geometry_chi", "out");
  CHECK_FAILS(ag_geometry_radial(&p, 2, 3, (ag_radial_unit)AG_RADIAL_UNIT_COUNT, AG_PIXEL_CENTER, out),
              AG_ERR_INVALID_ARGUMENT, "ag_geometry_radial", "unit");
  CHECK_FAILS(ag_geometry_chi(&p, 2, 3, (ag_pixel_part)2, out), AG_ERR_INVALID_ARGUMENT, "ag_geometry_chi", "part");
  CHECK_FAILS(ag_geometry_polarization(&p, 2, 3, NAN, 0, out), AG_ERR_INVALID_ARGUMENT, "ag_geometry_polarization",
              "factor");
  CHECK_FAILS(ag_geometry_solid_angle(&p, SIZE_MAX / 4, 3, out), AG_ERR_OUT_OF_RANGE, "ag_geometry_solid_angle",
              "rows");
  ag_poni no_wavelength = p;
  no_wavelength.wavelength = 0;
  CHECK_FAILS(ag_geometry_radial(&no_wavelength, 2, 3, AG_RADIAL_Q_A, AG_PIXEL_DELTA, out), AG_ERR_INVALID_ARGUMENT,
              "ag_geometry_radial", "ag_poni.wavelength");
  CHECK_FAILS(ag_geometry_corners(&no_wavelength, 2, 3, AG_RADIAL_Q_NM, out), AG_ERR_INVALID_ARGUMENT,
              "ag_geometry_corners", "ag_poni.wavelength");
  /* Fields are named as a C caller sets them, ag_poni's. */
  no_wavelength.wavelength = -1e-10;
  CHECK_FAILS(ag_geometry_chi(&no_wavelength, 2, 3, AG_PIXEL_CENTER, out), AG_ERR_INVALID_ARGUMENT,
              "ag_geometry_chi", "ag_poni.wavelength is -1e-10");
  const char *fields[] = {"ag_poni.dist", "ag_poni.pixel1", "ag_poni.pixel2", "ag_poni.rot1"};
  for (int k = 0; k < 4; k++) {
    ag_poni q = p;
    double *v = k == 0 ? &q.dist : k == 1 ? &q.pixel1 : k == 2 ? &q.pixel2 : &q.rot1;
    *v = k < 3 ? 0.0 : INFINITY;
    CHECK_FAILS(ag_geometry_solid_angle(&q, 2, 3, out), AG_ERR_INVALID_ARGUMENT, "ag_geometry_solid_angle",
                fields[k]);
  }
  for (int k = 0; k < 6; k++)
    ck_assert_double_eq(out[k], 7);
  /* An empty image is nothing to do. */
  CHECK_OK(ag_geometry_corners(&p, 0, 3, AG_RADIAL_R_MM, out));
  CHECK_OK(ag_geometry_chi(&p, 2, 0, AG_PIXEL_DELTA, out));
  ck_assert_double_eq(out[0], 7);
}
END_TEST

START_TEST(radial_units_are_named_as_pyfai_names_them) {
  const char *names[AG_RADIAL_UNIT_COUNT] = {"2th_deg", "2th_rad", "q_nm^-1", "q_A^-1", "r_mm", "r_m"};
  for (int u = 0; u < AG_RADIAL_UNIT_COUNT; u++) {
    ck_assert_str_eq(ag_radial_unit_name((ag_radial_unit)u), names[u]);
    ag_radial_unit back;
    CHECK_OK(ag_radial_unit_from_name(names[u], &back));
    ck_assert_int_eq(back, u);
  }
  ck_assert_str_eq(ag_radial_unit_name((ag_radial_unit)-1), "unknown");
  ag_radial_unit u;
  CHECK_FAILS(ag_radial_unit_from_name("q_nm", &u), AG_ERR_INVALID_ARGUMENT, "ag_radial_unit_from_name", "q_nm");
}
END_TEST

/* ---- .npy files ---------------------------------------------------------------------------- */

/* Writes a .npy file by hand: @p version, the header dict @p dict (padded as numpy pads it),
   then @p nbytes of @p data. */
static const char *write_npy_by_hand(const char *name, int version, const char *dict, const void *data,
                                     size_t nbytes, char *path, size_t size) {
  snprintf(path, size, "%s/%s", test_tmp_dir("geometry"), name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  size_t pre = version == 1 ? 10 : 12, hlen = (pre + strlen(dict) + 1 + 63) / 64 * 64 - pre;
  unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)version, 0};
  for (size_t k = 0; k < pre - 8; k++)
    head[8 + k] = (unsigned char)(hlen >> (8 * k));
  fwrite(head, 1, pre, f);
  fprintf(f, "%-*s\n", (int)hlen - 1, dict);
  fwrite(data, 1, nbytes, f);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

START_TEST(npy_files_round_trip_and_refuse_what_they_cannot_hold) {
  char path[600], err[800];
  const double f8[12] = {0, -1.5, 1e-300, 3.25, 1e300, -0.0, 7, 8, 9, 10, 11, 0.1};
  const float f4[5] = {1.5f, -2.25f, 3e-38f, 4, 5};
  const uint8_t u1[8] = {0, 1, 2, 3, 252, 253, 254, 255};
  const uint16_t u2[1] = {65535};
  const uint32_t u4[1] = {0};
  const int32_t i4[6] = {-2147483647 - 1, -1, 0, 1, 2147483647, 42};
  const struct {
    npy_dtype t;
    int ndim;
    size_t shape[3];
    const void *data;
  } arrays[] = {{NPY_F8, 2, {3, 4}, f8}, {NPY_F4, 1, {5}, f4},     {NPY_U1, 3, {2, 2, 2}, u1},
                {NPY_U2, 0, {0}, u2},    {NPY_U4, 1, {0}, u4},     {NPY_I4, 2, {2, 3}, i4}};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
    snprintf(path, sizeof path, "%s/a%zu.npy", test_tmp_dir("geometry"), k);
    ck_assert_msg(npy_write(path, arrays[k].t, arrays[k].ndim, arrays[k].shape, arrays[k].data, err, sizeof err),
                  "%s", err);
    npy_array a;
    ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s", err);
    ck_assert_int_eq(a.dtype, arrays[k].t);
    ck_assert_int_eq(a.ndim, arrays[k].ndim);
    size_t count = 1;
    for (int d = 0; d < a.ndim; d++) {
      ck_assert_uint_eq(a.shape[d], arrays[k].shape[d]);
      count *= arrays[k].shape[d];
    }
    ck_assert_uint_eq(a.count, count);
    if (count == 0)
      ck_assert_ptr_null(a.data);
    else
      CHECK_BYTES(a.data, arrays[k].data, count * npy_dtype_size(a.dtype), npy_dtype_descr(a.dtype));
    /* numpy's layout: the data starts at a multiple of 64. */
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(((size_t)st.st_size - count * npy_dtype_size(a.dtype)) % 64, 0);
    npy_free(&a);
  }
  npy_array a;
  const double two[2] = {0.5, -0.25};
  ck_assert_msg(npy_read(write_npy_by_hand("v2.npy", 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                                           two, sizeof two, path, sizeof path),
                         &a, err, sizeof err),
                "%s", err);
  ck_assert_double_eq(npy_get(&a, 1), -0.25);
  npy_free(&a);

  const struct {
    int version;
    const char *dict;
    size_t nbytes;
    const char *says;
  } bad[] = {
      {1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", 16, ">f8"},
      {1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2,), }", 16, "Fortran"},
      {1, "{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", 32, "<c16"},
      {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 16, "16 bytes"},
      {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 16, "more data"},
      {1, "{'descr': '<f8', 'fortran_order': False, 'shape': 2, }", 16, "shape"},
      {4, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16, "version 4"},
  };
  const double data[4] = {1, 2, 3, 4};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    write_npy_by_hand("bad.npy", bad[k].version, bad[k].dict, data, bad[k].nbytes, path, sizeof path);
    ck_assert_msg(!npy_read(path, &a, err, sizeof err), "case %zu was read", k);
    ck_assert_msg(strstr(err, path) != NULL && strstr(err, bad[k].says) != NULL,
                  "case %zu: \"%s\" should name the file and \"%s\"", k, err, bad[k].says);
    ck_assert_ptr_null(a.data);
  }
  test_write_text("geometry", "text.npy", "not numpy", path, sizeof path);
  ck_assert(!npy_read(path, &a, err, sizeof err) && strstr(err, "magic") != NULL);
  snprintf(path, sizeof path, "%s/missing.npy", test_tmp_dir("geometry"));
  ck_assert(!npy_read(path, &a, err, sizeof err) && strstr(err, "No such file") != NULL);
}
END_TEST

/* ---- pyFAI itself ---------------------------------------------------------------------------- */

/* How closely an array must agree with pyFAI's, and why:
   - DOUBLE: computed in double by the same formulas in the same order, calling the same libm
     (glibc's, whichever variant it picks for this CPU), so identical: at least 99% of the
     values identical, which a formula or an order of operations of its own would not give;
     the rest within 1e-12 relative, room for an ulp or two amplified by the cancellation in
     the rotation (terms of size dist for results of size pixel), with an absolute floor of
     1e-15 of the array's largest value for values near 0 (chi near 0).
   - NUMPY_POW: the solid angle, whose cos³ numpy takes with its own power, which may be
     AVX-512 SVML code a few ulps from libm's: within 1e-12 relative, no count of identical. 
   - FLOAT: stored as float32 by pyFAI; a double a few ulps off may round to the next float, so
     one float ulp (2^-23 relative), but at least 99.9% of the values identical, which a missed
     float rounding (half an ulp everywhere) would not give.
   - FROM_FLOATS: differences of float32 corners and a double centre (delta arrays); a corner
     one float ulp off moves them by 2^-23 of the corners' magnitude; 99.9% identical. */
typedef enum agreement { DOUBLE, NUMPY_POW, FLOAT, FROM_FLOATS } agreement;

/* Compares @p n values of @p ours with pyFAI's @p name.npy in @p dir, printing the largest
   differences; @p magnitude is the corners' largest value for FROM_FLOATS. */
static void compare(const char *label, const char *dir, const char *name, const double *ours, size_t n,
                    agreement how, double magnitude) {
  char path[700], err[800];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  npy_array a;
  ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s", err);
  npy_dtype want = how == FLOAT ? NPY_F4 : NPY_F8;
  ck_assert_msg(a.dtype == want && a.count == n, "%s: pyFAI's %s is %s of %zu values, expected %s of %zu", label,
                name, npy_dtype_descr(a.dtype), a.count, npy_dtype_descr(want), n);
  /* An absurd geometry gives inf and NaN: those must be pyFAI's exactly (NaN for NaN). */
  double largest = 0, max_abs = 0, max_rel = 0;
  for (size_t k = 0; k < n; k++)
    if (isfinite(npy_get(&a, k)))
      largest = fmax(largest, fabs(npy_get(&a, k)));
  size_t identical = 0, worst = 0;
  double worst_excess = -1;
  for (size_t k = 0; k < n; k++) {
    double theirs = npy_get(&a, k);
    bool same = ours[k] == theirs || (isnan(ours[k]) && isnan(theirs));
    double d = same ? 0 : fabs(ours[k] - theirs);
    identical += same;
    if (isfinite(d))
      max_abs = fmax(max_abs, d);
    if (theirs != 0 && isfinite(d))
      max_rel = fmax(max_rel, d / fabs(theirs));
    double tol = how == FLOAT         ? 0x1p-23 * fabs(theirs)
                 : how == FROM_FLOATS ? 0x1p-23 * magnitude + 1e-12 * fabs(theirs)
                                      : 1e-12 * fabs(theirs) + 1e-15 * largest;
    double excess = isfinite(d) ? d - tol : INFINITY;
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = k;
    }
  }
  printf("%s: %-16s largest difference %.3g, relative %.3g; %zu of %zu identical\n", label, name, max_abs, max_rel,
         identical, n);
  ck_assert_msg(worst_excess <= 0, "%s: %s[%zu] is %.17g, pyFAI's %.17g: beyond the tolerance", label, name, worst,
                ours[worst], npy_get(&a, worst));
  size_t need = how == NUMPY_POW ? 0 : how == DOUBLE ? n - n / 100 : n - n / 1000;
  ck_assert_msg(identical >= need, "%s: %s: only %zu of %zu values identical to pyFAI's", label, name, identical, n);
  npy_free(&a);
}

/* Writes @p poni_text to a file, has tests/pyfai_geometry.py write pyFAI's arrays for it, reads
   the file with ag_poni_read, and compares every array; rows and cols 0 take the PONI's. */
static void check_against_pyfai(const char *label, const char *poni_text, size_t rows, size_t cols) {
  char poni_path[600], dir[600], out[8192];
  test_write_text("geometry", "geometry.poni", poni_text, poni_path, sizeof poni_path);
  snprintf(dir, sizeof dir, "%s/pyfai", test_tmp_dir("geometry"));
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  ag_poni p;
  CHECK_OK(ag_poni_read(poni_path, &p));
  if (rows == 0) {
    rows = p.rows;
    cols = p.cols;
  }
  const char *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  char script[600], rs[32], cs[32];
  snprintf(script, sizeof script, "%s/pyfai_geometry.py", src && *src ? src : "tests");
  ck_assert_msg(access(script, R_OK) == 0, "%s: %s: %s (ANYGPU_TEST_SOURCE_DIR names the tests' folder)", label,
                script, strerror(errno));
  snprintf(rs, sizeof rs, "%zu", rows);
  snprintf(cs, sizeof cs, "%zu", cols);
  char *const args[] = {"python3", script, poni_path, dir, rs, cs, NULL};
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", label, script, rc, out);
  printf("%s: %zu x %zu pixels of %g x %g m, detector %s\n", label, rows, cols, p.pixel1, p.pixel2, p.detector);

  size_t n = rows * cols;
  double *ours = alloc_doubles(n * 8), *centre = alloc_doubles(n);
  const ag_radial_unit units[] = {AG_RADIAL_2TH_DEG, AG_RADIAL_2TH_RAD, AG_RADIAL_Q_NM,
                                  AG_RADIAL_Q_A,     AG_RADIAL_R_MM,    AG_RADIAL_R_M};
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    char name[64], unit[32];
    snprintf(unit, sizeof unit, "%s", ag_radial_unit_name(units[u]));
    for (char *c = strchr(unit, '^'); c; c = strchr(c, '^'))
      memmove(c, c + 1, strlen(c));
    CHECK_OK(ag_geometry_radial(&p, rows, cols, units[u], AG_PIXEL_CENTER, centre));
    snprintf(name, sizeof name, "center_%s", unit);
    compare(label, dir, name, centre, n, DOUBLE, 0);
    double magnitude = 0;
    for (size_t k = 0; k < n; k++)
      magnitude = fmax(magnitude, 1.01 * fabs(centre[k]));
    CHECK_OK(ag_geometry_radial(&p, rows, cols, units[u], AG_PIXEL_DELTA, ours));
    snprintf(name, sizeof name, "delta_%s", unit);
    compare(label, dir, name, ours, n, FROM_FLOATS, magnitude);
    CHECK_OK(ag_geometry_corners(&p, rows, cols, units[u], ours));
    snprintf(name, sizeof name, "corners_%s", unit);
    compare(label, dir, name, ours, n * 8, FLOAT, 0);
  }
  CHECK_OK(ag_geometry_chi(&p, rows, cols, AG_PIXEL_CENTER, ours));
  compare(label, dir, "chi", ours, n, DOUBLE, 0);
  CHECK_OK(ag_geometry_chi(&p, rows, cols, AG_PIXEL_DELTA, ours));
  compare(label, dir, "delta_chi", ours, n, FROM_FLOATS, M_PI);
  CHECK_OK(ag_geometry_solid_angle(&p, rows, cols, ours));
  compare(label, dir, "solid_angle", ours, n, NUMPY_POW, 0);
  CHECK_OK(ag_geometry_polarization(&p, rows, cols, 0.95, 0, ours));
  compare(label, dir, "polarization_0.95", ours, n, FLOAT, 0);
  CHECK_OK(ag_geometry_polarization(&p, rows, cols, -0.5, 0, ours));
  compare(label, dir, "polarization_-0.5", ours, n, FLOAT, 0);
  free(ours);
  free(centre);
}

/* Pixels of 1e300 m, beyond float32: numpy computes their centres in float64 where the rest
   stay float32, and r overflows to inf (and its spreads to NaN) in pyFAI as here. */
START_TEST(pyfai_agrees_for_pixels_of_1e300_m) {
  check_against_pyfai("pixels of 1e300 m",
                      "poni_version: 2\nDetector: Detector\n"
                      "Detector_config: {\"pixel1\": 1e300, \"pixel2\": 1e300, \"max_shape\": [12, 10]}\n"
                      "Distance: 0.1\nPoni1: 0.002\nPoni2: 0.003\nRot1: 0.1\nRot2: 0.05\nRot3: 0.2\n"
                      "Wavelength: 1e-10\n",
                      0, 0);
}
END_TEST

/* A PONI of 1e300 m with pixels of 100 µm: numpy subtracts it in float64. */
START_TEST(pyfai_agrees_for_a_poni_of_1e300_m) {
  check_against_pyfai("a PONI of 1e300 m",
                      "poni_version: 2\nDetector: Detector\n"
                      "Detector_config: {\"pixel1\": 1e-4, \"pixel2\": 1e-4, \"max_shape\": [12, 10]}\n"
                      "Distance: 0.1\nPoni1: 1e300\nPoni2: 0.003\nRot1: 0.1\nRot2: 0.05\nRot3: 0.2\n"
                      "Wavelength: 1e-10\n",
                      0, 0);
}
END_TEST

START_TEST(pyfai_agrees_without_rotation) {
  check_against_pyfai("no rotation",
                      "poni_version: 2\nDetector: Detector\n"
                      "Detector_config: {\"pixel1\": 0.0001, \"pixel2\": 0.00015, \"max_shape\": [200, 300]}\n"
                      "Distance: 0.1\nPoni1: 0.0123\nPoni2: 0.0234\nRot1: 0\nRot2: 0\nRot3: 0\n"
                      "Wavelength: 1.0332e-10\n",
                      0, 0);
}
END_TEST

/* A version 1 file; the PONI beyond the detector's edge along both axes. */
START_TEST(pyfai_agrees_with_three_rotations) {
  check_against_pyfai("three rotations",
                      "PixelSize1: 0.000172\nPixelSize2: 0.000172\nDistance: 0.15\nPoni1: -0.012\nPoni2: 0.05\n"
                      "Rot1: 0.1\nRot2: -0.05\nRot3: 0.3\nSplineFile: None\nWavelength: 7.3e-11\n",
                      250, 180);
}
END_TEST

/* 1065 x 1030 pixels of 75 µm, from the detector table (Detector_config is {}). */
START_TEST(pyfai_agrees_for_a_tilted_eiger) {
  check_against_pyfai("tilted Eiger1M",
                      "poni_version: 2\nDetector: Eiger1M\nDetector_config: {}\nDistance: 0.2\nPoni1: 0.041\n"
                      "Poni2: 0.0385\nRot1: 0.21\nRot2: 0.13\nRot3: -1.2\nWavelength: 1.54e-10\n",
                      0, 0);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") != 0)
    return;
  char why[600];
  bool pyfai = test_pyfai_available(why, sizeof why);
  Suite *own = pyfai ? s : suite_create("test_geometry");
  add_core_test(own, "2th is the arctangent of the offset over the distance",
                two_theta_is_the_arctangent_of_the_offset_over_the_distance);
  add_core_test(own, "chi is the angle from axis 2 towards axis 1", chi_is_the_angle_from_axis_2_towards_axis_1);
  add_core_test(own, "q follows from 2th and the wavelength", q_follows_from_two_theta_and_the_wavelength);
  add_core_test(own, "the solid angle is the cube of the incidence cosine",
                the_solid_angle_is_the_cube_of_the_incidence_cosine);
  add_core_test(own, "polarization at factors 0 and plus or minus 1", polarization_at_factors_0_and_plus_minus_1);
  add_core_test(own, "the corners of a pixel bracket its centre", the_corners_of_a_pixel_bracket_its_centre);
  add_core_test(own, "the chi spread of a pixel on the discontinuity is small",
                the_chi_spread_of_a_pixel_on_the_discontinuity_is_small);
  add_core_test(own, "PONI files of version 2 and 1 are read", poni_files_of_version_2_and_1_are_read);
  add_core_test(own, "CRLF, comments, blank lines and equals signs are taken",
                crlf_comments_blank_lines_and_equals_signs_are_taken);
  add_core_test(own, "named detectors take their pixels from the table",
                named_detectors_take_their_pixels_from_the_table);
  add_core_test(own, "bad PONI input is refused naming the key", bad_poni_input_is_refused_naming_the_key);
  add_core_test(own, "PONI numbers are read as Python's float() reads them",
                poni_numbers_are_read_as_pythons_float_reads_them);
  add_core_test(own, "bad geometry calls are refused and leave the output",
                bad_geometry_calls_are_refused_and_leave_the_output);
  add_core_test(own, "radial units are named as pyFAI names them", radial_units_are_named_as_pyfai_names_them);
  add_core_test(own, ".npy files round-trip every dtype and refuse what they cannot hold",
                npy_files_round_trip_and_refuse_what_they_cannot_hold);
  if (pyfai) {
    add_core_test(s, "the arrays agree with pyFAI 0.21.3 without rotation", pyfai_agrees_without_rotation);
    add_core_test(s, "the arrays agree with pyFAI 0.21.3 with three rotations and the PONI off the detector",
                  pyfai_agrees_with_three_rotations);
    add_core_test(s, "the arrays agree with pyFAI 0.21.3 for a tilted Eiger 1M", pyfai_agrees_for_a_tilted_eiger);
    add_core_test(s, "pyFAI 0.21.3 reads PONI numbers as the table says", pyfai_reads_poni_numbers_as_the_table_says);
    add_core_test(s, "the arrays agree with pyFAI 0.21.3 for pixels of 1e300 m", pyfai_agrees_for_pixels_of_1e300_m);
    add_core_test(s, "the arrays agree with pyFAI 0.21.3 for a PONI of 1e300 m", pyfai_agrees_for_a_poni_of_1e300_m);
    return;
  }
  test_run_without(own, "pyFAI", why);
}
