/* tests/test_dlpack.c — DLPack tensors (dlpack.h): round trips that share the array's memory
   for every dtype, shape and view; the lifetime of imported tensors, counted through their
   deleters; hand-built host tensors written through without copies; and the refusals, each
   leaving the tensor untouched and its deleter uncalled. */
#include <dlpack/dlpack.h>
#include <stdlib.h>

#include "reference.h"

#if AG_TEST_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#endif

/* DLPack's (code, bits) of each dtype, as dlpack.h lists them. */
static const DLDataType dl_of[AG_DTYPE_COUNT] = {
    [AG_U8] = {kDLUInt, 8, 1},     [AG_U16] = {kDLUInt, 16, 1},  [AG_U32] = {kDLUInt, 32, 1},
    [AG_I32] = {kDLInt, 32, 1},    [AG_F32] = {kDLFloat, 32, 1}, [AG_F64] = {kDLFloat, 64, 1},
    [AG_C64] = {kDLComplex, 64, 1}, [AG_C128] = {kDLComplex, 128, 1}, [AG_BOOL] = {6, 8, 1}, /* kDLBool, 0.8 */
    [AG_I8] = {kDLInt, 8, 1},      [AG_I16] = {kDLInt, 16, 1},   [AG_I64] = {kDLInt, 64, 1},
    [AG_U64] = {kDLUInt, 64, 1},
};

/* ---- tensors with a counting deleter ----------------------------------------------------------- */

/* Deleter calls, in this test process. */
static int deleted;

/* A tensor of ours: malloc'd data and shape, freed by its deleter, which counts. */
typedef struct own_tensor {
  DLManagedTensor t;
  int64_t shape[AG_MAX_DIMS + 1], strides[AG_MAX_DIMS + 1];
  void *data;
} own_tensor;

static void own_deleter(DLManagedTensor *self) {
  own_tensor *o = self->manager_ctx;
  deleted++;
  free(o->data);
  free(o);
}

/* A kDLCPU f32 tensor of @p ndim dims, @p bytes of data (zeroed), strides NULL. */
static own_tensor *own_new(int ndim, const int64_t *shape, size_t bytes) {
  own_tensor *o = calloc(1, sizeof *o);
  ck_assert_ptr_nonnull(o);
  o->data = calloc(1, bytes ? bytes : 1);
  ck_assert_ptr_nonnull(o->data);
  for (int d = 0; d < ndim; d++)
    o->shape[d] = shape[d];
  o->t.dl_tensor = (DLTensor){.data = o->data, .device = {kDLCPU, 0}, .ndim = ndim, .dtype = {kDLFloat, 32, 1},
                              .shape = o->shape, .strides = NULL, .byte_offset = 0};
  o->t.manager_ctx = o;
  o->t.deleter = own_deleter;
  return o;
}

/* Wraps an exported tensor's deleter with one that counts, then calls the original. */
static void (*wrapped)(DLManagedTensor *);

static void counting_deleter(DLManagedTensor *self) {
  deleted++;
  wrapped(self);
}

/* @p expr, given tensor @p t, must fail with @p want naming ag_array_from_dlpack and @p field,
   leaving t as it was (bytewise, its shape and strides too) and its deleter uncalled. */
static void check_refused(own_tensor *o, ag_status want, const char *field, const char *what) {
  own_tensor before = *o;
  int calls = deleted;
  ag_array *a = (ag_array *)1;
  ag_status st = ag_array_from_dlpack(&o->t, &a);
  ck_assert_msg(st == want, "%s: %s: ag_array_from_dlpack returned %s, expected %s: %s", test_label(), what,
                ag_status_name(st), ag_status_name(want), ag_last_error());
  ck_assert_msg(strstr(ag_last_error(), "ag_array_from_dlpack") && strstr(ag_last_error(), field),
                "%s: %s: the message \"%s\" should name ag_array_from_dlpack and %s", test_label(), what,
                ag_last_error(), field);
  ck_assert_ptr_null(a);
  ck_assert_msg(memcmp(&before, o, sizeof before) == 0, "%s: %s: the refused tensor was changed", test_label(), what);
  ck_assert_int_eq(deleted, calls);
}

/* ---- core: refusals and host tensors ---------------------------------------------------------- */

START_TEST(null_arguments_are_refused) {
  ag_device *host;
  CHECK_OK(ag_device_select("host", &host));
  const size_t shape[1] = {4};
  ag_array *a = test_array_new(host, AG_F32, 1, shape);
  DLManagedTensor *t = (DLManagedTensor *)1;
  CHECK_FAILS(ag_array_to_dlpack(NULL, &t), AG_ERR_INVALID_ARGUMENT, "ag_array_to_dlpack", "a is NULL");
  ck_assert_ptr_null(t);
  CHECK_FAILS(ag_array_to_dlpack(a, NULL), AG_ERR_INVALID_ARGUMENT, "ag_array_to_dlpack", "out");
  ag_array *b = (ag_array *)1;
  CHECK_FAILS(ag_array_from_dlpack(NULL, &b), AG_ERR_INVALID_ARGUMENT, "ag_array_from_dlpack", "t is NULL");
  ck_assert_ptr_null(b);
  own_tensor *o = own_new(1, (const int64_t[]){4}, 16);
  CHECK_FAILS(ag_array_from_dlpack(&o->t, NULL), AG_ERR_INVALID_ARGUMENT, "ag_array_from_dlpack", "out");
  ck_assert_int_eq(deleted, 0);
  own_deleter(&o->t);
  ag_array_free(a);
}
END_TEST

START_TEST(dtypes_anygpu_lacks_are_refused_by_name) {
  static const struct {
    DLDataType dt;
    const char *name;
  } bad[] = {
      {{kDLInt, 128, 1}, "int128"}, {{kDLUInt, 1, 1}, "uint1"},     {{kDLFloat, 16, 1}, "float16"},
      {{kDLBfloat, 16, 1}, "bfloat16"}, {{6, 1, 1}, "bool1"},       {{kDLFloat, 32, 4}, "lanes"},
      {{kDLOpaqueHandle, 64, 1}, "handle64"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    own_tensor *o = own_new(1, (const int64_t[]){4}, 64);
    o->t.dl_tensor.dtype = bad[k].dt;
    check_refused(o, AG_ERR_INVALID_ARGUMENT, "t->dl_tensor.dtype", bad[k].name);
    CHECK_MESSAGE_HAS(bad[k].name);
    own_deleter(&o->t);
  }
  own_tensor *o = own_new(1, (const int64_t[]){4}, 64);
  o->t.dl_tensor.dtype = (DLDataType){kDLFloat, 16, 1};
  check_refused(o, AG_ERR_INVALID_ARGUMENT, "dtype", "float16");
  CHECK_MESSAGE_HAS("float16 (code 2, bits 16)");
  own_deleter(&o->t);
}
END_TEST

START_TEST(layouts_anygpu_lacks_are_refused) {
  /* Transposed: a 3 x 4 tensor whose strides are a 4 x 3 one's read columnwise, a view with
     those strides over the same memory. */
  own_tensor *o = own_new(2, (const int64_t[]){3, 4}, 48);
  o->strides[0] = 1;
  o->strides[1] = 3;
  o->t.dl_tensor.strides = o->strides;
  for (int i = 0; i < 12; i++)
    ((float *)o->data)[i] = (float)i;
  ag_array *a;
  CHECK_OK(ag_array_from_dlpack(&o->t, &a));
  ck_assert(!ag_array_is_contiguous(a));
  ck_assert_int_eq(ag_array_strides(a)[0], 1);
  ck_assert_int_eq(ag_array_strides(a)[1], 3);
  float got[12];
  CHECK_OK(ag_array_to_host(a, got, sizeof got));
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      ck_assert_float_eq(got[i * 4 + j], (float)(i + 3 * j));
  ag_array_free(a);
  ck_assert_int_eq(deleted, 1);

  /* A negative stride: the memory would start before data. */
  o = own_new(2, (const int64_t[]){3, 4}, 48);
  o->strides[0] = 4;
  o->strides[1] = -1;
  o->t.dl_tensor.strides = o->strides;
  check_refused(o, AG_ERR_UNSUPPORTED, "t->dl_tensor.strides[1]", "a negative stride");
  own_deleter(&o->t);

  o = own_new(AG_MAX_DIMS + 1, (const int64_t[]){1, 2, 1, 2, 2, 1, 1, 1, 1}, 64);
  check_refused(o, AG_ERR_UNSUPPORTED, "t->dl_tensor.ndim", "nine dimensions");
  own_deleter(&o->t);

  o = own_new(1, (const int64_t[]){4}, 64);
  o->t.dl_tensor.byte_offset = 2;
  check_refused(o, AG_ERR_UNSUPPORTED, "t->dl_tensor.byte_offset", "an offset inside an element");
  own_deleter(&o->t);

  o = own_new(2, (const int64_t[]){2, -3}, 64);
  check_refused(o, AG_ERR_INVALID_ARGUMENT, "t->dl_tensor.shape[1]", "a negative length");
  own_deleter(&o->t);

  o = own_new(1, (const int64_t[]){4}, 64);
  o->t.dl_tensor.data = NULL;
  check_refused(o, AG_ERR_INVALID_ARGUMENT, "t->dl_tensor.data", "no data");
  own_deleter(&o->t);
  ck_assert_int_eq(deleted, 6);
}
END_TEST

START_TEST(devices_that_are_not_present_are_refused) {
  static const DLDevice absent[] = {{kDLCUDA, 7}, {kDLOpenCL, 99}, {kDLVulkan, 0}, {kDLROCM, 0}};
  for (size_t k = 0; k < sizeof absent / sizeof absent[0]; k++) {
    own_tensor *o = own_new(1, (const int64_t[]){4}, 16);
    o->t.dl_tensor.device = absent[k];
    check_refused(o, AG_ERR_NO_DEVICE, "t->dl_tensor.device", "an absent device");
    own_deleter(&o->t);
  }
  CHECK_MESSAGE_HAS("kDLROCM");
}
END_TEST

START_TEST(compact_strides_and_unit_dimensions_are_taken) {
  /* Row-major strides given explicitly, and any stride for a dimension of length 1. */
  own_tensor *o = own_new(3, (const int64_t[]){2, 1, 3}, 24);
  o->strides[0] = 3;
  o->strides[1] = 12345;
  o->strides[2] = 1;
  o->t.dl_tensor.strides = o->strides;
  float *data = o->data;
  ag_array *a;
  CHECK_OK(ag_array_from_dlpack(&o->t, &a));
  ck_assert_int_eq(ag_array_ndim(a), 3);
  ck_assert_uint_eq(ag_array_dim(a, 2), 3);
  CHECK_OK(ag_fill(NULL, a, 1.5));
  CHECK_OK(ag_device_finish(ag_array_device(a)));
  for (int k = 0; k < 6; k++)
    ck_assert_float_eq(data[k], 1.5f);
  ag_array_free(a);
  ck_assert_int_eq(deleted, 1);
}
END_TEST

START_TEST(host_tensors_are_written_through_without_copies) {
  /* 14 floats; the tensor is the 3 x 4 after the first two (byte_offset 8). */
  own_tensor *o = own_new(2, (const int64_t[]){3, 4}, 14 * sizeof(float));
  o->t.dl_tensor.byte_offset = 2 * sizeof(float);
  float *data = o->data;
  for (int k = 0; k < 14; k++)
    data[k] = (float)k;
  ag_array *a;
  CHECK_OK(ag_array_from_dlpack(&o->t, &a));
  ag_device_info info;
  CHECK_OK(ag_device_get_info(ag_array_device(a), &info));
  ck_assert_str_eq(info.backend, "host");
  ck_assert_int_eq(ag_array_dtype(a), AG_F32);
  ck_assert_uint_eq(ag_array_size(a), 12);
  size_t offset = 0;
  ag_buffer *buf = ag_array_buffer(a, &offset);
  ck_assert_uint_eq(offset, 2 * sizeof(float));
  ck_assert_uint_eq(ag_buffer_size(buf), 14 * sizeof(float));
  /* What is there is read, what is written lands in the tensor's memory. */
  float back[12];
  CHECK_OK(ag_array_to_host(a, back, sizeof back));
  for (int k = 0; k < 12; k++)
    ck_assert_float_eq(back[k], (float)(k + 2));
  ag_array *row;
  CHECK_OK(ag_array_index(a, 1, &row));
  CHECK_OK(ag_fill(NULL, row, -7));
  CHECK_OK(ag_device_finish(ag_array_device(a)));
  for (int k = 0; k < 14; k++)
    ck_assert_float_eq(data[k], k >= 6 && k < 10 ? -7.0f : (float)k);
  /* The deleter waits for the array and its view. */
  ag_array_free(a);
  ck_assert_int_eq(deleted, 0);
  ag_array_free(row);
  ck_assert_int_eq(deleted, 1);

  /* kDLCUDAHost is host memory too, and a 0-d tensor a 0-d array. */
  o = own_new(0, NULL, sizeof(float));
  o->t.dl_tensor.device = (DLDevice){kDLCUDAHost, 0};
  o->t.dl_tensor.shape = NULL;
  *(float *)o->data = 3.25f;
  CHECK_OK(ag_array_from_dlpack(&o->t, &a));
  ck_assert_int_eq(ag_array_ndim(a), 0);
  ck_assert_uint_eq(ag_array_size(a), 1);
  float one = 0;
  CHECK_OK(ag_array_to_host(a, &one, sizeof one));
  ck_assert_float_eq(one, 3.25f);
  ag_array_free(a);
  ck_assert_int_eq(deleted, 2);

  /* No elements: an empty array, and the tensor is done with at once. */
  o = own_new(2, (const int64_t[]){0, 5}, 0);
  CHECK_OK(ag_array_from_dlpack(&o->t, &a));
  ck_assert_int_eq(deleted, 3);
  ck_assert_uint_eq(ag_array_size(a), 0);
  ck_assert_uint_eq(ag_array_dim(a, 1), 5);
  ag_array_free(a);
}
END_TEST

/* ---- devices: round trips and lifetime ---------------------------------------------------------- */

/* DLPack's device of device @p i of the backend under test: its type, and the N of its spec. */
static DLDevice expected_device(int i) {
  const char *spec = test_spec(i);
  const char *colon = strchr(spec, ':');
  int n = colon ? atoi(colon + 1) : 0;
  if (test_backend_is("cuda"))
    return (DLDevice){kDLCUDA, n};
  if (test_backend_is("opencl"))
    return (DLDevice){kDLOpenCL, n};
  return (DLDevice){kDLCPU, 0};
}

/* Exports @p a and checks the tensor describes it: device, dtype, shape, no strides, data and
   byte_offset those of a's buffer (on the host, the very bytes). */
static DLManagedTensor *export_checked(ag_array *a, int i, const char *what) {
  DLManagedTensor *t = NULL;
  CHECK_OK(ag_array_to_dlpack(a, &t));
  ck_assert_ptr_nonnull(t);
  ck_assert_ptr_nonnull(t->deleter);
  const DLTensor *dl = &t->dl_tensor;
  DLDevice want = expected_device(i);
  ck_assert_msg(dl->device.device_type == want.device_type && dl->device.device_id == want.device_id,
                "%s: %s: device (%d, %d), expected (%d, %d)", test_label(), what, (int)dl->device.device_type,
                dl->device.device_id, (int)want.device_type, want.device_id);
  ag_dtype t_ = ag_array_dtype(a);
  ck_assert_msg(dl->dtype.code == dl_of[t_].code && dl->dtype.bits == dl_of[t_].bits && dl->dtype.lanes == 1,
                "%s: %s: dtype (%u, %u, %u)", test_label(), what, dl->dtype.code, dl->dtype.bits, dl->dtype.lanes);
  ck_assert_int_eq(dl->ndim, ag_array_ndim(a));
  for (int d = 0; d < dl->ndim; d++)
    ck_assert_int_eq(dl->shape[d], (int64_t)ag_array_dim(a, d));
  ck_assert_ptr_null(dl->strides);
  size_t offset;
  ck_assert_ptr_nonnull(ag_array_buffer(a, &offset));
  ck_assert_uint_eq(dl->byte_offset, offset);
  ck_assert_ptr_nonnull(dl->data);
  if (test_backend_is("host")) {
    /* The data are the array's own bytes: anygpu's work on it is done once its queue is. */
    CHECK_OK(ag_device_finish(ag_array_device(a)));
    void *mine = test_array_read(a);
    CHECK_BYTES((const unsigned char *)dl->data + dl->byte_offset, mine, ag_array_nbytes(a), what);
    free(mine);
  }
  return t;
}

/* One shape per ndim 1..4, none of whose lengths is a power of two. */
static const size_t shapes[4][4] = {{5}, {3, 7}, {2, 3, 5}, {2, 1, 3, 5}};

/* Exports @p a, imports the tensor and checks the result is a on the same buffer and offset
   with the same bytes; frees a before the import, as the tensor keeps the memory. */
static void round_trip(ag_array *a, int i, const char *what) {
  void *want = test_array_read(a);
  size_t offset;
  ag_buffer *buf = ag_array_buffer(a, &offset);
  DLManagedTensor *t = export_checked(a, i, what);
  ag_array_free(a);
  ag_array *b = NULL;
  CHECK_OK(ag_array_from_dlpack(t, &b));
  size_t b_offset;
  ck_assert_msg(ag_array_buffer(b, &b_offset) == buf && b_offset == offset,
                "%s: %s: the imported array is not on the exported array's buffer and offset", test_label(), what);
  void *got = test_array_read(b);
  CHECK_BYTES(got, want, ag_array_nbytes(b), what);
  ag_array_free(b);
  free(got);
  free(want);
}

START_TEST(round_trips_share_the_array_memory_for_every_dtype_and_shape) {
  ag_device *dev = test_device(_i);
  for (int ndim = 1; ndim <= 4; ndim++) {
    size_t n = 1;
    for (int d = 0; d < ndim; d++)
      n *= shapes[ndim - 1][d];
    for (ag_dtype t = AG_U8; t < AG_DTYPE_COUNT; t++) {
      if (!test_dtype_runs(dev, t))
        continue;
      unsigned char *data = test_alloc(n * ref_size(t));
      test_fill_bytes(data, n * ref_size(t), (unsigned)(t * 10 + ndim));
      char what[96];
      snprintf(what, sizeof what, "a %d-D %s array", ndim, ref_name(t));
      round_trip(test_array_from(dev, t, ndim, shapes[ndim - 1], data), _i, what);

      /* Views at an offset: a frame of the array, a run of frames, one element. */
      ag_array *a = test_array_from(dev, t, ndim, shapes[ndim - 1], data), *v;
      size_t last = shapes[ndim - 1][0] - 1;
      CHECK_OK(ag_array_index(a, last, &v));
      snprintf(what, sizeof what, "frame %zu of a %d-D %s array", last, ndim, ref_name(t));
      round_trip(v, _i, what);
      CHECK_OK(ag_array_slice(a, 1, last, &v));
      snprintf(what, sizeof what, "frames 1.. of a %d-D %s array", ndim, ref_name(t));
      round_trip(v, _i, what);
      ag_array *flat, *one;
      CHECK_OK(ag_array_reshape(a, 1, (const size_t[]){n}, &flat));
      CHECK_OK(ag_array_index(flat, n - 1, &one));
      ag_array_free(flat);
      snprintf(what, sizeof what, "the last element of a %d-D %s array", ndim, ref_name(t));
      round_trip(one, _i, what);
      ag_array_free(a);
      free(data);
    }
  }
}
END_TEST

START_TEST(imported_arrays_keep_the_tensor_until_they_and_their_views_are_freed) {
  ag_device *dev = test_device(_i);
  const size_t shape[2] = {4, 6};
  float data[24];
  for (int k = 0; k < 24; k++)
    data[k] = (float)k;
  ag_array *whole = test_array_from(dev, AG_F32, 2, shape, data), *a;
  CHECK_OK(ag_array_slice(whole, 1, 3, &a)); /* at an offset: rows 1 to 3 */
  DLManagedTensor *t = export_checked(a, _i, "rows 1.. of a 4 x 6 f32 array");
  /* Another deleter: the import cannot tell the tensor for anygpu's own, and borrows it. */
  wrapped = t->deleter;
  t->deleter = counting_deleter;
  ag_array *b;
  CHECK_OK(ag_array_from_dlpack(t, &b));
  ck_assert_ptr_ne(ag_array_buffer(b, NULL), ag_array_buffer(a, NULL));
  ck_assert_int_eq(ag_array_ndim(b), 2);
  ck_assert_uint_eq(ag_array_size(b), 18);
  /* One memory: what is written through the import is what the exporter reads. */
  ag_array *row;
  CHECK_OK(ag_array_index(b, 0, &row));
  CHECK_OK(ag_fill(NULL, row, 100));
  CHECK_OK(ag_device_finish(dev));
  float back[24];
  CHECK_OK(ag_array_to_host(whole, back, sizeof back));
  for (int k = 0; k < 24; k++)
    ck_assert_msg(back[k] == (k >= 6 && k < 12 ? 100.0f : (float)k), "%s: element %d is %g", test_label(), k,
                  (double)back[k]);
  ag_array_free(a);
  ag_array_free(whole);
  ag_array_free(b);
  ck_assert_int_eq(deleted, 0);
  /* The view still reads the memory the tensor holds. */
  float got[6];
  CHECK_OK(ag_array_to_host(row, got, sizeof got));
  ck_assert_float_eq(got[5], 100.0f);
  ag_array_free(row);
  ck_assert_int_eq(deleted, 1);
}
END_TEST

START_TEST(memory_of_another_opencl_context_is_refused) {
  ag_device *dev = test_device(_i);
  DLDevice where = expected_device(_i);
  if (where.device_type != kDLOpenCL) {
    printf("note: %s: only OpenCL tensors name a context\n", test_label());
    return;
  }
  /* Another anygpu device's cl_mem, relabelled as this device's. */
  ag_device *other = test_other_device(dev, "a cl_mem of another device's context");
  ag_device_info info;
  if (other != NULL && ag_device_get_info(other, &info) == AG_OK && strcmp(info.backend, "opencl") == 0) {
    const size_t shape[1] = {8};
    ag_array *a = test_array_new(other, AG_F32, 1, shape);
    DLManagedTensor *t;
    CHECK_OK(ag_array_to_dlpack(a, &t));
    DLManagedTensor before = *t;
    t->dl_tensor.device = where;
    ag_array *b = (ag_array *)1;
    CHECK_FAILS(ag_array_from_dlpack(t, &b), AG_ERR_UNSUPPORTED, "ag_array_from_dlpack", "context");
    ck_assert_ptr_null(b);
    t->dl_tensor.device = before.dl_tensor.device;
    ck_assert_msg(memcmp(&before, t, sizeof before) == 0, "%s: the refused tensor was changed", test_label());
    t->deleter(t);
    ag_array_free(a);
  }
#if AG_TEST_OPENCL
  /* A context of the test's own, on the first device of the first platform. */
  cl_platform_id plat;
  cl_device_id id;
  cl_int e = clGetPlatformIDs(1, &plat, NULL);
  if (e == CL_SUCCESS)
    e = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &id, NULL);
  ck_assert_int_eq(e, CL_SUCCESS);
  cl_context ctx = clCreateContext(NULL, 1, &id, NULL, NULL, &e);
  ck_assert_int_eq(e, CL_SUCCESS);
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &e);
  ck_assert_int_eq(e, CL_SUCCESS);
  own_tensor *o = own_new(1, (const int64_t[]){16}, 0);
  o->t.dl_tensor.data = m;
  o->t.dl_tensor.device = where;
  check_refused(o, AG_ERR_UNSUPPORTED, "context", "a cl_mem of the test's own context");
  own_deleter(&o->t);
  deleted--;
  clReleaseMemObject(m);
  clReleaseContext(ctx);
#endif
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "NULL arguments are refused", null_arguments_are_refused);
    add_core_test(s, "dtypes anygpu lacks are refused by name", dtypes_anygpu_lacks_are_refused_by_name);
    add_core_test(s, "layouts anygpu lacks are refused", layouts_anygpu_lacks_are_refused);
    add_core_test(s, "devices that are not present are refused", devices_that_are_not_present_are_refused);
    add_core_test(s, "compact strides and unit dimensions are taken", compact_strides_and_unit_dimensions_are_taken);
    add_core_test(s, "host tensors are written through without copies", host_tensors_are_written_through_without_copies);
    return;
  }
  add_device_test(s, "round trips share the array's memory for every dtype and shape",
                  round_trips_share_the_array_memory_for_every_dtype_and_shape);
  add_device_test(s, "imported arrays keep the tensor until they and their views are freed",
                  imported_arrays_keep_the_tensor_until_they_and_their_views_are_freed);
  add_device_test(s, "memory of another OpenCL context is refused", memory_of_another_opencl_context_is_refused);
}
