/* src/stats.c - the array API's all, any, var and std over any set of axes, each a few passes
   of the operation layer's kernels on the device: any and all as the maximum and minimum of
   x != 0; var as the mean of squared deviations from the mean (two passes over x, numpy's
   algorithm), divided by the count less the correction; std its square root. */
#include <math.h>

#include "array.h"
#include "layout.h"

/* The axes of x that @p naxes / @p axes reduce into on[], and the count of elements each output
   takes (their lengths' product); checks out (present, on x's device, of @p dtype, of x's
   reduced shape with or without the reduced axes kept as 1). */
static ag_status reduction(const char *fn, const ag_array *x, int naxes, const int *axes, ag_dtype dtype,
                           const ag_array *out, bool on[AG_MAX_DIMS], size_t *count) {
  ag_status st = ag__check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  if (naxes < 0 || (naxes > 0 && axes == NULL))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: naxes is %d with axes %s", fn, naxes, axes ? "given" : "NULL");
  st = ag__axis_set(fn, x->ndim, naxes, axes, on);
  if (st != AG_OK)
    return st;
  if (out->dtype != dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s; the result is %s", fn, ag_dtype_name(out->dtype),
                     ag_dtype_name(dtype));
  *count = 1;
  int kept = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (on[d])
      *count *= x->shape[d];
    else
      kept++;
  }
  bool same = out->ndim == x->ndim, dropped = out->ndim == kept;
  for (int d = 0, o = 0; d < x->ndim; d++) {
    if (same && out->shape[d] != (on[d] ? 1 : x->shape[d]))
      same = false;
    if (!on[d] && dropped && out->shape[o++] != x->shape[d])
      dropped = false;
  }
  if (!same && !dropped) {
    char sx[128], so[128];
    ag__shape_text(x->ndim, x->shape, sx, sizeof sx);
    ag__shape_text(out->ndim, out->shape, so, sizeof so);
    return ag__error(AG_ERR_MISMATCH, "%s: out has shape %s, which is not x's shape %s reduced over the axes given",
                     fn, so, sx);
  }
  return ag__check_writable(fn, "out", out);
}

/* ag_any_axes (@p any) and ag_all_axes. */
static ag_status any_all(const char *fn, ag_queue *q, const ag_array *x, int naxes, const int *axes, bool any,
                         ag_array *out) {
  bool on[AG_MAX_DIMS];
  size_t count;
  ag_status st = reduction(fn, x, naxes, axes, AG_BOOL, out, on, &count);
  if (st != AG_OK || out->size == 0)
    return st;
  if (count == 0) /* nothing is true of no elements, and everything is */
    return ag__prefix(ag_fill(q, out, any ? 0 : 1), fn);
  ag_array *nonzero = NULL, *extreme = NULL;
  st = ag_array_create(x->dev, AG_U8, x->ndim, x->shape, &nonzero);
  if (st != AG_OK)
    goto done;
  st = ag_array_create(x->dev, AG_U8, out->ndim, out->shape, &extreme);
  if (st != AG_OK)
    goto done;
  st = ag_compare_scalar(q, AG_CMP_NE, x, 0, 0, false, nonzero);
  if (st != AG_OK)
    goto done;
  st = any ? ag_max_axes(q, nonzero, naxes, axes, extreme) : ag_min_axes(q, nonzero, naxes, axes, extreme);
  if (st != AG_OK)
    goto done;
  st = ag_astype(q, extreme, out);
done:
  ag_array_free(nonzero);
  ag_array_free(extreme);
  return ag__prefix(st, fn);
}

ag_status ag_any_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return any_all("ag_any_axes", q, x, naxes, axes, true, out);
}

ag_status ag_all_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return any_all("ag_all_axes", q, x, naxes, axes, false, out);
}

/* ag_var_axes (@p root false) and ag_std_axes. */
static ag_status var_std(const char *fn, ag_queue *q, const ag_array *x, int naxes, const int *axes,
                         double correction, bool root, ag_array *out) {
  bool on[AG_MAX_DIMS];
  size_t count;
  ag_status st = reduction(fn, x, naxes, axes, x ? x->dtype : AG_F32, out, on, &count);
  if (st != AG_OK)
    return st;
  if (x->dtype != AG_F32 && x->dtype != AG_F64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is %s; %s takes f32 and f64", fn, ag_dtype_name(x->dtype), fn);
  if (!(correction >= 0) || isinf(correction))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: correction is %g; it must be finite and 0 or more", fn,
                     correction);
  st = ag__check_fp64(fn, x->dev, x->dtype);
  if (st != AG_OK || out->size == 0)
    return st;
  /* The mean with the reduced axes kept, the squared deviations, their sum. */
  size_t kshape[AG_MAX_DIMS];
  for (int d = 0; d < x->ndim; d++)
    kshape[d] = on[d] ? 1 : x->shape[d];
  ag_array *mean = NULL, *dev2 = NULL;
  st = ag_array_create(x->dev, x->dtype, x->ndim, kshape, &mean);
  if (st != AG_OK)
    goto done;
  st = ag_array_create(x->dev, x->dtype, x->ndim, x->shape, &dev2);
  if (st != AG_OK)
    goto done;
  st = ag_mean_axes(q, x, naxes, axes, mean);
  if (st != AG_OK)
    goto done;
  st = ag_sub(q, x, mean, dev2);
  if (st != AG_OK)
    goto done;
  st = ag_square(q, dev2, dev2);
  if (st != AG_OK)
    goto done;
  st = ag_sum_axes(q, dev2, naxes, axes, out);
  if (st != AG_OK)
    goto done;
  /* Divided by the degrees of freedom, 0 when the correction takes them all (numpy: inf, or NaN
     for a sum of 0). */
  st = ag_div_scalar(q, out, fmax((double)count - correction, 0), out);
  if (st != AG_OK)
    goto done;
  if (root)
    st = ag_sqrt(q, out, out);
done:
  ag_array_free(mean);
  ag_array_free(dev2);
  return ag__prefix(st, fn);
}

ag_status ag_var_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, double correction, ag_array *out) {
  return var_std("ag_var_axes", q, x, naxes, axes, correction, false, out);
}

ag_status ag_std_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, double correction, ag_array *out) {
  return var_std("ag_std_axes", q, x, naxes, axes, correction, true, out);
}
