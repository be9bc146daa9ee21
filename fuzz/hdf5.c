/* fuzz/hdf5.c — anygpu-integrate's HDF5 frame reading (tools/integrate/frames.c) on any bytes
   written as a file: frames_open on its dataset /data, then every frame read in batches of
   two. HDF5's filter plugins are kept out (HDF5_PLUGIN_PATH names an empty folder): their code
   is not anygpu's, and a dataset that needs one exercises the missing-filter refusal. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "frames.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);
const char *__asan_default_options(void);

/* LeakSanitizer's suppressions, read at start: libhdf5 1.10 leaks on some of its own failure
   paths while it decodes a damaged file (an object header in H5Dopen2, for one), which is not
   anygpu's to fix. Only what is allocated inside the calls that decode the file is let go; a
   handle frames.c forgets to close is caught by the open-object count below, and anything
   else it allocates through HDF5 (a dataspace, a type, a property list) by LeakSanitizer.
   Debian's libhdf5 has no frame pointers: the suppressions see its functions only when
   allocations are traced with the slow unwinder. libhdf5 also allocates what a damaged
   header claims (4 GB, for one) before it finds the file shorter, which takes AddressSanitizer
   half a minute (the shadow of 4 GB) where plain malloc takes none, and handles an allocation
   that fails: one past 1 GB returns NULL, as malloc may (the target's own take 64 MB). */
const char *__asan_default_options(void) {
  return "fast_unwind_on_malloc=0:allocator_may_return_null=1:max_allocation_size_mb=1024";
}

const char *__lsan_default_suppressions(void) {
  return "leak:H5Fopen\n"
         "leak:H5Dopen2\n"
         "leak:H5Lexists\n"
         "leak:H5Dread\n"
         "leak:H5Dclose\n"
         "leak:H5Fclose\n";
}

static char file[256], spec[300];

/* A file this process owns (the input is written there each run) and an empty plugin folder,
   under $TMPDIR; both are removed at exit. */
static char plugins[256];

static void remove_files(void) {
  unlink(file);
  rmdir(plugins);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  if (tmp == NULL || tmp[0] == '\0')
    tmp = "/tmp";
  snprintf(plugins, sizeof plugins, "%s/fuzz-hdf5-plugins-XXXXXX", tmp);
  if (mkdtemp(plugins) == NULL)
    abort();
  snprintf(file, sizeof file, "%s/fuzz-hdf5-XXXXXX", tmp);
  int fd = mkstemp(file);
  if (fd < 0)
    abort();
  close(fd);
  atexit(remove_files);
  snprintf(spec, sizeof spec, "%s:/data", file);
  /* Read when HDF5 starts, which is at the first call below. */
  setenv("HDF5_PLUGIN_PATH", plugins, 1);
  /* A file opened by another process is not expected here: no locks. */
  setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
  return 0;
}

/* The most a frame batch may take: a header may claim any shape, and the reader allocates
   what the caller asks for, as anygpu-integrate sizes its batch from the frame's shape. */
enum { MAX_BATCH_BYTES = 64 << 20 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *f = fopen(file, "wb");
  if (f == NULL)
    abort();
  if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  char err[1024];
  frame_source *s;
  if (!frames_open(spec, &s, err, sizeof err)) {
    if (strstr(err, file) == NULL)
      abort(); /* every refusal names the file */
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
      abort(); /* and leaves nothing open */
    return 0;
  }
  npy_dtype dtype;
  size_t n, ny, nx;
  frames_info(s, &dtype, &n, &ny, &nx);
  size_t frame = npy_dtype_size(dtype);
  if (ny > SIZE_MAX / nx || frame > SIZE_MAX / (ny * nx))
    abort(); /* frames_open passes no shape whose frame overflows */
  frame *= ny * nx;
  if (frame <= MAX_BATCH_BYTES / 2) {
    void *batch = malloc(2 * frame);
    if (batch == NULL)
      abort();
    for (size_t first = 0; first < n; first += 2) {
      size_t count = n - first < 2 ? n - first : 2;
      if (!frames_read(s, first, count, batch, err, sizeof err)) {
        if (strstr(err, file) == NULL)
          abort();
        break;
      }
    }
    free(batch);
  }
  frames_close(s);
  /* Every file and dataset frames.c opened is closed again. */
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
    abort();
  return 0;
}
