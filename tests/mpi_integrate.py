#!/usr/bin/env python3
"""examples/mpi_integrate run under mpirun with 1 and with 2 ranks.

usage: mpi_integrate.py EXAMPLE ANYGPU_INFO TMPDIR [--distinct] [--libanygpu LIB]

Both runs must exit 0, end with the same `checksum` line and write byte-identical files. The
device is whatever ANYGPU_DEVICE names in the test's environment (empty: the example's own
local-rank). --distinct asserts that the two ranks used two different devices, and skips
(exit 77) where ANYGPU_DEVICE does not give local ranks 0 and 1 different devices here, as
anygpu-info --selected says. --libanygpu asserts that the library does not link MPI. Without
mpirun the test is skipped.
"""
import os
import re
import shutil
import subprocess
import sys

# The launchers' local rank variables that come before Open MPI's (docs/multi-device.md): one
# left by an outer launcher (a CI job under Slurm or torchrun) would give every rank its value.
OUTER_RANK_VARIABLES = ("LOCAL_RANK", "SLURM_LOCALID")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in OUTER_RANK_VARIABLES}
    # Open MPI's shared-memory transport copies large messages (the gather) straight from the
    # other process's memory, which a container without ptrace rights refuses; the copy
    # through shared memory works everywhere.
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    # In a sanitizer build, Open MPI's leaks are suppressed by its libraries' names (lsan.supp),
    # which only a full unwind reaches past the components it has unloaded by then.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "fast_unwind_on_malloc=0"]))
    env.update(extra)
    return env


def selected(info, local_rank):
    """The spec of the device anygpu-info --selected gives local rank @p local_rank, or None."""
    r = subprocess.run([info, "--selected"], capture_output=True, text=True, timeout=120,
                       env=environment(OMPI_COMM_WORLD_LOCAL_RANK=str(local_rank)))
    return r.stdout.split("\t")[0] if r.returncode == 0 else None


def run(mpirun, example, ranks, out):
    """Runs the example on @p ranks ranks writing @p out; returns its devices and checksum line."""
    args = [mpirun, "-np", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        args.append("--allow-run-as-root")
    args += [example, "--out", out]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, env=environment())
    where = f"{' '.join(args)}: exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    check(r.returncode == 0, where)
    lines = r.stdout.splitlines()
    check(lines and re.fullmatch(r"checksum [0-9a-f]{16}", lines[-1]), f"no checksum last: {where}")
    check(len(lines) >= 2 and re.fullmatch(rf"ranks {ranks} frames \d+ det \d+ integrate_s \S+ frames_per_s \S+",
                                            lines[-2]), f"no timing line: {where}")
    devices = {}
    for line in lines:
        m = re.match(r"rank (\d+) device (\S+) ", line)
        if m:
            devices[int(m.group(1))] = m.group(2)
    check(sorted(devices) == list(range(ranks)), f"device lines for ranks {sorted(devices)}: {where}")
    print("\n".join(lines))
    return devices, lines[-1]


def needed(path):
    """The shared libraries an ELF file needs (its DT_NEEDED entries), read by readelf."""
    r = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True)
    return re.findall(r"\(NEEDED\).*\[(.+)\]", r.stdout)


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    example, info, tmp = argv[1:4]
    distinct = "--distinct" in argv[4:]
    lib = argv[argv.index("--libanygpu") + 1] if "--libanygpu" in argv[4:] else None

    if lib is not None:
        check(shutil.which("readelf"), "readelf (binutils) not found")
        mine, theirs = needed(lib), needed(example)
        check(not any("mpi" in n for n in mine), f"{lib} links MPI: {mine}")
        check(any(n.startswith("libmpi") for n in theirs), f"{example} does not link libmpi: {theirs}")
        print(f"{os.path.basename(lib)} needs {' '.join(mine)}: no MPI")

    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("skipped: mpirun is not on PATH (Debian: openmpi-bin)")
        return 77
    spec = os.environ.get("ANYGPU_DEVICE") or "local-rank"
    if distinct:
        ours = [selected(info, r) for r in (0, 1)]
        if None in ours or ours[0] == ours[1]:
            print(f"skipped: ANYGPU_DEVICE={spec} does not give local ranks 0 and 1 two devices here "
                  f"(anygpu-info --selected: {ours[0]}, {ours[1]})")
            return 77

    os.makedirs(tmp, exist_ok=True)
    outs = [os.path.join(tmp, f"np{ranks}.f32") for ranks in (1, 2)]
    one, two = [run(mpirun, example, ranks, out) for ranks, out in zip((1, 2), outs)]
    check(one[1] == two[1], f"1 rank: {one[1]}, 2 ranks: {two[1]}")
    with open(outs[0], "rb") as a, open(outs[1], "rb") as b:
        check(a.read() == b.read(), f"{outs[0]} and {outs[1]} differ")
    if distinct:
        check(two[0][0] != two[0][1], f"ranks 0 and 1 both used {two[0][0]}")
    print(f"ANYGPU_DEVICE={spec}: 1 and 2 ranks agree ({one[1]}), ranks on {', '.join(two[0].values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
