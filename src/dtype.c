/* src/dtype.c - the dtypes: names and sizes, kinds and integer ranges, promotion
   (ag_result_type), scalars converted to a dtype, and the check that a device computes in one. */
#include <math.h>
#include <stdint.h>

#include "array.h"

static const struct {
  const char *name;
  size_t size;
} dtypes[AG_DTYPE_COUNT] = {
    [AG_U8] = {"u8", 1},   [AG_U16] = {"u16", 2}, [AG_U32] = {"u32", 4}, [AG_I32] = {"i32", 4},
    [AG_F32] = {"f32", 4}, [AG_F64] = {"f64", 8}, [AG_C64] = {"c64", 8}, [AG_C128] = {"c128", 16},
    [AG_BOOL] = {"bool", 1}, [AG_I8] = {"i8", 1}, [AG_I16] = {"i16", 2}, [AG_I64] = {"i64", 8},
    [AG_U64] = {"u64", 8},
};

bool ag__dtype_valid(ag_dtype t) { return (unsigned)t < AG_DTYPE_COUNT; }
bool ag__dtype_is_complex(ag_dtype t) { return t == AG_C64 || t == AG_C128; }
bool ag__dtype_is_float(ag_dtype t) { return t == AG_F32 || t == AG_F64; }
bool ag__dtype_is_unsigned(ag_dtype t) { return t == AG_U8 || t == AG_U16 || t == AG_U32 || t == AG_U64; }
bool ag__dtype_is_int(ag_dtype t) {
  return ag__dtype_is_unsigned(t) || t == AG_I8 || t == AG_I16 || t == AG_I32 || t == AG_I64;
}
bool ag__dtype_is_f64(ag_dtype t) { return t == AG_F64 || t == AG_C128; }
ag_dtype ag__dtype_real(ag_dtype t) { return t == AG_C64 ? AG_F32 : t == AG_C128 ? AG_F64 : t; }
/* The 64-bit types' upper limits are not doubles: *hi is then the largest double below them
   (2^63 - 1024, 2^64 - 2048), so that every double in [lo, hi] converts exactly. */
void ag__dtype_int_range(ag_dtype t, double *lo, double *hi) {
  switch (t) {
  case AG_I8:
    *lo = -128, *hi = 127;
    return;
  case AG_I16:
    *lo = -32768, *hi = 32767;
    return;
  case AG_I32:
    *lo = -2147483648.0, *hi = 2147483647.0;
    return;
  case AG_I64:
    *lo = -9223372036854775808.0, *hi = 9223372036854774784.0;
    return;
  case AG_U8:
  case AG_BOOL:
    *lo = 0, *hi = t == AG_BOOL ? 1 : 255;
    return;
  case AG_U16:
    *lo = 0, *hi = 65535;
    return;
  case AG_U32:
    *lo = 0, *hi = 4294967295.0;
    return;
  default:
    *lo = 0, *hi = 18446744073709549568.0;
    return;
  }
}

size_t ag_dtype_size(ag_dtype t) { return ag__dtype_valid(t) ? dtypes[t].size : 0; }

/* The signed integer dtype of @p bits (16, 32 or 64) bits. */
static ag_dtype signed_dtype(size_t bits) { return bits <= 16 ? AG_I16 : bits <= 32 ? AG_I32 : AG_I64; }

/* The float precision, 32 or 64 bits, a dtype's values need: integers up to 16 bits fit f32. */
static int float_bits(ag_dtype t) {
  if (ag__dtype_is_int(t) || t == AG_BOOL)
    return dtypes[t].size <= 2 ? 32 : 64;
  return ag__dtype_is_f64(t) ? 64 : 32;
}

ag_status ag_result_type(ag_dtype a, ag_dtype b, ag_dtype *out) {
  static const char fn[] = "ag_result_type";
  AG__CHECK_NOT_NULL(fn, out);
  if (!ag__dtype_valid(a) || !ag__dtype_valid(b))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is %d, not an ag_dtype", fn, ag__dtype_valid(a) ? "b" : "a",
                     ag__dtype_valid(a) ? (int)b : (int)a);
  if (a == b || b == AG_BOOL) {
    *out = a;
    return AG_OK;
  }
  if (a == AG_BOOL) {
    *out = b;
    return AG_OK;
  }
  if (ag__dtype_is_int(a) && ag__dtype_is_int(b)) {
    bool ua = ag__dtype_is_unsigned(a), ub = ag__dtype_is_unsigned(b);
    size_t na = dtypes[a].size * 8, nb = dtypes[b].size * 8;
    if (ua == ub) {
      *out = na >= nb ? a : b;
      return AG_OK;
    }
    /* One signed, one unsigned: a signed type wider than the unsigned one holds both. */
    size_t nu = ua ? na : nb, ns = ua ? nb : na;
    *out = ns > nu ? (ua ? b : a) : nu == 64 ? AG_F64 : signed_dtype(2 * nu);
    return AG_OK;
  }
  bool cplx = ag__dtype_is_complex(a) || ag__dtype_is_complex(b);
  bool wide = float_bits(a) == 64 || float_bits(b) == 64;
  *out = cplx ? (wide ? AG_C128 : AG_C64) : (wide ? AG_F64 : AG_F32);
  return AG_OK;
}
const char *ag_dtype_name(ag_dtype t) { return ag__dtype_valid(t) ? dtypes[t].name : "unknown"; }

ag_status ag__check_fp64(const char *fn, ag_device *dev, ag_dtype t) {
  if (ag__dtype_is_f64(t) && !dev->info.fp64)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: %s needs double precision, which %s (%s) lacks", fn,
                     ag_dtype_name(t), dev->info.spec, dev->info.name);
  return AG_OK;
}

ag_status ag__scalar_to(const char *fn, const char *what, double re, double im, ag_dtype t, void *out) {
  if (!ag__dtype_is_complex(t) && im != 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s has an imaginary part %g but the dtype %s is real", fn,
                     what, im, ag_dtype_name(t));
  if (ag__dtype_is_int(t)) {
    double lo, hi;
    ag__dtype_int_range(t, &lo, &hi);
    if (!(re >= lo && re <= hi) || re != floor(re))
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s = %g is not a value of %s (an integer in %.0f..%.0f)", fn,
                       what, re, ag_dtype_name(t), lo, hi);
  }
  switch (t) {
  case AG_BOOL:
    /* Any nonzero value is true, as numpy's bool(x); NaN too. */
    *(uint8_t *)out = re != 0;
    break;
  case AG_I8:
    *(int8_t *)out = (int8_t)re;
    break;
  case AG_I16:
    *(int16_t *)out = (int16_t)re;
    break;
  case AG_I64:
    *(int64_t *)out = (int64_t)re;
    break;
  case AG_U64:
    *(uint64_t *)out = (uint64_t)re;
    break;
  case AG_U8:
    *(uint8_t *)out = (uint8_t)re;
    break;
  case AG_U16:
    *(uint16_t *)out = (uint16_t)re;
    break;
  case AG_U32:
    *(uint32_t *)out = (uint32_t)re;
    break;
  case AG_I32:
    *(int32_t *)out = (int32_t)re;
    break;
  case AG_F32:
    *(float *)out = (float)re;
    break;
  case AG_F64:
    *(double *)out = re;
    break;
  case AG_C64:
    ((float *)out)[0] = (float)re;
    ((float *)out)[1] = (float)im;
    break;
  case AG_C128:
    ((double *)out)[0] = re;
    ((double *)out)[1] = im;
    break;
  }
  return AG_OK;
}
