/* src/program.c — user programs and kernels, and the checks every kernel launch passes. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *dialect_name(ag__dialect d) {
  return d == AG__DIALECT_OPENCL ? "OpenCL C" : d == AG__DIALECT_CUDA ? "CUDA C" : "host C";
}

ag_status ag_program_create(ag_device *dev, const ag_program_desc *desc, ag_program **prog) {
  static const char fn[] = "ag_program_create";
  AG__CHECK_NOT_NULL(fn, prog);
  *prog = NULL;
  AG__CHECK_NOT_NULL(fn, dev);
  AG__CHECK_NOT_NULL(fn, desc);
  const char *source = NULL, *options = NULL;
  switch (dev->be->dialect) {
  case AG__DIALECT_OPENCL:
    source = desc->opencl_source;
    options = desc->opencl_options;
    break;
  case AG__DIALECT_CUDA:
    source = desc->cuda_source;
    options = desc->cuda_options;
    break;
  case AG__DIALECT_HOST:
    if (desc->host_kernel_count > 0 && desc->host_kernels == NULL)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: desc->host_kernels is NULL but host_kernel_count is %zu",
                       fn, desc->host_kernel_count);
    for (size_t i = 0; i < desc->host_kernel_count; i++)
      if (desc->host_kernels[i].name == NULL || desc->host_kernels[i].fn == NULL)
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: desc->host_kernels[%zu] has a NULL %s", fn, i,
                         desc->host_kernels[i].name == NULL ? "name" : "fn");
    if (desc->host_kernel_count > 0)
      source = "";
    break;
  }
  if (source == NULL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: desc has no %s kernels, which %s (%s) needs", fn,
                     dialect_name(dev->be->dialect), dev->info.spec, dev->info.name);
  ag_program *p = calloc(1, sizeof *p);
  if (p == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ag_status st = ag__program_build_cached(dev, desc, source, options ? options : "", &p->bp);
  if (st != AG_OK) {
    free(p);
    return ag__prefix(st, fn);
  }
  p->dev = dev;
  atomic_init(&p->refs, 1);
  *prog = p;
  return AG_OK;
}

/* Drops one reference; the last frees the program. */
static void program_unref(ag_program *prog) {
  if (atomic_fetch_sub(&prog->refs, 1) == 1) {
    prog->dev->be->program_release(prog->bp);
    free(prog);
  }
}

void ag_program_destroy(ag_program *prog) {
  if (prog != NULL)
    program_unref(prog);
}

ag_status ag_kernel_get(ag_program *prog, const char *name, ag_kernel **k) {
  static const char fn[] = "ag_kernel_get";
  AG__CHECK_NOT_NULL(fn, k);
  *k = NULL;
  AG__CHECK_NOT_NULL(fn, prog);
  AG__CHECK_NOT_NULL(fn, name);
  size_t len = strlen(name);
  ag_kernel *kk = calloc(1, sizeof *kk + len + 1);
  if (kk == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ag_status st = prog->dev->be->kernel_create(prog->bp, name, &kk->bk);
  if (st != AG_OK) {
    free(kk);
    return ag__prefix(st, fn);
  }
  kk->prog = prog;
  kk->max_work_group = prog->dev->be->kernel_max_work_group(kk->bk);
  memcpy(kk->name, name, len + 1);
  atomic_fetch_add(&prog->refs, 1);
  *k = kk;
  return AG_OK;
}

size_t ag_kernel_max_work_group(const ag_kernel *k) { return k != NULL ? k->max_work_group : 0; }

void ag_kernel_destroy(ag_kernel *k) {
  if (k == NULL)
    return;
  k->prog->dev->be->kernel_release(k->bk);
  program_unref(k->prog);
  free(k);
}

ag_status ag_kernel_launch(ag_queue *q, ag_kernel *k, const ag_range *range, size_t nargs,
                           const ag_arg *args) {
  static const char fn[] = "ag_kernel_launch";
  AG__CHECK_NOT_NULL(fn, k);
  AG__CHECK_NOT_NULL(fn, range);
  if (nargs > 0 && args == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: args is NULL but nargs is %zu", fn, nargs);
  if (nargs > AG__KERNEL_ARGS_MAX)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: nargs is %zu, above the limit of %d", fn, nargs,
                     AG__KERNEL_ARGS_MAX);
  ag_device *dev = k->prog->dev;
  ag__karg kargs[AG__KERNEL_ARGS_MAX];
  for (size_t i = 0; i < nargs; i++) {
    const ag_arg *a = &args[i];
    kargs[i] = (ag__karg){.kind = a->kind, .value = a->value, .size = a->size};
    switch (a->kind) {
    case AG_ARG_BUFFER:
      if (a->buffer == NULL)
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: args[%zu].buffer is NULL", fn, i);
      if (a->buffer->dev != dev)
        return ag__error(AG_ERR_MISMATCH, "%s: args[%zu].buffer is on %s but the kernel is on %s", fn, i,
                         a->buffer->dev->info.spec, dev->info.spec);
      kargs[i].mem = a->buffer->mem;
      break;
    case AG_ARG_SCALAR:
      if (a->value == NULL || a->size == 0 || a->size > 1024)
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: args[%zu] is a scalar with %s", fn, i,
                         a->value == NULL ? "a NULL value" : a->size == 0 ? "size 0" : "size above 1024 bytes");
      break;
    case AG_ARG_LOCAL:
      if (a->size == 0 || a->size > dev->info.local_memory)
        return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: args[%zu] asks %zu bytes of local memory; %s has %zu", fn, i,
                         a->size, dev->info.spec, dev->info.local_memory);
      break;
    default:
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: args[%zu].kind is %d, not an ag_arg_kind", fn, i, (int)a->kind);
    }
  }
  ag_queue *rq;
  ag_status st = ag__queue_resolve(fn, q, dev, &rq);
  if (st != AG_OK)
    return st;
  st = ag__launch_checked(fn, rq, dev, k->bk, k->max_work_group, range, nargs, kargs);
  if (st == AG_OK)
    for (size_t i = 0; i < nargs; i++)
      if (args[i].kind == AG_ARG_BUFFER)
        ag__buffer_touch((ag_buffer *)args[i].buffer, rq);
  return st;
}
