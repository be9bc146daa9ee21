/* backends/embedded.h — kernel files compiled into a backend by tools/embed.py. */
#ifndef AG_BACKENDS_EMBEDDED_H
#define AG_BACKENDS_EMBEDDED_H

#ifdef AG_SCIENCE_LAYER
#error "backends/embedded.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include <stddef.h>

typedef struct ag__embedded {
  const char *name;            /* the file's name without extension: "fill" */
  const unsigned char *data;   /* text: NUL-terminated source; binary: the bytes */
  size_t size;                 /* bytes, without the text's NUL */
} ag__embedded;

#endif
