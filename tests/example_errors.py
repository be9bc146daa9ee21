#!/usr/bin/env python3
"""tests/example_errors.py - the examples' failure messages: each example, asked for a device
that is not there (ANYGPU_DEVICE=cuda:99), exits 1 with ag_last_error() behind its own name,
naming ag_device_select once (the library's message names the function already, so a program
that adds the name itself says it twice). mpi_integrate runs under mpirun with one rank.

usage: example_errors.py EXAMPLE... [--mpi MPI_EXAMPLE]
Exit status 0 when every check holds, 1 otherwise; 77 (skipped) only for the MPI example where
mpirun is not on PATH, when the others passed.
"""
import os
import re
import shutil
import subprocess
import sys

SPEC = "cuda:99"


def check_one(name, args):
    env = dict(os.environ, ANYGPU_DEVICE=SPEC)
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    # mpirun adds its own report of the abort after the program's line.
    line = next((l for l in r.stderr.splitlines() if l.startswith(name + ":")), None)
    problems = []
    if r.returncode == 0:
        problems.append("exit status 0")
    if line is None:
        problems.append("no line starting with %r" % (name + ":"))
    else:
        if line.count("ag_device_select") != 1:
            problems.append("ag_device_select named %d times" % line.count("ag_device_select"))
        if not re.search(r'ag_device_select: no device matches "%s"' % re.escape(SPEC), line):
            problems.append("not the library's no-device message")
    if problems:
        print("FAIL: %s: %s\n  %s\n  stderr: %r" % (name, "; ".join(problems), " ".join(args), r.stderr))
        return False
    print("ok: %s: %s" % (name, line[:160]))
    return True


def main(argv):
    args = argv[1:]
    mpi = None
    if "--mpi" in args:
        k = args.index("--mpi")
        mpi = args[k + 1]
        del args[k:k + 2]
    if not args:
        sys.stderr.write(__doc__)
        return 2
    ok = all([check_one(os.path.basename(exe), [exe]) for exe in args])
    if mpi is None:
        return 0 if ok else 1
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        if not ok:
            return 1
        print("SKIP: mpi_integrate's message not checked: mpirun is not on PATH (Debian: openmpi-bin)")
        return 77
    command = [mpirun, "-np", "1", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    ok = check_one(os.path.basename(mpi), command + [mpi]) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
