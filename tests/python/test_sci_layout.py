"""The ctypes structs of anygpu.azint, .sporco, .learn and .template against the C headers: a
small C program prints each struct's size and its fields' offsets, compared with ctypes'.
Skipped where no C compiler is found."""

import ctypes
import os
import shutil
import subprocess

import pytest

from anygpu import azint, learn, sporco, template

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
STRUCTS = {"ag_poni": azint._Poni, "ag_integrate_options": azint._Options, "ag_integrate_result": azint._Result,
           "ag_admm_options": sporco._AdmmOptions, "ag_admm_auto_rho": sporco._AutoRho,
           "ag_pgm_options": sporco._PgmOptions, "ag_iter_stats": sporco._IterStats,
           "ag_optim_options": learn._OptimOptions, "ag_template_match_options": template._MatchOptions}


def test_struct_layouts(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to read the headers' layouts")
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <anygpu.h>", "#include <anygpu/diffraction.h>",
             "#include <anygpu/azint.h>", "#include <anygpu/solvers.h>", "#include <anygpu/learn.h>",
             "#include <anygpu/template.h>", "int main(void) {"]
    for name, cls in STRUCTS.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (name, name))
        for field, _ in cls._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (name, field, name, field))
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    includes = [os.path.join(ROOT, "include")]
    lib_dir = os.path.dirname(os.path.dirname(os.path.abspath(os.environ.get("ANYGPU_LIBRARY", ""))))
    includes += [os.path.join(lib_dir, "include"), lib_dir]  # a build's generated headers, if any
    built = subprocess.run([cc, "-std=c11", *("-I" + i for i in includes), "-o", str(tmp_path / "layout"), str(src)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip("the headers do not compile here: %s" % built.stderr[-500:])
    out = subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True, check=True).stdout
    for line in out.split("\n"):
        if not line:
            continue
        name, value = line.split()
        if "." in name:
            struct, field = name.split(".")
            got = getattr(STRUCTS[struct], field).offset
        else:
            got = ctypes.sizeof(STRUCTS[name])
        assert got == int(value), name
