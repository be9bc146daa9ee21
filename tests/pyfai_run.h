/* tests/pyfai_run.h - what the suites that compare with pyFAI 0.21.3 share (test_geometry,
   test_azint): a folder per test process for the files exchanged with it, and python3 (the
   first on PATH) run with its output captured. */
#ifndef AG_TESTS_PYFAI_RUN_H
#define AG_TESTS_PYFAI_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

/* This process's folder anygpu-TAG-XXXXXX, in $ANYGPU_TEST_TMPDIR (meson points it into the
   build tree), else $TMPDIR, else /tmp: made at the first call, removed at a normal exit of the
   process that made it (a failed test leaves it for a look). */
const char *test_tmp_root(const char *tag);

/* Writes @p text to a new file @p name in test_tmp_root(@p tag); its path goes to @p path. */
const char *test_write_text(const char *tag, const char *name, const char *text, char *path, size_t size);

/* Runs @p args (args[0] is "python3", found on PATH) with stdout and stderr into @p out (the
   last @p size - 1 bytes kept). Returns its exit status; 127 when it could not start; 256 +
   the signal when one ended it. */
int test_run_python(char *const args[], char *out, size_t size);

/* Whether python3 on PATH imports pyFAI 0.21; if not, why, into @p why. */
bool test_pyfai_available(char *why, size_t size);

/* Without pyFAI: runs the suite @p own of the tcases that do not need it (Check, forking),
   exits 1 if any failed, else prints "SKIP: ..." with @p why and exits 77 (meson's skip), so
   that a comparison that did not run is never reported as passed. */
void test_run_without_pyfai(Suite *own, const char *why);

#endif
