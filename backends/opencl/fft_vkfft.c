/* backends/opencl/fft_vkfft.c — FFTs on OpenCL devices through VkFFT (one header, its OpenCL
   flavour): every length, primes included (Bluestein's algorithm), C2C, R2C and C2R in single
   and double precision, with numpy's layouts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkfft_lib.h"

#define core ag__cl_core

/* What a plan runs. VkFFT refuses axes of length 1, which transform nothing: they are dropped,
   and what is left may be no transform at all (STEP_COPY), or, when an R2C or C2R has a last
   axis of length 1, a real-to-complex widening (STEP_WIDEN) or its inverse (STEP_NARROW)
   around a C2C. VkFFT 1.2.26 also refuses R2C and C2R of an odd length too long for one
   kernel's local memory (above about 4K elements on GPUs with 48-64 KiB, 32K on pocl);
   those run as C2C of the full length on scratch memory (STEP_R2C_FULL, STEP_C2R_FULL). */
typedef enum step { STEP_VKFFT, STEP_COPY, STEP_WIDEN, STEP_NARROW, STEP_R2C_FULL, STEP_C2R_FULL } step;

/* One VkFFTApplication and the storage its configuration points into. VkFFT keeps the
   addresses of buf, in and queue, and reads the cl_mem in buf and in each time it sets its
   kernels' arguments, so a run binds its buffers by storing them there. */
typedef struct vkapp {
  VkFFTApplication app;
  bool made;
  ag__fft_desc d;  /* what it transforms */
  cl_device_id device;
  cl_context ctx;
  cl_mem buf; /* VkFFT's "buffer": the output of C2C and R2C, the input of C2R */
  cl_mem in;  /* its "inputBuffer": the input of out-of-place C2C and R2C, the output of C2R */
  cl_command_queue queue;
  uint64_t buf_size, in_size;
  size_t buf_elem, in_elem; /* bytes per element on each side, which offsets count in */
} vkapp;

struct ag__bfft {
  ag__fft_desc d; /* as the core asked */
  step how;
  vkapp a[2];     /* STEP_C2R_FULL uses both: the leading axes, then the last */
  size_t real;    /* bytes of one real number */
  size_t count;   /* real-side elements, all batches */
  size_t n, half, rows; /* the last axis, its complex length, and how many rows of it */
  cl_context ctx;
  cl_program prog;
  cl_kernel widen, narrow, expand;
};

/* initializeVkFFT switches the process's locale to "C" while it prints kernels
   (setlocale is process-wide): plans of all devices are made one at a time. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *vkfft_name(VkFFTResult r) {
  switch (r) {
#define N(x)                                                                                    \
  case x:                                                                                       \
    return #x;
    N(VKFFT_SUCCESS) N(VKFFT_ERROR_MALLOC_FAILED) N(VKFFT_ERROR_INSUFFICIENT_CODE_BUFFER)
    N(VKFFT_ERROR_INSUFFICIENT_TEMP_BUFFER) N(VKFFT_ERROR_PLAN_NOT_INITIALIZED) N(VKFFT_ERROR_NULL_TEMP_PASSED)
    N(VKFFT_ERROR_INVALID_DEVICE) N(VKFFT_ERROR_INVALID_QUEUE) N(VKFFT_ERROR_ONLY_FORWARD_FFT_INITIALIZED)
    N(VKFFT_ERROR_ONLY_INVERSE_FFT_INITIALIZED) N(VKFFT_ERROR_INVALID_CONTEXT) N(VKFFT_ERROR_INVALID_PLATFORM)
    N(VKFFT_ERROR_EMPTY_FFTdim) N(VKFFT_ERROR_EMPTY_size) N(VKFFT_ERROR_EMPTY_bufferSize)
    N(VKFFT_ERROR_EMPTY_buffer) N(VKFFT_ERROR_EMPTY_tempBufferSize) N(VKFFT_ERROR_EMPTY_tempBuffer)
    N(VKFFT_ERROR_EMPTY_inputBufferSize) N(VKFFT_ERROR_EMPTY_inputBuffer) N(VKFFT_ERROR_EMPTY_outputBufferSize)
    N(VKFFT_ERROR_EMPTY_outputBuffer) N(VKFFT_ERROR_UNSUPPORTED_RADIX) N(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH)
    N(VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C) N(VKFFT_ERROR_UNSUPPORTED_FFT_OMIT)
    N(VKFFT_ERROR_FAILED_TO_ALLOCATE) N(VKFFT_ERROR_FAILED_TO_MAP_MEMORY) N(VKFFT_ERROR_FAILED_TO_SYNCHRONIZE)
    N(VKFFT_ERROR_FAILED_TO_COPY) N(VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM)
    N(VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM) N(VKFFT_ERROR_FAILED_TO_GET_CODE_SIZE)
    N(VKFFT_ERROR_FAILED_TO_GET_CODE) N(VKFFT_ERROR_FAILED_TO_DESTROY_PROGRAM)
    N(VKFFT_ERROR_FAILED_TO_GET_FUNCTION) N(VKFFT_ERROR_FAILED_TO_LAUNCH_KERNEL)
    N(VKFFT_ERROR_FAILED_TO_GET_ATTRIBUTE) N(VKFFT_ERROR_FAILED_TO_CREATE_CONTEXT)
    N(VKFFT_ERROR_FAILED_TO_SET_KERNEL_ARG) N(VKFFT_ERROR_FAILED_TO_CREATE_COMMAND_QUEUE)
    N(VKFFT_ERROR_FAILED_TO_RELEASE_COMMAND_QUEUE) N(VKFFT_ERROR_FAILED_TO_CREATE_EVENT)
#undef N
  default:
    break;
  }
  return "VKFFT_ERROR";
}

static ag_status vkfft_fail(const char *call, VkFFTResult r) {
  ag_status st = AG_ERR_DEVICE;
  if (r == VKFFT_ERROR_MALLOC_FAILED || r == VKFFT_ERROR_FAILED_TO_ALLOCATE)
    st = AG_ERR_OUT_OF_MEMORY;
  else if (r == VKFFT_ERROR_UNSUPPORTED_RADIX || r == VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH ||
           r == VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C)
    st = AG_ERR_UNSUPPORTED;
  else if (r == VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM)
    st = AG_ERR_BUILD;
  return core->error(st, "%s: %s (%d)", call, vkfft_name(r), (int)r);
}

/* The kernels around the C2C of the fallbacks. Offsets count reals; n counts elements.
   widen: real to complex with zero imaginary parts. narrow: the real parts. expand: rows of a
   half spectrum (h = n/2 + 1 complex) to full rows of n by Hermitian symmetry. */
static const char kernel_source[] =
    "__kernel void ag_fft_widen(__global const real *in, ulong in_off, __global real *out, ulong out_off,\n"
    "                           ulong n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) { out[out_off + 2 * i] = in[in_off + i]; out[out_off + 2 * i + 1] = 0; }\n"
    "}\n"
    "__kernel void ag_fft_narrow(__global const real *in, ulong in_off, __global real *out, ulong out_off,\n"
    "                            ulong n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) out[out_off + i] = in[in_off + 2 * i];\n"
    "}\n"
    "__kernel void ag_fft_expand(__global const real *in, ulong in_off, __global real *out, ulong out_off,\n"
    "                            ulong rows, ulong h, ulong n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i >= rows * n) return;\n"
    "  size_t r = i / n, k = i % n;\n"
    "  size_t src = in_off + 2 * (r * h + (k < h ? k : n - k));\n"
    "  out[out_off + 2 * i] = in[src];\n"
    "  out[out_off + 2 * i + 1] = k < h ? in[src + 1] : -in[src + 1];\n"
    "}\n";

static ag_status build_kernels(ag__bdevice *dev, ag__bfft *p) {
  const char *src[2] = {p->d.f64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\ntypedef double real;\n"
                                 : "typedef float real;\n",
                        kernel_source};
  cl_int e;
  p->prog = clCreateProgramWithSource(dev->ctx, 2, src, NULL, &e);
  if (p->prog == NULL)
    return CL_FAIL("clCreateProgramWithSource", e);
  e = clBuildProgram(p->prog, 1, &dev->id, "", NULL, NULL);
  if (e != CL_SUCCESS)
    return ag__cl_error(AG_ERR_BUILD, e, "clBuildProgram");
  const char *names[3] = {"ag_fft_widen", "ag_fft_narrow", "ag_fft_expand"};
  cl_kernel *ks[3] = {&p->widen, &p->narrow, &p->expand};
  for (int i = 0; i < 3; i++) {
    *ks[i] = clCreateKernel(p->prog, names[i], &e);
    if (*ks[i] == NULL)
      return CL_FAIL("clCreateKernel", e);
  }
  return AG_OK;
}

/* Makes a->app for a->d. VkFFT's axes run fastest first, ours slowest first. Its R2C
   layouts: "buffer" holds the complex side, rows of n/2 + 1 (its default strides); with
   isInputFormatted the real side is a separate "inputBuffer" whose strides we give unpadded,
   so both sides are numpy's. C2R is the inverse of the same arrangement with
   inverseReturnToInputBuffer: it reads buffer and writes inputBuffer. Out-of-place C2C reads
   inputBuffer and writes buffer both ways. With omit_fastest the fastest axis is not
   transformed (C2C only). */
static VkFFTResult make_app(vkapp *a, ag__bdevice *dev, bool omit_fastest) {
  const ag__fft_desc *d = &a->d;
  a->device = dev->id;
  a->ctx = dev->ctx;
  size_t real = d->f64 ? sizeof(double) : sizeof(float), cplx = 2 * real;
  size_t total = 1;
  for (int i = 0; i < d->rank; i++)
    total *= d->n[i];
  size_t last = d->n[d->rank - 1], half = last / 2 + 1;
  size_t ncplx = d->kind == AG__FFT_C2C ? total : total / last * half;

  VkFFTConfiguration c = {0};
  c.FFTdim = (uint64_t)d->rank;
  for (int i = 0; i < d->rank; i++)
    c.size[i] = d->n[d->rank - 1 - i];
  c.omitDimension[0] = omit_fastest;
  c.numberBatches = d->batch;
  c.doublePrecision = d->f64;
  c.device = &a->device;
  c.context = &a->ctx;
  c.normalize = 0;
  c.specifyOffsetsAtLaunch = 1;
  c.buffer = &a->buf;
  c.bufferSize = &a->buf_size;
  a->buf_size = d->batch * ncplx * cplx;
  a->buf_elem = cplx;
  if (d->kind != AG__FFT_C2C || !d->in_place) {
    c.isInputFormatted = 1;
    c.inputBuffer = &a->in;
    c.inputBufferSize = &a->in_size;
  }
  switch (d->kind) {
  case AG__FFT_C2C:
    a->in_size = a->buf_size;
    a->in_elem = cplx;
    break;
  case AG__FFT_R2C:
  case AG__FFT_C2R:
    c.performR2C = 1;
    a->in_size = d->batch * total * real;
    a->in_elem = real;
    c.inputBufferStride[0] = c.size[0];
    c.inputBufferStride[1] = c.inputBufferStride[0] * (d->rank > 1 ? c.size[1] : 1);
    c.inputBufferStride[2] = c.inputBufferStride[1] * (d->rank > 2 ? c.size[2] : 1);
    if (d->kind == AG__FFT_R2C) {
      c.makeForwardPlanOnly = 1;
    } else {
      c.makeInversePlanOnly = 1;
      c.inverseReturnToInputBuffer = 1;
    }
    break;
  }
  pthread_mutex_lock(&init_lock);
  VkFFTResult r = ag__vkfft_initialize(&a->app, c);
  pthread_mutex_unlock(&init_lock);
  if (r != VKFFT_SUCCESS) {
    ag__vkfft_delete(&a->app);
    memset(&a->app, 0, sizeof a->app);
    return r;
  }
  a->made = true;
  return VKFFT_SUCCESS;
}

static void vk_destroy(ag__bfft *p) {
  for (int i = 0; i < 2; i++)
    if (p->a[i].made)
      ag__vkfft_delete(&p->a[i].app);
  cl_kernel ks[3] = {p->widen, p->narrow, p->expand};
  for (int i = 0; i < 3; i++)
    if (ks[i] != NULL)
      clReleaseKernel(ks[i]);
  if (p->prog != NULL)
    clReleaseProgram(p->prog);
  free(p);
}

static ag_status vk_plan(ag__bdevice *dev, const ag__fft_desc *d, ag__bfft **out) {
  cl_device_fp_config fp64 = 0;
  if (d->f64 && (clGetDeviceInfo(dev->id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) != CL_SUCCESS || fp64 == 0))
    return core->error(AG_ERR_UNSUPPORTED, "VkFFT: the device has no double precision (cl_khr_fp64)");
  ag__bfft *p = calloc(1, sizeof *p);
  if (p == NULL)
    return core->error(AG_ERR_OUT_OF_MEMORY, "out of host memory");
  p->d = *d;
  p->ctx = dev->ctx;
  p->real = d->f64 ? sizeof(double) : sizeof(float);
  p->n = d->n[d->rank - 1];
  p->half = d->kind == AG__FFT_C2C ? p->n : p->n / 2 + 1;
  p->count = d->batch;
  for (int i = 0; i < d->rank; i++)
    p->count *= d->n[i];
  p->rows = p->count / p->n;
  /* s: d without its axes of length 1, which changes no layout. */
  ag__fft_desc s = *d;
  s.rank = 0;
  for (int i = 0; i < d->rank; i++)
    if (d->n[i] != 1)
      s.n[s.rank++] = d->n[i];
  ag_status st = AG_OK;
  VkFFTResult r = VKFFT_SUCCESS;
  const char *call = "initializeVkFFT";
  p->how = STEP_VKFFT;
  if (d->kind != AG__FFT_C2C && p->n == 1) {
    /* numpy's rfftn over (..., m, 1) is the complex FFT over (..., m) of the widened input;
       irfftn the real part of the inverse. The C2C runs in place, in the output (R2C) or in
       the input (C2R, whose input may be overwritten). */
    p->how = d->kind == AG__FFT_R2C ? STEP_WIDEN : STEP_NARROW;
    s.kind = AG__FFT_C2C;
    s.in_place = true;
  } else if (s.rank == 0) {
    p->how = STEP_COPY; /* only C2C gets here */
  }
  if (s.rank > 0) {
    p->a[0].d = s;
    r = make_app(&p->a[0], dev, false);
  }
  if (r == VKFFT_ERROR_UNSUPPORTED_FFT_LENGTH_R2C) {
    /* R2C: widen into scratch, C2C in place there, keep the first n/2 + 1 of each row. C2R:
       C2C the leading axes in place in the input, expand its rows into scratch, C2C them
       there, keep the real parts: numpy's irfftn, which transforms the last axis last. */
    r = VKFFT_SUCCESS;
    ag__fft_desc c = s;
    c.kind = AG__FFT_C2C;
    c.in_place = true;
    if (d->kind == AG__FFT_R2C) {
      p->how = STEP_R2C_FULL;
      p->a[0].d = c;
      r = make_app(&p->a[0], dev, false);
    } else {
      p->how = STEP_C2R_FULL;
      if (c.rank > 1) {
        c.n[c.rank - 1] = p->half;
        p->a[0].d = c;
        r = make_app(&p->a[0], dev, true);
        call = "initializeVkFFT (leading axes)";
      }
      if (r == VKFFT_SUCCESS) {
        ag__fft_desc row = {.kind = AG__FFT_C2C, .f64 = d->f64, .rank = 1, .n = {p->n}, .batch = p->rows,
                            .in_place = true};
        p->a[1].d = row;
        r = make_app(&p->a[1], dev, false);
        call = "initializeVkFFT (last axis)";
      }
    }
  }
  if (r != VKFFT_SUCCESS)
    st = vkfft_fail(call, r);
  if (st == AG_OK && p->how != STEP_VKFFT && p->how != STEP_COPY)
    st = build_kernels(dev, p);
  if (st != AG_OK) {
    vk_destroy(p);
    return st;
  }
  *out = p;
  return AG_OK;
}

/* Runs a on buffers and byte offsets as exec takes them (in and out the same for in place). */
static ag_status run_app(ag__bqueue *q, vkapp *a, bool inverse, cl_mem in, size_t in_off, cl_mem out,
                         size_t out_off) {
  /* C2R reads the complex side (buffer) and writes the real one (inputBuffer). */
  bool c2r = a->d.kind == AG__FFT_C2R;
  cl_mem buf = c2r ? in : out, inb = c2r ? out : in;
  size_t buf_off = c2r ? in_off : out_off, inb_off = c2r ? out_off : in_off;
  /* Offsets reach the kernels in 32 bits, counted in elements, unless VkFFT chose 64-bit
     indexing for the plan (buffers of 16 GiB and more). */
  if (!a->app.configuration.useUint64 &&
      ((buf_off + a->buf_size) / a->buf_elem > UINT32_MAX || (inb_off + a->in_size) / a->in_elem > UINT32_MAX))
    return core->error(AG_ERR_UNSUPPORTED, "VkFFTAppend: offsets past 2^32 elements need a plan with 64-bit indices");
  a->buf = buf;
  a->in = inb;
  a->queue = q->q;
  VkFFTLaunchParams lp = {0};
  lp.commandQueue = &a->queue;
  lp.buffer = &a->buf;
  if (a->app.configuration.isInputFormatted)
    lp.inputBuffer = &a->in;
  lp.bufferOffset = buf_off;
  lp.inputBufferOffset = inb_off;
  VkFFTResult r = ag__vkfft_append(&a->app, inverse ? 1 : -1, &lp);
  if (r != VKFFT_SUCCESS)
    return vkfft_fail("VkFFTAppend", r);
  return AG_OK;
}

/* Launches k(in, in_off, out, out_off, args...) over `global` items; offsets in bytes here.
   One thread at a time runs a plan (the core's plan lock), so setting arguments is safe. */
static ag_status run_kernel(ag__bqueue *q, ag__bfft *p, cl_kernel k, size_t global, cl_mem in, size_t in_off,
                            cl_mem out, size_t out_off, int nargs, const cl_ulong *args) {
  cl_ulong io = in_off / p->real, oo = out_off / p->real;
  cl_int e = clSetKernelArg(k, 0, sizeof in, &in);
  if (e == CL_SUCCESS)
    e = clSetKernelArg(k, 1, sizeof io, &io);
  if (e == CL_SUCCESS)
    e = clSetKernelArg(k, 2, sizeof out, &out);
  if (e == CL_SUCCESS)
    e = clSetKernelArg(k, 3, sizeof oo, &oo);
  for (int i = 0; i < nargs && e == CL_SUCCESS; i++)
    e = clSetKernelArg(k, (cl_uint)(4 + i), sizeof args[i], &args[i]);
  if (e != CL_SUCCESS)
    return CL_FAIL("clSetKernelArg", e);
  CL_TRY("clEnqueueNDRangeKernel", clEnqueueNDRangeKernel(q->q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  return AG_OK;
}

/* Scratch for the full-length fallbacks: released as soon as the work using it is enqueued
   (OpenCL frees it when that work is done), so cached plans hold no memory. */
static ag_status scratch(ag__bfft *p, cl_mem *out) {
  cl_int e;
  *out = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, p->count * 2 * p->real, NULL, &e);
  if (*out == NULL)
    return CL_FAIL("clCreateBuffer", e);
  return AG_OK;
}

static ag_status vk_exec(ag__bqueue *q, ag__bfft *p, bool inverse, ag__bmem *in, size_t in_off, ag__bmem *out,
                         size_t out_off) {
  ag_status st = AG_OK;
  cl_mem i = MEM(in), o = MEM(out), t = NULL;
  cl_ulong n1 = p->count, rows = p->rows, half = p->half, n = p->n;
  switch (p->how) {
  case STEP_VKFFT:
    return run_app(q, &p->a[0], inverse, i, in_off, o, out_off);
  case STEP_COPY:
    if (i != o || in_off != out_off) {
      CL_TRY("clEnqueueCopyBuffer",
             clEnqueueCopyBuffer(q->q, i, o, in_off, out_off, p->count * 2 * p->real, 0, NULL, NULL));
    }
    return AG_OK;
  case STEP_WIDEN:
    st = run_kernel(q, p, p->widen, p->count, i, in_off, o, out_off, 1, &n1);
    if (st == AG_OK && p->a[0].made)
      st = run_app(q, &p->a[0], false, o, out_off, o, out_off);
    return st;
  case STEP_NARROW:
    if (p->a[0].made)
      st = run_app(q, &p->a[0], true, i, in_off, i, in_off);
    if (st == AG_OK)
      st = run_kernel(q, p, p->narrow, p->count, i, in_off, o, out_off, 1, &n1);
    return st;
  case STEP_R2C_FULL: {
    if ((st = scratch(p, &t)) != AG_OK)
      return st;
    st = run_kernel(q, p, p->widen, p->count, i, in_off, t, 0, 1, &n1);
    if (st == AG_OK)
      st = run_app(q, &p->a[0], false, t, 0, t, 0);
    if (st == AG_OK) {
      size_t cplx = 2 * p->real;
      size_t src_origin[3] = {0, 0, 0}, dst_origin[3] = {out_off, 0, 0}, region[3] = {p->half * cplx, p->rows, 1};
      cl_int e = clEnqueueCopyBufferRect(q->q, t, o, src_origin, dst_origin, region, p->n * cplx, 0, p->half * cplx, 0,
                                         0, NULL, NULL);
      if (e != CL_SUCCESS)
        st = CL_FAIL("clEnqueueCopyBufferRect", e);
    }
    clReleaseMemObject(t);
    return st;
  }
  case STEP_C2R_FULL: {
    if ((st = scratch(p, &t)) != AG_OK)
      return st;
    if (p->a[0].made)
      st = run_app(q, &p->a[0], true, i, in_off, i, in_off);
    const cl_ulong args[3] = {rows, half, n};
    if (st == AG_OK)
      st = run_kernel(q, p, p->expand, p->count, i, in_off, t, 0, 3, args);
    if (st == AG_OK)
      st = run_app(q, &p->a[1], true, t, 0, t, 0);
    if (st == AG_OK)
      st = run_kernel(q, p, p->narrow, p->count, t, 0, o, out_off, 1, &n1);
    clReleaseMemObject(t);
    return st;
  }
  }
  return st;
}

/* VkFFT may overwrite a C2R's complex input while it transforms the leading axes in place. */
static const ag__fft_ops vkfft_ops = {
    .name = "VkFFT",
    .offsets = true,
    .c2r_destroys_input = true,
    .plan = vk_plan,
    .exec = vk_exec,
    .destroy = vk_destroy,
};

const ag__fft_ops *ag__cl_vkfft(ag__bdevice *dev) {
  (void)dev;
  return &vkfft_ops;
}
