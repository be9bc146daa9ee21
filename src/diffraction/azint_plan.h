/* src/diffraction/azint_plan.h - the host half of azimuthal integration (include/anygpu/azint.h):
   the bins and the sparse matrix of pixel shares, built as pyFAI 0.21.3's CSR integrators
   build them: bounding-box and no splitting (azint_plan.c), full splitting (azint_full.c). */
#ifndef AG_SRC_DIFFRACTION_AZINT_PLAN_H
#define AG_SRC_DIFFRACTION_AZINT_PLAN_H

#include <stdint.h>

#include "anygpu/azint.h"

/* Whether frames of dtype @p t are integrated as they are: the real dtypes detectors write,
   those kernels_shared/azint.h has kernels for. */
static inline bool ag__azint_frames_dtype(ag_dtype t) {
  return t == AG_U8 || t == AG_U16 || t == AG_U32 || t == AG_I32 || t == AG_F32 || t == AG_F64;
}

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

/* The memory an integrator may take (azint_memory.c), from its device's ag_device_info and the
   host's memory, in bytes (INFINITY where unknown). */
typedef struct ag__azint_memory {
  const char *device; /* its spec, for messages */
  double global;      /* the device's memory */
  double largest;     /* its largest buffer */
  double host;        /* the host memory the process may still take: physical, or its ulimit -v */
  bool shared;        /* a CPU device, whose memory is the host's: the two add up */
  bool walk;          /* a CPU device, which keeps a second copy of the matrix (azint.c) */
  size_t esize;       /* bytes of the engine's dtype */
} ag__azint_memory;

/* Whether an integrator of @p opt's bins over @p npix pixels, its matrix of @p nnz entries,
   fits @p mem: its host memory while it is built and its device memory afterwards (the matrix,
   its copy on CPU devices, the per-pixel corrections, per-bin workspaces and one frame's six
   results), estimated before any of it is allocated. @p nnz_known false: @p nnz is not known
   yet and 0 stands for it, which gives the least the integrator needs. Returns
   AG_ERR_OUT_OF_MEMORY naming @p fn, opt->npt_rad (and npt_azim), the estimate and the limit
   it is beyond. */
ag_status ag__azint_fits(const char *fn, const ag__azint_memory *mem, const ag_integrate_options *opt, size_t npix,
                         double nnz, bool nnz_known);

/* Builds @p plan for an image of rows x cols pixels, refusing one that does not fit @p mem
   before its bins or its matrix are allocated. @p opt has been checked (enums, ranges, npt).
   Returns AG_ERR_OUT_OF_MEMORY, what ag__azint_fits() or the geometry functions return, or
   AG_ERR_INVALID_ARGUMENT for positions that are not finite (ag__azint_check_finite); @p plan is
   then left empty. Messages name @p fn. */
ag_status ag__azint_plan_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                               const ag_integrate_options *opt, const ag__azint_memory *mem, ag__azint_plan *plan);

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
   with counting on or off, which hands each (bin, pixel, share) to ag__azint_put(). Before
   them a walk may be called to tally: it then adds each pixel's number of entries to total,
   computed from the span of bins it touches without visiting them, and hands nothing on, so
   that the matrix's size is known before anything of it is allocated. */
typedef struct ag__azint_builder {
  bool tally;
  double total;
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

/* Fills @p plan's matrix (plan->nbins set) with three calls of @p walk: tallying, which
   ag__azint_fits() checks against @p mem (with @p opt and plan->npix), then counting and
   placing. Returns AG_ERR_OUT_OF_MEMORY naming @p fn; the caller frees the plan on failure. */
ag_status ag__azint_fill(const char *fn, ag__azint_walk walk, const void *ctx, const ag__azint_memory *mem,
                         const ag_integrate_options *opt, ag__azint_plan *plan);

/* calc_upper_bound: the largest bin's upper edge moved out by one float32 epsilon, so that a
   pixel at the range's maximum falls inside it, outwards for either sign. */
double ag__azint_upper_bound(double maxin);

/* The bins' centres as pyFAI reports them, in plan's centre arrays (allocated here; 2-D when
   plan->nazim > 1 or @p two_d): radial from [pos0_min, pos0_max] in delta0 steps, times
   @p scale; azimuthal from pos1_min and pos1_max in delta1 steps, in degrees. Returns
   AG_ERR_OUT_OF_MEMORY naming @p fn. */
ag_status ag__azint_centres(const char *fn, ag__azint_plan *plan, bool two_d, double pos0_min, double pos0_max,
                            double delta0, double scale, double pos1_min, double pos1_max, double delta1);

/* Refuses (AG_ERR_INVALID_ARGUMENT, naming @p fn, the pixel, @p what and the geometry) the
   first unmasked pixel k of @p npix whose @p per values v[k * per .. k * per + per - 1] are
   not all finite: a geometry so large that a pixel's position overflows a double (the r of a
   pixel of 1e300 m), where pyFAI bins NaN into bins whose centres are NaN. @p v NULL passes. */
ag_status ag__azint_check_finite(const char *fn, const ag_poni *poni, size_t cols, const uint8_t *mask,
                                 const double *v, size_t per, size_t npix, const char *what);

/* Full splitting (azint_full.c): the bins and matrix of pyFAI's FullSplitCSR_1d and
   FullSplitCSR_2d, into @p plan (its sizes set). Returns AG_ERR_OUT_OF_MEMORY, what
   ag__azint_fits() or ag_geometry_corners() returns, or positions that are not finite,
   naming @p fn. */
ag_status ag__azint_full_build(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                               const ag_integrate_options *opt, const ag__azint_ranges *r,
                               const ag__azint_memory *mem, ag__azint_plan *plan);

#endif
