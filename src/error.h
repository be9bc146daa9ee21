/* src/error.h — the core's error and log helpers, declared in src/seam/shared.h with the log
   levels of backends/backend.h. */
#ifndef AG_SRC_ERROR_H
#define AG_SRC_ERROR_H

#ifdef AG_SCIENCE_LAYER
#error "src/error.h is the core's own: a scientific layer includes src/seam/seam.h instead"
#endif

#include "anygpu.h"
#include "../backends/backend.h"
#include "seam/shared.h" /* ag__error, ag__prefix, ag__log */

#endif
