/* src/seam/shared.h - what the core and the scientific layers both declare: the array's
   metadata, the kernel families, dtype predicates, argument checks and the error helpers. The
   layers reach it through src/seam/seam.h; the core's own headers include it directly. */
#ifndef AG_SEAM_SHARED_H
#define AG_SEAM_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anygpu.h"

/* ---- the array ---------------------------------------------------------------------------- */

/* The memory of an array and its views: defined by the core alone (src/array.h), so that a
   layer reads an array's metadata but reaches its memory only through ag_array_buffer. */
struct ag__storage;

struct ag_array {
  ag_device *dev;
  ag_dtype dtype;
  int ndim;                   /* 0 (one element) to AG_MAX_DIMS */
  size_t shape[AG_MAX_DIMS];
  ptrdiff_t strides[AG_MAX_DIMS]; /* in elements; negative or 0 in views */
  size_t size;                /* elements */
  bool contiguous;            /* C order, elements back to back from offset (an empty array is) */
  struct ag__storage *store;  /* NULL for an empty array */
  size_t offset;              /* of the first element, in elements from the buffer's start */
};

/* ---- built-in kernel families --------------------------------------------------------------- */

/* One per line of kernels_shared/families.h. */
typedef enum ag__family {
#define AG_FAMILY(name, kind) AG__FAMILY_##name,
#include "../../kernels_shared/families.h"
#undef AG_FAMILY
  AG__FAMILY_COUNT
} ag__family;

/* ---- dtypes and argument checks ----------------------------------------------------------- */

bool ag__dtype_valid(ag_dtype t);
bool ag__dtype_is_complex(ag_dtype t);
bool ag__dtype_is_float(ag_dtype t);   /* f32, f64 */
bool ag__dtype_is_int(ag_dtype t);      /* the eight integer dtypes; not bool */
bool ag__dtype_is_unsigned(ag_dtype t); /* u8, u16, u32, u64 */
bool ag__dtype_is_f64(ag_dtype t);     /* needs fp64: f64, c128 */
ag_dtype ag__dtype_real(ag_dtype t);   /* c64 -> f32, c128 -> f64, else t */
/* The least and greatest values of integer dtype @p t (bool: 0 and 1), as doubles: for i64 and
   u64 the greatest double below the limit, so that every double in range converts exactly. */
void ag__dtype_int_range(ag_dtype t, double *lo, double *hi);

/* Checks that @p a (argument @p name of @p fn) is a usable array of the C-contiguous layout
   every kernel takes: a strided view is refused, naming ag_copy as the way to one. */
ag_status ag__check_array(const char *fn, const char *name, const ag_array *a);
/* The same for an operation that takes views of any layout (src/layout.c stages them). */
ag_status ag__check_operand(const char *fn, const char *name, const ag_array *a);
/* Same device, dtype and shape, naming both arguments otherwise. */
ag_status ag__check_same_device(const char *fn, const char *na, const ag_array *a, const char *nb,
                                const ag_array *b);
ag_status ag__check_same_dtype(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b);
ag_status ag__check_same_shape(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b);
/* Marks in @p on (ndim entries) the @p naxes axes of @p axes, each once, negative counting from
   the end; every axis when @p naxes is 0. Errors name @p fn's axes[k]. */
ag_status ag__axis_set(const char *fn, int ndim, int naxes, const int *axes, bool *on);
/* "{2, 3}" into @p out. */
void ag__shape_text(int ndim, const size_t *shape, char *out, size_t size);
/* AG_ERR_UNSUPPORTED when @p dev cannot compute in @p t (f64 on a device without fp64). */
ag_status ag__check_fp64(const char *fn, ag_device *dev, ag_dtype t);

/* A scalar given as re + i*im, converted to dtype @p t in @p out (16 bytes). Integer dtypes
   take only integral values in range: anything else is AG_ERR_INVALID_ARGUMENT naming
   @p what (a double holds every integer up to 2^53; i64 and u64 values beyond come as the
   nearest double). bool takes any real value: nonzero (NaN too) is true. */
ag_status ag__scalar_to(const char *fn, const char *what, double re, double im, ag_dtype t,
                        void *out);

/* @p q, or the calling thread's default queue of @p dev when q is NULL (src/queue.c). Checks
   that q belongs to dev. @p fn names the public function for messages. */
ag_status ag__queue_resolve(const char *fn, ag_queue *q, ag_device *dev, ag_queue **out);

/* ---- linear algebra the core provides ------------------------------------------------------ */

/* Whether @p dev's backend has a dense eigensolver (backend.h, ag__lapack_ops), so that
   ag__syevd runs on the device rather than failing. */
bool ag__has_syevd(ag_device *dev);
/* The eigenvalues, ascending, of the symmetric n x n matrix @p a (f32 or f64, 2-D, stored
   whole) into @p w (shape {n}, a's dtype and device), and its eigenvectors over a, vector j in
   row j. Synchronises @p q (NULL: the default queue): it returns once the decomposition has
   finished. AG_ERR_UNSUPPORTED when the device has no eigensolver; errors name @p fn. */
ag_status ag__syevd(const char *fn, ag_queue *q, ag_array *a, ag_array *w);

/* src/sparse.c: a matrix's device buffers, its entries and those of its longest row, for
   operations that run their own kernels over it (azimuthal integration). */
typedef struct ag__csr_parts {
  ag_buffer *row_ptr, *col_idx, *values;
  uint64_t nnz, longest;
} ag__csr_parts;
ag__csr_parts ag__csr_parts_of(const ag_csr *m);

/* ---- errors and the log ------------------------------------------------------------------- */

/* Records "fmt..." as this thread's last error and returns @p status, so failures read
   `return ag__error(AG_ERR_OUT_OF_RANGE, "ag_buffer_write: offset %zu ...", ...)`. An argument
   may be ag_last_error() itself, or point into it: the old message is read whole before it is
   replaced. */
ag_status ag__error(ag_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* When @p status is a failure, puts "fn: " in front of this thread's last error (a backend
   wrote the rest). Returns @p status, so `return ag__prefix(st, "ag_buffer_read")`. */
ag_status ag__prefix(ag_status status, const char *fn);

/* A copy of this thread's last error, and putting it back: for work that fails inside a call
   that then succeeds another way, which must leave ag_last_error() as it found it. */
char *ag__error_save(void);
void ag__error_restore(char *saved);

/* Writes to stderr when ANYGPU_LOG is at least @p level (backends/backend.h's AG__LOG_*). */
void ag__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ag__log at level info, for code that does not see backends/backend.h's levels. */
void ag__log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ag__log_level(void);

/* Shorthands for argument checks: each records a message naming the function and argument. */
#define AG__CHECK_NOT_NULL(fn, arg)                                                             \
  do {                                                                                          \
    if ((arg) == NULL)                                                                          \
      return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, #arg);                  \
  } while (0)

#endif
