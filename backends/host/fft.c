/* backends/host/fft.c - the host's FFT: FFTW 3, in single and double precision, with its
   threads. An anygpu plan holds up to four FFTW plans, made on first use: one per direction,
   for arrays on FFTW's preferred alignment and (rarely, for views) for any alignment. */
#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../backend.h"
#include "host_internal.h"

struct ag__bfft {
  ag__fft_desc d;
  void *plans[2][2]; /* [inverse][unaligned]: fftw_plan or fftwf_plan */
};

/* FFTW's planner is not thread-safe; the threads library and a thread-safe planner are set
   up once. */
static pthread_once_t fftw_once = PTHREAD_ONCE_INIT;
static void fftw_setup(void) {
  fftw_init_threads();
  fftwf_init_threads();
  fftw_make_planner_thread_safe();
  /* Measuring finds plans about twice as fast as estimating; a time limit bounds the cost of
     planning awkward lengths. Plans are made once per process and shape, then cached. */
  fftw_set_timelimit(10.0);
  fftwf_set_timelimit(10.0);
}

static size_t count_real(const ag__fft_desc *d) {
  size_t n = 1;
  for (int i = 0; i < d->rank; i++)
    n *= d->n[i];
  return n;
}

static size_t count_complex(const ag__fft_desc *d) {
  size_t n = 1;
  for (int i = 0; i + 1 < d->rank; i++)
    n *= d->n[i];
  return n * (d->n[d->rank - 1] / 2 + 1);
}

static ag_status host_fft_plan(ag__bdevice *dev, const ag__fft_desc *d, ag__bfft **out) {
  (void)dev;
  pthread_once(&fftw_once, fftw_setup);
  size_t total = (d->kind == AG__FFT_C2C ? count_real(d) : count_complex(d)) * d->batch;
  if (total > (size_t)INT_MAX)
    return ag__host_core()->error(AG_ERR_UNSUPPORTED, "fftw_plan_many_dft: %zu elements exceed FFTW's int limit",
                                  total);
  ag__bfft *p = calloc(1, sizeof *p);
  if (p == NULL)
    return ag__host_core()->error(AG_ERR_OUT_OF_MEMORY, "out of host memory for an FFT plan");
  p->d = *d;
  *out = p;
  return AG_OK;
}

/* Makes one FFTW plan for the direction and alignment asked, on scratch arrays (measuring
   writes to them). */
static void *make_plan(const ag__fft_desc *d, bool inverse, bool unaligned) {
  int n[3];
  for (int i = 0; i < d->rank; i++)
    n[i] = (int)d->n[i];
  int howmany = (int)d->batch, nr = (int)count_real(d), nc = (int)count_complex(d);
  size_t in_elems, out_elems, esize = d->f64 ? sizeof(double) : sizeof(float);
  switch (d->kind) {
  case AG__FFT_C2C:
    in_elems = out_elems = 2 * (size_t)nr * (size_t)howmany;
    break;
  case AG__FFT_R2C:
    in_elems = (size_t)nr * (size_t)howmany;
    out_elems = 2 * (size_t)nc * (size_t)howmany;
    break;
  default:
    in_elems = 2 * (size_t)nc * (size_t)howmany;
    out_elems = (size_t)nr * (size_t)howmany;
    break;
  }
  /* Unaligned plans are estimated: they serve odd views, and measuring them would double the
     planning time of every shape for a rare case. */
  unsigned flags = unaligned ? FFTW_ESTIMATE | FFTW_UNALIGNED : FFTW_MEASURE;
  if (d->kind == AG__FFT_C2R)
    flags |= FFTW_DESTROY_INPUT;
  int threads = 1;
#ifdef _OPENMP
  if (in_elems + out_elems > ((size_t)1 << 16))
    threads = omp_get_max_threads();
#endif
  void *in = d->f64 ? (void *)fftw_alloc_real(in_elems) : (void *)fftwf_alloc_real(in_elems);
  void *out = d->in_place ? in : d->f64 ? (void *)fftw_alloc_real(out_elems) : (void *)fftwf_alloc_real(out_elems);
  void *plan = NULL;
  if (in != NULL && out != NULL) {
    memset(in, 0, in_elems * esize);
    if (d->f64) {
      fftw_plan_with_nthreads(threads);
      if (d->kind == AG__FFT_C2C)
        plan = fftw_plan_many_dft(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nr,
                                  inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
      else if (d->kind == AG__FFT_R2C)
        plan = fftw_plan_many_dft_r2c(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nc, flags);
      else
        plan = fftw_plan_many_dft_c2r(d->rank, n, howmany, in, NULL, 1, nc, out, NULL, 1, nr, flags);
    } else {
      fftwf_plan_with_nthreads(threads);
      if (d->kind == AG__FFT_C2C)
        plan = fftwf_plan_many_dft(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nr,
                                   inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
      else if (d->kind == AG__FFT_R2C)
        plan = fftwf_plan_many_dft_r2c(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nc, flags);
      else
        plan = fftwf_plan_many_dft_c2r(d->rank, n, howmany, in, NULL, 1, nc, out, NULL, 1, nr, flags);
    }
  }
  if (d->f64) {
    fftw_free(in);
    if (out != in)
      fftw_free(out);
  } else {
    fftwf_free(in);
    if (out != in)
      fftwf_free(out);
  }
  return plan;
}

static ag_status host_fft_exec(ag__bqueue *q, ag__bfft *p, bool inverse, ag__bmem *in, size_t in_off, ag__bmem *out,
                               size_t out_off) {
  (void)q;
  char *ip = (char *)in + in_off, *op = (char *)out + out_off;
  const ag__fft_desc *d = &p->d;
  /* FFTW runs a plan on new arrays only when their alignment matches the planning arrays'
     (FFTW's own, 16 bytes or more). */
  bool unaligned = d->f64 ? fftw_alignment_of((double *)(void *)ip) != 0 || fftw_alignment_of((double *)(void *)op) != 0
                          : fftwf_alignment_of((float *)(void *)ip) != 0 || fftwf_alignment_of((float *)(void *)op) != 0;
  void **slot = &p->plans[inverse][unaligned];
  if (*slot == NULL && (*slot = make_plan(d, inverse, unaligned)) == NULL)
    return ag__host_core()->error(AG_ERR_DEVICE, "fftw%s_plan_many_dft: FFTW made no plan for this transform",
                                  d->f64 ? "" : "f");
  void *plan = *slot;
  if (d->f64) {
    if (d->kind == AG__FFT_C2C)
      fftw_execute_dft(plan, (fftw_complex *)(void *)ip, (fftw_complex *)(void *)op);
    else if (d->kind == AG__FFT_R2C)
      fftw_execute_dft_r2c(plan, (double *)(void *)ip, (fftw_complex *)(void *)op);
    else
      fftw_execute_dft_c2r(plan, (fftw_complex *)(void *)ip, (double *)(void *)op);
  } else {
    if (d->kind == AG__FFT_C2C)
      fftwf_execute_dft(plan, (fftwf_complex *)(void *)ip, (fftwf_complex *)(void *)op);
    else if (d->kind == AG__FFT_R2C)
      fftwf_execute_dft_r2c(plan, (float *)(void *)ip, (fftwf_complex *)(void *)op);
    else
      fftwf_execute_dft_c2r(plan, (fftwf_complex *)(void *)ip, (float *)(void *)op);
  }
  return AG_OK;
}

static void host_fft_destroy(ag__bfft *p) {
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      if (p->plans[i][j] != NULL) {
        if (p->d.f64)
          fftw_destroy_plan(p->plans[i][j]);
        else
          fftwf_destroy_plan(p->plans[i][j]);
      }
  free(p);
}

const ag__fft_ops ag__host_fft_ops = {
    .name = "FFTW",
    .offsets = true,
    .c2r_destroys_input = true,
    .plan = host_fft_plan,
    .exec = host_fft_exec,
    .destroy = host_fft_destroy,
};
