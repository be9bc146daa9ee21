/* src/strided.h - binary operations on views in place (src/strided.c). */
#ifndef AG_SRC_STRIDED_H
#define AG_SRC_STRIDED_H

#include "array.h"

/* out = a op b, a and b of out's shape (broadcast views included), any of them a view, by
   the strided family's kernels, enqueued on @p q; errors name @p fn. *done is false, and
   nothing is enqueued, when op has no strided kernel or an operand shares memory with out in another
   layout: the caller then stages the views (src/launch.c). */
ag_status ag__binary_strided(const char *fn, ag_queue *q, ag_binary_op op, const ag_array *a, const ag_array *b,
                             ag_array *out, bool *done);

#endif
