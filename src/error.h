/* src/error.h — the core's error and log helpers. */
#ifndef AG_SRC_ERROR_H
#define AG_SRC_ERROR_H

#include "anygpu.h"
#include "../backends/backend.h"

/* Records "fmt..." as this thread's last error and returns @p status, so failures read
   `return ag__error(AG_ERR_OUT_OF_RANGE, "ag_buffer_write: offset %zu ...", ...)`. An argument
   may be ag_last_error() itself, or point into it: the old message is read whole before it is
   replaced. */
ag_status ag__error(ag_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* When @p status is a failure, puts "fn: " in front of this thread's last error (a backend
   wrote the rest). Returns @p status, so `return ag__prefix(st, "ag_buffer_read")`. */
ag_status ag__prefix(ag_status status, const char *fn);

/* A copy of this thread's last error, and putting it back: for work that fails inside a call
   that then succeeds another way, which must leave ag_last_error() as it found it. */
char *ag__error_save(void);
void ag__error_restore(char *saved);

/* Writes to stderr when ANYGPU_LOG is at least @p level. */
void ag__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ag__log_level(void);

/* Shorthands for argument checks: each records a message naming the function and argument. */
#define AG__CHECK_NOT_NULL(fn, arg)                                                             \
  do {                                                                                          \
    if ((arg) == NULL)                                                                          \
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, #arg);                  \
  } while (0)

#endif
