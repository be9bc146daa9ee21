/* anygpu.h — the one header a user includes. anygpu runs one operation layer on NVIDIA, AMD
   and Intel GPUs and on the CPU; see docs/guide.md.

   Threads and ownership, the rules every header below follows (each header's first comment
   adds its own):
   - Every function may be called from any thread, several at once. What may not be shared
     is said where it applies: a queue made by ag_queue_create() is used by one thread at a
     time, and an object is destroyed or freed once, by one thread, when no other uses it.
   - Devices belong to the library and live for the whole process; nothing frees them.
   - What a call makes for the caller is released by its pair (docs/design.md, "Lifecycle
     verbs"): ag_buffer_alloc / ag_buffer_free, ag_host_alloc / ag_host_free, every function
     giving an ag_array / ag_array_free, ag_queue_create / ag_queue_destroy, ag_event_record /
     ag_event_destroy, ag_program_create / ag_program_destroy, ag_kernel_get /
     ag_kernel_destroy, ag_csr_create and ag_csr_create_from_coo / ag_csr_destroy,
     ag_template_library_create / ag_template_library_destroy. Releasing
     NULL is a no-op. An object may be released with work still enqueued on it, except memory
     from ag_host_alloc(): each release says what it waits for.
   - Pointers passed in are read during the call and not kept, unless the function says so
     (the host memory of the _async copies, the names of host kernels).
   - Strings returned are the library's, never freed by the caller, and static for the life
     of the process (ag_version, ag_status_name, ...), except ag_last_error() and
     ag_kernel_cache_dir(), which say how long theirs last. */
#ifndef ANYGPU_H
#define ANYGPU_H

#include "anygpu/defs.h"
#include "anygpu/version.h"
#include "anygpu/status.h"
#include "anygpu/device.h"
#include "anygpu/queue.h"
#include "anygpu/buffer.h"
#include "anygpu/program.h"
#include "anygpu/array.h"
#include "anygpu/ops.h"
#include "anygpu/blas.h"
#include "anygpu/fft.h"
#include "anygpu/sparse.h"
#include "anygpu/diffraction.h"
#include "anygpu/azint.h"
#include "anygpu/template.h"
#include "anygpu/split.h"
#include "anygpu/dlpack.h"
#include "anygpu/prox.h"
#include "anygpu/solvers.h"
#include "anygpu/learn.h"

#endif
