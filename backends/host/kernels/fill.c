/* backends/host/kernels/fill.c — host twin of kernels_cl/fill.cl. */
#include <string.h>

#include "kernels.h"

/* ag_fill_words(uint *dst, ulong first, ulong count, uint period, pattern words): word
   first + i becomes words[i % period]. One call covers its group's share of count. */
static void fill_words(const ag_host_group *g, void *const *args) {
  uint32_t *dst = args[0];
  uint64_t first = *(const uint64_t *)args[1], count = *(const uint64_t *)args[2];
  uint32_t period = *(const uint32_t *)args[3];
  const uint32_t *words = args[4];
  uint64_t per = (count + g->num_groups[0] - 1) / g->num_groups[0];
  uint64_t begin = g->group_id[0] * per, end = begin + per < count ? begin + per : count;
  uint32_t *p = dst + first;
  for (uint64_t i = begin; i < end; i++)
    p[i] = words[i % period];
}

static const ag_host_kernel_def kernels[] = {{"ag_fill_words", fill_words}};

const ag__host_family ag__host_family_fill = {"fill", kernels, sizeof kernels / sizeof kernels[0]};
