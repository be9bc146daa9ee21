/* src/array.h - the core's half of the array object: its storage, and arrays over a buffer.
   The metadata, dtype predicates and operand checks are in src/seam/shared.h. */
#ifndef AG_SRC_ARRAY_H
#define AG_SRC_ARRAY_H

#ifdef AG_SCIENCE_LAYER
#error "src/array.h is the core's own: a scientific layer includes src/seam/seam.h instead"
/* Gives @p a (made by ag__array_over, over memory holding every element) the strides
   @p strides, in elements. */
void ag__array_set_strides(ag_array *a, const ptrdiff_t *strides);

/* A view of all of @p a (its shape and strides), for one that must outlive the caller's
   handle (a DLPack export). */
ag_status ag__array_alias(const char *fn, const ag_array *a, ag_array **view);

#endif

#include "internal.h"
#include "seam/shared.h" /* struct ag_array, the dtype predicates and argument checks */

/* The memory of an array and its views. */
typedef struct ag__storage {
  ag_buffer *buf;
  atomic_int refs;
} ag__storage;

/* A new array over @p buf, which it owns from here on success (freeing the array's last view
   frees it), from element @p offset; @p shape must hold at least one element and fit in buf.
   Errors name @p fn. */
ag_status ag__array_over(const char *fn, ag_buffer *buf, size_t offset, ag_dtype t, int ndim, const size_t *shape,
                         ag_array **out);

/* Gives @p a (made by ag__array_over, over memory holding every element) the strides
   @p strides, in elements. */
void ag__array_set_strides(ag_array *a, const ptrdiff_t *strides);

/* A view of all of @p a (its shape and strides), for one that must outlive the caller's
   handle (a DLPack export). */
ag_status ag__array_alias(const char *fn, const ag_array *a, ag_array **view);

/* The checks an operation of one input and one output opens with: x and out present (argument
   names "x" and "out" of @p fn), on one device. */
ag_status ag__check_x_out(const char *fn, const ag_array *x, const ag_array *out);

/* The checks an operation along one axis of x into out of x's shape takes after those of
   ag__check_x_out and its dtypes: one shape, x not 0-d, *@p axis one of x's (negative counting
   from the end, made non-negative here), x's dtype one the device computes in, out writable. */
ag_status ag__check_along(const char *fn, const ag_array *x, const ag_array *out, int *axis);

#endif
