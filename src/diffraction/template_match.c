/* src/diffraction/template_match.c - orientation mapping by polar template matching
   (include/anygpu/template.h, docs/template.md): the template library, made on the host in
   double precision and kept on the device, and ag_template_library_match's launches of the
   "template" family's kernels (kernels_shared/template.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/template.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_prefilter, AG_SHAPE_TM_PREFILTER)
AG__SHAPE_LAUNCHER(launch_cut, AG_SHAPE_TM_CUT)
AG__SHAPE_LAUNCHER(launch_keep, AG_SHAPE_TM_KEEP)
AG__SHAPE_LAUNCHER(launch_unroll, AG_SHAPE_TM_UNROLL)
AG__SHAPE_LAUNCHER(launch_unroll_rows, AG_SHAPE_TM_UNROLL_ROWS)
AG__SHAPE_LAUNCHER(launch_score, AG_SHAPE_TM_SCORE)
AG__SHAPE_LAUNCHER(launch_pick, AG_SHAPE_TM_PICK)
AG__SHAPE_LAUNCHER(launch_best, AG_SHAPE_TM_BEST)

/* The two precisions a library holds its values in: [0] f32, [1] f64 (devices with double
   precision only). */
enum { PRECISIONS = 2 };

struct ag_template_library {
  ag_device *dev;
  size_t n_templates, n_theta, n_r, n_spots;
  ag_buffer *spot_start; /* n_templates u64: each template's first spot */
  ag_buffer *spot_end;   /* n_templates u64: the end of its spots in the full correlation */
  ag_buffer *spot_r, *spot_theta;        /* n_spots u32 each */
  ag_buffer *spot_i[2][PRECISIONS];      /* intensities [normalised][precision] */
  ag_buffer *integ[2][PRECISIONS];       /* integrated templates [n_r][n_templates], the same */
};

/* ---- making a library ------------------------------------------------------------------------ */

void ag_template_library_destroy(ag_template_library *lib) {
  if (lib == NULL)
    return;
  ag_buffer_free(lib->spot_start);
  ag_buffer_free(lib->spot_end);
  ag_buffer_free(lib->spot_r);
  ag_buffer_free(lib->spot_theta);
  for (int n = 0; n < 2; n++)
    for (int p = 0; p < PRECISIONS; p++) {
      ag_buffer_free(lib->spot_i[n][p]);
      ag_buffer_free(lib->integ[n][p]);
    }
  free(lib);
}

/* A device buffer holding @p count elements of @p size bytes from @p data (one element, never
   read, when count is 0, so kernels get a valid handle). */
static ag_status put(const char *fn, ag_device *dev, const void *data, size_t count, size_t size, ag_buffer **out) {
  ag_status st = ag_buffer_alloc(dev, (count > 0 ? count : 1) * size, out);
  if (st == AG_OK && count > 0)
    st = ag_buffer_write(NULL, *out, 0, data, count * size);
  return ag__prefix(st, fn);
}

/* @p v[0..n) scaled to unit length in place (left as it is when all zero). */
static void normalise(double *v, size_t n) {
  double ss = 0;
  for (size_t k = 0; k < n; k++)
    ss += v[k] * v[k];
  if (ss > 0) {
    double norm = sqrt(ss);
    for (size_t k = 0; k < n; k++)
      v[k] /= norm;
  }
}

/* @p n doubles uploaded as f32 into out[0] and, where the device has double precision, as f64
   into out[1]. */
static ag_status put_values(const char *fn, ag_device *dev, const double *v, size_t n, ag_buffer **out) {
  float *f = ag__doubles_as(AG_F32, n, v);
  if (f == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the library's values", fn);
  ag_status st = put(fn, dev, f, n, sizeof *f, &out[0]);
  free(f);
  if (st == AG_OK && ag__dev_info(dev)->fp64)
    st = put(fn, dev, v, n, sizeof *v, &out[1]);
  return st;
}

/* The integrated templates @p integ ([n_templates][n_r]) uploaded as put_values does, in
   columns ([n_r][n_templates]): the prefilter's work-items take consecutive templates. */
static ag_status put_columns(const char *fn, ag_device *dev, const double *integ, size_t n_templates, size_t n_r,
                             ag_buffer **out) {
  double *cols = malloc(n_templates * n_r * sizeof *cols);
  if (cols == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the library's values", fn);
  for (size_t t = 0; t < n_templates; t++)
    for (size_t r = 0; r < n_r; r++)
      cols[r * n_templates + t] = integ[t * n_r + r];
  ag_status st = put_values(fn, dev, cols, n_templates * n_r, out);
  free(cols);
  return st;
}

/* The checks of the description before any spot is read. */
static ag_status check_library(const char *fn, ag_device *dev, size_t n_templates, const size_t *offsets,
                               const uint32_t *r, const uint32_t *theta, const float *intensity, size_t n_theta,
                               size_t n_r) {
  AG__CHECK_NOT_NULL(fn, dev);
  AG__CHECK_NOT_NULL(fn, offsets);
  if (n_templates == 0 || n_theta == 0 || n_r == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is 0", fn,
                     n_templates == 0 ? "n_templates" : n_theta == 0 ? "n_theta" : "n_r");
  if (offsets[0] != 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: offsets[0] is %zu, not 0", fn, offsets[0]);
  for (size_t t = 0; t < n_templates; t++)
    if (offsets[t + 1] < offsets[t])
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: offsets[%zu] is %zu, below offsets[%zu] (%zu)", fn, t + 1,
                       offsets[t + 1], t, offsets[t]);
  size_t n_spots = offsets[n_templates];
  if (n_spots > 0) {
    AG__CHECK_NOT_NULL(fn, r);
    AG__CHECK_NOT_NULL(fn, theta);
    AG__CHECK_NOT_NULL(fn, intensity);
  }
  for (size_t k = 0; k < n_spots; k++)
    if (r[k] >= n_r || theta[k] >= n_theta)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s[%zu] is %u, not below %s (%zu)", fn,
                       r[k] >= n_r ? "r" : "theta", k, r[k] >= n_r ? r[k] : theta[k],
                       r[k] >= n_r ? "n_r" : "n_theta", r[k] >= n_r ? n_r : n_theta);
  /* Each kernel loops over theta, radii, a template's spots or the templates in one work-item. */
  uint64_t limit = ag__dev_info(dev)->max_loop_iterations;
  if (limit == 0 || limit > ((uint64_t)1 << 32))
    limit = (uint64_t)1 << 32;
  size_t longest = 0;
  for (size_t t = 0; t < n_templates; t++)
    if (offsets[t + 1] - offsets[t] > longest)
      longest = offsets[t + 1] - offsets[t];
  const char *over = n_theta >= limit ? "n_theta" : n_r >= limit ? "n_r" : n_templates >= limit ? "n_templates"
                     : longest >= limit ? "a template's spot count" : NULL;
  if (over != NULL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s reaches %llu, where %s (%s) ends a work-item's loops "
                     "(docs/portability.md, loop-limit)", fn, over, (unsigned long long)limit, ag__dev_info(dev)->spec,
                     ag__dev_info(dev)->name);
  return AG_OK;
}

ag_status ag_template_library_create(ag_device *dev, size_t n_templates, const size_t *offsets, const uint32_t *r,
                                     const uint32_t *theta, const float *intensity, size_t n_theta, size_t n_r,
                                     ag_template_library **out) {
  static const char fn[] = "ag_template_library_create";
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  ag_status st = check_library(fn, dev, n_templates, offsets, r, theta, intensity, n_theta, n_r);
  if (st != AG_OK)
    return st;
  size_t n_spots = offsets[n_templates];
  if (n_templates > SIZE_MAX / sizeof(double) / n_r)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: n_templates x n_r (%zu x %zu) overflows", fn, n_templates, n_r);
  ag_template_library *lib = calloc(1, sizeof *lib);
  uint64_t *start = malloc(n_templates * sizeof *start), *end = malloc(n_templates * sizeof *end);
  double *spots = malloc((n_spots > 0 ? n_spots : 1) * sizeof *spots);
  double *integ = calloc(n_templates * n_r, sizeof *integ);
  if (lib == NULL || start == NULL || end == NULL || spots == NULL || integ == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for %zu templates", fn, n_templates);
    goto done;
  }
  *lib = (ag_template_library){.dev = dev, .n_templates = n_templates, .n_theta = n_theta, .n_r = n_r,
                               .n_spots = n_spots};
  for (size_t t = 0; t < n_templates; t++) {
    start[t] = offsets[t];
    end[t] = offsets[t + 1];
    for (size_t k = offsets[t]; k < offsets[t + 1]; k++) {
      spots[k] = isnan(intensity[k]) ? 0.0 : (double)intensity[k];
      integ[t * n_r + r[k]] += spots[k];
      if (r[k] == 0 && end[t] == offsets[t + 1])
        end[t] = k;
    }
  }
  if ((st = put(fn, dev, start, n_templates, sizeof *start, &lib->spot_start)) != AG_OK ||
      (st = put(fn, dev, end, n_templates, sizeof *end, &lib->spot_end)) != AG_OK ||
      (st = put(fn, dev, r, n_spots, sizeof *r, &lib->spot_r)) != AG_OK ||
      (st = put(fn, dev, theta, n_spots, sizeof *theta, &lib->spot_theta)) != AG_OK ||
      (st = put_values(fn, dev, spots, n_spots, lib->spot_i[0])) != AG_OK ||
      (st = put_columns(fn, dev, integ, n_templates, n_r, lib->integ[0])) != AG_OK)
    goto done;
  for (size_t t = 0; t < n_templates; t++) {
    normalise(spots + offsets[t], offsets[t + 1] - offsets[t]);
    normalise(integ + t * n_r, n_r);
  }
  if ((st = put_values(fn, dev, spots, n_spots, lib->spot_i[1])) != AG_OK)
    goto done;
  st = put_columns(fn, dev, integ, n_templates, n_r, lib->integ[1]);
done:
  free(start);
  free(end);
  free(spots);
  free(integ);
  if (st != AG_OK) {
    ag_template_library_destroy(lib);
    return st;
  }
  *out = lib;
  return AG_OK;
}

/* ---- matching -------------------------------------------------------------------------------- */

/* How many templates the prefilter keeps, as pyxem's _get_max_n: n_keep overrides frac_keep,
   and round() rounds half to even as Python's does. */
static size_t templates_kept(const ag_template_library_match_options *opt, size_t n) {
  size_t keep = n;
  if (opt->frac_keep != 0) {
    double k = nearbyint(opt->frac_keep * (double)n);
    keep = k < 1 ? 1 : (size_t)k;
  }
  if (opt->n_keep != 0)
    keep = opt->n_keep;
  return keep < n ? keep : n;
}

/* Output @p name must be on the library's device, of @p ndim dimensions {B, n_best} (or
   {n_best}) and of dtype @p t or @p also. */
static ag_status check_output(const char *fn, const char *name, const ag_array *a, const ag_template_library *lib,
                              int ndim, size_t batch, size_t n_best, ag_dtype t, ag_dtype also) {
  if (a == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  if (a->dev != lib->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is on %s but lib is on %s", fn, name, ag__dev_info(a->dev)->spec,
                     ag__dev_info(lib->dev)->spec);
  if (a->dtype != t && a->dtype != also)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s, not %s%s%s", fn, name, ag_dtype_name(a->dtype), ag_dtype_name(t),
                     also != t ? " or " : "", also != t ? ag_dtype_name(also) : "");
  bool ok = ndim == 2 ? a->ndim == 1 && a->shape[0] == n_best
                      : a->ndim == 2 && a->shape[0] == batch && a->shape[1] == n_best;
  if (!ok) {
    if (ndim == 2)
      return ag__error(AG_ERR_MISMATCH, "%s: %s must have shape {%zu} (n_best) for a 2-D polar", fn, name, n_best);
    return ag__error(AG_ERR_MISMATCH, "%s: %s must have shape {%zu, %zu} (polar's frames, n_best)", fn, name, batch,
                     n_best);
  }
  return AG_OK;
}

/* Every check of ag_template_library_match's arguments; @p keep gets the templates kept. */
static ag_status check_match(const char *fn, const ag_template_library *lib, const ag_array *polar,
                             const ag_template_library_match_options *opt, const ag_array *const outs[4],
                             size_t *keep) {
  AG__CHECK_NOT_NULL(fn, lib);
  ag_status st = ag__check_array(fn, "polar", polar);
  if (st != AG_OK)
    return st;
  AG__CHECK_NOT_NULL(fn, opt);
  if (polar->dev != lib->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: polar is on %s but lib is on %s", fn, ag__dev_info(polar->dev)->spec,
                     ag__dev_info(lib->dev)->spec);
  if (polar->dtype != AG_F32 && polar->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: polar is %s; template matching takes f32 or f64", fn,
                     ag_dtype_name(polar->dtype));
  if ((st = ag__check_fp64(fn, lib->dev, polar->dtype)) != AG_OK)
    return st;
  int nd = polar->ndim;
  if ((nd != 2 && nd != 3) || polar->shape[nd - 2] != lib->n_theta || polar->shape[nd - 1] != lib->n_r)
    return ag__error(AG_ERR_MISMATCH, "%s: polar must have shape {%zu, %zu} or {B, %zu, %zu} (the library's "
                     "n_theta, n_r), not %d-D {%zu, ...}", fn, lib->n_theta, lib->n_r, lib->n_theta, lib->n_r, nd,
                     polar->shape[0]);
  if (!(opt->frac_keep >= 0 && opt->frac_keep <= 1))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->frac_keep is %g, not in [0, 1]", fn, opt->frac_keep);
  *keep = templates_kept(opt, lib->n_templates);
  if (opt->n_best == 0 || opt->n_best > *keep)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->n_best is %zu, not in 1 to %zu (the templates kept of %zu)",
                     fn, opt->n_best, *keep, lib->n_templates);
  size_t batch = nd == 3 ? polar->shape[0] : 1;
  static const char *const names[4] = {"best_index", "best_corr", "best_angle_deg", "best_sign"};
  const ag_dtype t[4][2] = {{AG_U32, AG_I32}, {polar->dtype, polar->dtype}, {polar->dtype, polar->dtype},
                            {AG_I32, AG_I32}};
  for (int k = 0; k < 4; k++)
    if ((st = check_output(fn, names[k], outs[k], lib, nd, batch, opt->n_best, t[k][0], t[k][1])) != AG_OK)
      return st;
  return AG_OK;
}

/* The arrays a match makes and frees. */
typedef struct match_scratch {
  ag_array *polar3, *flat, *norm, *psum, *fast, *kept, *corr, *shift, *sgn;
  ag_array *rows, *cbest, *cat, *cbest_m, *cat_m; /* the full correlation's (score) */
  ag_array *work, *cut;                           /* the rankings' selection (cut) */
} match_scratch;

static void scratch_free(match_scratch *s) {
  ag_array *all[] = {s->polar3, s->flat,  s->norm, s->psum,    s->fast,  s->kept, s->corr, s->shift,
                     s->sgn,    s->rows,  s->cbest, s->cat,    s->cbest_m, s->cat_m, s->work, s->cut};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    ag_array_free(all[k]);
}

/* s->cut[b]: the value of the @p keep-th best of the @p count scores of frame b, in
   @p scores ([batch, count]); s->work and s->cut are made at the first call. Not on GPUs
   (use_cut), where the selection's one work-item per frame takes longer than every score
   counting its rank in parallel. */
static bool use_cut(const ag_template_library *lib) { return ag__device_walks_in_chunks(lib->dev); }

static ag_status cut_scores(const char *fn, ag_queue *q, const ag_template_library *lib, const ag_array *scores,
                            size_t batch, size_t count, size_t keep, match_scratch *s) {
  ag_dtype t = scores->dtype;
  const size_t work_shape[2] = {batch, lib->n_templates};
  ag_status st;
  if (!use_cut(lib))
    return AG_OK;
  if (s->work == NULL && ((st = ag_array_create(lib->dev, t, 2, work_shape, &s->work)) != AG_OK ||
                          (st = ag_array_create(lib->dev, t, 1, &batch, &s->cut)) != AG_OK))
    return ag__prefix(st, fn);
  ag__launch l = {.fn = fn, .q = q, .dev = lib->dev, .kernel = AG_K_TM_CUT + t, .n = (uint64_t)batch};
  return AG__LAUNCH(launch_cut, &l, .score = scores, .count = (ag_u64)count, .keep = (ag_u64)keep, .work = s->work,
                    .cut = s->cut);
}

/* The prefilter: s->kept gets the positions of the @p keep best integrated templates of each
   frame; the frames summed over theta are s->psum where unroll made it, else ag_sum's. */
static ag_status prefilter(const char *fn, ag_queue *q, const ag_template_library *lib, int p, bool normalised,
                           size_t batch, size_t keep, match_scratch *s) {
  ag_dtype t = s->polar3->dtype;
  const size_t psum_shape[2] = {batch, lib->n_r}, fast_shape[2] = {batch, lib->n_templates};
  ag_status st;
  if ((st = ag_array_create(lib->dev, t, 2, fast_shape, &s->fast)) != AG_OK ||
      (s->psum == NULL && ((st = ag_array_create(lib->dev, t, 2, psum_shape, &s->psum)) != AG_OK ||
                           (st = ag_sum(q, s->polar3, 1, s->psum)) != AG_OK)))
    return ag__prefix(st, fn);
  bool by_chunks = ag__device_walks_in_chunks(lib->dev);
  size_t chunks = (lib->n_templates + AG_TM_CHUNK - 1) / AG_TM_CHUNK;
  ag__launch l = {.fn = fn, .q = q, .dev = lib->dev,
                  .kernel = (by_chunks ? AG_K_TM_PREFILTER_CHUNKS : AG_K_TM_PREFILTER) + t,
                  .n = (uint64_t)batch * (by_chunks ? chunks : lib->n_templates)};
  if ((st = AG__LAUNCH(launch_prefilter, &l, .integ = lib->integ[normalised][p], .psum = s->psum,
                       .n_templates = (ag_u64)lib->n_templates, .n_r = (ag_u64)lib->n_r, .fast = s->fast)) != AG_OK)
    return st;
  if ((st = cut_scores(fn, q, lib, s->fast, batch, lib->n_templates, keep, s)) != AG_OK)
    return st;
  l.kernel = AG_K_TM_KEEP + t;
  l.n = (uint64_t)batch * lib->n_templates;
  return AG__LAUNCH(launch_keep, &l, .score = s->fast, .cut = s->cut ? s->cut : s->fast,
                    .use_cut = (ag_u64)use_cut(lib), .count = (ag_u64)lib->n_templates, .keep = (ag_u64)keep,
                    .kept = s->kept);
}

/* s->rows: the frames unrolled, each column a row read past one turn (ag_tm_unroll). CPU
   devices unroll a row an item (ag_tm_unroll_rows), which also sums the frames over theta
   into s->psum for the prefilter. */
static ag_status unroll(const char *fn, ag_queue *q, const ag_template_library *lib, size_t batch, match_scratch *s) {
  ag_dtype t = s->polar3->dtype;
  size_t width = 2 * lib->n_theta + AG_TM_CHUNK;
  const size_t rows_shape[3] = {batch, lib->n_r, width}, psum_shape[2] = {batch, lib->n_r};
  bool by_rows = ag__device_walks_in_chunks(lib->dev);
  ag_status st;
  if ((st = ag_array_create(lib->dev, t, 3, rows_shape, &s->rows)) != AG_OK ||
      (by_rows && (st = ag_array_create(lib->dev, t, 2, psum_shape, &s->psum)) != AG_OK))
    return ag__prefix(st, fn);
  ag__launch l = {.fn = fn, .q = q, .dev = lib->dev, .kernel = (by_rows ? AG_K_TM_UNROLL_ROWS : AG_K_TM_UNROLL) + t,
                  .n = (uint64_t)batch * lib->n_r * (by_rows ? 1 : width)};
  if (by_rows)
    return AG__LAUNCH(launch_unroll_rows, &l, .polar = s->polar3, .n_theta = (ag_u64)lib->n_theta,
                      .n_r = (ag_u64)lib->n_r, .width = (ag_u64)width, .rows = s->rows, .psum = s->psum);
  return AG__LAUNCH(launch_unroll, &l, .polar = s->polar3, .n_theta = (ag_u64)lib->n_theta, .n_r = (ag_u64)lib->n_r,
                    .width = (ag_u64)width, .rows = s->rows);
}

/* The full correlation of each frame's @p keep candidates at every shift and mirrored, from
   s->rows: scored a chunk of shifts an item (ag_tm_score), the chunks' best picked
   (ag_tm_pick) into s->corr, s->shift and s->sgn. */
static ag_status full_correlation(const char *fn, ag_queue *q, const ag_template_library *lib, int p, bool normalised,
                                  size_t batch, size_t keep, bool prefiltered, match_scratch *s) {
  ag_dtype t = s->polar3->dtype;
  size_t width = 2 * lib->n_theta + AG_TM_CHUNK, chunks = (lib->n_theta + AG_TM_CHUNK - 1) / AG_TM_CHUNK;
  const size_t chunk_shape[3] = {batch, keep, chunks};
  ag_status st;
  if ((st = ag_array_create(lib->dev, t, 3, chunk_shape, &s->cbest)) != AG_OK ||
      (st = ag_array_create(lib->dev, AG_U32, 3, chunk_shape, &s->cat)) != AG_OK ||
      (st = ag_array_create(lib->dev, t, 3, chunk_shape, &s->cbest_m)) != AG_OK ||
      (st = ag_array_create(lib->dev, AG_U32, 3, chunk_shape, &s->cat_m)) != AG_OK)
    return ag__prefix(st, fn);
  ag__launch l = {.fn = fn, .q = q, .dev = lib->dev, .kernel = AG_K_TM_SCORE + t, .n = (uint64_t)batch * keep * chunks};
  if ((st = AG__LAUNCH(launch_score, &l, .rows = s->rows, .kept = s->kept, .use_kept = (ag_u64)prefiltered,
                       .spot_start = lib->spot_start, .spot_end = lib->spot_end, .spot_r = lib->spot_r,
                       .spot_theta = lib->spot_theta, .spot_i = lib->spot_i[normalised][p],
                       .n_theta = (ag_u64)lib->n_theta, .n_r = (ag_u64)lib->n_r, .width = (ag_u64)width,
                       .count = (ag_u64)keep, .chunks = (ag_u64)chunks, .cbest = s->cbest, .cat = s->cat,
                       .cbest_m = s->cbest_m, .cat_m = s->cat_m)) !=
      AG_OK)
    return st;
  l.kernel = AG_K_TM_PICK + t;
  l.n = (uint64_t)batch * keep;
  return AG__LAUNCH(launch_pick, &l, .cbest = s->cbest, .cat = s->cat, .cbest_m = s->cbest_m, .cat_m = s->cat_m,
                    .chunks = (ag_u64)chunks, .corr = s->corr, .shift = s->shift, .sgn = s->sgn);
}

ag_status ag_template_library_match(ag_queue *q, const ag_template_library *lib, const ag_array *polar,
                                    const ag_template_library_match_options *opt, ag_array *best_index,
                                    ag_array *best_corr, ag_array *best_angle_deg, ag_array *best_sign) {
  static const char fn[] = "ag_template_library_match";
  const ag_array *const outs[4] = {best_index, best_corr, best_angle_deg, best_sign};
  size_t keep = 0;
  ag_status st = check_match(fn, lib, polar, opt, outs, &keep);
  if (st != AG_OK)
    return st;
  size_t batch = polar->ndim == 3 ? polar->shape[0] : 1;
  if (batch == 0)
    return AG_OK;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, lib->dev, &rq)) != AG_OK)
    return st;
  ag_dtype t = polar->dtype;
  int p = t == AG_F64;
  bool prefiltered = keep < lib->n_templates;
  const size_t shape3[3] = {batch, lib->n_theta, lib->n_r}, flat[2] = {batch, lib->n_theta * lib->n_r};
  const size_t cand[2] = {batch, keep}, one = 1;
  match_scratch s = {0};
  if ((st = ag_array_reshape(polar, 3, shape3, &s.polar3)) != AG_OK ||
      (st = ag_array_create(lib->dev, AG_U32, prefiltered ? 2 : 1, prefiltered ? cand : &one, &s.kept)) != AG_OK ||
      (st = ag_array_create(lib->dev, t, 2, cand, &s.corr)) != AG_OK ||
      (st = ag_array_create(lib->dev, AG_U32, 2, cand, &s.shift)) != AG_OK ||
      (st = ag_array_create(lib->dev, AG_I32, 2, cand, &s.sgn)) != AG_OK) {
    st = ag__prefix(st, fn);
    goto done;
  }
  if (opt->normalize_image) {
    const size_t nb = batch;
    if ((st = ag_array_reshape(polar, 2, flat, &s.flat)) != AG_OK ||
        (st = ag_array_create(lib->dev, t, 1, &nb, &s.norm)) != AG_OK ||
        (st = ag_nrm2(rq, s.flat, 1, s.norm)) != AG_OK) {
      st = ag__prefix(st, fn);
      goto done;
    }
  }
  bool normalised = opt->normalize_templates;
  /* CPU devices unroll first, the unrolling summing the frames over theta for the prefilter.
     GPUs unroll after the prefilter, as before: in the other order Oclgrind (a GPU here)
     reported ag_tm_score reading uninitialised rows, most likely its records of buffers by
     number (tests/oclgrind.h), the rows' taken over by ag_sum's temporaries; not checked
     further. */
  if ((ag__device_walks_in_chunks(lib->dev) && (st = unroll(fn, rq, lib, batch, &s)) != AG_OK) ||
      (prefiltered && (st = prefilter(fn, rq, lib, p, normalised, batch, keep, &s)) != AG_OK) ||
      (s.rows == NULL && (st = unroll(fn, rq, lib, batch, &s)) != AG_OK))
    goto done;
  if ((st = full_correlation(fn, rq, lib, p, normalised, batch, keep, prefiltered, &s)) != AG_OK ||
      (st = cut_scores(fn, rq, lib, s.corr, batch, keep, opt->n_best, &s)) != AG_OK)
    goto done;
  ag__launch l = {.fn = fn, .q = rq, .dev = lib->dev, .kernel = AG_K_TM_BEST + t, .n = (uint64_t)batch * keep};
  double step = 360.0 / (double)lib->n_theta;
  float step_f = (float)step;
  ag__val deg_step = t == AG_F64 ? (ag__val){&step, sizeof step} : (ag__val){&step_f, sizeof step_f};
  st = AG__LAUNCH(launch_best, &l, .corr = s.corr, .cut = s.cut ? s.cut : s.corr, .use_cut = (ag_u64)use_cut(lib),
                  .shift = s.shift, .sgn = s.sgn, .kept = s.kept, .use_kept = (ag_u64)prefiltered,
                  .norm = s.norm != NULL ? s.norm : s.corr, .use_norm = (ag_u64)(s.norm != NULL), .count = (ag_u64)keep,
                  .n_best = (ag_u64)opt->n_best, .deg_step = deg_step, .best_index = best_index, .best_corr = best_corr,
                  .best_angle = best_angle_deg, .best_sgn = best_sign);
done:
  scratch_free(&s);
  return st;
}
