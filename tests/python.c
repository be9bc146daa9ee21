/* tests/python.c - what the suites that compare with Python libraries share (python.h): a
   folder per test for files, the build's Python run with its output captured, and the record of
   the reference packages it lacks. */
#include <errno.h>
#include <ftw.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "python.h"

extern char **environ;

/* ---- files --------------------------------------------------------------------------------- */

static char root[512];
static pid_t root_owner;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

/* Only the process that made the folder removes it, at a normal exit: a failed test leaves it
   (Check's assertions end the test process another way) for a look. */
static void remove_root(void) {
  if (root[0] != '\0' && getpid() == root_owner)
    nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* This test's folder, named after @p tag, in $ANYGPU_TEST_TMPDIR (meson points it into the
   build tree), else $TMPDIR, else /tmp. */
const char *test_tmp_dir(const char *tag) {
  if (root[0] != '\0' && root_owner == getpid())
    return root;
  const char *tmp = getenv("ANYGPU_TEST_TMPDIR");
  if (tmp != NULL && *tmp != '\0')
    mkdir(tmp, 0755);
  else
    tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/anygpu-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
  ck_assert_msg(mkdtemp(root) != NULL, "mkdtemp(%s): %s", root, strerror(errno));
  root_owner = getpid();
  atexit(remove_root);
  return root;
}

/* Writes @p text to a new file @p name in this test's folder; its path goes to @p path. */
const char *test_write_text(const char *tag, const char *name, const char *text, char *path, size_t size) {
  snprintf(path, size, "%s/%s", test_tmp_dir(tag), name);
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "fopen(%s): %s", path, strerror(errno));
  ck_assert_int_eq(fputs(text, f) >= 0, 1);
  ck_assert_int_eq(fclose(f), 0);
  return path;
}

/* AG_TEST_PYTHON: the interpreter meson chose (meson.build: ref_python), the one with the
   reference packages, whatever python3 PATH holds. */
#ifndef AG_TEST_PYTHON
#error "AG_TEST_PYTHON names the build's Python (tests/meson.build)"
#endif

int test_run(char *const argv[], char *out, size_t size) {
  int fds[2];
  if (pipe(fds) != 0)
    return 127;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  fflush(stdout);
  fflush(stderr);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  size_t used = 0;
  char chunk[4096];
  ssize_t n;
  while ((n = read(fds[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)) {
    for (ssize_t k = 0; k < n; k++) {
      if (used + 1 >= size) { /* keep the end, where a traceback says what went wrong */
        memmove(out, out + size / 2, used - size / 2);
        used -= size / 2;
      }
      out[used++] = chunk[k];
    }
  }
  out[used] = '\0';
  close(fds[0]);
  if (rc != 0) {
    snprintf(out, size, "%s: %s", argv[0], strerror(rc));
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int test_run_python(char *const args[], char *out, size_t size) {
  /* Called outside tests too (test_python_module, from suite_build), so no ck_assert here. */
  enum { MAX_ARGS = 64 };
  char *argv[MAX_ARGS + 1];
  size_t n = 1;
  argv[0] = (char *)AG_TEST_PYTHON;
  for (; args[n] != NULL && n < MAX_ARGS; n++)
    argv[n] = args[n];
  argv[n] = NULL;
  if (strcmp(args[0], "python3") != 0 || args[n] != NULL) {
    snprintf(out, size, "test_run_python: args[0] must be \"python3\" (it is \"%s\"), and at most %d arguments follow",
             args[0], MAX_ARGS - 1);
    return 127;
  }
  return test_run(argv, out, size);
}

/* ---- missing references -------------------------------------------------------------------- */

/* What test_python_module found missing in this process, one line each. */
static char missing[4096];

static void note_missing(const char *why) {
  size_t used = strlen(missing);
  if (used + 1 < sizeof missing)
    snprintf(missing + used, sizeof missing - used, "%s  %s", used ? "\n" : "", why);
}

bool test_references_required(void) {
  const char *how = getenv("ANYGPU_TEST_REFERENCES");
  return how != NULL && strcmp(how, "required") == 0;
}

int test_references_status(void) {
  if (missing[0] == '\0')
    return 0;
  if (test_references_required()) {
    printf("FAIL: references are required (-Dreferences=required), and comparisons did not run:\n%s\n", missing);
    fflush(stdout);
    return 1;
  }
  printf("SKIP: comparisons did not run:\n%s\n", missing);
  fflush(stdout);
  return 77;
}

bool test_python_module(const char *module, const char *version_expr, const char *want, const char *package,
                        char *why, size_t size) {
  char code[256], out[2048];
  snprintf(code, sizeof code, "import sys, %s; sys.stdout.write(%s)", module, version_expr);
  char *const args[] = {"python3", "-c", code, NULL};
  int rc = test_run_python(args, out, sizeof out);
  if (rc != 0) {
    char *last = out + strlen(out);
    while (last > out && (last[-1] == '\n' || last[-1] == ' '))
      *--last = '\0';
    while (last > out && last[-1] != '\n')
      last--;
    snprintf(why, size, "%s does not import %s (status %d: %s); install %s, or configure with -Dpython= an "
             "interpreter that has it", AG_TEST_PYTHON, module, rc, last, package);
  } else if (strncmp(out, want, strlen(want)) != 0) {
    snprintf(why, size, "%s has %s %.40s, not %s", AG_TEST_PYTHON, module, out, want);
  } else {
    return true;
  }
  note_missing(why);
  return false;
}

bool test_pyfai_available(char *why, size_t size) {
  return test_python_module("pyFAI", "pyFAI.version", "0.21.", "python3-pyfai", why, size);
}

void test_run_without(Suite *own, const char *peer, const char *why) {
  printf("left out: the comparisons with %s: %s\n", peer, why);
  SRunner *sr = srunner_create(own);
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  exit(failed != 0 ? 1 : test_references_status());
}
