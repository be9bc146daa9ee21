/* src/fft.c - Fourier transforms on arrays: checks, the device's FFT provider (FFTW, VkFFT,
   clFFT, cuFFT) with its plans kept per device, views through contiguous stand-ins, numpy's
   normalisation, and fftshift. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#include "layout.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/elementwise.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_roll, AG_SHAPE_ROLL)

/* A provider looked up for a device, by the name it was asked for ("" for the default). */
typedef struct fft_provider {
  char name[16];
  const ag__fft_ops *ops;
  char *reason;
  struct fft_provider *next;
} fft_provider;

/* A plan, run by one thread at a time (its lock), with an event after its last run so it is
   not destroyed while that run is pending. `users` counts the transforms that hold it, from
   plan_for to plan_release: ag_device_trim may run on any thread, and leaves such a plan
   alone rather than free it under a transform that is about to run it. */
typedef struct fft_plan {
  const ag__fft_ops *ops;
  ag__fft_desc desc;
  ag__bfft *plan;
  pthread_mutex_t lock;
  ag__bevent *last;      /* under lock */
  int users;             /* under the device's fft_lock */
  struct fft_plan *next; /* under the device's fft_lock */
} fft_plan;

struct ag__fft_cache {
  fft_provider *providers;
  fft_plan *plans;
};

/* The provider name this device's backend is asked for: the backend's variable
   (ANYGPU_OPENCL_FFT), read at every call. */
static const char *provider_wanted(const ag_device *dev) {
  if (dev->be->fft_env == NULL)
    return NULL;
  const char *v = getenv(dev->be->fft_env);
  return v != NULL && *v != '\0' ? v : NULL;
}

/* Called with fft_lock held. */
static ag__fft_cache *cache_of(ag_device *dev) {
  if (dev->fft == NULL)
    dev->fft = calloc(1, sizeof *dev->fft);
  return dev->fft;
}

static ag_status device_fft(const char *fn, ag_device *dev, const ag__fft_ops **ops) {
  const char *want = provider_wanted(dev);
  ag_status st = AG_OK;
  pthread_mutex_lock(&dev->fft_lock);
  ag__fft_cache *c = cache_of(dev);
  fft_provider *p = NULL;
  if (c == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    goto done;
  }
  for (p = c->providers; p != NULL; p = p->next)
    if (strcmp(p->name, want ? want : "") == 0)
      break;
  if (p == NULL && (p = calloc(1, sizeof *p)) != NULL) {
    snprintf(p->name, sizeof p->name, "%s", want ? want : "");
    p->ops = dev->be->fft ? dev->be->fft(dev->bdev, want) : NULL;
    if (p->ops == NULL)
      p->reason = strdup(dev->be->fft ? ag_last_error() : "the backend has no FFT");
    p->next = c->providers;
    c->providers = p;
  }
  if (p == NULL)
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  else if (p->ops == NULL)
    st = ag__error(AG_ERR_UNSUPPORTED, "%s: %s has no FFT%s%s: %s", fn, dev->info.spec, want ? " provider " : "",
                   want ? want : "", p->reason ? p->reason : "");
  else
    *ops = p->ops;
done:
  pthread_mutex_unlock(&dev->fft_lock);
  return st;
}

const char *ag_fft_provider(const ag_device *dev) {
  if (dev == NULL)
    return NULL;
  const ag__fft_ops *ops;
  char *saved = ag__error_save();
  ag_status st = device_fft("ag_fft_provider", (ag_device *)dev, &ops);
  ag__error_restore(saved);
  return st == AG_OK ? ops->name : NULL;
}

static bool same_desc(const ag__fft_desc *a, const ag__fft_desc *b) {
  if (a->kind != b->kind || a->f64 != b->f64 || a->rank != b->rank || a->batch != b->batch ||
      a->in_place != b->in_place)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->n[i] != b->n[i])
      return false;
  return true;
}

/* The plan for @p d, made on first use, held for the caller until plan_release. Planning can
   take seconds (VkFFT compiles kernels), which this device's other FFT calls and its trim wait
   for; other work, and other devices, are not held up. */
static ag_status plan_for(const char *fn, ag_device *dev, const ag__fft_ops *ops, const ag__fft_desc *d,
                          fft_plan **out) {
  ag_status st = AG_OK;
  pthread_mutex_lock(&dev->fft_lock);
  ag__fft_cache *c = cache_of(dev);
  fft_plan *p;
  for (p = c ? c->plans : NULL; p != NULL; p = p->next)
    if (p->ops == ops && same_desc(&p->desc, d))
      break;
  if (p == NULL && c != NULL && (p = calloc(1, sizeof *p)) != NULL) {
    p->ops = ops;
    p->desc = *d;
    st = ops->plan(dev->bdev, d, &p->plan);
    if (st != AG_OK) {
      free(p);
      p = NULL;
      st = ag__prefix(st, fn);
    } else {
      pthread_mutex_init(&p->lock, NULL);
      p->next = c->plans;
      c->plans = p;
    }
  } else if (p == NULL) {
    st = ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  if (p != NULL)
    p->users++;
  pthread_mutex_unlock(&dev->fft_lock);
  *out = p;
  return st;
}

/* Gives back a plan from plan_for; ag_device_trim may destroy it from then on. */
static void plan_release(ag_device *dev, fft_plan *p) {
  pthread_mutex_lock(&dev->fft_lock);
  p->users--;
  pthread_mutex_unlock(&dev->fft_lock);
}

/* Destroys the plans no transform holds, each once its last run is done. A held plan stays
   cached for a later trim: its holder is about to run it, or running it. */
void ag__fft_trim(ag_device *dev) {
  fft_plan *idle = NULL;
  pthread_mutex_lock(&dev->fft_lock);
  if (dev->fft != NULL) {
    fft_plan **link = &dev->fft->plans;
    while (*link != NULL) {
      fft_plan *p = *link;
      if (p->users > 0) {
        link = &p->next;
      } else {
        *link = p->next;
        p->next = idle;
        idle = p;
      }
    }
  }
  pthread_mutex_unlock(&dev->fft_lock);
  /* Out of the cache and held by no one, these plans are this thread's alone: their last runs
     are waited for without the lock, which this device's FFT calls need meanwhile. */
  for (fft_plan *p = idle; p != NULL; p = p->next)
    if (p->last != NULL) {
      dev->be->event_wait(p->last);
      dev->be->event_destroy(p->last);
    }
  /* Providers make and destroy plans one at a time per device (backend.h). */
  pthread_mutex_lock(&dev->fft_lock);
  while (idle != NULL) {
    fft_plan *next = idle->next;
    idle->ops->destroy(idle->plan);
    pthread_mutex_destroy(&idle->lock);
    free(idle);
    idle = next;
  }
  pthread_mutex_unlock(&dev->fft_lock);
}

/* A scratch copy of @p a (its shape and dtype, at offset 0 of its own buffer). */
static ag_status stage(const char *fn, ag_queue *q, const ag_array *a, bool copy, ag_array **tmp) {
  ag_status st = ag_array_create(a->dev, a->dtype, a->ndim, a->shape, tmp);
  if (st == AG_OK && copy && (st = ag_copy(q, a, *tmp)) != AG_OK) {
    ag_array_free(*tmp);
    *tmp = NULL;
  }
  return ag__prefix(st, fn);
}

/* Whether the provider takes @p a where it is: at offset 0 always; elsewhere when it takes
   offsets, and (cuFFT) when the offset is a whole number of complex elements. */
static bool in_reach(const ag__fft_ops *ops, const ag_array *a) {
  if (a->offset == 0)
    return true;
  if (!ops->offsets)
    return false;
  size_t es = ag_dtype_size(a->dtype), cs = ag__dtype_is_complex(a->dtype) ? es : 2 * es;
  return !ops->complex_aligned || (a->offset * es) % cs == 0;
}

/* Runs @p plan from x into out on @p rq, unscaled. Stages what the provider cannot take where
   it is (in_reach), and c2r's input when the provider overwrites it. */
static ag_status run(const char *fn, ag_queue *rq, fft_plan *plan, ag__fft_kind kind, bool inverse, bool in_place,
                     const ag_array *x, ag_array *out) {
  const ag__fft_ops *ops = plan->ops;
  ag_status st;
  ag_array *tin = NULL, *tout = NULL;
  const ag_array *in = x;
  ag_array *dst = out;
  bool stage_in = !in_reach(ops, x) || (kind == AG__FFT_C2R && ops->c2r_destroys_input);
  bool stage_out = !in_reach(ops, out);
  if (in_place && (stage_in || stage_out)) {
    if ((st = stage(fn, rq, x, true, &tin)) != AG_OK)
      return st;
    in = dst = tin;
  } else {
    if (stage_in && (st = stage(fn, rq, x, true, &tin)) != AG_OK)
      return st;
    if (stage_in)
      in = tin;
    if (stage_out && (st = stage(fn, rq, out, false, &tout)) != AG_OK) {
      ag_array_free(tin);
      return st;
    }
    if (stage_out)
      dst = tout;
  }
  size_t ies = ag_dtype_size(in->dtype), oes = ag_dtype_size(dst->dtype);
  pthread_mutex_lock(&plan->lock);
  st = ops->exec(rq->bq, plan->plan, inverse, in->store->buf->mem, in->offset * ies, dst->store->buf->mem,
                 dst->offset * oes);
  if (st == AG_OK) {
    ag__bevent *ev = NULL;
    if (x->dev->be->event_record(rq->bq, &ev) == AG_OK) {
      if (plan->last != NULL)
        x->dev->be->event_destroy(plan->last);
      plan->last = ev;
    }
  }
  pthread_mutex_unlock(&plan->lock);
  if (st == AG_OK) {
    ag__buffer_touch(in->store->buf, rq);
    ag__buffer_touch(dst->store->buf, rq);
    if (dst != out)
      st = ag_copy(rq, dst, out);
  }
  ag_array_free(tin);
  ag_array_free(tout);
  return ag__prefix(st, fn);
}

/* Whether @p a and @p b are one view: one memory, offset, shape and strides. */
static bool same_view(const ag_array *a, const ag_array *b) {
  if (a->store != b->store || a->offset != b->offset || a->ndim != b->ndim)
    return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d] || (a->shape[d] > 1 && a->strides[d] != b->strides[d]))
      return false;
  return true;
}

static ag_status transform(const char *fn, ag_queue *q, ag__fft_kind kind, bool inverse, const ag_array *x, int ndim,
                           ag_fft_norm norm, ag_array *out) {
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (ndim < 1 || ndim > 3 || ndim > x->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ndim is %d; it must be 1, 2 or 3, and at most x's %d dimensions", fn,
                     ndim, x->ndim);
  if ((unsigned)norm > AG_FFT_FORWARD)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: norm is %d, not an ag_fft_norm", fn, (int)norm);
  /* Dtypes: complex in and out for c2c, real in for r2c, real out for c2r, one precision. */
  bool x_complex = kind != AG__FFT_R2C, out_complex = kind != AG__FFT_C2R;
  if (ag__dtype_is_complex(x->dtype) != x_complex || !(ag__dtype_is_complex(x->dtype) || ag__dtype_is_float(x->dtype)))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is %s; %s takes %s", fn, ag_dtype_name(x->dtype), fn,
                     x_complex ? "c64 or c128" : "f32 or f64");
  ag_dtype want = x_complex == out_complex ? x->dtype
                  : out_complex           ? (x->dtype == AG_F32 ? AG_C64 : AG_C128)
                                          : ag__dtype_real(x->dtype);
  if (out->dtype != want)
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s but x of %s gives %s", fn, ag_dtype_name(out->dtype),
                     ag_dtype_name(x->dtype), ag_dtype_name(want));
  if ((st = ag__check_fp64(fn, x->dev, x->dtype)) != AG_OK)
    return st;
  /* Shapes: equal, except the halved last axis of r2c's out and c2r's x. */
  const ag_array *real_side = kind == AG__FFT_C2R ? out : x, *other = kind == AG__FFT_C2R ? x : out;
  bool shapes_ok = real_side->ndim == other->ndim;
  for (int d = 0; shapes_ok && d < real_side->ndim; d++) {
    size_t expect = real_side->shape[d];
    if (kind != AG__FFT_C2C && d == real_side->ndim - 1)
      expect = expect / 2 + 1;
    shapes_ok = other->shape[d] == expect;
  }
  if (!shapes_ok)
    return ag__error(AG_ERR_MISMATCH, "%s: %s's shape does not fit %s's%s", fn, other == out ? "out" : "x",
                     real_side == x ? "x" : "out", kind == AG__FFT_C2C ? "" : " (the last axis is n/2 + 1 on the complex side)");
  bool shared = x->store != NULL && x->store == out->store;
  bool in_place = shared && same_view(x, out);
  if (shared && (!in_place || kind != AG__FFT_C2C))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x and out share memory; only ag_fft and ag_ifft run in place (out = x)",
                     fn);

  ag__fft_desc d = {.kind = kind, .f64 = ag__dtype_real(x->dtype) == AG_F64, .rank = ndim, .batch = 1,
                    .in_place = in_place};
  size_t N = 1;
  for (int i = 0; i < ndim; i++) {
    d.n[i] = real_side->shape[real_side->ndim - ndim + i];
    N *= d.n[i];
  }
  for (int i = 0; i < real_side->ndim - ndim; i++)
    d.batch *= real_side->shape[i];
  if (N == 0 || d.batch == 0)
    return AG_OK;

  /* The queue is checked before planning, which may take seconds. */
  const ag__fft_ops *ops;
  fft_plan *plan;
  ag_queue *rq;
  if ((st = device_fft(fn, x->dev, &ops)) != AG_OK)
    return st;
  st = ag__queue_resolve(fn, q, x->dev, &rq);
  if (st != AG_OK)
    return st;
  /* Views stand in contiguous (the providers take batches back to back); out's stand-in, or
     the one stand-in of a transform in place, is copied back at the end. */
  ag_array *tx = NULL, *tout = NULL;
  const ag_array *ux = x;
  ag_array *uout = out;
  if (!out->contiguous) {
    st = ag__check_writable(fn, "out", out);
    if (st != AG_OK)
      return st;
  }
  if (in_place && !x->contiguous) {
    st = ag__stand_in(fn, rq, x, true, &tx);
    if (st != AG_OK)
      return st;
    ux = uout = tx;
  } else {
    if (!x->contiguous) {
      st = ag__stand_in(fn, rq, x, true, &tx);
      if (st != AG_OK)
        return st;
      ux = tx;
    }
    if (!out->contiguous) {
      st = ag__stand_in(fn, rq, out, false, &tout);
      if (st != AG_OK)
        goto done;
      uout = tout;
    }
  }
  st = plan_for(fn, x->dev, ops, &d, &plan);
  if (st != AG_OK)
    goto done;
  st = run(fn, rq, plan, kind, inverse, in_place, ux, uout);
  plan_release(x->dev, plan);
  if (st != AG_OK)
    goto done;

  /* numpy's norm=: "backward" scales the inverse by 1/N, "ortho" both by 1/sqrt(N),
     "forward" the forward by 1/N. */
  double scale = norm == AG_FFT_ORTHO ? 1 / sqrt((double)N)
                 : (norm == AG_FFT_BACKWARD) == inverse ? 1 / (double)N
                                                         : 1;
  if (scale != 1)
    st = ag__prefix(ag_binary_scalar(rq, AG_OP_MUL, uout, scale, 0, false, uout), fn);
  if (st == AG_OK && uout != out)
    st = ag__copy_layout(fn, rq, uout, out);
done:
  ag_array_free(tx);
  ag_array_free(tout);
  return st;
}

ag_status ag_fft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out) {
  return transform("ag_fft", q, AG__FFT_C2C, false, x, ndim, norm, out);
}
ag_status ag_ifft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out) {
  return transform("ag_ifft", q, AG__FFT_C2C, true, x, ndim, norm, out);
}
ag_status ag_rfft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out) {
  return transform("ag_rfft", q, AG__FFT_R2C, false, x, ndim, norm, out);
}
ag_status ag_irfft(ag_queue *q, const ag_array *x, int ndim, ag_fft_norm norm, ag_array *out) {
  return transform("ag_irfft", q, AG__FFT_C2R, true, x, ndim, norm, out);
}

/* numpy.fft.fftshift rolls each axis by n // 2, ifftshift by -(n // 2). */
static ag_status shift(const char *fn, ag_queue *q, const ag_array *x, int ndim, bool inverse, ag_array *out) {
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_shape(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_fp64(fn, x->dev, x->dtype)) != AG_OK)
    return st;
  if (ndim < 1 || ndim > 3 || ndim > x->ndim)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ndim is %d; it must be 1, 2 or 3, and at most x's %d dimensions", fn,
                     ndim, x->ndim);
  if (x->size == 0)
    return AG_OK;
  if (x->store == out->store)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out must not share memory with x", fn);
  uint64_t dd[3] = {1, 1, 1}, ss[3] = {0, 0, 0};
  for (int i = 0; i < ndim; i++) {
    uint64_t n = x->shape[x->ndim - ndim + i];
    dd[3 - ndim + i] = n;
    ss[3 - ndim + i] = inverse ? n - n / 2 : n / 2;
    if (ss[3 - ndim + i] == n)
      ss[3 - ndim + i] = 0;
  }
  ag__launch l = {.fn = fn, .q = q, .dev = x->dev, .kernel = AG_K_ROLL + x->dtype, .n = x->size};
  return AG__LAUNCH(launch_roll, &l, .x = x, .out = out, .d1 = dd[0], .d2 = dd[1], .d3 = dd[2], .s1 = ss[0],
                    .s2 = ss[1], .s3 = ss[2]);
}

ag_status ag_fftshift(ag_queue *q, const ag_array *x, int ndim, ag_array *out) {
  return shift("ag_fftshift", q, x, ndim, false, out);
}
ag_status ag_ifftshift(ag_queue *q, const ag_array *x, int ndim, ag_array *out) {
  return shift("ag_ifftshift", q, x, ndim, true, out);
}
