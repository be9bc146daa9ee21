/* backends/host/host.c — the host backend: the CPU as a device, with OpenMP threads. Work runs
   synchronously on the calling thread (parallelised inside each call), so a queue is only an
   ordering of calls and an event is a timestamp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../backend.h"
#include "host_internal.h"
#include "kernels/kernels.h"

static const ag__core_services *core;

const ag__core_services *ag__host_core(void) { return core; }

/* The host's handles: a device and a queue carry nothing; an event is a time. */
struct ag__bdevice {
  int unused;
};
struct ag__bqueue {
  int unused;
};
struct ag__bevent {
  struct timespec t;
};
struct ag__bprogram {
  size_t count;
  ag_host_kernel_def defs[];
};
struct ag__bkernel {
  ag_host_kernel_fn fn;
};

static struct ag__bdevice the_device;

static int host_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void ag__host_cpuinfo(const char *field, char *out, size_t size) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL)
    return;
  /* Long enough for the flags line, so that the rest of a line is never read as another. */
  char line[8192];
  size_t n = strlen(field);
  while (fgets(line, sizeof line, f)) {
    /* "model" must not match "model name". */
    if (strncmp(line, field, n) != 0 || (line[n] != ' ' && line[n] != '\t' && line[n] != ':'))
      continue;
    char *colon = strchr(line, ':');
    if (colon == NULL)
      continue;
    colon++;
    while (*colon == ' ' || *colon == '\t')
      colon++;
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(out, size, "%s", colon);
    break;
  }
  fclose(f);
}

static ag_status host_probe(const ag__core_services *services, int *count, char *reason,
                            size_t reason_size) {
  (void)reason;
  (void)reason_size;
  core = services;
  *count = 1;
  return AG_OK;
}

static ag_status host_device_open(int index, ag__bdevice **dev, ag_device_info *info) {
  (void)index;
  info->type = AG_DEVICE_CPU;
  snprintf(info->name, sizeof info->name, "host CPU");
  ag__host_cpuinfo("model name", info->name, sizeof info->name);
  snprintf(info->vendor, sizeof info->vendor, "unknown");
  ag__host_cpuinfo("vendor_id", info->vendor, sizeof info->vendor);
  snprintf(info->platform, sizeof info->platform, "host");
#ifdef _OPENMP
  snprintf(info->driver_version, sizeof info->driver_version, "anygpu %s, OpenMP %d", AG_VERSION_STRING,
           _OPENMP);
#else
  snprintf(info->driver_version, sizeof info->driver_version, "anygpu %s", AG_VERSION_STRING);
#endif
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->global_memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)1 << 32;
  info->max_allocation = info->global_memory;
  info->compute_units = host_threads();
  info->max_work_group_size = (size_t)1 << 20;
  info->local_memory = (size_t)1 << 20;
  info->fp64 = true;
  info->compute_capability = 0;
  *dev = &the_device;
  return AG_OK;
}

/* ---- queues and events -------------------------------------------------------------------- */

static ag_status host_queue_create(ag__bdevice *dev, ag__bqueue **q) {
  (void)dev;
  *q = calloc(1, sizeof **q);
  return *q ? AG_OK : core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory for a queue");
}

static void host_queue_destroy(ag__bqueue *q) { free(q); }

static ag_status host_queue_finish(ag__bqueue *q) {
  (void)q;
  return AG_OK;
}

static ag_status host_event_record(ag__bqueue *q, ag__bevent **ev) {
  (void)q;
  *ev = malloc(sizeof **ev);
  if (*ev == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory for an event");
  clock_gettime(CLOCK_MONOTONIC, &(*ev)->t);
  return AG_OK;
}

static ag_status host_event_wait(ag__bevent *ev) {
  (void)ev;
  return AG_OK;
}

static ag_status host_event_query(ag__bevent *ev, bool *done) {
  (void)ev;
  *done = true;
  return AG_OK;
}

static ag_status host_queue_wait_event(ag__bqueue *q, ag__bevent *ev) {
  (void)q;
  (void)ev;
  return AG_OK;
}

static ag_status host_event_elapsed_ms(ag__bevent *a, ag__bevent *b, double *ms) {
  *ms = (double)(b->t.tv_sec - a->t.tv_sec) * 1e3 + (double)(b->t.tv_nsec - a->t.tv_nsec) * 1e-6;
  return AG_OK;
}

static void host_event_destroy(ag__bevent *ev) { free(ev); }

/* ---- memory ------------------------------------------------------------------------------- */

/* The host's memory handle is the address of the bytes itself. */
#define BYTES(mem) ((unsigned char *)(mem))

static ag_status host_mem_alloc(ag__bdevice *dev, size_t bytes, ag__bmem **mem) {
  (void)dev;
  /* Page alignment for large buffers lets the kernel back them with huge pages. */
  size_t align = bytes >= ((size_t)1 << 21) ? ((size_t)1 << 21) : 64;
  size_t rounded = (bytes + align - 1) & ~(align - 1);
  if (rounded < bytes)
    return core->error(AG_ERR_OUT_OF_MEMORY, "aligned_alloc: %zu bytes is too large", bytes);
  void *p = aligned_alloc(align, rounded);
  if (p == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "aligned_alloc: %zu bytes of host memory are not available", bytes);
#ifdef MADV_HUGEPAGE
  if (align > 64)
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
  *mem = (ag__bmem *)p;
  return AG_OK;
}

static void host_mem_free(ag__bdevice *dev, ag__bmem *mem) {
  (void)dev;
  free(mem);
}

/* memcpy over all cores for large copies: one core reaches well under the socket's bandwidth. */
static void copy_parallel(void *dst, const void *src, size_t bytes) {
  if (bytes < ((size_t)4 << 20)) {
    memcpy(dst, src, bytes);
    return;
  }
  size_t chunk = (size_t)1 << 20, n = (bytes + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    size_t off = i * chunk, len = bytes - off < chunk ? bytes - off : chunk;
    memcpy((char *)dst + off, (const char *)src + off, len);
  }
}

static ag_status host_mem_write(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *src,
                                size_t bytes, bool blocking) {
  (void)q;
  (void)blocking;
  copy_parallel(BYTES(dst) + offset, src, bytes);
  return AG_OK;
}

static ag_status host_mem_read(ag__bqueue *q, ag__bmem *src, size_t offset, void *dst, size_t bytes,
                               bool blocking) {
  (void)q;
  (void)blocking;
  copy_parallel(dst, BYTES(src) + offset, bytes);
  return AG_OK;
}

static ag_status host_mem_copy(ag__bqueue *q, ag__bmem *dst, size_t dst_offset, ag__bmem *src,
                               size_t src_offset, size_t bytes) {
  (void)q;
  copy_parallel(BYTES(dst) + dst_offset, BYTES(src) + src_offset, bytes);
  return AG_OK;
}

static ag_status host_mem_fill(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *pattern,
                               size_t pattern_size, size_t bytes) {
  (void)q;
  unsigned char *p = BYTES(dst) + offset;
  if (pattern_size == 1) {
    memset(p, *(const unsigned char *)pattern, bytes);
    return AG_OK;
  }
  size_t n = bytes / pattern_size;
  if (pattern_size == 2) {
    uint16_t v;
    memcpy(&v, pattern, 2);
    uint16_t *w = (uint16_t *)(void *)p;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++)
      w[i] = v;
  } else {
    uint32_t v;
    memcpy(&v, pattern, 4);
    uint32_t *w = (uint32_t *)(void *)p;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; i++)
      w[i] = v;
  }
  return AG_OK;
}

/* ---- programs and kernels ----------------------------------------------------------------- */

static ag_status host_program_build(ag__bdevice *dev, const ag_program_desc *desc, const char *source,
                                    const char *options, ag__bprogram **prog, char **log) {
  (void)dev;
  (void)source;
  (void)options;
  if (log)
    *log = NULL;
  size_t n = desc->host_kernel_count;
  ag__bprogram *p = malloc(sizeof *p + n * sizeof p->defs[0]);
  if (p == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory for a program");
  p->count = n;
  memcpy(p->defs, desc->host_kernels, n * sizeof p->defs[0]);
  *prog = p;
  return AG_OK;
}

static void host_program_release(ag__bprogram *prog) { free(prog); }

static ag_status host_kernel_create(ag__bprogram *prog, const char *name, ag__bkernel **k) {
  for (size_t i = 0; i < prog->count; i++)
    if (strcmp(prog->defs[i].name, name) == 0) {
      *k = malloc(sizeof **k);
      if (*k == NULL)
        return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory for a kernel");
      (*k)->fn = prog->defs[i].fn;
      return AG_OK;
    }
  return core->error(AG_ERR_INVALID_ARGUMENT, "no host kernel named \"%s\" in the program", name);
}

static size_t host_kernel_max_work_group(ag__bkernel *k) {
  (void)k;
  return (size_t)1 << 20;
}

static void host_kernel_release(ag__bkernel *k) { free(k); }

/* Runs every work-group, in parallel. Without a requested work-group size the range is cut
   along its slowest dimension into a few chunks per thread, so each call does long loops. */
static ag_status host_kernel_launch(ag__bqueue *q, ag__bkernel *k, const ag_range *range, size_t nargs,
                                    const ag__karg *args) {
  (void)q;
  ag_host_group base = {.dims = range->dims};
  size_t total = 1;
  int threads = host_threads();
  for (unsigned d = 0; d < 3; d++) {
    size_t g = d < range->dims ? range->global[d] : 1;
    size_t l = d < range->dims ? range->local[d] : 1;
    if (l == 0) {
      if (d + 1 == range->dims) {
        size_t pieces = (size_t)threads * 4;
        l = (g + pieces - 1) / pieces;
      } else {
        l = g;
      }
    }
    base.global_size[d] = g;
    base.local_size[d] = l;
    base.num_groups[d] = (g + l - 1) / l;
    total *= base.num_groups[d];
  }

  size_t local_bytes = 0, local_at[64];
  for (size_t i = 0; i < nargs; i++)
    if (args[i].kind == AG_ARG_LOCAL) {
      local_at[i] = local_bytes;
      local_bytes += (args[i].size + 63) & ~(size_t)63;
    }

  bool failed = false;
#pragma omp parallel if (total > 1)
  {
    void *argv[64];
    unsigned char *scratch = local_bytes ? aligned_alloc(64, local_bytes) : NULL;
    if (local_bytes && scratch == NULL) {
#pragma omp atomic write
      failed = true;
    } else {
      for (size_t i = 0; i < nargs; i++)
        argv[i] = args[i].kind == AG_ARG_BUFFER ? (void *)args[i].mem
                  : args[i].kind == AG_ARG_SCALAR ? (void *)args[i].value
                                                   : scratch + local_at[i];
#pragma omp for schedule(dynamic, 1)
      for (size_t g = 0; g < total; g++) {
        ag_host_group grp = base;
        grp.group_id[0] = g % base.num_groups[0];
        grp.group_id[1] = (g / base.num_groups[0]) % base.num_groups[1];
        grp.group_id[2] = g / (base.num_groups[0] * base.num_groups[1]);
        k->fn(&grp, argv);
      }
    }
    free(scratch);
  }
  if (failed)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu bytes of local memory per thread",
                       local_bytes);
  return AG_OK;
}

static ag_status host_builtin_find(const char *family, int variant, ag__builtin_src *src) {
  (void)variant; /* each family's table holds every dtype */
  for (const ag__host_family *f = ag__host_families; f->name != NULL; f++)
    if (strcmp(f->name, family) == 0) {
      src->host_kernels = f->first;
      src->host_kernel_count = (size_t)(f->end - f->first);
      return AG_OK;
    }
  return core->error(AG_ERR_UNSUPPORTED, "the host backend has no built-in kernels \"%s\"", family);
}

static const ag__blas_ops *host_blas(ag__bdevice *dev) {
  (void)dev;
  return &ag__host_blas_ops;
}

static const ag__fft_ops *host_fft(ag__bdevice *dev, const char *provider) {
  (void)dev;
  if (provider != NULL && strcmp(provider, "fftw") != 0) {
    core->error(AG_ERR_UNSUPPORTED, "the host has no FFT provider \"%s\" (it has fftw)", provider);
    return NULL;
  }
  return &ag__host_fft_ops;
}

static void host_device_traits(ag__bdevice *dev, ag__device_traits *traits) {
  (void)dev;
  *traits = (ag__device_traits){.launch = AG__LAUNCH_ITEMS};
}

static const ag__backend host_backend = {
    .abi = AG__BACKEND_ABI,
    .name = "host",
    .device_traits = host_device_traits,
    .dialect = AG__DIALECT_HOST,
    .probe = host_probe,
    .device_open = host_device_open,
    .queue_create = host_queue_create,
    .queue_destroy = host_queue_destroy,
    .queue_finish = host_queue_finish,
    .event_record = host_event_record,
    .event_wait = host_event_wait,
    .event_query = host_event_query,
    .queue_wait_event = host_queue_wait_event,
    .event_elapsed_ms = host_event_elapsed_ms,
    .event_destroy = host_event_destroy,
    .mem_alloc = host_mem_alloc,
    .mem_free = host_mem_free,
    .mem_write = host_mem_write,
    .mem_read = host_mem_read,
    .mem_copy = host_mem_copy,
    .mem_fill = host_mem_fill,
    .program_build = host_program_build,
    .program_release = host_program_release,
    .kernel_create = host_kernel_create,
    .kernel_max_work_group = host_kernel_max_work_group,
    .kernel_release = host_kernel_release,
    .kernel_launch = host_kernel_launch,
    .builtin_find = host_builtin_find,
    .builtin_all_dtypes = true,
    .blas = host_blas,
    .fft = host_fft,
};

const ag__backend *ag__host_backend(void) { return &host_backend; }
