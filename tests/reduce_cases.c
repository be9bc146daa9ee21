/* tests/reduce_cases.c — one reduction run on a device and compared with the reference, shared
   by the suites that run reductions (test_reduce, test_oclgrind_kernels). See reduce_cases.h. */
#include <math.h>
#include <stdlib.h>

#include "reduce_cases.h"

const reduction reductions[NRED] = {
    [REF_SUM] = {REF_SUM, "ag_sum", ag_sum},          [REF_MEAN] = {REF_MEAN, "ag_mean", ag_mean},
    [REF_MIN] = {REF_MIN, "ag_min", ag_min},          [REF_MAX] = {REF_MAX, "ag_max", ag_max},
    [REF_ARGMIN] = {REF_ARGMIN, "ag_argmin", ag_argmin}, [REF_ARGMAX] = {REF_ARGMAX, "ag_argmax", ag_argmax},
    [REF_DOT] = {REF_DOT, "ag_dot", NULL},            [REF_NRM2] = {REF_NRM2, "ag_nrm2", ag_nrm2},
};

ag_status run_reduction(const reduction *red, ag_queue *q, const ag_array *x, const ag_array *y, int axis,
                        ag_array *out) {
  return red->r == REF_DOT ? ag_dot(q, x, y, axis, out) : red->fn(q, x, axis, out);
}

int allowed_outputs(ref_reduction r, ag_dtype t, ag_dtype *outs) {
  bool integer = ref_is_integer(t), cx = ref_is_complex(t);
  if (ref_is_bool(t))
    return 0; /* no reductions of bool */
  switch (r) {
  case REF_SUM:
  case REF_DOT:
    if (!integer) {
      outs[0] = t;
      return 1;
    }
    /* The array API's accumulator type first, then 32 bits of the same signedness. */
    outs[0] = ref_is_unsigned(t) ? AG_U64 : AG_I64;
    outs[1] = ref_is_unsigned(t) ? AG_U32 : AG_I32;
    outs[2] = AG_F32;
    outs[3] = AG_F64;
    return 4;
  case REF_MEAN:
    if (!integer) {
      outs[0] = t;
      return 1;
    }
    outs[0] = AG_F64;
    outs[1] = AG_F32;
    return 2;
  case REF_MIN:
  case REF_MAX:
    if (cx)
      return 0;
    outs[0] = t;
    return 1;
  case REF_ARGMIN:
  case REF_ARGMAX:
    if (cx)
      return 0;
    outs[0] = AG_I64;
    outs[1] = AG_U32;
    outs[2] = AG_I32;
    return 3;
  case REF_NRM2:
    if (integer)
      return 0;
    outs[0] = ref_real_dtype(t);
    return 1;
  }
  return 0;
}

/* Inputs: floats in [-1, 1] (sums with cancellation); integers over a range whose 64-bit sum
   and products cannot overflow (at most 32 bits, 16 for dot), and narrow ([0, 50]) for the
   selections so that ties occur. */
static void reduction_input(ref_reduction r, ag_dtype t, void *x, size_t n, uint64_t seed) {
  if (!ref_is_integer(t)) {
    ref_random(t, x, n, seed, -1, 1);
    return;
  }
  bool selection = r == REF_MIN || r == REF_MAX || r == REF_ARGMIN || r == REF_ARGMAX;
  bool sgn = !ref_is_unsigned(t);
  int bits = (int)ref_size(t) * 8 > 32 ? 32 : (int)ref_size(t) * 8;
  if (r == REF_DOT && bits > 16)
    bits = 16;
  double hi = ldexp(1, bits - sgn) - 1, lo = sgn ? -hi : 0;
  if (selection) {
    lo = t == AG_I32 ? -25 : 0;
    hi = t == AG_I32 ? 25 : 50;
  }
  ref_random(t, x, n, seed, lo, hi);
}

/* The tolerance of reduction @p r of @p t into @p ot, and whether it is relative to the scale
   ref_reduce gives (sums) rather than to the result. */
static ref_tol tolerance(ref_reduction r, ag_dtype t, ag_dtype ot) {
  if (r == REF_MEAN && ref_is_integer(t))
    /* The exact sum converted once and divided by n: one rounding of the sum and a division
       (2.5 ulp in OpenCL single precision): 3.5 ulp -> 5e-7 (f32); 1e-15 (f64). */
    return ot == AG_F32 ? (ref_tol){5e-7, 0} : (ref_tol){1e-15, 0};
  return ref_tol_reduce(r, t);
}

void check_reduction(ag_device *dev, const reduction *red, ag_dtype t, ag_dtype ot, int ndim, const size_t *shape,
                     int axis, uint64_t seed, ag_array **keep) {
  if (!test_dtype_runs(dev, t) || !test_dtype_runs(dev, ot))
    return;
  size_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  size_t outer = 1, len = n, inner = 1, oshape[4] = {1};
  int ond = 1;
  if (axis != AG_AXIS_ALL) {
    outer = 1;
    inner = 1;
    for (int d = 0; d < axis; d++)
      outer *= shape[d];
    for (int d = axis + 1; d < ndim; d++)
      inner *= shape[d];
    len = shape[axis];
    ond = 0;
    for (int d = 0; d < ndim; d++)
      if (d != axis)
        oshape[ond++] = shape[d];
    if (ond == 0) {
      ond = 1;
      oshape[0] = 1;
    }
  }
  size_t nout = outer * inner;
  void *x = test_alloc(n * ref_size(t)), *y = NULL;
  reduction_input(red->r, t, x, n, seed);
  ag_array *ax = test_array_from(dev, t, ndim, shape, x), *ay = NULL;
  if (red->r == REF_DOT) {
    y = test_alloc(n * ref_size(t));
    reduction_input(red->r, t, y, n, seed + 99);
    ay = test_array_from(dev, t, ndim, shape, y);
  }
  ag_array *out = test_array_new(dev, ot, ond, oshape);
  ref_check_ok(run_reduction(red, NULL, ax, ay, axis, out), "%s of %zu %s along axis %d into %s", red->name, n,
               ref_name(t), axis, ref_name(ot));
  ref_c *want = test_alloc(nout * sizeof *want);
  long double *scale = test_alloc(nout * sizeof *scale);
  ref_reduce(red->r, t, x, y, outer, len, inner, want, scale);
  if (ref_is_integer(t) && (red->r == REF_SUM || red->r == REF_DOT)) {
    /* Exact in 64 bits, converted once: wrapped into an integer out, rounded once into a float
       one (from the exact value, as the device converts its 64-bit total). */
    unsigned char *conv = test_alloc(nout * ref_size(ot));
    for (size_t i = 0; i < nout; i++) {
      if (ref_is_integer(ot))
        ref_put_int64(ot, conv, i, (int64_t)ref_bits(creall(want[i])));
      else
        ref_put(ot, conv, i, want[i]);
      want[i] = ref_get(ot, conv, i);
    }
    free(conv);
  }
  void *got = test_array_read(out);
  ref_tol tol = tolerance(red->r, t, ot);
  bool by_scale = !ref_is_integer(t) && (red->r == REF_SUM || red->r == REF_MEAN || red->r == REF_DOT);
  ref_check(ot, got, want, by_scale ? scale : NULL, nout, tol,
            "%s of %zu %s (shape %zu x %zu x %zu) along axis %d into %s", red->name, n, ref_name(t), outer, len, inner,
            axis, ref_name(ot));
  free(got);
  free(want);
  free(scale);
  free(x);
  free(y);
  if (keep != NULL) {
    keep[0] = ax;
    keep[1] = ay;
    keep[2] = out;
    return;
  }
  ag_array_free(ax);
  ag_array_free(ay);
  ag_array_free(out);
}
