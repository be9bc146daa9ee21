/* src/seam/seam.h - all that a scientific layer (src/diffraction, src/solvers, src/learn) sees of
   the core besides the public headers include/anygpu/: the built-in kernels' launch, what a
   device's work looks like, the dtype checks with the library's messages, host doubles to and
   from arrays, and the shared declarations of src/seam/shared.h. The layers are built with
   AG_SCIENCE_LAYER defined and an include path of include/ and src/seam/ alone; the core's
   headers refuse them (docs/design.md, "The seam"). */
#ifndef AG_SEAM_SEAM_H
#define AG_SEAM_SEAM_H

#include "shared.h"
/* Launching the built-in kernels: struct ag__launch, AG__SHAPE_LAUNCHER, ag__launch_groups,
   ag__loop_items, ag__real_val. It includes src/seam/shared.h and kernels_shared/dialect.h
   alone, so it is part of the seam. */
#include "../launch.h"

/* ---- devices ------------------------------------------------------------------------------ */

/* @p dev's description, as ag_device_info gives it; valid while the library is loaded. */
const ag_device_info *ag__dev_info(const ag_device *dev);

/* Whether @p dev walks its items in chunks on CPU threads (the host, CPU OpenCL drivers), so
   that one work-item may take a long run of indices and a per-item scratch costs little; false
   on GPUs, which want many short work-items whose neighbours touch neighbouring addresses. */
bool ag__device_walks_in_chunks(const ag_device *dev);

/* ---- dtype checks ------------------------------------------------------------------------- */

/* The dtypes an operation takes, as ag__check_takes words them. */
typedef enum ag__takes {
  AG__TAKES_REAL,    /* f32 and f64 */
  AG__TAKES_FLOAT,   /* f32, f64, c64 and c128 */
  AG__TAKES_COMPLEX, /* c64 and c128 */
} ag__takes;

/* @p a (argument @p name of @p fn) is a usable array of one of the dtypes @p takes names, else
   AG_ERR_UNSUPPORTED with "fn: name is i32, which fn does not take (it takes f32 and f64)". It
   does not look at the device: ag__check_fp64 or ag__check_fp64_arg does. */
ag_status ag__check_takes(const char *fn, const char *name, const ag_array *a, ag__takes takes);

/* AG_ERR_UNSUPPORTED when @p dev cannot compute in @p t, naming what has that dtype: "fn: frames
   is f64, which needs double precision, which opencl:0 (name) lacks". */
ag_status ag__check_fp64_arg(const char *fn, const char *what, const ag_device *dev, ag_dtype t);

/* ---- host values -------------------------------------------------------------------------- */

/* @p n reals (2n for a complex @p t: re, im) of @p v in dtype @p t (a float or complex dtype), in
   a new host block the caller frees; NULL when the host is out of memory. */
void *ag__doubles_as(ag_dtype t, size_t n, const double *v);

/* @p v as a new array of float or complex dtype @p t on @p dev, of @p ndim dimensions @p shape
   (a complex element takes two doubles, re then im). Its messages name ag_array_from_host, or
   none: the caller puts its own name in front with ag__prefix. */
ag_status ag__array_from_doubles(ag_device *dev, ag_dtype t, int ndim, const size_t *shape,
                                 const double *v, ag_array **out);

/* @p a's values (float or complex) as doubles in a new host array the caller frees (NULL on
   failure), two per complex element; it waits for the work on a. Its messages name
   ag_array_to_host, or none, as ag__array_from_doubles's. */
ag_status ag__array_to_doubles(const ag_array *a, double **out);

/* ---- memory ------------------------------------------------------------------------------- */

/* Writes @p bytes of host memory @p src over @p a's first elements on queue @p q (NULL: the
   default queue), as ag_buffer_write on a's buffer from its first element does; @p a is not
   empty and holds at least that many bytes. Its messages name ag_buffer_write. */
ag_status ag__array_write_host(ag_queue *q, const ag_array *a, const void *src, size_t bytes);

/* Whether the elements of @p a and @p b share memory. */
bool ag__arrays_overlap(const ag_array *a, const ag_array *b);

#endif
