/* src/strided.c - the binary operations on views, read and written in place by the strided
   family's kernels (kernels_shared/strided.h) over one walk of out, a and b, instead of
   through contiguous stand-ins. */
#include "strided.h"

#include "launch.h"
#include "layout.h"

/* By ag_binary_op: the kernel walking element by element, and the one taking a tile at a
   time (CPU devices, operands stepping along different axes); for dtype u8, as ag_add's are. */
static const struct {
  ag__kernel_id nd, tiles;
} forms[] = {
    [AG_OP_ADD] = {AG_K_ADD_ND, AG_K_ADD_TILES},
    [AG_OP_SUB] = {AG_K_SUB_ND, AG_K_SUB_TILES},
    [AG_OP_MUL] = {AG_K_MUL_ND, AG_K_MUL_TILES},
    [AG_OP_DIV] = {AG_K_DIV_ND, AG_K_DIV_TILES},
    [AG_OP_POW] = {AG_K_POW_ND, AG_K_POW_TILES},
    [AG_OP_MINIMUM] = {AG_K_MINIMUM_ND, AG_K_MINIMUM_TILES},
    [AG_OP_MAXIMUM] = {AG_K_MAXIMUM_ND, AG_K_MAXIMUM_TILES},
};

/* Whether @p x and @p out, of one shape, are the same elements in the same order. */
static bool same_layout(const ag_array *x, const ag_array *out) {
  if (x->store != out->store || x->offset != out->offset)
    return false;
  for (int d = 0; d < out->ndim; d++)
    if (out->shape[d] > 1 && x->strides[d] != out->strides[d])
      return false;
  return true;
}

ag_status ag__binary_strided(const char *fn, ag_queue *q, ag_binary_op op, const ag_array *a, const ag_array *b,
                             ag_array *out, bool *done) {
  *done = false;
  if ((unsigned)op >= sizeof forms / sizeof forms[0])
    return AG_OK;
  /* An operand that shares memory with out in another order would read what the launch has
     already written: those go through stand-ins, which are copies. */
  if ((ag__spans_meet(a, out) && !same_layout(a, out)) || (ag__spans_meet(b, out) && !same_layout(b, out)))
    return AG_OK;
  ag_status st = ag__check_writable(fn, "out", out);
  if (st != AG_OK)
    return st;
  uint64_t w[AG_ND_WORDS];
  ag__walk_of(3, (const ag_array *const[]){out, a, b}, w);
  ag__op_arg args[3 + AG_ND_WORDS] = {
      {.param = "a", .kind = AG__PARAM_ARRAY, .array = a},
      {.param = "b", .kind = AG__PARAM_ARRAY, .array = b},
      {.param = "out", .kind = AG__PARAM_ARRAY, .array = out},
  };
  for (int k = 0; k < AG_ND_WORDS; k++)
    args[3 + k] = (ag__op_arg){.param = "the walk", .kind = AG__PARAM_VALUE, .value = {&w[k], sizeof w[k]}};
  uint64_t tiles = ag__walk_tiles(out->dev, 3, w, ag_dtype_size(out->dtype));
  ag__launch l = {.fn = fn, .q = q, .dev = out->dev, .kernel = forms[op].nd + (int)out->dtype, .n = out->size};
  if (tiles > 0) {
    l.kernel = forms[op].tiles + (int)out->dtype;
    l.n = tiles;
  }
  *done = true;
  return ag__launch_kernel(&l, sizeof args / sizeof args[0], args);
}
