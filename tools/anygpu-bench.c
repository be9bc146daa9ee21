/* tools/anygpu-bench.c — benchmarks: BabelStream's memory-bandwidth kernels, then GEMM and FFT
   rows, on each device, next to numpy (CPU devices) or CuPy (GPUs) doing the same arithmetic in
   the same run (clFFT for the FFT rows on OpenCL CPU devices), and the first kernel launch of a
   fresh process with an empty and a warm kernel cache. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <anygpu.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: anygpu-bench [--device SPEC] [--float] [--only KERNEL] [--csv]\n"
          "  --device SPEC  run on that device only (default: every device present)\n"
          "  --float        float32, and complex64 for the FFT rows (default float64, complex128)\n"
          "  --only KERNEL  run only: one of copy, mul, add, triad, dot, sum, sqrt (each also runs\n"
          "                 copy and buffer-copy, the device's bandwidth limit); gemm (the rows\n"
          "                 gemm-512, gemm-1024, gemm-2048, gemm-4096) or one of them; fft (the\n"
          "                 rows fft2d-512, fft2d-1024, fft2d-2048, fft1d-batched-256,\n"
          "                 fft1d-batched-4096) or one of them; or first-launch\n"
          "  --csv          comma-separated rows instead of a table\n"
          "Exit status: 0 on success, 1 when a measurement fails or a result is wrong, 2 on a\n"
          "bad option or kernel name.\n");
}

/* ---- co-processes ----------------------------------------------------------------------- */

/* A program run with its stdin and stdout on pipes to this process and its stderr on ours,
   spoken to a line at a time. */
typedef struct coproc {
  pid_t pid;
  FILE *to;   /* its stdin */
  FILE *from; /* its stdout */
} coproc;

/* Starts argv (argv[0] searched in PATH when @p search). A program that cannot be started
   exits 127 at once; coproc_end() tells. Returns -1 (errno set) when no process could be made. */
static int coproc_start(coproc *c, char *const argv[], bool search) {
  int in[2], out[2];
  memset(c, 0, sizeof *c);
  /* Close-on-exec, so that later children do not hold this one's pipes open. */
  if (pipe2(in, O_CLOEXEC) != 0)
    return -1;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return -1;
  }
  fflush(stdout); /* nothing buffered may reach the child's copy of stdout */
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    errno = e;
    return -1;
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
    signal(SIGPIPE, SIG_DFL); /* ignored here, and an ignored signal stays ignored across exec */
    if (search)
      execvp(argv[0], argv);
    else
      execv(argv[0], argv);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  c->pid = pid;
  c->to = fdopen(in[1], "w");
  c->from = fdopen(out[0], "r");
  if (c->to == NULL || c->from == NULL) {
    if (c->to == NULL)
      close(in[1]);
    if (c->from == NULL)
      close(out[0]);
    return -1; /* coproc_end() still reaps it */
  }
  return 0;
}

/* The next line it writes, without its newline; NULL at its end. */
static char *coproc_read(coproc *c, char *line, size_t size) {
  if (c->from == NULL || fgets(line, (int)size, c->from) == NULL)
    return NULL;
  line[strcspn(line, "\n")] = '\0';
  return line;
}

/* Sends one line; -1 when it has gone. */
static int coproc_send(coproc *c, const char *line) {
  if (c->to == NULL || fprintf(c->to, "%s\n", line) < 0 || fflush(c->to) != 0)
    return -1;
  return 0;
}

/* Sends @p cmd and reads the line it answers; NULL when it has gone. */
static char *coproc_ask(coproc *c, const char *cmd, char *line, size_t size) {
  return coproc_send(c, cmd) == 0 ? coproc_read(c, line, size) : NULL;
}

/* Closes its pipes and waits for it. Returns its exit status: 127 when it could not be
   started, -1 when a signal ended it. */
static int coproc_end(coproc *c) {
  if (c->to)
    fclose(c->to);
  if (c->from)
    fclose(c->from);
  c->to = c->from = NULL;
  if (c->pid <= 0)
    return -1;
  int status;
  while (waitpid(c->pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  c->pid = 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- first launch ----------------------------------------------------------------------- */

/* The child: one fresh process that opens the device, then times its first built-in kernel
   launch (ag_buffer_fill with an 8-byte pattern runs the "fill" kernels) until it has finished.
   Prints "init_ms launch_ms" on stdout. */
static int first_launch_child(const char *spec) {
  double t0 = now_ms();
  ag_device *dev;
  ag_buffer *buf;
  if (ag_device_select(spec, &dev) != AG_OK || ag_buffer_alloc(dev, 1 << 20, &buf) != AG_OK) {
    fprintf(stderr, "anygpu-bench: %s\n", ag_last_error());
    return 1;
  }
  double t1 = now_ms();
  double pattern = 1.5, back[4];
  if (ag_buffer_fill(NULL, buf, 0, &pattern, sizeof pattern, 1 << 20) != AG_OK ||
      ag_buffer_read(NULL, buf, 0, back, sizeof back) != AG_OK) {
    fprintf(stderr, "anygpu-bench: %s\n", ag_last_error());
    ag_buffer_free(buf);
    return 1;
  }
  double t2 = now_ms();
  ag_buffer_free(buf);
  if (back[0] != 1.5 || back[3] != 1.5) {
    fprintf(stderr, "anygpu-bench: first-launch: the fill kernel wrote %g, not 1.5\n", back[0]);
    return 1;
  }
  printf("%.3f %.3f\n", t1 - t0, t2 - t1);
  return 0;
}

/* Runs this program again as a child with the given cache folders, and reads its figures. */
static int run_child(const char *self, const char *spec, const char *cache, const char *pocl_cache,
                     double *init_ms, double *launch_ms) {
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    setenv("ANYGPU_CACHE_DIR", cache, 1);
    setenv("POCL_CACHE_DIR", pocl_cache, 1);
    execl(self, self, "--first-launch-child", spec, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  char line[128] = "";
  FILE *f = fdopen(fd[0], "r");
  if (f == NULL || fgets(line, sizeof line, f) == NULL)
    line[0] = '\0';
  if (f)
    fclose(f);
  else
    close(fd[0]);
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || sscanf(line, "%lf %lf", init_ms, launch_ms) != 2)
    return -1;
  return 0;
}

static int rm_rf(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd);
}

static int first_launch(const char *self, const char *spec, bool csv) {
  char cache[] = "/tmp/anygpu-bench-XXXXXX", pocl_cache[1100];
  if (mkdtemp(cache) == NULL) {
    perror("anygpu-bench: mkdtemp");
    return 1;
  }
  snprintf(pocl_cache, sizeof pocl_cache, "%s/pocl", cache);
  double cold_init = 0, cold = 1e30, warm_init = 0, warm = 1e30, ours = 1e30;
  int rc = 0;
  /* Cold: both caches empty, three times. Warm: the caches the last cold run left, three times;
     each keeps its best. */
  for (int i = 0; i < 3 && rc == 0; i++) {
    double a, b;
    rm_rf(cache);
    if (mkdir(cache, 0700) != 0 || run_child(self, spec, cache, pocl_cache, &a, &b) != 0)
      rc = 1;
    else if (b < cold)
      cold = b, cold_init = a;
  }
  for (int i = 0; i < 3 && rc == 0; i++) {
    double a, b;
    if (run_child(self, spec, cache, pocl_cache, &a, &b) != 0)
      rc = 1;
    else if (b < warm)
      warm = b, warm_init = a;
  }
  /* Our cache warm, the driver's own cache (pocl keeps one) empty: what anygpu's cache alone
     saves. */
  for (int i = 0; i < 3 && rc == 0; i++) {
    double a, b;
    rm_rf(pocl_cache);
    if (run_child(self, spec, cache, pocl_cache, &a, &b) != 0)
      rc = 1;
    else if (b < ours)
      ours = b;
  }
  rm_rf(cache);
  if (rc != 0) {
    fprintf(stderr, "anygpu-bench: first-launch on %s failed\n", spec);
    return 1;
  }
  if (csv) {
    printf("%s,first-launch-cold,f64,1048576,%.1f,ms,,,,\n", spec, cold);
    printf("%s,first-launch-warm,f64,1048576,%.1f,ms,,,,\n", spec, warm);
    printf("%s,first-launch-anygpu-cache-only,f64,1048576,%.1f,ms,,,,\n", spec, ours);
  } else {
    printf("%-12s first launch, empty cache %9.1f ms   (device open %.1f ms)\n", spec, cold, cold_init);
    printf("%-12s first launch, warm cache  %9.1f ms   (device open %.1f ms)   %.0fx faster\n", spec, warm,
           warm_init, cold / warm);
    printf("%-12s first launch, anygpu cache warm, driver cache empty %9.1f ms\n", spec, ours);
  }
  return 0;
}

/* ---- BabelStream kernels: the measurement (in a child process per device) ----------------- */

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
  K_TRIAD,
  K_DOT,
  K_SUM,
  K_SQRT,
  K_COUNT,
};

static const struct kernel_def {
  const char *name;
  int elements;    /* elements moved per index, as BabelStream counts them */
  bool selectable; /* a name for --only, with a peer */
} kernels[K_COUNT] = {
    [K_COPY] = {"copy", 2, true},   [K_BUFFER_COPY] = {"buffer-copy", 2, false},
    [K_MUL] = {"mul", 2, true},     [K_ADD] = {"add", 3, true},
    [K_TRIAD] = {"triad", 3, true}, [K_DOT] = {"dot", 2, true},
    [K_SUM] = {"sum", 1, true},     [K_SQRT] = {"sqrt", 2, true},
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
  void *host; /* n elements, for checking */
  double ea, eb, ec, edot, esum;
} stream;

static int fail(const char *what) {
  fprintf(stderr, "anygpu-bench: %s: %s\n", what, ag_last_error());
  return 1;
}

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
    s->ec = round_to(s->t, s->ea + s->eb);
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
  default: /* copy, buffer-copy, add, sqrt */
    return check_array(s, s->c, s->ec, name, true);
  }
}

/* Set once the device's driver turns out to give no command timestamps (ag_event_elapsed_ms
   refuses: docs/portability.md, no-profiling). */
static bool host_clock;

/* Times call(ctx, which) between two events on @p q into @p ms: device time; the second event
   is waited for, so the queue is idle when the next call starts. Where the driver gives no
   timestamps, host time from an idle queue to the end of ag_queue_finish after the call,
   which also counts the launch and the wake-up. */
static ag_status event_time(ag_queue *q, ag_status (*call)(void *, int), void *ctx, int which, double *ms) {
  if (host_clock) {
    ag_status st = ag_queue_finish(q);
    double t0 = now_ms();
    if (st == AG_OK)
      st = call(ctx, which);
    if (st == AG_OK)
      st = ag_queue_finish(q);
    *ms = now_ms() - t0;
    return st;
  }
  ag_event *e0 = NULL, *e1 = NULL;
  ag_status st = ag_event_record(q, &e0);
  if (st == AG_OK)
    st = call(ctx, which);
  if (st == AG_OK)
    st = ag_event_record(q, &e1);
  if (st == AG_OK)
    st = ag_event_elapsed_ms(e0, e1, ms);
  ag_event_destroy(e0);
  ag_event_destroy(e1);
  if (st == AG_ERR_UNSUPPORTED) {
    fprintf(stderr, "anygpu-bench: %s\nanygpu-bench: so this device is timed with the host clock\n", ag_last_error());
    host_clock = true;
    return event_time(q, call, ctx, which, ms);
  }
  return st;
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

/* The child of one device: sets up the kernels of @p mask on @p spec, runs the checked and the
   warm-up rounds, and prints "ready" (or "skip REASON" when the device cannot run the dtype).
   Then for each line "round" on stdin runs a timed round and prints "times MS..." (one time
   per kernel, in order); at "end" or the end of stdin, checks the arrays and prints "ok". Exits
   1, having said why on stderr, when a call fails or a result is wrong. */
static int stream_child(const char *spec, const char *dtype_name, unsigned mask) {
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
  if (rc == 0 && (s.host = malloc(s.n * ag_dtype_size(s.t))) == NULL) {
    fprintf(stderr, "anygpu-bench: out of host memory for checking the results\n");
    rc = 1;
  }
  if (rc == 0 && (ag_fill(s.q, s.a, INIT_A) != AG_OK || ag_fill(s.q, s.b, INIT_B) != AG_OK ||
                  ag_fill(s.q, s.c, INIT_C) != AG_OK))
    rc = fail("ag_fill");
  s.ea = round_to(s.t, INIT_A);
  s.eb = round_to(s.t, INIT_B);
  s.ec = round_to(s.t, INIT_C);
  /* The checked round: every kernel's output against the model, strictly. It is also the
     first warm-up (and on OpenCL builds the kernels). */
  for (int i = 0; i < count && rc == 0; i++) {
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
         ((mask & (1u << K_SUM)) && check_scalar(&s, s.sum, s.esum, "the last sum", false));
  if (rc == 0)
    printf("ok\n");
  free(s.host);
  ag_array_free(s.sum);
  ag_array_free(s.dot);
  ag_array_free(s.c);
  ag_array_free(s.b);
  ag_array_free(s.a);
  return rc;
}

/* ---- BLAS and FFT rows: the measurement (in a child process per device) ------------------ */

/* The rows in the order they run. gemm-N: C = A B on N x N matrices; fft2d-N: one N x N complex
   transform; fft1d-batched-N: FFT1D_ELEMENTS / N rows of N, each transformed on its own. */
enum { R_GEMM, R_FFT2D, R_FFT1D };
#define FFT1D_ELEMENTS ((size_t)1 << 22)

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

static const struct linalg_row {
  const char *name;
  int kind;
  size_t n;
  int max_rounds;
} linalg_rows[] = {
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
#define LINALG_COUNT ((int)(sizeof linalg_rows / sizeof linalg_rows[0]))
#define LINALG_ALL ((1u << LINALG_COUNT) - 1)

/* Rows of the array a row works on: N for gemm and fft2d, FFT1D_ELEMENTS / N for fft1d-batched. */
static size_t row_count(const struct linalg_row *row) {
  return row->kind == R_FFT1D ? FFT1D_ELEMENTS / row->n : row->n;
}

/* One row's arrays on the device's default queue. */
typedef struct linalg {
  const struct linalg_row *row;
  ag_dtype t; /* f32 or f64 (gemm), c64 or c128 (FFT) */
  ag_queue *q;
  ag_array *x, *y, *out; /* gemm: out = x y; FFT: out = the transform of x, y unused */
  void *host;            /* out's bytes, for filling the inputs and checking the result */
  char *fft_env;         /* ANYGPU_OPENCL_FFT as this process found it: anygpu's own choice */
} linalg;

/* gemm's operands: A(i, k) = gemm_value(i N + k), B(k, j) = gemm_value(N^2 + k N + j), each in
   {-1, -3/4, ..., 3/4} from the top bits of a multiplicative hash, so that no period hides a
   mistake in the layout. Every product is a multiple of 1/16 of magnitude at most 1, so every
   partial sum of up to 4096 of them is a multiple of 1/16 below 2^12: exact in float32, in any
   order, with FMA or without, and C is checked exactly. */
static double gemm_value(uint32_t x) { return (double)((int)((x * 2654435761u) >> 29) - 4) / 4.0; }

/* The FFT rows' input, element (r, c) of the rows x N array: exp(2 pi i m / N) with
   m = (3r + (N - 5)c) mod N for fft2d (one 2-D exponential, whose forward transform is N^2 at
   bin (3, N - 5)) and m = (k_r c) mod N, k_r = (7r + 3) mod N, for fft1d-batched (a frequency of
   its own in each row, whose transform is N at bin k_r of that row). Every other bin is 0. */
static size_t fft_phase(const struct linalg_row *row, size_t r, size_t c) {
  size_t n = row->n;
  return row->kind == R_FFT2D ? (3 * r + (n - 5) * c) % n : (7 * r + 3) % n * c % n;
}

static double fft_expected(const struct linalg_row *row, size_t r, size_t c) {
  size_t n = row->n;
  if (row->kind == R_FFT2D)
    return r == 3 && c == n - 5 ? (double)(n * n) : 0.0;
  return c == (7 * r + 3) % n ? (double)n : 0.0;
}

/* Stores @p v as element @p i of @p host, of dtype @p t (complex: the real part at 2i). */
static void store(ag_dtype t, void *host, size_t i, double v) {
  if (t == AG_F32 || t == AG_C64)
    ((float *)host)[i] = (float)v;
  else
    ((double *)host)[i] = v;
}

static double load(ag_dtype t, const void *host, size_t i) {
  return t == AG_F32 || t == AG_C64 ? (double)((const float *)host)[i] : ((const double *)host)[i];
}

/* malloc, or the end of this child when the host has no memory left. */
static void *host_alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "anygpu-bench: out of host memory\n");
    exit(1);
  }
  return p;
}

/* The gemm operand whose elements are gemm_value(first), gemm_value(first + 1), ... */
static ag_status gemm_operand(linalg *l, ag_device *dev, uint32_t first, ag_array **out) {
  size_t n = l->row->n, shape[2] = {n, n};
  for (size_t i = 0; i < n * n; i++)
    store(l->t, l->host, i, gemm_value(first + (uint32_t)i));
  return ag_array_from_host(dev, l->t, 2, shape, l->host, out);
}

static ag_status fft_input(linalg *l, ag_device *dev) {
  size_t n = l->row->n, rows = row_count(l->row), shape[2] = {rows, n};
  double *turn = host_alloc(2 * n * sizeof *turn); /* exp(2 pi i m / N) for every m */
  for (size_t m = 0; m < n; m++)
    turn[2 * m] = cos(2 * M_PI * (double)m / (double)n), turn[2 * m + 1] = sin(2 * M_PI * (double)m / (double)n);
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < n; c++) {
      size_t m = fft_phase(l->row, r, c), i = r * n + c;
      store(l->t, l->host, 2 * i, turn[2 * m]);
      store(l->t, l->host, 2 * i + 1, turn[2 * m + 1]);
    }
  free(turn);
  return ag_array_from_host(dev, l->t, 2, shape, l->host, &l->x);
}

static void linalg_release(linalg *l) {
  ag_array_free(l->x);
  ag_array_free(l->y);
  ag_array_free(l->out);
  free(l->host);
  l->x = l->y = l->out = NULL;
  l->host = NULL;
  l->row = NULL;
}

/* Allocates and fills the arrays of @p row. */
static ag_status linalg_alloc(linalg *l, ag_device *dev, const struct linalg_row *row, bool f32) {
  bool gemm = row->kind == R_GEMM;
  size_t shape[2] = {row_count(row), row->n};
  l->row = row;
  l->t = gemm ? (f32 ? AG_F32 : AG_F64) : (f32 ? AG_C64 : AG_C128);
  l->host = host_alloc(shape[0] * shape[1] * ag_dtype_size(l->t));
  ag_status st = gemm ? gemm_operand(l, dev, 0, &l->x) : fft_input(l, dev);
  if (st == AG_OK && gemm)
    st = gemm_operand(l, dev, (uint32_t)(row->n * row->n), &l->y);
  if (st == AG_OK)
    st = ag_array_create(dev, l->t, 2, shape, &l->out);
  return st;
}

/* Runs the row's call; with @p clfft (the peer of the FFT rows on OpenCL CPU devices) through
   clFFT. anygpu reads ANYGPU_OPENCL_FFT at every FFT call and keeps plans per provider, and
   this child has one thread, so setting the variable around the call is safe. */
static ag_status linalg_call(void *ctx, int clfft) {
  linalg *l = ctx;
  if (l->row->kind == R_GEMM)
    return ag_gemm(l->q, AG_NO_TRANS, AG_NO_TRANS, 1.0, l->x, l->y, 0.0, l->out);
  if (clfft)
    setenv("ANYGPU_OPENCL_FFT", "clfft", 1);
  ag_status st = ag_fft(l->q, l->x, l->row->kind == R_FFT2D ? 2 : 1, AG_FFT_BACKWARD, l->out);
  if (clfft && l->fft_env != NULL)
    setenv("ANYGPU_OPENCL_FFT", l->fft_env, 1);
  else if (clfft)
    unsetenv("ANYGPU_OPENCL_FFT");
  return st;
}

/* Checks 64 pseudo-random elements of C exactly against the host's sum for each. */
static int check_gemm(linalg *l, const char *when) {
  size_t n = l->row->n;
  uint32_t seed = (uint32_t)n;
  for (int s = 0; s < 64; s++) {
    /* xorshift32 */
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    size_t i = seed % n, j = (seed >> 16) % n;
    double want = 0;
    for (size_t k = 0; k < n; k++)
      want += gemm_value((uint32_t)(i * n + k)) * gemm_value((uint32_t)(n * n + k * n + j));
    double v = load(l->t, l->host, i * n + j);
    if (v != want) {
      fprintf(stderr, "anygpu-bench: %s (%s), %s: C(%zu, %zu) is %.17g, expected %.17g\n", l->row->name,
              ag_dtype_name(l->t), when, i, j, v, want);
      return 1;
    }
  }
  return 0;
}

/* Checks every bin. The forward transform's error is bounded normwise by about
   eps log2(n) ||X||_2 (n the transform's length), and ||X||_2 is the peak, n, here; rounding
   the input to the dtype adds at most eps n to a bin. 50 eps log2(n) n covers both with a wide
   margin and still catches a misplaced bin, frame or row, which is off by the peak. */
static int check_fft(linalg *l, const char *when) {
  size_t n = l->row->n, rows = row_count(l->row), len = l->row->kind == R_FFT2D ? n * n : n;
  double eps = l->t == AG_C64 ? FLT_EPSILON : DBL_EPSILON, tol = 50 * eps * log2((double)len) * (double)len;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < rows * n; i++) {
    double want = fft_expected(l->row, i / n, i % n);
    if (!(hypot(load(l->t, l->host, 2 * i) - want, load(l->t, l->host, 2 * i + 1)) <= tol) && bad++ == 0)
      first = i;
  }
  if (bad != 0) {
    fprintf(stderr,
            "anygpu-bench: %s (%s), %s: %zu of %zu bins are off by more than %.3g; bin (%zu, %zu) is "
            "%.17g%+.17gi, expected %g\n",
            l->row->name, ag_dtype_name(l->t), when, bad, rows * n, tol, first / n, first % n,
            load(l->t, l->host, 2 * first), load(l->t, l->host, 2 * first + 1),
            fft_expected(l->row, first / n, first % n));
    return 1;
  }
  return 0;
}

/* Reads the output back and checks it. */
static int linalg_check(linalg *l, const char *when) {
  if (ag_array_to_host(l->out, l->host, ag_array_nbytes(l->out)) != AG_OK)
    return fail(l->row->name);
  return l->row->kind == R_GEMM ? check_gemm(l, when) : check_fft(l, when);
}

/* "setup ROW" (anygpu) or "peer-setup ROW" (clFFT, on the arrays already set up): the checked
   call and the warm-up call, then "ready MS" with the wall-clock time of the first call until
   the queue had finished it (for an FFT its planning included); "skip REASON" when the device
   cannot run the row. */
static int linalg_setup(linalg *l, ag_device *dev, const char *name, bool f32, bool clfft) {
  const struct linalg_row *row = NULL;
  for (int r = 0; r < LINALG_COUNT; r++)
    if (strcmp(name, linalg_rows[r].name) == 0)
      row = &linalg_rows[r];
  if (row == NULL || (clfft ? l->row != row : l->row != NULL)) {
    fprintf(stderr, "anygpu-bench: unexpected %ssetup %s\n", clfft ? "peer-" : "", name);
    return 1;
  }
  ag_status st = clfft ? AG_OK : linalg_alloc(l, dev, row, f32);
  double t0 = now_ms();
  if (st == AG_OK)
    st = linalg_call(l, clfft);
  if (st == AG_OK)
    st = ag_queue_finish(l->q);
  double first = now_ms() - t0;
  if (st == AG_ERR_UNSUPPORTED) {
    printf("skip %s\n", ag_last_error());
    if (!clfft)
      linalg_release(l);
    return 0;
  }
  if (st != AG_OK)
    return fail(name);
  if (linalg_check(l, clfft ? "clFFT's first call" : "the first call") != 0)
    return 1;
  if (linalg_call(l, clfft) != AG_OK)
    return fail(name);
  printf("ready %.6f\n", first);
  return 0;
}

/* The child of one device for the BLAS and FFT rows. Prints "providers BLAS<tab>FFT" ("none"
   for a missing one), then answers one line for each command on stdin: "setup ROW" and
   "peer-setup ROW" (linalg_setup), "round" and "peer-round" ("time MS", one timed call of
   anygpu or of its clFFT peer), "free" (checks the output of the last call, frees the row's
   arrays and what the device keeps for them, "ok"). Exits 1, having said why on stderr, when
   a call fails or a result is wrong. */
static int linalg_child(const char *spec, const char *dtype_name) {
  linalg l = {0};
  ag_device *dev;
  if (ag_device_select(spec, &dev) != AG_OK || ag_queue_default(dev, &l.q) != AG_OK)
    return fail(spec);
  const char *blas = ag_blas_provider(dev), *fft = ag_fft_provider(dev), *env = getenv("ANYGPU_OPENCL_FFT");
  l.fft_env = env != NULL ? strdup(env) : NULL;
  printf("providers %s\t%s\n", blas ? blas : "none", fft ? fft : "none");
  fflush(stdout);
  bool f32 = strcmp(dtype_name, "f32") == 0;
  char cmd[64];
  int rc = 0;
  while (rc == 0 && fgets(cmd, sizeof cmd, stdin) != NULL) {
    cmd[strcspn(cmd, "\n")] = '\0';
    bool clfft = strncmp(cmd, "peer-", 5) == 0;
    const char *verb = cmd + (clfft ? 5 : 0);
    double ms;
    if (strncmp(verb, "setup ", 6) == 0) {
      rc = linalg_setup(&l, dev, verb + 6, f32, clfft);
    } else if (l.row == NULL) {
      fprintf(stderr, "anygpu-bench: \"%s\" with no row set up\n", cmd);
      rc = 1;
    } else if (strcmp(verb, "round") == 0) {
      if (event_time(l.q, linalg_call, &l, clfft, &ms) != AG_OK)
        rc = fail(l.row->name);
      else
        printf("time %.6f\n", ms);
    } else if (strcmp(cmd, "free") == 0) {
      rc = linalg_check(&l, "the last round");
      linalg_release(&l);
      if (rc == 0 && ag_device_trim(dev) != AG_OK)
        rc = fail("ag_device_trim");
      if (rc == 0)
        printf("ok\n");
    } else {
      fprintf(stderr, "anygpu-bench: unknown command \"%s\"\n", cmd);
      rc = 1;
    }
    fflush(stdout);
  }
  linalg_release(&l);
  free(l.fft_env);
  return rc;
}

/* ---- the peer: numpy or CuPy, in a Python subprocess ------------------------------------ */

/* What both Python peers begin with. argv[1]: cpu|gpu. Prints "unavailable REASON" and exits
   when the module (numpy or CuPy) does not import, else "peer NAME VERSION"; defines timed(f),
   f's time in ms. */
#define PEER_PRELUDE                                                                                \
  "import sys, time\n"                                                                              \
  "mode = sys.argv[1]\n"                                                                            \
  "try:\n"                                                                                          \
  "    if mode == 'gpu':\n"                                                                         \
  "        import cupy as xp\n"                                                                     \
  "    else:\n"                                                                                     \
  "        import numpy as xp\n"                                                                    \
  "except Exception as e:\n"                                                                        \
  "    print('unavailable', type(e).__name__ + ':', e, flush=True)\n"                               \
  "    sys.exit(0)\n"                                                                               \
  "print('peer', xp.__name__, xp.__version__, flush=True)\n"                                        \
  "if mode == 'gpu':\n"                                                                             \
  "    e0, e1 = xp.cuda.Event(), xp.cuda.Event()\n"                                                 \
  "    def timed(f):\n"                                                                             \
  "        e0.record(); f(); e1.record(); e1.synchronize()\n"                                       \
  "        return xp.cuda.get_elapsed_time(e0, e1)\n"                                               \
  "else:\n"                                                                                         \
  "    def timed(f):\n"                                                                             \
  "        t0 = time.perf_counter(); f(); return (time.perf_counter() - t0) * 1e3\n"

/* The BabelStream peer. argv: cpu|gpu N dtype kernels(comma-separated, in order). After the
   prelude it sets up, runs a checked round (loosely: a sanity check) and a warm-up round, and
   prints "ready". Then speaks the child's protocol: "round" runs a timed round and prints
   "times MS...", anything else ends with a check of the arrays and "ok". Exits 1 with a
   message when a check fails. */
static const char peer_script[] =
    PEER_PRELUDE
    "n, dt, names = int(sys.argv[2]), sys.argv[3], sys.argv[4].split(',')\n"
    "t = xp.dtype(dt).type\n"
    "s = t(0.4)\n"
    "a = xp.full(n, 0.1, dtype=dt)\n"
    "b = xp.full(n, 0.2, dtype=dt)\n"
    "c = xp.full(n, 0.0, dtype=dt)\n"
    "res = {}\n"
    "def copy(): xp.copyto(c, a)\n"
    "def mul(): xp.multiply(c, s, out=b)\n"
    "def add(): xp.add(a, b, out=c)\n"
    "def triad(): a[:] = b + s * c\n"
    "def dot(): res['dot'] = xp.dot(a, b)\n"
    "def sum_(): res['sum'] = a.sum()\n"
    "def sqrt(): xp.sqrt(a, out=c)\n"
    "run = {'copy': copy, 'mul': mul, 'add': add, 'triad': triad, 'dot': dot, 'sum': sum_,\n"
    "       'sqrt': sqrt}\n"
    "r = lambda x: float(t(x))\n"
    "m = {'a': r(0.1), 'b': r(0.2), 'c': 0.0}\n"
    "def model(name):\n"
    "    if name == 'copy': m['c'] = m['a']\n"
    "    elif name == 'mul': m['b'] = r(r(s) * m['c'])\n"
    "    elif name == 'add': m['c'] = r(m['a'] + m['b'])\n"
    "    elif name == 'triad': m['a'] = r(m['b'] + r(r(s) * m['c']))\n"
    "    elif name == 'dot': m['dot'] = n * m['a'] * m['b']\n"
    "    elif name == 'sum': m['sum'] = n * m['a']\n"
    "    else: m['c'] = r(m['a'] ** 0.5)\n"
    "# BLAS sdot, behind numpy's float32 dot, sums in float32: 0.5% off for N = 2^25.\n"
    "rtol = 5e-2 if dt == 'float32' else 1e-8\n"
    "def check(when, tol):\n"
    "    got = {'a': a, 'b': b, 'c': c}\n"
    "    for k, want in m.items():\n"
    "        vals = [float(res[k])] if k in res else [float(got[k][0]), float(got[k][n - 1])]\n"
    "        bound = rtol if k in res else tol\n"
    "        if any(not abs(v - want) <= bound * abs(want) for v in vals):\n"
    "            print('anygpu-bench: the %s peer, %s: %s is %r, expected %r' %\n"
    "                  (xp.__name__, when, k, vals, want), file=sys.stderr)\n"
    "            sys.exit(1)\n"
    "for name in names:\n"
    "    run[name](); model(name)\n"
    "check('first round', 1e-5)\n"
    "for name in names:\n"
    "    run[name](); model(name)\n"
    "print('ready', flush=True)\n"
    "rounds = 0\n"
    "while sys.stdin.readline() == 'round\\n':\n"
    "    ms = []\n"
    "    for name in names:\n"
    "        ms.append(timed(run[name])); model(name)\n"
    "    rounds += 1\n"
    "    print('times', ' '.join('%.6f' % x for x in ms), flush=True)\n"
    "check('after %d rounds' % rounds, 1e-3)\n"
    "print('ok', flush=True)\n";

/* The peer of the BLAS and FFT rows. argv: cpu|gpu dtype(float32|float64) FFT1D_ELEMENTS. After
   the prelude it prints "ready", then answers one line for each command: "setup ROW" builds the
   row's inputs as the child does, runs a checked call and a warm-up call, "ready MS" with the
   wall-clock time of the first call (synchronized, on a GPU); "round" runs
   a timed call, "time MS"; "free" checks the last call's result and drops the arrays, "ok".
   Exits 1 with a message when a check fails. numpy.fft has no out=, so each FFT call allocates
   its result (numpy 1.x computes in complex128 whatever the input). */
static const char linalg_peer_script[] =
    PEER_PRELUDE
    "import math, random\n"
    "sync = xp.cuda.Device().synchronize if mode == 'gpu' else (lambda: None)\n"
    "real = xp.dtype(sys.argv[2])\n"
    "cplx = xp.dtype('complex64' if real == xp.float32 else 'complex128')\n"
    "eps, batched = float(xp.finfo(real).eps), int(sys.argv[3])\n"
    "def fail(when, what):\n"
    "    print('anygpu-bench: the %s peer, %s, %s: %s' % (xp.__name__, name, when, what), file=sys.stderr)\n"
    "    sys.exit(1)\n"
    "def gemm(n):\n"
    "    def operand(first):\n"
    "        h = xp.arange(first, first + n * n, dtype=xp.uint32) * xp.uint32(2654435761)\n"
    "        return ((h >> 29).astype(real) - 4).reshape(n, n) / 4\n"
    "    a, b, c = operand(0), operand(n * n), xp.empty((n, n), dtype=real)\n"
    "    def run(): xp.matmul(a, b, out=c)\n"
    "    def check(when):\n"
    "        rng = random.Random(n)\n"
    "        for _ in range(64):\n"
    "            i, j = rng.randrange(n), rng.randrange(n)\n"
    "            want = float(a[i].astype(xp.float64) @ b[:, j].astype(xp.float64))\n"
    "            if float(c[i, j]) != want:\n"
    "                fail(when, 'C(%d, %d) is %r, expected %r' % (i, j, float(c[i, j]), want))\n"
    "    return run, check\n"
    "def fft(n, two_d):\n"
    "    rows = n if two_d else batched // n\n"
    "    r, col = xp.arange(rows).reshape(rows, 1), xp.arange(n).reshape(1, n)\n"
    "    m = (3 * r + (n - 5) * col) % n if two_d else (7 * r + 3) % n * col % n\n"
    "    x = xp.exp(2j * math.pi / n * m).astype(cplx)\n"
    "    peak = n * n if two_d else n\n"
    "    want = xp.zeros((rows, n))\n"
    "    if two_d:\n"
    "        want[3, n - 5] = peak\n"
    "    else:\n"
    "        want[r[:, 0], (7 * r[:, 0] + 3) % n] = peak\n"
    "    tol = 50 * eps * math.log2(peak) * peak\n"
    "    f = (lambda: xp.fft.fft2(x)) if two_d else (lambda: xp.fft.fft(x, axis=-1))\n"
    "    out = {}\n"
    "    def run(): out['X'] = f()\n"
    "    def check(when):\n"
    "        err = float(abs(out['X'] - want).max())\n"
    "        if not err <= tol:\n"
    "            fail(when, 'a bin is off by %g, more than %g' % (err, tol))\n"
    "    return run, check\n"
    "print('ready', flush=True)\n"
    "for line in sys.stdin:\n"
    "    cmd = line.split()\n"
    "    if cmd[0] == 'setup':\n"
    "        name = cmd[1]\n"
    "        kind, n = name.rsplit('-', 1)\n"
    "        run, check = gemm(int(n)) if kind == 'gemm' else fft(int(n), kind == 'fft2d')\n"
    "        t0 = time.perf_counter(); run(); sync(); first = (time.perf_counter() - t0) * 1e3\n"
    "        check('first call'); run()\n"
    "        print('ready %.6f' % first, flush=True)\n"
    "    elif cmd[0] == 'round':\n"
    "        print('time %.6f' % timed(run), flush=True)\n"
    "    else:\n"
    "        check('last round')\n"
    "        run = check = None\n"
    "        if mode == 'gpu':\n"
    "            xp.get_default_memory_pool().free_all_blocks()\n"
    "        print('ok', flush=True)\n";

/* Appends "; python: what" to @p why. */
static void add_reason(char *why, size_t size, const char *python, const char *what) {
  size_t used = strlen(why);
  snprintf(why + used, size - used, "%s%s: %s", used ? "; " : "", python, what);
}

/* Starts peer @p script (with "cpu" or "gpu" and @p args, at most three, after it) on the CPU
   (numpy) or the GPU (CuPy), with Debian's /usr/bin/python3 (which has python3-numpy) and else
   the python3 on PATH, and waits for its "ready". Returns 0 with *c running; else -1: with
   @p name set when the module imported but the peer failed (its rows show "-"), or empty when
   no interpreter has the module, having said why once per module on stderr (numpy's rows then
   show "-", CuPy's stay empty, so @p name is still set for numpy). */
static int peer_start(bool gpu, const char *script, const char *const args[3], coproc *c, char *name,
                      size_t name_size) {
  static bool told[2];
  const char *module = gpu ? "cupy" : "numpy";
  static const struct {
    const char *python;
    bool search;
  } pythons[] = {{"/usr/bin/python3", false}, {"python3", true}};
  char why[1024] = "", line[256];
  name[0] = '\0';
  for (size_t i = 0; i < sizeof pythons / sizeof pythons[0]; i++) {
    char *argv[] = {(char *)pythons[i].python, (char *)"-c", (char *)script, (char *)(gpu ? "gpu" : "cpu"),
                    (char *)args[0], (char *)args[1], (char *)args[2], NULL};
    if (coproc_start(c, argv, pythons[i].search) != 0) {
      add_reason(why, sizeof why, pythons[i].python, strerror(errno));
      coproc_end(c);
      continue;
    }
    if (coproc_read(c, line, sizeof line) == NULL) {
      int code = coproc_end(c);
      add_reason(why, sizeof why, pythons[i].python, code == 127 ? "not found" : "failed before importing");
      continue;
    }
    if (strncmp(line, "unavailable ", 12) == 0) {
      add_reason(why, sizeof why, pythons[i].python, line + 12);
      coproc_end(c);
      continue;
    }
    /* The module imported: this peer's figures, or its failure, are the answer. */
    snprintf(name, name_size, "%s", module);
    if (strncmp(line, "peer ", 5) == 0 && coproc_read(c, line, sizeof line) != NULL && strcmp(line, "ready") == 0)
      return 0;
    fprintf(stderr, "anygpu-bench: the %s peer (%s) failed before its first round (exit status %d); its rows show \"-\"\n",
            module, pythons[i].python, coproc_end(c));
    return -1;
  }
  if (!gpu)
    snprintf(name, name_size, "%s", module);
  if (!told[gpu]) {
    told[gpu] = true;
    fprintf(stderr, "anygpu-bench: no %s peer, so its columns show %s (%s)\n", module, gpu ? "nothing" : "\"-\"",
            why);
  }
  return -1;
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

/* The parent never calls into the library (see list_devices), so it names dtypes itself. */
static const char *dtype_short(bool f32) { return f32 ? "f32" : "f64"; }

/* ---- BabelStream kernels: the parent's side ---------------------------------------------- */

/* A device as the listing child describes it. */
typedef struct device_entry {
  char spec[32];
  char backend[16]; /* "host", "cuda", "opencl" */
  char type[16];    /* "CPU", "GPU", "accelerator" */
  char name[256];
  size_t memory;
} device_entry;

typedef struct totals {
  bool any_stream;   /* a BabelStream table was printed */
  bool fewer_rounds; /* some device ran fewer than MAX_ROUNDS rounds */
  bool peer[2];      /* numpy, CuPy figures were printed */
  bool any_linalg;   /* a BLAS and FFT table was printed */
} totals;

/* Measures the kernels of @p mask on one device: starts its child, then the peer, alternates
   their rounds, and prints the rows. */
static int stream_device(const char *self, const device_entry *d, bool f32, unsigned mask, bool csv,
                         totals *tot) {
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
    peer_on = peer_start(gpu, peer_script, args, &peer, peer_name, sizeof peer_name) == 0;
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
    printf("\n  %-12s %9s %11s %12s %8s\n", "kernel", "GB/s", "% of limit", peer_head, "ratio");
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
    printf("  %-12s %9.1f %10.1f%% %12s %8s\n", kernels[k].name, gbs[k], 100.0 * gbs[k] / limit, pv, ratio);
  }
  return 0;
}

/* ---- BLAS and FFT rows: the parent's side ----------------------------------------------- */

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
  char full[64];
  snprintf(full, sizeof full, "%s%s", s->prefix, cmd);
  return coproc_ask(s->c, full, line, size);
}

/* One timed call into *ms; -1 when the side failed. */
static int side_time(const side *s, char *line, size_t size, double *ms) {
  return side_ask(s, "round", line, size) != NULL && sscanf(line, "time %lf", ms) == 1 && *ms > 0 ? 0 : -1;
}

/* Measures the rows of @p rows on one device, printing each as it completes: starts its child,
   and the Python peer when a row needs it. */
static int linalg_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv,
                         totals *tot) {
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
        py_on = peer_start(gpu, linalg_peer_script, args, &py, py_name, sizeof py_name) == 0;
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

static void print_footer(const totals *tot) {
  if (tot->any_stream)
    printf("\nGB/s: bytes moved as BabelStream counts them (copy, buffer-copy, mul, dot, sqrt 2N elements;\n"
           "  add, triad 3N; sum N; GB = 1e9 bytes) over the kernel's best time in %d rounds, each\n"
           "  running every kernel once in the order shown, each timed on the device with\n"
           "  ag_event_record/ag_event_elapsed_ms (with the host clock around ag_queue_finish where\n"
           "  the driver gives no timestamps, as stderr then says); one checked round and %d warm-up\n"
           "  round go first.\n"
           "  copy ag_copy (c = a); buffer-copy ag_buffer_copy of the same bytes; mul ag_mul_scalar\n"
           "  (b = s*c); add ag_add (c = a + b); triad ag_axpby (a = b + s*c, one pass); dot ag_dot;\n"
           "  sum ag_sum; sqrt ag_sqrt (c = sqrt(a)). Each kernel's output is checked in the first\n"
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
           "  sum a.sum(), sqrt np.sqrt(a, out=c). \"-\" where the peer has no figure.\n");
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
  if (tot->peer[0] || tot->peer[1] || tot->any_linalg)
    printf("ratio: anygpu's figure / the peer's; above 1 anygpu is faster.\n");
  if (tot->fewer_rounds)
    printf("A device that shows fewer rounds stopped after %.0f s of measured time.\n", TIME_CAP_MS * 1e-3);
}

/* ---- devices and main ------------------------------------------------------------------- */

/* Lists the devices (or the one @p spec names) in a child process: OpenCL drivers do not
   survive fork after they start, and this process forks for every measurement, so it never
   opens a device itself. Returns the number of devices, or -1 (the child said why); *exit_code
   is 2 for a malformed spec. */
static int list_devices(const char *spec, device_entry **out, int *exit_code) {
  *out = NULL;
  *exit_code = 1;
  int fd[2];
  if (pipe(fd) != 0) {
    perror("anygpu-bench: pipe");
    return -1;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("anygpu-bench: fork");
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    FILE *f = fdopen(fd[1], "w");
    int count = 0, code = 0;
    ag_status st = AG_OK;
    ag_device *one = NULL;
    if (spec != NULL)
      st = ag_device_select(spec, &one);
    else
      st = ag_device_count(&count);
    if (st != AG_OK) {
      fprintf(stderr, "anygpu-bench: %s\n", ag_last_error());
      _exit(st == AG_ERR_INVALID_ARGUMENT ? 2 : 1);
    }
    for (int i = 0; i < (one ? 1 : count) && f != NULL; i++) {
      ag_device *d = one;
      ag_device_info info;
      if ((one == NULL && ag_device_get(i, &d) != AG_OK) || ag_device_get_info(d, &info) != AG_OK) {
        fprintf(stderr, "anygpu-bench: %s\n", ag_last_error());
        code = 1;
        break;
      }
      const char *type = info.type == AG_DEVICE_CPU ? "CPU" : info.type == AG_DEVICE_GPU ? "GPU" : "accelerator";
      for (char *c = info.name; *c; c++)
        if (*c == '\t' || *c == '\n')
          *c = ' ';
      fprintf(f, "%s\t%s\t%s\t%zu\t%s\n", info.spec, info.backend, type, info.global_memory, info.name);
    }
    if (f)
      fclose(f);
    _exit(code);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  int n = 0, cap = 0;
  device_entry *list = NULL;
  char line[512];
  while (in && fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    device_entry e = {0};
    unsigned long long mem = 0;
    if (sscanf(line, "%31[^\t]\t%15[^\t]\t%15[^\t]\t%llu\t%255[^\n]", e.spec, e.backend, e.type, &mem, e.name) < 4)
      continue;
    e.memory = (size_t)mem;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      device_entry *bigger = realloc(list, (size_t)cap * sizeof *list);
      if (bigger == NULL)
        break;
      list = bigger;
    }
    list[n++] = e;
  }
  if (in)
    fclose(in);
  else
    close(fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0) {
    *exit_code = WIFEXITED(status) && WEXITSTATUS(status) == 2 ? 2 : 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      fprintf(stderr, "anygpu-bench: no device listed\n");
    free(list);
    return -1;
  }
  *out = list;
  return n;
}

int main(int argc, char **argv) {
  const char *spec = NULL, *only = NULL;
  bool csv = false, f32 = false;
  /* The children this program runs of itself. */
  if (argc == 3 && strcmp(argv[1], "--first-launch-child") == 0)
    return first_launch_child(argv[2]);
  if (argc == 5 && strcmp(argv[1], "--stream-child") == 0)
    return stream_child(argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10) & ALL_MASK);
  if (argc == 4 && strcmp(argv[1], "--linalg-child") == 0)
    return linalg_child(argv[2], argv[3]);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      spec = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--float") == 0)
      f32 = true;
    else if (strcmp(argv[i], "--csv") == 0)
      csv = true;
    else if (strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "anygpu-bench: unknown option \"%s\"%s\n", argv[i],
              (strcmp(argv[i], "--device") == 0 || strcmp(argv[i], "--only") == 0) ? " without its value" : "");
      usage(stderr);
      return 2;
    }
  }
  bool launch_rows = only == NULL || strcmp(only, "first-launch") == 0;
  unsigned mask = only == NULL ? ALL_MASK : 0;
  for (int k = 0; k < K_COUNT && only != NULL; k++)
    if (kernels[k].selectable && strcmp(only, kernels[k].name) == 0)
      mask = ALWAYS_MASK | (1u << k);
  /* "gemm" and "fft" name a kind of row, "gemm-1024" one row. */
  unsigned rows = only == NULL ? LINALG_ALL : 0;
  for (int r = 0; r < LINALG_COUNT && only != NULL; r++)
    if (strcmp(only, linalg_rows[r].name) == 0 || strcmp(only, linalg_rows[r].kind == R_GEMM ? "gemm" : "fft") == 0)
      rows |= 1u << r;
  if (only != NULL && mask == 0 && rows == 0 && !launch_rows) {
    fprintf(stderr,
            "anygpu-bench: unknown kernel \"%s\" (copy, mul, add, triad, dot, sum, sqrt; gemm or gemm-N for N = "
            "512, 1024, 2048, 4096; fft, fft2d-N for N = 512, 1024, 2048 or fft1d-batched-N for N = 256, 4096; "
            "or first-launch)\n",
            only);
    return 2;
  }
  /* /proc/self/exe, so the children run this same program whatever the working folder. */
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    perror("anygpu-bench: readlink /proc/self/exe");
    return 1;
  }
  self[n] = '\0';
  /* A child that dies mid-conversation must give an error, not end this process. */
  signal(SIGPIPE, SIG_IGN);

  device_entry *devs = NULL;
  int code = 1;
  int ndev = list_devices(spec, &devs, &code);
  if (ndev < 0)
    return code;
  if (csv)
    printf("device,kernel,dtype,size,value,unit,pct_of_limit,peer,peer_value,ratio\n");
  int rc = 0;
  totals tot = {0};
  for (int i = 0; i < ndev; i++) {
    if (mask != 0)
      rc |= stream_device(self, &devs[i], f32, mask, csv, &tot);
    if (rows != 0)
      rc |= linalg_device(self, &devs[i], f32, rows, csv, &tot);
    /* The host compiles nothing, so its first launch is measured only when asked for by name. */
    if (launch_rows && (spec != NULL || strcmp(devs[i].spec, "host") != 0)) {
      if (!csv && (mask != 0 || rows != 0))
        printf("\n");
      rc |= first_launch(self, spec != NULL ? spec : devs[i].spec, csv);
    }
  }
  if (!csv)
    print_footer(&tot);
  free(devs);
  return rc;
}
