#!/usr/bin/env python3
"""tests/pyfai_azint.py - one azimuthal integration by pyFAI's CSR integrator, its sparse matrix
and its results as .npy files, for tests/test_azint.c to compare with anygpu's
(include/anygpu/azint.h).

usage: pyfai_azint.py PONI OUTDIR KEY=VALUE...

Keys: npt_rad, npt_azim (0 or absent: integrate1d_ng, else integrate2d_ng), unit (pyFAI's
name), split (bbox, no or full), radial=LO,HI, azimuth=LO,HI (degrees), frame, mask, dark, flat, variance
(.npy paths: the frame is rows x cols, the mask nonzero where a pixel is left out), dummy,
delta_dummy, polarization (factor), solid_angle (0 turns it off), normalization (factor),
error_model (poisson).

pyFAI 0.21.3 now and then builds a wrong 2-D matrix without splitting; that integration is run
with fresh integrators until one matrix comes out three times (exit 3 when none does in 40
builds).
Its 2-D full splitting reads a buffer it never cleared for the first unmasked pixel; here that
buffer comes cleared (clear_full_split_buffer, which the other tests that compare with pyFAI's
full splitting import).

Writes into OUTDIR: lut_data.npy (float32), lut_indices.npy and lut_indptr.npy (int32), the
matrix the integration used; radial.npy (the unit's bin centres) and, in 2-D, azimuthal.npy
(degrees); intensity.npy, signal.npy, normalization.npy, count.npy and, with an error model,
sigma.npy and variance.npy (with an error model or a variance), as float64; version.txt. Exits 2 on bad arguments, 1 when pyFAI
fails.
"""
import os
import sys


def clear_full_split_buffer():
    """FullSplitIntegrator.calc_lut_2d (pyFAI 0.21.3) sums the first unmasked pixel's areas
    onto a buffer from numpy.empty, cleared only after each pixel, so that pixel's shares are
    now and then off by whatever the allocator left there. This gives its module a numpy whose
    empty is zeros: the buffer then starts as every later pixel finds it, and pyFAI's 2-D
    full-splitting matrix is deterministic. Other matrices do not use it."""
    import types
    import numpy
    import pyFAI.ext.splitpixel_common as common
    cleared = types.ModuleType("numpy")
    cleared.__dict__.update(numpy.__dict__)
    cleared.empty = numpy.zeros
    common.numpy = cleared


def integrate(make_integrator, frame, npt_rad, npt_azim=0, **kwargs):
    """pyFAI's integrate1d_ng (npt_azim 0) or integrate2d_ng of @frame by an integrator from
    @make_integrator(), as (result, (data, indices, indptr) of the matrix it used), or None.

    pyFAI 0.21.3's 2-D matrix without splitting is now and then wrong (empty, missing pixels,
    or every pixel whatever the azimuth range), as if it read an uninitialised pixel size
    (HistoBBox2d with split "no"), most often in the first build of a process and, on a loaded
    machine, in many; one wrong matrix has come out twice in a row there (24597 entries where
    the right one has 2227). Such a matrix is built with fresh integrators, after a throwaway
    build, until one nonempty matrix has come out three times (up to 40 builds), and that
    build's integration is taken; None when none does: pyFAI gave no reference. Other matrices are deterministic, the 2-D one with full splitting once
    its buffer is cleared (clear_full_split_buffer, the caller's to call)."""
    import numpy
    method = kwargs.get("method", ("bbox", "csr", "cython"))
    unstable = npt_azim and method[0] == "no"
    if unstable:
        make_integrator().integrate2d_ng(frame, npt_rad, npt_azim, **kwargs)
    seen = []
    for attempt in range(40 if unstable else 1):
        ai = make_integrator()
        if npt_azim:
            res = ai.integrate2d_ng(frame, npt_rad, npt_azim, **kwargs)
        else:
            res = ai.integrate1d_ng(frame, npt_rad, **kwargs)
        engines = [e.engine for k, e in ai.engines.items() if k.dimension == (2 if npt_azim else 1)]
        assert len(engines) == 1, engines
        lut = tuple(numpy.array(a) for a in engines[0].lut)
        if not unstable:
            return res, lut
        same = sum(all(numpy.array_equal(x, y) for x, y in zip(lut, other)) for other in seen)
        if len(lut[0]) > 0 and same >= 2:
            return res, lut
        seen.append(lut)
    return None


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    poni, outdir = argv[1], argv[2]
    args = dict(a.split("=", 1) for a in argv[3:])
    import numpy
    import pyFAI
    from pyFAI.azimuthalIntegrator import AzimuthalIntegrator

    def load(key):
        return numpy.load(args[key]) if key in args else None

    def pair(key):
        return tuple(float(v) for v in args[key].split(",")) if key in args else None

    def number(key):
        return float(args[key]) if key in args else None

    frame = load("frame")
    npt_rad = int(args["npt_rad"])
    npt_azim = int(args.get("npt_azim", "0"))
    method = (args.get("split", "bbox"), "csr", "cython")
    kwargs = dict(unit=args.get("unit", "2th_deg"), method=method, radial_range=pair("radial"),
                  azimuth_range=pair("azimuth"), mask=load("mask"), dark=load("dark"), flat=load("flat"),
                  dummy=number("dummy"), delta_dummy=number("delta_dummy"),
                  polarization_factor=number("polarization"),
                  correctSolidAngle=args.get("solid_angle", "1") != "0",
                  normalization_factor=float(args.get("normalization", "1")),
                  error_model=args.get("error_model"), variance=load("variance"))
    if method[0] == "full":
        clear_full_split_buffer()
    got = integrate(lambda: AzimuthalIntegrator.sload(poni), frame, npt_rad, npt_azim, **kwargs)
    if got is None:
        sys.stderr.write("pyfai_azint.py: no 2-D matrix without splitting came out of pyFAI three times in 40 "
                         "builds\n")
        return 3
    res, lut = got
    data, indices, indptr = lut

    def save(name, array):
        numpy.save(os.path.join(outdir, name + ".npy"), numpy.ascontiguousarray(array))

    save("lut_data", numpy.asarray(data, dtype=numpy.float32))
    save("lut_indices", numpy.asarray(indices, dtype=numpy.int32))
    save("lut_indptr", numpy.asarray(indptr, dtype=numpy.int32))
    save("radial", numpy.asarray(res.radial, dtype=numpy.float64))
    if npt_azim:
        save("azimuthal", numpy.asarray(res.azimuthal, dtype=numpy.float64))
    fields = {"intensity": res.intensity, "signal": res.sum_signal, "normalization": res.sum_normalization,
              "count": res.count, "sigma": res.sigma, "variance": res.sum_variance}
    for name, value in fields.items():
        with_error = kwargs["error_model"] or kwargs["variance"] is not None
        if value is not None and (name not in ("sigma", "variance") or with_error):
            save(name, numpy.asarray(value, dtype=numpy.float64))
    with open(os.path.join(outdir, "version.txt"), "w") as f:
        f.write(pyFAI.version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
