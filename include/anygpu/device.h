/* anygpu/device.h — enumerating devices, choosing one by spec string, describing it.

   Threads and ownership: devices belong to the library. They are enumerated once per process,
   by the first call into the library from whichever thread (calls from other threads meanwhile
   wait for it), and every ag_device pointer then stays valid for the life of the process:
   nothing frees it, and all threads may share it. Every function here may be called from any
   thread at once. The strings they return are static for the life of the process. */
#ifndef ANYGPU_DEVICE_H
#define ANYGPU_DEVICE_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What kind of processor a device is. */
typedef enum ag_device_type {
  AG_DEVICE_CPU = 1,
  AG_DEVICE_GPU = 2,
  AG_DEVICE_ACCELERATOR = 3, /* other OpenCL accelerators */
} ag_device_type;

/** A device's description, filled by ag_device_get_info(). Strings are NUL-terminated and
    truncated to fit; the struct holds no pointers, so it may be copied freely. */
typedef struct ag_device_info {
  char backend[16];        /* "host", "cuda" or "opencl" */
  char spec[32];           /* the spec that names exactly this device: "host", "cuda:0", "opencl:1" */
  ag_device_type type;
  char name[256];          /* "NVIDIA H100 80GB HBM3", "pthread-skylake-avx512-AMD EPYC ..." */
  char vendor[128];
  char platform[128];      /* OpenCL: "platform name, platform vendor"
                              ("Portable Computing Language, The pocl project"); else "CUDA"
                              or "host". opencl:WORD matches it, name and vendor. */
  char driver_version[64]; /* driver or runtime version reported by the vendor */
  size_t global_memory;    /* bytes */
  size_t max_allocation;   /* largest single buffer, bytes */
  int compute_units;       /* cores, multiprocessors or OpenCL compute units */
  size_t max_work_group_size; /* largest work-group (CUDA: threads per block) */
  size_t local_memory;     /* bytes of local (CUDA: shared) memory per work-group */
  bool fp64;               /* double precision is supported */
  int compute_capability;  /* CUDA: major * 10 + minor (90 for sm_90); 0 elsewhere */
  /* The most iterations one loop of a kernel may run in one work-item before the driver ends
     the loop early without an error (Mesa's llvmpipe: 65535); 0 means no such limit. anygpu's
     own kernels are launched within it; a user kernel on such a device must keep its loops
     within it too (docs/portability.md). */
  unsigned long long max_loop_iterations;
  char quirks[128];        /* the driver defects anygpu works around on this device, as
                              comma-separated names from docs/portability.md; "" for none */
} ag_device_info;

/** Number of devices present, host included (so at least 1). Devices are enumerated once per
    process, on the first call into the library; with ANYGPU_DEVICE=host only the host is
    enumerated and every GPU backend stays unloaded. */
AG_API ag_status ag_device_count(int *count);

/** Device number @p index in enumeration order: host first, then CUDA devices, then OpenCL
    devices in the ICD loader's platform-then-device order. *dev is the library's.
    @return AG_ERR_OUT_OF_RANGE when index is not below ag_device_count(). */
AG_API ag_status ag_device_get(int index, ag_device **dev);

/** The device a spec string names (grammar in docs/guide.md, "Devices"):
      auto | host | cpu | gpu | cuda[:N] | opencl[:N] | opencl:WORD[:N]
    and the forms that name a set of devices (docs/multi-device.md): wildcards (`*`,
    `gpu:*`, `opencl:pocl:*`), `by-load` and `local-rank` (alone or after gpu, cpu, cuda,
    opencl or opencl:WORD), and comma-separated lists of any of these. For a spec that names a
    set, ag_device_select gives the set's first device, as ag_device_set_select() orders it
    (for `by-load` and `local-rank`, the one device they choose), so a program written for one
    device runs unchanged under ANYGPU_DEVICE=local-rank; the choice is logged at
    ANYGPU_LOG=info. Programs that use several devices call ag_device_set_select().
    @p spec NULL means $ANYGPU_DEVICE, or "auto" when that is unset or empty. *dev is the
    library's, the same pointer ag_device_get() gives for that device.
    @return AG_ERR_INVALID_ARGUMENT for a malformed spec (the message shows the grammar) or a
            malformed local rank variable; AG_ERR_NO_DEVICE when nothing matches (the message
            lists the devices present and why each unavailable backend is unavailable), or for
            `local-rank` when no local rank variable is set (the message names them). Never
            falls back to another device. */
AG_API ag_status ag_device_select(const char *spec, ag_device **dev);

/** An ordered set of distinct devices, the caller's: free it with ag_device_set_free(). The
    devices in it are the library's, as ever; the set only lists them. A set is not changed
    after it is made, so any number of threads may read one at once. */
typedef struct ag_device_set ag_device_set;

/** The devices a spec names, in the order of its comma-separated items; a wildcard item adds
    its devices in enumeration order; a device named twice is kept at its first place.
      `*`                              every device, the host included
      `gpu:*`, `cpu:*`, `cuda:*`,      every device of that type or backend, or whose names
      `opencl:*`, `opencl:WORD:*`      contain WORD; none is not an error inside a list
      `by-load`, `X:by-load`           the one device of X:* with the lowest weighted load
                                       (ag_device_get_load, weights 0.5 and 0.5); bare
                                       `by-load` chooses among the GPUs, or is the host when
                                       there is none, as `auto` is
      `local-rank`, `X:local-rank`     device rank % n of X:*'s n devices, the rank read from
                                       LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID
                                       (the first set of them); bare `local-rank` over the
                                       GPUs, or the host when there is none
    plus every single-device spec, which adds its device. @p spec NULL means $ANYGPU_DEVICE,
    or "auto" when that is unset or empty.
    @return AG_ERR_INVALID_ARGUMENT for a NULL @p set, a malformed spec or item (an empty item
            between commas included) or a local rank variable that is not a number from 0 to
            1000000; AG_ERR_NO_DEVICE when a single-device item matches nothing, when
            `by-load` or `local-rank` has no device to choose from, when `local-rank` finds no
            rank variable, or when the whole set is empty; AG_ERR_OUT_OF_MEMORY. *set is NULL
            after a failure. */
AG_API ag_status ag_device_set_select(const char *spec, ag_device_set **set);

/** The number of devices in @p set (at least 1: an empty set is never made). */
AG_API ag_status ag_device_set_count(const ag_device_set *set, int *count);

/** Device @p index of @p set, in the set's order. *dev is the library's.
    @return AG_ERR_OUT_OF_RANGE when index is not below ag_device_set_count(). */
AG_API ag_status ag_device_set_get(const ag_device_set *set, int index, ag_device **dev);

/** Frees @p set (not its devices, which are the library's). NULL is a no-op. */
AG_API void ag_device_set_free(ag_device_set *set);

/** How busy a device is, as ag_device_get_load() measures it. Fractions run from 0 to 1. */
typedef struct ag_device_load {
  size_t memory_total;     /* bytes: the driver's total where it reports free memory, else
                              ag_device_info.global_memory */
  size_t memory_used;      /* bytes in use: total minus the driver's free memory (every
                              process's use), else anygpu's own pool in this process (bytes in
                              use plus bytes cached, ag_device_pool_stats) */
  bool memory_from_driver; /* memory_used came from the driver (CUDA, the host), not the pool */
  double memory;           /* memory_used / memory_total */
  double processor;        /* the processor's busy fraction; 0 where it cannot be measured */
  bool processor_known;    /* false on every backend so far (docs/multi-device.md) */
  double weighted;         /* (wproc * processor + wmem * memory) / (wproc + wmem) */
} ag_device_load;

/** Measures @p dev's load now, weighting as sporco's gpu_load(wproc, wmem) does. On CUDA the
    free memory query makes the device's primary context current, creating it on first use
    (a few hundred MiB of device memory, once per process and device).
    @return AG_ERR_INVALID_ARGUMENT for a NULL @p dev or @p load, or weights that are negative,
            not finite, or both zero (the message names wproc or wmem); AG_ERR_DEVICE when
            the driver's query fails. */
AG_API ag_status ag_device_get_load(const ag_device *dev, double wproc, double wmem, ag_device_load *load);

/** Fills @p info, a copy the caller keeps: it holds no pointers into the library. */
AG_API ag_status ag_device_get_info(const ag_device *dev, ag_device_info *info);

/** Why a backend ("host", "cuda", "opencl") cannot be used, or NULL when it loaded. An unknown
    backend name gives "unknown backend". The string is static for the life of the process. */
AG_API const char *ag_backend_unavailable_reason(const char *backend);

/** Why "auto" picks the device it picks: "auto: the first CUDA GPU", "auto: the first OpenCL
    GPU (no CUDA GPU)" or "auto: no GPU found, so the host"; "no device" when no device could
    be enumerated. Static string. It describes "auto" alone, whatever ANYGPU_DEVICE holds: when
    that names a device, ag_device_select(NULL) takes the device it names instead. */
AG_API const char *ag_device_auto_reason(void);

#ifdef __cplusplus
}
#endif

#endif
