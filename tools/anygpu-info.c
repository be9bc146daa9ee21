/* tools/anygpu-info.c — prints the library version, the backends, every device, the default
   device and the ANYGPU_* settings, as a table or (--json) as one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anygpu.h>

static const char usage[] =
    "usage: anygpu-info [--json] [--selected]\n"
    "\n"
    "Prints what anygpu sees on this machine: its version, which backends loaded (and why the\n"
    "others did not), every device in enumeration order with its load, the device that\n"
    "ANYGPU_DEVICE (or \"auto\") selects, and the ANYGPU_* environment variables in effect.\n"
    "\n"
    "  --selected  only the device that ANYGPU_DEVICE selects: its spec and name on one line,\n"
    "              or why none can be selected on stderr (exit status 1)\n"
    "  --json      the same as one JSON object on stdout\n"
    "  --help      this text\n"
    "\n"
    "Exit status: 0 on success, 1 when the default device cannot be selected (for instance a\n"
    "bad ANYGPU_DEVICE, or local-rank with no rank variable) or no device can be enumerated,\n"
    "2 on a bad option.\n";

/* The backends in enumeration order; ag_backend_unavailable_reason() takes these names. */
static const char *const backend_names[] = {"host", "cuda", "opencl"};
enum { NBACKENDS = sizeof backend_names / sizeof backend_names[0] };

static const struct {
  const char *name;
  const char *what;
} env_vars[] = {
    {"ANYGPU_DEVICE", "device spec of ag_device_select(NULL); default auto"},
    {"ANYGPU_LOG", "error|warn|info|debug: library log on stderr; default silent"},
    {"ANYGPU_CACHE_DIR", "folder of compiled kernels and FFTW wisdom; off turns the cache off"},
    {"ANYGPU_POOL", "0 turns the device memory pool off"},
    {"ANYGPU_BACKEND_PATH", "folders searched first for backend modules"},
    {"ANYGPU_OPENCL_FFT", "FFT library of the OpenCL backend: vkfft (default) or clfft"},
    {"ANYGPU_OPENCL_BLAS", "BLAS of CPU OpenCL devices: openblas (default, mapped) or clblast"},
    {"ANYGPU_FFTW_PLANNER", "how hard the host's FFTW plans: measure (default), patient, exhaustive, estimate"},
};
enum { NENV = sizeof env_vars / sizeof env_vars[0] };

/* Everything printed, gathered first so the text and JSON forms cannot disagree. */
typedef struct report {
  const char *backend_reason[NBACKENDS]; /* NULL when the backend loaded */
  int device_count;
  ag_device_info *devices;
  const char **blas, **fft; /* each device's libraries; NULL: none */
  ag_device_load *load;     /* each device's load (weights 0.5, 0.5, as by-load's) */
  bool *load_ok;            /* false where the load could not be measured */
  char enum_error[1024];    /* why devices could not be enumerated; "" when they could */
  bool default_ok;
  ag_device_info default_info;
  char default_reason[512]; /* "ANYGPU_DEVICE=..." or the auto reason */
  char default_error[4096]; /* ag_last_error() of a failed selection (the library caps its
                               list of devices present at 2 KiB) */
  const char *env[NENV];    /* NULL when unset */
  char cache_dir[1024];     /* "" when the cache is off or no folder can be named */
  const char *cache_note;   /* why cache_dir is empty */
} report;

/* The kernel cache folder the library uses, and why there is none when it is off. */
static void find_cache_dir(report *r) {
  const char *dir = ag_kernel_cache_dir();
  const char *env = getenv("ANYGPU_CACHE_DIR");
  snprintf(r->cache_dir, sizeof r->cache_dir, "%s", dir ? dir : "");
  r->cache_note = dir ? NULL
                  : env && strcmp(env, "off") == 0
                      ? "off (ANYGPU_CACHE_DIR=off)"
                      : "off (none of ANYGPU_CACHE_DIR, XDG_CACHE_HOME, HOME is set)";
}

static void gather(report *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < NBACKENDS; i++)
    r->backend_reason[i] = ag_backend_unavailable_reason(backend_names[i]);

  int n = 0;
  if (ag_device_count(&n) != AG_OK) {
    snprintf(r->enum_error, sizeof r->enum_error, "%s", ag_last_error());
    n = 0;
  }
  r->devices = n > 0 ? calloc((size_t)n, sizeof *r->devices) : NULL;
  r->blas = n > 0 ? calloc((size_t)n, sizeof *r->blas) : NULL;
  r->fft = n > 0 ? calloc((size_t)n, sizeof *r->fft) : NULL;
  r->load = n > 0 ? calloc((size_t)n, sizeof *r->load) : NULL;
  r->load_ok = n > 0 ? calloc((size_t)n, sizeof *r->load_ok) : NULL;
  if (r->blas == NULL || r->fft == NULL || r->load == NULL || r->load_ok == NULL) {
    free(r->devices);
    r->devices = NULL;
  }
  for (int i = 0; i < n && r->devices != NULL; i++) {
    ag_device *dev;
    if (ag_device_get(i, &dev) != AG_OK || ag_device_get_info(dev, &r->devices[i]) != AG_OK) {
      snprintf(r->enum_error, sizeof r->enum_error, "%s", ag_last_error());
      break;
    }
    r->blas[i] = ag_blas_provider(dev);
    r->fft[i] = ag_fft_provider(dev);
    r->load_ok[i] = ag_device_get_load(dev, 0.5, 0.5, &r->load[i]) == AG_OK;
    r->device_count = i + 1;
  }
  if (n > 0 && r->devices == NULL)
    snprintf(r->enum_error, sizeof r->enum_error, "out of memory for %d device descriptions", n);

  /* The same test ag_device_select(NULL) makes: an empty ANYGPU_DEVICE means auto. */
  const char *spec = getenv("ANYGPU_DEVICE");
  if (spec != NULL && *spec != '\0')
    snprintf(r->default_reason, sizeof r->default_reason, "ANYGPU_DEVICE=%s", spec);
  else
    snprintf(r->default_reason, sizeof r->default_reason, "%s", ag_device_auto_reason());
  ag_device *def;
  if (ag_device_select(NULL, &def) == AG_OK && ag_device_get_info(def, &r->default_info) == AG_OK)
    r->default_ok = true;
  else
    snprintf(r->default_error, sizeof r->default_error, "%s", ag_last_error());

  for (int i = 0; i < NENV; i++)
    r->env[i] = getenv(env_vars[i].name);
  find_cache_dir(r);
}

static const char *type_name(ag_device_type t) {
  switch (t) {
  case AG_DEVICE_CPU:
    return "CPU";
  case AG_DEVICE_GPU:
    return "GPU";
  case AG_DEVICE_ACCELERATOR:
    return "accelerator";
  }
  return "unknown";
}

/* "23.47 GiB", "64 KiB", "512 bytes": whole numbers stay whole. */
static void human_bytes(size_t bytes, char *out, size_t size) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = (double)bytes;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  if (u == 0 || bytes % ((size_t)1 << (10 * u)) == 0)
    snprintf(out, size, "%.0f %s", v, units[u]);
  else
    snprintf(out, size, "%.2f %s", v, units[u]);
}

/* "9.0" from 90; "" when zero (not a CUDA device). */
static void capability(int cc, char *out, size_t size) {
  if (cc > 0)
    snprintf(out, size, "%d.%d", cc / 10, cc % 10);
  else
    out[0] = '\0';
}

/* ---- text ---------------------------------------------------------------------------------- */

static int imax(int a, int b) { return a > b ? a : b; }

/* One line per device; the name goes last, so a long one needs no cutting. */
static void print_summary(const report *r) {
  char mem[32];
  int wspec = 4, wtype = 4, wmem = 6;
  for (int i = 0; i < r->device_count; i++) {
    const ag_device_info *d = &r->devices[i];
    human_bytes(d->global_memory, mem, sizeof mem);
    wspec = imax(wspec, (int)strlen(d->spec));
    wtype = imax(wtype, (int)strlen(type_name(d->type)));
    wmem = imax(wmem, (int)strlen(mem));
  }
  printf("    %-2s  %-*s  %-*s  %*s  %5s  %4s  %5s  %s\n", "#", wspec, "spec", wtype, "type", wmem, "memory",
         "units", "fp64", "load", "name");
  for (int i = 0; i < r->device_count; i++) {
    const ag_device_info *d = &r->devices[i];
    human_bytes(d->global_memory, mem, sizeof mem);
    char load[16] = "?";
    if (r->load_ok[i])
      snprintf(load, sizeof load, "%.3f", r->load[i].weighted);
    printf("    %-2d  %-*s  %-*s  %*s  %5d  %4s  %5s  %s\n", i, wspec, d->spec, wtype, type_name(d->type), wmem,
           mem, d->compute_units, d->fp64 ? "yes" : "no", load, d->name);
  }
}

static void print_bytes_row(const char *label, size_t bytes) {
  char h[32];
  human_bytes(bytes, h, sizeof h);
  printf("    %-22s%s (%zu bytes)\n", label, h, bytes);
}

/* "12.5% of 16 GiB in use (the driver's count); load 0.062", as by-load weighs it. */
static void print_load(const ag_device_load *l, bool ok) {
  if (!ok) {
    printf("    %-22s%s\n", "load", "cannot be measured");
    return;
  }
  char used[32], total[32];
  human_bytes(l->memory_used, used, sizeof used);
  human_bytes(l->memory_total, total, sizeof total);
  printf("    %-22s%s of %s (%.1f%%), %s\n", "memory in use", used, total, 100 * l->memory,
         l->memory_from_driver ? "as the driver counts it" : "in anygpu's pool in this process");
  printf("    %-22s%.3f (memory and processor weighted 0.5 each; processor %s)\n", "load", l->weighted,
         l->processor_known ? "measured" : "not measured, counted as idle");
}

static void print_device(int index, const ag_device_info *d, const char *blas, const char *fft) {
  printf("\ndevice %d: %s\n", index, d->spec);
  printf("    %-22s%s\n", "name", d->name);
  printf("    %-22s%s\n", "backend", d->backend);
  printf("    %-22s%s\n", "type", type_name(d->type));
  printf("    %-22s%s\n", "vendor", d->vendor);
  printf("    %-22s%s\n", "platform", d->platform);
  printf("    %-22s%s\n", "driver version", d->driver_version);
  print_bytes_row("global memory", d->global_memory);
  print_bytes_row("max allocation", d->max_allocation);
  printf("    %-22s%d\n", "compute units", d->compute_units);
  printf("    %-22s%zu\n", "max work-group size", d->max_work_group_size);
  print_bytes_row("local memory", d->local_memory);
  printf("    %-22s%s\n", "fp64", d->fp64 ? "yes" : "no");
  if (d->max_loop_iterations != 0)
    printf("    %-22s%llu iterations per loop in a work-item\n", "loop limit", d->max_loop_iterations);
  printf("    %-22s%s\n", "driver quirks", d->quirks[0] ? d->quirks : "none");
  char cc[16];
  capability(d->compute_capability, cc, sizeof cc);
  if (cc[0] != '\0')
    printf("    %-22s%s\n", "compute capability", cc);
  printf("    %-22s%s\n", "BLAS", blas ? blas : "none");
  printf("    %-22s%s\n", "FFT", fft ? fft : "none");
}

static void print_text(const report *r) {
  printf("anygpu %s", ag_version());
  if (strcmp(ag_version(), AG_VERSION_STRING) != 0)
    printf(" (this tool was built against %s)", AG_VERSION_STRING);
  printf("\n\nbackends\n");
  for (int i = 0; i < NBACKENDS; i++) {
    if (r->backend_reason[i] == NULL)
      printf("    %-8s available\n", backend_names[i]);
    else
      printf("    %-8s unavailable: %s\n", backend_names[i], r->backend_reason[i]);
  }

  printf("\ndevices, in enumeration order\n");
  if (r->enum_error[0] != '\0')
    printf("    error: %s\n", r->enum_error);
  if (r->device_count > 0)
    print_summary(r);
  for (int i = 0; i < r->device_count; i++) {
    print_device(i, &r->devices[i], r->blas[i], r->fft[i]);
    print_load(&r->load[i], r->load_ok[i]);
  }

  printf("\ndefault device (ag_device_select(NULL))\n");
  if (r->default_ok) {
    printf("    %-22s%s (%s)\n", "device", r->default_info.spec, r->default_info.name);
    printf("    %-22s%s\n", "why", r->default_reason);
  } else {
    printf("    %-22s%s\n", "error", r->default_error);
  }

  printf("\nenvironment\n");
  int wval = 7; /* "(unset)" */
  for (int i = 0; i < NENV; i++)
    if (r->env[i] != NULL)
      wval = imax(wval, (int)strlen(r->env[i]));
  wval = wval > 40 ? 40 : wval; /* a long path is printed whole, pushing only its own line */
  for (int i = 0; i < NENV; i++)
    printf("    %-22s%-*s  %s\n", env_vars[i].name, wval, r->env[i] ? r->env[i] : "(unset)",
           env_vars[i].what);
  printf("\nkernel cache: %s\n", r->cache_dir[0] ? r->cache_dir : r->cache_note);
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at @p s, or 0 when the bytes there are not one. */
static int utf8_length(const unsigned char *s) {
  int n;
  unsigned min;
  unsigned cp;
  if (s[0] < 0x80)
    return 1;
  else if ((s[0] & 0xe0) == 0xc0)
    n = 2, min = 0x80, cp = s[0] & 0x1f;
  else if ((s[0] & 0xf0) == 0xe0)
    n = 3, min = 0x800, cp = s[0] & 0x0f;
  else if ((s[0] & 0xf8) == 0xf0)
    n = 4, min = 0x10000, cp = s[0] & 0x07;
  else
    return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

/* A JSON string. Device strings come from drivers and environment variables from the user, so
   any byte may appear: control characters are escaped and bytes that are not UTF-8 become
   U+FFFD, keeping the output valid JSON whatever the input. */
static void json_string(const char *s) {
  if (s == NULL) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned char c = *p;
    if (c == '"' || c == '\\') {
      printf("\\%c", c);
      p++;
    } else if (c == '\n') {
      fputs("\\n", stdout);
      p++;
    } else if (c == '\t') {
      fputs("\\t", stdout);
      p++;
    } else if (c == '\r') {
      fputs("\\r", stdout);
      p++;
    } else if (c < 0x20 || c == 0x7f) {
      printf("\\u%04x", c);
      p++;
    } else {
      int n = utf8_length(p);
      if (n == 0) {
        fputs("\\ufffd", stdout);
        p++;
      } else {
        fwrite(p, 1, (size_t)n, stdout);
        p += n;
      }
    }
  }
  putchar('"');
}

static void print_json_device(int index, const ag_device_info *d, const char *blas, const char *fft) {
  char cc[16];
  capability(d->compute_capability, cc, sizeof cc);
  printf("    {\"index\": %d, \"spec\": ", index);
  json_string(d->spec);
  printf(", \"backend\": ");
  json_string(d->backend);
  printf(", \"type\": ");
  json_string(type_name(d->type));
  printf(",\n     \"name\": ");
  json_string(d->name);
  printf(", \"vendor\": ");
  json_string(d->vendor);
  printf(",\n     \"platform\": ");
  json_string(d->platform);
  printf(", \"driver_version\": ");
  json_string(d->driver_version);
  printf(",\n     \"global_memory\": %zu, \"max_allocation\": %zu, \"compute_units\": %d,", d->global_memory,
         d->max_allocation, d->compute_units);
  printf("\n     \"max_work_group_size\": %zu, \"local_memory\": %zu, \"fp64\": %s,", d->max_work_group_size,
         d->local_memory, d->fp64 ? "true" : "false");
  printf("\n     \"max_loop_iterations\": %llu, \"quirks\": ", d->max_loop_iterations);
  json_string(d->quirks);
  printf(", \"compute_capability\": ");
  json_string(cc[0] ? cc : NULL);
  printf(",\n     \"blas\": ");
  json_string(blas);
  printf(", \"fft\": ");
  json_string(fft);
}

static void print_json_load(const ag_device_load *l, bool ok) {
  if (!ok) {
    printf(",\n     \"load\": null}");
    return;
  }
  printf(",\n     \"load\": {\"memory_used\": %zu, \"memory_total\": %zu, \"memory_from_driver\": %s, "
         "\"memory\": %.6f, \"processor\": ",
         l->memory_used, l->memory_total, l->memory_from_driver ? "true" : "false", l->memory);
  if (l->processor_known)
    printf("%.6f", l->processor);
  else
    printf("null");
  printf(", \"weighted\": %.6f}}", l->weighted);
}

static void print_json(const report *r) {
  printf("{\n  \"version\": ");
  json_string(ag_version());
  printf(",\n  \"backends\": [\n");
  for (int i = 0; i < NBACKENDS; i++) {
    printf("    {\"name\": ");
    json_string(backend_names[i]);
    printf(", \"available\": %s, \"reason\": ", r->backend_reason[i] ? "false" : "true");
    json_string(r->backend_reason[i]);
    printf("}%s\n", i + 1 < NBACKENDS ? "," : "");
  }
  printf("  ],\n  \"devices\": [\n");
  for (int i = 0; i < r->device_count; i++) {
    print_json_device(i, &r->devices[i], r->blas[i], r->fft[i]);
    print_json_load(&r->load[i], r->load_ok[i]);
    printf("%s\n", i + 1 < r->device_count ? "," : "");
  }
  printf("  ],\n");
  if (r->enum_error[0] != '\0') {
    printf("  \"devices_error\": ");
    json_string(r->enum_error);
    printf(",\n");
  }
  printf("  \"default\": {");
  if (r->default_ok) {
    printf("\"spec\": ");
    json_string(r->default_info.spec);
    printf(", \"reason\": ");
    json_string(r->default_reason);
  } else {
    printf("\"error\": ");
    json_string(r->default_error);
  }
  printf("},\n  \"environment\": {\n");
  for (int i = 0; i < NENV; i++) {
    printf("    ");
    json_string(env_vars[i].name);
    printf(": ");
    json_string(r->env[i]);
    printf("%s\n", i + 1 < NENV ? "," : "");
  }
  printf("  },\n  \"cache_dir\": ");
  json_string(r->cache_dir[0] ? r->cache_dir : NULL);
  printf("\n}\n");
}

/* --selected: the one device ag_device_select(NULL) gives, for scripts (CUDA_VISIBLE_DEVICES
   style wrappers, job prologues) that must know it or stop. Nothing else is enumerated or
   measured, so it is as quick as selecting is. */
static int print_selected(bool json) {
  ag_device *dev = NULL;
  ag_device_info info;
  if (ag_device_select(NULL, &dev) != AG_OK || ag_device_get_info(dev, &info) != AG_OK) {
    if (json) {
      printf("{\"selected\": null, \"error\": ");
      json_string(ag_last_error());
      printf("}\n");
    }
    fprintf(stderr, "anygpu-info: no device selected: %s\n", ag_last_error());
    return 1;
  }
  if (json) {
    printf("{\"selected\": ");
    json_string(info.spec);
    printf(", \"name\": ");
    json_string(info.name);
    printf("}\n");
  } else {
    printf("%s\t%s\n", info.spec, info.name);
  }
  if (fflush(stdout) != 0) {
    perror("anygpu-info: stdout");
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  bool json = false, selected = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (strcmp(argv[i], "--selected") == 0) {
      selected = true;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else {
      fprintf(stderr, "anygpu-info: unknown option '%s'\n%s", argv[i], usage);
      return 2;
    }
  }

  if (selected)
    return print_selected(json);

  report r;
  gather(&r);
  if (json)
    print_json(&r);
  else
    print_text(&r);
  free(r.devices);
  free(r.blas);
  free(r.fft);
  free(r.load);
  free(r.load_ok);
  if (fflush(stdout) != 0) {
    perror("anygpu-info: stdout");
    return 1;
  }
  return r.default_ok && r.enum_error[0] == '\0' ? 0 : 1;
}
