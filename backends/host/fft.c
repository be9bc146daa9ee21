/* backends/host/fft.c - the host's FFT: FFTW 3, in single and double precision, with its
   threads. An anygpu plan holds up to four FFTW plans, made on first use: one per direction,
   for arrays on FFTW's preferred alignment and (rarely, for views) for any alignment. FFTW's
   wisdom, the record of the plans it measured, is kept in the cache folder between processes. */
#include <fftw3.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend.h"
#include "host_internal.h"

struct ag__bfft {
  ag__fft_desc d;
  void *plans[2][2]; /* [inverse][unaligned]: fftw_plan or fftwf_plan */
};

/* Every call into FFTW's planner (planning, destroying, its global settings, wisdom) holds
   this lock: FFTW's own thread-safe mode covers planning and destroying only, not the
   settings each plan is made with nor importing and exporting wisdom. Executing a plan needs
   no lock. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t fftw_once = PTHREAD_ONCE_INIT;
static void fftw_setup(void) {
  fftw_init_threads();
  fftwf_init_threads();
  fftw_make_planner_thread_safe();
  fftwf_make_planner_thread_safe();
}

/* How hard FFTW plans, from ANYGPU_FFTW_PLANNER: measure (the default: plans about twice as
   fast as estimated ones, about a second to plan a 1024 x 1024 transform), patient (minutes
   for one that size, for plans up to twice as fast again on small transforms), exhaustive, or
   estimate (no measuring). Measured plans are bounded by a time limit so that awkward lengths
   cannot stall a call for long; patient and exhaustive ones are not, since a plan cut short
   can be slower than a measured one, and whoever asks for them means to wait. */
static unsigned planner_rigor(double *timelimit) {
  const char *env = getenv("ANYGPU_FFTW_PLANNER");
  *timelimit = FFTW_NO_TIMELIMIT;
  if (env != NULL && strcmp(env, "estimate") == 0)
    return FFTW_ESTIMATE;
  if (env != NULL && strcmp(env, "patient") == 0)
    return FFTW_PATIENT;
  if (env != NULL && strcmp(env, "exhaustive") == 0)
    return FFTW_EXHAUSTIVE;
  if (env != NULL && *env != '\0' && strcmp(env, "measure") != 0)
    ag__host_core()->log(AG__LOG_WARN, "ANYGPU_FFTW_PLANNER=%s is none of estimate, measure, patient, exhaustive; "
                                       "measuring", env);
  *timelimit = 10.0;
  return FFTW_MEASURE;
}

/* Threads of the plans of large transforms (small ones run on one). */
static int plan_threads(void) {
  return ag__host_threads();
}

/* ---- wisdom in the cache folder ----------------------------------------------------------

   A measured plan costs about a second for a 1024 x 1024 transform, a patient one minutes.
   FFTW's wisdom records the plans it chose; a process that imports it plans the same
   transforms at once and gets the same plans, so one process per machine measures them. It is
   kept as one blob per precision through the core's cache (ANYGPU_CACHE_DIR), keyed by all
   that makes it valid: FFTW's version with the SIMD code it was built with, the precision,
   the CPU (vendor, model, feature flags) and the thread count plans use. Wisdom that does not
   parse, or names code this FFTW lacks, FFTW refuses whole, keeping what it had; a plan it
   names that does not apply is planned afresh by FFTW. Either way the transform is right. */

static bool wisdom_loaded[2]; /* [f64], under planner_lock: imported once per process */

static const char *wisdom_name(bool f64) { return f64 ? "fftw-wisdom-f64" : "fftw-wisdom-f32"; }

static void wisdom_key(bool f64, char *key, size_t size) {
  char vendor[64] = "", model[256] = "", family[16] = "", number[16] = "", stepping[16] = "", flags[4096] = "";
  ag__host_cpuinfo("vendor_id", vendor, sizeof vendor);
  ag__host_cpuinfo("model name", model, sizeof model);
  ag__host_cpuinfo("cpu family", family, sizeof family);
  ag__host_cpuinfo("model", number, sizeof number);
  ag__host_cpuinfo("stepping", stepping, sizeof stepping);
  ag__host_cpuinfo("flags", flags, sizeof flags);
  snprintf(key, size, "anygpu FFTW wisdom 1\n%s %s\n%s %s, family %s model %s stepping %s\n%s\nthreads %d",
           f64 ? fftw_version : fftwf_version, f64 ? "double" : "single", vendor, model, family, number, stepping,
           flags, plan_threads());
}

/* Imports the cached wisdom of @p text (NUL-terminated blob of @p size bytes); false when
   FFTW refused it (its wisdom is then as it was). */
static bool wisdom_import(bool f64, const char *text, size_t size) {
  if (size == 0 || text[size - 1] != '\0' || strlen(text) != size - 1)
    return false;
  return f64 ? fftw_import_wisdom_from_string(text) != 0 : fftwf_import_wisdom_from_string(text) != 0;
}

/* Under planner_lock: imports the cached wisdom of one precision, the first time only. */
static void wisdom_load(bool f64) {
  if (wisdom_loaded[f64])
    return;
  wisdom_loaded[f64] = true;
  char key[5120];
  wisdom_key(f64, key, sizeof key);
  size_t size = 0;
  char *text = ag__host_core()->cache_read(wisdom_name(f64), key, &size);
  if (text != NULL && !wisdom_import(f64, text, size))
    ag__host_core()->log(AG__LOG_INFO, "FFTW refused the cached %s wisdom; planning afresh", wisdom_name(f64));
  free(text);
}

/* Under planner_lock: writes this process's wisdom of one precision to the cache, merged
   first with what other processes may have written since it was loaded. */
static void wisdom_save(bool f64) {
  char key[5120];
  wisdom_key(f64, key, sizeof key);
  size_t size = 0;
  char *text = ag__host_core()->cache_read(wisdom_name(f64), key, &size);
  if (text != NULL)
    wisdom_import(f64, text, size);
  free(text);
  text = f64 ? fftw_export_wisdom_to_string() : fftwf_export_wisdom_to_string();
  if (text != NULL)
    ag__host_core()->cache_write(wisdom_name(f64), key, text, strlen(text) + 1);
  free(text);
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

/* One FFTW plan of @p d with @p flags and @p threads on the arrays @p in and @p out; NULL when
   FFTW made none (with FFTW_WISDOM_ONLY: when its wisdom has no plan for it). Under
   planner_lock. */
static void *plan_with(const ag__fft_desc *d, bool inverse, unsigned flags, int threads, void *in, void *out) {
  int n[3];
  for (int i = 0; i < d->rank; i++)
    n[i] = (int)d->n[i];
  int howmany = (int)d->batch, nr = (int)count_real(d), nc = (int)count_complex(d);
  if (d->f64) {
    fftw_plan_with_nthreads(threads);
    if (d->kind == AG__FFT_C2C)
      return fftw_plan_many_dft(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nr,
                                inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
    if (d->kind == AG__FFT_R2C)
      return fftw_plan_many_dft_r2c(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nc, flags);
    return fftw_plan_many_dft_c2r(d->rank, n, howmany, in, NULL, 1, nc, out, NULL, 1, nr, flags);
  }
  fftwf_plan_with_nthreads(threads);
  if (d->kind == AG__FFT_C2C)
    return fftwf_plan_many_dft(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nr,
                               inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
  if (d->kind == AG__FFT_R2C)
    return fftwf_plan_many_dft_r2c(d->rank, n, howmany, in, NULL, 1, nr, out, NULL, 1, nc, flags);
  return fftwf_plan_many_dft_c2r(d->rank, n, howmany, in, NULL, 1, nc, out, NULL, 1, nr, flags);
}

/* Makes one FFTW plan for the direction and alignment asked, on scratch arrays (measuring
   writes to them): from the wisdom when it has the plan, else by planning, whose wisdom then
   goes to the cache. */
static void *make_plan(const ag__fft_desc *d, bool inverse, bool unaligned) {
  size_t nr = count_real(d), nc = count_complex(d), batch = d->batch;
  size_t in_elems, out_elems, esize = d->f64 ? sizeof(double) : sizeof(float);
  switch (d->kind) {
  case AG__FFT_C2C:
    in_elems = out_elems = 2 * nr * batch;
    break;
  case AG__FFT_R2C:
    in_elems = nr * batch;
    out_elems = 2 * nc * batch;
    break;
  default:
    in_elems = 2 * nc * batch;
    out_elems = nr * batch;
    break;
  }
  double timelimit;
  unsigned rigor = planner_rigor(&timelimit);
  /* Unaligned plans are estimated: they serve odd views, and measuring them would double the
     planning time of every shape for a rare case. */
  unsigned flags = unaligned ? FFTW_ESTIMATE | FFTW_UNALIGNED : rigor;
  if (d->kind == AG__FFT_C2R)
    flags |= FFTW_DESTROY_INPUT;
  int threads = in_elems + out_elems > ((size_t)1 << 16) ? plan_threads() : 1;
  void *in = d->f64 ? (void *)fftw_alloc_real(in_elems) : (void *)fftwf_alloc_real(in_elems);
  void *out = d->in_place ? in : d->f64 ? (void *)fftw_alloc_real(out_elems) : (void *)fftwf_alloc_real(out_elems);
  void *plan = NULL;
  if (in != NULL && out != NULL) {
    memset(in, 0, in_elems * esize);
    pthread_mutex_lock(&planner_lock);
    if (d->f64)
      fftw_set_timelimit(timelimit);
    else
      fftwf_set_timelimit(timelimit);
    if (!unaligned) {
      wisdom_load(d->f64);
      plan = plan_with(d, inverse, flags | FFTW_WISDOM_ONLY, threads, in, out);
    }
    if (plan == NULL) {
      plan = plan_with(d, inverse, flags, threads, in, out);
      /* Estimating measures nothing worth keeping. */
      if (plan != NULL && !(flags & FFTW_ESTIMATE))
        wisdom_save(d->f64);
    }
    pthread_mutex_unlock(&planner_lock);
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
  pthread_mutex_lock(&planner_lock);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      if (p->plans[i][j] != NULL) {
        if (p->d.f64)
          fftw_destroy_plan(p->plans[i][j]);
        else
          fftwf_destroy_plan(p->plans[i][j]);
      }
  pthread_mutex_unlock(&planner_lock);
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
