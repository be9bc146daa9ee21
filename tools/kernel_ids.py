#!/usr/bin/env python3
"""Makes the built-in kernels' ids from the family sources, at build time.

    kernel_ids.py --families kernels_shared/families.h -I kernels_shared \
        --header OUT.h --table OUT.c [--depfile DEP] -- CC [CC ARGS...]

Each family of families.h is read through the C preprocessor with kernels_shared/
skeleton_list.h (once for each dtype of an AG_PER_DTYPE family), which turns every AG_EW,
AG_ITEMS and AG_GROUPS of the source into an entry with the kernel's name and parameters. So
the ids come from the same definitions as the kernels themselves.

A kernel of a per-dtype family is named with its variant's dtype (ag_add_f32,
ag_azint_csr_f32_f64_frames); without that first "_f32" it is one kernel for every dtype,
which gets thirteen consecutive ids, one per dtype code: AG_K_ADD + AG_F32 is ag_add_f32. A
dtype the family does not define that kernel for leaves its id without a kernel. A family
built once gets one id per kernel.

OUT.h (included by src/launch.h) holds the enum ag__kernel_id; OUT.c (the core's) the table
ag__kernels: each id's name, family, variant, form, arguments and the array parameters it may
write (those not declared const), checked against
AG__KERNEL_ARGS_MAX (backends/backend.h) at compile time. --depfile writes DEP, a Makefile
rule naming every header the preprocessor read, so that the ids are remade when one changes.
"""
import argparse
import re
import os
import subprocess
import sys
import tempfile

# Kernel-name suffixes by dtype code (ag_dtype's values); bool is b1, numpy's short name.
DTYPES = ["u8", "u16", "u32", "i32", "f32", "f64", "c64", "c128", "b1", "i8", "i16", "i64", "u64"]
ENTRY = re.compile(r"ag_kernel_list<(\w+) (EW|CPU_ITEMS|ITEMS|GROUPS) (\w+)((?: *\w+\([^()]*\))*) *>")
PARAM = re.compile(r"(array|value|buffer)\(([^,()]+), *(\w+)\)")
FAMILY = re.compile(r"^AG_FAMILY\((\w+), *(AG_ONCE|AG_PER_DTYPE)\)", re.M)


def kernels_of(cc, incs, family, variant, deps):
    """The entries of one family source for one dtype code (None: a family built once); the
    headers the preprocessor read are added to the set @deps."""
    text = '#include "skeleton_list.h"\n'
    if variant is not None:
        text += "#define AG_TC %d\n" % variant
    text += '#include "%s.h"\n' % family
    with tempfile.TemporaryDirectory() as tmp:
        dep = os.path.join(tmp, "family.d")
        args = list(cc) + ["-E", "-P", "-x", "c", "-MD", "-MF", dep] + ["-I" + d for d in incs] + ["-"]
        out = subprocess.run(args, input=text, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("kernel_ids.py: the preprocessor failed on %s.h:\n%s" % (family, out.stderr))
        with open(dep, encoding="utf-8") as f:
            rule = f.read().replace("\\\n", " ")
        deps.update(w for w in rule.split(":", 1)[1].split() if w != "-")
    found = []
    for m in ENTRY.finditer(out.stdout):
        params = [(k, t.strip(), n) for k, t, n in PARAM.findall(m.group(4))]
        found.append((m.group(1), m.group(2), m.group(3), params))
    return found


def base_of(name, dt):
    """name without its first "_<dt>" token, or None when it has none."""
    m = re.search(r"_%s(?=_|$)" % dt, name)
    if m is None:
        return None
    return name[: m.start()] + name[m.end():]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", required=True)
    ap.add_argument("-I", dest="incs", action="append", default=[])
    ap.add_argument("--header", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--depfile")
    ap.add_argument("cc", nargs="+")
    a = ap.parse_args()
    families = FAMILY.findall(open(a.families, encoding="utf-8").read())

    deps = set()
    ids = []  # (constant, family, per_dtype, [(variant, name, form, shape, params)])
    seen = {}
    for family, kind in families:
        per_dtype = kind == "AG_PER_DTYPE"
        bases = {}
        order = []
        for v in range(len(DTYPES)) if per_dtype else [None]:
            for name, form, shape, params in kernels_of(a.cc, a.incs, family, v, deps):
                base = base_of(name, DTYPES[v]) if per_dtype else name
                if base is None:
                    sys.exit("kernel_ids.py: kernel %s of family %s (dtype %s) has no _%s in its name"
                             % (name, family, DTYPES[v], DTYPES[v]))
                if base not in bases:
                    bases[base] = []
                    order.append(base)
                bases[base].append((v, name, form, shape, params))
        for base in order:
            const = "AG_K_" + re.sub(r"^ag_", "", base).upper()
            if const in seen:
                sys.exit("kernel_ids.py: %s names kernels of families %s and %s" % (const, seen[const], family))
            seen[const] = family
            ids.append((const, family, per_dtype, bases[base]))

    h = [
        "/* kernel_ids.h - the built-in kernels' ids, made by tools/kernel_ids.py from",
        "   kernels_shared/families.h and the family sources; do not edit. A kernel of a per-dtype",
        "   family has one id per dtype code (13): AG_K_ADD + AG_F32 is ag_add_f32. */",
        "#ifndef AG_KERNEL_IDS_H",
        "#define AG_KERNEL_IDS_H",
        "",
        "typedef enum ag__kernel_id {",
    ]
    at = 0
    family = None
    for const, fam, per_dtype, variants in ids:
        if fam != family:
            h.append("  /* %s (%s) */" % (fam, "per dtype" if per_dtype else "once"))
            family = fam
        if per_dtype:
            dts = " ".join(DTYPES[v] for v, *_ in variants)
            h.append("  %s = %d, /* %s: %s */" % (const, at, variants[0][1].replace("_" + DTYPES[variants[0][0]], "_<dt>", 1), dts))
            at += len(DTYPES)
        else:
            h.append("  %s = %d, /* %s */" % (const, at, variants[0][1]))
            at += 1
    h += ["  AG__KERNEL_COUNT = %d" % at, "} ag__kernel_id;", "", "#endif", ""]

    c = [
        "/* kernel_table.c - each built-in kernel id's name, family, dtype variant, form and",
        "   arguments, made by tools/kernel_ids.py; do not edit. */",
        "#include \"builtin.h\" /* ag__kernel_info, AG__KARG_BUFFER, AG__KERNEL_ARGS_MAX */",
        "#include \"launch.h\"  /* the forms and the ag_ types */",
        "",
        "#define A(TY) AG__KARG_BUFFER, sizeof(ag_u64)",
        "#define V(TY) sizeof(TY)",
        "#define B(TY) AG__KARG_BUFFER",
        "",
    ]
    rows = []
    at = 0
    forms = {"EW": "AG__FORM_EW", "ITEMS": "AG__FORM_ITEMS", "CPU_ITEMS": "AG__FORM_CPU_ITEMS",
             "GROUPS": "AG__FORM_GROUPS"}
    for const, fam, per_dtype, variants in ids:
        for v, name, form, shape, params in variants:
            idx = at + (v if per_dtype else 0)
            sizes = ["%s(%s)" % (k[0].upper(), t.replace("const ", "")) for k, t, _ in params]
            sizes.append("sizeof(ag_u64)")  # n
            if form == "EW":
                sizes.append("sizeof(ag_u64)")  # chunk
            nargs = sum(2 if k == "array" else 1 for k, _, _ in params) + (2 if form == "EW" else 1)
            c.append("static const size_t args_%d[] = {%s};" % (idx, ", ".join(sizes)))
            c.append('_Static_assert(%d <= AG__KERNEL_ARGS_MAX, "%s (%s) has %d arguments, more than AG__KERNEL_ARGS_MAX");'
                     % (nargs, name, shape, nargs))
            # The array parameters the kernel may write (not const): bit k for parameter k.
            writes = sum(1 << k for k, (kind, t, _) in enumerate(params)
                         if kind == "array" and not t.startswith("const "))
            rows.append('  [%d] = {"%s", AG__FAMILY_%s, %d, %s, %d, args_%d, 0x%xull},'
                        % (idx, name, fam, -1 if v is None else v, forms[form], nargs, idx, writes))
        at += len(DTYPES) if per_dtype else 1
    c += ["", "const ag__kernel_info ag__kernels[AG__KERNEL_COUNT] = {"] + rows + ["};", ""]

    for path, lines in ((a.header, h), (a.table, c)):
        text = "\n".join(lines)
        try:
            if open(path, encoding="utf-8").read() == text:
                continue
        except OSError:
            pass
        open(path, "w", encoding="utf-8").write(text)
    if a.depfile is not None:
        with open(a.depfile, "w", encoding="utf-8") as f:
            f.write("%s: %s\n" % (a.header.replace(" ", "\\ "),
                                   " ".join(sorted(d.replace(" ", "\\ ") for d in deps))))


if __name__ == "__main__":
    main()
