/* anygpu/split.h — one batch of independent items run over every device of a set, in one
   process: the way pyxem hands a lazy dataset's blocks to dask-cuda's GPU workers, without a
   scheduler of its own. docs/multi-device.md shows it in use and measures it.

   The batch is n items in host memory (a frame, a problem, a sample: each in_shape elements of
   in_dtype, stored one after the other) and gives n results (out_shape elements of out_dtype
   each). ag_split_run() cuts it into chunks of opt->chunk items and hands them out in order to
   the set's devices as each becomes free, so a faster device takes more chunks. Each device is
   driven by a thread of its own (the calling thread when the set has one device) with one queue for the chunks' work and a second for its
   transfers, into two device buffers in turn (double-buffered): the next chunk is copied in,
   and the last one's results copied out, while the device works on the current one.

   Per chunk, the caller's run() callback is called on the device's thread with the chunk's
   items already on the device (chunk->in) and a device array for its results (chunk->out),
   and enqueues the chunk's work on chunk->queue. Each item's result is then what that device
   computes for that item: with devices that compute alike (two pocl devices, two GPUs of one
   model) the results are identical to running the whole batch on one of them.

   Threads: the callbacks run on the set's threads, several at once (one per device), so what
   they share through @p user must be safe to use from several threads; what setup() makes
   per device is used by that device's thread alone. The call returns when every chunk's
   results are in @p out, or after the first failure. */
#ifndef ANYGPU_SPLIT_H
#define ANYGPU_SPLIT_H

#include "array.h"
#include "device.h"
#include "queue.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One chunk, as run() sees it. Everything in it is the split's, valid during the call. */
typedef struct ag_split_chunk {
  int device;          /* the device's index in the set */
  ag_device *dev;      /* that device */
  ag_queue *queue;     /* the device's queue for the chunks' work: enqueue on it */
  size_t first, count; /* the chunk is items [first, first + count) of the batch */
  const ag_array *in;  /* [count, in_shape...] on dev, the items copied in; NULL when the batch
                          has no input (in NULL) */
  ag_array *out;       /* [count, out_shape...] on dev, copied out once the work enqueued on
                          queue by run() is done; NULL when the batch has no output */
  void *state;         /* what setup() made for this device, else NULL */
} ag_split_chunk;

/** What a split runs. Zeroed, with run set and the shapes given, it is a valid default. */
typedef struct ag_split_options {
  ag_dtype in_dtype;                /* one input item: in_ndim (0 to AG_MAX_DIMS - 1) dims */
  int in_ndim;
  size_t in_shape[AG_MAX_DIMS];
  ag_dtype out_dtype;               /* one result: out_ndim (0 to AG_MAX_DIMS - 1) dims */
  int out_ndim;
  size_t out_shape[AG_MAX_DIMS];
  size_t chunk;                     /* items per chunk; 0: 16. The last chunk may be smaller. */

  /** Required: enqueue the chunk's work on chunk->queue. It may enqueue and return without
      waiting; it must not free chunk->in or chunk->out. A status other than AG_OK stops the
      split: no further chunk is started, and ag_split_run() returns that status. */
  ag_status (*run)(const ag_split_chunk *chunk, void *user);
  /** Optional: called once per device, on its thread, before its first chunk (an integrator,
      a plan, a device copy of shared data); *state goes to each of the device's chunks. A
      failure stops the split as run()'s does. */
  ag_status (*setup)(ag_device *dev, int device, void *user, void **state);
  /** Optional: called once per device whose setup() succeeded, after its last chunk's work
      and transfers are done (also after a failure), to release *state. */
  void (*teardown)(ag_device *dev, void *state, void *user);
  void *user;                       /* passed to the three callbacks */

  size_t *device_items;             /* optional, the set's count long: the items each device
                                       ran, written on return */
} ag_split_options;

/** Runs @p n items through @p opt->run over every device of @p set. @p in holds n input items
    (NULL: the batch has no input, and in_dtype, in_ndim and in_shape are not used); @p out
    receives n results (NULL: none are copied back, and out_dtype, out_ndim and out_shape are
    not used). Both are host memory of the caller's, borrowed for
    the call. n of 0 does nothing and succeeds (no callback is called).
    @return AG_ERR_INVALID_ARGUMENT for a NULL set, opt or run, a dtype outside ag_dtype, an
            ndim outside 0 to AG_MAX_DIMS - 1 or a zero dimension; AG_ERR_OUT_OF_RANGE when
            n times an item's bytes overflows; AG_ERR_OUT_OF_MEMORY; otherwise the first
            failure of a callback or of a device's copies, its message prefixed with
            "ag_split_run: device I (SPEC), items [A, B): " (SPEC as ag_device_info's spec;
            "..., setup: " for setup()). Results already copied out stay in @p out; which
            chunks ran before a failure is not defined. */
AG_API ag_status ag_split_run(const ag_device_set *set, size_t n, const void *in, void *out,
                              const ag_split_options *opt);

#ifdef __cplusplus
}
#endif

#endif
