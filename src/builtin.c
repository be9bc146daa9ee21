/* src/builtin.c — the built-in kernels of each device, built on first use and kept. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *family_names[] = {
#define AG__FAMILY_NAME(name) #name,
    AG__FAMILY_MAP(AG__FAMILY_NAME)
#undef AG__FAMILY_NAME
};

static ag_status build_family(ag_device *dev, ag__family family, ag__builtin_slot *slot) {
  ag__builtin_src src;
  memset(&src, 0, sizeof src);
  ag_status st = dev->be->builtin_find(family_names[family], &src);
  if (st != AG_OK)
    return st;
  if (src.source != NULL)
    return ag__program_build_cached(dev, NULL, src.source, src.options ? src.options : "", &slot->bp);
  if (src.binary != NULL)
    return dev->be->program_load(dev->bdev, src.binary, src.binary_size, &slot->bp);
  ag_program_desc desc = {.host_kernels = src.host_kernels, .host_kernel_count = src.host_kernel_count};
  return dev->be->program_build(dev->bdev, &desc, "", "", &slot->bp, NULL);
}

ag_status ag__builtin_kernel_get(ag_device *dev, ag__family family, const char *name,
                                 const ag__builtin_kernel **out) {
  ag__builtin_slot *slot = &dev->builtins[family];
  ag_status st = AG_OK;
  pthread_mutex_lock(&dev->lock);
  if (!slot->tried) {
    slot->tried = true;
    slot->status = build_family(dev, family, slot);
    if (slot->status != AG_OK)
      slot->message = strdup(ag_last_error());
  }
  if (slot->status != AG_OK) {
    st = ag__error(slot->status, "built-in kernels \"%s\" on %s: %s", family_names[family], dev->info.spec,
                   slot->message ? slot->message : "");
    goto done;
  }
  for (size_t i = 0; i < slot->nkernels; i++)
    if (strcmp(slot->kernels[i].name, name) == 0) {
      *out = &slot->kernels[i];
      goto done;
    }
  /* Kernels are appended, never moved: the array is allocated once per family with room for
     every kernel looked up, so pointers handed out stay valid. */
  if (slot->kernels == NULL && (slot->kernels = calloc(256, sizeof *slot->kernels)) == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for built-in kernels");
    goto done;
  }
  if (slot->nkernels == 256) {
    st = ag__error(AG_ERR_UNSUPPORTED, "built-in family \"%s\" has more than 256 kernels", family_names[family]);
    goto done;
  }
  ag__builtin_kernel *k = &slot->kernels[slot->nkernels];
  st = dev->be->kernel_create(slot->bp, name, &k->bk);
  if (st != AG_OK)
    goto done;
  k->name = name;
  k->max_work_group = dev->be->kernel_max_work_group(k->bk);
  slot->nkernels++;
  *out = k;
done:
  pthread_mutex_unlock(&dev->lock);
  return st;
}
