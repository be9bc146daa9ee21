#!/usr/bin/env python3
"""The seam between the core and the scientific layers, checked with the layers' own flags.

usage: seam_check.py SOURCE_ROOT BUILD_ROOT LAYER...

Each scientific layer LAYER (src/meson.build's science_layers: diffraction, solvers, learn) is
a static library, libanygpu-LAYER.a, whose compile commands are read from
BUILD_ROOT/compile_commands.json. With a layer's exact flags:
  (a) a file that includes one of the core's headers (CORE_HEADERS: src/internal.h, src/array.h,
      ..., backends/backend.h) fails to compile with the message that sends it to
      src/seam/seam.h, and "internal.h" is not on its include path at all;
  (b) every layer source's include graph (cc -M) holds only include/anygpu/, src/seam/ (with
      src/launch.h, which the seam includes), kernels_shared/, the layer's own headers, headers
      generated in the build tree, and system headers. The graph is printed per library.
Every .c under the layers' folders must be built in its layer's library, not in the core.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

# The core's headers: each refuses a layer with this message.
CORE_HEADERS = ("src/internal.h", "src/array.h", "src/error.h", "src/builtin.h", "src/pool.h",
                "backends/backend.h", "backends/embedded.h")
SEAM_MESSAGE = "is the core's own: a scientific layer includes src/seam/seam.h instead"


def fail(what):
    print("FAIL: " + what)
    sys.exit(1)


def layer_of(entry, layers):
    """The layer whose library @p entry's object goes into, or None."""
    out = entry.get("output", "")
    for layer in layers:
        if out.startswith("src/libanygpu-%s.a.p/" % layer):
            return layer
    return None


def flags_of(entry):
    """The compiler and its flags, without the source, the object and the dependency file."""
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    keep, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MQ", "-MF", "-MT", "-c"):
            skip = True
            continue
        if a in ("-MD", "-MMD"):
            continue
        if not a.startswith("-fdiagnostics-color"):
            keep.append(a)
    return keep + ["-fdiagnostics-color=never"]


def compile_probe(entry, text):
    """Compiles @p text with @p entry's flags in its directory: (returncode, stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run(flags_of(entry) + ["-fsyntax-only", src], cwd=entry["directory"],
                           capture_output=True, text=True)
        return r.returncode, r.stderr


def allowed(path, source_root, build_root, layer):
    """Why @p path may be in a layer's include graph, or None."""
    p = os.path.realpath(path)
    if not os.path.relpath(p, build_root).startswith(".."):
        return "build/"  # generated: include/anygpu/version.h
    rel = os.path.relpath(p, source_root)
    if not rel.startswith(".."):
        for ok in ("include/anygpu/", "src/seam/", "kernels_shared/", "src/%s/" % layer):
            if rel.startswith(ok):
                return ok
        if rel == "include/anygpu.h":
            return "include/anygpu/"
        if rel == "src/launch.h":  # the launch interface, part of the seam (src/seam/seam.h)
            return "src/seam/"
        return None
    return "system"


def deps(entry):
    """The headers @p entry's source includes, as `cc -M` lists them."""
    r = subprocess.run(flags_of(entry) + ["-M", entry["file"]], cwd=entry["directory"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("cc -M %s: %s" % (entry["file"], r.stderr.strip()))
    words = r.stdout.replace("\\\n", " ").split()
    out = []
    for w in words[1:]:  # words[0] is the target
        if w.endswith(".c"):
            continue
        out.append(os.path.normpath(os.path.join(entry["directory"], w)))
    return out


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    source_root, build_root = os.path.realpath(argv[1]), os.path.realpath(argv[2])
    LAYERS = argv[3:]
    with open(os.path.join(build_root, "compile_commands.json")) as f:
        commands = json.load(f)

    by_layer = {layer: [] for layer in LAYERS}
    for e in commands:
        src = os.path.relpath(os.path.realpath(os.path.join(e["directory"], e["file"])), source_root)
        layer = layer_of(e, LAYERS)
        if layer is not None:
            by_layer[layer].append(e)
        elif any(src.startswith("src/%s/" % l) for l in LAYERS):
            fail("%s is built into %s, not into its layer's library" % (src, e.get("output")))
    for layer in LAYERS:
        if not by_layer[layer]:
            fail("no sources built into libanygpu-%s.a" % layer)
        for e in by_layer[layer]:
            if "-DAG_SCIENCE_LAYER" not in flags_of(e):
                fail("%s is compiled without -DAG_SCIENCE_LAYER" % e["file"])

    # (a) the core's headers refuse a layer.
    probe = by_layer[LAYERS[0]][0]
    print("(a) with the flags of %s:" % os.path.relpath(probe["output"]))
    print("    " + " ".join(shlex.quote(a) for a in flags_of(probe)))
    rc, err = compile_probe(probe, '#include "internal.h"\n')
    if rc == 0 or "internal.h" not in err:
        fail('#include "internal.h" compiled for a layer (rc %d): %s' % (rc, err))
    print('  #include "internal.h": not on the include path:\n    ' + err.strip().splitlines()[0])
    for layer in LAYERS:
        e = by_layer[layer][0]
        for h in CORE_HEADERS:
            rc, err = compile_probe(e, '#include "%s"\n' % os.path.join(source_root, h))
            if rc == 0:
                fail("%s compiled with the flags of libanygpu-%s.a" % (h, layer))
            if SEAM_MESSAGE not in err or ("%s %s" % (h, SEAM_MESSAGE)) not in err:
                fail("%s fails for libanygpu-%s.a without the seam's message: %s" % (h, layer, err))
            if h == "src/internal.h" and layer == LAYERS[0]:
                line = next(l for l in err.splitlines() if SEAM_MESSAGE in l)
                print('  #include "<source>/src/internal.h":\n    ' + line.replace(source_root + "/", ""))
    print("  each of %s refuses each layer with the seam's message" % ", ".join(CORE_HEADERS))
    # The seam itself compiles for a layer.
    rc, err = compile_probe(probe, '#include "seam.h"\n')
    if rc != 0:
        fail("seam.h does not compile with a layer's flags: %s" % err)

    # (b) each layer source's include graph.
    print("(b) include graphs (project headers; system headers counted):")
    for layer in LAYERS:
        headers, system = {}, set()
        for e in sorted(by_layer[layer], key=lambda e: e["file"]):
            src = os.path.relpath(os.path.realpath(os.path.join(e["directory"], e["file"])), source_root)
            for d in deps(e):
                why = allowed(d, source_root, build_root, layer)
                if why is None:
                    fail("%s (libanygpu-%s.a) includes %s" % (src, layer, d))
                if why == "system":
                    system.add(d)
                    continue
                rel = os.path.relpath(d, build_root) if why == "build/" else os.path.relpath(d, source_root)
                headers.setdefault(("<build>/" if why == "build/" else "") + rel, set()).add(os.path.basename(src))
        print("  libanygpu-%s.a (%d sources):" % (layer, len(by_layer[layer])))
        every = {os.path.basename(e["file"]) for e in by_layer[layer]}
        for h in sorted(headers):
            users = "every source" if headers[h] == every else " ".join(sorted(headers[h]))
            print("    %-32s <- %s" % (h, users))
        print("    + %d system headers" % len(system))
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
