/* src/load.c — how busy a device is: the memory in use, from the driver where it can say and
   from anygpu's own pool where it cannot, weighted as sporco's gpu_load weights it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static ag_status check_weight(const char *fn, const char *name, double w) {
  if (!isfinite(w) || w < 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is %g: a weight must be a finite number >= 0", fn, name, w);
  return AG_OK;
}

ag_status ag_device_get_load(const ag_device *dev, double wproc, double wmem, ag_device_load *load) {
  static const char fn[] = "ag_device_get_load";
  AG__CHECK_NOT_NULL(fn, dev);
  AG__CHECK_NOT_NULL(fn, load);
  ag_status st = check_weight(fn, "wproc", wproc);
  if (st == AG_OK)
    st = check_weight(fn, "wmem", wmem);
  if (st != AG_OK)
    return st;
  if (wproc + wmem <= 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: wproc and wmem are both 0: at least one weight must be positive",
                     fn);

  ag_device *d = (ag_device *)dev;
  ag_device_load l;
  memset(&l, 0, sizeof l);
  size_t free_bytes = 0, total = 0;
  st = AG_ERR_UNSUPPORTED;
  if (d->be->mem_info != NULL) {
    /* A driver that cannot say is not a failure of this call: keep the caller's last error. */
    char *saved = ag__error_save();
    st = d->be->mem_info(d->bdev, &free_bytes, &total);
    if (st == AG_ERR_UNSUPPORTED)
      ag__error_restore(saved);
    else
      free(saved);
  }
  if (st == AG_OK && total > 0 && free_bytes <= total) {
    l.memory_total = total;
    l.memory_used = total - free_bytes;
    l.memory_from_driver = true;
  } else if (st == AG_OK || st == AG_ERR_UNSUPPORTED) {
    ag_pool_stats ps;
    ag__pool_stats(d, &ps);
    l.memory_total = d->info.global_memory;
    l.memory_used = ps.bytes_in_use + ps.bytes_cached;
  } else {
    return ag__prefix(st, fn);
  }
  l.memory = l.memory_total > 0 ? (double)l.memory_used / (double)l.memory_total : 1.0;
  if (l.memory > 1)
    l.memory = 1;
  /* No backend measures how busy its processor is yet, so it weighs in as idle. */
  l.processor = 0;
  l.processor_known = false;
  l.weighted = (wproc * l.processor + wmem * l.memory) / (wproc + wmem);
  *load = l;
  return AG_OK;
}
