#!/usr/bin/env python3
"""anygpu-info's device loads and --selected, run as a user runs them.

usage: info_selected.py ANYGPU_INFO

--selected prints the spec and name of the device ANYGPU_DEVICE selects and exits 0, or says
why none on stderr and exits 1; --json gives each device's load, weighted 0.5 and 0.5.
"""
import json
import os
import subprocess
import sys


def run(info, args, **env):
    e = dict(os.environ)
    for k in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"):
        e.pop(k, None)
    e.update(env)
    return subprocess.run([info] + args, capture_output=True, text=True, env=e)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    info = argv[1]
    full = run(info, ["--json"])
    check(full.returncode == 0, f"anygpu-info --json exited {full.returncode}: {full.stderr}")
    devices = json.loads(full.stdout)["devices"]
    for d in devices:
        load = d["load"]
        check(load is not None, f"{d['spec']}: no load")
        check(0 <= load["memory_used"] <= load["memory_total"], f"{d['spec']}: {load}")
        check(abs(load["memory"] - load["memory_used"] / load["memory_total"]) < 1e-5, f"{d['spec']}: {load}")
        check(abs(load["weighted"] - 0.5 * load["memory"]) < 1e-5, f"{d['spec']}: {load}")
        check(load["processor"] is None, f"{d['spec']}: a processor load no backend measures: {load}")
    check(devices[0]["load"]["memory_from_driver"], "the host's memory should come from /proc/meminfo")
    cpus = [d["spec"] for d in devices if d["type"] == "CPU"]

    r = run(info, ["--selected"], ANYGPU_DEVICE="host")
    check(r.returncode == 0 and r.stdout.split("\t")[0] == "host", f"host: {r.returncode} {r.stdout!r} {r.stderr!r}")
    for rank in range(4):
        r = run(info, ["--selected"], ANYGPU_DEVICE="cpu:local-rank", OMPI_COMM_WORLD_LOCAL_RANK=str(rank))
        want = cpus[rank % len(cpus)]
        check(r.returncode == 0 and r.stdout.split("\t")[0] == want,
              f"cpu:local-rank at rank {rank}: {r.returncode} {r.stdout!r}, expected {want}")
    r = run(info, ["--selected", "--json"], ANYGPU_DEVICE="*")
    check(r.returncode == 0 and json.loads(r.stdout)["selected"] == "host", f"*: {r.stdout!r}")

    for spec, needle in (("bogus", "malformed"), ("local-rank", "LOCAL_RANK"), ("opencl:nosuchvendor", "devices present")):
        r = run(info, ["--selected"], ANYGPU_DEVICE=spec)
        check(r.returncode == 1 and r.stdout == "" and needle in r.stderr and "ANYGPU_DEVICE" in r.stderr,
              f"{spec}: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
    r = run(info, ["--selected", "--json"], ANYGPU_DEVICE="bogus")
    check(r.returncode == 1 and json.loads(r.stdout)["selected"] is None, f"bogus --json: {r.stdout!r}")
    print(f"anygpu-info: loads of {len(devices)} devices, --selected for host, cpu:local-rank over "
          f"{len(cpus)} CPUs, *, and three refusals")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
