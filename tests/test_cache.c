/* tests/test_cache.c — the disk kernel cache ($ANYGPU_CACHE_DIR): compiled programs written
   once, loaded by later processes, rebuilt when damaged, keyed by build options, and nothing
   written when turned off or on the host (which compiles nothing); and, on the host, FFTW's
   wisdom kept in the same folder: written by the process that measured plans, loaded by later
   ones, which then compute the same results, merged between processes, replaced when damaged
   or foreign, and nothing written when the cache is off.

   Each test points ANYGPU_CACHE_DIR at a fresh folder before the library is first used, and
   does every library call in forked children: a child is the "later process" that must find
   the cache, and this process, which never initialises the library, can fork as often as it
   likes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fft_reference.h"
#include "programs.h"
#include "runner.h"

/* What a child does, on which device. */
typedef struct job {
  const char *spec;
  const char *options; /* build options of the program */
  bool fill;           /* also fill with an 8-byte pattern (the built-in "fill" kernels) */
  bool program;        /* create, launch and check the test program */
  bool broken;         /* create a program that does not compile, expecting the failure */
  bool add;            /* add two float32 arrays (one kernel of the built-in "elementwise") */
  unsigned ffts;       /* FFT_* transforms to run and check against the naive DFT */
  const char *save;    /* when set, each transform's output goes to the file SAVE.<index> */
} job;

/* The transforms a job may run: small, so that measuring their plans takes little time, of
   lengths with factors 2, 3 and 5, in both precisions. */
enum { FFT_2D_C128 = 1, FFT_1D_C64 = 2, FFT_1D_C128 = 4 };
static const struct fft_case {
  ag_dtype dtype;
  int ndim, rank;
  size_t shape[2];
} fft_cases[] = {
    {AG_C128, 2, 2, {24, 40}}, /* FFT_2D_C128: one 24 x 40 frame */
    {AG_C64, 2, 1, {3, 96}},   /* FFT_1D_C64: 3 rows of 96 */
    {AG_C128, 2, 1, {5, 48}},  /* FFT_1D_C128: 5 rows of 48 */
};
enum { FFT_CASES = sizeof fft_cases / sizeof fft_cases[0] };

static int child_fail(const job *j, const char *what, ag_status st) {
  fprintf(stderr, "%s: child: %s: %s: %s\n", j->spec, what, ag_status_name(st), ag_last_error());
  return 1;
}

/* Runs transform @p k of fft_cases forward on random input and checks each element against
   the naive DFT (fft_reference.c) to 8 eps log2(N) times the RMS of its transform: the bound
   test_fft.c derives for FFTs with accurate twiddles, which a wrong plan (a misplaced element,
   a wrong sign or axis) misses by about 1. Writes the output's bytes to "SAVE.k" when @p save
   is set. Returns 0, or 1 having said why on stderr. */
static int run_fft(const job *j, ag_device *dev, int k, const char *save) {
  const struct fft_case *c = &fft_cases[k];
  size_t n = c->shape[0] * c->shape[1], per = fftref_points(c->ndim, c->shape, c->rank), esize = ref_size(c->dtype);
  void *in = test_alloc(n * esize), *out = test_alloc(n * esize);
  ref_c *x = test_alloc(n * sizeof *x), *want = test_alloc(n * sizeof *want);
  long double *scale = test_alloc(n * sizeof *scale);
  ref_random(c->dtype, in, n, 100 + (uint64_t)k, -1, 1);
  ag_array *a = NULL, *b = NULL;
  ag_status st = ag_array_from_host(dev, c->dtype, c->ndim, c->shape, in, &a);
  if (st == AG_OK)
    st = ag_array_create(dev, c->dtype, c->ndim, c->shape, &b);
  if (st == AG_OK)
    st = ag_fft(NULL, a, c->rank, AG_FFT_BACKWARD, b);
  if (st == AG_OK)
    st = ag_array_to_host(b, out, n * esize);
  ag_array_free(a);
  ag_array_free(b);
  int rc = 0;
  if (st != AG_OK) {
    rc = child_fail(j, "a transform", st);
  } else {
    for (size_t i = 0; i < n; i++)
      x[i] = ref_get(c->dtype, in, i);
    fftref_dft(x, want, c->ndim, c->shape, c->rank, -1);
    for (size_t t = 0; t < n / per; t++) {
      long double ss = 0;
      for (size_t i = 0; i < per; i++)
        ss += cabsl(want[t * per + i]) * cabsl(want[t * per + i]);
      for (size_t i = 0; i < per; i++)
        scale[t * per + i] = sqrtl(ss / (long double)per);
    }
    double eps = c->dtype == AG_C64 ? 0x1p-23 : 0x1p-52;
    char msg[512];
    if (ref_compare(c->dtype, out, want, scale, n, (ref_tol){8 * eps * log2((double)per), 0}, msg, sizeof msg) != n) {
      fprintf(stderr, "%s: child: transform %d (%s) differs from the naive DFT: %s\n", j->spec, k,
              ref_name(c->dtype), msg);
      rc = 1;
    }
  }
  if (rc == 0 && save != NULL) {
    char path[700];
    snprintf(path, sizeof path, "%s.%d", save, k);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(out, esize, n, f) != n || fclose(f) != 0) {
      fprintf(stderr, "%s: child: cannot write %s: %s\n", j->spec, path, strerror(errno));
      rc = 1;
    }
  }
  free(in);
  free(out);
  free(x);
  free(want);
  free(scale);
  return rc;
}

/* Adds two float32 arrays of 1000 small integers on @p dev and checks every sum, which is
   exact. Returns 0, or 1 having said why on stderr. */
static int run_add(const job *j, ag_device *dev) {
  enum { N = 1000 };
  float a[N], b[N], out[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = (float)(2 * i + 1);
  }
  size_t shape[1] = {N};
  ag_array *x = NULL, *y = NULL, *z = NULL;
  ag_status st = ag_array_from_host(dev, AG_F32, 1, shape, a, &x);
  if (st == AG_OK)
    st = ag_array_from_host(dev, AG_F32, 1, shape, b, &y);
  if (st == AG_OK)
    st = ag_array_create(dev, AG_F32, 1, shape, &z);
  if (st == AG_OK)
    st = ag_add(NULL, x, y, z);
  if (st == AG_OK)
    st = ag_array_to_host(z, out, sizeof out);
  ag_array_free(x);
  ag_array_free(y);
  ag_array_free(z);
  if (st != AG_OK)
    return child_fail(j, "adding two float32 arrays", st);
  for (int i = 0; i < N; i++)
    if (out[i] != (float)(3 * i + 1)) {
      fprintf(stderr, "%s: child: element %d of the sum is %g, not %d\n", j->spec, i, out[i], 3 * i + 1);
      return 1;
    }
  return 0;
}

static int run_job(void *arg) {
  const job *j = arg;
  ag_device *dev = NULL;
  ag_status st = ag_device_select(j->spec, &dev);
  if (st != AG_OK)
    return child_fail(j, "ag_device_select", st);
  if (j->program) {
    char why[512];
    if (programs_build_and_run(dev, j->options, 5000, why, sizeof why) != 0) {
      fprintf(stderr, "%s: child: %s\n", j->spec, why);
      return 1;
    }
  }
  if (j->broken) {
    ag_program_desc desc = programs_broken_desc();
    ag_program *p = NULL;
    st = ag_program_create(dev, &desc, &p);
    ag_status want = strcmp(j->spec, "host") == 0 ? AG_ERR_UNSUPPORTED : AG_ERR_BUILD;
    if (st != want) {
      ag_program_destroy(p);
      fprintf(stderr, "%s: child: a broken program gave %s, expected %s: %s\n", j->spec, ag_status_name(st),
              ag_status_name(want), ag_last_error());
      return 1;
    }
  }
  if (j->add && run_add(j, dev) != 0)
    return 1;
  if (j->fill) {
    enum { N = 4096 };
    uint64_t out[N];
    const uint64_t pattern = 0x0123456789abcdefull;
    ag_buffer *b = NULL;
    if ((st = ag_buffer_alloc(dev, sizeof out, &b)) != AG_OK)
      return child_fail(j, "ag_buffer_alloc", st);
    st = ag_buffer_fill(NULL, b, 0, &pattern, sizeof pattern, sizeof out);
    if (st == AG_OK)
      st = ag_buffer_read(NULL, b, 0, out, sizeof out);
    ag_buffer_free(b);
    if (st != AG_OK)
      return child_fail(j, "filling with an 8-byte pattern", st);
    for (int i = 0; i < N; i++)
      if (out[i] != pattern) {
        fprintf(stderr, "%s: child: word %d of the fill is 0x%016llx\n", j->spec, i, (unsigned long long)out[i]);
        return 1;
      }
  }
  for (int k = 0; k < FFT_CASES; k++)
    if ((j->ffts & (1u << k)) && run_fft(j, dev, k, j->save) != 0)
      return 1;
  return 0;
}

/* Runs @p j in a child and asserts that it succeeded. */
static void run_in_child(const job *j, const char *what) {
  int rc = test_run_child(run_job, (void *)j);
  ck_assert_msg(rc == 0, "%s: the child that %s exited with %d (see its stderr)", test_label(), what, rc);
}

/* ---- the cache folder ------------------------------------------------------------------------ */

static char root[512];
static pid_t root_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Only the process that made the folder removes it; its children exit through here too. */
static void remove_root(void) {
  if (root[0] != '\0' && getpid() == root_owner)
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh folder for this test, removed when the test process exits normally (a failed test
   leaves it for a look). It is made in $ANYGPU_TEST_TMPDIR (meson points it into the build
   tree), else $TMPDIR, else /tmp. Returns its path. */
static const char *fresh_root(void) {
  const char *tmp = getenv("ANYGPU_TEST_TMPDIR");
  if (tmp != NULL && *tmp != '\0')
    mkdir(tmp, 0755);
  else
    tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/anygpu-cache-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_msg(mkdtemp(root) != NULL, "mkdtemp(%s): %s", root, strerror(errno));
  if (root_owner == 0)
    atexit(remove_root);
  root_owner = getpid();
  /* pocl and Mesa (rusticl) keep compile caches of their own in $XDG_CACHE_HOME or ~/.cache,
     and NVIDIA's driver (CUDA and its OpenCL) in ~/.nv/ComputeCache, which some tests watch;
     give each a folder beside ours unless the caller chose one. */
  static const char *const drivers[][2] = {
      {"POCL_CACHE_DIR", "pocl"}, {"MESA_SHADER_CACHE_DIR", "mesa"}, {"CUDA_CACHE_PATH", "nv"}};
  for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
    if (getenv(drivers[i][0]) == NULL) {
      char dir[600];
      snprintf(dir, sizeof dir, "%s/anygpu-test-%s-cache", tmp && *tmp ? tmp : "/tmp", drivers[i][1]);
      setenv(drivers[i][0], dir, 1);
    }
  return root;
}

/* A fresh cache folder named by ANYGPU_CACHE_DIR. */
static const char *fresh_cache(char *dir, size_t size) {
  snprintf(dir, size, "%s/cache", fresh_root());
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  ck_assert_int_eq(setenv("ANYGPU_CACHE_DIR", dir, 1), 0);
  return dir;
}

/* The entries of @p dir (none when it does not exist), the first one's path in @p first. */
static int count_entries(const char *dir, char *first, size_t size) {
  DIR *d = opendir(dir);
  if (d == NULL)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (n == 0 && first != NULL)
      snprintf(first, size, "%s/%s", dir, e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

/* Asserts that @p dir holds exactly @p want files, all named *.bin. */
static void check_files(const char *dir, int want, const char *when) {
  DIR *d = opendir(dir);
  int n = 0;
  if (d != NULL) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      size_t len = strlen(e->d_name);
      ck_assert_msg(len > 4 && strcmp(e->d_name + len - 4, ".bin") == 0, "%s: %s: the cache holds \"%s\"",
                    test_label(), when, e->d_name);
      n++;
    }
    closedir(d);
  }
  ck_assert_msg(n == want, "%s: %s: the cache holds %d files, expected %d", test_label(), when, n, want);
}

/* Whether the backend under test compiles programs. */
static bool compiles(void) { return !test_backend_is("host"); }

/* What a child reports of a device in its exit status: */
enum {
  DEVICE_DRIVER_CACHES = 1, /* its driver keeps its own program cache in place of anygpu's
                               (driver quirk binary-compiles-all) */
  DEVICE_POCL = 2,          /* it is a pocl device */
  DEVICE_UNKNOWN = 4,       /* the child could not open it */
};

static int run_device_kind(void *arg) {
  const char *spec = arg;
  ag_device *dev = NULL;
  ag_device_info info;
  if (ag_device_select(spec, &dev) != AG_OK || ag_device_get_info(dev, &info) != AG_OK) {
    fprintf(stderr, "%s: child: %s\n", spec, ag_last_error());
    return DEVICE_UNKNOWN;
  }
  return (strstr(info.quirks, "binary-compiles-all") ? DEVICE_DRIVER_CACHES : 0) |
         (strstr(info.platform, "Portable Computing Language") ? DEVICE_POCL : 0);
}

/* The DEVICE_* flags of device @p i, asked in a child, so this process opens no device. */
static int device_kind(int i) {
  int rc = test_run_child(run_device_kind, (void *)test_spec(i));
  ck_assert_msg(rc >= 0 && rc < DEVICE_UNKNOWN, "%s: the child that looked at the device exited with %d",
                test_spec(i), rc);
  return rc;
}

/* Whether anygpu keeps device @p i's compiled programs in its own disk cache: devices that
   compile, except those whose driver keeps them itself (docs/kernels.md, "The kernel
   cache"). */
static bool anygpu_caches(int i) { return compiles() && !(device_kind(i) & DEVICE_DRIVER_CACHES); }

/* For a device whose driver keeps the programs anygpu builds (pocl), and which anygpu therefore
   does not cache: runs @p j twice, checks that both runs work and that the cache folder @p dir
   stays empty, says so, and returns true. Returns false, doing nothing, for other devices. */
static bool left_to_the_driver(int i, const job *j, const char *dir) {
  if (!compiles() || anygpu_caches(i))
    return false;
  run_in_child(j, "built a program its driver caches");
  run_in_child(j, "built a program its driver caches again");
  check_files(dir, 0, "on a device whose driver keeps its own cache");
  printf("%s: the driver keeps its own program cache (quirk binary-compiles-all): anygpu's cache is checked "
         "to stay empty\n",
         test_spec(i));
  return true;
}

typedef struct file_id {
  ino_t ino;
  off_t size;
  struct timespec mtime;
} file_id;

static file_id identify(const char *path) {
  struct stat st;
  ck_assert_msg(stat(path, &st) == 0, "%s: stat(%s): %s", test_label(), path, strerror(errno));
  return (file_id){.ino = st.st_ino, .size = st.st_size, .mtime = st.st_mtim};
}

static bool same_file(file_id a, file_id b) {
  return a.ino == b.ino && a.size == b.size && a.mtime.tv_sec == b.mtime.tv_sec &&
         a.mtime.tv_nsec == b.mtime.tv_nsec;
}

/* Builds the test program once in a child, so the cache holds exactly its file. Returns the
   file's path in @p path. */
static void prime(const job *j, const char *dir, char *path, size_t size) {
  run_in_child(j, "built the program first");
  check_files(dir, 1, "after the first build");
  ck_assert_int_eq(count_entries(dir, path, size), 1);
}

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "fopen(%s): %s", path, strerror(errno));
  ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  ck_assert_int_gt(n, 0);
  rewind(f);
  unsigned char *data = malloc((size_t)n);
  ck_assert_ptr_nonnull(data);
  ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* Overwrites @p path in place (same inode) with @p data. */
static void write_in_place(const char *path, const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_TRUNC);
  ck_assert_msg(fd >= 0, "open(%s): %s", path, strerror(errno));
  ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
  ck_assert_int_eq(close(fd), 0);
}

/* ---- tests ----------------------------------------------------------------------------------- */

START_TEST(a_program_is_compiled_once_then_loaded) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .program = true};
  if (!compiles()) {
    run_in_child(&j, "built a host program");
    run_in_child(&j, "built a host program again");
    check_files(dir, 0, "after host programs");
    return;
  }
  if (left_to_the_driver(_i, &j, dir))
    return;
  prime(&j, dir, path, sizeof path);
  file_id first = identify(path);
  run_in_child(&j, "built the same program in a new process");
  check_files(dir, 1, "after the second build");
  ck_assert_msg(same_file(identify(path), first), "%s: a second process rewrote %s instead of loading it",
                test_name_device(_i), path);
  run_in_child(&j, "built the same program in a third process");
  ck_assert_msg(same_file(identify(path), first), "%s: a third process rewrote %s", test_name_device(_i), path);
}
END_TEST

START_TEST(other_build_options_make_another_file) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .program = true};
  job variant = {.spec = test_name_device(_i), .program = true, .options = "-DAG_TEST_VARIANT=3"};
  if (!compiles()) {
    run_in_child(&variant, "built a host program with options");
    check_files(dir, 0, "after a host program with options");
    return;
  }
  if (left_to_the_driver(_i, &variant, dir))
    return;
  prime(&j, dir, path, sizeof path);
  file_id first = identify(path);
  run_in_child(&variant, "built the program with other options");
  check_files(dir, 2, "after building with other options");
  ck_assert_msg(same_file(identify(path), first), "%s: building with other options rewrote the first file",
                test_name_device(_i));
  /* Both are then loaded, not rewritten. */
  run_in_child(&variant, "built the program with other options again");
  run_in_child(&j, "built the program again");
  check_files(dir, 2, "after building both again");
  ck_assert_msg(same_file(identify(path), first), "%s: the first file was rewritten", test_name_device(_i));
}
END_TEST

/* Damages the cache file with @p damage, then checks that a new process rebuilds it (the file
   is replaced, the program works) and that the process after that loads the new file. */
static void check_rebuilt(int i, void (*damage)(const char *path), const char *what) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(i), .program = true};
  if (left_to_the_driver(i, &j, dir))
    return;
  prime(&j, dir, path, sizeof path);
  damage(path);
  file_id damaged = identify(path);
  run_in_child(&j, what);
  check_files(dir, 1, what);
  file_id rebuilt = identify(path);
  ck_assert_msg(!same_file(rebuilt, damaged), "%s: %s: the damaged file was not rewritten", test_name_device(i),
                what);
  run_in_child(&j, "loaded the rebuilt file");
  ck_assert_msg(same_file(identify(path), rebuilt), "%s: %s: the rebuilt file was rewritten again",
                test_name_device(i), what);
}

static void truncate_half(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  write_in_place(path, data, size / 2);
  free(data);
}

static void truncate_one_byte(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  write_in_place(path, data, size - 1);
  free(data);
}

static void flip_last_byte(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  data[size - 1] ^= 0x40;
  write_in_place(path, data, size);
  free(data);
}

static void flip_middle_byte(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  data[size / 2] ^= 0x01;
  write_in_place(path, data, size);
  free(data);
}

static void empty_file(const char *path) { write_in_place(path, "", 0); }

START_TEST(a_truncated_file_is_rebuilt) {
  check_rebuilt(_i, truncate_half, "loaded a file cut in half");
  remove_root();
  check_rebuilt(_i, truncate_one_byte, "loaded a file one byte short");
  remove_root();
  check_rebuilt(_i, empty_file, "loaded an empty file");
}
END_TEST

START_TEST(a_corrupted_file_is_rebuilt) {
  check_rebuilt(_i, flip_last_byte, "loaded a file with a flipped payload byte");
  remove_root();
  check_rebuilt(_i, flip_middle_byte, "loaded a file with a flipped byte in the middle");
}
END_TEST

/* The cache's file layout, as src/cache.c writes it: magic (8 bytes), key length (u64), key,
   payload length (u64), FNV-1a 64 checksum of the payload (u64), payload. A file with valid
   framing and a payload the driver rejects can only be made by knowing it. */
static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* Rewrites the payload of the cache file @p path with @p edit, keeping the framing valid. */
static void edit_payload(const char *path, void (*edit)(unsigned char *payload, size_t n)) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  uint64_t klen, plen;
  ck_assert_uint_gt(size, 16);
  memcpy(&klen, data + 8, 8);
  size_t head = 8 + 8 + (size_t)klen;
  ck_assert_msg(head + 16 < size, "%s: the cache file does not have the expected layout", path);
  memcpy(&plen, data + head, 8);
  ck_assert_uint_eq(head + 16 + plen, size);
  edit(data + head + 16, (size_t)plen);
  uint64_t sum = fnv1a(data + head + 16, (size_t)plen);
  memcpy(data + head + 8, &sum, 8);
  write_in_place(path, data, size);
  free(data);
}

static void garbage_payload(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  uint64_t klen;
  ck_assert_uint_gt(size, 16);
  memcpy(&klen, data + 8, 8);
  size_t head = 8 + 8 + (size_t)klen;
  ck_assert_msg(head + 16 < size, "%s: the cache file does not have the expected layout", path);
  enum { GARBAGE = 4096 };
  unsigned char *out = malloc(head + 16 + GARBAGE);
  ck_assert_ptr_nonnull(out);
  memcpy(out, data, head);
  uint64_t plen = GARBAGE;
  unsigned char *payload = out + head + 16;
  test_fill_bytes(payload, GARBAGE, 1234);
  uint64_t sum = fnv1a(payload, GARBAGE);
  memcpy(out + head, &plen, 8);
  memcpy(out + head + 8, &sum, 8);
  write_in_place(path, out, head + 16 + GARBAGE);
  free(out);
  free(data);
}

/* FFTW's wisdom names a solver on each line after the first ("(fftw_codelet_n1_8_avx 0 #x...");
   a name FFTW does not have makes it refuse the whole text. */
static void rename_a_solver(unsigned char *payload, size_t n) {
  unsigned char *line = memchr(payload, '\n', n);
  ck_assert_msg(line != NULL && (size_t)(line - payload) + 8 < n, "the wisdom has no second line");
  unsigned char *name = memchr(line, '(', n - (size_t)(line - payload));
  ck_assert_msg(name != NULL && name[1] == 'f', "the wisdom's second line names no solver");
  name[1] = 'q';
}

static void unknown_solver(const char *path) { edit_payload(path, rename_a_solver); }

/* Another key under the same file name: the wisdom of another machine, FFTW or thread count. */
static void foreign_key(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  uint64_t klen;
  memcpy(&klen, data + 8, 8);
  ck_assert_uint_gt(klen, 0);
  data[16 + klen - 1] ^= 0x01;
  write_in_place(path, data, size);
  free(data);
}

START_TEST(a_payload_the_driver_rejects_is_rebuilt) {
  check_rebuilt(_i, garbage_payload, "loaded a well-framed file with a garbage payload");
}
END_TEST

/* A child for the test below: after a failure of its own, a program whose cache file the
   driver rejects is created; the successful creation must leave ag_last_error() alone. */
static int run_keeps_last_error(void *arg) {
  const job *j = arg;
  ag_device *dev = NULL;
  if (ag_device_select(j->spec, &dev) != AG_OK)
    return child_fail(j, "ag_device_select", AG_ERR_NO_DEVICE);
  ag_buffer *b = NULL;
  ag_buffer_alloc(dev, 0, &b);
  char before[512];
  snprintf(before, sizeof before, "%s", ag_last_error());
  ag_program_desc desc = programs_desc();
  ag_program *p = NULL;
  ag_status st = ag_program_create(dev, &desc, &p);
  if (st != AG_OK)
    return child_fail(j, "ag_program_create", st);
  ag_program_destroy(p);
  if (strcmp(ag_last_error(), before) != 0) {
    fprintf(stderr, "%s: child: a successful ag_program_create changed ag_last_error() from \"%s\" to \"%s\"\n",
            j->spec, before, ag_last_error());
    return 1;
  }
  return 0;
}

START_TEST(a_rejected_file_leaves_the_last_error_alone) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .program = true};
  if (left_to_the_driver(_i, &j, dir))
    return;
  prime(&j, dir, path, sizeof path);
  garbage_payload(path);
  int rc = test_run_child(run_keeps_last_error, &j);
  ck_assert_msg(rc == 0,
                "%s: after a cache file was rejected, ag_program_create succeeded but ag_last_error() "
                "changed (see the child's stderr)",
                test_name_device(_i));
}
END_TEST

START_TEST(a_program_that_fails_to_build_is_not_cached) {
  char dir[600];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .broken = true};
  run_in_child(&j, "built a program that does not compile");
  check_files(dir, 0, "after a failed build");
}
END_TEST

START_TEST(an_unusable_cache_folder_does_not_stop_builds) {
  fresh_root();
  /* A folder below a regular file can be neither made nor written. */
  char file[600], dir[700];
  snprintf(file, sizeof file, "%s/a-file", root);
  FILE *f = fopen(file, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/cache", file);
  setenv("ANYGPU_CACHE_DIR", dir, 1);
  job j = {.spec = test_name_device(_i), .program = true, .fill = true};
  run_in_child(&j, "built a program with an unusable cache folder");
  run_in_child(&j, "built a program with an unusable cache folder again");
  struct stat st;
  ck_assert_int_eq(stat(file, &st), 0);
  ck_assert_msg(S_ISREG(st.st_mode) && st.st_size == 0, "%s: the file in the cache's way was changed",
                test_name_device(_i));
}
END_TEST

/* Several processes that build one program at once each leave a whole file, so one file
   remains and it loads. */
START_TEST(processes_building_at_once_leave_one_whole_file) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .program = true};
  enum { PROCESSES = 4 };
  pid_t pid[PROCESSES];
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < PROCESSES; k++) {
    pid[k] = fork();
    ck_assert_int_ge(pid[k], 0);
    if (pid[k] == 0)
      exit(run_job(&j));
  }
  for (int k = 0; k < PROCESSES; k++) {
    int status = 0;
    ck_assert_int_eq(waitpid(pid[k], &status, 0), pid[k]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: builder %d ended with status 0x%x",
                  test_name_device(_i), k, status);
  }
  if (!anygpu_caches(_i)) {
    check_files(dir, 0, compiles() ? "after builds at once on a device whose driver caches"
                                   : "after host programs built at once");
    return;
  }
  check_files(dir, 1, "after building at once");
  ck_assert_int_eq(count_entries(dir, path, sizeof path), 1);
  file_id id = identify(path);
  run_in_child(&j, "loaded the file left by builders at once");
  ck_assert_msg(same_file(identify(path), id), "%s: the file left by builders at once was rewritten",
                test_name_device(_i));
}
END_TEST

/* The folders a cache turned off must leave alone: a home, an XDG cache and a working folder,
   all empty. */
typedef struct empty_folders {
  char home[600], xdg[600], cwd[600];
} empty_folders;

/* Sets ANYGPU_CACHE_DIR=off with HOME, XDG_CACHE_HOME and the working folder pointed at
   empty folders. */
static void cache_off_beside_empty_folders(empty_folders *f) {
  fresh_root();
  snprintf(f->home, sizeof f->home, "%s/home", root);
  snprintf(f->xdg, sizeof f->xdg, "%s/xdg", root);
  snprintf(f->cwd, sizeof f->cwd, "%s/cwd", root);
  ck_assert_int_eq(mkdir(f->home, 0755), 0);
  ck_assert_int_eq(mkdir(f->xdg, 0755), 0);
  ck_assert_int_eq(mkdir(f->cwd, 0755), 0);
  setenv("HOME", f->home, 1);
  setenv("XDG_CACHE_HOME", f->xdg, 1);
  setenv("ANYGPU_CACHE_DIR", "off", 1);
  ck_assert_int_eq(chdir(f->cwd), 0);
}

/* Fails naming the first entry when @p dir is not empty. */
static void check_empty(const char *dir, const char *what, int i) {
  char first[900] = "";
  ck_assert_msg(count_entries(dir, first, sizeof first) == 0, "%s: %s: %s was written", test_name_device(i), what,
                first);
}

static void check_still_empty(const empty_folders *f, int i) {
  check_empty(f->home, "ANYGPU_CACHE_DIR=off wrote in $HOME", i);
  check_empty(f->xdg, "ANYGPU_CACHE_DIR=off wrote in $XDG_CACHE_HOME", i);
  check_empty(f->cwd, "ANYGPU_CACHE_DIR=off wrote in the working folder", i);
}

START_TEST(cache_dir_off_writes_nothing) {
  empty_folders f;
  cache_off_beside_empty_folders(&f);
  job j = {.spec = test_name_device(_i), .program = true, .fill = true};
  run_in_child(&j, "built a program with the cache off");
  run_in_child(&j, "built a program with the cache off again");
  check_still_empty(&f, _i);
}
END_TEST

START_TEST(without_cache_dir_the_cache_is_in_xdg_cache_home) {
  fresh_root();
  char home[600], xdg[600], in_xdg[700], in_home[700];
  snprintf(home, sizeof home, "%s/home", root);
  snprintf(xdg, sizeof xdg, "%s/xdg", root);
  ck_assert_int_eq(mkdir(home, 0755), 0);
  ck_assert_int_eq(mkdir(xdg, 0755), 0);
  setenv("HOME", home, 1);
  setenv("XDG_CACHE_HOME", xdg, 1);
  unsetenv("ANYGPU_CACHE_DIR");
  snprintf(in_xdg, sizeof in_xdg, "%s/anygpu", xdg);
  snprintf(in_home, sizeof in_home, "%s/.cache/anygpu", home);
  job j = {.spec = test_name_device(_i), .program = true};
  run_in_child(&j, "built a program with the default cache folder");
  int want = anygpu_caches(_i) ? 1 : 0;
  check_files(in_xdg, want, "in $XDG_CACHE_HOME/anygpu");
  check_empty(home, "with XDG_CACHE_HOME set, the cache went to $HOME", _i);
  /* Without XDG_CACHE_HOME, ~/.cache/anygpu. */
  unsetenv("XDG_CACHE_HOME");
  run_in_child(&j, "built a program with the cache in HOME");
  check_files(in_home, want, "in ~/.cache/anygpu");
}
END_TEST

START_TEST(built_in_kernels_go_through_the_cache) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .fill = true};
  run_in_child(&j, "filled with an 8-byte pattern");
  /* OpenCL compiles the built-in kernels from source on first use; the host has them in C and
     CUDA precompiled by nvcc, so neither compiles anything; and pocl keeps what it compiles
     itself. */
  int want = test_backend_is("opencl") && anygpu_caches(_i) ? 1 : 0;
  check_files(dir, want, "after a fill with an 8-byte pattern");
  if (want == 0)
    return;
  ck_assert_int_eq(count_entries(dir, path, sizeof path), 1);
  file_id first = identify(path);
  run_in_child(&j, "filled with an 8-byte pattern again");
  ck_assert_msg(same_file(identify(path), first), "%s: a second process rewrote the built-in kernels' file",
                test_name_device(_i));
  flip_last_byte(path);
  file_id damaged = identify(path);
  run_in_child(&j, "filled after the built-in kernels' file was damaged");
  ck_assert_msg(!same_file(identify(path), damaged), "%s: the damaged built-in kernels' file was not rebuilt",
                test_name_device(_i));
}
END_TEST

/* The files named *.so under a folder, at any depth: pocl keeps each kernel it has compiled to
   machine code as a shared object in its cache. */
static int shared_objects;

static int count_shared_object(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  size_t len = strlen(path);
  if (flag == FTW_F && len > 3 && strcmp(path + len - 3, ".so") == 0)
    shared_objects++;
  return 0;
}

static int count_shared_objects(const char *dir) {
  shared_objects = 0;
  nftw(dir, count_shared_object, 16, FTW_PHYS);
  return shared_objects;
}

/* A float32 addition uses one kernel of the elementwise family's 78 for float32. A driver that
   keeps its own cache (pocl) is never asked for the program's binary, which would make it
   compile all 78 (18 to 27 s on a 2-core machine); it compiles the kernel the addition
   launches, and a second process finds that in its cache. Other OpenCL devices give anygpu
   the binary, which its cache keeps. */
START_TEST(a_first_use_compiles_only_the_kernels_it_launches) {
  char dir[600], pocl[700];
  fresh_cache(dir, sizeof dir);
  snprintf(pocl, sizeof pocl, "%s/pocl", root);
  ck_assert_int_eq(setenv("POCL_CACHE_DIR", pocl, 1), 0);
  job j = {.spec = test_name_device(_i), .add = true};
  int kind = device_kind(_i);
  run_in_child(&j, "added two float32 arrays");
  if (!(kind & DEVICE_POCL)) {
    ck_assert_msg(!(kind & DEVICE_DRIVER_CACHES), "%s: a device other than pocl says its driver caches",
                  test_label());
    check_files(dir, 1, "after a float32 addition");
    return;
  }
  int first = count_shared_objects(pocl);
  /* One kernel launched, compiled once for its work-group size. */
  ck_assert_msg(first == 1, "%s: pocl compiled %d kernels to machine code for one float32 addition, expected 1",
                test_label(), first);
  ck_assert_msg(kind & DEVICE_DRIVER_CACHES, "%s: pocl's device does not name quirk binary-compiles-all",
                test_label());
  check_files(dir, 0, "after a float32 addition on pocl");
  run_in_child(&j, "added two float32 arrays again");
  ck_assert_msg(count_shared_objects(pocl) == first,
                "%s: a second process compiled %d kernels where pocl's cache held the one it launches",
                test_label(), count_shared_objects(pocl) - first);
}
END_TEST

/* ---- FFTW's wisdom (host) -------------------------------------------------------------------- */

/* The one wisdom file of precision @p precision ("f64" or "f32") in @p dir, into @p path;
   asserts that there is exactly one. */
static void find_wisdom(const char *dir, const char *precision, char *path, size_t size, const char *when) {
  char prefix[32];
  snprintf(prefix, sizeof prefix, "fftw-wisdom-%s-", precision);
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "%s: %s: opendir(%s): %s", test_label(), when, dir, strerror(errno));
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
      snprintf(path, size, "%s/%s", dir, e->d_name);
      n++;
    }
  closedir(d);
  ck_assert_msg(n == 1, "%s: %s: %d files named %s* in the cache, expected 1", test_label(), when, n, prefix);
}

/* Asserts that the cache file @p path holds FFTW's wisdom: its key names FFTW and the thread
   count, and its payload is FFTW's text, NUL-terminated. */
static void check_wisdom_file(const char *path) {
  size_t size;
  unsigned char *data = read_file(path, &size);
  uint64_t klen, plen;
  memcpy(&klen, data + 8, 8);
  ck_assert_uint_lt(16 + klen + 16, size);
  char *key = strndup((const char *)data + 16, (size_t)klen);
  ck_assert_msg(strstr(key, "fftw-3.") != NULL && strstr(key, "\nthreads ") != NULL,
                "%s: the key of %s names neither FFTW's version nor the thread count: \"%s\"", test_label(), path,
                key);
  free(key);
  memcpy(&plen, data + 16 + klen, 8);
  const char *text = (const char *)data + 16 + klen + 16;
  ck_assert_msg(plen > 8 && strncmp(text, "(fftw-3.", 8) == 0 && text[plen - 1] == '\0' && strlen(text) == plen - 1,
                "%s: %s does not hold FFTW's wisdom text", test_label(), path);
  free(data);
}

START_TEST(transforms_leave_fftw_wisdom_that_later_processes_load) {
  char dir[600], f64[900], f32[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(_i), .ffts = FFT_2D_C128 | FFT_1D_C64};
  run_in_child(&j, "ran a double and a single precision transform");
  check_files(dir, 2, "after transforms in both precisions");
  find_wisdom(dir, "f64", f64, sizeof f64, "after the first transforms");
  find_wisdom(dir, "f32", f32, sizeof f32, "after the first transforms");
  check_wisdom_file(f64);
  check_wisdom_file(f32);
  file_id id64 = identify(f64), id32 = identify(f32);
  /* Planned from the wisdom, the same transforms measure nothing, so nothing is written. */
  run_in_child(&j, "ran the same transforms in a new process");
  run_in_child(&j, "ran the same transforms in a third process");
  check_files(dir, 2, "after the same transforms again");
  ck_assert_msg(same_file(identify(f64), id64) && same_file(identify(f32), id32),
                "%s: a process that found the wisdom rewrote it", test_name_device(_i));
}
END_TEST

/* Compares the outputs the children saved under @p a and @p b, byte for byte. */
static void check_same_outputs(const char *a, const char *b, const char *what) {
  for (int k = 0; k < FFT_CASES; k++) {
    char pa[700], pb[700];
    snprintf(pa, sizeof pa, "%s.%d", a, k);
    snprintf(pb, sizeof pb, "%s.%d", b, k);
    size_t na, nb;
    unsigned char *da = read_file(pa, &na), *db = read_file(pb, &nb);
    ck_assert_uint_eq(na, nb);
    char msg[200];
    snprintf(msg, sizeof msg, "%s, transform %d (%s)", what, k, ref_name(fft_cases[k].dtype));
    CHECK_BYTES(db, da, na, msg);
    free(da);
    free(db);
  }
}

START_TEST(plans_from_wisdom_give_the_measuring_process_results) {
  char dir[600], measured[700], loaded[700], again[700];
  fresh_cache(dir, sizeof dir);
  snprintf(measured, sizeof measured, "%s/measured", root);
  snprintf(loaded, sizeof loaded, "%s/loaded", root);
  snprintf(again, sizeof again, "%s/again", root);
  job j = {.spec = test_name_device(_i), .ffts = FFT_2D_C128 | FFT_1D_C64 | FFT_1D_C128, .save = measured};
  run_in_child(&j, "measured the plans of three transforms");
  j.save = loaded;
  run_in_child(&j, "planned three transforms from the wisdom");
  j.save = again;
  run_in_child(&j, "planned three transforms from the wisdom again");
  /* The wisdom names the plans the first process measured, so later processes run the same
     arithmetic in the same order. (Each child also checked its results against the naive
     DFT.) */
  check_same_outputs(measured, loaded, "a plan from the wisdom against the measured one");
  check_same_outputs(measured, again, "a plan from the wisdom in a third process against the measured one");
}
END_TEST

START_TEST(wisdom_of_several_processes_is_merged) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job frame = {.spec = test_name_device(_i), .ffts = FFT_2D_C128};
  job rows = {.spec = test_name_device(_i), .ffts = FFT_1D_C128};
  job both = {.spec = test_name_device(_i), .ffts = FFT_2D_C128 | FFT_1D_C128};
  run_in_child(&frame, "ran a 2-D transform");
  find_wisdom(dir, "f64", path, sizeof path, "after a 2-D transform");
  file_id first = identify(path);
  run_in_child(&rows, "ran a batch of 1-D transforms");
  check_files(dir, 1, "after transforms of two shapes");
  find_wisdom(dir, "f64", path, sizeof path, "after transforms of two shapes");
  file_id second = identify(path);
  ck_assert_msg(!same_file(second, first), "%s: a process that measured a new transform did not write its wisdom",
                test_name_device(_i));
  /* Had the second process dropped the first one's wisdom, this one would measure the 2-D
     transform again and rewrite the file. */
  run_in_child(&both, "ran both transforms");
  ck_assert_msg(same_file(identify(path), second), "%s: the wisdom of the first process was lost by the second",
                test_name_device(_i));
}
END_TEST

/* Damages the double precision wisdom with @p damage, then checks that a new process still
   computes the transform right (the child compares it with the naive DFT), replaces the file,
   and that the process after it loads the new file. */
static void check_wisdom_replaced(int i, void (*damage)(const char *path), const char *what) {
  char dir[600], path[900];
  fresh_cache(dir, sizeof dir);
  job j = {.spec = test_name_device(i), .ffts = FFT_2D_C128};
  run_in_child(&j, "ran a transform");
  find_wisdom(dir, "f64", path, sizeof path, "after a transform");
  damage(path);
  file_id damaged = identify(path);
  run_in_child(&j, what);
  check_files(dir, 1, what);
  find_wisdom(dir, "f64", path, sizeof path, what);
  file_id replaced = identify(path);
  ck_assert_msg(!same_file(replaced, damaged), "%s: %s: the damaged wisdom was not replaced", test_name_device(i),
                what);
  check_wisdom_file(path);
  run_in_child(&j, "ran a transform with the replaced wisdom");
  ck_assert_msg(same_file(identify(path), replaced), "%s: %s: the replaced wisdom was rewritten again",
                test_name_device(i), what);
}

START_TEST(damaged_or_foreign_wisdom_is_ignored_and_replaced) {
  static const struct {
    void (*damage)(const char *path);
    const char *what;
  } cases[] = {
      {truncate_half, "ran a transform with the wisdom cut in half"},
      {flip_middle_byte, "ran a transform with a flipped byte in the wisdom"},
      {empty_file, "ran a transform with an empty wisdom file"},
      {garbage_payload, "ran a transform with well-framed garbage for wisdom"},
      {unknown_solver, "ran a transform with wisdom naming a solver FFTW lacks"},
      {foreign_key, "ran a transform with another machine's wisdom under the file's name"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    check_wisdom_replaced(_i, cases[k].damage, cases[k].what);
    remove_root();
  }
}
END_TEST

START_TEST(cache_dir_off_keeps_fftw_wisdom_off_the_disk) {
  empty_folders f;
  cache_off_beside_empty_folders(&f);
  job j = {.spec = test_name_device(_i), .ffts = FFT_2D_C128 | FFT_1D_C64 | FFT_1D_C128};
  run_in_child(&j, "ran transforms with the cache off");
  run_in_child(&j, "ran transforms with the cache off again");
  check_still_empty(&f, _i);
}
END_TEST

/* ag_kernel_cache_dir() reads the environment as the cache does, on every call. */
START_TEST(the_cache_folder_is_named) {
  setenv("HOME", "/nonexistent/home", 1);
  setenv("XDG_CACHE_HOME", "/nonexistent/xdg", 1);
  setenv("ANYGPU_CACHE_DIR", "/nonexistent/mine", 1);
  ck_assert_pstr_eq(ag_kernel_cache_dir(), "/nonexistent/mine");
  setenv("ANYGPU_CACHE_DIR", "off", 1);
  ck_assert_ptr_null(ag_kernel_cache_dir());
  setenv("ANYGPU_CACHE_DIR", "", 1);
  ck_assert_pstr_eq(ag_kernel_cache_dir(), "/nonexistent/xdg/anygpu");
  unsetenv("ANYGPU_CACHE_DIR");
  ck_assert_pstr_eq(ag_kernel_cache_dir(), "/nonexistent/xdg/anygpu");
  unsetenv("XDG_CACHE_HOME");
  ck_assert_pstr_eq(ag_kernel_cache_dir(), "/nonexistent/home/.cache/anygpu");
  unsetenv("HOME");
  ck_assert_ptr_null(ag_kernel_cache_dir());
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "the cache folder is named", the_cache_folder_is_named);
    return;
  }
  add_device_test(s, "a program is compiled once, then loaded", a_program_is_compiled_once_then_loaded);
  add_device_test(s, "other build options make another file", other_build_options_make_another_file);
  add_device_test(s, "a program that fails to build is not cached", a_program_that_fails_to_build_is_not_cached);
  add_device_test(s, "ANYGPU_CACHE_DIR=off writes nothing", cache_dir_off_writes_nothing);
  add_device_test(s, "an unusable cache folder does not stop builds", an_unusable_cache_folder_does_not_stop_builds);
  add_device_test(s, "processes building at once leave one whole file",
                  processes_building_at_once_leave_one_whole_file);
  add_device_test(s, "without ANYGPU_CACHE_DIR the cache is in XDG_CACHE_HOME",
                  without_cache_dir_the_cache_is_in_xdg_cache_home);
  add_device_test(s, "built-in kernels go through the cache", built_in_kernels_go_through_the_cache);
  /* The host compiles nothing, so it has no program file to damage; it keeps FFTW's wisdom. */
  if (strcmp(backend, "host") == 0) {
    add_device_test(s, "transforms leave FFTW's wisdom, which later processes load",
                    transforms_leave_fftw_wisdom_that_later_processes_load);
    add_device_test(s, "plans from FFTW's wisdom give the measuring process's results",
                    plans_from_wisdom_give_the_measuring_process_results);
    add_device_test(s, "the wisdom of several processes is merged", wisdom_of_several_processes_is_merged);
    add_device_test(s, "damaged or foreign wisdom is ignored and replaced",
                    damaged_or_foreign_wisdom_is_ignored_and_replaced);
    add_device_test(s, "ANYGPU_CACHE_DIR=off keeps FFTW's wisdom off the disk",
                    cache_dir_off_keeps_fftw_wisdom_off_the_disk);
    return;
  }
  add_device_test(s, "a first use compiles only the kernels it launches",
                  a_first_use_compiles_only_the_kernels_it_launches);
  add_device_test(s, "a truncated file is rebuilt", a_truncated_file_is_rebuilt);
  add_device_test(s, "a corrupted file is rebuilt", a_corrupted_file_is_rebuilt);
  add_device_test(s, "a payload the driver rejects is rebuilt", a_payload_the_driver_rejects_is_rebuilt);
  add_device_test(s, "a rejected file leaves the last error alone", a_rejected_file_leaves_the_last_error_alone);
}
