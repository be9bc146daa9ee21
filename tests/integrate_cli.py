#!/usr/bin/env python3
"""tests/integrate_cli.py - anygpu-integrate run as a user runs it, on the host and on every
OpenCL device anygpu-info lists: its outputs against pyFAI 0.21.3's integrate1d_ng and
integrate2d_ng (method bbox/no/full, csr, cython) on the same frames, .npy and HDF5 inputs giving the
same outputs, and bad input refused with one line and no output left behind.

usage: integrate_cli.py ANYGPU_INTEGRATE ANYGPU_INFO WORKDIR
Exit status 0 when every check passes, 1 on a failure (each printed), 77 (skipped, with the
reason) without numpy or pyFAI, or when the other checks passed without h5py, which the HDF5
input check needs. Under -Dreferences=required (ANYGPU_TEST_REFERENCES=required) a missing
reference is a failure.
"""
import glob
import os
import re
import subprocess
import sys

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


def run(tool, args):
    p = subprocess.run([tool] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def devices(info):
    out = subprocess.run([info], capture_output=True, text=True).stdout
    specs = ["host"]
    for line in out.splitlines():
        m = re.match(r"\s+\d+\s+(opencl:\d+)\s", line)
        if m:
            specs.append(m.group(1))
    return specs


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    tool, info, work = argv[1], argv[2], argv[3]
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
        rc, _, err = run(tool, ["--poni", poni, "--npt", "50", h5 + ":/entry/missing", os.path.join(work, "c")])
        check(rc == 1 and "/entry/missing" in err, "HDF5: a missing dataset: exit %d: %s" % (rc, err.strip()))

    # Bad input: a non-zero exit, one line naming the problem, and no output at all.
    with open(os.path.join(work, "bad.poni"), "w") as f:
        f.write("poni_version: 2\nDetector: Detector\nPoni1: 0.001\n")
    small = os.path.join(work, "small.poni")
    with open(small, "w") as f:
        f.write(open(poni).read().replace("[%d, %d]" % (ny, nx), "[%d, %d]" % (ny, nx - 1)))
    raw = open(os.path.join(work, "stack.npy"), "rb").read()
    with open(os.path.join(work, "cut.npy"), "wb") as f:
        f.write(raw[:len(raw) - 100])
    bad = [
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
        if rc == want_rc and len(lines) == 1 and not left:
            print("ok: %s refused: %s" % (name, lines[0]))

    print("pyFAI %s; %d failures" % (pyFAI.version, len(failures)))
    if not failures and skipped:
        print("SKIP: " + "; ".join(skipped))
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
