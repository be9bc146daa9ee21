/* src/launch.c - enqueues the built-in operation kernels, with the work shaped for the device:
   the one piece of the operation layer that knows devices differ. */
#include <stdlib.h>
#include <string.h>

#include "array.h"

uint64_t ag__loop_items(const ag_device *dev, uint64_t steps) {
  uint64_t limit = dev->info.max_loop_iterations;
  return limit == 0 ? 1 : (steps + limit - 1) / limit;
}

/* Checks a launch's range against the kernel's limit, then enqueues it: every launch, the
   user's (ag_kernel_launch) and the built-in ones, goes through here. */
ag_status ag__launch_checked(const char *fn, ag_queue *q, ag_device *dev, ag__bkernel *bk,
                             size_t max_wg, const ag_range *range, size_t nargs,
                             const ag__karg *args) {
  if (range->dims < 1 || range->dims > 3)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: range->dims is %u, not 1, 2 or 3", fn, range->dims);
  size_t group = 1;
  bool any_local = false, all_local = true;
  for (unsigned d = 0; d < range->dims; d++) {
    if (range->global[d] == 0)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: range->global[%u] is 0", fn, d);
    if (range->global[d] > ((size_t)1 << 40))
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: range->global[%u] is %zu, beyond 2^40", fn, d,
                       range->global[d]);
    any_local |= range->local[d] != 0;
    all_local &= range->local[d] != 0;
    if (range->local[d] != 0) {
      if (range->local[d] > max_wg)
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: range->local[%u] is %zu, above this kernel's limit of %zu on %s",
                         fn, d, range->local[d], max_wg, dev->info.spec);
      group *= range->local[d];
    }
  }
  if (any_local && !all_local)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: range->local must be all zero or all nonzero in the %u used dimensions",
                     fn, range->dims);
  if (group > max_wg)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: range->local asks a work-group of %zu items, above this kernel's limit of %zu on %s",
                     fn, group, max_wg, dev->info.spec);
  return ag__prefix(dev->be->kernel_launch(q->bq, bk, range, nargs, args), fn);
}

/* How an elementwise launch is cut, in the style the backend chose for the device
   (ag__launch_style in backends/backend.h): one work-item per element; few, large
   work-groups of long chunks; or work-groups of 256 filling the device with a grid-stride
   loop. */
static void shape_launch(const ag_device *dev, size_t max_wg, uint64_t n, ag_range *r, uint64_t *chunk) {
  memset(r, 0, sizeof *r);
  r->dims = 1;
  uint64_t units = dev->info.compute_units > 0 ? (uint64_t)dev->info.compute_units : 1;
  uint64_t limit = dev->info.max_loop_iterations;
  if (dev->traits.launch == AG__LAUNCH_ITEMS) {
    *chunk = 1;
    r->global[0] = n;
    return;
  }
  if (dev->traits.launch == AG__LAUNCH_CHUNKS) {
    uint64_t wg = max_wg < 16 ? max_wg : 16;
    uint64_t items = units * 4 * wg;
    *chunk = (n + items - 1) / items;
    if (*chunk < 256)
      *chunk = 256;
    if (limit != 0 && *chunk > limit) /* more work-items rather than longer loops */
      *chunk = limit;
    uint64_t groups = (n + *chunk * wg - 1) / (*chunk * wg);
    r->global[0] = groups * wg;
    r->local[0] = wg;
    return;
  }
  uint64_t wg = max_wg < 256 ? max_wg : 256;
  uint64_t groups = (n + wg - 1) / wg;
  if (groups > units * 32)
    groups = units * 32;
  /* The grid-stride loop runs n / (groups * wg) times: within the device's loop limit. */
  uint64_t least = (ag__loop_items(dev, n) + wg - 1) / wg;
  if (groups < least)
    groups = least;
  *chunk = 1;
  r->global[0] = groups * wg;
  r->local[0] = wg;
}

ag_status ag__launch_elementwise(const char *fn, ag_queue *q, ag_device *dev, ag__family family, int variant,
                                 const char *name, size_t n, size_t nargs, const ag__op_arg *args) {
  enum { MAX = 16 };
  ag_queue *rq;
  ag_status st = ag__queue_resolve(fn, q, dev, &rq);
  if (st != AG_OK)
    return st;
  const ag__builtin_kernel *k;
  if ((st = ag__builtin_kernel_get(dev, family, variant, name, &k)) != AG_OK)
    return ag__prefix(st, fn);

  ag__karg kargs[2 * MAX + 2];
  uint64_t offsets[MAX], count = n, chunk = 1;
  size_t nk = 0;
  for (size_t i = 0; i < nargs && i < MAX; i++) {
    if (args[i].array != NULL) {
      offsets[i] = args[i].array->offset;
      kargs[nk++] = (ag__karg){.kind = AG_ARG_BUFFER, .mem = args[i].array->store->buf->mem};
      kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = &offsets[i], .size = sizeof offsets[i]};
    } else {
      kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = args[i].value, .size = args[i].size};
    }
  }
  ag_range r;
  shape_launch(dev, k->max_work_group, count, &r, &chunk);
  kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = &count, .size = sizeof count};
  kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = &chunk, .size = sizeof chunk};
  st = ag__launch_checked(fn, rq, dev, k->bk, k->max_work_group, &r, nk, kargs);
  if (st == AG_OK)
    for (size_t i = 0; i < nargs; i++)
      if (args[i].array != NULL)
        ag__buffer_touch(args[i].array->store->buf, rq);
  return st;
}

ag_status ag__launch_builtin(const char *fn, ag_queue *q, ag_device *dev, ag__family family, int variant,
                             const char *name, const ag_range *r, size_t nargs, const ag__karg *args,
                             size_t ntouch, ag_buffer *const *touch) {
  const ag__builtin_kernel *k;
  ag_status st = ag__builtin_kernel_get(dev, family, variant, name, &k);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  ag_range rr = *r;
  for (unsigned d = 0; d < rr.dims; d++)
    if (rr.local[d] > k->max_work_group)
      rr.local[d] = k->max_work_group;
  st = ag__launch_checked(fn, q, dev, k->bk, k->max_work_group, &rr, nargs, args);
  if (st == AG_OK)
    for (size_t i = 0; i < ntouch; i++)
      if (touch[i] != NULL)
        ag__buffer_touch(touch[i], q);
  return st;
}
