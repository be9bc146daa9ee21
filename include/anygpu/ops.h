/* anygpu/ops.h — the operation layer: elementwise math and reductions on ag_array.

   Calling convention: ag_<op>(queue, inputs..., out). queue NULL means the calling thread's
   default queue of the operands' device. out is an existing array of the result's shape and
   dtype and may be one of the inputs (in place). Operations are asynchronous on the queue;
   ag_array_to_host waits for them. All operands live on one device (AG_ERR_MISMATCH names
   both otherwise). Empty arrays are valid: an elementwise operation on them succeeds doing
   nothing, and so does a reduction whose out is empty. A reduction over an empty axis into a
   non-empty out gives 0 (sum, dot, nrm2) or NaN (mean), and is AG_ERR_INVALID_ARGUMENT for
   min, max, argmin and argmax, which have no answer there (numpy raises too).

   An operation on a dtype where it has no meaning (sqrt of an integer, minimum of complex
   numbers) is AG_ERR_UNSUPPORTED naming the operation and the dtype; docs/operations.md lists
   which dtypes each operation takes. Arithmetic follows C and IEEE 754: NaN and Inf propagate
   (minimum and maximum propagate NaN, as numpy's do); integers wrap; integer division by zero
   gives 0.

   Threads and ownership: every operation may be called from any thread at once, each thread
   on its own queue or NULL (a queue made by ag_queue_create() is used by one thread at a
   time); operands follow array.h's rules. Operands are borrowed for the call only: nothing is
   kept, and any operand, out included, may be freed as soon as the call returns, its memory
   waiting for the enqueued work (ag_array_free). */
#ifndef ANYGPU_OPS_H
#define ANYGPU_OPS_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- elementwise, one input ------------------------------------------------------------- */

/* "all" below is every dtype but bool, which takes comparisons, ag_where, ag_astype, copies and
   fills only. Integer arithmetic wraps modulo 2^bits in every width, as numpy's. */
typedef enum ag_unary_op {
  AG_OP_NEG,    /* -x; unsigned: 2^bits - x    all */
  AG_OP_ABS,    /* |x|; complex -> real out   all */
  AG_OP_SQRT,   /*                             float, complex */
  AG_OP_EXP,    /*                             float, complex */
  AG_OP_LOG,    /* natural                     float, complex */
  AG_OP_SIN,    /*                             float, complex */
  AG_OP_COS,    /*                             float, complex */
  AG_OP_SQUARE, /* x * x                       all */
  AG_OP_SIGN,   /* -1, 0, 1; complex: x/|x|    all; +0 for -0.0, NaN for NaN */
  AG_OP_CONJ,   /* complex conjugate           complex (real: a copy) */
  AG_OP_REAL,   /* real part -> real out       complex (real: a copy) */
  AG_OP_IMAG,   /* imaginary part -> real out  complex (real: zeros) */
  AG_OP_BITWISE_INVERT, /* ~x; bool: logical not    integers, bool */
  /* The mathfn family's (docs/operations.md, "More elementwise functions"):                  */
  AG_OP_TAN,      /*                           float, complex */
  AG_OP_ASIN,     /* inverse sine              float, complex */
  AG_OP_ACOS,     /*                           float, complex */
  AG_OP_ATAN,     /*                           float, complex */
  AG_OP_SINH,     /*                           float, complex */
  AG_OP_COSH,     /*                           float, complex */
  AG_OP_TANH,     /*                           float, complex */
  AG_OP_ASINH,    /*                           float, complex */
  AG_OP_ACOSH,    /*                           float, complex */
  AG_OP_ATANH,    /*                           float, complex */
  AG_OP_EXPM1,    /* exp(x) - 1                float, complex */
  AG_OP_LOG1P,    /* log(1 + x)                float, complex */
  AG_OP_LOG2,     /*                           float, complex */
  AG_OP_LOG10,    /*                           float, complex */
  AG_OP_FLOOR,    /* integers: x itself        integers, float */
  AG_OP_CEIL,     /*                           integers, float */
  AG_OP_TRUNC,    /* toward 0                  integers, float */
  AG_OP_ROUND,    /* halves to even; complex: each part   all */
  AG_OP_ISNAN,    /* -> bool out               every dtype, bool too */
  AG_OP_ISINF,    /* -> bool out               every dtype, bool too */
  AG_OP_ISFINITE, /* -> bool out               every dtype, bool too */
  AG_OP_SIGNBIT,  /* -> bool out; -0.0 and -NaN too   integers, float */
} ag_unary_op;

/** out = op(x). out has x's shape, and x's dtype except where noted (abs, real and imag of a
    complex array give the real dtype of the same precision: c64 -> f32, c128 -> f64; isnan,
    isinf, isfinite and signbit give bool). */
AG_API ag_status ag_unary(ag_queue *q, ag_unary_op op, const ag_array *x, ag_array *out);

AG_API ag_status ag_neg(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_abs(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_sqrt(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_exp(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_log(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_sin(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_cos(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_square(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_sign(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_conj(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_real(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_imag(ag_queue *q, const ag_array *x, ag_array *out);
/** out = ~x: every bit flipped (two's complement: ~x is -x - 1 for signed x, 255 - x for u8);
    bool x gives its logical not, as numpy.invert does. Integers and bool; floats and complex
    are AG_ERR_UNSUPPORTED. */
AG_API ag_status ag_bitwise_invert(ag_queue *q, const ag_array *x, ag_array *out);

/** The array API standard's other elementwise functions of one argument (the mathfn family):
    each the math library's on real floats (OpenCL's, CUDA's, the host's C library, whose
    accuracy docs/operations.md states), with IEEE 754's and C99's results for 0, -0, inf and
    NaN; on complex numbers, formulas of the real functions for finite arguments
    (docs/operations.md says which, and what infinite parts give). Rounding (floor, ceil, trunc,
    round) gives x itself for integers; round is to the nearest integer, halves to even (numpy's
    round and the standard's). isnan, isinf and isfinite take every dtype (an integer or bool is
    finite), signbit the real ones (an integer's is x < 0), and their out is bool. */
AG_API ag_status ag_tan(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_asin(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_acos(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_atan(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_sinh(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_cosh(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_tanh(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_asinh(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_acosh(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_atanh(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_expm1(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_log1p(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_log2(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_log10(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_floor(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_ceil(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_trunc(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_round(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_isnan(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_isinf(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_isfinite(ag_queue *q, const ag_array *x, ag_array *out);
AG_API ag_status ag_signbit(ag_queue *q, const ag_array *x, ag_array *out);

/* ---- elementwise, two inputs ------------------------------------------------------------ */

typedef enum ag_binary_op {
  AG_OP_ADD,     /* all */
  AG_OP_SUB,     /* all */
  AG_OP_MUL,     /* all */
  AG_OP_DIV,     /* all; integers truncate, and x / 0 is 0 */
  AG_OP_POW,     /* all; integers wrap, and a negative power gives 1 / a^|b| truncated */
  AG_OP_MINIMUM, /* real dtypes; NaN if either is NaN */
  AG_OP_MAXIMUM, /* real dtypes; NaN if either is NaN */
  /* numpy's answers for every operand (docs/operations.md says each):        */
  AG_OP_FLOOR_DIVIDE, /* floor(a / b)    integers, f32, f64 */
  AG_OP_REMAINDER,    /* a - floor(a / b) * b, of b's sign   integers, f32, f64 */
  AG_OP_BITWISE_AND,  /* a & b; bool: logical and    integers, bool */
  AG_OP_BITWISE_OR,   /* a | b; bool: logical or     integers, bool */
  AG_OP_BITWISE_XOR,  /* a ^ b; bool: logical xor    integers, bool */
  AG_OP_LEFT_SHIFT,   /* a << b          integers */
  AG_OP_RIGHT_SHIFT,  /* a >> b, arithmetic for signed a   integers */
  /* The mathfn family's:                                                        */
  AG_OP_ATAN2,     /* the angle of (b, a), in [-pi, pi]   f32, f64 */
  AG_OP_HYPOT,     /* sqrt(a^2 + b^2) without overflow    f32, f64 */
  AG_OP_COPYSIGN,  /* |a| with b's sign bit               f32, f64 */
  AG_OP_LOGADDEXP, /* log(exp(a) + exp(b))                f32, f64 */
} ag_binary_op;

/** out = a op b. a, b and out have one dtype. Shapes broadcast as numpy's ({3, 1} with {1, 4}
    into {3, 4}; a bias {3} added to every row of {2, 3}), and out has the broadcast shape.
    Any operand may be a view (array.h; docs/arrays.md says what a view costs). */
AG_API ag_status ag_binary(ag_queue *q, ag_binary_op op, const ag_array *a, const ag_array *b,
                           ag_array *out);

/** out = x op s (or s op x when @p scalar_first), s = re + i*im converted to x's dtype
    (im must be 0 for real dtypes). */
AG_API ag_status ag_binary_scalar(ag_queue *q, ag_binary_op op, const ag_array *x, double re,
                                  double im, bool scalar_first, ag_array *out);

AG_API ag_status ag_add(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_sub(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_mul(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_div(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_pow(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_minimum(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_maximum(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);

/** Floor division and remainder, as numpy.floor_divide and numpy.remainder (Python's // and
    %): a == floor_divide(a, b) * b + remainder(a, b), the remainder of b's sign (or 0).
    Integers: x // 0 and x % 0 are 0 (numpy's answer, where C traps); INT_MIN // -1 wraps to
    INT_MIN and INT_MIN % -1 is 0. f32 and f64: numpy's npy_divmod, the remainder from fmod
    moved to b's sign and the quotient snapped to an integer; a zero remainder has b's sign, a
    zero quotient the sign of a / b; x // 0 is a / b (inf, or NaN for 0 and NaN) and x % 0 is
    NaN; a % inf is a for a of inf's sign, else inf (numpy: 5 % inf is 5, -5 % inf is inf).
    bool and complex are AG_ERR_UNSUPPORTED. */
AG_API ag_status ag_floor_divide(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_remainder(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
/** Bitwise and, or, xor of integers; of bool, logical and, or, xor (bool out). Floats and
    complex are AG_ERR_UNSUPPORTED. */
AG_API ag_status ag_bitwise_and(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_bitwise_or(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_bitwise_xor(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
/** a shifted by b bits, integers only (bool, floats and complex are AG_ERR_UNSUPPORTED), as
    numpy.left_shift and numpy.right_shift: the left shift wraps (u8 255 << 1 is 254, i8 1 << 7
    is -128); the right shift of signed a is arithmetic (-8 >> 1 is -4). numpy takes the count
    as unsigned, so a count of the width or more, and any negative count, shifts every bit out:
    the result is 0, or -1 for negative a shifted right. */
AG_API ag_status ag_bitwise_left_shift(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_bitwise_right_shift(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
/** atan2(a, b), hypot(a, b) and copysign(a, b) of the math library, and logaddexp(a, b) =
    log(exp(a) + exp(b)) as numpy computes it (from the larger operand, without overflow; equal
    operands, infinities too, give a + log 2), for f32 and f64. */
AG_API ag_status ag_atan2(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_hypot(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_copysign(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);
AG_API ag_status ag_logaddexp(ag_queue *q, const ag_array *a, const ag_array *b, ag_array *out);

/* x op s with a real scalar; the _r forms compute s op x (numpy's 2 - x, 1 / x, 2 ** x). */
AG_API ag_status ag_add_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_sub_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_mul_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_div_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_pow_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_minimum_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_maximum_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_sub_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);
AG_API ag_status ag_div_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);
AG_API ag_status ag_pow_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);
AG_API ag_status ag_floor_divide_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_remainder_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_bitwise_and_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_bitwise_or_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_bitwise_xor_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_bitwise_left_shift_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_bitwise_right_shift_scalar(ag_queue *q, const ag_array *x, double s, ag_array *out);
AG_API ag_status ag_floor_divide_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);
AG_API ag_status ag_remainder_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);
AG_API ag_status ag_bitwise_left_shift_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);
AG_API ag_status ag_bitwise_right_shift_scalar_r(ag_queue *q, double s, const ag_array *x, ag_array *out);

/* ---- creation from indices -------------------------------------------------------------- */

/** out[i] = start + i * step over out's elements in C order (the array API's and numpy's arange:
    out has the count of values the caller wants). Integer dtypes: start a value of the dtype,
    step an integer (|step| < 2^63), the sums wrapping as numpy's (a u8 arange may count down);
    f32 and f64: numpy's values, start + i * delta in the dtype with delta the difference of the
    first two values rounded to it. bool and complex are AG_ERR_UNSUPPORTED; start or step not
    finite, or a step of 0, AG_ERR_INVALID_ARGUMENT. */
AG_API ag_status ag_arange(ag_queue *q, double start, double step, ag_array *out);

/** out[i] = start + i * step, step = (stop - start) / (n - 1) with @p endpoint (the last element
    is then exactly stop) or (stop - start) / n without it, n = out's size (numpy.linspace and the
    standard's). start = start_re + i start_im, stop likewise (imaginary parts 0 for real
    dtypes); f32, f64, c64, c128, computed in the dtype's precision (numpy computes in double
    and rounds: f32 values may differ from its by an ulp or two). */
AG_API ag_status ag_linspace(ag_queue *q, double start_re, double start_im, double stop_re, double stop_im,
                             bool endpoint, ag_array *out);

/** out, a matrix of any dtype, all 0 but for 1 on diagonal @p k (0 the main one, above it
    positive): the array API's eye. */
AG_API ag_status ag_eye(ag_queue *q, int64_t k, ag_array *out);

/** out = x with the elements above diagonal @p k of each matrix (x's last two axes) zeroed
    (ag_tril), or below it (ag_triu): numpy.tril and numpy.triu. x has 2 or more dimensions,
    out its shape and dtype (any dtype; out may be x). */
AG_API ag_status ag_tril(ag_queue *q, const ag_array *x, int64_t k, ag_array *out);
AG_API ag_status ag_triu(ag_queue *q, const ag_array *x, int64_t k, ag_array *out);

/* ---- joining and rolling ---------------------------------------------------------------- */

/** out = the @p n arrays xs[0..n-1] joined along @p axis (negative counting from the end): the
    array API's concat and numpy.concatenate. Each has out's dimensions but along axis, where
    their lengths sum to out's; their dtypes promote (ag_result_type) to out's, each converted
    as ag_astype does. Each is copied into its slice of out on the device (views anywhere). */
AG_API ag_status ag_concat(ag_queue *q, int n, const ag_array *const *xs, int axis, ag_array *out);

/** out = x rolled by shifts[j] along axes[j] for j < @p n (numpy.roll and the standard's:
    element i goes to i + shift, wrapping; negative shifts and shifts beyond the length are taken
    modulo it; an axis named twice takes the sum), or with @p axes NULL and n 1, the flattened
    array rolled by shifts[0] (C order). out has x's shape and dtype and may be x. */
AG_API ag_status ag_roll(ag_queue *q, const ag_array *x, int n, const int64_t *shifts, const int *axes,
                         ag_array *out);

/** out = x repeated reps[k] times along each axis (numpy.tile and the standard's): x's shape and
    the @p n reps aligned at their last axes, the shorter padded with 1s in front; out's shape
    their product, axis by axis, and x's dtype. One copy per axis with a repetition above 1. */
AG_API ag_status ag_tile(ag_queue *q, const ag_array *x, int n, const size_t *reps, ag_array *out);

/** out = x with each element repeated @p repeats times in place along @p axis (numpy.repeat
    with one count: [a, b] gives [a, a, b, b]), or with axis AG_AXIS_ALL along the flattened
    array (out 1-D). out has x's dtype. */
AG_API ag_status ag_repeat(ag_queue *q, const ag_array *x, size_t repeats, int axis, ag_array *out);

/* ---- scans, sorting and searching ------------------------------------------------------- */

/** out = the inclusive cumulative sum of x along @p axis (negative counting from the end): the
    array API's cumulative_sum and numpy.cumsum, out[..., k, ...] the sum of x[..., 0..k, ...].
    x and out of one shape and dtype (every dtype but bool: ag_astype first for another result
    dtype), any layouts; out may be x. Integer sums wrap in the dtype, as numpy's do; float sums
    add in order within each of the pieces the axis is cut into, then add the pieces' totals, so
    their rounding may differ from numpy's sequential sum in the last bits (within about len
    ulp of the result's magnitude). Three passes on the device (kernels_shared/scan.h). */
AG_API ag_status ag_cumulative_sum(ag_queue *q, const ag_array *x, int axis, ag_array *out);

/** out = x sorted along @p axis (negative counting from the end), ascending or, with
    @p descending, descending: the array API's sort and numpy.sort. Stable either way: equal
    elements keep their order (descending too, as the standard asks). x and out of one shape and
    dtype, the real dtypes and bool (complex: AG_ERR_UNSUPPORTED), any layouts; out may be x.
    Floats order as numpy's, NaN after everything ascending (first descending); ag_sort puts
    -0.0 before +0.0 (equal values, so numpy's order of them is unobservable but by their sign),
    ag_argsort takes them as equal and keeps their index order, as numpy's stable argsort.
    A least-significant-digit radix sort on the device (kernels_shared/sort.h),
    one pass per byte of the dtype. */
AG_API ag_status ag_sort(ag_queue *q, const ag_array *x, int axis, bool descending, ag_array *out);
/** out (i64, x's shape) = the indices along @p axis that sort x as ag_sort does (stable):
    numpy.argsort(x, kind="stable") and the standard's argsort. */
AG_API ag_status ag_argsort(ag_queue *q, const ag_array *x, int axis, bool descending, ag_array *out);

/** out = the elements of x at @p indices (1-D, i64; negative counting from the end) along
    @p axis: the array API's take and numpy.take. out has x's dtype and x's shape with the
    axis's length that of indices. An index outside [-len, len) gives AG_ERR_OUT_OF_RANGE
    (found on the device and read back: the call waits for the queue), out's contents then
    unspecified. */
AG_API ag_status ag_take(ag_queue *q, const ag_array *x, const ag_array *indices, int axis, ag_array *out);
/** out[..., k, ...] = x[..., indices[..., k, ...], ...] along @p axis: the standard's and numpy's
    take_along_axis. indices (i64) has x's dimensions and x's lengths but along the axis (views,
    broadcast ones included, are taken); out has indices' shape and x's dtype. Indices as
    ag_take's. */
AG_API ag_status ag_take_along_axis(ag_queue *q, const ag_array *x, const ag_array *indices, int axis,
                                    ag_array *out);
/** out (i64, x2's shape) = for each element v of x2, the index of sorted 1-D @p x1 where v would
    be inserted keeping the order: before the elements equal to v, or after them with @p right
    (numpy.searchsorted's side="left" and "right"). x1 and x2 of one real dtype or bool; NaN
    sorts last, as ag_sort puts it. x1's order is not checked. A binary search per element. */
AG_API ag_status ag_searchsorted(ag_queue *q, const ag_array *x1, const ag_array *x2, bool right, ag_array *out);

/* Functions whose result's size depends on the data: each makes its results (new arrays, freed
   with ag_array_free, NULL on failure) after reading one count back from the device, so it
   waits for the queue once. */

/** *out = the indices of x's nonzero elements (NaN is; complex: either part), in C order, as a
    new i64 array of shape {x->ndim, count}: row d the indices along axis d (numpy.nonzero
    stacked; the standard's nonzero is its rows). x of any dtype, 1 or more dimensions. */
AG_API ag_status ag_nonzero(ag_queue *q, const ag_array *x, ag_array **out);
/** *out = x[mask] (numpy's boolean indexing): mask bool, of x's shape or of its first axes;
    a new array of x's dtype and shape {count, x's axes after the mask's}, count the true
    elements of mask, the selected elements (or blocks) in C order. */
AG_API ag_status ag_mask_select(ag_queue *q, const ag_array *x, const ag_array *mask, ag_array **out);
/** The distinct values of x (flattened), sorted, as the standard's unique_all: *values (x's
    dtype), *indices (i64: the first index in flattened x of each), *inverse (i64, x's shape:
    each element's place in values) and *counts (i64: occurrences of each), each a new array,
    or not made when its pointer is NULL. -0.0 and +0.0 are one value; each NaN is distinct
    (the standard's rule). Real dtypes and bool. A stable argsort (ag_argsort), a gather, and
    the starts of runs of equal values, on the device. */
AG_API ag_status ag_unique(ag_queue *q, const ag_array *x, ag_array **values, ag_array **indices,
                           ag_array **inverse, ag_array **counts);

/* ---- fused and selection ---------------------------------------------------------------- */

/** out = alpha * x + beta * y in one pass (BLAS axpby; BabelStream's triad is
    ag_axpby(q, s, c, 1, b, a)). Float and complex dtypes; x, y and out of one shape. */
AG_API ag_status ag_axpby(ag_queue *q, double alpha, const ag_array *x, double beta,
                          const ag_array *y, ag_array *out);

/** out = min(max(x, lo), hi), real dtypes; NaN stays NaN. lo > hi is invalid. */
AG_API ag_status ag_clamp(ag_queue *q, const ag_array *x, double lo, double hi, ag_array *out);

/** Comparisons, elementwise, giving bool (or u8 masks: 1 true, 0 false) as ag_where takes
    them. */
typedef enum ag_compare_op {
  AG_CMP_EQ, /* a == b   every dtype, bool too (complex: both parts equal) */
  AG_CMP_NE, /* a != b   every dtype */
  AG_CMP_LT, /* a < b    real dtypes and bool (false < true) */
  AG_CMP_LE, /* a <= b   real dtypes and bool */
  AG_CMP_GT, /* a > b    real dtypes and bool */
  AG_CMP_GE, /* a >= b   real dtypes and bool */
} ag_compare_op;

/** out = (a op b) ? 1 : 0. a and b have one dtype and shapes as ag_binary()'s; out is bool
    (or u8) of the broadcast shape. IEEE 754 as C and numpy: a NaN compares false, except with
    AG_CMP_NE.
    @return AG_ERR_UNSUPPORTED for LT, LE, GT, GE on complex dtypes; AG_ERR_MISMATCH for
            dtypes or shapes that do not fit; AG_ERR_INVALID_ARGUMENT for NULL, an op outside
            the enum, or out neither bool nor u8. */
AG_API ag_status ag_compare(ag_queue *q, ag_compare_op op, const ag_array *a, const ag_array *b,
                            ag_array *out);

/** out = (x op s) ? 1 : 0, or (s op x) when @p scalar_first, s = re + i*im (im must be 0 for
    real dtypes). The comparison is exact, as numpy's is: for float and complex x, s is first
    rounded to x's dtype (numpy compares a float32 array with 0.1 as float32); for integer x,
    s is compared as the real number it is (x < 2.5 holds for x <= 2, x == 2.5 for none,
    u8 x < 300 for all), the same on devices without double precision. s may be NaN or
    infinite. */
AG_API ag_status ag_compare_scalar(ag_queue *q, ag_compare_op op, const ag_array *x, double re,
                                   double im, bool scalar_first, ag_array *out);

/** out = cond != 0 ? a : b. cond is bool (or u8); a and b have out's dtype; each of the three broadcasts
    to out's shape as numpy.where's operands do. */
AG_API ag_status ag_where(ag_queue *q, const ag_array *cond, const ag_array *a,
                          const ag_array *b, ag_array *out);

/** The l1 proximal operator: out = sign(v) * max(|v| - alpha, 0); for complex v,
    v / |v| * max(|v| - alpha, 0). Float and complex dtypes; alpha >= 0. */
AG_API ag_status ag_soft_threshold(ag_queue *q, const ag_array *v, double alpha, ag_array *out);

/* ---- reductions ------------------------------------------------------------------------- */

/** Reduce over every element (out of shape {1}) ... */
#define AG_AXIS_ALL (-1)

/* ... or along one axis: out has x's shape without that axis ({1} when x is 1-D).
   Result dtypes: sum, mean, dot: x's dtype for float and complex; for integer x, f32 or f64
   (and for sum and dot also u64 or u32 for unsigned x, i64 or i32 for signed x: 64 bits is
   the array API's accumulator type), accumulated exactly in 64 bits (wrapping there) and
   converted once. min, max: x's dtype, real dtypes only. argmin, argmax: index of the first
   extreme (NaN counts as extreme, as in numpy) into an i64, u32 or i32 out, real dtypes. bool
   x has no reductions (AG_ERR_UNSUPPORTED: ag_astype it to an integer).
   nrm2: sqrt(sum |x|^2), scaled so no intermediate overflows, in the real dtype of x's
   precision, float and complex. Float sums are compensated (Kahan) within each work-item
   and combined pairwise, so a float32 sum of 2^24 values keeps about 1e-7 relative error. */
AG_API ag_status ag_sum(ag_queue *q, const ag_array *x, int axis, ag_array *out);
AG_API ag_status ag_mean(ag_queue *q, const ag_array *x, int axis, ag_array *out);
AG_API ag_status ag_min(ag_queue *q, const ag_array *x, int axis, ag_array *out);
AG_API ag_status ag_max(ag_queue *q, const ag_array *x, int axis, ag_array *out);
AG_API ag_status ag_argmin(ag_queue *q, const ag_array *x, int axis, ag_array *out);
AG_API ag_status ag_argmax(ag_queue *q, const ag_array *x, int axis, ag_array *out);
/** sum(x * y) without conjugation (numpy.dot of vectors; numpy.vdot conjugates x). */
AG_API ag_status ag_dot(ag_queue *q, const ag_array *x, const ag_array *y, int axis,
                        ag_array *out);
AG_API ag_status ag_nrm2(ag_queue *q, const ag_array *x, int axis, ag_array *out);
/** The product of the elements (numpy.prod): out of x's dtype for float and complex x; i64 for
    signed integer x and u64 for unsigned, multiplied in 64 bits and wrapping there (the array
    API's accumulator type, numpy's int64 and uint64 products). A product of no elements is 1.
    Float products are formed in order within each work-item, then multiplied together: the
    rounding may differ from numpy's in the last bits (about n ulp for n elements). */
AG_API ag_status ag_prod(ag_queue *q, const ag_array *x, int axis, ag_array *out);

/* Over any set of axes (numpy's axis=tuple): the @p naxes axes of @p axes, each once,
   negative counting from the end, or every axis when @p naxes is 0. out has x's shape
   without those axes (a 0-d out for all of them), or with them kept as length 1 (numpy's
   keepdims=True): either is taken. Result dtypes, NaN and empty axes as the single-axis forms.
   Runs of neighbouring reduced axes are reduced as one, the last run first, so a contiguous
   x is read once; the mean is the sum scaled once. */
AG_API ag_status ag_sum_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes,
                             ag_array *out);
AG_API ag_status ag_mean_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes,
                              ag_array *out);
AG_API ag_status ag_min_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes,
                             ag_array *out);
AG_API ag_status ag_max_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes,
                             ag_array *out);
AG_API ag_status ag_prod_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes,
                              ag_array *out);

/** Whether any element (ag_any_axes), or every element (ag_all_axes), of x is nonzero (NaN is,
    as numpy's; complex: either part) over the axes given as for ag_sum_axes: out is bool, of
    x's shape without those axes or with them as length 1. x of any dtype, bool too. Over no
    elements any is false and all is true. */
AG_API ag_status ag_any_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out);
AG_API ag_status ag_all_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, ag_array *out);

/** The variance (ag_var_axes) and standard deviation (ag_std_axes) over the axes given as for
    ag_sum_axes: the sum of squared deviations from the mean, divided by N - @p correction
    (N the count of elements each output takes: correction 0 is the population variance, 1 the
    sample variance; numpy's ddof), as numpy.var and numpy.std compute them (two passes: the
    mean, then the deviations). f32 and f64; out of x's dtype. When correction leaves no degrees
    of freedom the result is inf, or NaN (a sum of 0), as numpy's; over no elements NaN. */
AG_API ag_status ag_var_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, double correction,
                             ag_array *out);
AG_API ag_status ag_std_axes(ag_queue *q, const ag_array *x, int naxes, const int *axes, double correction,
                             ag_array *out);

#ifdef __cplusplus
}
#endif

#endif
