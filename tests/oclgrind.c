/* tests/oclgrind.c — the Oclgrind suites' device and operands. See oclgrind.h. */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

ag_device *oclgrind_device(int i) {
  ag_device *dev = test_device(i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  ck_assert_msg(strstr(info.name, "Oclgrind") != NULL,
                "%s is \"%s\", not Oclgrind's simulator: run this suite through tests/oclgrind-run.py "
                "(meson test -C build --suite oclgrind)",
                test_label(), info.name);
  return dev;
}

ag_array *oclgrind_operand(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data) {
  size_t n = 1, two[AG_MAX_DIMS] = {2};
  for (int d = 0; d < ndim; d++) {
    n *= shape[d];
    two[d + 1] = shape[d];
  }
  unsigned char *both = test_alloc(2 * n * ref_size(t));
  test_fill_bytes(both, n * ref_size(t), 7);
  memcpy(both + n * ref_size(t), data, n * ref_size(t));
  ag_array *whole = test_array_from(dev, t, ndim + 1, two, both), *half = NULL;
  CHECK_OK(ag_array_index(whole, 1, &half));
  ag_array_free(whole); /* the view keeps the memory */
  free(both);
  return half;
}

ag_array *oclgrind_input(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data) {
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (strstr(info.name, "Oclgrind") != NULL)
    return oclgrind_operand(dev, t, ndim, shape, data);
  return test_array_from(dev, t, ndim, shape, data);
}

void oclgrind_csc_problem(ag_device *dev, ag_dtype t, unsigned seed, ag_array **d, ag_array **s) {
  const size_t dshape[3] = {2, 3, 3}, sshape[2] = {8, 8};
  void *dv = test_alloc(18 * ref_size(t)), *sv = test_alloc(64 * ref_size(t));
  ref_random(t, dv, 18, seed, -1, 1);
  ref_random(t, sv, 64, seed + 1, -1, 1);
  *d = oclgrind_input(dev, t, 3, dshape, dv);
  *s = oclgrind_input(dev, t, 2, sshape, sv);
  oclgrind_keep(*d);
  oclgrind_keep(*s);
  free(dv);
  free(sv);
}

static ag_array **kept;
static size_t nkept, cap;

void oclgrind_keep(ag_array *a) {
  if (a == NULL)
    return;
  if (nkept == cap) {
    cap = cap ? 2 * cap : 64;
    kept = realloc(kept, cap * sizeof *kept);
    ck_assert_msg(kept != NULL, "out of host memory");
  }
  kept[nkept++] = a;
}

void oclgrind_free_kept(void) {
  for (size_t i = 0; i < nkept; i++)
    ag_array_free(kept[i]);
  free(kept);
  kept = NULL;
  nkept = cap = 0;
}

void oclgrind_same(const char *what, const ag_array *got, const ag_array *want, double tol) {
  ag_dtype t = ag_array_dtype(got);
  size_t n = ag_array_size(got);
  ck_assert_msg(t == ag_array_dtype(want) && n == ag_array_size(want), "%s: %s: %s of %zu elements, the host %s of %zu",
                test_label(), what, ref_name(t), n, ref_name(ag_array_dtype(want)), ag_array_size(want));
  void *a = test_array_read(got), *b = test_array_read(want);
  for (size_t i = 0; i < n; i++) {
    ref_c x = ref_get(t, a, i), y = ref_get(t, b, i);
    long double err = cabsl(x - y), scale = fmaxl(1, cabsl(y));
    ck_assert_msg(err <= tol * scale, "%s: %s (%s), element %zu: %Lg%+Lgi, the host %Lg%+Lgi", test_label(), what,
                  ref_name(t), i, creall(x), cimagl(x), creall(y), cimagl(y));
  }
  free(a);
  free(b);
}
