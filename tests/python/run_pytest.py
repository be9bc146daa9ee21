"""Runs one file of the anygpu package's pytest tests for `meson test`: exit 77 (skipped, with
the reason) where pytest or numpy is missing or the build is instrumented with
AddressSanitizer, else pytest's own status."""

import os
import sys


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(77)


if os.environ.get("ANYGPU_TEST_SANITIZED") == "1":
    # libasan must be the first library of the process, and python3 is not built with it.
    skip("the Python tests do not run against a library built with -Db_sanitize: "
         "python3 itself is not instrumented")
for module in ("pytest", "numpy"):
    try:
        __import__(module)
    except ImportError:
        skip("%s cannot import %s (Debian: python3-%s)" % (sys.executable, module, module))
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider"] + sys.argv[1:]))
