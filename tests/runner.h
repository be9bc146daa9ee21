/* tests/runner.h — the one parameterised runner behind every test executable, and the
   assertion helpers the suites share.

   Each executable runs as `test_X --backend NAME`. NAME "core" runs the backend-independent
   tcases once; "host", "opencl" or "cuda" runs the device tcases once per device of that
   backend (loop tests, _i being the device's number within the backend). A backend without a
   device makes the executable print "SKIP: no NAME device: <why>" and exit 77.

   The runner never initialises the library in its own process: Check forks every test, and
   pocl and OpenMP do not survive a fork after initialisation. So every test starts in a
   process where nothing has touched the library yet, and may set environment variables
   (ANYGPU_DEVICE, ANYGPU_CACHE_DIR) before its first call. */
#ifndef AG_TESTS_RUNNER_H
#define AG_TESTS_RUNNER_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "anygpu.h"

/* Defined by each test file: adds the file's tcases for @p backend ("core", "host",
   "opencl" or "cuda") with add_core_test() and add_device_test(). */
void suite_build(Suite *s, const char *backend);

/* A tcase named @p name (in words) running @p test once. */
void add_core_test(Suite *s, const char *name, const TTest *test);
/* A tcase named @p name running @p test once per device of the backend under test. */
void add_device_test(Suite *s, const char *name, const TTest *test);

/* The backend under test ("core" for backend-independent tcases). */
const char *test_backend(void);
bool test_backend_is(const char *name);
/* Devices of the backend under test, and the spec of device @p i of them ("opencl:0"). */
int test_device_total(void);
const char *test_spec(int i);

/* Selects device @p i of the backend under test by its spec, ck_asserting success, and makes
   its spec the label of later assertion messages. */
ag_device *test_device(int i);
/* Makes device @p i's spec the label of later assertion messages without selecting it, for
   tests that use the library only in forked children. Returns the spec. */
const char *test_name_device(int i);
/* A device other than @p dev (of any backend), or NULL when there is none. Prints a note
   when there is none, so a skipped sub-check shows in the log. */
ag_device *test_other_device(const ag_device *dev, const char *why);
/* What assertion messages start with: the spec of the device under test, or "core". */
const char *test_label(void);

/* Shrinks @p r's work-group, halving its largest side, until it fits kernel @p k's limit
   (ag_kernel_max_work_group, which may be far below the device's): tests take work-group
   sizes from the kernel and the device, never as constants. An all-zero local is kept. */
void test_fit_local(const ag_kernel *k, ag_range *r);

/* Deterministic bytes: the same @p seed gives the same bytes. */
void test_fill_bytes(void *p, size_t n, unsigned seed);
/* Index of the first byte where @p a and @p b differ, or @p n when they are equal. */
size_t test_first_difference(const void *a, const void *b, size_t n);

/* Runs @p fn(@p arg) in a forked child and returns its exit status (0-255), or 256 + the
   signal number when it was killed. The child must report through stderr and its return
   value, not through ck_assert. */
int test_run_child(int (*fn)(void *arg), void *arg);

/* For suite_build(), before Check runs: exits the test program with 77 (meson's skip), printing
   why, unless @p spec names at least @p want devices. The devices are counted in a child, so
   this process opens none. */
void test_require_devices(const char *spec, int want);

/* Every device present with its info, in enumeration order (at most 64). */
typedef struct test_device_list {
  int n;
  ag_device *dev[64];
  ag_device_info info[64];
} test_device_list;

/* Fills @p l through ag_device_count, ag_device_get and ag_device_get_info, asserting each. */
void test_list_devices(test_device_list *l);
/* The spec of @p d in @p l, or "(none)". */
const char *test_spec_of(const test_device_list *l, const ag_device *d);

/* @p expr must return AG_OK. */
#define CHECK_OK(expr)                                                                          \
  do {                                                                                          \
    ag_status st_ = (expr);                                                                     \
    ck_assert_msg(st_ == AG_OK, "%s: %s returned %s: %s", test_label(), #expr,                  \
                  ag_status_name(st_), ag_last_error());                                        \
  } while (0)

/* @p expr must return @p want, and ag_last_error() must name @p fn and @p arg. */
#define CHECK_FAILS(expr, want, fn, arg)                                                        \
  do {                                                                                          \
    ag_status st_ = (expr);                                                                     \
    const char *msg_ = ag_last_error();                                                         \
    ck_assert_msg(st_ == (want), "%s: %s returned %s, expected %s (last error: \"%s\")",        \
                  test_label(), #expr, ag_status_name(st_), ag_status_name(want), msg_);        \
    ck_assert_msg(strstr(msg_, (fn)) != NULL && strstr(msg_, (arg)) != NULL,                    \
                  "%s: %s: the message \"%s\" should name \"%s\" and \"%s\"", test_label(),     \
                  #expr, msg_, (fn), (arg));                                                    \
  } while (0)

/* ag_last_error() must contain @p needle. */
#define CHECK_MESSAGE_HAS(needle)                                                               \
  ck_assert_msg(strstr(ag_last_error(), (needle)) != NULL,                                      \
                "%s: the message \"%s\" should contain \"%s\"", test_label(), ag_last_error(),  \
                (needle))

/* @p n bytes at @p got must equal those at @p want; @p what says which data. */
#define CHECK_BYTES(got, want, n, what)                                                         \
  do {                                                                                          \
    const unsigned char *g_ = (const unsigned char *)(got), *w_ = (const unsigned char *)(want); \
    size_t n_ = (n), at_ = test_first_difference(g_, w_, n_);                                   \
    ck_assert_msg(at_ == n_, "%s: %s: byte %zu of %zu is 0x%02x, expected 0x%02x",              \
                  test_label(), (what), at_, n_, at_ < n_ ? g_[at_] : 0, at_ < n_ ? w_[at_] : 0); \
  } while (0)

/* 1 in a build with AddressSanitizer (GCC's macro, clang's feature test), whose shadow memory
   an address-space limit (RLIMIT_AS) would starve: tests that set one skip it there. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#endif
