/* src/builtin.c - the built-in kernels of each device, built on first use and kept. */
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

static uint64_t hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* The table slot holding @p name, or the empty one where it would go. */
static ag__builtin_kernel **find(ag__builtin_slot *slot, const char *name) {
  size_t mask = slot->capacity - 1;
  for (size_t i = hash(name) & mask;; i = (i + 1) & mask)
    if (slot->table[i] == NULL || strcmp(slot->table[i]->name, name) == 0)
      return &slot->table[i];
}

static bool grow(ag__builtin_slot *slot) {
  size_t cap = slot->capacity ? slot->capacity * 2 : 256;
  ag__builtin_kernel **old = slot->table;
  size_t oldcap = slot->capacity;
  slot->table = calloc(cap, sizeof *slot->table);
  if (slot->table == NULL) {
    slot->table = old;
    return false;
  }
  slot->capacity = cap;
  for (size_t i = 0; i < oldcap; i++)
    if (old[i] != NULL)
      *find(slot, old[i]->name) = old[i];
  free(old);
  return true;
}

ag_status ag__builtin_kernel_get(ag_device *dev, ag__family family, int variant, const char *name,
                                 const ag__builtin_kernel **out) {
  /* A family built once, or built per dtype by a backend whose program holds every dtype,
     has its one program in the first slot. */
  int v = families[family].per_dtype ? (dev->be->builtin_all_dtypes ? 0 : variant) : -1;
  ag__builtin_slot *slot = &dev->builtins[family][v < 0 ? 0 : v];
  ag_status st = AG_OK;
  pthread_mutex_lock(&dev->lock);
  if (!slot->tried) {
    slot->tried = true;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
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
  }
  if (slot->status != AG_OK) {
    st = ag__error(slot->status, "built-in kernels \"%s\" on %s: %s", families[family].name, dev->info.spec,
                   slot->message ? slot->message : "");
    goto done;
  }
  if (slot->capacity == 0 && !grow(slot)) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for built-in kernels");
    goto done;
  }
  ag__builtin_kernel **at = find(slot, name);
  if (*at != NULL) {
    *out = *at;
    goto done;
  }
  ag__builtin_kernel *k = calloc(1, sizeof *k);
  if (k == NULL || (k->name = strdup(name)) == NULL) {
    free(k);
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for built-in kernels");
    goto done;
  }
  st = dev->be->kernel_create(slot->bp, name, &k->bk);
  if (st != AG_OK) {
    free(k->name);
    free(k);
    goto done;
  }
  k->max_work_group = dev->be->kernel_max_work_group(k->bk);
  /* Keep the table at most half full, so probes stay short (and never full, so they end). */
  if (2 * (slot->count + 1) > slot->capacity) {
    if (!grow(slot) && slot->count + 2 >= slot->capacity) {
      dev->be->kernel_release(k->bk);
      free(k->name);
      free(k);
      st = ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for built-in kernels");
      goto done;
    }
    at = find(slot, name);
  }
  *at = k;
  slot->count++;
  *out = k;
done:
  pthread_mutex_unlock(&dev->lock);
  return st;
}
