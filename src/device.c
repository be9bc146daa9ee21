/* src/device.c — device lookup by index and by spec string, device descriptions, and what a
   device keeps that ag_device_trim frees. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define GRAMMAR "auto, host, cpu, gpu, cuda, cuda:N, opencl, opencl:N, opencl:WORD or opencl:WORD:N"

ag_status ag_device_count(int *count) {
  AG__CHECK_NOT_NULL("ag_device_count", count);
  ag_status st = ag__registry_init();
  *count = st == AG_OK ? ag__device_total() : 0;
  return st;
}

ag_status ag_device_get(int index, ag_device **dev) {
  AG__CHECK_NOT_NULL("ag_device_get", dev);
  *dev = NULL;
  ag_status st = ag__registry_init();
  if (st != AG_OK)
    return st;
  if (index < 0 || index >= ag__device_total())
    return ag__error(AG_ERR_OUT_OF_RANGE, "ag_device_get: index %d is not below the device count %d",
                     index, ag__device_total());
  *dev = ag__device_at(index);
  return AG_OK;
}

ag_status ag_device_get_info(const ag_device *dev, ag_device_info *info) {
  AG__CHECK_NOT_NULL("ag_device_get_info", dev);
  AG__CHECK_NOT_NULL("ag_device_get_info", info);
  *info = dev->info;
  return AG_OK;
}

/* A parsed spec: which backend (or type), and optionally an index and a name filter. */
typedef struct spec {
  enum { SPEC_AUTO, SPEC_HOST, SPEC_CPU, SPEC_GPU, SPEC_CUDA, SPEC_OPENCL } kind;
  char word[128]; /* opencl:WORD, lowercased */
  long index;     /* -1: the first match */
} spec;

static bool parse_index(const char *s, long *out) {
  if (*s == '\0')
    return false;
  for (const char *p = s; *p; p++)
    if (!isdigit((unsigned char)*p))
      return false;
  errno = 0;
  long v = strtol(s, NULL, 10);
  if (errno != 0 || v > 1000000)
    return false;
  *out = v;
  return true;
}

static bool all_digits(const char *s) {
  for (; *s; s++)
    if (!isdigit((unsigned char)*s))
      return false;
  return true;
}

/* Parses @p text (already trimmed) into @p sp. Returns false when it is malformed. */
static bool parse_spec(const char *text, spec *sp) {
  char buf[256];
  if (strlen(text) >= sizeof buf)
    return false;
  for (size_t i = 0;; i++) {
    buf[i] = (char)tolower((unsigned char)text[i]);
    if (text[i] == '\0')
      break;
  }
  sp->word[0] = '\0';
  sp->index = -1;
  char *colon = strchr(buf, ':');
  if (colon)
    *colon = '\0';
  const char *rest = colon ? colon + 1 : NULL;

  static const struct {
    const char *name;
    int kind;
  } heads[] = {{"auto", SPEC_AUTO}, {"host", SPEC_HOST}, {"cpu", SPEC_CPU},
               {"gpu", SPEC_GPU},   {"cuda", SPEC_CUDA}, {"opencl", SPEC_OPENCL}};
  int kind = -1;
  for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
    if (strcmp(buf, heads[i].name) == 0)
      kind = heads[i].kind;
  if (kind < 0)
    return false;
  sp->kind = kind;
  if (rest == NULL)
    return true;
  if (kind == SPEC_CUDA)
    return parse_index(rest, &sp->index);
  if (kind != SPEC_OPENCL)
    return false;
  /* opencl:N, opencl:WORD or opencl:WORD:N */
  if (all_digits(rest))
    return parse_index(rest, &sp->index);
  const char *colon2 = strchr(rest, ':');
  size_t wlen = colon2 ? (size_t)(colon2 - rest) : strlen(rest);
  if (wlen == 0 || wlen >= sizeof sp->word)
    return false;
  memcpy(sp->word, rest, wlen);
  sp->word[wlen] = '\0';
  if (colon2 && !parse_index(colon2 + 1, &sp->index))
    return false;
  return true;
}

static bool contains_nocase(const char *hay, const char *lower_needle) {
  size_t n = strlen(lower_needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, lower_needle, n) == 0)
      return true;
  return false;
}

static bool matches(const spec *sp, const ag_device *d) {
  const ag_device_info *i = &d->info;
  switch (sp->kind) {
  case SPEC_HOST:
    return strcmp(i->backend, "host") == 0;
  case SPEC_CPU:
    return i->type == AG_DEVICE_CPU;
  case SPEC_GPU:
    return i->type == AG_DEVICE_GPU;
  case SPEC_CUDA:
    return strcmp(i->backend, "cuda") == 0;
  case SPEC_OPENCL:
    if (strcmp(i->backend, "opencl") != 0)
      return false;
    return sp->word[0] == '\0' || contains_nocase(i->platform, sp->word) ||
           contains_nocase(i->name, sp->word) || contains_nocase(i->vendor, sp->word);
  case SPEC_AUTO:
    break;
  }
  return false;
}

/* "auto": the first CUDA GPU, else the first OpenCL GPU, else the host. */
static ag_device *auto_device(const char **why) {
  static const char *order[] = {"cuda", "opencl"};
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < ag__device_total(); i++) {
      ag_device *d = ag__device_at(i);
      if (strcmp(d->info.backend, order[b]) == 0 && d->info.type == AG_DEVICE_GPU) {
        *why = b == 0 ? "auto: the first CUDA GPU" : "auto: the first OpenCL GPU (no CUDA GPU)";
        return d;
      }
    }
  *why = "auto: no GPU found, so the host";
  return ag__device_at(0);
}

const char *ag_device_auto_reason(void) {
  if (ag__registry_init() != AG_OK)
    return "no device";
  const char *why;
  auto_device(&why);
  return why;
}

/* The "devices present" part of a no-device message, and why absent backends are absent. */
static void describe_present(char *out, size_t size) {
  size_t n = 0;
  n += (size_t)snprintf(out + n, size - n, "devices present:");
  for (int i = 0; i < ag__device_total() && n < size; i++) {
    const ag_device_info *in = &ag__device_at(i)->info;
    n += (size_t)snprintf(out + n, size - n, "%s %s (%s)", i ? "," : "", in->spec, in->name);
  }
  static const char *names[] = {"cuda", "opencl"};
  for (int b = 0; b < 2 && n < size; b++) {
    const char *why = ag_backend_unavailable_reason(names[b]);
    if (why != NULL)
      n += (size_t)snprintf(out + n, size - n, "; %s: unavailable: %s", names[b], why);
  }
}

ag_status ag_device_select(const char *text, ag_device **dev) {
  static const char fn[] = "ag_device_select";
  AG__CHECK_NOT_NULL(fn, dev);
  *dev = NULL;
  ag_status st = ag__registry_init();
  if (st != AG_OK)
    return st;

  const char *source = "argument";
  if (text == NULL) {
    text = getenv("ANYGPU_DEVICE");
    source = "ANYGPU_DEVICE";
    if (text == NULL || *text == '\0')
      text = "auto";
  }
  char trimmed[256];
  while (isspace((unsigned char)*text))
    text++;
  size_t len = strlen(text);
  while (len > 0 && isspace((unsigned char)text[len - 1]))
    len--;
  if (len >= sizeof trimmed)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: malformed device spec of %zu characters (from %s): expected " GRAMMAR,
                     fn, len, source);
  memcpy(trimmed, text, len);
  trimmed[len] = '\0';

  spec sp;
  if (!parse_spec(trimmed, &sp))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: malformed device spec \"%s\" (from %s): expected " GRAMMAR,
                     fn, text, source);

  if (sp.kind == SPEC_AUTO) {
    const char *why;
    *dev = auto_device(&why);
    ag__log(AG__LOG_INFO, "%s: %s: %s (%s)", fn, why, (*dev)->info.spec, (*dev)->info.name);
    return AG_OK;
  }
  long seen = 0;
  for (int i = 0; i < ag__device_total(); i++) {
    ag_device *d = ag__device_at(i);
    if (!matches(&sp, d))
      continue;
    if (sp.index < 0 || seen == sp.index) {
      *dev = d;
      ag__log(AG__LOG_INFO, "%s: \"%s\" is %s (%s)", fn, trimmed, d->info.spec, d->info.name);
      return AG_OK;
    }
    seen++;
  }
  char present[2048];
  describe_present(present, sizeof present);
  return ag__error(AG_ERR_NO_DEVICE, "%s: no device matches \"%s\" (from %s); %s", fn, trimmed, source,
                   present);
}

ag_status ag_device_trim(ag_device *dev) {
  AG__CHECK_NOT_NULL("ag_device_trim", dev);
  ag__fft_trim(dev); /* before the pool: plans may hold buffers of their own */
  ag__pool_trim(dev);
  return AG_OK;
}

ag_status ag_device_pool_stats(const ag_device *dev, ag_pool_stats *stats) {
  AG__CHECK_NOT_NULL("ag_device_pool_stats", stats);
  memset(stats, 0, sizeof *stats);
  AG__CHECK_NOT_NULL("ag_device_pool_stats", dev);
  ag__pool_stats((ag_device *)dev, stats);
  return AG_OK;
}
