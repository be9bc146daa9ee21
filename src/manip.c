/* src/manip.c - the array API's concat, roll, tile and repeat, as copies between views of their
   operands on the device (ag_copy, ag_astype): concat copies each input into its slice of out;
   roll copies each block of x into the place its shift takes it, 2^k blocks for k rolled axes;
   tile and repeat copy from a view of x broadcast along a new axis of length r. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Checks shared by ag_roll, ag_tile and ag_repeat: x and out present, on one device, of one
   dtype, out writable. */
static ag_status check_x_out(const char *fn, const ag_array *x, const ag_array *out) {
  ag_status st = ag__check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_dtype(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  return ag__check_writable(fn, "out", out);
}

ag_status ag_roll(ag_queue *q, const ag_array *x, int n, const int64_t *shifts, const int *axes, ag_array *out) {
  static const char fn[] = "ag_roll";
  ag_status st = check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  st = ag__check_same_shape(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  if (n < 1 || shifts == NULL || (axes == NULL && n != 1))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: n is %d with shifts %s and axes %s: give one shift with axes NULL "
                     "(the flattened array), or n shifts and n axes", fn, n, shifts ? "given" : "NULL",
                     axes ? "given" : "NULL");
  if (out->size == 0)
    return AG_OK;
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

/* out (contiguous, A x n x r x B elements) = contiguous x (A x n x B) with each of its A x n
   blocks of B elements repeated r times in place (@p tile false: numpy.repeat), or each of its
   A blocks of n x B elements repeated r times (@p tile true: numpy.tile along one axis): one
   copy from a broadcast view of x, whatever the dimensions around. */
static ag_status spread(ag_queue *q, const ag_array *x, size_t a, size_t n, size_t b, size_t r, bool tile,
                        ag_array *out) {
  const size_t xshape[4] = {a, tile ? 1 : n, tile ? n : 1, b};
  const size_t oshape[4] = {a, tile ? r : n, tile ? n : r, b};
  ag_array *xv = NULL, *xb = NULL, *ov = NULL;
  ag_status st = ag_array_reshape(x, 4, xshape, &xv);
  if (st != AG_OK)
    goto done;
  st = ag_array_broadcast_to(xv, 4, oshape, &xb);
  if (st != AG_OK)
    goto done;
  st = ag_array_reshape(out, 4, oshape, &ov);
  if (st != AG_OK)
    goto done;
  st = ag_copy(q, xb, ov);
done:
  ag_array_free(xv);
  ag_array_free(xb);
  ag_array_free(ov);
  return st;
}

/* The product of @p shape[from..to). */
static size_t span(const size_t *shape, int from, int to) {
  size_t p = 1;
  for (int d = from; d < to; d++)
    p *= shape[d];
  return p;
}

/* A contiguous array of x's values: x itself, or a copy in *tmp. */
static ag_status contiguous(ag_queue *q, const ag_array *x, const ag_array **c, ag_array **tmp) {
  *c = x;
  *tmp = NULL;
  if (x->contiguous)
    return AG_OK;
  ag_status st = ag_array_create(x->dev, x->dtype, x->ndim, x->shape, tmp);
  if (st != AG_OK)
    return st;
  st = ag_copy(q, x, *tmp);
  if (st != AG_OK) {
    ag_array_free(*tmp);
    *tmp = NULL;
    return st;
  }
  *c = *tmp;
  return AG_OK;
}

static ag_status shape_mismatch(const char *fn, const ag_array *out, int ndim, const size_t *want) {
  char so[128], sw[128];
  ag__shape_text(out->ndim, out->shape, so, sizeof so);
  ag__shape_text(ndim, want, sw, sizeof sw);
  return ag__error(AG_ERR_MISMATCH, "%s: out has shape %s; the result's is %s", fn, so, sw);
}

ag_status ag_tile(ag_queue *q, const ag_array *x, int n, const size_t *reps, ag_array *out) {
  static const char fn[] = "ag_tile";
  ag_status st = check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  if (n < 0 || n > AG_MAX_DIMS || (n > 0 && reps == NULL))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: n is %d with reps %s (0 to %d repetitions)", fn, n,
                     reps ? "given" : "NULL", AG_MAX_DIMS);
  /* x's shape and reps aligned at their last axes, the shorter padded with 1s in front. */
  int nd = n > x->ndim ? n : x->ndim;
  size_t shape[AG_MAX_DIMS], r[AG_MAX_DIMS], want[AG_MAX_DIMS];
  for (int d = 0; d < nd; d++) {
    int dx = d - (nd - x->ndim), dr = d - (nd - n);
    shape[d] = dx >= 0 ? x->shape[dx] : 1;
    r[d] = dr >= 0 ? reps[dr] : 1;
    want[d] = shape[d] * r[d];
  }
  if (out->ndim != nd || memcmp(out->shape, want, (size_t)nd * sizeof *want) != 0)
    return shape_mismatch(fn, out, nd, want);
  if (out->size == 0)
    return AG_OK;
  /* One axis at a time, each step one copy (spread) into a contiguous array of the shape so
     far; the last into out where out is contiguous. */
  const ag_array *cur = NULL;
  ag_array *held = NULL, *xc = NULL, *x1 = NULL;
  st = contiguous(q, x, &cur, &xc);
  if (st != AG_OK)
    goto done;
  st = ag_array_reshape(cur, nd, shape, &x1);
  if (st != AG_OK)
    goto done;
  cur = x1;
  int last = -1;
  for (int d = 0; d < nd; d++)
    if (r[d] > 1)
      last = d;
  for (int d = 0; d <= last; d++) {
    if (r[d] <= 1)
      continue;
    size_t a = span(shape, 0, d), len = shape[d], b = span(shape, d + 1, nd);
    shape[d] = len * r[d];
    bool into_out = d == last && out->contiguous;
    ag_array *next = out;
    if (!into_out) {
      st = ag_array_create(x->dev, x->dtype, nd, shape, &next);
      if (st != AG_OK)
        goto done;
    }
    st = spread(q, cur, a, len, b, r[d], true, next);
    if (st != AG_OK) {
      if (!into_out)
        ag_array_free(next);
      goto done;
    }
    /* The array read is released once the copy that reads it is enqueued. */
    ag_array_free(held);
    held = into_out ? NULL : next;
    cur = next;
  }
  if (cur != out)
    st = ag_copy(q, cur, out);
done:
  ag_array_free(held);
  ag_array_free(x1);
  ag_array_free(xc);
  return ag__prefix(st, fn);
}

ag_status ag_repeat(ag_queue *q, const ag_array *x, size_t repeats, int axis, ag_array *out) {
  static const char fn[] = "ag_repeat";
  ag_status st = check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  bool flat = axis == AG_AXIS_ALL;
  if (!flat && (x->ndim == 0 || axis < -x->ndim || axis >= x->ndim))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d, outside x's %d axes (AG_AXIS_ALL: the flattened array)",
                     fn, axis, x->ndim);
  if (!flat && axis < 0)
    axis += x->ndim;
  size_t want[AG_MAX_DIMS];
  int nd = flat ? 1 : x->ndim;
  if (flat)
    want[0] = x->size * repeats;
  for (int d = 0; !flat && d < nd; d++)
    want[d] = d == axis ? x->shape[d] * repeats : x->shape[d];
  if (out->ndim != nd || memcmp(out->shape, want, (size_t)nd * sizeof *want) != 0)
    return shape_mismatch(fn, out, nd, want);
  if (out->size == 0)
    return AG_OK;
  const ag_array *xc = NULL;
  ag_array *xt = NULL, *ot = NULL;
  ag_array *dst = out;
  st = contiguous(q, x, &xc, &xt);
  if (st != AG_OK)
    goto done;
  if (!out->contiguous) {
    st = ag_array_create(out->dev, out->dtype, out->ndim, out->shape, &ot);
    if (st != AG_OK)
      goto done;
    dst = ot;
  }
  size_t a = flat ? 1 : span(x->shape, 0, axis), len = flat ? x->size : x->shape[axis];
  size_t b = flat ? 1 : span(x->shape, axis + 1, x->ndim);
  st = spread(q, xc, a, len, b, repeats, false, dst);
  if (st != AG_OK)
    goto done;
  if (ot != NULL)
    st = ag_copy(q, ot, out);
done:
  ag_array_free(xt);
  ag_array_free(ot);
  return ag__prefix(st, fn);
}
