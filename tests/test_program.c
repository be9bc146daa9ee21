/* tests/test_program.c — user programs in OpenCL C, CUDA C and host C: building, kernel lookup,
   1-, 2- and 3-D launches with buffer, scalar, struct and local-memory arguments, and the
   errors of each step. The kernels are in programs.c. */
#include <math.h>
#include <stdlib.h>

#include "programs.h"
#include "runner.h"

static ag_program *new_program(ag_device *dev, const ag_program_desc *desc) {
  ag_program *p = NULL;
  CHECK_OK(ag_program_create(dev, desc, &p));
  ck_assert_ptr_nonnull(p);
  return p;
}

static ag_kernel *new_kernel(ag_program *p, const char *name) {
  ag_kernel *k = NULL;
  CHECK_OK(ag_kernel_get(p, name, &k));
  ck_assert_ptr_nonnull(k);
  return k;
}

static ag_buffer *new_buffer(ag_device *dev, size_t bytes) {
  ag_buffer *b = NULL;
  CHECK_OK(ag_buffer_alloc(dev, bytes, &b));
  return b;
}

static void *new_host(size_t bytes) {
  void *p = malloc(bytes);
  ck_assert_ptr_nonnull(p);
  return p;
}

/* Runs vadd and fails the test with its report. */
static void check_vadd(ag_device *dev, ag_queue *q, ag_kernel *k, size_t n, size_t local, unsigned seed) {
  char why[512] = "";
  int rc = programs_run_vadd(dev, q, k, n, local, seed, why, sizeof why);
  ck_assert_msg(rc == 0, "%s: %s", test_label(), why);
}

/* ---- launches ------------------------------------------------------------------------------- */

START_TEST(vector_add_over_1d_ranges) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "vadd");
  ag_queue *own = NULL;
  CHECK_OK(ag_queue_create(dev, &own));
  /* Sizes that no work-group size divides: the range is rounded up and the kernel checks. */
  const size_t sizes[] = {1, 7, 1023, ((size_t)1 << 20) + 3};
  const size_t locals[] = {0, 64, 7};
  unsigned seed = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (size_t l = 0; l < sizeof locals / sizeof locals[0]; l++) {
      if (locals[l] == 7 && sizes[s] > 1023)
        continue;
      check_vadd(dev, seed % 2 ? own : NULL, k, sizes[s], locals[l], seed);
      seed++;
    }
  /* A second kernel object of the same name works as well. */
  ag_kernel *k2 = new_kernel(p, "vadd");
  ck_assert_ptr_ne(k2, k);
  check_vadd(dev, own, k2, 5000, 0, 99);
  check_vadd(dev, NULL, k, 4999, 32, 98);
  CHECK_OK(ag_queue_finish(own));
  ag_queue_destroy(own);
  ag_kernel_destroy(k2);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

/* Launches index2d over w x h with work-group lx x ly and checks every element and the tail. */
static void check_index2d(ag_device *dev, ag_kernel *k, uint32_t w, uint32_t h, size_t lx, size_t ly) {
  enum { TAIL = 8 };
  size_t n = (size_t)w * h + TAIL;
  ag_buffer *b = new_buffer(dev, n * 4);
  const uint32_t sentinel = 0xffffffffu;
  CHECK_OK(ag_buffer_fill(NULL, b, 0, &sentinel, 4, n * 4));
  ag_arg args[] = {AG_ARG_BUF(b), AG_ARG_VAL(w), AG_ARG_VAL(h)};
  ag_range r = {.dims = 2, .global = {w, h}, .local = {lx, ly}};
  test_fit_local(k, &r);
  lx = r.local[0];
  ly = r.local[1];
  CHECK_OK(ag_kernel_launch(NULL, k, &r, 3, args));
  uint32_t *out = new_host(n * 4);
  CHECK_OK(ag_buffer_read(NULL, b, 0, out, n * 4));
  /* The first wrong element, then one assertion: Check records every assertion it passes. */
  size_t bad = 0;
  while (bad < n && out[bad] == (bad < (size_t)w * h ? (uint32_t)((bad / w) << 16 | (bad % w)) : sentinel))
    bad++;
  ck_assert_msg(bad == n, "%s: index2d %ux%u, local %zux%zu: element %zu (x %zu, y %zu%s) holds 0x%08x",
                test_label(), w, h, lx, ly, bad, bad % w, bad / w, bad < (size_t)w * h ? "" : ", past the end",
                out[bad]);
  free(out);
  ag_buffer_free(b);
}

START_TEST(ranges_2d_reach_both_indices) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "index2d");
  check_index2d(dev, k, 37, 19, 0, 0);
  check_index2d(dev, k, 37, 19, 8, 4);
  check_index2d(dev, k, 300, 200, 16, 16);
  check_index2d(dev, k, 1, 1, 0, 0);
  check_index2d(dev, k, 5, 300, 1, 64);
  check_index2d(dev, k, 1000, 3, 0, 0);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

static void check_index3d(ag_device *dev, ag_kernel *k, uint32_t w, uint32_t h, uint32_t d, size_t lx, size_t ly,
                          size_t lz) {
  enum { TAIL = 8 };
  size_t n = (size_t)w * h * d + TAIL;
  ag_buffer *b = new_buffer(dev, n * 4);
  const uint32_t sentinel = 0xffffffffu;
  CHECK_OK(ag_buffer_fill(NULL, b, 0, &sentinel, 4, n * 4));
  ag_arg args[] = {AG_ARG_BUF(b), AG_ARG_VAL(w), AG_ARG_VAL(h), AG_ARG_VAL(d)};
  ag_range r = {.dims = 3, .global = {w, h, d}, .local = {lx, ly, lz}};
  test_fit_local(k, &r);
  lx = r.local[0];
  ly = r.local[1];
  lz = r.local[2];
  CHECK_OK(ag_kernel_launch(NULL, k, &r, 4, args));
  uint32_t *out = new_host(n * 4);
  CHECK_OK(ag_buffer_read(NULL, b, 0, out, n * 4));
  size_t bad = 0, inside = (size_t)w * h * d;
  for (; bad < n; bad++) {
    size_t x = bad % w, y = bad / w % h, z = bad / ((size_t)w * h);
    if (out[bad] != (bad < inside ? (uint32_t)(z << 20 | y << 10 | x) : sentinel))
      break;
  }
  ck_assert_msg(bad == n,
                "%s: index3d %ux%ux%u, local %zux%zux%zu: element %zu (x %zu, y %zu, z %zu%s) holds 0x%08x",
                test_label(), w, h, d, lx, ly, lz, bad, bad % w, bad / w % h, bad / ((size_t)w * h),
                bad < inside ? "" : ", past the end", out[bad]);
  free(out);
  ag_buffer_free(b);
}

START_TEST(ranges_3d_reach_all_three_indices) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "index3d");
  check_index3d(dev, k, 13, 7, 5, 0, 0, 0);
  check_index3d(dev, k, 13, 7, 5, 4, 2, 2);
  check_index3d(dev, k, 64, 3, 9, 8, 1, 8);
  check_index3d(dev, k, 1, 1, 300, 1, 1, 16);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

START_TEST(a_struct_passes_by_value) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "affine_fill");
  enum { N = 1000, TAIL = 4 };
  ag_buffer *b = new_buffer(dev, (N + TAIL) * 8);
  const uint64_t sentinel = 0x5555aaaa5555aaaaull;
  CHECK_OK(ag_buffer_fill(NULL, b, 0, &sentinel, 8, (N + TAIL) * 8));
  /* add needs all 64 bits and sits after padding, so a wrong layout shows. */
  test_affine params = {.mul = 3, .add = ((uint64_t)1 << 40) + 5, .n = N};
  ag_arg args[] = {AG_ARG_BUF(b), AG_ARG_VAL(params)};
  ag_range r = {.dims = 1, .global = {N}};
  /* A driver known to mishandle struct arguments refuses them, naming itself, and runs
     nothing (docs/portability.md, struct-args). */
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  bool refused = strstr(info.quirks, "struct-args") != NULL;
  if (refused) {
    CHECK_FAILS(ag_kernel_launch(NULL, k, &r, 2, args), AG_ERR_UNSUPPORTED, "ag_kernel_launch", "argument 1");
    CHECK_MESSAGE_HAS("struct-args");
    CHECK_MESSAGE_HAS(info.driver_version);
  } else {
    CHECK_OK(ag_kernel_launch(NULL, k, &r, 2, args));
  }
  uint64_t out[N + TAIL];
  CHECK_OK(ag_buffer_read(NULL, b, 0, out, sizeof out));
  uint64_t i = 0, want = 0;
  for (; i < N + TAIL; i++) {
    want = i < N && !refused ? i * 3 + ((uint64_t)1 << 40) + 5 : sentinel;
    if (out[i] != want)
      break;
  }
  ck_assert_msg(i == N + TAIL, "%s: affine_fill: out[%llu] is %llu, expected %llu", test_label(),
                (unsigned long long)i, (unsigned long long)(i < N + TAIL ? out[i] : 0), (unsigned long long)want);
  ag_buffer_free(b);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

START_TEST(a_double_passes_by_value) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (!info.fp64) {
    printf("note: %s has no double precision, so double arguments are not checked\n", test_label());
    return;
  }
  ag_program_desc desc = programs_fp64_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "scale_f64");
  enum { N = 777 };
  ag_buffer *b = new_buffer(dev, N * sizeof(double));
  /* 1 + 2^-40 is not a float: a value narrowed to float on the way gives 1 * i. */
  double s = 1.0 + 0x1p-40;
  uint32_t n = N;
  ag_arg args[] = {AG_ARG_BUF(b), AG_ARG_VAL(s), AG_ARG_VAL(n)};
  ag_range r = {.dims = 1, .global = {N}, .local = {32}};
  test_fit_local(k, &r);
  CHECK_OK(ag_kernel_launch(NULL, k, &r, 3, args));
  double out[N];
  CHECK_OK(ag_buffer_read(NULL, b, 0, out, sizeof out));
  /* One correctly rounded multiplication on either side: equal exactly. */
  uint32_t i = 0;
  while (i < N && out[i] == s * (double)i)
    i++;
  ck_assert_msg(i == N, "%s: scale_f64: out[%u] is %.17g, expected %.17g", test_label(), i, i < N ? out[i] : 0.0,
                s * (double)i);
  ag_buffer_free(b);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

START_TEST(a_work_group_reduction_uses_local_memory) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "group_sum");
  const uint32_t n = 100003;
  uint32_t *in = new_host(n * 4);
  for (uint32_t i = 0; i < n; i++)
    in[i] = i % 1000;
  ag_buffer *din = new_buffer(dev, n * 4);
  CHECK_OK(ag_buffer_write(NULL, din, 0, in, n * 4));
  const size_t locals[] = {64, 128, 16};
  for (size_t l = 0; l < sizeof locals / sizeof locals[0]; l++) {
    /* The kernel's tree needs a power of two, which halving keeps. */
    ag_range r = {.dims = 1, .global = {n}, .local = {locals[l]}};
    test_fit_local(k, &r);
    size_t ls = r.local[0], groups = (n + ls - 1) / ls;
    ag_buffer *dpart = new_buffer(dev, groups * 4);
    const uint32_t sentinel = 0xfeedfaceu;
    CHECK_OK(ag_buffer_fill(NULL, dpart, 0, &sentinel, 4, groups * 4));
    ag_arg args[] = {AG_ARG_BUF(din), AG_ARG_BUF(dpart), AG_ARG_LOCAL_BYTES(ls * 4), AG_ARG_VAL(n)};
    CHECK_OK(ag_kernel_launch(NULL, k, &r, 4, args));
    uint32_t *part = new_host(groups * 4);
    CHECK_OK(ag_buffer_read(NULL, dpart, 0, part, groups * 4));
    uint64_t total = 0;
    for (size_t g = 0; g < groups; g++) {
      uint32_t want = 0;
      for (size_t i = g * ls; i < (g + 1) * ls && i < n; i++)
        want += in[i];
      if (part[g] != want)
        ck_abort_msg("%s: group_sum with groups of %zu: group %zu gave %u, expected %u", test_label(), ls, g,
                     part[g], want);
      total += part[g];
    }
    /* The sum of i % 1000 for i < n, worked out: whole thousands, then the rest. */
    uint64_t q = n / 1000, rest = n % 1000;
    ck_assert_uint_eq(total, q * 499500u + rest * (rest - 1) / 2);
    free(part);
    ag_buffer_free(dpart);
  }
  free(in);
  ag_buffer_free(din);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

/* ---- programs that cannot be built ---------------------------------------------------------- */

START_TEST(a_missing_kernel_is_refused) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = (ag_kernel *)1;
  CHECK_FAILS(ag_kernel_get(p, "no_such_kernel", &k), AG_ERR_INVALID_ARGUMENT, "ag_kernel_get", "no_such_kernel");
  ck_assert_ptr_null(k);
  CHECK_FAILS(ag_kernel_get(p, "", &k), AG_ERR_INVALID_ARGUMENT, "ag_kernel_get", "");
  CHECK_FAILS(ag_kernel_get(p, "VADD", &k), AG_ERR_INVALID_ARGUMENT, "ag_kernel_get", "VADD");
  /* The program is unharmed. */
  k = new_kernel(p, "vadd");
  check_vadd(dev, NULL, k, 100, 0, 1);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

START_TEST(a_source_that_does_not_compile_gives_the_log) {
  ag_device *dev = test_device(_i);
  ag_program_desc broken = programs_broken_desc();
  ag_program *p = (ag_program *)1;
  if (test_backend_is("host")) {
    /* The host has no compiler: a desc without host kernels is unsupported there. */
    CHECK_FAILS(ag_program_create(dev, &broken, &p), AG_ERR_UNSUPPORTED, "ag_program_create", "host C");
  } else {
    CHECK_FAILS(ag_program_create(dev, &broken, &p), AG_ERR_BUILD, "ag_program_create", PROGRAMS_UNDECLARED);
  }
  ck_assert_ptr_null(p);
  /* A good program still builds afterwards. */
  ag_program_desc desc = programs_desc();
  p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "vadd");
  check_vadd(dev, NULL, k, 1000, 0, 2);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

START_TEST(a_program_without_the_device_dialect_is_unsupported) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  const char *dialect;
  if (test_backend_is("host")) {
    desc.host_kernels = NULL;
    desc.host_kernel_count = 0;
    dialect = "host C";
  } else if (test_backend_is("opencl")) {
    desc.opencl_source = NULL;
    dialect = "OpenCL C";
  } else {
    desc.cuda_source = NULL;
    dialect = "CUDA C";
  }
  ag_program *p = (ag_program *)1;
  CHECK_FAILS(ag_program_create(dev, &desc, &p), AG_ERR_UNSUPPORTED, "ag_program_create", dialect);
  ck_assert_ptr_null(p);
  ag_program_desc empty;
  memset(&empty, 0, sizeof empty);
  CHECK_FAILS(ag_program_create(dev, &empty, &p), AG_ERR_UNSUPPORTED, "ag_program_create", dialect);
  ck_assert_ptr_null(p);
}
END_TEST

START_TEST(bad_build_options_are_the_callers_error) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  desc.opencl_options = "-ag-no-such-option";
  desc.cuda_options = "-ag-no-such-option";
  ag_program *p = (ag_program *)1;
  ag_status st = ag_program_create(dev, &desc, &p);
  /* The options are the caller's input: refused as a build error or an invalid argument (not
     as a device failure), with the message saying which option. */
  ck_assert_msg(st == AG_ERR_BUILD || st == AG_ERR_INVALID_ARGUMENT,
                "%s: unknown build options gave %s, expected AG_ERR_BUILD or AG_ERR_INVALID_ARGUMENT: %s", test_label(),
                ag_status_name(st), ag_last_error());
  CHECK_MESSAGE_HAS("ag_program_create");
  CHECK_MESSAGE_HAS("-ag-no-such-option");
  ck_assert_ptr_null(p);
}
END_TEST

/* ---- launches that are refused -------------------------------------------------------------- */

START_TEST(malformed_launches_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *vadd = new_kernel(p, "vadd"), *sum = new_kernel(p, "group_sum"), *idx = new_kernel(p, "index2d");
  const uint32_t n = 256;
  ag_buffer *a = new_buffer(dev, n * 4), *b = new_buffer(dev, n * 4), *c = new_buffer(dev, n * 4);
  ag_arg args[] = {AG_ARG_BUF(a), AG_ARG_BUF(b), AG_ARG_BUF(c), AG_ARG_VAL(n)};
  const char *fn = "ag_kernel_launch";
  ag_range r;

  r = (ag_range){.dims = 0, .global = {n}};
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "dims");
  r = (ag_range){.dims = 4, .global = {n, 1, 1}};
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "dims");
  r = (ag_range){.dims = 1, .global = {0}};
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "global");
  r = (ag_range){.dims = 1, .global = {(size_t)1 << 50}};
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "global");
  r = (ag_range){.dims = 1, .global = {n}, .local = {info.max_work_group_size + 1}};
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "local");

  uint32_t w = 16, h = 16;
  ag_arg iargs[] = {AG_ARG_BUF(a), AG_ARG_VAL(w), AG_ARG_VAL(h)};
  r = (ag_range){.dims = 2, .global = {w, 0}};
  CHECK_FAILS(ag_kernel_launch(NULL, idx, &r, 3, iargs), AG_ERR_INVALID_ARGUMENT, fn, "global");
  r = (ag_range){.dims = 2, .global = {w, h}, .local = {8, 0}};
  CHECK_FAILS(ag_kernel_launch(NULL, idx, &r, 3, iargs), AG_ERR_INVALID_ARGUMENT, fn, "local");

  CHECK_FAILS(ag_kernel_launch(NULL, vadd, NULL, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "range");
  r = (ag_range){.dims = 1, .global = {n}};
  CHECK_FAILS(ag_kernel_launch(NULL, NULL, &r, 4, args), AG_ERR_INVALID_ARGUMENT, fn, "k");
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, NULL), AG_ERR_INVALID_ARGUMENT, fn, "args");

  ag_arg bad[4];
  memcpy(bad, args, sizeof bad);
  bad[0].buffer = NULL;
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, bad), AG_ERR_INVALID_ARGUMENT, fn, "args[0]");
  memcpy(bad, args, sizeof bad);
  bad[3].value = NULL;
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, bad), AG_ERR_INVALID_ARGUMENT, fn, "args[3]");
  memcpy(bad, args, sizeof bad);
  bad[3].size = 0;
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, bad), AG_ERR_INVALID_ARGUMENT, fn, "args[3]");
  memcpy(bad, args, sizeof bad);
  bad[1].kind = (ag_arg_kind)99;
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, bad), AG_ERR_INVALID_ARGUMENT, fn, "args[1]");
  memcpy(bad, args, sizeof bad);
  bad[2].kind = (ag_arg_kind)0;
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 4, bad), AG_ERR_INVALID_ARGUMENT, fn, "args[2]");

  ag_arg many[65];
  for (int i = 0; i < 65; i++)
    many[i] = AG_ARG_VAL(n);
  CHECK_FAILS(ag_kernel_launch(NULL, vadd, &r, 65, many), AG_ERR_INVALID_ARGUMENT, fn, "nargs");

  /* Local memory: none, or more than the device has. */
  ag_arg sargs[] = {AG_ARG_BUF(a), AG_ARG_BUF(b), AG_ARG_LOCAL_BYTES(0), AG_ARG_VAL(n)};
  r = (ag_range){.dims = 1, .global = {n}, .local = {64}};
  test_fit_local(sum, &r);
  CHECK_FAILS(ag_kernel_launch(NULL, sum, &r, 4, sargs), AG_ERR_INVALID_ARGUMENT, fn, "args[2]");
  sargs[2] = AG_ARG_LOCAL_BYTES(info.local_memory + 1);
  CHECK_FAILS(ag_kernel_launch(NULL, sum, &r, 4, sargs), AG_ERR_INVALID_ARGUMENT, fn, "args[2]");

  /* Every refusal left the kernels and buffers usable. */
  check_vadd(dev, NULL, vadd, 3000, 0, 3);
  ag_buffer_free(a);
  ag_buffer_free(b);
  ag_buffer_free(c);
  ag_kernel_destroy(vadd);
  ag_kernel_destroy(sum);
  ag_kernel_destroy(idx);
  ag_program_destroy(p);
}
END_TEST

START_TEST(a_work_group_over_the_kernel_limit_is_refused) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *idx = new_kernel(p, "index2d");
  ag_buffer *a = new_buffer(dev, 4096);
  uint32_t w = 16, h = 16;
  ag_arg args[] = {AG_ARG_BUF(a), AG_ARG_VAL(w), AG_ARG_VAL(h)};
  /* Each side within the device's limit, their product above it. */
  size_t side = (size_t)sqrt((double)info.max_work_group_size) + 1;
  ag_range r = {.dims = 2, .global = {w, h}, .local = {side, side}};
  CHECK_FAILS(ag_kernel_launch(NULL, idx, &r, 3, args), AG_ERR_INVALID_ARGUMENT, "ag_kernel_launch", "local");
  ag_buffer_free(a);
  ag_kernel_destroy(idx);
  ag_program_destroy(p);
}
END_TEST

START_TEST(arguments_of_another_device_are_refused) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k = new_kernel(p, "vadd");
  ag_device *other = test_other_device(dev, "launching with buffers and queues of another device");
  if (other != NULL) {
    const uint32_t n = 64;
    ag_buffer *a = new_buffer(dev, n * 4), *c = new_buffer(dev, n * 4), *theirs = new_buffer(other, n * 4);
    ag_arg args[] = {AG_ARG_BUF(a), AG_ARG_BUF(theirs), AG_ARG_BUF(c), AG_ARG_VAL(n)};
    ag_range r = {.dims = 1, .global = {n}};
    CHECK_FAILS(ag_kernel_launch(NULL, k, &r, 4, args), AG_ERR_MISMATCH, "ag_kernel_launch", "args[1]");
    args[1] = AG_ARG_BUF(a);
    ag_queue *oq = NULL;
    CHECK_OK(ag_queue_create(other, &oq));
    CHECK_FAILS(ag_kernel_launch(oq, k, &r, 4, args), AG_ERR_MISMATCH, "ag_kernel_launch", "queue");
    ag_queue_destroy(oq);
    ag_buffer_free(a);
    ag_buffer_free(c);
    ag_buffer_free(theirs);
  }
  check_vadd(dev, NULL, k, 500, 0, 4);
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

/* A kernel holds its program, as a view holds its storage: the program goes when the caller
   has destroyed it and its last kernel is gone, in either order. The sanitizer build sees a
   program freed too early (a use after free in the launches below) or never (a leak). */
START_TEST(kernels_keep_their_program_alive) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = new_program(dev, &desc);
  ag_kernel *k1 = new_kernel(p, "vadd"), *k2 = new_kernel(p, "add_scalar");
  CHECK_FAILS(ag_buffer_alloc(dev, 0, &(ag_buffer *){NULL}), AG_ERR_INVALID_ARGUMENT, "ag_buffer_alloc", "bytes");
  ag_program_destroy(p);
  ck_assert_msg(strstr(ag_last_error(), "ag_program_destroy") == NULL,
                "%s: destroying a program with live kernels reported: %s", test_label(), ag_last_error());
  /* The kernels still run, in the program the caller has let go. */
  check_vadd(dev, NULL, k1, 2000, 0, 5);
  ag_kernel_destroy(k1);
  /* The last kernel, alone with the program, still runs: out = in + 7. */
  const uint32_t in[5] = {0, 1, 2, 3, 0xfffffff0u}, k = 7, n = 5;
  uint32_t out[5] = {0};
  ag_buffer *bin = new_buffer(dev, sizeof in), *bout = new_buffer(dev, sizeof out);
  CHECK_OK(ag_buffer_write(NULL, bin, 0, in, sizeof in));
  ag_arg args[] = {AG_ARG_BUF(bin), AG_ARG_BUF(bout), AG_ARG_VAL(k), AG_ARG_VAL(n)};
  ag_range r = {.dims = 1, .global = {n}};
  CHECK_OK(ag_kernel_launch(NULL, k2, &r, 4, args));
  CHECK_OK(ag_buffer_read(NULL, bout, 0, out, sizeof out));
  for (uint32_t i = 0; i < n; i++)
    ck_assert_msg(out[i] == in[i] + k, "%s: add_scalar element %u is %u, expected %u", test_label(), i, out[i],
                  in[i] + k);
  ag_buffer_free(bin);
  ag_buffer_free(bout);
  ag_kernel_destroy(k2);
  /* A kernel destroyed before its program leaves the program working. */
  p = new_program(dev, &desc);
  ag_kernel *k3 = new_kernel(p, "vadd");
  ag_kernel_destroy(k3);
  ag_kernel *k4 = new_kernel(p, "vadd");
  check_vadd(dev, NULL, k4, 100, 0, 6);
  ag_kernel_destroy(k4);
  ag_program_destroy(p);
}
END_TEST

START_TEST(null_arguments_with_a_device_are_refused) {
  ag_device *dev = test_device(_i);
  ag_program_desc desc = programs_desc();
  ag_program *p = (ag_program *)1;
  CHECK_FAILS(ag_program_create(dev, NULL, &p), AG_ERR_INVALID_ARGUMENT, "ag_program_create", "desc");
  ck_assert_ptr_null(p);
  CHECK_FAILS(ag_program_create(dev, &desc, NULL), AG_ERR_INVALID_ARGUMENT, "ag_program_create", "prog");
  p = new_program(dev, &desc);
  ag_kernel *k = (ag_kernel *)1;
  CHECK_FAILS(ag_kernel_get(p, NULL, &k), AG_ERR_INVALID_ARGUMENT, "ag_kernel_get", "name");
  ck_assert_ptr_null(k);
  CHECK_FAILS(ag_kernel_get(p, "vadd", NULL), AG_ERR_INVALID_ARGUMENT, "ag_kernel_get", "k");
  ag_program_destroy(p);
}
END_TEST

/* The host reads host_kernels; a broken list is refused there. */
static void host_noop(const ag_host_group *g, void *const *args) {
  (void)g;
  (void)args;
}

START_TEST(malformed_host_kernel_lists_are_refused) {
  ag_device *dev = test_device(_i);
  ag_program *p = (ag_program *)1;
  ag_program_desc desc = {.host_kernels = NULL, .host_kernel_count = 2};
  CHECK_FAILS(ag_program_create(dev, &desc, &p), AG_ERR_INVALID_ARGUMENT, "ag_program_create", "host_kernels");
  ck_assert_ptr_null(p);
  const ag_host_kernel_def no_fn[] = {{"fine", host_noop}, {"nofn", NULL}};
  desc = (ag_program_desc){.host_kernels = no_fn, .host_kernel_count = 2};
  CHECK_FAILS(ag_program_create(dev, &desc, &p), AG_ERR_INVALID_ARGUMENT, "ag_program_create", "host_kernels[1]");
  const ag_host_kernel_def no_name[] = {{NULL, host_noop}};
  desc = (ag_program_desc){.host_kernels = no_name, .host_kernel_count = 1};
  CHECK_FAILS(ag_program_create(dev, &desc, &p), AG_ERR_INVALID_ARGUMENT, "ag_program_create", "host_kernels[0]");
  /* A list is copied: the program outlives the caller's array. */
  ag_host_kernel_def *copy = malloc(sizeof no_fn);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, no_fn, sizeof no_fn);
  desc = (ag_program_desc){.host_kernels = copy, .host_kernel_count = 1};
  p = new_program(dev, &desc);
  memset(copy, 0, sizeof no_fn);
  free(copy);
  ag_kernel *k = new_kernel(p, "fine");
  ag_range r = {.dims = 1, .global = {10}};
  CHECK_OK(ag_kernel_launch(NULL, k, &r, 0, NULL));
  ag_kernel_destroy(k);
  ag_program_destroy(p);
}
END_TEST

/* ---- without a device ----------------------------------------------------------------------- */

START_TEST(null_handles_are_refused) {
  ag_program_desc desc = programs_desc();
  ag_program *p = (ag_program *)1;
  CHECK_FAILS(ag_program_create(NULL, &desc, &p), AG_ERR_INVALID_ARGUMENT, "ag_program_create", "dev");
  ck_assert_ptr_null(p);
  ag_kernel *k = (ag_kernel *)1;
  CHECK_FAILS(ag_kernel_get(NULL, "vadd", &k), AG_ERR_INVALID_ARGUMENT, "ag_kernel_get", "prog");
  ck_assert_ptr_null(k);
  ag_range r = {.dims = 1, .global = {1}};
  CHECK_FAILS(ag_kernel_launch(NULL, NULL, &r, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_kernel_launch", "k");
  ag_program_destroy(NULL);
  ag_kernel_destroy(NULL);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "NULL handles are refused", null_handles_are_refused);
    return;
  }
  add_device_test(s, "vector add over 1-D ranges", vector_add_over_1d_ranges);
  add_device_test(s, "2-D ranges reach both indices", ranges_2d_reach_both_indices);
  add_device_test(s, "3-D ranges reach all three indices", ranges_3d_reach_all_three_indices);
  add_device_test(s, "a struct passes by value", a_struct_passes_by_value);
  add_device_test(s, "a double passes by value", a_double_passes_by_value);
  add_device_test(s, "a work-group reduction uses local memory", a_work_group_reduction_uses_local_memory);
  add_device_test(s, "a missing kernel is refused", a_missing_kernel_is_refused);
  add_device_test(s, "a source that does not compile gives the log", a_source_that_does_not_compile_gives_the_log);
  add_device_test(s, "a program without the device's dialect is unsupported",
                  a_program_without_the_device_dialect_is_unsupported);
  add_device_test(s, "malformed launches are refused", malformed_launches_are_refused);
  add_device_test(s, "a work-group over the kernel's limit is refused",
                  a_work_group_over_the_kernel_limit_is_refused);
  add_device_test(s, "arguments of another device are refused", arguments_of_another_device_are_refused);
  add_device_test(s, "kernels keep their program alive", kernels_keep_their_program_alive);
  add_device_test(s, "NULL arguments with a device are refused", null_arguments_with_a_device_are_refused);
  if (strcmp(backend, "host") == 0)
    add_device_test(s, "malformed host kernel lists are refused", malformed_host_kernel_lists_are_refused);
  else
    add_device_test(s, "bad build options are the caller's error", bad_build_options_are_the_callers_error);
}
