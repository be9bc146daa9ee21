/* tools/bench/linalg_child.c — the BLAS and FFT rows' measurement, in a child process per
   device: the operands, anygpu's call (or clFFT's, the peer on OpenCL CPU devices), the checks. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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
int linalg_child(const char *spec, const char *dtype_name) {
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
        rc = fail("trimming the pool");
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
