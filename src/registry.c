/* src/registry.c — loads the backends and enumerates their devices, once per process. */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "config.h"
#include "internal.h"

static const ag__core_services services = {.error = ag__error,
                                           .log = ag__log,
                                           .host_blas = &ag__host_blas_ops,
                                           .cache_read = ag__cache_blob_read,
                                           .cache_write = ag__cache_blob_write};

const ag__core_services *ag__services(void) { return &services; }

/* The backends in enumeration order. The host is built in; the others are modules. */
typedef struct backend_slot {
  const char *name;
  const char *module;          /* file name of the module, NULL when built in */
  bool built;                  /* this build made the module */
  const ag__backend *be;       /* NULL when unavailable */
  char reason[4096];           /* why unavailable */
} backend_slot;

static backend_slot backends[] = {
    {.name = "host"},
    {.name = "cuda", .module = "anygpu-cuda.so", .built = AG_BUILT_CUDA},
    {.name = "opencl", .module = "anygpu-opencl.so", .built = AG_BUILT_OPENCL},
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

static struct {
  pthread_once_t once;
  ag_status status;
  char message[512];
  int count;
  ag_device **devices;
} reg = {.once = PTHREAD_ONCE_INIT};

static bool file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The folder holding libanygpu.so itself, so an installed library finds its modules in
   <libdir>/anygpu wherever the tree was installed or moved. */
static bool library_dir(char *out, size_t size) {
  Dl_info info;
  if (dladdr((void *)&ag__registry_init, &info) == 0 || info.dli_fname == NULL)
    return false;
  char real[PATH_MAX];
  if (realpath(info.dli_fname, real) == NULL)
    return false;
  char *slash = strrchr(real, '/');
  if (slash == NULL || (size_t)(slash - real) + 1 > size)
    return false;
  *slash = '\0';
  memcpy(out, real, (size_t)(slash - real) + 1);
  return true;
}

/* Looks for the module in $ANYGPU_BACKEND_PATH's folders, then <libdir of this library>/anygpu,
   then the install folder fixed at build time, and, for a library still in its build tree, the
   tree's module folders. Writes the first that exists to @p path, or the list of folders tried
   to @p tried. */
static bool find_module(const char *module, char *path, size_t size, char *tried, size_t tsize) {
  char dirs[4096] = "";
  const char *env = getenv("ANYGPU_BACKEND_PATH");
  if (env != NULL && *env != '\0')
    snprintf(dirs, sizeof dirs, "%s:", env);
  char libdir[1024];
  bool in_build_tree = false;
  if (library_dir(libdir, sizeof libdir)) {
    size_t n = strlen(dirs);
    snprintf(dirs + n, sizeof dirs - n, "%s/anygpu:", libdir);
    char build[PATH_MAX];
    in_build_tree = realpath(AG_BUILD_LIBDIR, build) != NULL && strcmp(libdir, build) == 0;
  }
  size_t n = strlen(dirs);
  snprintf(dirs + n, sizeof dirs - n, "%s", AG_MODULE_DIR);
  if (in_build_tree) {
    n = strlen(dirs);
    snprintf(dirs + n, sizeof dirs - n, ":%s", AG_BUILD_BACKEND_PATH);
  }

  tried[0] = '\0';
  char *save = NULL;
  const char *seen[64];
  int nseen = 0;
  for (char *dir = strtok_r(dirs, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
    bool again = false;
    for (int i = 0; i < nseen; i++)
      again |= strcmp(seen[i], dir) == 0;
    if (*dir == '\0' || again)
      continue;
    if (nseen < 64)
      seen[nseen++] = dir;
    snprintf(path, size, "%s/%s", dir, module);
    if (file_exists(path))
      return true;
    size_t t = strlen(tried);
    snprintf(tried + t, tsize - t, "%s%s", t ? ", " : "", dir);
  }
  return false;
}

static void load_module(backend_slot *b) {
  char path[1200], tried[2048];
  if (!find_module(b->module, path, sizeof path, tried, sizeof tried)) {
    snprintf(b->reason, sizeof b->reason, "%s not found in %s%s", b->module, tried,
             b->built ? "" : " (this build of anygpu did not make it)");
    return;
  }
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    /* dlerror names the missing vendor library: "libcuda.so.1: cannot open shared object
       file: No such file or directory". Keep that part, which is what users act on. */
    const char *err = dlerror();
    const char *colon = err ? strstr(err, ": ") : NULL;
    snprintf(b->reason, sizeof b->reason, "%s", colon && strstr(colon + 2, ".so") ? colon + 2 : (err ? err : "dlopen failed"));
    return;
  }
  ag__backend_entry_fn entry;
  *(void **)&entry = dlsym(handle, AG__BACKEND_ENTRY);
  const ag__backend *be = entry ? entry() : NULL;
  if (be == NULL) {
    snprintf(b->reason, sizeof b->reason, "%s has no %s entry", path, AG__BACKEND_ENTRY);
    dlclose(handle);
    return;
  }
  if (be->abi != AG__BACKEND_ABI) {
    snprintf(b->reason, sizeof b->reason, "%s was built for backend interface %u, not %u", path,
             be->abi, AG__BACKEND_ABI);
    dlclose(handle);
    return;
  }
  /* The module stays loaded for the life of the process, as its devices do. */
  b->be = be;
  ag__log(AG__LOG_DEBUG, "%s: loaded %s", b->name, path);
}

/* ANYGPU_DEVICE=host, spelled as ag_device_select accepts it: any case, any surrounding
   white space. */
static bool gpus_turned_off(void) {
  const char *spec = getenv("ANYGPU_DEVICE");
  if (spec == NULL)
    return false;
  while (isspace((unsigned char)*spec))
    spec++;
  if (strncasecmp(spec, "host", 4) != 0)
    return false;
  for (spec += 4; isspace((unsigned char)*spec); spec++)
    ;
  return *spec == '\0';
}

static void registry_init(void) {
  bool host_only = gpus_turned_off();
  backends[0].be = ag__host_backend();
  for (int i = 1; i < NBACKENDS; i++) {
    if (host_only)
      snprintf(backends[i].reason, sizeof backends[i].reason, "turned off by ANYGPU_DEVICE=host");
    else
      load_module(&backends[i]);
  }

  for (int i = 0; i < NBACKENDS; i++) {
    backend_slot *b = &backends[i];
    if (b->be == NULL) {
      ag__log(AG__LOG_INFO, "%s: unavailable: %s", b->name, b->reason);
      continue;
    }
    int n = 0;
    char reason[512] = "";
    ag_status st = b->be->probe(&services, &n, reason, sizeof reason);
    if (st != AG_OK) {
      snprintf(b->reason, sizeof b->reason, "%s", reason[0] ? reason : ag_last_error());
      b->be = NULL;
      ag__log(AG__LOG_INFO, "%s: unavailable: %s", b->name, b->reason);
      continue;
    }
    int opened = 0; /* spec numbers count opened devices, as ag_device_select does */
    for (int k = 0; k < n; k++) {
      ag_device *dev = calloc(1, sizeof *dev);
      ag_device **grown = realloc(reg.devices, (size_t)(reg.count + 1) * sizeof *grown);
      if (dev == NULL || grown == NULL) {
        free(dev);
        if (grown != NULL)
          reg.devices = grown;
        reg.status = AG_ERR_OUT_OF_MEMORY;
        snprintf(reg.message, sizeof reg.message, "out of host memory enumerating devices");
        return;
      }
      reg.devices = grown;
      dev->be = b->be;
      dev->index = reg.count;
      dev->ordinal = k;
      pthread_mutex_init(&dev->lock, NULL);
      ag__builtins_init(&dev->builtins);
      ag__pool_init(&dev->pool);
      pthread_mutex_init(&dev->fft_lock, NULL);
      st = b->be->device_open(k, &dev->bdev, &dev->info);
      if (st != AG_OK) {
        /* One broken device does not hide the others; it is logged and left out. */
        ag__log(AG__LOG_WARN, "%s:%d: cannot be opened: %s", b->name, k, ag_last_error());
        pthread_mutex_destroy(&dev->lock);
        free(dev);
        continue;
      }
      b->be->device_traits(dev->bdev, &dev->traits);
      snprintf(dev->info.backend, sizeof dev->info.backend, "%s", b->name);
      if (strcmp(b->name, "host") == 0)
        snprintf(dev->info.spec, sizeof dev->info.spec, "host");
      else
        snprintf(dev->info.spec, sizeof dev->info.spec, "%s:%d", b->name, opened);
      opened++;
      reg.devices[reg.count++] = dev;
      ag__log(AG__LOG_INFO, "device %s: %s", dev->info.spec, dev->info.name);
    }
  }
  reg.status = reg.count > 0 ? AG_OK : AG_ERR_NO_DEVICE;
  if (reg.count == 0)
    snprintf(reg.message, sizeof reg.message, "no device could be opened, not even the host");
}

ag_status ag__registry_init(void) {
  pthread_once(&reg.once, registry_init);
  if (reg.status != AG_OK)
    return ag__error(reg.status, "anygpu: %s", reg.message);
  return AG_OK;
}

int ag__device_total(void) { return reg.count; }

ag_device *ag__device_at(int index) { return reg.devices[index]; }

const char *ag_backend_unavailable_reason(const char *backend) {
  if (backend == NULL)
    return "unknown backend";
  ag__registry_init();
  for (int i = 0; i < NBACKENDS; i++)
    if (strcasecmp(backends[i].name, backend) == 0)
      return backends[i].be ? NULL : backends[i].reason;
  return "unknown backend";
}

const char *ag_version(void) { return AG_VERSION_STRING; }
