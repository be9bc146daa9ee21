/* src/diffraction/ncc.c - normalised cross-correlation of images with a template, as
   scikit-image 0.19's match_template (include/anygpu/template.h, docs/template.md): the
   correlation through the FFT layer (fft.h), the window sums and the quotient in the
   "template" family's kernels (kernels_shared/template.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/template.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_pad, AG_SHAPE_NCC_PAD)
AG__SHAPE_LAUNCHER(launch_rows, AG_SHAPE_NCC_ROWS)
AG__SHAPE_LAUNCHER(launch_finish, AG_SHAPE_NCC_FINISH)

/* The sizes of one call: B frames of H x W, a template of h x w, the output Ho x Wo and the
   padded frame qh x qw that holds every window, its top-left corner at (top, left) of it. */
typedef struct ncc_dims {
  size_t batch, H, W, h, w, ho, wo, qh, qw, top, left;
} ncc_dims;

static ag_status check_ncc(const char *fn, const ag_array *image, const ag_array *templ, bool pad_input,
                           const ag_array *out, ncc_dims *d) {
  ag_status st;
  if ((st = ag__check_array(fn, "image", image)) != AG_OK || (st = ag__check_array(fn, "templ", templ)) != AG_OK ||
      (st = ag__check_array(fn, "out", out)) != AG_OK || (st = ag__check_same_device(fn, "image", image, "templ", templ)) != AG_OK ||
      (st = ag__check_same_device(fn, "image", image, "out", out)) != AG_OK)
    return st;
  if (image->dtype != AG_F32 && image->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: image is %s; match_template takes f32 or f64", fn,
                     ag_dtype_name(image->dtype));
  if ((st = ag__check_same_dtype(fn, "image", image, "templ", templ)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "image", image, "out", out)) != AG_OK ||
      (st = ag__check_fp64(fn, image->dev, image->dtype)) != AG_OK)
    return st;
  if (image->ndim != 2 && image->ndim != 3)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: image has %d dimensions, not 2 ([H, W]) or 3 ([B, H, W])", fn,
                     image->ndim);
  if (templ->ndim != 2)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: templ has %d dimensions, not 2 ([h, w])", fn, templ->ndim);
  int nd = image->ndim;
  *d = (ncc_dims){.batch = nd == 3 ? image->shape[0] : 1, .H = image->shape[nd - 2], .W = image->shape[nd - 1],
                  .h = templ->shape[0], .w = templ->shape[1]};
  if (d->h == 0 || d->w == 0 || d->H == 0 || d->W == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s has an axis of 0", fn, d->h == 0 || d->w == 0 ? "templ" : "image");
  if (d->h > d->H || d->w > d->W)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: templ is {%zu, %zu}, larger than image's frames {%zu, %zu}", fn,
                     d->h, d->w, d->H, d->W);
  d->ho = pad_input ? d->H : d->H - d->h + 1;
  d->wo = pad_input ? d->W : d->W - d->w + 1;
  d->top = pad_input ? d->h / 2 : 0;
  d->left = pad_input ? d->w / 2 : 0;
  d->qh = d->ho + d->h - 1;
  d->qw = d->wo + d->w - 1;
  bool ok = out->ndim == nd && out->shape[nd - 2] == d->ho && out->shape[nd - 1] == d->wo &&
            (nd == 2 || out->shape[0] == d->batch);
  if (!ok) {
    if (nd == 2)
      return ag__error(AG_ERR_MISMATCH, "%s: out must have shape {%zu, %zu} (pad_input %s)", fn, d->ho, d->wo,
                       pad_input ? "true" : "false");
    return ag__error(AG_ERR_MISMATCH, "%s: out must have shape {%zu, %zu, %zu} (pad_input %s)", fn, d->batch, d->ho,
                     d->wo, pad_input ? "true" : "false");
  }
  uint64_t limit = ag__dev_info(image->dev)->max_loop_iterations;
  if (limit != 0 && (d->h >= limit || d->w >= limit))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: templ is {%zu, %zu}, and %s (%s) ends a work-item's loops after %llu "
                     "iterations (docs/portability.md, loop-limit)", fn, d->h, d->w, ag__dev_info(image->dev)->spec,
                     ag__dev_info(image->dev)->name, (unsigned long long)limit);
  return AG_OK;
}

/* The template minus its mean, at the top-left of a qh x qw frame of zeros, in @p t; and the
   sum of its squares. */
static ag_status centred_template(const char *fn, const ag_array *templ, const ncc_dims *d, ag_array **out,
                                  double *ssd) {
  size_t n = d->h * d->w, es = ag_dtype_size(templ->dtype);
  double *v = malloc(n * sizeof *v);
  unsigned char *raw = malloc(n * es), *frame = calloc(d->qh * d->qw, es);
  ag_status st = AG_OK;
  if (v == NULL || raw == NULL || frame == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the template", fn);
    goto done;
  }
  if ((st = ag_array_to_host(templ, raw, n * es)) != AG_OK) {
    st = ag__prefix(st, fn);
    goto done;
  }
  double mean = 0;
  for (size_t k = 0; k < n; k++) {
    v[k] = templ->dtype == AG_F32 ? (double)((const float *)raw)[k] : ((const double *)raw)[k];
    mean += v[k];
  }
  mean /= (double)n;
  *ssd = 0;
  for (size_t y = 0; y < d->h; y++)
    for (size_t x = 0; x < d->w; x++) {
      double c = v[y * d->w + x] - mean;
      *ssd += c * c;
      if (templ->dtype == AG_F32)
        ((float *)frame)[y * d->qw + x] = (float)c;
      else
        ((double *)frame)[y * d->qw + x] = c;
    }
  const size_t shape[2] = {d->qh, d->qw};
  st = ag__prefix(ag_array_from_host(templ->dev, templ->dtype, 2, shape, frame, out), fn);
done:
  free(v);
  free(raw);
  free(frame);
  return st;
}

/* A value of dtype @p t holding @p v, in @p f or @p d. */
static ag__val value_of(ag_dtype t, double v, float *f, double *d) {
  *f = (float)v;
  *d = v;
  return t == AG_F64 ? (ag__val){d, sizeof *d} : (ag__val){f, sizeof *f};
}

/* The steps after the checks: pad, transform, multiply, transform back, window sums, quotient.
   @p s holds the arrays made here, freed by the caller. */
static ag_status correlate(const char *fn, ag_queue *q, const ag_array *image, const ag_array *templ,
                           double constant_value, const ncc_dims *d, ag_array *out, ag_array *s[9]) {
  ag_dtype t = image->dtype, ct = t == AG_F64 ? AG_C128 : AG_C64;
  ag_device *dev = image->dev;
  double ssd = 0;
  ag_status st = centred_template(fn, templ, d, &s[0], &ssd);
  if (st != AG_OK)
    return st;
  size_t half = d->qw / 2 + 1;
  const size_t q3[3] = {d->batch, d->qh, d->qw}, f3[3] = {d->batch, d->qh, half}, f2[2] = {d->qh, half},
               rows[3] = {d->batch, d->qh, d->wo};
  if ((st = ag_array_create(dev, t, 3, q3, &s[1])) != AG_OK || (st = ag_array_create(dev, ct, 3, f3, &s[2])) != AG_OK ||
      (st = ag_array_create(dev, ct, 2, f2, &s[3])) != AG_OK || (st = ag_array_create(dev, t, 3, q3, &s[4])) != AG_OK ||
      (st = ag_array_create(dev, t, 3, rows, &s[5])) != AG_OK || (st = ag_array_create(dev, t, 3, rows, &s[6])) != AG_OK ||
      (st = ag_array_create(dev, t, 3, rows, &s[7])) != AG_OK || (st = ag_array_create(dev, t, 3, rows, &s[8])) != AG_OK)
    return ag__prefix(st, fn);
  float f;
  double v;
  ag__launch l = {.fn = fn, .q = q, .dev = dev, .kernel = AG_K_NCC_PAD + t, .n = (uint64_t)d->batch * d->qh * d->qw};
  if ((st = AG__LAUNCH(launch_pad, &l, .x = image, .h = (ag_u64)d->H, .w = (ag_u64)d->W, .qh = (ag_u64)d->qh,
                       .qw = (ag_u64)d->qw, .top = (ag_u64)d->top, .left = (ag_u64)d->left,
                       .fill = value_of(t, constant_value, &f, &v), .out = s[1])) != AG_OK)
    return st;
  /* The circular correlation of each padded frame with the template, whose windows never wrap:
     a frame of qh x qw holds every window whole. */
  if ((st = ag_rfft(q, s[1], 2, AG_FFT_BACKWARD, s[2])) != AG_OK || (st = ag_rfft(q, s[0], 2, AG_FFT_BACKWARD, s[3])) != AG_OK ||
      (st = ag_conj(q, s[3], s[3])) != AG_OK || (st = ag_mul(q, s[2], s[3], s[2])) != AG_OK ||
      (st = ag_irfft(q, s[2], 2, AG_FFT_BACKWARD, s[4])) != AG_OK)
    return ag__prefix(st, fn);
  l.kernel = AG_K_NCC_ROWS + t;
  l.n = (uint64_t)d->batch * d->qh * d->wo;
  if ((st = AG__LAUNCH(launch_rows, &l, .q = s[1], .qw = (ag_u64)d->qw, .wo = (ag_u64)d->wo, .tw = (ag_u64)d->w,
                       .s1 = s[5], .s2 = s[6], .lo = s[7], .hi = s[8])) != AG_OK)
    return st;
  l.kernel = AG_K_NCC_FINISH + t;
  l.n = (uint64_t)d->batch * d->ho * d->wo;
  float f1, f2e;
  double v1, v2;
  return AG__LAUNCH(launch_finish, &l, .corr = s[4], .s1 = s[5], .s2 = s[6], .lo = s[7], .hi = s[8],
                    .qh = (ag_u64)d->qh, .qw = (ag_u64)d->qw, .ho = (ag_u64)d->ho, .wo = (ag_u64)d->wo,
                    .th = (ag_u64)d->h, .vol = value_of(t, (double)(d->h * d->w), &f, &v),
                    .ssd = value_of(t, ssd, &f1, &v1),
                    .eps = value_of(t, t == AG_F64 ? DBL_EPSILON : FLT_EPSILON, &f2e, &v2), .out = out);
}

ag_status ag_match_template(ag_queue *q, const ag_array *image, const ag_array *templ, bool pad_input,
                            double constant_value, ag_array *out) {
  static const char fn[] = "ag_match_template";
  ncc_dims d = {0};
  ag_status st = check_ncc(fn, image, templ, pad_input, out, &d);
  if (st != AG_OK)
    return st;
  if (d.batch == 0)
    return AG_OK;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, image->dev, &rq)) != AG_OK)
    return st;
  ag_array *s[9] = {NULL};
  st = correlate(fn, rq, image, templ, constant_value, &d, out, s);
  for (int k = 0; k < 9; k++)
    ag_array_free(s[k]);
  return st;
}
