/* backends/cuda/fft.c — FFTs on CUDA devices through cuFFT: one cuFFT plan per transform
   descriptor, made and run in the device's primary context, on the caller's stream.

   Layout: plans are made with cufftMakePlanMany64 and no embedding (inembed = onembed = NULL),
   which is cuFFT's basic layout: the arrays are contiguous, the last axis fastest, batches end
   to end. For the out-of-place real transforms that is numpy's: real [batch][n0][n1][n2] and
   complex [batch][n0][n1][n2/2+1]. (Only in-place real transforms would want padded rows, and
   the core makes real transforms out of place.) The 64-bit planner takes any size; cuFFT still
   picks 32-bit-indexed kernels whenever the data allows.

   Work area: cuFFT allocates each plan's own (auto-allocation) in the device's memory when the
   plan is made and frees it with the plan; a plan that does not fit fails with
   CUFFT_ALLOC_FAILED, AG_ERR_OUT_OF_MEMORY, so the core can trim and retry. The core runs one
   plan from one thread at a time but may run it on one stream and then at once on another,
   whose kernels would share the work area with the first's still running: so each exec
   records an event, and an exec on another stream than the last waits for it first.

   Scaling: cuFFT's transforms are unnormalised both ways, as the core wants. Its complex-to-
   real transforms may overwrite their input (multi-dimensional ones do), hence
   c2r_destroys_input. */
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

#define core ag__cuda_core

struct ag__bfft {
  ag__bdevice *dev;
  cufftHandle plan;
  ag__fft_kind kind;
  bool f64;
  CUevent done;  /* recorded after each exec, on its stream */
  CUstream last; /* that stream; NULL before the first exec */
};

/* cufftResult has no names in the library; these are cufft.h's, the ones CUDA 13 dropped
   (10, 12, 15) included, for CUDA 12's cuFFT. */
static const char *cufft_name(cufftResult r) {
  switch ((int)r) {
  case 0:
    return "CUFFT_SUCCESS";
  case 1:
    return "CUFFT_INVALID_PLAN";
  case 2:
    return "CUFFT_ALLOC_FAILED";
  case 3:
    return "CUFFT_INVALID_TYPE";
  case 4:
    return "CUFFT_INVALID_VALUE";
  case 5:
    return "CUFFT_INTERNAL_ERROR";
  case 6:
    return "CUFFT_EXEC_FAILED";
  case 7:
    return "CUFFT_SETUP_FAILED";
  case 8:
    return "CUFFT_INVALID_SIZE";
  case 9:
    return "CUFFT_UNALIGNED_DATA";
  case 10:
    return "CUFFT_INCOMPLETE_PARAMETER_LIST";
  case 11:
    return "CUFFT_INVALID_DEVICE";
  case 12:
    return "CUFFT_PARSE_ERROR";
  case 13:
    return "CUFFT_NO_WORKSPACE";
  case 14:
    return "CUFFT_NOT_IMPLEMENTED";
  case 15:
    return "CUFFT_LICENSE_ERROR";
  case 16:
    return "CUFFT_NOT_SUPPORTED";
  case 17:
    return "CUFFT_MISSING_DEPENDENCY";
  case 18:
    return "CUFFT_NVRTC_FAILURE";
  case 19:
    return "CUFFT_NVJITLINK_FAILURE";
  case 20:
    return "CUFFT_NVSHMEM_FAILURE";
  default:
    return "CUFFT_UNKNOWN_ERROR";
  }
}

/* "cufftExecC2C: CUFFT_EXEC_FAILED (6)", lack of memory told apart so the core can trim its
   pool and retry. */
static ag_status cufft_fail(ag_status st, const char *call, cufftResult r, const char *what) {
  if (r == CUFFT_ALLOC_FAILED)
    st = AG_ERR_OUT_OF_MEMORY;
  return core->error(st, "%s: %s (%d)%s", call, cufft_name(r), (int)r, what);
}

static const char *kind_name(const ag__fft_desc *d) {
  switch (d->kind) {
  case AG__FFT_R2C:
    return d->f64 ? "D2Z" : "R2C";
  case AG__FFT_C2R:
    return d->f64 ? "Z2D" : "C2R";
  default:
    return d->f64 ? "Z2Z" : "C2C";
  }
}

/* Makes the plan for @p d: cufftCreate, then cufftMakePlanMany64 with the basic layout (the
   strides and distances passed are that layout's own, though cuFFT ignores them without
   inembed/onembed). A size cuFFT cannot do (CUFFT_INVALID_SIZE, CUFFT_NOT_SUPPORTED,
   CUFFT_NOT_IMPLEMENTED) is AG_ERR_UNSUPPORTED. */
static ag_status cf_plan(ag__bdevice *dev, const ag__fft_desc *d, ag__bfft **out) {
  long long n[3] = {1, 1, 1};
  long long real = 1, complex = 1;
  for (int i = 0; i < d->rank; i++) {
    n[i] = (long long)d->n[i];
    real *= n[i];
    complex *= i == d->rank - 1 ? n[i] / 2 + 1 : n[i];
  }
  cufftType type;
  long long idist = real, odist = real;
  switch (d->kind) {
  case AG__FFT_R2C:
    type = d->f64 ? CUFFT_D2Z : CUFFT_R2C;
    odist = complex;
    break;
  case AG__FFT_C2R:
    type = d->f64 ? CUFFT_Z2D : CUFFT_C2R;
    idist = complex;
    break;
  default:
    type = d->f64 ? CUFFT_Z2Z : CUFFT_C2C;
    break;
  }
  char what[160];
  int used = snprintf(what, sizeof what, " (%s, %lld", kind_name(d), n[0]);
  for (int i = 1; i < d->rank && used > 0 && (size_t)used < sizeof what; i++)
    used += snprintf(what + used, sizeof what - (size_t)used, " x %lld", n[i]);
  if (used > 0 && (size_t)used < sizeof what)
    snprintf(what + used, sizeof what - (size_t)used, ", batch %zu)", d->batch);

  ag__bfft *p = calloc(1, sizeof *p);
  if (p == NULL)
    return ag__cuda_no_memory();
  ag_status st = ag__cuda_enter(dev);
  if (st != AG_OK) {
    free(p);
    return st;
  }
  cufftResult r = cufftCreate(&p->plan);
  if (r != CUFFT_SUCCESS) {
    st = cufft_fail(AG_ERR_DEVICE, "cufftCreate", r, what);
    free(p);
    return ag__cuda_leave(st);
  }
  size_t work = 0;
  r = cufftMakePlanMany64(p->plan, d->rank, n, NULL, 1, idist, NULL, 1, odist, type, (long long)d->batch, &work);
  if (r != CUFFT_SUCCESS) {
    bool cannot = r == CUFFT_INVALID_SIZE || r == CUFFT_NOT_SUPPORTED || r == CUFFT_NOT_IMPLEMENTED;
    st = cufft_fail(cannot ? AG_ERR_UNSUPPORTED : AG_ERR_DEVICE, "cufftMakePlanMany64", r, what);
  } else {
    st = ag__cuda_check("cuEventCreate", cuEventCreate(&p->done, CU_EVENT_DISABLE_TIMING));
  }
  if (st != AG_OK) {
    cufftResult rd = cufftDestroy(p->plan);
    if (rd != CUFFT_SUCCESS)
      core->log(AG__LOG_WARN, "cuda: cufftDestroy: %s (%d)", cufft_name(rd), (int)rd);
    free(p);
    return ag__cuda_leave(st);
  }
  core->log(AG__LOG_DEBUG, "cuda: cuFFT plan%s with %zu bytes of work area", what, work);
  p->dev = dev;
  p->kind = d->kind;
  p->f64 = d->f64;
  *out = p;
  return ag__cuda_leave(AG_OK);
}

/* Runs @p p on q's stream from in + in_off to out + out_off (bytes), forward or inverse (C2C;
   the real transforms have one direction each). */
static ag_status cf_exec(ag__bqueue *q, ag__bfft *p, bool inverse, ag__bmem *in, size_t in_off, ag__bmem *out,
                         size_t out_off) {
  ag_status st = ag__cuda_enter(q->dev);
  if (st != AG_OK)
    return st;
  /* The plan's work area may still be in use by its last exec, on another stream. */
  if (p->last != NULL && p->last != q->stream &&
      (st = ag__cuda_check("cuStreamWaitEvent", cuStreamWaitEvent(q->stream, p->done, CU_EVENT_WAIT_DEFAULT))) !=
          AG_OK)
    return ag__cuda_leave(st);
  cufftResult r = cufftSetStream(p->plan, q->stream);
  if (r != CUFFT_SUCCESS)
    return ag__cuda_leave(cufft_fail(AG_ERR_DEVICE, "cufftSetStream", r, ""));
  void *i = (void *)(uintptr_t)(DPTR(in) + (CUdeviceptr)in_off);
  void *o = (void *)(uintptr_t)(DPTR(out) + (CUdeviceptr)out_off);
  int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  const char *call;
  switch (p->kind) {
  case AG__FFT_R2C:
    call = p->f64 ? "cufftExecD2Z" : "cufftExecR2C";
    r = p->f64 ? cufftExecD2Z(p->plan, i, o) : cufftExecR2C(p->plan, i, o);
    break;
  case AG__FFT_C2R:
    call = p->f64 ? "cufftExecZ2D" : "cufftExecC2R";
    r = p->f64 ? cufftExecZ2D(p->plan, i, o) : cufftExecC2R(p->plan, i, o);
    break;
  default:
    call = p->f64 ? "cufftExecZ2Z" : "cufftExecC2C";
    r = p->f64 ? cufftExecZ2Z(p->plan, i, o, direction) : cufftExecC2C(p->plan, i, o, direction);
    break;
  }
  if (r != CUFFT_SUCCESS) {
    /* A failed launch may have broken the context; the stream says so. */
    CUresult e = cuStreamQuery(q->stream);
    if (e != CUDA_SUCCESS && e != CUDA_ERROR_NOT_READY) {
      char text[96];
      snprintf(text, sizeof text, "%s: %s (%d); the stream reports", call, cufft_name(r), (int)r);
      return ag__cuda_leave(ag__cuda_error(AG_ERR_DEVICE, text, e));
    }
    return ag__cuda_leave(cufft_fail(AG_ERR_DEVICE, call, r, ""));
  }
  CUresult e = cuEventRecord(p->done, q->stream);
  if (e != CUDA_SUCCESS) {
    /* Without the event the next exec could not be ordered after this one: finish it now. */
    st = ag__cuda_error(AG_ERR_DEVICE, "cuEventRecord", e);
    ag__cuda_warn("cuStreamSynchronize", cuStreamSynchronize(q->stream));
    p->last = NULL;
    return ag__cuda_leave(st);
  }
  p->last = q->stream;
  return ag__cuda_leave(AG_OK);
}

/* cufftDestroy frees the work area at once, so the plan's last exec is waited for first. */
static void cf_destroy(ag__bfft *p) {
  if (ag__cuda_enter(p->dev) == AG_OK) {
    if (p->last != NULL)
      ag__cuda_warn("cuEventSynchronize", cuEventSynchronize(p->done));
    cufftResult r = cufftDestroy(p->plan);
    if (r != CUFFT_SUCCESS)
      core->log(AG__LOG_WARN, "cuda: cufftDestroy: %s (%d)", cufft_name(r), (int)r);
    ag__cuda_warn("cuEventDestroy", cuEventDestroy(p->done));
    ag__cuda_leave(AG_OK);
  }
  free(p);
}

static const ag__fft_ops cufft_ops = {
    .name = "cuFFT",
    .offsets = true,
    .complex_aligned = true,
    .c2r_destroys_input = true,
    .plan = cf_plan,
    .exec = cf_exec,
    .destroy = cf_destroy,
};

/* cuFFT is linked into the module, so every device has it; "cufft" is its only name here. */
const ag__fft_ops *ag__cuda_fft(ag__bdevice *dev, const char *provider) {
  (void)dev;
  if (provider == NULL || strcmp(provider, "cufft") == 0)
    return &cufft_ops;
  core->error(AG_ERR_UNSUPPORTED, "unknown CUDA FFT provider \"%s\" (cufft)", provider);
  return NULL;
}
