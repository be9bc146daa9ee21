/* src/elementwise.c - the elementwise operations: table-driven checks, then one launch of the
   built-in kernel ag_<op>_<dtype> of the "elementwise" family (kernels_shared/elementwise.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "launch.h"
#include "strided.h"
#define AG_SHAPES_ONLY
#include "../kernels_shared/elementwise.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_unary, AG_SHAPE_UNARY)
AG__SHAPE_LAUNCHER(launch_binary, AG_SHAPE_BINARY)
AG__SHAPE_LAUNCHER(launch_binary_repeat, AG_SHAPE_BINARY_REPEAT)
AG__SHAPE_LAUNCHER(launch_binary_scalar, AG_SHAPE_BINARY_SCALAR)
AG__SHAPE_LAUNCHER(launch_axpby, AG_SHAPE_AXPBY)
AG__SHAPE_LAUNCHER(launch_soft_threshold, AG_SHAPE_SOFT_THRESHOLD)
AG__SHAPE_LAUNCHER(launch_clamp, AG_SHAPE_CLAMP)
AG__SHAPE_LAUNCHER(launch_where, AG_SHAPE_WHERE)
AG__SHAPE_LAUNCHER(launch_compare, AG_SHAPE_COMPARE)
AG__SHAPE_LAUNCHER(launch_compare_repeat, AG_SHAPE_COMPARE_REPEAT)
AG__SHAPE_LAUNCHER(launch_compare_scalar, AG_SHAPE_COMPARE_SCALAR)

/* The launch of elementwise kernel @p kernel (its id for u8: AG_K_ADD) over out's @p n
   elements, in x's dtype variant. */
static ag__launch ew(const char *fn, ag_queue *q, const ag_array *x, ag__kernel_id kernel, size_t n) {
  return (ag__launch){.fn = fn, .q = q, .dev = x->dev, .kernel = kernel + (int)x->dtype, .n = n};
}

#define DT(t) (1u << (t))
#define UINTS (DT(AG_U8) | DT(AG_U16) | DT(AG_U32) | DT(AG_U64))
#define INTS (UINTS | DT(AG_I8) | DT(AG_I16) | DT(AG_I32) | DT(AG_I64))
#define FLOATS (DT(AG_F32) | DT(AG_F64))
#define CPLX (DT(AG_C64) | DT(AG_C128))
#define REALS (INTS | FLOATS)
#define ALL (REALS | CPLX) /* the numeric dtypes: bool takes comparisons, where, astype and copies */
#define BOOL DT(AG_BOOL)

/* Which dtypes an operation takes, in words for messages. */
static const char *dtypes_text(unsigned mask) {
  switch (mask) {
  case ALL | BOOL:
    return "every dtype";
  case ALL:
    return "every numeric dtype (not bool)";
  case FLOATS | CPLX:
    return "f32, f64, c64 and c128";
  case FLOATS:
    return "f32 and f64";
  case REALS:
    return "the real numeric dtypes (integers, f32, f64)";
  case REALS | BOOL:
    return "bool and the real numeric dtypes (integers, f32, f64)";
  case ALL & ~UINTS:
    return "the signed integers, f32, f64, c64 and c128";
  case INTS:
    return "the integers";
  case INTS | BOOL:
    return "the integers and bool";
  }
  return "other dtypes";
}

/* Argument @p name of @p fn of a dtype that operation @p op (the function itself, or the op
   it was given) takes, on a device that computes in it. */
static ag_status check_dtype_of(const char *fn, const char *op, const char *name, const ag_array *a,
                                unsigned mask) {
  if (!(mask & DT(a->dtype)))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s is %s, which %s does not take (it takes %s)", fn, name,
                     ag_dtype_name(a->dtype), op, dtypes_text(mask));
  return ag__check_fp64(fn, a->dev, a->dtype);
}

static ag_status check_dtype(const char *fn, const char *name, const ag_array *a, unsigned mask) {
  return check_dtype_of(fn, fn, name, a, mask);
}

/* ---- mixed dtypes ---- */

/* *x, or when its dtype is not @p t, a new array of its values converted to t in *tmp (which
   the caller frees), enqueued on @p q: the extra pass that mixed operands cost. */
static ag_status converted(const char *fn, ag_queue *q, const ag_array **x, ag_dtype t, ag_array **tmp) {
  *tmp = NULL;
  if ((*x)->dtype == t)
    return AG_OK;
  ag_status st = ag_array_create((*x)->dev, t, (*x)->ndim, (*x)->shape, tmp);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  st = ag_astype(q, *x, *tmp);
  if (st != AG_OK) {
    ag_array_free(*tmp);
    *tmp = NULL;
    return ag__prefix(st, fn);
  }
  *x = *tmp;
  return AG_OK;
}

/* Operands of two dtypes: *a and *b converted to the dtype they promote to (ag_result_type),
   which @p op (the function, or the op it was given) must take by @p mask, @p out must have
   unless it is NULL (comparisons write bool), and the device must compute in; into tmp[0]
   and tmp[1] (NULL for one that kept its dtype; the caller frees both once the operation is
   enqueued). */
static ag_status promote_pair(const char *fn, const char *op, ag_queue *q, const ag_array **a, const ag_array **b,
                              unsigned mask, const ag_array *out, ag_array *tmp[2]) {
  tmp[0] = tmp[1] = NULL;
  ag_dtype t;
  ag_status st = ag_result_type((*a)->dtype, (*b)->dtype, &t);
  if (st != AG_OK)
    return ag__prefix(st, fn);
  if (!(mask & DT(t)))
    return ag__error(AG_ERR_UNSUPPORTED, "%s: a is %s and b is %s, which promote to %s, which %s does not take (it "
                     "takes %s)", fn, ag_dtype_name((*a)->dtype), ag_dtype_name((*b)->dtype), ag_dtype_name(t), op,
                     dtypes_text(mask));
  if (out != NULL && out->dtype != t)
    return ag__error(AG_ERR_MISMATCH, "%s: a is %s and b is %s, which promote to %s, but out is %s", fn,
                     ag_dtype_name((*a)->dtype), ag_dtype_name((*b)->dtype), ag_dtype_name(t),
                     ag_dtype_name(out->dtype));
  st = ag__check_fp64(fn, (*a)->dev, t);
  if (st != AG_OK)
    return st;
  st = converted(fn, q, a, t, &tmp[0]);
  if (st != AG_OK)
    return st;
  st = converted(fn, q, b, t, &tmp[1]);
  if (st != AG_OK) {
    ag_array_free(tmp[0]);
    tmp[0] = NULL;
  }
  return st;
}

/* ---- one input ---- */

static const struct {
  const char *fn;
  ag__kernel_id kernel;
  unsigned dtypes;
  enum { SAME_OUT, REAL_OUT, BOOL_OUT } out; /* out's dtype: x's; x's real one (abs, real and imag
                                               of complex x); bool */
} unary_ops[] = {
    [AG_OP_NEG] = {"ag_neg", AG_K_NEG, ALL, SAME_OUT},
    [AG_OP_ABS] = {"ag_abs", AG_K_ABS, ALL, REAL_OUT},
    [AG_OP_SQRT] = {"ag_sqrt", AG_K_SQRT, FLOATS | CPLX, SAME_OUT},
    [AG_OP_EXP] = {"ag_exp", AG_K_EXP, FLOATS | CPLX, SAME_OUT},
    [AG_OP_LOG] = {"ag_log", AG_K_LOG, FLOATS | CPLX, SAME_OUT},
    [AG_OP_SIN] = {"ag_sin", AG_K_SIN, FLOATS | CPLX, SAME_OUT},
    [AG_OP_COS] = {"ag_cos", AG_K_COS, FLOATS | CPLX, SAME_OUT},
    [AG_OP_SQUARE] = {"ag_square", AG_K_SQUARE, ALL, SAME_OUT},
    [AG_OP_SIGN] = {"ag_sign", AG_K_SIGN, ALL, SAME_OUT},
    [AG_OP_CONJ] = {"ag_conj", AG_K_CONJ, ALL, SAME_OUT},
    [AG_OP_REAL] = {"ag_real", AG_K_REAL, ALL, REAL_OUT},
    [AG_OP_IMAG] = {"ag_imag", AG_K_IMAG, ALL, REAL_OUT},
    [AG_OP_BITWISE_INVERT] = {"ag_bitwise_invert", AG_K_BITWISE_INVERT, INTS | BOOL, SAME_OUT},
    /* The mathfn family's (kernels_shared/mathfn.h), launched as the ones above. */
    [AG_OP_TAN] = {"ag_tan", AG_K_TAN, FLOATS | CPLX, SAME_OUT},
    [AG_OP_ASIN] = {"ag_asin", AG_K_ASIN, FLOATS | CPLX, SAME_OUT},
    [AG_OP_ACOS] = {"ag_acos", AG_K_ACOS, FLOATS | CPLX, SAME_OUT},
    [AG_OP_ATAN] = {"ag_atan", AG_K_ATAN, FLOATS | CPLX, SAME_OUT},
    [AG_OP_SINH] = {"ag_sinh", AG_K_SINH, FLOATS | CPLX, SAME_OUT},
    [AG_OP_COSH] = {"ag_cosh", AG_K_COSH, FLOATS | CPLX, SAME_OUT},
    [AG_OP_TANH] = {"ag_tanh", AG_K_TANH, FLOATS | CPLX, SAME_OUT},
    [AG_OP_ASINH] = {"ag_asinh", AG_K_ASINH, FLOATS | CPLX, SAME_OUT},
    [AG_OP_ACOSH] = {"ag_acosh", AG_K_ACOSH, FLOATS | CPLX, SAME_OUT},
    [AG_OP_ATANH] = {"ag_atanh", AG_K_ATANH, FLOATS | CPLX, SAME_OUT},
    [AG_OP_EXPM1] = {"ag_expm1", AG_K_EXPM1, FLOATS | CPLX, SAME_OUT},
    [AG_OP_LOG1P] = {"ag_log1p", AG_K_LOG1P, FLOATS | CPLX, SAME_OUT},
    [AG_OP_LOG2] = {"ag_log2", AG_K_LOG2, FLOATS | CPLX, SAME_OUT},
    [AG_OP_LOG10] = {"ag_log10", AG_K_LOG10, FLOATS | CPLX, SAME_OUT},
    [AG_OP_FLOOR] = {"ag_floor", AG_K_FLOOR, REALS, SAME_OUT},
    [AG_OP_CEIL] = {"ag_ceil", AG_K_CEIL, REALS, SAME_OUT},
    [AG_OP_TRUNC] = {"ag_trunc", AG_K_TRUNC, REALS, SAME_OUT},
    [AG_OP_ROUND] = {"ag_round", AG_K_ROUND, ALL, SAME_OUT},
    [AG_OP_ISNAN] = {"ag_isnan", AG_K_ISNAN, ALL | BOOL, BOOL_OUT},
    [AG_OP_ISINF] = {"ag_isinf", AG_K_ISINF, ALL | BOOL, BOOL_OUT},
    [AG_OP_ISFINITE] = {"ag_isfinite", AG_K_ISFINITE, ALL | BOOL, BOOL_OUT},
    [AG_OP_SIGNBIT] = {"ag_signbit", AG_K_SIGNBIT, REALS, BOOL_OUT},
};

/* The input (argument @p xn) and out present, on one device, out of the expected dtype and the
   input's shape. */
static ag_status check_pair(const char *fn, const char *xn, const ag_array *x, const ag_array *out,
                            ag_dtype out_dtype) {
  ag_status st;
  if ((st = ag__check_operand(fn, xn, x)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, xn, x, "out", out)) != AG_OK)
    return st;
  if (out->dtype != out_dtype)
    return ag__error(AG_ERR_MISMATCH, "%s: out is %s but the result of %s (%s) is %s", fn,
                     ag_dtype_name(out->dtype), xn, ag_dtype_name(x->dtype), ag_dtype_name(out_dtype));
  return ag__check_same_shape(fn, xn, x, "out", out);
}

ag__kernel_id ag__astype_kernel(ag_dtype to) {
  static const ag__kernel_id to_dtype[] = {
      [AG_U8] = AG_K_ASTYPE_U8,   [AG_U16] = AG_K_ASTYPE_U16, [AG_U32] = AG_K_ASTYPE_U32,
      [AG_I32] = AG_K_ASTYPE_I32, [AG_F32] = AG_K_ASTYPE_F32, [AG_F64] = AG_K_ASTYPE_F64,
      [AG_C64] = AG_K_ASTYPE_C64, [AG_C128] = AG_K_ASTYPE_C128, [AG_BOOL] = AG_K_ASTYPE_B1,
      [AG_I8] = AG_K_ASTYPE_I8,   [AG_I16] = AG_K_ASTYPE_I16, [AG_I64] = AG_K_ASTYPE_I64,
      [AG_U64] = AG_K_ASTYPE_U64,
  };
  return to_dtype[to];
}

ag_status ag_unary(ag_queue *q, ag_unary_op op, const ag_array *x, ag_array *out) {
  if ((unsigned)op >= sizeof unary_ops / sizeof unary_ops[0])
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_unary: op is %d, not an ag_unary_op", (int)op);
  const char *fn = unary_ops[op].fn;
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK || (st = check_dtype(fn, "x", x, unary_ops[op].dtypes)) != AG_OK)
    return st;
  ag_dtype out_dtype = unary_ops[op].out == REAL_OUT   ? ag__dtype_real(x->dtype)
                       : unary_ops[op].out == BOOL_OUT ? AG_BOOL
                                                       : x->dtype;
  if ((st = check_pair(fn, "x", x, out, out_dtype)) != AG_OK || x->size == 0)
    return st;
  ag__launch l = ew(fn, q, x, unary_ops[op].kernel, x->size);
  return AG__LAUNCH(launch_unary, &l, .x = x, .out = out);
}

ag_status ag_neg(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_NEG, x, out); }
ag_status ag_abs(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ABS, x, out); }
ag_status ag_sqrt(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_SQRT, x, out); }
ag_status ag_exp(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_EXP, x, out); }
ag_status ag_log(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_LOG, x, out); }
ag_status ag_sin(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_SIN, x, out); }
ag_status ag_cos(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_COS, x, out); }
ag_status ag_square(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_SQUARE, x, out); }
ag_status ag_sign(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_SIGN, x, out); }
ag_status ag_conj(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_CONJ, x, out); }
ag_status ag_real(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_REAL, x, out); }
ag_status ag_imag(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_IMAG, x, out); }
ag_status ag_bitwise_invert(ag_queue *q, const ag_array *x, ag_array *out) {
  return ag_unary(q, AG_OP_BITWISE_INVERT, x, out);
}
ag_status ag_tan(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_TAN, x, out); }
ag_status ag_asin(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ASIN, x, out); }
ag_status ag_acos(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ACOS, x, out); }
ag_status ag_atan(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ATAN, x, out); }
ag_status ag_sinh(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_SINH, x, out); }
ag_status ag_cosh(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_COSH, x, out); }
ag_status ag_tanh(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_TANH, x, out); }
ag_status ag_asinh(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ASINH, x, out); }
ag_status ag_acosh(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ACOSH, x, out); }
ag_status ag_atanh(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ATANH, x, out); }
ag_status ag_expm1(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_EXPM1, x, out); }
ag_status ag_log1p(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_LOG1P, x, out); }
ag_status ag_log2(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_LOG2, x, out); }
ag_status ag_log10(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_LOG10, x, out); }
ag_status ag_floor(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_FLOOR, x, out); }
ag_status ag_ceil(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_CEIL, x, out); }
ag_status ag_trunc(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_TRUNC, x, out); }
ag_status ag_round(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ROUND, x, out); }
ag_status ag_isnan(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ISNAN, x, out); }
ag_status ag_isinf(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ISINF, x, out); }
ag_status ag_isfinite(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_ISFINITE, x, out); }
ag_status ag_signbit(ag_queue *q, const ag_array *x, ag_array *out) { return ag_unary(q, AG_OP_SIGNBIT, x, out); }

/* ---- two inputs ---- */

/* How the operands meet (broadcast_operands): equal shapes, b repeated over a's leading axes, a over
   b's, or one of them a scalar (after x, before x). */
enum { SAME, BB, BA, S, RS };

static const struct {
  const char *fn;
  ag__kernel_id kernel[5]; /* by form */
  unsigned dtypes;
} binary_ops[] = {
    [AG_OP_ADD] = {"ag_add", {AG_K_ADD, AG_K_ADD_BB, AG_K_ADD_BA, AG_K_ADD_S, AG_K_ADD_RS}, ALL},
    [AG_OP_SUB] = {"ag_sub", {AG_K_SUB, AG_K_SUB_BB, AG_K_SUB_BA, AG_K_SUB_S, AG_K_SUB_RS}, ALL},
    [AG_OP_MUL] = {"ag_mul", {AG_K_MUL, AG_K_MUL_BB, AG_K_MUL_BA, AG_K_MUL_S, AG_K_MUL_RS}, ALL},
    [AG_OP_DIV] = {"ag_div", {AG_K_DIV, AG_K_DIV_BB, AG_K_DIV_BA, AG_K_DIV_S, AG_K_DIV_RS}, ALL},
    [AG_OP_POW] = {"ag_pow", {AG_K_POW, AG_K_POW_BB, AG_K_POW_BA, AG_K_POW_S, AG_K_POW_RS}, ALL},
    [AG_OP_MINIMUM] = {"ag_minimum",
                       {AG_K_MINIMUM, AG_K_MINIMUM_BB, AG_K_MINIMUM_BA, AG_K_MINIMUM_S, AG_K_MINIMUM_RS}, REALS},
    [AG_OP_MAXIMUM] = {"ag_maximum",
                       {AG_K_MAXIMUM, AG_K_MAXIMUM_BB, AG_K_MAXIMUM_BA, AG_K_MAXIMUM_S, AG_K_MAXIMUM_RS}, REALS},
    /* The arith family's (kernels_shared/arith.h), launched as the ones above. */
    [AG_OP_FLOOR_DIVIDE] = {"ag_floor_divide",
                            {AG_K_FLOOR_DIVIDE, AG_K_FLOOR_DIVIDE_BB, AG_K_FLOOR_DIVIDE_BA, AG_K_FLOOR_DIVIDE_S,
                             AG_K_FLOOR_DIVIDE_RS},
                            REALS},
    [AG_OP_REMAINDER] = {"ag_remainder",
                         {AG_K_REMAINDER, AG_K_REMAINDER_BB, AG_K_REMAINDER_BA, AG_K_REMAINDER_S, AG_K_REMAINDER_RS},
                         REALS},
    [AG_OP_BITWISE_AND] = {"ag_bitwise_and",
                           {AG_K_BITWISE_AND, AG_K_BITWISE_AND_BB, AG_K_BITWISE_AND_BA, AG_K_BITWISE_AND_S,
                            AG_K_BITWISE_AND_RS},
                           INTS | BOOL},
    [AG_OP_BITWISE_OR] = {"ag_bitwise_or",
                          {AG_K_BITWISE_OR, AG_K_BITWISE_OR_BB, AG_K_BITWISE_OR_BA, AG_K_BITWISE_OR_S,
                           AG_K_BITWISE_OR_RS},
                          INTS | BOOL},
    [AG_OP_BITWISE_XOR] = {"ag_bitwise_xor",
                           {AG_K_BITWISE_XOR, AG_K_BITWISE_XOR_BB, AG_K_BITWISE_XOR_BA, AG_K_BITWISE_XOR_S,
                            AG_K_BITWISE_XOR_RS},
                           INTS | BOOL},
    [AG_OP_LEFT_SHIFT] = {"ag_bitwise_left_shift",
                          {AG_K_BITWISE_LEFT_SHIFT, AG_K_BITWISE_LEFT_SHIFT_BB, AG_K_BITWISE_LEFT_SHIFT_BA,
                           AG_K_BITWISE_LEFT_SHIFT_S, AG_K_BITWISE_LEFT_SHIFT_RS},
                          INTS},
    [AG_OP_RIGHT_SHIFT] = {"ag_bitwise_right_shift",
                           {AG_K_BITWISE_RIGHT_SHIFT, AG_K_BITWISE_RIGHT_SHIFT_BB, AG_K_BITWISE_RIGHT_SHIFT_BA,
                            AG_K_BITWISE_RIGHT_SHIFT_S, AG_K_BITWISE_RIGHT_SHIFT_RS},
                           INTS},
    /* The mathfn family's. */
    [AG_OP_ATAN2] = {"ag_atan2", {AG_K_ATAN2, AG_K_ATAN2_BB, AG_K_ATAN2_BA, AG_K_ATAN2_S, AG_K_ATAN2_RS}, FLOATS},
    [AG_OP_HYPOT] = {"ag_hypot", {AG_K_HYPOT, AG_K_HYPOT_BB, AG_K_HYPOT_BA, AG_K_HYPOT_S, AG_K_HYPOT_RS}, FLOATS},
    [AG_OP_COPYSIGN] = {"ag_copysign",
                        {AG_K_COPYSIGN, AG_K_COPYSIGN_BB, AG_K_COPYSIGN_BA, AG_K_COPYSIGN_S, AG_K_COPYSIGN_RS},
                        FLOATS},
    [AG_OP_LOGADDEXP] = {"ag_logaddexp",
                         {AG_K_LOGADDEXP, AG_K_LOGADDEXP_BB, AG_K_LOGADDEXP_BA, AG_K_LOGADDEXP_S, AG_K_LOGADDEXP_RS},
                         FLOATS},
};

/* Whether @p small's shape is the trailing part of @p big's. */
static bool trailing(const ag_array *small, const ag_array *big) {
  if (small->ndim > big->ndim)
    return false;
  for (int d = 0; d < small->ndim; d++)
    if (small->shape[d] != big->shape[big->ndim - small->ndim + d])
      return false;
  return true;
}

/* Whether a's and b's shapes broadcast together (numpy's rule: trailing axes aligned, each
   pair equal or one of them 1) into @p out's shape. */
static bool broadcasts_to(const ag_array *a, const ag_array *b, const ag_array *out) {
  int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
  if (out->ndim != nd)
    return false;
  for (int d = 0; d < nd; d++) {
    int da = d - (nd - a->ndim), db = d - (nd - b->ndim);
    size_t la = da >= 0 ? a->shape[da] : 1, lb = db >= 0 ? b->shape[db] : 1;
    if (la != lb && la != 1 && lb != 1)
      return false;
    if (out->shape[d] != (la == 1 ? lb : la))
      return false;
  }
  return true;
}

/* @p x (argument @p name of @p fn), or when its shape is not out's, a view of it broadcast to
   out's shape in *view (which the caller frees). */
static ag_status broadcast_to_out(const char *fn, const char *name, const ag_array **x, const ag_array *out,
                                  ag_array **view) {
  *view = NULL;
  if (ag__check_same_shape(fn, name, *x, "out", out) == AG_OK)
    return AG_OK;
  if (ag_array_broadcast_to(*x, out->ndim, out->shape, view) != AG_OK) {
    char sx[128], so[128];
    ag__shape_text((*x)->ndim, (*x)->shape, sx, sizeof sx);
    ag__shape_text(out->ndim, out->shape, so, sizeof so);
    return ag__error(AG_ERR_MISMATCH, "%s: %s has shape %s, which does not broadcast to out's shape %s", fn, name, sx,
                     so);
  }
  *x = *view;
  return AG_OK;
}

/* The operands of a binary operation into @p out, broadcast as numpy does. The kernel form
   for a's and b's shapes: SAME when they are equal, BB when b's is the trailing part of a's (b
   repeated over a's leading axes, without a copy), BA for the reverse. Any other pair of
   shapes that broadcasts into out's is taken as SAME over broadcast views (zero strides),
   *va and *vb, which the caller frees, and which the launch hands the kernel as contiguous
   stand-ins. */
static ag_status broadcast_operands(const char *fn, const ag_array **a, const ag_array **b, const ag_array *out,
                                    int *form, ag_array **va, ag_array **vb) {
  *form = SAME;
  *va = *vb = NULL;
  const ag_array *big = *a;
  if (ag__check_same_shape(fn, "a", *a, "b", *b) != AG_OK) {
    if (trailing(*b, *a) && (*a)->ndim == out->ndim) {
      *form = BB;
    } else if (trailing(*a, *b) && (*b)->ndim == out->ndim) {
      *form = BA;
      big = *b;
    } else if (broadcasts_to(*a, *b, out)) {
      ag_status st = broadcast_to_out(fn, "a", a, out, va);
      if (st == AG_OK)
        st = broadcast_to_out(fn, "b", b, out, vb);
      if (st != AG_OK) {
        ag_array_free(*va);
        *va = NULL;
      }
      return st;
    } else {
      char sa[128], sb[128], so[128];
      ag__shape_text((*a)->ndim, (*a)->shape, sa, sizeof sa);
      ag__shape_text((*b)->ndim, (*b)->shape, sb, sizeof sb);
      ag__shape_text(out->ndim, out->shape, so, sizeof so);
      return ag__error(AG_ERR_MISMATCH, "%s: a has shape %s but b has shape %s, which do not broadcast together into "
                       "out's shape %s", fn, sa, sb, so);
    }
  }
  return ag__check_same_shape(fn, big == *a ? "a" : "b", big, "out", out);
}

ag_status ag_binary(ag_queue *q, ag_binary_op op, const ag_array *a, const ag_array *b, ag_array *out) {
  if ((unsigned)op >= sizeof binary_ops / sizeof binary_ops[0])
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_binary: op is %d, not an ag_binary_op", (int)op);
  const char *fn = binary_ops[op].fn;
  ag_status st;
  if ((st = ag__check_operand(fn, "a", a)) != AG_OK || (st = ag__check_operand(fn, "b", b)) != AG_OK ||
      (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "a", a, "b", b)) != AG_OK ||
      (st = ag__check_same_device(fn, "a", a, "out", out)) != AG_OK)
    return st;
  if (a->dtype != b->dtype) {
    /* Mixed dtypes: both converted to the promoted one, which out must have. */
    ag_array *tmp[2];
    st = promote_pair(fn, fn, q, &a, &b, binary_ops[op].dtypes, out, tmp);
    if (st != AG_OK)
      return st;
    st = ag_binary(q, op, a, b, out);
    ag_array_free(tmp[0]);
    ag_array_free(tmp[1]);
    return st;
  }
  if ((st = ag__check_same_dtype(fn, "a", a, "out", out)) != AG_OK ||
      (st = check_dtype(fn, "a", a, binary_ops[op].dtypes)) != AG_OK)
    return st;
  /* Equal shapes, one operand repeated over the other's leading axes, or broadcast views. */
  int form;
  ag_array *va, *vb;
  if ((st = broadcast_operands(fn, &a, &b, out, &form, &va, &vb)) != AG_OK)
    return st;
  /* Views (broadcast ones too) are read and written in place where the op has a strided
     kernel; otherwise, or when out overlaps an operand, staged through stand-ins. */
  if (!a->contiguous || !b->contiguous || !out->contiguous) {
    /* The strided kernels walk operands of out's shape: a trailing-shape operand as a
       broadcast view (the general case has its views already). */
    const ag_array *sa = a, *sb = b;
    ag_array *wa = NULL, *wb = NULL;
    bool done = false;
    st = broadcast_to_out(fn, "a", &sa, out, &wa);
    if (st == AG_OK)
      st = broadcast_to_out(fn, "b", &sb, out, &wb);
    if (st == AG_OK)
      st = ag__binary_strided(fn, q, op, sa, sb, out, &done);
    ag_array_free(wa);
    ag_array_free(wb);
    if (st != AG_OK || done) {
      ag_array_free(va);
      ag_array_free(vb);
      return st;
    }
  }
  ag__launch l = ew(fn, q, a, binary_ops[op].kernel[form], out->size);
  if (form == SAME)
    st = AG__LAUNCH(launch_binary, &l, .a = a, .b = b, .out = out);
  else
    st = AG__LAUNCH(launch_binary_repeat, &l, .a = a, .b = b, .m = form == BB ? b->size : a->size, .out = out);
  ag_array_free(va);
  ag_array_free(vb);
  return st;
}

/* x op s (s op x when scalar_first), reported as function @p fn. */
static ag_status binary_scalar(const char *fn, ag_queue *q, ag_binary_op op, const ag_array *x, double re,
                               double im, bool scalar_first, ag_array *out) {
  ag_status st = ag__check_operand(fn, "x", x);
  if (st != AG_OK || (st = check_dtype(fn, "x", x, binary_ops[op].dtypes)) != AG_OK ||
      (st = check_pair(fn, "x", x, out, x->dtype)) != AG_OK)
    return st;
  unsigned char s[16];
  if ((st = ag__scalar_to(fn, "the scalar", re, im, x->dtype, s)) != AG_OK || x->size == 0)
    return st;
  ag__launch l = ew(fn, q, x, binary_ops[op].kernel[scalar_first ? RS : S], x->size);
  return AG__LAUNCH(launch_binary_scalar, &l, .x = x, .s = {s, ag_dtype_size(x->dtype)}, .out = out);
}

ag_status ag_binary_scalar(ag_queue *q, ag_binary_op op, const ag_array *x, double re, double im,
                           bool scalar_first, ag_array *out) {
  if ((unsigned)op >= sizeof binary_ops / sizeof binary_ops[0])
    return ag__error(AG_ERR_INVALID_ARGUMENT, "ag_binary_scalar: op is %d, not an ag_binary_op", (int)op);
  return binary_scalar("ag_binary_scalar", q, op, x, re, im, scalar_first, out);
}

ag_status ag_add(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_ADD, a, b, out);
}
ag_status ag_sub(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_SUB, a, b, out);
}
ag_status ag_mul(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_MUL, a, b, out);
}
ag_status ag_div(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_DIV, a, b, out);
}
ag_status ag_pow(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_POW, a, b, out);
}
ag_status ag_minimum(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_MINIMUM, a, b, out);
}
ag_status ag_maximum(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_MAXIMUM, a, b, out);
}
ag_status ag_floor_divide(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_FLOOR_DIVIDE, a, b, out);
}
ag_status ag_remainder(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_REMAINDER, a, b, out);
}
ag_status ag_bitwise_and(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_BITWISE_AND, a, b, out);
}
ag_status ag_bitwise_or(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_BITWISE_OR, a, b, out);
}
ag_status ag_bitwise_xor(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_BITWISE_XOR, a, b, out);
}
ag_status ag_bitwise_left_shift(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_LEFT_SHIFT, a, b, out);
}
ag_status ag_bitwise_right_shift(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_RIGHT_SHIFT, a, b, out);
}
ag_status ag_atan2(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_ATAN2, a, b, out);
}
ag_status ag_hypot(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_HYPOT, a, b, out);
}
ag_status ag_copysign(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_COPYSIGN, a, b, out);
}
ag_status ag_logaddexp(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out) {
  return ag_binary(q, AG_OP_LOGADDEXP, a, b, out);
}

ag_status ag_add_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_add_scalar", q, AG_OP_ADD, x, s, 0, false, out);
}
ag_status ag_sub_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_sub_scalar", q, AG_OP_SUB, x, s, 0, false, out);
}
ag_status ag_mul_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_mul_scalar", q, AG_OP_MUL, x, s, 0, false, out);
}
ag_status ag_div_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_div_scalar", q, AG_OP_DIV, x, s, 0, false, out);
}
ag_status ag_pow_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_pow_scalar", q, AG_OP_POW, x, s, 0, false, out);
}
ag_status ag_minimum_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_minimum_scalar", q, AG_OP_MINIMUM, x, s, 0, false, out);
}
ag_status ag_maximum_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_maximum_scalar", q, AG_OP_MAXIMUM, x, s, 0, false, out);
}

ag_status ag_sub_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_sub_scalar_r", q, AG_OP_SUB, x, s, 0, true, out);
}
ag_status ag_div_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_div_scalar_r", q, AG_OP_DIV, x, s, 0, true, out);
}
ag_status ag_pow_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_pow_scalar_r", q, AG_OP_POW, x, s, 0, true, out);
}
ag_status ag_floor_divide_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_floor_divide_scalar", q, AG_OP_FLOOR_DIVIDE, x, s, 0, false, out);
}
ag_status ag_remainder_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_remainder_scalar", q, AG_OP_REMAINDER, x, s, 0, false, out);
}
ag_status ag_bitwise_and_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_bitwise_and_scalar", q, AG_OP_BITWISE_AND, x, s, 0, false, out);
}
ag_status ag_bitwise_or_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_bitwise_or_scalar", q, AG_OP_BITWISE_OR, x, s, 0, false, out);
}
ag_status ag_bitwise_xor_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_bitwise_xor_scalar", q, AG_OP_BITWISE_XOR, x, s, 0, false, out);
}
ag_status ag_bitwise_left_shift_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_bitwise_left_shift_scalar", q, AG_OP_LEFT_SHIFT, x, s, 0, false, out);
}
ag_status ag_bitwise_right_shift_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out) {
  return binary_scalar("ag_bitwise_right_shift_scalar", q, AG_OP_RIGHT_SHIFT, x, s, 0, false, out);
}
ag_status ag_floor_divide_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_floor_divide_scalar_r", q, AG_OP_FLOOR_DIVIDE, x, s, 0, true, out);
}
ag_status ag_remainder_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_remainder_scalar_r", q, AG_OP_REMAINDER, x, s, 0, true, out);
}
ag_status ag_bitwise_left_shift_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_bitwise_left_shift_scalar_r", q, AG_OP_LEFT_SHIFT, x, s, 0, true, out);
}
ag_status ag_bitwise_right_shift_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out) {
  return binary_scalar("ag_bitwise_right_shift_scalar_r", q, AG_OP_RIGHT_SHIFT, x, s, 0, true, out);
}

/* ---- fused and selection ---- */

/* A real parameter in the real type of @p t's precision. */
static size_t real_param(ag_dtype t, double v, unsigned char out[8]) {
  if (ag__dtype_real(t) == AG_F64) {
    memcpy(out, &v, 8);
    return 8;
  }
  float f = (float)v;
  memcpy(out, &f, 4);
  return 4;
}

ag_status ag_axpby(ag_queue *q, double alpha, const ag_array *x, double beta, const ag_array *y, ag_array *out) {
  static const char fn[] = "ag_axpby";
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = ag__check_operand(fn, "y", y)) != AG_OK ||
      (st = check_dtype(fn, "x", x, FLOATS | CPLX)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "y", y)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "x", x, "y", y)) != AG_OK ||
      (st = ag__check_same_shape(fn, "x", x, "y", y)) != AG_OK || (st = check_pair(fn, "x", x, out, x->dtype)) != AG_OK)
    return st;
  if (x->size == 0)
    return AG_OK;
  unsigned char pa[8], pb[8];
  size_t rs = real_param(x->dtype, alpha, pa);
  real_param(x->dtype, beta, pb);
  ag__launch l = ew(fn, q, x, AG_K_AXPBY, x->size);
  return AG__LAUNCH(launch_axpby, &l, .x = x, .alpha = {pa, rs}, .y = y, .beta = {pb, rs}, .out = out);
}

ag_status ag_soft_threshold(ag_queue *q, const ag_array *v, double alpha, ag_array *out) {
  static const char fn[] = "ag_soft_threshold";
  ag_status st;
  if ((st = ag__check_operand(fn, "v", v)) != AG_OK || (st = check_dtype(fn, "v", v, FLOATS | CPLX)) != AG_OK)
    return st;
  if (!(alpha >= 0))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: alpha is %g; it must be 0 or more", fn, alpha);
  if ((st = check_pair(fn, "v", v, out, v->dtype)) != AG_OK || v->size == 0)
    return st;
  unsigned char pa[8];
  size_t rs = real_param(v->dtype, alpha, pa);
  ag__launch l = ew(fn, q, v, AG_K_SOFT_THRESHOLD, v->size);
  return AG__LAUNCH(launch_soft_threshold, &l, .x = v, .alpha = {pa, rs}, .out = out);
}

ag_status ag_clamp(ag_queue *q, const ag_array *x, double lo, double hi, ag_array *out) {
  static const char fn[] = "ag_clamp";
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = check_dtype(fn, "x", x, REALS)) != AG_OK)
    return st;
  if (!(lo <= hi))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: lo = %g and hi = %g: lo must not exceed hi", fn, lo, hi);
  if ((st = check_pair(fn, "x", x, out, x->dtype)) != AG_OK)
    return st;
  /* Integer bounds: the integers inside [lo, hi], within the dtype's range. */
  if (ag__dtype_is_int(x->dtype)) {
    double tmin, tmax;
    ag__dtype_int_range(x->dtype, &tmin, &tmax);
    lo = fmax(ceil(lo), tmin);
    hi = fmin(floor(hi), tmax);
    if (lo > hi)
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: no %s value lies between lo and hi", fn, ag_dtype_name(x->dtype));
  }
  unsigned char l[16], h[16];
  if ((st = ag__scalar_to(fn, "lo", lo, 0, x->dtype, l)) != AG_OK ||
      (st = ag__scalar_to(fn, "hi", hi, 0, x->dtype, h)) != AG_OK || x->size == 0)
    return st;
  size_t es = ag_dtype_size(x->dtype);
  ag__launch launch = ew(fn, q, x, AG_K_CLAMP, x->size);
  return AG__LAUNCH(launch_clamp, &launch, .x = x, .lo = {l, es}, .hi = {h, es}, .out = out);
}

ag_status ag_where(ag_queue *q, const ag_array *cond, const ag_array *a, const ag_array *b, ag_array *out) {
  static const char fn[] = "ag_where";
  ag_status st;
  if ((st = ag__check_operand(fn, "cond", cond)) != AG_OK || (st = ag__check_operand(fn, "a", a)) != AG_OK ||
      (st = ag__check_operand(fn, "b", b)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK)
    return st;
  if (cond->dtype != AG_BOOL && cond->dtype != AG_U8)
    return ag__error(AG_ERR_MISMATCH, "%s: cond is %s; it must be bool (or a u8 mask)", fn, ag_dtype_name(cond->dtype));
  if ((st = ag__check_same_device(fn, "cond", cond, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "a", a, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "b", b, "out", out)) != AG_OK)
    return st;
  if (a->dtype != b->dtype) {
    /* Mixed dtypes: both converted to the promoted one, which out must have. */
    ag_array *tmp[2];
    st = promote_pair(fn, fn, q, &a, &b, ALL | BOOL, out, tmp);
    if (st != AG_OK)
      return st;
    st = ag_where(q, cond, a, b, out);
    ag_array_free(tmp[0]);
    ag_array_free(tmp[1]);
    return st;
  }
  if ((st = ag__check_same_dtype(fn, "a", a, "out", out)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "b", b, "out", out)) != AG_OK ||
      (st = ag__check_fp64(fn, out->dev, out->dtype)) != AG_OK)
    return st;
  /* Each operand broadcast to out's shape, as numpy.where does. */
  ag_array *vc = NULL, *va = NULL, *vb = NULL;
  st = broadcast_to_out(fn, "cond", &cond, out, &vc);
  if (st != AG_OK)
    goto done;
  st = broadcast_to_out(fn, "a", &a, out, &va);
  if (st != AG_OK)
    goto done;
  st = broadcast_to_out(fn, "b", &b, out, &vb);
  if (st != AG_OK)
    goto done;
  ag__launch l = ew(fn, q, out, AG_K_WHERE, out->size);
  st = AG__LAUNCH(launch_where, &l, .c = cond, .a = a, .b = b, .out = out);
done:
  ag_array_free(vc);
  ag_array_free(va);
  ag_array_free(vb);
  return st;
}

/* ---- comparisons ---- */

static const struct {
  const char *name;
  ag__kernel_id kernel[5]; /* by form: SAME, BB, S */
  unsigned dtypes;
  ag_compare_op swapped; /* the op with its operands exchanged: a < b is b > a */
} compare_ops[] = {
    [AG_CMP_EQ] = {"AG_CMP_EQ", {[SAME] = AG_K_EQ, [BB] = AG_K_EQ_BB, [S] = AG_K_EQ_S}, ALL | BOOL, AG_CMP_EQ},
    [AG_CMP_NE] = {"AG_CMP_NE", {[SAME] = AG_K_NE, [BB] = AG_K_NE_BB, [S] = AG_K_NE_S}, ALL | BOOL, AG_CMP_NE},
    [AG_CMP_LT] = {"AG_CMP_LT", {[SAME] = AG_K_LT, [BB] = AG_K_LT_BB, [S] = AG_K_LT_S}, REALS | BOOL, AG_CMP_GT},
    [AG_CMP_LE] = {"AG_CMP_LE", {[SAME] = AG_K_LE, [BB] = AG_K_LE_BB, [S] = AG_K_LE_S}, REALS | BOOL, AG_CMP_GE},
    [AG_CMP_GT] = {"AG_CMP_GT", {[SAME] = AG_K_GT, [BB] = AG_K_GT_BB, [S] = AG_K_GT_S}, REALS | BOOL, AG_CMP_LT},
    [AG_CMP_GE] = {"AG_CMP_GE", {[SAME] = AG_K_GE, [BB] = AG_K_GE_BB, [S] = AG_K_GE_S}, REALS | BOOL, AG_CMP_LE},
};

static ag_status check_compare_op(const char *fn, ag_compare_op op) {
  if ((unsigned)op >= sizeof compare_ops / sizeof compare_ops[0])
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: op is %d, not an ag_compare_op", fn, (int)op);
  return AG_OK;
}

/* out present, on @p x's device, and bool (or a u8 mask: both hold 0 and 1 in a byte). */
static ag_status check_mask(const char *fn, const char *xn, const ag_array *x, const ag_array *out) {
  ag_status st;
  if ((st = ag__check_operand(fn, "out", out)) != AG_OK || (st = ag__check_same_device(fn, xn, x, "out", out)) != AG_OK)
    return st;
  if (out->dtype != AG_BOOL && out->dtype != AG_U8)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: out is %s; it must be bool (or a u8 mask)", fn,
                     ag_dtype_name(out->dtype));
  return AG_OK;
}

ag_status ag_compare(ag_queue *q, ag_compare_op op, const ag_array *a, const ag_array *b, ag_array *out) {
  static const char fn[] = "ag_compare";
  ag_status st;
  if ((st = check_compare_op(fn, op)) != AG_OK || (st = ag__check_operand(fn, "a", a)) != AG_OK ||
      (st = ag__check_operand(fn, "b", b)) != AG_OK || (st = ag__check_same_device(fn, "a", a, "b", b)) != AG_OK ||
      (st = check_mask(fn, "a", a, out)) != AG_OK)
    return st;
  if (a->dtype != b->dtype) {
    /* Mixed dtypes: compared in the promoted one. */
    ag_array *tmp[2];
    st = promote_pair(fn, compare_ops[op].name, q, &a, &b, compare_ops[op].dtypes, NULL, tmp);
    if (st != AG_OK)
      return st;
    st = ag_compare(q, op, a, b, out);
    ag_array_free(tmp[0]);
    ag_array_free(tmp[1]);
    return st;
  }
  if ((st = check_dtype_of(fn, compare_ops[op].name, "a", a, compare_ops[op].dtypes)) != AG_OK)
    return st;
  int form;
  ag_array *va, *vb;
  if ((st = broadcast_operands(fn, &a, &b, out, &form, &va, &vb)) != AG_OK)
    return st;
  /* a repeated over b's rows: b op' a, with b's kernel form. */
  if (form == BA) {
    const ag_array *t = a;
    a = b;
    b = t;
    op = compare_ops[op].swapped;
    form = BB;
  }
  ag__launch l = ew(fn, q, a, compare_ops[op].kernel[form], out->size);
  if (form == SAME)
    st = AG__LAUNCH(launch_compare, &l, .a = a, .b = b, .out = out);
  else
    st = AG__LAUNCH(launch_compare_repeat, &l, .a = a, .b = b, .m = b->size, .out = out);
  ag_array_free(va);
  ag_array_free(vb);
  return st;
}

/* For integer x, x op s rewritten as x op v with v an integer of x's dtype, exactly (x < 2.5 is
   x < 3, x <= 2.5 is x <= 2): returns -1 with *op and *s so rewritten, or, where the answer is
   the same for every x (x == 2.5, u8 x < 300, NaN), that answer, 0 or 1. */
static int integer_scalar(ag_dtype t, ag_compare_op *op, double *s) {
  double lo, hi;
  ag__dtype_int_range(t, &lo, &hi);
  if (isnan(*s))
    return *op == AG_CMP_NE;
  if (*op == AG_CMP_EQ || *op == AG_CMP_NE)
    return *s != floor(*s) || *s < lo || *s > hi ? *op == AG_CMP_NE : -1;
  /* x < s and x >= s hold as x < ceil(s) and x >= ceil(s); x <= s and x > s as with floor(s). */
  double v = *op == AG_CMP_LT || *op == AG_CMP_GE ? ceil(*s) : floor(*s);
  bool below = *op == AG_CMP_LT || *op == AG_CMP_LE; /* holds for every x when v is above the range */
  if (v < lo)
    return !below;
  if (v > hi)
    return below;
  *s = v;
  return -1;
}

ag_status ag_compare_scalar(ag_queue *q, ag_compare_op op, const ag_array *x, double re, double im, bool scalar_first,
                            ag_array *out) {
  static const char fn[] = "ag_compare_scalar";
  ag_status st;
  if ((st = check_compare_op(fn, op)) != AG_OK || (st = ag__check_operand(fn, "x", x)) != AG_OK ||
      (st = check_dtype_of(fn, compare_ops[op].name, "x", x, compare_ops[op].dtypes)) != AG_OK ||
      (st = check_mask(fn, "x", x, out)) != AG_OK || (st = ag__check_same_shape(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (im != 0 && !ag__dtype_is_complex(x->dtype))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: im is %g but x is %s, a real dtype, whose scalar is real", fn, im,
                     ag_dtype_name(x->dtype));
  /* s op x is x op' s. */
  if (scalar_first)
    op = compare_ops[op].swapped;
  if (ag__dtype_is_int(x->dtype) || x->dtype == AG_BOOL) {
    int all = integer_scalar(x->dtype, &op, &re);
    if (all >= 0)
      return ag__prefix(ag_fill(q, out, all), fn);
  }
  /* Float and complex scalars round to x's dtype, as numpy's do. */
  unsigned char s[16];
  if ((st = ag__scalar_to(fn, "the scalar", re, im, x->dtype, s)) != AG_OK || x->size == 0)
    return st;
  ag__launch l = ew(fn, q, x, compare_ops[op].kernel[S], x->size);
  return AG__LAUNCH(launch_compare_scalar, &l, .x = x, .s = {s, ag_dtype_size(x->dtype)}, .out = out);
}

ag_status ag_astype(ag_queue *q, const ag_array *x, ag_array *out) {
  static const char fn[] = "ag_astype";
  ag_status st;
  if ((st = ag__check_operand(fn, "x", x)) != AG_OK || (st = ag__check_operand(fn, "out", out)) != AG_OK ||
      (st = ag__check_same_device(fn, "x", x, "out", out)) != AG_OK ||
      (st = ag__check_same_shape(fn, "x", x, "out", out)) != AG_OK)
    return st;
  if (x->dtype == out->dtype)
    return ag__prefix(ag_copy(q, x, out), fn);
  if (ag__dtype_is_complex(x->dtype) && !ag__dtype_is_complex(out->dtype) && out->dtype != AG_BOOL)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: x is %s and out is %s: complex to real drops the imaginary part; "
                     "take ag_real or ag_abs", fn, ag_dtype_name(x->dtype), ag_dtype_name(out->dtype));
  if ((st = ag__check_fp64(fn, x->dev, x->dtype)) != AG_OK || (st = ag__check_fp64(fn, x->dev, out->dtype)) != AG_OK ||
      x->size == 0)
    return st;
  ag__launch l = ew(fn, q, x, ag__astype_kernel(out->dtype), x->size);
  return AG__LAUNCH(launch_unary, &l, .x = x, .out = out);
}
