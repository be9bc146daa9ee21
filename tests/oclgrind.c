/* tests/oclgrind.c — the Oclgrind suites' device and operands. See oclgrind.h. */
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
