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

bool ag__dtype_valid(ag_dtype t);
bool ag__dtype_is_complex(ag_dtype t);
bool ag__dtype_is_float(ag_dtype t);   /* f32, f64 */
bool ag__dtype_is_int(ag_dtype t);
bool ag__dtype_is_unsigned(ag_dtype t);
bool ag__dtype_is_f64(ag_dtype t);     /* needs fp64: f64, c128 */
ag_dtype ag__dtype_real(ag_dtype t);   /* c64 -> f32, c128 -> f64, else t */

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

/* One argument of a built-in elementwise kernel: an array (its buffer, then its offset in
   elements) or a value. */
typedef struct ag__op_arg {
  const ag_array *array;
  const void *value;
  size_t size;
} ag__op_arg;
#define AG__OP_ARRAY(a) ((ag__op_arg){.array = (a)})
#define AG__OP_VALUE(v) ((ag__op_arg){.value = &(v), .size = sizeof(v)})

/* Enqueues built-in kernel @p name of @p family (dtype variant @p variant) on @p q (NULL: the
   calling thread's default queue of @p out's device) over @p n elements: the arguments, then
   n and chunk, with the work shaped for the device (see src/launch.c). */
ag_status ag__launch_elementwise(const char *fn, ag_queue *q, ag_device *dev, ag__family family,
                                 int variant, const char *name, size_t n, size_t nargs,
                                 const ag__op_arg *args);

/* Enqueues built-in kernel @p name over @p r with arguments already resolved, on queue @p q
   (resolved, not NULL); afterwards the @p ntouch buffers remember @p q as their last queue.
   A work-group size above the kernel's limit is lowered to it. */
ag_status ag__launch_builtin(const char *fn, ag_queue *q, ag_device *dev, ag__family family, int variant,
                             const char *name, const ag_range *r, size_t nargs, const ag__karg *args,
                             size_t ntouch, ag_buffer *const *touch);

#endif
