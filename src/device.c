/* src/device.c — device lookup by index and by spec string, device descriptions, and what a
   device keeps that ag_device_trim frees. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define GRAMMAR                                                                                 \
  "auto, host, cpu, gpu, cuda, cuda:N, opencl, opencl:N, opencl:WORD or opencl:WORD:N; or a set: "    \
  "*, X:*, by-load, X:by-load, local-rank or X:local-rank (X: gpu, cpu, cuda, opencl or opencl:WORD), " \
  "or a comma-separated list of these"

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

/* A parsed spec item: which devices it ranges over, and how it picks among them. */
typedef struct spec {
  enum { SPEC_AUTO, SPEC_ANY, SPEC_HOST, SPEC_CPU, SPEC_GPU, SPEC_CUDA, SPEC_OPENCL } kind;
  enum { PICK_ONE, PICK_ALL, PICK_BY_LOAD, PICK_LOCAL_RANK } pick;
  char word[128]; /* opencl:WORD, lowercased */
  long index;     /* PICK_ONE: -1 for the first match */
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

/* The words that pick among several devices, after a colon or alone. */
static bool parse_pick(const char *s, spec *sp) {
  if (strcmp(s, "*") == 0)
    sp->pick = PICK_ALL;
  else if (strcmp(s, "by-load") == 0)
    sp->pick = PICK_BY_LOAD;
  else if (strcmp(s, "local-rank") == 0)
    sp->pick = PICK_LOCAL_RANK;
  else
    return false;
  return true;
}

/* Parses one item @p text (already trimmed, no comma) into @p sp. Returns false when it is
   malformed. */
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
  sp->pick = PICK_ONE;
  /* "*" is every device; bare by-load and local-rank choose among auto's candidates. */
  if (parse_pick(buf, sp)) {
    sp->kind = sp->pick == PICK_ALL ? SPEC_ANY : SPEC_AUTO;
    return true;
  }
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
  if (kind == SPEC_AUTO || kind == SPEC_HOST)
    return false;
  if (parse_pick(rest, sp))
    return true;
  if (kind == SPEC_CUDA)
    return parse_index(rest, &sp->index);
  if (kind != SPEC_OPENCL)
    return false;
  /* opencl:N, opencl:WORD, opencl:WORD:N or opencl:WORD:PICK */
  if (all_digits(rest))
    return parse_index(rest, &sp->index);
  const char *colon2 = strchr(rest, ':');
  size_t wlen = colon2 ? (size_t)(colon2 - rest) : strlen(rest);
  if (wlen == 0 || wlen >= sizeof sp->word)
    return false;
  memcpy(sp->word, rest, wlen);
  sp->word[wlen] = '\0';
  /* A word that is a pick word or holds a wildcard is a typo for one, not a name to match. */
  spec probe;
  if (strchr(sp->word, '*') != NULL || parse_pick(sp->word, &probe))
    return false;
  if (colon2 && !parse_pick(colon2 + 1, sp) && !parse_index(colon2 + 1, &sp->index))
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
  case SPEC_ANY:
    return true;
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

static ag_status no_device(const char *fn, const char *what, const char *item, const char *source) {
  char present[2048];
  describe_present(present, sizeof present);
  return ag__error(AG_ERR_NO_DEVICE, "%s: %s \"%s\" (from %s); %s", fn, what, item, source, present);
}

/* The devices a by-load or local-rank item chooses among, in enumeration order: those that
   match it, or for the bare words the GPUs, else the host, as auto chooses. */
static int candidates(const spec *sp, ag_device **out) {
  int n = 0;
  spec gpus = {.kind = SPEC_GPU};
  const spec *over = sp->kind == SPEC_AUTO ? &gpus : sp;
  for (int i = 0; i < ag__device_total(); i++)
    if (matches(over, ag__device_at(i)))
      out[n++] = ag__device_at(i);
  if (n == 0 && sp->kind == SPEC_AUTO)
    out[n++] = ag__device_at(0);
  return n;
}

/* The variables that hold a process's rank on its node, in the order they are read: the
   innermost launcher first, since an outer one's variable is inherited unchanged by every
   process an inner one starts (torchrun under srun: SLURM_LOCALID is 0 in all of them). */
static const struct {
  const char *name;
  const char *launcher;
} rank_vars[] = {
    {"LOCAL_RANK", "torchrun"},
    {"OMPI_COMM_WORLD_LOCAL_RANK", "Open MPI"},
    {"SLURM_LOCALID", "Slurm"},
};

static ag_status local_rank(const char *fn, const char *item, const char *source, long *rank, const char **var) {
  for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
    const char *v = getenv(rank_vars[i].name);
    if (v == NULL || *v == '\0')
      continue;
    char trimmed[32];
    while (isspace((unsigned char)*v))
      v++;
    size_t len = strlen(v);
    while (len > 0 && isspace((unsigned char)v[len - 1]))
      len--;
    if (len >= sizeof trimmed)
      len = sizeof trimmed - 1; /* still not a number: the check below refuses it */
    memcpy(trimmed, v, len);
    trimmed[len] = '\0';
    if (len + 1 == sizeof trimmed || !parse_index(trimmed, rank))
      return ag__error(AG_ERR_INVALID_ARGUMENT,
                       "%s: \"%s\" (from %s): %s=\"%.40s\" (%s) is not a local rank: expected a number from 0 "
                       "to 1000000",
                       fn, item, source, rank_vars[i].name, getenv(rank_vars[i].name), rank_vars[i].launcher);
    *var = rank_vars[i].name;
    return AG_OK;
  }
  return ag__error(AG_ERR_NO_DEVICE,
                   "%s: \"%s\" (from %s) needs the process's local rank, but none of LOCAL_RANK (torchrun), "
                   "OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), SLURM_LOCALID (Slurm) is set: start the "
                   "program with one of these launchers, or name a device",
                   fn, item, source);
}

/* Appends @p d to @p devs unless it is there already. */
static void add_device(ag_device **devs, int *n, ag_device *d) {
  for (int i = 0; i < *n; i++)
    if (devs[i] == d)
      return;
  devs[(*n)++] = d;
}

/* Adds the devices of one item (trimmed, lowercase or not) to @p devs, which has room for
   every device. @p whole is the full spec and @p source where it came from, for messages. */
static ag_status resolve_item(const char *fn, const char *item, const char *whole, const char *source,
                              ag_device **devs, int *n) {
  spec sp;
  /* One form of message whether the spec is one item or a list: the whole spec quoted, as a
     single spec's has always been, which a list of a few items keeps readable. */
  if (item[0] == '\0' || !parse_spec(item, &sp))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: malformed device spec \"%s\" (from %s): expected " GRAMMAR,
                     fn, whole, source);

  if (sp.pick == PICK_ONE && sp.kind == SPEC_AUTO) {
    const char *why;
    ag_device *d = auto_device(&why);
    ag__log(AG__LOG_INFO, "%s: %s: %s (%s)", fn, why, d->info.spec, d->info.name);
    add_device(devs, n, d);
    return AG_OK;
  }
  if (sp.pick == PICK_ONE) {
    long seen = 0;
    for (int i = 0; i < ag__device_total(); i++) {
      ag_device *d = ag__device_at(i);
      if (!matches(&sp, d))
        continue;
      if (sp.index < 0 || seen == sp.index) {
        ag__log(AG__LOG_INFO, "%s: \"%s\" is %s (%s)", fn, item, d->info.spec, d->info.name);
        add_device(devs, n, d);
        return AG_OK;
      }
      seen++;
    }
    return no_device(fn, "no device matches", item, source);
  }
  if (sp.pick == PICK_ALL) {
    for (int i = 0; i < ag__device_total(); i++)
      if (matches(&sp, ag__device_at(i)))
        add_device(devs, n, ag__device_at(i));
    return AG_OK;
  }

  ag_device **from = malloc((size_t)ag__device_total() * sizeof *from);
  if (from == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for \"%s\"", fn, item);
  int nfrom = candidates(&sp, from);
  ag_status st = AG_OK;
  ag_device *chosen = NULL;
  if (nfrom == 0) {
    st = no_device(fn, "no device to choose from for", item, source);
  } else if (sp.pick == PICK_LOCAL_RANK) {
    long rank = 0;
    const char *var = NULL;
    st = local_rank(fn, item, source, &rank, &var);
    if (st == AG_OK) {
      chosen = from[rank % nfrom];
      ag__log(AG__LOG_INFO, "%s: \"%s\": %s=%ld of %d devices is %s (%s)", fn, item, var, rank, nfrom,
              chosen->info.spec, chosen->info.name);
    }
  } else {
    /* The lowest weighted load; ties go to the first in enumeration order. */
    double best = 0;
    for (int i = 0; i < nfrom && st == AG_OK; i++) {
      ag_device_load load;
      st = ag_device_get_load(from[i], 0.5, 0.5, &load);
      if (st != AG_OK)
        break;
      ag__log(AG__LOG_INFO, "%s: \"%s\": %s has load %.4f (memory %.4f of %zu bytes, %s)", fn, item,
              from[i]->info.spec, load.weighted, load.memory, load.memory_total,
              load.memory_from_driver ? "from the driver" : "anygpu's pool");
      if (chosen == NULL || load.weighted < best) {
        chosen = from[i];
        best = load.weighted;
      }
    }
    if (st != AG_OK)
      st = ag__error(st, "%s: \"%s\": %s", fn, item, ag_last_error());
    else
      ag__log(AG__LOG_INFO, "%s: \"%s\" is %s (%s)", fn, item, chosen->info.spec, chosen->info.name);
  }
  if (st == AG_OK)
    add_device(devs, n, chosen);
  free(from);
  return st;
}

struct ag_device_set {
  int count;
  ag_device *devices[];
};

/* Resolves a whole spec (NULL: $ANYGPU_DEVICE, else auto) into a new set. */
static ag_status resolve(const char *fn, const char *text, ag_device_set **out) {
  *out = NULL;
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
  char trimmed[1024];
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

  ag_device_set *set = malloc(sizeof *set + (size_t)ag__device_total() * sizeof set->devices[0]);
  if (set == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for a device set", fn);
  set->count = 0;
  char items[sizeof trimmed];
  memcpy(items, trimmed, len + 1);
  char *item = items;
  for (;;) {
    char *comma = strchr(item, ',');
    if (comma != NULL)
      *comma = '\0';
    while (isspace((unsigned char)*item))
      item++;
    size_t ilen = strlen(item);
    while (ilen > 0 && isspace((unsigned char)item[ilen - 1]))
      item[--ilen] = '\0';
    st = resolve_item(fn, item, trimmed, source, set->devices, &set->count);
    if (st != AG_OK || comma == NULL)
      break;
    item = comma + 1;
  }
  if (st == AG_OK && set->count == 0)
    st = no_device(fn, "no device matches", trimmed, source);
  if (st != AG_OK) {
    free(set);
    return st;
  }
  *out = set;
  return AG_OK;
}

ag_status ag_device_select(const char *text, ag_device **dev) {
  static const char fn[] = "ag_device_select";
  AG__CHECK_NOT_NULL(fn, dev);
  *dev = NULL;
  ag_device_set *set;
  ag_status st = resolve(fn, text, &set);
  if (st != AG_OK)
    return st;
  *dev = set->devices[0];
  if (set->count > 1)
    ag__log(AG__LOG_INFO, "%s: the spec names %d devices; the first, %s, is selected (ag_device_set_select gives all)",
            fn, set->count, (*dev)->info.spec);
  free(set);
  return AG_OK;
}

ag_status ag_device_set_select(const char *text, ag_device_set **set) {
  AG__CHECK_NOT_NULL("ag_device_set_select", set);
  return resolve("ag_device_set_select", text, set);
}

ag_status ag_device_set_count(const ag_device_set *set, int *count) {
  AG__CHECK_NOT_NULL("ag_device_set_count", count);
  *count = 0;
  AG__CHECK_NOT_NULL("ag_device_set_count", set);
  *count = set->count;
  return AG_OK;
}

ag_status ag_device_set_get(const ag_device_set *set, int index, ag_device **dev) {
  AG__CHECK_NOT_NULL("ag_device_set_get", dev);
  *dev = NULL;
  AG__CHECK_NOT_NULL("ag_device_set_get", set);
  if (index < 0 || index >= set->count)
    return ag__error(AG_ERR_OUT_OF_RANGE, "ag_device_set_get: index %d is not below the set's count %d", index,
                     set->count);
  *dev = set->devices[index];
  return AG_OK;
}

void ag_device_set_free(ag_device_set *set) { free(set); }

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
