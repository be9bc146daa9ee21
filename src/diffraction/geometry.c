/* src/diffraction/geometry.c — pyFAI 0.21.3's per-pixel arrays for a flat detector
   (include/anygpu/diffraction.h), formula for formula as its Cython (ext/_geometry.pyx,
   14/09/2021) and numpy code computes them, in the same order of operations and with the same
   float32 steps, so that the results agree with pyFAI's bit for bit where both use the same
   libm. Where each step comes from is said beside it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seam.h"
#include "geometry.h"

/* The same operations in the same order give the same doubles only if the compiler fuses none
   into an FMA, which pyFAI's build (x86-64 without -mfma) never does. GCC fuses nothing in ISO
   C mode (-std=c11, this project's c_std), clang nothing under this pragma. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define PI 3.14159265358979323846 /* M_PI, numpy.pi */

/* ---- units ------------------------------------------------------------------------------- */

enum space { SPACE_2TH, SPACE_Q, SPACE_R };

/* pyFAI's units.py: each unit's name, the quantity its "space" computes, and the scale that
   takes that quantity (2th in rad, q in nm^-1, r in m) to the unit. */
static const struct {
  const char *name;
  enum space space;
  double scale;
} units[AG_RADIAL_UNIT_COUNT] = {
    [AG_RADIAL_2TH_DEG] = {"2th_deg", SPACE_2TH, 180.0 / PI},
    [AG_RADIAL_2TH_RAD] = {"2th_rad", SPACE_2TH, 1.0},
    [AG_RADIAL_Q_NM] = {"q_nm^-1", SPACE_Q, 1.0},
    [AG_RADIAL_Q_A] = {"q_A^-1", SPACE_Q, 0.1},
    [AG_RADIAL_R_MM] = {"r_mm", SPACE_R, 1000.0},
    [AG_RADIAL_R_M] = {"r_m", SPACE_R, 1.0},
};

const char *ag_radial_unit_name(ag_radial_unit unit) {
  return (unsigned)unit < AG_RADIAL_UNIT_COUNT ? units[unit].name : "unknown";
}

ag_status ag_radial_unit_from_name(const char *name, ag_radial_unit *unit) {
  AG__CHECK_NOT_NULL("ag_radial_unit_from_name", name);
  AG__CHECK_NOT_NULL("ag_radial_unit_from_name", unit);
  for (int u = 0; u < AG_RADIAL_UNIT_COUNT; u++) {
    if (strcmp(units[u].name, name) == 0) {
      *unit = (ag_radial_unit)u;
      return AG_OK;
    }
  }
  return ag__error(AG_ERR_INVALID_ARGUMENT,
                   "ag_radial_unit_from_name: name \"%.60s\" is not a radial unit (2th_deg, 2th_rad, q_nm^-1, "
                   "q_A^-1, r_mm, r_m)",
                   name);
}

/* ---- the detector's frame ---------------------------------------------------------------- */

/* The geometry, and the rotation's coefficients as _geometry.pyx's f_t1, f_t2 and f_t3 compute
   them (with p3 = L, a flat detector):
     t1 = p1 c2 c3 + p2 (c3 s1 s2 - c1 s3) - L (c1 c3 s2 + s1 s3)
     t2 = p1 c2 s3 + p2 (c1 c3 + s1 s2 s3) - L (-(c3 s1) + c1 s2 s3)
     t3 = p1 s2 - p2 c2 s1 + L c1 c2
   Each bracket is the same double whether computed per pixel, as pyFAI does, or once. */
typedef struct frame {
  double dist, poni1, poni2, pixel1, pixel2, wavelength;
  float pixel1_f, pixel2_f, poni1_f, poni2_f; /* each 0 where the double does not fit (below) */
  bool pixel1_wide, pixel2_wide, poni1_wide, poni2_wide;
  double c2, s2, c3, s3;
  double a12, a22;          /* p2's brackets in t1 and t2 */
  double l1, l2, l3;        /* L's terms: L (c1 c3 s2 + s1 s3), L (-(c3 s1) + c1 s2 s3), L c1 c2 */
  double s1;
} frame;

/* Whether numpy 1.24 computes an operation of a float32 array and the Python float @p v in
   float64: its value-based casting (min_scalar_type) keeps float32 for a value within
   (-3.4e38, 3.4e38), and takes float64 for one beyond, which float32 would make infinite. */
static bool wide(double v) { return !(v > -3.4e38 && v < 3.4e38); }

/* @p v rounded to float32, or 0 where it is wide() (and the conversion undefined). */
static float narrow(double v) { return wide(v) ? 0.0f : (float)v; }

static void frame_init(frame *f, const ag_poni *p) {
  f->dist = p->dist;
  f->poni1 = p->poni1;
  f->poni2 = p->poni2;
  f->pixel1 = p->pixel1;
  f->pixel2 = p->pixel2;
  f->wavelength = p->wavelength;
  f->pixel1_wide = wide(p->pixel1);
  f->pixel2_wide = wide(p->pixel2);
  f->poni1_wide = wide(p->poni1);
  f->poni2_wide = wide(p->poni2);
  f->pixel1_f = narrow(p->pixel1);
  f->pixel2_f = narrow(p->pixel2);
  f->poni1_f = narrow(p->poni1);
  f->poni2_f = narrow(p->poni2);
  double s1 = sin(p->rot1), c1 = cos(p->rot1);
  double s2 = sin(p->rot2), c2 = cos(p->rot2);
  double s3 = sin(p->rot3), c3 = cos(p->rot3);
  f->s1 = s1;
  f->c2 = c2;
  f->s2 = s2;
  f->c3 = c3;
  f->s3 = s3;
  f->a12 = c3 * s1 * s2 - c1 * s3;
  f->a22 = c1 * c3 + s1 * s2 * s3;
  f->l1 = p->dist * (c1 * c3 * s2 + s1 * s3);
  f->l2 = p->dist * (-(c3 * s1) + c1 * s2 * s3);
  f->l3 = p->dist * c1 * c2;
}

/* A point's coordinates in the sample's frame (t1 up, t2 across, t3 along the beam) from its
   offsets p1, p2 from the PONI on the detector. */
static void to_sample(const frame *f, double p1, double p2, double *t1, double *t2, double *t3) {
  *t1 = p1 * f->c2 * f->c3 + p2 * f->a12 - f->l1;
  *t2 = p1 * f->c2 * f->s3 + p2 * f->a22 - f->l2;
  *t3 = p1 * f->s2 - p2 * f->c2 * f->s1 + f->l3;
}

/* One centre offset: @p pixel x the float32 index @p d, minus @p poni, in numpy's types. */
static double centre_offset(float d, double pixel, float pixel_f, bool pixel_wide, double poni, float poni_f,
                            bool poni_wide) {
  if (pixel_wide) /* a float64 product, and a float64 difference */
    return pixel * (double)d - poni;
  float q = pixel_f * d;
  if (poni_wide)
    return (double)q - poni;
  return (float)(q - poni_f);
}

/* Pixel (i, j)'s centre offsets from the PONI, as twoThetaArray, chiArray and solidAngleArray
   get them: numpy.fromfunction(..., dtype=float32) gives float32 indices, and the detector's
   calc_cartesian_positions keeps numpy's float32 through pixel1 * (i + 0.5) and the
   subtraction of poni1 (each Python float operand rounded to float32 first), except where a
   size or a PONI is too large for float32 (wide()), which numpy computes in float64; the
   Cython then reads the values as doubles. */
static void centre_offsets(const frame *f, size_t i, size_t j, double *p1, double *p2) {
  float d1 = (float)i + 0.5f, d2 = (float)j + 0.5f;
  *p1 = centre_offset(d1, f->pixel1, f->pixel1_f, f->pixel1_wide, f->poni1, f->poni1_f, f->poni1_wide);
  *p2 = centre_offset(d2, f->pixel2, f->pixel2_f, f->pixel2_wide, f->poni2, f->poni2_f, f->poni2_wide);
}

/* Grid point (a, b)'s offsets, as corner_array gets them: float64 indices, pixel1 * a in
   double, and poni1 subtracted in the Cython (calc_rad_azim). */
static void corner_offsets(const frame *f, size_t a, size_t b, double *p1, double *p2) {
  *p1 = f->pixel1 * (double)a - f->poni1;
  *p2 = f->pixel2 * (double)b - f->poni2;
}

/* The radial quantity of @p space before scaling, as f_tth, f_q and f_r (and calc_rad_azim,
   which writes the same expressions out). */
static double radial(const frame *f, enum space space, double t1, double t2, double t3) {
  switch (space) {
  case SPACE_2TH:
    return atan2(sqrt(t1 * t1 + t2 * t2), t3);
  case SPACE_Q:
    return 4.0e-9 * PI / f->wavelength * sin(atan2(sqrt(t1 * t1 + t2 * t2), t3) / 2.0);
  case SPACE_R:
    break;
  }
  return sqrt(t1 * t1 + t2 * t2);
}

/* ---- checks ------------------------------------------------------------------------------ */

ag_status ag__poni_check(const char *fn, const ag_poni *poni) {
  const struct {
    const char *name;
    double v;
    int need; /* 0 any finite value, 1 positive, 2 not negative */
  } fields[] = {
      {"dist", poni->dist, 1},     {"pixel1", poni->pixel1, 1}, {"pixel2", poni->pixel2, 1},
      {"poni1", poni->poni1, 0},   {"poni2", poni->poni2, 0},   {"rot1", poni->rot1, 0},
      {"rot2", poni->rot2, 0},     {"rot3", poni->rot3, 0},     {"wavelength", poni->wavelength, 2},
  };
  for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    double v = fields[k].v;
    bool ok = isfinite(v) && (fields[k].need == 0 || (fields[k].need == 1 ? v > 0 : v >= 0));
    if (!ok)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ag_poni.%s is %g, which must be %s", fn, fields[k].name, v,
                       fields[k].need == 0 ? "finite" : fields[k].need == 1 ? "positive and finite"
                                                                             : "0 or positive and finite");
  }
  return AG_OK;
}

/* The checks every function makes: arguments, the geometry's fields, and that rows x cols x
   @p per_pixel doubles fit in memory. */
static ag_status check(const char *fn, const ag_poni *poni, size_t rows, size_t cols, size_t per_pixel,
                       const double *out) {
  AG__CHECK_NOT_NULL(fn, poni);
  AG__CHECK_NOT_NULL(fn, out);
  ag_status st = ag__poni_check(fn, poni);
  if (st != AG_OK)
    return st;
  if (cols != 0 && rows > SIZE_MAX / sizeof(double) / per_pixel / cols)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: rows %zu x cols %zu pixels overflow the output's size", fn, rows,
                     cols);
  return AG_OK;
}

static ag_status check_unit(const char *fn, const ag_poni *poni, ag_radial_unit unit) {
  if ((unsigned)unit >= AG_RADIAL_UNIT_COUNT)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: unit %d is not an ag_radial_unit", fn, (int)unit);
  if (units[unit].space == SPACE_Q && !(poni->wavelength > 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: unit %s needs ag_poni.wavelength, which is 0", fn,
                     units[unit].name);
  return AG_OK;
}

static ag_status check_part(const char *fn, ag_pixel_part part) {
  if (part != AG_PIXEL_CENTER && part != AG_PIXEL_DELTA)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: part %d is not AG_PIXEL_CENTER or AG_PIXEL_DELTA", fn, (int)part);
  return AG_OK;
}

/* ---- corners ----------------------------------------------------------------------------- */

/* One row of grid points, a, as corner_array keeps them: calc_rad_azim computes radial value
   and chi in double and stores them in a float32 array; pairs (radial, chi) per point. */
static void grid_row(const frame *f, enum space space, size_t a, size_t cols, float *row) {
  for (size_t b = 0; b <= cols; b++) {
    double p1, p2, t1, t2, t3;
    corner_offsets(f, a, b, &p1, &p2);
    to_sample(f, p1, p2, &t1, &t2, &t3);
    row[2 * b] = (float)radial(f, space, t1, t2, t3);
    row[2 * b + 1] = (float)atan2(t1, t2);
  }
}

/* Walks the grid two rows at a time, handing each pixel's four corners, in pyFAI's order
   (bilinear.convert_corner_2D_to_4D: (i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)), to
   @p visit as pointers to (radial, chi) float pairs. */
typedef void (*corner_visit)(void *ctx, size_t i, size_t j, const float *const corner[4]);

static ag_status walk_corners(const char *fn, const frame *f, enum space space, size_t rows, size_t cols,
                              corner_visit visit, void *ctx) {
  if (cols > SIZE_MAX / (4 * sizeof(float)) - 1)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: cols %zu overflows a row of corners", fn, cols);
  float *rowbuf = malloc(2 * 2 * (cols + 1) * sizeof(float));
  if (rowbuf == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no memory for two rows of %zu corners", fn, cols + 1);
  float *top = rowbuf, *bottom = rowbuf + 2 * (cols + 1);
  grid_row(f, space, 0, cols, top);
  for (size_t i = 0; i < rows; i++) {
    grid_row(f, space, i + 1, cols, bottom);
    for (size_t j = 0; j < cols; j++) {
      const float *const corner[4] = {top + 2 * j, bottom + 2 * j, bottom + 2 * (j + 1), top + 2 * (j + 1)};
      visit(ctx, i, j, corner);
    }
    float *t = top;
    top = bottom;
    bottom = t;
  }
  free(rowbuf);
  return AG_OK;
}

typedef struct corners_out {
  float scale;
  size_t cols;
  double *out;
} corners_out;

/* corner_array(scale=True) multiplies the float32 radial values by the scale in float32
   (tmp[..., 0] *= unit.scale). */
static void write_corners(void *ctx, size_t i, size_t j, const float *const corner[4]) {
  corners_out *c = ctx;
  double *o = c->out + (i * c->cols + j) * 8;
  for (int k = 0; k < 4; k++) {
    float r = corner[k][0] * c->scale;
    o[2 * k] = r;
    o[2 * k + 1] = corner[k][1];
  }
}

ag_status ag_geometry_corners(const ag_poni *poni, size_t rows, size_t cols, ag_radial_unit unit, double *out) {
  const char *fn = "ag_geometry_corners";
  ag_status st = check(fn, poni, rows, cols, 8, out);
  if (st == AG_OK)
    st = check_unit(fn, poni, unit);
  if (st != AG_OK || rows == 0 || cols == 0)
    return st;
  frame f;
  frame_init(&f, poni);
  corners_out c = {(float)units[unit].scale, cols, out};
  return walk_corners(fn, &f, units[unit].space, rows, cols, write_corners, &c);
}

/* ---- centres and spreads ----------------------------------------------------------------- */

/* Pixel (i, j)'s centre in the sample's frame. */
static void centre_sample(const frame *f, size_t i, size_t j, double *t1, double *t2, double *t3) {
  double p1, p2;
  centre_offsets(f, i, j, &p1, &p2);
  to_sample(f, p1, p2, t1, t2, t3);
}

typedef struct spread {
  const frame *f;
  enum space space;
  double scale;
  size_t cols;
  double *out;
} spread;

/* delta2Theta, deltaQ, deltaR: abs(corners[..., 0] - center[..., None]).max(axis=-1), the
   float32 corners widened to double, the centre unscaled (twoThetaArray, qArray, rArray);
   array_from_unit then multiplies by unit.scale in double. */
static void radial_spread(void *ctx, size_t i, size_t j, const float *const corner[4]) {
  const spread *s = ctx;
  double t1, t2, t3;
  centre_sample(s->f, i, j, &t1, &t2, &t3);
  double centre = radial(s->f, s->space, t1, t2, t3);
  double largest = fabs((double)corner[0][0] - centre);
  for (int k = 1; k < 4; k++) {
    double d = fabs((double)corner[k][0] - centre);
    if (d > largest || isnan(d)) /* numpy's max propagates a NaN (inf - inf: a geometry beyond doubles) */
      largest = d;
  }
  s->out[i * s->cols + j] = largest * s->scale;
}

/* calc_delta_chi against chiArray: per corner, min((co - ce + 2pi) % 2pi, (ce - co + 2pi) %
   2pi) with C's fmod (the module is built with cdivision=True), the largest of them, from 0. */
static void chi_spread(void *ctx, size_t i, size_t j, const float *const corner[4]) {
  const spread *s = ctx;
  const double twopi = 2.0 * PI;
  double t1, t2, t3;
  centre_sample(s->f, i, j, &t1, &t2, &t3);
  double ce = atan2(t1, t2), delta = 0.0;
  for (int k = 0; k < 4; k++) {
    double co = corner[k][1];
    double delta1 = fmod(co - ce + twopi, twopi);
    double delta2 = fmod(ce - co + twopi, twopi);
    double delta0 = delta1 < delta2 ? delta1 : delta2;
    if (delta0 > delta)
      delta = delta0;
  }
  s->out[i * s->cols + j] = delta;
}

ag_status ag_geometry_radial(const ag_poni *poni, size_t rows, size_t cols, ag_radial_unit unit,
                             ag_pixel_part part, double *out) {
  const char *fn = "ag_geometry_radial";
  ag_status st = check(fn, poni, rows, cols, 1, out);
  if (st == AG_OK)
    st = check_unit(fn, poni, unit);
  if (st == AG_OK)
    st = check_part(fn, part);
  if (st != AG_OK || rows == 0 || cols == 0)
    return st;
  frame f;
  frame_init(&f, poni);
  spread s = {&f, units[unit].space, units[unit].scale, cols, out};
  if (part == AG_PIXEL_DELTA)
    return walk_corners(fn, &f, s.space, rows, cols, radial_spread, &s);
  /* twoThetaArray, qArray, rArray (calc_tth, calc_q, calc_r), then array_from_unit's
     multiplication by unit.scale, in double. */
  for (size_t i = 0; i < rows; i++) {
    for (size_t j = 0; j < cols; j++) {
      double t1, t2, t3;
      centre_sample(&f, i, j, &t1, &t2, &t3);
      out[i * cols + j] = radial(&f, s.space, t1, t2, t3) * s.scale;
    }
  }
  return AG_OK;
}

ag_status ag_geometry_chi(const ag_poni *poni, size_t rows, size_t cols, ag_pixel_part part, double *out) {
  const char *fn = "ag_geometry_chi";
  ag_status st = check(fn, poni, rows, cols, 1, out);
  if (st == AG_OK)
    st = check_part(fn, part);
  if (st != AG_OK || rows == 0 || cols == 0)
    return st;
  frame f;
  frame_init(&f, poni);
  if (part == AG_PIXEL_DELTA) {
    /* deltaChi takes whichever corner array is cached, else computes r's: chi is the same in
       every space. */
    spread s = {&f, SPACE_R, 1.0, cols, out};
    return walk_corners(fn, &f, SPACE_R, rows, cols, chi_spread, &s);
  }
  /* chiArray (calc_chi): atan2(t1, t2), the discontinuity at pi. */
  for (size_t i = 0; i < rows; i++) {
    for (size_t j = 0; j < cols; j++) {
      double t1, t2, t3;
      centre_sample(&f, i, j, &t1, &t2, &t3);
      out[i * cols + j] = atan2(t1, t2);
    }
  }
  return AG_OK;
}

/* ---- corrections ------------------------------------------------------------------------- */

ag_status ag_geometry_solid_angle(const ag_poni *poni, size_t rows, size_t cols, double *out) {
  ag_status st = check("ag_geometry_solid_angle", poni, rows, cols, 1, out);
  if (st != AG_OK)
    return st;
  frame f;
  frame_init(&f, poni);
  double L = f.dist;
  for (size_t i = 0; i < rows; i++) {
    for (size_t j = 0; j < cols; j++) {
      double p1, p2;
      centre_offsets(&f, i, j, &p1, &p2);
      /* calc_cosa's f_cosa, then diffSolidAngle's cosa ** 3.0 (numpy's power, libm's pow). */
      double cosa = L / sqrt((L * L) + ((p1 * p1) + (p2 * p2)));
      out[i * cols + j] = pow(cosa, 3.0);
    }
  }
  return AG_OK;
}

ag_status ag_geometry_polarization(const ag_poni *poni, size_t rows, size_t cols, double factor,
                                   double axis_offset, double *out) {
  const char *fn = "ag_geometry_polarization";
  ag_status st = check(fn, poni, rows, cols, 1, out);
  if (st != AG_OK)
    return st;
  if (!isfinite(factor) || !isfinite(axis_offset))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is %g, which must be finite", fn,
                     isfinite(factor) ? "axis_offset" : "factor", isfinite(factor) ? axis_offset : factor);
  frame f;
  frame_init(&f, poni);
  for (size_t i = 0; i < rows; i++) {
    for (size_t j = 0; j < cols; j++) {
      double t1, t2, t3;
      centre_sample(&f, i, j, &t1, &t2, &t3);
      double tth = atan2(sqrt(t1 * t1 + t2 * t2), t3);
      double chi = atan2(t1, t2);
      /* Geometry.polarization: cos2_tth = numpy.cos(tth) ** 2 (numpy squares), then
         0.5 * (1.0 + cos2_tth - factor * cos(2.0 * (chi + axis_offset)) * (1.0 - cos2_tth)),
         stored as float32. */
      double c = cos(tth);
      double cos2_tth = c * c;
      double pola = 0.5 * (1.0 + cos2_tth - factor * cos(2.0 * (chi + axis_offset)) * (1.0 - cos2_tth));
      out[i * cols + j] = (float)pola;
    }
  }
  return AG_OK;
}
