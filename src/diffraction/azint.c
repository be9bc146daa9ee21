/* src/diffraction/azint.c - integrators (include/anygpu/azint.h): the options' checks, the plan
   (azint_plan.c) and the static corrections copied to the device at creation, and each
   integration's one launch of the azint family (kernels_shared/azint.h), which reads the
   frames in their own dtype and the plan's matrix once per bin and frame. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "seam.h"
#include "azint_plan.h"
#include "geometry.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/azint.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_csr, AG_SHAPE_AZINT_CSR)

/* Rows at least this long on average go a work-group per (bin, frame) on GPUs
   (ag_azint_csr_<frames>_<engine>_rows); shorter ones a work-item each. */
enum { LONG_ROWS = AG_AZINT_GROUP, CPU_BINS = 16 };

struct ag_integrator {
  ag_device *dev;
  ag_dtype dtype;
  size_t rows, cols, npix, nrad, nazim, nbins;
  bool two_d;
  ag_csr *a;        /* the shares: a row per bin, a column per pixel */
  ag_csr *walk;     /* the same rows in the order the kernel takes them, or NULL for a's */
  ag_array *bin_of; /* u32 nbins: walk's row k is bin bin_of[k]; NULL without walk */
  ag_array *sums;   /* 2 nbins, the engine's dtype: walk's row k's sum_normalization and count
                       over a frame with no pixel left out by its value (walk_sums); or NULL */
  ag_array *norm;   /* npix: normalisation factor x flat x polarisation x solid angle */
  ag_array *dark;   /* npix, or NULL */
  ag_array *var;    /* npix, or NULL */
  uint32_t vmode;   /* kernels_shared/azint.h */
  bool has_dummy;
  double dummy, delta_dummy, empty;
  double *rad_centres, *azim_centres;
};

/* ---- creation ------------------------------------------------------------------------------- */

static ag_status check_range(const char *fn, const char *what, double lo, double hi) {
  if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->%s_min (%g) must be finite and below opt->%s_max (%g)", fn,
                     what, lo, what, hi);
  return AG_OK;
}

/* The arguments every creation takes: @p out (set to NULL), @p dev, @p poni and @p opt, and the
   options' fields; the engine's dtype and the frames' shape out. */
static ag_status check_options(const char *fn, ag_device *dev, const ag_poni *poni, const ag_integrate_options *opt,
                               ag_integrator **out, ag_dtype *dtype, size_t *rows, size_t *cols) {
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  AG__CHECK_NOT_NULL(fn, poni);
  AG__CHECK_NOT_NULL(fn, opt);
  if (opt->npt_rad == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->npt_rad is 0; an integration has at least one radial bin", fn);
  if ((unsigned)opt->unit >= AG_RADIAL_UNIT_COUNT)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->unit %d is not an ag_radial_unit", fn, (int)opt->unit);
  if (opt->split != AG_SPLIT_BBOX && opt->split != AG_SPLIT_NO && opt->split != AG_SPLIT_FULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT,
                     "%s: opt->split %d is not AG_SPLIT_BBOX, AG_SPLIT_NO or AG_SPLIT_FULL", fn, (int)opt->split);
  if ((unsigned)opt->error_model > AG_ERROR_VARIANCE)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->error_model %d is not an ag_error_model", fn,
                     (int)opt->error_model);
  if (opt->error_model == AG_ERROR_VARIANCE && opt->variance == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->variance is NULL, which AG_ERROR_VARIANCE needs", fn);
  ag_status st;
  if (opt->has_radial_range && (st = check_range(fn, "radial", opt->radial_min, opt->radial_max)) != AG_OK)
    return st;
  /* An azimuth range may cross the discontinuity at 180 degrees: pyFAI then moves its end a
     turn on. Equal ends give no range. */
  if (opt->has_azimuth_range &&
      (!isfinite(opt->azimuth_min) || !isfinite(opt->azimuth_max) || opt->azimuth_min == opt->azimuth_max))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->azimuth_min (%g) and opt->azimuth_max (%g) must be finite "
                     "and differ", fn, opt->azimuth_min, opt->azimuth_max);
  if (opt->has_dummy && (!isfinite(opt->dummy) || !isfinite(opt->delta_dummy) || opt->delta_dummy < 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->dummy (%g) and opt->delta_dummy (%g) must be finite, "
                     "delta_dummy 0 or above", fn, opt->dummy, opt->delta_dummy);
  if (opt->has_polarization && !(fabs(opt->polarization_factor) <= 1))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->polarization_factor is %g, not in [-1, 1]", fn,
                     opt->polarization_factor);
  if (!isfinite(opt->normalization_factor))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->normalization_factor is %g, not finite", fn,
                     opt->normalization_factor);
  *dtype = opt->dtype == AG_U8 ? AG_F32 : opt->dtype;
  if (*dtype != AG_F32 && *dtype != AG_F64)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->dtype is %s; the engine runs in f32 or f64", fn,
                     ag_dtype_name(*dtype));
  st = ag__check_fp64_arg(fn, "opt->dtype", dev, *dtype);
  if (st != AG_OK)
    return st;
  if ((st = ag__poni_check(fn, poni)) != AG_OK)
    return st;
  *rows = opt->rows ? opt->rows : poni->rows;
  *cols = opt->cols ? opt->cols : poni->cols;
  /* pyFAI refuses frames of another shape than its detector's (when it has one) */
  if (poni->rows != 0 && poni->cols != 0 && (*rows != poni->rows || *cols != poni->cols))
    return ag__error(AG_ERR_MISMATCH, "%s: opt->rows x opt->cols are %zu x %zu, but the detector (ag_poni.rows x "
                     "ag_poni.cols) is %zu x %zu", fn, *rows, *cols, poni->rows, poni->cols);
  if (*rows == 0 || *cols == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: the frames' shape is unknown: opt->rows and opt->cols are %zu "
                     "and %zu, and ag_poni.rows and ag_poni.cols %zu and %zu", fn, opt->rows, opt->cols, poni->rows,
                     poni->cols);
  if (*rows > ((size_t)1 << 31) / *cols)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: %zu x %zu pixels are more than 2^31", fn, *rows, *cols);
  if (opt->npt_rad > ((size_t)1 << 31) || opt->npt_azim > ((size_t)1 << 31) / opt->npt_rad)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: opt->npt_rad x opt->npt_azim is more than 2^31 bins", fn);
  return AG_OK;
}

/* The host memory this process may still take: the physical memory, or less where an
   address-space limit (ulimit -v) leaves less above what the process already maps. */
static double host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double host = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return host;
  double mapped = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long size;
  if (f != NULL && fscanf(f, "%lu", &size) == 1 && page > 0)
    mapped = (double)size * (double)page;
  if (f != NULL)
    fclose(f);
  return fmin(host, fmax(0.0, (double)rl.rlim_cur - mapped));
}

/* What an integrator of @p dtype on @p dev may take (ag__azint_fits); 0 in ag_device_info is
   unknown, and no limit. */
static ag__azint_memory memory_of(const ag_device *dev, ag_dtype dtype) {
  const ag_device_info *info = ag__dev_info(dev);
  return (ag__azint_memory){.device = info->spec,
                            .global = info->global_memory ? (double)info->global_memory : INFINITY,
                            .largest = info->max_allocation ? (double)info->max_allocation : INFINITY,
                            .host = host_memory(),
                            .shared = info->type == AG_DEVICE_CPU,
                            .walk = ag__device_walks_in_chunks(dev),
                            .esize = ag_dtype_size(dtype)};
}

/* a x b, rounded to float when @p f32. */
static double times(double a, double b, bool f32) { return f32 ? (double)((float)a * (float)b) : a * b; }

/* The per-pixel normalisation as preproc builds it, in the engine's precision: the
   normalisation factor, times flat, times polarisation, times solid angle, each product
   rounded; 0 (the pixel left out) where the dark or the flat is the dummy (the dark within
   delta_dummy exclusive, the flat inclusive, as preproc compares them). */
static ag_status static_norm(const char *fn, const ag_poni *poni, size_t rows, size_t cols,
                             const ag_integrate_options *opt, ag_dtype dtype, double *norm) {
  size_t n = rows * cols;
  double *sa = NULL, *pol = NULL;
  ag_status st = AG_OK;
  if (!opt->no_solid_angle) {
    sa = malloc(n * sizeof *sa);
    st = sa == NULL ? ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the solid angles", fn)
                    : ag__prefix(ag_geometry_solid_angle(poni, rows, cols, sa), fn);
  }
  if (st == AG_OK && opt->has_polarization) {
    pol = malloc(n * sizeof *pol);
    st = pol == NULL ? ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for the polarisation", fn)
                     : ag__prefix(ag_geometry_polarization(poni, rows, cols, opt->polarization_factor, 0, pol), fn);
  }
  double nf = opt->normalization_factor == 0 ? 1.0 : opt->normalization_factor;
  for (size_t k = 0; st == AG_OK && k < n; k++) {
    bool f32 = dtype == AG_F32;
    double w = f32 ? (float)nf : nf;
    if (opt->flat)
      w = times(w, opt->flat[k], f32);
    if (pol)
      w = times(w, (float)pol[k], f32);
    if (sa)
      w = times(w, (float)sa[k], f32);
    norm[k] = w;
    if (opt->has_dummy) {
      float cd = (float)opt->dummy, dd = (float)opt->delta_dummy;
      if (opt->dark && (dd == 0 ? opt->dark[k] == cd : fabsf(opt->dark[k] - cd) < dd))
        norm[k] = 0;
      if (opt->flat && (dd == 0 ? opt->flat[k] == cd : fabsf(opt->flat[k] - cd) <= dd))
        norm[k] = 0;
    }
  }
  free(sa);
  free(pol);
  return st;
}

void ag_integrator_destroy(ag_integrator *integ) {
  if (integ == NULL)
    return;
  ag_csr_destroy(integ->a);
  ag_csr_destroy(integ->walk);
  ag_array_free(integ->bin_of);
  ag_array_free(integ->sums);
  ag_array_free(integ->norm);
  ag_array_free(integ->dark);
  ag_array_free(integ->var);
  free(integ->rad_centres);
  free(integ->azim_centres);
  free(integ);
}

/* The matrix's shares on the device in the engine's dtype. */
static ag_status upload_matrix(const char *fn, ag_integrator *in, const ag__azint_plan *plan) {
  size_t n = plan->nnz ? plan->nnz : 1;
  unsigned char *v = malloc(n * ag_dtype_size(in->dtype));
  if (v == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu shares", fn, plan->nnz);
  for (size_t k = 0; k < plan->nnz; k++) {
    if (in->dtype == AG_F32)
      ((float *)v)[k] = (float)plan->data[k];
    else
      ((double *)v)[k] = plan->data[k];
  }
  ag_status st =
      ag_csr_create(in->dev, in->dtype, plan->nbins, plan->npix, plan->nnz, plan->indptr, plan->indices, v, &in->a);
  free(v);
  return st == AG_OK ? st : ag__prefix(st, fn);
}

/* CPU devices walk a copy of the matrix (integ->walk), made for them at creation:
   - without the entries of pixels whose normalisation is 0 or NaN, which add nothing to any
     bin, so that a frame's pass need not read the normalisation to find them;
   - in 2-D, with its rows in the order of their pixels on the detector: by each bin's mean
     pixel, in bands of WALK_BAND detector rows, along the band within one. Neighbouring rows
     then read the same cache lines of the frame, where the bins' own order (rings, each
     around the whole detector) meets a line again only a ring later. Empty bins go last.
   GPUs take integ->a, in the bins' order, which ag_integrator_csr() gives on every device. */
enum { WALK_BAND = 4 };

typedef struct walk_key {
  uint64_t key;
  uint32_t bin;
} walk_key;

static int by_walk_key(const void *pa, const void *pb) {
  const walk_key *a = pa, *b = pb;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->bin < b->bin ? -1 : a->bin > b->bin;
}

/* The walk's row order into @p bin_of (row w is bin bin_of[w]). */
static ag_status walk_order(const char *fn, const ag__azint_plan *plan, size_t cols, bool two_d, uint32_t *bin_of) {
  size_t nb = plan->nbins;
  walk_key *keys = two_d ? malloc(nb * sizeof *keys) : NULL;
  if (two_d && keys == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory to order %zu bins", fn, nb);
  for (size_t r = 0; r < nb && two_d; r++) {
    uint64_t k0 = plan->indptr[r], k1 = plan->indptr[r + 1], key = UINT64_MAX;
    if (k1 > k0) {
      double y = 0, x = 0;
      for (uint64_t k = k0; k < k1; k++)
        y += (double)(plan->indices[k] / cols), x += (double)(plan->indices[k] % cols);
      y /= (double)(k1 - k0), x /= (double)(k1 - k0);
      key = ((uint64_t)(y / WALK_BAND) << 32) | (uint64_t)(x * 16);
    }
    keys[r] = (walk_key){key, (uint32_t)r};
  }
  if (two_d)
    qsort(keys, nb, sizeof *keys, by_walk_key);
  for (size_t w = 0; w < nb; w++)
    bin_of[w] = two_d ? keys[w].bin : (uint32_t)w;
  free(keys);
  return AG_OK;
}

/* @p plan's matrix rewritten (in place) as the walk's: rows in @p bin_of's order, entries of
   pixels whose normalisation @p norm is 0 or not finite left out. */
static ag_status walk_plan(const char *fn, ag__azint_plan *plan, const uint32_t *bin_of, const double *norm) {
  size_t nb = plan->nbins, n = plan->nnz ? plan->nnz : 1;
  uint64_t *ptr = malloc((nb + 1) * sizeof *ptr);
  uint32_t *idx = malloc(n * sizeof *idx);
  double *val = malloc(n * sizeof *val);
  if (ptr == NULL || idx == NULL || val == NULL) {
    free(ptr), free(idx), free(val);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for a copy of %zu shares", fn, plan->nnz);
  }
  uint64_t at = 0;
  ptr[0] = 0;
  for (size_t w = 0; w < nb; w++) {
    uint32_t r = bin_of[w];
    for (uint64_t k = plan->indptr[r]; k < plan->indptr[r + 1]; k++) {
      uint32_t p = plan->indices[k];
      if (!isnan(norm[p]) && norm[p] != 0) /* which the kernels leave out (azint_engine.h) */
        idx[at] = p, val[at++] = plan->data[k];
    }
    ptr[w + 1] = at;
  }
  free(plan->indptr), free(plan->indices), free(plan->data);
  plan->indptr = ptr, plan->indices = idx, plan->data = val, plan->nnz = at;
  return AG_OK;
}

/* Whether a row is too long for the device's loop limit (docs/portability.md). */
static bool beyond_loop_limit(const ag_integrator *in) {
  uint64_t limit = ag__dev_info(in->dev)->max_loop_iterations;
  return limit != 0 && ag__csr_parts_of(in->walk ? in->walk : in->a).longest >= limit - 1;
}

static ag_status walk_sums(const char *fn, ag_integrator *in, const uint32_t *bin_of);

/* The walk (above) on CPU devices: integ->walk, integ->bin_of and integ->sums from @p plan
   (rewritten) and the pixels' normalisation @p norm (integ->norm already on the device). */
static ag_status upload_walk(const char *fn, ag_integrator *in, ag__azint_plan *plan, const double *norm) {
  if (!ag__device_walks_in_chunks(in->dev))
    return AG_OK;
  size_t nb = plan->nbins;
  uint32_t *bin_of = malloc(nb * sizeof *bin_of);
  if (bin_of == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory to order %zu bins", fn, nb);
  ag_status st = walk_order(fn, plan, in->cols, in->two_d, bin_of);
  if (st == AG_OK)
    st = walk_plan(fn, plan, bin_of, norm);
  if (st == AG_OK) {
    ag_csr *a = in->a;
    in->a = NULL;
    st = upload_matrix(fn, in, plan);
    in->walk = in->a, in->a = a;
  }
  if (st == AG_OK && (st = ag_array_from_host(in->dev, AG_U32, 1, &nb, bin_of, &in->bin_of)) != AG_OK)
    st = ag__prefix(st, fn);
  if (st == AG_OK && !beyond_loop_limit(in)) /* else each integration refuses */
    st = walk_sums(fn, in, bin_of);
  free(bin_of);
  return st;
}

/* A float host array as doubles on the device. */
static ag_status upload_floats(const char *fn, ag_integrator *in, const float *src, ag_array **out) {
  double *tmp = malloc(in->npix * sizeof *tmp);
  if (tmp == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu pixels", fn, in->npix);
  for (size_t k = 0; k < in->npix; k++)
    tmp[k] = src[k];
  ag_status st = ag__array_from_doubles(in->dev, in->dtype, 1, &in->npix, tmp, out);
  free(tmp);
  return st == AG_OK ? st : ag__prefix(st, fn);
}


/* An integrator from checked options and a plan, which it takes (freed here either way). */
static ag_status make_integrator(const char *fn, ag_device *dev, const ag_poni *poni, const ag_integrate_options *opt,
                                 ag_dtype dtype, size_t rows, size_t cols, ag__azint_plan *plan, ag_integrator **out) {
  ag_integrator *in = calloc(1, sizeof *in);
  if (in == NULL) {
    ag__azint_plan_free(plan);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  *in = (ag_integrator){.dev = dev, .dtype = dtype, .rows = rows, .cols = cols, .npix = rows * cols,
                        .two_d = opt->npt_azim > 0, .has_dummy = opt->has_dummy, .dummy = opt->dummy,
                        .delta_dummy = opt->delta_dummy, .empty = opt->has_dummy ? opt->dummy : 0.0,
                        .nrad = plan->nrad, .nazim = plan->nazim, .nbins = plan->nbins,
                        .rad_centres = plan->rad_centres, .azim_centres = plan->azim_centres};
  in->vmode = opt->error_model == AG_ERROR_NONE ? 0 : opt->error_model == AG_ERROR_VARIANCE ? 3 : in->two_d ? 2 : 1;
  plan->rad_centres = plan->azim_centres = NULL;
  double *norm = malloc(in->npix * sizeof *norm);
  ag_status st = norm == NULL ? ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu pixels", fn, in->npix)
                              : static_norm(fn, poni, rows, cols, opt, dtype, norm);
  if (st == AG_OK)
    st = upload_matrix(fn, in, plan);
  if (st == AG_OK && (st = ag__array_from_doubles(dev, dtype, 1, &in->npix, norm, &in->norm)) != AG_OK)
    st = ag__prefix(st, fn);
  if (st == AG_OK) /* after the normalisation, which its static sums read */
    st = upload_walk(fn, in, plan, norm);
  ag__azint_plan_free(plan);
  free(norm);
  if (st == AG_OK && opt->dark != NULL)
    st = upload_floats(fn, in, opt->dark, &in->dark);
  if (st == AG_OK && opt->error_model == AG_ERROR_VARIANCE)
    st = upload_floats(fn, in, opt->variance, &in->var);
  if (st != AG_OK) {
    ag_integrator_destroy(in);
    return st;
  }
  *out = in;
  return AG_OK;
}

ag_status ag_integrator_create(ag_device *dev, const ag_poni *poni, const ag_integrate_options *opt,
                               ag_integrator **out) {
  static const char fn[] = "ag_integrator_create";
  ag_dtype dtype = AG_F32;
  size_t rows = 0, cols = 0;
  ag_status st = check_options(fn, dev, poni, opt, out, &dtype, &rows, &cols);
  if (st != AG_OK)
    return st;
  if ((unsigned)opt->unit < AG_RADIAL_UNIT_COUNT && (opt->unit == AG_RADIAL_Q_NM || opt->unit == AG_RADIAL_Q_A) &&
      poni->wavelength == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->unit %s needs a wavelength, and ag_poni.wavelength is 0", fn,
                     ag_radial_unit_name(opt->unit));
  ag__azint_memory mem = memory_of(dev, dtype);
  ag__azint_plan plan;
  if ((st = ag__azint_plan_build(fn, poni, rows, cols, opt, &mem, &plan)) != AG_OK)
    return st;
  return make_integrator(fn, dev, poni, opt, dtype, rows, cols, &plan, out);
}

/* A plan holding a read-back of @p shares (its values as doubles) and copies of the centres. */
static ag_status plan_from_csr(const char *fn, const ag_csr_info *info, const ag_csr *shares, const double *rad,
                               const double *azim, const ag_integrate_options *opt, ag__azint_plan *plan) {
  memset(plan, 0, sizeof *plan);
  *plan = (ag__azint_plan){.npix = info->cols, .nrad = opt->npt_rad, .nazim = opt->npt_azim ? opt->npt_azim : 1,
                           .nbins = info->rows, .nnz = info->nnz};
  size_t n = info->nnz ? info->nnz : 1;
  plan->indptr = malloc((info->rows + 1) * sizeof *plan->indptr);
  plan->indices = malloc(n * sizeof *plan->indices);
  plan->data = malloc(n * sizeof *plan->data);
  plan->rad_centres = malloc(plan->nrad * sizeof *plan->rad_centres);
  plan->azim_centres = opt->npt_azim ? malloc(plan->nazim * sizeof *plan->azim_centres) : NULL;
  float *f = info->dtype == AG_F32 ? malloc(n * sizeof *f) : NULL;
  ag_status st = AG_OK;
  if (!plan->indptr || !plan->indices || !plan->data || !plan->rad_centres || (opt->npt_azim && !plan->azim_centres) ||
      (info->dtype == AG_F32 && f == NULL))
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for a copy of shares (%zu values)", fn, info->nnz);
  if (st == AG_OK)
    st = ag__prefix(ag_csr_to_host(shares, plan->indptr, plan->indices, f ? (void *)f : (void *)plan->data), fn);
  for (size_t k = 0; st == AG_OK && f != NULL && k < info->nnz; k++)
    plan->data[k] = f[k];
  free(f);
  if (st != AG_OK) {
    ag__azint_plan_free(plan);
    return st;
  }
  memcpy(plan->rad_centres, rad, plan->nrad * sizeof *rad);
  if (opt->npt_azim)
    memcpy(plan->azim_centres, azim, plan->nazim * sizeof *azim);
  return AG_OK;
}

ag_status ag_integrator_create_from_csr(ag_device *dev, const ag_poni *poni, const ag_integrate_options *opt,
                                        const ag_csr *shares, const double *radial_centres,
                                        const double *azimuthal_centres, ag_integrator **out) {
  static const char fn[] = "ag_integrator_create_from_csr";
  ag_dtype dtype = AG_F32;
  size_t rows = 0, cols = 0;
  ag_status st = check_options(fn, dev, poni, opt, out, &dtype, &rows, &cols);
  if (st != AG_OK)
    return st;
  AG__CHECK_NOT_NULL(fn, shares);
  AG__CHECK_NOT_NULL(fn, radial_centres);
  if (opt->npt_azim > 0)
    AG__CHECK_NOT_NULL(fn, azimuthal_centres);
  ag_csr_info info;
  if ((st = ag_csr_get_info(shares, &info)) != AG_OK)
    return ag__prefix(st, fn);
  size_t nbins = opt->npt_rad * (opt->npt_azim ? opt->npt_azim : 1);
  if (info.dev != dev)
    return ag__error(AG_ERR_MISMATCH, "%s: shares is on %s but dev is %s", fn, ag__dev_info(info.dev)->spec,
                     ag__dev_info(dev)->spec);
  if (info.rows != nbins || info.cols != rows * cols)
    return ag__error(AG_ERR_MISMATCH, "%s: shares is %zu x %zu, but the options ask for %zu bins of %zu x %zu pixels "
                     "(a matrix of %zu x %zu)", fn, info.rows, info.cols, nbins, rows, cols, nbins, rows * cols);
  ag__azint_memory mem = memory_of(dev, dtype);
  if ((st = ag__azint_fits(fn, &mem, opt, rows * cols, (double)info.nnz, true)) != AG_OK)
    return st;
  ag__azint_plan plan;
  if ((st = plan_from_csr(fn, &info, shares, radial_centres, azimuthal_centres, opt, &plan)) != AG_OK)
    return st;
  return make_integrator(fn, dev, poni, opt, dtype, rows, cols, &plan, out);
}

/* ---- integration ----------------------------------------------------------------------------- */

/* The result's six arrays, in the order of the struct. */
static void result_slots(ag_integrate_result *r, ag_array **slots[6]) {
  slots[0] = &r->intensity, slots[1] = &r->sigma, slots[2] = &r->sum_signal, slots[3] = &r->sum_variance;
  slots[4] = &r->sum_normalization, slots[5] = &r->count;
}

void ag_integrate_result_free(ag_integrate_result *r) {
  if (r == NULL)
    return;
  ag_array **slots[6];
  result_slots(r, slots);
  for (int k = 0; k < 6; k++)
    ag_array_free(*slots[k]);
  memset(r, 0, sizeof *r);
}

static ag_status check_frames(const char *fn, const ag_integrator *in, const ag_array *frames, size_t *batch) {
  ag_status st = ag__check_array(fn, "frames", frames);
  if (st != AG_OK)
    return st;
  if (frames->dev != in->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: frames is on %s but the integrator on %s", fn,
                     ag__dev_info(frames->dev)->spec, ag__dev_info(in->dev)->spec);
  if (!ag__azint_frames_dtype(frames->dtype))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: frames is %s; frames are u8, u16, u32, i32, f32 or f64 (ag_astype "
                     "others first)", fn, ag_dtype_name(frames->dtype));
  int nd = frames->ndim;
  if (nd < 2 || frames->shape[nd - 2] != in->rows || frames->shape[nd - 1] != in->cols) {
    char got[96] = "";
    size_t at = 0;
    for (int k = 0; k < nd && at < sizeof got; k++)
      at += (size_t)snprintf(got + at, sizeof got - at, "%s%zu", k ? ", " : "", frames->shape[k]);
    return ag__error(AG_ERR_MISMATCH, "%s: frames has shape {%s}, but the integrator takes frames of {%zu, %zu}, "
                     "alone or after scan axes ({..., %zu, %zu})", fn, got, in->rows, in->cols, in->rows, in->cols);
  }
  /* The scan axes before the frames' two are kept in the results' shape, followed by the
     integration's one or two axes: no more than the frames' own dimensions, so they fit an
     array. */
  *batch = 1;
  for (int k = 0; k < nd - 2; k++)
    *batch *= frames->shape[k];
  return AG_OK;
}

/* The six result arrays: the frames' scan axes (the first @p nlead of @p lead), then npt_rad,
   or npt_azim and npt_rad. */
static ag_status make_results(const ag_integrator *in, int nlead, const size_t *lead, ag_integrate_result *r) {
  size_t shape[AG_MAX_DIMS];
  int nd = 0;
  for (int k = 0; k < nlead; k++)
    shape[nd++] = lead[k];
  if (in->two_d)
    shape[nd++] = in->nazim;
  shape[nd++] = in->nrad;
  ag_array **outs[6];
  result_slots(r, outs);
  for (int k = 0; k < 6; k++) {
    ag_status st = ag_array_create(in->dev, in->dtype, nd, shape, outs[k]);
    if (st != AG_OK)
      return st;
  }
  return AG_OK;
}

/* One value of the engine's dtype for a kernel. */
typedef union engine_value {
  float f;
  double d;
} engine_value;

static ag__val value_of(const ag_integrator *in, double v, engine_value *slot) {
  if (in->dtype == AG_F32) {
    slot->f = (float)v;
    return (ag__val){&slot->f, sizeof slot->f};
  }
  slot->d = v;
  return (ag__val){&slot->d, sizeof slot->d};
}

/* What a launch reads besides the frames: the options' dark, dummy and error model, or none
   (walk_sums' pass); the walk's static sums when the kernel may use them. */
typedef struct pass {
  const ag_array *dark;
  bool has_dummy;
  uint32_t vmode;
  const ag_array *sums;
} pass;

/* The launch for @p batch frames: a work-group per (bin, frame) on GPUs when rows are long,
   else a work-item each. */
static ag_status launch_integrate(const char *fn, ag_queue *q, const ag_integrator *in, const ag_array *frames,
                                  size_t batch, const pass *p, ag_integrate_result *r) {
  ag__csr_parts m = ag__csr_parts_of(in->walk ? in->walk : in->a);
  uint64_t limit = ag__dev_info(in->dev)->max_loop_iterations;
  if (beyond_loop_limit(in))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: a bin takes %llu pixels, and %s (%s) ends a work-item's loops after "
                     "%llu iterations (docs/portability.md, loop-limit)", fn, (unsigned long long)m.longest,
                     ag__dev_info(in->dev)->spec, ag__dev_info(in->dev)->name, (unsigned long long)limit);
  /* ag_azint_csr_<frames>_<engine>, its variant the frames' dtype; CPU devices take a batch
     AG_AZINT_FRAMES frames an item (the _frames kernel), GPUs long rows a work-group each (the
     _rows kernel). */
  bool f64 = in->dtype == AG_F64;
  bool grouped = ag__device_walks_in_chunks(in->dev) && batch > 1;
  uint64_t n = (uint64_t)in->nbins * (grouped ? (batch + AG_AZINT_FRAMES - 1) / AG_AZINT_FRAMES : batch);
  ag__kernel_id kernel = grouped ? (f64 ? AG_K_AZINT_CSR_F64_FRAMES : AG_K_AZINT_CSR_F32_FRAMES)
                                 : (f64 ? AG_K_AZINT_CSR_F64 : AG_K_AZINT_CSR_F32);
  ag__launch l = {.fn = fn, .q = q, .dev = in->dev, .kernel = kernel + frames->dtype, .n = n};
  ag_range range = {.dims = 1};
  if (!ag__device_walks_in_chunks(in->dev) && m.nnz / LONG_ROWS >= in->nbins) {
    l.kernel = (f64 ? AG_K_AZINT_CSR_F64_ROWS : AG_K_AZINT_CSR_F32_ROWS) + frames->dtype;
    ag_status st = ag__launch_groups(&l, AG_AZINT_GROUP, &range);
    if (st != AG_OK)
      return st;
  } else if (ag__device_walks_in_chunks(in->dev)) {
    /* CPUs: some 32 work-groups a core (at least CPU_BINS bins each), which the threads take
       in turn, so that bins of many pixels (the outer rings of a 1-D integration) do not all
       land on one thread. */
    uint64_t per = n / ((uint64_t)ag__dev_info(in->dev)->compute_units * 32 + 1);
    range.local[0] = per > CPU_BINS ? per : CPU_BINS;
    range.global[0] = (n + range.local[0] - 1) / range.local[0] * range.local[0];
    l.range = &range;
  }
  engine_value v_dummy, v_ddummy, v_empty;
  /* An absent array's slot gets another array of its dtype, which the kernel does not read. */
  return AG__LAUNCH(launch_csr, &l, .row_ptr = m.row_ptr, .col_idx = m.col_idx, .val = m.values, .frames = frames,
                    .dark = p->dark ? p->dark : in->norm, .norm = in->norm, .var = in->var ? in->var : in->norm,
                    .npix = (ag_u64)in->npix, .nrad = (ag_u64)in->nrad, .nazim = (ag_u64)in->nazim,
                    .nbins = (ag_u64)in->nbins, .has_dark = (ag_u32)(p->dark != NULL),
                    .has_dummy = (ag_u32)p->has_dummy, .dummy = value_of(in, in->dummy, &v_dummy),
                    .ddummy = value_of(in, in->delta_dummy, &v_ddummy), .vmode = p->vmode,
                    .empty = value_of(in, in->empty, &v_empty), .intensity = r->intensity, .sigma = r->sigma,
                    .sum_signal = r->sum_signal, .sum_variance = r->sum_variance, .sum_norm = r->sum_normalization,
                    .count = r->count, .bin_of = in->bin_of ? in->bin_of : r->count,
                    .has_order = (ag_u32)(in->bin_of != NULL), .sums = p->sums ? p->sums : in->norm,
                    .has_sums = (ag_u32)(p->sums != NULL), .n_frames = (ag_u64)batch);
}

/* The walk's static sums (integ->sums): each row's sum_normalization and count over a frame of
   zeros with the options' dark, dummy and error model left out, where no pixel is left out by
   its value. A frame with none left out either has the same two sums, bit for bit (the same
   entries added in the same order), and the kernel reads them from here rather than gathering
   the normalisation (kernels_shared/azint.h). */
static ag_status walk_sums(const char *fn, ag_integrator *in, const uint32_t *bin_of) {
  size_t shape[2] = {in->rows, in->cols}, nb = in->nbins, n2 = 2 * nb, esize = ag_dtype_size(in->dtype);
  ag_array *zeros = NULL;
  ag_integrate_result r = {0};
  ag_queue *q = NULL;
  unsigned char *got = malloc(2 * nb * esize), *walk = malloc(2 * nb * esize);
  pass p = {.vmode = 0};
  ag_status st = got == NULL || walk == NULL
                     ? ag__error(AG_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu bins' sums", fn, nb)
                     : ag__queue_resolve(fn, NULL, in->dev, &q);
  if (st == AG_OK)
    st = ag__prefix(ag_array_create(in->dev, AG_F32, 2, shape, &zeros), fn);
  if (st == AG_OK)
    st = ag__prefix(ag_fill(q, zeros, 0), fn);
  if (st == AG_OK)
    st = ag__prefix(make_results(in, 0, NULL, &r), fn);
  if (st == AG_OK)
    st = launch_integrate(fn, q, in, zeros, 1, &p, &r);
  if (st == AG_OK)
    st = ag__prefix(ag_array_to_host(r.sum_normalization, got, nb * esize), fn);
  if (st == AG_OK)
    st = ag__prefix(ag_array_to_host(r.count, got + nb * esize, nb * esize), fn);
  if (st == AG_OK) {
    /* Results are [nazim][nrad]; bin b is radial b / nazim, azimuthal b % nazim. */
    for (size_t w = 0; w < nb; w++) {
      size_t o = (bin_of[w] % in->nazim) * in->nrad + bin_of[w] / in->nazim;
      memcpy(walk + 2 * w * esize, got + o * esize, esize);
      memcpy(walk + (2 * w + 1) * esize, got + (nb + o) * esize, esize);
    }
    st = ag__prefix(ag_array_from_host(in->dev, in->dtype, 1, &n2, walk, &in->sums), fn);
  }
  ag_integrate_result_free(&r);
  ag_array_free(zeros);
  free(got), free(walk);
  return st;
}

ag_status ag_integrate(ag_queue *q, ag_integrator *in, const ag_array *frames, ag_integrate_result *result) {
  static const char fn[] = "ag_integrate";
  AG__CHECK_NOT_NULL(fn, result);
  memset(result, 0, sizeof *result);
  AG__CHECK_NOT_NULL(fn, in);
  size_t batch = 0;
  ag_status st = check_frames(fn, in, frames, &batch);
  if (st != AG_OK)
    return st;
  st = ag__check_fp64_arg(fn, "frames", in->dev, frames->dtype);
  if (st != AG_OK)
    return st;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, in->dev, &rq)) != AG_OK)
    return st;
  if ((st = make_results(in, frames->ndim - 2, frames->shape, result)) != AG_OK)
    st = ag__prefix(st, fn);
  else if (batch > 0) {
    /* The static sums stand in for the normalisation's gather where nothing else is per pixel. */
    pass p = {.dark = in->dark, .has_dummy = in->has_dummy, .vmode = in->vmode,
              .sums = in->dark == NULL && in->vmode != 3 ? in->sums : NULL};
    st = launch_integrate(fn, rq, in, frames, batch, &p, result); /* its messages name fn */
  }
  if (st != AG_OK)
    ag_integrate_result_free(result);
  return st;
}

/* ---- queries --------------------------------------------------------------------------------- */

ag_status ag_integrator_radial(const ag_integrator *integ, double *centres) {
  AG__CHECK_NOT_NULL("ag_integrator_radial", integ);
  AG__CHECK_NOT_NULL("ag_integrator_radial", centres);
  memcpy(centres, integ->rad_centres, integ->nrad * sizeof *centres);
  return AG_OK;
}

ag_status ag_integrator_azimuthal(const ag_integrator *integ, double *centres) {
  AG__CHECK_NOT_NULL("ag_integrator_azimuthal", integ);
  AG__CHECK_NOT_NULL("ag_integrator_azimuthal", centres);
  if (!integ->two_d)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_integrator_azimuthal: integ is a 1-D integrator (npt_azim 0), "
                     "which has no azimuthal bins");
  memcpy(centres, integ->azim_centres, integ->nazim * sizeof *centres);
  return AG_OK;
}

ag_status ag_integrator_csr(const ag_integrator *integ, const ag_csr **csr) {
  AG__CHECK_NOT_NULL("ag_integrator_csr", integ);
  AG__CHECK_NOT_NULL("ag_integrator_csr", csr);
  *csr = integ->a;
  return AG_OK;
}
