/* tests/reference.h — plain C reference implementations of the operation layer (array.h,
   ops.h), run on the host, with the tolerances each result is held to and the comparison and
   array helpers the operation suites (test_array, test_elementwise, test_reduce, test_pool)
   share.

   The references never call the library: every expected value is computed here from the input
   bytes, in the dtype itself where the result must be exact (integers, copies, correctly
   rounded float arithmetic) and in a wider type otherwise (double for f32 and c64, long double
   for f64 and c128), so a device result is compared with a value more accurate than itself.
   Expected values are kept unrounded, as `long double complex`. */
#ifndef AG_TESTS_REFERENCE_H
#define AG_TESTS_REFERENCE_H

#include <complex.h>

#include "runner.h"

typedef long double complex ref_c;

/* ---- deterministic inputs ------------------------------------------------------------------- */

/* A 64-bit linear congruential generator (Knuth's MMIX constants); the high bits are used. */
typedef struct ref_lcg {
  uint64_t state;
} ref_lcg;

ref_lcg ref_lcg_seeded(uint64_t seed);
uint32_t ref_lcg_next(ref_lcg *g);
/* Uniform in [lo, hi), with 53 random bits. */
double ref_lcg_uniform(ref_lcg *g, double lo, double hi);

/* @p n values of dtype @p t at @p p, seeded by @p seed: integers uniform in [lo, hi] (both
   inclusive, whole numbers; a range of 2^63 or more is a 64-bit dtype's whole range), floats
   uniform in [lo, hi), complex numbers with both parts so; bool false or true (lo and hi
   unused). */
void ref_random(ag_dtype t, void *p, size_t n, uint64_t seed, double lo, double hi);

/* ---- dtypes ----------------------------------------------------------------------------------- */

/* The references' own table of dtypes, independent of ag_dtype_size and ag_dtype_name. */
size_t ref_size(ag_dtype t);
const char *ref_name(ag_dtype t);
bool ref_is_integer(ag_dtype t);  /* the eight integer dtypes; not bool */
bool ref_is_unsigned(ag_dtype t); /* u8, u16, u32, u64 */
bool ref_is_bool(ag_dtype t);
bool ref_is_float(ag_dtype t); /* f32, f64 */
bool ref_is_complex(ag_dtype t);
/* The real dtype of a complex one's precision (c64 -> f32, c128 -> f64); @p t otherwise. */
ag_dtype ref_real_dtype(ag_dtype t);

/* Element @p i of dtype @p t at @p p, exactly (every 64-bit integer and every float fit). */
ref_c ref_get(ag_dtype t, const void *p, size_t i);
/* Stores @p v as element @p i, converted as ag_astype converts a float value (truncation toward
   zero and saturation for integers, NaN giving 0; rounding to nearest for floats). Exact for
   values the dtype holds. */
void ref_put(ag_dtype t, void *p, size_t i, ref_c v);
/* Element @p i of @p x (dtype @p from) converted to dtype @p to as ag_astype specifies, stored as
   element @p j of @p out. Complex to real is not a conversion ag_astype makes; here it keeps the
   real part. */
void ref_convert(ag_dtype from, const void *x, size_t i, ag_dtype to, void *out, size_t j);
/* The two's complement bits (modulo 2^64) of an integer value @p v held exactly (from
   -2^63 to 2^64 - 1). */
uint64_t ref_bits(long double v);
/* An exact 64-bit integer stored into dtype @p t: wrapping for integer dtypes (as C converts to
   unsigned types; a u64 value is given by its bits), v != 0 for bool, rounding to nearest once
   for float dtypes. */
void ref_put_int64(ag_dtype t, void *p, size_t i, int64_t v);

/* ---- elementwise references ------------------------------------------------------------------- */

/* Whether ops.h gives the operation a meaning on dtype @p t. */
/* The named functions of the binary operations, as the elementwise and arith suites list them:
   an entry per operation with its array, scalar and reversed scalar forms. */
typedef ag_status (*binary_fn)(ag_queue *, const ag_array *, const ag_array *, ag_array *);
typedef ag_status (*scalar_fn)(ag_queue *, const ag_array *, double, ag_array *);
typedef ag_status (*scalar_r_fn)(ag_queue *, double, const ag_array *, ag_array *);
typedef struct binary_entry {
  ag_binary_op op;
  const char *name;
  binary_fn fn;
  const char *scalar_name;
  scalar_fn scalar;
  const char *scalar_r_name;
  scalar_r_fn scalar_r; /* s op x; NULL where s op x = x op s */
} binary_entry;

bool ref_unary_takes(ag_unary_op op, ag_dtype t);
bool ref_binary_takes(ag_binary_op op, ag_dtype t);
/* The dtype of op(x) for x of dtype @p t (abs, real and imag of complex give the real dtype). */
ag_dtype ref_unary_out_dtype(ag_unary_op op, ag_dtype t);

/* The mathfn family's operations (ops.h: AG_OP_TAN on, AG_OP_ATAN2 on), which the functions
   above hand on to (reference_mathfn.c): whether each takes dtype @p t, op of one element, and
   the tolerances. ref_mathfn_is_test: isnan, isinf, isfinite and signbit, whose out is bool. */
bool ref_mathfn_unary_takes(ag_unary_op op, ag_dtype t);
bool ref_mathfn_is_test(ag_unary_op op);
ref_c ref_mathfn_unary1(ag_unary_op op, ag_dtype t, ref_c v);
bool ref_mathfn_binary_takes(ag_binary_op op, ag_dtype t);
ref_c ref_mathfn_binary1(ag_binary_op op, long double a, long double b);

/* want[i] = op(x[i]) for @p n elements of dtype @p t. */
void ref_unary(ag_unary_op op, ag_dtype t, const void *x, size_t n, ref_c *want);
/* want[i] = a[i % na] op b[i % nb] for i < n: equal shapes (na = nb = n), a trailing-shape
   operand repeated over the rows of the other (na or nb divides n), or a scalar (size 1). */
void ref_binary(ag_binary_op op, ag_dtype t, const void *a, size_t na, const void *b, size_t nb, size_t n,
                ref_c *want);
/* alpha * x + beta * y, alpha and beta converted to the dtype's precision first. */
void ref_axpby(ag_dtype t, double alpha, const void *x, double beta, const void *y, size_t n, ref_c *want);
/* min(max(x, lo), hi) with NaN kept, lo and hi converted to the dtype first. */
void ref_clamp(ag_dtype t, const void *x, double lo, double hi, size_t n, ref_c *want);
/* cond[i] != 0 ? a[i] : b[i]. */
void ref_where(ag_dtype t, const unsigned char *cond, const void *a, const void *b, size_t n, ref_c *want);
/* sign(v) * max(|v| - alpha, 0); v / |v| * max(|v| - alpha, 0) for complex v. */
void ref_soft_threshold(ag_dtype t, const void *v, double alpha, size_t n, ref_c *want);
/* Whether ag_compare takes @p op on dtype @p t (complex: AG_CMP_EQ and AG_CMP_NE only). */
bool ref_comparison_takes(ag_compare_op op, ag_dtype t);
/* want[i] = a[i % na] op b[i % nb] ? 1 : 0 for i < n, as ref_binary pairs its operands. */
void ref_comparison(ag_compare_op op, ag_dtype t, const void *a, size_t na, const void *b, size_t nb, size_t n,
                    unsigned char *want);
/* want[i] = x[i] op s (s op x when @p first), s = re + i*im compared as numpy compares it: as
   the real number it is with integer x, rounded to x's dtype first with float and complex x. */
void ref_comparison_scalar(ag_compare_op op, ag_dtype t, const void *x, size_t n, double re, double im, bool first,
                           unsigned char *want);

/* ---- reductions ------------------------------------------------------------------------------- */

typedef enum ref_reduction {
  REF_SUM,
  REF_MEAN,
  REF_MIN,
  REF_MAX,
  REF_ARGMIN,
  REF_ARGMAX,
  REF_DOT,
  REF_NRM2,
} ref_reduction;

/* Reduces x (and y for REF_DOT), of dtype @p t and viewed as shape {outer, len, inner}, along
   the middle axis: want[o * inner + k] for o < outer, k < inner. Sums of integers are exact
   (64-bit); float sums are accumulated in long double. min/max/argmin/argmax follow numpy: NaN
   is the extreme, the first one wins, and ties give the first index. @p scale (may be NULL)
   receives each result's natural error scale: the sum of |terms| for sum, mean (divided by
   len) and dot, |result| otherwise, so tolerances are relative to the condition of the sum. */
void ref_reduce(ref_reduction r, ag_dtype t, const void *x, const void *y, size_t outer, size_t len,
                size_t inner, ref_c *want, long double *scale);

/* ---- tolerances --------------------------------------------------------------------------------- */

/* |got - want| <= rel * |want| + abs (complex: moduli), or exact equality when both are 0.
   NaN matches only NaN and an infinity only itself, whatever the tolerance. */
typedef struct ref_tol {
  double rel, abs;
} ref_tol;

#define REF_EXACT ((ref_tol){0.0, 0.0})

ref_tol ref_tol_unary(ag_unary_op op, ag_dtype t);
ref_tol ref_tol_binary(ag_binary_op op, ag_dtype t);
ref_tol ref_mathfn_tol_unary(ag_unary_op op, ag_dtype t);
ref_tol ref_mathfn_tol_binary(ag_binary_op op, ag_dtype t);
/* For sum, mean, dot and nrm2 results, relative to the error scale ref_reduce gives. */
ref_tol ref_tol_reduce(ref_reduction r, ag_dtype t);

/* Index of the first of @p n elements of @p got (dtype @p t) outside @p tol of want (each
   want[i]'s tolerance scaled by scale[i] when @p scale is not NULL, instead of |want[i]|), or
   @p n when all are within it; the first miss is described in @p msg. */
size_t ref_compare(ag_dtype t, const void *got, const ref_c *want, const long double *scale, size_t n,
                   ref_tol tol, char *msg, size_t cap);

/* Fails the test when @p got differs from @p want beyond @p tol; the printf-style context says
   which operation, dtype and size. */
void ref_check(ag_dtype t, const void *got, const ref_c *want, const long double *scale, size_t n, ref_tol tol,
               const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Fails the test unless @p st is AG_OK; the printf-style context names the call. */
void ref_check_ok(ag_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- refusals ------------------------------------------------------------------------------------ */

/* Whether @p msg contains @p word as a whole word (not inside a longer identifier); @p word may
   list alternatives separated by '|' ("i|index"). */
bool ref_names(const char *msg, const char *word);

/* Fails unless @p got is @p want (or @p also, when not AG_OK) and ag_last_error() contains
   @p fn (or one of its '|'-separated alternatives) and names every word of the NULL-terminated
   @p words as ref_names does. */
void ref_check_refused(ag_status got, ag_status want, ag_status also, const char *expr, const char *fn,
                       const char *const *words);

/* @p expr must fail with @p want, naming @p fn and each of the following words. */
#define CHECK_REFUSED(expr, want, fn, ...)                                                      \
  ref_check_refused((expr), (want), AG_OK, #expr, (fn), (const char *const[]){__VA_ARGS__, NULL})
/* The same, accepting either of two statuses where the headers leave the choice open. */
#define CHECK_REFUSED2(expr, want, also, fn, ...)                                               \
  ref_check_refused((expr), (want), (also), #expr, (fn), (const char *const[]){__VA_ARGS__, NULL})

/* ---- arrays -------------------------------------------------------------------------------------- */

/* A 1-D array of @p n elements, or for 1023 elements a 3-D one (3 x 11 x 31), so that the
   operation suites cover several ndims; holding @p data, or uninitialised when it is NULL. */
ag_array *test_array_shaped(ag_device *dev, ag_dtype t, size_t n, const void *data);

/* A new uninitialised array, ck_asserting success. */
ag_array *test_array_new(ag_device *dev, ag_dtype t, int ndim, const size_t *shape);
/* A new array holding @p data. */
ag_array *test_array_from(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data);
/* A new 1-D array of @p n elements holding @p data. */
ag_array *test_array_1d(ag_device *dev, ag_dtype t, size_t n, const void *data);
/* The array's contents in new host memory (free() it); never NULL, even for an empty array. */
void *test_array_read(const ag_array *a);
/* Fails unless every element of each of the @p n arrays equals @p value (the arrays
   a refused call was given, filled beforehand), naming @p what was refused. */
void test_check_all_equal(ag_array *const *arrays, size_t n, double value, const char *what);
/* Host memory of @p bytes (at least 1), ck_asserting success; free() it. */
void *test_alloc(size_t bytes);
/* free()s each of the @p n pointers, and ag_array_free()s each of the @p n arrays. */
void test_free_all(size_t n, void *const *p);
void test_array_free_all(size_t n, ag_array *const *a);
#define TEST_FREE(...) test_free_all(sizeof (void *[]){__VA_ARGS__} / sizeof(void *), (void *[]){__VA_ARGS__})
#define TEST_ARRAY_FREE(...)                                                                      \
  test_array_free_all(sizeof (ag_array *[]){__VA_ARGS__} / sizeof(ag_array *), (ag_array *[]){__VA_ARGS__})

/* Makes the view of @p parent that a test checks, as @p ctx says. */
typedef ag_array *(*test_view_fn)(const ag_array *parent, const void *ctx);
/* Fails unless @p parent, which held @p before (its host copy) before @p what, still holds it
   outside its view make(parent, ctx): the view's elements are found by marking the same view
   of a parent of zeros. */
void test_check_outside_view(const ag_array *parent, const void *before, test_view_fn make, const void *ctx,
                             const char *what);

/* Whether operations on dtype @p t run on @p dev: f64 and c128 need double precision, and a
   device without it refuses them (AG_ERR_UNSUPPORTED naming the device). Prints a note the first
   time it says no. */
bool test_dtype_runs(ag_device *dev, ag_dtype t);

/* Whether the device can hold one buffer of @p bytes with room to spare; prints a note naming
   @p what when it cannot. */
bool test_device_holds(ag_device *dev, size_t bytes, const char *what);

#endif
