/* tests/test_status.c — status names and strings, and ag_last_error() per thread. */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>

#include "runner.h"

/* Every status with the name its enumerator is spelled with, from the header's one list. */
static const struct {
  ag_status status;
  const char *name;
} statuses[] = {
#define ENTRY(suffix, msg) {AG_##suffix, "AG_" #suffix},
    AG_STATUS_MAP(ENTRY)
#undef ENTRY
};
enum { NSTATUS = sizeof statuses / sizeof statuses[0] };

START_TEST(every_status_is_named) {
  ck_assert_int_eq(AG_OK, 0);
  for (int i = 0; i < NSTATUS; i++) {
    ag_status st = statuses[i].status;
    ck_assert_msg((int)st == i, "%s has the value %d, expected %d", statuses[i].name, (int)st, i);
    ck_assert_str_eq(ag_status_name(st), statuses[i].name);
    const char *s = ag_status_string(st);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(s[0] != '\0', "%s has an empty string", statuses[i].name);
    for (const char *p = s; *p; p++)
      ck_assert_msg(!isupper((unsigned char)*p), "%s: \"%s\" is not lowercase", statuses[i].name, s);
    ck_assert_msg(s[strlen(s) - 1] != '.', "%s: \"%s\" ends with a period", statuses[i].name, s);
    for (int j = 0; j < i; j++) {
      ck_assert_str_ne(ag_status_string(st), ag_status_string(statuses[j].status));
      ck_assert_str_ne(ag_status_name(st), ag_status_name(statuses[j].status));
    }
  }
}
END_TEST

START_TEST(unknown_statuses_are_named_unknown) {
  const int values[] = {-1, NSTATUS, NSTATUS + 1, 1000, -2147483647 - 1};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    ag_status st = (ag_status)values[i];
    ck_assert_str_eq(ag_status_name(st), "AG_UNKNOWN_STATUS");
    ck_assert_str_eq(ag_status_string(st), "unknown status");
  }
}
END_TEST

START_TEST(last_error_starts_empty_and_keeps_the_failure) {
  const char *fresh = ag_last_error();
  ck_assert_ptr_nonnull(fresh);
  ck_assert_str_eq(fresh, "");
  CHECK_FAILS(ag_device_count(NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_count", "count");
  char saved[512];
  snprintf(saved, sizeof saved, "%s", ag_last_error());
  /* Successful calls leave the message as it is, like errno. */
  int n = 0;
  CHECK_OK(ag_device_count(&n));
  ag_device *dev = NULL;
  CHECK_OK(ag_device_get(0, &dev));
  CHECK_OK(ag_device_select("host", &dev));
  ck_assert_str_eq(ag_last_error(), saved);
  /* A later failure replaces it. */
  CHECK_FAILS(ag_device_get(n, &dev), AG_ERR_OUT_OF_RANGE, "ag_device_get", "index");
  ck_assert_str_ne(ag_last_error(), saved);
}
END_TEST

typedef struct thread_report {
  char fresh[256];  /* ag_last_error() before the thread's first call */
  char failed[512]; /* ag_last_error() after its failure */
  ag_status status;
} thread_report;

static void *failing_thread(void *arg) {
  thread_report *r = arg;
  snprintf(r->fresh, sizeof r->fresh, "%s", ag_last_error());
  ag_device *dev = NULL;
  r->status = ag_device_select("bogus-from-thread", &dev);
  snprintf(r->failed, sizeof r->failed, "%s", ag_last_error());
  return NULL;
}

START_TEST(last_error_is_per_thread) {
  /* The library is initialised here, not in the thread: an OpenCL runtime built on LLVM (pocl)
     replaces the alternate signal stack of the thread it starts in, which AddressSanitizer
     then fails to unmap when that thread exits. */
  int n = 0;
  CHECK_OK(ag_device_count(&n));
  CHECK_FAILS(ag_device_get(-1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_get", "dev");
  char mine[512];
  snprintf(mine, sizeof mine, "%s", ag_last_error());

  thread_report r;
  memset(&r, 0, sizeof r);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, failing_thread, &r), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);

  ck_assert_msg(r.fresh[0] == '\0', "a new thread starts with \"%s\", expected \"\"", r.fresh);
  ck_assert_int_eq(r.status, AG_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(r.failed, "bogus-from-thread") != NULL, "the thread's message is \"%s\"", r.failed);
  ck_assert_str_eq(ag_last_error(), mine);
}
END_TEST

/* A call whose message quotes an argument, given this thread's last error as that argument: the
   new message holds the old one whole, and outgrows the memory the old one is in. It must read
   the old text as it was, not as the new one overwrites it, nor after it is freed. The first
   message is a malformed spec quoted, prefix + "bogus spec" + tail; the second must be
   prefix + the first message + tail. */
START_TEST(a_message_may_quote_the_last_error) {
  ag_device *dev = NULL;
  CHECK_FAILS(ag_device_select("bogus spec", &dev), AG_ERR_INVALID_ARGUMENT, "ag_device_select", "bogus spec");
  const char *prefix = "ag_device_select: malformed device spec \"";
  char first[512];
  snprintf(first, sizeof first, "%s", ag_last_error());
  ck_assert_msg(strncmp(first, prefix, strlen(prefix)) == 0 && strstr(first, "\" (from argument)") != NULL,
                "the first message is \"%s\"", first);
  const char *tail = strstr(first, "\" (from argument)");
  char want[1024];
  snprintf(want, sizeof want, "%s%s%s", prefix, first, tail);

  ck_assert_int_eq(ag_device_select(ag_last_error(), &dev), AG_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(ag_last_error(), want);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") != 0)
    return;
  add_core_test(s, "every status has a name and a string", every_status_is_named);
  add_core_test(s, "unknown statuses are named unknown", unknown_statuses_are_named_unknown);
  add_core_test(s, "the last error starts empty and keeps the failure",
                last_error_starts_empty_and_keeps_the_failure);
  add_core_test(s, "the last error is per thread", last_error_is_per_thread);
  add_core_test(s, "a message may quote the last error", a_message_may_quote_the_last_error);
}
