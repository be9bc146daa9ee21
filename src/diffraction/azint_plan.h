/* src/diffraction/azint_plan.h - the host half of azimuthal integration (include/anygpu/azint.h):
   the bins and the sparse matrix of pixel shares, built as pyFAI 0.21.3's bounding-box and
   no-split CSR integrators build them. */
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

#endif
