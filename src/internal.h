/* src/internal.h — the core's objects behind the public handles, shared by src/ files. */
#ifndef AG_SRC_INTERNAL_H
#define AG_SRC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "anygpu.h"
#include "../backends/backend.h"
#include "builtin.h"
#include "error.h"

struct ag_device {
  const ag__backend *be;
  ag__bdevice *bdev;
  ag_device_info info;
  int index;                   /* position in enumeration order */
  pthread_mutex_t lock;        /* guards builtins */
  ag__builtin_slot builtins[AG__FAMILY_COUNT];
};

struct ag_queue {
  ag_device *dev;
  ag__bqueue *bq;
  bool is_default;             /* a thread's default queue, owned by the library */
};

struct ag_event {
  ag_device *dev;
  ag__bevent *bev;
};

struct ag_buffer {
  ag_device *dev;
  ag__bmem *mem;
  size_t size;
};

struct ag_program {
  ag_device *dev;
  ag__bprogram *bp;
  atomic_int kernels;          /* live kernels; a program with kernels is not destroyed */
};

struct ag_kernel {
  ag_program *prog;
  ag__bkernel *bk;
  size_t max_work_group;
  char name[];
};

/* src/registry.c */
ag_status ag__registry_init(void);   /* enumerates once; every public entry calls it first */
int ag__device_total(void);
ag_device *ag__device_at(int index);
const ag__core_services *ag__services(void);

/* src/queue.c: @p q, or the calling thread's default queue of @p dev when q is NULL. Checks
   that q belongs to dev. @p fn names the public function for messages. */
ag_status ag__queue_resolve(const char *fn, ag_queue *q, ag_device *dev, ag_queue **out);

/* src/cache.c: builds @p source for @p dev through the disk cache. */
ag_status ag__program_build_cached(ag_device *dev, const ag_program_desc *desc, const char *source,
                                   const char *options, ag__bprogram **out);

/* src/program.c: launch with arguments already resolved to backend handles. */
ag_status ag__launch_checked(const char *fn, ag_queue *q, ag_device *dev, ag__bkernel *bk,
                             size_t max_wg, const ag_range *range, size_t nargs,
                             const ag__karg *args);

#endif
