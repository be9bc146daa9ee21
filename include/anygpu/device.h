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
    @p spec NULL means $ANYGPU_DEVICE, or "auto" when that is unset or empty. *dev is the
    library's, the same pointer ag_device_get() gives for that device.
    @return AG_ERR_INVALID_ARGUMENT for a malformed spec (the message shows the grammar);
            AG_ERR_NO_DEVICE when nothing matches (the message lists the devices present and
            why each unavailable backend is unavailable). Never falls back to another device. */
AG_API ag_status ag_device_select(const char *spec, ag_device **dev);

/** Fills @p info, a copy the caller keeps: it holds no pointers into the library. */
AG_API ag_status ag_device_get_info(const ag_device *dev, ag_device_info *info);

/** Why a backend ("host", "cuda", "opencl") cannot be used, or NULL when it loaded. An unknown
    backend name gives "unknown backend". The string is static for the life of the process. */
AG_API const char *ag_backend_unavailable_reason(const char *backend);

/** Why "auto" picks the device it picks: "auto: the first CUDA GPU", "auto: the first OpenCL
    GPU (no CUDA GPU)" or "auto: no GPU found, so the host"; "no device" when no device could
    be enumerated. Static string. */
AG_API const char *ag_device_auto_reason(void);

#ifdef __cplusplus
}
#endif

#endif
