/* tests/python.h — running a helper script with the python3 found on PATH, and a folder for the
   files it exchanges, for the suites that compare with Python libraries (test_geometry: pyFAI;
   test_template: scikit-image). */
#ifndef AG_TESTS_PYTHON_H
#define AG_TESTS_PYTHON_H

#include <stdbool.h>
#include <stddef.h>

/* Runs @p args (args[0] is "python3", found on PATH) with stdout and stderr into @p out (the
   last @p size - 1 bytes kept). Returns its exit status; 127 when it could not start; 256 +
   the signal when one ended it. */
int test_run_python(char *const args[], char *out, size_t size);

/* Whether python3 on PATH imports @p module and its @p version_expr starts with @p want
   (pyFAI, "pyFAI.version", "0.21."); if not, why, naming the Debian @p package to install. */
bool test_python_module(const char *module, const char *version_expr, const char *want, const char *package,
                        char *why, size_t size);

/* This test process's folder for files it exchanges with scripts, made at the first call in
   $ANYGPU_TEST_TMPDIR (meson points it into the build tree), else $TMPDIR, else /tmp, named
   after @p suite; removed at a normal exit of the process that made it (a failed test leaves
   it for a look). */
const char *test_tmp_dir(const char *suite);

#endif
