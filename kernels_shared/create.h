/* kernels_shared/create.h - the create family: arrays made from their indices, as the array
   API's creation functions make them. arange (start + i * delta, as numpy computes it), linspace
   (start + i * step, the last element exactly stop), eye (ones on a diagonal), and tril and triu
   (x with the elements above, or below, a diagonal zeroed), over out's elements in C order.
   Expanded once per dtype (AG_TC, see variant.h); kernel names ag_<op>_<dtype>. */

/* out[i] = start + i * delta, in the dtype (integers wrapping, as numpy's arange computes). */
#define AG_SHAPE_ARANGE(A, V, B, T1, T2, T3) V(T1, start) V(T1, delta) A(T1, out)
/* out[i] = start + i * step, the last of n elements stop when endpoint is 1. */
#define AG_SHAPE_LINSPACE(A, V, B, T1, T2, T3) V(T1, start) V(T1, step) V(T1, stop) V(ag_u32, endpoint) A(T1, out)
/* out as [rows][cols]: 1 where column - row == k, else 0. */
#define AG_SHAPE_EYE(A, V, B, T1, T2, T3) V(ag_u64, cols) V(ag_i64, k) A(T1, out)
/* x and out as [batch][rows][cols]: x where column - row <= k (upper 0: tril) or >= k (upper 1:
   triu), else 0. */
#define AG_SHAPE_TRI(A, V, B, T1, T2, T3)                                                          \
  A(const T1, x) A(T1, out) V(ag_u64, rows) V(ag_u64, cols) V(ag_i64, k) V(ag_u32, upper)

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

#if AG_CPLX
#define AG_CREATE_ZERO AG_MAKE((AG_R)0, (AG_R)0)
#define AG_CREATE_ONE AG_MAKE((AG_R)1, (AG_R)0)
#else
#define AG_CREATE_ZERO ((AG_T)0)
#define AG_CREATE_ONE ((AG_T)1)
#endif

#if AG_INT
AG_EW(AG_KN(ag_arange), AG_SHAPE_ARANGE, AG_T, , , AG_EACH,
      out[i] = (AG_T)((AG_UT)start + (AG_UT)i * (AG_UT)delta))
#elif AG_FLOAT
AG_EW(AG_KN(ag_arange), AG_SHAPE_ARANGE, AG_T, , , AG_EACH, out[i] = start + (AG_T)i * delta)
#endif

#if AG_FLOAT
AG_EW(AG_KN(ag_linspace), AG_SHAPE_LINSPACE, AG_T, , , AG_EACH,
      out[i] = endpoint != 0u && i + 1 == n ? stop : (AG_T)i * step + start)
#elif AG_CPLX
AG_EW(AG_KN(ag_linspace), AG_SHAPE_LINSPACE, AG_T, , , AG_EACH,
      out[i] = endpoint != 0u && i + 1 == n ? stop : AG_MAKE((AG_R)i * step.x + start.x, (AG_R)i * step.y + start.y))
#endif

AG_EW(AG_KN(ag_eye), AG_SHAPE_EYE, AG_T, , , AG_EACH,
      out[i] = (ag_i64)(i % cols) - (ag_i64)(i / cols) == k ? AG_CREATE_ONE : AG_CREATE_ZERO)

AG_EW(AG_KN(ag_tri), AG_SHAPE_TRI, AG_T, , , AG_EACH,
      const ag_i64 d_ = (ag_i64)(i % cols) - (ag_i64)(i / cols % rows);
      out[i] = (upper != 0u ? d_ >= k : d_ <= k) ? x[i] : AG_CREATE_ZERO)

#undef AG_CREATE_ZERO
#undef AG_CREATE_ONE

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
