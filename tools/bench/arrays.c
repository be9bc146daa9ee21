/* tools/bench/arrays.c — the array rows (--only arrays): ag_cumulative_sum, ag_sort and
   ag_argsort of 2^24 elements along the one axis of a 1-D array, next to numpy.cumsum,
   numpy.sort and numpy.argsort (peer_arrays.py; the sorts stable, and numpy's default sort
   beside them), and ag_unique's values and counts of 2^22 elements with many repeats, next to
   numpy.unique(x, return_counts=True). The measurement runs in a child process per device
   (--arrays-child), which checks the results of each row's first and last calls; the parent
   alternates its rounds with the peer's and prints the rows. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The rows' length, and the data: x[i] = (r_i - 2^23) / 2^23 with r_i the top 24 bits of the
   i-th output of splitmix64 from AR_SEED, so that every value lies in [-1, 1), is exact in
   float32 and float64 alike, and about 63 % of them share their value with another (2^24 draws
   of 2^24 values), which the sorts' stability is checked on. Every partial sum is a multiple of
   2^-23 below 2^24 in magnitude, exact in float64: the host's float64 running sum is the exact
   cumulative sum, and the exact sum of the data, which both sides print, tells that the peer
   made the same data. */
#define AR_N ((size_t)1 << 24)
#define AR_SEED 0x243f6a8885a308d3ull

/* The unique row's length and data: the same rule with r_i the top 16 bits, x[i] = (r_i - 2^15)
   / 2^15, multiples of 2^-15 in [-1, 1): 2^22 draws of 2^16 values, each value about 64 times
   (all 65536 of them drawn). Its partial sums are multiples of 2^-15 below 2^22 in magnitude,
   exact in float64 too. */
#define AR_UNIQUE_N ((size_t)1 << 22)
#define AR_BITS 24
#define AR_UNIQUE_BITS 16

/* Each row: one checked call and one warm-up call on each side, then rounds of one anygpu call
   and one peer call (each side first in turn), at most AR_MAX_ROUNDS, fewer once both sides'
   measured time (numpy's default sort included) passes AR_TIME_CAP_MS, but at least
   AR_MIN_ROUNDS. Each side keeps its best time. */
#define AR_MAX_ROUNDS 20
#define AR_MIN_ROUNDS 3
#define AR_TIME_CAP_MS 10000.0

/* The cumulative sums' tolerance, relative to the running sum of |x| at each element. A float
   sum of k terms, in any order, is within about k units of rounding (2^-24 for float32) of it;
   these sums wander about zero, and their error stays under one unit (0.8 x 2^-24 at worst on
   the host, pocl and numpy alike). float32: 2^-19, 32 units, which at the last element (a
   running sum of |x| of 8.4e6) allows 16, while a piece of the axis missed or added twice is
   off by its total, typically hundreds. float64: the sums are exact, and 2^-48 (32 units of
   2^-53) is as good as exact. */
#define AR_TOL_F32 0x1p-19
#define AR_TOL_F64 0x1p-48

enum { A_CUMSUM, A_SORT, A_ARGSORT, A_UNIQUE, A_COUNT };

/* Each row's length and data (the top @p bits of each draw; @p set: which of ar_state's data
   sets), and whether the peer also times numpy's default sort. */
static const struct ar_row {
  const char *name;
  size_t n;
  int bits, set;
  bool default_sort;
} ar_rows[A_COUNT] = {
    [A_CUMSUM] = {"cumsum-2^24", AR_N, AR_BITS, 0, false},
    [A_SORT] = {"sort-2^24", AR_N, AR_BITS, 0, true},
    [A_ARGSORT] = {"argsort-2^24", AR_N, AR_BITS, 0, true},
    [A_UNIQUE] = {"unique-2^22", AR_UNIQUE_N, AR_UNIQUE_BITS, 1, false},
};

#define AR_ALL ((1u << A_COUNT) - 1)

/* The rows --only @p only names (NULL: every row); "arrays" names them all; 0 for a name that
   is none of theirs. */
unsigned arrays_mask(const char *only) {
  if (only == NULL || strcmp(only, "arrays") == 0)
    return AR_ALL;
  unsigned rows = 0;
  for (int r = 0; r < A_COUNT; r++)
    if (strcmp(only, ar_rows[r].name) == 0)
      rows |= 1u << r;
  return rows;
}

static uint64_t ar_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ---- the measurement (in a child process per device) ------------------------------------ */

/* A row's data: on the device (x) and exactly on the host (xd), made at the first row that
   uses them and kept. */
typedef struct ar_set {
  ag_array *x;
  double *xd;
} ar_set;

typedef struct ar_state {
  ag_dtype t;
  ag_device *dev;
  ag_queue *q;
  const struct ar_row *row;  /* the row set up, NULL between rows */
  ar_set sets[2];            /* the 2^24 rows' data, the unique row's */
  ag_array *out;             /* the output of cumsum, sort and argsort */
  ag_array *values, *counts; /* ag_unique's outputs of its last call, made by it */
  double *sorted;            /* the 2^24 rows' data sorted on the host, made at the first sort row */
  double *uvalues;           /* the unique row's distinct values, ascending, on the host */
  int64_t *ucounts;          /* and their occurrences */
  size_t ucount;             /* how many */
  void *host;                /* AR_N elements of 8 bytes: the upload, then the results read back */
  unsigned char *seen;       /* AR_N flags, argsort's check */
} ar_state;

/* malloc, or the end of this child when the host has no memory left. */
static void *ar_alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "anygpu-bench: out of host memory\n");
    exit(1);
  }
  return p;
}

static double ar_load(ag_dtype t, const void *host, size_t i) {
  return t == AG_F32 ? (double)((const float *)host)[i] : ((const double *)host)[i];
}

static int ar_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One call of the row. ag_unique makes its outputs: release them (ar_release) before. */
static ag_status ar_call(void *ctx, int which) {
  (void)which;
  ar_state *s = ctx;
  const ag_array *x = s->sets[s->row->set].x;
  if (s->row == &ar_rows[A_CUMSUM])
    return ag_cumulative_sum(s->q, x, 0, s->out);
  if (s->row == &ar_rows[A_SORT])
    return ag_sort(s->q, x, 0, false, s->out);
  if (s->row == &ar_rows[A_ARGSORT])
    return ag_argsort(s->q, x, 0, false, s->out);
  return ag_unique(s->q, x, &s->values, NULL, NULL, &s->counts);
}

/* Frees ag_unique's outputs of the last call. */
static void ar_release(ar_state *s) {
  ag_array_free(s->values);
  ag_array_free(s->counts);
  s->values = s->counts = NULL;
}

/* One timed call, in ms: for the rows into an output, with events (event_time); for ag_unique,
   which waits for a count read back from the device within the call and only then enqueues
   its last launches, with the host clock from an idle queue until the queue is idle again after
   the call has returned. The last call's outputs are freed before the clock starts. */
static ag_status ar_round(ar_state *s, double *ms) {
  if (s->row != &ar_rows[A_UNIQUE])
    return event_time(s->q, ar_call, s, 0, ms);
  ar_release(s);
  ag_status st = ag_queue_finish(s->q);
  double t0 = now_ms();
  if (st == AG_OK)
    st = ar_call(s, 0);
  if (st == AG_OK)
    st = ag_queue_finish(s->q);
  *ms = now_ms() - t0;
  return st;
}

static int ar_wrong(const ar_state *s, const char *when, const char *what, size_t i, double got, double want) {
  fprintf(stderr, "anygpu-bench: %s (%s), %s: %s %zu is %.17g, expected %.17g\n", s->row->name, ag_dtype_name(s->t),
          when, what, i, got, want);
  return 1;
}

/* ag_unique's outputs against the host's distinct values and their counts: both 1-D, of the
   host's length, values of x's dtype equal to the host's element for element, counts (int64)
   equal to the host's. */
static int ar_check_unique(ar_state *s, const char *when) {
  size_t nv = ag_array_size(s->values), nc = ag_array_size(s->counts);
  if (ag_array_ndim(s->values) != 1 || ag_array_ndim(s->counts) != 1 || ag_array_dtype(s->values) != s->t ||
      ag_array_dtype(s->counts) != AG_I64 || nv != s->ucount || nc != s->ucount) {
    fprintf(stderr,
            "anygpu-bench: %s (%s), %s: values are %d-D %s of %zu, counts %d-D %s of %zu; expected 1-D %s and "
            "int64 of %zu\n",
            s->row->name, ag_dtype_name(s->t), when, ag_array_ndim(s->values), ag_dtype_name(ag_array_dtype(s->values)),
            nv, ag_array_ndim(s->counts), ag_dtype_name(ag_array_dtype(s->counts)), nc, ag_dtype_name(s->t),
            s->ucount);
    return 1;
  }
  if (ag_array_to_host(s->values, s->host, ag_array_nbytes(s->values)) != AG_OK)
    return fail(s->row->name);
  for (size_t i = 0; i < nv; i++) {
    double v = ar_load(s->t, s->host, i);
    if (v != s->uvalues[i])
      return ar_wrong(s, when, "value", i, v, s->uvalues[i]);
  }
  if (ag_array_to_host(s->counts, s->host, ag_array_nbytes(s->counts)) != AG_OK)
    return fail(s->row->name);
  const int64_t *c = s->host;
  for (size_t i = 0; i < nc; i++)
    if (c[i] != s->ucounts[i])
      return ar_wrong(s, when, "count", i, (double)c[i], (double)s->ucounts[i]);
  return 0;
}

/* Checks the output of the last call against the host's: the cumulative sum within the
   tolerance of the running sum of |x|; the sort equal to the host's qsort, element for element;
   the argsort a permutation of 0..N-1 that takes x to ascending order, equal values in the
   order of their indices; unique as ar_check_unique. */
static int ar_check(ar_state *s, const char *when) {
  if (s->row == &ar_rows[A_UNIQUE])
    return ar_check_unique(s, when);
  const double *xd = s->sets[s->row->set].xd;
  if (ag_array_to_host(s->out, s->host, ag_array_nbytes(s->out)) != AG_OK)
    return fail(s->row->name);
  if (s->row == &ar_rows[A_CUMSUM]) {
    double sum = 0, mag = 0, tol = s->t == AG_F32 ? AR_TOL_F32 : AR_TOL_F64;
    for (size_t i = 0; i < AR_N; i++) {
      sum += xd[i];
      mag += fabs(xd[i]);
      double v = ar_load(s->t, s->host, i);
      if (!(fabs(v - sum) <= tol * mag))
        return ar_wrong(s, when, "element", i, v, sum);
    }
  } else if (s->row == &ar_rows[A_SORT]) {
    for (size_t i = 0; i < AR_N; i++) {
      double v = ar_load(s->t, s->host, i);
      if (v != s->sorted[i])
        return ar_wrong(s, when, "element", i, v, s->sorted[i]);
    }
  } else {
    const int64_t *idx = s->host;
    memset(s->seen, 0, AR_N);
    for (size_t i = 0; i < AR_N; i++) {
      int64_t k = idx[i];
      if (k < 0 || (size_t)k >= AR_N || s->seen[k]) {
        fprintf(stderr, "anygpu-bench: %s (%s), %s: index %zu is %lld, %s\n", s->row->name, ag_dtype_name(s->t),
                when, i, (long long)k, k < 0 || (size_t)k >= AR_N ? "out of range" : "given twice");
        return 1;
      }
      s->seen[k] = 1;
      if (i == 0)
        continue;
      double v = xd[k], prev = xd[idx[i - 1]];
      if (v < prev || (v == prev && k < idx[i - 1])) {
        fprintf(stderr,
                "anygpu-bench: %s (%s), %s: indices %zu, %zu are %lld, %lld, of x = %.17g, %.17g: %s\n",
                s->row->name, ag_dtype_name(s->t), when, i - 1, i, (long long)idx[i - 1], (long long)k, prev, v,
                v < prev ? "not ascending" : "equal values out of their order (not stable)");
        return 1;
      }
    }
  }
  return 0;
}

/* Row @p row's data, on the host (xd, once) and on the device (x, once): x[i] = (r_i -
   2^(bits-1)) / 2^(bits-1), r_i the top bits of the i-th draw from AR_SEED. */
static ag_status ar_data(ar_state *s, const struct ar_row *row) {
  ar_set *d = &s->sets[row->set];
  if (d->x != NULL)
    return AG_OK;
  if (s->host == NULL)
    s->host = ar_alloc(AR_N * 8);
  d->xd = ar_alloc(row->n * sizeof *d->xd);
  uint64_t seed = AR_SEED;
  const int64_t half = (int64_t)1 << (row->bits - 1);
  for (size_t i = 0; i < row->n; i++) {
    d->xd[i] = ldexp((double)((int64_t)(ar_next(&seed) >> (64 - row->bits)) - half), 1 - row->bits);
    if (s->t == AG_F32)
      ((float *)s->host)[i] = (float)d->xd[i];
    else
      ((double *)s->host)[i] = d->xd[i];
  }
  const size_t shape[1] = {row->n};
  return ag_array_from_host(s->dev, s->t, 1, shape, s->host, &d->x);
}

/* The unique row's answer on the host: its data sorted with qsort, then each run of equal
   values once, with its length. */
static void ar_unique_host(ar_state *s, const struct ar_row *row) {
  const double *xd = s->sets[row->set].xd;
  double *v = ar_alloc(row->n * sizeof *v);
  memcpy(v, xd, row->n * sizeof *v);
  qsort(v, row->n, sizeof *v, ar_by_value);
  int64_t *c = ar_alloc(row->n * sizeof *c);
  size_t k = 0;
  for (size_t i = 0; i < row->n; i++) {
    if (k > 0 && v[i] == v[k - 1]) {
      c[k - 1]++;
    } else {
      v[k] = v[i];
      c[k++] = 1;
    }
  }
  s->uvalues = v;
  s->ucounts = c;
  s->ucount = k;
}

/* "setup ROW": the row's output, a checked call and a warm-up call, then "ready SUM" with the
   exact sum of the data; "skip REASON" when the device cannot run the row. */
static int ar_setup(ar_state *s, const char *name) {
  const struct ar_row *row = NULL;
  for (int r = 0; r < A_COUNT; r++)
    if (strcmp(name, ar_rows[r].name) == 0)
      row = &ar_rows[r];
  if (row == NULL || s->row != NULL) {
    fprintf(stderr, "anygpu-bench: unexpected setup %s\n", name);
    return 1;
  }
  ag_device_info info;
  if (ag_device_get_info(s->dev, &info) != AG_OK)
    return fail(name);
  if (s->t == AG_F64 && !info.fp64) {
    printf("skip %s has no float64 (try --float)\n", info.spec);
    return 0;
  }
  if (ar_data(s, row) != AG_OK)
    return fail("uploading the data");
  if (row == &ar_rows[A_SORT] && s->sorted == NULL) {
    s->sorted = ar_alloc(AR_N * sizeof *s->sorted);
    memcpy(s->sorted, s->sets[row->set].xd, AR_N * sizeof *s->sorted);
    qsort(s->sorted, AR_N, sizeof *s->sorted, ar_by_value);
  }
  if (row == &ar_rows[A_ARGSORT] && s->seen == NULL)
    s->seen = ar_alloc(AR_N);
  if (row == &ar_rows[A_UNIQUE] && s->uvalues == NULL)
    ar_unique_host(s, row);
  s->row = row;
  const size_t shape[1] = {row->n};
  ag_status st = AG_OK;
  if (row != &ar_rows[A_UNIQUE])
    st = ag_array_create(s->dev, row == &ar_rows[A_ARGSORT] ? AG_I64 : s->t, 1, shape, &s->out);
  if (st == AG_OK)
    st = ar_call(s, 0);
  if (st == AG_OK)
    st = ag_queue_finish(s->q);
  if (st == AG_ERR_UNSUPPORTED) {
    printf("skip %s\n", ag_last_error());
    ag_array_free(s->out);
    s->out = NULL;
    ar_release(s);
    s->row = NULL;
    return 0;
  }
  if (st != AG_OK)
    return fail(name);
  if (ar_check(s, "the first call") != 0)
    return 1;
  ar_release(s);
  if (ar_call(s, 0) != AG_OK)
    return fail(name);
  double sum = 0;
  for (size_t i = 0; i < row->n; i++)
    sum += s->sets[row->set].xd[i];
  printf("ready %.17g\n", sum);
  return 0;
}

/* The child of one device for the array rows. @p dtype_name: f32 or f64. Prints "ready", then
   answers one line for each command on stdin: "setup ROW" (ar_setup), "round" ("time MS", one
   timed call), "free" (checks the output of the last call, frees it and what the device keeps
   for it, "ok"). Exits 1, having said why on stderr, when a call fails or a result is wrong. */
int arrays_child(const char *spec, const char *dtype_name) {
  ar_state s = {.t = strcmp(dtype_name, "f32") == 0 ? AG_F32 : AG_F64};
  if (ag_device_select(spec, &s.dev) != AG_OK || ag_queue_default(s.dev, &s.q) != AG_OK)
    return fail(spec);
  printf("ready\n");
  fflush(stdout);
  char cmd[64];
  int rc = 0;
  while (rc == 0 && fgets(cmd, sizeof cmd, stdin) != NULL) {
    cmd[strcspn(cmd, "\n")] = '\0';
    double ms;
    if (strncmp(cmd, "setup ", 6) == 0) {
      rc = ar_setup(&s, cmd + 6);
    } else if (s.row == NULL) {
      fprintf(stderr, "anygpu-bench: \"%s\" with no row set up\n", cmd);
      rc = 1;
    } else if (strcmp(cmd, "round") == 0) {
      if (ar_round(&s, &ms) != AG_OK)
        rc = fail(s.row->name);
      else
        printf("time %.6f\n", ms);
    } else if (strcmp(cmd, "free") == 0) {
      rc = ar_check(&s, "the last round");
      ag_array_free(s.out);
      s.out = NULL;
      ar_release(&s);
      s.row = NULL;
      if (rc == 0 && ag_device_trim(s.dev) != AG_OK)
        rc = fail("trimming the pool");
      if (rc == 0)
        printf("ok\n");
    } else {
      fprintf(stderr, "anygpu-bench: unknown command \"%s\"\n", cmd);
      rc = 1;
    }
    fflush(stdout);
  }
  ag_array_free(s.out);
  ar_release(&s);
  for (int k = 0; k < 2; k++) {
    ag_array_free(s.sets[k].x);
    free(s.sets[k].xd);
  }
  free(s.sorted);
  free(s.uvalues);
  free(s.ucounts);
  free(s.host);
  free(s.seen);
  return rc;
}

/* ---- the parent's side ------------------------------------------------------------------ */

/* Million elements of @p row's input a second for a call of @p ms; 0 for none. */
static double ar_rate(const struct ar_row *row, double ms) {
  return isfinite(ms) && ms > 0 ? (double)row->n / (ms * 1e3) : 0;
}

/* Prints a row: anygpu's rate, the peer's and the ratio, and for the sorts numpy's default
   sort; "-" for a figure missing where there should be one. In CSV the default sort is a
   second line of the row, with "numpy-default" as its peer. */
static void ar_print(const device_entry *d, const struct ar_row *row, bool f32, bool csv, double value,
                     const char *peer_name, double peer_value, double default_value, int rounds) {
  bool sorts = row->default_sort;
  char v[32] = "-", pv[32] = "", ratio[32] = "", dv[32] = "", dratio[32] = "", nr[16] = "";
  if (value > 0)
    snprintf(v, sizeof v, csv ? "%.2f" : "%.1f", value);
  if (peer_name[0])
    snprintf(pv, sizeof pv, "-");
  if (peer_name[0] && sorts)
    snprintf(dv, sizeof dv, "-");
  if (peer_value > 0) {
    snprintf(pv, sizeof pv, csv ? "%.2f" : "%.1f", peer_value);
    if (value > 0)
      snprintf(ratio, sizeof ratio, csv ? "%.3f" : "%.2fx", value / peer_value);
  }
  if (default_value > 0) {
    snprintf(dv, sizeof dv, csv ? "%.2f" : "%.1f", default_value);
    if (value > 0)
      snprintf(dratio, sizeof dratio, "%.3f", value / default_value);
  }
  if (rounds > 0)
    snprintf(nr, sizeof nr, "%d", rounds);
  if (csv) {
    printf("%s,%s,%s,%zu,%s,Melem/s,,%s,%s,%s\n", d->spec, row->name, dtype_short(f32), row->n, v,
           peer_value > 0 ? peer_name : pv, peer_value > 0 ? pv : "", ratio);
    if (default_value > 0)
      printf("%s,%s,%s,%zu,%s,Melem/s,,%s-default,%s,%s\n", d->spec, row->name, dtype_short(f32), row->n, v,
             peer_name, dv, dratio);
  } else {
    printf("  %-14s %9s %-7s %12s %8s %15s %6s\n", row->name, v, peer_name, pv, ratio, dv, nr);
  }
  fflush(stdout);
}

/* Parses "time MS" or, for the sorts, "time MS DEFAULT_MS"; -1 when the line is neither. */
static int ar_times(const char *line, bool sorts, double *ms, double *default_ms) {
  int n = sscanf(line, "time %lf %lf", ms, default_ms);
  if (n < 1 || !(*ms > 0) || (sorts && (n != 2 || !(*default_ms > 0))))
    return -1;
  return 0;
}

/* Measures the rows of @p rows on one device, printing each as it completes: starts its child,
   and the numpy peer (on the CPU, whatever the device) at the first row. */
int arrays_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--arrays-child", (char *)d->spec, (char *)dtype_short(f32), NULL};
  char line[1024], peer_name[16] = "";
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      strcmp(line, "ready") != 0) {
    fprintf(stderr, "anygpu-bench: the array rows failed on %s (exit status %d)\n", d->spec, coproc_end(&child));
    return 1;
  }
  if (!csv) {
    tot->any_arrays = true;
    printf("\n%s: %s (%s, %.2f GiB); cumulative sum, sort, argsort and unique, %s\n", d->spec, d->name, d->type,
           (double)d->memory / (1024.0 * 1024 * 1024), f32 ? "float32" : "float64");
    printf("  %-14s %9s %-7s %12s %8s %15s %6s\n", "row", "Melem/s", "peer", "peer Melem/s", "ratio",
           "default Melem/s", "rounds");
  }
  bool py_tried = false, py_on = false;
  int rc = 0;
  for (int r = 0; r < A_COUNT && rc == 0; r++) {
    const struct ar_row *row = &ar_rows[r];
    if (!(rows & (1u << r)))
      continue;
    bool sorts = row->default_sort;
    char cmd[64], peer_cmd[96], sum[64] = "", peer_sum[64] = "";
    snprintf(cmd, sizeof cmd, "setup %s", row->name);
    snprintf(peer_cmd, sizeof peer_cmd, "setup %s %zu %d", row->name, row->n, row->bits);
    if (coproc_ask(&child, cmd, line, sizeof line) == NULL ||
        (sscanf(line, "ready %63s", sum) != 1 && strncmp(line, "skip ", 5) != 0)) {
      rc = 1;
      break;
    }
    if (strncmp(line, "skip ", 5) == 0) {
      fprintf(stderr, "anygpu-bench: %s on %s: %s\n", row->name, d->spec, line + 5);
      ar_print(d, row, f32, csv, 0, "", 0, 0, 0);
      continue;
    }
    if (!py_tried) {
      char n_arg[32], seed_arg[32];
      snprintf(n_arg, sizeof n_arg, "%zu", AR_N);
      snprintf(seed_arg, sizeof seed_arg, "%llu", (unsigned long long)AR_SEED);
      const char *args[3] = {n_arg, f32 ? "float32" : "float64", seed_arg};
      py_tried = true;
      py_on = peer_start(false, "peer_arrays", args, &py, peer_name, sizeof peer_name) == 0;
    }
    /* peer: the peer runs this row; lost: it failed (its rows show "-" from then on). */
    bool peer = py_on, lost = false;
    if (peer && coproc_ask(&py, peer_cmd, line, sizeof line) == NULL) {
      lost = true;
    } else if (peer && strncmp(line, "skip ", 5) == 0) {
      fprintf(stderr, "anygpu-bench: %s on %s, the %s peer: %s\n", row->name, d->spec, peer_name, line + 5);
      peer = false;
    } else if (peer && sscanf(line, "ready %63s", peer_sum) != 1) {
      lost = true;
    } else if (peer && strcmp(sum, peer_sum) != 0) {
      fprintf(stderr, "anygpu-bench: %s on %s: the %s peer's data sum to %s, anygpu's to %s\n", row->name, d->spec,
              peer_name, peer_sum, sum);
      lost = true;
    }
    double best = INFINITY, peer_best = INFINITY, default_best = INFINITY, spent = 0, ms, dms = 0;
    int rounds = 0;
    while (rounds < AR_MAX_ROUNDS && (rounds < AR_MIN_ROUNDS || spent < AR_TIME_CAP_MS)) {
      for (int turn = 0; turn < 2 && rc == 0; turn++) {
        if ((turn == 0) == (rounds % 2 == 0)) {
          if (coproc_ask(&child, "round", line, sizeof line) == NULL || ar_times(line, false, &ms, &dms) != 0)
            rc = 1;
          else
            best = fmin(best, ms), spent += ms;
        } else if (peer && !lost) {
          if (coproc_ask(&py, "round", line, sizeof line) == NULL || ar_times(line, sorts, &ms, &dms) != 0) {
            lost = true;
          } else {
            peer_best = fmin(peer_best, ms), spent += ms;
            if (sorts)
              default_best = fmin(default_best, dms), spent += dms;
          }
        }
      }
      if (rc != 0)
        break;
      rounds++;
    }
    /* Both check the result of their last call. */
    if (rc == 0 && (coproc_ask(&child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
      rc = 1;
    if (peer && !lost && (coproc_ask(&py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
      lost = true;
    if (lost) {
      fprintf(stderr, "anygpu-bench: the %s peer failed in %s (exit status %d); its rows show \"-\"\n", peer_name,
              row->name, coproc_end(&py));
      py_on = false;
    }
    if (!peer || lost)
      peer_best = default_best = INFINITY;
    if (rc == 0)
      ar_print(d, row, f32, csv, ar_rate(row, best), peer_name, ar_rate(row, peer_best), ar_rate(row, default_best),
               rounds);
  }
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the array rows failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (py_on)
    coproc_end(&py);
  return rc;
}

/* The legend under the array tables. */
void arrays_footer(const totals *tot) {
  if (!tot->any_arrays)
    return;
  printf("\ncumsum-2^24: ag_cumulative_sum of %zu elements along axis 0 of a 1-D array into another;\n"
         "  sort-2^24: ag_sort, ascending, into another array (a stable LSD radix sort); argsort-2^24:\n"
         "  ag_argsort, ascending, its int64 indices into another array. The data, from a fixed seed:\n"
         "  multiples of 2^-23 in [-1, 1), exact in float32, about 63 %% of them sharing their value\n"
         "  with another. unique-2^22: ag_unique of %zu elements, its values and counts wanted (new\n"
         "  arrays, freed after the clock stops); the data, from the same seed: multiples of 2^-15 in\n"
         "  [-1, 1), %d distinct values about %zu times each. Melem/s = input elements / the call's\n"
         "  best time, 1e6 per second: after one checked call and one warm-up call on each side,\n"
         "  anygpu's and the peer's calls alternate, each side first in turn, at most %d rounds,\n"
         "  fewer once both sides' measured time passes %.0f s but at least %d. anygpu's call is timed\n"
         "  with ag_event_record/ag_event_elapsed_ms until it has finished (the host clock around\n"
         "  ag_queue_finish where the driver gives no timestamps); ag_unique, which waits within the\n"
         "  call for a count read back from the device, with the host clock from an idle queue until\n"
         "  the queue is idle again after the call. The input is on the device before and the result\n"
         "  stays there, so no transfer is timed beyond ag_unique's count. Each side's first and last\n"
         "  calls are checked: the cumulative sum against the host's float64 sums (exact for these\n"
         "  data), within 2^%d (float32) or 2^%d (float64) of the running sum of |x|; the sort equal\n"
         "  to the host's qsort; the argsort a permutation taking x to ascending order, equal values\n"
         "  in the order of their indices; unique's values and counts equal to the distinct values\n"
         "  and their occurrences in the host's qsort of the data (numpy's peer: in a bincount).\n"
         "peer: numpy on the CPU, whatever the device, on the same data: np.cumsum(x, out=y),\n"
         "  np.sort(x, kind=\"stable\"), np.argsort(x, kind=\"stable\") (these two allocate their\n"
         "  results: numpy has no out= for them), np.unique(x, return_counts=True), timed with\n"
         "  time.perf_counter; the ratio of the sort rows is against these stable sorts. default\n"
         "  Melem/s: numpy's default sort, np.sort(x) and np.argsort(x) (kind \"quicksort\", not\n"
         "  stable), timed in the same rounds after the stable one; in CSV a second line of the row,\n"
         "  its peer numpy-default.\n",
         AR_N, AR_UNIQUE_N, 1 << AR_UNIQUE_BITS, AR_UNIQUE_N >> AR_UNIQUE_BITS, AR_MAX_ROUNDS,
         AR_TIME_CAP_MS * 1e-3, AR_MIN_ROUNDS, ilogb(AR_TOL_F32), ilogb(AR_TOL_F64));
}
