/* tests/reference_mathfn.c — the references of the mathfn family's operations (ops.h: tan to
   log10, floor, ceil, trunc, round, isnan, isinf, isfinite, signbit; atan2, hypot, copysign,
   logaddexp), which reference.c's ref_unary and ref_binary hand on here: real floats through
   the C library's long double functions, complex numbers through C99's complex functions in
   long double complex, which take the same branch cuts as numpy's; both wider than f64. */
#include <math.h>

#include "reference.h"

bool ref_mathfn_unary_takes(ag_unary_op op, ag_dtype t) {
  switch (op) {
  case AG_OP_FLOOR:
  case AG_OP_CEIL:
  case AG_OP_TRUNC:
  case AG_OP_SIGNBIT:
    return ref_is_integer(t) || ref_is_float(t);
  case AG_OP_ROUND:
    return !ref_is_bool(t);
  case AG_OP_ISNAN:
  case AG_OP_ISINF:
  case AG_OP_ISFINITE:
    return true;
  default: /* tan to log10 */
    return ref_is_float(t) || ref_is_complex(t);
  }
}

bool ref_mathfn_is_test(ag_unary_op op) {
  return op == AG_OP_ISNAN || op == AG_OP_ISINF || op == AG_OP_ISFINITE || op == AG_OP_SIGNBIT;
}

/* op(x) for real x, in long double (f32's inputs are exact there; results are compared with
   the f32 tolerance, so the extra precision is harmless). */
static long double real_fn(ag_unary_op op, long double x) {
  switch (op) {
  case AG_OP_TAN:
    return tanl(x);
  case AG_OP_ASIN:
    return asinl(x);
  case AG_OP_ACOS:
    return acosl(x);
  case AG_OP_ATAN:
    return atanl(x);
  case AG_OP_SINH:
    return sinhl(x);
  case AG_OP_COSH:
    return coshl(x);
  case AG_OP_TANH:
    return tanhl(x);
  case AG_OP_ASINH:
    return asinhl(x);
  case AG_OP_ACOSH:
    return acoshl(x);
  case AG_OP_ATANH:
    return atanhl(x);
  case AG_OP_EXPM1:
    return expm1l(x);
  case AG_OP_LOG1P:
    return log1pl(x);
  case AG_OP_LOG2:
    return log2l(x);
  case AG_OP_LOG10:
    return log10l(x);
  case AG_OP_FLOOR:
    return floorl(x);
  case AG_OP_CEIL:
    return ceill(x);
  case AG_OP_TRUNC:
    return truncl(x);
  case AG_OP_ROUND:
    return rintl(x); /* halves to even in the default rounding mode */
  case AG_OP_ISNAN:
    return isnan(x) != 0;
  case AG_OP_ISINF:
    return isinf(x) != 0;
  case AG_OP_ISFINITE:
    return isfinite(x) != 0;
  case AG_OP_SIGNBIT:
    return signbit(x) != 0;
  default:
    return 0;
  }
}

static ref_c complex_fn(ag_unary_op op, ref_c z) {
  long double re = creall(z), im = cimagl(z);
  switch (op) {
  case AG_OP_TAN:
    return ctanl(z);
  case AG_OP_ASIN:
    return casinl(z);
  case AG_OP_ACOS:
    return cacosl(z);
  case AG_OP_ATAN:
    return catanl(z);
  case AG_OP_SINH:
    return csinhl(z);
  case AG_OP_COSH:
    return ccoshl(z);
  case AG_OP_TANH:
    return ctanhl(z);
  case AG_OP_ASINH:
    return casinhl(z);
  case AG_OP_ACOSH:
    return cacoshl(z);
  case AG_OP_ATANH:
    return catanhl(z);
  case AG_OP_EXPM1:
    return cexpl(z) - 1;
  case AG_OP_LOG1P:
    return clogl(1 + z);
  case AG_OP_LOG2:
    return clogl(z) / logl(2);
  case AG_OP_LOG10:
    return clogl(z) / logl(10);
  case AG_OP_ROUND:
    return CMPLXL(rintl(re), rintl(im));
  case AG_OP_ISNAN:
    return isnan(re) || isnan(im);
  case AG_OP_ISINF:
    return isinf(re) || isinf(im);
  case AG_OP_ISFINITE:
    return isfinite(re) && isfinite(im);
  default:
    return 0;
  }
}

ref_c ref_mathfn_unary1(ag_unary_op op, ag_dtype t, ref_c v) {
  if (ref_is_complex(t))
    return complex_fn(op, v);
  long double x = creall(v);
  if (ref_is_integer(t) || ref_is_bool(t)) {
    /* Integers are their own floor, ceil, trunc and round, finite, and never NaN. */
    switch (op) {
    case AG_OP_ISNAN:
    case AG_OP_ISINF:
      return 0;
    case AG_OP_ISFINITE:
      return 1;
    case AG_OP_SIGNBIT:
      return x < 0;
    default:
      return x;
    }
  }
  return real_fn(op, x);
}

bool ref_mathfn_binary_takes(ag_binary_op op, ag_dtype t) {
  (void)op;
  return ref_is_float(t);
}

ref_c ref_mathfn_binary1(ag_binary_op op, long double a, long double b) {
  switch (op) {
  case AG_OP_ATAN2:
    return atan2l(a, b);
  case AG_OP_HYPOT:
    return hypotl(a, b);
  case AG_OP_COPYSIGN:
    return copysignl(a, b);
  case AG_OP_LOGADDEXP:
    /* numpy's: equal operands (infinities too) give a + log 2, a NaN operand NaN. */
    if (a == b)
      return a + logl(2);
    if (isnan(a) || isnan(b))
      return NAN;
    return a > b ? a + log1pl(expl(b - a)) : b + log1pl(expl(a - b));
  default:
    return 0;
  }
}

/* The OpenCL C specification's bounds (section 7.4) for single and double precision, the
   loosest backend's: tan, atan, tanh, atanh 5 ulp (6 for atan in double), asin, acos, sinh,
   cosh, asinh, acosh 4, expm1, log2, log10 3, log1p 2; atan2 6, hypot 4, logaddexp an exp
   and a log1p. 8 ulp (f32 1e-6, f64 2e-15) covers each, with an absolute floor of 4 ulp of 1
   for results near 0 at inputs away from 0 (tan near pi, log2 and log10 near 1, atan2 near
   the axes). Complex functions are formulas of several real ones (mathfn.h): 1e-5 and 1e-13
   of the result's modulus, with the same kind of floor. Rounding, the tests and copysign are
   exact. */
ref_tol ref_mathfn_tol_unary(ag_unary_op op, ag_dtype t) {
  if (ref_is_integer(t) || ref_is_bool(t))
    return REF_EXACT;
  switch (op) {
  case AG_OP_FLOOR:
  case AG_OP_CEIL:
  case AG_OP_TRUNC:
  case AG_OP_ROUND:
  case AG_OP_ISNAN:
  case AG_OP_ISINF:
  case AG_OP_ISFINITE:
  case AG_OP_SIGNBIT:
    return REF_EXACT;
  default:
    break;
  }
  bool f32 = t == AG_F32 || t == AG_C64;
  if (ref_is_complex(t))
    return f32 ? (ref_tol){1e-5, 1e-6} : (ref_tol){1e-13, 1e-14};
  return f32 ? (ref_tol){1e-6, 5e-7} : (ref_tol){2e-15, 1e-15};
}

ref_tol ref_mathfn_tol_binary(ag_binary_op op, ag_dtype t) {
  if (op == AG_OP_COPYSIGN)
    return REF_EXACT;
  return t == AG_F32 ? (ref_tol){1e-6, 5e-7} : (ref_tol){2e-15, 1e-15};
}
