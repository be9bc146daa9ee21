/* tests/python.h - what the suites that compare with Python libraries share (test_geometry and
   test_azint: pyFAI 0.21.3; test_template: scikit-image): a folder per test process for the
   files exchanged with a helper script, and python3 (the first on PATH) run with its output
   captured. */
#ifndef AG_TESTS_PYTHON_H
#define AG_TESTS_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

#include "runner.h"

/* This process's folder anygpu-TAG-XXXXXX, in $ANYGPU_TEST_TMPDIR (meson points it into the
   build tree), else $TMPDIR, else /tmp: made at the first call, removed at a normal exit of the
   process that made it (a failed test leaves it for a look). */
const char *test_tmp_dir(const char *tag);

/* Writes @p text to a new file @p name in test_tmp_dir(@p tag); its path goes to @p path. */
const char *test_write_text(const char *tag, const char *name, const char *text, char *path, size_t size);

/* Runs @p args (args[0] is "python3", found on PATH) with stdout and stderr into @p out (the
   last @p size - 1 bytes kept). Returns its exit status; 127 when it could not start; 256 +
   the signal when one ended it. */
int test_run_python(char *const args[], char *out, size_t size);

/* Whether python3 on PATH imports @p module and its @p version_expr starts with @p want
   (pyFAI, "pyFAI.version", "0.21."); if not, why, naming the Debian @p package to install. */
bool test_python_module(const char *module, const char *version_expr, const char *want, const char *package,
                        char *why, size_t size);

/* Whether python3 on PATH imports pyFAI 0.21 (test_python_module); if not, why, into @p why. */
bool test_pyfai_available(char *why, size_t size);

/* Without the Python @p peer (pyFAI, PyTorch): runs the suite @p own of the tcases that do not
   need it (Check, forking), exits 1 if any failed, else prints "SKIP: ..." with @p why and
   exits 77 (meson's skip), so that a comparison that did not run is never reported as passed. */
void test_run_without(Suite *own, const char *peer, const char *why);

#endif
