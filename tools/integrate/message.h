/* tools/integrate/message.h — the one way anygpu-integrate's files report a failure: the
   message into the caller's buffer, and false to return. */
#ifndef AG_TOOLS_MESSAGE_H
#define AG_TOOLS_MESSAGE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static inline bool fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline bool fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err != NULL && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return false;
}

#endif
