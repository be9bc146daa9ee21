/* tests/npy.c — numpy's .npy format (tests/npy.h), following numpy's lib/format.py: a magic
   string, a version, a little-endian header length (2 bytes in 1.0, 4 in 2.0 and 3.0), then a
   Python dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (r, c), } padded with
   spaces and a newline to a multiple of 64 bytes (numpy writes that; it reads any padding),
   then the data. */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
  const char *descr, *alt; /* alt: another spelling numpy accepts for the same type */
  size_t size;
} types[] = {
    [NPY_F4] = {"<f4", NULL, 4}, [NPY_F8] = {"<f8", NULL, 8}, [NPY_U1] = {"|u1", "<u1", 1},
    [NPY_U2] = {"<u2", NULL, 2}, [NPY_U4] = {"<u4", NULL, 4}, [NPY_I4] = {"<i4", NULL, 4},
};
enum { NTYPES = sizeof types / sizeof types[0] };

static const char magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

size_t npy_dtype_size(npy_dtype t) { return (unsigned)t < NTYPES ? types[t].size : 0; }
const char *npy_dtype_descr(npy_dtype t) { return (unsigned)t < NTYPES ? types[t].descr : "?"; }

static bool fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return false;
}

static bool host_is_little_endian(void) {
  const uint16_t one = 1;
  return *(const unsigned char *)&one == 1;
}

/* Little-endian file order <-> host order, in place. */
static void swap_if_big_endian(void *data, size_t count, size_t size) {
  if (host_is_little_endian() || size == 1)
    return;
  unsigned char *p = data;
  for (size_t i = 0; i < count; i++, p += size)
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* The header's dict literal is read as Python's ast.literal_eval reads it (numpy's reader), or
   refused: whatever numpy would read otherwise (another spelling of a value, a key given twice,
   which numpy takes the last of) is refused with a message, never read another way. Accepted:
   the three keys in any order, each once, quoted with ' or " (no escapes); 'descr' one of the
   spellings in types[]; 'fortran_order' False (True is refused); 'shape' a tuple of decimal
   integers, "(n,)" for one; Python's whitespace (space, tab, form feed, line breaks) between
   the braces, spaces and tabs before them, spaces, tabs and form feeds then line breaks after
   them; and a trailing comma. Refused, though numpy reads them: comments, signs, Python 2's
   "3L", backslashes, other spellings of a dtype ('f4', 'float32'), other whitespace around the
   dict. */
typedef struct header {
  const char *path;
  const char *start, *p, *end;
  char *err;
  size_t errlen;
} header;

static void skip_space(header *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\f' || *h->p == '\n' || *h->p == '\r'))
    h->p++;
}

/* Whether @p c may continue a Python name or number (so "Falsey", "2L", "2.0", "2_0" are one
   token, not False or 2); bytes past ASCII may be part of a name. */
static bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         (unsigned char)c >= 0x80;
}

static bool unexpected(header *h, const char *wanted) {
  if (h->p >= h->end)
    return fail(h->err, h->errlen, "%s: the header ends where %s should be", h->path, wanted);
  return fail(h->err, h->errlen, "%s: the header has '%c' (byte %zu) where %s should be", h->path,
              *h->p >= ' ' && *h->p <= '~' ? *h->p : '?', (size_t)(h->p - h->start), wanted);
}

static bool take_char(header *h, char c) {
  skip_space(h);
  if (h->p < h->end && *h->p == c) {
    h->p++;
    return true;
  }
  return false;
}

/* A quoted string: its text in [*text, *text + *len). */
static bool take_string(header *h, const char **text, size_t *len, const char *what) {
  skip_space(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
    return unexpected(h, what);
  char quote = *h->p++;
  const char *s = h->p;
  while (h->p < h->end && *h->p != quote) {
    if (*h->p == '\\' || *h->p == '\n' || *h->p == '\r')
      return fail(h->err, h->errlen, "%s: the header's string at byte %zu has a backslash or a line break", h->path,
                  (size_t)(h->p - h->start));
    h->p++;
  }
  if (h->p >= h->end)
    return fail(h->err, h->errlen, "%s: the header's string at byte %zu is not closed", h->path,
                (size_t)(s - 1 - h->start));
  *text = s;
  *len = (size_t)(h->p - s);
  h->p++;
  return true;
}

/* A name (True, False) that is a whole token. */
static bool take_word(header *h, const char *word) {
  skip_space(h);
  size_t n = strlen(word);
  if ((size_t)(h->end - h->p) < n || memcmp(h->p, word, n) != 0)
    return false;
  if (h->p + n < h->end && word_char(h->p[n]))
    return false;
  h->p += n;
  return true;
}

/* Up to outlen - 1 bytes of a string from the file, for a message: printable ASCII, others '?'. */
static const char *shown(const char *s, size_t n, char *out, size_t outlen) {
  size_t m = n < outlen - 1 ? n : outlen - 1;
  for (size_t i = 0; i < m; i++)
    out[i] = s[i] >= ' ' && s[i] <= '~' ? s[i] : '?';
  out[m] = '\0';
  return out;
}

static bool parse_descr(header *h, npy_array *out) {
  const char *d;
  size_t n;
  if (!take_string(h, &d, &n, "the 'descr' string"))
    return false;
  for (int t = 0; t < NTYPES; t++) {
    const char *names[2] = {types[t].descr, types[t].alt};
    for (int k = 0; k < 2; k++)
      if (names[k] != NULL && strlen(names[k]) == n && memcmp(names[k], d, n) == 0) {
        out->dtype = (npy_dtype)t;
        return true;
      }
  }
  char text[24];
  return fail(h->err, h->errlen, "%s: dtype '%s' is not one of <f4 <f8 |u1 <u2 <u4 <i4", h->path,
              shown(d, n, text, sizeof text));
}

static bool parse_fortran_order(header *h) {
  if (take_word(h, "False"))
    return true;
  if (take_word(h, "True"))
    return fail(h->err, h->errlen, "%s: Fortran order is not supported (write it with numpy.ascontiguousarray)",
                h->path);
  return unexpected(h, "'fortran_order''s True or False");
}

/* A dimension: a decimal integer as Python writes one (no sign, no leading zeros but in 0). */
static bool take_dimension(header *h, size_t *v) {
  skip_space(h);
  const char *s = h->p;
  while (h->p < h->end && *h->p >= '0' && *h->p <= '9')
    h->p++;
  if (h->p == s)
    return unexpected(h, "a dimension of 'shape'");
  if (h->p < h->end && word_char(*h->p))
    return unexpected(h, "the end of a dimension of 'shape'");
  bool zeros = true;
  for (const char *c = s; c < h->p; c++)
    zeros = zeros && *c == '0';
  if (*s == '0' && !zeros)
    return fail(h->err, h->errlen, "%s: a dimension of 'shape' has a leading zero (byte %zu)", h->path,
                (size_t)(s - h->start));
  size_t value = 0;
  for (const char *c = s; c < h->p; c++) {
    size_t digit = (size_t)(*c - '0');
    if (value > (SIZE_MAX - digit) / 10)
      return fail(h->err, h->errlen, "%s: a dimension is too large", h->path);
    value = value * 10 + digit;
  }
  *v = value;
  return true;
}

static bool parse_shape(header *h, npy_array *out) {
  if (!take_char(h, '('))
    return unexpected(h, "the 'shape' tuple");
  out->ndim = 0;
  if (take_char(h, ')'))
    return true;
  for (;;) {
    if (out->ndim == NPY_MAX_DIMS)
      return fail(h->err, h->errlen, "%s: more than %d dimensions", h->path, NPY_MAX_DIMS);
    size_t v = 0;
    if (!take_dimension(h, &v))
      return false;
    out->shape[out->ndim++] = v;
    if (take_char(h, ',')) {
      if (take_char(h, ')'))
        return true;
      continue;
    }
    /* "(3)" is the integer 3 to Python, not a tuple: numpy refuses it. */
    if (out->ndim > 1 && take_char(h, ')'))
      return true;
    return unexpected(h, out->ndim == 1 ? "the ',' of a 1-tuple 'shape'" : "',' or ')' in 'shape'");
  }
}

static bool parse_header(const char *path, const char *text, size_t len, npy_array *out, char *err, size_t errlen) {
  header h = {path, text, text, text + len, err, errlen};
  if (memchr(text, '\0', len) != NULL)
    return fail(err, errlen, "%s: the header holds a NUL byte", path);
  static const char *const keys[3] = {"descr", "fortran_order", "shape"};
  bool seen[3] = {false, false, false};
  /* Outside the braces Python's rules for lines apply: ast.literal_eval strips spaces and tabs
     before the dict, and after it a line may end, but a line that starts with whitespace is an
     indentation error in some of numpy's versions. numpy writes "{...}", spaces and '\n'. */
  while (h.p < h.end && (*h.p == ' ' || *h.p == '\t'))
    h.p++;
  if (h.p >= h.end || *h.p != '{')
    return unexpected(&h, "the header's '{'");
  h.p++;
  while (!take_char(&h, '}')) {
    const char *key;
    size_t n;
    if (!take_string(&h, &key, &n, "a quoted key or '}'"))
      return false;
    int k = 0;
    while (k < 3 && !(strlen(keys[k]) == n && memcmp(keys[k], key, n) == 0))
      k++;
    char printable[24];
    if (k == 3)
      return fail(err, errlen, "%s: the header has a key '%s' numpy does not accept (only 'descr', 'fortran_order', "
                  "'shape')", path, shown(key, n, printable, sizeof printable));
    if (seen[k])
      return fail(err, errlen, "%s: the header names '%s' twice (numpy would take the last)", path, keys[k]);
    seen[k] = true;
    if (!take_char(&h, ':'))
      return unexpected(&h, "':' after a key");
    bool ok = k == 0 ? parse_descr(&h, out) : k == 1 ? parse_fortran_order(&h) : parse_shape(&h, out);
    if (!ok)
      return false;
    if (take_char(&h, ','))
      continue;
    if (take_char(&h, '}'))
      break;
    return unexpected(&h, "',' or '}'");
  }
  while (h.p < h.end && (*h.p == ' ' || *h.p == '\t' || *h.p == '\f'))
    h.p++;
  while (h.p < h.end && (*h.p == '\r' || *h.p == '\n'))
    h.p++;
  if (h.p != h.end)
    return unexpected(&h, "the end of the header (spaces, then line breaks)");
  for (int k = 0; k < 3; k++)
    if (!seen[k])
      return fail(err, errlen, "%s: the header has no '%s'", path, keys[k]);
  /* The size once the dtype is known, whichever key came first. */
  out->count = 1;
  for (int d = 0; d < out->ndim; d++) {
    size_t v = out->shape[d];
    if (v != 0 && out->count > SIZE_MAX / npy_dtype_size(out->dtype) / v)
      return fail(err, errlen, "%s: the shape's size overflows", path);
    out->count *= v;
  }
  return true;
}

bool npy_read_header(FILE *f, const char *name, npy_array *meta, char *err, size_t errlen) {
  if (meta == NULL || name == NULL || f == NULL)
    return fail(err, errlen, "npy_read_header: NULL argument");
  memset(meta, 0, sizeof *meta);
  unsigned char pre[12];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, magic, sizeof magic) != 0)
    return fail(err, errlen, "%s: not a .npy file (no \\x93NUMPY magic)", name);
  /* numpy reads 1.0, 2.0 and 3.0 only (3.0 differs from 2.0 in the header's encoding, UTF-8
     rather than Latin-1, which matters only past ASCII, where nothing is accepted here). */
  if ((pre[6] != 1 && pre[6] != 2 && pre[6] != 3) || pre[7] != 0)
    return fail(err, errlen, "%s: format version %d.%d is not 1.0, 2.0 or 3.0", name, pre[6], pre[7]);
  size_t plen = pre[6] == 1 ? 10 : 12;
  if (fread(pre + 8, 1, plen - 8, f) != plen - 8)
    return fail(err, errlen, "%s: the header length is cut short", name);
  size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
  if (plen == 12)
    hlen |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  if (hlen > (1u << 24))
    return fail(err, errlen, "%s: a header of %zu bytes is not believable", name, hlen);
  char *text = malloc(hlen + 1);
  if (text == NULL)
    return fail(err, errlen, "%s: no memory for the header", name);
  bool ok = false;
  if (fread(text, 1, hlen, f) != hlen) {
    fail(err, errlen, "%s: the header is cut short", name);
    goto done;
  }
  text[hlen] = '\0';
  if (!parse_header(name, text, hlen, meta, err, errlen))
    goto done;
  /* The data must be exactly what the shape needs: a file cut short (or with more) is refused
     here, before any of it is read. A stream that is no regular file is checked as it is read. */
  size_t bytes = meta->count * npy_dtype_size(meta->dtype);
  struct stat sb;
  int fd = fileno(f);
  if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size != plen + hlen + bytes) {
    size_t got = (size_t)sb.st_size > plen + hlen ? (size_t)sb.st_size - plen - hlen : 0;
    if (got > bytes)
      fail(err, errlen, "%s: holds more data than its shape needs (%zu bytes, not %zu)", name, got, bytes);
    else
      fail(err, errlen, "%s: holds %zu bytes of data, the shape needs %zu (the file is cut short)", name, got, bytes);
    goto done;
  }
  ok = true;
done:
  free(text);
  return ok;
}

bool npy_open(const char *path, npy_array *meta, FILE **file, char *err, size_t errlen) {
  if (meta == NULL || path == NULL || file == NULL)
    return fail(err, errlen, "npy_open: NULL argument");
  memset(meta, 0, sizeof *meta);
  *file = NULL;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  if (!npy_read_header(f, path, meta, err, errlen)) {
    fclose(f);
    return false;
  }
  *file = f;
  return true;
}

/* Reads @p bytes of data from @p f into a buffer of its own. The buffer grows as the data comes
   (from 1 MiB, doubling), so a header that claims more than a stream holds (a pipe, memory:
   npy_read_header checks only a regular file's size) costs no more memory than what is there. */
static bool read_data(FILE *f, const char *name, size_t bytes, void **out, char *err, size_t errlen) {
  size_t cap = bytes < ((size_t)1 << 20) ? bytes : ((size_t)1 << 20), got = 0;
  unsigned char *buf = malloc(cap);
  if (buf == NULL)
    return fail(err, errlen, "%s: no memory for %zu bytes of data", name, cap);
  for (;;) {
    got += fread(buf + got, 1, cap - got, f);
    if (got < cap || got == bytes)
      break;
    size_t next = cap > bytes / 2 ? bytes : cap * 2;
    unsigned char *more = realloc(buf, next);
    if (more == NULL) {
      free(buf);
      return fail(err, errlen, "%s: no memory for %zu bytes of data", name, next);
    }
    buf = more;
    cap = next;
  }
  if (got != bytes) {
    free(buf);
    return fail(err, errlen, "%s: holds %zu bytes of data, the shape needs %zu", name, got, bytes);
  }
  *out = buf;
  return true;
}

bool npy_read_stream(FILE *f, const char *name, npy_array *out, char *err, size_t errlen) {
  if (!npy_read_header(f, name, out, err, errlen))
    return false;
  size_t size = npy_dtype_size(out->dtype), bytes = out->count * size;
  if (bytes > 0 && !read_data(f, name, bytes, &out->data, err, errlen))
    goto fail;
  if (fgetc(f) != EOF) {
    fail(err, errlen, "%s: holds more data than its shape needs", name);
    goto fail;
  }
  swap_if_big_endian(out->data, out->count, size);
  return true;
fail:
  npy_free(out);
  return false;
}

bool npy_read(const char *path, npy_array *out, char *err, size_t errlen) {
  if (out == NULL || path == NULL)
    return fail(err, errlen, "npy_read: NULL argument");
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  bool ok = npy_read_stream(f, path, out, err, errlen);
  fclose(f);
  return ok;
}

bool npy_write_header(FILE *f, const char *path, npy_dtype dtype, int ndim, const size_t *shape, char *err,
                      size_t errlen) {
  if (f == NULL || path == NULL || (ndim > 0 && shape == NULL))
    return fail(err, errlen, "npy_write_header: NULL argument");
  if ((unsigned)dtype >= NTYPES)
    return fail(err, errlen, "%s: dtype %d is not an npy_dtype", path, (int)dtype);
  if (ndim < 0 || ndim > NPY_MAX_DIMS)
    return fail(err, errlen, "%s: ndim %d is not 0 to %d", path, ndim, NPY_MAX_DIMS);
  size_t size = types[dtype].size, count = 1;
  char dims[NPY_MAX_DIMS * 24 + 4] = "";
  size_t used = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] != 0 && count > SIZE_MAX / size / shape[i])
      return fail(err, errlen, "%s: the shape's size overflows", path);
    count *= shape[i];
    used += (size_t)snprintf(dims + used, sizeof dims - used, "%zu,%s", shape[i], i + 1 < ndim ? " " : "");
  }
  if (ndim > 1) /* numpy writes (3,) for one dimension, (3, 4) for two */
    dims[used - 1] = '\0';

  char dict[sizeof dims + 96];
  int dn = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", types[dtype].descr,
                    dims);
  /* magic (6) + version (2) + length (2 or 4) + dict + padding + '\n', a multiple of 64. */
  size_t pre = 10, total = pre + (size_t)dn + 1;
  total = (total + 63) / 64 * 64;
  int version = 1;
  if (total - pre > 65535) {
    version = 2;
    pre = 12;
    total = (pre + (size_t)dn + 1 + 63) / 64 * 64;
  }
  size_t hlen = total - pre;
  unsigned char head[12];
  memcpy(head, magic, sizeof magic);
  head[6] = (unsigned char)version;
  head[7] = 0;
  for (size_t k = 0; k < pre - 8; k++)
    head[8 + k] = (unsigned char)(hlen >> (8 * k));
  bool ok = fwrite(head, 1, pre, f) == pre && fwrite(dict, 1, (size_t)dn, f) == (size_t)dn;
  for (size_t k = (size_t)dn; ok && k + 1 < hlen; k++)
    ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  return ok ? true : fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
}

bool npy_write_data(FILE *f, const char *path, npy_dtype dtype, size_t count, const void *data, char *err,
                    size_t errlen) {
  if ((unsigned)dtype >= NTYPES)
    return fail(err, errlen, "%s: dtype %d is not an npy_dtype", path, (int)dtype);
  if (count > 0 && data == NULL)
    return fail(err, errlen, "%s: data is NULL", path);
  /* An empty array's data is NULL, which fwrite may not be given even for 0 elements. */
  if (count == 0)
    return true;
  size_t size = types[dtype].size;
  bool ok = true;
  if (host_is_little_endian() || size == 1) {
    ok = fwrite(data, size, count, f) == count;
  } else {
    unsigned char elem[8];
    for (size_t i = 0; ok && i < count; i++) {
      memcpy(elem, (const unsigned char *)data + i * size, size);
      swap_if_big_endian(elem, 1, size);
      ok = fwrite(elem, 1, size, f) == size;
    }
  }
  return ok ? true : fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
}

bool npy_write(const char *path, npy_dtype dtype, int ndim, const size_t *shape, const void *data, char *err,
               size_t errlen) {
  if (path == NULL || (ndim > 0 && shape == NULL))
    return fail(err, errlen, "npy_write: NULL argument");
  size_t count = 1;
  for (int i = 0; i < ndim && i < NPY_MAX_DIMS; i++)
    count *= shape[i];
  if (count > 0 && data == NULL)
    return fail(err, errlen, "%s: data is NULL", path);
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
  bool ok = npy_write_header(f, path, dtype, ndim, shape, err, errlen) &&
            npy_write_data(f, path, dtype, count, data, err, errlen);
  if (fclose(f) != 0 && ok)
    ok = fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
  return ok;
}

void npy_free(npy_array *a) {
  if (a == NULL)
    return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

double npy_get(const npy_array *a, size_t i) {
  const unsigned char *p = (const unsigned char *)a->data + i * npy_dtype_size(a->dtype);
  switch (a->dtype) {
  case NPY_F4: {
    float v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  case NPY_F8: {
    double v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  case NPY_U1:
    return *p;
  case NPY_U2: {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  case NPY_U4: {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  case NPY_I4: {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  }
  return 0;
}
