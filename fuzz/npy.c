/* fuzz/npy.c — the .npy reader (tests/npy.c, anygpu-integrate's) on any bytes, from memory:
   the header and the data are read, and what is read must be written and read back the same. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads @p size bytes of @p data as a .npy file into @p a; false when the reader refuses them. */
static bool read_memory(const uint8_t *data, size_t size, npy_array *a) {
  char err[512];
  /* fmemopen refuses a buffer of 0 bytes: an empty file is one byte read as nothing. */
  static const uint8_t none[1];
  FILE *f = fmemopen((void *)(size > 0 ? data : none), size > 0 ? size : 1, "rb");
  if (f == NULL)
    abort();
  if (size == 0)
    fgetc(f);
  bool ok = npy_read_stream(f, "fuzz.npy", a, err, sizeof err);
  fclose(f);
  /* Every refusal says why, naming the file. */
  if (!ok && strncmp(err, "fuzz.npy: ", 10) != 0)
    abort();
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npy_array a;
  if (!read_memory(data, size, &a))
    return 0;
  char *copy = NULL;
  size_t copy_size = 0;
  FILE *out = open_memstream(&copy, &copy_size);
  if (out == NULL)
    abort();
  char err[512];
  bool written = npy_write_header(out, "copy.npy", a.dtype, a.ndim, a.shape, err, sizeof err) &&
                 npy_write_data(out, "copy.npy", a.dtype, a.count, a.data, err, sizeof err);
  if (fclose(out) != 0 || !written)
    abort();
  npy_array b;
  if (!read_memory((const uint8_t *)copy, copy_size, &b))
    abort();
  size_t bytes = a.count * npy_dtype_size(a.dtype);
  if (b.dtype != a.dtype || b.ndim != a.ndim || b.count != a.count ||
      memcmp(b.shape, a.shape, sizeof a.shape) != 0 || (bytes > 0 && memcmp(a.data, b.data, bytes) != 0))
    abort();
  npy_free(&a);
  npy_free(&b);
  free(copy);
  return 0;
}
