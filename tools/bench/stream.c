/* tools/bench/stream.c — BabelStream's memory-bandwidth kernels: the measurement, in a child
   process per device, and the parent's side, which alternates its rounds with the peer's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- the measurement (in a child process per device) ------------------------------------ */

/* BabelStream's array length, initial values and scalar. */
#define STREAM_N ((size_t)1 << 25)
#define INIT_A 0.1
#define INIT_B 0.2
#define INIT_C 0.0
#define SCALAR 0.4

/* Each side (anygpu's child and the numpy/CuPy peer) runs a checked round and WARMUP untimed
   rounds, then timed rounds, each running every kernel once in order, as BabelStream does. The
   parent alternates them: one anygpu round, one peer round, and so on, so a shared machine's
   drifting bandwidth reaches every kernel and both sides alike. Each kernel keeps its best
   time. MAX_ROUNDS rounds, or on a slow device as many as fit in TIME_CAP_MS of measured time
   (both sides together), but never fewer than MIN_ROUNDS. */
#define WARMUP 1
#define MAX_ROUNDS 100
#define MIN_ROUNDS 5
#define TIME_CAP_MS 90000.0

/* The rows in the order they run, BabelStream's. buffer-copy is ag_buffer_copy of copy's bytes
   (c = a again): with copy, it gives the device's bandwidth limit. */
enum {
  K_COPY,
  K_BUFFER_COPY,
  K_MUL,
  K_ADD,
  K_ADD_T,
  K_TRIAD,
  K_DOT,
  K_SUM,
  K_SUM_AXES,
  K_SUM_AXIS0,
  K_SQRT,
  K_COUNT,
};

static const struct kernel_def {
  const char *name;
  double elements; /* elements moved per index of N, as BabelStream counts them */
  bool selectable; /* a name for --only, with a peer */
} kernels[K_COUNT] = {
    [K_COPY] = {"copy", 2, true},   [K_BUFFER_COPY] = {"buffer-copy", 2, false},
    [K_MUL] = {"mul", 2, true},     [K_ADD] = {"add", 3, true},
    /* Strided operands, on the first N/2 elements: c = a + b.T as 4096 x 4096 matrices (3 x
       N/2 elements moved), the sum over axes 0 and 2 of a as 256 x 256 x 256 (N/2 read), and
       the sum over axis 0 of a as 256 x N/512 (N/2 read: the outputs lie side by side). */
    [K_ADD_T] = {"add-transposed", 1.5, true},
    [K_TRIAD] = {"triad", 3, true}, [K_DOT] = {"dot", 2, true},
    [K_SUM] = {"sum", 1, true},     [K_SUM_AXES] = {"sum-axes", 0.5, true},
    [K_SUM_AXIS0] = {"sum-axis0", 0.5, true},
    [K_SQRT] = {"sqrt", 2, true},
};

/* Copy and buffer-copy always run: they give the limit the other rows are a percentage of. */
#define ALWAYS_MASK ((1u << K_COPY) | (1u << K_BUFFER_COPY))
#define ALL_MASK ((1u << K_COUNT) - 1)

/* One device's arrays, on its default queue, and the host's model of them: every array holds
   one value everywhere, so the model is three numbers (rounded to the dtype as the device
   stores them) and the two reductions' results. */
typedef struct stream {
  ag_dtype t;
  size_t n;
  ag_queue *q;
  ag_array *a, *b, *c, *dot, *sum;
  ag_array *a2, *bt2, *c2, *a3, *sax; /* add-transposed's and sum-axes' views, sum-axes' result */
  ag_array *a4, *s0;                  /* sum-axis0's view and result */
  void *host; /* n elements, for checking */
  double ea, eb, ec, edot, esum, esax, es0;
} stream;

static double round_to(ag_dtype t, double x) { return t == AG_F32 ? (double)(float)x : x; }

/* Runs kernel @p k on the stream @p ctx (an event_time call). */
static ag_status launch(void *ctx, int k) {
  stream *s = ctx;
  switch (k) {
  case K_COPY:
    return ag_copy(s->q, s->a, s->c);
  case K_BUFFER_COPY: {
    size_t off_a = 0, off_c = 0;
    ag_buffer *ba = ag_array_buffer(s->a, &off_a), *bc = ag_array_buffer(s->c, &off_c);
    return ag_buffer_copy(s->q, bc, off_c, ba, off_a, ag_array_nbytes(s->a));
  }
  case K_MUL:
    return ag_mul_scalar(s->q, s->c, SCALAR, s->b);
  case K_ADD:
    return ag_add(s->q, s->a, s->b, s->c);
  case K_ADD_T:
    return ag_add(s->q, s->a2, s->bt2, s->c2);
  case K_SUM_AXES:
    return ag_sum_axes(s->q, s->a3, 2, (const int[]){0, 2}, s->sax);
  case K_SUM_AXIS0:
    return ag_sum(s->q, s->a4, 0, s->s0);
  case K_TRIAD:
    return ag_axpby(s->q, SCALAR, s->c, 1.0, s->b, s->a);
  case K_DOT:
    return ag_dot(s->q, s->a, s->b, AG_AXIS_ALL, s->dot);
  case K_SUM:
    return ag_sum(s->q, s->a, AG_AXIS_ALL, s->sum);
  case K_SQRT:
    return ag_sqrt(s->q, s->a, s->c);
  default:
    return AG_ERR_INVALID_ARGUMENT;
  }
}

/* Applies kernel @p k to the host's model. */
static void model(stream *s, int k) {
  double sc = round_to(s->t, SCALAR), n = (double)s->n;
  switch (k) {
  case K_COPY:
  case K_BUFFER_COPY:
    s->ec = s->ea;
    break;
  case K_MUL:
    s->eb = round_to(s->t, sc * s->ec);
    break;
  case K_ADD:
  case K_ADD_T: /* on half of c, which add (always run before it) set to the same value */
    s->ec = round_to(s->t, s->ea + s->eb);
    break;
  case K_SUM_AXES:
    s->esax = 65536.0 * s->ea;
    break;
  case K_SUM_AXIS0:
    s->es0 = 256.0 * s->ea;
    break;
  case K_TRIAD:
    s->ea = round_to(s->t, s->eb + round_to(s->t, sc * s->ec));
    break;
  case K_DOT:
    s->edot = n * s->ea * s->eb;
    break;
  case K_SUM:
    s->esum = n * s->ea;
    break;
  case K_SQRT:
    s->ec = round_to(s->t, sqrt(s->ea));
    break;
  default:
    break;
  }
}

/* Relative tolerances. After one kernel (@p strict), elementwise: each element went through at
   most two roundings from inputs exact in the dtype, so 8 ulps (2^-20 for f32, 2^-49 for f64)
   covers FMA contraction and OpenCL's 3-ulp single-precision sqrt, and catches any wrong
   element. Reductions over N = 2^25 equal terms: f64 takes BabelStream's own 1e-8, which still
   catches one missing or doubled term (1/N = 3e-8); f32 takes 1e-6, about 8 ulps, where ops.h
   promises about 1e-7 for a sum of 2^24 terms (a sum that lost a work-group is off by far
   more). After the timed rounds the device and the model may have rounded differently (FMA)
   in every round, up to about 4 ulps a round over 100 rounds: 2^-12 (f32) and 2^-41 (f64),
   about 2000 ulps, for arrays and f32 reductions. */
static double tolerance(ag_dtype t, bool reduction, bool strict) {
  if (reduction)
    return t == AG_F32 ? (strict ? 1e-6 : 0x1p-12) : 1e-8;
  if (strict)
    return t == AG_F32 ? 0x1p-20 : 0x1p-49;
  return t == AG_F32 ? 0x1p-12 : 0x1p-41;
}

/* Reads @p x back and checks every element against @p want. */
static int check_array(stream *s, const ag_array *x, double want, const char *what, bool strict) {
  size_t bytes = ag_array_nbytes(x);
  if (ag_array_to_host(x, s->host, bytes) != AG_OK)
    return fail(what);
  double tol = tolerance(s->t, false, strict) * fabs(want);
  size_t bad = 0, first = 0;
  double first_value = 0;
  for (size_t i = 0; i < s->n; i++) {
    double v = s->t == AG_F32 ? (double)((const float *)s->host)[i] : ((const double *)s->host)[i];
    if (!(fabs(v - want) <= tol) && bad++ == 0)
      first = i, first_value = v;
  }
  if (bad != 0) {
    fprintf(stderr,
            "anygpu-bench: %s (%s): %zu of %zu elements are wrong; element %zu is %.17g, "
            "expected %.17g\n",
            what, ag_dtype_name(s->t), bad, s->n, first, first_value, want);
    return 1;
  }
  return 0;
}

static int check_scalar(stream *s, const ag_array *x, double want, const char *what, bool strict) {
  double v;
  if (s->t == AG_F32) {
    float f;
    if (ag_array_to_host(x, &f, sizeof f) != AG_OK)
      return fail(what);
    v = f;
  } else if (ag_array_to_host(x, &v, sizeof v) != AG_OK) {
    return fail(what);
  }
  if (!(fabs(v - want) <= tolerance(s->t, true, strict) * fabs(want))) {
    fprintf(stderr, "anygpu-bench: %s (%s): result %.17g, expected %.17g (relative error %.2g)\n", what,
            ag_dtype_name(s->t), v, want, fabs(v - want) / fabs(want));
    return 1;
  }
  return 0;
}

/* Checks the results of a sum over axes (sum-axes', sum-axis0's), each @p want. */
static int check_sums(stream *s, const ag_array *sums, double want, const char *what, bool strict) {
  if (ag_array_to_host(sums, s->host, ag_array_nbytes(sums)) != AG_OK)
    return fail(what);
  for (size_t i = 0; i < ag_array_size(sums); i++) {
    double v = s->t == AG_F32 ? (double)((const float *)s->host)[i] : ((const double *)s->host)[i];
    if (!(fabs(v - want) <= tolerance(s->t, true, strict) * fabs(want))) {
      fprintf(stderr, "anygpu-bench: %s (%s): result %zu is %.17g, expected %.17g\n", what, ag_dtype_name(s->t), i, v,
              want);
      return 1;
    }
  }
  return 0;
}

/* Checks the output of kernel @p k, just run, against the model. */
static int check_kernel(stream *s, int k) {
  const char *name = kernels[k].name;
  switch (k) {
  case K_MUL:
    return check_array(s, s->b, s->eb, name, true);
  case K_TRIAD:
    return check_array(s, s->a, s->ea, name, true);
  case K_DOT:
    return check_scalar(s, s->dot, s->edot, name, true);
  case K_SUM:
    return check_scalar(s, s->sum, s->esum, name, true);
  case K_SUM_AXES:
    return check_sums(s, s->sax, s->esax, name, true);
  case K_SUM_AXIS0:
    return check_sums(s, s->s0, s->es0, name, true);
  default: /* copy, buffer-copy, add, sqrt */
    return check_array(s, s->c, s->ec, name, true);
  }
}

/* Runs one round of the kernels in @p order, timing each (event_time) into @p ms, or untimed
   when @p ms is NULL. */
static int run_round(stream *s, const int *order, int count, double *ms) {
  for (int i = 0; i < count; i++) {
    int k = order[i];
    if (ms == NULL) {
      if (launch(s, k) != AG_OK)
        return fail(kernels[k].name);
      model(s, k);
      continue;
    }
    if (event_time(s->q, launch, s, k, &ms[k]) != AG_OK)
      return fail(kernels[k].name);
    if (!(ms[k] > 0)) {
      fprintf(stderr, "anygpu-bench: %s: the events measured %g ms\n", kernels[k].name, ms[k]);
      return 1;
    }
    model(s, k);
  }
  return 0;
}

/* The child of one device: sets up the kernels of @p mask_arg (their bits, in decimal, as
   stream_device passes them) on @p spec, runs the checked and the warm-up rounds, and prints
   "ready" (or "skip REASON" when the device cannot run the dtype). Then for each line "round"
   on stdin runs a timed round and prints "times MS..." (one time per kernel, in order); at
   "end" or the end of stdin, checks the arrays and prints "ok". Exits 1, having said why on
   stderr, when a call fails or a result is wrong. */
int stream_child(const char *spec, const char *dtype_name, const char *mask_arg) {
  unsigned mask = (unsigned)strtoul(mask_arg, NULL, 10) & ALL_MASK;
  stream s = {.t = strcmp(dtype_name, "f32") == 0 ? AG_F32 : AG_F64, .n = STREAM_N};
  ag_device *dev;
  ag_device_info info;
  if (ag_device_select(spec, &dev) != AG_OK || ag_device_get_info(dev, &info) != AG_OK)
    return fail(spec);
  if (s.t == AG_F64 && !info.fp64) {
    printf("skip %s has no float64 (try --float)\n", spec);
    return 0;
  }
  int order[K_COUNT], count = 0;
  for (int k = 0; k < K_COUNT; k++)
    if (mask & (1u << k))
      order[count++] = k;
  size_t shape[1] = {s.n}, one[1] = {1};
  int rc = 0;
  if (ag_queue_default(dev, &s.q) != AG_OK || ag_array_create(dev, s.t, 1, shape, &s.a) != AG_OK ||
      ag_array_create(dev, s.t, 1, shape, &s.b) != AG_OK || ag_array_create(dev, s.t, 1, shape, &s.c) != AG_OK ||
      ag_array_create(dev, s.t, 1, one, &s.dot) != AG_OK || ag_array_create(dev, s.t, 1, one, &s.sum) != AG_OK)
    rc = fail("allocating the arrays");
  /* The strided rows' views over the first n/2 elements, and sum-axes' and sum-axis0's results. */
  ag_array *ha = NULL, *hb = NULL, *hc = NULL, *b2 = NULL;
  const size_t sq[2] = {4096, 4096}, cube[3] = {256, 256, 256}, n256 = 256, wide[2] = {256, s.n / 512};
  if (rc == 0 && (ag_array_slice(s.a, 0, s.n / 2, &ha) != AG_OK || ag_array_slice(s.b, 0, s.n / 2, &hb) != AG_OK ||
                  ag_array_slice(s.c, 0, s.n / 2, &hc) != AG_OK || ag_array_reshape(ha, 2, sq, &s.a2) != AG_OK ||
                  ag_array_reshape(hb, 2, sq, &b2) != AG_OK || ag_array_transpose(b2, &s.bt2) != AG_OK ||
                  ag_array_reshape(hc, 2, sq, &s.c2) != AG_OK || ag_array_reshape(ha, 3, cube, &s.a3) != AG_OK ||
                  ag_array_create(dev, s.t, 1, &n256, &s.sax) != AG_OK || ag_array_reshape(ha, 2, wide, &s.a4) != AG_OK ||
                  ag_array_create(dev, s.t, 1, &wide[1], &s.s0) != AG_OK))
    rc = fail("making the strided views");
  ag_array_free(ha);
  ag_array_free(hb);
  ag_array_free(hc);
  ag_array_free(b2);
  if (rc == 0 && (s.host = malloc(s.n * ag_dtype_size(s.t))) == NULL) {
    fprintf(stderr, "anygpu-bench: out of host memory for checking the results\n");
    rc = 1;
  }
  if (rc == 0 && (ag_fill(s.q, s.a, INIT_A) != AG_OK || ag_fill(s.q, s.b, INIT_B) != AG_OK ||
                  ag_fill(s.q, s.c, INIT_C) != AG_OK))
    rc = fail("filling the arrays");
  s.ea = round_to(s.t, INIT_A);
  s.eb = round_to(s.t, INIT_B);
  s.ec = round_to(s.t, INIT_C);
  /* The checked round: every kernel's output against the model, strictly. It is also the
     first warm-up (and on OpenCL builds the kernels). */
  for (int i = 0; i < count && rc == 0; i++) {
    /* add left a + b in c, the value add-transposed writes to its half: that half is cleared
       first here, so an add-transposed that missed elements fails the check. */
    if (order[i] == K_ADD_T && ag_fill(s.q, s.c2, 0.0) != AG_OK) {
      rc = fail("clearing add-transposed's output");
      break;
    }
    if (launch(&s, order[i]) != AG_OK)
      rc = fail(kernels[order[i]].name);
    else
      model(&s, order[i]), rc = check_kernel(&s, order[i]);
  }
  for (int r = 0; r < WARMUP && rc == 0; r++)
    rc = run_round(&s, order, count, NULL);
  if (rc == 0) {
    printf("ready\n");
    fflush(stdout);
  }
  char cmd[32];
  double ms[K_COUNT] = {0};
  while (rc == 0 && fgets(cmd, sizeof cmd, stdin) != NULL && strcmp(cmd, "round\n") == 0) {
    rc = run_round(&s, order, count, ms);
    if (rc == 0) {
      printf("times");
      for (int i = 0; i < count; i++)
        printf(" %.6f", ms[order[i]]);
      printf("\n");
      fflush(stdout);
    }
  }
  /* The arrays and the last reductions after all the rounds, as BabelStream checks them. */
  if (rc == 0)
    rc = check_array(&s, s.a, s.ea, "the final a", false) || check_array(&s, s.b, s.eb, "the final b", false) ||
         check_array(&s, s.c, s.ec, "the final c", false) ||
         ((mask & (1u << K_DOT)) && check_scalar(&s, s.dot, s.edot, "the last dot", false)) ||
         ((mask & (1u << K_SUM)) && check_scalar(&s, s.sum, s.esum, "the last sum", false)) ||
         ((mask & (1u << K_SUM_AXES)) && check_sums(&s, s.sax, s.esax, "the last sum-axes", false)) ||
         ((mask & (1u << K_SUM_AXIS0)) && check_sums(&s, s.s0, s.es0, "the last sum-axis0", false));
  if (rc == 0)
    printf("ok\n");
  free(s.host);
  ag_array_free(s.s0);
  ag_array_free(s.a4);
  ag_array_free(s.sax);
  ag_array_free(s.a3);
  ag_array_free(s.c2);
  ag_array_free(s.bt2);
  ag_array_free(s.a2);
  ag_array_free(s.sum);
  ag_array_free(s.dot);
  ag_array_free(s.c);
  ag_array_free(s.b);
  ag_array_free(s.a);
  return rc;
}

/* ---- the parent's side ------------------------------------------------------------------ */

/* The kernels --only @p only names (NULL: every kernel): one kernel, with copy and buffer-copy
   (and add before add-transposed, which writes half of c and leaves the rest as add did); 0 for
   a name that is not a kernel's. */
unsigned stream_mask(const char *only) {
  unsigned mask = only == NULL ? ALL_MASK : 0;
  for (int k = 0; k < K_COUNT && only != NULL; k++)
    if (kernels[k].selectable && strcmp(only, kernels[k].name) == 0)
      mask = ALWAYS_MASK | (1u << k) | (k == K_ADD_T ? 1u << K_ADD : 0);
  return mask;
}

/* Parses "times MS MS ..." (@p count times) into @p ms, in the order of @p order. */
static int parse_times(const char *line, const int *order, int count, double *ms) {
  if (strncmp(line, "times", 5) != 0)
    return -1;
  const char *p = line + 5;
  for (int i = 0; i < count; i++) {
    char *end;
    double v = strtod(p, &end);
    if (end == p || !(v > 0))
      return -1;
    ms[order[i]] = v;
    p = end;
  }
  return 0;
}

/* Measures the kernels of @p mask on one device: starts its child, then the peer, alternates
   their rounds, and prints the rows. */
int stream_device(const char *self, const device_entry *d, bool f32, unsigned mask, bool csv, totals *tot) {
  /* The peer has no buffer-copy. */
  int order[K_COUNT], count = 0, peer_order[K_COUNT], peer_count = 0;
  char names[128] = "", mask_arg[16], line[1024];
  for (int k = 0; k < K_COUNT; k++)
    if (mask & (1u << k)) {
      order[count++] = k;
      if (kernels[k].selectable) {
        peer_order[peer_count++] = k;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? "," : "", kernels[k].name);
      }
    }
  snprintf(mask_arg, sizeof mask_arg, "%u", mask);
  char *argv[] = {(char *)self, (char *)"--stream-child", (char *)d->spec, (char *)dtype_short(f32), mask_arg, NULL};
  coproc child, peer = {0};
  if (coproc_start(&child, argv, false) != 0) {
    perror("anygpu-bench: starting the measurement");
    coproc_end(&child);
    return 1;
  }
  if (coproc_read(&child, line, sizeof line) == NULL || strcmp(line, "ready") != 0) {
    bool skip = strncmp(line, "skip ", 5) == 0;
    if (skip)
      fprintf(stderr, "anygpu-bench: skipping %s: %s\n", d->spec, line + 5);
    int code = coproc_end(&child);
    if (!skip)
      fprintf(stderr, "anygpu-bench: the BabelStream kernels failed on %s (exit status %d)\n", d->spec, code);
    return skip ? 0 : 1;
  }

  /* The peer's arrays live beside the child's, but only one of the two runs at a time. */
  char peer_name[16] = "";
  bool gpu = strcmp(d->type, "GPU") == 0, peer_on = false;
  if (gpu || strcmp(d->type, "CPU") == 0) {
    char n_arg[32];
    snprintf(n_arg, sizeof n_arg, "%zu", STREAM_N);
    const char *args[3] = {n_arg, f32 ? "float32" : "float64", names};
    peer_on = peer_start(gpu, "peer_stream", args, &peer, peer_name, sizeof peer_name) == 0;
  }

  double best[K_COUNT], peer_best[K_COUNT], ms[K_COUNT], spent = 0;
  for (int k = 0; k < K_COUNT; k++)
    best[k] = peer_best[k] = INFINITY;
  int rounds = 0, rc = 0;
  while (rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || spent < TIME_CAP_MS)) {
    if (coproc_ask(&child, "round", line, sizeof line) == NULL || parse_times(line, order, count, ms) != 0) {
      rc = 1;
      break;
    }
    for (int i = 0; i < count; i++)
      best[order[i]] = fmin(best[order[i]], ms[order[i]]), spent += ms[order[i]];
    if (peer_on) {
      if (coproc_ask(&peer, "round", line, sizeof line) == NULL || parse_times(line, peer_order, peer_count, ms) != 0) {
        fprintf(stderr, "anygpu-bench: the %s peer failed in round %d (exit status %d); its rows show \"-\"\n",
                peer_name, rounds + 1, coproc_end(&peer));
        peer_on = false;
        for (int k = 0; k < K_COUNT; k++)
          peer_best[k] = INFINITY;
      } else {
        for (int i = 0; i < peer_count; i++)
          peer_best[peer_order[i]] = fmin(peer_best[peer_order[i]], ms[peer_order[i]]), spent += ms[peer_order[i]];
      }
    }
    rounds++;
  }
  /* Both check their arrays after the last round. */
  if (rc == 0 && (coproc_ask(&child, "end", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
    rc = 1;
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the BabelStream kernels failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (peer_on) {
    if (coproc_ask(&peer, "end", line, sizeof line) == NULL || strcmp(line, "ok") != 0) {
      fprintf(stderr, "anygpu-bench: the %s peer failed its final check (exit status %d); its rows show \"-\"\n",
              peer_name, coproc_end(&peer));
      for (int k = 0; k < K_COUNT; k++)
        peer_best[k] = INFINITY;
    }
    coproc_end(&peer);
  }
  if (rc != 0)
    return 1;

  double gbs[K_COUNT] = {0}, peer_gbs[K_COUNT] = {0};
  for (int i = 0; i < count; i++) {
    int k = order[i];
    double bytes = (double)kernels[k].elements * (f32 ? 4.0 : 8.0) * (double)STREAM_N;
    gbs[k] = bytes / (best[k] * 1e6);
    if (kernels[k].selectable && isfinite(peer_best[k]))
      peer_gbs[k] = bytes / (peer_best[k] * 1e6);
  }
  double limit = fmax(gbs[K_COPY], gbs[K_BUFFER_COPY]);
  if (rounds < MAX_ROUNDS)
    tot->fewer_rounds = true;

  if (!csv) {
    tot->any_stream = true;
    printf("\n%s: %s (%s, %.2f GiB); BabelStream %s, N = %zu (%zu MiB per array)", d->spec, d->name, d->type,
           (double)d->memory / (1024.0 * 1024 * 1024), f32 ? "float32" : "float64", STREAM_N,
           STREAM_N * (f32 ? 4 : 8) >> 20);
    if (rounds < MAX_ROUNDS)
      printf("; %d rounds", rounds);
    char peer_head[32];
    snprintf(peer_head, sizeof peer_head, "%s GB/s", peer_name[0] ? peer_name : "peer");
    printf("\n  %-14s %9s %11s %12s %8s\n", "kernel", "GB/s", "% of limit", peer_head, "ratio");
  }
  for (int i = 0; i < count; i++) {
    int k = order[i];
    bool has_peer = peer_gbs[k] > 0, dash = !has_peer && peer_name[0] && kernels[k].selectable;
    char pv[32] = "", ratio[32] = "";
    if (has_peer)
      tot->peer[gpu] = true;
    if (csv) {
      if (has_peer) {
        snprintf(pv, sizeof pv, "%.2f", peer_gbs[k]);
        snprintf(ratio, sizeof ratio, "%.3f", gbs[k] / peer_gbs[k]);
      }
      printf("%s,%s,%s,%zu,%.2f,GB/s,%.1f,%s,%s,%s\n", d->spec, kernels[k].name, dtype_short(f32), STREAM_N, gbs[k],
             100.0 * gbs[k] / limit, has_peer ? peer_name : dash ? "-" : "", pv, ratio);
      continue;
    }
    if (has_peer) {
      snprintf(pv, sizeof pv, "%.1f", peer_gbs[k]);
      snprintf(ratio, sizeof ratio, "%.2fx", gbs[k] / peer_gbs[k]);
    } else if (dash) {
      snprintf(pv, sizeof pv, "-");
    }
    printf("  %-14s %9.1f %10.1f%% %12s %8s\n", kernels[k].name, gbs[k], 100.0 * gbs[k] / limit, pv, ratio);
  }
  return 0;
}

/* The legend under the BabelStream tables and their peer's columns. */
void stream_footer(const totals *tot) {
  if (tot->any_stream)
    printf("\nGB/s: bytes moved as BabelStream counts them (copy, buffer-copy, mul, dot, sqrt 2N elements;\n"
           "  add, triad 3N; sum N; add-transposed 1.5N; sum-axes, sum-axis0 N/2; GB = 1e9 bytes) over the\n"
           "  kernel's best time in %d rounds, each running every kernel once in the order shown,\n"
           "  each timed on the device with\n"
           "  ag_event_record/ag_event_elapsed_ms (with the host clock around ag_queue_finish where\n"
           "  the driver gives no timestamps, as stderr then says); one checked round and %d warm-up\n"
           "  round go first.\n"
           "  copy ag_copy (c = a); buffer-copy ag_buffer_copy of the same bytes; mul ag_mul_scalar\n"
           "  (b = s*c); add ag_add (c = a + b); triad ag_axpby (a = b + s*c, one pass); dot ag_dot;\n"
           "  sum ag_sum; sqrt ag_sqrt (c = sqrt(a)); add-transposed ag_add of a and b.T as 4096 x 4096\n"
           "  views of their first N/2 elements into c's; sum-axes ag_sum_axes over axes 0 and 2 of a's\n"
           "  first N/2 elements as 256 x 256 x 256; sum-axis0 ag_sum over axis 0 of them as 256 x N/512.\n"
           "  Each kernel's output is checked in the first\n"
           "  round, and the arrays after the last, against values computed on the host.\n"
           "%% of limit: of the device's copy bandwidth measured in this run, the better of the copy\n"
           "  and buffer-copy rows.\n",
           MAX_ROUNDS, WARMUP);
  if (tot->peer[0] || tot->peer[1])
    printf("peer GB/s: numpy (CPU devices) or CuPy (GPUs) doing the same arithmetic on arrays of the\n"
           "  same size and dtype in the same run, in rounds that alternate with anygpu's, timed with\n"
           "  time.perf_counter (CuPy: CUDA events), bytes counted as above.\n"
           "  copy c[:] = a (np.copyto), mul np.multiply(c, s, out=b), add np.add(a, b, out=c),\n"
           "  triad a[:] = b + s*c (numpy's way: two passes and a temporary), dot np.dot(a, b),\n"
           "  sum a.sum(), sqrt np.sqrt(a, out=c), add-transposed np.add(a2, b2.T, out=c2), sum-axes\n"
           "  a3.sum(axis=(0, 2)), sum-axis0 a4.sum(axis=0) on the same views. \"-\" where the peer\n"
           "  has no figure.\n");
}

/* The footer's last line, under the legend of every table. */
void stream_footer_rounds(const totals *tot) {
  if (tot->fewer_rounds)
    printf("A device that shows fewer rounds stopped after %.0f s of measured time.\n", TIME_CAP_MS * 1e-3);
}
