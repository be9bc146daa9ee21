/* tests/test_device.c — device enumeration, info, the spec grammar, ANYGPU_DEVICE and the
   reasons a backend is unavailable. */
#include <stdlib.h>

#include "runner.h"

/* The documented meaning of each spec form, worked out from the device list: the @p index-th
   (or first, when -1) device that @p pred accepts, or NULL. */
typedef bool (*device_pred)(const ag_device_info *info, const char *word);

static bool is_backend(const ag_device_info *i, const char *b) { return strcmp(i->backend, b) == 0; }
static bool is_cpu(const ag_device_info *i, const char *w) { return (void)w, i->type == AG_DEVICE_CPU; }
static bool is_gpu(const ag_device_info *i, const char *w) { return (void)w, i->type == AG_DEVICE_GPU; }
static bool is_opencl_word(const ag_device_info *i, const char *w) {
  return is_backend(i, "opencl") &&
         (strcasestr(i->platform, w) != NULL || strcasestr(i->name, w) != NULL || strcasestr(i->vendor, w) != NULL);
}

static ag_device *expected(const test_device_list *l, device_pred pred, const char *word, int index) {
  int seen = 0;
  for (int i = 0; i < l->n; i++)
    if (pred(&l->info[i], word) && (index < 0 || seen++ == index))
      return l->dev[i];
  return NULL;
}

static int count_matching(const test_device_list *l, device_pred pred, const char *word) {
  int n = 0;
  for (int i = 0; i < l->n; i++)
    n += pred(&l->info[i], word);
  return n;
}

/* Checks that a NO_DEVICE message lists the devices present and why each unavailable backend
   is unavailable. */
static void check_no_device_message(const test_device_list *l, const char *spec) {
  const char *msg = ag_last_error();
  ck_assert_msg(strstr(msg, "ag_device_select") != NULL,
                "\"%s\": the message \"%s\" does not name ag_device_select", spec, msg);
  for (int i = 0; i < l->n; i++)
    ck_assert_msg(strstr(msg, l->info[i].spec) != NULL, "\"%s\": the message \"%s\" does not list device %s", spec,
                  msg, l->info[i].spec);
  static const char *gpu_backends[] = {"cuda", "opencl"};
  for (int b = 0; b < 2; b++) {
    const char *why = ag_backend_unavailable_reason(gpu_backends[b]);
    if (why != NULL)
      ck_assert_msg(strstr(msg, why) != NULL,
                    "\"%s\": the message \"%s\" does not say why %s is unavailable (\"%s\")", spec, msg,
                    gpu_backends[b], why);
  }
}

/* Selects @p spec and compares with @p want; NULL means no device may match. */
static void check_select(const test_device_list *l, const char *spec, ag_device *want) {
  ag_device *got = (ag_device *)1;
  ag_status st = ag_device_select(spec, &got);
  if (want != NULL) {
    ck_assert_msg(st == AG_OK, "\"%s\" should select %s but returned %s: %s", spec, test_spec_of(l, want),
                  ag_status_name(st), ag_last_error());
    ck_assert_msg(got == want, "\"%s\" selected %s, expected %s", spec, test_spec_of(l, got), test_spec_of(l, want));
  } else {
    ck_assert_msg(st == AG_ERR_NO_DEVICE, "\"%s\" names no device present but returned %s (%s): %s", spec,
                  ag_status_name(st), st == AG_OK ? test_spec_of(l, got) : "-", ag_last_error());
    ck_assert_msg(got == NULL, "\"%s\": *dev should be NULL after a failure", spec);
    check_no_device_message(l, spec);
  }
}

/* @p spec NULL reads ANYGPU_DEVICE; @p from, when not NULL, must be named in the message. */
static void check_malformed(const char *spec, const char *from) {
  ag_device *got = (ag_device *)1;
  ag_status st = ag_device_select(spec, &got);
  const char *msg = ag_last_error();
  const char *shown = spec != NULL ? spec : "(NULL)";
  ck_assert_msg(st == AG_ERR_INVALID_ARGUMENT, "malformed spec \"%.80s\" (length %zu) returned %s: %s", shown,
                strlen(shown), ag_status_name(st), msg);
  ck_assert_msg(got == NULL, "\"%.80s\": *dev should be NULL after a failure", shown);
  /* The message shows the grammar, and where the spec came from. */
  const char *needles[] = {"ag_device_select", "auto", "host", "cuda:N", "opencl:N", "opencl:WORD:N", from};
  for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
    ck_assert_msg(needles[i] == NULL || strstr(msg, needles[i]) != NULL,
                  "malformed spec \"%.80s\": the message \"%s\" should contain \"%s\"", shown, msg, needles[i]);
}

/* ---- enumeration ---------------------------------------------------------------------------- */

START_TEST(host_comes_first_then_cuda_then_opencl) {
  test_device_list l;
  test_list_devices(&l);
  ck_assert_str_eq(l.info[0].backend, "host");
  ck_assert_str_eq(l.info[0].spec, "host");
  ck_assert_int_eq(l.info[0].type, AG_DEVICE_CPU);
  int last_rank = 0, per_backend[3] = {0, 0, 0};
  static const char *order[] = {"host", "cuda", "opencl"};
  for (int i = 0; i < l.n; i++) {
    int rank = -1;
    for (int r = 0; r < 3; r++)
      if (is_backend(&l.info[i], order[r]))
        rank = r;
    ck_assert_msg(rank >= 0, "device %d has the unknown backend \"%s\"", i, l.info[i].backend);
    ck_assert_msg(rank >= last_rank, "device %d (%s) comes after a %s device", i, l.info[i].spec, order[last_rank]);
    last_rank = rank;
    /* Each device's spec is its backend and its number within the backend. */
    char want[32];
    if (rank == 0)
      snprintf(want, sizeof want, "host");
    else
      snprintf(want, sizeof want, "%s:%d", order[rank], per_backend[rank]);
    per_backend[rank]++;
    ck_assert_str_eq(l.info[i].spec, want);
    for (int j = 0; j < i; j++)
      ck_assert_msg(l.dev[i] != l.dev[j], "devices %d and %d are the same handle", i, j);
  }
  ck_assert_int_eq(per_backend[0], 1);
}
END_TEST

START_TEST(device_numbers_out_of_range_are_refused) {
  int n = 0;
  CHECK_OK(ag_device_count(&n));
  ag_device *dev = (ag_device *)1;
  CHECK_FAILS(ag_device_get(-1, &dev), AG_ERR_OUT_OF_RANGE, "ag_device_get", "index");
  ck_assert_ptr_null(dev);
  dev = (ag_device *)1;
  CHECK_FAILS(ag_device_get(n, &dev), AG_ERR_OUT_OF_RANGE, "ag_device_get", "index");
  ck_assert_ptr_null(dev);
  CHECK_FAILS(ag_device_get(2147483647, &dev), AG_ERR_OUT_OF_RANGE, "ag_device_get", "index");
  CHECK_OK(ag_device_get(n - 1, &dev));
  ck_assert_ptr_nonnull(dev);
}
END_TEST

START_TEST(null_pointers_are_refused) {
  ag_device *dev = NULL;
  ag_device_info info;
  CHECK_FAILS(ag_device_count(NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_count", "count");
  CHECK_FAILS(ag_device_get(0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_get", "dev");
  CHECK_FAILS(ag_device_select("host", NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_select", "dev");
  CHECK_FAILS(ag_device_get_info(NULL, &info), AG_ERR_INVALID_ARGUMENT, "ag_device_get_info", "dev");
  CHECK_OK(ag_device_get(0, &dev));
  CHECK_FAILS(ag_device_get_info(dev, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_get_info", "info");
}
END_TEST

START_TEST(every_spec_selects_its_device) {
  test_device_list l;
  test_list_devices(&l);
  for (int i = 0; i < l.n; i++)
    check_select(&l, l.info[i].spec, l.dev[i]);
}
END_TEST

/* ---- the spec grammar ----------------------------------------------------------------------- */

START_TEST(spec_forms_select_the_documented_device) {
  test_device_list l;
  test_list_devices(&l);
  char spec[64];

  /* auto: the first CUDA GPU, else the first OpenCL GPU, else the host. */
  ag_device *want_auto = NULL;
  for (int i = 0; i < l.n && want_auto == NULL; i++)
    if (is_backend(&l.info[i], "cuda") && l.info[i].type == AG_DEVICE_GPU)
      want_auto = l.dev[i];
  for (int i = 0; i < l.n && want_auto == NULL; i++)
    if (is_backend(&l.info[i], "opencl") && l.info[i].type == AG_DEVICE_GPU)
      want_auto = l.dev[i];
  if (want_auto == NULL)
    want_auto = l.dev[0];
  check_select(&l, "auto", want_auto);
  const char *why = ag_device_auto_reason();
  ck_assert_ptr_nonnull(why);
  ck_assert_msg(strlen(why) > 0, "ag_device_auto_reason() is empty");
  ck_assert_msg(strstr(why, want_auto == l.dev[0] ? "host" : "GPU") != NULL,
                "ag_device_auto_reason() \"%s\" does not fit the choice of %s", why, test_spec_of(&l, want_auto));

  check_select(&l, "host", l.dev[0]);
  check_select(&l, "cpu", expected(&l, is_cpu, NULL, -1));
  check_select(&l, "gpu", expected(&l, is_gpu, NULL, -1));

  static const char *gpu_backends[] = {"cuda", "opencl"};
  for (int b = 0; b < 2; b++) {
    const char *name = gpu_backends[b];
    int count = count_matching(&l, is_backend, name);
    check_select(&l, name, expected(&l, is_backend, name, -1));
    for (int k = 0; k <= count; k++) {
      snprintf(spec, sizeof spec, "%s:%d", name, k);
      check_select(&l, spec, expected(&l, is_backend, name, k));
    }
  }
  check_select(&l, "opencl:7", expected(&l, is_backend, "opencl", 7));
  check_select(&l, "cuda:0", expected(&l, is_backend, "cuda", 0));

  /* opencl:WORD[:N] matches platform, name or vendor, case-insensitively. */
  static const char *words[] = {"pocl", "portable", "nosuchvendor"};
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
    snprintf(spec, sizeof spec, "opencl:%s", words[w]);
    check_select(&l, spec, expected(&l, is_opencl_word, words[w], -1));
    int count = count_matching(&l, is_opencl_word, words[w]);
    for (int k = 0; k <= count; k++) {
      snprintf(spec, sizeof spec, "opencl:%s:%d", words[w], k);
      check_select(&l, spec, expected(&l, is_opencl_word, words[w], k));
    }
  }
  /* Every OpenCL device is found by the first word of its platform name. */
  for (int i = 0; i < l.n; i++) {
    if (!is_backend(&l.info[i], "opencl"))
      continue;
    char word[32];
    snprintf(word, sizeof word, "%s", l.info[i].platform);
    word[strcspn(word, " ,")] = '\0';
    if (word[0] == '\0')
      continue;
    snprintf(spec, sizeof spec, "opencl:%s", word);
    ag_device *got = NULL;
    CHECK_OK(ag_device_select(spec, &got));
    ck_assert_msg(got == expected(&l, is_opencl_word, word, -1), "\"%s\" selected %s", spec, test_spec_of(&l, got));
  }
}
END_TEST

START_TEST(case_and_surrounding_spaces_are_ignored) {
  test_device_list l;
  test_list_devices(&l);
  check_select(&l, " host", l.dev[0]);
  check_select(&l, "host  ", l.dev[0]);
  check_select(&l, "\t host \n", l.dev[0]);
  check_select(&l, "HOST", l.dev[0]);
  check_select(&l, "  Auto ", expected(&l, is_gpu, NULL, -1) ? expected(&l, is_gpu, NULL, -1) : l.dev[0]);
  check_select(&l, "OPENCL:POCL", expected(&l, is_opencl_word, "pocl", -1));
  check_select(&l, " OpenCL:Pocl:0 ", expected(&l, is_opencl_word, "pocl", 0));
  check_select(&l, "Opencl", expected(&l, is_backend, "opencl", -1));
  check_select(&l, " CUDA:0 ", expected(&l, is_backend, "cuda", 0));
}
END_TEST

START_TEST(absent_devices_are_refused_with_the_devices_present) {
  test_device_list l;
  test_list_devices(&l);
  /* Each of these names a device that is not here, on this machine: the form is checked only
     when nothing matches it. */
  static const char *specs[] = {"cuda",
                                "cuda:0",
                                "cuda:3",
                                "gpu",
                                "opencl",
                                "opencl:0",
                                "opencl:7",
                                "opencl:nosuchvendor",
                                "opencl:nosuchvendor:0",
                                "opencl:pocl:63"};
  int checked = 0;
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    ag_device *got = NULL;
    if (ag_device_select(specs[i], &got) == AG_OK)
      continue;
    check_select(&l, specs[i], NULL);
    checked++;
  }
  ck_assert_msg(checked >= 3, "only %d of the absent-device specs were absent", checked);
  /* CUDA is absent here unless a CUDA device is present: its reason is in the message. */
  if (count_matching(&l, is_backend, "cuda") == 0) {
    ag_device *got = NULL;
    ck_assert_int_eq(ag_device_select("cuda:0", &got), AG_ERR_NO_DEVICE);
    const char *why = ag_backend_unavailable_reason("cuda");
    if (why != NULL)
      CHECK_MESSAGE_HAS(why);
    CHECK_MESSAGE_HAS("cuda");
  }
}
END_TEST

START_TEST(malformed_specs_show_the_grammar) {
  static const char *specs[] = {
      "",        "   ",    "bogus",    "cuda:",         "cuda:x",       "cuda:-1",        "cuda:0:1",
      "cuda:1x", "host:0", "opencl::", "opencl:pocl:x", "opencl:pocl:", "opencl:pocl:-1", "auto:1",
      "gpu:0",   "cpu:0",  "hostx",    "host cpu",      "cuda :0",      "opencl:pocl:0:1"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    check_malformed(specs[i], NULL);
    if (strlen(specs[i]) > 3)
      CHECK_MESSAGE_HAS(specs[i]);
  }
}
END_TEST

START_TEST(over_long_specs_are_malformed) {
  char spec[1200];
  memset(spec, 'a', 1000);
  spec[1000] = '\0';
  check_malformed(spec, NULL);

  snprintf(spec, sizeof spec, "opencl:");
  memset(spec + 7, 'p', 400);
  spec[407] = '\0';
  check_malformed(spec, NULL);

  /* A valid spec followed by enough spaces to pass any fixed-size buffer, then junk: the
     junk must still be seen. */
  snprintf(spec, sizeof spec, "host");
  memset(spec + 4, ' ', 300);
  snprintf(spec + 304, sizeof spec - 304, "bogus");
  check_malformed(spec, NULL);

  snprintf(spec, sizeof spec, "cuda:0");
  memset(spec + 6, ' ', 600);
  snprintf(spec + 606, sizeof spec - 606, "1");
  check_malformed(spec, NULL);
}
END_TEST

/* ---- ANYGPU_DEVICE ---------------------------------------------------------------------------
   Each test sets the variable before its first call into the library (every test runs in a
   fresh process). */

START_TEST(anygpu_device_host_selects_the_host_and_turns_gpus_off) {
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "host", 1), 0);
  ag_device *dev = NULL;
  CHECK_OK(ag_device_select(NULL, &dev));
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ck_assert_str_eq(info.spec, "host");
  int n = 0;
  CHECK_OK(ag_device_count(&n));
  ck_assert_int_eq(n, 1);
  static const char *gpu_backends[] = {"cuda", "opencl"};
  for (int b = 0; b < 2; b++) {
    const char *why = ag_backend_unavailable_reason(gpu_backends[b]);
    ck_assert_msg(why != NULL && strstr(why, "ANYGPU_DEVICE") != NULL,
                  "with ANYGPU_DEVICE=host, %s's reason is \"%s\"; it should mention ANYGPU_DEVICE",
                  gpu_backends[b], why ? why : "(NULL)");
    ag_device *gpu = NULL;
    CHECK_FAILS(ag_device_select(gpu_backends[b], &gpu), AG_ERR_NO_DEVICE, "ag_device_select", "ANYGPU_DEVICE");
  }
  ck_assert_ptr_null(ag_backend_unavailable_reason("host"));
}
END_TEST

/* The spec grammar ignores surrounding white space and case; so does turning GPUs off. */
START_TEST(anygpu_device_host_with_white_space_turns_gpus_off) {
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "\tHost\n", 1), 0);
  ag_device *dev = NULL;
  CHECK_OK(ag_device_select(NULL, &dev));
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ck_assert_str_eq(info.spec, "host");
  int n = 0;
  CHECK_OK(ag_device_count(&n));
  const char *why = ag_backend_unavailable_reason("opencl");
  ck_assert_msg(n == 1 && why != NULL && strstr(why, "ANYGPU_DEVICE") != NULL,
                "ANYGPU_DEVICE=\"\\tHost\\n\" selects the host but leaves %d devices, opencl's reason being \"%s\"", n,
                why ? why : "(NULL: loaded)");
}
END_TEST

START_TEST(anygpu_device_names_the_device_for_a_null_spec) {
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", " opencl ", 1), 0);
  ag_device *from_env = NULL, *direct = NULL;
  /* The spec as an argument first, so that the last message is the one from ANYGPU_DEVICE. */
  ag_status st_direct = ag_device_select("opencl", &direct);
  ag_status st_env = ag_device_select(NULL, &from_env);
  ck_assert_msg(st_env == st_direct, "ANYGPU_DEVICE=opencl gave %s, \"opencl\" gave %s", ag_status_name(st_env),
                ag_status_name(st_direct));
  ck_assert_ptr_eq(from_env, direct);
  if (st_env != AG_OK)
    CHECK_MESSAGE_HAS("ANYGPU_DEVICE");
}
END_TEST

START_TEST(a_malformed_anygpu_device_is_refused) {
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "opencl:pocl:x", 1), 0);
  check_malformed(NULL, "ANYGPU_DEVICE");
  CHECK_MESSAGE_HAS("opencl:pocl:x");
  /* A spec given as an argument does not read the variable. */
  ag_device *dev = NULL;
  CHECK_OK(ag_device_select("host", &dev));
  ck_assert_ptr_nonnull(dev);
}
END_TEST

START_TEST(an_empty_or_unset_anygpu_device_means_auto) {
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "", 1), 0);
  ag_device *a = NULL, *b = NULL, *c = NULL;
  CHECK_OK(ag_device_select(NULL, &a));
  CHECK_OK(ag_device_select("auto", &b));
  ck_assert_ptr_eq(a, b);
  ck_assert_int_eq(unsetenv("ANYGPU_DEVICE"), 0);
  CHECK_OK(ag_device_select(NULL, &c));
  ck_assert_ptr_eq(c, b);
}
END_TEST

/* ---- unavailable backends ------------------------------------------------------------------- */

START_TEST(unavailable_reasons_are_given) {
  ck_assert_ptr_null(ag_backend_unavailable_reason("host"));
  ck_assert_str_eq(ag_backend_unavailable_reason("nosuchbackend"), "unknown backend");
  ck_assert_str_eq(ag_backend_unavailable_reason(""), "unknown backend");
  ck_assert_ptr_nonnull(ag_backend_unavailable_reason(NULL));
  test_device_list l;
  test_list_devices(&l);
  static const char *gpu_backends[] = {"cuda", "opencl"};
  for (int b = 0; b < 2; b++) {
    const char *why = ag_backend_unavailable_reason(gpu_backends[b]);
    /* A backend with devices is available; an unavailable one says why. */
    if (count_matching(&l, is_backend, gpu_backends[b]) > 0)
      ck_assert_msg(why == NULL, "%s has devices but the reason \"%s\"", gpu_backends[b], why);
    else if (why != NULL)
      ck_assert_msg(strlen(why) > 0, "%s: the reason is empty", gpu_backends[b]);
    /* The string is static: the same pointer every time. */
    ck_assert_ptr_eq(ag_backend_unavailable_reason(gpu_backends[b]), why);
  }
}
END_TEST

START_TEST(the_library_is_the_version_of_its_headers) {
  ck_assert_ptr_nonnull(ag_version());
  ck_assert_str_eq(ag_version(), AG_VERSION_STRING);
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", AG_VERSION_MAJOR, AG_VERSION_MINOR, AG_VERSION_PATCH);
  ck_assert_str_eq(ag_version(), want);
}
END_TEST

/* ---- each device ---------------------------------------------------------------------------- */

START_TEST(info_fields_are_filled) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  memset(&info, 0xa5, sizeof info);
  CHECK_OK(ag_device_get_info(dev, &info));
  const char *spec = test_label();
  ck_assert_str_eq(info.spec, test_spec(_i));
  ck_assert_str_eq(info.backend, test_backend());
  /* Strings are terminated within their fields. */
  ck_assert_uint_lt(strnlen(info.name, sizeof info.name), sizeof info.name);
  ck_assert_uint_lt(strnlen(info.vendor, sizeof info.vendor), sizeof info.vendor);
  ck_assert_uint_lt(strnlen(info.platform, sizeof info.platform), sizeof info.platform);
  ck_assert_uint_lt(strnlen(info.driver_version, sizeof info.driver_version), sizeof info.driver_version);
  ck_assert_msg(info.name[0] != '\0', "%s: the name is empty", spec);
  ck_assert_msg(info.platform[0] != '\0', "%s: the platform is empty", spec);
  ck_assert_msg(info.driver_version[0] != '\0', "%s: the driver version is empty", spec);
  ck_assert_msg(info.type == AG_DEVICE_CPU || info.type == AG_DEVICE_GPU || info.type == AG_DEVICE_ACCELERATOR,
                "%s: type %d", spec, (int)info.type);
  ck_assert_msg(info.global_memory > 0, "%s: global_memory is 0", spec);
  ck_assert_msg(info.max_allocation > 0 && info.max_allocation <= info.global_memory,
                "%s: max_allocation %zu, global_memory %zu", spec, info.max_allocation, info.global_memory);
  ck_assert_msg(info.compute_units > 0, "%s: compute_units %d", spec, info.compute_units);
  /* the host's threads are ANYGPU_HOST_THREADS when it is set */
  const char *ht = getenv("ANYGPU_HOST_THREADS");
  if (info.type == AG_DEVICE_CPU && strcmp(info.platform, "host") == 0 && ht != NULL)
    ck_assert_int_eq(info.compute_units, atoi(ht));
  ck_assert_msg(info.max_work_group_size > 0, "%s: max_work_group_size is 0", spec);
  ck_assert_msg(info.local_memory > 0, "%s: local_memory is 0", spec);
  if (test_backend_is("cuda")) {
    ck_assert_msg(info.compute_capability >= 10, "%s: compute_capability %d", spec, info.compute_capability);
    ck_assert_int_eq(info.type, AG_DEVICE_GPU);
  } else {
    ck_assert_msg(info.compute_capability == 0, "%s: compute_capability %d outside CUDA", spec,
                  info.compute_capability);
  }
  if (test_backend_is("host")) {
    ck_assert_int_eq(info.type, AG_DEVICE_CPU);
    ck_assert_str_eq(info.platform, "host");
    ck_assert(info.fp64);
  }
}
END_TEST

START_TEST(its_own_spec_selects_the_device) {
  ag_device *dev = test_device(_i);
  int n = 0;
  CHECK_OK(ag_device_count(&n));
  int found = -1;
  for (int k = 0; k < n; k++) {
    ag_device *d = NULL;
    CHECK_OK(ag_device_get(k, &d));
    if (d == dev)
      found = k;
  }
  ck_assert_msg(found >= 0, "%s: the selected device is not among ag_device_get()'s", test_label());
  ag_device *again = NULL;
  CHECK_OK(ag_device_select(test_spec(_i), &again));
  ck_assert_ptr_eq(again, dev);
  ag_device_info a, b;
  CHECK_OK(ag_device_get_info(dev, &a));
  CHECK_OK(ag_device_get_info(again, &b));
  ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "host comes first, then cuda, then opencl", host_comes_first_then_cuda_then_opencl);
    add_core_test(s, "device numbers out of range are refused", device_numbers_out_of_range_are_refused);
    add_core_test(s, "NULL pointers are refused", null_pointers_are_refused);
    add_core_test(s, "every spec selects its device", every_spec_selects_its_device);
    add_core_test(s, "spec forms select the documented device", spec_forms_select_the_documented_device);
    add_core_test(s, "case and surrounding spaces are ignored", case_and_surrounding_spaces_are_ignored);
    add_core_test(s, "absent devices are refused with the devices present",
                  absent_devices_are_refused_with_the_devices_present);
    add_core_test(s, "malformed specs show the grammar", malformed_specs_show_the_grammar);
    add_core_test(s, "over-long specs are malformed", over_long_specs_are_malformed);
    add_core_test(s, "ANYGPU_DEVICE=host selects the host and turns GPUs off",
                  anygpu_device_host_selects_the_host_and_turns_gpus_off);
    add_core_test(s, "ANYGPU_DEVICE=host with white space turns GPUs off",
                  anygpu_device_host_with_white_space_turns_gpus_off);
    add_core_test(s, "ANYGPU_DEVICE names the device for a NULL spec",
                  anygpu_device_names_the_device_for_a_null_spec);
    add_core_test(s, "a malformed ANYGPU_DEVICE is refused", a_malformed_anygpu_device_is_refused);
    add_core_test(s, "an empty or unset ANYGPU_DEVICE means auto", an_empty_or_unset_anygpu_device_means_auto);
    add_core_test(s, "unavailable backends say why", unavailable_reasons_are_given);
    add_core_test(s, "the library is the version of its headers", the_library_is_the_version_of_its_headers);
    return;
  }
  add_device_test(s, "info fields are filled", info_fields_are_filled);
  add_device_test(s, "its own spec selects the device", its_own_spec_selects_the_device);
}
