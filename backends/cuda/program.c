/* backends/cuda/program.c — the CUDA backend's programs: user kernels compiled by NVRTC to a
   CUBIN or PTX, and modules loaded into a device's primary context from that or from a fatbin
   (the embedded kernels) or a cached binary. The backend table in cuda.c reaches these entries
   as its .program_build, .program_binary, .program_load and .program_release. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define core ag__cuda_core

/* The status of a module the driver will not load: the image's fault (AG_ERR_BUILD, so the
   core's cache rebuilds from source), lack of memory, or the device's. */
static ag_status load_status(CUresult e) {
  switch ((int)e) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return AG_ERR_OUT_OF_MEMORY;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_SOURCE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_JIT_COMPILATION_DISABLED:
  case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
  case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
  case CUDA_ERROR_NOT_SUPPORTED:
  case 225: /* CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC */
    return AG_ERR_BUILD;
  default:
    return AG_ERR_DEVICE;
  }
}

/* Loads @p image (a fatbin, a cubin or NUL-terminated PTX) into @p dev's context. A rejection
   names the driver's error with the JIT compiler's log (PTX only) appended; when @p log is not
   NULL the same text goes to *log (malloc'd), for the core's build-failure message. */
static ag_status module_load(ag__bdevice *dev, const void *image, CUmodule *mod, char **log) {
  char jit_log[8192] = "";
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {jit_log, (void *)(uintptr_t)sizeof jit_log};
  ag_status st = ag__cuda_enter(dev);
  if (st != AG_OK)
    return st;
  CUresult e = cuModuleLoadDataEx(mod, image, 2, opts, vals);
  ag__cuda_leave(AG_OK);
  if (e == CUDA_SUCCESS)
    return AG_OK;
  jit_log[sizeof jit_log - 1] = '\0';
  char text[sizeof jit_log + 256];
  snprintf(text, sizeof text, "cuModuleLoadDataEx: %s (%d): %s%s%s", ag__cuda_name(e), (int)e, ag__cuda_desc(e),
           jit_log[0] ? "\n" : "", jit_log);
  if (log != NULL)
    *log = strdup(text);
  return core->error(load_status(e), "%s", text);
}

/* NVRTC's documentation does not say that compiles may run concurrently, so they are
   serialised. Compiles are rare: programs are built once and kept on disk by the core. */
static pthread_mutex_t nvrtc_lock = PTHREAD_MUTEX_INITIALIZER;
static int *nvrtc_archs; /* what --gpu-architecture accepts, ascending; under nvrtc_lock */
static int nvrtc_narchs = -1;

static ag_status nvrtc_error(ag_status st, const char *call, nvrtcResult r) {
  return core->error(st, "%s: %s (%d)", call, nvrtcGetErrorString(r), (int)r);
}

/* The --gpu-architecture option for @p dev: sm_XY when NVRTC knows the device, so the result is
   a CUBIN; otherwise PTX for the newest architecture below it, which the driver compiles.
   Called under nvrtc_lock. */
static ag_status choose_arch(const ag__bdevice *dev, char *out, size_t size) {
  if (nvrtc_narchs < 0) {
    int n = 0;
    nvrtcResult r = nvrtcGetNumSupportedArchs(&n);
    int *archs = r == NVRTC_SUCCESS && n > 0 ? malloc((size_t)n * sizeof *archs) : NULL;
    if (r != NVRTC_SUCCESS)
      return nvrtc_error(AG_ERR_DEVICE, "nvrtcGetNumSupportedArchs", r);
    if (archs == NULL)
      return n > 0 ? ag__cuda_no_memory() : core->error(AG_ERR_UNSUPPORTED, "NVRTC supports no GPU architecture");
    if ((r = nvrtcGetSupportedArchs(archs)) != NVRTC_SUCCESS) {
      free(archs);
      return nvrtc_error(AG_ERR_DEVICE, "nvrtcGetSupportedArchs", r);
    }
    nvrtc_archs = archs;
    nvrtc_narchs = n;
  }
  int below = 0;
  for (int i = 0; i < nvrtc_narchs; i++) {
    if (nvrtc_archs[i] == dev->cc) {
      snprintf(out, size, "--gpu-architecture=sm_%d", dev->cc);
      return AG_OK;
    }
    if (nvrtc_archs[i] < dev->cc && nvrtc_archs[i] > below)
      below = nvrtc_archs[i];
  }
  if (below == 0) {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return core->error(AG_ERR_UNSUPPORTED, "NVRTC %d.%d cannot compile for sm_%d: its oldest architecture is sm_%d",
                       major, minor, dev->cc, nvrtc_archs[0]);
  }
  snprintf(out, size, "--gpu-architecture=compute_%d", below);
  return AG_OK;
}

static char *nvrtc_log(nvrtcProgram prog) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1)
    return NULL;
  char *log = malloc(n);
  if (log != NULL && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  if (log != NULL)
    log[n - 1] = '\0';
  return log;
}

/* Compiles @p source with @p options split at white space (no quoting), adding the device's
   architecture unless the options name one (-arch, --gpu-architecture). *image gets the CUBIN,
   or the PTX with its NUL when the architecture is virtual (malloc'd). A compile error or a
   rejected option is AG_ERR_BUILD with NVRTC's log in *log. Called under nvrtc_lock. */
static ag_status nvrtc_compile(ag__bdevice *dev, const char *source, const char *options, void **image,
                               size_t *size, char **log) {
  char *opts = strdup(options);
  const char **argv = malloc((strlen(options) / 2 + 2) * sizeof *argv);
  if (opts == NULL || argv == NULL) {
    free(opts);
    free(argv);
    return ag__cuda_no_memory();
  }
  int argc = 0;
  bool has_arch = false;
  char *save = NULL;
  for (char *tok = strtok_r(opts, " \t\r\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\r\n", &save)) {
    argv[argc++] = tok;
    has_arch |= strncmp(tok, "-arch", 5) == 0 || strncmp(tok, "--gpu-architecture", 18) == 0;
  }
  char arch[48];
  ag_status st = AG_OK;
  if (!has_arch && (st = choose_arch(dev, arch, sizeof arch)) == AG_OK)
    argv[argc++] = arch;

  nvrtcProgram prog = NULL;
  nvrtcResult r = NVRTC_SUCCESS;
  if (st == AG_OK && (r = nvrtcCreateProgram(&prog, source, "anygpu.cu", 0, NULL, NULL)) != NVRTC_SUCCESS)
    st = nvrtc_error(r == NVRTC_ERROR_OUT_OF_MEMORY ? AG_ERR_OUT_OF_MEMORY : AG_ERR_DEVICE, "nvrtcCreateProgram", r);
  if (st == AG_OK && (r = nvrtcCompileProgram(prog, argc, argv)) != NVRTC_SUCCESS) {
    bool users = r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION || r == NVRTC_ERROR_INVALID_INPUT;
    st = nvrtc_error(users ? AG_ERR_BUILD : r == NVRTC_ERROR_OUT_OF_MEMORY ? AG_ERR_OUT_OF_MEMORY : AG_ERR_DEVICE,
                     "nvrtcCompileProgram", r);
    if (log != NULL && (*log = nvrtc_log(prog)) == NULL) {
      /* NVRTC gave no log; the status and options are then all there is to go on. */
      char text[1024];
      snprintf(text, sizeof text, "%s (%d) with options \"%s\"%s%s", nvrtcGetErrorString(r), (int)r, options,
               has_arch ? "" : " ", has_arch ? "" : arch);
      *log = strdup(text);
    }
  }
  if (st == AG_OK) {
    char *warnings = nvrtc_log(prog);
    if (warnings != NULL)
      core->log(AG__LOG_DEBUG, "cuda: NVRTC: %s", warnings);
    free(warnings);
    size_t n = 0;
    void *bin = NULL;
    bool cubin = nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS && n > 0;
    if (!cubin && (r = nvrtcGetPTXSize(prog, &n)) != NVRTC_SUCCESS)
      st = nvrtc_error(AG_ERR_DEVICE, "nvrtcGetPTXSize", r);
    else if (n <= 1)
      st = core->error(AG_ERR_BUILD, "NVRTC produced neither a CUBIN nor PTX (are the options for LTO IR?)");
    else if ((bin = malloc(n)) == NULL)
      st = ag__cuda_no_memory();
    else if ((r = cubin ? nvrtcGetCUBIN(prog, bin) : nvrtcGetPTX(prog, bin)) != NVRTC_SUCCESS)
      st = nvrtc_error(AG_ERR_DEVICE, cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", r);
    if (st == AG_OK) {
      *image = bin;
      *size = n;
    } else {
      free(bin);
    }
  }
  if (prog != NULL && (r = nvrtcDestroyProgram(&prog)) != NVRTC_SUCCESS)
    core->log(AG__LOG_WARN, "cuda: nvrtcDestroyProgram: %s (%d)", nvrtcGetErrorString(r), (int)r);
  free(argv);
  free(opts);
  return st;
}

ag_status ag__cuda_program_build(ag__bdevice *dev, const ag_program_desc *desc, const char *source,
                                 const char *options, ag__bprogram **out, char **log) {
  (void)desc;
  if (log != NULL)
    *log = NULL;
  void *image = NULL;
  size_t size = 0;
  pthread_mutex_lock(&nvrtc_lock);
  ag_status st = nvrtc_compile(dev, source, options ? options : "", &image, &size, log);
  pthread_mutex_unlock(&nvrtc_lock);
  if (st != AG_OK)
    return st;
  ag__bprogram *p = malloc(sizeof *p);
  if (p == NULL) {
    free(image);
    return ag__cuda_no_memory();
  }
  if ((st = module_load(dev, image, &p->module, log)) != AG_OK) {
    free(image);
    free(p);
    return st;
  }
  p->dev = dev;
  p->image = image;
  p->image_size = size;
  *out = p;
  return AG_OK;
}

/* The CUBIN or PTX of a program program_build made. A program from program_load keeps no copy
   of its binary (the core asks only after a build, to fill its disk cache). */
ag_status ag__cuda_program_binary(ag__bprogram *p, void **binary, size_t *size) {
  if (p->image == NULL)
    return core->error(AG_ERR_UNSUPPORTED, "the program was loaded from a binary, which is not kept");
  void *copy = malloc(p->image_size);
  if (copy == NULL)
    return ag__cuda_no_memory();
  memcpy(copy, p->image, p->image_size);
  *binary = copy;
  *size = p->image_size;
  return AG_OK;
}

static uint64_t read_le(const unsigned char *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/* Loads a fatbin (the embedded kernels), a cubin or PTX (from the disk cache). Fatbin and cubin
   headers give their size, which must fit in @p size, since the driver is not told it; PTX is
   text that the driver reads up to a NUL, added here when missing. */
ag_status ag__cuda_program_load(ag__bdevice *dev, const void *binary, size_t size, ag__bprogram **out) {
  const unsigned char *b = binary;
  const void *image = binary;
  char *text = NULL;
  if (size >= 4 && read_le(b, 4) == 0xBA55ED50u) {
    /* u32 magic, u16 version, u16 header size, u64 size of the rest */
    if (size < 16 || read_le(b + 8, 8) > size || read_le(b + 6, 2) + read_le(b + 8, 8) > size)
      return core->error(AG_ERR_BUILD, "the fatbin of %zu bytes is truncated", size);
  } else if (size >= 4 && memcmp(b, "\177ELF", 4) == 0) {
    /* The section headers (e_shoff, e_shentsize, e_shnum) end an ELF64 file. */
    uint64_t shoff = size >= 64 ? read_le(b + 0x28, 8) : 0;
    if (size < 64 || b[4] != 2 || shoff > size || read_le(b + 0x3C, 2) * read_le(b + 0x3A, 2) > size - shoff)
      return core->error(AG_ERR_BUILD, "the cubin of %zu bytes is truncated or not 64-bit", size);
  } else if (size == 0 || memchr(b, '\0', size) == NULL) {
    if ((text = malloc(size + 1)) == NULL)
      return ag__cuda_no_memory();
    memcpy(text, b, size);
    text[size] = '\0';
    image = text;
  }
  ag__bprogram *p = malloc(sizeof *p);
  ag_status st = p == NULL ? ag__cuda_no_memory() : module_load(dev, image, &p->module, NULL);
  free(text);
  if (st != AG_OK) {
    free(p);
    return st;
  }
  p->dev = dev;
  p->image = NULL;
  p->image_size = 0;
  *out = p;
  return AG_OK;
}

/* Unloading a module whose kernels still run is undefined, and the core releases a program as
   soon as its kernels are released, launches perhaps still queued: so the context is
   synchronised first. Programs are rarely released. */
void ag__cuda_program_release(ag__bprogram *p) {
  if (ag__cuda_enter(p->dev) == AG_OK) {
    ag__cuda_warn("cuCtxSynchronize", cuCtxSynchronize());
    ag__cuda_warn("cuModuleUnload", cuModuleUnload(p->module));
    ag__cuda_leave(AG_OK);
  }
  free(p->image);
  free(p);
}
