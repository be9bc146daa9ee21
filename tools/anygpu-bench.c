/* tools/anygpu-bench.c — benchmarks: BabelStream's memory-bandwidth kernels on each device,
   next to numpy (CPU devices) or CuPy (GPUs) doing the same arithmetic in the same run, and the
   first kernel launch of a fresh process with an empty and a warm kernel cache. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
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
          "  --float        BabelStream kernels in float32 (default float64)\n"
          "  --only KERNEL  run one row: copy, mul, add, triad, dot, sum, sqrt (each also runs\n"
          "                 copy and buffer-copy, the device's bandwidth limit), or first-launch\n"
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

static ag_status launch(stream *s, int k) {
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

/* Runs one round of the kernels in @p order, timing each between two events on the queue
   (device time; the second event is waited for, so the queue is idle when the next kernel
   starts) into @p ms, or untimed when @p ms is NULL. */
static int run_round(stream *s, const int *order, int count, double *ms) {
  for (int i = 0; i < count; i++) {
    int k = order[i];
    if (ms == NULL) {
      if (launch(s, k) != AG_OK)
        return fail(kernels[k].name);
      model(s, k);
      continue;
    }
    ag_event *e0 = NULL, *e1 = NULL;
    ag_status st = ag_event_record(s->q, &e0);
    if (st == AG_OK)
      st = launch(s, k);
    if (st == AG_OK)
      st = ag_event_record(s->q, &e1);
    if (st == AG_OK)
      st = ag_event_elapsed_ms(e0, e1, &ms[k]);
    if (st != AG_OK)
      fail(kernels[k].name);
    ag_event_destroy(e0);
    ag_event_destroy(e1);
    if (st != AG_OK)
      return 1;
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

/* ---- the peer: numpy or CuPy, in a Python subprocess ------------------------------------ */

/* argv: N dtype kernels(comma-separated, in order) cpu|gpu. Prints "unavailable REASON" and
   exits when the module does not import; else "peer NAME VERSION", sets up, runs a checked
   round (loosely: a sanity check) and a warm-up round, and prints "ready". Then speaks the
   child's protocol: "round" runs a timed round and prints "times MS...", anything else ends
   with a check of the arrays and "ok". Exits 1 with a message when a check fails. */
static const char peer_script[] =
    "import sys, time\n"
    "n, dt, names, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(','), sys.argv[4]\n"
    "try:\n"
    "    if mode == 'gpu':\n"
    "        import cupy as xp\n"
    "    else:\n"
    "        import numpy as xp\n"
    "except Exception as e:\n"
    "    print('unavailable', type(e).__name__ + ':', e, flush=True)\n"
    "    sys.exit(0)\n"
    "print('peer', xp.__name__, xp.__version__, flush=True)\n"
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
    "if mode == 'gpu':\n"
    "    e0, e1 = xp.cuda.Event(), xp.cuda.Event()\n"
    "    def timed(f):\n"
    "        e0.record(); f(); e1.record(); e1.synchronize()\n"
    "        return xp.cuda.get_elapsed_time(e0, e1)\n"
    "else:\n"
    "    def timed(f):\n"
    "        t0 = time.perf_counter(); f(); return (time.perf_counter() - t0) * 1e3\n"
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

/* Appends "; python: what" to @p why. */
static void add_reason(char *why, size_t size, const char *python, const char *what) {
  size_t used = strlen(why);
  snprintf(why + used, size - used, "%s%s: %s", used ? "; " : "", python, what);
}

/* Starts the peer for the kernels named in @p names on the CPU (numpy) or the GPU (CuPy), with
   Debian's /usr/bin/python3 (which has python3-numpy) and else the python3 on PATH, and waits
   for its "ready". Returns 0 with *c running; else -1: with @p name set when the module
   imported but the peer failed (its rows show "-"), or empty when no interpreter has the
   module, having said why once per module on stderr (numpy's rows then show "-", CuPy's stay
   empty, so @p name is still set for numpy). */
static int peer_start(bool gpu, bool f32, const char *names, coproc *c, char *name, size_t name_size) {
  static bool told[2];
  const char *module = gpu ? "cupy" : "numpy";
  char n_arg[32];
  snprintf(n_arg, sizeof n_arg, "%zu", STREAM_N);
  static const struct {
    const char *python;
    bool search;
  } pythons[] = {{"/usr/bin/python3", false}, {"python3", true}};
  char why[1024] = "", line[256];
  name[0] = '\0';
  for (size_t i = 0; i < sizeof pythons / sizeof pythons[0]; i++) {
    char *argv[] = {(char *)pythons[i].python, (char *)"-c", (char *)peer_script, n_arg,
                    (char *)(f32 ? "float32" : "float64"), (char *)names, (char *)(gpu ? "gpu" : "cpu"), NULL};
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
  char type[16]; /* "CPU", "GPU", "accelerator" */
  char name[256];
  size_t memory;
} device_entry;

typedef struct totals {
  bool any_stream;   /* a BabelStream table was printed */
  bool fewer_rounds; /* some device ran fewer than MAX_ROUNDS rounds */
  bool peer[2];      /* numpy, CuPy figures were printed */
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
  if (gpu || strcmp(d->type, "CPU") == 0)
    peer_on = peer_start(gpu, f32, names, &peer, peer_name, sizeof peer_name) == 0;

  double best[K_COUNT], peer_best[K_COUNT], ms[K_COUNT], spent = 0;
  for (int k = 0; k < K_COUNT; k++)
    best[k] = peer_best[k] = INFINITY;
  int rounds = 0, rc = 0;
  while (rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || spent < TIME_CAP_MS)) {
    if (coproc_send(&child, "round") != 0 || coproc_read(&child, line, sizeof line) == NULL ||
        parse_times(line, order, count, ms) != 0) {
      rc = 1;
      break;
    }
    for (int i = 0; i < count; i++)
      best[order[i]] = fmin(best[order[i]], ms[order[i]]), spent += ms[order[i]];
    if (peer_on) {
      if (coproc_send(&peer, "round") != 0 || coproc_read(&peer, line, sizeof line) == NULL ||
          parse_times(line, peer_order, peer_count, ms) != 0) {
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
  if (rc == 0 && (coproc_send(&child, "end") != 0 || coproc_read(&child, line, sizeof line) == NULL ||
                  strcmp(line, "ok") != 0))
    rc = 1;
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the BabelStream kernels failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  }
  if (peer_on) {
    if (coproc_send(&peer, "end") != 0 || coproc_read(&peer, line, sizeof line) == NULL || strcmp(line, "ok") != 0) {
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

static void print_footer(const totals *tot) {
  if (!tot->any_stream)
    return;
  printf("\nGB/s: bytes moved as BabelStream counts them (copy, buffer-copy, mul, dot, sqrt 2N elements;\n"
         "  add, triad 3N; sum N; GB = 1e9 bytes) over the kernel's best time in %d rounds, each\n"
         "  running every kernel once in the order shown, each timed on the device with\n"
         "  ag_event_record/ag_event_elapsed_ms; one checked round and %d warm-up round go first.\n"
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
           "  sum a.sum(), sqrt np.sqrt(a, out=c). \"-\" where the peer has no figure.\n"
           "ratio: anygpu GB/s / peer GB/s; above 1 anygpu is faster.\n");
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
      fprintf(f, "%s\t%s\t%zu\t%s\n", info.spec, type, info.global_memory, info.name);
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
    if (sscanf(line, "%31[^\t]\t%15[^\t]\t%llu\t%255[^\n]", e.spec, e.type, &mem, e.name) < 3)
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
  if (only != NULL && mask == 0 && !launch_rows) {
    fprintf(stderr,
            "anygpu-bench: unknown kernel \"%s\" (copy, mul, add, triad, dot, sum, sqrt or "
            "first-launch)\n",
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
    /* The host compiles nothing, so its first launch is measured only when asked for by name. */
    if (launch_rows && (spec != NULL || strcmp(devs[i].spec, "host") != 0)) {
      if (!csv && mask != 0)
        printf("\n");
      rc |= first_launch(self, spec != NULL ? spec : devs[i].spec, csv);
    }
  }
  if (!csv)
    print_footer(&tot);
  free(devs);
  return rc;
}
