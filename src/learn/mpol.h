/* src/learn/mpol.h — what MPoL's losses (mpol_loss.c) and its forward model (mpol_model.c)
   share: the operand check and a real parameter in the kernel's precision. */
#ifndef AG_SRC_LEARN_MPOL_H
#define AG_SRC_LEARN_MPOL_H

#include "../array.h"
#include "../launch.h"

typedef enum ag__mpol_kind { AG__MPOL_REAL, AG__MPOL_COMPLEX } ag__mpol_kind;

/* Checks operand @p a (argument @p name of @p fn): not NULL; f32 or f64 (AG__MPOL_REAL) or c64
   or c128 (AG__MPOL_COMPLEX), else AG_ERR_UNSUPPORTED; @p ndim dimensions unless ndim is 0,
   else AG_ERR_MISMATCH; f64 or c128 only on a device with double precision, else
   AG_ERR_UNSUPPORTED naming the argument. */
ag_status ag__mpol_check(const char *fn, const char *name, const ag_array *a, ag__mpol_kind kind, int ndim);

/* @p value as a kernel argument of real dtype @p t's precision (f32 or f64, or the real part
   of c64 or c128), its bytes in @p bytes (8 of them). */
ag__val ag__mpol_real(ag_dtype t, double value, char *bytes);

#endif
