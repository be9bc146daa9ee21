/* backends/host/host_internal.h - what the host backend's files share. */
#ifndef AG_HOST_INTERNAL_H
#define AG_HOST_INTERNAL_H

#include "../backend.h"

/* The core's services, as handed to the host backend's probe. */
const ag__core_services *ag__host_core(void);

/* Copies the value of the first "field : value" line of /proc/cpuinfo named @p field into
   @p out; leaves @p out alone when there is none (host.c). */
void ag__host_cpuinfo(const char *field, char *out, size_t size);

/* The backend's threads (threads.c). ag__host_run runs @p fn on up to ag__host_threads()
   threads at once, the caller's among them; each call of fn claims chunks of @p chunk items of
   [0, n) with ag__host_claim until it returns false. It returns when every item is done. A
   job started while another thread's is running runs on the calling thread alone. */
typedef struct ag__host_job ag__host_job;
typedef void (*ag__host_job_fn)(void *ctx, ag__host_job *job);
int ag__host_threads(void);
void ag__host_run(size_t n, size_t chunk, ag__host_job_fn fn, void *ctx);
bool ag__host_claim(ag__host_job *job, size_t *begin, size_t *end);

/* FFTW (fft.c). */
extern const ag__fft_ops ag__host_fft_ops;

#endif
