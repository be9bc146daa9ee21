"""Runs one file of the anygpu package's pytest tests for `meson test`, with the build's Python:
exit 77 (skipped, with the reason) where pytest or numpy is missing or the build is instrumented
with AddressSanitizer, else pytest's own status. Under -Dreferences=required
(ANYGPU_TEST_REFERENCES=required) a missing reference the Python tests compare with fails the
run instead, so that no comparison stops running unnoticed."""

import importlib
import os
import sys

# What the Python tests import to compare with, and the Debian package that brings each.
REFERENCES = {"pytest": "python3-pytest", "numpy": "python3-numpy", "pyFAI": "python3-pyfai",
              "torch": "python3-torch", "skimage": "python3-skimage"}
REQUIRED = os.environ.get("ANYGPU_TEST_REFERENCES") == "required"


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(77)


if os.environ.get("ANYGPU_TEST_SANITIZED", "none") != "none":
    # libasan must be the first library of the process, and python3 is not built with it.
    skip("the Python tests do not run against a library built with -Db_sanitize: "
         "python3 itself is not instrumented")
missing = []
for module, package in REFERENCES.items():
    if REQUIRED or module in ("pytest", "numpy"):
        try:
            importlib.import_module(module)
        except ImportError as e:
            missing.append("%s cannot import %s (%s; Debian: %s)" % (sys.executable, module, e, package))
if missing and REQUIRED:
    print("FAIL: references are required (-Dreferences=required):\n  " + "\n  ".join(missing))
    sys.exit(1)
if missing:
    skip("; ".join(missing))
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider"] + sys.argv[1:]))
