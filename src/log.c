/* src/log.c — ANYGPU_LOG=error|warn|info|debug writes the library's log to stderr. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "error.h"

static int log_level;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_init(void) {
  const char *v = getenv("ANYGPU_LOG");
  static const char *names[] = {"off", "error", "warn", "info", "debug"};
  log_level = 0;
  if (v == NULL || *v == '\0')
    return;
  for (int i = 0; i < 5; i++)
    if (strcasecmp(v, names[i]) == 0)
      log_level = i;
  if (log_level == 0 && strcasecmp(v, "off") != 0)
    fprintf(stderr, "anygpu: warn: ANYGPU_LOG=%s is not one of error, warn, info, debug; logging is off\n", v);
}

int ag__log_level(void) {
  pthread_once(&log_once, log_init);
  return log_level;
}

/* Writes one line at @p level when ANYGPU_LOG asks for it. */
static void log_v(int level, const char *fmt, va_list ap) {
  if (level > ag__log_level())
    return;
  static const char *tags[] = {"", "error", "warn", "info", "debug"};
  flockfile(stderr);
  fprintf(stderr, "anygpu: %s: ", tags[level]);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  funlockfile(stderr);
}

void ag__log(int level, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_v(level, fmt, ap);
  va_end(ap);
}

void ag__log_info(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_v(AG__LOG_INFO, fmt, ap);
  va_end(ap);
}
