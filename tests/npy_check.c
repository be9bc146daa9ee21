/* tests/npy_check.c — tests/npy.c's reader on each file named, one line each, for
   tests/npy_numpy.py to compare with numpy.load: "ok DESCR DIMS HEX" (DIMS comma-separated, "-"
   for a scalar; HEX the data's bytes, "-" when empty) or "refused MESSAGE". */
#include <stdio.h>

#include "npy.h"

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    char err[512];
    npy_array a;
    if (!npy_read(argv[i], &a, err, sizeof err)) {
      printf("refused %s\n", err);
      continue;
    }
    printf("ok %s ", npy_dtype_descr(a.dtype));
    for (int d = 0; d < a.ndim; d++)
      printf("%s%zu", d > 0 ? "," : "", a.shape[d]);
    printf("%s ", a.ndim == 0 ? "-" : "");
    const unsigned char *p = a.data;
    size_t bytes = a.count * npy_dtype_size(a.dtype);
    for (size_t k = 0; k < bytes; k++)
      printf("%02x", p[k]);
    printf("%s\n", bytes == 0 ? "-" : "");
    npy_free(&a);
  }
  return 0;
}
