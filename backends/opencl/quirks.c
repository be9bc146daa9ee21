/* backends/opencl/quirks.c — the one table of OpenCL driver defects the backend works around,
   keyed by platform, device and driver version. docs/portability.md describes each defect,
   how it was found and what anygpu does about it; a new entry goes in both places. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

static const struct quirk {
  const char *platform; /* a word of CL_PLATFORM_NAME (case-insensitive), NULL for any */
  const char *device;   /* a word of CL_DEVICE_NAME, NULL for any */
  /* Driver versions (CL_DRIVER_VERSION, "22.3.6") below below_major.below_minor; 0, 0 for
     every version. */
  int below_major, below_minor;
  unsigned flag;
  const char *name;     /* as docs/portability.md and ag_device_info.quirks name it */
} quirks[] = {
    /* llvmpipe's shader compiler ends every loop after 65535 iterations, silently: a
       work-item that streams through 65536 elements loses the last. Every version: the limit
       is part of its design, not a bug fixed in a release we know of. */
    {NULL, "llvmpipe", 0, 0, AG__CLQ_LOOP_LIMIT, "loop-limit"},
    /* rusticl in Mesa 22.x (seen on 22.3.6): a struct argument passed by value is checked
       against a wrong size (CL_INVALID_ARG_SIZE for a struct with padding) or crashes the
       launch inside the driver. Newer releases were not checked, so they are not refused. */
    {"rusticl", NULL, 23, 0, AG__CLQ_STRUCT_ARGS, "struct-args"},
    /* rusticl aborts the whole process (a Rust panic, "unknown version") when given a program
       binary it cannot read, where OpenCL says CL_INVALID_BINARY: the disk cache checks a
       cached binary's header before handing it over. Every version: the panic is still in
       its source. */
    {"rusticl", NULL, 0, 0, AG__CLQ_BINARY_CHECK, "binary-check"},
    /* rusticl in Mesa 22.x accepts CL_QUEUE_PROFILING_ENABLE but reports the timestamps 0, 1,
       2 and 3 ns for every command, so every elapsed time came out 0 ms: refused instead.
       Newer releases were not checked. */
    {"rusticl", NULL, 23, 0, AG__CLQ_NO_PROFILING, "no-profiling"},
    /* rusticl (seen on 22.3.6): when the last command enqueued is a marker, clFinish returns
       at once, before the commands before the marker have run (a kernel of 0.5 s had written
       nothing), and the marker stays CL_QUEUED. anygpu records markers for its events, so
       ag_queue_finish and ag_device_finish returned early and freed blocks looked busy.
       Waiting for a marker of one's own does wait. Applied to every version: the cost is one
       marker per finish, and a finish that does not wait is the worse failure. */
    {"rusticl", NULL, 0, 0, AG__CLQ_FINISH_MARKER, "finish-marker"},
    /* NVIDIA's OpenCL (seen on 580.159.04, H200): a clEnqueueFillBuffer of a buffer of more
       than 2^31 bytes fails with CL_OUT_OF_RESOURCES, reported by the next command, also when
       cut into fills of 1 GiB. A fill that reaches past byte 2^31 is written from the host.
       Every version: the defect has been reported against drivers since 2020. */
    {"NVIDIA", NULL, 0, 0, AG__CLQ_FILL_2G, "fill-2g"},
    /* pocl (seen on 3.1): asked for a program's binary (CL_PROGRAM_BINARY_SIZES), it first
       compiles every kernel of the program to machine code, for any work-group size: 78
       kernels and 18 to 27 s for the elementwise family in float32 on a 2-core machine, where
       the program itself took 1 to 3 s to build. Its launches then compile the kernels they
       run once more, for their own work-group size. pocl keeps what it compiles between
       processes in its own cache ($POCL_CACHE_DIR, by default ~/.cache/pocl), so anygpu asks
       for no binary and leaves the caching to pocl. Every version: pocl builds its binaries
       this way by design. */
    {"Portable Computing Language", NULL, 0, 0, AG__CLQ_BINARY_COMPILES_ALL, "binary-compiles-all"},
};

/* The leading "major.minor" of a version string; false when it has none. */
static bool version_of(const char *s, int *major, int *minor) {
  while (*s && !isdigit((unsigned char)*s))
    s++;
  return sscanf(s, "%d.%d", major, minor) == 2;
}

unsigned ag__cl_quirks(const char *platform, const char *device, const char *driver_version, char *names,
                       size_t names_size) {
  unsigned flags = 0;
  names[0] = '\0';
  for (size_t i = 0; i < sizeof quirks / sizeof quirks[0]; i++) {
    const struct quirk *q = &quirks[i];
    if ((q->platform && !strcasestr(platform, q->platform)) || (q->device && !strcasestr(device, q->device)))
      continue;
    if (q->below_major != 0) {
      int major, minor;
      /* A version that cannot be read is taken as affected: a refused operation is safer
         than a crash or lost data. */
      if (version_of(driver_version, &major, &minor) &&
          (major > q->below_major || (major == q->below_major && minor >= q->below_minor)))
        continue;
    }
    flags |= q->flag;
    size_t used = strlen(names);
    snprintf(names + used, names_size - used, "%s%s", used ? "," : "", q->name);
  }
  return flags;
}

/* Whether an OpenCL C type name is a built-in scalar or vector type ("uint", "float4"), as
   clGetKernelArgInfo spells them. */
static bool builtin_type(const char *name) {
  static const char *const scalars[] = {"char",   "uchar", "short", "ushort", "int",    "uint",      "long",
                                        "ulong",  "float", "double", "half",  "size_t", "ptrdiff_t",
                                        "intptr_t", "uintptr_t"};
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
    size_t n = strlen(scalars[i]);
    if (strncmp(name, scalars[i], n) != 0)
      continue;
    const char *w = name + n;
    if (*w == '\0' || strcmp(w, "2") == 0 || strcmp(w, "3") == 0 || strcmp(w, "4") == 0 || strcmp(w, "8") == 0 ||
        strcmp(w, "16") == 0)
      return true;
  }
  return false;
}

int ag__cl_by_value_args(cl_kernel k, uint64_t *records, uint64_t *typedefs) {
  *records = *typedefs = 0;
  cl_uint nargs = 0;
  if (clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) != CL_SUCCESS)
    return -1;
  for (cl_uint i = 0; i < nargs && i < 64; i++) {
    cl_kernel_arg_address_qualifier aq = 0;
    char type[128] = "";
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL) != CL_SUCCESS ||
        clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL) != CL_SUCCESS)
      return -1;
    type[sizeof type - 1] = '\0';
    if (aq != CL_KERNEL_ARG_ADDRESS_PRIVATE || strchr(type, '*') != NULL || builtin_type(type))
      continue;
    if (strncmp(type, "struct ", 7) == 0 || strncmp(type, "union ", 6) == 0)
      *records |= (uint64_t)1 << i;
    else
      *typedefs |= (uint64_t)1 << i;
  }
  return (int)nargs;
}

bool ag__cl_rusticl_binary_plausible(const void *bin, size_t size) {
  /* u32 version (1), u32 SPIR-V length, u32 binary type, then the SPIR-V module, whose first
     word is its magic number. */
  uint32_t head[4];
  if (size < sizeof head)
    return false;
  memcpy(head, bin, sizeof head);
  return head[0] == 1 && (uint64_t)head[1] + 12 == size && head[3] == 0x07230203u;
}
