/* kernels_shared/elementwise.h - the elementwise family: kernels over contiguous operands that
   apply the element functions of one dtype variant (kernels_shared/element.h), which
   kernels_shared/skeleton_gpu.h turns into OpenCL C or CUDA C kernels and
   backends/host/kernels/skeleton.h into host C functions. Expanded once per dtype (AG_TC, see
   variant.h). Kernel names are ag_<op>_<dtype> with a suffix for the binary forms (below);
   their parameters are the shapes' lists. */

/* ---- parameter lists (skeleton_gpu.h), also read by the op layer (src/launch.h) ---- */
/* out = f(x); T2 is out's type (real for abs, real and imag of complex x). */
#define AG_SHAPE_UNARY(A, V, B, T1, T2, T3) A(const T1, x) A(T2, out)
/* out = a op b, same shapes. */
#define AG_SHAPE_BINARY(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(T1, out)
/* out = a op b, where one operand has m elements and repeats along the other's leading axes. */
#define AG_SHAPE_BINARY_REPEAT(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) V(ag_u64, m) A(T1, out)
/* out = x op s, or s op x. */
#define AG_SHAPE_BINARY_SCALAR(A, V, B, T1, T2, T3) A(const T1, x) V(T1, s) A(T1, out)
/* out = alpha x + beta y; T2 is the real type. */
#define AG_SHAPE_AXPBY(A, V, B, T1, T2, T3) A(const T1, x) V(T2, alpha) A(const T1, y) V(T2, beta) A(T1, out)
/* out = soft threshold of x at alpha; T2 is the real type. */
#define AG_SHAPE_SOFT_THRESHOLD(A, V, B, T1, T2, T3) A(const T1, x) V(T2, alpha) A(T1, out)
#define AG_SHAPE_CLAMP(A, V, B, T1, T2, T3) A(const T1, x) V(T1, lo) V(T1, hi) A(T1, out)
/* out = (a op b) ? 1 : 0, a u8 mask: same shapes, b repeated (m elements) along a's leading
   axes, or x op s. */
#define AG_SHAPE_COMPARE(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) A(ag_u8, out)
#define AG_SHAPE_COMPARE_REPEAT(A, V, B, T1, T2, T3) A(const T1, a) A(const T1, b) V(ag_u64, m) A(ag_u8, out)
#define AG_SHAPE_COMPARE_SCALAR(A, V, B, T1, T2, T3) A(const T1, x) V(T1, s) A(ag_u8, out)
/* out = c ? a : b, c of u8. */
#define AG_SHAPE_WHERE(A, V, B, T1, T2, T3) A(const ag_u8, c) A(const T1, a) A(const T1, b) A(T1, out)
/* x viewed as [rows][d1][d2][d3], each of the last three axes rolled by its s (0 <= s < d). */
#define AG_SHAPE_ROLL(A, V, B, T1, T2, T3)                                                         \
  A(const T1, x) A(T1, out) V(ag_u64, d1) V(ag_u64, d2) V(ag_u64, d3) V(ag_u64, s1) V(ag_u64, s2) V(ag_u64, s3)

/* Each binary operation in five forms, kernels named from K with FN its element function:
   ag_add_f32 (a op b), ag_add_f32_bb and _ba (b, or a, repeated along the other's leading
   axes), ag_add_f32_s and _rs (a scalar on the right, or on the left). Also the arith and mathfn
   families' (kernels_shared/arith.h, mathfn.h). */
#define AG_BINARY_FORMS(K, FN)                                                                     \
  AG_EW(AG_KN(K), AG_SHAPE_BINARY, AG_T, , , AG_EACH, out[i] = FN(a[i], b[i]))                     \
  AG_EW(AG_CAT2(AG_KN(K), _bb), AG_SHAPE_BINARY_REPEAT, AG_T, , , AG_EACH_REPEAT, out[i] = FN(a[i], b[j])) \
  AG_EW(AG_CAT2(AG_KN(K), _ba), AG_SHAPE_BINARY_REPEAT, AG_T, , , AG_EACH_REPEAT, out[i] = FN(a[j], b[i])) \
  AG_EW(AG_CAT2(AG_KN(K), _s), AG_SHAPE_BINARY_SCALAR, AG_T, , , AG_EACH, out[i] = FN(x[i], s))    \
  AG_EW(AG_CAT2(AG_KN(K), _rs), AG_SHAPE_BINARY_SCALAR, AG_T, , , AG_EACH, out[i] = FN(s, x[i]))

#ifndef AG_SHAPES_ONLY
#include "dialect.h"
#include "complex.h"
#include "variant.h"

#if !AG_NEEDS_F64 || AG_HAVE_F64

#include "element.h"

#ifndef AG_ROLL_SOURCE
#define AG_ROLL_SOURCE
/* The source of element i of a roll: out[..., j] = x[..., (j - s) mod d] on each rolled axis. */
AG_INLINE ag_u64 ag_roll_source(ag_u64 i, ag_u64 d1, ag_u64 d2, ag_u64 d3, ag_u64 s1, ag_u64 s2, ag_u64 s3) {
  ag_u64 c3 = i % d3, t = i / d3, c2 = t % d2, c1;
  t /= d2;
  c1 = t % d1;
  t /= d1;
  c1 = c1 >= s1 ? c1 - s1 : c1 + d1 - s1;
  c2 = c2 >= s2 ? c2 - s2 : c2 + d2 - s2;
  c3 = c3 >= s3 ? c3 - s3 : c3 + d3 - s3;
  return ((t * d1 + c1) * d2 + c2) * d3 + c3;
}
#endif

/* ---- the kernels ---- */
#if AG_CPLX
#define AG_ABS_OUT AG_R
#else
#define AG_ABS_OUT AG_T
#endif
#define AG_UNARY(K, TO, FN) AG_EW(K, AG_SHAPE_UNARY, AG_T, TO, , AG_EACH, out[i] = FN(x[i]))

#if !AG_BOOLEAN
AG_UNARY(AG_KN(ag_neg), AG_T, AG_E(neg))
AG_UNARY(AG_KN(ag_abs), AG_ABS_OUT, AG_E(abs))
#if AG_FLOAT || AG_CPLX
AG_UNARY(AG_KN(ag_sqrt), AG_T, AG_E(sqrt))
AG_UNARY(AG_KN(ag_exp), AG_T, AG_E(exp))
AG_UNARY(AG_KN(ag_log), AG_T, AG_E(log))
AG_UNARY(AG_KN(ag_sin), AG_T, AG_E(sin))
AG_UNARY(AG_KN(ag_cos), AG_T, AG_E(cos))
#endif
AG_UNARY(AG_KN(ag_square), AG_T, AG_E(square))
AG_UNARY(AG_KN(ag_sign), AG_T, AG_E(sign))
AG_UNARY(AG_KN(ag_conj), AG_T, AG_E(conj))
AG_UNARY(AG_KN(ag_real), AG_ABS_OUT, AG_E(real))
AG_UNARY(AG_KN(ag_imag), AG_ABS_OUT, AG_E(imag))
#endif /* !AG_BOOLEAN */

AG_BINARY_OPS(AG_BINARY_FORMS)
#if !AG_BOOLEAN

#if AG_FLOAT || AG_CPLX
AG_EW(AG_KN(ag_axpby), AG_SHAPE_AXPBY, AG_T, AG_R, , AG_EACH, out[i] = AG_E(axpby)(x[i], y[i], alpha, beta))
AG_EW(AG_KN(ag_soft_threshold), AG_SHAPE_SOFT_THRESHOLD, AG_T, AG_R, , AG_EACH,
      out[i] = AG_E(soft_threshold)(x[i], alpha))
#endif
#if AG_REAL
AG_EW(AG_KN(ag_clamp), AG_SHAPE_CLAMP, AG_T, , , AG_EACH, out[i] = AG_E(clamp)(x[i], lo, hi))
#endif
#endif /* !AG_BOOLEAN */
/* Each comparison in three forms: ag_lt_f32 (a < b), ag_lt_f32_bb (b repeated along a's leading
   axes) and ag_lt_f32_s (x < s). The op layer covers a repeated a and a scalar on the left by
   exchanging the operands (a < b is b > a). */
#define AG_COMPARE_FORMS(K, FN)                                                                    \
  AG_EW(AG_KN(K), AG_SHAPE_COMPARE, AG_T, , , AG_EACH, out[i] = FN(a[i], b[i]))                    \
  AG_EW(AG_CAT2(AG_KN(K), _bb), AG_SHAPE_COMPARE_REPEAT, AG_T, , , AG_EACH_REPEAT, out[i] = FN(a[i], b[j])) \
  AG_EW(AG_CAT2(AG_KN(K), _s), AG_SHAPE_COMPARE_SCALAR, AG_T, , , AG_EACH, out[i] = FN(x[i], s))
AG_COMPARE_FORMS(ag_eq, AG_E(eq))
AG_COMPARE_FORMS(ag_ne, AG_E(ne))
#if AG_REAL || AG_BOOLEAN
AG_COMPARE_FORMS(ag_lt, AG_E(lt))
AG_COMPARE_FORMS(ag_le, AG_E(le))
AG_COMPARE_FORMS(ag_gt, AG_E(gt))
AG_COMPARE_FORMS(ag_ge, AG_E(ge))
#endif
AG_EW(AG_KN(ag_where), AG_SHAPE_WHERE, AG_T, , , AG_EACH, out[i] = AG_E(where)(c[i], a[i], b[i]))
AG_EW(AG_KN(ag_roll), AG_SHAPE_ROLL, AG_T, , , AG_EACH, out[i] = x[ag_roll_source(i, d1, d2, d3, s1, s2, s3)])

/* ag_astype_<from>_<to>. */
#define AG_ASTYPE(to, TO) AG_UNARY(AG_CAT3(AG_KN(ag_astype), _, to), TO, AG_CAT2(ag_e_to_##to, AG_SFX))
#if !AG_CPLX
AG_ASTYPE(u8, ag_u8)
AG_ASTYPE(u16, ag_u16)
AG_ASTYPE(u32, ag_u32)
AG_ASTYPE(u64, ag_u64)
AG_ASTYPE(i8, ag_i8)
AG_ASTYPE(i16, ag_i16)
AG_ASTYPE(i32, ag_i32)
AG_ASTYPE(i64, ag_i64)
AG_ASTYPE(f32, ag_f32)
#if AG_HAVE_F64
AG_ASTYPE(f64, ag_f64)
#endif
#endif
AG_ASTYPE(b1, ag_u8)
AG_ASTYPE(c64, ag_c64)
#if AG_HAVE_F64
AG_ASTYPE(c128, ag_c128)
#endif

#undef AG_ASTYPE
#undef AG_COMPARE_FORMS
#undef AG_UNARY
#undef AG_ABS_OUT

#endif /* !AG_NEEDS_F64 || AG_HAVE_F64 */

#include "variant_end.h"
#endif /* !AG_SHAPES_ONLY */
