#!/usr/bin/env python3
"""tests/pyfai_geometry.py - the per-pixel arrays pyFAI computes for a PONI file, as .npy files,
for tests/test_geometry.c to compare with anygpu's (include/anygpu/diffraction.h).

usage: pyfai_geometry.py PONI OUTDIR ROWS COLS

Writes into OUTDIR, for an image of ROWS x COLS pixels, from one AzimuthalIntegrator loaded from
PONI, each array as pyFAI's integrators ask for it:
  center_U.npy, delta_U.npy   array_from_unit(shape, "center"/"delta", unit, scale=True)
  corners_U.npy               corner_array(shape, unit, scale=True)
  for U in 2th_deg, 2th_rad, q_nm^-1, q_A^-1, r_mm, r_m (q only when the file has a wavelength;
  '^' is left out of file names: q_nm-1, q_A-1);
  chi.npy, delta_chi.npy      chiArray(shape), deltaChi(shape)
  solid_angle.npy             solidAngleArray(shape, order=3, absolute=False)
  polarization_0.95.npy, polarization_-0.5.npy   polarization(shape, factor, axis_offset=0)
and version.txt with pyFAI's version. Exits 2 on bad arguments, 1 when pyFAI fails.
"""
import os
import sys


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    poni, outdir, rows, cols = argv[1], argv[2], int(argv[3]), int(argv[4])
    import numpy
    import pyFAI
    from pyFAI.azimuthalIntegrator import AzimuthalIntegrator

    ai = AzimuthalIntegrator.sload(poni)
    shape = (rows, cols)

    def save(name, array):
        numpy.save(os.path.join(outdir, name + ".npy"), numpy.ascontiguousarray(array))

    units = ["2th_deg", "2th_rad", "r_mm", "r_m"]
    if ai.wavelength:
        units += ["q_nm^-1", "q_A^-1"]
    for unit in units:
        name = unit.replace("^", "")
        save("center_" + name, ai.array_from_unit(shape, "center", unit, scale=True))
        save("delta_" + name, ai.array_from_unit(shape, "delta", unit, scale=True))
        save("corners_" + name, ai.corner_array(shape, unit, scale=True))
    save("chi", ai.chiArray(shape))
    save("delta_chi", ai.deltaChi(shape))
    save("solid_angle", ai.solidAngleArray(shape, order=3, absolute=False))
    for factor in (0.95, -0.5):
        save("polarization_%s" % factor, ai.polarization(shape, factor=factor, axis_offset=0))
    # Every array above came from pixel coordinates, none from a detector's corner table, which
    # pyFAI would use from then on (detectors/_common.py): the comparison assumes so.
    assert ai.detector._pixel_corners is None
    with open(os.path.join(outdir, "version.txt"), "w") as f:
        f.write(pyFAI.version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
