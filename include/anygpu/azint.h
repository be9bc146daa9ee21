/* anygpu/azint.h — azimuthal integration on any device, as pyFAI 0.21.3's CSR integrator
   (AzimuthalIntegrator.integrate1d_ng and integrate2d_ng with method ("bbox", "no" or "full",
   "csr", "cython")) defines it: the same bins, the same pixel shares (bounding boxes, no
   splitting, or full splitting by the area of each pixel's quadrilateral in each bin), the
   same corrections in the same places, so that its results match pyFAI's to float precision.
   docs/diffraction.md gives the details and the measured agreement.

   An integrator is made once from a geometry and options (ag_integrator_create): the sparse
   matrix of pixel shares (each output bin a row, each pixel a column) is built on the host in
   double precision, as pyFAI builds it, and stored on the device with the per-pixel
   corrections (solid angle, polarisation, flat, normalisation factor). Each ag_integrate()
   then runs on the device as one kernel, which reads the frames in their own dtype and each
   bin's row of the matrix, applies dummies, dark, corrections and variance per pixel, sums the
   bin and divides.

   Threads: an integrator is immutable once made; any number of threads may integrate with it
   at once, each on its own queue. Ownership: ag_integrator_create() gives the caller an
   integrator to release with ag_integrator_destroy(); host arrays in the options are copied
   during the call. ag_integrate() gives the caller the arrays of its result, released with
   ag_integrate_result_free(). */
#ifndef ANYGPU_AZINT_H
#define ANYGPU_AZINT_H

#include "array.h"
#include "diffraction.h"
#include "sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How a pixel is shared between bins, as pyFAI 0.21.3's CSR integrators share it. */
typedef enum ag_split {
  /** pyFAI's "bbox": spread evenly over the pixel's bounding box in radial position and chi
      (ext/splitBBoxCSR.pyx). */
  AG_SPLIT_BBOX = 0,
  /** pyFAI's "no": the whole pixel to the bin of its centre. */
  AG_SPLIT_NO = 1,
  /** pyFAI's "full" (method ("full", "csr", "cython"), ext/splitPixelFullCSR.pyx): the pixel is
      the quadrilateral of its four corners in radial position and chi, shared between bins
      by the area of it that falls in each; the bins' span comes from the corners. */
  AG_SPLIT_FULL = 2,
} ag_split;

/** Where the variance comes from. AG_ERROR_POISSON follows pyFAI 0.21.3: in 1-D (integrate1d_ng's
    Cython CSR engine) the variance of a pixel is max(raw, 1), the dark not added (whatever its
    docstring says); in 2-D (integrate2d_ng) it is the raw value itself, which may be below 1.
    AG_ERROR_VARIANCE takes a per-pixel array. */
typedef enum ag_error_model {
  AG_ERROR_NONE = 0,
  AG_ERROR_POISSON = 1,
  AG_ERROR_VARIANCE = 2,
} ag_error_model;

/** What an integrator does. Zero means "default" where a default is said; an options struct
    zeroed, with npt_rad set, integrates in 1-D over 2θ in degrees with bounding-box splitting
    and the solid-angle correction, in f32. */
typedef struct ag_integrate_options {
  size_t npt_rad;              /* radial bins, > 0 */
  size_t npt_azim;             /* azimuthal bins; 0 for a 1-D integration */
  ag_radial_unit unit;         /* of the radial axis, its range and its bin centres */
  ag_split split;
  size_t rows, cols;           /* the frames' shape; 0, 0: the PONI's rows and cols */
  bool has_radial_range;       /* bins span [radial_min, radial_max] in unit, else the pixels' span */
  double radial_min, radial_max;
  bool has_azimuth_range;      /* chi in [azimuth_min, azimuth_max] degrees only, as pyFAI */
  double azimuth_min, azimuth_max;
  const uint8_t *mask;         /* rows x cols, nonzero for a pixel left out; NULL for none */
  bool has_dummy;              /* pixels whose value is dummy (within delta_dummy) are left out */
  double dummy, delta_dummy;   /* dummy is also the value of empty bins; else empty is 0 */
  const float *dark;           /* rows x cols subtracted from each frame; NULL for none */
  const float *flat;           /* rows x cols divided through the normalisation; NULL for none */
  bool no_solid_angle;         /* true turns the solid-angle correction off (on by default) */
  bool has_polarization;       /* applies ag_geometry_polarization's correction */
  double polarization_factor;  /* its factor, -1 to 1 (axis offset 0) */
  double normalization_factor; /* divides the result; 0 means 1 */
  ag_error_model error_model;
  const float *variance;       /* rows x cols, for AG_ERROR_VARIANCE */
  ag_dtype dtype;              /* the engine's: AG_F32 (default, 0 taken as f32) or AG_F64 */
} ag_integrate_options;

/** An integrator on one device. The caller's (ag_integrator_create / ag_integrator_destroy). */
typedef struct ag_integrator ag_integrator;

/** What one ag_integrate() call gives: arrays of the engine's dtype on the integrator's device,
    each the frames' scan axes followed by [npt_rad] in 1-D or [npt_azim, npt_rad] in 2-D: a
    single [rows, cols] frame gives [npt_rad] or [npt_azim, npt_rad], a stack [B, rows, cols]
    [B, npt_rad] or [B, npt_azim, npt_rad], a 4-D scan [S1, S2, rows, cols] (pyxem's 4D-STEM
    data) [S1, S2, npt_rad] or [S1, S2, npt_azim, npt_rad]. pyFAI's
    Integrate1dResult and Integrate2dResult fields: intensity = sum_signal / sum_normalization
    and sigma = sqrt(sum_variance) / sum_normalization where count > 0, else the empty value;
    sum_signal = Σ w (raw - dark), sum_variance = Σ w² var, sum_normalization = Σ w norm,
    count = Σ w over valid pixels, w being a pixel's share of the bin. */
typedef struct ag_integrate_result {
  ag_array *intensity, *sigma, *sum_signal, *sum_variance, *sum_normalization, *count;
} ag_integrate_result;

/** A new integrator on @p dev for @p poni and @p opt: the caller's, released with
    ag_integrator_destroy(). Builds the sparse matrix of pixel shares on the host and copies it,
    and the corrections, to the device. Before any of it is allocated, the memory it needs is
    estimated from its bins, its pixels and the number of shares its matrix will hold (the
    host's while it is built; the device's after: the matrix, a copy of it on CPU devices, the
    per-pixel corrections, per-bin workspaces and one frame's six results), and an integrator
    that would not fit is refused (docs/diffraction.md, "Memory").
    @return AG_ERR_INVALID_ARGUMENT for a NULL argument, npt_rad of 0, a unit, split or error
            model outside its enum, a range whose low end is not below its high end or is not
            finite, no shape (neither opt->rows and cols nor the PONI's), AG_ERROR_VARIANCE
            without a variance array, a dtype other than f32 and f64, a q unit without a
            wavelength, a geometry field that is not finite, a dist or pixel size of 0 or below,
            or a geometry that puts an unmasked pixel's position beyond a double (pixels of
            1e300 m in r); AG_ERR_MISMATCH for opt->rows and cols other than the detector's
            shape (poni->rows and cols, when not 0), which pyFAI refuses too;
            AG_ERR_UNSUPPORTED for f64 on a device without double precision;
            AG_ERR_OUT_OF_RANGE when the detector has more than 2^31 pixels or there are more
            than 2^31 bins; AG_ERR_OUT_OF_MEMORY for an integrator whose estimate exceeds the
            host memory the process may take (physical, or less under ulimit -v; with the
            device's on a CPU device), the device's global_memory or its max_allocation (the
            message names opt->npt_rad and opt->npt_azim, the estimate and the limit), or when an
            allocation fails. Messages name the function and the field (ag_poni's as
            ag_poni.field). */
AG_API ag_status ag_integrator_create(ag_device *dev, const ag_poni *poni, const ag_integrate_options *opt,
                                      ag_integrator **out);

/** An integrator whose bins are @p shares, a matrix of the caller's (pixel shares of any
    splitting: pyxem's polygons, a full-split matrix from elsewhere) in pyFAI's layout: one row
    per bin (bin (radial i, azimuthal j) at row i * npt_azim + j), one column per pixel, on
    @p dev. Its entries are copied (read back, with their squares for the variance) and
    @p shares may be destroyed afterwards. radial_centres (npt_rad values, in opt->unit) and, in
    2-D, azimuthal_centres (npt_azim, degrees) are what ag_integrator_radial and
    ag_integrator_azimuthal will report. The options' corrections, dummies, error model and
    dtype apply as in ag_integrator_create(); their split, ranges and mask are the matrix's
    business and are not used.
    @return as ag_integrator_create() (its estimate of the memory taken with @p shares'
            entries), and AG_ERR_MISMATCH when @p shares is on another device or is not
            npt_rad x max(npt_azim, 1) rows by rows x cols columns (the message gives both
            shapes). */
AG_API ag_status ag_integrator_create_from_csr(ag_device *dev, const ag_poni *poni, const ag_integrate_options *opt,
                                               const ag_csr *shares, const double *radial_centres,
                                               const double *azimuthal_centres, ag_integrator **out);

/** Releases an integrator; NULL is a no-op. As ag_csr_destroy(), without waiting. */
AG_API void ag_integrator_destroy(ag_integrator *integ);

/** Integrates @p frames of any real dtype on the integrator's device, [rows, cols] or frames
    after any scan axes ([B, rows, cols], [S1, S2, rows, cols]: up to AG_MAX_DIMS dimensions in
    all), each frame alone, into @p result's new arrays, which keep the scan axes
    (ag_integrate_result; the caller's: ag_integrate_result_free()). Runs on queue @p q (NULL:
    the default queue) and returns without waiting.
    @return AG_ERR_INVALID_ARGUMENT for a NULL argument; AG_ERR_MISMATCH for frames of another
            shape or device, or of one dimension (the message gives the shape expected);
            AG_ERR_UNSUPPORTED for a complex dtype, or f64 frames on a device without double
            precision; what the kernels' launches return. *result is left zeroed on failure. */
AG_API ag_status ag_integrate(ag_queue *q, ag_integrator *integ, const ag_array *frames, ag_integrate_result *result);

/** Frees a result's arrays and zeroes it; NULL is a no-op. */
AG_API void ag_integrate_result_free(ag_integrate_result *result);

/** The npt_rad radial bin centres, in the options' unit, as pyFAI reports them.
    @return AG_ERR_INVALID_ARGUMENT for NULL. */
AG_API ag_status ag_integrator_radial(const ag_integrator *integ, double *centres);

/** The npt_azim azimuthal bin centres, degrees, as pyFAI's integrate2d_ng reports them.
    @return AG_ERR_INVALID_ARGUMENT for NULL, or for a 1-D integrator. */
AG_API ag_status ag_integrator_azimuthal(const ag_integrator *integ, double *centres);

/** The integrator's sparse matrix of pixel shares, borrowed (it lives as long as @p integ):
    rows are bins (in 2-D, bin (radial i, azimuthal j) is row i * npt_azim + j, pyFAI's order),
    columns pixels (row-major), values the shares in the engine's dtype. Read it with
    ag_csr_to_host(), or multiply with it.
    @return AG_ERR_INVALID_ARGUMENT for NULL. */
AG_API ag_status ag_integrator_csr(const ag_integrator *integ, const ag_csr **csr);

/** Integrates @p n frames in host memory (each rows x cols elements of the real dtype
    @p frames_dtype, one after the other) over every device of @p set, with ag_split_run()
    (split.h): one integrator per device, made for @p poni and @p opt on that device's thread,
    and chunks of @p chunk frames (0: 16) handed to the devices as they become free. Writes the
    intensities, n x [npt_rad] or n x [npt_azim, npt_rad] values of the engine's dtype
    (opt->dtype), to @p intensity. Each frame's result is what ag_integrate() gives for it on
    the device that took its chunk: with devices that compute alike, identical to integrating
    the whole stack on one of them. @p device_frames (optional, the set's count long) receives
    how many frames each device integrated.
    @return AG_ERR_INVALID_ARGUMENT for a NULL set, poni, opt, frames or intensity, or a
            complex or unknown frames_dtype; otherwise as ag_integrator_create() and
            ag_split_run(). */
AG_API ag_status ag_integrate_split(const ag_device_set *set, const ag_poni *poni, const ag_integrate_options *opt,
                                    const void *frames, ag_dtype frames_dtype, size_t n, size_t chunk,
                                    void *intensity, size_t *device_frames);

#ifdef __cplusplus
}
#endif

#endif
