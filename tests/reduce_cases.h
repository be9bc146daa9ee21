/* tests/reduce_cases.h — the reductions of ops.h as a table, and one reduction of a shaped array
   along an axis run on a device and compared with ref_reduce, for the suites that run
   reductions (test_reduce, test_oclgrind_kernels). */
#ifndef AG_TESTS_REDUCE_CASES_H
#define AG_TESTS_REDUCE_CASES_H

#include "reference.h"

typedef ag_status (*reduce_fn)(ag_queue *, const ag_array *, int, ag_array *);

typedef struct reduction {
  ref_reduction r;
  const char *name;
  reduce_fn fn; /* NULL for dot */
} reduction;

/* Every reduction of ops.h: reductions[r] is ref_reduction r. */
enum { NRED = 8 };
extern const reduction reductions[NRED];

/* @p red of x (and y, for dot) along @p axis into out. */
ag_status run_reduction(const reduction *red, ag_queue *q, const ag_array *x, const ag_array *y, int axis,
                        ag_array *out);

/* The output dtypes ops.h allows for reduction @p r of dtype @p t (at most 4, into @p outs),
   first the natural one; 0 when the reduction does not take @p t. */
int allowed_outputs(ref_reduction r, ag_dtype t, ag_dtype *outs);

/* Reduces a @p ndim-D array of @p shape along @p axis (or all of it) with @p red from dtype @p t
   into dtype @p ot, and compares every output with the reference; inputs are drawn from
   @p seed. The arrays are freed, unless @p keep is not NULL: then x, y (NULL but for dot) and
   out go to keep[0..2], for the caller to free. */
void check_reduction(ag_device *dev, const reduction *red, ag_dtype t, ag_dtype ot, int ndim, const size_t *shape,
                     int axis, uint64_t seed, ag_array **keep);

#endif
