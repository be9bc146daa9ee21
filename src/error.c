/* src/error.c — status names and strings, and the per-thread message behind ag_last_error(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

const char *ag_status_name(ag_status status) {
  switch (status) {
#define AG__STATUS_NAME(name, msg)                                                              \
  case AG_##name:                                                                               \
    return "AG_" #name;
    AG_STATUS_MAP(AG__STATUS_NAME)
#undef AG__STATUS_NAME
  }
  return "AG_UNKNOWN_STATUS";
}

const char *ag_status_string(ag_status status) {
  switch (status) {
#define AG__STATUS_STRING(name, msg)                                                            \
  case AG_##name:                                                                               \
    return msg;
    AG_STATUS_MAP(AG__STATUS_STRING)
#undef AG__STATUS_STRING
  }
  return "unknown status";
}

/* Compiler logs can run to many kilobytes, so each message gets a buffer of its size. Each
   thread's buffer is freed by a thread-exit destructor through a pthread key. */
#include <pthread.h>

typedef struct ag__message {
  char *text;
  size_t cap;
} ag__message;

static _Thread_local ag__message tls_message;
static pthread_key_t message_key;
static pthread_once_t message_once = PTHREAD_ONCE_INIT;

static void message_free(void *p) {
  ag__message *m = p;
  free(m->text);
  m->text = NULL;
  m->cap = 0;
}

static void message_key_init(void) { pthread_key_create(&message_key, message_free); }

/* An argument may point into the current message (a caller quoting ag_last_error(), or
   passing it back to a call that quotes its argument), so the new message is written apart
   and only then replaces the old one: written in place it would read what it is overwriting,
   and a buffer grown with realloc would be read after it was freed. Most messages fit on the
   stack; longer ones are formatted again into a buffer of their size. */
static void message_set(const char *fmt, va_list ap) {
  ag__message *m = &tls_message;
  if (m->text == NULL) {
    pthread_once(&message_once, message_key_init);
    pthread_setspecific(message_key, m);
  }
  char start[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(start, sizeof start, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    n = 0;
    start[0] = '\0';
  }
  size_t cap = (size_t)n < sizeof start ? sizeof start : (size_t)n + 1;
  char *t = malloc(cap);
  if (t == NULL) {
    /* Keep the start of the message rather than lose the failure. */
    if (m->text != NULL)
      snprintf(m->text, m->cap, "%s", start);
    return;
  }
  if ((size_t)n < sizeof start)
    memcpy(t, start, (size_t)n + 1);
  else
    vsnprintf(t, cap, fmt, ap);
  free(m->text);
  m->text = t;
  m->cap = cap;
}

static void message_setf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void message_setf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  message_set(fmt, ap);
  va_end(ap);
}

ag_status ag__error(ag_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  message_set(fmt, ap);
  va_end(ap);
  ag__log(AG__LOG_DEBUG, "%s: %s", ag_status_name(status), tls_message.text ? tls_message.text : "");
  return status;
}

ag_status ag__prefix(ag_status status, const char *fn) {
  if (status == AG_OK)
    return status;
  return ag__error(status, "%s: %s", fn, tls_message.text ? tls_message.text : ag_status_string(status));
}

const char *ag_last_error(void) { return tls_message.text ? tls_message.text : ""; }

char *ag__error_save(void) { return tls_message.text ? strdup(tls_message.text) : NULL; }

void ag__error_restore(char *saved) {
  if (saved != NULL)
    message_setf("%s", saved);
  else if (tls_message.text != NULL)
    tls_message.text[0] = '\0';
  free(saved);
}
