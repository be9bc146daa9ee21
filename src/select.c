/* src/select.c - the array API's indexing, searching and set functions: ag_take and
   ag_take_along_axis (gathers), ag_searchsorted (a binary search per element), and the three
   whose result's size depends on the data, ag_nonzero, ag_mask_select and ag_unique: each
   forms flags on the device, their running count (ag_cumulative_sum), reads the count back
   (the one wait), makes its outputs and fills them with the select family's kernels
   (kernels_shared/select.h). */
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/select.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_take, AG_SHAPE_TAKE)
AG__SHAPE_LAUNCHER(launch_select, AG_SHAPE_SELECT)
AG__SHAPE_LAUNCHER(launch_select_index, AG_SHAPE_SELECT_INDEX)
AG__SHAPE_LAUNCHER(launch_run_starts, AG_SHAPE_RUN_STARTS)
AG__SHAPE_LAUNCHER(launch_run_lengths, AG_SHAPE_RUN_LENGTHS)
AG__SHAPE_LAUNCHER(launch_inverse, AG_SHAPE_INVERSE)
AG__SHAPE_LAUNCHER(launch_search, AG_SHAPE_SEARCH)

/* ---- gathers ---------------------------------------------------------------------------- */

/* ag_take (@p along false) and ag_take_along_axis. */
static ag_status take(const char *fn, ag_queue *q, const ag_array *x, const ag_array *indices, int axis, bool along,
                      ag_array *out) {
  ag_status st = ag__check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  st = ag__check_operand(fn, "indices", indices);
  if (st != AG_OK)
    return st;
  st = ag__check_same_device(fn, "x", x, "indices", indices);
  if (st != AG_OK)
    return st;
  if (indices->dtype != AG_I64)
    return ag__error(AG_ERR_MISMATCH, "%s: indices is %s; they are i64", fn, ag_dtype_name(indices->dtype));
  st = ag__check_same_dtype(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  if (x->ndim == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x is 0-d; %s gathers along an axis", fn, fn);
  if (axis < -x->ndim || axis >= x->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d, outside x's %d axes", fn, axis, x->ndim);
  if (axis < 0)
    axis += x->ndim;
  /* out: x's shape with the axis's length that of indices (take: 1-D indices; take_along_axis:
     indices of x's dimensions, x's lengths but along the axis). */
  size_t shape[AG_MAX_DIMS];
  memcpy(shape, x->shape, sizeof(size_t) * (size_t)x->ndim);
  if (!along) {
    if (indices->ndim != 1)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: indices has %d dimensions; %s takes a 1-D array", fn,
                       indices->ndim, fn);
    shape[axis] = indices->shape[0];
  } else {
    bool fits = indices->ndim == x->ndim;
    for (int d = 0; fits && d < x->ndim; d++)
      fits = d == axis || indices->shape[d] == x->shape[d];
    if (!fits)
      return ag__error(AG_ERR_MISMATCH, "%s: indices must have x's dimensions and x's lengths but along axis %d", fn,
                       axis);
    shape[axis] = indices->shape[axis];
  }
  bool same = out->ndim == x->ndim;
  for (int d = 0; same && d < x->ndim; d++)
    same = out->shape[d] == shape[d];
  if (!same) {
    char want[128];
    ag__shape_text(x->ndim, shape, want, sizeof want);
    return ag__error(AG_ERR_MISMATCH, "%s: out must have shape %s", fn, want);
  }
  st = ag__check_fp64(fn, x->dev, x->dtype);
  if (st != AG_OK)
    return st;
  st = ag__check_writable(fn, "out", out);
  if (st != AG_OK || out->size == 0)
    return st;
  uint64_t len = x->shape[axis], inner = 1;
  for (int d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  if (len == 0)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: x has no elements along axis %d, so no index is in range", fn, axis);
  ag_queue *rq;
  st = ag__queue_resolve(fn, q, x->dev, &rq);
  if (st != AG_OK)
    return st;
  ag_buffer *bad = NULL;
  st = ag_buffer_alloc(x->dev, sizeof(uint32_t), &bad);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  uint32_t flag = 0;
  st = ag__prefix(ag_buffer_write(rq, bad, 0, &flag, sizeof flag), fn);
  if (st != AG_OK)
    goto done;
  ag__launch l = {.fn = fn, .q = rq, .dev = x->dev, .kernel = AG_K_TAKE + (int)x->dtype, .n = out->size};
  st = AG__LAUNCH(launch_take, &l, .x = x, .idx = indices, .out = out, .len = len, .nidx = shape[axis],
                  .inner = inner, .along = along, .bad = bad);
  if (st != AG_OK)
    goto done;
  st = ag__prefix(ag_buffer_read(rq, bad, 0, &flag, sizeof flag), fn);
  if (st == AG_OK && flag != 0)
    st = ag__error(AG_ERR_OUT_OF_RANGE, "%s: indices holds an index outside [-%llu, %llu), x's length along axis %d",
                   fn, (unsigned long long)len, (unsigned long long)len, axis);
done:
  ag_buffer_free(bad);
  return st;
}

ag_status ag_take(ag_queue *q, const ag_array *x, const ag_array *indices, int axis, ag_array *out) {
  return take("ag_take", q, x, indices, axis, false, out);
}

ag_status ag_take_along_axis(ag_queue *q, const ag_array *x, const ag_array *indices, int axis, ag_array *out) {
  return take("ag_take_along_axis", q, x, indices, axis, true, out);
}

/* ---- searching -------------------------------------------------------------------------- */

ag_status ag_searchsorted(ag_queue *q, const ag_array *x1, const ag_array *x2, bool right, ag_array *out) {
  static const char fn[] = "ag_searchsorted";
  ag_status st = ag__check_operand(fn, "x1", x1);
  if (st != AG_OK)
    return st;
  st = ag__check_operand(fn, "x2", x2);
  if (st != AG_OK)
    return st;
  st = ag__check_operand(fn, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_device(fn, "x1", x1, "x2", x2);
  if (st != AG_OK)
    return st;
  st = ag__check_same_device(fn, "x2", x2, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_dtype(fn, "x1", x1, "x2", x2);
  if (st != AG_OK)
    return st;
  if (ag__dtype_is_complex(x1->dtype))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x1 is %s; %s orders real numbers and bool", fn,
                     ag_dtype_name(x1->dtype), fn);
  if (x1->ndim != 1)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x1 has %d dimensions; it is a sorted 1-D array", fn, x1->ndim);
  if (out->dtype != AG_I64)
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s; the indices are i64", fn, ag_dtype_name(out->dtype));
  st = ag__check_same_shape(fn, "x2", x2, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_fp64(fn, x1->dev, x1->dtype);
  if (st != AG_OK)
    return st;
  st = ag__check_writable(fn, "out", out);
  if (st != AG_OK || out->size == 0)
    return st;
  ag__launch l = {.fn = fn, .q = q, .dev = x1->dev, .kernel = AG_K_SEARCHSORTED + (int)x1->dtype, .n = out->size};
  return AG__LAUNCH(launch_search, &l, .x = x1, .v = x2, .out = out, .m = x1->shape[0], .right = right);
}

/* ---- data-dependent sizes --------------------------------------------------------------- */

/* The inclusive running count of @p flags (u8 or bool, contiguous, n elements) into a new u64
   array *pos, and its last value in *count (read from the device: the call waits). */
static ag_status running_count(const char *fn, ag_queue *q, const ag_array *flags, ag_array **pos, size_t *count) {
  *pos = NULL;
  *count = 0;
  const size_t n = flags->size;
  ag_status st = ag_array_create(flags->dev, AG_U64, 1, &n, pos);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  ag_array *f = NULL;
  st = ag_array_reshape(flags, 1, &n, &f);
  if (st != AG_OK)
    goto fail;
  st = ag_astype(q, f, *pos);
  ag_array_free(f);
  if (st != AG_OK)
    goto fail;
  st = ag_cumulative_sum(q, *pos, 0, *pos);
  if (st != AG_OK)
    goto fail;
  uint64_t last = 0;
  st = ag_buffer_read(q, (*pos)->store->buf, ((*pos)->offset + n - 1) * sizeof last, &last, sizeof last);
  if (st != AG_OK)
    goto fail;
  *count = (size_t)last;
  return AG_OK;
fail:
  ag_array_free(*pos);
  *pos = NULL;
  return ag__prefix(st, fn);
}

/* A new array of @p t and shape {n} (n may be 0) on @p dev. */
static ag_status new_1d(ag_device *dev, ag_dtype t, size_t n, ag_array **out) {
  return ag_array_create(dev, t, 1, &n, out);
}

ag_status ag_nonzero(ag_queue *q, const ag_array *x, ag_array **out) {
  static const char fn[] = "ag_nonzero";
  if (out == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
  *out = NULL;
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK)
    return st;
  if (x->ndim == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x is 0-d; the standard's nonzero takes 1 or more dimensions", fn);
  ag_queue *rq;
  st = ag__queue_resolve(fn, q, x->dev, &rq);
  if (st != AG_OK)
    return st;
  ag_array *flags = NULL, *pos = NULL, *flat = NULL, *coords = NULL, *row = NULL;
  size_t count = 0;
  if (x->size > 0) {
    st = ag_array_create(x->dev, AG_BOOL, x->ndim, x->shape, &flags);
    if (st != AG_OK)
      goto done;
    st = ag_compare_scalar(rq, AG_CMP_NE, x, 0, 0, false, flags);
    if (st != AG_OK)
      goto done;
    st = running_count(fn, rq, flags, &pos, &count);
    if (st != AG_OK)
      goto done;
  }
  st = ag_array_create(x->dev, AG_I64, 2, (const size_t[]){(size_t)x->ndim, count}, &coords);
  if (st != AG_OK || count == 0)
    goto done;
  st = new_1d(x->dev, AG_I64, count, &flat);
  if (st != AG_OK)
    goto done;
  ag__launch l = {.fn = fn, .q = rq, .dev = x->dev, .kernel = AG_K_SELECT_INDEX + (int)AG_I64, .n = x->size};
  st = AG__LAUNCH(launch_select_index, &l, .flags = flags, .pos = pos, .out = flat);
  if (st != AG_OK)
    goto done;
  /* Row d: (flat index // the elements of an index along d) % x's length along d. */
  size_t step = 1;
  for (int d = x->ndim - 1; d >= 0; d--) {
    const ag_index at[2] = {ag_at(d), ag_all()};
    st = ag_array_view(coords, 2, at, &row);
    if (st != AG_OK)
      goto done;
    st = ag_binary_scalar(rq, AG_OP_FLOOR_DIVIDE, flat, (double)step, 0, false, row);
    if (st != AG_OK)
      goto done;
    st = ag_binary_scalar(rq, AG_OP_REMAINDER, row, (double)x->shape[d], 0, false, row);
    if (st != AG_OK)
      goto done;
    ag_array_free(row);
    row = NULL;
    step *= x->shape[d];
  }
done:
  ag_array_free(flags);
  ag_array_free(pos);
  ag_array_free(flat);
  ag_array_free(row);
  if (st != AG_OK) {
    ag_array_free(coords);
    return ag__prefix(st, fn);
  }
  *out = coords;
  return AG_OK;
}

ag_status ag_mask_select(ag_queue *q, const ag_array *x, const ag_array *mask, ag_array **out) {
  static const char fn[] = "ag_mask_select";
  if (out == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
  *out = NULL;
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK)
    return st;
  st = ag__check_operand(fn, "mask", mask);
  if (st != AG_OK)
    return st;
  st = ag__check_same_device(fn, "x", x, "mask", mask);
  if (st != AG_OK)
    return st;
  if (mask->dtype != AG_BOOL)
    return ag__error(AG_ERR_MISMATCH, "%s: mask is %s, not bool", fn, ag_dtype_name(mask->dtype));
  bool fits = mask->ndim <= x->ndim;
  for (int d = 0; fits && d < mask->ndim; d++)
    fits = mask->shape[d] == x->shape[d];
  if (!fits) {
    char sm[128], sx[128];
    ag__shape_text(mask->ndim, mask->shape, sm, sizeof sm);
    ag__shape_text(x->ndim, x->shape, sx, sizeof sx);
    return ag__error(AG_ERR_MISMATCH, "%s: mask has shape %s, which is not x's %s or its first axes", fn, sm, sx);
  }
  st = ag__check_fp64(fn, x->dev, x->dtype);
  if (st != AG_OK)
    return st;
  ag_queue *rq;
  st = ag__queue_resolve(fn, q, x->dev, &rq);
  if (st != AG_OK)
    return st;
  /* out: the count of true elements, then x's axes after the mask's. */
  size_t shape[AG_MAX_DIMS + 1], inner = 1;
  int nd = 1 + x->ndim - mask->ndim;
  for (int d = mask->ndim; d < x->ndim; d++) {
    shape[1 + d - mask->ndim] = x->shape[d];
    inner *= x->shape[d];
  }
  ag_array *pos = NULL, *res = NULL;
  size_t count = 0;
  if (mask->size > 0) {
    st = running_count(fn, rq, mask, &pos, &count);
    if (st != AG_OK)
      goto done;
  }
  shape[0] = count;
  if (nd > AG_MAX_DIMS) { /* a 0-d mask: numpy's x[True], a new first axis */
    st = ag__error(AG_ERR_UNSUPPORTED, "%s: x has %d dimensions and mask none: the result would have %d", fn,
                   x->ndim, nd);
    goto done;
  }
  st = ag_array_create(x->dev, x->dtype, nd, shape, &res);
  if (st != AG_OK || count == 0 || inner == 0)
    goto done;
  ag__launch l = {.fn = fn, .q = rq, .dev = x->dev, .kernel = AG_K_SELECT + (int)x->dtype, .n = mask->size * inner};
  st = AG__LAUNCH(launch_select, &l, .flags = mask, .pos = pos, .x = x, .out = res, .inner = inner);
done:
  ag_array_free(pos);
  if (st != AG_OK) {
    ag_array_free(res);
    return ag__prefix(st, fn);
  }
  *out = res;
  return AG_OK;
}

ag_status ag_unique(ag_queue *q, const ag_array *x, ag_array **values, ag_array **indices, ag_array **inverse,
                    ag_array **counts) {
  static const char fn[] = "ag_unique";
  ag_array **outs[4] = {values, indices, inverse, counts};
  for (int k = 0; k < 4; k++)
    if (outs[k] != NULL)
      *outs[k] = NULL;
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK)
    return st;
  if (ag__dtype_is_complex(x->dtype))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is %s; %s sorts, so takes real numbers and bool", fn,
                     ag_dtype_name(x->dtype), fn);
  st = ag__check_fp64(fn, x->dev, x->dtype);
  if (st != AG_OK)
    return st;
  ag_queue *rq;
  st = ag__queue_resolve(fn, q, x->dev, &rq);
  if (st != AG_OK)
    return st;
  ag_device *dev = x->dev;
  const size_t n = x->size;
  ag_array *flat = NULL, *perm = NULL, *sorted = NULL, *flags = NULL, *pos = NULL, *starts = NULL;
  ag_array *res[4] = {NULL, NULL, NULL, NULL};
  size_t count = 0;
  if (n > 0) {
    /* x flattened (a copy when its layout needs one), its stable order and its sorted values. */
    st = ag_array_create(dev, x->dtype, x->ndim, x->shape, &sorted);
    if (st != AG_OK)
      goto done;
    st = ag_copy(rq, x, sorted);
    if (st != AG_OK)
      goto done;
    st = ag_array_reshape(sorted, 1, &n, &flat);
    if (st != AG_OK)
      goto done;
    st = new_1d(dev, AG_I64, n, &perm);
    if (st != AG_OK)
      goto done;
    st = ag_argsort(rq, flat, 0, false, perm);
    if (st != AG_OK)
      goto done;
    ag_array_free(sorted);
    sorted = NULL;
    st = new_1d(dev, x->dtype, n, &sorted);
    if (st != AG_OK)
      goto done;
    st = ag_take(rq, flat, perm, 0, sorted);
    if (st != AG_OK)
      goto done;
    /* Where each run of equal values starts, and the runs' running count. */
    st = new_1d(dev, AG_BOOL, n, &flags);
    if (st != AG_OK)
      goto done;
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_RUN_STARTS + (int)x->dtype, .n = n};
    st = AG__LAUNCH(launch_run_starts, &l, .x = sorted, .flags = flags);
    if (st != AG_OK)
      goto done;
    st = running_count(fn, rq, flags, &pos, &count);
    if (st != AG_OK)
      goto done;
  }
  if (values != NULL) {
    st = new_1d(dev, x->dtype, count, &res[0]);
    if (st != AG_OK)
      goto done;
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SELECT + (int)x->dtype, .n = n};
    st = AG__LAUNCH(launch_select, &l, .flags = flags, .pos = pos, .x = sorted, .out = res[0], .inner = 1);
    if (st != AG_OK)
      goto done;
  }
  if (indices != NULL) { /* the first of each run: a stable sort keeps it first */
    st = new_1d(dev, AG_I64, count, &res[1]);
    if (st != AG_OK)
      goto done;
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SELECT + (int)AG_I64, .n = n};
    st = AG__LAUNCH(launch_select, &l, .flags = flags, .pos = pos, .x = perm, .out = res[1], .inner = 1);
    if (st != AG_OK)
      goto done;
  }
  if (inverse != NULL) { /* x's shape: each element's run */
    st = ag_array_create(dev, AG_I64, x->ndim, x->shape, &res[2]);
    if (st != AG_OK)
      goto done;
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_INVERSE + (int)AG_I64, .n = n};
    st = AG__LAUNCH(launch_inverse, &l, .perm = perm, .pos = pos, .out = res[2]);
    if (st != AG_OK)
      goto done;
  }
  if (counts != NULL) { /* the distance between run starts */
    st = new_1d(dev, AG_I64, count, &res[3]);
    if (st != AG_OK)
      goto done;
    st = new_1d(dev, AG_I64, count, &starts);
    if (st != AG_OK)
      goto done;
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SELECT_INDEX + (int)AG_I64, .n = n};
    st = AG__LAUNCH(launch_select_index, &l, .flags = flags, .pos = pos, .out = starts);
    if (st != AG_OK)
      goto done;
    ag__launch r = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_RUN_LENGTHS + (int)AG_I64, .n = count};
    st = AG__LAUNCH(launch_run_lengths, &r, .starts = starts, .out = res[3], .total = n);
    if (st != AG_OK)
      goto done;
  }
done:
  ag_array_free(flat);
  ag_array_free(perm);
  ag_array_free(sorted);
  ag_array_free(flags);
  ag_array_free(pos);
  ag_array_free(starts);
  for (int k = 0; k < 4; k++) {
    if (st == AG_OK && outs[k] != NULL)
      *outs[k] = res[k];
    else
      ag_array_free(res[k]);
  }
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}
