/* src/diffraction/azint_plan.c - the bins and the sparse matrix of pixel shares of an
   integration (azint_plan.h), as pyFAI 0.21.3 builds them for its CSR integrators
   (ext/splitBBoxCSR.pyx's HistoBBox1d and HistoBBox2d, whose boundaries and matrices come
   from ext/splitBBox_common.pyx's SplitBBoxIntegrator: calc_boundaries, calc_lut_1d and
   calc_lut_2d; "no" splitting is the same with boxes of size 0), with their quirks, each said
   where it is matched. Positions are pyFAI's unscaled ones
   (2θ in rad, q in nm^-1, r in m; ag_geometry_radial with the unit's base), chi in radians.
   The plan's frame (units, ranges, centres, the two passes that fill the matrix) is shared
   with full splitting (azint_full.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam.h"
#include "azint_plan.h"

#define PI 3.14159265358979323846 /* math.pi, numpy.pi */

/* ---- units and ranges -------------------------------------------------------------------- */

/* The unit pyFAI bins in for @p unit, and the scale from it to @p unit (units.py). */
static ag_radial_unit base_unit(ag_radial_unit unit, double *scale) {
  switch (unit) {
  case AG_RADIAL_2TH_DEG:
    *scale = 180.0 / PI;
    return AG_RADIAL_2TH_RAD;
  case AG_RADIAL_Q_A:
    *scale = 0.1;
    return AG_RADIAL_Q_NM;
  case AG_RADIAL_R_MM:
    *scale = 1000.0;
    return AG_RADIAL_R_M;
  default:
    *scale = 1.0;
    return unit;
  }
}

/* utils.mathutil.deg2rad with the discontinuity at π: (deg / 180) modulo 2 as Python takes it
   (the sign of the divisor), moved to [-1, 1), times π. */
static double deg2rad(double deg) {
  double rp = fmod(deg / 180.0, 2.0);
  if (rp != 0 && rp < 0)
    rp += 2.0;
  if (rp >= 1.0)
    rp -= 2.0;
  return rp * PI;
}

double ag__azint_upper_bound(double maxin) {
  const double eps32 = 1.0 + 1.1920928955078125e-07;
  return maxin > 0 ? maxin * eps32 : maxin / eps32;
}

/* numpy.linspace(start, stop, n): start + i * step, the last one stop exactly. */
static void linspace(double start, double stop, size_t n, double scale, double *out) {
  double step = n > 1 ? (stop - start) / (double)(n - 1) : 0.0;
  for (size_t i = 0; i < n; i++)
    out[i] = ((double)i * step + start) * scale;
  if (n > 1)
    out[n - 1] = stop * scale;
}

/* ---- the geometry's arrays ---------------------------------------------------------------- */

typedef struct positions {
  size_t n;
  double *c0, *d0; /* radial centre and spread (NULL without splitting) */
  double *c1, *d1; /* chi centre and spread (NULL where pyFAI does not compute them) */
} positions;

static void positions_free(positions *p) {
  free(p->c0);
  free(p->d0);
  free(p->c1);
  free(p->d1);
}

static ag_status positions_get(const char *fn, const ag_poni *poni, size_t rows, size_t cols, ag_radial_unit base,
                               bool split, bool want_chi, positions *p) {
  memset(p, 0, sizeof *p);
  p->n = rows * cols;
  size_t bytes = (p->n ? p->n : 1) * sizeof(double);
  p->c0 = malloc(bytes);
  p->d0 = split ? malloc(bytes) : NULL;
  p->c1 = want_chi ? malloc(bytes) : NULL;
  p->d1 = want_chi && split ? malloc(bytes) : NULL;
  if (p->c0 == NULL || (split && p->d0 == NULL) || (want_chi && p->c1 == NULL) || (want_chi && split && p->d1 == NULL)) {
    positions_free(p);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the pixels' positions", fn);
  }
  ag_status st = ag_geometry_radial(poni, rows, cols, base, AG_PIXEL_CENTER, p->c0);
  if (st == AG_OK && split)
    st = ag_geometry_radial(poni, rows, cols, base, AG_PIXEL_DELTA, p->d0);
  if (st == AG_OK && want_chi)
    st = ag_geometry_chi(poni, rows, cols, AG_PIXEL_CENTER, p->c1);
  if (st == AG_OK && want_chi && split)
    st = ag_geometry_chi(poni, rows, cols, AG_PIXEL_DELTA, p->d1);
  if (st != AG_OK) {
    positions_free(p);
    return ag__prefix(st, fn);
  }
  return AG_OK;
}

/* The positions of @p p that the bins are made from, each finite (ag__azint_check_finite). */
static ag_status positions_finite(const char *fn, const ag_poni *poni, size_t cols, const uint8_t *mask,
                                  ag_radial_unit base, const positions *p) {
  char what[64];
  snprintf(what, sizeof what, "radial position (%s)", ag_radial_unit_name(base));
  ag_status st = ag__azint_check_finite(fn, poni, cols, mask, p->c0, 1, p->n, what);
  if (st == AG_OK) {
    snprintf(what, sizeof what, "radial spread (%s)", ag_radial_unit_name(base));
    st = ag__azint_check_finite(fn, poni, cols, mask, p->d0, 1, p->n, what);
  }
  if (st == AG_OK)
    st = ag__azint_check_finite(fn, poni, cols, mask, p->c1, 1, p->n, "chi");
  if (st == AG_OK)
    st = ag__azint_check_finite(fn, poni, cols, mask, p->d1, 1, p->n, "chi spread");
  return st;
}

ag_status ag__azint_check_finite(const char *fn, const ag_poni *poni, size_t cols, const uint8_t *mask,
                                 const double *v, size_t per, size_t npix, const char *what) {
  for (size_t k = 0; v != NULL && k < npix; k++) {
    if (mask != NULL && mask[k])
      continue;
    for (size_t c = 0; c < per; c++) {
      double x = v[k * per + c];
      if (!isfinite(x))
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: pixel (%zu, %zu) has a %s of %s: the geometry (ag_poni.dist "
                         "%g m, ag_poni.pixel1 %g m, ag_poni.pixel2 %g m, ag_poni.poni1 %g m, ag_poni.poni2 %g m) "
                         "places it beyond what a double holds", fn, k / cols, k % cols, what,
                         isnan(x) ? "nan" : x > 0 ? "inf" : "-inf", poni->dist, poni->pixel1, poni->pixel2,
                         poni->poni1, poni->poni2);
    }
  }
  return AG_OK;
}

/* ---- boundaries --------------------------------------------------------------------------- */

typedef struct bins {
  double pos0_min, pos0_maxin, pos0_max, delta0;
  double pos1_min, pos1_maxin, pos1_max, delta1;
  bool check_pos1; /* 1-D with an azimuth range: pixels outside it are left out */
} bins;

/* splitBBox_common.calc_boundaries: the span of the unmasked pixels' boxes [c - d, c + d]
   (starting from the first unmasked pixel's centre), radial values below 0 raised to 0, chi
   clipped to [-π, π] with π rounded to float32 (the integrators' clip_pos1), then the user's ranges in place of the span;
   the upper ends moved out by calc_upper_bound, and the bins' widths from them. */
static void bounds(const positions *p, const uint8_t *mask, const ag_integrate_options *opt, double rad_lo,
                   double rad_hi, double az_lo, double az_hi, size_t nrad, size_t nazim, bins *b) {
  double pos0_min = 0, pos0_max = 0, pos1_min = -INFINITY, pos1_max = INFINITY;
  bool have_pos1 = p->c1 != NULL;
  if (!opt->has_radial_range || !opt->has_azimuth_range) {
    size_t first = 0;
    while (first < p->n && mask != NULL && mask[first])
      first++;
    if (first < p->n) {
      pos0_min = pos0_max = p->c0[first];
      if (have_pos1)
        pos1_min = pos1_max = p->c1[first];
    }
    for (size_t k = first; k < p->n; k++) {
      if (mask != NULL && mask[k])
        continue;
      double d0 = p->d0 ? p->d0[k] : 0.0;
      pos0_max = fmax(pos0_max, p->c0[k] + d0);
      pos0_min = fmin(pos0_min, p->c0[k] - d0);
      if (have_pos1) {
        double d1 = p->d1 ? p->d1[k] : 0.0;
        pos1_max = fmax(pos1_max, p->c1[k] + d1);
        pos1_min = fmin(pos1_min, p->c1[k] - d1);
      }
    }
  }
  pos0_min = fmax(0.0, pos0_min);
  pos0_max = fmax(0.0, pos0_max);
  pos1_max = fmin(pos1_max, (double)(float)PI); /* regrid_common's pi is a C float */
  pos1_min = fmax(pos1_min, -(double)(float)PI);
  if (opt->has_radial_range) {
    pos0_min = rad_lo;
    pos0_max = rad_hi;
  }
  if (opt->has_azimuth_range) {
    pos1_min = az_lo;
    pos1_max = az_hi;
  }
  b->pos0_min = pos0_min;
  b->pos0_maxin = pos0_max;
  b->pos0_max = ag__azint_upper_bound(pos0_max);
  b->delta0 = (b->pos0_max - b->pos0_min) / (double)nrad;
  b->pos1_min = pos1_min;
  b->pos1_maxin = pos1_max;
  b->pos1_max = ag__azint_upper_bound(pos1_max);
  b->delta1 = (b->pos1_max - b->pos1_min) / (double)nazim;
  b->check_pos1 = nazim == 0 && opt->has_azimuth_range;
}

/* Truncated bin numbers (toward zero, as C's cast: a box starting less than a bin below the
   range starts in bin 0) of a box whose fractional bins are [flo, fhi], and whether it touches
   the bins at all. */
static bool box_bins(double flo, double fhi, size_t nbins, long long *bmin, long long *bmax) {
  if (!(fhi > -1.0) || !(flo < (double)nbins))
    return false;
  *bmin = (long long)flo;
  *bmax = (long long)fhi;
  if (*bmax < 0 || *bmin >= (long long)nbins)
    return false;
  if (*bmax > (long long)nbins - 1)
    *bmax = (long long)nbins - 1;
  if (*bmin < 0)
    *bmin = 0;
  return true;
}

/* ---- the shares ----------------------------------------------------------------------------- */

/* calc_lut_1d: the whole pixel to one bin, else shares in proportion to the box's overlap with
   each bin, computed from the unclipped fractional bins (so a box hanging over the range's end
   gives its end bin more than its overlap, as pyFAI does). */
static void walk_1d(const positions *p, const uint8_t *mask, const bins *b, size_t nrad, ag__azint_builder *out) {
  for (size_t idx = 0; idx < p->n; idx++) {
    if (mask != NULL && mask[idx])
      continue;
    double c0 = p->c0[idx], d0 = p->d0 ? p->d0[idx] : 0.0;
    if (b->check_pos1) {
      double c1 = p->c1[idx], d1 = p->d1 ? p->d1[idx] : 0.0;
      if (c1 + d1 < b->pos1_min || c1 - d1 > b->pos1_maxin)
        continue;
    }
    double fbin0_min = (c0 - d0 - b->pos0_min) / b->delta0;
    double fbin0_max = (c0 + d0 - b->pos0_min) / b->delta0;
    long long bin0_min, bin0_max;
    if (!box_bins(fbin0_min, fbin0_max, nrad, &bin0_min, &bin0_max))
      continue;
    if (out->tally) {
      out->total += (double)(bin0_max - bin0_min + 1);
      continue;
    }
    if (bin0_min == bin0_max) {
      ag__azint_put(out, (size_t)bin0_min, idx, 1.0);
      continue;
    }
    double inv_area = 1.0 / (fbin0_max - fbin0_min);
    ag__azint_put(out, (size_t)bin0_min, idx, inv_area * ((double)(bin0_min + 1) - fbin0_min));
    ag__azint_put(out, (size_t)bin0_max, idx, inv_area * (fbin0_max - (double)bin0_max));
    for (long long bin = bin0_min + 1; bin < bin0_max; bin++)
      ag__azint_put(out, (size_t)bin, idx, inv_area);
  }
}

/* calc_lut_2d: the same along both axes; the shares are the outer product of the radial and
   azimuthal ones (left/middle/right times down/middle/up). Row (i, j) is i * nazim + j. */
static void walk_2d(const positions *p, const uint8_t *mask, const bins *b, size_t nrad, size_t nazim,
                    ag__azint_builder *out) {
  for (size_t idx = 0; idx < p->n; idx++) {
    if (mask != NULL && mask[idx])
      continue;
    double d0 = p->d0 ? p->d0[idx] : 0.0, d1 = p->d1 ? p->d1[idx] : 0.0;
    double fbin0_min = (p->c0[idx] - d0 - b->pos0_min) / b->delta0;
    double fbin0_max = (p->c0[idx] + d0 - b->pos0_min) / b->delta0;
    double fbin1_min = (p->c1[idx] - d1 - b->pos1_min) / b->delta1;
    double fbin1_max = (p->c1[idx] + d1 - b->pos1_min) / b->delta1;
    long long bin0_min, bin0_max, bin1_min, bin1_max;
    if (!box_bins(fbin0_min, fbin0_max, nrad, &bin0_min, &bin0_max) ||
        !box_bins(fbin1_min, fbin1_max, nazim, &bin1_min, &bin1_max))
      continue;
    if (out->tally) {
      out->total += (double)(bin0_max - bin0_min + 1) * (double)(bin1_max - bin1_min + 1);
      continue;
    }
#define AT(i, j) ((size_t)(i) * nazim + (size_t)(j))
    if (bin0_min == bin0_max) {
      if (bin1_min == bin1_max) {
        ag__azint_put(out, AT(bin0_min, bin1_min), idx, 1.0);
      } else {
        double delta_down = (double)(bin1_min + 1) - fbin1_min;
        double delta_up = fbin1_max - (double)bin1_max;
        double inv_area = 1.0 / (fbin1_max - fbin1_min);
        ag__azint_put(out, AT(bin0_min, bin1_min), idx, inv_area * delta_down);
        ag__azint_put(out, AT(bin0_min, bin1_max), idx, inv_area * delta_up);
        for (long long j = bin1_min + 1; j < bin1_max; j++)
          ag__azint_put(out, AT(bin0_min, j), idx, inv_area);
      }
    } else if (bin1_min == bin1_max) {
      double inv_area = 1.0 / (fbin0_max - fbin0_min);
      double delta_left = (double)(bin0_min + 1) - fbin0_min;
      ag__azint_put(out, AT(bin0_min, bin1_min), idx, inv_area * delta_left);
      double delta_right = fbin0_max - (double)bin0_max;
      ag__azint_put(out, AT(bin0_max, bin1_min), idx, inv_area * delta_right);
      for (long long i = bin0_min + 1; i < bin0_max; i++)
        ag__azint_put(out, AT(i, bin1_min), idx, inv_area);
    } else {
      double delta_left = (double)(bin0_min + 1) - fbin0_min;
      double delta_right = fbin0_max - (double)bin0_max;
      double delta_down = (double)(bin1_min + 1) - fbin1_min;
      double delta_up = fbin1_max - (double)bin1_max;
      double inv_area = 1.0 / ((fbin0_max - fbin0_min) * (fbin1_max - fbin1_min));
      ag__azint_put(out, AT(bin0_min, bin1_min), idx, inv_area * delta_left * delta_down);
      ag__azint_put(out, AT(bin0_min, bin1_max), idx, inv_area * delta_left * delta_up);
      ag__azint_put(out, AT(bin0_max, bin1_min), idx, inv_area * delta_right * delta_down);
      ag__azint_put(out, AT(bin0_max, bin1_max), idx, inv_area * delta_right * delta_up);
      for (long long i = bin0_min + 1; i < bin0_max; i++) {
        ag__azint_put(out, AT(i, bin1_min), idx, inv_area * delta_down);
        for (long long j = bin1_min + 1; j < bin1_max; j++)
          ag__azint_put(out, AT(i, j), idx, inv_area);
        ag__azint_put(out, AT(i, bin1_max), idx, inv_area * delta_up);
      }
      for (long long j = bin1_min + 1; j < bin1_max; j++) {
        ag__azint_put(out, AT(bin0_min, j), idx, inv_area * delta_left);
        ag__azint_put(out, AT(bin0_max, j), idx, inv_area * delta_right);
      }
    }
#undef AT
  }
}

/* ---- the plan -------------------------------------------------------------------------------- */

void ag__azint_plan_free(ag__azint_plan *plan) {
  free(plan->indptr);
  free(plan->indices);
  free(plan->data);
  free(plan->rad_centres);
  free(plan->azim_centres);
  memset(plan, 0, sizeof *plan);
}

typedef struct walker {
  bool two_d;
  const positions *p;
  const uint8_t *mask;
  bins b;
  size_t nrad, nazim;
} walker;

static void walk(const void *ctx, ag__azint_builder *out) {
  const walker *w = ctx;
  if (w->two_d)
    walk_2d(w->p, w->mask, &w->b, w->nrad, w->nazim, out);
  else
    walk_1d(w->p, w->mask, &w->b, w->nrad, out);
}

ag_status ag__azint_fill(const char *fn, ag__azint_walk walk_pixels, const void *ctx, const ag__azint_memory *mem,
                         const ag_integrate_options *opt, ag__azint_plan *plan) {
  ag__azint_builder b = {.tally = true};
  walk_pixels(ctx, &b);
  ag_status st = ag__azint_fits(fn, mem, opt, plan->npix, b.total, true);
  if (st != AG_OK)
    return st;
  plan->indptr = calloc(plan->nbins + 1, sizeof *plan->indptr);
  if (plan->indptr == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu bins", fn, plan->nbins);
  b = (ag__azint_builder){.counting = true, .indptr = plan->indptr};
  walk_pixels(ctx, &b);
  for (size_t i = 0; i < plan->nbins; i++)
    plan->indptr[i + 1] += plan->indptr[i];
  plan->nnz = plan->indptr[plan->nbins];
  plan->indices = malloc((plan->nnz ? plan->nnz : 1) * sizeof *plan->indices);
  plan->data = malloc((plan->nnz ? plan->nnz : 1) * sizeof *plan->data);
  uint64_t *next = malloc((plan->nbins + 1) * sizeof *next);
  if (plan->indices == NULL || plan->data == NULL || next == NULL) {
    free(next);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu pixel shares", fn, plan->nnz);
  }
  memcpy(next, plan->indptr, (plan->nbins + 1) * sizeof *next);
  b = (ag__azint_builder){.counting = false, .indptr = next, .indices = plan->indices, .data = plan->data};
  walk_pixels(ctx, &b);
  free(next);
  return AG_OK;
}

ag_status ag__azint_centres(const char *fn, ag__azint_plan *plan, bool two_d, double pos0_min, double pos0_max,
                            double delta0, double scale, double pos1_min, double pos1_max, double delta1) {
  plan->rad_centres = malloc(plan->nrad * sizeof *plan->rad_centres);
  plan->azim_centres = two_d ? malloc(plan->nazim * sizeof *plan->azim_centres) : NULL;
  if (plan->rad_centres == NULL || (two_d && plan->azim_centres == NULL))
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the bins' centres", fn);
  linspace(pos0_min + 0.5 * delta0, pos0_max - 0.5 * delta0, plan->nrad, scale, plan->rad_centres);
  if (two_d)
    linspace(pos1_min + 0.5 * delta1, pos1_max - 0.5 * delta1, plan->nazim, 180.0 / PI, plan->azim_centres);
  return AG_OK;
}

/* Bounding boxes and no splitting, from the pixels' centres and spreads. */
static ag_status bbox_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                            const ag_integrate_options *opt, const ag__azint_ranges *r, const ag__azint_memory *mem,
                            ag__azint_plan *plan) {
  walker w = {.two_d = opt->npt_azim > 0, .mask = opt->mask, .nrad = plan->nrad, .nazim = plan->nazim};
  positions p;
  ag_status st = positions_get(fn, poni, rows, cols, r->base, opt->split == AG_SPLIT_BBOX,
                               w.two_d || opt->has_azimuth_range, &p);
  if (st != AG_OK)
    return st;
  if ((st = positions_finite(fn, poni, cols, opt->mask, r->base, &p)) != AG_OK) {
    positions_free(&p);
    return st;
  }
  w.p = &p;
  bounds(&p, opt->mask, opt, r->rad_lo, r->rad_hi, r->az_lo, r->az_hi, w.nrad, w.two_d ? w.nazim : 0, &w.b);
  st = ag__azint_fill(fn, walk, &w, mem, opt, plan);
  positions_free(&p);
  if (st == AG_OK)
    st = ag__azint_centres(fn, plan, w.two_d, w.b.pos0_min, w.b.pos0_max, w.b.delta0, r->scale, w.b.pos1_min,
                           w.b.pos1_max, w.b.delta1);
  return st;
}

ag_status ag__azint_plan_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                               const ag_integrate_options *opt, const ag__azint_memory *mem, ag__azint_plan *plan) {
  memset(plan, 0, sizeof *plan);
  /* The least the bins and pixels need, before the pixels' positions are computed. */
  ag_status st = ag__azint_fits(fn, mem, opt, rows * cols, 0, false);
  if (st != AG_OK)
    return st;
  ag__azint_ranges r = {0};
  r.base = base_unit(opt->unit, &r.scale);
  plan->npix = rows * cols;
  plan->nrad = opt->npt_rad;
  plan->nazim = opt->npt_azim > 0 ? opt->npt_azim : 1;
  plan->nbins = plan->nrad * plan->nazim;
  /* The user's ranges as pyFAI takes them: radial divided by the unit's scale, azimuth in
     degrees to radians with the discontinuity at π, its end moved a turn on when not above
     its start. */
  r.rad_lo = opt->radial_min / r.scale;
  r.rad_hi = opt->radial_max / r.scale;
  if (opt->has_azimuth_range) {
    r.az_lo = deg2rad(opt->azimuth_min);
    r.az_hi = deg2rad(opt->azimuth_max);
    if (r.az_hi <= r.az_lo)
      r.az_hi += 2 * PI;
  }
  st = opt->split == AG_SPLIT_FULL ? ag__azint_full_build(fn, poni, rows, cols, opt, &r, mem, plan)
                                   : bbox_build(fn, poni, rows, cols, opt, &r, mem, plan);
  if (st != AG_OK)
    ag__azint_plan_free(plan);
  return st;
}
