#!/usr/bin/env python3
"""The Python package as `meson install` puts it: the build tree is staged into a temporary
DESTDIR (as cmake_package.py stages it), the package must be in Python's site-packages under
the prefix with every module and a _config.py naming the installed library, and python3 must
import it from there and move an array through the staged library.

usage: python_installed.py [--skip REASON] BUILD_DIR PURELIB LIBRARY MESON

  PURELIB   the folder the build installs the package into (py.get_install_dir())
  LIBRARY   the library's installed path, which _config.LIBRARY must name
  MESON     the meson that installs the tree

Exit status: 0 when every check holds, 77 when skipped, 1 otherwise.
"""
import os
import subprocess
import sys
import tempfile

from cmake_package import check, exit_with, stage

MODULES = ["__init__.py", "_lib.py", "_core.py", "_queue.py", "_ops.py", "_dlpack.py", "_sci.py", "fft.py",
           "azint.py", "template.py", "sporco.py", "learn.py", "_config.py"]

PROGRAM = """
import sys, numpy, anygpu
import anygpu._config as config
print(anygpu.__file__)
print(config.LIBRARY)
a = anygpu.asarray(numpy.arange(5, dtype="float32"), device="host")
print(numpy.asarray(a).tolist(), a.device.spec)
"""


def main(argv):
    if len(argv) >= 3 and argv[1] == "--skip":
        print("skipped: " + argv[2])
        return 77
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    build_dir, purelib, library, meson = argv[1:5]
    with tempfile.TemporaryDirectory(prefix="anygpu-python-") as tmp:
        destdir = os.path.join(tmp, "stage")
        stage(meson, build_dir, destdir)
        package = destdir + os.path.join(purelib, "anygpu")
        for name in MODULES:
            check(os.path.isfile(os.path.join(package, name)), f"{name} is not installed in {package}")
        check(os.path.exists(destdir + library), f"the library is not installed as {library}")

        # The staged library is not where _config says (that is the prefix, not DESTDIR), so
        # ANYGPU_LIBRARY names it; the modules are found next to it, not in the build tree.
        env = dict(os.environ)
        env.pop("ANYGPU_BACKEND_PATH", None)
        env["PYTHONPATH"] = destdir + purelib
        env["ANYGPU_LIBRARY"] = destdir + library
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        r = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, cwd=tmp)
        check(r.returncode == 0, f"python3 exited {r.returncode}:\n{r.stdout}{r.stderr}")
        want = f"{package}/__init__.py\n{library}\n[0.0, 1.0, 2.0, 3.0, 4.0] host\n"
        check(r.stdout == want, f"python3 printed {r.stdout!r}, expected {want!r}")
    print(f"anygpu imported from {package}; _config.LIBRARY is {library}")
    return 0


if __name__ == "__main__":
    exit_with(main)
