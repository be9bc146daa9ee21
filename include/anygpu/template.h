/* anygpu/template.h — template matching on a device, batched over frames:
   - orientation mapping as pyxem 0.15–0.16 does it (indexation_utils.py, its polar path):
     a library of templates, each a list of diffraction spots in a polar image, matched
     against polar images at every in-plane rotation and mirrored, the best few per frame
     kept (ag_template_library_create, ag_template_library_match);
   - normalised cross-correlation of an image, or a stack of them, with a template, as
     scikit-image 0.19's skimage.feature.match_template computes it (ag_match_template).
   docs/template.md gives the algorithms, where they follow pyxem and scikit-image, and how
   closely the results agree with them (measured).

   Threads: a template library is immutable once made; any number of threads may match with
   it at once, each on its own queue or NULL. Ownership: ag_template_library_create() gives the
   caller a library to release with ag_template_library_destroy(), once, when no other thread
   uses it; the host spot lists passed in are copied during the call and not kept. The
   matching functions follow ops.h: operands are borrowed for the call only. */
#ifndef ANYGPU_TEMPLATE_H
#define ANYGPU_TEMPLATE_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A library of templates on one device. The caller's (ag_template_library_create /
    ag_template_library_destroy). */
typedef struct ag_template_library ag_template_library;

/** A library of @p n_templates templates for polar images of @p n_theta azimuthal rows (the
    in-plane step is 360 / n_theta degrees) by @p n_r radial columns. Template t is the spots
    offsets[t] to offsets[t + 1] - 1: spot k at radial index r[k] (below n_r), azimuthal index
    theta[k] (below n_theta) with intensity[k]. A NaN intensity counts as 0. As in pyxem, whose
    templates are rows padded with spots at r = 0, a template's spots from its first one at
    r = 0 on are left out of the full correlation (they count in its norm and its integrated
    template). The library keeps each template's intensities as given and normalised to unit
    length, and its integrated template (the intensities summed per radius), as given and
    normalised, in f32, and in f64 too on a device with double precision.
    @return AG_ERR_INVALID_ARGUMENT for a NULL argument (r, theta and intensity may be NULL
            when there are no spots), n_templates, n_theta or n_r of 0, offsets[0] not 0 or
            offsets decreasing, a spot index out of range (the message names the array and
            the spot); AG_ERR_UNSUPPORTED when n_theta, n_r, n_templates or a template's spot
            count reaches the device's loop limit (ag_device_info.max_loop_iterations) or 2^32;
            AG_ERR_OUT_OF_MEMORY. */
AG_API ag_status ag_template_library_create(ag_device *dev, size_t n_templates, const size_t *offsets,
                                            const uint32_t *r, const uint32_t *theta, const float *intensity,
                                            size_t n_theta, size_t n_r, ag_template_library **out);

/** Releases @p lib; work already enqueued with it finishes first. NULL is a no-op. */
AG_API void ag_template_library_destroy(ag_template_library *lib);

/** How ag_template_library_match() matches. Zero-initialised: every template fully matched, nothing
    normalised, n_best still to be given. */
typedef struct ag_template_library_match_options {
  /** The prefilter (pyxem's n_keep and frac_keep): only the templates whose integrated
      template best matches the frame summed over theta (weighted by r / n_r, as pyxem does)
      are fully matched: n_keep of them when n_keep is not 0 (at most all), else
      max(round(frac_keep * n_templates), 1) with round to even when frac_keep is not 0 (in
      (0, 1]), else all of them. */
  size_t n_keep;
  double frac_keep;
  /** The number of best matches per frame, 1 to the number of templates kept. */
  size_t n_best;
  /** Divide each frame by its norm (square root of the sum of its squares); a frame of 0
      stays 0. */
  bool normalize_image;
  /** Use the templates (and integrated templates) normalised to unit length; a template of
      all zeros stays zeros. */
  bool normalize_templates;
} ag_template_library_match_options;

/** Matches every frame of @p polar ([n_theta, n_r] or a batch [B, n_theta, n_r], f32, or f64
    on a device with double precision) with @p lib, as pyxem's get_orientation path does: the
    prefilter of @p opt, then for each template kept the correlation sum_k
    I_k polar[(s + theta_k) mod n_theta][r_k] at every shift s (the template rotated by
    s * 360 / n_theta degrees) and the same for its mirror (theta_k -> -theta_k), each
    template's best shift (the first on a tie) and the better of it and its mirror (the
    template on a tie), then the @p opt->n_best best templates by that correlation, best
    first (ties to the template ranked first by the prefilter, else to the lower index).
    Outputs, each [n_best] for a 2-D polar or [B, n_best]: @p best_index the template (u32 or
    i32), @p best_corr the correlation and @p best_angle_deg the in-plane angle s * 360 /
    n_theta (polar's dtype), @p best_sign +1 for the template and -1 for its mirror (i32).
    @return AG_ERR_INVALID_ARGUMENT for a NULL or unusable argument, frac_keep outside [0, 1]
            or NaN, n_best of 0 or above the templates kept; AG_ERR_MISMATCH for polar's
            shape not the library's [n_theta, n_r], an output of the wrong shape or dtype,
            or arrays on another device than the library; AG_ERR_UNSUPPORTED for a dtype other
            than f32 or f64, or f64 on a device without double precision. */
AG_API ag_status ag_template_library_match(ag_queue *q, const ag_template_library *lib, const ag_array *polar,
                                           const ag_template_library_match_options *opt, ag_array *best_index,
                                           ag_array *best_corr, ag_array *best_angle_deg, ag_array *best_sign);

/** Normalised cross-correlation of @p image ([H, W] or a stack [B, H, W], f32, or f64 on a
    device with double precision) with @p templ ([h, w], h <= H and w <= W, image's dtype), as
    skimage.feature.match_template (0.19) computes it with mode "constant": for each position,
    sum((window - mean(window)) (templ - mean(templ))) over the square root of
    sum((window - mean(window))^2) sum((templ - mean(templ))^2), and 0 where that root is not
    above the dtype's epsilon (a flat window or template). @p pad_input false: windows inside
    the image, out [H - h + 1, W - w + 1] with position (i, j) the window whose top-left
    corner is pixel (i, j); true: out [H, W], the image padded with @p constant_value and
    position (i, j) the window whose centre is pixel (i, j) (its top-left corner at
    (i - h / 2, j - w / 2), rounding down). A stack gives a stack [B, ...]. The correlation
    runs through the device's FFT (fft.h), the window sums directly.
    @return AG_ERR_INVALID_ARGUMENT for a NULL or unusable argument, or a template larger
            than the image; AG_ERR_MISMATCH for out's shape or dtype, templ's dtype, or
            arrays on different devices; AG_ERR_UNSUPPORTED for a dtype other than f32 or
            f64, or f64 on a device without double precision; the FFT's own statuses. */
AG_API ag_status ag_match_template(ag_queue *q, const ag_array *image, const ag_array *templ, bool pad_input,
                                   double constant_value, ag_array *out);

#ifdef __cplusplus
}
#endif

#endif
