/* backends/host/host.c — the host backend: the CPU as a device, with the backend's own threads
   (threads.c). Work runs synchronously on the calling thread (parallelised inside each call),
   so a queue is only an ordering of calls and an event is a timestamp. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
  snprintf(info->driver_version, sizeof info->driver_version, "anygpu %s, %d threads", AG_VERSION_STRING,
           ag__host_threads());
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->global_memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)1 << 32;
  info->max_allocation = info->global_memory;
  info->compute_units = ag__host_threads();
  info->max_work_group_size = (size_t)1 << 20;
  info->local_memory = (size_t)1 << 20;
  info->fp64 = true;
  info->compute_capability = 0;
  *dev = &the_device;
  return AG_OK;
}

/* The machine's memory as the kernel counts it: MemAvailable, not MemFree, since the page
   cache the kernel would give back is not load. */
static ag_status host_mem_info(ag__bdevice *dev, size_t *free_bytes, size_t *total_bytes) {
  (void)dev;
  FILE *f = fopen("/proc/meminfo", "r");
  if (f == NULL)
    return core->error(AG_ERR_UNSUPPORTED, "/proc/meminfo cannot be read");
  unsigned long long total = 0, avail = 0;
  bool have_total = false, have_avail = false;
  char line[256];
  while (fgets(line, sizeof line, f) != NULL) {
    if (sscanf(line, "MemTotal: %llu kB", &total) == 1)
      have_total = true;
    else if (sscanf(line, "MemAvailable: %llu kB", &avail) == 1)
      have_avail = true;
  }
  fclose(f);
  if (!have_total || !have_avail || avail > total)
    return core->error(AG_ERR_UNSUPPORTED, "/proc/meminfo gives no MemTotal and MemAvailable");
  *total_bytes = (size_t)(total * 1024);
  *free_bytes = (size_t)(avail * 1024);
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

/* Host memory of another library: the address is the handle, and any address is the host's. */
static ag_status host_mem_borrow(ag__bdevice *dev, void *native, size_t bytes, ag__bmem **mem) {
  (void)dev;
  (void)bytes;
  *mem = (ag__bmem *)native;
  return AG_OK;
}

/* memcpy over all cores for large copies: one core reaches well under the socket's bandwidth. */
typedef struct copy_job {
  unsigned char *dst;
  const unsigned char *src;
  size_t bytes;
} copy_job;

#define AG__COPY_CHUNK ((size_t)1 << 20)

static void copy_chunks(void *ctx, ag__host_job *job) {
  const copy_job *c = ctx;
  size_t b, e;
  while (ag__host_claim(job, &b, &e)) {
    size_t off = b * AG__COPY_CHUNK, end = e * AG__COPY_CHUNK < c->bytes ? e * AG__COPY_CHUNK : c->bytes;
    memcpy(c->dst + off, c->src + off, end - off);
  }
}

static void copy_parallel(void *dst, const void *src, size_t bytes) {
  if (bytes < ((size_t)4 << 20)) {
    memcpy(dst, src, bytes);
    return;
  }
  copy_job c = {dst, src, bytes};
  ag__host_run((bytes + AG__COPY_CHUNK - 1) / AG__COPY_CHUNK, 1, copy_chunks, &c);
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

/* A 2- or 4-byte pattern repeated n times from p. */
typedef struct fill_job {
  unsigned char *p;
  size_t n, size;
  union {
    uint16_t h;
    uint32_t w;
  } v;
} fill_job;

static void fill_words(void *ctx, ag__host_job *job) {
  const fill_job *f = ctx;
  size_t b, e;
  while (ag__host_claim(job, &b, &e)) {
    if (f->size == 2) {
      uint16_t *w = (uint16_t *)(void *)f->p, v = f->v.h;
      for (size_t i = b; i < e; i++)
        w[i] = v;
    } else {
      uint32_t *w = (uint32_t *)(void *)f->p, v = f->v.w;
      for (size_t i = b; i < e; i++)
        w[i] = v;
    }
  }
}

static ag_status host_mem_fill(ag__bqueue *q, ag__bmem *dst, size_t offset, const void *pattern,
                               size_t pattern_size, size_t bytes) {
  (void)q;
  unsigned char *p = BYTES(dst) + offset;
  if (pattern_size == 1) {
    memset(p, *(const unsigned char *)pattern, bytes);
    return AG_OK;
  }
  fill_job f = {.p = p, .n = bytes / pattern_size, .size = pattern_size};
  memcpy(&f.v, pattern, pattern_size);
  ag__host_run(f.n, f.n > 65536 ? 65536 : f.n, fill_words, &f);
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

typedef struct launch_job {
  ag__bkernel *k;
  ag_host_group base;
  size_t nargs;
  const ag__karg *args;
  size_t local_bytes;
  const size_t *local_at;
  atomic_bool failed;
} launch_job;

/* One thread's share of a launch: its own local memory, then work-groups until none are left. */
static void run_groups(void *ctx, ag__host_job *job) {
  launch_job *j = ctx;
  void *argv[AG__KERNEL_ARGS_MAX];
  unsigned char *scratch = j->local_bytes ? aligned_alloc(64, j->local_bytes) : NULL;
  if (j->local_bytes && scratch == NULL) {
    atomic_store(&j->failed, true);
    return;
  }
  for (size_t i = 0; i < j->nargs; i++)
    argv[i] = j->args[i].kind == AG_ARG_BUFFER ? (void *)j->args[i].mem
              : j->args[i].kind == AG_ARG_SCALAR ? (void *)j->args[i].value
                                                  : scratch + j->local_at[i];
  const size_t *ng = j->base.num_groups;
  size_t b, e;
  while (ag__host_claim(job, &b, &e))
    for (size_t g = b; g < e; g++) {
      ag_host_group grp = j->base;
      grp.group_id[0] = g % ng[0];
      grp.group_id[1] = (g / ng[0]) % ng[1];
      grp.group_id[2] = g / (ng[0] * ng[1]);
      j->k->fn(&grp, argv);
    }
  free(scratch);
}

/* Runs every work-group, in parallel. Without a requested work-group size the range is cut
   along its slowest dimension into a few chunks per thread, so each call does long loops. */
static ag_status host_kernel_launch(ag__bqueue *q, ag__bkernel *k, const ag_range *range, size_t nargs,
                                    const ag__karg *args) {
  (void)q;
  ag_host_group base = {.dims = range->dims};
  size_t total = 1;
  int threads = ag__host_threads();
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

  size_t local_bytes = 0, local_at[AG__KERNEL_ARGS_MAX];
  for (size_t i = 0; i < nargs; i++)
    if (args[i].kind == AG_ARG_LOCAL) {
      local_at[i] = local_bytes;
      local_bytes += (args[i].size + 63) & ~(size_t)63;
    }

  launch_job j = {.k = k, .base = base, .nargs = nargs, .args = args, .local_bytes = local_bytes, .local_at = local_at};
  ag__host_run(total, 1, run_groups, &j);
  bool failed = atomic_load(&j.failed);
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
    .mem_info = host_mem_info,
    .dlpack_device_type = 1, /* kDLCPU */
    .mem_borrow = host_mem_borrow,
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
