/* tests/programs.c — the test kernels in OpenCL C, CUDA C and host C (see programs.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "programs.h"
#include "runner.h"

static const char opencl_source[] =
    "typedef struct { uint mul; ulong add; uint n; } test_affine;\n"
    "__kernel void vadd(__global const uint *a, __global const uint *b, __global uint *c, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void add_scalar(__global const uint *in, __global uint *out, uint k, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) out[i] = in[i] + k;\n"
    "}\n"
    "__kernel void index2d(__global uint *out, uint w, uint h) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x < w && y < h) out[y * w + x] = (uint)(y << 16 | x);\n"
    "}\n"
    "__kernel void index3d(__global uint *out, uint w, uint h, uint d) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = (uint)(z << 20 | y << 10 | x);\n"
    "}\n"
    "__kernel void affine_fill(__global ulong *out, test_affine p) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < p.n) out[i] = (ulong)i * p.mul + p.add;\n"
    "}\n"
    "__kernel void group_sum(__global const uint *in, __global uint *partial, __local uint *scratch,\n"
    "                        uint n) {\n"
    "  size_t lid = get_local_id(0), gid = get_global_id(0);\n"
    "  scratch[lid] = gid < n ? in[gid] : 0u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "#ifdef AG_TEST_VARIANT\n"
    "__kernel void variant(__global uint *out) { out[0] = AG_TEST_VARIANT; }\n"
    "#endif\n";

/* Local memory reaches a CUDA kernel as an unsigned 32-bit byte offset into the dynamic
   shared memory (docs/kernels.md). */
static const char cuda_source[] =
    "typedef struct { unsigned mul; unsigned long long add; unsigned n; } test_affine;\n"
    "extern \"C\" __global__ void vadd(const unsigned *a, const unsigned *b, unsigned *c, unsigned n) {\n"
    "  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n"
    "extern \"C\" __global__ void add_scalar(const unsigned *in, unsigned *out, unsigned k, unsigned n) {\n"
    "  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = in[i] + k;\n"
    "}\n"
    "extern \"C\" __global__ void index2d(unsigned *out, unsigned w, unsigned h) {\n"
    "  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x < w && y < h) out[y * w + x] = y << 16 | x;\n"
    "}\n"
    "extern \"C\" __global__ void index3d(unsigned *out, unsigned w, unsigned h, unsigned d) {\n"
    "  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,\n"
    "           z = blockIdx.z * blockDim.z + threadIdx.z;\n"
    "  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = z << 20 | y << 10 | x;\n"
    "}\n"
    "extern \"C\" __global__ void affine_fill(unsigned long long *out, test_affine p) {\n"
    "  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < p.n) out[i] = i * p.mul + p.add;\n"
    "}\n"
    "extern \"C\" __global__ void group_sum(const unsigned *in, unsigned *partial, unsigned scratch_at,\n"
    "                                      unsigned n) {\n"
    "  extern __shared__ __align__(16) unsigned char shared[];\n"
    "  unsigned *scratch = (unsigned *)(shared + scratch_at);\n"
    "  unsigned lid = threadIdx.x, gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  scratch[lid] = gid < n ? in[gid] : 0u;\n"
    "  __syncthreads();\n"
    "  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {\n"
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (lid == 0) partial[blockIdx.x] = scratch[0];\n"
    "}\n"
    "#ifdef AG_TEST_VARIANT\n"
    "extern \"C\" __global__ void variant(unsigned *out) { out[0] = AG_TEST_VARIANT; }\n"
    "#endif\n";

/* ---- host C twins --------------------------------------------------------------------------- */

static uint32_t u32_arg(void *const *args, int i) { return *(const uint32_t *)args[i]; }

/* The global index of item @p l of this group in dimension @p d. */
static size_t global_index(const ag_host_group *g, unsigned d, size_t l) {
  return g->group_id[d] * g->local_size[d] + l;
}

static void host_vadd(const ag_host_group *g, void *const *args) {
  const uint32_t *a = args[0], *b = args[1];
  uint32_t *c = args[2];
  uint32_t n = u32_arg(args, 3);
  for (size_t l = 0; l < g->local_size[0]; l++) {
    size_t i = global_index(g, 0, l);
    if (i < n)
      c[i] = a[i] + b[i];
  }
}

static void host_add_scalar(const ag_host_group *g, void *const *args) {
  const uint32_t *in = args[0];
  uint32_t *out = args[1];
  uint32_t k = u32_arg(args, 2), n = u32_arg(args, 3);
  for (size_t l = 0; l < g->local_size[0]; l++) {
    size_t i = global_index(g, 0, l);
    if (i < n)
      out[i] = in[i] + k;
  }
}

static void host_index2d(const ag_host_group *g, void *const *args) {
  uint32_t *out = args[0];
  uint32_t w = u32_arg(args, 1), h = u32_arg(args, 2);
  for (size_t ly = 0; ly < g->local_size[1]; ly++)
    for (size_t lx = 0; lx < g->local_size[0]; lx++) {
      size_t x = global_index(g, 0, lx), y = global_index(g, 1, ly);
      if (x < w && y < h)
        out[y * w + x] = (uint32_t)(y << 16 | x);
    }
}

static void host_index3d(const ag_host_group *g, void *const *args) {
  uint32_t *out = args[0];
  uint32_t w = u32_arg(args, 1), h = u32_arg(args, 2), d = u32_arg(args, 3);
  for (size_t lz = 0; lz < g->local_size[2]; lz++)
    for (size_t ly = 0; ly < g->local_size[1]; ly++)
      for (size_t lx = 0; lx < g->local_size[0]; lx++) {
        size_t x = global_index(g, 0, lx), y = global_index(g, 1, ly), z = global_index(g, 2, lz);
        if (x < w && y < h && z < d)
          out[(z * h + y) * w + x] = (uint32_t)(z << 20 | y << 10 | x);
      }
}

static void host_affine_fill(const ag_host_group *g, void *const *args) {
  uint64_t *out = args[0];
  test_affine p;
  memcpy(&p, args[1], sizeof p);
  for (size_t l = 0; l < g->local_size[0]; l++) {
    size_t i = global_index(g, 0, l);
    if (i < p.n)
      out[i] = (uint64_t)i * p.mul + p.add;
  }
}

/* Two phases, as a work-group would run them: load into local memory, then reduce it. */
static void host_group_sum(const ag_host_group *g, void *const *args) {
  const uint32_t *in = args[0];
  uint32_t *partial = args[1], *scratch = args[2];
  uint32_t n = u32_arg(args, 3);
  size_t ls = g->local_size[0];
  for (size_t l = 0; l < ls; l++) {
    size_t i = global_index(g, 0, l);
    scratch[l] = i < n ? in[i] : 0u;
  }
  for (size_t s = ls / 2; s > 0; s /= 2)
    for (size_t l = 0; l < s; l++)
      scratch[l] += scratch[l + s];
  partial[g->group_id[0]] = scratch[0];
}

static void host_scale_f64(const ag_host_group *g, void *const *args) {
  double *out = args[0];
  double s = *(const double *)args[1];
  uint32_t n = u32_arg(args, 2);
  for (size_t l = 0; l < g->local_size[0]; l++) {
    size_t i = global_index(g, 0, l);
    if (i < n)
      out[i] = s * (double)i;
  }
}

static const ag_host_kernel_def host_kernels[] = {
    {"vadd", host_vadd},       {"add_scalar", host_add_scalar},   {"index2d", host_index2d},
    {"index3d", host_index3d}, {"affine_fill", host_affine_fill}, {"group_sum", host_group_sum},
};

ag_program_desc programs_desc(void) {
  return (ag_program_desc){.opencl_source = opencl_source,
                           .cuda_source = cuda_source,
                           .host_kernels = host_kernels,
                           .host_kernel_count = sizeof host_kernels / sizeof host_kernels[0]};
}

static const char opencl_fp64_source[] = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                                         "__kernel void scale_f64(__global double *out, double s, uint n) {\n"
                                         "  size_t i = get_global_id(0);\n"
                                         "  if (i < n) out[i] = s * (double)i;\n"
                                         "}\n";

static const char cuda_fp64_source[] =
    "extern \"C\" __global__ void scale_f64(double *out, double s, unsigned n) {\n"
    "  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = s * (double)i;\n"
    "}\n";

static const ag_host_kernel_def host_fp64_kernels[] = {{"scale_f64", host_scale_f64}};

ag_program_desc programs_fp64_desc(void) {
  return (ag_program_desc){.opencl_source = opencl_fp64_source,
                           .cuda_source = cuda_fp64_source,
                           .host_kernels = host_fp64_kernels,
                           .host_kernel_count = 1};
}

ag_program_desc programs_broken_desc(void) {
  return (ag_program_desc){
      .opencl_source = "__kernel void broken(__global uint *out) { out[0] = " PROGRAMS_UNDECLARED "; }\n",
      .cuda_source = "extern \"C\" __global__ void broken(unsigned *out) { out[0] = " PROGRAMS_UNDECLARED "; }\n"};
}

/* ---- the shared vector add ------------------------------------------------------------------ */

static int say_failure(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say_failure(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
  return 1;
}

int programs_run_vadd(ag_device *dev, ag_queue *q, ag_kernel *k, size_t n, size_t local, unsigned seed, char *why,
                      size_t why_size) {
  /* c has a tail of sentinels that the kernel must leave alone. */
  enum { TAIL = 16 };
  const uint32_t sentinel = 0xdeadbeefu;
  size_t bytes = n * sizeof(uint32_t);
  uint32_t *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes + TAIL * sizeof(uint32_t));
  ag_buffer *da = NULL, *db = NULL, *dc = NULL;
  int rc = 0;
  if (a == NULL || b == NULL || c == NULL) {
    rc = say_failure(why, why_size, "out of host memory");
    goto done;
  }
  for (size_t i = 0; i < n; i++) {
    a[i] = (uint32_t)(i * 2654435761u + seed);
    b[i] = (uint32_t)(~i ^ (seed * 40503u));
  }
  ag_status st;
  if ((st = ag_buffer_alloc(dev, bytes, &da)) != AG_OK || (st = ag_buffer_alloc(dev, bytes, &db)) != AG_OK ||
      (st = ag_buffer_alloc(dev, bytes + TAIL * sizeof(uint32_t), &dc)) != AG_OK ||
      (st = ag_buffer_write(q, da, 0, a, bytes)) != AG_OK || (st = ag_buffer_write(q, db, 0, b, bytes)) != AG_OK ||
      (st = ag_buffer_fill(q, dc, 0, &sentinel, 4, bytes + TAIL * sizeof(uint32_t))) != AG_OK) {
    rc = say_failure(why, why_size, "setting up vadd of %zu: %s: %s", n, ag_status_name(st), ag_last_error());
    goto done;
  }
  uint32_t n32 = (uint32_t)n;
  ag_arg args[] = {AG_ARG_BUF(da), AG_ARG_BUF(db), AG_ARG_BUF(dc), AG_ARG_VAL(n32)};
  ag_range range = {.dims = 1, .global = {n}, .local = {local}};
  test_fit_local(k, &range);
  local = range.local[0];
  if ((st = ag_kernel_launch(q, k, &range, 4, args)) != AG_OK ||
      (st = ag_buffer_read(q, dc, 0, c, bytes + TAIL * sizeof(uint32_t))) != AG_OK) {
    rc = say_failure(why, why_size, "vadd of %zu with local %zu: %s: %s", n, local, ag_status_name(st), ag_last_error());
    goto done;
  }
  for (size_t i = 0; i < n + TAIL; i++) {
    uint32_t want = i < n ? a[i] + b[i] : sentinel;
    if (c[i] != want) {
      rc = say_failure(why, why_size, "vadd of %zu with local %zu: c[%zu] is 0x%08x, expected 0x%08x%s", n, local, i, c[i],
                want, i < n ? "" : " (past the end: the kernel must not write there)");
      goto done;
    }
  }
done:
  ag_buffer_free(da);
  ag_buffer_free(db);
  ag_buffer_free(dc);
  free(a);
  free(b);
  free(c);
  return rc;
}

int programs_build_and_run(ag_device *dev, const char *options, size_t n, char *why, size_t why_size) {
  ag_program_desc desc = programs_desc();
  desc.opencl_options = options;
  desc.cuda_options = options;
  ag_program *prog = NULL;
  ag_kernel *k = NULL;
  ag_status st = ag_program_create(dev, &desc, &prog);
  if (st != AG_OK)
    return say_failure(why, why_size, "ag_program_create: %s: %s", ag_status_name(st), ag_last_error());
  st = ag_kernel_get(prog, "vadd", &k);
  int rc = st != AG_OK ? say_failure(why, why_size, "ag_kernel_get: %s: %s", ag_status_name(st), ag_last_error())
                       : programs_run_vadd(dev, NULL, k, n, 0, 7, why, why_size);
  ag_kernel_destroy(k);
  ag_program_destroy(prog);
  return rc;
}
