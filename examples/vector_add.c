/* examples/vector_add.c — c = a + b over 99 million floats with one user kernel written for
   every backend (OpenCL C, CUDA C, host C), checked element by element and timed against a
   plain C loop. Pick the device with ANYGPU_DEVICE: host, opencl:pocl, cuda:0, ... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <anygpu.h>

#define N 99000000u
#define RUNS 10     /* timed kernel launches and host loops, the best reported */
#define COPY_RUNS 3 /* timed copies each way */

/* The same kernel three times; ag_program_create() compiles the one the device runs. The
   launch is rounded up to whole work-groups, so each version checks its index against n. */
static const char opencl_source[] =
    "__kernel void vector_add(__global const float *a, __global const float *b,\n"
    "                         __global float *c, ulong n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n)\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

static const char cuda_source[] =
    "extern \"C\" __global__ void vector_add(const float *a, const float *b, float *c,\n"
    "                                       unsigned long long n) {\n"
    "  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

/* The host version runs once per work-group and loops over the group's items; groups run in
   parallel on the host's threads. args[] holds the buffers' addresses and a pointer to n. */
static void vector_add_host(const ag_host_group *g, void *const *args) {
  const float *a = args[0], *b = args[1];
  float *c = args[2];
  uint64_t n = *(const uint64_t *)args[3];
  uint64_t begin = (uint64_t)g->group_id[0] * g->local_size[0];
  uint64_t end = begin + g->local_size[0] < n ? begin + g->local_size[0] : n;
  for (uint64_t i = begin; i < end; i++)
    c[i] = a[i] + b[i];
}

static const ag_host_kernel_def host_kernels[] = {{"vector_add", vector_add_host}};

static const ag_program_desc program_desc = {
    .opencl_source = opencl_source,
    .cuda_source = cuda_source,
    .host_kernels = host_kernels,
    .host_kernel_count = 1,
};

/* Exactly representable sums: both terms are small integers, so a + b needs no rounding and
   every element can be compared with ==. */
static float a_at(size_t i) { return (float)(i % 1000); }
static float b_at(size_t i) { return (float)(2 * (i % 777)); }

/* The baseline: what one host thread does without anygpu. */
static void add_on_host(const float *restrict a, const float *restrict b, float *restrict c,
                        size_t n) {
  for (size_t i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Reports a failed call with the library's message, which names the function and the cause. */
static bool ok(ag_status st) {
  if (st != AG_OK)
    fprintf(stderr, "vector_add: %s\n", ag_last_error());
  return st == AG_OK;
}

/* Times the work enqueued on a queue between tic() and toc(): device time between two events,
   or, where the driver gives no timestamps (ag_event_elapsed_ms returns AG_ERR_UNSUPPORTED:
   Mesa's rusticl 22), the host clock from an idle queue to the end of ag_queue_finish. */
typedef struct stopwatch {
  ag_queue *q;
  ag_event *start;
  double host_start;
} stopwatch;

static bool tic(stopwatch *w) {
  if (!ok(ag_queue_finish(w->q)))
    return false;
  w->host_start = now_ms();
  return ok(ag_event_record(w->q, &w->start));
}

static bool toc(stopwatch *w, double *ms) {
  ag_event *end = NULL;
  ag_status st = ag_event_record(w->q, &end);
  if (st == AG_OK)
    st = ag_event_elapsed_ms(w->start, end, ms);
  if (st == AG_ERR_UNSUPPORTED && (st = ag_queue_finish(w->q)) == AG_OK)
    *ms = now_ms() - w->host_start;
  ag_event_destroy(w->start);
  ag_event_destroy(end);
  w->start = NULL;
  return ok(st);
}

static double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

int main(void) {
  int rc = 1;
  const size_t bytes = (size_t)N * sizeof(float);
  float *a = NULL, *b = NULL, *c = NULL;
  ag_device *dev = NULL;
  ag_queue *q = NULL;
  ag_buffer *da = NULL, *db = NULL, *dc = NULL;
  ag_program *prog = NULL;
  ag_kernel *k = NULL;
  stopwatch w = {0};

  /* NULL reads ANYGPU_DEVICE ("auto" when unset). A spec naming a device that is not here is an
     error listing what is: anygpu never falls back to another device behind your back. */
  if (!ok(ag_device_select(NULL, &dev)))
    return 1;
  ag_device_info info;
  if (!ok(ag_device_get_info(dev, &info)))
    return 1;
  printf("device:               %s (%s)\n", info.spec, info.name);
  printf("elements:             %u float32, %.0f MB per vector\n", N, (double)bytes / 1e6);

  a = malloc(bytes);
  b = malloc(bytes);
  c = malloc(bytes);
  if (a == NULL || b == NULL || c == NULL) {
    fprintf(stderr, "vector_add: out of host memory for 3 x %zu bytes\n", bytes);
    goto out;
  }
  for (size_t i = 0; i < N; i++) {
    a[i] = a_at(i);
    b[i] = b_at(i);
  }

  /* A queue of our own: the events that time the work are recorded on it. */
  if (!ok(ag_queue_create(dev, &q)) || !ok(ag_buffer_alloc(dev, bytes, &da)) ||
      !ok(ag_buffer_alloc(dev, bytes, &db)) || !ok(ag_buffer_alloc(dev, bytes, &dc)))
    goto out;
  w.q = q;

  /* Copies are timed three times: the first one also pays for mapping fresh pages (on the
     host and, for a CPU device, in the buffers), the later ones show the steady rate. */
  double ms, first = 0, best = -1;
  for (int r = 0; r < COPY_RUNS; r++) {
    if (!tic(&w) || !ok(ag_buffer_write(q, da, 0, a, bytes)) || !ok(ag_buffer_write(q, db, 0, b, bytes)) ||
        !toc(&w, &ms))
      goto out;
    first = r == 0 ? ms : first;
    best = best < 0 || ms < best ? ms : best;
  }
  printf("copy a, b to device:  %8.2f ms  %6.2f GB/s  (best of %d; first %.2f ms)\n", best,
         gbps(2.0 * (double)bytes, best), COPY_RUNS, first);

  /* Compiled OpenCL and CUDA programs are cached on disk, so later runs skip the compiler. */
  double build_start = now_ms();
  if (!ok(ag_program_create(dev, &program_desc, &prog)) || !ok(ag_kernel_get(prog, "vector_add", &k)))
    goto out;
  printf("build kernel:         %8.2f ms\n", now_ms() - build_start);

  uint64_t n = N;
  const ag_arg args[] = {AG_ARG_BUF(da), AG_ARG_BUF(db), AG_ARG_BUF(dc), AG_ARG_VAL(n)};
  const ag_range range = {.dims = 1, .global = {N}}; /* local 0: the backend picks */
  const size_t nargs = sizeof args / sizeof args[0];

  /* The first launch pays for one-time work (a driver's lazy setup, first touch of the output
     pages), so it is left out of the timing. */
  if (!ok(ag_kernel_launch(q, k, &range, nargs, args)) || !ok(ag_queue_finish(q)))
    goto out;
  best = -1;
  for (int r = 0; r < RUNS; r++) {
    if (!tic(&w) || !ok(ag_kernel_launch(q, k, &range, nargs, args)) || !toc(&w, &ms))
      goto out;
    best = best < 0 || ms < best ? ms : best;
  }
  double device_ms = best;
  printf("add on device:        %8.2f ms  %6.2f GB/s  (best of %d)\n", device_ms,
         gbps(3.0 * (double)bytes, device_ms), RUNS);

  best = -1;
  for (int r = 0; r < COPY_RUNS; r++) {
    if (!tic(&w) || !ok(ag_buffer_read(q, dc, 0, c, bytes)) || !toc(&w, &ms))
      goto out;
    first = r == 0 ? ms : first;
    best = best < 0 || ms < best ? ms : best;
  }
  printf("copy c to host:       %8.2f ms  %6.2f GB/s  (best of %d; first %.2f ms)\n", best,
         gbps((double)bytes, best), COPY_RUNS, first);

  size_t bad = 0;
  for (size_t i = 0; i < N; i++)
    if (c[i] != a_at(i) + b_at(i)) {
      if (bad == 0)
        fprintf(stderr, "vector_add: c[%zu] is %g, expected %g\n", i, (double)c[i],
                (double)(a_at(i) + b_at(i)));
      bad++;
    }

  /* The same add as a plain loop on one host thread. c was handed to the library above, so the
     compiler cannot drop these stores as unused. */
  best = -1;
  for (int r = 0; r < RUNS; r++) {
    double start = now_ms();
    add_on_host(a, b, c, N);
    ms = now_ms() - start;
    best = best < 0 || ms < best ? ms : best;
  }
  printf("add on host, C loop:  %8.2f ms  %6.2f GB/s  (best of %d, 1 thread)\n", best,
         gbps(3.0 * (double)bytes, best), RUNS);
  printf("speed-up over loop:   %8.2fx\n", best / device_ms);

  printf("check:                %zu of %u elements mismatched\n", bad, N);
  rc = bad == 0 ? 0 : 1;

out:
  ag_event_destroy(w.start);
  ag_kernel_destroy(k);
  ag_program_destroy(prog);
  ag_buffer_free(da);
  ag_buffer_free(db);
  ag_buffer_free(dc);
  ag_queue_destroy(q);
  free(a);
  free(b);
  free(c);
  return rc;
}
