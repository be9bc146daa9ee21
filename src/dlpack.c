/* src/dlpack.c — arrays exchanged as DLPack 0.6 tensors without copies (include/anygpu/dlpack.h):
   an exported tensor holds a view of the array; an imported one becomes the borrowed memory
   of a buffer that the pool never takes (ag__buffer_borrow). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "array.h"

#if AG_HAVE_DLPACK

#include <dlpack/dlpack.h>

_Static_assert(DLPACK_VERSION >= 60, "anygpu speaks DLPack 0.6");

/* kDLBool, from DLPack 0.8 on (numpy and PyTorch export bool so); the 0.6 header lacks it. */
enum { DL_BOOL = 6 };

/* anygpu's dtypes as DLPack's (code, bits); lanes are always 1. */
static const struct {
  uint8_t code, bits;
} dl_types[AG_DTYPE_COUNT] = {
    [AG_U8] = {kDLUInt, 8},      [AG_U16] = {kDLUInt, 16},     [AG_U32] = {kDLUInt, 32},
    [AG_U64] = {kDLUInt, 64},    [AG_I8] = {kDLInt, 8},        [AG_I16] = {kDLInt, 16},
    [AG_I32] = {kDLInt, 32},     [AG_I64] = {kDLInt, 64},      [AG_F32] = {kDLFloat, 32},
    [AG_F64] = {kDLFloat, 64},   [AG_C64] = {kDLComplex, 64},  [AG_C128] = {kDLComplex, 128},
    [AG_BOOL] = {DL_BOOL, 8},
};

/* DLDataTypeCode's names, for messages ("int64"); 6 is bool from DLPack 0.8 on. */
static const char *code_name(uint8_t code) {
  static const char *const names[] = {"int", "uint", "float", "handle", "bfloat", "complex", "bool"};
  return code < sizeof names / sizeof names[0] ? names[code] : "unknown";
}

/* DLDeviceType's names, for messages. */
static const char *device_name(int type) {
  static const char *const names[] = {
      [kDLCPU] = "kDLCPU",       [kDLCUDA] = "kDLCUDA",       [kDLCUDAHost] = "kDLCUDAHost",
      [kDLOpenCL] = "kDLOpenCL", [kDLVulkan] = "kDLVulkan",   [kDLMetal] = "kDLMetal",
      [kDLVPI] = "kDLVPI",       [kDLROCM] = "kDLROCM",       [kDLROCMHost] = "kDLROCMHost",
      [kDLExtDev] = "kDLExtDev", [kDLCUDAManaged] = "kDLCUDAManaged",
  };
  const char *s = type >= 0 && type < (int)(sizeof names / sizeof names[0]) ? names[type] : NULL;
  return s != NULL ? s : "an unknown device type";
}

/* ---- export ------------------------------------------------------------------------------- */

/* One allocation per tensor: the tensor first, so the deleter's pointer is the block's. */
typedef struct exported {
  DLManagedTensor t;
  ag_array *view; /* keeps the memory alive */
  int64_t shape[AG_MAX_DIMS];
  int64_t strides[AG_MAX_DIMS];
} exported;

static void export_deleter(DLManagedTensor *self) {
  exported *e = self->manager_ctx;
  ag_array_free(e->view);
  free(e);
}

ag_status ag_array_to_dlpack(const ag_array *a, DLManagedTensor **out) {
  static const char fn[] = "ag_array_to_dlpack";
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, a);
  if (a->dev->be->dlpack_device_type == 0)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: a is on %s, whose backend has no DLPack device type", fn,
                     a->dev->info.spec);
  exported *e = calloc(1, sizeof *e);
  if (e == NULL)
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ag_status st = ag__array_alias(fn, a, &e->view);
  if (st != AG_OK) {
    free(e);
    return st;
  }
  for (int d = 0; d < a->ndim; d++) {
    e->shape[d] = (int64_t)a->shape[d];
    e->strides[d] = (int64_t)a->strides[d];
  }
  /* The buffer's handle is the native one (backend.h, ag__bmem): a host pointer, a
     CUdeviceptr or a cl_mem. */
  e->t.dl_tensor = (DLTensor){
      .data = a->store != NULL ? (void *)a->store->buf->mem : NULL,
      .device = {.device_type = (DLDeviceType)a->dev->be->dlpack_device_type, .device_id = a->dev->ordinal},
      .ndim = a->ndim,
      .dtype = {.code = dl_types[a->dtype].code, .bits = dl_types[a->dtype].bits, .lanes = 1},
      .shape = e->shape,
      .strides = a->contiguous ? NULL : e->strides, /* NULL: compact row-major */
      .byte_offset = a->store != NULL ? (uint64_t)(a->offset * ag_dtype_size(a->dtype)) : 0,
  };
  e->t.manager_ctx = e;
  e->t.deleter = export_deleter;
  *out = &e->t;
  return AG_OK;
}

/* ---- import ------------------------------------------------------------------------------- */

static ag_status import_dtype(const char *fn, DLDataType dt, ag_dtype *out) {
  if (dt.lanes != 1)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.dtype is %s%ux%u (code %u, bits %u, lanes %u): "
                     "anygpu's dtypes have 1 lane", fn, code_name(dt.code), dt.bits, dt.lanes, dt.code, dt.bits,
                     dt.lanes);
  for (int k = 0; k < AG_DTYPE_COUNT; k++) {
    if (dl_types[k].code == dt.code && dl_types[k].bits == dt.bits) {
      *out = (ag_dtype)k;
      return AG_OK;
    }
  }
  return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.dtype is %s%u (code %u, bits %u), which anygpu has no "
                   "dtype for", fn, code_name(dt.code), dt.bits, dt.code, dt.bits);
}

/* The shape, the element count, and the strides in elements (row-major when the tensor has
   none), which must be 0 or more, and the highest element's offset (*reach) from the first. */
static ag_status import_shape(const char *fn, const DLTensor *dl, int *ndim, size_t *shape, ptrdiff_t *strides,
                              size_t *count, size_t *reach) {
  if (dl->ndim < 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.ndim is %d", fn, dl->ndim);
  if (dl->ndim > AG_MAX_DIMS)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: t->dl_tensor.ndim is %d, more than the %d dimensions of anygpu's arrays",
                     fn, dl->ndim, AG_MAX_DIMS);
  if (dl->ndim > 0 && dl->shape == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.shape is NULL", fn);
  *ndim = dl->ndim;
  size_t n = 1;
  bool empty = false;
  for (int d = 0; d < dl->ndim; d++) {
    if (dl->shape[d] < 0 || (uint64_t)dl->shape[d] > PTRDIFF_MAX)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.shape[%d] is %" PRId64, fn, d, dl->shape[d]);
    shape[d] = (size_t)dl->shape[d];
    if (shape[d] == 0)
      empty = true;
    else if (n > PTRDIFF_MAX / shape[d])
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.shape[%d] = %zu makes the element count overflow",
                       fn, d, shape[d]);
    else
      n *= shape[d];
  }
  *count = empty ? 0 : n;
  *reach = 0;
  int64_t step = 1;
  for (int d = dl->ndim - 1; d >= 0; d--) {
    int64_t s = dl->strides != NULL ? dl->strides[d] : step;
    step *= shape[d] ? (int64_t)shape[d] : 1;
    if (s < 0)
      return ag__error(AG_ERR_UNSUPPORTED, "%s: t->dl_tensor.strides[%d] is %" PRId64 ": anygpu imports strides of 0 "
                       "or more (the memory a tensor borrows starts at its first element)", fn, d, s);
    if (!empty && shape[d] > 1 && (uint64_t)s > (PTRDIFF_MAX - *reach) / (shape[d] - 1))
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.strides[%d] = %" PRId64 " reaches past the memory "
                       "an offset can address", fn, d, s);
    strides[d] = (ptrdiff_t)s;
    if (!empty)
      *reach += (size_t)s * (shape[d] - 1);
  }
  return AG_OK;
}

/* The anygpu device a DLDevice names: kDLCPU and kDLCUDAHost the host (whatever the id), the
   others the device of the backend of that DLPack type whose own index is device_id. */
static ag_status import_device(const char *fn, DLDevice d, ag_device **out) {
  int type = d.device_type == kDLCUDAHost ? kDLCPU : (int)d.device_type;
  int of_type = 0;
  for (int i = 0; i < ag__device_total(); i++) {
    ag_device *dev = ag__device_at(i);
    if (dev->be->dlpack_device_type != type)
      continue;
    of_type++;
    if (type == kDLCPU || dev->ordinal == d.device_id) {
      *out = dev;
      return AG_OK;
    }
  }
  return ag__error(AG_ERR_NO_DEVICE, "%s: t->dl_tensor.device is %s (%d) %d, which is not present (%d device%s of "
                   "that type)", fn, device_name((int)d.device_type), (int)d.device_type, d.device_id, of_type,
                   of_type == 1 ? "" : "s");
}

/* The tensor @p t is ag_array_to_dlpack's and still describes its view: the import is then a
   view of that view, over the same buffer. */
static bool is_own_view(const DLManagedTensor *t, ag_device *dev, ag_dtype dtype, size_t count, int ndim,
                        const size_t *shape, const ptrdiff_t *strides) {
  if (t->deleter != export_deleter)
    return false;
  const ag_array *v = ((const exported *)t->manager_ctx)->view;
  if (v->ndim != ndim)
    return false;
  for (int d = 0; d < ndim; d++)
    if (v->shape[d] != shape[d] || (shape[d] > 1 && v->strides[d] != strides[d]))
      return false;
  size_t offset = v->store != NULL ? v->offset * ag_dtype_size(v->dtype) : 0;
  void *data = v->store != NULL ? (void *)v->store->buf->mem : NULL;
  return v->dev == dev && v->dtype == dtype && v->size == count && t->dl_tensor.byte_offset == offset &&
         t->dl_tensor.data == data;
}

static void release_tensor(void *ctx) {
  DLManagedTensor *t = ctx;
  if (t->deleter != NULL)
    t->deleter(t);
}

ag_status ag_array_from_dlpack(DLManagedTensor *t, ag_array **out) {
  static const char fn[] = "ag_array_from_dlpack";
  AG__CHECK_NOT_NULL(fn, out);
  *out = NULL;
  AG__CHECK_NOT_NULL(fn, t);
  ag_status st = ag__registry_init();
  if (st != AG_OK)
    return ag__prefix(st, fn);
  const DLTensor *dl = &t->dl_tensor;
  ag_dtype dtype = AG_U8;
  int ndim = 0;
  size_t shape[AG_MAX_DIMS], count = 0, reach = 0;
  ptrdiff_t strides[AG_MAX_DIMS];
  ag_device *dev = NULL;
  if ((st = import_dtype(fn, dl->dtype, &dtype)) != AG_OK)
    return st;
  if ((st = import_shape(fn, dl, &ndim, shape, strides, &count, &reach)) != AG_OK)
    return st;
  if ((st = import_device(fn, dl->device, &dev)) != AG_OK)
    return st;
  size_t es = ag_dtype_size(dtype), bytes = count > 0 ? (reach + 1) * es : 0;
  if (dl->byte_offset % es != 0)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: t->dl_tensor.byte_offset %" PRIu64 " is not a multiple of the %zu bytes "
                     "of a %s element", fn, dl->byte_offset, es, ag_dtype_name(dtype));
  if (dl->byte_offset > SIZE_MAX - bytes)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.byte_offset %" PRIu64 " + %zu bytes overflows", fn,
                     dl->byte_offset, bytes);

  if (count > 0 && is_own_view(t, dev, dtype, count, ndim, shape, strides)) {
    st = ag__array_alias(fn, ((exported *)t->manager_ctx)->view, out);
    if (st != AG_OK)
      return st;
    export_deleter(t); /* the new view holds the memory now */
    return AG_OK;
  }
  if (count == 0) {
    /* No memory to hold: the tensor is done with at once. */
    if ((st = ag_array_create(dev, dtype, ndim, shape, out)) != AG_OK)
      return ag__prefix(st, fn);
    release_tensor(t);
    return AG_OK;
  }
  if (dl->data == NULL)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: t->dl_tensor.data is NULL", fn);
  if (dev->be->mem_borrow == NULL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s takes no memory of other libraries", fn, dev->info.spec);
  size_t span = (size_t)dl->byte_offset + bytes;
  ag__bmem *mem;
  if ((st = dev->be->mem_borrow(dev->bdev, dl->data, span, &mem)) != AG_OK)
    return ag__prefix(st, fn);
  ag_buffer *buf;
  if ((st = ag__buffer_borrow(dev, mem, span, release_tensor, t, &buf)) != AG_OK)
    return ag__prefix(st, fn);
  if ((st = ag__array_over(fn, buf, (size_t)dl->byte_offset / es, dtype, ndim, shape, out)) != AG_OK) {
    free(buf); /* unused yet, and the tensor stays the caller's */
    return st;
  }
  ag__array_set_strides(*out, strides);
  return AG_OK;
}

#else

static ag_status without(const char *fn) {
  return ag__error(AG_ERR_UNSUPPORTED, "%s: anygpu was built without dlpack/dlpack.h (Debian's libdlpack-dev)", fn);
}

ag_status ag_array_to_dlpack(const ag_array *a, struct DLManagedTensor **out) {
  (void)a;
  if (out != NULL)
    *out = NULL;
  return without("ag_array_to_dlpack");
}

ag_status ag_array_from_dlpack(struct DLManagedTensor *t, ag_array **out) {
  (void)t;
  if (out != NULL)
    *out = NULL;
  return without("ag_array_from_dlpack");
}

#endif
