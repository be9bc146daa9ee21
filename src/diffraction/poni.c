/* src/diffraction/poni.c — pyFAI's PONI files (include/anygpu/diffraction.h): the key: value
   lines, the JSON of Detector_config, and the table of detectors a file may name without
   giving their pixel size. The reading follows pyFAI 0.21.3's io/ponifile.py. */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "seam.h"

/* ---- the detectors a file may name without their pixel size --------------------------------- */

/* pyFAI 0.21.3's Dectris detectors (detectors/_dectris.py): flat grids of uniform pixels whose
   Detector_config is {} since the class fixes the pixel size. Without offset files (refused
   below) pyFAI places their pixels exactly as a plain Detector of the same pixel size. A name
   matches the class name as written, or any of pyFAI's registry names, in any case. */
typedef struct known_detector {
  const char *name;    /* pyFAI's class name */
  const char *aliases; /* pyFAI's other registry names, lowercase, space-separated */
  double pixel1, pixel2;
  size_t rows, cols; /* 0 for the base classes, which have no shape of their own */
} known_detector;

static const known_detector known_detectors[] = {
    {"Pilatus", "", 172e-6, 172e-6, 0, 0},
    {"Pilatus100k", "pilatus_100k", 172e-6, 172e-6, 195, 487},
    {"Pilatus200k", "pilatus_200k", 172e-6, 172e-6, 407, 487},
    {"Pilatus300k", "pilatus_300k", 172e-6, 172e-6, 619, 487},
    {"Pilatus300kw", "pilatus_300kw", 172e-6, 172e-6, 195, 1475},
    {"Pilatus1M", "pilatus_1m", 172e-6, 172e-6, 1043, 981},
    {"Pilatus2M", "pilatus_2m", 172e-6, 172e-6, 1679, 1475},
    {"Pilatus6M", "pilatus_6m", 172e-6, 172e-6, 2527, 2463},
    {"PilatusCdTe", "", 172e-6, 172e-6, 0, 0},
    {"PilatusCdTe300k", "pilatus300k_cdte pilatus300kcdte pilatus_300k_cdte pilatus_cdte_300k", 172e-6, 172e-6,
     619, 487},
    {"PilatusCdTe300kw", "pilatus300kw_cdte pilatus300kwcdte pilatus_300kw_cdte pilatus_cdte_300kw", 172e-6,
     172e-6, 195, 1475},
    {"PilatusCdTe900kw", "pilatus900kw_cdte pilatus900kwcdte pilatus_900kw_cdte pilatus_cdte_900kw", 172e-6,
     172e-6, 195, 4439},
    {"PilatusCdTe1M", "pilatus1m_cdte pilatus1mcdte pilatus_1m_cdte pilatus_cdte_1m", 172e-6, 172e-6, 1043, 981},
    {"PilatusCdTe2M", "pilatus2m_cdte pilatus2mcdte pilatus_2m_cdte pilatus_cdte_2m", 172e-6, 172e-6, 1679, 1475},
    {"Eiger", "", 75e-6, 75e-6, 0, 0},
    {"Eiger500k", "eiger_500k", 75e-6, 75e-6, 514, 1030},
    {"Eiger1M", "eiger_1m", 75e-6, 75e-6, 1065, 1030},
    {"Eiger4M", "eiger_4m", 75e-6, 75e-6, 2167, 2070},
    {"Eiger9M", "eiger_9m", 75e-6, 75e-6, 3269, 3110},
    {"Eiger16M", "eiger_16m", 75e-6, 75e-6, 4371, 4150},
    {"Eiger2", "", 75e-6, 75e-6, 0, 0},
    {"Eiger2_500k", "eiger2500k", 75e-6, 75e-6, 512, 1028},
    {"Eiger2_1M", "eiger21m", 75e-6, 75e-6, 1062, 1028},
    {"Eiger2_1MW", "eiger21m-w eiger2_1m-w", 75e-6, 75e-6, 512, 2068},
    {"Eiger2_2MW", "eiger22m-w eiger2_2m-w", 75e-6, 75e-6, 512, 4148},
    {"Eiger2_4M", "eiger24m", 75e-6, 75e-6, 2162, 2068},
    {"Eiger2_9M", "eiger29m", 75e-6, 75e-6, 3262, 3108},
    {"Eiger2_16M", "eiger216m", 75e-6, 75e-6, 4362, 4148},
    {"Eiger2CdTe", "", 75e-6, 75e-6, 0, 0},
    {"Eiger2CdTe_500k", "eiger2_cdte_500k eiger2cdte500k", 75e-6, 75e-6, 512, 1028},
    {"Eiger2CdTe_1M", "eiger2_cdte_1m eiger2cdte1m", 75e-6, 75e-6, 1062, 1028},
    {"Eiger2CdTe_1MW", "eiger2_cdte_1m-w eiger2cdte1m-w", 75e-6, 75e-6, 512, 2068},
    {"Eiger2CdTe_2MW", "eiger2_cdte_2m-w eiger2cdte2m-w", 75e-6, 75e-6, 512, 4148},
    {"Eiger2CdTe_4M", "eiger2_cdte_4m eiger2cdte4m", 75e-6, 75e-6, 2162, 2068},
    {"Eiger2CdTe_9M", "eiger2_cdte_9m eiger2cdte9m", 75e-6, 75e-6, 3262, 3108},
    {"Eiger2CdTe_16M", "eiger2_cdte_16m eiger2cdte16m", 75e-6, 75e-6, 4362, 4148},
};

/* Names (lowercase prefixes) of the detectors pyFAI 0.21.3 does not model as a flat grid of
   uniform pixels: ImXPad and Xpad (larger pixels between chips), Jungfrau (the same), Pixirad
   (hexagonal), Cirpad, Aarhus and Rapid (curved), NexusDetector (its pixels from a file). Their
   pixel size alone does not say where their pixels are. */
static const char *const nonuniform_detectors[] = {
    "imxpad", "xpad", "cirpad", "xcirpad", "jungfrau", "pixirad", "hexdetector", "aarhus", "rapid",
    "cylindricaldetector", "nexusdetector",
};

/* pyFAI's registry lookup: the lowercase name, and the same with spaces as underscores. */
static bool name_matches(const char *alias, size_t alias_len, const char *name) {
  size_t n = strlen(name);
  if (n != alias_len)
    return false;
  for (size_t i = 0; i < n; i++) {
    int c = tolower((unsigned char)name[i]);
    if (c == ' ')
      c = '_';
    if (c != (unsigned char)alias[i])
      return false;
  }
  return true;
}

static const known_detector *find_detector(const char *name) {
  for (size_t i = 0; i < sizeof known_detectors / sizeof known_detectors[0]; i++) {
    const known_detector *d = &known_detectors[i];
    if (strcmp(d->name, name) == 0)
      return d;
    char lower[AG_PONI_DETECTOR_MAX];
    size_t n = strlen(d->name);
    for (size_t k = 0; k <= n; k++)
      lower[k] = (char)tolower((unsigned char)d->name[k]);
    if (name_matches(lower, n, name))
      return d;
    for (const char *a = d->aliases; *a;) {
      size_t len = strcspn(a, " ");
      if (name_matches(a, len, name))
        return d;
      a += len;
      a += *a == ' ';
    }
  }
  return NULL;
}

static bool is_nonuniform(const char *name) {
  for (size_t i = 0; i < sizeof nonuniform_detectors / sizeof nonuniform_detectors[0]; i++) {
    const char *p = nonuniform_detectors[i];
    size_t n = strlen(p), k = 0;
    while (k < n && name[k] && tolower((unsigned char)name[k]) == p[k])
      k++;
    if (k == n)
      return true;
  }
  /* A path names a NeXus file, which pyFAI reads as a detector of its own. */
  return strcasecmp(name, "d5") == 0 || strpbrk(name, "/\\") != NULL;
}

/* ---- where a message comes from ----------------------------------------------------------- */

/* The function and, for ag_poni_read, the file: messages start "fn: " or "fn: path: ". */
typedef struct origin {
  const char *fn;
  const char *path; /* NULL for text */
} origin;

#define WHERE_FMT "%s: %s%s"
#define WHERE(o) (o)->fn, (o)->path ? (o)->path : "", (o)->path ? ": " : ""

/* ---- numbers, in the C locale whatever the program's -------------------------------------- */

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void c_locale_init(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* What a value's text is: a finite number, a number that is not finite (inf, nan, or beyond a
   double's range, which Python's float() reads as inf), or not a number at all. */
typedef enum number_kind { NUMBER_FINITE, NUMBER_NOT_FINITE, NUMBER_NOT_A_NUMBER } number_kind;

/* The digits of a Python digitpart (digit (["_"] digit)*) from s[*i], appended to @p out
   without their underscores; how many digits were read. */
static size_t digit_part(const char *s, size_t n, size_t *i, char *out, size_t *o) {
  size_t count = 0;
  while (*i < n) {
    if (isdigit((unsigned char)s[*i])) {
      out[(*o)++] = s[(*i)++];
      count++;
    } else if (s[*i] == '_' && count > 0 && *i + 1 < n && isdigit((unsigned char)s[*i + 1])) {
      (*i)++;
    } else {
      break;
    }
  }
  return count;
}

/* Whether [s, s + n) equals @p word in any case. */
static bool same_word(const char *s, size_t n, const char *word) {
  return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* Reads all of [s, s + n) as pyFAI reads a value, with Python's float(): an optional sign, then
   decimal digits (single underscores between them allowed) with an optional point and an
   optional exponent, or inf, infinity or nan in any case. Hexadecimal ("0x10", which strtod
   would read as 16), C suffixes and anything else are not numbers. float() also takes the
   digits of other scripts; a PONI writer writes ASCII, and those are refused here. The digits
   go to strtod in the C locale, so the result is the double float() gives. */
static number_kind read_number(const char *s, size_t n, double *v) {
  char buf[128];
  size_t i = 0, o = 0;
  if (n == 0 || n >= sizeof buf)
    return NUMBER_NOT_A_NUMBER;
  if (s[i] == '+' || s[i] == '-')
    buf[o++] = s[i++];
  if (same_word(s + i, n - i, "inf") || same_word(s + i, n - i, "infinity") || same_word(s + i, n - i, "nan"))
    return NUMBER_NOT_FINITE;
  size_t whole = digit_part(s, n, &i, buf, &o), fraction = 0;
  if (i < n && s[i] == '.') {
    buf[o++] = s[i++];
    fraction = digit_part(s, n, &i, buf, &o);
  }
  if (whole == 0 && fraction == 0)
    return NUMBER_NOT_A_NUMBER;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    buf[o++] = s[i++];
    if (i < n && (s[i] == '+' || s[i] == '-'))
      buf[o++] = s[i++];
    if (digit_part(s, n, &i, buf, &o) == 0)
      return NUMBER_NOT_A_NUMBER;
  }
  if (i != n)
    return NUMBER_NOT_A_NUMBER;
  buf[o] = '\0';
  pthread_once(&c_locale_once, c_locale_init);
  if (c_locale == (locale_t)0)
    return NUMBER_NOT_A_NUMBER;
  char *end = NULL;
  /* An overflow gives HUGE_VAL and an underflow the nearest value, 0 or subnormal, as
     float() gives inf and that value; only the overflow is refused, below, as not finite. */
  double x = strtod_l(buf, &end, c_locale);
  if (end != buf + o)
    return NUMBER_NOT_A_NUMBER;
  if (!isfinite(x))
    return NUMBER_NOT_FINITE;
  *v = x;
  return NUMBER_FINITE;
}

/* ---- the key: value lines ----------------------------------------------------------------- */

/* The keys pyFAI reads, as pyFAI writes them (for messages); the file may use any case. */
enum key {
  K_VERSION, K_DETECTOR, K_CONFIG, K_DISTANCE, K_DIST, K_PONI1, K_PONI2, K_ROT1, K_ROT2, K_ROT3,
  K_WAVELENGTH, K_PIXEL1, K_PIXEL2, K_SPLINE, K_COUNT
};
static const char *const key_names[K_COUNT] = {
    "poni_version", "Detector", "Detector_config", "Distance", "Dist", "Poni1", "Poni2", "Rot1", "Rot2",
    "Rot3", "Wavelength", "PixelSize1", "PixelSize2", "SplineFile",
};

/* A value as it stands in the text, trimmed, and its line; line 0 when the key is absent. As
   in pyFAI's dictionary, a key given twice keeps its last value. */
typedef struct entry {
  const char *s;
  size_t n;
  int line;
} entry;

static void trim(const char **s, size_t *n) {
  while (*n > 0 && isspace((unsigned char)**s))
    (*s)++, (*n)--;
  while (*n > 0 && isspace((unsigned char)(*s)[*n - 1]))
    (*n)--;
}

static void scan_lines(const char *text, entry e[K_COUNT]) {
  int line = 0;
  for (const char *p = text; *p;) {
    size_t len = strcspn(p, "\n");
    const char *next = p[len] ? p + len + 1 : p + len;
    line++;
    const char *s = p;
    size_t n = len;
    trim(&s, &n);
    size_t sep = 0;
    while (sep < n && s[sep] != ':' && s[sep] != '=')
      sep++;
    if (n > 0 && s[0] != '#' && sep < n) {
      const char *k = s, *v = s + sep + 1;
      size_t kn = sep, vn = n - sep - 1;
      trim(&k, &kn);
      trim(&v, &vn);
      for (int i = 0; i < K_COUNT; i++) {
        if (strlen(key_names[i]) == kn && strncasecmp(key_names[i], k, kn) == 0) {
          e[i] = (entry){v, vn, line};
          break;
        }
      }
    }
    p = next;
  }
}

/* The refusal of the value [s, s + n) of @p what on line @p line, which read_number() (or, in
   Detector_config's JSON, json_number()) found to be of @p kind. */
static ag_status number_error(const origin *o, int line, const char *what, const char *s, size_t n,
                              number_kind kind, bool in_json) {
  int shown = (int)(n > 60 ? 60 : n);
  if (kind == NUMBER_NOT_FINITE)
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: %s \"%.*s\" is not finite; the geometry needs "
                     "finite numbers", WHERE(o), line, what, shown, s);
  return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: %s \"%.*s\" is not a number (%s)", WHERE(o), line,
                   what, shown, s, in_json ? "a JSON number: digits with an optional point and exponent, no '+' or "
                                             "leading zero"
                                           : "decimal digits with an optional point and exponent, as Python's "
                                             "float() reads them");
}

/* The number of key @p k, into @p v; absent keys leave @p v as it is. */
static ag_status entry_number(const origin *o, const entry *e, enum key k, double *v) {
  if (e[k].line == 0)
    return AG_OK;
  number_kind kind = read_number(e[k].s, e[k].n, v);
  if (kind != NUMBER_FINITE)
    return number_error(o, e[k].line, key_names[k], e[k].s, e[k].n, kind, false);
  return AG_OK;
}

/* ---- Detector_config: a JSON object ------------------------------------------------------- */

typedef struct json {
  const char *p, *end;
} json;

static void json_ws(json *j) {
  while (j->p < j->end && isspace((unsigned char)*j->p))
    j->p++;
}

static bool json_literal(json *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || strncmp(j->p, word, n) != 0)
    return false;
  j->p += n;
  return true;
}

/* A string: its contents (escapes left as written, which the keys and names read here do not
   use) in [*s, *s + *n). */
static bool json_string(json *j, const char **s, size_t *n) {
  if (j->p >= j->end || *j->p != '"')
    return false;
  const char *start = ++j->p;
  while (j->p < j->end && *j->p != '"')
    j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
  if (j->p >= j->end)
    return false;
  *s = start;
  *n = (size_t)(j->p - start);
  j->p++;
  return true;
}

/* The digits of a JSON number from j->p on; how many. */
static size_t json_digits(json *j) {
  size_t count = 0;
  while (j->p < j->end && isdigit((unsigned char)*j->p))
    j->p++, count++;
  return count;
}

/* A number as Python's json module (pyFAI reads Detector_config with json.loads) reads one:
   JSON's -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, or NaN, Infinity and -Infinity, which
   json.loads takes too (and which are not finite). j->p is moved past what was read. */
static number_kind json_number(json *j, double *v) {
  const char *start = j->p;
  bool minus = j->p < j->end && *j->p == '-';
  j->p += minus;
  if ((!minus && json_literal(j, "NaN")) || json_literal(j, "Infinity"))
    return NUMBER_NOT_FINITE;
  const char *whole = j->p;
  size_t digits = json_digits(j);
  if (digits == 0 || (digits > 1 && *whole == '0'))
    return NUMBER_NOT_A_NUMBER;
  if (j->p < j->end && *j->p == '.') {
    j->p++;
    if (json_digits(j) == 0)
      return NUMBER_NOT_A_NUMBER;
  }
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
    j->p++;
    if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
      j->p++;
    if (json_digits(j) == 0)
      return NUMBER_NOT_A_NUMBER;
  }
  /* "0x1" is the number 0 and then a stray x, which JSON refuses where a ',' is due */
  if (j->p < j->end && strchr(",}] \t\r\n", *j->p) == NULL)
    return NUMBER_NOT_A_NUMBER;
  return read_number(start, (size_t)(j->p - start), v);
}

/* Skips any value, nested ones included (to a depth that no detector's config reaches). */
static bool json_skip(json *j, int depth) {
  json_ws(j);
  if (j->p >= j->end || depth > 16)
    return false;
  const char *s;
  size_t n;
  double v;
  char open = *j->p;
  if (open == '"')
    return json_string(j, &s, &n);
  if (open != '{' && open != '[')
    return json_literal(j, "null") || json_literal(j, "true") || json_literal(j, "false") ||
           json_number(j, &v) != NUMBER_NOT_A_NUMBER;
  char close = open == '{' ? '}' : ']';
  j->p++;
  json_ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    return true;
  }
  for (;;) {
    json_ws(j);
    if (open == '{') {
      if (!json_string(j, &s, &n))
        return false;
      json_ws(j);
      if (j->p >= j->end || *j->p++ != ':')
        return false;
    }
    if (!json_skip(j, depth + 1))
      return false;
    json_ws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == close) {
      j->p++;
      return true;
    }
    return false;
  }
}

/* What a detector's description gives: pixel sizes, shape, and what this reader cannot use. */
typedef struct detector_desc {
  double pixel1, pixel2;
  bool has_pixel1, has_pixel2;
  size_t rows, cols;
  bool has_shape;
} detector_desc;

static bool key_is(const char *s, size_t n, const char *key) { return strlen(key) == n && strncmp(s, key, n) == 0; }

static ag_status config_error(const origin *o, const entry *e, const char *what) {
  return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: Detector_config %s", WHERE(o), e->line, what);
}

/* A member's value that must be null or a positive number. */
static ag_status config_pixel(const origin *o, const entry *e, json *j, const char *key, double *v, bool *has) {
  if (json_literal(j, "null"))
    return AG_OK;
  const char *start = j->p;
  number_kind kind = json_number(j, v);
  if (kind != NUMBER_FINITE) {
    char what[64];
    snprintf(what, sizeof what, "Detector_config %s", key);
    /* the value as written: up to where JSON ends it, within the line */
    size_t n = 0;
    while (start + n < j->end && strchr(",}] \t", start[n]) == NULL)
      n++;
    return number_error(o, e->line, what, start, n, kind, true);
  }
  if (!(*v > 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: Detector_config %s is %g, not a positive size",
                     WHERE(o), e->line, key, *v);
  *has = true;
  return AG_OK;
}

/* max_shape: null or [rows, cols] of whole numbers. */
static ag_status config_shape(const origin *o, const entry *e, json *j, detector_desc *d) {
  if (json_literal(j, "null"))
    return AG_OK;
  double v[2];
  bool ok = j->p < j->end && *j->p++ == '[';
  for (int i = 0; ok && i < 2; i++) {
    json_ws(j);
    ok = json_number(j, &v[i]) == NUMBER_FINITE && v[i] >= 0 && v[i] < 1e15 && v[i] == floor(v[i]);
    json_ws(j);
    ok = ok && j->p < j->end && *j->p++ == (i == 0 ? ',' : ']');
  }
  if (!ok)
    return config_error(o, e, "max_shape is not null or [rows, columns]");
  d->rows = (size_t)v[0];
  d->cols = (size_t)v[1];
  d->has_shape = true;
  return AG_OK;
}

static ag_status parse_config(const origin *o, const entry *e, detector_desc *d) {
  json j = {e->s, e->s + e->n};
  json_ws(&j);
  if (j.p >= j.end || *j.p++ != '{')
    return config_error(o, e, "is not a JSON object");
  json_ws(&j);
  if (j.p < j.end && *j.p == '}')
    j.p++;
  else {
    for (;;) {
      const char *k;
      size_t kn;
      json_ws(&j);
      if (!json_string(&j, &k, &kn))
        return config_error(o, e, "is not a JSON object: a key is not a string");
      json_ws(&j);
      if (j.p >= j.end || *j.p++ != ':')
        return config_error(o, e, "is not a JSON object: a key has no ':'");
      json_ws(&j);
      ag_status st = AG_OK;
      if (key_is(k, kn, "pixel1")) {
        st = config_pixel(o, e, &j, "pixel1", &d->pixel1, &d->has_pixel1);
      } else if (key_is(k, kn, "pixel2")) {
        st = config_pixel(o, e, &j, "pixel2", &d->pixel2, &d->has_pixel2);
      } else if (key_is(k, kn, "max_shape")) {
        st = config_shape(o, e, &j, d);
      } else if (key_is(k, kn, "splineFile") || key_is(k, kn, "splinefile") || key_is(k, kn, "x_offset_file") ||
                 key_is(k, kn, "y_offset_file")) {
        const char *s;
        size_t n;
        if (!json_literal(&j, "null")) {
          if (!json_string(&j, &s, &n))
            return config_error(o, e, "has a file name that is not a string");
          return ag__error(AG_ERR_UNSUPPORTED,
                           WHERE_FMT "line %d: Detector_config %.*s \"%.*s\": distortion files are not supported "
                                     "(flat detectors without distortion only)",
                           WHERE(o), e->line, (int)kn, k, (int)(n > 200 ? 200 : n), s);
        }
      } else if (key_is(k, kn, "orientation")) {
        double v = 0;
        if (json_number(&j, &v) != NUMBER_FINITE)
          return config_error(o, e, "orientation is not a finite number");
        if (v != 3)
          return ag__error(AG_ERR_UNSUPPORTED,
                           WHERE_FMT "line %d: Detector_config orientation %g is not supported: only 3, the "
                                     "convention of pyFAI 0.21 and the default of later versions",
                           WHERE(o), e->line, v);
      } else if (key_is(k, kn, "module_size") || key_is(k, kn, "sensor")) {
        /* Where a Dectris module's gaps are, the sensor's material: neither moves a pixel. */
        if (!json_skip(&j, 0))
          return config_error(o, e, "is not valid JSON");
      } else {
        return ag__error(AG_ERR_UNSUPPORTED,
                         WHERE_FMT "line %d: Detector_config key \"%.*s\" is not supported (known: pixel1, pixel2, "
                                   "max_shape, orientation 3, module_size, sensor, null distortion files)",
                         WHERE(o), e->line, (int)(kn > 60 ? 60 : kn), k);
      }
      if (st != AG_OK)
        return st;
      json_ws(&j);
      if (j.p < j.end && *j.p == ',') {
        j.p++;
        continue;
      }
      if (j.p < j.end && *j.p == '}') {
        j.p++;
        break;
      }
      return config_error(o, e, "is not a JSON object: expected ',' or '}'");
    }
  }
  json_ws(&j);
  if (j.p != j.end)
    return config_error(o, e, "has text after its closing '}'");
  return AG_OK;
}

/* ---- putting it together ------------------------------------------------------------------ */

static ag_status version_of(const origin *o, const entry *e, int *version) {
  *version = 1; /* pyFAI's default when the key is absent */
  if (e->line == 0)
    return AG_OK;
  double v;
  number_kind kind = read_number(e->s, e->n, &v);
  if (kind != NUMBER_FINITE)
    return number_error(o, e->line, "poni_version", e->s, e->n, kind, false);
  if (v == 1 || v == 2) {
    *version = (int)v;
    return AG_OK;
  }
  if (v == 2.1) {
    *version = 2; /* 2 with an orientation, which parse_config checks */
    return AG_OK;
  }
  if (v > 2.1)
    return ag__error(AG_ERR_UNSUPPORTED, WHERE_FMT "line %d: poni_version %g is newer than this reader (1, 2, 2.1)",
                     WHERE(o), e->line, v);
  return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: poni_version %g is not a PONI version", WHERE(o),
                   e->line, v);
}

/* Pixel sizes and shape from the detector's name and what the file says of it. */
static ag_status resolve_detector(const origin *o, const entry *e, int version, ag_poni *p) {
  detector_desc d = {0};
  const entry *name = &e[K_DETECTOR];
  if (version == 2 && name->line == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "Detector is missing (poni_version 2 names its detector)",
                     WHERE(o));
  const char *given = name->line ? name->s : "Detector";
  size_t given_n = name->line ? name->n : strlen("Detector");
  if (given_n == 0 || given_n >= AG_PONI_DETECTOR_MAX)
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: Detector name is empty or over %d characters",
                     WHERE(o), name->line, AG_PONI_DETECTOR_MAX - 1);
  char det[AG_PONI_DETECTOR_MAX];
  memcpy(det, given, given_n);
  det[given_n] = '\0';

  const entry *px[2] = {&e[K_PIXEL1], &e[K_PIXEL2]};
  if (version == 2) {
    if (e[K_CONFIG].line != 0) {
      ag_status st = parse_config(o, &e[K_CONFIG], &d);
      if (st != AG_OK)
        return st;
    }
  } else {
    const entry *sp = &e[K_SPLINE];
    if (sp->line != 0 && !(sp->n == 4 && strncasecmp(sp->s, "none", 4) == 0))
      return ag__error(AG_ERR_UNSUPPORTED,
                       WHERE_FMT "line %d: SplineFile \"%.*s\": distortion files are not supported (flat detectors "
                                 "without distortion only)",
                       WHERE(o), sp->line, (int)(sp->n > 200 ? 200 : sp->n), sp->s);
    double *dst[2] = {&d.pixel1, &d.pixel2};
    bool *has[2] = {&d.has_pixel1, &d.has_pixel2};
    for (int i = 0; i < 2; i++) {
      enum key k = i == 0 ? K_PIXEL1 : K_PIXEL2;
      if (px[i]->line == 0)
        continue;
      ag_status st = entry_number(o, e, k, dst[i]);
      if (st != AG_OK)
        return st;
      if (!(*dst[i] > 0))
        return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: %s is %g, not a positive size", WHERE(o),
                         px[i]->line, key_names[k], *dst[i]);
      *has[i] = true;
    }
  }

  if (is_nonuniform(det))
    return ag__error(AG_ERR_UNSUPPORTED,
                     WHERE_FMT "line %d: detector \"%s\" is not a flat grid of uniform pixels in pyFAI, which this "
                               "reader needs",
                     WHERE(o), name->line, det);
  const char *what1 = version == 2 ? "Detector_config pixel1" : "PixelSize1";
  const char *what2 = version == 2 ? "Detector_config pixel2" : "PixelSize2";
  if (d.has_pixel1 != d.has_pixel2)
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "%s is missing (%s is given)", WHERE(o),
                     d.has_pixel1 ? what2 : what1, d.has_pixel1 ? what1 : what2);
  if (strcasecmp(det, "detector") == 0)
    snprintf(det, sizeof det, "Detector");
  const known_detector *k = find_detector(det);
  if (k != NULL) {
    snprintf(det, sizeof det, "%s", k->name);
    if (!d.has_pixel1) {
      d.pixel1 = k->pixel1;
      d.pixel2 = k->pixel2;
    }
    if (!d.has_shape) {
      d.rows = k->rows;
      d.cols = k->cols;
    }
  } else if (!d.has_pixel1) {
    if (strcmp(det, "Detector") == 0)
      return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "%s is missing", WHERE(o), what1);
    return ag__error(AG_ERR_UNSUPPORTED,
                     WHERE_FMT "line %d: detector \"%s\" is not in the built-in table (Pilatus, Eiger, Eiger2): give "
                               "its pixel sizes in Detector_config (\"pixel1\", \"pixel2\", metres)",
                     WHERE(o), name->line, det);
  }
  p->pixel1 = d.pixel1;
  p->pixel2 = d.pixel2;
  p->rows = d.has_shape || k ? d.rows : 0;
  p->cols = d.has_shape || k ? d.cols : 0;
  snprintf(p->detector, sizeof p->detector, "%s", det);
  return AG_OK;
}

static ag_status parse(const origin *o, const char *text, ag_poni *out) {
  entry e[K_COUNT];
  memset(e, 0, sizeof e);
  scan_lines(text, e);

  int version;
  ag_status st = version_of(o, &e[K_VERSION], &version);
  if (st != AG_OK)
    return st;
  ag_poni p;
  memset(&p, 0, sizeof p);
  /* pyFAI takes Distance, else Dist. */
  enum key dk = e[K_DISTANCE].line ? K_DISTANCE : K_DIST;
  if (e[dk].line == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "Distance is missing", WHERE(o));
  const struct {
    enum key k;
    double *v;
  } numbers[] = {{dk, &p.dist},       {K_PONI1, &p.poni1}, {K_PONI2, &p.poni2},          {K_ROT1, &p.rot1},
                 {K_ROT2, &p.rot2},   {K_ROT3, &p.rot3},   {K_WAVELENGTH, &p.wavelength}};
  for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
    if ((st = entry_number(o, e, numbers[i].k, numbers[i].v)) != AG_OK)
      return st;
  if (!(p.dist > 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: %s is %g, not a positive distance", WHERE(o),
                     e[dk].line, key_names[dk], p.dist);
  if (p.wavelength < 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, WHERE_FMT "line %d: Wavelength is %g, below 0", WHERE(o),
                     e[K_WAVELENGTH].line, p.wavelength);
  if ((st = resolve_detector(o, e, version, &p)) != AG_OK)
    return st;
  *out = p;
  return AG_OK;
}

ag_status ag_poni_parse(const char *text, ag_poni *out) {
  AG__CHECK_NOT_NULL("ag_poni_parse", text);
  AG__CHECK_NOT_NULL("ag_poni_parse", out);
  origin o = {"ag_poni_parse", NULL};
  return parse(&o, text, out);
}

enum { PONI_MAX_BYTES = 1 << 20 };

ag_status ag_poni_read(const char *path, ag_poni *out) {
  AG__CHECK_NOT_NULL("ag_poni_read", path);
  AG__CHECK_NOT_NULL("ag_poni_read", out);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_poni_read: %s: cannot open: %s", path, strerror(errno));
  char *text = malloc(PONI_MAX_BYTES + 1);
  if (text == NULL) {
    fclose(f);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "ag_poni_read: %s: no memory for the file", path);
  }
  size_t n = fread(text, 1, PONI_MAX_BYTES + 1, f);
  int read_error = ferror(f) ? errno : 0;
  fclose(f);
  ag_status st;
  if (read_error != 0)
    st = ag__error(AG_ERR_INVALID_ARGUMENT, "ag_poni_read: %s: cannot read: %s", path, strerror(read_error));
  else if (n > PONI_MAX_BYTES)
    st = ag__error(AG_ERR_INVALID_ARGUMENT, "ag_poni_read: %s: over %d bytes, not a PONI file", path,
                   PONI_MAX_BYTES);
  else if (memchr(text, '\0', n) != NULL)
    st = ag__error(AG_ERR_INVALID_ARGUMENT, "ag_poni_read: %s: holds a NUL byte, not a PONI file", path);
  else {
    text[n] = '\0';
    origin o = {"ag_poni_read", path};
    st = parse(&o, text, out);
  }
  free(text);
  return st;
}
