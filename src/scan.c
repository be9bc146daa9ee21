/* src/scan.c - cumulative sums along an axis (ag_cumulative_sum): the scan family's three passes
   (kernels_shared/scan.h) over x as [outer][len][inner], through contiguous stand-ins for
   views. */
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/scan.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_parts, AG_SHAPE_SCAN_PARTS)
AG__SHAPE_LAUNCHER(launch_carry, AG_SHAPE_SCAN_CARRY)
AG__SHAPE_LAUNCHER(launch_apply, AG_SHAPE_SCAN_APPLY)

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* How the axis is cut: the inner indices an item takes (cols) and the pieces of each output's
   axis (parts). CPU devices: blocks of up to AG_SCOLS columns, and enough pieces of at least
   4096 rows to give every core work; GPUs: one column an item and up to 1024 pieces, enough
   items to fill the device. On a device that ends long loops early, pieces short enough for
   its limit (the walk's two loops count). */
static void cut(const ag_device *dev, uint64_t outer, uint64_t len, uint64_t inner, uint64_t *cols, uint64_t *parts) {
  bool cpu = dev->traits.launch != AG__LAUNCH_GRID;
  uint64_t units = dev->info.compute_units > 0 ? (uint64_t)dev->info.compute_units : 1;
  *cols = cpu ? min_u64(inner, AG_SCOLS) : 1;
  uint64_t items = outer * ceil_div(inner, *cols);
  uint64_t target = cpu ? units * 4 : units * 2048, rows = cpu ? 4096 : 64;
  uint64_t p = items >= target ? 1 : min_u64(ceil_div(target, items), max_u64(len / rows, 1));
  if (!cpu)
    p = min_u64(p, 1024);
  uint64_t limit = dev->info.max_loop_iterations;
  if (limit != 0)
    p = max_u64(p, ceil_div(len * (*cols + 1) * 2, limit));
  *parts = max_u64(min_u64(p, len), 1);
}

static ag_status scan_contiguous(const char *fn, ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  uint64_t outer = 1, len = x->shape[axis], inner = 1;
  for (int d = 0; d < axis; d++)
    outer *= x->shape[d];
  for (int d = axis + 1; d < x->ndim; d++)
    inner *= x->shape[d];
  ag_device *dev = x->dev;
  uint64_t cols, parts;
  cut(dev, outer, len, inner, &cols, &parts);
  ag_buffer *part = NULL;
  ag_status st = ag_buffer_alloc(dev, outer * parts * inner * ag_dtype_size(x->dtype), &part);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  uint64_t items = outer * parts * ceil_div(inner, cols);
  if (parts > 1) {
    ag__launch l = {.fn = fn, .q = q, .dev = dev, .kernel = AG_K_SCAN_PARTS + (int)x->dtype, .n = items};
    st = AG__LAUNCH(launch_parts, &l, .x = x, .len = len, .inner = inner, .parts = parts, .cols = cols, .part = part);
    if (st != AG_OK)
      goto done;
    ag__launch c = {.fn = fn, .q = q, .dev = dev, .kernel = AG_K_SCAN_CARRY + (int)x->dtype, .n = outer * inner};
    st = AG__LAUNCH(launch_carry, &c, .part = part, .parts = parts, .inner = inner);
    if (st != AG_OK)
      goto done;
  }
  ag__launch a = {.fn = fn, .q = q, .dev = dev, .kernel = AG_K_SCAN_APPLY + (int)x->dtype, .n = items};
  st = AG__LAUNCH(launch_apply, &a, .x = x, .out = out, .len = len, .inner = inner, .parts = parts, .cols = cols,
                  .part = part);
done:
  ag_buffer_free(part); /* back to the pool once the queue has passed the last pass */
  return st;
}

ag_status ag_cumulative_sum(ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  static const char fn[] = "ag_cumulative_sum";
  ag_status st = ag__check_x_out(fn, x, out);
  if (st != AG_OK)
    return st;
  if (x->dtype == AG_BOOL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is bool; ag_astype it to an integer first", fn);
  st = ag__check_same_dtype(fn, "x", x, "out", out);
  if (st != AG_OK)
    return st;
  st = ag__check_along(fn, x, out, &axis);
  if (st != AG_OK || x->size == 0)
    return st;
  ag_queue *rq;
  st = ag__queue_resolve(fn, q, x->dev, &rq);
  if (st != AG_OK)
    return st;
  bool same = x->store == out->store && x->offset == out->offset &&
              memcmp(x->strides, out->strides, sizeof x->strides) == 0;
  if (x->contiguous && out->contiguous && (same || !ag__spans_meet(x, out)))
    return scan_contiguous(fn, rq, x, axis, out);
  /* Views, or operands that share memory: in place in a contiguous copy of x, copied into out. */
  ag_array *xs = NULL;
  st = ag__stand_in(fn, rq, x, true, &xs);
  if (st != AG_OK)
    return st;
  st = scan_contiguous(fn, rq, xs, axis, xs);
  if (st != AG_OK)
    goto done;
  st = ag__prefix(ag_copy(rq, xs, out), fn);
done:
  ag_array_free(xs);
  return st;
}
