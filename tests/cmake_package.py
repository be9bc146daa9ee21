#!/usr/bin/env python3
"""The CMake package, used as a CMake project uses it: the build tree is installed into a
temporary DESTDIR, tests/cmake/ is configured against it with find_package(anygpu 0.1), built,
and run; then asking for anygpu 99 must fail to configure.

usage: cmake_package.py [--skip REASON] BUILD_DIR SOURCE_DIR PREFIX LIBDIR VERSION MESON CC [SANITIZE]

  BUILD_DIR, SOURCE_DIR  the build tree to install and the source tree holding tests/cmake
  PREFIX, LIBDIR         the prefix and the absolute libdir the tree installs to
  VERSION                the version the program must print (the project's)
  MESON                  the meson that installs the tree
  CC                     the C compiler the library was built with, for the CMake project
  SANITIZE               b_sanitize when it is not "none": the program is built with
                         -fsanitize=SANITIZE as well (see sanitize_flags)
  --skip REASON          reports the test skipped (exit 77) with REASON

Exit status: 0 when every check holds, 77 when skipped (no cmake), 1 otherwise.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def must(cmd, what, **kwargs):
    r = run(cmd, **kwargs)
    check(r.returncode == 0, f"{what} exited {r.returncode}: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


def sanitize_flags(sanitize):
    """A library built with AddressSanitizer needs its runtime loaded first: a program without
    it stops at start ("ASan runtime does not come first in initial library list"). A user of a
    sanitized library builds with the same -fsanitize, so the CMake project is given it too (for
    the compiler and for the link, which must bring the runtime in). The value comes from the
    build's own b_sanitize, not from looking at the library's dependencies."""
    if not sanitize:
        return []
    flag = "-fsanitize=" + sanitize
    return [f"-DCMAKE_C_FLAGS={flag}", f"-DCMAKE_EXE_LINKER_FLAGS={flag}"]


def stage(meson, build_dir, destdir):
    """Installs the build tree under destdir.

    --no-rebuild: meson install would otherwise run ninja over the whole tree from inside this
    test, while meson test runs other tests' programs that ninja might relink. meson test has
    already built what this test depends on (the library); the rest of what is installed (the
    tools, the modules) must have been built before (meson compile, as quickstart.sh does), and
    whatever is not there is named here rather than in the middle of an install. meson install
    rewrites meson-logs/install-log.txt, which ninja uninstall
    reads to undo a real install, so the log is put back as it was."""
    installed = must([meson, "introspect", "--installed", build_dir], "meson introspect")
    # Built files are named by their path; the symbolic links to make (libanygpu.so) by name.
    missing = [src for src in json.loads(installed.stdout) if os.path.isabs(src) and not os.path.exists(src)]
    check(not missing, "not built yet (build the tree with meson compile first): " + ", ".join(missing))
    log = os.path.join(build_dir, "meson-logs", "install-log.txt")
    saved = None
    if os.path.exists(log):
        with open(log, "rb") as f:
            saved = f.read()
    try:
        must([meson, "install", "-C", build_dir, "--destdir", destdir, "--no-rebuild", "--quiet"],
             "meson install")
    finally:
        if saved is None:
            if os.path.exists(log):
                os.remove(log)
        else:
            with open(log, "wb") as f:
                f.write(saved)


def main(argv):
    if len(argv) >= 3 and argv[1] == "--skip":
        print("skipped: " + argv[2])
        return 77
    if len(argv) not in (8, 9):
        sys.stderr.write(__doc__)
        return 2
    build_dir, source_dir, prefix, libdir, version, meson, cc = argv[1:8]
    sanitize = argv[8] if len(argv) == 9 else ""
    cmake = shutil.which("cmake")
    if cmake is None:
        print("skipped: cmake is not installed (Debian's cmake package)")
        return 77

    with tempfile.TemporaryDirectory(prefix="anygpu-cmake-") as tmp:
        destdir = os.path.join(tmp, "stage")
        stage(meson, build_dir, destdir)
        # DESTDIR puts an absolute path beneath itself whole.
        staged_prefix = destdir + prefix
        staged_libdir = destdir + libdir
        config_dir = os.path.join(staged_libdir, "cmake", "anygpu")
        for name in ("anygpuConfig.cmake", "anygpuConfigVersion.cmake"):
            check(os.path.isfile(os.path.join(config_dir, name)), f"{name} is not installed in {config_dir}")

        project = os.path.join(source_dir, "tests", "cmake")
        build = os.path.join(tmp, "b")
        configure = [cmake, "-S", project, "-B", build, f"-DCMAKE_PREFIX_PATH={staged_prefix}",
                     f"-DCMAKE_C_COMPILER={cc}"] + sanitize_flags(sanitize)
        r = must(configure, "cmake (configure)")
        found = f"-- anygpu {version} from {config_dir}\n"
        check(found in r.stdout, f"expected {found!r} in cmake's output:\n{r.stdout}")
        must([cmake, "--build", build], "cmake --build")

        # The program finds the staged library through the run path CMake gives it in its build
        # tree, and LD_LIBRARY_PATH says the same for a CMake that gives none. The library
        # finds its modules next to itself (<libdir>/anygpu), so the build tree's
        # ANYGPU_BACKEND_PATH, which meson test sets, is taken away; ANYGPU_DEVICE=host keeps
        # the GPU modules unloaded, since only the link is under test here.
        env = dict(os.environ)
        env.pop("ANYGPU_BACKEND_PATH", None)
        env["ANYGPU_DEVICE"] = "host"
        env["LD_LIBRARY_PATH"] = staged_libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        r = run([os.path.join(build, "anygpu_user")], env=env)
        check(r.returncode == 0, f"the program exited {r.returncode}:\n{r.stdout}{r.stderr}")
        want = f"anygpu {version} (headers {version})\nhost\n"
        check(r.stdout == want, f"the program printed {r.stdout!r}, expected {want!r}")

        # The same tree asked for a version the package is not: SameMinorVersion refuses it,
        # naming the staged config and its version.
        r = run([cmake, "-S", project, "-B", build, "-DANYGPU_REQUIRE=99"])
        check(r.returncode != 0, f"find_package(anygpu 99) configured:\n{r.stdout}{r.stderr}")
        # CMake wraps its message; its lines are joined before they are searched.
        said = " ".join(r.stderr.split())
        refusal = 'compatible with requested version "99"'
        considered = os.path.join(config_dir, "anygpuConfig.cmake") + f", version: {version}"
        check(refusal in said and considered in said,
              f"expected {refusal!r} and {considered!r} in cmake's error:\n{r.stderr}")
    print(f"anygpu {version}: found, built and run from {config_dir}; anygpu 99 refused")
    return 0


def exit_with(main):
    """Runs main(sys.argv) and exits with its status; a failed check prints FAIL and exits 1."""
    try:
        sys.exit(main(sys.argv))
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    exit_with(main)
