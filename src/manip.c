/* src/manip.c - the array API's concat and roll, as copies between views of their operands on
   the device (ag_copy, ag_astype): concat copies each input into its slice of out; roll copies
   each block of x into the place its shift takes it, 2^k blocks for k rolled axes. */
#include <stdio.h>
#include <stdlib.h>

#include "array.h"
#include "layout.h"

/* The view of @p a whose axis @p axis runs from @p start for @p len elements, the others
   whole. */
static ag_status along(const ag_array *a, int axis, size_t start, size_t len, ag_array **view) {
  ag_index idx[AG_MAX_DIMS];
  for (int d = 0; d < a->ndim; d++)
    idx[d] = d == axis ? ag_slice((int64_t)start, (int64_t)(start + len), 1) : ag_all();
  return ag_array_view(a, a->ndim, idx, view);
}

/* out = x, converting when the dtypes differ. */
static ag_status copy_into(ag_queue *q, const ag_array *x, ag_array *out) {
  return x->dtype == out->dtype ? ag_copy(q, x, out) : ag_astype(q, x, out);
}

ag_status ag_concat(ag_queue *q, int n, const ag_array *const *xs, int axis, ag_array *out) {
  static const char fn[] = "ag_concat";
  ag_status st = ag__check_operand(fn, "out", out);
  if (st != AG_OK)
    return st;
  if (n < 1 || xs == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: n is %d with xs %s; give one array or more", fn, n,
                     xs ? "given" : "NULL");
  if (out->ndim == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out is 0-d; arrays are joined along an axis", fn);
  if (axis < -out->ndim || axis >= out->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d, outside out's %d axes", fn, axis, out->ndim);
  if (axis < 0)
    axis += out->ndim;
  /* Each input: out's dimensions but along axis, its lengths along it summing to out's; the
     dtypes promoting to out's. */
  size_t total = 0;
  ag_dtype t = AG_BOOL;
  char name[32];
  for (int k = 0; k < n; k++) {
    snprintf(name, sizeof name, "xs[%d]", k);
    const ag_array *x = xs[k];
    st = ag__check_operand(fn, name, x);
    if (st != AG_OK)
      return st;
    st = ag__check_same_device(fn, name, x, "out", out);
    if (st != AG_OK)
      return st;
    bool fits = x->ndim == out->ndim;
    for (int d = 0; fits && d < x->ndim; d++)
      fits = d == axis || x->shape[d] == out->shape[d];
    if (!fits) {
      char sx[128], so[128];
      ag__shape_text(x->ndim, x->shape, sx, sizeof sx);
      ag__shape_text(out->ndim, out->shape, so, sizeof so);
      return ag__error(AG_ERR_MISMATCH, "%s: %s has shape %s, which does not fit out's %s but along axis %d", fn,
                       name, sx, so, axis);
    }
    total += x->shape[axis];
    if (k == 0)
      t = x->dtype;
    else if (ag_result_type(t, x->dtype, &t) != AG_OK)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s has no dtype", fn, name);
  }
  if (total != out->shape[axis])
    return ag__error(AG_ERR_MISMATCH, "%s: the inputs' lengths along axis %d sum to %zu, but out's is %zu", fn, axis,
                     total, out->shape[axis]);
  if (t != out->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: the inputs promote to %s, but out is %s", fn, ag_dtype_name(t),
                     ag_dtype_name(out->dtype));
  st = ag__check_writable(fn, "out", out);
  if (st != AG_OK)
    return st;
  size_t at = 0;
  for (int k = 0; k < n; k++) {
    size_t len = xs[k]->shape[axis];
    if (len == 0)
      continue;
    ag_array *slot = NULL;
    st = along(out, axis, at, len, &slot);
    if (st != AG_OK)
      return ag__prefix(st, fn);
    st = copy_into(q, xs[k], slot);
    ag_array_free(slot);
    if (st != AG_OK)
      return ag__prefix(st, fn);
    at += len;
  }
  return AG_OK;
}

/* out = x rolled by shift[d] along each axis d (0 <= shift[d] < length): the 2^k blocks of the
   k axes with a shift, each a view of x copied into a view of out. */
static ag_status roll_blocks(ag_queue *q, const ag_array *x, const size_t *shift, ag_array *out) {
  int rolled[AG_MAX_DIMS], k = 0;
  for (int d = 0; d < x->ndim; d++)
    if (shift[d] != 0)
      rolled[k++] = d;
  if (k == 0)
    return ag_copy(q, x, out);
  for (unsigned mask = 0; mask < 1u << k; mask++) {
    ag_index src[AG_MAX_DIMS], dst[AG_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++)
      src[d] = dst[d] = ag_all();
    for (int j = 0; j < k; j++) {
      int d = rolled[j];
      int64_t len = (int64_t)x->shape[d], s = (int64_t)shift[d];
      /* The tail [len - s, len) comes first in out; the head [0, len - s) after it. */
      if (mask & (1u << j)) {
        src[d] = ag_slice(len - s, len, 1);
        dst[d] = ag_slice(0, s, 1);
      } else {
        src[d] = ag_slice(0, len - s, 1);
        dst[d] = ag_slice(s, len, 1);
      }
    }
    ag_array *from = NULL, *to = NULL;
    ag_status st = ag_array_view(x, x->ndim, src, &from);
    if (st != AG_OK)
      goto fail;
    st = ag_array_view(out, out->ndim, dst, &to);
    if (st != AG_OK)
      goto fail;
    st = ag_copy(q, from, to);
  fail:
    ag_array_free(from);
    ag_array_free(to);
    if (st != AG_OK)
      return st;
  }
  return AG_OK;
}

ag_status ag_roll(ag_queue *q, const ag_array *x, int n, const int64_t *shifts, const int *axes, ag_array *out) {
  static const char fn[] = "ag_roll";
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK)
    return st;
  st = ag__check_operand(fn, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_device(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_dtype(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_shape(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  if (n < 1 || shifts == NULL || (axes == NULL && n != 1))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: n is %d with shifts %s and axes %s: give one shift with axes NULL "
                     "(the flattened array), or n shifts and n axes", fn, n, shifts ? "given" : "NULL",
                     axes ? "given" : "NULL");
  st = ag__check_writable(fn, "out", out);
  if (st != AG_OK || out->size == 0)
    return st;
  /* Each axis's total shift, in [0, length): numpy adds the shifts of an axis named twice. */
  size_t shift[AG_MAX_DIMS] = {0};
  for (int j = 0; axes != NULL && j < n; j++) {
    int d = axes[j];
    if (d < -x->ndim || d >= x->ndim)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axes[%d] is %d, outside x's %d axes", fn, j, d, x->ndim);
    d = d < 0 ? d + x->ndim : d;
    int64_t len = (int64_t)x->shape[d], s = ((shifts[j] % len) + len) % len;
    shift[d] = (shift[d] + (size_t)s) % (size_t)len;
  }
  /* x apart from out (a roll in place reads what it has written otherwise), and for the
     flattened roll both contiguous, as 1-D views. */
  ag_array *xs = NULL, *x1 = NULL, *o1 = NULL, *ot = NULL;
  const ag_array *src = x;
  ag_array *dst = out;
  if (ag__spans_meet(x, out) || (axes == NULL && !x->contiguous)) {
    st = ag_array_create(x->dev, x->dtype, x->ndim, x->shape, &xs);
    if (st != AG_OK)
      goto done;
    st = ag_copy(q, x, xs);
    if (st != AG_OK)
      goto done;
    src = xs;
  }
  if (axes == NULL) {
    if (!out->contiguous) {
      st = ag_array_create(out->dev, out->dtype, out->ndim, out->shape, &ot);
      if (st != AG_OK)
        goto done;
      dst = ot;
    }
    const size_t flat = x->size;
    st = ag_array_reshape(src, 1, &flat, &x1);
    if (st != AG_OK)
      goto done;
    st = ag_array_reshape(dst, 1, &flat, &o1);
    if (st != AG_OK)
      goto done;
    int64_t len = (int64_t)flat;
    size_t s1 = (size_t)(((shifts[0] % len) + len) % len);
    st = roll_blocks(q, x1, &s1, o1);
    if (st != AG_OK)
      goto done;
    if (ot != NULL)
      st = ag_copy(q, ot, out);
  } else {
    st = roll_blocks(q, src, shift, dst);
  }
done:
  ag_array_free(xs);
  ag_array_free(x1);
  ag_array_free(o1);
  ag_array_free(ot);
  return ag__prefix(st, fn);
}
