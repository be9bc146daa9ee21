/* src/array.c - arrays: creation, views, copies to and from the host and between devices,
   fill, copy and astype. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/elementwise.h"
#undef AG_SHAPES_ONLY

/* The elementwise family's conversion to the same dtype, ag_astype_<t>_<t>, is its copy kernel. */
AG__SHAPE_LAUNCHER(launch_copy, AG_SHAPE_UNARY)

/* ---- checks shared by the operations ---- */

ag_status ag__check_operand(const char *fn, const char *name, const ag_array *a) {
  if (a == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  return AG_OK;
}

ag_status ag__check_array(const char *fn, const char *name, const ag_array *a) {
  if (a == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  if (!a->contiguous)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is a strided view, and %s takes contiguous arrays (ag_copy it into "
                     "one first)", fn, name, fn);
  return AG_OK;
}

ag_status ag__check_same_device(const char *fn, const char *na, const ag_array *a, const char *nb,
                                const ag_array *b) {
  if (a->dev != b->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is on %s but %s is on %s", fn, na, a->dev->info.spec, nb,
                     b->dev->info.spec);
  return AG_OK;
}

ag_status ag__check_x_out(const char *fn, const ag_array *x, const ag_array *out) {
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK)
    return st;
  st = ag__check_operand(fn, "out", out);
  if (st != AG_OK)
    return st;
  return ag__check_same_device(fn, "x", x, "out", out);
}

ag_status ag__check_along(const char *fn, const ag_array *x, const ag_array *out, int *axis) {
  ag_status st = ag__check_same_shape(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  if (x->ndim == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x is 0-d; %s runs along an axis", fn, fn);
  if (*axis < -x->ndim || *axis >= x->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d, outside x's %d axes", fn, *axis, x->ndim);
  if (*axis < 0)
    *axis += x->ndim;
  st = ag__check_fp64(fn, x->dev, x->dtype);
  if (st != AG_OK)
    return st;
  return ag__check_writable(fn, "out", out);
}

ag_status ag__check_same_dtype(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b) {
  if (a->dtype != b->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s but %s is %s", fn, na, ag_dtype_name(a->dtype), nb,
                     ag_dtype_name(b->dtype));
  return AG_OK;
}

void ag__shape_text(int ndim, const size_t *shape, char *out, size_t size) {
  size_t n = (size_t)snprintf(out, size, "{");
  for (int d = 0; d < ndim && n < size; d++)
    n += (size_t)snprintf(out + n, size - n, "%s%zu", d ? ", " : "", shape[d]);
  if (n < size)
    snprintf(out + n, size - n, "}");
}

ag_status ag__check_same_shape(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b) {
  bool same = a->ndim == b->ndim;
  for (int d = 0; same && d < a->ndim; d++)
    same = a->shape[d] == b->shape[d];
  if (same)
    return AG_OK;
  char sa[128], sb[128];
  ag__shape_text(a->ndim, a->shape, sa, sizeof sa);
  ag__shape_text(b->ndim, b->shape, sb, sizeof sb);
  return ag__error(AG_ERR_MISMATCH, "%s: %s has shape %s but %s has shape %s", fn, na, sa, nb, sb);
}


/* ---- creation and views ---- */

static ag_status check_shape(const char *fn, ag_dtype t, int ndim, const size_t *shape, size_t *count) {
  if (!ag__dtype_valid(t))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t is %d, not an ag_dtype", fn, (int)t);
  if (ndim < 0 || ndim > AG_MAX_DIMS)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ndim is %d, not 0 to %d (AG_MAX_DIMS)", fn, ndim, AG_MAX_DIMS);
  if (shape == NULL && ndim > 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: shape is NULL", fn);
  /* As numpy: the lengths other than 0 must multiply into a byte count a size_t holds, even
     when a 0 makes the array empty, so that no view or export of it computes a length or a
     stride past SIZE_MAX. */
  size_t n = 1;
  bool empty = false;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] == 0)
      empty = true;
    else if (n > SIZE_MAX / shape[d] || shape[d] > PTRDIFF_MAX)
      return ag__error(AG_ERR_OUT_OF_RANGE, "%s: shape[%d] = %zu makes the element count overflow", fn, d,
                       shape[d]);
    else
      n *= shape[d];
  }
  if (n > PTRDIFF_MAX / ag_dtype_size(t))
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: shape holds %zu elements of %s, which overflow the byte count", fn,
                     n, ag_dtype_name(t));
  *count = empty ? 0 : n;
  return AG_OK;
}

/* Whether shape and strides lay the elements back to back in C order. */
static bool is_c_order(int ndim, const size_t *shape, const ptrdiff_t *strides, size_t size) {
  if (size == 0)
    return true;
  ptrdiff_t want = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    if (shape[d] != 1 && strides[d] != want)
      return false;
    want *= (ptrdiff_t)shape[d];
  }
  return true;
}

/* An array's metadata with @p strides, or C-order strides when NULL. */
static ag_array *array_new(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const ptrdiff_t *strides,
                           size_t count) {
  ag_array *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->dev = dev;
  a->dtype = t;
  a->ndim = ndim;
  ptrdiff_t step = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    a->shape[d] = shape[d];
    a->strides[d] = strides != NULL ? strides[d] : step;
    step *= shape[d] ? (ptrdiff_t)shape[d] : 1;
  }
  a->size = count;
  a->contiguous = is_c_order(ndim, a->shape, a->strides, count);
  return a;
}

ag_status ag_array_create(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, ag_array **a_out) {
  static const char fn[] = "ag_array_create";
  if (a_out == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: a is NULL", fn);
  ag_array **out = a_out;
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  size_t count;
  ag_status st = check_shape(fn, t, ndim, shape, &count);
  if (st != AG_OK)
    return st;
  ag_array *a = array_new(dev, t, ndim, shape, NULL, count);
  if (a == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  if (count > 0) {
    a->store = malloc(sizeof *a->store);
    if (a->store == NULL) {
      free(a);
      return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    st = ag_buffer_alloc(dev, count * ag_dtype_size(t), &a->store->buf);
    if (st != AG_OK) {
      free(a->store);
      free(a);
      return ag__prefix(st, fn);
    }
    atomic_init(&a->store->refs, 1);
  }
  *out = a;
  return AG_OK;
}

ag_status ag__array_over(const char *fn, ag_buffer *buf, size_t offset, ag_dtype t, int ndim, const size_t *shape,
                         ag_array **out) {
  size_t count;
  ag_status st = check_shape(fn, t, ndim, shape, &count);
  if (st != AG_OK)
    return st;
  ag_array *a = array_new(buf->dev, t, ndim, shape, NULL, count);
  ag__storage *store = malloc(sizeof *store);
  if (a == NULL || store == NULL) {
    free(a);
    free(store);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  store->buf = buf;
  atomic_init(&store->refs, 1);
  a->store = store;
  a->offset = offset;
  *out = a;
  return AG_OK;
}

ag_status ag_array_from_host(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data,
                             ag_array **out) {
  static const char fn[] = "ag_array_from_host";
  if (out == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: a is NULL", fn);
  *out = NULL;
  ag_array *a;
  ag_status st = ag_array_create(dev, t, ndim, shape, &a);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  if (a->size > 0) {
    if (data == NULL) {
      ag_array_free(a);
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: data is NULL", fn);
    }
    st = ag_buffer_write(NULL, a->store->buf, 0, data, a->size * ag_dtype_size(t));
    if (st != AG_OK) {
      ag_array_free(a);
      return ag__prefix(st, fn);
    }
  }
  *out = a;
  return AG_OK;
}

void ag_array_free(ag_array *a) {
  if (a == NULL)
    return;
  if (a->store != NULL && atomic_fetch_sub(&a->store->refs, 1) == 1) {
    ag_buffer_free(a->store->buf);
    free(a->store);
  }
  free(a);
}

/* A view of @p a's memory: @p ndim axes of @p shape and @p strides (NULL: C order), its first
   element at element @p offset of the buffer. The caller has checked that every element lies
   in @p a's. */
static ag_status view_new(const char *fn, const ag_array *a, int ndim, const size_t *shape, const ptrdiff_t *strides,
                          size_t offset, ag_array **view) {
  size_t count = 1;
  for (int d = 0; d < ndim; d++)
    count *= shape[d];
  ag_array *v = array_new(a->dev, a->dtype, ndim, shape, strides, count);
  if (v == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  if (count > 0) {
    v->store = a->store;
    v->offset = offset;
    atomic_fetch_add(&v->store->refs, 1);
  }
  *view = v;
  return AG_OK;
}

/* The start of every view function: view and a present, *view NULL until it succeeds. */
#define VIEW_BEGIN(fn, a, view)                                                                 \
  do {                                                                                          \
    AG__CHECK_NOT_NULL(fn, view);                                                               \
    *view = NULL;                                                                               \
    AG__CHECK_NOT_NULL(fn, a);                                                                  \
  } while (0)

void ag__array_set_strides(ag_array *a, const ptrdiff_t *strides) {
  for (int d = 0; d < a->ndim; d++)
    a->strides[d] = strides[d];
  a->contiguous = is_c_order(a->ndim, a->shape, a->strides, a->size);
}

ag_status ag__array_alias(const char *fn, const ag_array *a, ag_array **view) {
  return view_new(fn, a, a->ndim, a->shape, a->strides, a->offset, view);
}

/* Axis @p axis of an array of @p ndim axes, negative counting from the end, into *out; errors
   name argument @p what of @p fn. */
static ag_status norm_axis(const char *fn, const char *what, int axis, int ndim, int *out) {
  if (axis < -ndim || axis >= ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is %d, not an axis of an array of %d dimension%s (%d to %d)", fn,
                     what, axis, ndim, ndim == 1 ? "" : "s", -ndim, ndim - 1);
  *out = axis < 0 ? axis + ndim : axis;
  return AG_OK;
}

/* numpy's rule for a reshape without a copy (_attempt_nocopy_reshape): runs of old axes and of
   new axes with equal products, each old run laid out evenly, get new strides from the run's
   last. False when some run is not even. */
static bool reshape_strides(const ag_array *a, int ndim, const size_t *shape, ptrdiff_t *strides) {
  size_t os[AG_MAX_DIMS];
  ptrdiff_t ot[AG_MAX_DIMS];
  int on = 0;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != 1) {
      os[on] = a->shape[d];
      ot[on++] = a->strides[d];
    }
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < ndim && oi < on) {
    size_t np = shape[ni], op = os[oi];
    while (np != op) {
      if (np < op)
        np *= shape[nj++];
      else
        op *= os[oj++];
    }
    for (int k = oi; k < oj - 1; k++)
      if (ot[k] != ot[k + 1] * (ptrdiff_t)os[k + 1])
        return false;
    strides[nj - 1] = ot[oj - 1];
    for (int k = nj - 1; k > ni; k--)
      strides[k - 1] = strides[k] * (ptrdiff_t)shape[k];
    ni = nj++;
    oi = oj++;
  }
  /* Trailing axes of length 1. */
  for (int k = ni; k < ndim; k++)
    strides[k] = 1;
  return true;
}

ag_status ag_array_reshape(const ag_array *a, int ndim, const size_t *shape, ag_array **view) {
  static const char fn[] = "ag_array_reshape";
  VIEW_BEGIN(fn, a, view);
  size_t count;
  ag_status st = check_shape(fn, a->dtype, ndim, shape, &count);
  if (st != AG_OK)
    return st;
  if (count != a->size)
    return ag__error(AG_ERR_MISMATCH, "%s: the new shape holds %zu elements but a holds %zu", fn, count, a->size);
  if (a->contiguous || count == 0)
    return view_new(fn, a, ndim, shape, NULL, a->offset, view);
  ptrdiff_t strides[AG_MAX_DIMS];
  if (reshape_strides(a, ndim, shape, strides))
    return view_new(fn, a, ndim, shape, strides, a->offset, view);
  /* Not expressible as strides over a's memory: a copy, as numpy's reshape makes. */
  ag_array *c;
  if ((st = ag_array_create(a->dev, a->dtype, ndim, shape, &c)) != AG_OK)
    return ag__prefix(st, fn);
  ag_array *src;
  st = view_new(fn, a, a->ndim, a->shape, a->strides, a->offset, &src);
  if (st != AG_OK) {
    ag_array_free(c);
    return st;
  }
  /* Copy through a view of c in a's shape. */
  ag_array *dst;
  st = view_new(fn, c, a->ndim, a->shape, NULL, 0, &dst);
  if (st == AG_OK) {
    st = ag_copy(NULL, src, dst);
    ag_array_free(dst);
  }
  ag_array_free(src);
  if (st != AG_OK) {
    ag_array_free(c);
    return ag__prefix(st, fn);
  }
  *view = c;
  return AG_OK;
}

ag_status ag_array_index(const ag_array *a, size_t i, ag_array **view) {
  static const char fn[] = "ag_array_index";
  VIEW_BEGIN(fn, a, view);
  if (a->ndim == 0 || i >= a->shape[0])
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: i = %zu is not below the first dimension %zu", fn, i,
                     a->ndim ? a->shape[0] : 0);
  static const size_t one = 1;
  static const ptrdiff_t unit = 1;
  bool flat = a->ndim == 1;
  size_t offset = (size_t)((ptrdiff_t)a->offset + (ptrdiff_t)i * a->strides[0]);
  return view_new(fn, a, flat ? 1 : a->ndim - 1, flat ? &one : a->shape + 1, flat ? &unit : a->strides + 1, offset,
                  view);
}

ag_status ag_array_slice(const ag_array *a, size_t start, size_t count, ag_array **view) {
  static const char fn[] = "ag_array_slice";
  VIEW_BEGIN(fn, a, view);
  if (a->ndim == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: a is 0-d, with no axis to slice", fn);
  if (start > a->shape[0] || count > a->shape[0] - start)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: start %zu + count %zu exceeds the first dimension %zu", fn, start,
                     count, a->shape[0]);
  size_t shape[AG_MAX_DIMS];
  memcpy(shape, a->shape, sizeof shape);
  shape[0] = count;
  size_t offset = count ? (size_t)((ptrdiff_t)a->offset + (ptrdiff_t)start * a->strides[0]) : 0;
  return view_new(fn, a, a->ndim, shape, a->strides, offset, view);
}

/* Python's slice.indices: the first position and the length of start:stop:step over n. */
static void slice_span(int64_t start, int64_t stop, int64_t step, int64_t n, int64_t *first, int64_t *len) {
  int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? n : n - 1;
  if (start == AG_INDEX_NONE)
    start = step > 0 ? lo : hi;
  else if (start < 0)
    start = start + n < lo ? lo : start + n;
  else if (start > hi)
    start = hi;
  if (stop == AG_INDEX_NONE)
    stop = step > 0 ? hi : lo;
  else if (stop < 0)
    stop = stop + n < lo ? lo : stop + n;
  else if (stop > hi)
    stop = hi;
  *first = start;
  if (step > 0)
    *len = stop > start ? (stop - start - 1) / step + 1 : 0;
  else
    *len = start > stop ? (start - stop - 1) / (-step) + 1 : 0;
}

ag_status ag_array_view(const ag_array *a, int nidx, const ag_index *idx, ag_array **view) {
  static const char fn[] = "ag_array_view";
  VIEW_BEGIN(fn, a, view);
  if (nidx < 0 || (nidx > 0 && idx == NULL))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: nidx is %d with idx %s", fn, nidx, idx ? "given" : "NULL");
  int consumed = 0, ellipsis = -1;
  for (int k = 0; k < nidx; k++) {
    switch (idx[k].kind) {
    case AG_INDEX_SLICE:
    case AG_INDEX_INT:
      consumed++;
      break;
    case AG_INDEX_NEWAXIS:
      break;
    case AG_INDEX_ELLIPSIS:
      if (ellipsis >= 0)
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: idx[%d] is a second ellipsis (idx[%d] is one)", fn, k,
                         ellipsis);
      ellipsis = k;
      break;
    default:
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: idx[%d].kind is %d, not an ag_index_kind", fn, k,
                       (int)idx[k].kind);
    }
  }
  if (consumed > a->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: idx indexes %d axes but a has %d", fn, consumed, a->ndim);
  size_t shape[AG_MAX_DIMS];
  ptrdiff_t strides[AG_MAX_DIMS];
  int64_t offset = (int64_t)a->offset;
  int ax = 0, nd = 0;
  bool empty = a->size == 0;
  for (int k = 0; k <= nidx; k++) {
    /* The axes an ellipsis, or the end of idx, stand for. */
    int whole = k == nidx ? a->ndim - ax : idx[k].kind == AG_INDEX_ELLIPSIS ? a->ndim - consumed : 0;
    for (int w = 0; w < whole; w++, ax++) {
      if (nd == AG_MAX_DIMS)
        goto too_many;
      shape[nd] = a->shape[ax];
      strides[nd++] = a->strides[ax];
    }
    if (k == nidx)
      break;
    const ag_index *x = &idx[k];
    if (x->kind == AG_INDEX_ELLIPSIS) {
      consumed = a->ndim - ax; /* the axes after the ellipsis are still to come */
      for (int j = k + 1; j < nidx; j++)
        consumed -= idx[j].kind == AG_INDEX_SLICE || idx[j].kind == AG_INDEX_INT;
      continue;
    }
    if (x->kind == AG_INDEX_NEWAXIS) {
      if (nd == AG_MAX_DIMS)
        goto too_many;
      shape[nd] = 1;
      strides[nd++] = 0;
      continue;
    }
    int64_t n = (int64_t)a->shape[ax];
    if (x->kind == AG_INDEX_INT) {
      int64_t i = x->start < 0 ? x->start + n : x->start;
      if (x->start < -n || x->start >= n)
        return ag__error(AG_ERR_OUT_OF_RANGE, "%s: idx[%d] is %" PRId64 ", outside axis %d of length %" PRId64, fn,
                         k, x->start, ax, n);
      offset += i * a->strides[ax++];
      continue;
    }
    if (x->step == 0)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: idx[%d] has step 0", fn, k);
    if (x->step == INT64_MIN)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: idx[%d] has step %" PRId64 ", out of range", fn, k, x->step);
    int64_t first, len;
    slice_span(x->start, x->stop, x->step, n, &first, &len);
    if (nd == AG_MAX_DIMS)
      goto too_many;
    shape[nd] = (size_t)len;
    strides[nd++] = a->strides[ax] * (ptrdiff_t)x->step;
    if (len > 0)
      offset += first * a->strides[ax];
    empty |= len == 0;
    ax++;
  }
  return view_new(fn, a, nd, shape, strides, empty ? 0 : (size_t)offset, view);
too_many:
  return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: idx makes more than %d dimensions (AG_MAX_DIMS)", fn, AG_MAX_DIMS);
}

ag_status ag_array_permute(const ag_array *a, const int *axes, ag_array **view) {
  static const char fn[] = "ag_array_permute";
  VIEW_BEGIN(fn, a, view);
  if (a->ndim > 0)
    AG__CHECK_NOT_NULL(fn, axes);
  bool seen[AG_MAX_DIMS];
  ag_status st = ag__axis_set(fn, a->ndim, a->ndim, axes, seen); /* each axis once */
  if (st != AG_OK)
    return st;
  size_t shape[AG_MAX_DIMS];
  ptrdiff_t strides[AG_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++) {
    int ax = axes[k] < 0 ? axes[k] + a->ndim : axes[k];
    shape[k] = a->shape[ax];
    strides[k] = a->strides[ax];
  }
  return view_new(fn, a, a->ndim, shape, strides, a->offset, view);
}

ag_status ag_array_transpose(const ag_array *a, ag_array **view) {
  static const char fn[] = "ag_array_transpose";
  VIEW_BEGIN(fn, a, view);
  int axes[AG_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++)
    axes[k] = a->ndim - 1 - k;
  return ag__prefix(ag_array_permute(a, axes, view), fn);
}

ag_status ag_array_swapaxes(const ag_array *a, int axis1, int axis2, ag_array **view) {
  static const char fn[] = "ag_array_swapaxes";
  VIEW_BEGIN(fn, a, view);
  int i, j;
  ag_status st = norm_axis(fn, "axis1", axis1, a->ndim, &i);
  if (st != AG_OK)
    return st;
  if ((st = norm_axis(fn, "axis2", axis2, a->ndim, &j)) != AG_OK)
    return st;
  size_t shape[AG_MAX_DIMS];
  ptrdiff_t strides[AG_MAX_DIMS];
  memcpy(shape, a->shape, sizeof shape);
  memcpy(strides, a->strides, sizeof strides);
  shape[i] = a->shape[j];
  strides[i] = a->strides[j];
  shape[j] = a->shape[i];
  strides[j] = a->strides[i];
  return view_new(fn, a, a->ndim, shape, strides, a->offset, view);
}

ag_status ag_array_broadcast_to(const ag_array *a, int ndim, const size_t *shape, ag_array **view) {
  static const char fn[] = "ag_array_broadcast_to";
  VIEW_BEGIN(fn, a, view);
  size_t count;
  ag_status st = check_shape(fn, a->dtype, ndim, shape, &count);
  if (st != AG_OK)
    return st;
  ptrdiff_t strides[AG_MAX_DIMS];
  bool fits = ndim >= a->ndim;
  for (int d = ndim - 1; fits && d >= 0; d--) {
    int s = d - (ndim - a->ndim); /* a's axis aligned with d */
    if (s < 0)
      strides[d] = 0;
    else if (a->shape[s] == shape[d])
      strides[d] = a->strides[s];
    else if (a->shape[s] == 1)
      strides[d] = 0;
    else
      fits = false;
  }
  if (!fits) {
    char sa[128], sb[128];
    ag__shape_text(a->ndim, a->shape, sa, sizeof sa);
    ag__shape_text(ndim, shape, sb, sizeof sb);
    return ag__error(AG_ERR_MISMATCH, "%s: a of shape %s does not broadcast to shape %s", fn, sa, sb);
  }
  return view_new(fn, a, ndim, shape, strides, a->offset, view);
}

ag_status ag_array_expand_dims(const ag_array *a, int axis, ag_array **view) {
  static const char fn[] = "ag_array_expand_dims";
  VIEW_BEGIN(fn, a, view);
  if (a->ndim == AG_MAX_DIMS)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: a has %d dimensions, AG_MAX_DIMS already", fn, a->ndim);
  int at;
  ag_status st = norm_axis(fn, "axis", axis, a->ndim + 1, &at);
  if (st != AG_OK)
    return st;
  size_t shape[AG_MAX_DIMS];
  ptrdiff_t strides[AG_MAX_DIMS];
  for (int d = 0, s = 0; d <= a->ndim; d++) {
    shape[d] = d == at ? 1 : a->shape[s];
    strides[d] = d == at ? 0 : a->strides[s++];
  }
  return view_new(fn, a, a->ndim + 1, shape, strides, a->offset, view);
}

ag_status ag__axis_set(const char *fn, int ndim, int naxes, const int *axes, bool *on) {
  if (naxes < 0 || naxes > ndim || (naxes > 0 && axes == NULL))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: naxes is %d with axes %s (the array has %d dimensions)", fn, naxes,
                     axes ? "given" : "NULL", ndim);
  for (int d = 0; d < ndim; d++)
    on[d] = naxes == 0;
  for (int k = 0; k < naxes; k++) {
    char what[24];
    snprintf(what, sizeof what, "axes[%d]", k);
    int ax;
    ag_status st = norm_axis(fn, what, axes[k], ndim, &ax);
    if (st != AG_OK)
      return st;
    if (on[ax] && naxes > 0)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axes[%d] is %d, an axis named twice", fn, k, axes[k]);
    on[ax] = true;
  }
  return AG_OK;
}

ag_status ag_array_squeeze(const ag_array *a, int naxes, const int *axes, ag_array **view) {
  static const char fn[] = "ag_array_squeeze";
  VIEW_BEGIN(fn, a, view);
  bool on[AG_MAX_DIMS];
  ag_status st = ag__axis_set(fn, a->ndim, naxes, axes, on);
  if (st != AG_OK)
    return st;
  size_t shape[AG_MAX_DIMS];
  ptrdiff_t strides[AG_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (on[d] && a->shape[d] == 1)
      continue;
    if (on[d] && naxes > 0)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis %d has length %zu, not 1", fn, d, a->shape[d]);
    shape[nd] = a->shape[d];
    strides[nd++] = a->strides[d];
  }
  return view_new(fn, a, nd, shape, strides, a->offset, view);
}

ag_status ag_array_flip(const ag_array *a, int naxes, const int *axes, ag_array **view) {
  static const char fn[] = "ag_array_flip";
  VIEW_BEGIN(fn, a, view);
  bool on[AG_MAX_DIMS];
  ag_status st = ag__axis_set(fn, a->ndim, naxes, axes, on);
  if (st != AG_OK)
    return st;
  ptrdiff_t strides[AG_MAX_DIMS];
  int64_t offset = (int64_t)a->offset;
  for (int d = 0; d < a->ndim; d++) {
    strides[d] = on[d] ? -a->strides[d] : a->strides[d];
    if (on[d] && a->shape[d] > 0)
      offset += (int64_t)(a->shape[d] - 1) * a->strides[d];
  }
  return view_new(fn, a, a->ndim, a->shape, strides, a->size ? (size_t)offset : 0, view);
}

/* ---- accessors ---- */

ag_dtype ag_array_dtype(const ag_array *a) { return a ? a->dtype : AG_U8; }
int ag_array_ndim(const ag_array *a) { return a ? a->ndim : 0; }
size_t ag_array_dim(const ag_array *a, int axis) {
  return a && axis >= 0 && axis < a->ndim ? a->shape[axis] : 0;
}
const size_t *ag_array_shape(const ag_array *a) { return a ? a->shape : NULL; }
const ptrdiff_t *ag_array_strides(const ag_array *a) { return a ? a->strides : NULL; }
bool ag_array_is_contiguous(const ag_array *a) { return a ? a->contiguous : false; }
size_t ag_array_size(const ag_array *a) { return a ? a->size : 0; }
size_t ag_array_nbytes(const ag_array *a) { return a ? a->size * ag_dtype_size(a->dtype) : 0; }
ag_device *ag_array_device(const ag_array *a) { return a ? a->dev : NULL; }

ag_buffer *ag_array_buffer(const ag_array *a, size_t *offset) {
  if (offset != NULL)
    *offset = a && a->store ? a->offset * ag_dtype_size(a->dtype) : 0;
  return a && a->store ? a->store->buf : NULL;
}

/* ---- copies ---- */

ag_status ag_array_to_host(const ag_array *a, void *data, size_t bytes) {
  static const char fn[] = "ag_array_to_host";
  AG__CHECK_NOT_NULL(fn, a);
  size_t need = ag_array_nbytes(a);
  if (bytes < need)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: bytes is %zu but the array holds %zu", fn, bytes, need);
  if (need == 0)
    return AG_OK;
  AG__CHECK_NOT_NULL(fn, data);
  if (!a->contiguous)
    return ag__read_view(fn, a, data);
  return ag__prefix(ag__buffer_read_after_last(a->store->buf, a->offset * ag_dtype_size(a->dtype), data, need), fn);
}

ag_status ag_array_copy_to(const ag_array *a, ag_device *dev, ag_array **out) {
  static const char fn[] = "ag_array_copy_to";
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, a);
  AG__CHECK_NOT_NULL(fn, dev);
  ag_array *b;
  ag_status st = ag_array_create(dev, a->dtype, a->ndim, a->shape, &b);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  if (a->size > 0) {
    if (dev == a->dev) {
      st = ag_copy(NULL, a, b);
    } else {
      /* Through the host: devices of different backends share no memory. */
      size_t bytes = ag_array_nbytes(a);
      void *tmp = malloc(bytes);
      st = tmp == NULL ? ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu bytes", bytes)
                       : ag_array_to_host(a, tmp, bytes);
      if (st == AG_OK)
        st = ag_buffer_write(NULL, b->store->buf, 0, tmp, bytes);
      free(tmp);
    }
  }
  if (st != AG_OK) {
    ag_array_free(b);
    return ag__prefix(st, fn);
  }
  *out = b;
  return AG_OK;
}

ag_status ag_copy(ag_queue *q, const ag_array *x, ag_array *out) {
  static const char fn[] = "ag_copy";
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_shape(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (x->size == 0)
    return AG_OK;
  bool same = x->store == out->store && x->offset == out->offset &&
              memcmp(x->strides, out->strides, sizeof x->strides) == 0;
  if (same)
    return AG_OK;
  if ((st = ag__check_writable(fn, "out", out)) != AG_OK)
    return st;
  if (!x->contiguous || !out->contiguous) {
    if (!ag__spans_meet(x, out))
      return ag__copy_layout(fn, q, x, out);
    /* Views of one memory that meet (a[1:] into a[:-1], a flipped into itself): through a
       contiguous copy of x, as numpy does. */
    ag_array *tmp;
    if ((st = ag__stand_in(fn, q, x, true, &tmp)) != AG_OK)
      return st;
    st = ag__copy_layout(fn, q, tmp, out);
    ag_array_free(tmp);
    return st;
  }
  size_t es = ag_dtype_size(x->dtype);
  if (x->store == out->store) {
    size_t xo = x->offset, oo = out->offset, n = x->size;
    if (xo < oo + n && oo < xo + n)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x and out overlap in one buffer", fn);
  }
  /* Where the backend says its own copy is the slower (ag__device_traits.copy_kernel), the
     copy kernel streams through memory on every core. */
  if (x->dev->traits.copy_kernel && ag__check_fp64(fn, x->dev, x->dtype) == AG_OK) {
    ag__launch l = {.fn = fn, .q = q, .dev = x->dev, .kernel = ag__astype_kernel(x->dtype) + x->dtype, .n = x->size};
    return AG__LAUNCH(launch_copy, &l, .x = x, .out = out);
  }
  return ag__prefix(ag_buffer_copy(q, out->store->buf, out->offset * es, x->store->buf, x->offset * es, x->size * es),
                    fn);
}

static ag_status fill(const char *fn, ag_queue *q, ag_array *a, double re, double im) {
  AG__CHECK_NOT_NULL(fn, a);
  unsigned char pattern[16];
  ag_status st = ag__scalar_to(fn, "value", re, im, a->dtype, pattern);
  if (st != AG_OK || a->size == 0)
    return st;
  if (!a->contiguous) {
    /* A view: filled through a contiguous array of its shape. */
    if ((st = ag__check_writable(fn, "a", a)) != AG_OK)
      return st;
    ag_array *tmp;
    if ((st = ag__stand_in(fn, q, a, false, &tmp)) != AG_OK)
      return st;
    st = fill(fn, q, tmp, re, im);
    if (st == AG_OK)
      st = ag__copy_layout(fn, q, tmp, a);
    ag_array_free(tmp);
    return st;
  }
  size_t es = ag_dtype_size(a->dtype);
  return ag__prefix(ag_buffer_fill(q, a->store->buf, a->offset * es, pattern, es, a->size * es), fn);
}

ag_status ag_fill(ag_queue *q, ag_array *a, double value) { return fill("ag_fill", q, a, value, 0); }

ag_status ag_fill_complex(ag_queue *q, ag_array *a, double re, double im) {
  return fill("ag_fill_complex", q, a, re, im);
}
