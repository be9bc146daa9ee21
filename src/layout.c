/* src/layout.c - arrays of any layout: copies between two layouts (the layout family's
   kernels, kernels_shared/layout.h), contiguous stand-ins for views, and host reads of views. */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "launch.h"

void ag__walk_of(int nops, const ag_array *const *ops, uint64_t w[AG_ND_WORDS]) {
  const ag_array *a = ops[0];
  uint64_t shape[AG_ND_DIMS] = {0};
  int64_t strides[AG_ND_OPS][AG_ND_DIMS] = {{0}};
  int nd = 0;
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] == 1)
      continue;
    bool merge = nd > 0;
    for (int k = 0; merge && k < nops; k++)
      merge = strides[k][nd - 1] == (int64_t)ops[k]->strides[d] * (int64_t)a->shape[d];
    if (merge) {
      shape[nd - 1] *= a->shape[d];
      for (int k = 0; k < nops; k++)
        strides[k][nd - 1] = ops[k]->strides[d];
      continue;
    }
    shape[nd] = a->shape[d];
    for (int k = 0; k < nops; k++)
      strides[k][nd] = ops[k]->strides[d];
    nd++;
  }
  if (nd == 0) /* one element */
    shape[nd++] = 1;
  w[0] = (uint64_t)nd;
  for (int d = 0; d < AG_ND_DIMS; d++) {
    w[1 + d] = shape[d];
    for (int k = 0; k < AG_ND_OPS; k++)
      w[1 + AG_ND_DIMS + AG_ND_DIMS * k + d] = (uint64_t)strides[k][d];
  }
}

/* Whether the operands of walk @p w step along different axes: one of them far along its last,
   and the last two axes long enough to make tiles of. */
static bool walk_steps_apart(int nops, const uint64_t w[AG_ND_WORDS]) {
  int nd = (int)w[0];
  for (int k = 0; k < nops; k++) {
    int64_t s = (int64_t)w[1 + AG_ND_DIMS + AG_ND_DIMS * k + nd - 1];
    if (s > 1 || s < -1)
      return w[nd] >= AG_TILE_MIN && w[nd - 1] >= AG_TILE_MIN;
  }
  return false;
}

uint64_t ag__walk_tiles(const ag_device *dev, int nops, const uint64_t w[AG_ND_WORDS], size_t elem_size) {
  int nd = (int)w[0];
  if (dev->traits.launch == AG__LAUNCH_GRID || nd < 2 || !walk_steps_apart(nops, w))
    return 0;
  uint64_t edge = AG_TILE_STAGED_OF(elem_size);
  uint64_t items = ((w[nd - 1] + edge - 1) / edge) * ((w[nd] + edge - 1) / edge);
  for (int d = 0; d < nd - 2; d++)
    items *= w[1 + d];
  return items;
}

ag_status ag__copy_layout(const char *fn, ag_queue *q, const ag_array *x, ag_array *out) {
  if (x->size == 0)
    return AG_OK;
  /* By element size: ag_copy_nd_1 .. _16 and ag_copy_tiles_1 .. _16. */
  static const ag__kernel_id walks[] = {AG_K_COPY_ND_1, AG_K_COPY_ND_2, AG_K_COPY_ND_4, AG_K_COPY_ND_8,
                                        AG_K_COPY_ND_16};
  static const ag__kernel_id tiles[] = {AG_K_COPY_TILES_1, AG_K_COPY_TILES_2, AG_K_COPY_TILES_4,
                                        AG_K_COPY_TILES_8, AG_K_COPY_TILES_16};
  size_t es = ag_dtype_size(x->dtype);
  int which = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : es == 8 ? 3 : 4;
  uint64_t w[AG_ND_WORDS];
  ag__walk_of(2, (const ag_array *const[]){x, out}, w);
  ag__op_arg args[2 + AG_ND_WORDS] = {
      {.param = "x", .kind = AG__PARAM_ARRAY, .array = x},
      {.param = "out", .kind = AG__PARAM_ARRAY, .array = out},
  };
  for (int k = 0; k < AG_ND_WORDS; k++)
    args[2 + k] = (ag__op_arg){.param = "the walk", .kind = AG__PARAM_VALUE, .value = {&w[k], sizeof w[k]}};
  ag__launch l = {.fn = fn, .q = q, .dev = x->dev, .kernel = walks[which], .n = x->size};
  uint64_t items = ag__walk_tiles(x->dev, 2, w, es);
  if (items > 0) {
    l.kernel = tiles[which];
    l.n = items;
  }
  return ag__launch_kernel(&l, sizeof args / sizeof args[0], args);
}

ag_status ag__stand_in(const char *fn, ag_queue *q, const ag_array *a, bool fill, ag_array **out) {
  ag_array *c;
  ag_status st = ag_array_create(a->dev, a->dtype, a->ndim, a->shape, &c);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  if (fill) {
    st = ag__copy_layout(fn, q, a, c);
    if (st != AG_OK) {
      ag_array_free(c);
      return st;
    }
  }
  *out = c;
  return AG_OK;
}

ag_status ag__check_writable(const char *fn, const char *name, const ag_array *a) {
  for (int d = 0; d < a->ndim; d++)
    if (a->strides[d] == 0 && a->shape[d] > 1)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is a broadcast view, whose elements repeat: it cannot be "
                       "written", fn, name);
  return AG_OK;
}

/* The lowest and highest element offsets of @p a in its buffer. */
static void span_of(const ag_array *a, int64_t *lo, int64_t *hi) {
  *lo = *hi = (int64_t)a->offset;
  for (int d = 0; d < a->ndim; d++) {
    int64_t reach = (int64_t)(a->shape[d] - 1) * a->strides[d];
    if (reach < 0)
      *lo += reach;
    else
      *hi += reach;
  }
}

bool ag__spans_meet(const ag_array *a, const ag_array *b) {
  if (a->store == NULL || a->store != b->store)
    return false;
  int64_t alo, ahi, blo, bhi;
  span_of(a, &alo, &ahi);
  span_of(b, &blo, &bhi);
  return alo <= bhi && blo <= ahi;
}

ag_status ag__read_view(const char *fn, const ag_array *a, void *data) {
  size_t es = ag_dtype_size(a->dtype);
  int64_t lo, hi;
  span_of(a, &lo, &hi);
  size_t bytes = (size_t)(hi - lo + 1) * es;
  unsigned char *span = malloc(bytes);
  if (span == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for the %zu bytes a view spans", fn, bytes);
  ag_status st = ag__buffer_read_after_last(a->store->buf, (size_t)lo * es, span, bytes);
  if (st != AG_OK) {
    free(span);
    return ag__prefix(st, fn);
  }
  /* The kernels' own walk (kernels_shared/nd.h), run here on the host: a into a dense copy of
     its shape, rows of elements back to back copied in one stretch. */
  ag_array dense = *a;
  ptrdiff_t step = 1;
  for (int d = a->ndim - 1; d >= 0; d--) {
    dense.strides[d] = step;
    step *= (ptrdiff_t)a->shape[d];
  }
  uint64_t w[AG_ND_WORDS];
  ag__walk_of(2, (const ag_array *const[]){a, &dense}, w);
  const unsigned char *src = span + ((int64_t)a->offset - lo) * (int64_t)es;
  unsigned char *dst = data;
  AG_ND_RUN(w, 0, (uint64_t)a->size, memcpy(dst + i1 * (int64_t)es, src + i0 * (int64_t)es, es))
  free(span);
  return AG_OK;
}
