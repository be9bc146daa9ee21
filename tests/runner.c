/* tests/runner.c — main() of every test executable: finds the devices of the backend under
   test in a child process, builds the suite over them and runs it. See runner.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "python.h"
#include "runner.h"

enum { MAX_DEVICES = 64 };

static const char *backend = "";
static int ndevices;
static char *specs[MAX_DEVICES];
static int ntests;
static const char *label = "core";

const char *test_backend(void) { return backend; }
bool test_backend_is(const char *name) { return strcmp(backend, name) == 0; }
int test_device_total(void) { return ndevices; }
const char *test_spec(int i) { return i >= 0 && i < ndevices ? specs[i] : "?"; }
const char *test_label(void) { return label; }

/* Without CK_DEFAULT_TIMEOUT Check gives a test 4 seconds, too few for a first OpenCL
   compile; meson's test environment sets it, and a run by hand gets this. */
static void set_timeout(TCase *tc) {
  if (getenv("CK_DEFAULT_TIMEOUT") == NULL)
    tcase_set_timeout(tc, 300);
}

void add_core_test(Suite *s, const char *name, const TTest *test) {
  TCase *tc = tcase_create(name);
  set_timeout(tc);
  tcase_add_test(tc, test);
  suite_add_tcase(s, tc);
  ntests++;
}

/* The devices this test process opened, which finish_devices waits for after each test: a
   test must not exit while a driver thread still works for it (pocl compiles a kernel on its
   worker thread at the kernel's first run, and crashes if the process exits under it). */
static ag_device *opened[MAX_DEVICES];

static void finish_devices(void) {
  for (int i = 0; i < ndevices; i++)
    if (opened[i] != NULL)
      ck_assert_msg(ag_device_finish(opened[i]) == AG_OK, "%s: ag_device_finish after the test: %s", specs[i],
                    ag_last_error());
}

void add_device_test(Suite *s, const char *name, const TTest *test) {
  TCase *tc = tcase_create(name);
  set_timeout(tc);
  tcase_add_checked_fixture(tc, NULL, finish_devices);
  tcase_add_loop_test(tc, test, 0, ndevices);
  suite_add_tcase(s, tc);
  ntests += ndevices;
}

ag_device *test_device(int i) {
  ck_assert_msg(i >= 0 && i < ndevices, "device number %d of backend %s does not exist", i, backend);
  label = specs[i];
  ag_device *dev = NULL;
  ag_status st = ag_device_select(specs[i], &dev);
  ck_assert_msg(st == AG_OK && dev != NULL, "%s: ag_device_select(\"%s\") returned %s: %s", label, specs[i],
                ag_status_name(st), ag_last_error());
  ag_device_info info;
  ck_assert_int_eq(ag_device_get_info(dev, &info), AG_OK);
  ck_assert_msg(strcmp(info.spec, specs[i]) == 0, "%s: ag_device_select(\"%s\") gave the device \"%s\"", label,
                specs[i], info.spec);
  opened[i] = dev;
  return dev;
}

const char *test_name_device(int i) {
  ck_assert_msg(i >= 0 && i < ndevices, "device number %d of backend %s does not exist", i, backend);
  label = specs[i];
  return label;
}

ag_device *test_other_device(const ag_device *dev, const char *why) {
  int n = 0;
  ck_assert_int_eq(ag_device_count(&n), AG_OK);
  for (int i = 0; i < n; i++) {
    ag_device *d = NULL;
    ck_assert_int_eq(ag_device_get(i, &d), AG_OK);
    if (d != dev)
      return d;
  }
  printf("note: %s: only one device is present, so %s is not checked\n", label, why);
  fflush(stdout);
  return NULL;
}

void test_fit_local(const ag_kernel *k, ag_range *r) {
  /* No ck_assert here: forked children call this through programs.c. */
  size_t limit = ag_kernel_max_work_group(k);
  while (limit > 0) {
    size_t product = 1, big = 0;
    for (unsigned d = 0; d < r->dims; d++) {
      product *= r->local[d];
      if (r->local[d] > r->local[big])
        big = d;
    }
    if (product <= limit)
      return;
    r->local[big] /= 2;
  }
}

void test_fill_bytes(void *p, size_t n, unsigned seed) {
  /* xorshift64*, seeded so that nearby seeds give unrelated bytes. */
  uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1u);
  unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    b[i] = (unsigned char)((x * 0x2545f4914f6cdd1dull) >> 56);
  }
}

size_t test_first_difference(const void *a, const void *b, size_t n) {
  if (memcmp(a, b, n) == 0)
    return n;
  const unsigned char *x = a, *y = b;
  size_t i = 0;
  while (x[i] == y[i])
    i++;
  return i;
}

int test_run_child(int (*fn)(void *arg), void *arg) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  ck_assert_msg(pid >= 0, "%s: fork failed: %s", label, strerror(errno));
  if (pid == 0) {
    int rc = fn(arg);
    fflush(stdout);
    fflush(stderr);
    /* exit(), not _exit(): LeakSanitizer checks the child too. */
    exit(rc);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    ck_assert_msg(errno == EINTR, "%s: waitpid failed: %s", label, strerror(errno));
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 256 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The child half of discovery: writes "spec<TAB>name" per device of @p name, or one line
   "#reason" when there is none, to @p out. */
static int discover_child(const char *name, FILE *out) {
  int n = 0;
  ag_status st = ag_device_count(&n);
  if (st != AG_OK) {
    fprintf(out, "!ag_device_count returned %s: %s\n", ag_status_name(st), ag_last_error());
    return 1;
  }
  int found = 0;
  for (int i = 0; i < n; i++) {
    ag_device *dev = NULL;
    ag_device_info info;
    if (ag_device_get(i, &dev) != AG_OK || ag_device_get_info(dev, &info) != AG_OK) {
      fprintf(out, "!device %d: %s\n", i, ag_last_error());
      return 1;
    }
    if (strcmp(info.backend, name) == 0) {
      fprintf(out, "%s\t%s\n", info.spec, info.name);
      found++;
    }
  }
  if (found == 0) {
    const char *why = ag_backend_unavailable_reason(name);
    char line[4200];
    snprintf(line, sizeof line, "%s", why != NULL ? why : "the backend loaded but reports no device");
    for (char *p = line; *p; p++)
      if (*p == '\n')
        *p = ' ';
    fprintf(out, "#%s\n", line);
  }
  return 0;
}

/* Finds the devices of backend @p name in a child process, so this process stays
   uninitialised. Exits 77 when there is none, 99 when discovery itself fails. */
static void discover(const char *name) {
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(99);
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(99);
  }
  if (pid == 0) {
    close(fds[0]);
    FILE *out = fdopen(fds[1], "w");
    int rc = out ? discover_child(name, out) : 1;
    if (out)
      fclose(out);
    _exit(rc);
  }
  close(fds[1]);
  FILE *in = fdopen(fds[0], "r");
  char *line = NULL, reason[4200] = "";
  size_t cap = 0;
  bool failed = false;
  while (in != NULL && getline(&line, &cap, in) > 0) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '#') {
      snprintf(reason, sizeof reason, "%s", line + 1);
    } else if (line[0] == '!') {
      fprintf(stderr, "device discovery failed: %s\n", line + 1);
      failed = true;
    } else if (ndevices < MAX_DEVICES) {
      char *tab = strchr(line, '\t');
      if (tab)
        *tab = '\0';
      printf("device %s: %s\n", line, tab ? tab + 1 : "(unnamed)");
      specs[ndevices++] = strdup(line);
    }
  }
  free(line);
  if (in)
    fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "device discovery for backend %s failed (child status %d)\n", name, status);
    exit(99);
  }
  if (ndevices == 0) {
    printf("SKIP: no %s device: %s\n", name, reason[0] ? reason : "(no reason given)");
    fflush(stdout);
    exit(77);
  }
  fflush(stdout);
}

static void usage(const char *prog) {
  fprintf(stderr, "usage: %s --backend core|host|opencl|cuda\n", prog);
  exit(99);
}

int main(int argc, char **argv) {
  const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
      backend = argv[++i];
    else if (strncmp(argv[i], "--backend=", 10) == 0)
      backend = argv[i] + 10;
    else
      usage(prog);
  }
  static const char *known[] = {"core", "host", "opencl", "cuda"};
  bool ok = false;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    ok |= strcmp(backend, known[i]) == 0;
  if (!ok)
    usage(prog);
  if (!test_backend_is("core"))
    discover(backend);

  Suite *s = suite_create(prog);
  suite_build(s, backend);
  if (ntests == 0) {
    printf("SKIP: %s has no tests for --backend %s\n", prog, backend);
    return 77;
  }
  SRunner *sr = srunner_create(s);
  /* Every test must start in a process where the library is untouched (see runner.h). */
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  for (int i = 0; i < ndevices; i++)
    free(specs[i]);
  /* A comparison left out for a missing reference (python.h) makes a passing run a skip, or a
     failure when references are required. */
  return failed == 0 ? test_references_status() : 1;
}

void test_require_devices(const char *spec, int want) {
  fflush(stdout);
  fflush(stderr);
  int n = 0, status = 0;
  pid_t pid = fork();
  if (pid == 0) {
    ag_device_set *set = NULL;
    if (ag_device_set_select(spec, &set) == AG_OK)
      ag_device_set_count(set, &n);
    ag_device_set_free(set);
    exit(n);
  }
  if (pid > 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    n = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  }
  if (n < want) {
    printf("SKIP: %d devices of \"%s\" are needed, %d found (POCL_DEVICES=\"pthread pthread\" gives pocl two)\n",
           want, spec, n);
    exit(77);
  }
}

void test_list_devices(test_device_list *l) {
  CHECK_OK(ag_device_count(&l->n));
  ck_assert_int_ge(l->n, 1);
  ck_assert_int_le(l->n, 64);
  for (int i = 0; i < l->n; i++) {
    CHECK_OK(ag_device_get(i, &l->dev[i]));
    ck_assert_ptr_nonnull(l->dev[i]);
    CHECK_OK(ag_device_get_info(l->dev[i], &l->info[i]));
  }
}

const char *test_spec_of(const test_device_list *l, const ag_device *d) {
  for (int i = 0; i < l->n; i++)
    if (l->dev[i] == d)
      return l->info[i].spec;
  return "(none)";
}
