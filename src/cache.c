/* src/cache.c — compiled programs kept on disk between runs, keyed by everything that could
   change the binary: source, options, device, vendor, driver and library version; and named
   blobs that backends keep in the same folder with keys of their own (FFTW's wisdom). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* File layout: magic, version, key length, key, payload length, payload checksum, payload.
   The full key is stored and compared, so a hash collision in the file name cannot hand back
   another program's binary; the checksum catches truncated or damaged files. */
static const char magic[8] = {'A', 'G', 'K', 'C', 'A', 'C', 'H', '1'};

static uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
#define FNV_SEED 0xcbf29ce484222325ull
#define FNV_SEED2 0x84222325cbf29ce4ull

/* The folder: $ANYGPU_CACHE_DIR, else $XDG_CACHE_HOME/anygpu, else ~/.cache/anygpu. Empty
   when none can be named; "off" turns the cache off. */
static void cache_dir(char *out, size_t size) {
  const char *env = getenv("ANYGPU_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  out[0] = '\0';
  if (env != NULL && *env != '\0') {
    if (strcmp(env, "off") != 0)
      snprintf(out, size, "%s", env);
  } else if (xdg != NULL && *xdg != '\0') {
    snprintf(out, size, "%s/anygpu", xdg);
  } else if (home != NULL && *home != '\0') {
    snprintf(out, size, "%s/.cache/anygpu", home);
  }
}

const char *ag_kernel_cache_dir(void) {
  static _Thread_local char dir[1024];
  cache_dir(dir, sizeof dir);
  return dir[0] ? dir : NULL;
}

/* mkdir -p */
static bool make_dirs(const char *path) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return false;
      *p = '/';
    }
  return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

static char *make_key(const ag_device *dev, const char *source, const char *options) {
  size_t slen = strlen(source);
  uint64_t h1 = fnv1a(source, slen, FNV_SEED), h2 = fnv1a(source, slen, FNV_SEED2);
  const ag_device_info *i = &dev->info;
  size_t n = 1024 + strlen(options);
  char *key = malloc(n);
  if (key != NULL)
    snprintf(key, n, "anygpu %s\n%s\n%s\n%s\n%s\n%s\n%zu:%016llx%016llx\n%s", AG_VERSION_STRING, i->backend,
             i->platform, i->name, i->vendor, i->driver_version, slen, (unsigned long long)h1,
             (unsigned long long)h2, options);
  return key;
}

static void *read_entry(const char *path, const char *key, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  void *payload = NULL;
  char head[8];
  uint64_t klen, plen, sum;
  char *stored = NULL;
  if (fread(head, 1, 8, f) != 8 || memcmp(head, magic, 8) != 0 || fread(&klen, 8, 1, f) != 1 ||
      klen != strlen(key) || (stored = malloc(klen)) == NULL || fread(stored, 1, klen, f) != klen ||
      memcmp(stored, key, klen) != 0 || fread(&plen, 8, 1, f) != 1 || fread(&sum, 8, 1, f) != 1 ||
      plen == 0 || plen > ((uint64_t)1 << 32) || (payload = malloc(plen)) == NULL ||
      fread(payload, 1, plen, f) != plen || fnv1a(payload, plen, FNV_SEED) != sum) {
    free(payload);
    payload = NULL;
  } else {
    *size = plen;
  }
  free(stored);
  fclose(f);
  return payload;
}

/* Writes to a temporary name in the same folder, then renames, so a reader never sees half a
   file and two processes writing at once each leave a whole one. @p what names the cache in
   log messages. Returns whether the file is in place. */
static bool write_entry(const char *what, const char *dir, const char *path, const char *key, const void *payload,
                        size_t size) {
  char tmp[1200];
  snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    ag__log(AG__LOG_WARN, "%s: cannot write in %s: %s", what, dir, strerror(errno));
    return false;
  }
  FILE *f = fdopen(fd, "wb");
  if (f == NULL) {
    close(fd);
    unlink(tmp);
    return false;
  }
  uint64_t klen = strlen(key), plen = size, sum = fnv1a(payload, size, FNV_SEED);
  bool ok = fwrite(magic, 1, 8, f) == 8 && fwrite(&klen, 8, 1, f) == 1 &&
            fwrite(key, 1, klen, f) == klen && fwrite(&plen, 8, 1, f) == 1 &&
            fwrite(&sum, 8, 1, f) == 1 && fwrite(payload, 1, size, f) == size;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    ag__log(AG__LOG_WARN, "%s: cannot write %s: %s", what, path, strerror(errno));
    unlink(tmp);
    return false;
  }
  return true;
}

/* The file of blob @p name under @p key: "NAME-HASH.bin", the hash of the key in the name so
   that blobs of several keys (machines sharing a home folder) live side by side. */
static void blob_path(const char *dir, const char *name, const char *key, char *path, size_t size) {
  snprintf(path, size, "%s/%s-%016llx.bin", dir, name, (unsigned long long)fnv1a(key, strlen(key), FNV_SEED));
}

void *ag__cache_blob_read(const char *name, const char *key, size_t *size) {
  char dir[1024], path[1200];
  cache_dir(dir, sizeof dir);
  if (dir[0] == '\0')
    return NULL;
  blob_path(dir, name, key, path, sizeof path);
  void *blob = read_entry(path, key, size);
  ag__log(AG__LOG_DEBUG, "cache: %s %s", blob ? "read" : "no usable", path);
  return blob;
}

void ag__cache_blob_write(const char *name, const char *key, const void *data, size_t size) {
  char dir[1024], path[1200];
  cache_dir(dir, sizeof dir);
  if (dir[0] == '\0' || size == 0)
    return;
  if (!make_dirs(dir)) {
    ag__log(AG__LOG_WARN, "cache: cannot make %s: %s", dir, strerror(errno));
    return;
  }
  blob_path(dir, name, key, path, sizeof path);
  if (write_entry("cache", dir, path, key, data, size))
    ag__log(AG__LOG_DEBUG, "cache: wrote %s", path);
}

/* Milliseconds since @p t0 (CLOCK_MONOTONIC), for the debug log of what builds cost. */
static double ms_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

ag_status ag__program_build_cached(ag_device *dev, const ag_program_desc *desc, const char *source,
                                   const char *options, ag__bprogram **out) {
  const ag__backend *be = dev->be;
  char dir[1024];
  cache_dir(dir, sizeof dir);
  /* A driver that keeps its own cache, and would compile every kernel to hand over a binary,
     is left to it (ag__device_traits.driver_caches_programs). */
  bool cached = be->program_binary != NULL && !dev->traits.driver_caches_programs && dir[0] != '\0';
  char *key = NULL;
  char path[1200];
  if (cached && (key = make_key(dev, source, options)) != NULL) {
    uint64_t h = fnv1a(key, strlen(key), FNV_SEED);
    snprintf(path, sizeof path, "%s/%016llx.bin", dir, (unsigned long long)h);
    size_t size;
    void *bin = read_entry(path, key, &size);
    if (bin != NULL) {
      char *saved = ag__error_save();
      ag_status st = be->program_load(dev->bdev, bin, size, out);
      free(bin);
      if (st == AG_OK) {
        ag__log(AG__LOG_DEBUG, "kernel cache: %s: loaded %s", dev->info.spec, path);
        free(saved);
        free(key);
        return AG_OK;
      }
      ag__log(AG__LOG_INFO, "kernel cache: %s: driver rejected %s (%s); rebuilding", dev->info.spec, path,
              ag_last_error());
      ag__error_restore(saved);
    }
  }

  char *log = NULL;
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ag_status st = be->program_build(dev->bdev, desc, source, options, out, &log);
  if (st == AG_OK)
    ag__log(AG__LOG_DEBUG, "kernel cache: %s: built a program (build options \"%s\") in %.0f ms%s", dev->info.spec,
            options ? options : "", ms_since(&t0),
            dev->traits.driver_caches_programs ? ", kept by the driver's own cache" : "");
  if (st == AG_ERR_BUILD) {
    /* The options are named: some compilers reject a bad one without saying which. */
    ag__error(AG_ERR_BUILD, "the %s compiler for %s rejected the program (build options \"%s\"):\n%s", be->name,
              dev->info.spec, options ? options : "", log && *log ? log : "(the compiler gave no log)");
  }
  free(log);
  if (st == AG_OK && key != NULL) {
    void *bin = NULL;
    size_t size = 0;
    struct timespec taken;
    clock_gettime(CLOCK_MONOTONIC, &taken);
    if (make_dirs(dir) && be->program_binary(*out, &bin, &size) == AG_OK && size > 0) {
      if (write_entry("kernel cache", dir, path, key, bin, size))
        ag__log(AG__LOG_DEBUG, "kernel cache: %s: wrote %s (%zu bytes, taken from the driver in %.0f ms)",
                dev->info.spec, path, size, ms_since(&taken));
    } else
      ag__log(AG__LOG_WARN, "kernel cache: %s: nothing cached in %s", dev->info.spec, dir);
    free(bin);
  }
  free(key);
  return st;
}
