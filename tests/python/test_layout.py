"""Every ctypes struct of the package against the C headers (anygpu's, and DLPack's where
dlpack/dlpack.h is installed): a small C program prints each struct's size and its fields'
offsets, compared with ctypes'. Skipped where no C compiler is found; headers that do not
compile fail."""

import ctypes
import os
import shutil
import subprocess

import pytest

from anygpu import _core, _dlpack, azint, learn, sporco, template

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
STRUCTS = {"ag_poni": azint._Poni, "ag_integrate_options": azint._Options, "ag_integrate_result": azint._Result,
           "ag_admm_options": sporco._AdmmOptions, "ag_admm_auto_rho": sporco._AutoRho,
           "ag_pgm_options": sporco._PgmOptions, "ag_iter_stats": sporco._IterStats,
           "ag_optim_options": learn._OptimOptions, "ag_template_library_match_options": template._MatchOptions,
           "ag_device_info": _core._DeviceInfo}
DLPACK_STRUCTS = {"DLDevice": _dlpack.DLDevice, "DLDataType": _dlpack.DLDataType, "DLTensor": _dlpack.DLTensor,
                  "DLManagedTensor": _dlpack.DLManagedTensor}


def test_struct_layouts(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to read the headers' layouts")
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <anygpu.h>", "#include <anygpu/diffraction.h>",
             "#include <anygpu/azint.h>", "#include <anygpu/solvers.h>", "#include <anygpu/learn.h>",
             "#include <anygpu/template.h>"]
    structs = dict(STRUCTS)
    if os.path.exists("/usr/include/dlpack/dlpack.h"):
        lines.append("#include <dlpack/dlpack.h>")
        structs.update(DLPACK_STRUCTS)
    lines.append("int main(void) {")
    for name, cls in structs.items():
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
    assert built.returncode == 0, "the headers do not compile: %s" % built.stderr[-2000:]
    out = subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True, check=True).stdout
    for line in out.split("\n"):
        if not line:
            continue
        name, value = line.split()
        if "." in name:
            struct, field = name.split(".")
            got = getattr(structs[struct], field).offset
        else:
            got = ctypes.sizeof(structs[name])
        assert got == int(value), name
