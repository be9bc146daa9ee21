/* backends/host/kernels/fill.c — host twin of kernels_cl/fill.cl. */
#include <string.h>

#include "kernels.h"

/* ag_fill_words(uint *dst, ulong first, ulong count, uint period): word first + i, for
   period <= i < count, becomes word first + i % period (kernels_shared/fill.h). One call
   covers its group's share of the range. */
static void fill_words(const ag_host_group *g, void *const *args) {
  uint32_t *dst = args[0];
  uint64_t first = *(const uint64_t *)args[1], count = *(const uint64_t *)args[2];
  uint32_t period = *(const uint32_t *)args[3];
  uint32_t *p = dst + first;
  uint64_t todo = count - period;
  uint64_t per = (todo + g->num_groups[0] - 1) / g->num_groups[0];
  uint64_t begin = period + g->group_id[0] * per, end = begin + per < count ? begin + per : count;
  for (uint64_t i = begin; i < end; i++)
    p[i] = p[i & (period - 1)];
}

static const ag_host_kernel_def kernels[] = {{"ag_fill_words", fill_words}};

const ag__host_family ag__host_family_fill = {"fill", kernels, sizeof kernels / sizeof kernels[0]};
