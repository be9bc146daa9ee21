/* src/launch.h - enqueuing the built-in kernels, each named by its id (kernel_ids.h, which
   the build makes from the family sources, so a misspelt kernel does not compile). Each kernel
   shape's parameter list is written once, at the top of its family source (the AG_SHAPE_ lists
   in kernels_shared/<family>.h); AG__SHAPE_LAUNCHER makes from it a struct of named fields and
   the function the op layer calls, so the op layer passes a kernel exactly the arguments its
   OpenCL, CUDA and host forms take, each by its name, or does not compile. */
#ifndef AG_SRC_LAUNCH_H
#define AG_SRC_LAUNCH_H

#include "seam/shared.h" /* struct ag_array, ag__family; nothing of the core's own */
#include "../kernels_shared/dialect.h" /* ag_u32, ag_u64: the fixed types the lists name */
#include "kernel_ids.h"                  /* made by the build: tools/kernel_ids.py */

/* A value whose type the kernel's dtype decides (an element, a real parameter): its bytes. */
typedef struct ag__val {
  const void *bytes;
  size_t size;
} ag__val;

/* @p value as a kernel value in the real precision of dtype @p t (f32 for f32 and c64, f64
   for the others), its bytes written to @p bytes (8 of them), which must outlive the launch. */
ag__val ag__real_val(ag_dtype t, double value, void *bytes);

/* How a parameter is passed: an array (its buffer, then the offset of its first element), a
   whole buffer, or a value. */
typedef enum ag__param_kind { AG__PARAM_ARRAY, AG__PARAM_BUFFER, AG__PARAM_VALUE } ag__param_kind;

/* One argument, with its parameter's name for messages. */
typedef struct ag__op_arg {
  const char *param;
  ag__param_kind kind;
  const ag_array *array;
  ag_buffer *buffer;
  ag__val value;
} ag__op_arg;

/* How a kernel covers its n indices (kernels_shared/skeleton_gpu.h): AG_EW, AG_ITEMS (or
   AG_CPU_ITEMS, launched as AG_ITEMS on CPU devices only) or AG_GROUPS. The build knows each
   kernel's (ag__kernel_info.form); a launch need not say it. */
typedef enum ag__form { AG__FORM_EW, AG__FORM_ITEMS, AG__FORM_CPU_ITEMS, AG__FORM_GROUPS } ag__form;

/* Which built-in kernel to launch, on what and how. */
typedef struct ag__launch {
  const char *fn;        /* the public function, for messages */
  ag_queue *q;           /* NULL: the calling thread's default queue of dev */
  ag_device *dev;
  /* The kernel's id (kernel_ids.h, made by the build from the family sources): AG_K_ADD +
     x->dtype for a per-dtype family's kernel, AG_K_FILL_WORDS for one built once. */
  ag__kernel_id kernel;
  /* AG_ITEMS and AG_GROUPS: the range, its work-groups lowered to the kernel's limit; NULL
     for one work-item per index (AG_ITEMS) or one work-group of up to 256 per index
     (AG_GROUPS). AG_EW: ignored, the launch is shaped for the device. */
  const ag_range *range;
  uint64_t n;            /* elements, items or groups; 0 launches nothing */
} ag__launch;

/* Enqueues l->kernel with @p args, then n (and an elementwise kernel's chunk); afterwards the
   arrays' and buffers' memory remembers the queue. Use a shape's launcher rather than this. */
ag_status ag__launch_kernel(const ag__launch *l, size_t nargs, const ag__op_arg *args);

/* A list's parameters as fields of its launcher's struct: arrays and buffers by handle,
   values of a fixed type (ag_u64) as that type, values of the kernel's element types as
   ag__val. */
#define AG__FIELD_ARRAY(TY, name) const ag_array *name;
#define AG__FIELD_VALUE(TY, name) TY name;
#define AG__FIELD_BUFFER(TY, name) ag_buffer *name;
#define AG__PUT_ARRAY(TY, nm) {.param = #nm, .kind = AG__PARAM_ARRAY, .array = p->nm},
#define AG__PUT_VALUE(TY, nm)                                                                   \
  {.param = #nm, .kind = AG__PARAM_VALUE,                                                       \
   .value = _Generic(p->nm, ag__val: p->nm, default: (ag__val){&p->nm, sizeof p->nm})},
#define AG__PUT_BUFFER(TY, nm) {.param = #nm, .kind = AG__PARAM_BUFFER, .buffer = p->nm},
#define AG__LAUNCH_FIELDS(SHAPE) SHAPE(AG__FIELD_ARRAY, AG__FIELD_VALUE, AG__FIELD_BUFFER, ag__val, ag__val, ag__val)
#define AG__LAUNCH_ARGS(SHAPE) SHAPE(AG__PUT_ARRAY, AG__PUT_VALUE, AG__PUT_BUFFER, ag__val, ag__val, ag__val)

/* Defines the struct NAME_params, one field per parameter of SHAPE named as the list names
   it, and `static ag_status NAME(const ag__launch *l, const NAME_params *p)`, which launches
   l->kernel with them. Call it through AG__LAUNCH, which fills the struct by field name:

     AG__LAUNCH(launch_binary, &l, .a = a, .b = b, .out = out)

   so that two arguments of one type cannot trade places unseen. A parameter left out is an
   error at launch naming it (an array, a buffer, an element value), or 0 (a fixed-type value). */
#define AG__SHAPE_LAUNCHER(NAME, SHAPE)                                                         \
  typedef struct NAME##_params {                                                                \
    AG__LAUNCH_FIELDS(SHAPE)                                                                    \
  } NAME##_params;                                                                              \
  static ag_status NAME(const ag__launch *l, const NAME##_params *p) {                         \
    const ag__op_arg args[] = {AG__LAUNCH_ARGS(SHAPE)};                                         \
    return ag__launch_kernel(l, sizeof args / sizeof args[0], args);                            \
  }
#define AG__LAUNCH(NAME, L, ...) NAME((L), &(const NAME##_params){__VA_ARGS__})

/* Shapes @p l (its kernel and n set) as a work-group per index, AG_GROUPS:
   groups of @p want items, halved to the kernel's limit, at most 2^24 of them (the kernel's
   loop over groups takes the indices beyond); @p range holds the shape and l->range points at
   it. */
ag_status ag__launch_groups(ag__launch *l, size_t want, ag_range *range);

/* The largest work-group kernel l->kernel takes on l->dev, in *max_wg (building its family on
   first use). */
ag_status ag__launch_max_work_group(const ag__launch *l, size_t *max_wg);

/* The first id of the elementwise family's conversions to dtype @p to, one per dtype of
   the source: ag__astype_kernel(AG_F64) + AG_F32 is ag_astype_f32_f64. */
ag__kernel_id ag__astype_kernel(ag_dtype to);

/* The fewest work-items that share @p steps iterations of a loop when no work-item may run
   more than the device's loop limit (ag_device_info.max_loop_iterations); 1 on devices
   without a limit. */
uint64_t ag__loop_items(const ag_device *dev, uint64_t steps);

#endif
