/* tests/kernel_list/list.c - prints every built-in kernel, a line each: its family, its form
   (ew, items or groups: the skeleton macro that defines it), its name, and whether the host
   backend has it (host or -). tests/recipe.py checks the recipe for a kernel family with it. */
#include <stdio.h>
#include <string.h>

#include "skeleton.h"
#include "../../backends/host/kernels/kernels.h"

#define AG_FAMILY(name, kind) extern const ag_list_entry __start_ag_list_##name[], __stop_ag_list_##name[];
#include "../../kernels_shared/families.h"
#undef AG_FAMILY

typedef struct list_family {
  const char *name;
  const ag_list_entry *first, *end;
} list_family;

static const list_family families[] = {
#define AG_FAMILY(name, kind) {#name, __start_ag_list_##name, __stop_ag_list_##name},
#include "../../kernels_shared/families.h"
#undef AG_FAMILY
};

/* Whether the host's table of family @p family holds kernel @p name. */
static int on_host(const char *family, const char *name) {
  for (const ag__host_family *f = ag__host_families; f->name != NULL; f++) {
    if (strcmp(f->name, family) != 0)
      continue;
    for (const ag_host_kernel_def *k = f->first; k < f->end; k++)
      if (strcmp(k->name, name) == 0)
        return 1;
  }
  return 0;
}

int main(void) {
  static const char *const forms[] = {"ew", "items", "groups"};
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
    for (const ag_list_entry *e = families[i].first; e < families[i].end; e++)
      printf("%s %s %s %s\n", families[i].name, forms[e->form], e->name,
             on_host(families[i].name, e->name) ? "host" : "-");
  return 0;
}
