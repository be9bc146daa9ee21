/* tools/integrate/outputs.h — the .npy files anygpu-integrate writes, each first to
   PATH.partial and renamed to PATH only when every output is complete, so that a failed run
   leaves no partial output (and no file it would have replaced is touched). */
#ifndef AG_TOOLS_OUTPUTS_H
#define AG_TOOLS_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "npy.h"

#define OUTPUTS_MAX 8

typedef struct outputs {
  int count;
  struct {
    char *path, *partial;
    FILE *f;
    npy_dtype dtype;
    size_t elements, written; /* the shape's elements, and those written so far */
  } file[OUTPUTS_MAX];
} outputs;

/** Starts the file @p path (its header written to PATH.partial) of @p ndim dimensions; returns
    its index, or -1 with a message in @p err. */
int outputs_add(outputs *o, const char *path, npy_dtype dtype, int ndim, const size_t *shape, char *err,
                size_t errlen);

/** Appends @p count elements to file @p index. */
bool outputs_write(outputs *o, int index, const void *data, size_t count, char *err, size_t errlen);

/** Closes every file and renames each to its path; false (and nothing renamed that can be
    helped) when one is short of its shape or cannot be written. */
bool outputs_commit(outputs *o, char *err, size_t errlen);

/** Closes and removes every partial file; the outputs are then empty. Safe after commit. */
void outputs_discard(outputs *o);

#endif
