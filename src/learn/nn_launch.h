/* src/learn/nn_launch.h — what src/learn/nn.c shares with the dense layers (src/learn/dense.c): the
   checks of the nn family's operands, and the launch of one of its kernels. */
#ifndef AG_SRC_LEARN_NN_LAUNCH_H
#define AG_SRC_LEARN_NN_LAUNCH_H

#include "seam.h"

/* @p a (argument @p name of @p fn) present, f32 or f64, and the device computes in it. */
ag_status ag__nn_check_float(const char *fn, const char *name, const ag_array *a);
/* @p b (argument @p nb) present, on @p a's device, of its dtype and shape. */
ag_status ag__nn_check_like(const char *fn, const char *na, const ag_array *a, const char *nb, const ag_array *b);
/* @p act one of ag_activation's values. */
ag_status ag__nn_check_act(const char *fn, ag_activation act);

/* The launch of the nn family's kernel @p kernel (its u8 id: AG_K_NN_ACT) for dtype @p t over
   @p n elements or items. */
ag__launch ag__nn_launch(const char *fn, ag_queue *q, ag_device *dev, ag_dtype t, ag__kernel_id kernel, size_t n);

#endif
