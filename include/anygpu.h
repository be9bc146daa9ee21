/* anygpu.h — the one header a user includes. anygpu runs one operation layer on NVIDIA, AMD
   and Intel GPUs and on the CPU; see docs/guide.md. */
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

#endif
