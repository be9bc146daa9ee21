/* src/create.c - the array API's creation functions that compute their values from indices:
   ag_arange, ag_linspace, ag_eye, ag_tril and ag_triu, each one launch of the create family's
   kernel for out's dtype (kernels_shared/create.h). */
#include <math.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/create.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_arange, AG_SHAPE_ARANGE)
AG__SHAPE_LAUNCHER(launch_linspace, AG_SHAPE_LINSPACE)
AG__SHAPE_LAUNCHER(launch_eye, AG_SHAPE_EYE)
AG__SHAPE_LAUNCHER(launch_tri, AG_SHAPE_TRI)

/* out present, writable, of a dtype the device computes in. */
static ag_status check_out(const char *fn, const ag_array *out) {
  ag_status st = ag__check_operand(fn, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_writable(fn, "out", out);
  if (st != AG_OK)
    return st;
  return ag__check_fp64(fn, out->dev, out->dtype);
}

static ag__launch launch_of(const char *fn, ag_queue *q, const ag_array *out, ag__kernel_id kernel) {
  return (ag__launch){.fn = fn, .q = q, .dev = out->dev, .kernel = kernel + (int)out->dtype, .n = out->size};
}

ag_status ag_arange(ag_queue *q, double start, double step, ag_array *out) {
  static const char fn[] = "ag_arange";
  ag_status st = check_out(fn, out);
  if (st != AG_OK)
    return st;
  ag_dtype t = out->dtype;
  if (t == AG_BOOL || ag__dtype_is_complex(t))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: out is %s; ag_arange makes integers and real floats", fn,
                     ag_dtype_name(t));
  if (!isfinite(start) || !isfinite(step) || step == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: start = %g and step = %g: both must be finite, step not 0", fn,
                     start, step);
  unsigned char s[16] = {0}, d[16] = {0};
  size_t es = ag_dtype_size(t);
  if (ag__dtype_is_int(t)) {
    /* start a value of the dtype; the step an integer, stored wrapped (a u8 arange may count
       down: its step -1 is 255, and the sums wrap as numpy's do). */
    st = ag__scalar_to(fn, "start", start, 0, t, s);
    if (st != AG_OK)
      return st;
    if (step != floor(step) || fabs(step) >= 0x1p63)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: step = %g is not an integer of at most 2^63 in magnitude, "
                       "which an integer arange takes", fn, step);
    int64_t delta = (int64_t)step;
    memcpy(d, &delta, es); /* the low bytes: little-endian hosts and devices */
  } else if (t == AG_F32) {
    /* numpy's arange: the first two values rounded to the dtype, their difference the step. */
    float s0 = (float)start, s1 = (float)(start + step), delta = s1 - s0;
    memcpy(s, &s0, sizeof s0);
    memcpy(d, &delta, sizeof delta);
  } else {
    double delta = (start + step) - start;
    memcpy(s, &start, sizeof start);
    memcpy(d, &delta, sizeof delta);
  }
  if (out->size == 0)
    return AG_OK;
  ag__launch l = launch_of(fn, q, out, AG_K_ARANGE);
  return AG__LAUNCH(launch_arange, &l, .start = {s, es}, .delta = {d, es}, .out = out);
}

ag_status ag_linspace(ag_queue *q, double start_re, double start_im, double stop_re, double stop_im, bool endpoint,
                      ag_array *out) {
  static const char fn[] = "ag_linspace";
  ag_status st = check_out(fn, out);
  if (st != AG_OK)
    return st;
  ag_dtype t = out->dtype;
  if (!ag__dtype_is_float(t) && !ag__dtype_is_complex(t))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: out is %s; ag_linspace makes f32, f64, c64 and c128", fn,
                     ag_dtype_name(t));
  if (!isfinite(start_re) || !isfinite(start_im) || !isfinite(stop_re) || !isfinite(stop_im))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: start and stop must be finite", fn);
  if (out->size == 0)
    return AG_OK;
  /* numpy's: the step (stop - start) / div in double, div the count of intervals. */
  size_t div = endpoint && out->size > 1 ? out->size - 1 : out->size;
  unsigned char s[16], p[16], e[16];
  size_t es = ag_dtype_size(t);
  st = ag__scalar_to(fn, "start", start_re, start_im, t, s);
  if (st != AG_OK)
    return st;
  st = ag__scalar_to(fn, "step", (stop_re - start_re) / (double)div, (stop_im - start_im) / (double)div, t, p);
  if (st != AG_OK)
    return st;
  st = ag__scalar_to(fn, "stop", stop_re, stop_im, t, e);
  if (st != AG_OK)
    return st;
  ag_u32 last = endpoint && out->size > 1;
  ag__launch l = launch_of(fn, q, out, AG_K_LINSPACE);
  return AG__LAUNCH(launch_linspace, &l, .start = {s, es}, .step = {p, es}, .stop = {e, es}, .endpoint = last,
                    .out = out);
}

ag_status ag_eye(ag_queue *q, int64_t k, ag_array *out) {
  static const char fn[] = "ag_eye";
  ag_status st = check_out(fn, out);
  if (st != AG_OK)
    return st;
  if (out->ndim != 2)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out has %d dimensions; ag_eye makes a matrix (2)", fn, out->ndim);
  if (out->size == 0)
    return AG_OK;
  ag__launch l = launch_of(fn, q, out, AG_K_EYE);
  return AG__LAUNCH(launch_eye, &l, .cols = (ag_u64)out->shape[1], .k = k, .out = out);
}

/* ag_tril (@p upper false) and ag_triu. */
static ag_status tri(const char *fn, ag_queue *q, const ag_array *x, int64_t k, bool upper, ag_array *out) {
  ag_status st = ag__check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  st = check_out(fn, out);
  if (st != AG_OK)
    return st;
  if (x->ndim < 2)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x has %d dimension(s); %s takes matrices (2 or more)", fn,
                     x->ndim, fn);
  st = ag__check_same_dtype(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_shape(fn, "x", x, "out", out);
  if (st != AG_OK || out->size == 0)
    return st;
  ag__launch l = launch_of(fn, q, out, AG_K_TRI);
  return AG__LAUNCH(launch_tri, &l, .x = x, .out = out, .rows = (ag_u64)x->shape[x->ndim - 2],
                    .cols = (ag_u64)x->shape[x->ndim - 1], .k = k, .upper = upper);
}

ag_status ag_tril(ag_queue *q, const ag_array *x, int64_t k, ag_array *out) {
  return tri("ag_tril", q, x, k, false, out);
}

ag_status ag_triu(ag_queue *q, const ag_array *x, int64_t k, ag_array *out) {
  return tri("ag_triu", q, x, k, true, out);
}
