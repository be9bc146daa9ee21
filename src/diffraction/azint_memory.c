/* src/diffraction/azint_memory.c - what an integrator costs in memory (azint_plan.h): an estimate
   from its bins, pixels and matrix entries, made before any of them is allocated, and the
   refusal of one that would not fit its device or the host. */
#include <math.h>
#include <stdio.h>

#include "seam.h"
#include "azint_plan.h"

/* Bytes as a user reads them. */
static void human(double bytes, char *out, size_t size) {
  if (bytes >= 1e12)
    snprintf(out, size, "%.3g TB", bytes / 1e12);
  else if (bytes >= 1e9)
    snprintf(out, size, "%.3g GB", bytes / 1e9);
  else
    snprintf(out, size, "%.3g MB", bytes / 1e6);
}

/* What the sizes come to, in bytes: the host's peak while the plan is built and copied, the
   device's after, and its largest buffer. Each term is an allocation of azint_plan.c,
   azint_full.c or azint.c, named beside it. */
typedef struct estimate {
  double host, device, largest;
} estimate;

static estimate estimate_of(const ag__azint_memory *m, const ag_integrate_options *opt, double npix, double nnz) {
  bool two_d = opt->npt_azim > 0;
  double nrad = (double)opt->npt_rad, nazim = two_d ? (double)opt->npt_azim : 1, nbins = nrad * nazim;
  double e = (double)m->esize;
  double rows = 8 * (nbins + 1);                          /* a CSR's row pointers, u64 */
  double plan = 8 * (nrad + (two_d ? nazim : 0)) + rows + 12 * nnz; /* centres, indptr, indices + shares */
  double positions = opt->split == AG_SPLIT_FULL ? 64 * npix : 32 * npix; /* corners, or centres and spreads */
  double cells = opt->split != AG_SPLIT_FULL ? 0 : two_d ? 4 * (nrad + 2) * (nazim + 2) : 4 * nrad;
  double build = plan + positions + cells + rows;         /* ag__azint_fill's next slots */
  double upload = plan + 24 * npix + e * nnz;             /* norm, solid angle, polarisation; the shares */
  double walk = m->walk ? plan + rows + 12 * nnz          /* walk_plan's copy */
                              + (two_d ? 20 : 4) * nbins  /* bin_of, walk_order's keys */
                              + e * nnz + 4 * e * nbins   /* its upload; walk_sums' two reads */
                        : 0;
  estimate est;
  est.host = fmax(build, fmax(upload, walk));
  double matrix = rows + (4 + e) * nnz;
  est.device = matrix * (m->walk ? 2 : 1) + (m->walk ? (4 + 2 * e) * nbins + 4 * npix : 0) /* bin_of, sums, zeros */
               + 3 * e * npix                                                               /* norm, dark, variance */
               + 6 * e * nbins;                                                             /* one frame's results */
  est.largest = fmax(fmax(rows, (4 > e ? 4 : e) * nnz), e * fmax(nbins, npix));
  return est;
}

ag_status ag__azint_fits(const char *fn, const ag__azint_memory *m, const ag_integrate_options *opt, size_t npix,
                         double nnz, bool nnz_known) {
  estimate est = estimate_of(m, opt, (double)npix, nnz);
  char bins[160], what[200], need[32], have[32];
  if (opt->npt_azim > 0)
    snprintf(bins, sizeof bins, "opt->npt_rad x opt->npt_azim (%zu x %zu bins)", opt->npt_rad, opt->npt_azim);
  else
    snprintf(bins, sizeof bins, "opt->npt_rad (%zu bins)", opt->npt_rad);
  if (nnz_known)
    snprintf(what, sizeof what, "a matrix of %.3g pixel shares, 6 results of %zu bytes a bin", nnz, m->esize);
  else
    snprintf(what, sizeof what, "at least, before the matrix: 6 results of %zu bytes a bin", m->esize);
  double total = m->shared ? est.host + est.device : est.host;
  if (total > m->host) {
    human(total, need, sizeof need);
    human(m->host, have, sizeof have);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: %s over %zu pixels need an estimated %s of %s (%s), more than the "
                     "%s of host memory this process may take (physical memory, or less under ulimit -v); use fewer bins", fn, bins, npix, need,
                     m->shared ? "host memory, which is also the device's" : "host memory while it is built", what,
                     have);
  }
  if (!m->shared && est.device > m->global) {
    human(est.device, need, sizeof need);
    human(m->global, have, sizeof have);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: %s over %zu pixels need an estimated %s of device memory (%s), more "
                     "than the %s of %s (ag_device_info.global_memory); use fewer bins", fn, bins, npix, need, what,
                     have, m->device);
  }
  if (est.largest > m->largest) {
    human(est.largest, need, sizeof need);
    human(m->largest, have, sizeof have);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: %s over %zu pixels need a buffer of an estimated %s (%s), more than "
                     "the %s %s allocates at once (ag_device_info.max_allocation); use fewer bins", fn, bins, npix,
                     need, what, have, m->device);
  }
  return AG_OK;
}
