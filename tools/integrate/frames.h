/* tools/integrate/frames.h — the frames anygpu-integrate reads: a .npy file of one frame
   [ny, nx] or a stack [n, ny, nx], or a dataset of an HDF5 file named FILE.h5:/path (2-D or
   3-D), read a batch of frames at a time so that a stack of any length needs memory for one
   batch only. Element types: u8, u16, u32, i32, f32, f64 (npy_dtype's).

   Errors are returned: each fallible function returns false with one line in @p err naming
   the file. Not thread-safe: one source per thread. */
#ifndef AG_TOOLS_FRAMES_H
#define AG_TOOLS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "npy.h"

typedef struct frame_source frame_source;

/** Opens @p spec: "PATH.npy", or "PATH:/dataset" for an HDF5 dataset (the part before the
    first ":/" is the file). */
bool frames_open(const char *spec, frame_source **out, char *err, size_t errlen);

/** The element type, the number of frames (1 for a 2-D array) and each frame's shape; the
    bytes of all the frames (n * ny * nx * element size) fit in a size_t. */
void frames_info(const frame_source *s, npy_dtype *dtype, size_t *n, size_t *ny, size_t *nx);

/** Whether the source is a stack [n, ny, nx] (3-D, even of one frame) rather than one frame. */
bool frames_is_stack(const frame_source *s);

/** Reads frames [first, first + count) into @p dst (count * ny * nx elements of the source's
    type, host byte order). */
bool frames_read(frame_source *s, size_t first, size_t count, void *dst, char *err, size_t errlen);

/** Closes @p s; NULL is a no-op. */
void frames_close(frame_source *s);

/** Whether HDF5 datasets can be read (the tool was built with libhdf5). */
bool frames_have_hdf5(void);

#endif
