/* tools/integrate/frames.h — the frames anygpu-integrate reads: a .npy file of one frame
   [ny, nx], or of frames after scan axes (a stack [n, ny, nx], a 4D-STEM scan [s1, s2, ny, nx],
   up to FRAMES_MAX_SCAN_AXES of them), or a dataset of an HDF5 file named FILE.h5:/path (the
   same shapes), read a batch of frames at a time, in C order, so that a stack of any length
   needs memory for one batch only. Element types: u8, u16, u32, i32, f32, f64 (npy_dtype's).

   Errors are returned: each fallible function returns false with one line in @p err naming
   the file. Not thread-safe: one source per thread. */
#ifndef AG_TOOLS_FRAMES_H
#define AG_TOOLS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "npy.h"

typedef struct frame_source frame_source;

/** The most scan axes before a frame's two: the outputs add one or two axes to them and are
    .npy files of at most NPY_MAX_DIMS. */
#define FRAMES_MAX_SCAN_AXES (NPY_MAX_DIMS - 2)

/** Opens @p spec: "PATH.npy", or "PATH:/dataset" for an HDF5 dataset (the part before the
    first ":/" is the file). */
bool frames_open(const char *spec, frame_source **out, char *err, size_t errlen);

/** The element type, the number of frames (1 for a 2-D array, the product of the scan axes
    otherwise) and each frame's shape; the bytes of all the frames (n * ny * nx * element
    size) fit in a size_t. */
void frames_info(const frame_source *s, npy_dtype *dtype, size_t *n, size_t *ny, size_t *nx);

/** Whether the source has scan axes (3-D or more, even of one frame) rather than one frame. */
bool frames_is_stack(const frame_source *s);

/** The scan axes before each frame's two, into @p scan (FRAMES_MAX_SCAN_AXES long); how many
    (0 for one frame). */
int frames_scan_axes(const frame_source *s, size_t *scan);

/** Reads frames [first, first + count) into @p dst (count * ny * nx elements of the source's
    type, host byte order). */
bool frames_read(frame_source *s, size_t first, size_t count, void *dst, char *err, size_t errlen);

/** Closes @p s; NULL is a no-op. */
void frames_close(frame_source *s);

/** Whether HDF5 datasets can be read (the tool was built with libhdf5). */
bool frames_have_hdf5(void);

#endif
