/* src/layout.h - arrays of any layout (src/layout.c): copies between two layouts, contiguous
   stand-ins for views, and host reads of views. */
#ifndef AG_SRC_LAYOUT_H
#define AG_SRC_LAYOUT_H

#include "array.h"
#include "../kernels_shared/nd.h" /* AG_ND_WORDS */

/* Writes the walk (kernels_shared/nd.h) of @p nops operands (at most AG_ND_OPS) of ops[0]'s
   shape into @p w: axes of length 1 dropped, and an axis merged into the one before it
   wherever every operand steps across both evenly, so that a contiguous operand adds no axes
   of its own. */
void ag__walk_of(int nops, const ag_array *const *ops, uint64_t w[AG_ND_WORDS]);

/* The number of tiles (kernels_shared/nd.h, AG_TILE_STAGED_OF elements a side for elements
   of @p elem_size bytes, as the kernels take them) to run walk @p w of @p nops operands by on
   @p dev, or 0 to run it element by element: on CPU devices, when the operands step along
   different axes (one far along its last), a tile at a time keeps every operand's lines in
   the cache (a 4096 x 4096 float32 transpose ran at 6 % of the copy bandwidth element by
   element); GPUs keep the element-by-element walk. */
uint64_t ag__walk_tiles(const ag_device *dev, int nops, const uint64_t w[AG_ND_WORDS], size_t elem_size);

/* Copies @p x into @p out, of one dtype and shape and of any layouts, with the layout
   family's kernel for the element size, enqueued on @p q. They must not share memory unless
   they are the same view. Errors name @p fn. */
ag_status ag__copy_layout(const char *fn, ag_queue *q, const ag_array *x, ag_array *out);

/* A new contiguous array of @p a's dtype and shape, holding a copy of @p a (enqueued on @p q)
   when @p fill. */
ag_status ag__stand_in(const char *fn, ag_queue *q, const ag_array *a, bool fill, ag_array **out);

/* AG_ERR_INVALID_ARGUMENT, naming argument @p name of @p fn, when two elements of @p a are one
   (an axis of stride 0 and length above 1: a broadcast view), which nothing may write. */
ag_status ag__check_writable(const char *fn, const char *name, const ag_array *a);

/* Whether the memory @p a and @p b span meets (each taken from its lowest to its highest
   element). */
bool ag__spans_meet(const ag_array *a, const ag_array *b);

/* Copies the view @p a into @p data in C order, reading the whole span of its memory after
   the work last enqueued on it (ag_array_to_host's rule), then gathering on the host. */
ag_status ag__read_view(const char *fn, const ag_array *a, void *data);

#endif
