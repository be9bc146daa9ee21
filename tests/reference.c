/* tests/reference.c — host reference implementations of the operation layer, the tolerances
   device results are held to, and the comparison and array helpers of the operation suites.
   See reference.h. Nothing here calls the library's operations. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* ---- deterministic inputs ------------------------------------------------------------------- */

ref_lcg ref_lcg_seeded(uint64_t seed) {
  ref_lcg g = {.state = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull};
  ref_lcg_next(&g);
  return g;
}

uint32_t ref_lcg_next(ref_lcg *g) {
  g->state = g->state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(g->state >> 32);
}

double ref_lcg_uniform(ref_lcg *g, double lo, double hi) {
  uint64_t bits = ((uint64_t)ref_lcg_next(g) << 21) ^ (uint64_t)(ref_lcg_next(g) >> 11);
  double u = (double)(bits & ((1ull << 53) - 1)) * 0x1p-53;
  return lo + (hi - lo) * u;
}

void ref_random(ag_dtype t, void *p, size_t n, uint64_t seed, double lo, double hi) {
  ref_lcg g = ref_lcg_seeded(seed);
  for (size_t i = 0; i < n; i++) {
    if (ref_is_integer(t)) {
      uint64_t r = ((uint64_t)ref_lcg_next(&g) << 32) | ref_lcg_next(&g);
      if (hi - lo >= 0x1p63) {
        /* The whole range of a 64-bit dtype: the 64 random bits (the signed minimum, whose
           negation wraps to itself, made 0). */
        if (!ref_is_unsigned(t) && r == 1ull << 63)
          r = 0;
        ref_put_int64(t, p, i, (int64_t)r);
        continue;
      }
      uint64_t span = (uint64_t)(int64_t)(hi - lo) + 1;
      ref_put_int64(t, p, i, (int64_t)lo + (int64_t)(r % span));
    } else if (ref_is_bool(t)) {
      ((uint8_t *)p)[i] = ref_lcg_next(&g) >> 31;
    } else {
      double re = ref_lcg_uniform(&g, lo, hi);
      double im = ref_is_complex(t) ? ref_lcg_uniform(&g, lo, hi) : 0.0;
      ref_put(t, p, i, CMPLXL(re, im));
    }
  }
}

/* ---- dtypes --------------------------------------------------------------------------------- */

size_t ref_size(ag_dtype t) {
  static const size_t sizes[AG_DTYPE_COUNT] = {1, 2, 4, 4, 4, 8, 8, 16, 1, 1, 2, 8, 8};
  return (unsigned)t < AG_DTYPE_COUNT ? sizes[t] : 0;
}

const char *ref_name(ag_dtype t) {
  static const char *const names[AG_DTYPE_COUNT] = {"u8",  "u16",  "u32", "i32", "f32", "f64", "c64",
                                                    "c128", "bool", "i8",  "i16", "i64", "u64"};
  return (unsigned)t < AG_DTYPE_COUNT ? names[t] : "unknown";
}

bool ref_is_unsigned(ag_dtype t) { return t == AG_U8 || t == AG_U16 || t == AG_U32 || t == AG_U64; }
bool ref_is_integer(ag_dtype t) {
  return ref_is_unsigned(t) || t == AG_I8 || t == AG_I16 || t == AG_I32 || t == AG_I64;
}
bool ref_is_bool(ag_dtype t) { return t == AG_BOOL; }
bool ref_is_float(ag_dtype t) { return t == AG_F32 || t == AG_F64; }
bool ref_is_complex(ag_dtype t) { return t == AG_C64 || t == AG_C128; }

ag_dtype ref_real_dtype(ag_dtype t) { return t == AG_C64 ? AG_F32 : t == AG_C128 ? AG_F64 : t; }

ref_c ref_get(ag_dtype t, const void *p, size_t i) {
  switch (t) {
  case AG_U8:
  case AG_BOOL:
    return ((const uint8_t *)p)[i];
  case AG_I8:
    return ((const int8_t *)p)[i];
  case AG_I16:
    return ((const int16_t *)p)[i];
  case AG_I64:
    return ((const int64_t *)p)[i];
  case AG_U64:
    return ((const uint64_t *)p)[i];
  case AG_U16:
    return ((const uint16_t *)p)[i];
  case AG_U32:
    return ((const uint32_t *)p)[i];
  case AG_I32:
    return ((const int32_t *)p)[i];
  case AG_F32:
    return ((const float *)p)[i];
  case AG_F64:
    return ((const double *)p)[i];
  case AG_C64: {
    const float *f = (const float *)p + 2 * i;
    return CMPLXL(f[0], f[1]);
  }
  case AG_C128: {
    const double *d = (const double *)p + 2 * i;
    return CMPLXL(d[0], d[1]);
  }
  }
  return 0;
}

/* A float value converted to an integer type as ag_astype does: truncated toward zero, then
   saturated to [lo, hi]; NaN gives 0. */
static int64_t saturate(long double x, int64_t lo, int64_t hi) {
  if (isnan(x))
    return 0;
  x = truncl(x);
  if (x <= (long double)lo)
    return lo;
  if (x >= (long double)hi)
    return hi;
  return (int64_t)x;
}

void ref_put(ag_dtype t, void *p, size_t i, ref_c v) {
  long double re = creall(v), im = cimagl(v);
  switch (t) {
  case AG_BOOL:
    ((uint8_t *)p)[i] = re != 0 || im != 0;
    break;
  case AG_I8:
    ((int8_t *)p)[i] = (int8_t)saturate(re, INT8_MIN, INT8_MAX);
    break;
  case AG_I16:
    ((int16_t *)p)[i] = (int16_t)saturate(re, INT16_MIN, INT16_MAX);
    break;
  case AG_I64:
    ((int64_t *)p)[i] = saturate(re, INT64_MIN, INT64_MAX);
    break;
  case AG_U64:
    /* saturate() works in int64: u64 saturates here, at 2^64 (exact in long double). */
    ((uint64_t *)p)[i] = isnan(re) || re <= 0 ? 0 : re >= 0x1p64L ? UINT64_MAX : (uint64_t)truncl(re);
    break;
  case AG_U8:
    ((uint8_t *)p)[i] = (uint8_t)saturate(re, 0, UINT8_MAX);
    break;
  case AG_U16:
    ((uint16_t *)p)[i] = (uint16_t)saturate(re, 0, UINT16_MAX);
    break;
  case AG_U32:
    ((uint32_t *)p)[i] = (uint32_t)saturate(re, 0, UINT32_MAX);
    break;
  case AG_I32:
    ((int32_t *)p)[i] = (int32_t)saturate(re, INT32_MIN, INT32_MAX);
    break;
  case AG_F32:
    ((float *)p)[i] = (float)re;
    break;
  case AG_F64:
    ((double *)p)[i] = (double)re;
    break;
  case AG_C64:
    ((float *)p)[2 * i] = (float)re;
    ((float *)p)[2 * i + 1] = (float)im;
    break;
  case AG_C128:
    ((double *)p)[2 * i] = (double)re;
    ((double *)p)[2 * i + 1] = (double)im;
    break;
  }
}

/* The value of the integer whose two's complement bits (modulo 2^64) are @p v, reduced
   modulo 2^bits of integer dtype @p t: exact, as long double holds every 64-bit integer. */
static long double wrap(ag_dtype t, uint64_t v) {
  unsigned bits = (unsigned)ref_size(t) * 8;
  uint64_t u = bits == 64 ? v : v & ((1ull << bits) - 1);
  if (ref_is_unsigned(t) || u < (1ull << (bits - 1)))
    return (long double)u;
  return (long double)u - (bits == 64 ? 0x1p64L : (long double)(1ull << bits));
}

uint64_t ref_bits(long double v) { return v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v; }

/* An integer given by its bits modulo 2^64 into integer dtype @p t: its low bytes, which is
   wrapping (the machine is little-endian). */
static void put_bits(ag_dtype t, void *p, size_t i, uint64_t v) {
  size_t es = ref_size(t);
  memcpy((unsigned char *)p + i * es, &v, es);
}

void ref_put_int64(ag_dtype t, void *p, size_t i, int64_t v) {
  if (ref_is_integer(t)) {
    put_bits(t, p, i, (uint64_t)v);
    return;
  }
  switch (t) {
  case AG_BOOL:
    ((uint8_t *)p)[i] = v != 0;
    break;
  /* C converts a 64-bit integer to float with one rounding to nearest. */
  case AG_F32:
    ((float *)p)[i] = (float)v;
    break;
  case AG_F64:
    ((double *)p)[i] = (double)v;
    break;
  case AG_C64:
    ((float *)p)[2 * i] = (float)v;
    ((float *)p)[2 * i + 1] = 0.0f;
    break;
  case AG_C128:
    ((double *)p)[2 * i] = (double)v;
    ((double *)p)[2 * i + 1] = 0.0;
    break;
  default:
    break; /* the integers, above */
  }
}

void ref_convert(ag_dtype from, const void *x, size_t i, ag_dtype to, void *out, size_t j) {
  ref_c v = ref_get(from, x, i);
  if ((ref_is_integer(from) || ref_is_bool(from)) && ref_is_integer(to)) {
    /* Integer (or bool) to integer wraps. */
    put_bits(to, out, j, ref_bits(creall(v)));
    return;
  }
  /* Anything else: the value is exact in long double, so one rounding (or truncation and
     saturation) to the target happens here; to bool, v != 0. */
  if (!ref_is_complex(to) && !ref_is_bool(to))
    v = creall(v);
  ref_put(to, out, j, v);
}

/* ---- elementwise references ----------------------------------------------------------------- */

bool ref_unary_takes(ag_unary_op op, ag_dtype t) {
  switch (op) {
  case AG_OP_NEG:
    return !ref_is_bool(t);
  case AG_OP_ABS:
  case AG_OP_SQUARE:
  case AG_OP_CONJ:
  case AG_OP_REAL:
  case AG_OP_IMAG:
    return !ref_is_bool(t);
  case AG_OP_SQRT:
  case AG_OP_EXP:
  case AG_OP_LOG:
  case AG_OP_SIN:
  case AG_OP_COS:
    return ref_is_float(t) || ref_is_complex(t);
  case AG_OP_SIGN:
    return !ref_is_bool(t);
  case AG_OP_BITWISE_INVERT:
    return ref_is_integer(t) || ref_is_bool(t);
  default:
    return ref_mathfn_unary_takes(op, t);
  }
}

bool ref_binary_takes(ag_binary_op op, ag_dtype t) {
  switch (op) {
  case AG_OP_ADD:
  case AG_OP_SUB:
  case AG_OP_MUL:
  case AG_OP_DIV:
    return !ref_is_bool(t);
  case AG_OP_POW:
    return !ref_is_bool(t);
  case AG_OP_MINIMUM:
  case AG_OP_MAXIMUM:
  case AG_OP_FLOOR_DIVIDE:
  case AG_OP_REMAINDER:
    return !ref_is_complex(t) && !ref_is_bool(t);
  case AG_OP_BITWISE_AND:
  case AG_OP_BITWISE_OR:
  case AG_OP_BITWISE_XOR:
    return ref_is_integer(t) || ref_is_bool(t);
  case AG_OP_LEFT_SHIFT:
  case AG_OP_RIGHT_SHIFT:
    return ref_is_integer(t);
  default:
    return ref_mathfn_binary_takes(op, t);
  }
}

ag_dtype ref_unary_out_dtype(ag_unary_op op, ag_dtype t) {
  if (op == AG_OP_ABS || op == AG_OP_REAL || op == AG_OP_IMAG)
    return ref_real_dtype(t);
  if (ref_mathfn_is_test(op))
    return AG_BOOL;
  return t;
}

static ref_c unary_int(ag_unary_op op, ag_dtype t, long double x) {
  uint64_t u = ref_bits(x), r = 0;
  int v = (x > 0) - (x < 0);
  switch (op) {
  case AG_OP_NEG:
    r = 0 - u;
    break;
  case AG_OP_ABS:
    r = v < 0 ? 0 - u : u;
    break;
  case AG_OP_SQUARE:
    r = u * u;
    break;
  case AG_OP_SIGN:
    r = (uint64_t)(int64_t)v;
    break;
  case AG_OP_IMAG:
    r = 0;
    break;
  case AG_OP_BITWISE_INVERT:
    r = ~u;
    break;
  default:
    r = u;
    break; /* conj, real: a copy */
  }
  return wrap(t, r);
}

/* f32: exact operations in float, the others in double, unrounded. */
static ref_c unary_f32(ag_unary_op op, float x) {
  switch (op) {
  case AG_OP_NEG:
    return -x;
  case AG_OP_ABS:
    return fabsf(x);
  case AG_OP_SQRT:
    return sqrt((double)x);
  case AG_OP_EXP:
    return exp((double)x);
  case AG_OP_LOG:
    return log((double)x);
  case AG_OP_SIN:
    return sin((double)x);
  case AG_OP_COS:
    return cos((double)x);
  case AG_OP_SQUARE:
    return x * x;
  case AG_OP_SIGN:
    return x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? 0.0f : x; /* +0 for either zero; NaN stays */
  case AG_OP_IMAG:
    return 0.0f;
  case AG_OP_CONJ:
  case AG_OP_REAL:
    return x;
  case AG_OP_BITWISE_INVERT:
  default: /* integers and bool only; the mathfn family's: reference_mathfn.c */
    break;
  }
  return 0;
}

/* f64: exact operations in double, the others in long double. */
static ref_c unary_f64(ag_unary_op op, double x) {
  switch (op) {
  case AG_OP_NEG:
    return -x;
  case AG_OP_ABS:
    return fabs(x);
  case AG_OP_SQRT:
    return sqrtl(x);
  case AG_OP_EXP:
    return expl(x);
  case AG_OP_LOG:
    return logl(x);
  case AG_OP_SIN:
    return sinl(x);
  case AG_OP_COS:
    return cosl(x);
  case AG_OP_SQUARE:
    return x * x;
  case AG_OP_SIGN:
    return x > 0 ? 1.0 : x < 0 ? -1.0 : x == 0 ? 0.0 : x;
  case AG_OP_IMAG:
    return 0.0;
  case AG_OP_CONJ:
  case AG_OP_REAL:
    return x;
  case AG_OP_BITWISE_INVERT:
  default: /* integers and bool only; the mathfn family's: reference_mathfn.c */
    break;
  }
  return 0;
}

/* Complex: in long double complex (wider than both c64 and c128); negation, conjugation and the
   parts are exact in any precision. */
static ref_c unary_complex(ag_unary_op op, ref_c z) {
  long double re = creall(z), im = cimagl(z);
  switch (op) {
  case AG_OP_NEG:
    return CMPLXL(-re, -im);
  case AG_OP_ABS:
    return hypotl(re, im);
  case AG_OP_SQRT:
    return csqrtl(z);
  case AG_OP_EXP:
    return cexpl(z);
  case AG_OP_LOG:
    return clogl(z);
  case AG_OP_SIN:
    return csinl(z);
  case AG_OP_COS:
    return ccosl(z);
  case AG_OP_SQUARE:
    return CMPLXL(re * re - im * im, 2 * re * im);
  case AG_OP_SIGN: {
    long double m = hypotl(re, im);
    return m == 0 ? z : CMPLXL(re / m, im / m);
  }
  case AG_OP_CONJ:
    return CMPLXL(re, -im);
  case AG_OP_REAL:
    return re;
  case AG_OP_IMAG:
    return im;
  case AG_OP_BITWISE_INVERT:
  default: /* integers and bool only; the mathfn family's: reference_mathfn.c */
    break;
  }
  return 0;
}

void ref_unary(ag_unary_op op, ag_dtype t, const void *x, size_t n, ref_c *want) {
  for (size_t i = 0; i < n; i++) {
    ref_c v = ref_get(t, x, i);
    if (op >= AG_OP_TAN)
      want[i] = ref_mathfn_unary1(op, t, v);
    else if (ref_is_integer(t))
      want[i] = unary_int(op, t, creall(v));
    else if (ref_is_bool(t))
      want[i] = op == AG_OP_BITWISE_INVERT ? creall(v) == 0 : 0; /* logical not */
    else if (t == AG_F32)
      want[i] = unary_f32(op, (float)creall(v));
    else if (t == AG_F64)
      want[i] = unary_f64(op, (double)creall(v));
    else
      want[i] = unary_complex(op, v);
  }
}

/* numpy's minimum and maximum: NaN when either is NaN. */
static long double min_nan(long double a, long double b) { return isnan(a) || isnan(b) ? NAN : b < a ? b : a; }
static long double max_nan(long double a, long double b) { return isnan(a) || isnan(b) ? NAN : b > a ? b : a; }

static ref_c binary_int(ag_binary_op op, ag_dtype t, long double a, long double b) {
  uint64_t ua = ref_bits(a), ub = ref_bits(b);
  switch (op) {
  case AG_OP_ADD:
    return wrap(t, ua + ub);
  case AG_OP_SUB:
    return wrap(t, ua - ub);
  case AG_OP_MUL:
    return wrap(t, ua * ub);
  case AG_OP_DIV:
    /* x / 0 is 0; truncation toward zero; MIN / -1 wraps to MIN. */
    if (b == 0)
      return 0;
    if (ref_is_unsigned(t))
      return wrap(t, ua / ub);
    return b == -1 ? wrap(t, 0 - ua) : wrap(t, (uint64_t)((int64_t)ua / (int64_t)ub));
  case AG_OP_MINIMUM:
    return a < b ? a : b;
  case AG_OP_MAXIMUM:
    return a > b ? a : b;
  case AG_OP_FLOOR_DIVIDE:
  case AG_OP_REMAINDER: {
    /* Python's // and %: the quotient rounded toward -inf, the remainder of b's sign; x // 0 and
       x % 0 are 0, MIN // -1 wraps to MIN (numpy's answers). In long double, exact for every
       operand but the i64 and u64 ones beyond 2^64, which these are not. */
    if (b == 0)
      return 0;
    if (ref_is_unsigned(t))
      return wrap(t, op == AG_OP_FLOOR_DIVIDE ? ua / ub : ua % ub);
    long double q = floorl(a / b);
    if (a - q * b != 0 && (a - q * b < 0) != (b < 0))
      q -= 1; /* a / b rounded up past an integer */
    if (op == AG_OP_REMAINDER)
      return a - q * b;
    return q >= 0x1p63L ? wrap(t, 1ull << 63) : wrap(t, (uint64_t)(int64_t)q); /* i64 MIN // -1 is 2^63 */
  }
  case AG_OP_BITWISE_AND:
    return wrap(t, ua & ub);
  case AG_OP_BITWISE_OR:
    return wrap(t, ua | ub);
  case AG_OP_BITWISE_XOR:
    return wrap(t, ua ^ ub);
  case AG_OP_LEFT_SHIFT:
  case AG_OP_RIGHT_SHIFT: {
    /* numpy takes the count as unsigned of the dtype's width: a negative one is huge. */
    unsigned bits = 8 * (unsigned)ref_size(t);
    uint64_t count = bits == 64 ? ub : ub & ((1ull << bits) - 1);
    if (op == AG_OP_LEFT_SHIFT)
      return count >= bits ? 0 : wrap(t, ua << count);
    if (count >= bits)
      return a < 0 ? -1 : 0;
    return floorl(a / ldexpl(1, (int)count)); /* arithmetic: rounds toward -inf */
  }
  case AG_OP_POW: {
    /* numpy's integer power, wrapping; a negative power (numpy refuses it) 1 / a^|b| truncated:
       1 for a = 1, +-1 for a = -1, else 0. */
    if (!ref_is_unsigned(t) && b < 0)
      return a == 1 ? 1 : a == -1 ? (fmodl(b, 2) != 0 ? -1 : 1) : 0;
    uint64_t r = 1; /* left to right over b's bits (the kernels go right to left) */
    for (int bit = 63; bit >= 0; bit--) {
      r *= r;
      if ((ub >> bit) & 1)
        r *= ua;
    }
    return wrap(t, r);
  }
  default: /* floats only */
    break;
  }
  return 0;
}

/* numpy's float floor division and remainder (npymath's npy_divmod, which follows CPython's
   float divmod), each step in the operands' precision P: the remainder from fmod, moved to b's
   sign; the quotient (a - fmod) / b, less one where the remainder moved, snapped to the
   nearest integer; a zero remainder of b's sign, a zero quotient of a / b's. b == 0: a / b and
   fmod's NaN. */
#define REF_DIVMOD(P, SFX)                                                                        \
  static P divmod_##P(P a, P b, P *rem) {                                                         \
    P m = fmod##SFX(a, b);                                                                        \
    if (b == 0) {                                                                                 \
      *rem = m;                                                                                   \
      return a / b;                                                                               \
    }                                                                                             \
    P q = (a - m) / b;                                                                            \
    if (m == 0) {                                                                                 \
      m = copysign##SFX(0, b);                                                                    \
    } else if (signbit(m) != signbit(b)) {                                                        \
      m += b;                                                                                     \
      q -= 1;                                                                                     \
    }                                                                                             \
    *rem = m;                                                                                     \
    if (q == 0)                                                                                   \
      return copysign##SFX(0, a / b);                                                             \
    P f = floor##SFX(q);                                                                          \
    return q - f > (P)0.5 ? f + 1 : f;                                                            \
  }
REF_DIVMOD(float, f)
REF_DIVMOD(double, )
#undef REF_DIVMOD

static ref_c binary_f32(ag_binary_op op, float a, float b) {
  float rem;
  switch (op) {
  case AG_OP_ADD:
    return a + b;
  case AG_OP_SUB:
    return a - b;
  case AG_OP_MUL:
    return a * b;
  case AG_OP_DIV:
    return a / b;
  case AG_OP_POW:
    return pow((double)a, (double)b);
  case AG_OP_MINIMUM:
    return min_nan(a, b);
  case AG_OP_MAXIMUM:
    return max_nan(a, b);
  case AG_OP_FLOOR_DIVIDE:
    return divmod_float(a, b, &rem);
  case AG_OP_REMAINDER:
    divmod_float(a, b, &rem);
    return rem;
  default:
    break; /* the bitwise operations and shifts: integers (and bool) only */
  }
  return 0;
}

static ref_c binary_f64(ag_binary_op op, double a, double b) {
  double rem;
  switch (op) {
  case AG_OP_ADD:
    return a + b;
  case AG_OP_SUB:
    return a - b;
  case AG_OP_MUL:
    return a * b;
  case AG_OP_DIV:
    return a / b;
  case AG_OP_POW:
    return powl(a, b);
  case AG_OP_MINIMUM:
    return min_nan(a, b);
  case AG_OP_MAXIMUM:
    return max_nan(a, b);
  case AG_OP_FLOOR_DIVIDE:
    return divmod_double(a, b, &rem);
  case AG_OP_REMAINDER:
    divmod_double(a, b, &rem);
    return rem;
  default:
    break; /* the bitwise operations and shifts: integers (and bool) only */
  }
  return 0;
}

/* Complex, with addition and subtraction in the dtype's own precision (exact per part) and the
   rest in long double. */
static ref_c binary_complex(ag_binary_op op, ag_dtype t, ref_c a, ref_c b) {
  long double ar = creall(a), ai = cimagl(a), br = creall(b), bi = cimagl(b);
  switch (op) {
  case AG_OP_ADD:
    return t == AG_C64 ? CMPLXL((float)ar + (float)br, (float)ai + (float)bi)
                       : CMPLXL((double)ar + (double)br, (double)ai + (double)bi);
  case AG_OP_SUB:
    return t == AG_C64 ? CMPLXL((float)ar - (float)br, (float)ai - (float)bi)
                       : CMPLXL((double)ar - (double)br, (double)ai - (double)bi);
  case AG_OP_MUL:
    return CMPLXL(ar * br - ai * bi, ar * bi + ai * br);
  case AG_OP_DIV:
    return a / b;
  case AG_OP_POW:
    return cpowl(a, b);
  default:
    break;
  }
  return 0;
}

/* bool takes the bitwise operations as logic. */
static ref_c binary_bool(ag_binary_op op, bool a, bool b) {
  switch (op) {
  case AG_OP_BITWISE_AND:
    return a && b;
  case AG_OP_BITWISE_OR:
    return a || b;
  case AG_OP_BITWISE_XOR:
    return a != b;
  default:
    break; /* the others refuse bool */
  }
  return 0;
}

void ref_binary(ag_binary_op op, ag_dtype t, const void *a, size_t na, const void *b, size_t nb, size_t n,
                ref_c *want) {
  for (size_t i = 0; i < n; i++) {
    ref_c x = ref_get(t, a, i % na), y = ref_get(t, b, i % nb);
    if (op >= AG_OP_ATAN2)
      want[i] = ref_mathfn_binary1(op, creall(x), creall(y));
    else if (ref_is_integer(t))
      want[i] = binary_int(op, t, creall(x), creall(y));
    else if (ref_is_bool(t))
      want[i] = binary_bool(op, creall(x) != 0, creall(y) != 0);
    else if (t == AG_F32)
      want[i] = binary_f32(op, (float)creall(x), (float)creall(y));
    else if (t == AG_F64)
      want[i] = binary_f64(op, (double)creall(x), (double)creall(y));
    else
      want[i] = binary_complex(op, t, x, y);
  }
}

/* A double scalar in @p t's precision, as the operations convert it. */
static long double in_precision(ag_dtype t, double s) {
  return t == AG_F32 || t == AG_C64 ? (long double)(float)s : (long double)s;
}

void ref_axpby(ag_dtype t, double alpha, const void *x, double beta, const void *y, size_t n, ref_c *want) {
  long double al = in_precision(t, alpha), be = in_precision(t, beta);
  for (size_t i = 0; i < n; i++)
    want[i] = al * ref_get(t, x, i) + be * ref_get(t, y, i);
}

void ref_clamp(ag_dtype t, const void *x, double lo, double hi, size_t n, ref_c *want) {
  long double l = in_precision(t, lo), h = in_precision(t, hi);
  for (size_t i = 0; i < n; i++) {
    long double v = creall(ref_get(t, x, i));
    want[i] = isnan(v) ? v : v < l ? l : v > h ? h : v;
  }
}

void ref_where(ag_dtype t, const unsigned char *cond, const void *a, const void *b, size_t n, ref_c *want) {
  for (size_t i = 0; i < n; i++)
    want[i] = cond[i] != 0 ? ref_get(t, a, i) : ref_get(t, b, i);
}

void ref_soft_threshold(ag_dtype t, const void *v, double alpha, size_t n, ref_c *want) {
  for (size_t i = 0; i < n; i++) {
    ref_c z = ref_get(t, v, i);
    if (ref_is_complex(t)) {
      long double m = cabsl(z), shrunk = m - alpha;
      want[i] = shrunk > 0 ? z / m * shrunk : 0;
    } else if (t == AG_F32) {
      /* |v| - alpha is one rounding in float, so the real results are exact. */
      float x = (float)creall(z), m = fabsf(x) - (float)alpha;
      want[i] = m > 0 ? copysignf(m, x) : 0.0f;
    } else {
      double x = (double)creall(z), m = fabs(x) - alpha;
      want[i] = m > 0 ? copysign(m, x) : 0.0;
    }
  }
}

bool ref_comparison_takes(ag_compare_op op, ag_dtype t) {
  return op == AG_CMP_EQ || op == AG_CMP_NE || !ref_is_complex(t);
}
/* (bool compares as 0 and 1, as numpy's does.) */

/* x op y on exact values: C's comparisons, which are IEEE 754's (NaN unordered); complex
   numbers are equal when both parts are. */
static unsigned char compare1(ag_compare_op op, ref_c x, ref_c y) {
  long double a = creall(x), b = creall(y);
  switch (op) {
  case AG_CMP_EQ:
    return a == b && cimagl(x) == cimagl(y);
  case AG_CMP_NE:
    return !(a == b && cimagl(x) == cimagl(y));
  case AG_CMP_LT:
    return a < b;
  case AG_CMP_LE:
    return a <= b;
  case AG_CMP_GT:
    return a > b;
  case AG_CMP_GE:
    return a >= b;
  }
  return 2;
}

void ref_comparison(ag_compare_op op, ag_dtype t, const void *a, size_t na, const void *b, size_t nb, size_t n,
                    unsigned char *want) {
  for (size_t i = 0; i < n; i++)
    want[i] = compare1(op, ref_get(t, a, i % na), ref_get(t, b, i % nb));
}

void ref_comparison_scalar(ag_compare_op op, ag_dtype t, const void *x, size_t n, double re, double im, bool first,
                           unsigned char *want) {
  ref_c s = CMPLXL(re, im);
  if (!ref_is_integer(t) && !ref_is_bool(t)) {
    unsigned char rounded[16];
    ref_put(t, rounded, 0, s);
    s = ref_get(t, rounded, 0);
  }
  for (size_t i = 0; i < n; i++)
    want[i] = first ? compare1(op, s, ref_get(t, x, i)) : compare1(op, ref_get(t, x, i), s);
}

/* ---- reductions ------------------------------------------------------------------------------- */

/* The scaled two-norm (as LAPACK's dnrm2 before 3.10 computes it, in long double): no square
   overflows or underflows, whatever the magnitude. NaN wins over Inf, Inf over everything. */
static long double nrm2_scaled(ag_dtype t, const void *x, size_t first, size_t len, size_t stride) {
  long double big = 0;
  bool nan = false, inf = false;
  for (size_t j = 0; j < len; j++) {
    ref_c v = ref_get(t, x, first + j * stride);
    long double parts[2] = {fabsl(creall(v)), fabsl(cimagl(v))};
    for (int k = 0; k < 2; k++) {
      nan |= isnan(parts[k]);
      inf |= isinf(parts[k]);
      if (parts[k] > big)
        big = parts[k];
    }
  }
  if (nan)
    return NAN;
  if (inf)
    return INFINITY;
  if (big == 0)
    return 0;
  long double ssq = 0;
  for (size_t j = 0; j < len; j++) {
    ref_c v = ref_get(t, x, first + j * stride);
    long double re = creall(v) / big, im = cimagl(v) / big;
    ssq += re * re + im * im;
  }
  return big * sqrtl(ssq);
}

void ref_reduce(ref_reduction r, ag_dtype t, const void *x, const void *y, size_t outer, size_t len, size_t inner,
                ref_c *want, long double *scale) {
  for (size_t o = 0; o < outer; o++) {
    for (size_t k = 0; k < inner; k++) {
      size_t first = o * len * inner + k, out = o * inner + k;
      ref_c acc = 0;
      long double sc = 0;
      if (r == REF_NRM2) {
        acc = nrm2_scaled(t, x, first, len, inner);
        sc = fabsl(creall(acc));
      } else if (r == REF_SUM || r == REF_MEAN || r == REF_DOT) {
        if (ref_is_integer(t)) {
          /* Exact in 64 bits (wrapping, as a 64-bit accumulator would). */
          uint64_t s = 0;
          for (size_t j = 0; j < len; j++) {
            uint64_t a = ref_bits(creall(ref_get(t, x, first + j * inner)));
            s += r == REF_DOT ? a * ref_bits(creall(ref_get(t, y, first + j * inner))) : a;
          }
          acc = wrap(ref_is_unsigned(t) ? AG_U64 : AG_I64, s);
          sc = fabsl(creall(acc));
        } else {
          for (size_t j = 0; j < len; j++) {
            ref_c a = ref_get(t, x, first + j * inner);
            if (r == REF_DOT) {
              ref_c b = ref_get(t, y, first + j * inner);
              /* Unconjugated, with the product formed part by part (no Annex G recovery). */
              long double ar = creall(a), ai = cimagl(a), br = creall(b), bi = cimagl(b);
              acc += CMPLXL(ar * br - ai * bi, ar * bi + ai * br);
              sc += cabsl(a) * cabsl(b);
            } else {
              acc += a;
              sc += cabsl(a);
            }
          }
        }
        if (r == REF_MEAN && len > 0) {
          acc /= (long double)len;
          sc /= (long double)len;
        }
      } else {
        /* min, max and their indices: NaN is the extreme; the first extreme wins. */
        bool want_max = r == REF_MAX || r == REF_ARGMAX;
        size_t at = 0;
        long double best = len > 0 ? creall(ref_get(t, x, first)) : 0;
        for (size_t j = 1; j < len && !isnan(best); j++) {
          long double v = creall(ref_get(t, x, first + j * inner));
          if (isnan(v) || (want_max ? v > best : v < best)) {
            best = v;
            at = j;
          }
        }
        acc = r == REF_MIN || r == REF_MAX ? (ref_c)best : (ref_c)(long double)at;
        sc = fabsl(creall(acc));
      }
      want[out] = acc;
      if (scale != NULL)
        scale[out] = sc;
    }
  }
}

/* ---- tolerances ---------------------------------------------------------------------------------

   A relative tolerance of N ulp is N * 2^-23 = N * 1.19e-7 for f32 and N * 2^-52 = N * 2.2e-16 for
   f64 (an ulp is between 2^-24 and 2^-23 of a float's magnitude). References are more precise
   than the dtype and unrounded, so the half ulp of the device's own final rounding is inside
   these bounds. The per-operation bounds are the OpenCL C specification's (section 7.4, "Relative
   Error as ULPs"), the loosest backend; the host (C libm) and CUDA (its documented ulp bounds) are
   tighter. */

static ref_tol by_precision(ag_dtype t, double rel32, double abs32, double rel64, double abs64) {
  return t == AG_F32 || t == AG_C64 ? (ref_tol){rel32, abs32} : (ref_tol){rel64, abs64};
}

ref_tol ref_tol_unary(ag_unary_op op, ag_dtype t) {
  if (op >= AG_OP_TAN)
    return ref_mathfn_tol_unary(op, t);
  /* Integers are exact; negation, conjugation and taking parts are exact in IEEE. */
  if (ref_is_integer(t) || ref_is_bool(t) || op == AG_OP_NEG || op == AG_OP_CONJ || op == AG_OP_REAL ||
      op == AG_OP_IMAG)
    return REF_EXACT;
  bool cx = ref_is_complex(t);
  switch (op) {
  case AG_OP_ABS:
  case AG_OP_SIGN:
    /* Real: exact (fabs, and -1/0/1). Complex: a hypot (OpenCL: 4 ulp) and, for sign, two
       divisions by it (2.5 ulp each): 8 ulp. */
    return cx ? by_precision(t, 1e-6, 0, 2e-15, 0) : REF_EXACT;
  case AG_OP_SQUARE:
    /* Real: x * x is correctly rounded. Complex: (re^2 - im^2, 2 re im), with or without a fused
       multiply-add, is within 2 ulp of |x|^2 in norm. */
    return cx ? by_precision(t, 5e-7, 0, 1e-15, 0) : REF_EXACT;
  case AG_OP_SQRT:
    /* OpenCL: 3 ulp for single-precision sqrt without -cl-fp32-correctly-rounded-divide-sqrt,
       correctly rounded in double. Complex: several real operations (hypot, sqrt, divide). */
    return cx ? by_precision(t, 2e-6, 0, 4e-15, 0) : by_precision(t, 4e-7, 0, 1e-15, 0);
  case AG_OP_EXP:
    /* OpenCL: exp 3 ulp (f32 and f64) -> 4 ulp. Complex: exp(re) times cos/sin(im), 4 ulp each:
       16 ulp in norm. */
    return cx ? by_precision(t, 2e-6, 0, 4e-15, 0) : by_precision(t, 5e-7, 0, 1e-15, 0);
  case AG_OP_LOG:
    /* OpenCL: log 3 ulp -> 4 ulp, with a floor of half an ulp of 1 where log(x) is near 0 (x
       near 1), since implementations that go through log2 err by that much absolutely there.
       Complex: log|z| and atan2 (6 ulp), 16 ulp in norm, the same floor. */
    return cx ? by_precision(t, 2e-6, 1e-6, 4e-15, 2e-15) : by_precision(t, 5e-7, 0x1p-24, 1e-15, 0x1p-53);
  case AG_OP_SIN:
  case AG_OP_COS:
    /* OpenCL: sin and cos 4 ulp, with an absolute floor of 4 ulp of 1 for results near zero (x
       near a multiple of pi/2, where argument reduction errs absolutely); inputs are within
       [-10, 10]. Complex: sin/cos times cosh/sinh, 16 ulp in norm, the same floor. */
    return cx ? by_precision(t, 2e-6, 1e-6, 4e-15, 4e-15) : by_precision(t, 5e-7, 5e-7, 1e-15, 1e-15);
  default:
    break;
  }
  return REF_EXACT;
}

ref_tol ref_tol_binary(ag_binary_op op, ag_dtype t) {
  if (op >= AG_OP_ATAN2)
    return ref_mathfn_tol_binary(op, t);
  if (ref_is_integer(t))
    return REF_EXACT;
  bool cx = ref_is_complex(t);
  switch (op) {
  case AG_OP_ADD:
  case AG_OP_SUB:
  case AG_OP_MINIMUM:
  case AG_OP_MAXIMUM:
    /* IEEE 754 rounds add and sub correctly everywhere (complex: part by part); min and max pick
       one operand. */
    return REF_EXACT;
  case AG_OP_MUL:
    /* Real: correctly rounded. Complex: ac - bd and ad + bc, with or without fma: 2 ulp of |ab|
       in norm -> 4 ulp. */
    return cx ? by_precision(t, 5e-7, 0, 1e-15, 0) : REF_EXACT;
  case AG_OP_DIV:
    /* OpenCL: 2.5 ulp for single-precision divide without
       -cl-fp32-correctly-rounded-divide-sqrt, correctly rounded in double (1e-15 leaves room
       for a reciprocal-multiply). Complex: Smith's or the textbook formula, each a few
       operations: 8 ulp in norm. */
    return cx ? by_precision(t, 1e-6, 0, 2e-15, 0) : by_precision(t, 4e-7, 0, 1e-15, 0);
  case AG_OP_POW:
    /* OpenCL: pow 16 ulp in single and double precision. Complex: exp(b log a), whose error is
       that of b log a (|b log a| <= 5 for the inputs used) times a few ulp: 1e-5 (~80 ulp) and
       1e-14 (~45 ulp). */
    return cx ? by_precision(t, 1e-5, 0, 1e-14, 0) : by_precision(t, 2e-6, 0, 4e-15, 0);
  case AG_OP_FLOOR_DIVIDE:
  case AG_OP_REMAINDER:
    /* fmod is exact, a - fmod(a, b) is a multiple of b and the quotient is snapped to an
       integer, so a divide within a few ulp (OpenCL's 2.5 in single precision) still gives
       numpy's integer for the moderate quotients tested. */
  case AG_OP_BITWISE_AND:
  case AG_OP_BITWISE_OR:
  case AG_OP_BITWISE_XOR:
  case AG_OP_LEFT_SHIFT:
  case AG_OP_RIGHT_SHIFT:
  default:
    return REF_EXACT;
  }
}

ref_tol ref_tol_reduce(ref_reduction r, ag_dtype t) {
  switch (r) {
  case REF_SUM:
  case REF_DOT:
  case REF_MEAN:
  case REF_NRM2:
    /* Integer sums are exact (64-bit accumulation, converted once: compared after the same
       conversion). Float sums: the header promises Kahan within a work-item and pairwise
       combination, about 1e-7 relative error in f32; 1e-6 (f32) and 1e-13 (f64) of the sum of
       |terms| leave room for the final division of mean and the scaling of nrm2, while a naive
       float loop misses 1e-6 by orders of magnitude for large n. */
    if (ref_is_integer(t))
      return REF_EXACT;
    return by_precision(t, 1e-6, 0, 1e-13, 0);
  default:
    /* min, max, argmin, argmax select an element: exact. */
    return REF_EXACT;
  }
}

/* ---- comparison ------------------------------------------------------------------------------- */

static bool same_special(long double g, long double w) { return isnan(w) ? isnan(g) : g == w; /* w is an infinity */ }

static bool within(ref_c g, ref_c w, long double scale, ref_tol tol, bool cx) {
  long double gr = creall(g), gi = cimagl(g), wr = creall(w), wi = cimagl(w);
  if (!isfinite(wr) || (cx && !isfinite(wi))) {
    /* NaN and Inf must come out as such, part by part; a finite part is compared on its own. */
    if (!isfinite(wr) ? !same_special(gr, wr) : !(fabsl(gr - wr) <= tol.rel * fabsl(wr) + tol.abs))
      return false;
    if (!cx)
      return true;
    return !isfinite(wi) ? same_special(gi, wi) : fabsl(gi - wi) <= tol.rel * fabsl(wi) + tol.abs;
  }
  if (tol.rel == 0 && tol.abs == 0)
    return gr == wr && (!cx || gi == wi);
  if (!isfinite(gr) || (cx && !isfinite(gi)))
    return false;
  long double err = cx ? cabsl(g - w) : fabsl(gr - wr);
  return err <= tol.rel * scale + tol.abs;
}

size_t ref_compare(ag_dtype t, const void *got, const ref_c *want, const long double *scale, size_t n, ref_tol tol,
                   char *msg, size_t cap) {
  bool cx = ref_is_complex(t);
  for (size_t i = 0; i < n; i++) {
    ref_c g = ref_get(t, got, i), w = want[i];
    long double sc = scale != NULL ? scale[i] : cx ? cabsl(w) : fabsl(creall(w));
    if (within(g, w, sc, tol, cx))
      continue;
    if (cx)
      snprintf(msg, cap, "element %zu is %.17Lg%+.17Lgi, expected %.17Lg%+.17Lgi (error %.3Lg, allowed %.3Lg)", i,
               creall(g), cimagl(g), creall(w), cimagl(w), cabsl(g - w), tol.rel * sc + tol.abs);
    else
      snprintf(msg, cap, "element %zu is %.17Lg, expected %.17Lg (error %.3Lg, allowed %.3Lg)", i, creall(g), creall(w),
               fabsl(creall(g) - creall(w)), tol.rel * sc + tol.abs);
    return i;
  }
  if (cap > 0)
    msg[0] = '\0';
  return n;
}

void ref_check(ag_dtype t, const void *got, const ref_c *want, const long double *scale, size_t n, ref_tol tol,
               const char *fmt, ...) {
  char msg[512];
  size_t at = ref_compare(t, got, want, scale, n, tol, msg, sizeof msg);
  if (at == n)
    return;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  ck_abort_msg("%s: %s (%s, %zu elements): %s", test_label(), what, ref_name(t), n, msg);
}

void ref_check_ok(ag_status st, const char *fmt, ...) {
  if (st == AG_OK)
    return;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  ck_abort_msg("%s: %s returned %s: %s", test_label(), what, ag_status_name(st), ag_last_error());
}

/* ---- refusals --------------------------------------------------------------------------------- */

static bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool ref_names(const char *msg, const char *word) {
  const char *alt = word;
  while (*alt != '\0') {
    size_t len = strcspn(alt, "|");
    for (const char *at = msg; len > 0 && *at != '\0'; at++) {
      if (strncmp(at, alt, len) == 0 && (at == msg || !is_word_char(at[-1])) && !is_word_char(at[len]))
        return true;
    }
    alt += len;
    if (*alt == '|')
      alt++;
  }
  return false;
}

void ref_check_refused(ag_status got, ag_status want, ag_status also, const char *expr, const char *fn,
                       const char *const *words) {
  const char *msg = ag_last_error();
  ck_assert_msg(got == want || (also != AG_OK && got == also),
                "%s: %s returned %s, expected %s%s%s (last error: \"%s\")", test_label(), expr, ag_status_name(got),
                ag_status_name(want), also != AG_OK ? " or " : "", also != AG_OK ? ag_status_name(also) : "", msg);
  bool named = false;
  for (const char *alt = fn; *alt != '\0';) {
    size_t len = strcspn(alt, "|");
    char one[64];
    snprintf(one, sizeof one, "%.*s", (int)len, alt);
    named |= strstr(msg, one) != NULL;
    alt += len + (alt[len] == '|');
  }
  ck_assert_msg(named, "%s: %s: the message \"%s\" should name \"%s\"", test_label(), expr, msg, fn);
  for (; *words != NULL; words++)
    ck_assert_msg(ref_names(msg, *words), "%s: %s: the message \"%s\" should name \"%s\"", test_label(), expr, msg,
                  *words);
}

/* ---- arrays ----------------------------------------------------------------------------------- */

void *test_alloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  ck_assert_msg(p != NULL, "%s: out of host memory for %zu bytes", test_label(), bytes);
  return p;
}

void test_free_all(size_t n, void *const *p) {
  for (size_t i = 0; i < n; i++)
    free(p[i]);
}

void test_array_free_all(size_t n, ag_array *const *a) {
  for (size_t i = 0; i < n; i++)
    ag_array_free(a[i]);
}

void test_check_outside_view(const ag_array *parent, const void *before, test_view_fn make, const void *ctx,
                             const char *what) {
  ag_dtype t = ag_array_dtype(parent);
  ag_array *marks = test_array_new(ag_array_device(parent), AG_F32, ag_array_ndim(parent), ag_array_shape(parent));
  CHECK_OK(ag_fill(NULL, marks, 0));
  ag_array *mv = make(marks, ctx);
  CHECK_OK(ag_fill(NULL, mv, 1));
  float *mark = test_array_read(marks);
  void *after = test_array_read(parent);
  size_t outside = 0;
  for (size_t i = 0; i < ag_array_size(parent); i++)
    if (mark[i] == 0) {
      outside++;
      ck_assert_msg(ref_get(t, after, i) == ref_get(t, before, i), "%s: %s changed element %zu of the output's "
                    "parent, outside the view", test_label(), what, i);
    }
  ck_assert_msg(outside + ag_array_size(mv) == ag_array_size(parent), "%s: %s: the marks do not cover the view",
                test_label(), what);
  free(mark);
  free(after);
  ag_array_free(mv);
  ag_array_free(marks);
}

ag_array *test_array_new(ag_device *dev, ag_dtype t, int ndim, const size_t *shape) {
  ag_array *a = NULL;
  CHECK_OK(ag_array_create(dev, t, ndim, shape, &a));
  ck_assert_ptr_nonnull(a);
  return a;
}

ag_array *test_array_from(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data) {
  ag_array *a = NULL;
  CHECK_OK(ag_array_from_host(dev, t, ndim, shape, data, &a));
  ck_assert_ptr_nonnull(a);
  return a;
}

ag_array *test_array_1d(ag_device *dev, ag_dtype t, size_t n, const void *data) {
  return test_array_from(dev, t, 1, &n, data);
}

ag_array *test_array_shaped(ag_device *dev, ag_dtype t, size_t n, const void *data) {
  if (n == 1023) {
    const size_t shape[3] = {3, 11, 31};
    return data ? test_array_from(dev, t, 3, shape, data) : test_array_new(dev, t, 3, shape);
  }
  return data ? test_array_1d(dev, t, n, data) : test_array_new(dev, t, 1, &n);
}

void *test_array_read(const ag_array *a) {
  size_t bytes = ag_array_nbytes(a);
  void *p = test_alloc(bytes);
  CHECK_OK(ag_array_to_host(a, p, bytes));
  return p;
}

void test_check_all_equal(ag_array *const *arrays, size_t n, double value, const char *what) {
  for (size_t i = 0; i < n; i++) {
    void *back = test_array_read(arrays[i]);
    ag_dtype t = ag_array_dtype(arrays[i]);
    for (size_t e = 0; e < ag_array_size(arrays[i]); e++)
      ck_assert_msg(ref_get(t, back, e) == value, "%s: %s changed element %zu of a %s operand", test_label(), what, e,
                    ref_name(t));
    free(back);
  }
}

bool test_dtype_runs(ag_device *dev, ag_dtype t) {
  static bool noted;
  if (t != AG_F64 && t != AG_C128)
    return true;
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (info.fp64)
    return true;
  if (!noted) {
    printf("note: %s: the device has no double precision, so f64 and c128 results are not checked here (the fp64 "
           "suite checks that they are refused)\n",
           test_label());
    fflush(stdout);
    noted = true;
  }
  return false;
}

bool test_device_holds(ag_device *dev, size_t bytes, const char *what) {
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (info.max_allocation >= bytes && info.global_memory / 5 * 4 >= bytes)
    return true;
  printf("note: %s: %s needs one buffer of %zu bytes; the device allows %zu bytes per buffer and has %zu bytes, "
         "so it is not checked here\n",
         test_label(), what, bytes, info.max_allocation, info.global_memory);
  fflush(stdout);
  return false;
}
