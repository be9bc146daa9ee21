/* tools/bench/azint.c — the azimuthal integration rows (--only azint): a 1065 x 1030 float32
   frame (an Eiger 1M) integrated as pyFAI does with bounding-box splitting over q in nm^-1,
   into 1000 bins (azint1d), 1000 x 360 bins (azint2d), and the 2-D case 32 frames per call
   (azint2d-batch32), in frames per second; next to pyFAI's CSR integrator on the same device
   (peer_azint.py), and against the device's copy bandwidth measured in the same child. The
   parent's side runs each device's child (--azint-child) and the peer in alternating rounds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The geometry and sizes, also peer_azint.py's. */
#define AZ_ROWS 1065
#define AZ_COLS 1030
#define AZ_NPT_RAD 1000
#define AZ_NPT_AZIM 360
static const ag_poni az_poni = {.dist = 0.1, .poni1 = 0.04, .poni2 = 0.038, .rot1 = 0.01, .rot2 = -0.02,
                                .wavelength = 1e-10, .pixel1 = 75e-6, .pixel2 = 75e-6, .rows = AZ_ROWS,
                                .cols = AZ_COLS};

typedef struct az_row {
  const char *name;
  bool two_d;
  size_t batch;
} az_row;

static const az_row az_rows[] = {
    {"azint1d", false, 1},
    {"azint2d", true, 1},
    {"azint2d-batch32", true, 32},
};
#define AZ_COUNT (int)(sizeof az_rows / sizeof az_rows[0])
#define AZ_MAX_ROUNDS 50
#define AZ_MIN_ROUNDS 5
#define AZ_TIME_CAP_MS 3000.0

unsigned azint_mask(const char *only) {
  unsigned rows = only == NULL ? (1u << AZ_COUNT) - 1 : 0;
  for (int r = 0; r < AZ_COUNT && only != NULL; r++)
    if (strcmp(only, az_rows[r].name) == 0 || strcmp(only, "azint") == 0)
      rows |= 1u << r;
  return rows;
}

/* ---- the child: one device, one row at a time -------------------------------------------- */

typedef struct az_state {
  ag_device *dev;
  ag_queue *q;
  const az_row *row;
  ag_integrator *integ;
  ag_array *frames;
  float *host; /* the frames */
  ag_integrate_result res;
} az_state;

static ag_status az_call(void *ctx, int which) {
  (void)which;
  az_state *s = ctx;
  ag_integrate_result_free(&s->res);
  return ag_integrate(s->q, s->integ, s->frames, &s->res);
}

/* The copy bandwidth, GB/s: the best of 10 ag_copy calls of 64 Mi float32 elements. */
static double copy_limit(az_state *s) {
  size_t n = (size_t)1 << 26;
  ag_array *a = NULL, *b = NULL;
  double best = INFINITY, ms;
  if (ag_array_create(s->dev, AG_F32, 1, &n, &a) == AG_OK && ag_array_create(s->dev, AG_F32, 1, &n, &b) == AG_OK &&
      ag_fill(s->q, a, 1) == AG_OK) {
    for (int k = 0; k < 10; k++) {
      double t0 = now_ms();
      if (ag_copy(s->q, a, b) != AG_OK || ag_queue_finish(s->q) != AG_OK)
        break;
      ms = now_ms() - t0;
      best = fmin(best, ms);
    }
  }
  ag_array_free(a);
  ag_array_free(b);
  return isfinite(best) ? 2.0 * (double)n * 4 / (best * 1e6) : 0;
}

/* sum_signal of the last call against the integrator's sparse matrix times the frames, in
   double on the host: the largest difference relative to the largest value. */
static int az_check(az_state *s, char *why, size_t size) {
  const ag_csr *csr;
  ag_csr_info info;
  if (ag_integrator_csr(s->integ, &csr) != AG_OK || ag_csr_get_info(csr, &info) != AG_OK)
    return snprintf(why, size, "%s", ag_last_error()), -1;
  uint64_t *ptr = malloc((info.rows + 1) * sizeof *ptr);
  uint32_t *col = malloc((info.nnz ? info.nnz : 1) * sizeof *col);
  float *val = malloc((info.nnz ? info.nnz : 1) * sizeof *val);
  size_t bins = info.rows, b = s->row->batch, npix = (size_t)AZ_ROWS * AZ_COLS;
  float *got = malloc(b * bins * sizeof *got);
  int rc = -1;
  if (ptr == NULL || col == NULL || val == NULL || got == NULL) {
    snprintf(why, size, "no host memory for the check");
  } else if (ag_csr_to_host(csr, ptr, col, val) != AG_OK ||
             ag_array_to_host(s->res.sum_signal, got, b * bins * sizeof *got) != AG_OK) {
    snprintf(why, size, "%s", ag_last_error());
  } else {
    double worst = 0, top = 0;
    for (size_t f = 0; f < b; f++)
      for (size_t r = 0; r < bins; r++) {
        double want = 0;
        for (uint64_t k = ptr[r]; k < ptr[r + 1]; k++)
          want += (double)val[k] * s->host[f * npix + col[k]];
        /* 2-D results are [npt_azim, npt_rad]; the matrix's rows are radial-major. */
        size_t at = s->row->two_d ? (r % AZ_NPT_AZIM) * AZ_NPT_RAD + r / AZ_NPT_AZIM : r;
        worst = fmax(worst, fabs(got[f * bins + at] - want));
        top = fmax(top, fabs(want));
      }
    if (top > 0 && worst <= 1e-5 * top)
      rc = 0;
    else
      snprintf(why, size, "sum_signal is off by %g of a largest value %g", worst, top);
  }
  free(ptr);
  free(col);
  free(val);
  free(got);
  return rc;
}

static void az_release(az_state *s) {
  ag_integrate_result_free(&s->res);
  ag_integrator_destroy(s->integ);
  ag_array_free(s->frames);
  free(s->host);
  s->integ = NULL;
  s->frames = NULL;
  s->host = NULL;
}

/* Bytes a call moves per frame: the frame, the sparse matrix's share (values, column
   indices, row pointers; read once a call), the six outputs. */
static double az_bytes(const az_state *s) {
  const ag_csr *csr;
  ag_csr_info info = {0};
  if (ag_integrator_csr(s->integ, &csr) == AG_OK)
    ag_csr_get_info(csr, &info);
  double matrix = (double)info.nnz * 8 + (double)(info.rows + 1) * 8;
  return (double)AZ_ROWS * AZ_COLS * 4 + matrix / (double)s->row->batch + 6.0 * (double)info.rows * 4;
}

int azint_child(const char *spec) {
  az_state s = {0};
  if (ag_device_select(spec, &s.dev) != AG_OK || ag_queue_create(s.dev, &s.q) != AG_OK)
    return fail("opening the device");
  ag_device_info info;
  ag_device_get_info(s.dev, &info);
  printf("device %s\t%s\t%.3f\n", info.platform, info.name, copy_limit(&s));
  fflush(stdout);
  char line[256], why[512];
  while (fgets(line, sizeof line, stdin) != NULL) {
    char name[64];
    if (sscanf(line, "setup %63s", name) == 1) {
      s.row = NULL;
      for (int r = 0; r < AZ_COUNT; r++)
        if (strcmp(name, az_rows[r].name) == 0)
          s.row = &az_rows[r];
      if (s.row == NULL)
        return fprintf(stderr, "anygpu-bench: no row %s\n", name), 1;
      size_t npix = (size_t)AZ_ROWS * AZ_COLS, shape[3] = {s.row->batch, AZ_ROWS, AZ_COLS};
      s.host = malloc(s.row->batch * npix * sizeof *s.host);
      if (s.host == NULL)
        return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
      uint32_t x = 12345;
      for (size_t i = 0; i < s.row->batch * npix; i++) {
        x = x * 1664525u + 1013904223u;
        s.host[i] = (float)(x >> 8) * (1000.0f / 16777216.0f);
      }
      ag_integrate_options opt = {.npt_rad = AZ_NPT_RAD, .npt_azim = s.row->two_d ? AZ_NPT_AZIM : 0,
                                  .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_BBOX, .dtype = AG_F32};
      double t0 = now_ms();
      if (ag_array_from_host(s.dev, AG_F32, 3, shape, s.host, &s.frames) != AG_OK ||
          ag_integrator_create(s.dev, &az_poni, &opt, &s.integ) != AG_OK || az_call(&s, 0) != AG_OK ||
          ag_queue_finish(s.q) != AG_OK)
        return fail(name);
      printf("ready %.6f %.1f\n", now_ms() - t0, az_bytes(&s));
      if (az_check(&s, why, sizeof why) != 0)
        return fprintf(stderr, "anygpu-bench: %s, first call: %s\n", name, why), 1;
      if (az_call(&s, 0) != AG_OK || ag_queue_finish(s.q) != AG_OK)
        return fail(name);
    } else if (strncmp(line, "round", 5) == 0) {
      double ms;
      if (event_time(s.q, az_call, &s, 0, &ms) != AG_OK)
        return fail(s.row->name);
      printf("time %.6f\n", ms);
    } else {
      if (az_check(&s, why, sizeof why) != 0)
        return fprintf(stderr, "anygpu-bench: %s, last round: %s\n", s.row->name, why), 1;
      az_release(&s);
      printf("ok\n");
    }
    fflush(stdout);
  }
  az_release(&s);
  ag_queue_destroy(s.q);
  return 0;
}

/* ---- the parent's side ------------------------------------------------------------------- */

/* One row of frames/s, as the azint and template-match rows print it: @p pct 0 prints no
   % of limit, an empty @p peer no peer, a @p peer_fps of 0 a peer without a figure. */
void frames_row_print(const char *spec, const char *row, size_t elements, bool csv, double fps, double pct,
                      const char *peer, double peer_fps, int rounds) {
  char v[32] = "-", p[32] = "-", pv[32] = "", ratio[32] = "";
  if (fps > 0)
    snprintf(v, sizeof v, csv ? "%.3f" : "%.1f", fps);
  if (pct > 0)
    snprintf(p, sizeof p, csv ? "%.2f" : "%.1f%%", pct);
  if (peer[0])
    snprintf(pv, sizeof pv, "-");
  if (peer_fps > 0) {
    snprintf(pv, sizeof pv, csv ? "%.3f" : "%.1f", peer_fps);
    if (fps > 0)
      snprintf(ratio, sizeof ratio, csv ? "%.3f" : "%.2fx", fps / peer_fps);
  }
  if (csv)
    printf("%s,%s,f32,%zu,%s,frames/s,%s,%s,%s,%s\n", spec, row, elements, v, fps > 0 && pct > 0 ? p : "",
           peer_fps > 0 ? peer : "", peer_fps > 0 ? pv : "", ratio);
  else
    printf("  %-17s %9s %-8s %10s %-6s %10s %8s %6d\n", row, v, "frames/s", p, peer, pv, ratio, rounds);
  fflush(stdout);
}

static void az_print(const device_entry *d, const az_row *row, bool csv, double fps, double pct, const char *peer,
                     double peer_fps, int rounds) {
  frames_row_print(d->spec, row->name, row->batch * AZ_ROWS * AZ_COLS, csv, fps, pct, peer, peer_fps, rounds);
}

int azint_device(const char *self, const device_entry *d, unsigned rows, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--azint-child", (char *)d->spec, NULL};
  char line[1024], platform[256], name[256];
  double limit = 0;
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      sscanf(line, "device %255[^\t]\t%255[^\t]\t%lf", platform, name, &limit) != 3) {
    fprintf(stderr, "anygpu-bench: the azimuthal integration rows failed on %s (exit status %d)\n", d->spec,
            coproc_end(&child));
    return 1;
  }
  /* pyFAI on the same device: Cython on the host, its OpenCL on an OpenCL device. */
  bool on_host = strcmp(d->backend, "host") == 0, on_cl = strcmp(d->backend, "opencl") == 0;
  char py_name[16] = "";
  bool py_on = false;
  if (on_host || on_cl) {
    const char *args[3] = {on_host ? "-" : platform, on_host ? "-" : name, NULL};
    py_on = peer_start(false, "peer_azint", args, &py, py_name, sizeof py_name) == 0;
    snprintf(py_name, sizeof py_name, "pyFAI");
  }
  if (!csv) {
    tot->any_azint = true;
    printf("\n%s: %s (%s); azimuthal integration, float32, copy bandwidth %.1f GB/s\n", d->spec, d->name, d->type,
           limit);
    printf("  %-17s %9s %-8s %10s %-6s %10s %8s %6s\n", "row", "value", "unit", "% of limit", "peer", "peer value",
           "ratio", "rounds");
  }
  int rc = 0;
  for (int r = 0; r < AZ_COUNT && rc == 0; r++) {
    const az_row *row = &az_rows[r];
    if (!(rows & (1u << r)))
      continue;
    char cmd[64];
    double first, bytes, ms, best = INFINITY, peer_best = INFINITY, spent = 0;
    snprintf(cmd, sizeof cmd, "setup %s", row->name);
    if (coproc_ask(&child, cmd, line, sizeof line) == NULL || sscanf(line, "ready %lf %lf", &first, &bytes) != 2) {
      rc = 1;
      break;
    }
    bool peer = py_on && coproc_ask(&py, cmd, line, sizeof line) != NULL;
    if (peer && strncmp(line, "skip ", 5) == 0) {
      fprintf(stderr, "anygpu-bench: %s on %s, the pyFAI peer: %s\n", row->name, d->spec, line + 5);
      peer = false;
    } else if (peer && strncmp(line, "ready", 5) != 0) {
      peer = py_on = false;
    }
    int rounds = 0;
    while (rc == 0 && rounds < AZ_MAX_ROUNDS && (rounds < AZ_MIN_ROUNDS || spent < AZ_TIME_CAP_MS)) {
      for (int turn = 0; turn < 2; turn++) {
        if ((turn == 0) == (rounds % 2 == 0)) {
          if (coproc_ask(&child, "round", line, sizeof line) == NULL || sscanf(line, "time %lf", &ms) != 1)
            rc = 1;
          else
            best = fmin(best, ms), spent += ms;
        } else if (peer) {
          if (coproc_ask(&py, "round", line, sizeof line) == NULL || sscanf(line, "time %lf", &ms) != 1)
            peer = py_on = false;
          else
            peer_best = fmin(peer_best, ms), spent += ms;
        }
      }
      rounds++;
    }
    if (rc == 0 && (coproc_ask(&child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
      rc = 1;
    if (peer && (coproc_ask(&py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
      peer = py_on = false;
    if (rc != 0)
      break;
    double fps = isfinite(best) ? (double)row->batch * 1e3 / best : 0;
    double pfps = peer && isfinite(peer_best) ? (double)row->batch * 1e3 / peer_best : 0;
    double pct = limit > 0 ? 100.0 * bytes * fps / (limit * 1e9) : 0;
    az_print(d, row, csv, fps, pct, py_name, pfps, rounds);
  }
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the azimuthal integration rows failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (py_on)
    coproc_end(&py);
  return rc;
}

void azint_footer(const totals *tot) {
  if (tot->any_azint)
    printf("\nazint1d, azint2d: one %d x %d float32 frame integrated over q (nm^-1) with bounding-box\n"
           "  splitting into %d bins, or %d x %d (azimuthal x radial); azint2d-batch32: 32 frames a call.\n"
           "  frames/s = frames / the call's best time in at most %d rounds (fewer once both sides'\n"
           "  time passes %.0f s, at least %d), timed as the BLAS rows are. The first and last calls'\n"
           "  sum_signal is checked against the integrator's sparse matrix times the frames, in\n"
           "  double on the host, within 1e-5 of its largest value.\n"
           "%% of limit: the fewest bytes a call moves per frame (the frame; the sparse matrix, once a\n"
           "  call, over its frames; the six outputs) times frames/s, over the copy bandwidth of\n"
           "  ag_copy measured by the same process (64 Mi float32, best of 10).\n"
           "peer: pyFAI's CSR integrator with bounding-box splitting, integrate1d_ng/integrate2d_ng,\n"
           "  one frame a call (it has no batches): Cython on the host, its OpenCL on the same\n"
           "  OpenCL device (found by platform and device name through pyopencl); none on CUDA.\n",
           AZ_ROWS, AZ_COLS, AZ_NPT_RAD, AZ_NPT_AZIM, AZ_NPT_RAD, AZ_MAX_ROUNDS, AZ_TIME_CAP_MS * 1e-3,
           AZ_MIN_ROUNDS);
}
