/* tools/integrate/main.c — anygpu-integrate: azimuthal integration of a frame or a stack of
   frames (.npy or an HDF5 dataset) with a PONI geometry, on any device, in batches, as
   pyFAI-integrate does with pyFAI's CSR integrator. docs/anygpu-integrate.md describes it.

   Exit status: 0 on success; 1 when the input, the geometry or the device is refused or the
   integration fails (one line on stderr says why, and no output is left behind); 2 for a bad
   command line. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anygpu.h"
#include "frames.h"
#include "outputs.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: anygpu-integrate --poni FILE --npt N [options] INPUT OUT\n"
          "  INPUT  a .npy of one frame [ny, nx] or of frames after scan axes ([n, ny, nx],\n"
          "         [s1, s2, ny, nx], ...; u8, u16, u32, i32, f32, f64), or an HDF5 dataset\n"
          "         FILE.h5:/path\n"
          "  OUT    the outputs' prefix: OUT.intensity.npy (the scan axes, then [N] or [M, N]),\n"
          "         OUT.radial.npy (bin centres in the unit), OUT.azimuthal.npy (2-D: bin centres,\n"
          "         degrees), OUT.sigma.npy (with an error model); dir/name, not empty or a folder\n"
          "options:\n"
          "  --npt N                radial bins\n"
          "  --npt-azim M           azimuthal bins: a 2-D integration (default 1-D)\n"
          "  --unit U               2th_deg (default), 2th_rad, q_nm^-1, q_A^-1, r_mm, r_m\n"
          "  --method no|bbox|full  pixel splitting, as pyFAI's (default bbox)\n"
          "  --mask FILE.npy        [ny, nx], nonzero for a pixel left out\n"
          "  --dummy V              pixels of value V are left out (and empty bins hold V)\n"
          "  --delta-dummy D        ... within D of V\n"
          "  --dark FILE.npy        [ny, nx], subtracted\n"
          "  --flat FILE.npy        [ny, nx], divided out\n"
          "  --polarization F       the polarisation factor, -1 to 1\n"
          "  --no-solid-angle       no solid-angle correction\n"
          "  --error-model poisson  and write OUT.sigma.npy\n"
          "  --radial-range LO HI   in the unit\n"
          "  --azimuth-range LO HI  degrees\n"
          "  --batch B              frames per call on the device (default 32)\n"
          "  --device SPEC          host, opencl[:N], opencl:WORD, cuda[:N] (default $ANYGPU_DEVICE,\n"
          "                         else auto)\n"
          "Exit status: 0 on success, 1 when the input or the run fails (nothing is written),\n"
          "2 for a bad command line.\n");
}

typedef struct args {
  const char *poni, *input, *out, *mask, *dark, *flat, *device, *unit, *method, *error_model;
  size_t npt, npt_azim, batch;
  bool has_dummy, has_delta_dummy, has_polarization, no_solid_angle, has_radial, has_azimuth;
  double dummy, delta_dummy, polarization, radial[2], azimuth[2];
} args;

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("anygpu-integrate: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs(" (--help for usage)\n", stderr);
  va_end(ap);
  return 2;
}

static bool parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  if (s == NULL || *s == '-' || *s == '\0')
    return false;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0)
    return false;
  *out = (size_t)v;
  return true;
}

static bool parse_double(const char *s, double *out) {
  char *end;
  errno = 0;
  if (s == NULL || *s == '\0')
    return false;
  double v = strtod(s, &end);
  if (errno != 0 || *end != '\0' || !isfinite(v))
    return false;
  *out = v;
  return true;
}

/* Parses the command line into @p a; 0 on success, else the exit status (2, or 0 for --help). */
static int parse_args(int argc, char **argv, args *a) {
  *a = (args){.unit = "2th_deg", .method = "bbox", .batch = 32};
  const char *pos[2];
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    int left = argc - i - 1;
#define VALUE(k) (left >= (k) ? argv[i + (k)] : NULL)
    if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
      usage(stdout);
      return -1;
    } else if (strcmp(o, "--poni") == 0 || strcmp(o, "--mask") == 0 || strcmp(o, "--dark") == 0 ||
               strcmp(o, "--flat") == 0 || strcmp(o, "--device") == 0 || strcmp(o, "--unit") == 0 ||
               strcmp(o, "--method") == 0 || strcmp(o, "--error-model") == 0) {
      const char *v = VALUE(1);
      if (v == NULL)
        return bad_usage("%s needs a value", o);
      const char **slot = strcmp(o, "--poni") == 0     ? &a->poni
                          : strcmp(o, "--mask") == 0   ? &a->mask
                          : strcmp(o, "--dark") == 0   ? &a->dark
                          : strcmp(o, "--flat") == 0   ? &a->flat
                          : strcmp(o, "--device") == 0 ? &a->device
                          : strcmp(o, "--unit") == 0   ? &a->unit
                          : strcmp(o, "--method") == 0 ? &a->method
                                                       : &a->error_model;
      *slot = v;
      i++;
    } else if (strcmp(o, "--npt") == 0 || strcmp(o, "--npt-azim") == 0 || strcmp(o, "--batch") == 0) {
      size_t *slot = strcmp(o, "--npt") == 0 ? &a->npt : strcmp(o, "--npt-azim") == 0 ? &a->npt_azim : &a->batch;
      if (!parse_size(VALUE(1), slot))
        return bad_usage("%s needs a whole number above 0, not \"%s\"", o, VALUE(1) ? VALUE(1) : "");
      i++;
    } else if (strcmp(o, "--dummy") == 0 || strcmp(o, "--delta-dummy") == 0 || strcmp(o, "--polarization") == 0) {
      double *slot = strcmp(o, "--dummy") == 0 ? &a->dummy : strcmp(o, "--delta-dummy") == 0 ? &a->delta_dummy
                                                                                             : &a->polarization;
      if (!parse_double(VALUE(1), slot))
        return bad_usage("%s needs a finite number, not \"%s\"", o, VALUE(1) ? VALUE(1) : "");
      if (slot == &a->dummy)
        a->has_dummy = true;
      else if (slot == &a->delta_dummy)
        a->has_delta_dummy = true;
      else
        a->has_polarization = true;
      i++;
    } else if (strcmp(o, "--radial-range") == 0 || strcmp(o, "--azimuth-range") == 0) {
      double *r = strcmp(o, "--radial-range") == 0 ? a->radial : a->azimuth;
      if (!parse_double(VALUE(1), &r[0]) || !parse_double(VALUE(2), &r[1]))
        return bad_usage("%s needs two finite numbers, LO HI", o);
      if (!(r[0] < r[1]))
        return bad_usage("%s %g %g: LO must be below HI", o, r[0], r[1]);
      *(r == a->radial ? &a->has_radial : &a->has_azimuth) = true;
      i += 2;
    } else if (strcmp(o, "--no-solid-angle") == 0) {
      a->no_solid_angle = true;
    } else if (o[0] == '-' && o[1] != '\0') {
      return bad_usage("unknown option %s", o);
    } else if (npos < 2) {
      pos[npos++] = o;
    } else {
      return bad_usage("one INPUT and one OUT, not also \"%s\"", o);
    }
#undef VALUE
  }
  if (a->poni == NULL)
    return bad_usage("--poni FILE is needed");
  if (a->npt == 0)
    return bad_usage("--npt N is needed");
  if (npos != 2)
    return bad_usage("INPUT and OUT are needed");
  if (a->has_delta_dummy && !a->has_dummy)
    return bad_usage("--delta-dummy needs --dummy");
  if (a->has_polarization && !(a->polarization >= -1 && a->polarization <= 1))
    return bad_usage("--polarization %g is not between -1 and 1", a->polarization);
  if (strcmp(a->method, "no") != 0 && strcmp(a->method, "bbox") != 0 && strcmp(a->method, "full") != 0)
    return bad_usage("--method %s: not no, bbox or full", a->method);
  if (a->error_model != NULL && strcmp(a->error_model, "poisson") != 0)
    return bad_usage("--error-model %s: only poisson is known", a->error_model);
  a->input = pos[0];
  a->out = pos[1];
  /* OUT is a prefix of file names: an empty one, or one naming a folder ("dir/", "dir/.",
     "."), would write hidden files .intensity.npy there. */
  const char *base = strrchr(a->out, '/');
  base = base ? base + 1 : a->out;
  if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return bad_usage("OUT \"%s\" names no file: OUT is the outputs' prefix (OUT.intensity.npy ...), so give a "
                     "name, as in \"%s%sresult\"", a->out, a->out, *a->out && base[0] != '\0' ? "/" : "");
  return 0;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("anygpu-integrate: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static ag_dtype dtype_of(npy_dtype t) {
  switch (t) {
  case NPY_U1:
    return AG_U8;
  case NPY_U2:
    return AG_U16;
  case NPY_U4:
    return AG_U32;
  case NPY_I4:
    return AG_I32;
  case NPY_F4:
    return AG_F32;
  default:
    return AG_F64;
  }
}

/* A [ny, nx] per-pixel .npy (mask, dark, flat), as floats in *values, or as bytes that are 1
   where the value is nonzero in *mask. */
static int read_pixels(const char *what, const char *path, size_t ny, size_t nx, float **values, uint8_t **mask) {
  npy_array a;
  char err[512];
  if (!npy_read(path, &a, err, sizeof err))
    return fail("--%s: %s", what, err);
  if (a.ndim != 2 || a.shape[0] != ny || a.shape[1] != nx) {
    npy_free(&a);
    return fail("--%s %s: its shape is not the frames' [%zu, %zu]", what, path, ny, nx);
  }
  size_t n = ny * nx;
  void *out = values ? malloc(n * sizeof(float)) : malloc(n);
  if (out == NULL) {
    npy_free(&a);
    return fail("--%s %s: no memory", what, path);
  }
  for (size_t i = 0; i < n; i++) {
    double v = npy_get(&a, i);
    if (values)
      ((float *)out)[i] = (float)v;
    else
      ((uint8_t *)out)[i] = v != 0;
  }
  npy_free(&a);
  if (values)
    *values = out;
  else
    *mask = out;
  return 0;
}

typedef struct run {
  args a;
  ag_poni poni;
  frame_source *src;
  npy_dtype dtype;
  size_t n, ny, nx;
  int nscan; /* the scan axes before each frame's two, kept in the outputs */
  size_t scan[FRAMES_MAX_SCAN_AXES];
  float *dark, *flat;
  uint8_t *mask;
  ag_device *dev;
  ag_integrator *integ;
  outputs out;
  int o_intensity, o_sigma;
  void *frames;      /* one batch on the host */
  float *host_result; /* one batch of intensity or sigma */
} run;

/* OUT + suffix into @p path. */
static void out_path(const run *r, const char *suffix, char *path, size_t size) {
  snprintf(path, size, "%s.%s.npy", r->a.out, suffix);
}

static int prepare(run *r) {
  char err[1024];
  ag_status st;
  if ((st = ag_poni_read(r->a.poni, &r->poni)) != AG_OK)
    return fail("%s", ag_last_error());
  if (!frames_open(r->a.input, &r->src, err, sizeof err))
    return fail("%s", err);
  frames_info(r->src, &r->dtype, &r->n, &r->ny, &r->nx);
  r->nscan = frames_scan_axes(r->src, r->scan);
  if (r->poni.rows != 0 && (r->poni.rows != r->ny || r->poni.cols != r->nx))
    return fail("%s: frames of %zu x %zu, but the detector of %s is %zu x %zu", r->a.input, r->ny, r->nx, r->a.poni,
                r->poni.rows, r->poni.cols);
  int rc;
  if (r->a.mask && (rc = read_pixels("mask", r->a.mask, r->ny, r->nx, NULL, &r->mask)) != 0)
    return rc;
  if (r->a.dark && (rc = read_pixels("dark", r->a.dark, r->ny, r->nx, &r->dark, NULL)) != 0)
    return rc;
  if (r->a.flat && (rc = read_pixels("flat", r->a.flat, r->ny, r->nx, &r->flat, NULL)) != 0)
    return rc;
  ag_integrate_options o = {.npt_rad = r->a.npt,
                            .npt_azim = r->a.npt_azim,
                            .split = strcmp(r->a.method, "no") == 0     ? AG_SPLIT_NO
                                     : strcmp(r->a.method, "full") == 0 ? AG_SPLIT_FULL
                                                                        : AG_SPLIT_BBOX,
                            .rows = r->ny,
                            .cols = r->nx,
                            .has_radial_range = r->a.has_radial,
                            .radial_min = r->a.radial[0],
                            .radial_max = r->a.radial[1],
                            .has_azimuth_range = r->a.has_azimuth,
                            .azimuth_min = r->a.azimuth[0],
                            .azimuth_max = r->a.azimuth[1],
                            .mask = r->mask,
                            .has_dummy = r->a.has_dummy,
                            .dummy = r->a.dummy,
                            .delta_dummy = r->a.delta_dummy,
                            .dark = r->dark,
                            .flat = r->flat,
                            .no_solid_angle = r->a.no_solid_angle,
                            .has_polarization = r->a.has_polarization,
                            .polarization_factor = r->a.polarization,
                            .error_model = r->a.error_model ? AG_ERROR_POISSON : AG_ERROR_NONE,
                            .dtype = AG_F32};
  if ((st = ag_radial_unit_from_name(r->a.unit, &o.unit)) != AG_OK)
    return fail("--unit: %s", ag_last_error());
  if ((st = ag_device_select(r->a.device, &r->dev)) != AG_OK)
    return fail("%s", ag_last_error());
  if ((st = ag_integrator_create(r->dev, &r->poni, &o, &r->integ)) != AG_OK) {
    if (st == AG_ERR_OUT_OF_MEMORY && r->a.npt_azim)
      return fail("--npt %zu --npt-azim %zu: %s", r->a.npt, r->a.npt_azim, ag_last_error());
    if (st == AG_ERR_OUT_OF_MEMORY)
      return fail("--npt %zu: %s", r->a.npt, ag_last_error());
    return fail("%s", ag_last_error());
  }

  /* The outputs: bin centres now, the per-frame arrays batch by batch, their shape the scan
     axes and the bins. */
  size_t bins = r->a.npt * (r->a.npt_azim ? r->a.npt_azim : 1);
  size_t shape[NPY_MAX_DIMS];
  int ndim = 0;
  for (int k = 0; k < r->nscan; k++)
    shape[ndim++] = r->scan[k];
  if (r->a.npt_azim)
    shape[ndim++] = r->a.npt_azim;
  shape[ndim++] = r->a.npt;
  char path[4096];
  out_path(r, "intensity", path, sizeof path);
  if ((r->o_intensity = outputs_add(&r->out, path, NPY_F4, ndim, shape, err, sizeof err)) < 0)
    return fail("%s", err);
  r->o_sigma = -1;
  if (r->a.error_model) {
    out_path(r, "sigma", path, sizeof path);
    if ((r->o_sigma = outputs_add(&r->out, path, NPY_F4, ndim, shape, err, sizeof err)) < 0)
      return fail("%s", err);
  }
  double *centres = malloc((r->a.npt > r->a.npt_azim ? r->a.npt : r->a.npt_azim) * sizeof *centres);
  if (centres == NULL)
    return fail("no memory for the bin centres");
  int rc2 = 0;
  out_path(r, "radial", path, sizeof path);
  int k = outputs_add(&r->out, path, NPY_F8, 1, &r->a.npt, err, sizeof err);
  if (k < 0 || ag_integrator_radial(r->integ, centres) != AG_OK ||
      !outputs_write(&r->out, k, centres, r->a.npt, err, sizeof err))
    rc2 = fail("%s", k < 0 ? err : ag_last_error());
  if (rc2 == 0 && r->a.npt_azim) {
    out_path(r, "azimuthal", path, sizeof path);
    k = outputs_add(&r->out, path, NPY_F8, 1, &r->a.npt_azim, err, sizeof err);
    if (k < 0 || ag_integrator_azimuthal(r->integ, centres) != AG_OK ||
        !outputs_write(&r->out, k, centres, r->a.npt_azim, err, sizeof err))
      rc2 = fail("%s", k < 0 ? err : ag_last_error());
  }
  free(centres);
  if (rc2 != 0)
    return rc2;
  if (r->a.batch > r->n)
    r->a.batch = r->n > 0 ? r->n : 1;
  r->frames = malloc(r->a.batch * r->ny * r->nx * npy_dtype_size(r->dtype));
  r->host_result = malloc(r->a.batch * bins * sizeof(float));
  if (r->frames == NULL || r->host_result == NULL)
    return fail("no memory for a batch of %zu frames (--batch)", r->a.batch);
  return 0;
}

/* Integrates every frame, a batch at a time, appending each batch's results to the outputs. */
static int integrate_all(run *r) {
  char err[1024];
  size_t bins = r->a.npt * (r->a.npt_azim ? r->a.npt_azim : 1);
  bool progress = isatty(STDERR_FILENO) && r->n > r->a.batch;
  for (size_t first = 0; first < r->n; first += r->a.batch) {
    size_t count = r->n - first < r->a.batch ? r->n - first : r->a.batch;
    if (!frames_read(r->src, first, count, r->frames, err, sizeof err))
      return fail("%s", err);
    size_t shape[3] = {count, r->ny, r->nx};
    ag_array *frames = NULL;
    ag_integrate_result res = {0};
    ag_status st = ag_array_from_host(r->dev, dtype_of(r->dtype), 3, shape, r->frames, &frames);
    if (st == AG_OK)
      st = ag_integrate(NULL, r->integ, frames, &res);
    ag_array_free(frames);
    if (st == AG_OK)
      st = ag_array_to_host(res.intensity, r->host_result, count * bins * sizeof(float));
    if (st == AG_OK && !outputs_write(&r->out, r->o_intensity, r->host_result, count * bins, err, sizeof err)) {
      ag_integrate_result_free(&res);
      return fail("%s", err);
    }
    if (st == AG_OK && r->o_sigma >= 0) {
      st = ag_array_to_host(res.sigma, r->host_result, count * bins * sizeof(float));
      if (st == AG_OK && !outputs_write(&r->out, r->o_sigma, r->host_result, count * bins, err, sizeof err)) {
        ag_integrate_result_free(&res);
        return fail("%s", err);
      }
    }
    ag_integrate_result_free(&res);
    if (st != AG_OK)
      return fail("frames %zu to %zu: %s", first, first + count - 1, ag_last_error());
    if (progress)
      fprintf(stderr, "\ranygpu-integrate: %zu of %zu frames", first + count, r->n);
  }
  if (progress)
    fputc('\n', stderr);
  return 0;
}

static void release(run *r) {
  outputs_discard(&r->out);
  ag_integrator_destroy(r->integ);
  frames_close(r->src);
  free(r->dark);
  free(r->flat);
  free(r->mask);
  free(r->frames);
  free(r->host_result);
}

int main(int argc, char **argv) {
  run r = {0};
  int rc = parse_args(argc, argv, &r.a);
  if (rc != 0)
    return rc < 0 ? 0 : rc;
  rc = prepare(&r);
  if (rc == 0)
    rc = integrate_all(&r);
  char err[1024];
  if (rc == 0 && !outputs_commit(&r.out, err, sizeof err))
    rc = fail("%s", err);
  release(&r);
  return rc;
}
