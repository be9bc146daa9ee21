/* src/launch.c - enqueues kernels: every launch's checks, and the built-in kernels' launches
   with the work shaped for the device, the one piece of the operation layer that knows
   devices differ. */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"

ag__val ag__real_val(ag_dtype t, double value, void *bytes) {
  if (ag__dtype_real(t) == AG_F32) {
    float f = (float)value;
    memcpy(bytes, &f, sizeof f);
    return (ag__val){bytes, sizeof f};
  }
  memcpy(bytes, &value, sizeof value);
  return (ag__val){bytes, sizeof value};
}

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
/* The longest elementwise launch the host runs on one thread. */
#define AG__EW_SERIAL_MAX 16384

/* A grid-stride launch of n indices in groups of wg: as many groups as n needs, at most @p most,
   and at least as many as keep the loop within the device's loop limit. */
static void grid_stride(const ag_device *dev, uint64_t n, uint64_t wg, uint64_t most, ag_range *r) {
  uint64_t groups = (n + wg - 1) / wg;
  if (groups > most)
    groups = most;
  uint64_t least = (ag__loop_items(dev, n) + wg - 1) / wg;
  if (groups < least)
    groups = least;
  r->global[0] = groups * wg;
  r->local[0] = wg;
}

static void shape_launch(const ag_device *dev, size_t max_wg, uint64_t n, ag_range *r, uint64_t *chunk) {
  memset(r, 0, sizeof *r);
  r->dims = 1;
  uint64_t units = dev->info.compute_units > 0 ? (uint64_t)dev->info.compute_units : 1;
  uint64_t limit = dev->info.max_loop_iterations;
  if (dev->traits.launch == AG__LAUNCH_ITEMS) {
    *chunk = 1;
    r->global[0] = n;
    /* A short array is one work-group, which the host runs on the calling thread: the threads'
       start and join cost more than its few thousand elements, and far more when the machine's
       cores are all busy (an iterative solver launches dozens of them an iteration). */
    if (n <= AG__EW_SERIAL_MAX && n <= max_wg)
      r->local[0] = n;
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
  *chunk = 1;
  grid_stride(dev, n, max_wg < 256 ? max_wg : 256, units * 32, r);
}

/* An item-per-index launch (AG_ITEMS: a grid-stride loop over n indices). The host takes n
   items and cuts them itself. Elsewhere the work-group size is the core's, not the driver's
   choice: a driver picks a divisor of the global size, which for an n such as 2^21 - 2 is a
   group of 2 (rusticl), and a launch of a million groups then costs more than its work. So
   the items are whole groups, of up to 256 on GPUs (the CUDA backend's own choice) and 64 on
   CPU devices, at most 2^16 groups (each index its own item on all but the largest
   launches), and at least as many as the device's loop limit asks. */
static void shape_items(const ag_device *dev, size_t max_wg, uint64_t n, ag_range *r) {
  memset(r, 0, sizeof *r);
  r->dims = 1;
  if (dev->traits.launch == AG__LAUNCH_ITEMS) {
    r->global[0] = n;
    return;
  }
  uint64_t most = dev->traits.launch == AG__LAUNCH_GRID ? 256 : 64;
  grid_stride(dev, n, max_wg < most ? max_wg : most, (uint64_t)1 << 16, r);
}

ag_status ag__launch_max_work_group(const ag__launch *l, size_t *max_wg) {
  const ag__builtin_kernel *k;
  ag_status st = ag__builtin_kernel_get(l->dev, l->kernel, &k);
  if (st != AG_OK)
    return ag__prefix(st, l->fn);
  *max_wg = k->max_work_group;
  return AG_OK;
}

ag_status ag__launch_groups(ag__launch *l, size_t want, ag_range *range) {
  const ag__builtin_kernel *k;
  ag_status st = ag__builtin_kernel_get(l->dev, l->kernel, &k);
  if (st != AG_OK)
    return ag__prefix(st, l->fn);
  size_t wg = want;
  while (wg > k->max_work_group && wg > 1)
    wg /= 2;
  uint64_t groups = l->n < ((uint64_t)1 << 24) ? l->n : ((uint64_t)1 << 24);
  *range = (ag_range){.dims = 1, .global = {groups * wg}, .local = {wg}};
  l->range = range;
  return AG_OK;
}

/* Checks @p args against what the build knows of kernel @p info: every parameter given, each
   value of the size the kernel's parameter has. The backends then see only well-formed
   launches, the host (which cannot check) as much as CUDA (which can). */
static ag_status check_args(const ag__launch *l, const ag__kernel_info *info, size_t nargs, const ag__op_arg *args) {
  size_t at = 0;
  for (size_t i = 0; i < nargs; i++) {
    const ag__op_arg *a = &args[i];
    bool missing = a->kind == AG__PARAM_ARRAY    ? a->array == NULL
                   : a->kind == AG__PARAM_BUFFER ? a->buffer == NULL
                                                 : a->value.bytes == NULL;
    if (missing)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: built-in kernel %s: parameter %s is not given", l->fn,
                       info->name, a->param);
    if (a->kind == AG__PARAM_VALUE && at < info->nargs && info->args[at] != a->value.size)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: built-in kernel %s: parameter %s is %zu bytes, not the %zu "
                       "of the kernel's", l->fn, info->name, a->param, a->value.size, info->args[at]);
    at += a->kind == AG__PARAM_ARRAY ? 2 : 1;
  }
  at += info->form == AG__FORM_EW ? 2 : 1;
  if (at != info->nargs)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: built-in kernel %s takes %u arguments, not %zu", l->fn,
                     info->name, info->nargs, at);
  return AG_OK;
}

/* Kernels index their arrays as C-contiguous. A view argument is handed over as a contiguous
   stand-in (src/layout.c), copied in, and copied back after the launch when the kernel may
   write it (its parameter is not const). The elementwise family writes its outs whole without
   reading them, so their stand-ins are not copied in; the layout and strided families'
   kernels take views as they are. */
static bool has_view(const ag__kernel_info *info, size_t nargs, const ag__op_arg *args) {
  if (info->family == AG__FAMILY_layout || info->family == AG__FAMILY_strided)
    return false;
  for (size_t i = 0; i < nargs; i++)
    if (args[i].kind == AG__PARAM_ARRAY && !args[i].array->contiguous)
      return true;
  return false;
}

/* @p args into @p staged, each view replaced by its stand-in, kept in stand[i] (NULL elsewhere). */
static ag_status stage_views(const ag__launch *l, ag_queue *q, const ag__kernel_info *info, size_t nargs,
                             const ag__op_arg *args, ag__op_arg *staged, ag_array **stand) {
  for (size_t i = 0; i < nargs; i++) {
    staged[i] = args[i];
    stand[i] = NULL;
  }
  for (size_t i = 0; i < nargs; i++) {
    const ag_array *a = args[i].kind == AG__PARAM_ARRAY ? args[i].array : NULL;
    if (a == NULL || a->contiguous)
      continue;
    bool written = (info->writes >> i) & 1;
    ag_status st = written ? ag__check_writable(l->fn, args[i].param, a) : AG_OK;
    if (st != AG_OK)
      return st;
    bool fill = !written || info->family != AG__FAMILY_elementwise;
    st = ag__stand_in(l->fn, q, a, fill, &stand[i]);
    if (st != AG_OK)
      return st;
    staged[i].array = stand[i];
  }
  return AG_OK;
}

static ag_status launch_staged(const ag__launch *l, ag_queue *q, const ag__builtin_kernel *k,
                               const ag__kernel_info *info, size_t nargs, const ag__op_arg *args) {
  /* check_args has counted them: at most info->nargs, which the build bounds. */
  ag__karg kargs[AG__KERNEL_ARGS_MAX];
  uint64_t offsets[AG__KERNEL_ARGS_MAX], n = l->n, chunk = 1;
  size_t nk = 0;
  for (size_t i = 0; i < nargs; i++) {
    if (args[i].kind == AG__PARAM_ARRAY) {
      offsets[i] = args[i].array->offset;
      kargs[nk++] = (ag__karg){.kind = AG_ARG_BUFFER, .mem = args[i].array->store->buf->mem};
      kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = &offsets[i], .size = sizeof offsets[i]};
    } else if (args[i].kind == AG__PARAM_BUFFER) {
      kargs[nk++] = (ag__karg){.kind = AG_ARG_BUFFER, .mem = args[i].buffer->mem};
    } else {
      kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = args[i].value.bytes, .size = args[i].value.size};
    }
  }
  kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = &n, .size = sizeof n};
  ag_range r;
  if (info->form == AG__FORM_EW) {
    shape_launch(l->dev, k->max_work_group, n, &r, &chunk);
    kargs[nk++] = (ag__karg){.kind = AG_ARG_SCALAR, .value = &chunk, .size = sizeof chunk};
  } else if (l->range == NULL && (info->form == AG__FORM_ITEMS || info->form == AG__FORM_CPU_ITEMS)) {
    shape_items(l->dev, k->max_work_group, n, &r);
  } else if (l->range == NULL) {
    /* A work-group per index, of the largest power of two up to 256 the kernel takes. */
    size_t wg = 256;
    while (wg > k->max_work_group && wg > 1)
      wg /= 2;
    r = (ag_range){.dims = 1, .global = {n * wg}, .local = {wg}};
  } else {
    r = *l->range;
    for (unsigned d = 0; d < r.dims && d < 3; d++)
      if (r.local[d] > k->max_work_group)
        r.local[d] = k->max_work_group;
  }
  ag_status st = ag__launch_checked(l->fn, q, l->dev, k->bk, k->max_work_group, &r, nk, kargs);
  if (st == AG_OK)
    for (size_t i = 0; i < nargs; i++) {
      if (args[i].kind == AG__PARAM_ARRAY)
        ag__buffer_touch(args[i].array->store->buf, q);
      else if (args[i].kind == AG__PARAM_BUFFER)
        ag__buffer_touch(args[i].buffer, q);
    }
  return st;
}

ag_status ag__launch_kernel(const ag__launch *l, size_t nargs, const ag__op_arg *args) {
  if (l->n == 0)
    return AG_OK;
  ag_queue *q;
  ag_status st = ag__queue_resolve(l->fn, l->q, l->dev, &q);
  if (st != AG_OK)
    return st;
  const ag__builtin_kernel *k;
  st = ag__builtin_kernel_get(l->dev, l->kernel, &k);
  if (st != AG_OK)
    return ag__prefix(st, l->fn);
  const ag__kernel_info *info = &ag__kernels[l->kernel];
  st = check_args(l, info, nargs, args);
  if (st != AG_OK)
    return st;
  /* Contiguous arguments, the common case, go straight to the launch. */
  if (!has_view(info, nargs, args))
    return launch_staged(l, q, k, info, nargs, args);
  ag__op_arg staged[AG__KERNEL_ARGS_MAX];
  ag_array *stand[AG__KERNEL_ARGS_MAX];
  st = stage_views(l, q, info, nargs, args, staged, stand);
  if (st == AG_OK)
    st = launch_staged(l, q, k, info, nargs, staged);
  for (size_t i = 0; i < nargs; i++) {
    if (stand[i] == NULL)
      continue;
    if (st == AG_OK && ((info->writes >> i) & 1))
      st = ag__copy_layout(l->fn, q, stand[i], (ag_array *)args[i].array);
    ag_array_free(stand[i]);
  }
  return st;
}
