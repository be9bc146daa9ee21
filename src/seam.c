/* src/seam.c - the core's side of src/seam/seam.h: what the scientific layers ask of a device,
   their dtype checks, and host doubles to and from arrays. */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "seam/seam.h"

const ag_device_info *ag__dev_info(const ag_device *dev) { return &dev->info; }

/* AG__LAUNCH_ITEMS (the host) and AG__LAUNCH_CHUNKS (CPU OpenCL) both run a work-item's
   indices as a loop on one core. */
bool ag__device_walks_in_chunks(const ag_device *dev) { return dev->traits.launch != AG__LAUNCH_GRID; }

ag_status ag__check_takes(const char *fn, const char *name, const ag_array *a, ag__takes takes) {
  ag_status st = ag__check_array(fn, name, a);
  if (st != AG_OK)
    return st;
  static const char *const words[] = {
      [AG__TAKES_REAL] = "f32 and f64",
      [AG__TAKES_FLOAT] = "f32, f64, c64 and c128",
      [AG__TAKES_COMPLEX] = "c64 and c128",
  };
  bool ok = takes == AG__TAKES_REAL      ? ag__dtype_is_float(a->dtype)
            : takes == AG__TAKES_COMPLEX ? ag__dtype_is_complex(a->dtype)
                                         : ag__dtype_is_float(a->dtype) || ag__dtype_is_complex(a->dtype);
  if (!ok)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is %s, which %s does not take (it takes %s)", fn, name,
                     ag_dtype_name(a->dtype), fn, words[takes]);
  return AG_OK;
}

ag_status ag__check_fp64_arg(const char *fn, const char *what, const ag_device *dev, ag_dtype t) {
  if (ag__dtype_is_f64(t) && !dev->info.fp64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is %s, which needs double precision, which %s (%s) lacks", fn, what,
                     ag_dtype_name(t), dev->info.spec, dev->info.name);
  return AG_OK;
}

void *ag__doubles_as(ag_dtype t, size_t n, const double *v) {
  size_t reals = ag__dtype_is_complex(t) ? 2 * n : n;
  bool single = ag__dtype_real(t) == AG_F32;
  void *out = malloc((reals > 0 ? reals : 1) * (single ? sizeof(float) : sizeof(double)));
  if (out == NULL)
    return NULL;
  if (!single) {
    if (reals > 0)
      memcpy(out, v, reals * sizeof(double));
    return out;
  }
  for (size_t k = 0; k < reals; k++)
    ((float *)out)[k] = (float)v[k];
  return out;
}

ag_status ag__array_from_doubles(ag_device *dev, ag_dtype t, int ndim, const size_t *shape,
                                 const double *v, ag_array **out) {
  if (ag__dtype_real(t) == AG_F64) /* the doubles are the array's bytes already */
    return ag_array_from_host(dev, t, ndim, shape, v, out);
  size_t n = 1;
  for (int i = 0; i < ndim; i++)
    n *= shape[i];
  void *host = ag__doubles_as(t, n, v);
  if (host == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "no host memory for %zu values", n);
  ag_status st = ag_array_from_host(dev, t, ndim, shape, host, out);
  free(host);
  return st;
}

ag_status ag__array_to_doubles(const ag_array *a, double **out) {
  size_t reals = ag__dtype_is_complex(a->dtype) ? 2 * a->size : a->size;
  double *d = malloc((reals > 0 ? reals : 1) * sizeof *d);
  *out = NULL;
  if (d == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "no host memory for %zu values", reals);
  ag_status st;
  if (ag__dtype_real(a->dtype) == AG_F64) {
    st = ag_array_to_host(a, d, reals * sizeof *d);
  } else {
    float *f = malloc((reals > 0 ? reals : 1) * sizeof *f);
    if (f == NULL) {
      free(d);
      return ag__error(AG_ERR_OUT_OF_MEMORY, "no host memory for %zu values", reals);
    }
    st = ag_array_to_host(a, f, reals * sizeof *f);
    for (size_t i = 0; st == AG_OK && i < reals; i++)
      d[i] = f[i];
    free(f);
  }
  if (st != AG_OK) {
    free(d);
    return st;
  }
  *out = d;
  return AG_OK;
}

ag_status ag__array_write_host(ag_queue *q, const ag_array *a, const void *src, size_t bytes) {
  size_t offset = 0;
  ag_buffer *buf = ag_array_buffer(a, &offset);
  return ag_buffer_write(q, buf, offset, src, bytes);
}

bool ag__arrays_overlap(const ag_array *a, const ag_array *b) {
  if (a->store == NULL || b->store == NULL || a->store->buf != b->store->buf)
    return false;
  return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}
