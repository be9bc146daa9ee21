/* backends/host/kernels/table.c - the host's built-in families by name, one for each line of
   kernels_shared/families.h. A family's kernels are the entries its file (family.c.in) put in
   the linker section ag_host_<family>, which the linker brackets with __start_ and __stop_
   symbols. */
#include <stddef.h>

#include "kernels.h"

#define AG_FAMILY(name, kind) extern const ag_host_kernel_def __start_ag_host_##name[], __stop_ag_host_##name[];
#include "../../../kernels_shared/families.h"
#undef AG_FAMILY

const ag__host_family ag__host_families[] = {
#define AG_FAMILY(name, kind) {#name, __start_ag_host_##name, __stop_ag_host_##name},
#include "../../../kernels_shared/families.h"
#undef AG_FAMILY
    {NULL, NULL, NULL},
};
