/* tests/test_device_set.c — device sets (lists, wildcards, by-load, local-rank), device loads,
   and, with ANYGPU_TEST_MULTI set and two pocl devices (POCL_DEVICES="pthread pthread"), the
   choices between two devices of one kind. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"

typedef bool (*device_pred)(const ag_device_info *info);
static bool is_cpu(const ag_device_info *i) { return i->type == AG_DEVICE_CPU; }
static bool is_gpu(const ag_device_info *i) { return i->type == AG_DEVICE_GPU; }
static bool is_opencl(const ag_device_info *i) { return strcmp(i->backend, "opencl") == 0; }
static bool is_pocl(const ag_device_info *i) {
  return is_opencl(i) && (strcasestr(i->platform, "pocl") || strcasestr(i->name, "pocl") || strcasestr(i->vendor, "pocl"));
}

/* The devices @p pred accepts, in enumeration order. */
static int filter(const test_device_list *l, device_pred pred, ag_device **out) {
  int n = 0;
  for (int i = 0; i < l->n; i++)
    if (pred(&l->info[i]))
      out[n++] = l->dev[i];
  return n;
}

/* The set @p spec names must be exactly @p want[0..n). */
static void check_set(const test_device_list *l, const char *spec, ag_device *const *want, int n) {
  ag_device_set *set = NULL;
  ag_status st = ag_device_set_select(spec, &set);
  ck_assert_msg(st == AG_OK, "\"%s\" returned %s: %s", spec, ag_status_name(st), ag_last_error());
  int count = -1;
  CHECK_OK(ag_device_set_count(set, &count));
  ck_assert_msg(count == n, "\"%s\" gave %d devices, expected %d", spec, count, n);
  for (int i = 0; i < n; i++) {
    ag_device *d = NULL;
    CHECK_OK(ag_device_set_get(set, i, &d));
    ck_assert_msg(d == want[i], "\"%s\": device %d is %s, expected %s", spec, i, test_spec_of(l, d), test_spec_of(l, want[i]));
  }
  ag_device_set_free(set);
  /* ag_device_select gives the first of the set. */
  ag_device *first = NULL;
  CHECK_OK(ag_device_select(spec, &first));
  ck_assert_msg(first == want[0], "ag_device_select(\"%s\") gave %s, expected %s", spec, test_spec_of(l, first),
                test_spec_of(l, want[0]));
}

/* Both entry points must refuse @p spec with @p want, naming themselves and @p needle. */
static void check_refused(const char *spec, ag_status want, const char *needle) {
  ag_device_set *set = (ag_device_set *)1;
  CHECK_FAILS(ag_device_set_select(spec, &set), want, "ag_device_set_select", needle);
  ck_assert_msg(set == NULL, "\"%s\": *set should be NULL after a failure", spec);
  ag_device *dev = (ag_device *)1;
  CHECK_FAILS(ag_device_select(spec, &dev), want, "ag_device_select", needle);
  ck_assert_msg(dev == NULL, "\"%s\": *dev should be NULL after a failure", spec);
}

static void clear_rank_variables(void) {
  ck_assert_int_eq(unsetenv("LOCAL_RANK"), 0);
  ck_assert_int_eq(unsetenv("OMPI_COMM_WORLD_LOCAL_RANK"), 0);
  ck_assert_int_eq(unsetenv("SLURM_LOCALID"), 0);
}

/* ---- sets ----------------------------------------------------------------------------------- */

START_TEST(a_single_device_spec_is_a_set_of_that_device) {
  test_device_list l;
  test_list_devices(&l);
  for (int i = 0; i < l.n; i++)
    check_set(&l, l.info[i].spec, &l.dev[i], 1);
  check_set(&l, "host", &l.dev[0], 1);
  ag_device *auto_dev = NULL;
  CHECK_OK(ag_device_select("auto", &auto_dev));
  check_set(&l, "auto", &auto_dev, 1);
}
END_TEST

START_TEST(wildcards_expand_to_every_match_in_enumeration_order) {
  test_device_list l;
  test_list_devices(&l);
  ag_device *want[130];
  check_set(&l, "*", l.dev, l.n);
  int n = filter(&l, is_cpu, want);
  ck_assert_int_ge(n, 1); /* the host */
  check_set(&l, "cpu:*", want, n);
  check_set(&l, " CPU:* ", want, n);
  static const struct {
    const char *spec;
    device_pred pred;
  } forms[] = {{"gpu:*", is_gpu}, {"opencl:*", is_opencl}, {"opencl:pocl:*", is_pocl}};
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    n = filter(&l, forms[f].pred, want);
    if (n > 0) {
      check_set(&l, forms[f].spec, want, n);
    } else {
      /* A wildcard alone that matches nothing is an empty set, which is refused. */
      check_refused(forms[f].spec, AG_ERR_NO_DEVICE, forms[f].spec);
      CHECK_MESSAGE_HAS("host");
    }
    /* ",host" after it: the host is added last, unless the wildcard has it already. */
    char spec[64];
    snprintf(spec, sizeof spec, "%s,host", forms[f].spec);
    want[n] = l.dev[0];
    check_set(&l, spec, want, n + 1);
  }
}
END_TEST

START_TEST(lists_keep_their_order_and_drop_repeats) {
  test_device_list l;
  test_list_devices(&l);
  check_set(&l, "host,host", &l.dev[0], 1);
  check_set(&l, " host , HOST ,host", &l.dev[0], 1);
  /* "*" after a device keeps that device first, then the others in enumeration order. */
  ag_device *want[130];
  int n = 0;
  want[n++] = l.dev[l.n - 1];
  for (int i = 0; i < l.n - 1; i++)
    want[n++] = l.dev[i];
  char spec[128];
  snprintf(spec, sizeof spec, "%s,*", l.info[l.n - 1].spec);
  check_set(&l, spec, want, n);
  /* Every device named once, last to first. */
  spec[0] = '\0';
  for (int i = l.n - 1; i >= 0; i--) {
    size_t len = strlen(spec);
    snprintf(spec + len, sizeof spec - len, "%s%s", i == l.n - 1 ? "" : ",", l.info[i].spec);
    want[l.n - 1 - i] = l.dev[i];
  }
  check_set(&l, spec, want, l.n);
}
END_TEST

START_TEST(anygpu_device_may_name_a_set) {
  test_device_list l;
  test_list_devices(&l);
  char spec[128];
  snprintf(spec, sizeof spec, "%s,host", l.info[l.n - 1].spec);
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", spec, 1), 0);
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select(NULL, &set));
  int count = 0;
  CHECK_OK(ag_device_set_count(set, &count));
  ck_assert_int_eq(count, l.n > 1 ? 2 : 1);
  ag_device *first = NULL, *second = NULL;
  CHECK_OK(ag_device_set_get(set, 0, &first));
  ck_assert_ptr_eq(first, l.dev[l.n - 1]);
  if (count == 2) {
    CHECK_OK(ag_device_set_get(set, 1, &second));
    ck_assert_ptr_eq(second, l.dev[0]);
  }
  ag_device_set_free(set);
  ag_device *dev = NULL;
  CHECK_OK(ag_device_select(NULL, &dev));
  ck_assert_ptr_eq(dev, l.dev[l.n - 1]);
  /* A bad item in the variable is refused with the variable's name. */
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "host,bogus", 1), 0);
  check_refused(NULL, AG_ERR_INVALID_ARGUMENT, "ANYGPU_DEVICE");
  CHECK_MESSAGE_HAS("bogus");
}
END_TEST

START_TEST(malformed_set_specs_show_the_grammar) {
  static const char *specs[] = {"host,",          ",host",         "host,,host",       "gpu:**",
                                "opencl:*:*",     "host:*",        "auto:*",           "by-load:0",
                                "cuda:by-load:0", "local-rank:1",  "opencl:pocl:by-load:1",
                                "opencl:by-load:0", "opencl:local-rank:*", "by_load", "localrank",
                                "gpu:by load",    "*:by-load",     "host:local-rank",  "opencl:p*",
                                "cpu:0,*"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
    check_refused(specs[i], AG_ERR_INVALID_ARGUMENT, "expected auto, host");
    CHECK_MESSAGE_HAS("by-load");
    CHECK_MESSAGE_HAS("local-rank");
    CHECK_MESSAGE_HAS(specs[i]);
  }
}
END_TEST

START_TEST(an_item_that_matches_nothing_is_refused) {
  test_device_list l;
  test_list_devices(&l);
  check_refused("host,opencl:nosuchvendor", AG_ERR_NO_DEVICE, "opencl:nosuchvendor");
  CHECK_MESSAGE_HAS("devices present");
  /* An empty wildcard inside a list is not an error: it adds nothing. */
  check_set(&l, "opencl:nosuchvendor:*,host", &l.dev[0], 1);
  check_refused("opencl:nosuchvendor:*", AG_ERR_NO_DEVICE, "opencl:nosuchvendor:*");
  check_refused("opencl:nosuchvendor:by-load", AG_ERR_NO_DEVICE, "opencl:nosuchvendor:by-load");
  check_refused("opencl:nosuchvendor:local-rank", AG_ERR_NO_DEVICE, "opencl:nosuchvendor:local-rank");
}
END_TEST

START_TEST(set_arguments_are_checked) {
  CHECK_FAILS(ag_device_set_select("host", NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_set_select", "set");
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("host", &set));
  int count = 7;
  CHECK_FAILS(ag_device_set_count(NULL, &count), AG_ERR_INVALID_ARGUMENT, "ag_device_set_count", "set");
  ck_assert_int_eq(count, 0);
  CHECK_FAILS(ag_device_set_count(set, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_set_count", "count");
  ag_device *dev = (ag_device *)1;
  CHECK_FAILS(ag_device_set_get(NULL, 0, &dev), AG_ERR_INVALID_ARGUMENT, "ag_device_set_get", "set");
  ck_assert_ptr_null(dev);
  CHECK_FAILS(ag_device_set_get(set, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_set_get", "dev");
  dev = (ag_device *)1;
  CHECK_FAILS(ag_device_set_get(set, 1, &dev), AG_ERR_OUT_OF_RANGE, "ag_device_set_get", "index");
  ck_assert_ptr_null(dev);
  CHECK_FAILS(ag_device_set_get(set, -1, &dev), AG_ERR_OUT_OF_RANGE, "ag_device_set_get", "index");
  CHECK_OK(ag_device_set_get(set, 0, &dev));
  ag_device *host = NULL;
  CHECK_OK(ag_device_get(0, &host));
  ck_assert_ptr_eq(dev, host);
  ag_device_set_free(set);
  ag_device_set_free(NULL);
}
END_TEST

/* ---- local-rank ----------------------------------------------------------------------------- */

START_TEST(local_rank_maps_the_rank_onto_the_devices) {
  clear_rank_variables();
  test_device_list l;
  test_list_devices(&l);
  ag_device *cpus[64], *gpus[64];
  int ncpu = filter(&l, is_cpu, cpus), ngpu = filter(&l, is_gpu, gpus);
  static const char *vars[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"};
  for (size_t v = 0; v < 3; v++) {
    for (int rank = 0; rank < 5; rank++) {
      char value[16];
      snprintf(value, sizeof value, "%d", rank);
      ck_assert_int_eq(setenv(vars[v], value, 1), 0);
      ag_device *want = cpus[rank % ncpu];
      check_set(&l, "cpu:local-rank", &want, 1);
      /* Bare local-rank ranges over the GPUs, or is the host when there is none. */
      want = ngpu > 0 ? gpus[rank % ngpu] : l.dev[0];
      check_set(&l, "local-rank", &want, 1);
      if (ngpu > 0)
        check_set(&l, " GPU:Local-Rank ,local-rank", &want, 1);
      else
        check_refused("gpu:local-rank", AG_ERR_NO_DEVICE, "gpu:local-rank");
    }
    ck_assert_int_eq(unsetenv(vars[v]), 0);
  }
}
END_TEST

START_TEST(the_innermost_launchers_rank_is_read_first) {
  clear_rank_variables();
  test_device_list l;
  test_list_devices(&l);
  ag_device *cpus[64];
  int ncpu = filter(&l, is_cpu, cpus);
  /* Slurm's 0 is inherited by every process mpirun or torchrun starts inside the step. */
  ck_assert_int_eq(setenv("SLURM_LOCALID", "0", 1), 0);
  ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1), 0);
  ag_device *want = cpus[1 % ncpu];
  check_set(&l, "cpu:local-rank", &want, 1);
  ck_assert_int_eq(setenv("LOCAL_RANK", "2", 1), 0);
  want = cpus[2 % ncpu];
  check_set(&l, "cpu:local-rank", &want, 1);
  /* An empty variable counts as unset. */
  ck_assert_int_eq(setenv("LOCAL_RANK", "", 1), 0);
  want = cpus[1 % ncpu];
  check_set(&l, "cpu:local-rank", &want, 1);
}
END_TEST

START_TEST(local_rank_without_a_rank_variable_is_refused) {
  clear_rank_variables();
  check_refused("cpu:local-rank", AG_ERR_NO_DEVICE, "LOCAL_RANK");
  CHECK_MESSAGE_HAS("OMPI_COMM_WORLD_LOCAL_RANK");
  CHECK_MESSAGE_HAS("SLURM_LOCALID");
  CHECK_MESSAGE_HAS("cpu:local-rank");
  check_refused("local-rank", AG_ERR_NO_DEVICE, "LOCAL_RANK");
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "local-rank", 1), 0);
  check_refused(NULL, AG_ERR_NO_DEVICE, "ANYGPU_DEVICE");
}
END_TEST

START_TEST(a_malformed_rank_variable_is_refused) {
  clear_rank_variables();
  static const char *bad[] = {"x", "-1", "1.5", "2000000", "99999999999999999999999999999999999", "0x1", "1 2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_RANK", bad[i], 1), 0);
    check_refused("cpu:local-rank", AG_ERR_INVALID_ARGUMENT, "OMPI_COMM_WORLD_LOCAL_RANK");
    CHECK_MESSAGE_HAS("Open MPI");
  }
  /* Spaces around a number are allowed, as around a spec. */
  ck_assert_int_eq(setenv("OMPI_COMM_WORLD_LOCAL_RANK", " 0 ", 1), 0);
  ag_device *dev = NULL, *cpu0 = NULL;
  CHECK_OK(ag_device_select("cpu:local-rank", &dev));
  CHECK_OK(ag_device_select("cpu", &cpu0));
  ck_assert_ptr_eq(dev, cpu0);
}
END_TEST

/* ---- loads ---------------------------------------------------------------------------------- */

START_TEST(loads_are_weighted_as_sporco_weights_them) {
  ag_device *host = NULL;
  CHECK_OK(ag_device_get(0, &host));
  ag_device_load load;
  memset(&load, 0xa5, sizeof load);
  CHECK_OK(ag_device_get_load(host, 0.25, 0.75, &load));
  /* The host reports its memory from /proc/meminfo. */
  ck_assert(load.memory_from_driver);
  ck_assert_uint_gt(load.memory_total, 0);
  ck_assert_uint_le(load.memory_used, load.memory_total);
  ck_assert_double_eq_tol(load.memory, (double)load.memory_used / (double)load.memory_total, 1e-12);
  ck_assert(!load.processor_known);
  ck_assert_double_eq(load.processor, 0);
  ck_assert_double_eq_tol(load.weighted, (0.25 * load.processor + 0.75 * load.memory) / 1.0, 1e-12);
  /* Only the processor weighs: the load is the processor's, 0 while it is not measured. */
  CHECK_OK(ag_device_get_load(host, 2, 0, &load));
  ck_assert_double_eq(load.weighted, 0);
  /* Weights are normalised: (3, 3) is (0.5, 0.5). */
  CHECK_OK(ag_device_get_load(host, 3, 3, &load));
  ck_assert_double_eq_tol(load.weighted, 0.5 * load.memory, 1e-12);
}
END_TEST

START_TEST(load_arguments_are_checked) {
  ag_device *host = NULL;
  CHECK_OK(ag_device_get(0, &host));
  ag_device_load load;
  CHECK_FAILS(ag_device_get_load(NULL, 0.5, 0.5, &load), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "dev");
  CHECK_FAILS(ag_device_get_load(host, 0.5, 0.5, NULL), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "load");
  CHECK_FAILS(ag_device_get_load(host, -0.5, 0.5, &load), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "wproc");
  CHECK_FAILS(ag_device_get_load(host, NAN, 0.5, &load), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "wproc");
  CHECK_FAILS(ag_device_get_load(host, 0.5, INFINITY, &load), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "wmem");
  CHECK_FAILS(ag_device_get_load(host, 0.5, -1, &load), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "wmem");
  CHECK_FAILS(ag_device_get_load(host, 0, 0, &load), AG_ERR_INVALID_ARGUMENT, "ag_device_get_load", "wproc and wmem");
}
END_TEST

START_TEST(by_load_chooses_among_the_matching_devices) {
  test_device_list l;
  test_list_devices(&l);
  /* The CPU devices' loads, then the choice: the lowest, the first of equals. The host's
     figure is the whole machine's and moves between the two looks, but no further than to
     swap it with a device whose load is within a hair of it. */
  ag_device *cpus[64];
  int ncpu = filter(&l, is_cpu, cpus);
  double loads[64];
  int best = 0;
  for (int i = 0; i < ncpu; i++) {
    ag_device_load load;
    CHECK_OK(ag_device_get_load(cpus[i], 0.5, 0.5, &load));
    loads[i] = load.weighted;
    if (loads[i] < loads[best])
      best = i;
  }
  ag_device *dev = NULL;
  CHECK_OK(ag_device_select("cpu:by-load", &dev));
  int chosen = -1;
  for (int i = 0; i < ncpu; i++)
    if (cpus[i] == dev)
      chosen = i;
  ck_assert_msg(chosen >= 0, "cpu:by-load chose %s, not a CPU", test_spec_of(&l, dev));
  ck_assert_msg(chosen == best || fabs(loads[chosen] - loads[best]) < 1e-3,
                "cpu:by-load chose %s (load %g), expected %s (load %g)", test_spec_of(&l, dev), loads[chosen],
                test_spec_of(&l, cpus[best]), loads[best]);
  /* Bare by-load: among the GPUs, else the host. */
  ag_device *gpus[64];
  int ngpu = filter(&l, is_gpu, gpus);
  CHECK_OK(ag_device_select("by-load", &dev));
  if (ngpu == 0)
    ck_assert_ptr_eq(dev, l.dev[0]);
  else
    ck_assert_msg(l.info[0].type != AG_DEVICE_GPU && dev != l.dev[0], "by-load chose the host although there are GPUs");
}
END_TEST

/* ---- each device ---------------------------------------------------------------------------- */

START_TEST(a_buffer_counts_in_its_devices_load) {
  ag_device *dev = test_device(_i);
  ag_device_load before, after;
  CHECK_OK(ag_device_get_load(dev, 0.5, 0.5, &before));
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  size_t bytes = (size_t)16 << 20;
  ag_buffer *buf = NULL;
  CHECK_OK(ag_buffer_alloc(dev, bytes, &buf));
  CHECK_OK(ag_device_get_load(dev, 0.5, 0.5, &after));
  ck_assert(before.memory_from_driver == after.memory_from_driver);
  ck_assert_uint_le(after.memory_used, after.memory_total);
  ck_assert_msg(after.memory >= 0 && after.memory <= 1, "%s: memory fraction %g", test_label(), after.memory);
  if (!after.memory_from_driver) {
    /* No driver figure: anygpu's own pool, whose counters say exactly what is held. */
    ag_pool_stats ps;
    CHECK_OK(ag_device_pool_stats(dev, &ps));
    ck_assert_uint_eq(after.memory_total, info.global_memory);
    ck_assert_uint_eq(after.memory_used, ps.bytes_in_use + ps.bytes_cached);
    ck_assert_uint_ge(after.memory_used, before.memory_used + bytes);
    ck_assert_double_eq_tol(after.weighted, 0.5 * (double)after.memory_used / (double)after.memory_total, 1e-12);
  }
  ag_buffer_free(buf);
}
END_TEST

/* ---- two devices of one kind ---------------------------------------------------------------- */

/* The two pocl devices, in enumeration order. */
static void two_pocl(ag_device *pocl[2]) {
  ag_device_set *set = NULL;
  CHECK_OK(ag_device_set_select("opencl:pocl:*", &set));
  int count = 0;
  CHECK_OK(ag_device_set_count(set, &count));
  ck_assert_msg(count == 2, "POCL_DEVICES=\"pthread pthread\" should give 2 pocl devices, not %d", count);
  CHECK_OK(ag_device_set_get(set, 0, &pocl[0]));
  CHECK_OK(ag_device_set_get(set, 1, &pocl[1]));
  ag_device_set_free(set);
  ck_assert_ptr_ne(pocl[0], pocl[1]);
}

START_TEST(two_pocl_devices_form_their_sets) {
  test_device_list l;
  test_list_devices(&l);
  ag_device *pocl[2];
  two_pocl(pocl);
  ag_device *d0 = NULL, *d1 = NULL;
  CHECK_OK(ag_device_select("opencl:pocl:0", &d0));
  CHECK_OK(ag_device_select("opencl:pocl:1", &d1));
  ck_assert_ptr_eq(d0, pocl[0]);
  ck_assert_ptr_eq(d1, pocl[1]);
  ag_device *swapped[2] = {pocl[1], pocl[0]};
  check_set(&l, "opencl:pocl:1,opencl:pocl:0", swapped, 2);
  check_set(&l, "opencl:pocl:1,opencl:pocl:*", swapped, 2);
  ag_device *ocl[64];
  int nocl = filter(&l, is_opencl, ocl);
  ck_assert_int_ge(nocl, 2);
  check_set(&l, "opencl:*", ocl, nocl);
  /* Their specs, joined by commas, are the same set. */
  ag_device_info i0, i1;
  CHECK_OK(ag_device_get_info(pocl[0], &i0));
  CHECK_OK(ag_device_get_info(pocl[1], &i1));
  char spec[80];
  snprintf(spec, sizeof spec, "%s,%s", i0.spec, i1.spec);
  check_set(&l, spec, pocl, 2);
}
END_TEST

START_TEST(by_load_chooses_the_device_with_less_memory_in_use) {
  test_device_list l;
  test_list_devices(&l);
  ag_device *pocl[2];
  two_pocl(pocl);
  /* Equal loads (nothing allocated yet): the first in enumeration order. */
  check_set(&l, "opencl:pocl:by-load", &pocl[0], 1);
  ag_buffer *a = NULL, *b = NULL;
  CHECK_OK(ag_buffer_alloc(pocl[0], (size_t)64 << 20, &a));
  check_set(&l, "opencl:pocl:by-load", &pocl[1], 1);
  ag_device_load la, lb;
  CHECK_OK(ag_device_get_load(pocl[0], 0.5, 0.5, &la));
  CHECK_OK(ag_device_get_load(pocl[1], 0.5, 0.5, &lb));
  ck_assert(!la.memory_from_driver && !lb.memory_from_driver);
  ck_assert_uint_ge(la.memory_used, (size_t)64 << 20);
  ck_assert_uint_eq(lb.memory_used, 0);
  ck_assert_double_gt(la.weighted, lb.weighted);
  /* More on the other: the choice turns back. */
  CHECK_OK(ag_buffer_alloc(pocl[1], (size_t)128 << 20, &b));
  check_set(&l, "opencl:pocl:by-load", &pocl[0], 1);
  /* A freed buffer stays in the pool, held from the driver, so it still counts... */
  ag_buffer_free(b);
  check_set(&l, "opencl:pocl:by-load", &pocl[0], 1);
  /* ...until the pool gives it back. */
  CHECK_OK(ag_device_trim(pocl[1]));
  check_set(&l, "opencl:pocl:by-load", &pocl[1], 1);
  /* Through ANYGPU_DEVICE, as a program that calls ag_device_select(NULL) sees it. */
  ck_assert_int_eq(setenv("ANYGPU_DEVICE", "opencl:pocl:by-load", 1), 0);
  ag_device *dev = NULL;
  CHECK_OK(ag_device_select(NULL, &dev));
  ck_assert_ptr_eq(dev, pocl[1]);
  ag_buffer_free(a);
}
END_TEST

/* The child of the local-rank test: a process as a launcher starts it, with its rank in
   OMPI_COMM_WORLD_LOCAL_RANK; exits with the index of the pocl device it selects (0 or 1),
   or 10 and up when something fails. */
static int rank_child(void *arg) {
  char value[16];
  snprintf(value, sizeof value, "%d", *(int *)arg);
  unsetenv("LOCAL_RANK");
  unsetenv("SLURM_LOCALID");
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", value, 1);
  setenv("ANYGPU_DEVICE", "opencl:pocl:local-rank", 1);
  ag_device *dev = NULL, *d0 = NULL, *d1 = NULL;
  if (ag_device_select(NULL, &dev) != AG_OK || ag_device_select("opencl:pocl:0", &d0) != AG_OK ||
      ag_device_select("opencl:pocl:1", &d1) != AG_OK) {
    fprintf(stderr, "rank %s: %s\n", value, ag_last_error());
    return 10;
  }
  return dev == d0 ? 0 : dev == d1 ? 1 : 11;
}

START_TEST(local_rank_spreads_processes_over_the_two_devices) {
  /* One process per rank, started before this one touches the library (see runner.h). */
  for (int rank = 0; rank < 4; rank++) {
    int got = test_run_child(rank_child, &rank);
    ck_assert_msg(got == rank % 2, "the process of local rank %d chose pocl device %d, expected %d", rank, got,
                  rank % 2);
  }
  /* And in this process, through LOCAL_RANK. */
  clear_rank_variables();
  test_device_list l;
  test_list_devices(&l);
  ag_device *pocl[2];
  two_pocl(pocl);
  for (int rank = 0; rank < 4; rank++) {
    char value[16];
    snprintf(value, sizeof value, "%d", rank);
    ck_assert_int_eq(setenv("LOCAL_RANK", value, 1), 0);
    check_set(&l, "opencl:pocl:local-rank", &pocl[rank % 2], 1);
  }
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "a single-device spec is a set of that device", a_single_device_spec_is_a_set_of_that_device);
    add_core_test(s, "wildcards expand to every match in enumeration order",
                  wildcards_expand_to_every_match_in_enumeration_order);
    add_core_test(s, "lists keep their order and drop repeats", lists_keep_their_order_and_drop_repeats);
    add_core_test(s, "ANYGPU_DEVICE may name a set", anygpu_device_may_name_a_set);
    add_core_test(s, "malformed set specs show the grammar", malformed_set_specs_show_the_grammar);
    add_core_test(s, "an item that matches nothing is refused", an_item_that_matches_nothing_is_refused);
    add_core_test(s, "set arguments are checked", set_arguments_are_checked);
    add_core_test(s, "local-rank maps the rank onto the devices", local_rank_maps_the_rank_onto_the_devices);
    add_core_test(s, "the innermost launcher's rank is read first", the_innermost_launchers_rank_is_read_first);
    add_core_test(s, "local-rank without a rank variable is refused", local_rank_without_a_rank_variable_is_refused);
    add_core_test(s, "a malformed rank variable is refused", a_malformed_rank_variable_is_refused);
    add_core_test(s, "loads are weighted as sporco weights them", loads_are_weighted_as_sporco_weights_them);
    add_core_test(s, "load arguments are checked", load_arguments_are_checked);
    add_core_test(s, "by-load chooses among the matching devices", by_load_chooses_among_the_matching_devices);
    return;
  }
  if (getenv("ANYGPU_TEST_MULTI") != NULL) {
    if (strcmp(backend, "opencl") != 0)
      return;
    test_require_devices("opencl:pocl:*", 2);
    add_core_test(s, "two pocl devices form their sets", two_pocl_devices_form_their_sets);
    add_core_test(s, "by-load chooses the device with less memory in use",
                  by_load_chooses_the_device_with_less_memory_in_use);
    add_core_test(s, "local-rank spreads processes over the two devices",
                  local_rank_spreads_processes_over_the_two_devices);
    return;
  }
  add_device_test(s, "a buffer counts in its device's load", a_buffer_counts_in_its_devices_load);
}
