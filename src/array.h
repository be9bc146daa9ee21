/* src/array.h - the array object and what the operation files share: operand checks, scalar
   conversion, and enqueuing a built-in kernel over the elements. */
#ifndef AG_SRC_ARRAY_H
#define AG_SRC_ARRAY_H

#include "internal.h"

/* The memory of an array and its views. */
typedef struct ag__storage {
  ag_buffer *buf;
  atomic_int refs;
} ag__storage;

struct ag_array {
  ag_device *dev;
  ag_dtype dtype;
  int ndim;
  size_t shape[AG_MAX_DIMS];
  size_t size;         /* elements */
  ag__storage *store;  /* NULL for an empty array */
  size_t offset;       /* of the first element, in elements from the buffer's start */
};

/* A new array over @p buf, which it owns from here on success (freeing the array's last view
   frees it), from element @p offset; @p shape must hold at least one element and fit in buf.
   Errors name @p fn. */
ag_status ag__array_over(const char *fn, ag_buffer *buf, size_t offset, ag_dtype t, int ndim, const size_t *shape,
                         ag_array **out);

bool ag__dtype_valid(ag_dtype t);
bool ag__dtype_is_complex(ag_dtype t);
bool ag__dtype_is_float(ag_dtype t);   /* f32, f64 */
bool ag__dtype_is_int(ag_dtype t);
bool ag__dtype_is_unsigned(ag_dtype t);
bool ag__dtype_is_f64(ag_dtype t);     /* needs fp64: f64, c128 */
ag_dtype ag__dtype_real(ag_dtype t);   /* c64 -> f32, c128 -> f64, else t */
/* The least and greatest values of integer dtype @p t. */
void ag__dtype_int_range(ag_dtype t, double *lo, double *hi);

/* Checks that @p a (argument @p name of @p fn) is a usable array. */
ag_status ag__check_array(const char *fn, const char *name, const ag_array *a);
/* Same device, dtype and shape, naming both arguments otherwise. */
ag_status ag__check_same_device(const char *fn, const char *na, const ag_array *a, const char *nb,
                                const ag_array *b);
ag_status ag__check_same_dtype(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b);
ag_status ag__check_same_shape(const char *fn, const char *na, const ag_array *a, const char *nb,
                               const ag_array *b);
/* AG_ERR_UNSUPPORTED when @p dev cannot compute in @p t (f64 on a device without fp64). */
ag_status ag__check_fp64(const char *fn, ag_device *dev, ag_dtype t);

/* A scalar given as re + i*im, converted to dtype @p t in @p out (16 bytes). Integer dtypes
   take only integral values in range: anything else is AG_ERR_INVALID_ARGUMENT naming
   @p what. */
ag_status ag__scalar_to(const char *fn, const char *what, double re, double im, ag_dtype t,
                        void *out);

/* Whether @p dev's backend has a dense eigensolver (backend.h, ag__lapack_ops), so that
   ag__syevd runs on the device rather than failing. */
bool ag__has_syevd(ag_device *dev);
/* The eigenvalues, ascending, of the symmetric n x n matrix @p a (f32 or f64, 2-D, stored
   whole) into @p w (shape {n}, a's dtype and device), and its eigenvectors over a, vector j in
   row j. Synchronises @p q (NULL: the default queue): it returns once the decomposition has
   finished. AG_ERR_UNSUPPORTED when the device has no eigensolver; errors name @p fn. */
ag_status ag__syevd(const char *fn, ag_queue *q, ag_array *a, ag_array *w);

#endif
