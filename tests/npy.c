/* tests/npy.c — numpy's .npy format (tests/npy.h), following numpy's lib/format.py: a magic
   string, a version, a little-endian header length (2 bytes in 1.0, 4 in 2.0), then a Python
   dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (r, c), } padded with spaces
   and a newline to a multiple of 64 bytes, then the data. */
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

/* The value after 'key': in the header dict, or NULL. */
static const char *dict_value(const char *header, const char *key) {
  char quoted[32];
  for (int q = 0; q < 2; q++) {
    snprintf(quoted, sizeof quoted, q ? "\"%s\"" : "'%s'", key);
    const char *k = strstr(header, quoted);
    if (k == NULL)
      continue;
    k += strlen(quoted);
    while (*k == ' ')
      k++;
    if (*k != ':')
      return NULL;
    k++;
    while (*k == ' ')
      k++;
    return k;
  }
  return NULL;
}

static bool parse_header(const char *path, const char *h, npy_array *out, char *err, size_t errlen) {
  const char *d = dict_value(h, "descr");
  if (d == NULL || (*d != '\'' && *d != '"'))
    return fail(err, errlen, "%s: the header has no 'descr' string", path);
  char quote = *d++;
  const char *end = strchr(d, quote);
  if (end == NULL)
    return fail(err, errlen, "%s: the header's 'descr' is not closed", path);
  size_t n = (size_t)(end - d);
  bool found = false;
  for (int t = 0; t < NTYPES && !found; t++) {
    const char *names[2] = {types[t].descr, types[t].alt};
    for (int k = 0; k < 2 && !found; k++)
      if (names[k] != NULL && strlen(names[k]) == n && strncmp(names[k], d, n) == 0) {
        out->dtype = (npy_dtype)t;
        found = true;
      }
  }
  if (!found)
    return fail(err, errlen, "%s: dtype '%.*s' is not one of <f4 <f8 |u1 <u2 <u4 <i4", path, (int)(n > 20 ? 20 : n),
                d);

  const char *f = dict_value(h, "fortran_order");
  if (f == NULL || (strncmp(f, "False", 5) != 0 && strncmp(f, "True", 4) != 0))
    return fail(err, errlen, "%s: the header has no 'fortran_order' True or False", path);
  if (strncmp(f, "True", 4) == 0)
    return fail(err, errlen, "%s: Fortran order is not supported (write it with numpy.ascontiguousarray)", path);

  const char *s = dict_value(h, "shape");
  if (s == NULL || *s != '(')
    return fail(err, errlen, "%s: the header has no 'shape' tuple", path);
  s++;
  out->ndim = 0;
  out->count = 1;
  for (;;) {
    while (*s == ' ')
      s++;
    if (*s == ')')
      break;
    if (*s < '0' || *s > '9')
      return fail(err, errlen, "%s: the shape is not a tuple of integers", path);
    if (out->ndim == NPY_MAX_DIMS)
      return fail(err, errlen, "%s: more than %d dimensions", path, NPY_MAX_DIMS);
    errno = 0;
    char *after;
    unsigned long long v = strtoull(s, &after, 10);
    if (errno != 0 || v > SIZE_MAX)
      return fail(err, errlen, "%s: a dimension is too large", path);
    out->shape[out->ndim++] = (size_t)v;
    if (v != 0 && out->count > SIZE_MAX / npy_dtype_size(out->dtype) / v)
      return fail(err, errlen, "%s: the shape's size overflows", path);
    out->count *= (size_t)v;
    s = after;
    while (*s == ' ')
      s++;
    if (*s == ',')
      s++;
    else if (*s != ')')
      return fail(err, errlen, "%s: the shape is not a tuple of integers", path);
  }
  return true;
}

bool npy_open(const char *path, npy_array *meta, FILE **file, char *err, size_t errlen) {
  if (meta == NULL || path == NULL || file == NULL)
    return fail(err, errlen, "npy_open: NULL argument");
  memset(meta, 0, sizeof *meta);
  *file = NULL;
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
  bool ok = false;
  char *header = NULL;
  unsigned char pre[12];
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, magic, sizeof magic) != 0) {
    fail(err, errlen, "%s: not a .npy file (no \\x93NUMPY magic)", path);
    goto done;
  }
  size_t hlen, plen;
  if (pre[6] == 1) {
    plen = 10;
    if (fread(pre + 8, 1, 2, f) != 2) {
      fail(err, errlen, "%s: the header length is cut short", path);
      goto done;
    }
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
  } else if (pre[6] == 2 || pre[6] == 3) {
    plen = 12;
    if (fread(pre + 8, 1, 4, f) != 4) {
      fail(err, errlen, "%s: the header length is cut short", path);
      goto done;
    }
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
  } else {
    fail(err, errlen, "%s: format version %d.%d is not 1.0, 2.0 or 3.0", path, pre[6], pre[7]);
    goto done;
  }
  if (hlen > (1u << 24)) {
    fail(err, errlen, "%s: a header of %zu bytes is not believable", path, hlen);
    goto done;
  }
  header = malloc(hlen + 1);
  if (header == NULL || fread(header, 1, hlen, f) != hlen) {
    fail(err, errlen, "%s: %s", path, header == NULL ? "no memory for the header" : "the header is cut short");
    goto done;
  }
  header[hlen] = '\0';
  if (!parse_header(path, header, meta, err, errlen))
    goto done;
  /* The data must be exactly what the shape needs: a file cut short (or with more) is refused
     here, before any of it is read. */
  size_t bytes = meta->count * npy_dtype_size(meta->dtype);
  struct stat sb;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && (size_t)sb.st_size != plen + hlen + bytes) {
    size_t got = (size_t)sb.st_size > plen + hlen ? (size_t)sb.st_size - plen - hlen : 0;
    if (got > bytes)
      fail(err, errlen, "%s: holds more data than its shape needs (%zu bytes, not %zu)", path, got, bytes);
    else
      fail(err, errlen, "%s: holds %zu bytes of data, the shape needs %zu (the file is cut short)", path, got, bytes);
    goto done;
  }
  ok = true;
done:
  free(header);
  if (ok)
    *file = f;
  else
    fclose(f);
  return ok;
}

bool npy_read(const char *path, npy_array *out, char *err, size_t errlen) {
  FILE *f;
  if (!npy_open(path, out, &f, err, errlen))
    return false;
  bool ok = false;
  size_t size = npy_dtype_size(out->dtype), bytes = out->count * size;
  if (bytes > 0) {
    out->data = malloc(bytes);
    if (out->data == NULL) {
      fail(err, errlen, "%s: no memory for %zu bytes of data", path, bytes);
      goto done;
    }
    size_t got = fread(out->data, 1, bytes, f);
    if (got != bytes) {
      fail(err, errlen, "%s: holds %zu bytes of data, the shape needs %zu", path, got, bytes);
      goto done;
    }
  }
  if (fgetc(f) != EOF) {
    fail(err, errlen, "%s: holds more data than its shape needs", path);
    goto done;
  }
  swap_if_big_endian(out->data, out->count, size);
  ok = true;
done:
  fclose(f);
  if (!ok)
    npy_free(out);
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
