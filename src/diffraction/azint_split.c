/* src/diffraction/azint_split.c — azimuthal integration of a stack of frames over a device set
   (azint.h, ag_integrate_split): ag_split_run() with an integrator per device as each device's
   state, and per chunk one ag_integrate() whose intensities are copied into the chunk's
   results. */
#include "seam.h"
#include "azint_plan.h"

static ag_status integ_setup(ag_device *dev, int device, void *user, void **state) {
  (void)device;
  const void *const *args = user; /* the PONI and the options */
  return ag_integrator_create(dev, args[0], args[1], (ag_integrator **)state);
}

static void integ_teardown(ag_device *dev, void *state, void *user) {
  (void)dev, (void)user;
  ag_integrator_destroy(state);
}

static ag_status integ_run(const ag_split_chunk *c, void *user) {
  (void)user;
  ag_integrate_result r;
  ag_status st = ag_integrate(c->queue, c->state, c->in, &r);
  if (st != AG_OK)
    return st;
  st = ag_copy(c->queue, r.intensity, c->out);
  ag_integrate_result_free(&r);
  return st;
}

ag_status ag_integrate_split(const ag_device_set *set, const ag_poni *poni, const ag_integrate_options *opt,
                             const void *frames, ag_dtype frames_dtype, size_t n, size_t chunk, void *intensity,
                             size_t *device_frames) {
  static const char fn[] = "ag_integrate_split";
  AG__CHECK_NOT_NULL(fn, set);
  AG__CHECK_NOT_NULL(fn, poni);
  AG__CHECK_NOT_NULL(fn, opt);
  AG__CHECK_NOT_NULL(fn, frames);
  AG__CHECK_NOT_NULL(fn, intensity);
  if (!ag__dtype_valid(frames_dtype) || ag__dtype_is_complex(frames_dtype))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: frames_dtype %d is not a real ag_dtype", fn, (int)frames_dtype);
  if (!ag__azint_frames_dtype(frames_dtype))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: frames_dtype is %s; frames are u8, u16, u32, i32, f32 or f64", fn,
                     ag_dtype_name(frames_dtype));
  /* The frames' shape, as ag_integrator_create() takes it; each device's integrator checks the
     rest of the options. */
  size_t rows = opt->rows ? opt->rows : poni->rows, cols = opt->cols ? opt->cols : poni->cols;
  if (rows == 0 || cols == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: the frames' shape is unknown: opt->rows and opt->cols are %zu "
                     "and %zu, and ag_poni.rows and ag_poni.cols %zu and %zu", fn, opt->rows, opt->cols, poni->rows,
                     poni->cols);
  if (opt->npt_rad == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: opt->npt_rad is 0", fn);
  const void *args[2] = {poni, opt};
  ag_split_options so = {.in_dtype = frames_dtype, .in_ndim = 2, .in_shape = {rows, cols},
                         .out_dtype = opt->dtype == AG_U8 ? AG_F32 : opt->dtype, .chunk = chunk,
                         .run = integ_run, .setup = integ_setup, .teardown = integ_teardown, .user = (void *)args,
                         .device_items = device_frames};
  if (opt->npt_azim > 0)
    so.out_ndim = 2, so.out_shape[0] = opt->npt_azim, so.out_shape[1] = opt->npt_rad;
  else
    so.out_ndim = 1, so.out_shape[0] = opt->npt_rad;
  return ag_split_run(set, n, frames, intensity, &so);
}
