/* tools/bench/solvers.c — the solver rows (--only solvers): sporco 0.2.2's ADMM solvers
   (anygpu/solvers.h) run for a fixed 100 iterations, in iterations per second, next to the
   numpy transcription of sporco in tests/sporco_ref.py on the CPU (peer_solvers.py). The peer
   builds each row's problem as that transcription's `bench` mode does and writes it as .npy;
   the device's child (--solvers-child) reads it, so both sides solve the same problem; the
   parent runs both in alternating rounds and checks that they reach the same objective. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "npy.h"

/* The iterations a round runs (sporco_ref.py's bench: MaxMainIter 100, RelStopTol 0). */
#define SV_ITERATIONS 100
#define SV_MAX_ROUNDS 5
#define SV_TIME_CAP_MS 20000.0
/* The objectives at the last iteration agree within this, relative. float64 on both sides:
   the same iterations, apart from rounding (anygpu's BPDN solves its linear systems through an
   eigendecomposition, sporco through Cholesky). float32 on the device (--float, or a device
   without float64) against the peer's float64: see solvers_footer. */
#define SV_TOL_F64 1e-6
#define SV_TOL_F32 1e-3

/* A row's problem in the child: the arrays the peer wrote, in the row's dtype, and what the
   peer's "problem" line said. */
typedef struct sv_problem {
  ag_array *D, *S; /* D: NULL for the denoising rows */
  double lmbda;
  int axes[3];
  size_t naxes;
} sv_problem;

typedef ag_status (*sv_make)(ag_queue *q, const sv_problem *p, const ag_admm_options *opt, ag_solver **s);

static ag_status make_bpdn(ag_queue *q, const sv_problem *p, const ag_admm_options *opt, ag_solver **s) {
  return ag_bpdn_create(q, p->D, p->S, p->lmbda, opt, s);
}

static ag_status make_tvl1(ag_queue *q, const sv_problem *p, const ag_admm_options *opt, ag_solver **s) {
  return ag_tvl1_create(q, p->S, p->lmbda, p->axes, p->naxes, opt, s);
}

static ag_status make_tvl2(ag_queue *q, const sv_problem *p, const ag_admm_options *opt, ag_solver **s) {
  return ag_tvl2_create(q, p->S, p->lmbda, p->axes, p->naxes, opt, s);
}

static ag_status make_rpca(ag_queue *q, const sv_problem *p, const ag_admm_options *opt, ag_solver **s) {
  return ag_rpca_create(q, p->S, p->lmbda, opt, s);
}

static ag_status make_cbpdn(ag_queue *q, const sv_problem *p, const ag_admm_options *opt, ag_solver **s) {
  return ag_cbpdn_create(q, p->D, p->S, p->lmbda, opt, s);
}

typedef struct sv_row {
  const char *name; /* the row, and sporco_ref.py's bench ROW */
  ag_solver_kind kind;
  sv_make make;
  bool dictionary;   /* the problem has a D.npy */
  bool filters;      /* D.npy is sporco's (Nd0, Nd1, M); anygpu's D is [M][Nd0][Nd1] */
  size_t unknowns;   /* X's elements: the size column */
  int min_rounds;
} sv_row;

/* The rows in the order they run. The peer's 100 iterations take about 25 s for tvl1, 30 - 45 s
   for rpca and 200 s for cbpdn on a 2-core CPU: those rows run the fewest rounds, and cbpdn one
   (see solvers_footer). */
static const sv_row sv_rows[] = {
    {"bpdn", AG_SOLVER_BPDN, make_bpdn, true, false, 1024 * 64, 2},
    {"tvl1", AG_SOLVER_TVL1, make_tvl1, false, false, 512 * 512, 2},
    {"tvl2", AG_SOLVER_TVL2, make_tvl2, false, false, 512 * 512, 2},
    {"rpca", AG_SOLVER_RPCA, make_rpca, false, false, 512 * 512, 2},
    {"cbpdn", AG_SOLVER_CBPDN, make_cbpdn, true, true, 512 * 512 * 32, 1},
};
#define SV_COUNT (int)(sizeof sv_rows / sizeof sv_rows[0])

unsigned solvers_mask(const char *only) {
  unsigned rows = only == NULL || strcmp(only, "solvers") == 0 ? (1u << SV_COUNT) - 1 : 0;
  for (int r = 0; r < SV_COUNT && only != NULL; r++)
    if (strcmp(only, sv_rows[r].name) == 0)
      rows |= 1u << r;
  return rows;
}

static const sv_row *sv_find(const char *name) {
  for (int r = 0; r < SV_COUNT; r++)
    if (strcmp(name, sv_rows[r].name) == 0)
      return &sv_rows[r];
  return NULL;
}

/* ---- the child: one device, one row at a time -------------------------------------------- */

typedef struct sv_state {
  ag_device *dev;
  ag_queue *q;
  ag_dtype dtype;
  const sv_row *row;
  sv_problem p;
} sv_state;

/* The options of every round: sporco's defaults for the solver, 100 iterations, nothing stops
   early, statistics on (sporco's FastSolve False). */
static ag_admm_options sv_options(const sv_row *row) {
  ag_admm_options opt;
  ag_solver_options_default(row->kind, &opt);
  opt.max_iter = SV_ITERATIONS;
  opt.rel_stop_tol = 0;
  opt.fast_solve = false;
  return opt;
}

/* @p folder/@p file into a new array of the child's dtype on its device; with @p last_first, a
   3-D array's last axis moved first ((a, b, c) to [c][a][b]). */
static ag_status sv_load(sv_state *s, const char *folder, const char *file, bool last_first, ag_array **out) {
  char path[1100], err[512];
  snprintf(path, sizeof path, "%s/%s", folder, file);
  npy_array a;
  if (!npy_read(path, &a, err, sizeof err)) {
    fprintf(stderr, "anygpu-bench: %s\n", err);
    return AG_ERR_INVALID_ARGUMENT;
  }
  ag_status st = AG_ERR_OUT_OF_MEMORY;
  void *host = malloc(a.count * (s->dtype == AG_F64 ? sizeof(double) : sizeof(float)));
  size_t shape[NPY_MAX_DIMS];
  memcpy(shape, a.shape, sizeof shape);
  last_first = last_first && a.ndim == 3;
  if (last_first)
    shape[0] = a.shape[2], shape[1] = a.shape[0], shape[2] = a.shape[1];
  if (host != NULL) {
    for (size_t i = 0; i < a.count; i++) {
      /* element i of the file goes to [i % c][i / c] when its last axis (c) moves first */
      size_t at = last_first ? (i % a.shape[2]) * (a.shape[0] * a.shape[1]) + i / a.shape[2] : i;
      if (s->dtype == AG_F64)
        ((double *)host)[at] = npy_get(&a, i);
      else
        ((float *)host)[at] = (float)npy_get(&a, i);
    }
    st = ag_array_from_host(s->dev, s->dtype, a.ndim, shape, host, out);
  }
  free(host);
  npy_free(&a);
  return st;
}

static void sv_release(sv_state *s) {
  ag_array_free(s->p.D);
  ag_array_free(s->p.S);
  s->p = (sv_problem){0};
  s->row = NULL;
}

/* "setup ROW FOLDER LMBDA AXES": the row's arrays, and a warm-up solver of 2 iterations, which
   compiles what the row's kernels need. Prints "ready MS" (the warm-up's wall time, loading
   included) or "skip REASON"; returns nonzero when the child must end. */
static int sv_setup(sv_state *s, const char *line) {
  char name[32], folder[1024], axes[32];
  if (sscanf(line, "setup %31s %1023s %lf %31s", name, folder, &s->p.lmbda, axes) != 4 ||
      (s->row = sv_find(name)) == NULL)
    return fprintf(stderr, "anygpu-bench: the solvers child was asked \"%s\"\n", line), 1;
  s->p.naxes = 0;
  for (char *a = strtok(axes, ","); a != NULL && s->p.naxes < 3; a = strtok(NULL, ","))
    s->p.axes[s->p.naxes++] = atoi(a);
  double t0 = now_ms();
  ag_admm_options opt = sv_options(s->row);
  ag_solver *solver = NULL;
  ag_status st = sv_load(s, folder, "S.npy", false, &s->p.S);
  if (st == AG_OK && s->row->dictionary)
    st = sv_load(s, folder, "D.npy", s->row->filters, &s->p.D);
  if (st == AG_OK)
    st = s->row->make(s->q, &s->p, &opt, &solver);
  if (st == AG_OK)
    st = ag_solver_iterate(solver, 2, NULL);
  if (st == AG_OK)
    st = ag_queue_finish(s->q);
  ag_solver_destroy(solver);
  if (st == AG_ERR_UNSUPPORTED) {
    printf("skip %s\n", ag_last_error());
    sv_release(s);
    return 0;
  }
  if (st != AG_OK)
    return fail(name);
  printf("ready %.6f\n", now_ms() - t0);
  return 0;
}

/* "round": a new solver, made before the clock starts, then SV_ITERATIONS iterations timed with
   the wall clock from an idle queue until the queue is idle again (the iteration is a host loop
   that reads a few numbers back each time, so there is no one span of device work to time with
   events). Prints "time MS obj OBJ iterations N", OBJ the last iteration's objective. */
static int sv_round(sv_state *s) {
  ag_admm_options opt = sv_options(s->row);
  ag_solver *solver = NULL;
  size_t done = 0;
  double t0 = 0, ms = 0;
  ag_status st = s->row->make(s->q, &s->p, &opt, &solver);
  if (st == AG_OK && (st = ag_queue_finish(s->q)) == AG_OK) {
    t0 = now_ms();
    if ((st = ag_solver_iterate(solver, SV_ITERATIONS, &done)) == AG_OK)
      st = ag_queue_finish(s->q);
    ms = now_ms() - t0;
  }
  const ag_iter_stats *hist;
  size_t n = st == AG_OK ? ag_solver_history(solver, &hist) : 0;
  if (st == AG_OK && n > 0)
    printf("time %.6f obj %.17g iterations %zu\n", ms, hist[n - 1].obj, done);
  ag_solver_destroy(solver);
  if (st != AG_OK)
    return fail(s->row->name);
  if (n == 0)
    return fprintf(stderr, "anygpu-bench: %s: no iteration statistics\n", s->row->name), 1;
  return 0;
}

int solvers_child(const char *spec, const char *dtype_name) {
  sv_state s = {0};
  if (ag_device_select(spec, &s.dev) != AG_OK || ag_queue_create(s.dev, &s.q) != AG_OK)
    return fail("opening the device");
  ag_device_info info;
  ag_device_get_info(s.dev, &info);
  /* float64 unless asked for float32, or the device has no float64. */
  s.dtype = strcmp(dtype_name, "f32") == 0 || !info.fp64 ? AG_F32 : AG_F64;
  printf("device %s\t%s\t%s\n", info.platform, info.name, s.dtype == AG_F64 ? "f64" : "f32");
  fflush(stdout);
  char line[1200];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "setup ", 6) == 0)
      rc = sv_setup(&s, line);
    else if (strcmp(line, "round") == 0 && s.row != NULL)
      rc = sv_round(&s);
    else {
      sv_release(&s);
      printf("ok\n");
    }
    fflush(stdout);
  }
  sv_release(&s);
  ag_queue_destroy(s.q);
  return rc;
}

/* ---- the parent's side ------------------------------------------------------------------- */

static const char *const sv_files[3] = {"D.npy", "S.npy", "sporco_ref.py"};

/* A new folder @p dir (at least 32 bytes) holding the transcription the peer runs. Returns 0, or
   -1 having said why, with nothing left behind. */
static int sv_folder(char *dir) {
  char path[1100];
  if (peer_folder_make(dir) != 0)
    return -1;
  snprintf(path, sizeof path, "%s/sporco_ref.py", dir);
  if (peer_file_save("sporco_ref", path) == 0)
    return 0;
  peer_folder_remove(dir, sv_files, 3);
  return -1;
}

/* What a row measured: each side's best time in ms (infinite for none), the objectives at the
   last iteration (NaN for none), the largest relative difference between them over the
   rounds, the rounds. */
typedef struct sv_figures {
  double best, peer_best, obj, peer_obj, diff;
  int rounds;
} sv_figures;

static void sv_print(const device_entry *d, const sv_row *row, const char *dtype, bool csv, const char *peer,
                     sv_figures f) {
  char v[32] = "-", pv[32] = "", ratio[32] = "", obj[32] = "-", diff[32] = "", nr[16] = "";
  double rate = isfinite(f.best) ? SV_ITERATIONS * 1e3 / f.best : 0;
  double peer_rate = isfinite(f.peer_best) ? SV_ITERATIONS * 1e3 / f.peer_best : 0;
  if (rate > 0)
    snprintf(v, sizeof v, csv ? "%.3f" : "%.2f", rate);
  if (peer[0])
    snprintf(pv, sizeof pv, "-");
  if (peer_rate > 0) {
    snprintf(pv, sizeof pv, csv ? "%.3f" : "%.2f", peer_rate);
    if (rate > 0)
      snprintf(ratio, sizeof ratio, csv ? "%.3f" : "%.2fx", rate / peer_rate);
  }
  if (isfinite(f.obj))
    snprintf(obj, sizeof obj, "%.10g", f.obj);
  if (isfinite(f.diff))
    snprintf(diff, sizeof diff, "%.1e", f.diff);
  if (f.rounds > 0)
    snprintf(nr, sizeof nr, "%d", f.rounds);
  if (csv)
    printf("%s,%s,%s,%zu,%s,it/s,,%s,%s,%s\n", d->spec, row->name, dtype, row->unknowns, v,
           peer_rate > 0 ? peer : "", peer_rate > 0 ? pv : "", ratio);
  else
    printf("  %-17s %9s %-5s %-6s %10s %8s %6s %18s %9s\n", row->name, v, "it/s", peer, pv, ratio, nr, obj, diff);
  fflush(stdout);
}

/* Asks @p c for a round; its time and objective into *ms and *obj. -1 when the answer is not a
   round of SV_ITERATIONS iterations (said on stderr, naming @p who) or the side has gone. */
static int sv_ask_round(coproc *c, const char *who, const sv_row *row, double *ms, double *obj) {
  char line[256];
  int iterations = 0;
  if (coproc_ask(c, "round", line, sizeof line) == NULL ||
      sscanf(line, "time %lf obj %lf iterations %d", ms, obj, &iterations) != 3)
    return -1;
  if (iterations != SV_ITERATIONS)
    return fprintf(stderr, "anygpu-bench: %s, %s: %d iterations, not %d\n", row->name, who, iterations, SV_ITERATIONS),
           -1;
  return 0;
}

/* Runs @p row on both sides: the peer writes the problem into @p dir, the child reads it, then
   rounds alternate (each side first in turn), as template.c's. Returns 0 with *f filled (a row
   that cannot run on a side leaves its figures empty, said on stderr), 1 when the child failed
   or the objectives disagree. *peer_on goes false when the peer fails. */
static int sv_run_row(coproc *child, coproc *py, bool *peer_on, const device_entry *d, const sv_row *row,
                      const char *dir, double tol, sv_figures *f) {
  char cmd[1200], line[1200], solver[32], axes[32];
  double lmbda, ms, obj;
  *f = (sv_figures){INFINITY, INFINITY, NAN, NAN, NAN, 0};
  /* The problem comes from the peer: without it there is nothing to solve. */
  snprintf(cmd, sizeof cmd, "setup %s", row->name);
  if (!*peer_on || coproc_ask(py, cmd, line, sizeof line) == NULL) {
    fprintf(stderr, "anygpu-bench: %s on %s: no numpy peer to build the problem\n", row->name, d->spec);
    *peer_on = false;
    return 0;
  }
  if (strncmp(line, "skip ", 5) == 0 || sscanf(line, "problem %31s %lf %31s", solver, &lmbda, axes) != 3) {
    fprintf(stderr, "anygpu-bench: %s on %s, the numpy peer: %s\n", row->name, d->spec, line);
    return 0;
  }
  snprintf(cmd, sizeof cmd, "setup %s %s %.17g %s", row->name, dir, lmbda, axes);
  if (coproc_ask(child, cmd, line, sizeof line) == NULL)
    return 1;
  if (strncmp(line, "skip ", 5) == 0) {
    fprintf(stderr, "anygpu-bench: %s on %s: %s\n", row->name, d->spec, line + 5);
    coproc_ask(py, "free", line, sizeof line);
    return 0;
  }
  double spent = 0;
  bool peer = true;
  while (f->rounds < SV_MAX_ROUNDS && (f->rounds < row->min_rounds || spent < SV_TIME_CAP_MS)) {
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == (f->rounds % 2 == 0)) {
        if (sv_ask_round(child, "anygpu", row, &ms, &obj) != 0)
          return 1;
        f->best = fmin(f->best, ms), spent += ms, f->obj = obj;
      } else if (peer) {
        if (sv_ask_round(py, "the numpy peer", row, &ms, &obj) != 0)
          peer = *peer_on = false;
        else
          f->peer_best = fmin(f->peer_best, ms), spent += ms, f->peer_obj = obj;
      }
    }
    /* Every round of each side starts from the same state, so each round's objective is
       compared. */
    if (peer && isfinite(f->peer_obj))
      f->diff = fmax(isnan(f->diff) ? 0 : f->diff, fabs(f->obj - f->peer_obj) / fabs(f->peer_obj));
    f->rounds++;
  }
  if (coproc_ask(child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0)
    return 1;
  if (peer && (coproc_ask(py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
    *peer_on = false;
  if (f->diff > tol) {
    fprintf(stderr, "anygpu-bench: %s on %s: objective %.17g at iteration %d, the numpy peer's %.17g: %.2g apart, "
                    "relative, beyond %g\n",
            row->name, d->spec, f->obj, SV_ITERATIONS, f->peer_obj, f->diff, tol);
    return 1;
  }
  return 0;
}

int solvers_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--solvers-child", (char *)d->spec, (char *)dtype_short(f32), NULL};
  char line[1024], platform[256], name[256], dtype[8], dir[32] = "", py_name[16] = "numpy";
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      sscanf(line, "device %255[^\t]\t%255[^\t]\t%7s", platform, name, dtype) != 3) {
    fprintf(stderr, "anygpu-bench: the solver rows failed on %s (exit status %d)\n", d->spec, coproc_end(&child));
    return 1;
  }
  /* numpy on the CPU whatever the device, in float64: the transcription has no other dtype. */
  bool py_on = sv_folder(dir) == 0;
  if (py_on) {
    const char *args[3] = {dir, NULL, NULL};
    py_on = peer_start(false, "peer_solvers", args, &py, py_name, sizeof py_name) == 0;
  }
  double tol = strcmp(dtype, "f64") == 0 ? SV_TOL_F64 : SV_TOL_F32;
  if (!csv) {
    tot->any_solvers = true;
    printf("\n%s: %s (%s); sporco's ADMM solvers, %d iterations, %s (the peer float64)\n", d->spec, d->name,
           d->type, SV_ITERATIONS, strcmp(dtype, "f64") == 0 ? "float64" : "float32");
    printf("  %-17s %9s %-5s %-6s %10s %8s %6s %18s %9s\n", "row", "value", "unit", "peer", "peer value", "ratio",
           "rounds", "objective", "obj diff");
  }
  int rc = 0;
  for (int r = 0; r < SV_COUNT && rc == 0; r++) {
    if (!(rows & (1u << r)))
      continue;
    sv_figures f;
    bool had_peer = py_on;
    rc = sv_run_row(&child, &py, &py_on, d, &sv_rows[r], dir, tol, &f);
    if (had_peer && !py_on)
      fprintf(stderr, "anygpu-bench: the numpy peer failed in %s (exit status %d)\n", sv_rows[r].name,
              coproc_end(&py));
    sv_print(d, &sv_rows[r], dtype, csv, py_name, f);
  }
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the solver rows failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (py_on)
    coproc_end(&py);
  peer_folder_remove(dir, sv_files, 3);
  return rc;
}

void solvers_footer(const totals *tot) {
  if (tot->any_solvers)
    printf("\nbpdn, tvl1, tvl2, rpca, cbpdn: sporco 0.2.2's BPDN, TVL1Denoise, TVL2Denoise, RobustPCA and\n"
           "  ConvBPDN (ag_bpdn_create, ...) on the problems of tests/sporco_ref.py's bench mode (fixed\n"
           "  seed): bpdn a 512 x 1024 random dictionary and 64 signals of 16 atoms plus noise, lmbda\n"
           "  0.1; tvl1 a 512 x 512 piecewise constant image with 5 %% impulse noise, lmbda 1; tvl2 the\n"
           "  same image with Gaussian noise, lmbda 0.1; rpca a 512 x 512 rank-10 matrix plus sparse\n"
           "  errors; cbpdn a 512 x 512 image, 32 filters of 8 x 8. sporco's default options, but %d\n"
           "  iterations (RelStopTol 0: nothing stops early) with the iteration statistics (FastSolve\n"
           "  False). it/s = %d / the best time of ag_solver_iterate(s, %d), wall clock from an idle\n"
           "  queue to an idle queue, a new solver each round made before the clock starts; at most %d\n"
           "  rounds (fewer once both sides' time passes %.0f s, at least 2; cbpdn 1). objective: anygpu's\n"
           "  at the last iteration; obj diff: the largest relative difference from the peer's over the\n"
           "  rounds, at most %g in float64, and %g in float32 against the peer's float64\n"
           "  (docs/performance.md, Solvers, says why).\n"
           "peer: tests/sporco_ref.py, compiled in, in numpy float64 on the CPU whatever the device, a\n"
           "  new solver each round made before its clock starts; it writes the problem the child reads.\n",
           SV_ITERATIONS, SV_ITERATIONS, SV_ITERATIONS, SV_MAX_ROUNDS, SV_TIME_CAP_MS * 1e-3, SV_TOL_F64, SV_TOL_F32);
}
