/* src/reduce.c - reductions over all elements or along one axis: sum, prod, mean, min, max,
   argmin, argmax, dot and nrm2. Checks, then one or two launches of the "reduce" family's kernels
   ag_<op>_<in>_<out>_{cols,colw,rows,merge} (kernels_shared/reduce.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/reduce.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_cols, AG_SHAPE_REDUCE_COLS)
AG__SHAPE_LAUNCHER(launch_rows, AG_SHAPE_REDUCE_ROWS)
AG__SHAPE_LAUNCHER(launch_merge, AG_SHAPE_REDUCE_MERGE)

enum { STATE_BYTES = 32 }; /* the most a reduction state takes (kernels_shared/reduce.h) */

typedef enum red_op { R_SUM, R_MEAN, R_MIN, R_MAX, R_ARGMIN, R_ARGMAX, R_DOT, R_NRM2, R_PROD } red_op;

/* The kernels of one operation writing one dtype (ag_<op>_<in>_<out>_{cols,colw,rows,merge}),
   each to be offset by the input's dtype. */
typedef struct red_kernels {
  ag__kernel_id cols, colw, rows, merge;
} red_kernels;
#define RK(OP, OUT)                                                                                \
  {AG_K_##OP##_##OUT##_COLS, AG_K_##OP##_##OUT##_COLW, AG_K_##OP##_##OUT##_ROWS, AG_K_##OP##_##OUT##_MERGE}
#define SUMS(OP) {[AG_U32] = RK(OP, U32), [AG_I32] = RK(OP, I32), [AG_U64] = RK(OP, U64), \
                  [AG_I64] = RK(OP, I64), [AG_F32] = RK(OP, F32), [AG_F64] = RK(OP, F64), \
                  [AG_C64] = RK(OP, C64), [AG_C128] = RK(OP, C128)}
#define EXTREMES(OP) {[AG_U8] = RK(OP, U8), [AG_U16] = RK(OP, U16), [AG_U32] = RK(OP, U32), \
                      [AG_U64] = RK(OP, U64), [AG_I8] = RK(OP, I8), [AG_I16] = RK(OP, I16), \
                      [AG_I32] = RK(OP, I32), [AG_I64] = RK(OP, I64), [AG_F32] = RK(OP, F32), \
                      [AG_F64] = RK(OP, F64)}

/* Each operation's function, its kernels by the dtype they write (out_dtype_ok's kernel_out)
   and its result in words. */
static const struct {
  const char *fn;
  red_kernels kernels[AG_DTYPE_COUNT];
  const char *what;
} red_ops[] = {
    [R_SUM] = {"ag_sum", SUMS(SUM), "sum"},
    [R_MEAN] = {"ag_mean", SUMS(SUM), "mean"},
    [R_MIN] = {"ag_min", EXTREMES(MIN), "min"},
    [R_MAX] = {"ag_max", EXTREMES(MAX), "max"},
    [R_ARGMIN] = {"ag_argmin", {[AG_U32] = RK(ARGMIN, U32), [AG_I64] = RK(ARGMIN, I64)}, "argmin"},
    [R_ARGMAX] = {"ag_argmax", {[AG_U32] = RK(ARGMAX, U32), [AG_I64] = RK(ARGMAX, I64)}, "argmax"},
    [R_DOT] = {"ag_dot", SUMS(DOT), "dot"},
    [R_NRM2] = {"ag_nrm2", {[AG_F32] = RK(NRM2, F32), [AG_F64] = RK(NRM2, F64)}, "nrm2"},
    [R_PROD] = {"ag_prod",
                {[AG_U64] = RK(PROD, U64), [AG_I64] = RK(PROD, I64), [AG_F32] = RK(PROD, F32),
                 [AG_F64] = RK(PROD, F64), [AG_C64] = RK(PROD, C64), [AG_C128] = RK(PROD, C128)},
                "product"},
};

/* The output dtypes an operation allows for input dtype @p t, and the one its kernel writes
   (argmin's u32 kernel also serves i32 outputs). Integer sums come out in 32 or 64 bits of the
   input's signedness (64: the array API's accumulator type), or a float. Returns false when
   @p out is not allowed, with the allowed ones in words in @p allowed. */
static bool out_dtype_ok(red_op op, ag_dtype t, ag_dtype out, ag_dtype *kernel_out, const char **allowed) {
  bool is_int = ag__dtype_is_int(t), is_unsigned = ag__dtype_is_unsigned(t);
  ag_dtype int32_out = is_unsigned ? AG_U32 : AG_I32, int64_out = is_unsigned ? AG_U64 : AG_I64;
  *kernel_out = out;
  switch (op) {
  case R_SUM:
  case R_DOT:
    *allowed = is_int ? (is_unsigned ? "u64, u32, f32 or f64" : "i64, i32, f32 or f64") : "x's dtype";
    return is_int ? out == int32_out || out == int64_out || out == AG_F32 || out == AG_F64 : out == t;
  case R_PROD:
    *allowed = is_int ? (is_unsigned ? "u64" : "i64") : "x's dtype";
    return is_int ? out == int64_out : out == t;
  case R_MEAN:
    *allowed = is_int ? "f32 or f64" : "x's dtype";
    return is_int ? out == AG_F32 || out == AG_F64 : out == t;
  case R_MIN:
  case R_MAX:
    *allowed = "x's dtype";
    return out == t;
  case R_ARGMIN:
  case R_ARGMAX:
    *allowed = "i64, u32 or i32";
    *kernel_out = out == AG_I64 ? AG_I64 : AG_U32;
    return out == AG_I64 || out == AG_U32 || out == AG_I32;
  case R_NRM2:
    *allowed = "the real dtype of x's precision";
    return out == ag__dtype_real(t);
  }
  return false;
}

/* The result of a sum, product or mean over no elements. */
static double empty_value(red_op op) { return op == R_MEAN ? NAN : op == R_PROD ? 1 : 0; }

/* How the reduction is cut (see kernels_shared/reduce.h): rows, cols or colw, into how many
   parts per output, over which range. */
typedef struct plan {
  bool rows, colw;
  uint64_t parts;
  ag_range range;       /* of the first launch */
  ag_range merge_range; /* of the merge, when parts > 1 */
} plan;

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* GPUs read long contiguous rows a work-group per stretch (_rows); everything else one
   work-item per stretch (_cols). */
static bool use_rows(const ag_device *dev, uint64_t len, uint64_t inner) {
  return dev->traits.launch == AG__LAUNCH_GRID && inner == 1 && len >= 1024;
}

/* CPU devices read outputs that lie side by side (inner > 1) AG_RCOLS at a time (_colw). */
static bool use_colw(const ag_device *dev, uint64_t inner) {
  return dev->traits.launch != AG__LAUNCH_GRID && inner > 1;
}

/* @p max_wg is the limit of the kernel the plan launches first. */
static void make_plan(const ag_device *dev, size_t max_wg, uint64_t outer, uint64_t len, uint64_t inner, plan *p) {
  memset(p, 0, sizeof *p);
  p->range.dims = p->merge_range.dims = 1;
  p->rows = use_rows(dev, len, inner);
  p->colw = use_colw(dev, inner);
  uint64_t units = dev->info.compute_units > 0 ? (uint64_t)dev->info.compute_units : 1;
  uint64_t outputs = outer * inner;
  /* _rows steps through a piece a work-group at a time; _cols a block of AG_RBLOCK (256)
     elements at a time, then a tail. On a device that ends long loops early, pieces are cut
     short enough that no loop runs past the limit. */
  uint64_t wg = 256;
  while (wg > max_wg && wg > 1)
    wg /= 2;
  uint64_t limit = dev->info.max_loop_iterations;
  /* _colw's loops over its outputs count towards the limit too (AG_RCOLS steps a row, and
     three more such loops): its pieces take at most half the limit in rows. */
  uint64_t least_parts = limit == 0  ? 1
                         : p->colw ? ceil_div(len * AG_RCOLS, limit / 2)
                                   : ceil_div(len, limit * (p->rows ? wg : 256));
  if (dev->traits.launch != AG__LAUNCH_GRID) {
    /* CPUs: one sequential pass per work-item; enough items to keep every core busy, each
       with a long stretch (at least 4096 elements). */
    bool items = dev->traits.launch == AG__LAUNCH_ITEMS;
    uint64_t tasks = units * (items ? 4 : 16);
    uint64_t per_piece = p->colw ? outer * ceil_div(inner, AG_RCOLS) : outputs;
    p->parts = per_piece >= tasks ? 1 : min_u64(ceil_div(tasks, per_piece), len / 4096 > 0 ? len / 4096 : 1);
    p->parts = max_u64(p->parts, least_parts);
    uint64_t cpu_wg = items ? 0 : min_u64(16, max_wg);
    p->range.global[0] = per_piece * p->parts;
    p->range.local[0] = cpu_wg;
    p->merge_range.global[0] = outputs;
    p->merge_range.local[0] = cpu_wg;
    return;
  }
  /* GPUs: a work-group per stretch of a contiguous row when rows are long; otherwise one
     work-item per output (coalesced along the inner axis), cut into parts when there are too
     few outputs to fill the device. */
  if (p->rows) {
    uint64_t groups = units * 8;
    p->parts = outer >= groups ? 1 : min_u64(min_u64(ceil_div(groups, outer), ceil_div(len, 2048)), 1024);
    p->parts = max_u64(p->parts, least_parts);
    p->range.global[0] = outer * p->parts * wg;
    p->range.local[0] = wg;
  } else {
    uint64_t target = units * 2048;
    p->parts = outputs >= target ? 1 : min_u64(min_u64(ceil_div(target, outputs), len / 64 > 0 ? len / 64 : 1), 1024);
    p->parts = max_u64(p->parts, least_parts);
    p->range.global[0] = outputs * p->parts;
    p->range.local[0] = wg;
  }
  p->merge_range.global[0] = outputs;
  p->merge_range.local[0] = wg;
}

static ag_status reduce_contiguous(red_op op, ag_queue *q, const ag_array *x, const ag_array *y, int axis,
                                   ag_array *out) {
  const char *fn = red_ops[op].fn;
  ag_status st;
  if ((st = ag__check_array(fn, "x", x)) != AG_OK || (op == R_DOT && (st = ag__check_array(fn, "y", y)) != AG_OK) ||
      (st = ag__check_array(fn, "out", out)) != AG_OK || (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (op == R_DOT && ((st = ag__check_same_device(fn, "x", x, "y", y)) != AG_OK ||
                      (st = ag__check_same_dtype(fn, "x", x, "y", y)) != AG_OK ||
                      (st = ag__check_same_shape(fn, "x", x, "y", y)) != AG_OK))
    return st;
  bool real_only = op == R_MIN || op == R_MAX || op == R_ARGMIN || op == R_ARGMAX;
  if ((real_only && ag__dtype_is_complex(x->dtype)) || (op == R_NRM2 && ag__dtype_is_int(x->dtype)) ||
      x->dtype == AG_BOOL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is %s, which %s does not take (it takes %s)", fn,
                     ag_dtype_name(x->dtype), fn,
                     op == R_NRM2 ? "f32, f64, c64 and c128"
                     : real_only  ? "the real numeric dtypes"
                                  : "the numeric dtypes; ag_astype bool to an integer first");
  if (axis != AG_AXIS_ALL && (axis < 0 || axis >= x->ndim))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: axis is %d; x has %d dimensions (use 0 to %d, or AG_AXIS_ALL)",
                     fn, axis, x->ndim, x->ndim - 1);
  ag_dtype kout;
  const char *allowed;
  if (!out_dtype_ok(op, x->dtype, out->dtype, &kout, &allowed))
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s, but for x of %s it must be %s", fn, ag_dtype_name(out->dtype),
                     ag_dtype_name(x->dtype), allowed);
  if ((st = ag__check_fp64(fn, x->dev, x->dtype)) != AG_OK || (st = ag__check_fp64(fn, x->dev, out->dtype)) != AG_OK)
    return st;

  /* x as [outer][len][inner]; out must have x's shape without the axis ({1} if none left). */
  uint64_t outer = 1, len = 1, inner = 1;
  size_t shape[AG_MAX_DIMS];
  int nd = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (axis == AG_AXIS_ALL || d == axis)
      len *= x->shape[d];
    else {
      shape[nd++] = x->shape[d];
      if (d < axis)
        outer *= x->shape[d];
      else
        inner *= x->shape[d];
    }
  }
  if (nd == 0)
    shape[nd++] = 1;
  bool same = nd == out->ndim;
  for (int d = 0; same && d < nd; d++)
    same = shape[d] == out->shape[d];
  if (!same)
    return ag__error(AG_ERR_MISMATCH, "%s: out must have x's shape without axis %d%s", fn, axis,
                     axis == AG_AXIS_ALL ? " (AG_AXIS_ALL: shape {1})" : "");
  if ((op == R_ARGMIN || op == R_ARGMAX) && out->dtype != AG_I64 &&
      len > (out->dtype == AG_I32 ? 2147483647ull : 4294967295ull))
    return ag__error(AG_ERR_OUT_OF_RANGE, "%s: %llu elements along the axis: an index would not fit in %s", fn,
                     (unsigned long long)len, ag_dtype_name(out->dtype));
  if (out->size == 0)
    return AG_OK;
  if (len == 0) {
    /* An empty axis: sums are 0, products 1 and means NaN, as in numpy; extremes do not
       exist. */
    if (op == R_MIN || op == R_MAX || op == R_ARGMIN || op == R_ARGMAX)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x has no elements along the axis, so there is no %s", fn,
                       red_ops[op].what);
    return ag__prefix(ag_fill(q, out, empty_value(op)), fn);
  }

  ag_device *dev = x->dev;
  ag_queue *rq;
  if ((st = ag__queue_resolve(fn, q, dev, &rq)) != AG_OK)
    return st;
  const red_kernels *rk = &red_ops[op].kernels[kout];
  ag__launch l = {.fn = fn, .q = rq, .dev = dev,
                  .kernel = (use_rows(dev, len, inner) ? rk->rows : use_colw(dev, inner) ? rk->colw : rk->cols) +
                            x->dtype};
  size_t max_wg;
  if ((st = ag__launch_max_work_group(&l, &max_wg)) != AG_OK)
    return st;
  plan p;
  make_plan(dev, max_wg, outer, len, inner, &p);
  ag_buffer *part = NULL;
  if (p.parts > 1 && (st = ag_buffer_alloc(dev, outer * p.parts * inner * STATE_BYTES, &part)) != AG_OK)
    return ag__prefix(st, fn);

  /* When there is one part, outputs are written directly and the kernel never touches part. */
  const ag_array *yy = op == R_DOT ? y : x;
  uint64_t parts = p.parts;
  ag_buffer *pbuf = part != NULL ? part : out->store->buf;
  l.range = &p.range;
  l.n = outer * parts * (p.rows ? 1 : p.colw ? ceil_div(inner, AG_RCOLS) : inner);
  if (p.rows)
    st = AG__LAUNCH(launch_rows, &l, .x = x, .y = yy, .len = len, .parts = parts, .part = pbuf, .out = out);
  else
    st = AG__LAUNCH(launch_cols, &l, .x = x, .y = yy, .len = len, .inner = inner, .parts = parts, .part = pbuf,
                    .out = out);
  if (st == AG_OK && p.parts > 1) {
    ag__launch m = {.fn = fn, .q = rq, .dev = dev, .kernel = rk->merge + x->dtype, .range = &p.merge_range,
                    .n = outer * inner};
    st = AG__LAUNCH(launch_merge, &m, .part = part, .parts = parts, .inner = inner, .out = out);
  }
  /* Back to the pool, reusable once the queue has passed the merge. */
  ag_buffer_free(part);
  if (st == AG_OK && op == R_MEAN)
    st = ag__prefix(ag_binary_scalar(rq, AG_OP_MUL, out, 1.0 / (double)len, 0, false, out), fn);
  return st;
}

/* Views: x and y as contiguous stand-ins, out through one, each made (and out copied back)
   once on q rather than at each of the reduction's launches. */
static ag_status reduce(red_op op, ag_queue *q, const ag_array *x, const ag_array *y, int axis, ag_array *out) {
  const char *fn = red_ops[op].fn;
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (op == R_DOT && (st = ag__check_operand(fn, "y", y)) != AG_OK) ||
      (st = ag__check_operand(fn, "out", out)) != AG_OK)
    return st;
  if (x->contiguous && (y == NULL || y->contiguous) && out->contiguous)
    return reduce_contiguous(op, q, x, y, axis, out);
  if ((st = ag__check_writable(fn, "out", out)) != AG_OK)
    return st;
  if ((st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK ||
      (y != NULL && (st = ag__check_same_device(fn, "x", x, "y", y)) != AG_OK))
    return st;
  ag_array *xs = NULL, *ys = NULL, *os = NULL;
  if (!x->contiguous && (st = ag__stand_in(fn, q, x, true, &xs)) != AG_OK)
    goto done;
  if (y != NULL && !y->contiguous && (st = ag__stand_in(fn, q, y, true, &ys)) != AG_OK)
    goto done;
  if (!out->contiguous && (st = ag__stand_in(fn, q, out, false, &os)) != AG_OK)
    goto done;
  st = reduce_contiguous(op, q, xs ? xs : x, ys ? ys : y, axis, os ? os : out);
  if (st == AG_OK && os != NULL)
    st = ag__copy_layout(fn, q, os, out);
done:
  ag_array_free(xs);
  ag_array_free(ys);
  ag_array_free(os);
  return st;
}

ag_status ag_sum(ag_queue *q, const ag_array *x, int axis, ag_array *out) { return reduce(R_SUM, q, x, NULL, axis, out); }
ag_status ag_mean(ag_queue *q, const ag_array *x, int axis, ag_array *out) { return reduce(R_MEAN, q, x, NULL, axis, out); }
ag_status ag_min(ag_queue *q, const ag_array *x, int axis, ag_array *out) { return reduce(R_MIN, q, x, NULL, axis, out); }
ag_status ag_max(ag_queue *q, const ag_array *x, int axis, ag_array *out) { return reduce(R_MAX, q, x, NULL, axis, out); }
ag_status ag_argmin(ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  return reduce(R_ARGMIN, q, x, NULL, axis, out);
}
ag_status ag_argmax(ag_queue *q, const ag_array *x, int axis, ag_array *out) {
  return reduce(R_ARGMAX, q, x, NULL, axis, out);
}
ag_status ag_dot(ag_queue *q, const ag_array *x, const ag_array *y, int axis, ag_array *out) {
  return reduce(R_DOT, q, x, y, axis, out);
}
ag_status ag_nrm2(ag_queue *q, const ag_array *x, int axis, ag_array *out) { return reduce(R_NRM2, q, x, NULL, axis, out); }
ag_status ag_prod(ag_queue *q, const ag_array *x, int axis, ag_array *out) { return reduce(R_PROD, q, x, NULL, axis, out); }

/* ---- over a set of axes ---- */

/* Reduces @p x over the axes marked in @p on (sum, mean, min, max) into @p out, whose shape is
   x's without them or with them as 1 (keepdims). Runs of neighbouring axes that are all
   reduced, or all kept, are merged first (a view of a contiguous x; a stand-in otherwise),
   so x is read by one single-axis reduction over its last reduced run, and the few results
   left by one more per run before it. */
static ag_status reduce_axes(red_op op, ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  static const char *const names[] = {[R_SUM] = "ag_sum_axes", [R_MEAN] = "ag_mean_axes", [R_MIN] = "ag_min_axes",
                                      [R_MAX] = "ag_max_axes", [R_PROD] = "ag_prod_axes"};
  const char *fn = names[op];
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK)
    return st;
  bool on[AG_MAX_DIMS];
  if ((st = ag__axis_set(fn, x->ndim, naxes, axes, on)) != AG_OK)
    return st;
  /* out: x's shape without the reduced axes, or keeping them as 1. */
  size_t kept[AG_MAX_DIMS];
  int nk = 0;
  bool keepdims = out->ndim == x->ndim && x->ndim > 0;
  for (int d = 0; d < x->ndim; d++) {
    if (!on[d])
      kept[nk++] = x->shape[d];
    keepdims = keepdims && out->shape[d] == (on[d] ? 1 : x->shape[d]);
  }
  bool fits = keepdims || out->ndim == nk;
  for (int d = 0; fits && !keepdims && d < nk; d++)
    fits = out->shape[d] == kept[d];
  if (!fits) {
    char sx[128], so[128];
    ag__shape_text(x->ndim, x->shape, sx, sizeof sx);
    ag__shape_text(out->ndim, out->shape, so, sizeof so);
    return ag__error(AG_ERR_MISMATCH, "%s: out has shape %s, but x of shape %s reduced over those axes has %d "
                     "kept axes (keepdims: as many as x, the reduced ones of length 1)", fn, so, sx, nk);
  }
  ag_dtype kout;
  const char *allowed;
  if (!out_dtype_ok(op, x->dtype, out->dtype, &kout, &allowed))
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s, but for x of %s it must be %s", fn, ag_dtype_name(out->dtype),
                     ag_dtype_name(x->dtype), allowed);
  if (out->size == 0)
    return AG_OK;
  if (!out->contiguous) {
    /* Into a contiguous stand-in, copied into out at the end. */
    if ((st = ag__check_writable(fn, "out", out)) != AG_OK)
      return st;
    ag_array *os;
    if ((st = ag__stand_in(fn, q, out, false, &os)) != AG_OK)
      return st;
    st = reduce_axes(op, q, x, naxes, axes, os);
    if (st == AG_OK)
      st = ag__copy_layout(fn, q, os, out);
    ag_array_free(os);
    return st;
  }

  /* Merge runs: x as alternating kept and reduced axes. */
  size_t shape[AG_MAX_DIMS];
  bool red[AG_MAX_DIMS];
  int nd = 0;
  uint64_t count = 1;
  for (int d = 0; d < x->ndim; d++) {
    if (on[d])
      count *= x->shape[d];
    if (nd > 0 && red[nd - 1] == on[d]) {
      shape[nd - 1] *= x->shape[d];
      continue;
    }
    shape[nd] = x->shape[d];
    red[nd++] = on[d];
  }
  ag_array *xs = NULL, *cur = NULL, *next = NULL, *res = NULL;
  st = ag_array_reshape(x, nd, shape, &xs); /* a view when x is contiguous, else a copy */
  if (st != AG_OK)
    goto done;
  if (count == 0 || x->size == 0) {
    /* An empty reduction: sums are 0, products 1 and means NaN, as in numpy; extremes do
       not exist. */
    if (op == R_MIN || op == R_MAX)
      st = ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x has no elements along the axes, so there is no %s", fn,
                     red_ops[op].what);
    else
      st = ag_fill(q, out, empty_value(op));
    goto done;
  }
  if (nd == 0) {
    /* A 0-d x: the reduction of one element. */
    ag_array *flat = NULL, *o1 = NULL;
    size_t one = 1;
    st = ag_array_reshape(xs, 1, &one, &flat);
    if (st == AG_OK)
      st = ag_array_reshape(out, 1, &one, &o1);
    if (st == AG_OK)
      st = reduce(op, q, flat, NULL, AG_AXIS_ALL, o1);
    ag_array_free(flat);
    ag_array_free(o1);
    goto done;
  }
  /* Reduce the last reduced run first: the axes before it keep their numbers. Intermediates
     are in out's dtype; the mean is a sum scaled once at the end. */
  red_op step = op == R_MEAN ? R_SUM : op;
  cur = xs;
  xs = NULL;
  int last = nd - 1;
  while (last >= 0 && !red[last])
    last--;
  for (int d = last; d >= 0; d--) {
    if (!red[d])
      continue;
    size_t rshape[AG_MAX_DIMS];
    int rn = 0;
    for (int e = 0; e < cur->ndim; e++)
      if (e != d)
        rshape[rn++] = cur->shape[e];
    bool final = true;
    for (int e = 0; e < d; e++)
      final = final && !red[e];
    if (final) {
      /* Straight into out, seen in the remaining shape. */
      if (rn == 0)
        rshape[rn++] = 1;
      st = ag_array_reshape(out, rn, rshape, &res);
      if (st != AG_OK)
        goto done;
      st = reduce(step, q, cur, NULL, d, res);
      goto scale;
    }
    st = ag_array_create(x->dev, out->dtype, rn, rshape, &next);
    if (st != AG_OK)
      goto done;
    st = reduce(step, q, cur, NULL, d, next);
    if (st != AG_OK)
      goto done;
    ag_array_free(cur);
    cur = next;
    next = NULL;
  }
scale:
  if (st == AG_OK && op == R_MEAN)
    st = ag_binary_scalar(q, AG_OP_MUL, res, 1.0 / (double)count, 0, false, res);
done:
  ag_array_free(xs);
  ag_array_free(cur);
  ag_array_free(next);
  ag_array_free(res);
  /* Messages from the steps name their own function (ag_sum: ...): fn goes in front. */
  if (st != AG_OK && strncmp(ag_last_error(), fn, strlen(fn)) != 0)
    st = ag__prefix(st, fn);
  return st;
}

ag_status ag_sum_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return reduce_axes(R_SUM, q, x, naxes, axes, out);
}
ag_status ag_mean_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return reduce_axes(R_MEAN, q, x, naxes, axes, out);
}
ag_status ag_min_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return reduce_axes(R_MIN, q, x, naxes, axes, out);
}
ag_status ag_max_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return reduce_axes(R_MAX, q, x, naxes, axes, out);
}
ag_status ag_prod_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out) {
  return reduce_axes(R_PROD, q, x, naxes, axes, out);
}
