#!/usr/bin/env python3
"""tests/integrate_cli.py - anygpu-integrate run as a user runs it, on the host and on every
OpenCL device anygpu-info lists: its outputs against pyFAI 0.21.3's integrate1d_ng and
integrate2d_ng (method bbox/no/full, csr, cython) on the same frames, .npy and HDF5 inputs giving the
same outputs (LZF, bitshuffle/LZ4 and LZ4 datasets too, and a refusal naming the filter's
package without its plugin), and bad input refused with one line and no output left behind.

usage: integrate_cli.py ANYGPU_INTEGRATE ANYGPU_INFO WORKDIR
Exit status 0 when every check passes, 1 on a failure (each printed), 77 (skipped, with the
reason) without numpy or pyFAI, or when the other checks passed without h5py, which the HDF5
input check needs. Under -Dreferences=required (ANYGPU_TEST_REFERENCES=required) a missing
reference is a failure.
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import time

from memory_limit import limited

# Relative tolerances of the f32 engine against pyFAI (which sums in float64 and divides in
# float32): intensity and sigma, and bin centres (computed in double by both).
RTOL = 1e-5
ATOL_FRACTION = 1e-6  # of the largest value, for bins near zero
RTOL_CENTRES = 1e-9

failures = []
skipped = []
REQUIRED = os.environ.get("ANYGPU_TEST_REFERENCES") == "required"


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def close(np, got, want, rtol, what):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        check(False, "%s: shape %s, pyFAI's %s" % (what, got.shape, want.shape))
        return
    atol = ATOL_FRACTION * float(np.max(np.abs(want))) if want.size else 0.0
    bad = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if bad.any():
        i = np.unravel_index(np.argmax(bad), bad.shape)
        check(False, "%s: %d of %d values differ, first at %s: %r, pyFAI %r" %
              (what, int(bad.sum()), bad.size, i, got[i], want[i]))
    else:
        print("ok: %s (%d values, largest relative difference %.2e)" %
              (what, got.size, float(np.max(np.abs(got - want) / np.maximum(np.abs(want), atol or 1e-300)))))


def run(tool, args, cwd=None, **limits):
    p = subprocess.run([tool] + args, capture_output=True, text=True, cwd=cwd, **limits)
    return p.returncode, p.stdout, p.stderr


def devices(info):
    out = subprocess.run([info], capture_output=True, text=True).stdout
    specs = ["host"]
    for line in out.splitlines():
        m = re.match(r"\s+\d+\s+(opencl:\d+)\s", line)
        if m:
            specs.append(m.group(1))
    return specs


# The compressions of detector files, each through the HDF5 filter plugin a Debian package
# brings (docs/anygpu-integrate.md): (dataset, h5py's arguments, filter id, filter name, package).
COMPRESSIONS = [
    ("lzf", {"compression": "lzf"}, 32000, "LZF", "hdf5-plugin-lzf"),
    ("bitshuffle_lz4", {"compression": 32008, "compression_opts": (0, 2)}, 32008, "bitshuffle", "bitshuffle"),
    ("lz4", {"compression": 32004}, 32004, "LZ4", "hdf5-filter-plugin"),
]


def compressed_datasets(np, h5py, tool, poni, work, ny, nx):
    """Compressed datasets give the uncompressed one's outputs bit for bit; without their
    plugin (HDF5_PLUGIN_PATH naming an empty folder) each is refused when opened, with a
    message naming the filter and its package; a damaged chunk is refused naming the frames and
    HDF5's reason."""
    # Detector counts: small and compressible, so that every chunk is stored compressed (h5py
    # marks these filters optional, and a chunk they cannot shrink is stored as it is).
    stack = np.random.default_rng(11).poisson(3.0, size=(4, ny, nx)).astype(np.uint16)
    h5 = os.path.join(work, "compressed.h5")
    with h5py.File(h5, "w") as f:
        f.create_dataset("plain", data=stack)
        for name, kwargs, _, _, package in COMPRESSIONS:
            try:
                d = f.create_dataset(name, data=stack, chunks=(1, ny, nx), **kwargs)
            except (ValueError, OSError) as e:
                check(False, "HDF5 %s: h5py cannot write it (is Debian's %s installed?): %s" % (name, package, e))
                continue
            check(d.id.get_storage_size() < stack.nbytes,
                  "HDF5 %s: stored in %d bytes, not compressed" % (name, d.id.get_storage_size()))
        f.create_dataset("gzip", data=stack, chunks=(1, ny, nx), compression="gzip")
    plain = os.path.join(work, "plain")
    rc, _, err = run(tool, ["--poni", poni, "--npt", "50", "--batch", "3", h5 + ":/plain", plain])
    check(rc == 0, "HDF5 plain: exit %d: %s" % (rc, err.strip()))
    if rc != 0:
        return
    want = np.load(plain + ".intensity.npy")
    empty = os.path.join(work, "no-plugins")
    os.makedirs(empty, exist_ok=True)
    for name, _, fid, fname, package in COMPRESSIONS:
        out = os.path.join(work, name)
        rc, _, err = run(tool, ["--poni", poni, "--npt", "50", "--batch", "3", h5 + ":/" + name, out])
        check(rc == 0, "HDF5 %s: exit %d: %s" % (name, rc, err.strip()))
        if rc == 0:
            same = np.array_equal(np.load(out + ".intensity.npy"), want)
            check(same, "HDF5 %s: the intensity differs from the uncompressed dataset's" % name)
            if same:
                print("ok: an HDF5 dataset compressed with %s gives the uncompressed one's outputs bit for bit" % fname)
        # Without the plugin: refused at open, before any output, naming filter and package.
        env = dict(os.environ, HDF5_PLUGIN_PATH=empty)
        p = subprocess.run([tool, "--poni", poni, "--npt", "50", h5 + ":/" + name, out + "-none"],
                           capture_output=True, text=True, env=env)
        lines = p.stderr.strip().splitlines()
        words = ["filter %d (%s)" % (fid, fname), "install Debian's package %s" % package, empty]
        check(p.returncode == 1 and len(lines) == 1 and all(w in lines[0] for w in words),
              "HDF5 %s without its plugin: exit %d, stderr should be one line naming %s: %r" %
              (name, p.returncode, words, p.stderr))
        check(not glob.glob(out + "-none.*"), "HDF5 %s without its plugin: left output behind" % name)
        if p.returncode == 1 and len(lines) == 1:
            print("ok: without its plugin: %s" % lines[0])
    optional_filters(np, h5py, tool, poni, work, stack, want, empty)
    # A damaged chunk: frame 2's deflate stream overwritten.
    with h5py.File(h5, "r") as f:
        info = f["gzip"].id.get_chunk_info(2)
    raw = bytearray(open(h5, "rb").read())
    for k in range(info.byte_offset + 2, info.byte_offset + info.size):
        raw[k] ^= 0x5A
    bad = os.path.join(work, "damaged.h5")
    with open(bad, "wb") as f:
        f.write(raw)
    out = os.path.join(work, "damaged-out")
    rc, _, err = run(tool, ["--poni", poni, "--npt", "50", "--batch", "1", bad + ":/gzip", out])
    lines = err.strip().splitlines()
    check(rc == 1 and len(lines) == 1 and "frames 2 to 2 cannot be read: " in lines[0] and "inflate" in lines[0],
          "HDF5 damaged chunk: exit %d, stderr should be one line naming frame 2 and HDF5's reason: %r" % (rc, err))
    check(not glob.glob(out + ".*"), "HDF5 damaged chunk: left output behind")
    if rc == 1 and len(lines) == 1:
        print("ok: a damaged chunk: %s" % lines[0])


def optional_filters(np, h5py, tool, poni, work, stack, want, empty):
    """An optional filter HDF5 cannot load that compressed no chunk is no reason to refuse the
    dataset: one that declares filter 256 (the testing range: no plugin has it), stored without
    it, gives the plain dataset's outputs bit for bit. One whose first chunk is stored as it
    is (LZF could not shrink it) and whose later chunks are compressed opens without the LZF
    plugin, and the first read that needs it fails naming the filter and the package."""
    h5 = os.path.join(work, "optional.h5")
    ny, nx = stack.shape[1:]
    mixed = stack.copy()
    mixed[0] = np.random.default_rng(5).integers(0, 65536, size=(ny, nx), dtype=np.uint16)  # incompressible
    with h5py.File(h5, "w") as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((1, ny, nx))
        dcpl.set_filter(256, h5py.h5z.FLAG_OPTIONAL)
        space = h5py.h5s.create_simple(stack.shape)
        d = h5py.h5d.create(f.id, b"declared", h5py.h5t.STD_U16LE, space, dcpl=dcpl)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, stack)
        f.create_dataset("mixed", data=mixed, chunks=(1, ny, nx), compression="lzf")
        info = [f["mixed"].id.get_chunk_info(k).filter_mask for k in range(len(mixed))]
    check(info[0] == 1 and info[1] == 0, "HDF5 mixed: chunk filter masks %s, not the first alone unfiltered" % info)
    env = dict(os.environ, HDF5_PLUGIN_PATH=empty)
    out = os.path.join(work, "declared")
    p = subprocess.run([tool, "--poni", poni, "--npt", "50", "--batch", "3", h5 + ":/declared", out],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0, "HDF5 declared filter never applied: exit %d: %s" % (p.returncode, p.stderr.strip()))
    if p.returncode == 0:
        same = np.array_equal(np.load(out + ".intensity.npy"), want)
        check(same, "HDF5 declared filter never applied: the intensity differs from the plain dataset's")
        if same:
            print("ok: a dataset declaring a missing optional filter it never applied is read bit for bit")
    out = os.path.join(work, "mixed")
    p = subprocess.run([tool, "--poni", poni, "--npt", "50", "--batch", "1", h5 + ":/mixed", out],
                       capture_output=True, text=True, env=env)
    lines = p.stderr.strip().splitlines()
    words = ["frames 1 to 1 cannot be read: they need HDF5 filter 32000 (LZF)", "hdf5-plugin-lzf"]
    check(p.returncode == 1 and len(lines) == 1 and all(w in lines[0] for w in words),
          "HDF5 mixed without LZF: exit %d, stderr should be one line naming %s: %r" % (p.returncode, words, p.stderr))
    check(not glob.glob(out + ".*"), "HDF5 mixed without LZF: left output behind")
    if p.returncode == 1 and len(lines) == 1:
        print("ok: chunks compressed after an uncompressed first one: %s" % lines[0])


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    tool, info, work = os.path.abspath(argv[1]), argv[2], argv[3]
    try:
        import numpy as np
        import pyFAI
        from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
    except ImportError as e:
        print("%s: the comparison needs numpy and pyFAI (python3-pyfai): %s: %s" %
              ("FAIL" if REQUIRED else "skipped", sys.executable, e))
        return 1 if REQUIRED else 77
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from pyfai_azint import clear_full_split_buffer
    clear_full_split_buffer()  # pyFAI's 2-D full splitting made deterministic
    os.makedirs(work, exist_ok=True)
    for f in glob.glob(os.path.join(work, "*")):
        if os.path.isdir(f):
            shutil.rmtree(f)
        else:
            os.remove(f)

    ny, nx = 48, 64
    poni = os.path.join(work, "det.poni")
    with open(poni, "w") as f:
        f.write("poni_version: 2\nDetector: Detector\n"
                'Detector_config: {"pixel1": 0.0001, "pixel2": 0.0001, "max_shape": [%d, %d]}\n'
                "Distance: 0.05\nPoni1: 0.0021\nPoni2: 0.0033\nRot1: 0.05\nRot2: -0.03\nRot3: 0.2\n"
                "Wavelength: 1e-10\n" % (ny, nx))
    rng = np.random.default_rng(7)
    stack = rng.integers(0, 4000, size=(5, ny, nx)).astype(np.uint16)
    stack[:, 10, 10:20] = 65535  # dummies
    mask = np.zeros((ny, nx), np.uint8)
    mask[30:34, 40:50] = 1
    np.save(os.path.join(work, "stack.npy"), stack)
    np.save(os.path.join(work, "frame.npy"), stack[0].astype(np.float32))
    np.save(os.path.join(work, "mask.npy"), mask)
    np.save(os.path.join(work, "mask_small.npy"), mask[:, :-1])
    # pyFAI's integrators keep state between calls (engines, cached arrays): each reference
    # comes from an integrator of its own, as a user's first call would.
    def fresh():
        return AzimuthalIntegrator.sload(poni)

    # pyFAI 0.21.3's 2-D matrix without splitting is not deterministic (docs/diffraction.md):
    # that reference comes from pyFAI's histogram engine, which builds no matrix and gives the
    # same values as a good matrix, but returns its 2-D sigma transposed, (npt_rad, npt_azim).
    def sigma_of(res, two_d):
        return np.asarray(res.sigma).T if two_d else res.sigma

    cases = [
        ("1-D bbox q", ["--npt", "100", "--unit", "q_nm^-1", "--mask", os.path.join(work, "mask.npy"), "--dummy", "65535",
                        "--batch", "2"], "stack.npy",
         lambda fr: fresh().integrate1d_ng(fr, 100, unit="q_nm^-1", method=("bbox", "csr", "cython"), mask=mask,
                                      dummy=65535, delta_dummy=None)),
        ("2-D no 2th poisson", ["--npt", "40", "--npt-azim", "36", "--method", "no", "--error-model", "poisson",
                                "--polarization", "0.9"], "stack.npy",
         lambda fr: fresh().integrate2d_ng(fr, 40, 36, unit="2th_deg", method=("no", "histogram", "cython"),
                                      error_model="poisson", polarization_factor=0.9)),
        ("1-D full r_mm radial range poisson", ["--npt", "60", "--unit", "r_mm", "--method", "full", "--mask",
                                                 os.path.join(work, "mask.npy"), "--radial-range", "1", "5",
                                                 "--error-model", "poisson"], "stack.npy",
         lambda fr: fresh().integrate1d_ng(fr, 60, unit="r_mm", method=("full", "csr", "cython"), mask=mask,
                                      radial_range=(1, 5), error_model="poisson")),
        ("2-D full q azimuth range", ["--npt", "30", "--npt-azim", "20", "--unit", "q_nm^-1", "--method", "full",
                                      "--azimuth-range", "-60", "80", "--dummy", "65535"], "stack.npy",
         lambda fr: fresh().integrate2d_ng(fr, 30, 20, unit="q_nm^-1", method=("full", "csr", "cython"),
                                      azimuth_range=(-60, 80), dummy=65535, delta_dummy=None)),
    ]
    for spec in devices(info):
        for name, opts, inp, ref in cases:
            out = os.path.join(work, "out")
            rc, _, err = run(tool, ["--poni", poni, "--device", spec] + opts + [os.path.join(work, inp), out])
            check(rc == 0, "%s on %s: exit %d: %s" % (name, spec, rc, err.strip()))
            if rc != 0:
                continue
            got = np.load(out + ".intensity.npy")
            radial = np.load(out + ".radial.npy")
            two_d = "--npt-azim" in opts
            check(got.shape[0] == stack.shape[0], "%s on %s: %d frames out of %d" % (name, spec, got.shape[0], 5))
            for k in range(stack.shape[0]):
                res = ref(stack[k])
                close(np, got[k], res.intensity, RTOL, "%s on %s, frame %d, intensity" % (name, spec, k))
                if k == 0:
                    close(np, radial, res.radial, RTOL_CENTRES, "%s on %s, radial centres" % (name, spec))
                    if two_d:
                        close(np, np.load(out + ".azimuthal.npy"), res.azimuthal, RTOL_CENTRES,
                              "%s on %s, azimuthal centres" % (name, spec))
                if "--error-model" in opts:
                    close(np, np.load(out + ".sigma.npy")[k], sigma_of(res, two_d), RTOL, "%s on %s, frame %d, sigma" %
                          (name, spec, k))
            for f in glob.glob(out + ".*"):
                os.remove(f)

    # One frame [ny, nx] gives [N]; the same frame in a stack gives the same numbers.
    out = os.path.join(work, "one")
    rc, _, err = run(tool, ["--poni", poni, "--npt", "64", os.path.join(work, "frame.npy"), out])
    check(rc == 0, "one frame: exit %d: %s" % (rc, err.strip()))
    if rc == 0:
        one = np.load(out + ".intensity.npy")
        check(one.shape == (64,), "one frame: intensity of shape %s, not (64,)" % (one.shape,))
        close(np, one, fresh().integrate1d_ng(stack[0].astype(np.float32), 64, unit="2th_deg",
                                         method=("bbox", "csr", "cython")).intensity, RTOL, "one frame, intensity")

    # A 4D-STEM scan [2, 3, ny, nx], as pyxem holds it: the outputs keep the scan axes, [2, 3, N]
    # and [2, 3, M, N], each frame's results those of the same frames as a stack [6, ny, nx],
    # bit for bit, and pyFAI's.
    scan = rng.integers(0, 4000, size=(2, 3, ny, nx)).astype(np.uint16)
    np.save(os.path.join(work, "scan.npy"), scan)
    np.save(os.path.join(work, "flat_scan.npy"), scan.reshape(6, ny, nx))
    for extra, tail in (([], (64,)), (["--npt-azim", "12"], (12, 64))):
        a, b = os.path.join(work, "scan4"), os.path.join(work, "scan3")
        opts = ["--poni", poni, "--npt", "64", "--batch", "4"] + extra
        ra = run(tool, opts + [os.path.join(work, "scan.npy"), a])
        rb = run(tool, opts + [os.path.join(work, "flat_scan.npy"), b])
        check(ra[0] == 0 and rb[0] == 0, "4-D scan %s: exits %d and %d: %s %s" % (extra, ra[0], rb[0], ra[2].strip(),
                                                                                 rb[2].strip()))
        if ra[0] == 0 and rb[0] == 0:
            got, flat = np.load(a + ".intensity.npy"), np.load(b + ".intensity.npy")
            check(got.shape == (2, 3) + tail, "4-D scan %s: intensity of shape %s, not %s" % (extra, got.shape,
                                                                                            (2, 3) + tail))
            check(got.shape == (2, 3) + tail and np.array_equal(got.reshape(flat.shape), flat),
                  "4-D scan %s: its results differ from the same frames' as a stack" % extra)
            two_d = bool(extra)
            for i, j in ((0, 0), (1, 2)):
                ref = fresh().integrate2d_ng(scan[i, j], 64, 12, unit="2th_deg", method=("bbox", "csr", "cython")) \
                    if two_d else fresh().integrate1d_ng(scan[i, j], 64, unit="2th_deg",
                                                         method=("bbox", "csr", "cython"))
                close(np, got[i, j], ref.intensity, RTOL, "4-D scan %s, frame (%d, %d), intensity" % (extra, i, j))

    # HDF5: the same stack as a dataset gives bit for bit the .npy's outputs.
    try:
        import h5py
    except ImportError as e:
        h5py = None
        why = "the HDF5 input check needs h5py (python3-h5py): %s: %s" % (sys.executable, e)
        check(not REQUIRED, why)
        skipped.append(why)
    if h5py is not None:
        h5 = os.path.join(work, "stack.h5")
        with h5py.File(h5, "w") as f:
            f.create_dataset("/entry/data", data=stack)
        a, b = os.path.join(work, "a"), os.path.join(work, "b")
        ra = run(tool, ["--poni", poni, "--npt", "50", "--batch", "3", os.path.join(work, "stack.npy"), a])
        rb = run(tool, ["--poni", poni, "--npt", "50", "--batch", "3", h5 + ":/entry/data", b])
        check(ra[0] == 0 and rb[0] == 0, "HDF5: exits %d and %d: %s %s" % (ra[0], rb[0], ra[2].strip(),
                                                                          rb[2].strip()))
        if ra[0] == 0 and rb[0] == 0:
            same = np.array_equal(np.load(a + ".intensity.npy"), np.load(b + ".intensity.npy"))
            check(same, "HDF5: the dataset's intensity differs from the .npy's")
            if same:
                print("ok: an HDF5 dataset gives the .npy's outputs bit for bit")
        with h5py.File(os.path.join(work, "scan.h5"), "w") as f:
            f.create_dataset("/entry/data", data=scan)
        a, b = os.path.join(work, "h5scan"), os.path.join(work, "npyscan")
        ra = run(tool, ["--poni", poni, "--npt", "50", "--npt-azim", "7", "--batch", "4",
                        os.path.join(work, "scan.h5") + ":/entry/data", a])
        rb = run(tool, ["--poni", poni, "--npt", "50", "--npt-azim", "7", "--batch", "4",
                        os.path.join(work, "scan.npy"), b])
        check(ra[0] == 0 and rb[0] == 0, "HDF5 4-D scan: exits %d and %d: %s %s" % (ra[0], rb[0], ra[2].strip(),
                                                                                  rb[2].strip()))
        if ra[0] == 0 and rb[0] == 0:
            ga, gb = np.load(a + ".intensity.npy"), np.load(b + ".intensity.npy")
            same = ga.shape == (2, 3, 7, 50) and np.array_equal(ga, gb)
            check(same, "HDF5 4-D scan: intensity of shape %s differs from the .npy's %s" % (ga.shape, gb.shape))
            if same:
                print("ok: a 4-D HDF5 dataset gives the 4-D .npy's outputs bit for bit, [2, 3, 7, 50]")
        rc, _, err = run(tool, ["--poni", poni, "--npt", "50", h5 + ":/entry/missing", os.path.join(work, "c")])
        check(rc == 1 and "/entry/missing" in err, "HDF5: a missing dataset: exit %d: %s" % (rc, err.strip()))
        # A dataspace of 2^62 frames (chunks never written take no room): refused when opened,
        # naming the dataset, since its bytes cannot be addressed.
        with h5py.File(h5, "a") as f:
            f.create_dataset("/entry/huge", shape=(2**62, ny, nx), dtype=np.uint16, chunks=(1, ny, nx))
        out = os.path.join(work, "huge")
        rc, _, err = run(tool, ["--poni", poni, "--npt", "50", h5 + ":/entry/huge", out])
        lines = err.strip().splitlines()
        check(rc == 1 and len(lines) == 1 and "/entry/huge: 4611686018427387904 frames of 48 x 64 elements are too "
              "large to address" in lines[0], "HDF5: 2^62 frames: exit %d: %r" % (rc, err))
        check(not glob.glob(out + ".*"), "HDF5: 2^62 frames: left output behind")
        compressed_datasets(np, h5py, tool, poni, work, ny, nx)

    # Bad input: a non-zero exit, one line naming the problem, and no output at all.
    with open(os.path.join(work, "bad.poni"), "w") as f:
        f.write("poni_version: 2\nDetector: Detector\nPoni1: 0.001\n")
    small = os.path.join(work, "small.poni")
    with open(small, "w") as f:
        f.write(open(poni).read().replace("[%d, %d]" % (ny, nx), "[%d, %d]" % (ny, nx - 1)))
    raw = open(os.path.join(work, "stack.npy"), "rb").read()
    with open(os.path.join(work, "cut.npy"), "wb") as f:
        f.write(raw[:len(raw) - 100])
    # A header naming 'shape' twice: numpy reads the last, (64, 48); the reader refuses it.
    header = ("{'descr': '<u2', 'fortran_order': False, 'shape': (%d, %d), 'shape': (%d, %d), }" %
              (ny, nx, nx, ny)).ljust(118) + "\n"
    with open(os.path.join(work, "twice.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + stack[0].tobytes())
    bad = [
        ("a .npy naming shape twice", ["--poni", poni, "--npt", "10", "twice.npy"], 1, "'shape' twice"),
        ("a missing PONI", ["--poni", os.path.join(work, "none.poni"), "--npt", "10", "stack.npy"], 1, "none.poni"),
        ("a PONI without Distance", ["--poni", os.path.join(work, "bad.poni"), "--npt", "10", "stack.npy"], 1,
         "Distance"),
        ("frames of another shape", ["--poni", small, "--npt", "10", "stack.npy"], 1, "48 x 63"),
        ("an unknown unit", ["--poni", poni, "--npt", "10", "--unit", "furlongs", "stack.npy"], 1, "furlongs"),
        ("a truncated .npy", ["--poni", poni, "--npt", "10", "cut.npy"], 1, "cut short"),
        ("a missing input", ["--poni", poni, "--npt", "10", "nothing.npy"], 1, "nothing.npy"),
        ("an unknown method", ["--poni", poni, "--npt", "10", "--method", "lut", "stack.npy"], 2, "lut"),
        ("no --npt", ["--poni", poni, "stack.npy"], 2, "--npt"),
        ("a mask of another shape", ["--poni", poni, "--npt", "10", "--mask", "mask_small.npy", "stack.npy"], 1,
         "mask_small.npy"),
    ]
    for name, args, want_rc, word in bad:
        out = os.path.join(work, "refused")
        args = [os.path.join(work, a) if a.endswith(".npy") else a for a in args]
        rc, _, err = run(tool, args + [out])
        lines = err.strip().splitlines()
        check(rc == want_rc, "%s: exit %d, expected %d (%s)" % (name, rc, want_rc, err.strip()))
        check(len(lines) == 1 and word in lines[0],
              "%s: stderr should be one line naming %r: %r" % (name, word, err))
        left = glob.glob(out + ".*")
        check(not left, "%s: left %s behind" % (name, left))
        for f in left:  # so that the next case's check is its own
            os.remove(f)
        if rc == want_rc and len(lines) == 1 and not left:
            print("ok: %s refused: %s" % (name, lines[0]))

    # OUT is a prefix of file names: an empty one or one naming a folder is a bad command line,
    # and nothing is written (no hidden .intensity.npy in the folder).
    os.makedirs(os.path.join(work, "outdir"), exist_ok=True)
    for out in ("", os.path.join(work, "outdir") + "/", os.path.join(work, "outdir", "."), "."):
        before = set(os.listdir(work)) | {os.path.join("outdir", f) for f in os.listdir(os.path.join(work, "outdir"))}
        rc, _, err = run(tool, ["--poni", poni, "--npt", "10", os.path.join(work, "frame.npy"), out], cwd=work)
        after = set(os.listdir(work)) | {os.path.join("outdir", f) for f in os.listdir(os.path.join(work, "outdir"))}
        lines = err.strip().splitlines()
        check(rc == 2 and len(lines) == 1 and ("OUT \"%s\" names no file" % out) in lines[0],
              "OUT %r: exit %d, expected 2 with one line naming OUT: %r" % (out, rc, err))
        check(after == before, "OUT %r: wrote %s" % (out, sorted(after - before)))
        if rc == 2 and after == before:
            print("ok: OUT %r refused: %s" % (out, lines[0]))

    # A size whose integrator cannot fit is refused before it is built: at once, naming --npt and
    # the estimate (within 4 GB of memory, tests/memory_limit.py, so that a regression fails fast).
    np.save(os.path.join(work, "big_frame.npy"), np.ones((128, 128), np.float32))
    with open(os.path.join(work, "big.poni"), "w") as f:
        f.write(open(poni).read().replace("[%d, %d]" % (ny, nx), "[128, 128]"))
    start = time.monotonic()
    rc, _, err = run(tool, ["--poni", os.path.join(work, "big.poni"), "--npt", "1000000000",
                            os.path.join(work, "big_frame.npy"), os.path.join(work, "huge")], **limited(4 << 30))
    took = time.monotonic() - start
    lines = err.strip().splitlines()
    check(rc == 1 and len(lines) == 1 and "--npt 1000000000: " in lines[0] and "need an estimated" in lines[0],
          "--npt 1000000000: exit %d, expected 1 with one line naming --npt and the estimate: %r" % (rc, err))
    check(took < 20, "--npt 1000000000: took %.1f s to refuse" % took)
    check(not glob.glob(os.path.join(work, "huge.*")), "--npt 1000000000: left output behind")
    if rc == 1:
        print("ok: --npt 1000000000 on 128 x 128 frames refused in %.2f s: %s" % (took, lines[0] if lines else ""))

    print("pyFAI %s; %d failures" % (pyFAI.version, len(failures)))
    if not failures and skipped:
        print("SKIP: " + "; ".join(skipped))
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
