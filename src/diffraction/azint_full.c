/* src/diffraction/azint_full.c - full pixel splitting (azint_plan.h): the bins and the sparse
   matrix of pixel shares as pyFAI 0.21.3 builds them for method ("full", "csr", "cython")
   (ext/splitPixelFullCSR.pyx's FullSplitCSR_1d and FullSplitCSR_2d, whose boundaries and
   shares come from ext/splitpixel_common.pyx's calc_boundaries and FullSplitIntegrator, and
   its helpers in ext/regrid_common.pxi). Each pixel is the quadrilateral of its four corners
   (ag_geometry_corners in the unit's base, chi in radians) and is shared between bins by the
   area of it that falls in each, with pyFAI's float32 steps and quirks, each said where it is
   matched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam.h"
#include "azint_plan.h"

/* The areas are sums of many float32 roundings; matching pyFAI's needs the same operations in
   the same order, none fused into an FMA (GCC fuses none in ISO C mode, clang none under this
   pragma). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define PI 3.14159265358979323846 /* M_PI */
#define TWO_PI (2.0 * PI)         /* regrid_common's twopi, a double */
#define PI_F ((double)(float)PI)  /* regrid_common's pi, a C float */

/* ---- a pixel's corners ----------------------------------------------------------------------- */

/* A pixel's corners are 8 doubles, v[2k] corner k's radial position and v[2k + 1] its chi, in
   ag_geometry_corners' order A, B, C, D. */

/* area4p: the approximate signed area of ABCD, with pyFAI's bracket as it is (only the first
   product halved). Its sign tells a pixel whose chi wraps round the discontinuity. */
static double area4p(const double *v) {
  return 0.5 * ((v[4] - v[0]) * (v[7] - v[3])) - ((v[5] - v[1]) * (v[6] - v[2]));
}

/* _recenter with the discontinuity at π (chiDiscAtPi): a pixel of positive area4p has its
   negative chi moved a turn on, and back a turn when their mean is then beyond π (float32 π),
   so that its corners' chi are continuous. */
static void recenter(double *v) {
  if (!(area4p(v) > 0))
    return;
  for (int k = 0; k < 4; k++) {
    if (v[2 * k + 1] < 0)
      v[2 * k + 1] += TWO_PI;
  }
  double c = 0.25 * (v[1] + v[3] + v[5] + v[7]);
  if (c > PI_F) {
    for (int k = 0; k < 4; k++)
      v[2 * k + 1] -= TWO_PI;
  }
}

/* _calc_area: the integral from i1 to i2 of the line slope * x + intercept. */
static double calc_area(double i1, double i2, double slope, double intercept) {
  return (i2 - i1) * (0.5 * slope * (i2 + i1) + intercept);
}

/* _calc_area's float32 specialisation, which _integrate2d's calls get wherever an end is a
   float (a column's edge): the ends' difference and sum in float, the rest in double (its 0.5
   is a double), rounded to float on return. */
static float calc_area_f(float i1, float i2, float slope, float intercept) {
  float width = i2 - i1, sum = i2 + i1;
  return (float)((double)width * (0.5 * (double)slope * (double)sum + (double)intercept));
}

/* ---- 1-D: the area of the polygon over each radial bin -------------------------------------- */

/* _integrate1d: adds to @p buf (float32 bins 0..n-1 along x) the signed area under the segment
   from (x0, y0) to (x1, y1), bin by bin; summed over the polygon's four sides, each bin holds
   the polygon's area within it. */
static void integrate_1d(float *buf, long n, double x0, double y0, double x1, double y1) {
  if (x1 == x0)
    return;
  long i0 = (long)floor(x0), i1 = (long)floor(x1);
  double slope = (y1 - y0) / (x1 - x0);
  double intercept = y0 - slope * x0;
  if (n > i1 && i1 == i0 && i0 >= 0) {
    buf[i0] += calc_area(x0, x1, slope, intercept);
  } else if (x1 > x0) {
    if (0 <= x0 && x0 < (double)n)
      buf[i0] += calc_area(x0, floor(x0 + 1), slope, intercept);
    long lo = i0 + 1 > 0 ? i0 + 1 : 0, hi = i1 < n ? i1 : n;
    for (long i = lo; i < hi; i++)
      buf[i] += calc_area((double)i, (double)(i + 1), slope, intercept);
    if ((double)n > x1 && x1 >= 0)
      buf[i1] += calc_area((double)i1, x1, slope, intercept);
  } else {
    if (0 <= x0 && x0 < (double)n)
      buf[i0] += calc_area(x0, (double)i0, slope, intercept);
    long hi = (i0 < n ? i0 : n) - 1, lo = i1 > -1 ? i1 : -1;
    for (long i = hi; i > lo; i--)
      buf[i] += calc_area((double)(i + 1), (double)i, slope, intercept);
    if ((double)n > x1 && x1 >= 0)
      buf[i1] += calc_area(floor(x1 + 1), x1, slope, intercept);
  }
}

/* ---- 2-D: the area of the polygon over each (radial, chi) cell ---------------------------- */

/* A buffer of cells as calc_lut_2d keeps it: rows of stride bw1 + 1, its shape (bw0 + 1,
   bw1 + 1) from 16 x 16 and changed only for a pixel wider or taller than it, so that a write
   past a row's end (an area rounded over the pixel's height) lands where pyFAI's does. It is
   allocated once for the widest pixel the bins allow; used counts the cells written since it
   was last cleared. */
typedef struct cells {
  float *v;
  size_t cap, used;
  long bw0, bw1;
} cells;

/* Fills the column of cells over [x, x + dA) from the bottom up with @p area, dA at a time,
   as _integrate2d's loops do (float32 throughout). */
static void fill_column(cells *c, long col, float dA, float area) {
  if (area == 0.0f)
    return;
  float abs_area = fabsf(area);
  size_t at = (size_t)col * (size_t)(c->bw1 + 1);
  for (; abs_area > 0 && at < c->cap; at++) {
    if (dA > abs_area) {
      dA = abs_area;
      abs_area = -1;
    }
    c->v[at] += (float)copysign((double)dA, (double)area);
    abs_area -= dA;
  }
  if (at > c->used)
    c->used = at;
}

/* _integrate2d: the signed area under the segment from (x0, y0) to (x1, y1), in bin units
   relative to the pixel's lowest cell, spread over the cells column by column. pyFAI keeps
   the slope, intercept, column edges and areas in float32, and takes the intercept from the
   segment's end; a segment within one column has its area computed in double, the pieces of
   a longer one in float (calc_area_f), as Cython's choice of _calc_area's specialisation
   falls in the compiled pyFAI. */
static void integrate_2d(cells *c, double x0, double y0, double x1, double y1) {
  if (x0 == x1)
    return;
  float slope = (float)((y1 - y0) / (x1 - x0));
  float intercept = (float)(y1 - (double)slope * x1);
  float P, dP;
  if (x0 < x1) {
    P = (float)ceil(x0);
    dP = (float)((double)P - x0);
    if ((double)P > x1) {
      fill_column(c, (long)x0, (float)(x1 - x0), (float)calc_area(x0, x1, slope, intercept));
      return;
    }
    if (dP > 0)
      fill_column(c, (long)P - 1, dP, calc_area_f((float)x0, P, slope, intercept));
    for (long i = (long)floor((double)P); i < (long)floor(x1); i++)
      fill_column(c, i, 1.0f, calc_area_f((float)i, (float)(i + 1), slope, intercept));
    P = (float)floor(x1);
    dP = (float)(x1 - (double)P);
    if (dP > 0)
      fill_column(c, (long)P, fabsf(dP), calc_area_f(P, (float)x1, slope, intercept));
  } else {
    P = (float)floor(x0);
    if (x1 > (double)P) {
      fill_column(c, (long)x0, (float)(x0 - x1), (float)calc_area(x0, x1, slope, intercept));
      return;
    }
    dP = (float)((double)P - x0);
    if (dP < 0)
      fill_column(c, (long)P, fabsf(dP), calc_area_f((float)x0, P, slope, intercept));
    for (long i = (long)x0; i > (long)ceil(x1); i--)
      fill_column(c, i - 1, 1.0f, calc_area_f((float)i, (float)(i - 1), slope, intercept));
    P = (float)ceil(x1);
    dP = (float)(x1 - (double)P);
    if (dP < 0)
      fill_column(c, (long)x1, fabsf(dP), calc_area_f(P, (float)x1, slope, intercept));
  }
}

/* ---- boundaries ------------------------------------------------------------------------------- */

typedef struct full_bins {
  double pos0_min, pos0_maxin, pos0_max, delta0;
  double pos1_min, pos1_maxin, pos1_max, delta1;
} full_bins;

/* calc_boundaries (clip_pos1 on, radial values below 0 not allowed) and FullSplitIntegrator:
   the span of the unmasked pixels' corners (starting from the first unmasked pixel's corner
   A), radial raised to 0, chi clipped to [-π, π] with π a float32, then the user's ranges in
   place of the span; the upper ends moved out by calc_upper_bound and the bins' widths from
   them. */
static void full_bounds(const double *corners, size_t npix, const uint8_t *mask, const ag_integrate_options *opt,
                        const ag__azint_ranges *r, size_t nrad, size_t nazim, full_bins *b) {
  double pos0_min = 0, pos0_max = 0, pos1_min = -INFINITY, pos1_max = INFINITY;
  if (!opt->has_radial_range || !opt->has_azimuth_range) {
    size_t first = 0;
    while (first < npix && mask != NULL && mask[first])
      first++;
    if (first < npix) {
      pos0_min = pos0_max = corners[8 * first];
      pos1_min = pos1_max = corners[8 * first + 1];
    }
    for (size_t k = first; k < npix; k++) {
      if (mask != NULL && mask[k])
        continue;
      const double *v = corners + 8 * k;
      for (int c = 0; c < 4; c++) {
        pos0_min = fmin(pos0_min, v[2 * c]);
        pos0_max = fmax(pos0_max, v[2 * c]);
        pos1_min = fmin(pos1_min, v[2 * c + 1]);
        pos1_max = fmax(pos1_max, v[2 * c + 1]);
      }
    }
  }
  pos0_min = fmax(0.0, pos0_min);
  pos0_max = fmax(0.0, pos0_max);
  pos1_max = fmin(pos1_max, PI_F);
  pos1_min = fmax(pos1_min, -PI_F);
  if (opt->has_radial_range) {
    pos0_min = r->rad_lo;
    pos0_max = r->rad_hi;
  }
  if (opt->has_azimuth_range) {
    pos1_min = r->az_lo;
    pos1_max = r->az_hi;
  }
  b->pos0_min = pos0_min;
  b->pos0_maxin = pos0_max;
  b->pos0_max = ag__azint_upper_bound(pos0_max);
  b->delta0 = (b->pos0_max - pos0_min) / (double)nrad;
  b->pos1_min = pos1_min;
  b->pos1_maxin = pos1_max;
  b->pos1_max = ag__azint_upper_bound(pos1_max);
  b->delta1 = (b->pos1_max - pos1_min) / (double)nazim;
}

/* ---- the shares ------------------------------------------------------------------------------ */

typedef struct full_walker {
  const double *corners;
  size_t npix, nrad, nazim;
  bool two_d, check_pos1;
  const uint8_t *mask;
  full_bins b;
  float *bins_1d; /* 1-D: nrad areas, zero between pixels */
  cells *cells;   /* 2-D */
} full_walker;

/* The first unmasked pixel from *idx on, its index left in *idx and its corners in @p v, chi
   made continuous; false past the last pixel. */
static bool next_pixel(const full_walker *w, size_t *idx, double v[8]) {
  while (*idx < w->npix && w->mask != NULL && w->mask[*idx])
    ++*idx;
  if (*idx >= w->npix)
    return false;
  memcpy(v, w->corners + 8 * *idx, 8 * sizeof *v);
  recenter(v);
  return true;
}

static double min4(double a, double b, double c, double d) {
  return fmin(fmin(a, b), fmin(c, d));
}

static double max4(double a, double b, double c, double d) {
  return fmax(fmax(a, b), fmax(c, d));
}

/* calc_lut_1d: a pixel within one bin goes whole to it; else the area of its quadrilateral in
   (fractional bin, chi) over each bin it touches, within the bins, divided by their sum. With
   an azimuth range, a pixel whose chi lies wholly outside it is left out. */
static void walk_1d(const full_walker *w, ag__azint_builder *out) {
  const full_bins *b = &w->b;
  long nbins = (long)w->nrad;
  float *buf = w->bins_1d;
  double v[8];
  for (size_t idx = 0; next_pixel(w, &idx, v); idx++) {
    double a0 = (v[0] - b->pos0_min) / b->delta0, b0 = (v[2] - b->pos0_min) / b->delta0;
    double c0 = (v[4] - b->pos0_min) / b->delta0, d0 = (v[6] - b->pos0_min) / b->delta0;
    double min0 = min4(a0, b0, c0, d0), max0 = max4(a0, b0, c0, d0);
    if (max0 < 0 || min0 >= (double)nbins)
      continue;
    if (w->check_pos1) {
      double min1 = min4(v[1], v[3], v[5], v[7]), max1 = max4(v[1], v[3], v[5], v[7]);
      if (max1 < b->pos1_min || min1 > b->pos1_maxin)
        continue;
    }
    long bin0_min = (long)floor(min0), bin0_max = (long)floor(max0);
    if (bin0_min == bin0_max) {
      if (out->tally)
        out->total += 1;
      else
        ag__azint_put(out, (size_t)bin0_min, idx, 1.0);
      continue;
    }
    bin0_min = bin0_min > 0 ? bin0_min : 0;
    bin0_max = bin0_max + 1 < nbins ? bin0_max + 1 : nbins;
    if (out->tally) {
      out->total += (double)(bin0_max - bin0_min);
      continue;
    }
    integrate_1d(buf, nbins, a0, v[1], b0, v[3]);
    integrate_1d(buf, nbins, b0, v[3], c0, v[5]);
    integrate_1d(buf, nbins, c0, v[5], d0, v[7]);
    integrate_1d(buf, nbins, d0, v[7], a0, v[1]);
    double sum = 0;
    for (long bin = bin0_min; bin < bin0_max; bin++)
      sum += buf[bin];
    double inv = 1.0 / sum;
    for (long bin = bin0_min; bin < bin0_max; bin++) {
      ag__azint_put(out, (size_t)bin, idx, (double)buf[bin] * inv);
      buf[bin] = 0;
    }
  }
}

/* calc_lut_2d: the pixel's corners, chi made continuous, left out when wholly outside the
   bins, else clipped to them and taken to fractional bins; the area of the quadrilateral over
   each cell of the w0 x w1 cells it touches, divided by their sum, every cell an entry (zero
   ones too, as pyFAI's). */
static void walk_2d(const full_walker *w, ag__azint_builder *out) {
  const full_bins *b = &w->b;
  cells *c = w->cells;
  c->bw0 = c->bw1 = 15;
  double v[8];
  for (size_t idx = 0; next_pixel(w, &idx, v); idx++) {
    double min0 = min4(v[0], v[2], v[4], v[6]), max0 = max4(v[0], v[2], v[4], v[6]);
    double min1 = min4(v[1], v[3], v[5], v[7]), max1 = max4(v[1], v[3], v[5], v[7]);
    if (max0 < b->pos0_min || min0 > b->pos0_maxin || max1 < b->pos1_min || min1 >= b->pos1_max)
      continue;
    for (int k = 0; k < 4; k++) {
      double x = fmin(fmax(v[2 * k], b->pos0_min), b->pos0_maxin);
      double y = fmin(fmax(v[2 * k + 1], b->pos1_min), b->pos1_maxin);
      v[2 * k] = (x - b->pos0_min) / b->delta0;
      v[2 * k + 1] = (y - b->pos1_min) / b->delta1;
    }
    min0 = min4(v[0], v[2], v[4], v[6]), max0 = max4(v[0], v[2], v[4], v[6]);
    min1 = min4(v[1], v[3], v[5], v[7]), max1 = max4(v[1], v[3], v[5], v[7]);
    double off0 = floor(min0), off1 = floor(min1);
    long w0 = (long)(ceil(max0) - off0), w1 = (long)(ceil(max1) - off1);
    if (out->tally) {
      out->total += (double)w0 * (double)w1;
      continue;
    }
    if (w0 > c->bw0 || w1 > c->bw1) {
      c->bw0 = w0;
      c->bw1 = w1;
    }
    for (int k = 0; k < 4; k++) {
      v[2 * k] -= off0;
      v[2 * k + 1] -= off1;
    }
    integrate_2d(c, v[0], v[1], v[2], v[3]);
    integrate_2d(c, v[2], v[3], v[4], v[5]);
    integrate_2d(c, v[4], v[5], v[6], v[7]);
    integrate_2d(c, v[6], v[7], v[0], v[1]);
    long stride = c->bw1 + 1;
    double sum = 0;
    for (long i = 0; i < w0; i++)
      for (long j = 0; j < w1; j++)
        sum += c->v[i * stride + j];
    double inv = 1.0 / sum;
    size_t row0 = (size_t)off0 * w->nazim + (size_t)off1;
    for (long i = 0; i < w0; i++)
      for (long j = 0; j < w1; j++)
        ag__azint_put(out, row0 + (size_t)i * w->nazim + (size_t)j, idx, (double)c->v[i * stride + j] * inv);
    memset(c->v, 0, c->used * sizeof *c->v);
    c->used = 0;
  }
}

static void walk(const void *ctx, ag__azint_builder *out) {
  const full_walker *w = ctx;
  if (w->two_d)
    walk_2d(w, out);
  else
    walk_1d(w, out);
}

/* ---- the plan -------------------------------------------------------------------------------- */

ag_status ag__azint_full_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                               const ag_integrate_options *opt, const ag__azint_ranges *r,
                               const ag__azint_memory *mem, ag__azint_plan *plan) {
  size_t npix = rows * cols;
  double *corners = malloc((npix ? npix : 1) * 8 * sizeof *corners);
  if (corners == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu pixels' corners", fn, npix);
  /* pyFAI's corner array, unscaled: the unit's base, whose scale is 1 */
  ag_status st = ag__prefix(ag_geometry_corners(poni, rows, cols, r->base, corners), fn);
  if (st == AG_OK) {
    char what[64];
    snprintf(what, sizeof what, "corner (radial position in %s, chi)", ag_radial_unit_name(r->base));
    st = ag__azint_check_finite(fn, poni, cols, opt->mask, corners, 8, npix, what);
  }
  if (st != AG_OK) {
    free(corners);
    return st;
  }
  /* A pixel clipped to the bins spans at most nrad + 1 by nazim + 1 cells. */
  cells c = {.cap = (plan->nrad + 2) * (plan->nazim + 2)};
  c.cap = c.cap > 256 ? c.cap : 256;
  full_walker w = {.corners = corners, .npix = npix, .nrad = plan->nrad, .nazim = plan->nazim,
                   .two_d = opt->npt_azim > 0, .check_pos1 = opt->has_azimuth_range, .mask = opt->mask,
                   .cells = &c};
  if (w.two_d)
    c.v = calloc(c.cap, sizeof *c.v);
  else
    w.bins_1d = calloc(plan->nrad, sizeof *w.bins_1d);
  if (w.two_d ? c.v == NULL : w.bins_1d == NULL) {
    free(corners);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for a pixel's areas over %zu bins", fn, plan->nbins);
  }
  full_bounds(corners, npix, opt->mask, opt, r, plan->nrad, plan->nazim, &w.b);
  st = ag__azint_fill(fn, walk, &w, mem, opt, plan);
  free(c.v);
  free(w.bins_1d);
  free(corners);
  if (st == AG_OK)
    st = ag__azint_centres(fn, plan, w.two_d, w.b.pos0_min, w.b.pos0_max, w.b.delta0, r->scale, w.b.pos1_min,
                           w.b.pos1_max, w.b.delta1);
  return st;
}
