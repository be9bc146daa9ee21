/* backends/opencl/fft_clfft.c — FFTs on OpenCL devices through clFFT (ANYGPU_OPENCL_FFT=clfft):
   C2C, R2C and C2R in single and double precision for lengths made of the factors 2, 3, 5, 7,
   11 and 13, with numpy's layouts. */
#include <stdlib.h>

#include "opencl_internal.h"

#include <clFFT.h>

#define core ag__cl_core

struct ag__bfft {
  clfftPlanHandle plan;
  ag__fft_kind kind;
  bool in_place;
};

static const char *clfft_name(clfftStatus s) {
  switch ((int)s) {
  case CLFFT_BUGCHECK:
    return "CLFFT_BUGCHECK";
  case CLFFT_NOTIMPLEMENTED:
    return "CLFFT_NOTIMPLEMENTED";
  case CLFFT_TRANSPOSED_NOTIMPLEMENTED:
    return "CLFFT_TRANSPOSED_NOTIMPLEMENTED";
  case CLFFT_FILE_NOT_FOUND:
    return "CLFFT_FILE_NOT_FOUND";
  case CLFFT_FILE_CREATE_FAILURE:
    return "CLFFT_FILE_CREATE_FAILURE";
  case CLFFT_VERSION_MISMATCH:
    return "CLFFT_VERSION_MISMATCH";
  case CLFFT_INVALID_PLAN:
    return "CLFFT_INVALID_PLAN";
  case CLFFT_DEVICE_NO_DOUBLE:
    return "CLFFT_DEVICE_NO_DOUBLE";
  case CLFFT_DEVICE_MISMATCH:
    return "CLFFT_DEVICE_MISMATCH";
  default:
    /* The other codes are OpenCL's. */
    return ag__cl_name((cl_int)s);
  }
}

static ag_status clfft_fail(const char *call, clfftStatus s) {
  ag_status st;
  switch ((int)s) {
  case CLFFT_NOTIMPLEMENTED:
  case CLFFT_TRANSPOSED_NOTIMPLEMENTED:
  case CLFFT_DEVICE_NO_DOUBLE:
    st = AG_ERR_UNSUPPORTED;
    break;
  case CLFFT_BUGCHECK:
  case CLFFT_FILE_NOT_FOUND:
  case CLFFT_FILE_CREATE_FAILURE:
  case CLFFT_VERSION_MISMATCH:
  case CLFFT_INVALID_PLAN:
  case CLFFT_DEVICE_MISMATCH:
    st = AG_ERR_DEVICE;
    break;
  default:
    st = ag__cl_status((cl_int)s);
    /* A kernel clFFT generated that fails to compile is clFFT's failure, not the caller's. */
    if (st == AG_ERR_INVALID_ARGUMENT)
      st = AG_ERR_DEVICE;
    break;
  }
  return core->error(st, "%s: %s (%d)", call, clfft_name(s), (int)s);
}

/* clfftSetup once per process; clFFT's resources stay until the process exits, since
   clfftTeardown ends every plan, those other threads hold included. It runs then, from
   atexit: registered after clFFT and the OpenCL driver were loaded, it runs before their own
   exit-time destructors, while the driver still works, and clFFT no longer prints its
   "resources not freed" warning on the program's stderr. */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static clfftStatus setup_status;

static void teardown(void) { clfftTeardown(); }

static void setup(void) {
  clfftSetupData data = {clfftVersionMajor, clfftVersionMinor, clfftVersionPatch, 0};
  setup_status = clfftSetup(&data);
  if (setup_status == CLFFT_SUCCESS)
    atexit(teardown);
}

/* The smallest prime factor of n above 13, or 0 when n has none. */
static size_t bad_factor(size_t n) {
  static const size_t radices[] = {2, 3, 5, 7, 11, 13};
  for (size_t i = 0; i < sizeof radices / sizeof radices[0]; i++)
    while (n % radices[i] == 0)
      n /= radices[i];
  if (n == 1)
    return 0;
  for (size_t f = 17; f * f <= n; f += 2)
    if (n % f == 0)
      return f;
  return n;
}

#define TRY(call, expr)                                                                         \
  do {                                                                                          \
    clfftStatus s_ = (expr);                                                                    \
    if (s_ != CLFFT_SUCCESS) {                                                                  \
      st = clfft_fail(call, s_);                                                                \
      goto fail;                                                                                \
    }                                                                                           \
  } while (0)

/* clFFT's lengths and strides run fastest first. The real side of R2C and C2R is unpadded
   and the complex side has rows of n/2 + 1 (CLFFT_HERMITIAN_INTERLEAVED), numpy's layouts;
   batches follow each other. Both directions are unscaled: the core scales. The plan is baked
   on a queue of its own, made for the purpose; exec may run it on any queue of the device. */
static ag_status clf_plan(ag__bdevice *dev, const ag__fft_desc *d, ag__bfft **out) {
  for (int i = 0; i < d->rank; i++) {
    size_t f = bad_factor(d->n[i]);
    if (f != 0)
      return core->error(AG_ERR_UNSUPPORTED,
                         "clFFT handles lengths made of the factors 2, 3, 5, 7, 11 and 13; %zu has the factor "
                         "%zu (use ANYGPU_OPENCL_FFT=vkfft)",
                         d->n[i], f);
  }
  cl_device_fp_config fp64 = 0;
  if (d->f64 && (clGetDeviceInfo(dev->id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS || fp64 == 0))
    return core->error(AG_ERR_UNSUPPORTED, "clFFT: the device has no double precision (cl_khr_fp64)");
  pthread_once(&setup_once, setup);
  if (setup_status != CLFFT_SUCCESS)
    return clfft_fail("clfftSetup", setup_status);

  ag__bfft *p = calloc(1, sizeof *p);
  if (p == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  p->kind = d->kind;
  p->in_place = d->in_place;
  ag_status st = AG_OK;
  bool made = false;
  cl_command_queue bake_q = NULL;

  size_t len[3] = {1, 1, 1}, real_strides[3] = {1, 1, 1}, cplx_strides[3] = {1, 1, 1};
  for (int i = 0; i < d->rank; i++)
    len[i] = d->n[d->rank - 1 - i];
  /* The complex side's lengths: the fastest axis is n/2 + 1 long for R2C and C2R. */
  size_t cplx_len[3] = {1, 1, 1};
  for (int i = 0; i < d->rank; i++)
    cplx_len[i] = i == 0 && d->kind != AG__FFT_C2C ? len[0] / 2 + 1 : len[i];
  real_strides[0] = cplx_strides[0] = 1;
  for (int i = 1; i < d->rank; i++) {
    real_strides[i] = real_strides[i - 1] * len[i - 1];
    cplx_strides[i] = cplx_strides[i - 1] * cplx_len[i - 1];
  }
  size_t real_dist = real_strides[d->rank - 1] * len[d->rank - 1];
  size_t cplx_dist = cplx_strides[d->rank - 1] * cplx_len[d->rank - 1];
  clfftDim dim = d->rank == 1 ? CLFFT_1D : d->rank == 2 ? CLFFT_2D : CLFFT_3D;

  TRY("clfftCreateDefaultPlan", clfftCreateDefaultPlan(&p->plan, dev->ctx, dim, len));
  made = true;
  TRY("clfftSetPlanPrecision", clfftSetPlanPrecision(p->plan, d->f64 ? CLFFT_DOUBLE : CLFFT_SINGLE));
  switch (d->kind) {
  case AG__FFT_C2C:
    TRY("clfftSetLayout", clfftSetLayout(p->plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED));
    TRY("clfftSetPlanInStride", clfftSetPlanInStride(p->plan, dim, cplx_strides));
    TRY("clfftSetPlanOutStride", clfftSetPlanOutStride(p->plan, dim, cplx_strides));
    TRY("clfftSetPlanDistance", clfftSetPlanDistance(p->plan, cplx_dist, cplx_dist));
    break;
  case AG__FFT_R2C:
    TRY("clfftSetLayout", clfftSetLayout(p->plan, CLFFT_REAL, CLFFT_HERMITIAN_INTERLEAVED));
    TRY("clfftSetPlanInStride", clfftSetPlanInStride(p->plan, dim, real_strides));
    TRY("clfftSetPlanOutStride", clfftSetPlanOutStride(p->plan, dim, cplx_strides));
    TRY("clfftSetPlanDistance", clfftSetPlanDistance(p->plan, real_dist, cplx_dist));
    break;
  case AG__FFT_C2R:
    TRY("clfftSetLayout", clfftSetLayout(p->plan, CLFFT_HERMITIAN_INTERLEAVED, CLFFT_REAL));
    TRY("clfftSetPlanInStride", clfftSetPlanInStride(p->plan, dim, cplx_strides));
    TRY("clfftSetPlanOutStride", clfftSetPlanOutStride(p->plan, dim, real_strides));
    TRY("clfftSetPlanDistance", clfftSetPlanDistance(p->plan, cplx_dist, real_dist));
    break;
  }
  TRY("clfftSetResultLocation",
      clfftSetResultLocation(p->plan, d->in_place && d->kind == AG__FFT_C2C ? CLFFT_INPLACE : CLFFT_OUTOFPLACE));
  TRY("clfftSetPlanBatchSize", clfftSetPlanBatchSize(p->plan, d->batch));
  TRY("clfftSetPlanScale", clfftSetPlanScale(p->plan, CLFFT_FORWARD, 1.0f));
  TRY("clfftSetPlanScale", clfftSetPlanScale(p->plan, CLFFT_BACKWARD, 1.0f));
  cl_int e;
  bake_q = clCreateCommandQueue(dev->ctx, dev->id, 0, &e);
  if (bake_q == NULL) {
    st = CL_FAIL("clCreateCommandQueue", e);
    goto fail;
  }
  TRY("clfftBakePlan", clfftBakePlan(p->plan, 1, &bake_q, NULL, NULL));
  clReleaseCommandQueue(bake_q);
  *out = p;
  return AG_OK;
fail:
  if (bake_q != NULL)
    clReleaseCommandQueue(bake_q);
  if (made)
    clfftDestroyPlan(&p->plan);
  free(p);
  return st;
}

static ag_status clf_exec(ag__bqueue *q, ag__bfft *p, bool inverse, ag__bmem *in, size_t in_off, ag__bmem *out,
                          size_t out_off) {
  (void)in_off, (void)out_off; /* always 0: offsets is false */
  cl_mem bin = MEM(in), bout = MEM(out);
  clfftDirection dir = p->kind == AG__FFT_R2C ? CLFFT_FORWARD
                       : p->kind == AG__FFT_C2R ? CLFFT_BACKWARD
                       : inverse                ? CLFFT_BACKWARD
                                                : CLFFT_FORWARD;
  clfftStatus s = clfftEnqueueTransform(p->plan, dir, 1, &q->q, 0, NULL, NULL, &bin, p->in_place ? NULL : &bout, NULL);
  if (s != CLFFT_SUCCESS)
    return clfft_fail("clfftEnqueueTransform", s);
  return AG_OK;
}

static void clf_destroy(ag__bfft *p) {
  clfftDestroyPlan(&p->plan);
  free(p);
}

/* clFFT's enqueue takes no offsets, so the core stages data at offset 0. Its C2R may
   transform the leading axes of its complex input in place. */
static const ag__fft_ops clfft_ops = {
    .name = "clFFT",
    .offsets = false,
    .c2r_destroys_input = true,
    .plan = clf_plan,
    .exec = clf_exec,
    .destroy = clf_destroy,
};

const ag__fft_ops *ag__cl_clfft(ag__bdevice *dev) {
  (void)dev;
  return &clfft_ops;
}
