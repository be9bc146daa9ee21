/* tests/python.c - what the suites that compare with Python libraries share (python.h): a
   folder per test for files, and python3 run with its output captured. */
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

/* Runs @p args (args[0] is "python3", found on PATH) with stdout and stderr into @p out (the
   last @p size - 1 bytes kept). Returns its exit status; 127 when it could not start; 256 +
   the signal when one ended it. */
int test_run_python(char *const args[], char *out, size_t size) {
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
  int rc = posix_spawnp(&pid, args[0], &fa, NULL, args, environ);
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
    snprintf(out, size, "%s: %s", args[0], strerror(rc));
    return 127;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
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
    snprintf(why, size, "python3 on PATH does not import %s (status %d: %s); install %s", module, rc, last, package);
    return false;
  }
  if (strncmp(out, want, strlen(want)) != 0) {
    snprintf(why, size, "python3 on PATH has %s %.40s, not %s", module, out, want);
    return false;
  }
  return true;
}

bool test_pyfai_available(char *why, size_t size) {
  return test_python_module("pyFAI", "pyFAI.version", "0.21.", "python3-pyfai", why, size);
}

void test_run_without(Suite *own, const char *peer, const char *why) {
  SRunner *sr = srunner_create(own);
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (failed != 0)
    exit(1);
  printf("SKIP: the comparisons with %s did not run: %s\n", peer, why);
  fflush(stdout);
  exit(77);
}
