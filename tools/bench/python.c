/* tools/bench/python.c — the Python binding's overhead (--only python): microseconds per call
   of one small operation, c = a + b into an existing c (float32, n = 1, 1000, 100000), called
   from C (ag_add, in a child), from Python through the anygpu package (ctypes calling ag_add
   through anygpu._lib.fn, and anygpu.add where the package has it), and numpy.add(a, b,
   out=c), the last two in the peer (peer_python.py). The Python side imports the package from
   this build's source tree (python/) with ANYGPU_LIBRARY set to this build's library, both
   named at configure time (tools/meson.build). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const char py_row[] = "python";
static const size_t py_sizes[] = {1, 1000, 100000};
#define PY_SIZES (sizeof py_sizes / sizeof py_sizes[0])
/* Each side times PY_ROUNDS rounds of as many calls as take about PY_ROUND_MS (found by
   doubling from one call, then scaled), each round ended by finishing the device's queue, and
   keeps the best round's time per call. peer_python.py does the same. */
#define PY_ROUNDS 7
#define PY_ROUND_MS 20.0
/* The parent asks each side for a size's figures this many times, alternately. */
#define PY_PASSES 3

bool python_selected(const char *only) {
  return only == NULL || strcmp(only, py_row) == 0;
}

/* ---- the child: C calls on one device ------------------------------------------------------ */

typedef struct py_state {
  ag_device *dev;
  ag_array *a, *b, *c;
} py_state;

/* Calls ag_add @p calls times on the default queue, then finishes it; the time in ms. */
static ag_status py_calls(py_state *s, long calls, double *ms) {
  double t0 = now_ms();
  ag_status st = AG_OK;
  for (long k = 0; k < calls && st == AG_OK; k++)
    st = ag_add(NULL, s->a, s->b, s->c);
  if (st == AG_OK)
    st = ag_device_finish(s->dev);
  *ms = now_ms() - t0;
  return st;
}

/* The best time per call in µs over PY_ROUNDS rounds. */
static ag_status py_time(py_state *s, double *us) {
  long calls = 1;
  double ms = 0;
  ag_status st;
  while ((st = py_calls(s, calls, &ms)) == AG_OK && ms < PY_ROUND_MS / 4)
    calls *= 2;
  calls = (long)fmax(1, calls * PY_ROUND_MS / fmax(ms, 1e-3));
  double best = INFINITY;
  for (int r = 0; r < PY_ROUNDS && st == AG_OK; r++)
    if ((st = py_calls(s, calls, &ms)) == AG_OK)
      best = fmin(best, ms * 1e3 / (double)calls);
  *us = best;
  return st;
}

static void py_release(py_state *s) {
  ag_array_free(s->a);
  ag_array_free(s->b);
  ag_array_free(s->c);
  s->a = s->b = s->c = NULL;
}

/* Element @p i of the f32 array @p a into @p out. */
static ag_status py_element(const ag_array *a, size_t i, float *out) {
  ag_array *one = NULL;
  ag_status st = ag_array_slice(a, i, 1, &one);
  if (st == AG_OK)
    st = ag_array_to_host(one, out, sizeof *out);
  ag_array_free(one);
  return st;
}

/* "size N" makes the arrays (a = 0.1, b = 0.2), checks one call's c, and answers "time US"; EOF
   ends it. */
int python_child(const char *spec) {
  py_state s = {0};
  if (ag_device_select(spec, &s.dev) != AG_OK)
    return fail("opening the device");
  printf("ready\n");
  fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin) != NULL) {
    size_t n = strtoul(line + strcspn(line, " "), NULL, 10);
    py_release(&s);
    float first = 0, last = 0, want = 0.1f + 0.2f;
    double us = 0;
    if (ag_array_create(s.dev, AG_F32, 1, &n, &s.a) != AG_OK || ag_array_create(s.dev, AG_F32, 1, &n, &s.b) != AG_OK ||
        ag_array_create(s.dev, AG_F32, 1, &n, &s.c) != AG_OK || ag_fill(NULL, s.a, 0.1) != AG_OK ||
        ag_fill(NULL, s.b, 0.2) != AG_OK || py_time(&s, &us) != AG_OK)
      return fail("c = a + b from C");
    if (py_element(s.c, 0, &first) != AG_OK || py_element(s.c, n - 1, &last) != AG_OK)
      return fail("reading c");
    if (first != want || last != want)
      return fprintf(stderr, "anygpu-bench: ag_add of n = %zu gave c = %g ... %g, not %g\n", n, first, last, want), 1;
    printf("time %.6f\n", us);
    fflush(stdout);
  }
  py_release(&s);
  return 0;
}

/* ---- the parent's side --------------------------------------------------------------------- */

/* The calls of a size's rows, in order: their label, their name in --csv rows, and whether
   they are Python's (with ratios to C and numpy). */
enum { PY_C, PY_CTYPES, PY_ADD, PY_NUMPY, PY_CALLS };
static const struct {
  const char *label, *id;
  bool python;
} py_calls_of[PY_CALLS] = {
    [PY_C] = {"C ag_add", "c", false},
    [PY_CTYPES] = {"Python ctypes ag_add", "ctypes", true},
    [PY_ADD] = {"Python anygpu.add(out=c)", "anygpu-add", true},
    [PY_NUMPY] = {"numpy.add(out=c)", "numpy", false},
};

static void py_ratio(char *out, size_t size, double us, double base, bool csv) {
  if (isfinite(us) && isfinite(base) && base > 0)
    snprintf(out, size, csv ? "%.3f" : "%.2f", us / base);
  else
    snprintf(out, size, "%s", csv ? "" : "-");
}

/* Row @p k of size @p n from the figures @p us (µs per call; NAN: none). */
static void py_print(const device_entry *d, size_t n, int k, const double us[PY_CALLS], const char *label, bool csv) {
  char v[32] = "-", pv[32] = "", rc[32] = "", rn[32] = "";
  if (csv && !isfinite(us[k]))
    return; /* no anygpu.add: the table says "-", --csv has no row */
  if (isfinite(us[k]))
    snprintf(v, sizeof v, csv ? "%.4f" : "%.3f", us[k]);
  if (py_calls_of[k].python) {
    py_ratio(rc, sizeof rc, us[k], us[PY_C], csv);
    py_ratio(rn, sizeof rn, us[k], us[PY_NUMPY], csv);
    snprintf(pv, sizeof pv, "%.4f", us[PY_NUMPY]);
  }
  if (csv)
    printf("%s,%s-%s,f32,%zu,%s,us/call,,%s,%s,%s\n", d->spec, py_row, py_calls_of[k].id, n, v,
           py_calls_of[k].python ? "numpy" : "", pv, rn);
  else
    printf("  %-8zu %-26s %10s %9s %9s\n", n, label, v, rc, rn);
  fflush(stdout);
}

/* Reads the peer's "times CTYPES ADD NUMPY FORM" into @p us: ADD is "-" where the package has
   no anygpu.add, FORM "out" when it takes out=, else "alloc" (anygpu.add(a, b) was timed). */
static int py_read_peer(const char *line, double us[PY_CALLS], bool *alloc) {
  char add[32], form[16];
  if (sscanf(line, "times %lf %31s %lf %15s", &us[PY_CTYPES], add, &us[PY_NUMPY], form) != 4)
    return -1;
  us[PY_ADD] = strcmp(add, "-") == 0 ? NAN : strtod(add, NULL);
  *alloc = strcmp(form, "alloc") == 0;
  return 0;
}

int python_device(const char *self, const device_entry *d, bool csv, totals *tot) {
  if (access(AG_BENCH_PYTHON_DIR "/anygpu/__init__.py", R_OK) != 0) {
    fprintf(stderr, "anygpu-bench: the python section is skipped on %s: no anygpu package at %s (it runs from the "
                    "build's source tree)\n", d->spec, AG_BENCH_PYTHON_DIR);
    return 0;
  }
  coproc py = {0}, child;
  char line[1024], name[16];
  const char *args[3] = {AG_BENCH_PYTHON_DIR, AG_BENCH_LIBRARY, d->spec};
  if (peer_start(false, "peer_python", args, &py, name, sizeof name) != 0) {
    fprintf(stderr, "anygpu-bench: the python section is skipped on %s: it needs %s with numpy and the "
                    "anygpu package (why: above)\n", d->spec, AG_BENCH_PYTHON);
    return 0;
  }
  char *argv[] = {(char *)self, (char *)"--python-child", (char *)d->spec, NULL};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      strcmp(line, "ready") != 0) {
    fprintf(stderr, "anygpu-bench: the python section failed on %s (exit status %d)\n", d->spec, coproc_end(&child));
    coproc_end(&py);
    return 1;
  }
  if (!csv) {
    tot->any_python = true;
    printf("\n%s: %s (%s); c = a + b into an existing c, float32, microseconds per call\n", d->spec, d->name,
           d->type);
    printf("  %-8s %-26s %10s %9s %9s\n", "n", "call", "us/call", "/ C", "/ numpy");
  }
  int rc = 0;
  /* One side at a time: the child answers, then the peer, so they never share the CPU; PY_PASSES
     passes of both, each figure the best of its passes, so that a busy moment of a shared
     machine does not fall on one side only. */
  for (size_t i = 0; i < PY_SIZES && rc == 0; i++) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "size %zu", py_sizes[i]);
    double us[PY_CALLS], best[PY_CALLS];
    bool alloc = false;
    for (int k = 0; k < PY_CALLS; k++)
      best[k] = INFINITY;
    for (int pass = 0; pass < PY_PASSES && rc == 0; pass++) {
      if (coproc_ask(&child, cmd, line, sizeof line) == NULL || sscanf(line, "time %lf", &us[PY_C]) != 1) {
        fprintf(stderr, "anygpu-bench: the python section's C calls failed on %s (exit status %d)\n", d->spec,
                coproc_end(&child));
        rc = 1;
      } else if (coproc_ask(&py, cmd, line, sizeof line) == NULL || py_read_peer(line, us, &alloc) != 0) {
        fprintf(stderr, "anygpu-bench: the python section's Python calls failed on %s (exit status %d)\n", d->spec,
                coproc_end(&py));
        rc = 1;
      }
      for (int k = 0; k < PY_CALLS && rc == 0; k++)
        best[k] = isnan(us[k]) ? NAN : fmin(best[k], us[k]);
    }
    if (rc != 0)
      break;
    for (int k = 0; k < PY_CALLS; k++)
      py_print(d, py_sizes[i], k, best, k == PY_ADD && alloc ? "Python anygpu.add(a, b)" : py_calls_of[k].label, csv);
  }
  coproc_end(&child);
  coproc_end(&py);
  return rc;
}

void python_footer(const totals *tot) {
  if (tot->any_python)
    printf("\npython: c = a + b on float32 arrays of n elements, c made beforehand, on the device (numpy:\n"
           "  host arrays); microseconds per call = the best of %d rounds of as many calls as take about\n"
           "  %.0f ms, each round ended by finishing the device's default queue, in each of %d passes\n"
           "  that alternate C and Python. C: ag_add from C.\n"
           "  Python ctypes: ag_add called through the anygpu package's ctypes prototype\n"
           "  (anygpu._lib.fn), the least a Python call costs; anygpu.add(out=c): the package's own\n"
           "  function (\"-\" where this package has none; anygpu.add(a, b), which allocates c, where\n"
           "  it takes no out=). / C and / numpy: the Python call's time over C's and numpy's (above\n"
           "  1, Python through anygpu is slower); each side's result is checked. The Python side is\n"
           "  %s with the package from %s and\n"
           "  ANYGPU_LIBRARY=%s.\n",
           PY_ROUNDS, PY_ROUND_MS, PY_PASSES, AG_BENCH_PYTHON, AG_BENCH_PYTHON_DIR, AG_BENCH_LIBRARY);
}
