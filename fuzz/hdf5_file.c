/* fuzz/hdf5_file.c — anygpu-integrate's HDF5 frame reading (tools/integrate/frames.c) on any
   bytes written as a file, its dataset /data: this mostly fuzzes libhdf5's own decoding of a
   damaged file, which can crash Debian's libhdf5 1.10 itself (docs/fuzzing.md), so it is
   run over its corpus but not fuzzed in CI; fuzz/hdf5.c fuzzes the datasets frames.c reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hdf5_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(hdf5_target_file(), "wb");
  if (f == NULL)
    abort();
  if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  hdf5_target_read("/data", 2, 0, NULL, NULL);
  return 0;
}
