/* src/diffraction/azint_plan.h - the host half of azimuthal integration (include/anygpu/azint.h):
   the bins and the sparse matrix of pixel shares, built as pyFAI 0.21.3's CSR integrators
   build them: bounding-box and no splitting (azint_plan.c), full splitting (azint_full.c). */
#ifndef AG_SRC_DIFFRACTION_AZINT_PLAN_H
#define AG_SRC_DIFFRACTION_AZINT_PLAN_H

#include <stdint.h>

#include "anygpu/azint.h"

/* A CSR matrix on the host, bins x pixels, and the bins' centres. */
typedef struct ag__azint_plan {
  size_t npix;            /* columns: rows x cols pixels */
  size_t nrad, nazim;     /* bins along each axis; nazim 1 in 1-D */
  size_t nbins;           /* rows: nrad x nazim, bin (i, j) at row i * nazim + j */
  size_t nnz;
  uint64_t *indptr;       /* nbins + 1 */
  uint32_t *indices;      /* nnz pixel indices, ascending within a row */
  double *data;           /* nnz shares, each a float32 value as pyFAI stores it */
  double *rad_centres;    /* nrad, in the options' unit */
  double *azim_centres;   /* nazim, degrees; NULL in 1-D */
} ag__azint_plan;

/* Builds @p plan for an image of rows x cols pixels. @p opt has been checked (enums, ranges,
   npt). Returns AG_ERR_OUT_OF_MEMORY, or what the geometry functions return; @p plan is then
   left empty. Messages name @p fn. */
ag_status ag__azint_plan_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                               const ag_integrate_options *opt, ag__azint_plan *plan);

/* Frees the plan's arrays and zeroes it. */
void ag__azint_plan_free(ag__azint_plan *plan);

/* ---- shared by the splitting schemes ------------------------------------------------------ */

/* The options' ranges as pyFAI's integrators take them: radial in the unit's base (2θ in rad,
   q in nm^-1, r in m; scale takes it to the options' unit), azimuth in radians with the
   discontinuity at π, its end moved a turn on when not above its start. */
typedef struct ag__azint_ranges {
  ag_radial_unit base;
  double scale;
  double rad_lo, rad_hi; /* when opt->has_radial_range */
  double az_lo, az_hi;   /* when opt->has_azimuth_range */
} ag__azint_ranges;

/* pyFAI's builders make two passes over the pixels: one counting each bin's entries, one
   placing them; the entries of a bin then come in pixel order. A pass is one call of a walk
   with counting on or off, which hands each (bin, pixel, share) to ag__azint_put(). */
typedef struct ag__azint_builder {
  bool counting;
  uint64_t *indptr; /* counting: entries per bin at [bin + 1]; placing: next slot of each bin */
  uint32_t *indices;
  double *data;
} ag__azint_builder;

static inline void ag__azint_put(ag__azint_builder *b, size_t bin, size_t pixel, double share) {
  if (b->counting) {
    b->indptr[bin + 1]++;
    return;
  }
  uint64_t at = b->indptr[bin]++;
  b->indices[at] = (uint32_t)pixel;
  b->data[at] = (float)share; /* SparseBuilder and the data arrays hold float32 */
}

typedef void (*ag__azint_walk)(const void *ctx, ag__azint_builder *out);

/* Fills @p plan's matrix (plan->nbins set) with two calls of @p walk: counting, then placing.
   Returns AG_ERR_OUT_OF_MEMORY naming @p fn; the caller frees the plan on failure. */
ag_status ag__azint_fill(const char *fn, ag__azint_walk walk, const void *ctx, ag__azint_plan *plan);

/* calc_upper_bound: the largest bin's upper edge moved out by one float32 epsilon, so that a
   pixel at the range's maximum falls inside it, outwards for either sign. */
double ag__azint_upper_bound(double maxin);

/* The bins' centres as pyFAI reports them (plan's centre arrays allocated): radial from
   [pos0_min, pos0_max] in delta0 steps, times @p scale; azimuthal (2-D) from pos1_min and
   pos1_max in delta1 steps, in degrees. */
void ag__azint_centres(ag__azint_plan *plan, double pos0_min, double pos0_max, double delta0, double scale,
                       double pos1_min, double pos1_max, double delta1);

/* Full splitting (azint_full.c): the bins and matrix of pyFAI's FullSplitCSR_1d and
   FullSplitCSR_2d, into @p plan (its sizes and centre arrays allocated). Returns
   AG_ERR_OUT_OF_MEMORY or what ag_geometry_corners() returns, naming @p fn. */
ag_status ag__azint_full_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                               const ag_integrate_options *opt, const ag__azint_ranges *r, ag__azint_plan *plan);

#endif
