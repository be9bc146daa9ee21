/* tests/python.h - what the suites that compare with Python libraries share (test_geometry and
   test_azint: pyFAI 0.21.3; test_template: scikit-image; the solvers' and learning suites): a
   folder per test process for the files exchanged with a helper script, the build's Python run
   with its output captured, and what a suite does when that Python lacks a reference. */
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

/* Runs @p argv (argv[0] a path, or a name found on PATH) with stdout and stderr into @p out
   (the last @p size - 1 bytes kept). Returns its exit status; 127 when it could not start;
   256 + the signal when one ended it. */
int test_run(char *const argv[], char *out, size_t size);

/* Runs @p args as test_run() does, args[0] being "python3", which stands for the build's Python
   (AG_TEST_PYTHON: -Dpython, else the first of /usr/bin/python3 and python3 on PATH that
   imports numpy; meson's summary names it), not the first python3 on PATH. */
int test_run_python(char *const args[], char *out, size_t size);

/* Whether the build's Python imports @p module and its @p version_expr starts with @p want
   (pyFAI, "pyFAI.version", "0.21."); if not, why, naming the Debian @p package to install, and
   the reference is noted missing: the suite then ends as test_references_status() says, after
   its other tcases ran. Call it from suite_build (the process that runs the suite), not from a
   tcase. */
bool test_python_module(const char *module, const char *version_expr, const char *want, const char *package,
                        char *why, size_t size);

/* Whether the build's Python imports pyFAI 0.21 (test_python_module); if not, why, into @p why. */
bool test_pyfai_available(char *why, size_t size);

/* Whether a missing reference fails the suite: ANYGPU_TEST_REFERENCES=required, which meson's
   test environment sets under -Dreferences=required. */
bool test_references_required(void);

/* The exit status of a suite whose tcases passed: 0 when test_python_module found every
   reference it was asked for; else, having printed what did not run and why, 77 (meson's
   skip) or, when references are required, 1. The runner's main ends with it. */
int test_references_status(void);

/* Without the Python reference @p peer (pyFAI, PyTorch; test_python_module said @p why): runs
   the suite @p own of the tcases that do not need it (Check, forking), exits 1 if any failed,
   else with test_references_status(), so that a comparison that did not run is never reported
   as passed. */
void test_run_without(Suite *own, const char *peer, const char *why);

#endif
