#!/usr/bin/env python3
"""tests/docs_examples.py - every fenced code block of README.md and docs/*.md, run as it is
written, so that an example that stops working fails here.

  ```python  runs with the package from the source tree over the build's library, each block in
             a namespace of its own (one process for them all), with the host as the default
             device, and again with pocl's where the block names no device and pocl is there;
  ```c       a whole program (with main) is compiled against the build tree, as the README
             compiles one (`cc app.c $(pkg-config --cflags --libs anygpu)`, pkg-config reading
             meson's uninstalled anygpu.pc), and run; it must exit 0;
  ```sh      runs with `sh -e` from a copy of the source root whose `build` is this build, so
             `meson devenv -C build ...` means this build; it must exit 0;
  ```text    output, grammars and formulas: nothing to run.

A block that cannot run here says why, visibly, in an HTML comment just above its fence:
`<!-- not run: REASON -->` for a command or program that cannot run on this machine or takes
too long, `<!-- fragment: REASON -->` for lines of a larger program. Any other block (no
language, another language, a C block without main) fails the test unless marked; so does a
marker without a reason. A python block that needs a reference package the interpreter lacks
(torch, pyFAI, ...) is reported skipped (exit 77 when all else passed), or fails under
ANYGPU_TEST_REFERENCES=required.

usage: docs_examples.py SOURCE_DIR BUILD_DIR CC [--sanitize B_SANITIZE] [--list]
--list prints each block and what is done with it, and runs nothing. Exit status: 0 when every
block ran or was marked, 1 on a failure, 77 when skipped (a sanitizer build, whose library
python3 cannot load and whose programs need its runtime first).
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback

MARKER = re.compile(r"^<!--\s*(not run|fragment)\s*:?\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```\s*(\S*)\s*$")
RUNNABLE = ("python", "c", "sh")
# The reference packages a python block may import; one missing is a skip (or, required, a failure).
REFERENCES = {"numpy", "torch", "pyFAI", "skimage", "sklearn", "h5py"}
# A string literal that names a device (a spec, or device=...): such a block runs once, as written.
NAMES_DEVICE = re.compile(r"""["'](host|cpu|gpu|auto|cuda|opencl)(:[^"']*)?["']|device\s*=\s*["']""")
REQUIRED = os.environ.get("ANYGPU_TEST_REFERENCES") == "required"
BLOCK_TIMEOUT = 300  # seconds for one block: pocl's first compile of a kernel family is most of it


def run_group(args, timeout, **kw):
    """subprocess.run in a process group of its own, all of which a timeout ends: a command's
    children (a program under `meson devenv`) must not outlive it. Returns the CompletedProcess,
    or None after the timeout."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         **kw)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    return subprocess.CompletedProcess(args, p.returncode, out, err)


class Block:
    def __init__(self, path, line, lang, text, marker, reason):
        self.path, self.line, self.lang, self.text = path, line, lang, text
        self.marker, self.reason = marker, reason

    @property
    def where(self):
        return "%s:%d" % (self.path, self.line)


def blocks_of(source, rel):
    """The fenced blocks of @p rel (relative to @p source), each with the marker above it."""
    with open(os.path.join(source, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        marker = reason = None
        k = start - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        if k >= 0:
            mm = MARKER.match(lines[k].strip())
            if mm:
                marker, reason = mm.group(1), mm.group(2)
        out.append(Block(rel, start + 1, m.group(1), "\n".join(lines[start + 1:j]) + "\n", marker, reason))
        i = j + 1
    return out


def plan(block):
    """What is done with @p block: ("run", how), ("marked", why), ("text", None) or ("fail", why)."""
    if block.marker is not None:
        if len(block.reason) < 8:
            return "fail", "marked %r without a reason (<!-- %s: REASON -->)" % (block.marker, block.marker)
        return "marked", "%s: %s" % (block.marker, block.reason)
    if block.lang == "text":
        return "text", None
    if block.lang not in RUNNABLE:
        what = "no language" if block.lang == "" else "language %r" % block.lang
        return "fail", ("a block with %s is neither run nor marked: name its language (```text for output) "
                        "or say why it is not run (<!-- not run: ... --> or <!-- fragment: ... -->)" % what)
    if block.lang == "c" and not re.search(r"\bmain\s*\(", block.text):
        return "fail", "a C block without main() is not run: mark it <!-- fragment: ... --> or make it whole"
    return "run", block.lang


def check_rules():
    """The rules above on made-up blocks, so that a change to them that lets an unmarked or
    unexplained block through fails here, whatever the docs hold today."""
    cases = [("", None, None, "int main(void) { return 0; }", "fail"),
             ("cmake", None, None, "project(x)", "fail"),
             ("c", None, None, "ag_add(q, a, b, c);", "fail"),
             ("c", "fragment", "", "ag_add(q, a, b, c);", "fail"),
             ("sh", "not run", "x", "sudo true", "fail"),
             ("c", "fragment", "a, b and c come from the program around it", "ag_add(q, a, b, c);", "marked"),
             ("c", None, None, "int main(void) { return 0; }", "run"),
             ("python", None, None, "print(1)", "run"),
             ("text", None, None, "$ anygpu-info", "text")]
    for lang, marker, reason, text, want in cases:
        got = plan(Block("made-up.md", 1, lang, text, marker, reason))[0]
        if got != want:
            raise SystemExit("FAIL: the rules: a %r block marked %r (%r) is %s, not %s" %
                             (lang, marker, reason, got, want))
    for line, want in [("<!-- not run: needs a CUDA device -->", ("not run", "needs a CUDA device")),
                       ("<!-- fragment: lines of a main() -->", ("fragment", "lines of a main()")),
                       ("<!-- fragment -->", ("fragment", ""))]:
        m = MARKER.match(line)
        if m is None or m.groups() != want:
            raise SystemExit("FAIL: the rules: %r is read as %r, not %r" % (line, m and m.groups(), want))


# ---- python blocks, in one worker process --------------------------------------------------

def worker(path):
    """Runs the python blocks listed in @p path (JSON: [[where, device, code], ...]), printing a
    JSON line per block: its result, output and error."""
    import io
    import contextlib
    import anygpu
    with open(path, encoding="utf-8") as f:
        jobs = json.load(f)
    for where, device, code in jobs:
        print(json.dumps({"begin": where, "device": device}), flush=True)
        out = io.StringIO()
        result = {"where": where, "device": device, "ok": True, "missing": None, "error": None}
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), anygpu.device(device):
                exec(compile(code, "%s (on %s)" % (where, device), "exec"), {"__name__": "__main__"})
        except ModuleNotFoundError as e:
            result["ok"] = False
            result["missing"] = e.name if e.name and e.name.split(".")[0] in REFERENCES else None
            result["error"] = traceback.format_exc()
        except BaseException:  # noqa: B902 - a block's SystemExit is a failure too
            result["ok"] = False
            result["error"] = traceback.format_exc()
        result["output"] = out.getvalue()
        print(json.dumps(result), flush=True)


def run_python_blocks(blocks, devices, report):
    jobs = []
    for b in blocks:
        names = NAMES_DEVICE.search(b.text) is not None
        for d in devices[:1] if names else devices:
            jobs.append([b.where, d, b.text])
    pending = jobs
    while pending:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(pending, f)
        try:
            limit = BLOCK_TIMEOUT * len(pending)
            p = run_group([sys.executable, os.path.abspath(__file__), "--worker", f.name], limit)
            done, current = 0, None
            if p is None:
                p = subprocess.CompletedProcess(None, "killed", "", "(killed after %d s)" % limit)
            outs, errs = p.stdout, p.stderr
            for line in outs.splitlines():
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "begin" in msg:
                    current = msg
                    continue
                current = None
                done += 1
                report.python(msg)
        finally:
            os.unlink(f.name)
        if done < len(pending):
            where, device = pending[done][0], pending[done][1]
            if current is None:  # the worker failed before its first block
                report.fail(where, "python on %s: the worker exited %s before running it:\n%s" %
                            (device, p.returncode, errs))
            else:
                report.fail(where, "python on %s: the process ended (exit %s) inside it:\n%s" %
                            (device, p.returncode, errs))
            pending = pending[done + 1:]
        else:
            pending = []


def devices_here():
    """The default devices python blocks run on: host, and pocl's first device where present."""
    code = ("import anygpu\ntry:\n    print(anygpu.device('opencl:pocl').spec)\n"
            "except anygpu.AnygpuError:\n    pass\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit("FAIL: the package does not import: %s" % r.stderr)
    pocl = r.stdout.strip()
    return ["host"] + ([pocl] if pocl else [])


# ---- C and sh blocks ----------------------------------------------------------------------

def run_c(block, build, cc, sanitize, work, report):
    src = os.path.join(work, "example_%d.c" % block.line)
    exe = src[:-2]
    with open(src, "w", encoding="utf-8") as f:
        f.write(block.text)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "anygpu"], capture_output=True, text=True,
                           env=env)
    if flags.returncode != 0:
        return report.fail(block.where, "pkg-config --cflags --libs anygpu: %s" % flags.stderr)
    cmd = [cc, "-std=c11", "-Wall", "-Werror", src, "-o", exe] + flags.stdout.split()
    cmd += ["-Wl,-rpath," + os.path.join(build, "src")]
    if sanitize:
        cmd += ["-fsanitize=" + sanitize]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return report.fail(block.where, "%s:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    r = run_group([exe], BLOCK_TIMEOUT)
    if r is None:
        return report.fail(block.where, "the program still ran after %d s" % BLOCK_TIMEOUT)
    if r.returncode != 0:
        return report.fail(block.where, "the program exited %d:\n%s%s" % (r.returncode, r.stdout, r.stderr))
    report.ok(block.where, "c, compiled and run")


def source_copy(source, build, work):
    """A folder like the source root, its entries linked, whose `build` is @p build."""
    root = os.path.join(work, "root")
    os.mkdir(root)
    for name in os.listdir(source):
        if name != "build":
            os.symlink(os.path.join(source, name), os.path.join(root, name))
    os.symlink(build, os.path.join(root, "build"))
    return root


def run_sh(block, root, report):
    r = run_group(["sh", "-e", "-c", block.text], BLOCK_TIMEOUT, cwd=root)
    if r is None:
        return report.fail(block.where, "sh: still running after %d s" % BLOCK_TIMEOUT)
    if r.returncode != 0:
        return report.fail(block.where, "sh -e exited %d:\n%s\nstdout:\n%s\nstderr:\n%s" %
                           (r.returncode, block.text, r.stdout, r.stderr))
    report.ok(block.where, "sh")


class Report:
    def __init__(self):
        self.failures, self.skips, self.count = [], [], 0

    def ok(self, where, what):
        self.count += 1
        print("ok: %s: %s" % (where, what), flush=True)

    def fail(self, where, why):
        self.failures.append(where)
        print("FAIL: %s: %s" % (where, why), flush=True)

    def python(self, msg):
        where, device = msg["where"], msg["device"]
        if msg["ok"]:
            return self.ok(where, "python on %s" % device)
        if msg["missing"]:
            why = "python on %s needs %s, which %s does not import" % (device, msg["missing"], sys.executable)
            if not REQUIRED:
                self.skips.append(where)
                print("SKIP: %s: %s" % (where, why), flush=True)
                return
            why += " (references are required)"
            return self.fail(where, why)
        self.fail(where, "python on %s:\n%s%s" % (device, msg["output"], msg["error"]))


def main(argv):
    if len(argv) >= 3 and argv[1] == "--worker":
        worker(argv[2])
        return 0
    args = argv[1:]
    listing = "--list" in args
    if listing:
        args.remove("--list")
    sanitize = None
    if "--sanitize" in args:
        k = args.index("--sanitize")
        sanitize = args[k + 1]
        del args[k:k + 2]
    if len(args) != 3:
        sys.stderr.write(__doc__)
        return 2
    source, build, cc = os.path.abspath(args[0]), os.path.abspath(args[1]), args[2]
    check_rules()
    docs = ["README.md"] + sorted(os.path.relpath(p, source) for p in glob.glob(os.path.join(source, "docs", "*.md")))
    blocks = [b for rel in docs for b in blocks_of(source, rel)]
    report = Report()
    todo = {"python": [], "c": [], "sh": []}
    for b in blocks:
        what, how = plan(b)
        if listing:
            print("%s: %s %s" % (b.where, what, how or ""))
        elif what == "fail":
            report.fail(b.where, how)
        elif what == "marked":
            print("not run: %s: %s" % (b.where, how))
        elif what == "run":
            todo[how].append(b)
    if listing:
        return 0
    if sanitize and not listing:
        print("SKIP: the docs' examples run in builds without sanitizers: python3 cannot load a library built "
              "with -Db_sanitize=%s, and each C example would need its runtime first" % sanitize)
        return 1 if report.failures else 77
    work = tempfile.mkdtemp(prefix="anygpu-docs-")
    try:
        devices = devices_here()
        print("python blocks run on: %s (%s)" % (", ".join(devices), sys.executable), flush=True)
        run_python_blocks(todo["python"], devices, report)
        for b in todo["c"]:
            run_c(b, build, cc, sanitize, work, report)
        root = source_copy(source, build, work)
        for b in todo["sh"]:
            run_sh(b, root, report)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    marked = sum(1 for b in blocks if b.marker)
    print("%d blocks: %d runs passed, %d failures, %d skipped, %d marked not run" %
          (len(blocks), report.count, len(report.failures), len(report.skips), marked))
    if report.failures:
        return 1
    return 77 if report.skips else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
