/* backends/host/host_internal.h - what the host backend's files share. */
#ifndef AG_HOST_INTERNAL_H
#define AG_HOST_INTERNAL_H

#include "../backend.h"

/* The core's services, as handed to the host backend's probe. */
const ag__core_services *ag__host_core(void);

/* Copies the value of the first "field : value" line of /proc/cpuinfo named @p field into
   @p out; leaves @p out alone when there is none (host.c). */
void ag__host_cpuinfo(const char *field, char *out, size_t size);

/* FFTW (fft.c). */
extern const ag__fft_ops ag__host_fft_ops;

#endif
