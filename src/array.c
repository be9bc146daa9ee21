/* src/array.c - arrays: creation, views, copies to and from the host and between devices,
   fill, copy and astype. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/elementwise.h"
#undef AG_SHAPES_ONLY

/* The elementwise family's conversion to the same dtype, ag_astype_<t>_<t>, is its copy kernel. */
AG__SHAPE_LAUNCHER(launch_copy, AG_SHAPE_UNARY)

static const struct {
  const char *name;
  size_t size;
} dtypes[AG_DTYPE_COUNT] = {
    [AG_U8] = {"u8", 1},   [AG_U16] = {"u16", 2}, [AG_U32] = {"u32", 4}, [AG_I32] = {"i32", 4},
    [AG_F32] = {"f32", 4}, [AG_F64] = {"f64", 8}, [AG_C64] = {"c64", 8}, [AG_C128] = {"c128", 16},
};

bool ag__dtype_valid(ag_dtype t) { return (unsigned)t < AG_DTYPE_COUNT; }
bool ag__dtype_is_complex(ag_dtype t) { return t == AG_C64 || t == AG_C128; }
bool ag__dtype_is_float(ag_dtype t) { return t == AG_F32 || t == AG_F64; }
bool ag__dtype_is_int(ag_dtype t) { return t == AG_U8 || t == AG_U16 || t == AG_U32 || t == AG_I32; }
bool ag__dtype_is_unsigned(ag_dtype t) { return t == AG_U8 || t == AG_U16 || t == AG_U32; }
bool ag__dtype_is_f64(ag_dtype t) { return t == AG_F64 || t == AG_C128; }
ag_dtype ag__dtype_real(ag_dtype t) { return t == AG_C64 ? AG_F32 : t == AG_C128 ? AG_F64 : t; }
void ag__dtype_int_range(ag_dtype t, double *lo, double *hi) {
  *lo = t == AG_I32 ? -2147483648.0 : 0;
  *hi = t == AG_U8 ? 255 : t == AG_U16 ? 65535 : t == AG_U32 ? 4294967295.0 : 2147483647.0;
}

size_t ag_dtype_size(ag_dtype t) { return ag__dtype_valid(t) ? dtypes[t].size : 0; }
const char *ag_dtype_name(ag_dtype t) { return ag__dtype_valid(t) ? dtypes[t].name : "unknown"; }

/* ---- checks shared by the operations ---- */

ag_status ag__check_array(const char *fn, const char *name, const ag_array *a) {
  if (a == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, name);
  return AG_OK;
}

ag_status ag__check_same_device(const char *fn, const char *na, const ag_array *a, const char *nb,
                                const ag_array *b) {
  if (a->dev != b->dev)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is on %s but %s is on %s", fn, na, a->dev->info.spec, nb,
                     b->dev->info.spec);
  return AG_OK;
}

ag_status ag__check_same_dtype(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b) {
  if (a->dtype != b->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s but %s is %s", fn, na, ag_dtype_name(a->dtype), nb,
                     ag_dtype_name(b->dtype));
  return AG_OK;
}

/* "{2, 3}" */
static void shape_text(const ag_array *a, char *out, size_t size) {
  size_t n = (size_t)snprintf(out, size, "{");
  for (int d = 0; d < a->ndim && n < size; d++)
    n += (size_t)snprintf(out + n, size - n, "%s%zu", d ? ", " : "", a->shape[d]);
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
  shape_text(a, sa, sizeof sa);
  shape_text(b, sb, sizeof sb);
  return ag__error(AG_ERR_MISMATCH, "%s: %s has shape %s but %s has shape %s", fn, na, sa, nb, sb);
}

ag_status ag__check_fp64(const char *fn, ag_device *dev, ag_dtype t) {
  if (ag__dtype_is_f64(t) && !dev->info.fp64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s needs double precision, which %s (%s) lacks", fn,
                     ag_dtype_name(t), dev->info.spec, dev->info.name);
  return AG_OK;
}

ag_status ag__scalar_to(const char *fn, const char *what, double re, double im, ag_dtype t, void *out) {
  if (!ag__dtype_is_complex(t) && im != 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s has an imaginary part %g but the dtype %s is real", fn,
                     what, im, ag_dtype_name(t));
  if (ag__dtype_is_int(t)) {
    double lo, hi;
    ag__dtype_int_range(t, &lo, &hi);
    if (!(re >= lo && re <= hi) || re != floor(re))
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s = %g is not a value of %s (an integer in %.0f..%.0f)", fn,
                       what, re, ag_dtype_name(t), lo, hi);
  }
  switch (t) {
  case AG_U8:
    *(uint8_t *)out = (uint8_t)re;
    break;
  case AG_U16:
    *(uint16_t *)out = (uint16_t)re;
    break;
  case AG_U32:
    *(uint32_t *)out = (uint32_t)re;
    break;
  case AG_I32:
    *(int32_t *)out = (int32_t)re;
    break;
  case AG_F32:
    *(float *)out = (float)re;
    break;
  case AG_F64:
    *(double *)out = re;
    break;
  case AG_C64:
    ((float *)out)[0] = (float)re;
    ((float *)out)[1] = (float)im;
    break;
  case AG_C128:
    ((double *)out)[0] = re;
    ((double *)out)[1] = im;
    break;
  }
  return AG_OK;
}

/* ---- creation and views ---- */

static ag_status check_shape(const char *fn, ag_dtype t, int ndim, const size_t *shape, size_t *count) {
  if (!ag__dtype_valid(t))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t is %d, not an ag_dtype", fn, (int)t);
  if (ndim < 1 || ndim > AG_MAX_DIMS)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ndim is %d, not 1 to %d", fn, ndim, AG_MAX_DIMS);
  if (shape == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: shape is NULL", fn);
  /* As numpy: the lengths other than 0 must multiply into a byte count a size_t holds, even
     when a 0 makes the array empty, so that no view or export of it computes a length or a
     stride past SIZE_MAX. */
  size_t n = 1;
  bool empty = false;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] == 0)
      empty = true;
    else if (n > SIZE_MAX / shape[d])
      return ag__error(AG_ERR_OUT_OF_RANGE, "%s: shape[%d] = %zu makes the element count overflow", fn, d,
                       shape[d]);
    else
      n *= shape[d];
  }
  if (n > SIZE_MAX / dtypes[t].size)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: shape holds %zu elements of %s, which overflow the byte count", fn,
                     n, dtypes[t].name);
  *count = empty ? 0 : n;
  return AG_OK;
}

static ag_array *array_new(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, size_t count) {
  ag_array *a = calloc(1, sizeof *a);
  if (a == NULL)
    return NULL;
  a->dev = dev;
  a->dtype = t;
  a->ndim = ndim;
  memcpy(a->shape, shape, (size_t)ndim * sizeof *shape);
  a->size = count;
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
  ag_array *a = array_new(dev, t, ndim, shape, count);
  if (a == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  if (count > 0) {
    a->store = malloc(sizeof *a->store);
    if (a->store == NULL) {
      free(a);
      return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    st = ag_buffer_alloc(dev, count * dtypes[t].size, &a->store->buf);
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
  ag_array *a = array_new(buf->dev, t, ndim, shape, count);
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
    st = ag_buffer_write(NULL, a->store->buf, 0, data, a->size * dtypes[t].size);
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

static ag_status view_new(const char *fn, const ag_array *a, int ndim, const size_t *shape, size_t offset,
                          size_t count, ag_array **view) {
  ag_array *v = array_new(a->dev, a->dtype, ndim, shape, count);
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

ag_status ag_array_reshape(const ag_array *a, int ndim, const size_t *shape, ag_array **view) {
  static const char fn[] = "ag_array_reshape";
  AG__CHECK_NOT_NULL(fn, view);
  *view = NULL;
  AG__CHECK_NOT_NULL(fn, a);
  size_t count;
  ag_status st = check_shape(fn, a->dtype, ndim, shape, &count);
  if (st != AG_OK)
    return st;
  if (count != a->size)
    return ag__error(AG_ERR_MISMATCH, "%s: the new shape holds %zu elements but a holds %zu", fn, count, a->size);
  return view_new(fn, a, ndim, shape, a->offset, count, view);
}

ag_status ag_array_index(const ag_array *a, size_t i, ag_array **view) {
  static const char fn[] = "ag_array_index";
  AG__CHECK_NOT_NULL(fn, view);
  *view = NULL;
  AG__CHECK_NOT_NULL(fn, a);
  if (i >= a->shape[0])
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: i = %zu is not below the first dimension %zu", fn, i, a->shape[0]);
  static const size_t one = 1;
  const size_t *shape = a->ndim > 1 ? a->shape + 1 : &one;
  int ndim = a->ndim > 1 ? a->ndim - 1 : 1;
  size_t per = a->size / a->shape[0];
  return view_new(fn, a, ndim, shape, a->offset + i * per, per, view);
}

ag_status ag_array_slice(const ag_array *a, size_t start, size_t count, ag_array **view) {
  static const char fn[] = "ag_array_slice";
  AG__CHECK_NOT_NULL(fn, view);
  *view = NULL;
  AG__CHECK_NOT_NULL(fn, a);
  if (start > a->shape[0] || count > a->shape[0] - start)
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: start %zu + count %zu exceeds the first dimension %zu", fn, start,
                     count, a->shape[0]);
  size_t shape[AG_MAX_DIMS];
  memcpy(shape, a->shape, sizeof shape);
  shape[0] = count;
  size_t per = a->shape[0] ? a->size / a->shape[0] : 0;
  return view_new(fn, a, a->ndim, shape, a->offset + start * per, count * per, view);
}

/* ---- accessors ---- */

ag_dtype ag_array_dtype(const ag_array *a) { return a ? a->dtype : AG_U8; }
int ag_array_ndim(const ag_array *a) { return a ? a->ndim : 0; }
size_t ag_array_dim(const ag_array *a, int axis) {
  return a && axis >= 0 && axis < a->ndim ? a->shape[axis] : 0;
}
const size_t *ag_array_shape(const ag_array *a) { return a ? a->shape : NULL; }
size_t ag_array_size(const ag_array *a) { return a ? a->size : 0; }
size_t ag_array_nbytes(const ag_array *a) { return a ? a->size * dtypes[a->dtype].size : 0; }
ag_device *ag_array_device(const ag_array *a) { return a ? a->dev : NULL; }

ag_buffer *ag_array_buffer(const ag_array *a, size_t *offset) {
  if (offset != NULL)
    *offset = a && a->store ? a->offset * dtypes[a->dtype].size : 0;
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
  return ag__prefix(ag__buffer_read_after_last(a->store->buf, a->offset * dtypes[a->dtype].size, data, need), fn);
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
  if ((st = ag__check_array(fn, "x", x)) != AG_OK || (st = ag__check_array(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_shape(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (x->size == 0 || (x->store == out->store && x->offset == out->offset))
    return AG_OK;
  size_t es = dtypes[x->dtype].size;
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
  size_t es = dtypes[a->dtype].size;
  return ag__prefix(ag_buffer_fill(q, a->store->buf, a->offset * es, pattern, es, a->size * es), fn);
}

ag_status ag_fill(ag_queue *q, ag_array *a, double value) { return fill("ag_fill", q, a, value, 0); }

ag_status ag_fill_complex(ag_queue *q, ag_array *a, double re, double im) {
  return fill("ag_fill_complex", q, a, re, im);
}
