/* tools/bench/linalg.c — the BLAS and FFT rows, and the parent's side of them: it runs each
   device's child (linalg_child.c) and the peer in alternating rounds, and prints the rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* Each row: one checked call and one warm-up call on each side, then rounds of one anygpu call
   and one peer call (in turn each side goes first), the row's max_rounds of them, or fewer once
   both sides' measured time passes LINALG_TIME_CAP_MS, but at least LINALG_MIN_ROUNDS (where
   max_rounds allows). Each side keeps its best time. Short calls get many rounds: a row of ten
   3-ms calls samples 30 ms of a shared machine, where one other process's time slice decides
   the best; two hundred give each side its quiet moments. gemm-4096 in float64 takes seconds
   a call on a CPU, so it runs 2 rounds: eight calls in all with the checked and warm-up calls
   of both sides. */
#define LINALG_MAX_ROUNDS 200
#define LINALG_MIN_ROUNDS 10
#define LINALG_TIME_CAP_MS 2000.0

/* The rows in the order they run. */
const struct linalg_row linalg_rows[] = {
    {"gemm-512", R_GEMM, 512, LINALG_MAX_ROUNDS},
    {"gemm-1024", R_GEMM, 1024, LINALG_MAX_ROUNDS},
    {"gemm-2048", R_GEMM, 2048, LINALG_MAX_ROUNDS},
    {"gemm-4096", R_GEMM, 4096, 2},
    {"fft2d-512", R_FFT2D, 512, LINALG_MAX_ROUNDS},
    {"fft2d-1024", R_FFT2D, 1024, LINALG_MAX_ROUNDS},
    {"fft2d-2048", R_FFT2D, 2048, LINALG_MAX_ROUNDS},
    {"fft1d-batched-256", R_FFT1D, 256, LINALG_MAX_ROUNDS},
    {"fft1d-batched-4096", R_FFT1D, 4096, LINALG_MAX_ROUNDS},
};
#define LINALG_ALL ((1u << LINALG_COUNT) - 1)

/* Rows of the array a row works on: N for gemm and fft2d, FFT1D_ELEMENTS / N for fft1d-batched. */
size_t row_count(const struct linalg_row *row) {
  return row->kind == R_FFT1D ? FFT1D_ELEMENTS / row->n : row->n;
}

/* The rows --only @p only names (NULL: every row); 0 for a name that is not a row's or a kind's.
   "gemm" and "fft" name a kind of row, "gemm-1024" one row. */
unsigned linalg_mask(const char *only) {
  unsigned rows = only == NULL ? LINALG_ALL : 0;
  for (int r = 0; r < LINALG_COUNT && only != NULL; r++)
    if (strcmp(only, linalg_rows[r].name) == 0 || strcmp(only, linalg_rows[r].kind == R_GEMM ? "gemm" : "fft") == 0)
      rows |= 1u << r;
  return rows;
}

/* ---- the parent's side ------------------------------------------------------------------ */

static const char *row_dtype(const struct linalg_row *row, bool f32) {
  return row->kind == R_GEMM ? dtype_short(f32) : f32 ? "c64" : "c128";
}

/* GFLOP/s (gemm: 2N^3 flops) or GB/s (FFT: every element read once and written once) for a
   call of @p ms; 0 for no time. */
static double row_rate(const struct linalg_row *row, bool f32, double ms) {
  double n = (double)row->n, work = row->kind == R_GEMM ? 2 * n * n * n
                                                         : 2.0 * (double)(row_count(row) * row->n) * (f32 ? 8 : 16);
  return isfinite(ms) ? work / (ms * 1e6) : 0;
}

/* What a row measured on each side: the best rate (0 for none), the first call's time in ms
   (infinite for none), the rounds. */
typedef struct linalg_figures {
  double value, first_ms;
  const char *peer_name;
  double peer_value, peer_first_ms;
  int rounds;
} linalg_figures;

/* Prints a row; "-" for a figure that is 0, and for the peer's where a peer is named. In CSV a
   second row, ROW-first-call, gives the first calls' times in ms, with the peer's time over
   anygpu's as its ratio (above 1 anygpu is faster, as everywhere). */
static void print_linalg_row(const device_entry *d, const struct linalg_row *row, bool f32, bool csv,
                             linalg_figures f) {
  const char *unit = row->kind == R_GEMM ? "GFLOP/s" : "GB/s", *peer_name = f.peer_name;
  double value = f.value, peer_value = f.peer_value;
  int rounds = f.rounds;
  char v[32] = "-", pv[32] = "", ratio[32] = "", nr[16] = "", first[32] = "-", pfirst[32] = "", fratio[32] = "";
  if (isfinite(f.first_ms))
    snprintf(first, sizeof first, csv ? "%.3f" : "%.1f", f.first_ms);
  if (peer_name[0])
    snprintf(pfirst, sizeof pfirst, "-");
  if (isfinite(f.peer_first_ms)) {
    snprintf(pfirst, sizeof pfirst, csv ? "%.3f" : "%.1f", f.peer_first_ms);
    if (isfinite(f.first_ms) && f.first_ms > 0)
      snprintf(fratio, sizeof fratio, "%.3f", f.peer_first_ms / f.first_ms);
  }
  if (value > 0)
    snprintf(v, sizeof v, csv ? "%.2f" : "%.1f", value);
  if (peer_name[0])
    snprintf(pv, sizeof pv, "-");
  if (peer_value > 0) {
    snprintf(pv, sizeof pv, csv ? "%.2f" : "%.1f", peer_value);
    if (value > 0)
      snprintf(ratio, sizeof ratio, csv ? "%.3f" : "%.2fx", value / peer_value);
  }
  if (rounds > 0)
    snprintf(nr, sizeof nr, "%d", rounds);
  if (csv) {
    printf("%s,%s,%s,%zu,%s,%s,,%s,%s,%s\n", d->spec, row->name, row_dtype(row, f32), row_count(row) * row->n, v,
           unit, peer_value > 0 ? peer_name : pv, peer_value > 0 ? pv : "", ratio);
    if (isfinite(f.first_ms))
      printf("%s,%s-first-call,%s,%zu,%s,ms,,%s,%s,%s\n", d->spec, row->name, row_dtype(row, f32),
             row_count(row) * row->n, first, isfinite(f.peer_first_ms) ? peer_name : pfirst,
             isfinite(f.peer_first_ms) ? pfirst : "", fratio);
  } else {
    printf("  %-19s %9s %-8s %-7s %10s %8s %6s %10s %10s\n", row->name, v, unit, peer_name, pv, ratio, nr, first,
           pfirst);
  }
  fflush(stdout);
}

/* One side of a row: the process that runs it and the prefix of its commands ("peer-" for
   clFFT, which the device's own child runs). */
typedef struct side {
  coproc *c;
  const char *prefix;
} side;

static char *side_ask(const side *s, const char *cmd, char *line, size_t size) {
  char full[sizeof "peer-" + 64]; /* room for the prefix and any command of linalg_device */
  snprintf(full, sizeof full, "%s%s", s->prefix, cmd);
  return coproc_ask(s->c, full, line, size);
}

/* One timed call into *ms; -1 when the side failed. */
static int side_time(const side *s, char *line, size_t size, double *ms) {
  return side_ask(s, "round", line, size) != NULL && sscanf(line, "time %lf", ms) == 1 && *ms > 0 ? 0 : -1;
}

/* Measures the rows of @p rows on one device, printing each as it completes: starts its child,
   and the Python peer when a row needs it. */
int linalg_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--linalg-child", (char *)d->spec, (char *)dtype_short(f32), NULL};
  char line[1024], blas[64], fft[64], py_name[16] = "";
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0) {
    perror("anygpu-bench: starting the measurement");
    coproc_end(&child);
    return 1;
  }
  if (coproc_read(&child, line, sizeof line) == NULL ||
      sscanf(line, "providers %63[^\t]\t%63[^\n]", blas, fft) != 2) {
    fprintf(stderr, "anygpu-bench: the BLAS and FFT rows failed on %s (exit status %d)\n", d->spec,
            coproc_end(&child));
    return 1;
  }
  bool gpu = strcmp(d->type, "GPU") == 0, cpu = strcmp(d->type, "CPU") == 0, py_tried = false, py_on = false;
  /* On OpenCL CPU devices (pocl) the FFT rows are anygpu's default provider against clFFT. */
  bool clfft_peer = cpu && strcmp(d->backend, "opencl") == 0;
  if (!csv) {
    tot->any_linalg = true;
    printf("\n%s: %s (%s, %.2f GiB); BLAS %s, FFT %s; %s and %s\n", d->spec, d->name, d->type,
           (double)d->memory / (1024.0 * 1024 * 1024), blas, fft, f32 ? "float32" : "float64",
           f32 ? "complex64" : "complex128");
    printf("  %-19s %9s %-8s %-7s %10s %8s %6s %10s %10s\n", "row", "value", "unit", "peer", "peer value", "ratio",
           "rounds", "first ms", "peer first");
  }
  int rc = 0;
  for (int r = 0; r < LINALG_COUNT && rc == 0; r++) {
    const struct linalg_row *row = &linalg_rows[r];
    if (!(rows & (1u << r)))
      continue;
    char cmd[64], peer_name[16] = "";
    snprintf(cmd, sizeof cmd, "setup %s", row->name);
    double first = INFINITY, peer_first = INFINITY;
    if (coproc_ask(&child, cmd, line, sizeof line) == NULL ||
        (sscanf(line, "ready %lf", &first) != 1 && strncmp(line, "skip ", 5) != 0)) {
      rc = 1;
      break;
    }
    if (strncmp(line, "skip ", 5) == 0) {
      fprintf(stderr, "anygpu-bench: %s on %s: %s\n", row->name, d->spec, line + 5);
      print_linalg_row(d, row, f32, csv, (linalg_figures){0, INFINITY, "", 0, INFINITY, 0});
      continue;
    }
    side me = {&child, ""}, peer = {NULL, ""};
    if (row->kind != R_GEMM && clfft_peer) {
      peer = (side){&child, "peer-"};
      snprintf(peer_name, sizeof peer_name, "clFFT");
    } else if (gpu || cpu) {
      if (!py_tried) {
        char elements[32];
        snprintf(elements, sizeof elements, "%zu", FFT1D_ELEMENTS);
        const char *args[3] = {f32 ? "float32" : "float64", elements, NULL};
        py_tried = true;
        py_on = peer_start(gpu, "peer_linalg", args, &py, py_name, sizeof py_name) == 0;
      }
      snprintf(peer_name, sizeof peer_name, "%s", py_name);
      if (py_on)
        peer.c = &py;
    }
    /* lost: the peer failed; clFFT's failure is the child's. */
    bool lost = peer.c != NULL && side_ask(&peer, cmd, line, sizeof line) == NULL;
    if (peer.c != NULL && !lost && strncmp(line, "skip ", 5) == 0) {
      fprintf(stderr, "anygpu-bench: %s on %s, the %s peer: %s\n", row->name, d->spec, peer_name, line + 5);
      peer.c = NULL;
    } else if (peer.c != NULL && !lost && sscanf(line, "ready %lf", &peer_first) != 1) {
      lost = true;
    }
    double best = INFINITY, peer_best = INFINITY, spent = 0, ms;
    int rounds = 0;
    while (rounds < row->max_rounds && (rounds < LINALG_MIN_ROUNDS || spent < LINALG_TIME_CAP_MS)) {
      /* Each side in turn goes first, so neither always follows the other's call (and the
         threads it leaves spinning for a while after it, as OpenBLAS's do). */
      for (int turn = 0; turn < 2 && rc == 0; turn++) {
        if ((turn == 0) == (rounds % 2 == 0)) {
          if (side_time(&me, line, sizeof line, &ms) != 0)
            rc = 1;
          else
            best = fmin(best, ms), spent += ms;
        } else if (peer.c != NULL && !lost) {
          if (side_time(&peer, line, sizeof line, &ms) != 0)
            lost = true;
          else
            peer_best = fmin(peer_best, ms), spent += ms;
        }
      }
      if (rc != 0)
        break;
      rounds++;
    }
    /* Both check the result of their last call. */
    if (rc == 0 && (coproc_ask(&child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
      rc = 1;
    if (peer.c == &py && !lost && (coproc_ask(&py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
      lost = true;
    if (lost && peer.c == &child) {
      rc = 1;
    } else if (lost) {
      fprintf(stderr, "anygpu-bench: the %s peer failed in %s (exit status %d); its rows show \"-\"\n", py_name,
              row->name, coproc_end(&py));
      py_on = false;
      peer_best = peer_first = INFINITY;
    }
    if (peer.c == NULL)
      peer_first = INFINITY;
    if (rc == 0)
      print_linalg_row(d, row, f32, csv,
                       (linalg_figures){row_rate(row, f32, best), first, peer_name, row_rate(row, f32, peer_best),
                                        peer_first, rounds});
  }
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the BLAS and FFT rows failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (py_on)
    coproc_end(&py);
  return rc;
}

/* The legend under the BLAS and FFT tables. */
void linalg_footer(const totals *tot) {
  if (tot->any_linalg)
    printf("\ngemm-N: C = A B with N x N matrices, ag_gemm without transposes, alpha 1, beta 0;\n"
           "  GFLOP/s = 2N^3 flops / time, 1e9 per second. The inputs make every sum exact, and 64\n"
           "  elements of C are compared exactly with the host's.\n"
           "fft2d-N: one N x N complex forward transform, ag_fft over the last 2 axes, out of place;\n"
           "  fft1d-batched-N: %zu/N rows of N, ag_fft over the last axis. GB/s = 2 x elements x\n"
           "  element size / time (each element read once and written once), GB = 1e9 bytes. The\n"
           "  input is a complex exponential whose transform is one peak; every bin is checked.\n"
           "rounds: after one checked call and one warm-up call on each side, anygpu's and the peer's\n"
           "  calls alternate, each side first in turn, at most %d rounds (2 for gemm-4096), fewer\n"
           "  once both sides' measured time passes %.0f s but at least %d; each side's best time.\n"
           "  anygpu is timed with ag_event_record/ag_event_elapsed_ms, which bracket the call on\n"
           "  the queue also where the BLAS runs on the host inside it (OpenBLAS on mapped buffers);\n"
           "  the host clock around ag_queue_finish where the driver gives no timestamps.\n"
           "peer: gemm np.matmul(a, b, out=c) (numpy's OpenBLAS) on CPU devices, CuPy's matmul on\n"
           "  GPUs; FFT numpy.fft.fft2 and numpy.fft.fft(x, axis=-1) on CPU devices (no out=, and\n"
           "  complex128 inside whatever the dtype), cupy.fft on GPUs, and on OpenCL CPU devices\n"
           "  anygpu itself through clFFT (ANYGPU_OPENCL_FFT=clfft) against its default provider.\n"
           "  numpy is timed with time.perf_counter, CuPy with CUDA events; each peer checks its\n"
           "  results the same way. \"-\" where there is no figure (the reason is on stderr).\n"
           "first ms, peer first: each side's first call of the row in its process, wall clock until\n"
           "  finished, in ms: for an FFT the plan is made in it (the host's FFTW plans come from the\n"
           "  wisdom in the cache folder, ANYGPU_CACHE_DIR, when an earlier process left it there).\n",
           FFT1D_ELEMENTS, LINALG_MAX_ROUNDS, LINALG_TIME_CAP_MS * 1e-3, LINALG_MIN_ROUNDS);
}
