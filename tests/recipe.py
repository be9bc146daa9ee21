#!/usr/bin/env python3
"""Checks the recipe for a built-in kernel family (docs/kernels.md, "Adding a kernel family"):
what a new family needs and neither the compiler nor the build derives.

    recipe.py --source DIR --list KERNEL_LIST [--ninja NINJA --build DIR --opencl-table FILE]
              [--oclgrind SUITE REGEX]... CHECK

KERNEL_LIST is the program tests/kernel_list/list.c, which prints every built-in kernel (its
family, form, name and whether the host has it). CHECK is one of:

includes  the OpenCL table (FILE, backends/opencl/kernels_cl.c) depends, in the build's own
          record (ninja -t query and ninja -t deps: its inputs, and what the depfile
          tools/embed.py writes named), on every header that kernels_cl/family.cl.in and the
          family sources include, followed through kernels_shared/; a header missing there
          would not rebuild the table when it changes.
groups    every work-group kernel (AG_GROUPS) either has a host form or is a row of the table
          under "Work-group kernels on CPU devices" in docs/kernels.md for its family, whose
          alternatives exist in the same family with a host form; and every row of that table
          names a work-group kernel that exists.
oclgrind  every family of kernels_shared/families.h has an Oclgrind suite: some kernel of the
          family matches a REGEX an oclgrind suite expects to run (tests/meson.build).
docs      docs/kernels.md's copy of kernels_shared/families.h is its list of families line for
          line, its table of families has one row per family, in that order, and its table of
          what the oclgrind suite runs has a row for each of its tests.

Each failure names what is missing and where to add it; exit status 1 then, 0 when all holds.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FAMILY = re.compile(r'^AG_FAMILY\((\w+),\s*(\w+)\)\s*$', re.M)


def families(source):
    with open(os.path.join(source, "kernels_shared", "families.h"), encoding="utf-8") as f:
        return [m.group(1) for m in FAMILY.finditer(f.read())]


def kernel_list(program):
    """[(family, form, name, on_host)] from tests/kernel_list/list.c."""
    out = subprocess.run([program], check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        family, form, name, host = line.split()
        rows.append((family, form, name, host == "host"))
    return rows


def check_includes(args):
    """The headers reached from the OpenCL wrapper and each family source, as embed.py inlines
    them, against the dependencies ninja recorded for the OpenCL table."""
    shared = os.path.join(args.source, "kernels_shared")
    wrapper = os.path.join(args.source, "kernels_cl", "family.cl.in")
    pending = [wrapper] + [os.path.join(shared, f + ".h") for f in families(args.source)]
    reached = set()
    while pending:
        path = pending.pop()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name in INCLUDE.findall(text.replace("@FAMILY@", "fill")):
            for d in (os.path.dirname(path), shared):
                cand = os.path.realpath(os.path.join(d, name))
                if os.path.exists(cand):
                    break
            else:
                return ["%s includes \"%s\", found neither beside it nor in kernels_shared/" % (path, name)]
            if cand not in reached:
                reached.add(cand)
                pending.append(cand)
    target = os.path.relpath(args.opencl_table, args.build)
    recorded = set()
    # what build.ninja names (explicit and implicit inputs), then what ninja read from depfiles
    query = subprocess.run([args.ninja, "-C", args.build, "-t", "query", target], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    first = next(i for i, line in enumerate(query) if line.startswith("  input: "))
    inputs = query[first + 1:query.index("  outputs:")]
    deps = subprocess.run([args.ninja, "-C", args.build, "-t", "deps", target], check=True, capture_output=True,
                          text=True).stdout.splitlines()[1:]
    for line in inputs + deps:
        line = line.strip().lstrip("|").strip()
        if line:
            recorded.add(os.path.realpath(os.path.join(args.build, line)))
    missing = sorted(reached - recorded)
    return ["the OpenCL table (%s) does not depend on %s, which a family includes: a change to it would not "
            "rebuild the table (backends/opencl/meson.build: the depfile of tools/embed.py)"
            % (target, os.path.relpath(p, args.source)) for p in missing]


def groups_table(source):
    """The rows of docs/kernels.md's table "Work-group kernels on CPU devices": [(family, group
    pattern, [alternative patterns], chosen in)]."""
    path = os.path.join(source, "docs", "kernels.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^#+ Work-group kernels on CPU devices\n(.*?)(?=^#)", text, re.M | re.S)
    if m is None:
        return None
    rows = []
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        rows.append((cells[0].strip("`"), re.findall(r"`([^`]+)`", cells[1])[0], re.findall(r"`([^`]+)`", cells[2]),
                     cells[3]))
    return rows


def pattern(text):
    """A kernel name with <placeholders> as a regex whose named groups are the placeholders."""
    out, seen = "", set()
    for part in re.split(r"(<\w+>)", text):
        if part.startswith("<"):
            name = part[1:-1]
            out += "(?P=%s)" % name if name in seen else "(?P<%s>[a-z0-9]+)" % name
            seen.add(name)
        else:
            out += re.escape(part)
    return out


def check_groups(args):
    rows = groups_table(args.source)
    if rows is None:
        return ["docs/kernels.md has no section \"Work-group kernels on CPU devices\" listing each AG_GROUPS "
                "kernel with the kernel the op layer takes on CPU devices"]
    kernels = kernel_list(args.list)
    by_family = {}
    for family, form, name, host in kernels:
        by_family.setdefault(family, {})[name] = (form, host)
    problems, used = [], set()
    for family, form, name, host in kernels:
        if form != "groups" or host:
            continue
        found = False
        for i, (row_family, group, alternatives, chosen_in) in enumerate(rows):
            m = re.fullmatch(pattern(group), name) if row_family == family else None
            if m is None:
                continue
            found = True
            used.add(i)
            for alt in alternatives:
                want = re.sub(r"<(\w+)>", lambda p: m.group(p.group(1)), alt)
                form_host = by_family[family].get(want)
                if form_host is None:
                    problems.append("%s (family %s): its CPU alternative %s (docs/kernels.md) is no kernel of the "
                                    "family" % (name, family, want))
                elif form_host[0] == "groups" or not form_host[1]:
                    problems.append("%s (family %s): its CPU alternative %s has no host form" % (name, family, want))
            files = re.findall(r"`([^`]+)`", chosen_in)
            for f in files:
                if not os.path.exists(os.path.join(args.source, f)):
                    problems.append("docs/kernels.md: %s's alternative is chosen in %s, which does not exist"
                                    % (group, f))
            break
        if not found:
            problems.append("%s (family %s) is a work-group kernel (AG_GROUPS) with no host form, and docs/kernels.md's "
                            "\"Work-group kernels on CPU devices\" names no kernel the op layer takes instead on CPU "
                            "devices: add a row, or give it a host form" % (name, family))
    for i, (_, group, _, _) in enumerate(rows):
        if i not in used:
            problems.append("docs/kernels.md: \"Work-group kernels on CPU devices\" lists %s, which matches no "
                            "work-group kernel without a host form" % group)
    return problems


def check_oclgrind(args):
    kernels = kernel_list(args.list)
    problems = []
    for family in families(args.source):
        names = sorted(n for f, _, n, _ in kernels if f == family)
        if not names:
            problems.append("family %s defines no kernels" % family)
            continue
        if not any(re.fullmatch(rx, n) for _, rx in args.oclgrind for n in names):
            problems.append("family %s has no Oclgrind suite: no suite of tests/meson.build's oclgrind_suites "
                            "expects any of its %d kernels (%s, ...) to run; add tests/test_oclgrind_%s.c and its entry"
                            % (family, len(names), names[0], family))
    return problems


def check_docs(args):
    listed = families(args.source)
    with open(os.path.join(args.source, "docs", "kernels.md"), encoding="utf-8") as f:
        text = f.read()
    problems = []
    m = re.search(r"<!-- fragment: lines of kernels_shared/families.h -->\n```c\n(.*?)```", text, re.S)
    if m is None:
        return ["docs/kernels.md has no copy of kernels_shared/families.h (a ```c block after "
                "<!-- fragment: lines of kernels_shared/families.h -->)"]
    with open(os.path.join(args.source, "kernels_shared", "families.h"), encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.startswith("AG_FAMILY(")]
    copy = m.group(1).splitlines()
    if copy != lines:
        problems.append("docs/kernels.md's copy of kernels_shared/families.h differs from it: missing %s, extra %s"
                        % ([x for x in lines if x not in copy] or "none", [x for x in copy if x not in lines] or "none"))
    rows = re.findall(r"^\| `(\w+)` \|", text[m.end():text.find("\n### ", m.end())], re.M)
    if rows != listed:
        problems.append("docs/kernels.md's table of families lists %s; kernels_shared/families.h lists %s, in that "
                        "order" % (rows, listed))
    documented = set(re.findall(r"^\| `oclgrind (\w+)` \|", text, re.M))
    for suite in sorted(set(name for name, _ in args.oclgrind) - documented):
        problems.append("docs/kernels.md's \"What runs\" (oclgrind) has no row for the test `oclgrind %s`" % suite)
    return problems


class Args:
    pass


def main(argv):
    args = Args()
    args.source = args.list = args.ninja = args.build = args.opencl_table = None
    args.oclgrind = []
    check = None
    it = iter(argv)
    for a in it:
        if a in ("--source", "--list", "--ninja", "--build", "--opencl-table"):
            setattr(args, a[2:].replace("-", "_"), next(it))
        elif a == "--oclgrind":
            args.oclgrind.append((next(it), next(it)))
        else:
            check = a
    checks = {"includes": check_includes, "groups": check_groups, "oclgrind": check_oclgrind, "docs": check_docs}
    if check not in checks or args.source is None or args.list is None:
        sys.exit(__doc__)
    if check == "includes" and args.opencl_table is None:
        print("SKIP: this build has no OpenCL backend, so no OpenCL table whose dependencies to check")
        return 77
    problems = checks[check](args)
    for p in problems:
        print("recipe %s: %s" % (check, p))
    if not problems:
        print("recipe %s: holds" % check)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
