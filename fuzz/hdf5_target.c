/* fuzz/hdf5_target.c — the file, the frame reading and the checks that fuzz/hdf5.c and
   fuzz/hdf5_file.c share (hdf5_target.h), and the sanitizers' settings both need for libhdf5. */
#include "hdf5_target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "frames.h"

const char *__lsan_default_suppressions(void);
const char *__asan_default_options(void);

/* LeakSanitizer's suppressions, read at start: libhdf5 1.10 leaks on some of its own failure
   paths while it decodes a damaged file (an object header in H5Dopen2, for one), which is not
   anygpu's to fix. Only what is allocated inside the calls that decode the file is let go; a
   handle frames.c forgets to close is caught by the open-object count below, and anything
   else it allocates through HDF5 (a dataspace, a type, a property list) by LeakSanitizer. */
const char *__lsan_default_suppressions(void) {
  return "leak:H5Fopen\n"
         "leak:H5Dopen2\n"
         "leak:H5Lexists\n"
         "leak:H5Dread\n"
         "leak:H5Dclose\n"
         "leak:H5Fclose\n";
}

/* Debian's libhdf5 has no frame pointers: the suppressions see its functions only when
   allocations are traced with the slow unwinder. libhdf5 also allocates what a damaged header
   claims (4 GB, for one) before it finds the file shorter, which takes AddressSanitizer half a
   minute (the shadow of 4 GB) where plain malloc takes none: an allocation past 1 GB returns
   NULL, as malloc may (the targets' own take 64 MB at most). */
const char *__asan_default_options(void) {
  return "fast_unwind_on_malloc=0:allocator_may_return_null=1:max_allocation_size_mb=1024";
}

static char file[256], plugins[256];

static void remove_files(void) {
  unlink(file);
  rmdir(plugins);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Both targets' libFuzzer initialisation: the file each run writes, and an empty plugin folder
   under $TMPDIR, both removed at exit. */
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
  /* HDF5's filter plugins are kept out: their code is not anygpu's, and a dataset that needs
     one exercises the refusal of a missing filter. Read when HDF5 starts. */
  setenv("HDF5_PLUGIN_PATH", plugins, 1);
  /* A file opened by another process is not expected here: no locks. */
  setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
  /* HDF5 prints a trace of every failure on stderr by default. */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  return 0;
}

const char *hdf5_target_file(void) { return file; }

/* The most a batch may take: a dataset may claim any shape, and the reader allocates what the
   caller asks for, as anygpu-integrate sizes its batch from the frame's shape. */
enum { MAX_BATCH_BYTES = 64 << 20, MAX_BATCHES = 8 };

static void check_nothing_open(void) {
  if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0)
    abort();
}

bool hdf5_target_read(const char *dataset, size_t batch, int rank, const unsigned long long *dims,
                      const void *expected) {
  char spec[600], err[1024];
  snprintf(spec, sizeof spec, "%s:%s", file, dataset);
  frame_source *s;
  if (!frames_open(spec, &s, err, sizeof err)) {
    if (strstr(err, file) == NULL)
      abort(); /* every refusal names the file */
    check_nothing_open();
    return false;
  }
  npy_dtype dtype;
  size_t n, ny, nx;
  frames_info(s, &dtype, &n, &ny, &nx);
  size_t frame = npy_dtype_size(dtype);
  if (ny == 0 || nx == 0 || ny > SIZE_MAX / nx || frame > SIZE_MAX / (ny * nx))
    abort(); /* frames_open passes no empty frame, nor one whose size overflows */
  frame *= ny * nx;
  if (n != 0 && frame > SIZE_MAX / n)
    abort();
  if (dims != NULL) {
    /* The leading dimensions are the frames, the last two a frame's. */
    unsigned long long frames = 1;
    for (int d = 0; d + 2 < rank; d++)
      frames *= dims[d];
    if (rank < 2 || dims[rank - 2] != ny || dims[rank - 1] != nx || frames != n)
      abort();
  }
  if (frame <= MAX_BATCH_BYTES / batch) {
    unsigned char *got = malloc(batch * frame);
    if (got == NULL)
      abort();
    /* The first batches, and the last: a dataset may hold 2^40 frames. */
    for (size_t first = 0, k = 0; first < n; first += batch, k++) {
      if (k == MAX_BATCHES && n - first > batch)
        first = n - batch;
      size_t count = n - first < batch ? n - first : batch;
      if (!frames_read(s, first, count, got, err, sizeof err)) {
        if (strstr(err, file) == NULL)
          abort();
        break;
      }
      if (expected != NULL && memcmp(got, (const unsigned char *)expected + first * frame, count * frame) != 0)
        abort(); /* frames read are not the dataset's */
    }
    free(got);
  }
  frames_close(s);
  check_nothing_open();
  return true;
}
