/* src/learn/loss_out.h — what every loss of learn.h shares: checking its loss, grad, scale and
   flags arguments, and storing scale * (the sum of its terms) into the loss scalar. */
#ifndef AG_SRC_LEARN_LOSS_OUT_H
#define AG_SRC_LEARN_LOSS_OUT_H

#include <anygpu.h>

/* Checks a loss's outputs against its input @p x (named @p xname): loss NULL or {1} of x's real
   dtype on x's device; grad NULL or x's shape, dtype and device; not both NULL; scale finite;
   flags only AG_LOSS_ACCUMULATE. x itself has been checked by the caller. */
ag_status ag__loss_check_out(const char *fn, const char *xname, const ag_array *x, double scale,
                             const ag_array *loss, const ag_array *grad, unsigned flags);

/* loss = scale * sum(terms), or loss += that with AG_LOSS_ACCUMULATE in flags. terms is a
   device array of the loss's dtype whose elements add up to the unscaled loss; loss may be
   NULL (nothing is done). Enqueued on q. */
ag_status ag__loss_store(const char *fn, ag_queue *q, const ag_array *terms, double scale, ag_array *loss,
                         unsigned flags);

#endif
