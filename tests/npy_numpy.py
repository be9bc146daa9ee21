#!/usr/bin/env python3
"""tests/npy_numpy.py - tests/npy.c's .npy reader (the one anygpu-integrate uses) against
numpy.load on the same files: headers written by hand in the ways numpy's format allows (key
order, quotes, whitespace, padding, versions 1.0/2.0/3.0) and the ways it refuses, and a few
thousand random mutations of them. A file the reader accepts must be read as numpy reads it
(dtype, shape, every byte); a file it refuses must be one numpy refuses too, or one of the
spellings it refuses on purpose (listed below, each with numpy's reading of it), and the
message must name the file. A header naming a key twice, which numpy reads with the last
value, is refused naming the key.

usage: npy_numpy.py NPY_CHECK WORKDIR
Exit status 0 when every check passes, 1 on a failure (each printed), 77 without numpy.
"""
import os
import random
import struct
import subprocess
import sys

from memory_limit import limited

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def npy_bytes(header, version=(1, 0), data=b""):
    text = header.encode("utf-8" if version == (3, 0) else "latin-1")
    length = struct.pack("<H" if version[0] == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes(version) + length + text + data


def numpy_reading(np, path):
    """(descr, shape, bytes) as numpy reads the file, or None where it refuses it."""
    try:
        a = np.load(path, allow_pickle=False)
    except Exception:  # numpy's refusals are ValueError, SyntaxError and others
        return None
    if a.dtype.byteorder == ">":
        return (a.dtype.str, a.shape, None)
    return (a.dtype.str, a.shape, np.ascontiguousarray(a).tobytes())


def ours(tool, paths):
    """Our reader's line for each path."""
    out = subprocess.run([tool] + paths, capture_output=True, text=True, errors="replace")
    lines = out.stdout.split("\n")[:-1]  # not splitlines: a message may hold a form feed
    if out.returncode != 0 or len(lines) != len(paths):
        check(False, "npy_check exited %d with %d lines for %d files: %s" %
              (out.returncode, len(lines), len(paths), out.stderr.strip()))
        return [None] * len(paths)
    return lines


def parse(line):
    if line.startswith("refused "):
        return None, line[len("refused "):]
    _, descr, dims, data = line.split(" ")
    shape = () if dims == "-" else tuple(int(d) for d in dims.split(","))
    return (descr, shape, b"" if data == "-" else bytes.fromhex(data)), None


# Headers numpy reads that the reader refuses on purpose: spellings numpy itself never writes.
# Each is refused, not read another way.
F4 = struct.pack("<2f", 1.5, -2.0)
ON_PURPOSE = [
    ("a comment", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } # note\n", F4),
    ("a sign", "{'descr': '<f4', 'fortran_order': False, 'shape': (+2,), }\n", F4),
    ("Python 2's long", "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }\n", F4),
    ("another spelling of the dtype", "{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }\n", F4),
    ("a dtype name", "{'descr': 'float32', 'fortran_order': False, 'shape': (2,), }\n", F4),
    ("an escape in a string", "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,), }\n", F4),
    ("strings joined", "{'descr': '<' 'f4', 'fortran_order': False, 'shape': (2,), }\n", F4),
    ("a line joined", "{'descr': '<f4', 'fortran_order': False, \\\n'shape': (2,), }\n", F4),
    ("big-endian data", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", F4),
    ("Fortran order", "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n", F4),
    ("an indented line after the dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n \n", F4),
    ("more data than the shape needs, which numpy leaves unread",
     "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", F4),
    ("a key given twice", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'shape': (3, 2), }\n",
     F4 * 3),
    ("descr given twice", "{'descr': '<u4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", F4),
]

# Headers both must read, and read alike.
GOOD = [
    ("numpy's own layout", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" + " " * 58 + "\n", F4),
    ("no padding", "{'descr':'<f4','fortran_order':False,'shape':(2,)}", F4),
    ("keys in another order", "{'shape': (2,), 'descr': '<f4', 'fortran_order': False}", F4),
    ("double quotes", '{"descr": "<f4", "fortran_order": False, "shape": (2,)}\n', F4),
    ("whitespace of every kind", " \t{ 'descr' :\n'<f4' ,\r\n 'fortran_order'\t: False ,\f'shape' : (\r 2 , ) , }\f\t \r\n\n",
     F4),
    ("two dimensions without a trailing comma", "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2)}",
     struct.pack("<2i", -7, 9)),
    ("a scalar", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", struct.pack("<d", 0.25)),
    ("an empty array", "{'descr': '<u2', 'fortran_order': False, 'shape': (0, 3), }\n", b""),
    ("zeros written 00", "{'descr': '<u2', 'fortran_order': False, 'shape': (00,), }\n", b""),
    ("u1 as |u1", "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n", b"\x01\x02\xff"),
    ("u1 as <u1", "{'descr': '<u1', 'fortran_order': False, 'shape': (3,), }\n", b"\x01\x02\xff"),
]

# Headers numpy refuses: the reader must refuse them too.
BAD = [
    ("(2) is an integer", "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }\n", F4[:4] * 2),
    ("a key numpy does not know", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", F4),
    ("no fortran_order", "{'descr': '<f4', 'shape': (2,), }\n", F4),
    ("False misspelt", "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,), }\n", F4),
    ("a leading zero", "{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }\n", F4),
    ("two commas", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), , }\n", F4),
    ("text after the dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x\n", F4),
    ("a NUL in the padding", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\0\n", F4),
    ("a vertical tab", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\v\n", F4),
    ("a list for the shape", "{'descr': '<f4', 'fortran_order': False, 'shape': [2], }\n", F4),
    ("a float dimension", "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0,), }\n", F4),
    ("0 for False", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }\n", F4),
]


def mutations(rng, count):
    """Random edits of good headers: a byte replaced, inserted or removed, a token doubled."""
    pieces = ["{", "}", "(", ")", ",", ":", "'", '"', " ", "\n", "\t", "\f", "\r", "\v", "0", "1", "2", "3", "L",
              "True", "False", "'shape'", "'descr'", "'fortran_order'", "'<f4'", "'<u1'", "#", "\\", "+", "-",
              ".", "_", "\0", "\xe9"]
    for _ in range(count):
        name, header, data = rng.choice(GOOD)
        h = header
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(h) + 1)
            what = rng.randrange(3)
            if what == 0:
                h = h[:at] + rng.choice(pieces) + h[at:]
            elif what == 1:
                h = h[:at] + h[at + 1:]
            else:
                h = h[:at] + rng.choice(pieces) + h[at + 1:]
        version = rng.choice([(1, 0), (2, 0), (3, 0)])
        # The data may no longer fit the shape: then both must refuse, which is checked too.
        yield "mutation of %s: %r" % (name, h), h, version, data


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    tool, work = argv[1], argv[2]
    try:
        import numpy as np
    except ImportError as e:
        print("skipped: the comparison needs numpy (python3-numpy): %s" % e)
        return 77
    os.makedirs(work, exist_ok=True)

    cases = []  # (what, kind, header, version, data)
    for kind, table in (("purpose", ON_PURPOSE), ("good", GOOD), ("bad", BAD)):
        for name, header, data in table:
            for version in ((1, 0), (2, 0), (3, 0)):
                cases.append(("%s (version %d.0)" % (name, version[0]), kind, header, version, data))
    for version in ((1, 1), (2, 1), (0, 0), (4, 0)):
        cases.append(("version %d.%d" % version, "bad", GOOD[0][1], version, F4))
    rng = random.Random(20261128)
    for what, header, version, data in mutations(rng, 3000):
        cases.append((what, "mutation", header, version, data))

    paths = []
    for k, (what, kind, header, version, data) in enumerate(cases):
        path = os.path.join(work, "case%d.npy" % k)
        with open(path, "wb") as f:
            f.write(npy_bytes(header, version, data))
        paths.append(path)
    lines = []
    for start in range(0, len(paths), 500):
        lines += ours(tool, paths[start:start + 500])

    counts = {"read alike": 0, "refused alike": 0, "refused on purpose": 0}
    for (what, kind, header, version, data), path, line in zip(cases, paths, lines):
        if line is None:
            continue
        want = numpy_reading(np, path)
        got, message = parse(line)
        if got is not None:
            check(want is not None, "%s: read as %s, numpy refuses it" % (what, got[:2]))
            if want is not None:
                check(got == want, "%s: read as %s, numpy reads %s" % (what, got[:2], want[:2]))
                counts["read alike"] += 1
            check(kind not in ("bad", "purpose"), "%s: read, should be refused" % what)
            continue
        check(path in message, "%s: the message does not name the file: %s" % (what, message))
        if want is None:
            counts["refused alike"] += 1
        elif kind == "purpose" or (kind == "mutation" and (on_purpose(header) or "more data than" in message)):
            counts["refused on purpose"] += 1
        else:
            check(False, "%s: refused (%s), numpy reads %s" % (what, message, want[:2]))
        check(kind != "good", "%s: refused: %s" % (what, message))
        if "twice" in what:
            key = "shape" if "'shape'" in what or "key" in what else "descr"
            check("'%s' twice" % key in message, "%s: the message should name '%s': %s" % (what, key, message))
            if want is not None:
                print("ok: %s refused: %s (numpy reads shape %s)" % (what, message, want[1]))

    huge_header_from_a_pipe(tool, work)

    print("%d files: %s" % (len(cases), ", ".join("%d %s" % (n, k) for k, n in counts.items())))
    print("%d failures" % len(failures))
    return 1 if failures else 0


def huge_header_from_a_pipe(tool, work):
    """A header claiming 3.6 GB (3 x 2 x 300000002 u2), read from a pipe (no file size to check first), is refused as
    cut short without allocating what it claims: the reader runs within 1 GiB of memory
    (tests/memory_limit.py)."""
    header = "{'descr': '<u2', 'fortran_order': False, 'shape': (3, 2, 300000002,), }".ljust(117) + "\n"
    data = npy_bytes(header, (1, 0), b"\0" * 12)
    p = subprocess.run([tool, "/dev/stdin"], input=data, capture_output=True, **limited(1 << 30))
    out = p.stdout.decode(errors="replace").strip()
    check(p.returncode == 0 and out.startswith("refused ") and "holds 12 bytes of data, the shape needs 3600000024" in out,
          "a 3.6 GB header from a pipe: exit %d: %s %s" % (p.returncode, out, p.stderr.decode(errors="replace")))
    if p.returncode == 0 and "holds 12 bytes" in out:
        print("ok: a 3.6 GB header from a pipe: %s" % out)


def on_purpose(header):
    """Whether a mutated header holds a spelling refused on purpose (ON_PURPOSE's kinds)."""
    import re
    if re.search(r"#|\\|\+|\dL|'descr'[^,]*'descr'|'shape'.*'shape'|'fortran_order'.*'fortran_order'", header):
        return True
    if re.search(r"""['"]descr['"]\s*:\s*(['"])(?!(<f4|<u1|<u2|<u4|<i4|<f8|\|u1)\1)""", header):
        return True
    # Whitespace around the dict other than numpy's (see npy.c).
    if re.match(r"[ \t]*[^ \t{]", header) or re.search(r"}[ \t\f]*[\r\n]*[^\r\n]", header):
        return True
    if re.search(r"True", header) or re.search(r"'\s*'", header):
        return True
    return False


if __name__ == "__main__":
    sys.exit(main(sys.argv))
