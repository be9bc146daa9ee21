/* src/learn/mpol_model.c — MPoL's forward model (learn.h; MPoL v0.2.0's mpol/utils.py,
   images.py and fourier.py): the sky and packed layouts of a cube, the Hann convolution and
   the Fourier cube with its adjoint, on the mpol family (kernels_shared/mpol.h) and ag_fft. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anygpu/fft.h"
#include "anygpu/learn.h"
#include "mpol.h"
#include "../error.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/mpol.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_shuffle, AG_SHAPE_MPOL_SHUFFLE)
AG__SHAPE_LAUNCHER(launch_hann, AG_SHAPE_MPOL_HANN)
AG__SHAPE_LAUNCHER(launch_widen, AG_SHAPE_MPOL_WIDEN)
AG__SHAPE_LAUNCHER(launch_re, AG_SHAPE_MPOL_RE)

ag_status ag__mpol_check(const char *fn, const char *name, const ag_array *a, ag__mpol_kind kind, int ndim) {
  ag_status st = ag__check_array(fn, name, a);
  if (st != AG_OK)
    return st;
  bool ok = kind == AG__MPOL_REAL ? ag__dtype_is_float(a->dtype) : ag__dtype_is_complex(a->dtype);
  if (!ok)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is %s, which %s does not take (it takes %s)", fn, name,
                     ag_dtype_name(a->dtype), fn, kind == AG__MPOL_REAL ? "f32 or f64" : "c64 or c128");
  if (ndim != 0 && a->ndim != ndim)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %d-D; it must be a cube [nchan][npix][npix]", fn, name, a->ndim);
  if (ag__dtype_is_f64(a->dtype) && !a->dev->info.fp64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is %s, which needs double precision, which %s (%s) lacks", fn, name,
                     ag_dtype_name(a->dtype), a->dev->info.spec, a->dev->info.name);
  return AG_OK;
}

ag__val ag__mpol_real(ag_dtype t, double value, char *bytes) {
  if (ag__dtype_real(t) == AG_F32) {
    float f = (float)value;
    memcpy(bytes, &f, sizeof f);
    return (ag__val){bytes, sizeof f};
  }
  memcpy(bytes, &value, sizeof value);
  return (ag__val){bytes, sizeof value};
}

/* Refuses @p out when it shares memory with @p in: the kernels read neighbours and permuted
   elements of in while writing out. */
static ag_status check_apart(const char *fn, const char *nin, const ag_array *in, const char *nout,
                             const ag_array *out) {
  size_t oi = 0, oo = 0;
  const ag_buffer *bi = ag_array_buffer(in, &oi), *bo = ag_array_buffer(out, &oo);
  if (bi != NULL && bi == bo && oi < oo + ag_array_nbytes(out) && oo < oi + ag_array_nbytes(in))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s overlaps %s; it must be another array", fn, nout, nin);
  return AG_OK;
}

/* in -> out, both real cubes of one shape, dtype and device, apart. */
static ag_status check_map(const char *fn, const char *nin, const ag_array *in, const char *nout,
                           const ag_array *out) {
  ag_status st;
  if ((st = ag__mpol_check(fn, nin, in, AG__MPOL_REAL, 3)) != AG_OK ||
      (st = ag__check_array(fn, nout, out)) != AG_OK ||
      (st = ag__check_same_device(fn, nin, in, nout, out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, nin, in, nout, out)) != AG_OK ||
      (st = ag__check_same_shape(fn, nin, in, nout, out)) != AG_OK)
    return st;
  return check_apart(fn, nin, in, nout, out);
}

static ag__launch model_launch(const char *fn, ag_queue *q, const ag_array *x, const char *base, char *name,
                               size_t cap) {
  snprintf(name, cap, "%s_%s", base, ag_dtype_name(x->dtype));
  return (ag__launch){.fn = fn, .q = q, .dev = x->dev, .family = AG__FAMILY_mpol, .variant = (int)x->dtype,
                      .kernel = name, .form = AG__FORM_ITEMS, .n = x->size};
}

static ag_status shuffle(const char *fn, ag_queue *q, const char *nin, const ag_array *in, const char *nout,
                         ag_array *out, uint64_t dir) {
  ag_status st = check_map(fn, nin, in, nout, out);
  if (st != AG_OK)
    return st;
  char name[48];
  ag__launch l = model_launch(fn, q, out, "ag_mpol_shuffle", name, sizeof name);
  return launch_shuffle(&l, in, (uint64_t)in->shape[1], (uint64_t)in->shape[2], dir, out);
}

ag_status ag_mpol_sky_to_packed(ag_queue *q, const ag_array *sky, ag_array *packed) {
  return shuffle("ag_mpol_sky_to_packed", q, "sky", sky, "packed", packed, 0);
}

ag_status ag_mpol_packed_to_sky(ag_queue *q, const ag_array *packed, ag_array *sky) {
  return shuffle("ag_mpol_packed_to_sky", q, "packed", packed, "sky", sky, 1);
}

ag_status ag_mpol_hann_conv(ag_queue *q, const ag_array *cube, ag_array *out) {
  static const char fn[] = "ag_mpol_hann_conv";
  ag_status st = check_map(fn, "cube", cube, "out", out);
  if (st != AG_OK)
    return st;
  char name[48];
  ag__launch l = model_launch(fn, q, out, "ag_mpol_hann", name, sizeof name);
  return launch_hann(&l, cube, (uint64_t)cube->shape[1], (uint64_t)cube->shape[2], out);
}

/* A real cube @p re and a complex cube @p cx of the same precision, shape and device, and
   cell_size positive and finite. */
static ag_status check_fourier(const char *fn, const char *nre, const ag_array *re, const char *ncx,
                               const ag_array *cx, double cell_size) {
  ag_status st;
  if ((st = ag__mpol_check(fn, nre, re, AG__MPOL_REAL, 3)) != AG_OK ||
      (st = ag__mpol_check(fn, ncx, cx, AG__MPOL_COMPLEX, 3)) != AG_OK ||
      (st = ag__check_same_device(fn, nre, re, ncx, cx)) != AG_OK ||
      (st = ag__check_same_shape(fn, nre, re, ncx, cx)) != AG_OK)
    return st;
  if (ag__dtype_real(cx->dtype) != re->dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: %s is %s and %s is %s; f32 goes with c64, f64 with c128", fn, nre,
                     ag_dtype_name(re->dtype), ncx, ag_dtype_name(cx->dtype));
  if (!(cell_size > 0) || !isfinite(cell_size))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: cell_size is %g; it must be positive and finite", fn, cell_size);
  return check_apart(fn, nre, re, ncx, cx);
}

ag_status ag_mpol_fourier_cube(ag_queue *q, const ag_array *packed, double cell_size, ag_array *vis) {
  static const char fn[] = "ag_mpol_fourier_cube";
  ag_status st = check_fourier(fn, "packed", packed, "vis", vis, cell_size);
  if (st != AG_OK)
    return st;
  /* cell^2 x as complex, then one complex FFT in place: the whole spectrum comes out at once,
     where a real FFT would need a second pass to fill in the Hermitian half. */
  char name[48], sb[8];
  ag__launch l = model_launch(fn, q, vis, "ag_mpol_widen", name, sizeof name);
  if ((st = launch_widen(&l, packed, ag__mpol_real(vis->dtype, cell_size * cell_size, sb), vis)) != AG_OK)
    return st;
  st = ag_fft(q, vis, 2, AG_FFT_BACKWARD, vis);
  return st == AG_OK ? AG_OK : ag__prefix(st, fn);
}

/* With v = c^2 F x for real x, dL/dx_k = sum_j dL/dRe v_j Re(c^2 F_jk) + dL/dIm v_j Im(c^2 F_jk)
   = c^2 Re(sum_j conj(F_jk) g_j) for g = dL/dRe v + i dL/dIm v: c^2 Re(F^H g), and F^H g is the
   unscaled inverse transform (numpy's ifft2 with norm="forward"). */
ag_status ag_mpol_fourier_cube_adjoint(ag_queue *q, const ag_array *dvis, double cell_size, ag_array *dpacked) {
  static const char fn[] = "ag_mpol_fourier_cube_adjoint";
  ag_status st = check_fourier(fn, "dpacked", dpacked, "dvis", dvis, cell_size);
  if (st != AG_OK)
    return st;
  ag_array *tmp = NULL;
  if ((st = ag_array_create(dvis->dev, dvis->dtype, 3, dvis->shape, &tmp)) != AG_OK)
    return ag__prefix(st, fn);
  st = ag_ifft(q, dvis, 2, AG_FFT_FORWARD, tmp);
  if (st == AG_OK) {
    char name[48], sb[8];
    ag__launch l = model_launch(fn, q, tmp, "ag_mpol_re", name, sizeof name);
    st = launch_re(&l, tmp, ag__mpol_real(tmp->dtype, cell_size * cell_size, sb), dpacked);
  } else {
    st = ag__prefix(st, fn);
  }
  ag_array_free(tmp);
  return st;
}
