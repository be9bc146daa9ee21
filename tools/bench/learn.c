/* tools/bench/learn.c — the learning rows (--only learn): adam, one torch-Adam step over 2^24
   parameters (ag_optimizer_step) in GB/s against the device's copy bandwidth measured in the
   same child; mlp-epoch, an epoch of a 784-256-10 perceptron trained with Adam, in samples/s.
   The peer is PyTorch on the CPU (peer_learn.py). The child (--learn-child) and the peer run
   alternating rounds, as the solver rows do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define LN_MAX_ROUNDS 20
#define LN_MIN_ROUNDS 5
#define LN_TIME_CAP_MS 20000.0

/* adam: parameters of one step; 7 arrays move (read x, g, m, v; write x, m, v). */
#define ADAM_N ((size_t)1 << 24)
#define ADAM_ARRAYS 7
#define ADAM_LR 1e-3

/* mlp-epoch: Flux's model-zoo MLP on MNIST's shapes: 784 -> 256 (relu) -> 10, logit
   cross-entropy, Adam (torch's, lr 1e-3), batches of 128 over MLP_SAMPLES samples a round. */
#define MLP_SAMPLES 8192
#define MLP_IN 784
#define MLP_HIDDEN 256
#define MLP_OUT 10
#define MLP_BATCH 128

typedef struct ln_row {
  const char *name; /* the row, and peer_learn.py's setup ROW */
  const char *unit;
  size_t size;      /* the size column */
} ln_row;

enum { LN_ADAM, LN_MLP, LN_COUNT };

static const ln_row ln_rows[LN_COUNT] = {
    [LN_ADAM] = {"adam", "GB/s", ADAM_N},
    [LN_MLP] = {"mlp-epoch", "samples/s", MLP_SAMPLES},
};

unsigned learn_mask(const char *only) {
  unsigned rows = only == NULL || strcmp(only, "learn") == 0 ? (1u << LN_COUNT) - 1 : 0;
  for (int r = 0; r < LN_COUNT && only != NULL; r++)
    if (strcmp(only, ln_rows[r].name) == 0)
      rows |= 1u << r;
  return rows;
}

/* ---- the child: one device, one row at a time -------------------------------------------- */

typedef struct ln_state {
  ag_device *dev;
  ag_queue *q;
  ag_dtype dtype;
  int row; /* -1: none set up */
  /* adam */
  ag_array *x, *g, *a, *c; /* the parameters, the gradient; a and c the copy's */
  ag_optimizer *opt;
  /* mlp-epoch: the data set on the host, the stream over it, the layers' parameters (w1, b1,
     w2, b2), their gradients and optimisers, the activations and their gradients, the loss */
  void *data_x, *data_y;
  ag_batch_stream *stream;
  ag_array *p[4], *dp[4];
  ag_optimizer *popt[4];
  ag_array *h, *logits, *dlogits, *dh, *loss;
} ln_state;

static void ln_release(ln_state *s) {
  ag_optimizer_destroy(s->opt);
  ag_array *arrays[] = {s->x, s->g, s->a, s->c, s->h, s->logits, s->dlogits, s->dh, s->loss};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
    ag_array_free(arrays[i]);
  for (int i = 0; i < 4; i++) {
    ag_optimizer_destroy(s->popt[i]);
    ag_array_free(s->p[i]);
    ag_array_free(s->dp[i]);
  }
  ag_batch_stream_destroy(s->stream);
  free(s->data_x);
  free(s->data_y);
  ag_queue *q = s->q;
  ag_device *dev = s->dev;
  ag_dtype t = s->dtype;
  *s = (ln_state){.dev = dev, .q = q, .dtype = t, .row = -1};
}

/* Deterministic values in [lo, hi): x0 and g of the adam row. */
static double ln_value(size_t i, unsigned salt, double lo, double hi) {
  uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ull + salt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) / 9007199254740992.0;
}

/* The host's array of @p n values ln_value(i, salt, lo, hi) in dtype @p t, as an array on the
   device. */
static ag_status ln_upload(ln_state *s, size_t n, unsigned salt, double lo, double hi, ag_array **out) {
  size_t es = s->dtype == AG_F64 ? sizeof(double) : sizeof(float);
  void *h = malloc(n * es);
  if (h == NULL)
    return AG_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < n; i++) {
    double v = ln_value(i, salt, lo, hi);
    if (s->dtype == AG_F64)
      ((double *)h)[i] = v;
    else
      ((float *)h)[i] = (float)v;
  }
  ag_status st = ag_array_from_host(s->dev, s->dtype, 1, &n, h, out);
  free(h);
  return st;
}

/* The first step, checked: every parameter against torch's first Adam step worked out on the
   host in double (m = 0.1 g, v = 0.001 g^2, x - lr m / (1 - 0.9) / (sqrt(v) / sqrt(1 - 0.999)
   + eps)), within 1e-6 relative in float32 and 1e-12 in float64. */
static int adam_check(ln_state *s) {
  size_t n = ADAM_N, es = s->dtype == AG_F64 ? sizeof(double) : sizeof(float);
  void *h = malloc(n * es);
  if (h == NULL)
    return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
  if (ag_array_to_host(s->x, h, n * es) != AG_OK) {
    free(h);
    return fail("reading the parameters back");
  }
  double tol = s->dtype == AG_F64 ? 1e-12 : 1e-6, bc2s = sqrt(1 - 0.999);
  size_t bad = 0, first = 0;
  double got0 = 0, want0 = 0;
  for (size_t i = 0; i < n; i++) {
    double x = ln_value(i, 1, -1, 1), g = ln_value(i, 2, -1, 1);
    if (s->dtype == AG_F32)
      x = (float)x, g = (float)g;
    double m = (1 - 0.9) * g, v = (1 - 0.999) * g * g;
    double want = x + -(ADAM_LR / (1 - 0.9)) * m / (sqrt(v) / bc2s + 1e-8);
    double got = s->dtype == AG_F64 ? ((double *)h)[i] : ((float *)h)[i];
    if (!(fabs(got - want) <= tol * fmax(1, fabs(want))) && bad++ == 0)
      first = i, got0 = got, want0 = want;
  }
  free(h);
  if (bad != 0)
    return fprintf(stderr, "anygpu-bench: adam: %zu of %zu parameters wrong after the first step; [%zu] is %.17g, "
                           "expected %.17g\n",
                   bad, n, first, got0, want0),
           1;
  return 0;
}

static ag_status adam_setup(ln_state *s) {
  size_t n = ADAM_N;
  ag_optim_options o;
  ag_status st;
  if ((st = ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &o)) != AG_OK)
    return st;
  o.lr = ADAM_LR;
  if ((st = ln_upload(s, n, 1, -1, 1, &s->x)) != AG_OK || (st = ln_upload(s, n, 2, -1, 1, &s->g)) != AG_OK ||
      (st = ag_array_create(s->dev, s->dtype, 1, &n, &s->a)) != AG_OK ||
      (st = ag_array_create(s->dev, s->dtype, 1, &n, &s->c)) != AG_OK || (st = ag_fill(s->q, s->a, 0.5)) != AG_OK ||
      (st = ag_optimizer_create(&o, s->x, &s->opt)) != AG_OK)
    return st;
  /* The checked step, then one of each timed call as a warm-up. */
  if ((st = ag_optimizer_step(s->q, s->opt, s->x, s->g)) != AG_OK || (st = ag_queue_finish(s->q)) != AG_OK)
    return st;
  return AG_OK;
}

/* ---- mlp-epoch ---- */

/* The data set: inputs uniform in [0, 1) (pixels), each sample's class the largest of 10 fixed
   random projections of it, one-hot, so the model has something to learn. */
static int mlp_data(ln_state *s) {
  size_t es = s->dtype == AG_F64 ? sizeof(double) : sizeof(float);
  double *proj = malloc((size_t)MLP_OUT * MLP_IN * sizeof *proj);
  s->data_x = malloc((size_t)MLP_SAMPLES * MLP_IN * es);
  s->data_y = calloc((size_t)MLP_SAMPLES * MLP_OUT, es);
  if (proj == NULL || s->data_x == NULL || s->data_y == NULL) {
    free(proj);
    return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
  }
  for (size_t i = 0; i < (size_t)MLP_OUT * MLP_IN; i++)
    proj[i] = ln_value(i, 7, -1, 1);
  for (size_t k = 0; k < MLP_SAMPLES; k++) {
    double best = -INFINITY;
    size_t cls = 0;
    for (size_t j = 0; j < MLP_IN; j++) {
      double v = ln_value(k * MLP_IN + j, 8, 0, 1);
      if (s->dtype == AG_F64)
        ((double *)s->data_x)[k * MLP_IN + j] = v;
      else
        ((float *)s->data_x)[k * MLP_IN + j] = (float)v;
    }
    for (size_t c = 0; c < MLP_OUT; c++) {
      double z = 0;
      for (size_t j = 0; j < MLP_IN; j++)
        z += proj[c * MLP_IN + j] * ln_value(k * MLP_IN + j, 8, 0, 1);
      if (z > best)
        best = z, cls = c;
    }
    if (s->dtype == AG_F64)
      ((double *)s->data_y)[k * MLP_OUT + cls] = 1;
    else
      ((float *)s->data_y)[k * MLP_OUT + cls] = 1;
  }
  free(proj);
  return 0;
}

static ag_status mlp_setup(ln_state *s) {
  ag_dtype t = s->dtype;
  const size_t shapes[4][2] = {{MLP_HIDDEN, MLP_IN}, {MLP_HIDDEN, 0}, {MLP_OUT, MLP_HIDDEN}, {MLP_OUT, 0}};
  ag_status st = AG_OK;
  for (int i = 0; i < 4 && st == AG_OK; i++) {
    int nd = shapes[i][1] ? 2 : 1;
    if ((st = ag_array_create(s->dev, t, nd, shapes[i], &s->p[i])) == AG_OK)
      st = ag_array_create(s->dev, t, nd, shapes[i], &s->dp[i]);
  }
  ag_optim_options o;
  if (st == AG_OK)
    st = ag_optim_options_default(AG_OPTIM_ADAM_TORCH, &o);
  for (int i = 0; i < 4 && st == AG_OK; i++)
    st = ag_optimizer_create(&o, s->p[i], &s->popt[i]);
  size_t one = 1;
  if (st != AG_OK || (st = ag_glorot_uniform(s->q, s->p[0], 1)) != AG_OK ||
      (st = ag_glorot_uniform(s->q, s->p[2], 2)) != AG_OK || (st = ag_fill(s->q, s->p[1], 0)) != AG_OK ||
      (st = ag_fill(s->q, s->p[3], 0)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_HIDDEN}, &s->h)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_HIDDEN}, &s->dh)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_OUT}, &s->logits)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 2, (size_t[]){MLP_BATCH, MLP_OUT}, &s->dlogits)) != AG_OK ||
      (st = ag_array_create(s->dev, t, 1, &one, &s->loss)) != AG_OK)
    return st;
  if (mlp_data(s) != 0)
    return AG_ERR_OUT_OF_MEMORY;
  return ag_batch_stream_create(s->dev, s->data_x, t, MLP_IN, s->data_y, t, MLP_OUT, MLP_SAMPLES, MLP_BATCH, 1,
                                &s->stream);
}

/* One epoch: for each batch, forward, loss and its gradient, backward, an Adam step of each of
   the four parameter arrays; all enqueued on the child's queue, which is finished at the end.
   The last batch's loss into *loss. */
static ag_status mlp_epoch(ln_state *s, double *loss) {
  ag_status st;
  for (;;) {
    ag_array *x, *y;
    size_t count;
    if ((st = ag_batch_stream_next(s->stream, s->q, &x, &y, &count)) != AG_OK)
      return st;
    if (count == 0)
      break;
    if (count != MLP_BATCH) /* MLP_SAMPLES is a multiple of the batch */
      return AG_ERR_MISMATCH;
    if ((st = ag_dense_forward(s->q, x, s->p[0], s->p[1], AG_ACT_RELU, s->h)) != AG_OK ||
        (st = ag_dense_forward(s->q, s->h, s->p[2], s->p[3], AG_ACT_IDENTITY, s->logits)) != AG_OK ||
        (st = ag_loss_logitcrossentropy(s->q, s->logits, y, 1.0, s->loss, s->dlogits, 0)) != AG_OK ||
        (st = ag_dense_backward(s->q, s->h, s->p[2], AG_ACT_IDENTITY, s->logits, s->dlogits, s->dh, s->dp[2],
                                s->dp[3])) != AG_OK ||
        (st = ag_dense_backward(s->q, x, s->p[0], AG_ACT_RELU, s->h, s->dh, NULL, s->dp[0], s->dp[1])) != AG_OK)
      return st;
    for (int i = 0; i < 4; i++)
      if ((st = ag_optimizer_step(s->q, s->popt[i], s->p[i], s->dp[i])) != AG_OK)
        return st;
  }
  if ((st = ag_queue_finish(s->q)) != AG_OK)
    return st;
  if (s->dtype == AG_F64)
    return ag_array_to_host(s->loss, loss, sizeof *loss);
  float f;
  st = ag_array_to_host(s->loss, &f, sizeof f);
  *loss = f;
  return st;
}

/* ---- adam ---- */

enum { CALL_ADAM, CALL_COPY, CALL_BUFFER_COPY };

static ag_status adam_call(void *ctx, int which) {
  ln_state *s = ctx;
  switch (which) {
  case CALL_ADAM:
    return ag_optimizer_step(s->q, s->opt, s->x, s->g);
  case CALL_COPY:
    return ag_copy(s->q, s->a, s->c);
  default: {
    size_t off_a = 0, off_c = 0;
    ag_buffer *ba = ag_array_buffer(s->a, &off_a), *bc = ag_array_buffer(s->c, &off_c);
    return ag_buffer_copy(s->q, bc, off_c, ba, off_a, ag_array_nbytes(s->a));
  }
  }
}

/* "setup ROW": the row's data and a checked first call; "ready MS" (the setup's wall time) or
   "skip REASON". Returns nonzero when the child must end. */
static int ln_setup(ln_state *s, const char *line) {
  char name[32];
  int row = -1;
  if (sscanf(line, "setup %31s", name) == 1)
    for (int r = 0; r < LN_COUNT; r++)
      if (strcmp(name, ln_rows[r].name) == 0)
        row = r;
  if (row < 0)
    return fprintf(stderr, "anygpu-bench: the learning child was asked \"%s\"\n", line), 1;
  double t0 = now_ms();
  ag_status st = AG_ERR_INVALID_ARGUMENT;
  s->row = row;
  double loss0 = NAN, loss1 = NAN;
  if (row == LN_ADAM)
    st = adam_setup(s);
  else if (row == LN_MLP && (st = mlp_setup(s)) == AG_OK && (st = mlp_epoch(s, &loss0)) == AG_OK)
    st = mlp_epoch(s, &loss1);
  if (st == AG_ERR_UNSUPPORTED) {
    printf("skip %s\n", ag_last_error());
    ln_release(s);
    return 0;
  }
  if (st != AG_OK)
    return fail(name);
  if (row == LN_ADAM && adam_check(s) != 0)
    return 1;
  /* Two epochs of training must have lowered the loss from log(10), a guess's, and kept it
     finite. */
  if (row == LN_MLP && !(loss1 < 0.9 * log(10.0)))
    return fprintf(stderr, "anygpu-bench: mlp-epoch: the loss after two epochs is %g (after one %g); it should "
                           "fall below 0.9 log(10)\n", loss1, loss0), 1;
  double ms;
  for (int k = CALL_ADAM; row == LN_ADAM && k <= CALL_BUFFER_COPY; k++)
    if (event_time(s->q, adam_call, s, k, &ms) != AG_OK)
      return fail(name);
  printf("ready %.6f\n", now_ms() - t0);
  return 0;
}

/* "round": the row's timed calls, "time MS..." (adam: the step, ag_copy and ag_buffer_copy of
   as many elements, each timed with events on an idle queue; mlp-epoch: an epoch, wall clock
   from an idle queue to an idle queue, as the host loop reads the stream between batches). */
static int ln_round(ln_state *s) {
  double ms[3];
  if (s->row == LN_MLP) {
    double loss, t0 = now_ms();
    if (mlp_epoch(s, &loss) != AG_OK)
      return fail("mlp-epoch");
    printf("time %.6f\n", now_ms() - t0);
    return 0;
  }
  for (int k = CALL_ADAM; k <= CALL_BUFFER_COPY; k++)
    if (event_time(s->q, adam_call, s, k, &ms[k]) != AG_OK)
      return fail(ln_rows[s->row].name);
  printf("time %.6f %.6f %.6f\n", ms[0], ms[1], ms[2]);
  return 0;
}

int learn_child(const char *spec, const char *dtype_name) {
  ln_state s = {.row = -1};
  if (ag_device_select(spec, &s.dev) != AG_OK || ag_queue_create(s.dev, &s.q) != AG_OK)
    return fail("opening the device");
  ag_device_info info;
  ag_device_get_info(s.dev, &info);
  /* float64 unless asked for float32, or the device has no float64. */
  s.dtype = strcmp(dtype_name, "f32") == 0 || !info.fp64 ? AG_F32 : AG_F64;
  printf("device %s\t%s\t%s\n", info.platform, info.name, s.dtype == AG_F64 ? "f64" : "f32");
  fflush(stdout);
  char line[256];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, stdin) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "setup ", 6) == 0)
      rc = ln_setup(&s, line);
    else if (strcmp(line, "round") == 0 && s.row >= 0)
      rc = ln_round(&s);
    else {
      ln_release(&s);
      printf("ok\n");
    }
    fflush(stdout);
  }
  ln_release(&s);
  ag_queue_destroy(s.q);
  return rc;
}

/* ---- the parent's side ------------------------------------------------------------------- */

/* What a row measured: the best times in ms (infinite for none): the call, the copy and the
   buffer copy (adam), the peer's call; the rounds. */
typedef struct ln_figures {
  double best, copy, bcopy, peer_best;
  int rounds;
} ln_figures;

static void ln_print(const device_entry *d, const ln_row *row, const char *dtype, bool csv, const char *peer,
                     ln_figures f) {
  double es = strcmp(dtype, "f64") == 0 ? 8 : 4;
  /* What one call does: bytes moved (adam, GB/s) or samples trained (mlp-epoch, per second). */
  bool adam = row == &ln_rows[LN_ADAM];
  double work = adam ? ADAM_ARRAYS * es * (double)ADAM_N * 1e-6 : (double)row->size * 1e3;
  double value = 0, peer_value = 0, pct = NAN;
  if (isfinite(f.best))
    value = work / f.best;
  if (isfinite(f.peer_best))
    peer_value = work / f.peer_best;
  double limit_ms = adam ? fmin(f.copy, f.bcopy) : INFINITY;
  if (value > 0 && isfinite(limit_ms))
    pct = 100.0 * value / (2 * es * (double)ADAM_N / (limit_ms * 1e6));
  char v[32] = "-", p[32] = "", pv[32] = "", ratio[32] = "", nr[16] = "";
  if (value > 0)
    snprintf(v, sizeof v, csv ? "%.3f" : adam ? "%.2f" : "%.0f", value);
  if (isfinite(pct))
    snprintf(p, sizeof p, csv ? "%.1f" : "%.1f%%", pct);
  if (peer[0])
    snprintf(pv, sizeof pv, "-");
  if (peer_value > 0) {
    snprintf(pv, sizeof pv, csv ? "%.3f" : adam ? "%.2f" : "%.0f", peer_value);
    if (value > 0)
      snprintf(ratio, sizeof ratio, csv ? "%.3f" : "%.2fx", value / peer_value);
  }
  if (f.rounds > 0)
    snprintf(nr, sizeof nr, "%d", f.rounds);
  if (csv)
    printf("%s,%s,%s,%zu,%s,%s,%s,%s,%s,%s\n", d->spec, row->name, dtype, row->size, v, row->unit, p,
           peer_value > 0 ? peer : "", peer_value > 0 ? pv : "", ratio);
  else
    printf("  %-12s %10s %-10s %9s %-6s %10s %8s %6s\n", row->name, v, row->unit, p, peer, pv, ratio, nr);
  /* The limit itself, a row of its own, so that the percentage can be checked. */
  if (isfinite(limit_ms)) {
    double limit = 2 * es * (double)ADAM_N / (limit_ms * 1e6);
    if (csv)
      printf("%s,copy-limit,%s,%zu,%.3f,GB/s,100.0,,,\n", d->spec, dtype, row->size, limit);
    else
      printf("  %-12s %10.2f %-10s %9s\n", "copy-limit", limit, "GB/s", "100.0%");
  }
  fflush(stdout);
}

/* Asks @p c for a round: its first @p count times into @p ms. -1 when the answer is not that. */
static int ln_ask_round(coproc *c, double *ms, int count) {
  char line[256];
  if (coproc_ask(c, "round", line, sizeof line) == NULL)
    return -1;
  int got = sscanf(line, "time %lf %lf %lf", &ms[0], &ms[1], &ms[2]);
  return got >= count && ms[0] > 0 ? 0 : -1;
}

/* Runs @p row on both sides, rounds alternating (each side first in turn). Returns 0 with *f
   filled (a side that cannot run leaves its figures empty, said on stderr), 1 when the child
   failed. *peer_on goes false when the peer fails. */
static int ln_run_row(coproc *child, coproc *py, bool *peer_on, const device_entry *d, const ln_row *row,
                      ln_figures *f) {
  char cmd[64], line[1024];
  double ms[3];
  *f = (ln_figures){INFINITY, INFINITY, INFINITY, INFINITY, 0};
  snprintf(cmd, sizeof cmd, "setup %s", row->name);
  if (coproc_ask(child, cmd, line, sizeof line) == NULL)
    return 1;
  if (strncmp(line, "skip ", 5) == 0) {
    fprintf(stderr, "anygpu-bench: %s on %s: %s\n", row->name, d->spec, line + 5);
    return 0;
  }
  bool peer = *peer_on;
  if (peer && (coproc_ask(py, cmd, line, sizeof line) == NULL || strncmp(line, "ready ", 6) != 0)) {
    fprintf(stderr, "anygpu-bench: %s on %s, the torch peer: %s\n", row->name, d->spec, line);
    peer = false;
    if (strncmp(line, "skip ", 5) != 0)
      *peer_on = false;
  }
  double spent = 0;
  while (f->rounds < LN_MAX_ROUNDS && (f->rounds < LN_MIN_ROUNDS || spent < LN_TIME_CAP_MS)) {
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == (f->rounds % 2 == 0)) {
        bool adam = row == &ln_rows[LN_ADAM];
        if (ln_ask_round(child, ms, adam ? 3 : 1) != 0)
          return 1;
        f->best = fmin(f->best, ms[0]), spent += ms[0];
        if (adam)
          f->copy = fmin(f->copy, ms[1]), f->bcopy = fmin(f->bcopy, ms[2]), spent += ms[1] + ms[2];
      } else if (peer) {
        if (ln_ask_round(py, ms, 1) != 0)
          peer = *peer_on = false;
        else
          f->peer_best = fmin(f->peer_best, ms[0]), spent += ms[0];
      }
    }
    f->rounds++;
  }
  if (coproc_ask(child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0)
    return 1;
  if (peer && (coproc_ask(py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
    *peer_on = false;
  return 0;
}

int learn_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--learn-child", (char *)d->spec, (char *)dtype_short(f32), NULL};
  char line[1024], platform[256], name[256], dtype[8], py_name[16] = "torch";
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      sscanf(line, "device %255[^\t]\t%255[^\t]\t%7s", platform, name, dtype) != 3) {
    fprintf(stderr, "anygpu-bench: the learning rows failed on %s (exit status %d)\n", d->spec, coproc_end(&child));
    return 1;
  }
  /* torch on the CPU whatever the device, in the child's dtype. */
  const char *args[3] = {strcmp(dtype, "f64") == 0 ? "float64" : "float32", NULL, NULL};
  bool py_on = peer_start_torch("peer_learn", args, &py, py_name, sizeof py_name) == 0;
  if (!csv) {
    tot->any_learn = true;
    printf("\n%s: %s (%s); learning, %s (the peer the same, on the CPU)\n", d->spec, d->name, d->type,
           strcmp(dtype, "f64") == 0 ? "float64" : "float32");
    printf("  %-12s %10s %-10s %9s %-6s %10s %8s %6s\n", "row", "value", "unit", "% of limit", "peer", "peer value",
           "ratio", "rounds");
  }
  int rc = 0;
  for (int r = 0; r < LN_COUNT && rc == 0; r++) {
    if (!(rows & (1u << r)))
      continue;
    ln_figures f;
    bool had_peer = py_on;
    rc = ln_run_row(&child, &py, &py_on, d, &ln_rows[r], &f);
    if (had_peer && !py_on)
      fprintf(stderr, "anygpu-bench: the torch peer failed in %s (exit status %d)\n", ln_rows[r].name,
              coproc_end(&py));
    ln_print(d, &ln_rows[r], dtype, csv, py_name, f);
  }
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the learning rows failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (py_on)
    coproc_end(&py);
  return rc;
}

void learn_footer(const totals *tot) {
  if (tot->any_learn)
    printf("\nadam: one step of torch.optim.Adam's rule (ag_optimizer_step, AG_OPTIM_ADAM_TORCH, lr %g, the\n"
           "  other options torch's defaults) over %zu parameters; GB/s counts %d arrays moved (read\n"
           "  x, g, m, v; write x, m, v; GB = 1e9 bytes) over the best time in at most %d rounds (at\n"
           "  least %d; fewer once %.0f s are spent), each timed with events on an idle queue; the first\n"
           "  step is checked against the host. %% of limit: of the device's copy bandwidth measured in the\n"
           "  same child and rounds, the better of ag_copy and ag_buffer_copy of %zu elements (2 arrays\n"
           "  moved).\n"
           "mlp-epoch: one epoch of %d samples (784 inputs uniform in [0, 1), 10 classes set by fixed\n"
           "  random projections) through Dense(784, 256, relu), Dense(256, 10), logit cross-entropy and\n"
           "  torch's Adam (lr 1e-3) on each of the 4 parameter arrays, in batches of %d from\n"
           "  ag_batch_stream (shuffled, the next batch copied while the device computes); samples/s over\n"
           "  the best epoch, wall clock from an idle queue to an idle queue. Two epochs go first, which\n"
           "  must bring the loss below 0.9 log(10).\n"
           "peer: torch (PyTorch) on the CPU whatever the device, in the same dtype: adam\n"
           "  torch.optim.Adam's step() on as many parameters, its default (single-tensor) path;\n"
           "  mlp-epoch nn.Linear, ReLU, nn.Linear, F.cross_entropy, backward() and Adam's step() on\n"
           "  batches gathered from a random permutation each epoch; timed with time.perf_counter, in\n"
           "  rounds that alternate with anygpu's.\n",
           ADAM_LR, ADAM_N, ADAM_ARRAYS, LN_MAX_ROUNDS, LN_MIN_ROUNDS, LN_TIME_CAP_MS * 1e-3, ADAM_N, MLP_SAMPLES,
           MLP_BATCH);
}
