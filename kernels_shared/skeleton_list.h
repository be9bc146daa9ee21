/* kernels_shared/skeleton_list.h - reads the kernel definitions of a family source as a list:
   each AG_EW, AG_ITEMS, AG_CPU_ITEMS or AG_GROUPS becomes one entry naming the kernel, how it
   covers its indices and its parameters with their types, which tools/kernel_ids.py makes the
   kernel ids and their argument lists from. */
#ifndef AG_KERNEL_SKELETON_LIST_H
#define AG_KERNEL_SKELETON_LIST_H

#include "dialect.h"

#define AG_LIST_ARRAY(TY, name) array(TY, name)
#define AG_LIST_VALUE(TY, name) value(TY, name)
#define AG_LIST_BUFFER(TY, name) buffer(TY, name)
#define AG_LIST_PARAMS(SHAPE, T1, T2, T3) SHAPE(AG_LIST_ARRAY, AG_LIST_VALUE, AG_LIST_BUFFER, T1, T2, T3)
#define AG_EW(K, SHAPE, T1, T2, T3, LOOP, ...) \
  ag_kernel_list<K EW SHAPE AG_LIST_PARAMS(SHAPE, T1, T2, T3)>
#define AG_ITEMS(K, SHAPE, T1, T2, T3, ...) \
  ag_kernel_list<K ITEMS SHAPE AG_LIST_PARAMS(SHAPE, T1, T2, T3)>
#define AG_CPU_ITEMS(K, SHAPE, T1, T2, T3, ...) \
  ag_kernel_list<K CPU_ITEMS SHAPE AG_LIST_PARAMS(SHAPE, T1, T2, T3)>
#define AG_GROUPS(K, SHAPE, T1, T2, T3, LOCALS, ...) \
  ag_kernel_list<K GROUPS SHAPE AG_LIST_PARAMS(SHAPE, T1, T2, T3)>

#endif
