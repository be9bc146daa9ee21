/* tools/integrate/outputs.c — outputs written whole or not at all (outputs.h). */
#include "outputs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"


int outputs_add(outputs *o, const char *path, npy_dtype dtype, int ndim, const size_t *shape, char *err,
                size_t errlen) {
  if (o->count >= OUTPUTS_MAX) {
    fail(err, errlen, "%s: more than %d outputs", path, OUTPUTS_MAX);
    return -1;
  }
  int i = o->count;
  size_t n = strlen(path);
  char *p = strdup(path), *partial = malloc(n + sizeof ".partial");
  if (p == NULL || partial == NULL) {
    free(p);
    free(partial);
    fail(err, errlen, "%s: no memory", path);
    return -1;
  }
  memcpy(partial, path, n);
  memcpy(partial + n, ".partial", sizeof ".partial");
  FILE *f = fopen(partial, "wb");
  if (f == NULL) {
    fail(err, errlen, "%s: cannot create: %s", partial, strerror(errno));
    free(p);
    free(partial);
    return -1;
  }
  size_t elements = 1;
  for (int d = 0; d < ndim; d++)
    elements *= shape[d];
  o->file[i].path = p;
  o->file[i].partial = partial;
  o->file[i].f = f;
  o->file[i].dtype = dtype;
  o->file[i].elements = elements;
  o->file[i].written = 0;
  o->count++;
  if (!npy_write_header(f, partial, dtype, ndim, shape, err, errlen))
    return -1;
  return i;
}

bool outputs_write(outputs *o, int index, const void *data, size_t count, char *err, size_t errlen) {
  if (index < 0 || index >= o->count)
    return fail(err, errlen, "output %d does not exist", index);
  if (count > o->file[index].elements - o->file[index].written)
    return fail(err, errlen, "%s: %zu more elements than its shape holds", o->file[index].path,
                count - (o->file[index].elements - o->file[index].written));
  if (!npy_write_data(o->file[index].f, o->file[index].partial, o->file[index].dtype, count, data, err, errlen))
    return false;
  o->file[index].written += count;
  return true;
}

bool outputs_commit(outputs *o, char *err, size_t errlen) {
  bool ok = true;
  for (int i = 0; i < o->count && ok; i++) {
    if (o->file[i].written != o->file[i].elements)
      ok = fail(err, errlen, "%s: %zu of %zu elements written", o->file[i].path, o->file[i].written,
                o->file[i].elements);
    FILE *f = o->file[i].f;
    o->file[i].f = NULL;
    if (fclose(f) != 0 && ok)
      ok = fail(err, errlen, "%s: cannot write: %s", o->file[i].partial, strerror(errno));
  }
  for (int i = 0; i < o->count && ok; i++)
    if (rename(o->file[i].partial, o->file[i].path) != 0)
      ok = fail(err, errlen, "%s: cannot rename to %s: %s", o->file[i].partial, o->file[i].path, strerror(errno));
  if (!ok)
    outputs_discard(o);
  else {
    for (int i = 0; i < o->count; i++) {
      free(o->file[i].path);
      free(o->file[i].partial);
    }
    o->count = 0;
  }
  return ok;
}

void outputs_discard(outputs *o) {
  for (int i = 0; i < o->count; i++) {
    if (o->file[i].f != NULL)
      fclose(o->file[i].f);
    remove(o->file[i].partial);
    free(o->file[i].path);
    free(o->file[i].partial);
  }
  o->count = 0;
}
