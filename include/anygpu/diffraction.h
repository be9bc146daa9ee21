/* anygpu/diffraction.h — diffraction geometry on the host: pyFAI's PONI files, and the
   per-pixel arrays pyFAI 0.21.3 computes from them for a flat detector (radial position in
   each unit, azimuth chi, pixel corners and their spread, solid angle and polarisation
   corrections), in double precision, formula for formula and in pyFAI's order of operations,
   so that an integrator built on them puts every pixel in the bin pyFAI puts it in.
   docs/diffraction.md gives the conventions and the measured agreement with pyFAI.

   Conventions (pyFAI's): axis 1 is the slow axis (rows, "y"), axis 2 the fast axis (columns,
   "x"); lengths in metres, angles in radians. The PONI (point of normal incidence) is at
   (poni1, poni2) metres from the detector's first corner, dist metres from the sample. The
   rotations rot1, rot2, rot3 turn the detector about axes 1, 2 and 3 (the beam), in that
   order. Pixel (i, j)'s centre is at ((i + 0.5) pixel1, (j + 0.5) pixel2); its corners are
   the grid points (i, j), (i + 1, j), (i + 1, j + 1) and (i, j + 1), in that order.

   Threads: every function here is pure: it reads its arguments and writes its output, and
   may be called from any thread at once. None needs a device or initialises the library.

   Ownership: outputs are the caller's host buffers of doubles, C order, filled completely on
   success and left as they were on failure. An ag_poni is a plain struct with nothing to
   free; texts and paths passed in are read during the call and not kept. */
#ifndef ANYGPU_DIFFRACTION_H
#define ANYGPU_DIFFRACTION_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AG_PONI_DETECTOR_MAX 64

/** A diffraction geometry as a PONI file holds it. */
typedef struct ag_poni {
  double dist;             /* sample to PONI distance, metres, > 0 */
  double poni1, poni2;     /* the PONI's position on the detector, metres */
  double rot1, rot2, rot3; /* radians */
  double wavelength;       /* metres; 0 when the file gives none */
  double pixel1, pixel2;   /* pixel size along axis 1 (rows) and axis 2 (columns), metres */
  size_t rows, cols;       /* the detector's shape; 0, 0 when the file gives none */
  char detector[AG_PONI_DETECTOR_MAX]; /* pyFAI's detector class ("Detector", "Pilatus1M") */
} ag_poni;

/** Reads a PONI file's text, as pyFAI's PoniFile does: `poni_version: 2` (Detector,
    Detector_config as JSON with pixel1, pixel2 and max_shape, Distance, Poni1, Poni2, Rot1,
    Rot2, Rot3, Wavelength) and version 1 (PixelSize1 and PixelSize2 lines, SplineFile None);
    version 2.1 files of later pyFAI too, when their detector orientation is 3 (0.21's
    convention). Lines are `key: value` (or `key = value`), keys in any case; blank lines,
    lines starting with `#` and lines with neither `:` nor `=` are skipped (as pyFAI does);
    CRLF line ends are taken. Absent Poni1, Poni2 and rotations are 0, as pyFAI's defaults.
    A detector named without pixel sizes takes them, and its shape, from a built-in table of
    pyFAI's Pilatus, Eiger and Eiger2 detectors (docs/diffraction.md lists them); another name
    needs its pixel sizes in the file. Numbers are read as pyFAI reads them, with Python's
    float(): decimal digits (single underscores between digits allowed), an optional point
    and exponent; hexadecimal ("0x10") and other spellings are not numbers, and inf, nan and
    values beyond a double (which pyFAI takes) are refused as not finite. Detector_config's
    numbers are JSON's. @p out is filled only on success.
    @return AG_ERR_INVALID_ARGUMENT for a NULL argument, a missing Distance, a number that
            does not parse or is not finite, a Distance or pixel size of 0 or below, a missing
            pixel size, a Detector_config that is not a JSON object, a poni_version that is
            not a number, or below 2.1 and neither 1 nor 2; AG_ERR_UNSUPPORTED for what this reader cannot compute
            exactly: a poni_version above 2.1, a named detector of unknown pixel size, a
            detector pyFAI models as non-flat or non-uniform (ImXPad, Jungfrau, Pixirad,
            cylindrical ones), a spline or offset distortion file, another orientation, a
            Detector_config key it does not know. Messages name the function, the line and
            the key. */
AG_API ag_status ag_poni_parse(const char *text, ag_poni *out);

/** ag_poni_parse() on the contents of the file at @p path; messages also name the file.
    @return as ag_poni_parse(), and AG_ERR_INVALID_ARGUMENT when the file cannot be read (the
            message gives the system's reason) or is over 1 MiB. */
AG_API ag_status ag_poni_read(const char *path, ag_poni *out);

/** Radial units, pyFAI's names in comments. pyFAI computes 2th in radians, q in nm^-1 and r in
    metres and multiplies by the unit's scale; its integrators bin those unscaled values (its
    scale=False arrays), which are AG_RADIAL_2TH_RAD, AG_RADIAL_Q_NM and AG_RADIAL_R_M. */
typedef enum ag_radial_unit {
  AG_RADIAL_2TH_DEG = 0, /* "2th_deg": scattering angle 2θ, degrees */
  AG_RADIAL_2TH_RAD = 1, /* "2th_rad" */
  AG_RADIAL_Q_NM = 2,    /* "q_nm^-1": 4π sin(2θ/2) / λ, needs the wavelength */
  AG_RADIAL_Q_A = 3,     /* "q_A^-1" */
  AG_RADIAL_R_MM = 4,    /* "r_mm": distance from the beam in the detector's plane */
  AG_RADIAL_R_M = 5,     /* "r_m" */
} ag_radial_unit;

#define AG_RADIAL_UNIT_COUNT 6

/** pyFAI's name of @p unit ("2th_deg", "q_nm^-1", ...); "unknown" outside the enum. Static. */
AG_API const char *ag_radial_unit_name(ag_radial_unit unit);
/** The unit pyFAI calls @p name.
    @return AG_ERR_INVALID_ARGUMENT for NULL or a name not in the enum (the message lists them). */
AG_API ag_status ag_radial_unit_from_name(const char *name, ag_radial_unit *unit);

/** Which per-pixel value: at the pixel's centre, or its spread (pyFAI's "delta" arrays, used
    for bounding-box splitting): the largest distance from the centre's value to a corner's. */
typedef enum ag_pixel_part {
  AG_PIXEL_CENTER = 0,
  AG_PIXEL_DELTA = 1,
} ag_pixel_part;

/* Every function below fills @p out for an image of rows x cols pixels (usually the PONI's
   rows and cols; 0 of either gives nothing to do and succeeds) from @p poni's distance, PONI,
   rotations, pixel sizes and wavelength. Each returns AG_ERR_INVALID_ARGUMENT for a NULL
   argument, an enum value outside its enum, or a geometry field that is not finite, a dist
   or pixel size of 0 or below (messages name the field as ag_poni.field); AG_ERR_OUT_OF_RANGE
   when the output's size overflows;
   AG_ERR_OUT_OF_MEMORY where two rows of corners cannot be allocated
   (ag_geometry_corners and the DELTA parts).

   pyFAI computes pixel centres in float32 (pixel size times index plus a half, minus the
   PONI, all rounded to float), then everything after in double: these functions do the same,
   so a centre's value can differ from the exact double one by ~1e-7 relative, as pyFAI's
   does. A pixel size or PONI beyond float32 (outside (-3.4e38, 3.4e38)) makes numpy compute
   in float64, and these functions too. Positions that overflow a double come out inf or NaN,
   as pyFAI's do. */

/** Radial position of each pixel, rows x cols: pyFAI's array_from_unit(shape, "center" or
    "delta", unit, scale=True) — twoThetaArray, qArray or rArray times the unit's scale, and
    delta2Theta, deltaQ or deltaR times it.
    @return as above, and AG_ERR_INVALID_ARGUMENT for a q unit when poni->wavelength is 0. The
            message names the field as ag_poni.wavelength. */
AG_API ag_status ag_geometry_radial(const ag_poni *poni, size_t rows, size_t cols, ag_radial_unit unit,
                                    ag_pixel_part part, double *out);

/** Azimuth chi of each pixel, rows x cols, radians: pyFAI's chiArray (atan2 of the beam-frame
    y and x, in [-π, π], the discontinuity at π as pyFAI's default) or deltaChi (the largest
    angular distance from the centre to a corner, taken both ways round the circle, so a pixel
    on the discontinuity has a small spread). */
AG_API ag_status ag_geometry_chi(const ag_poni *poni, size_t rows, size_t cols, ag_pixel_part part, double *out);

/** Radial position and chi of each pixel's four corners, rows x cols x 4 x 2 ([i][j][k][0] is
    corner k's radial value, [i][j][k][1] its chi), corners in the order above: pyFAI's
    corner_array(shape, unit, scale=True). pyFAI keeps corners in float32: they are computed
    in double and rounded to float, the radial value then multiplied by the unit's scale in
    float, as pyFAI does; the doubles written hold those float values exactly.
    @return as ag_geometry_radial(). */
AG_API ag_status ag_geometry_corners(const ag_poni *poni, size_t rows, size_t cols, ag_radial_unit unit,
                                     double *out);

/** Solid angle correction of each pixel relative to the PONI's, rows x cols: cos³ of the
    incidence angle, pyFAI's solidAngleArray(shape, order=3, absolute=False). */
AG_API ag_status ag_geometry_solid_angle(const ag_poni *poni, size_t rows, size_t cols, double *out);

/** Polarisation correction of each pixel, rows x cols: pyFAI's polarization(shape, factor,
    axis_offset), (1 + cos²2θ - factor cos(2(chi + axis_offset)) sin²2θ) / 2. @p factor is
    (Ih - Iv) / (Ih + Iv): 0 unpolarised, 1 horizontal, -1 vertical; @p axis_offset (radians)
    turns the polarisation plane from the detector's axis 2. pyFAI returns float32: the
    doubles written hold its float values exactly.
    @return as above, and AG_ERR_INVALID_ARGUMENT for a factor or offset that is not finite. */
AG_API ag_status ag_geometry_polarization(const ag_poni *poni, size_t rows, size_t cols, double factor,
                                          double axis_offset, double *out);

#ifdef __cplusplus
}
#endif

#endif
