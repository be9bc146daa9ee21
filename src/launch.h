/* src/launch.h - enqueuing the built-in kernels. Each kernel shape's parameter list is
   written once, at the top of its family source (the AG_SHAPE_ lists in
   kernels_shared/<family>.h); AG__SHAPE_LAUNCHER makes from it the function the op layer calls,
   so the op layer passes a kernel exactly the arguments its OpenCL, CUDA and host forms take,
   in their order, or does not compile. */
#ifndef AG_SRC_LAUNCH_H
#define AG_SRC_LAUNCH_H

#include "seam/shared.h" /* struct ag_array, ag__family; nothing of the core's own */
#include "../kernels_shared/dialect.h" /* ag_u32, ag_u64: the fixed types the lists name */

/* A value whose type the kernel's dtype decides (an element, a real parameter): its bytes. */
typedef struct ag__val {
  const void *bytes;
  size_t size;
} ag__val;

/* @p value as a kernel value in the real precision of dtype @p t (f32 for f32 and c64, f64
   for the others), its bytes written to @p bytes (8 of them), which must outlive the launch. */
ag__val ag__real_val(ag_dtype t, double value, void *bytes);

/* One argument: an array (its buffer, then the offset of its first element), a whole buffer,
   or a value. */
typedef struct ag__op_arg {
  const ag_array *array;
  ag_buffer *buffer;
  ag__val value;
} ag__op_arg;

/* How a kernel covers its n indices (kernels_shared/skeleton_gpu.h): AG_EW, AG_ITEMS or
   AG_GROUPS. */
typedef enum ag__form { AG__FORM_EW, AG__FORM_ITEMS, AG__FORM_GROUPS } ag__form;

/* Which built-in kernel to launch, on what and how. */
typedef struct ag__launch {
  const char *fn;        /* the public function, for messages */
  ag_queue *q;           /* NULL: the calling thread's default queue of dev */
  ag_device *dev;
  ag__family family;
  int variant;           /* the dtype code of a per-dtype family */
  const char *kernel;    /* "ag_add_f32" */
  ag__form form;
  /* AG_ITEMS and AG_GROUPS: the range, its work-groups lowered to the kernel's limit; NULL
     for one work-item per index (AG_ITEMS) or one work-group of up to 256 per index
     (AG_GROUPS). AG_EW: ignored, the launch is shaped for the device. */
  const ag_range *range;
  uint64_t n;            /* elements, items or groups; 0 launches nothing */
} ag__launch;

/* Enqueues l->kernel with @p args, then n (and an elementwise kernel's chunk); afterwards the
   arrays' and buffers' memory remembers the queue. Use a shape's launcher rather than this. */
ag_status ag__launch_kernel(const ag__launch *l, size_t nargs, const ag__op_arg *args);

/* A list's parameters as the op layer passes them: arrays and buffers by handle, values of a
   fixed type (ag_u64) as that type, values of the kernel's element types as ag__val. */
#define AG__LAUNCH_ARRAY(TY, name) , const ag_array *name
#define AG__LAUNCH_VALUE(TY, name) , TY name
#define AG__LAUNCH_BUFFER(TY, name) , ag_buffer *name
#define AG__PUT_ARRAY(TY, name) {.array = (name)},
#define AG__PUT_VALUE(TY, name)                                                                 \
  {.value = _Generic((name), ag__val: (name), default: (ag__val){&(name), sizeof(name)})},
#define AG__PUT_BUFFER(TY, name) {.buffer = (name)},
#define AG__LAUNCH_PARAMS(SHAPE) SHAPE(AG__LAUNCH_ARRAY, AG__LAUNCH_VALUE, AG__LAUNCH_BUFFER, ag__val, ag__val, ag__val)
#define AG__LAUNCH_ARGS(SHAPE) SHAPE(AG__PUT_ARRAY, AG__PUT_VALUE, AG__PUT_BUFFER, ag__val, ag__val, ag__val)

/* Defines `static ag_status NAME(const ag__launch *l, <SHAPE's parameters>)`, which launches
   l->kernel with them. */
#define AG__SHAPE_LAUNCHER(NAME, SHAPE)                                                         \
  static ag_status NAME(const ag__launch *l AG__LAUNCH_PARAMS(SHAPE)) {                         \
    const ag__op_arg args[] = {AG__LAUNCH_ARGS(SHAPE)};                                         \
    return ag__launch_kernel(l, sizeof args / sizeof args[0], args);                            \
  }

/* Shapes @p l (its kernel, family, variant and n set) as a work-group per index, AG_GROUPS:
   groups of @p want items, halved to the kernel's limit, at most 2^24 of them (the kernel's
   loop over groups takes the indices beyond); @p range holds the shape and l->range points at
   it. */
ag_status ag__launch_groups(ag__launch *l, size_t want, ag_range *range);

/* The fewest work-items that share @p steps iterations of a loop when no work-item may run
   more than the device's loop limit (ag_device_info.max_loop_iterations); 1 on devices
   without a limit. */
uint64_t ag__loop_items(const ag_device *dev, uint64_t steps);

#endif
