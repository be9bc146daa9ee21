/* src/builtin.c - the built-in kernels of each device, by id: a family is built on first use,
   under its own lock, and each kernel, once made, is read from the device's table without
   one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const struct {
  const char *name;
  bool per_dtype;
} families[] = {
#define AG_ONCE false
#define AG_PER_DTYPE true
#define AG_FAMILY(name, kind) {#name, kind},
#include "../kernels_shared/families.h"
#undef AG_FAMILY
#undef AG_ONCE
#undef AG_PER_DTYPE
};

void ag__builtins_init(ag__builtins *b) {
  for (int f = 0; f < AG__FAMILY_COUNT; f++)
    for (int v = 0; v < AG__VARIANTS; v++)
      pthread_mutex_init(&b->slots[f][v].lock, NULL);
}

/* Builds family @p family's program for dtype @p variant (-1: a family built once). */
static ag_status build_family(ag_device *dev, ag__family family, int variant, ag__builtin_slot *slot) {
  ag__builtin_src src;
  memset(&src, 0, sizeof src);
  ag_status st = dev->be->builtin_find(families[family].name, variant, &src);
  if (st != AG_OK)
    return st;
  if (src.source != NULL)
    return ag__program_build_cached(dev, NULL, src.source, src.options, &slot->bp);
  if (src.binary != NULL)
    return dev->be->program_load(dev->bdev, src.binary, src.binary_size, &slot->bp);
  ag_program_desc desc = {.host_kernels = src.host_kernels, .host_kernel_count = src.host_kernel_count};
  return dev->be->program_build(dev->bdev, &desc, "", "", &slot->bp, NULL);
}

/* The first use of a kernel: its family's program, built if no thread has yet (the slot's
   lock makes a second thread wait for the first one's build rather than build again), then
   the kernel made and published. */
static ag_status first_use(ag_device *dev, ag__kernel_id id, const ag__builtin_kernel **out) {
  const ag__kernel_info *info = &ag__kernels[id];
  ag__family family = info->family;
  /* A family built once, or built per dtype by a backend whose program holds every dtype,
     has its one program in the first slot. */
  int v = families[family].per_dtype ? (dev->be->builtin_all_dtypes ? 0 : info->variant) : -1;
  ag__builtin_slot *slot = &dev->builtins.slots[family][v < 0 ? 0 : v];
  ag_status st = AG_OK;
  pthread_mutex_lock(&slot->lock);
  if (!atomic_load_explicit(&slot->tried, memory_order_relaxed)) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* A stand-in for a slow compiler, for the test that launches go on meanwhile
       (tests/test_threads.c): each build takes this many milliseconds more. */
    const char *delay = getenv("ANYGPU_TEST_BUILD_DELAY_MS");
    if (delay != NULL && atoi(delay) > 0)
      nanosleep(&(struct timespec){.tv_sec = atoi(delay) / 1000, .tv_nsec = (atoi(delay) % 1000) * 1000000L}, NULL);
    slot->status = build_family(dev, family, v, slot);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* What a first use costs, family by family (ANYGPU_LOG=debug): docs/performance.md. */
    bool one_dtype = families[family].per_dtype && !dev->be->builtin_all_dtypes;
    ag__log(AG__LOG_DEBUG, "built-in kernels \"%s\"%s%s on %s: %s in %.0f ms", families[family].name,
            one_dtype ? " " : "", one_dtype ? ag_dtype_name((ag_dtype)v) : "", dev->info.spec,
            slot->status == AG_OK ? "ready" : "failed",
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    if (slot->status != AG_OK)
      slot->message = strdup(ag_last_error());
    atomic_store_explicit(&slot->tried, true, memory_order_release);
  }
  if (slot->status != AG_OK) {
    st = ag__error(slot->status, "built-in kernels \"%s\" on %s: %s", families[family].name, dev->info.spec,
                   slot->message ? slot->message : "");
    goto done;
  }
  /* Another thread may have made it while this one waited for the lock. */
  ag__builtin_kernel *k = atomic_load_explicit(&dev->builtins.kernels[id], memory_order_acquire);
  if (k != NULL) {
    *out = k;
    goto done;
  }
  k = calloc(1, sizeof *k);
  if (k == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for built-in kernels");
    goto done;
  }
  st = dev->be->kernel_create(slot->bp, info->name, &k->bk);
  if (st != AG_OK) {
    free(k);
    goto done;
  }
  k->max_work_group = dev->be->kernel_max_work_group(k->bk);
  atomic_store_explicit(&dev->builtins.kernels[id], k, memory_order_release);
  *out = k;
done:
  pthread_mutex_unlock(&slot->lock);
  return st;
}

ag_status ag__builtin_kernel_get(ag_device *dev, ag__kernel_id id, const ag__builtin_kernel **out) {
  if ((unsigned)id >= AG__KERNEL_COUNT || ag__kernels[id].name == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "built-in kernel id %d names no kernel", (int)id);
  ag__builtin_kernel *k = atomic_load_explicit(&dev->builtins.kernels[id], memory_order_acquire);
  if (k != NULL) {
    *out = k;
    return AG_OK;
  }
  return first_use(dev, id, out);
}
