/* tests/test_kernel_ids.c - the kernel ids the build made (kernel_ids.h, kernel_table.c)
   against the kernels each device's programs hold: every id makes its kernel on every device
   (but for the forms a device has none of, said below), and every host kernel has an id.
   Linked with the library's objects, not the library, to read its tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backends/host/kernels/kernels.h"
#include "builtin.h"
#include "launch.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/elementwise.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_binary_scalar, AG_SHAPE_BINARY_SCALAR)

static const char *family_names[] = {
#define AG_FAMILY(name, kind) #name,
#include "../kernels_shared/families.h"
#undef AG_FAMILY
};

static int failures;

static void fail(const char *fmt, const char *a, const char *b, const char *c) {
  fprintf(stderr, "FAIL: ");
  fprintf(stderr, fmt, a, b, c);
  fprintf(stderr, "\n");
  failures++;
}

/* Every host kernel, in its family's table, has an id of that family. */
static void host_kernels_have_ids(void) {
  size_t seen = 0;
  for (const ag__host_family *f = ag__host_families; f->name != NULL; f++)
    for (const ag_host_kernel_def *d = f->first; d < f->end; d++) {
      seen++;
      int at = -1;
      for (int id = 0; id < AG__KERNEL_COUNT; id++)
        if (ag__kernels[id].name != NULL && strcmp(ag__kernels[id].name, d->name) == 0)
          at = id;
      if (at < 0)
        fail("host kernel %s of family %s has no id%s", d->name, f->name, "");
      else if (strcmp(family_names[ag__kernels[at].family], f->name) != 0)
        fail("host kernel %s is in family %s but its id in family %s", d->name, f->name,
             family_names[ag__kernels[at].family]);
    }
  printf("host: %zu kernels in %d families, each with its id\n", seen, AG__FAMILY_COUNT);
}

/* Whether a device lacks kernel @p info by design: the host has no form of AG_GROUPS kernels;
   the CUDA module none of AG_CPU_ITEMS kernels (CUDA devices are GPUs); a device without float64 has no f64 or c128 variant, nor a kernel whose name says f64 or c128. */
static const char *exempt(const ag_device_info *di, const ag__kernel_info *info) {
  if (strcmp(di->backend, "host") == 0 && info->form == AG__FORM_GROUPS)
    return "the host has no form of work-group kernels";
  if (strcmp(di->backend, "cuda") == 0 && info->form == AG__FORM_CPU_ITEMS)
    return "kernels for CPU devices only";
  if (!di->fp64 && (info->variant == AG_F64 || info->variant == AG_C128 || strstr(info->name, "f64") != NULL ||
                    strstr(info->name, "c128") != NULL))
    return "no float64";
  return NULL;
}

/* Every id's kernel is made on @p dev. An OpenCL device builds a program per dtype, which takes
   its compiler seconds each: there the f32 and c64 variants (which hold every kernel name but
   the dtype) are checked, every variant with ANYGPU_TEST_ALL_VARIANTS=1. */
static void ids_make_kernels(ag_device *dev) {
  ag_device_info di;
  ag_device_get_info(dev, &di);
  bool all = strcmp(di.backend, "host") == 0 || getenv("ANYGPU_TEST_ALL_VARIANTS") != NULL;
  int made = 0, exempted = 0, skipped = 0;
  for (int id = 0; id < AG__KERNEL_COUNT; id++) {
    const ag__kernel_info *info = &ag__kernels[id];
    if (info->name == NULL)
      continue;
    if (!all && info->variant >= 0 && info->variant != AG_F32 && info->variant != AG_C64) {
      skipped++;
      continue;
    }
    if (exempt(&di, info) != NULL) {
      exempted++;
      continue;
    }
    const ag__builtin_kernel *k;
    if (ag__builtin_kernel_get(dev, (ag__kernel_id)id, &k) != AG_OK)
      fail("%s: kernel %s: %s", di.spec, info->name, ag_last_error());
    else
      made++;
  }
  printf("%s (%s): %d kernels made from their ids, %d not for this device, %d other dtypes not tried\n", di.spec,
         di.name, made, exempted, skipped);
}

/* A launch refuses a value of another size than the kernel's parameter, and a parameter left
   out, naming it; with both right it runs. On the host, which cannot check a launch itself. */
static void launches_check_their_arguments(void) {
  ag_device *host;
  const size_t one = 1;
  float v = 1, got = 0, s4 = 2.5f;
  double s8 = 2.5;
  ag_array *x = NULL, *out = NULL;
  if (ag_device_select("host", &host) != AG_OK || ag_array_from_host(host, AG_F32, 1, &one, &v, &x) != AG_OK ||
      ag_array_create(host, AG_F32, 1, &one, &out) != AG_OK) {
    fail("the host's arrays: %s%s%s", ag_last_error(), "", "");
    return;
  }
  ag__launch l = {.fn = "test", .dev = host, .kernel = AG_K_ADD_S + AG_F32, .n = 1};
  ag_status st = AG__LAUNCH(launch_binary_scalar, &l, .x = x, .s = {&s8, sizeof s8}, .out = out);
  if (st != AG_ERR_INVALID_ARGUMENT || strstr(ag_last_error(), "parameter s is 8 bytes, not the 4") == NULL)
    fail("an 8-byte s for ag_add_f32_s gave %s: %s%s", ag_status_name(st), ag_last_error(), "");
  st = AG__LAUNCH(launch_binary_scalar, &l, .x = x, .s = {&s4, sizeof s4});
  if (st != AG_ERR_INVALID_ARGUMENT || strstr(ag_last_error(), "parameter out is not given") == NULL)
    fail("ag_add_f32_s without out gave %s: %s%s", ag_status_name(st), ag_last_error(), "");
  st = AG__LAUNCH(launch_binary_scalar, &l, .x = x, .s = {&s4, sizeof s4}, .out = out);
  if (st != AG_OK || ag_array_to_host(out, &got, sizeof got) != AG_OK || got != 3.5f)
    fail("ag_add_f32_s of 1 and 2.5 gave %s (%s), %s", ag_status_name(st), ag_last_error(), got == 3.5f ? "3.5" : "not 3.5");
  else
    printf("host: a launch refuses an 8-byte value for a 4-byte parameter and a parameter left out\n");
  ag_array_free(x);
  ag_array_free(out);
}

int main(void) {
  int count = 0;
  if (ag_device_count(&count) != AG_OK) {
    fprintf(stderr, "ag_device_count: %s\n", ag_last_error());
    return 1;
  }
  host_kernels_have_ids();
  launches_check_their_arguments();
  for (int i = 0; i < count; i++) {
    ag_device *dev;
    if (ag_device_get(i, &dev) == AG_OK)
      ids_make_kernels(dev);
  }
  return failures == 0 ? 0 : 1;
}
