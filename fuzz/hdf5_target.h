/* fuzz/hdf5_target.h — what the two HDF5 fuzz targets share (hdf5_target.c, which also holds
   their LLVMFuzzerInitialize): the file each run writes and anygpu-integrate's frame reading
   (tools/integrate/frames.c) run on it, with its checks. */
#ifndef AG_FUZZ_HDF5_TARGET_H
#define AG_FUZZ_HDF5_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/** The file each run writes its input to. */
const char *hdf5_target_file(void);

/** frames_open on @p dataset of the run's file, then its frames read, @p batch at a time (the
    first 8 batches and the last).
    Aborts (a finding) when a refusal does not name the file, when an opened source's shape is
    not the dataset's (@p rank dimensions @p dims, or NULL not to check), when frames read are
    not @p expected (the dataset's bytes in the host's order of its type; NULL not to check),
    or when an HDF5 file or dataset is left open. Returns whether the dataset was opened. */
bool hdf5_target_read(const char *dataset, size_t batch, int rank, const unsigned long long *dims,
                      const void *expected);

#endif
