/* backends/opencl/vkfft_lib.h — VkFFT's types (its one header, OpenCL flavour) and the three
   entries of it that fft_vkfft.c calls. VkFFT's code itself is compiled once, in vkfft_lib.c:
   it is about 30,000 lines of kernel generator, and instrumenting it for the sanitizers takes
   minutes, so that file alone is built without them (meson.build). */
#ifndef ANYGPU_VKFFT_LIB_H
#define ANYGPU_VKFFT_LIB_H

#include "opencl_internal.h"

#ifndef VKFFT_BACKEND
#define VKFFT_BACKEND 3
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <vkFFT.h>
#pragma GCC diagnostic pop

/* initializeVkFFT, deleteVkFFT and VkFFTAppend. */
VkFFTResult ag__vkfft_initialize(VkFFTApplication *app, VkFFTConfiguration c);
void ag__vkfft_delete(VkFFTApplication *app);
VkFFTResult ag__vkfft_append(VkFFTApplication *app, int direction, VkFFTLaunchParams *lp);

#endif
