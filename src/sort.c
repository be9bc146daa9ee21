/* src/sort.c - stable sorts along an axis (ag_sort, ag_argsort): the sort family's radix sort
   (kernels_shared/sort.h) over x's rows along the axis, one pass of 8 bits per byte of the
   dtype, each pass's offsets an inclusive scan of its digit counts (ag_cumulative_sum). */
#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/sort.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_keys, AG_SHAPE_SORT_KEYS)
AG__SHAPE_LAUNCHER(launch_values, AG_SHAPE_SORT_VALUES)
AG__SHAPE_LAUNCHER(launch_place, AG_SHAPE_SORT_PLACE)
AG__SHAPE_LAUNCHER(launch_hist, AG_SHAPE_RADIX_HIST)
AG__SHAPE_LAUNCHER(launch_scatter, AG_SHAPE_RADIX_SCATTER)
AG__SHAPE_LAUNCHER(launch_small, AG_SHAPE_SORT_SMALL)

/* The digit counts of a batch of rows are at most this many bytes. */
#define TABLE_BYTES ((uint64_t)32 << 20)

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Pieces per row for the passes: enough items to occupy the device (CPU devices: 4 per compute
   unit, pieces of at least 16384 keys; GPUs: 64 per compute unit, pieces of at least 2048), so
   short enough for a device that ends long loops early (each piece's loop within half its
   limit). */
static uint64_t pieces(const ag_device *dev, uint64_t rows, uint64_t len) {
  bool cpu = dev->traits.launch != AG__LAUNCH_GRID;
  uint64_t units = dev->info.compute_units > 0 ? (uint64_t)dev->info.compute_units : 1;
  uint64_t target = cpu ? units * 4 : units * 64, least = cpu ? 16384 : 2048;
  uint64_t p = rows >= target ? 1 : min_u64(ceil_div(target, rows), max_u64(len / least, 1));
  uint64_t limit = dev->info.max_loop_iterations;
  if (limit != 0)
    p = max_u64(p, ceil_div(len * 2, limit));
  return min_u64(p, len);
}

/* The radix passes over keys[rows][len] (key width @p bits), leaving the sorted keys (and with
   @p idx their indices) in *keys and *idx: each pass moves them into the other buffer of each
   pair, which is swapped in. */
static ag_status passes(const char *fn, ag_queue *q, ag_device *dev, ag_dtype kt, unsigned bits, uint64_t rows,
                        uint64_t len, ag_buffer **keys, ag_buffer **keys2, ag_buffer **idx, ag_buffer **idx2) {
  uint64_t parts = pieces(dev, rows, len);
  uint64_t width = 256 * parts, batch = max_u64(1, min_u64(rows, TABLE_BYTES / 8 / width));
  ag_array *counts = NULL, *ends = NULL, *cv = NULL, *ev = NULL;
  ag_status st = ag_array_create(dev, AG_U64, 2, (const size_t[]){batch, width}, &counts);
  if (st != AG_OK)
    goto done;
  st = ag_array_create(dev, AG_U64, 2, (const size_t[]){batch, width}, &ends);
  if (st != AG_OK)
    goto done;
  uint64_t last = rows % batch;
  if (last != 0) { /* the last batch's rows of the tables */
    const ag_index first[2] = {ag_slice(0, (int64_t)last, 1), ag_all()};
    st = ag_array_view(counts, 2, first, &cv);
    if (st != AG_OK)
      goto done;
    st = ag_array_view(ends, 2, first, &ev);
    if (st != AG_OK)
      goto done;
  }
  for (unsigned shift = 0; shift < bits; shift += 8) {
    for (uint64_t row0 = 0; row0 < rows; row0 += batch) {
      uint64_t nb = min_u64(batch, rows - row0);
      ag__launch h = {.fn = fn, .q = q, .dev = dev, .kernel = AG_K_RADIX_HIST + (int)kt, .n = nb * parts};
      st = AG__LAUNCH(launch_hist, &h, .keys = *keys, .counts = counts->store->buf, .len = len, .row0 = row0,
                      .parts = parts, .shift = shift);
      if (st != AG_OK)
        goto done;
      const ag_array *c = nb < batch ? cv : counts;
      ag_array *e = nb < batch ? ev : ends;
      st = ag__prefix(ag_cumulative_sum(q, c, 1, e), fn);
      if (st != AG_OK)
        goto done;
      ag__launch s = {.fn = fn, .q = q, .dev = dev, .kernel = AG_K_RADIX_SCATTER + (int)kt, .n = nb * parts};
      st = AG__LAUNCH(launch_scatter, &s, .keys = *keys, .keys_out = *keys2, .idx = *idx ? *idx : *keys,
                      .idx_out = *idx2 ? *idx2 : *keys2, .counts = counts->store->buf, .ends = ends->store->buf,
                      .len = len, .row0 = row0, .parts = parts, .shift = shift, .with_idx = *idx != NULL);
      if (st != AG_OK)
        goto done;
    }
    ag_buffer *t = *keys;
    *keys = *keys2;
    *keys2 = t;
    t = *idx;
    *idx = *idx2;
    *idx2 = t;
  }
done:
  ag_array_free(cv);
  ag_array_free(ev);
  ag_array_free(counts);
  ag_array_free(ends);
  return st;
}

/* ag_sort (@p arg false) and ag_argsort. */
static ag_status sort(const char *fn, ag_queue *q, const ag_array *x, int axis, bool descending, bool arg,
                      ag_array *out) {
  ag_status st = ag__check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  if (ag__dtype_is_complex(x->dtype))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is %s; %s orders real numbers and bool", fn, ag_dtype_name(x->dtype),
                     fn);
  if (arg && out->dtype != AG_I64)
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s; the indices are i64", fn, ag_dtype_name(out->dtype));
  if (!arg) {
    st = ag__check_same_dtype(fn, "x", x, "out", out);
    if (st != AG_OK)
      return st;
  }
  st = ag__check_along(fn, x, out, &axis);
  if (st != AG_OK || x->size == 0)
    return st;
  ag_device *dev = x->dev;
  ag_queue *rq;
  st = ag__queue_resolve(fn, q, dev, &rq);
  if (st != AG_OK)
    return st;
  uint64_t len = x->shape[axis], inner = 1;
  for (int d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  uint64_t rows = x->size / len;
  unsigned bits = 8u * (unsigned)ag_dtype_size(x->dtype);
  ag_dtype kt = bits == 64 ? AG_U64 : AG_U32; /* the keys' type, and the passes' kernels */
  size_t ks = bits == 64 ? 8 : 4;
  ag_u32 flags = (descending ? 1u : 0u) | (arg ? 2u : 0u);
  bool small = len <= AG_SORT_SMALL;
  ag_buffer *keys = NULL, *keys2 = NULL, *idx = NULL, *idx2 = NULL;
  st = ag_buffer_alloc(dev, x->size * ks, &keys);
  if (st != AG_OK)
    goto done;
  if (!small) {
    st = ag_buffer_alloc(dev, x->size * ks, &keys2);
    if (st != AG_OK)
      goto done;
  }
  if (arg) {
    st = ag_buffer_alloc(dev, x->size * 8, &idx);
    if (st != AG_OK)
      goto done;
    if (!small) {
      st = ag_buffer_alloc(dev, x->size * 8, &idx2);
      if (st != AG_OK)
        goto done;
    }
  }
  ag__launch k = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SORT_KEYS + (int)x->dtype, .n = x->size};
  st = AG__LAUNCH(launch_keys, &k, .x = x, .keys = keys, .idx = idx ? idx : keys, .len = len, .inner = inner,
                  .flags = flags);
  if (st != AG_OK)
    goto done;
  if (small) {
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SORT_SMALL + (int)kt, .n = rows};
    st = AG__LAUNCH(launch_small, &l, .keys = keys, .idx = idx ? idx : keys, .len = len, .with_idx = arg);
  } else {
    st = passes(fn, rq, dev, kt, bits, rows, len, &keys, &keys2, &idx, &idx2);
  }
  if (st != AG_OK)
    goto done;
  if (arg) {
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SORT_PLACE + (int)AG_U64, .n = x->size};
    st = AG__LAUNCH(launch_place, &l, .idx = idx, .out = out, .len = len, .inner = inner);
  } else {
    ag__launch l = {.fn = fn, .q = rq, .dev = dev, .kernel = AG_K_SORT_VALUES + (int)x->dtype, .n = x->size};
    st = AG__LAUNCH(launch_values, &l, .keys = keys, .out = out, .len = len, .inner = inner, .flags = flags);
  }
done: /* back to the pool once the queue has passed the last launch */
  ag_buffer_free(keys);
  ag_buffer_free(keys2);
  ag_buffer_free(idx);
  ag_buffer_free(idx2);
  return st;
}

ag_status ag_sort(ag_queue *q, const ag_array *x, int axis, bool descending, ag_array *out) {
  return sort("ag_sort", q, x, axis, descending, false, out);
}

ag_status ag_argsort(ag_queue *q, const ag_array *x, int axis, bool descending, ag_array *out) {
  return sort("ag_argsort", q, x, axis, descending, true, out);
}
