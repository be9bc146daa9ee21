/* tests/kernel_list/skeleton.h - turns the kernel definitions of a family source
   (kernels_shared/<family>.h) into a list of names and forms, for tests/recipe.py: each
   kernel an entry {name, form} in the linker section ag_list_<family>, which list.c reads back
   between the linker's __start_ and __stop_ symbols, as the host's table does
   (backends/host/kernels/skeleton.h). */
#ifndef AG_LIST_SKELETON_H
#define AG_LIST_SKELETON_H

#include "anygpu.h"
#include "../../kernels_shared/dialect.h"

/* A kernel's form: the skeleton macro that defines it. */
enum { AG_LIST_EW = 0, AG_LIST_ITEMS = 1, AG_LIST_GROUPS = 2 };

/* Entries lie back to back in their section, so their size is a power of two and their
   alignment that size. */
typedef struct ag_list_entry {
  const char *name;
  int64_t form;
} ag_list_entry;
_Static_assert(sizeof(ag_list_entry) == 16, "kernel list entries must be 16 bytes long");

#define AG_LIST_STR_(x) #x
#define AG_LIST_STR(x) AG_LIST_STR_(x)
#define AG_LIST_ENTRY(K, FORM)                                                                     \
  static const ag_list_entry AG_CAT2(entry_, K)                                                    \
      __attribute__((used, aligned(sizeof(ag_list_entry)),                                         \
                     section("ag_list_" AG_LIST_STR(AG_LIST_FAMILY)))) = {AG_LIST_STR(K), FORM};

#define AG_EW(K, SHAPE, T1, T2, T3, LOOP, ...) AG_LIST_ENTRY(K, AG_LIST_EW)
#define AG_ITEMS(K, SHAPE, T1, T2, T3, ...) AG_LIST_ENTRY(K, AG_LIST_ITEMS)
#define AG_CPU_ITEMS(K, SHAPE, T1, T2, T3, ...) AG_LIST_ENTRY(K, AG_LIST_ITEMS)
#define AG_GROUPS(K, SHAPE, T1, T2, T3, LOCALS, ...) AG_LIST_ENTRY(K, AG_LIST_GROUPS)

#endif
