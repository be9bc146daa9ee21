/* tools/integrate/frames.c — .npy and HDF5 frame sources (frames.h). */
#include "frames.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"

#ifdef AG_HAVE_HDF5
#include <hdf5.h>
#endif

struct frame_source {
  npy_dtype dtype;
  size_t n, ny, nx;
  bool stack;                         /* 3-D or more */
  int nscan;                          /* the scan axes before each frame's two */
  size_t scan[FRAMES_MAX_SCAN_AXES];
  char *name; /* for messages */
  FILE *npy;  /* at the data's start + `at` bytes; NULL for HDF5 */
  size_t at;  /* bytes of data read so far */
#ifdef AG_HAVE_HDF5
  hid_t file, dset, mem_type;
  /* An optional filter HDF5 cannot load, which the first chunk was stored without: what a
     read that fails says ("HDF5 filter 32001 (Blosc), which ..."); "" when there is none. */
  char missing_filter[600];
#endif
};


/* The frame count and shape of an array of @p ndim dimensions: a frame [ny, nx] after any
   scan axes (a stack [n, ny, nx], a 4D-STEM scan [s1, s2, ny, nx]), each kept for the outputs,
   which add one or two axes and must fit a .npy's NPY_MAX_DIMS. */
static bool take_shape(frame_source *s, int ndim, const size_t *shape, char *err, size_t errlen) {
  if (ndim < 2 || ndim - 2 > FRAMES_MAX_SCAN_AXES)
    return fail(err, errlen, "%s: has %d dimensions; a frame [ny, nx] after at most %d scan axes has 2 to %d",
                s->name, ndim, FRAMES_MAX_SCAN_AXES, FRAMES_MAX_SCAN_AXES + 2);
  s->stack = ndim > 2;
  s->nscan = ndim - 2;
  s->n = 1;
  for (int k = 0; k < s->nscan; k++) {
    s->scan[k] = shape[k];
    if (shape[k] != 0 && s->n > SIZE_MAX / shape[k])
      return fail(err, errlen, "%s: its scan axes hold more frames than a size_t counts", s->name);
    s->n *= shape[k];
  }
  s->ny = shape[ndim - 2];
  s->nx = shape[ndim - 1];
  if (s->ny == 0 || s->nx == 0)
    return fail(err, errlen, "%s: its frames are empty (%zu x %zu)", s->name, s->ny, s->nx);
  return true;
}

static bool little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

static bool open_npy(frame_source *s, const char *path, char *err, size_t errlen) {
  /* Frames go from the file to the device as they are: .npy data is little-endian. */
  if (!little_endian())
    return fail(err, errlen, "%s: reading .npy frames needs a little-endian host", path);
  npy_array meta;
  if (!npy_open(path, &meta, &s->npy, err, errlen))
    return false;
  s->dtype = meta.dtype;
  return take_shape(s, meta.ndim, meta.shape, err, errlen);
}

#ifdef AG_HAVE_HDF5
/* The npy_dtype and native memory type of an HDF5 dataset's type; false for others. */
static bool hdf5_type(hid_t t, npy_dtype *dt, hid_t *mem) {
  H5T_class_t c = H5Tget_class(t);
  size_t size = H5Tget_size(t);
  if (c == H5T_INTEGER) {
    H5T_sign_t sign = H5Tget_sign(t);
    if (sign == H5T_SGN_NONE && size == 1)
      return *dt = NPY_U1, *mem = H5T_NATIVE_UINT8, true;
    if (sign == H5T_SGN_NONE && size == 2)
      return *dt = NPY_U2, *mem = H5T_NATIVE_UINT16, true;
    if (sign == H5T_SGN_NONE && size == 4)
      return *dt = NPY_U4, *mem = H5T_NATIVE_UINT32, true;
    if (sign == H5T_SGN_2 && size == 4)
      return *dt = NPY_I4, *mem = H5T_NATIVE_INT32, true;
  } else if (c == H5T_FLOAT) {
    if (size == 4)
      return *dt = NPY_F4, *mem = H5T_NATIVE_FLOAT, true;
    if (size == 8)
      return *dt = NPY_F8, *mem = H5T_NATIVE_DOUBLE, true;
  }
  return false;
}

/* Debian's packages of the HDF5 filter plugins that detector files use, by filter id (the
   HDF Group's registry of filter ids): the message for a missing filter names the package that
   brings it. Debian's libhdf5 looks in its own plugin folder without HDF5_PLUGIN_PATH. */
static const struct {
  H5Z_filter_t id;
  const char *name, *package;
} known_filters[] = {
    {307, "bzip2", "hdf5-filter-plugin"},
    {32000, "LZF", "hdf5-plugin-lzf"},
    {32001, "Blosc", "hdf5-filter-plugin-blosc-serial"},
    {32004, "LZ4", "hdf5-filter-plugin"},
    {32008, "bitshuffle", "bitshuffle"},
    {32013, "zfp", "hdf5-filter-plugin-zfp-serial"},
};

/* Up to @p len bytes of HDF5's plugin search path, folders separated by ':'. */
static void plugin_path(char *out, size_t len) {
  size_t used = 0;
  unsigned n = 0;
  out[0] = '\0';
  if (H5PLsize(&n) < 0)
    return;
  for (unsigned i = 0; i < n && used + 2 < len; i++) {
    if (i > 0)
      out[used++] = ':';
    ssize_t got = H5PLget(i, out + used, len - used);
    if (got < 0)
      break;
    used += (size_t)got < len - used ? (size_t)got : len - used - 1;
  }
  out[used] = '\0';
}

/* Whether filter @p i of the dataset's pipeline compressed its first chunk. HDF5 stores a chunk
   that an optional filter could not shrink (or could not run on, its plugin missing when the
   file was written) without it, and says so in the chunk's filter mask; true when that cannot
   be told, or there is no chunk yet. */
static bool first_chunk_filtered(hid_t dset, int i) {
  hsize_t chunks = 0, offset[H5S_MAX_RANK], size = 0;
  unsigned mask = 0;
  haddr_t addr;
  /* HDF5 1.10 takes the dataset's dataspace here, not H5S_ALL. */
  hid_t space = H5Dget_space(dset);
  if (space < 0)
    return true;
  herr_t st = H5Dget_num_chunks(dset, space, &chunks);
  if (st >= 0 && chunks > 0)
    st = H5Dget_chunk_info(dset, space, 0, offset, &mask, &addr, &size);
  H5Sclose(space);
  if (st < 0)
    return true;
  return chunks > 0 && (mask & (1u << i)) == 0;
}

/* Refuses a dataset whose filter pipeline (compression) holds a filter this HDF5 cannot decode:
   a missing plugin would otherwise fail at the first read, saying only which frames. An
   optional filter (as h5py marks every compression) is refused too when it compressed the
   first chunk; one that did not, the file written where the plugin was missing, leaves the
   chunks readable, and is named only if a read fails (s->missing_filter). */
static bool check_filters(frame_source *s, char *err, size_t errlen) {
  hid_t dcpl = H5Dget_create_plist(s->dset);
  if (dcpl < 0)
    return fail(err, errlen, "%s: its creation properties (compression) cannot be read", s->name);
  int n = H5Pget_nfilters(dcpl);
  bool ok = n >= 0 ? true : fail(err, errlen, "%s: its filters (compression) cannot be read", s->name);
  for (int i = 0; ok && i < n; i++) {
    unsigned flags = 0, config = 0;
    size_t nvalues = 0;
    char stored[80] = "";
    H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nvalues, NULL, sizeof stored, stored, &config);
    if (id < 0) {
      ok = fail(err, errlen, "%s: its filter %d (compression) cannot be read", s->name, i);
      break;
    }
    /* H5Zfilter_avail loads the filter's plugin when it is not registered yet. */
    htri_t avail = H5Zfilter_avail(id);
    unsigned info = 0;
    if (avail > 0 && H5Zget_filter_info(id, &info) >= 0 && (info & H5Z_FILTER_CONFIG_DECODE_ENABLED) != 0)
      continue;
    const char *name = NULL, *package = NULL;
    for (size_t k = 0; k < sizeof known_filters / sizeof known_filters[0]; k++)
      if (known_filters[k].id == id) {
        name = known_filters[k].name;
        package = known_filters[k].package;
      }
    if (name == NULL) {
      /* The name the writer stored, printable ASCII only: it came from the file. */
      for (char *c = stored; *c != '\0'; c++)
        if (*c < ' ' || *c > '~')
          *c = '?';
      name = stored[0] != '\0' ? stored : "unnamed";
    }
    char what[sizeof s->missing_filter];
    if (avail > 0) {
      snprintf(what, sizeof what, "HDF5 filter %d (%s), which this HDF5 can encode but not decode", (int)id, name);
    } else {
      char path[400];
      plugin_path(path, sizeof path);
      if (package != NULL)
        snprintf(what, sizeof what,
                 "HDF5 filter %d (%s), which HDF5 cannot load: install Debian's package %s (HDF5 looks for "
                 "filter plugins in %s)",
                 (int)id, name, package, path);
      else
        snprintf(what, sizeof what,
                 "HDF5 filter %d (%s), which HDF5 cannot load: install its plugin (HDF5 looks for filter plugins "
                 "in %s)",
                 (int)id, name, path);
    }
    if ((flags & H5Z_FLAG_OPTIONAL) == 0 || first_chunk_filtered(s->dset, i))
      ok = fail(err, errlen, "%s: is compressed with %s", s->name, what);
    else if (s->missing_filter[0] == '\0')
      memcpy(s->missing_filter, what, sizeof what);
  }
  H5Pclose(dcpl);
  return ok;
}

/* Refuses a dataset whose bytes do not fit in a size_t, as the .npy reader does: HDF5 stores a
   dataspace of any size (chunks never written take no room), and a batch of frames is sized
   as count * ny * nx * element size. */
static bool check_bytes(const frame_source *s, char *err, size_t errlen) {
  size_t bytes = npy_dtype_size(s->dtype);
  const size_t dims[3] = {s->ny, s->nx, s->n};
  for (int d = 0; d < 3; d++) {
    if (dims[d] != 0 && bytes > SIZE_MAX / dims[d])
      return fail(err, errlen, "%s: %zu frames of %zu x %zu elements are too large to address", s->name, s->n, s->ny,
                  s->nx);
    bytes *= dims[d];
  }
  return true;
}

static bool open_hdf5(frame_source *s, const char *file, const char *dataset, char *err, size_t errlen) {
  s->file = s->dset = H5I_INVALID_HID;
  /* HDF5 prints a trace of every failure on stderr by default; the messages here say it. */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  FILE *probe = fopen(file, "rb");
  if (probe == NULL)
    return fail(err, errlen, "%s: cannot open: %s", file, strerror(errno));
  fclose(probe);
  s->file = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (s->file < 0)
    return fail(err, errlen, "%s: cannot be opened as an HDF5 file", file);
  if (H5Lexists(s->file, dataset, H5P_DEFAULT) <= 0 || (s->dset = H5Dopen2(s->file, dataset, H5P_DEFAULT)) < 0)
    return fail(err, errlen, "%s: has no dataset %s", file, dataset);
  if (!check_filters(s, err, errlen))
    return false;
  hid_t type = H5Dget_type(s->dset), space = H5Dget_space(s->dset);
  bool ok = type >= 0 && space >= 0;
  if (ok && !hdf5_type(type, &s->dtype, &s->mem_type))
    ok = fail(err, errlen, "%s: its elements are not u8, u16, u32, i32, f32 or f64", s->name);
  int ndim = ok ? H5Sget_simple_extent_ndims(space) : -1;
  hsize_t dims[FRAMES_MAX_SCAN_AXES + 2] = {0};
  if (ok && (ndim < 2 || ndim > FRAMES_MAX_SCAN_AXES + 2))
    ok = fail(err, errlen, "%s: has %d dimensions; a frame [ny, nx] after at most %d scan axes has 2 to %d",
              s->name, ndim, FRAMES_MAX_SCAN_AXES, FRAMES_MAX_SCAN_AXES + 2);
  if (ok && H5Sget_simple_extent_dims(space, dims, NULL) != ndim)
    ok = fail(err, errlen, "%s: its shape cannot be read", s->name);
  if (ok) {
    size_t shape[FRAMES_MAX_SCAN_AXES + 2];
    for (int k = 0; k < ndim; k++)
      shape[k] = (size_t)dims[k];
    ok = take_shape(s, ndim, shape, err, errlen);
  }
  if (ok)
    ok = check_bytes(s, err, errlen);
  if (type >= 0)
    H5Tclose(type);
  if (space >= 0)
    H5Sclose(space);
  return ok;
}

/* HDF5's own words for its last failure: the description of the innermost error on this
   thread's error stack (where the failure was first seen), after ": ", or "" when there is
   none; printable ASCII only, since it may quote the file (a filter's name). A successful
   HDF5 call clears the stack: take it before the next one. */
enum { HDF5_REASON_LEN = 160 };

static herr_t take_innermost(unsigned n, const H5E_error2_t *e, void *reason) {
  if (n != 0 || e->desc == NULL)
    return 0;
  char *r = reason;
  snprintf(r, HDF5_REASON_LEN, ": %s", e->desc);
  for (; *r != '\0'; r++)
    if (*r < ' ' || *r > '~')
      *r = '?';
  return 0;
}

/* Selects frames [first, first + count) of @p space: one hyperslab along the first axis of a
   stack, and the union of one per frame (in frame order, which is the dataset's) when there
   are more scan axes. */
static bool select_frames(const frame_source *s, hid_t space, size_t first, size_t count) {
  int nd = s->nscan + 2;
  hsize_t start[FRAMES_MAX_SCAN_AXES + 2] = {0}, cnt[FRAMES_MAX_SCAN_AXES + 2];
  for (int k = 0; k < nd; k++)
    cnt[k] = 1;
  cnt[nd - 2] = s->ny;
  cnt[nd - 1] = s->nx;
  if (s->nscan <= 1) {
    if (s->nscan == 1)
      start[0] = first, cnt[0] = count;
    return H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0;
  }
  for (size_t f = first; f < first + count; f++) {
    size_t rest = f;
    for (int k = s->nscan - 1; k >= 0; k--) {
      start[k] = rest % s->scan[k];
      rest /= s->scan[k];
    }
    if (H5Sselect_hyperslab(space, f == first ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL, cnt, NULL) < 0)
      return false;
  }
  return true;
}

static bool read_hdf5(frame_source *s, size_t first, size_t count, void *dst, char *err, size_t errlen) {
  char why[HDF5_REASON_LEN] = "";
  hid_t mem = H5I_INVALID_HID, space = H5Dget_space(s->dset);
  bool ok = false;
  if (space < 0)
    goto done;
  hsize_t cnt[3] = {count, s->ny, s->nx};
  mem = H5Screate_simple(3, cnt, NULL);
  if (mem < 0)
    goto done;
  if (!select_frames(s, space, first, count))
    goto done;
  herr_t st = H5Dread(s->dset, s->mem_type, mem, space, H5P_DEFAULT, dst);
  if (st < 0)
    goto done;
  ok = true;
done:
  if (!ok)
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, why);
  if (mem >= 0)
    H5Sclose(mem);
  if (space >= 0)
    H5Sclose(space);
  if (ok)
    return true;
  if (s->missing_filter[0] != '\0')
    return fail(err, errlen, "%s: frames %zu to %zu cannot be read: they need %s", s->name, first, first + count - 1,
                s->missing_filter);
  return fail(err, errlen, "%s: frames %zu to %zu cannot be read%s", s->name, first, first + count - 1, why);
}
#endif

bool frames_have_hdf5(void) {
#ifdef AG_HAVE_HDF5
  return true;
#else
  return false;
#endif
}

bool frames_open(const char *spec, frame_source **out, char *err, size_t errlen) {
  *out = NULL;
  frame_source *s = calloc(1, sizeof *s);
  if (s == NULL || (s->name = strdup(spec)) == NULL) {
    free(s);
    return fail(err, errlen, "%s: no memory", spec);
  }
#ifdef AG_HAVE_HDF5
  s->file = s->dset = H5I_INVALID_HID;
#endif
  const char *colon = strstr(spec, ":/");
  bool ok;
  if (colon == NULL) {
    ok = open_npy(s, spec, err, errlen);
  } else {
#ifdef AG_HAVE_HDF5
    char *file = strndup(spec, (size_t)(colon - spec));
    ok = file != NULL ? open_hdf5(s, file, colon + 1, err, errlen) : fail(err, errlen, "%s: no memory", spec);
    free(file);
#else
    ok = fail(err, errlen, "%s: this anygpu-integrate was built without HDF5 (libhdf5-dev)", spec);
#endif
  }
  if (!ok) {
    frames_close(s);
    return false;
  }
  *out = s;
  return true;
}

void frames_info(const frame_source *s, npy_dtype *dtype, size_t *n, size_t *ny, size_t *nx) {
  *dtype = s->dtype;
  *n = s->n;
  *ny = s->ny;
  *nx = s->nx;
}

bool frames_is_stack(const frame_source *s) { return s->stack; }

int frames_scan_axes(const frame_source *s, size_t *scan) {
  for (int k = 0; k < s->nscan; k++)
    scan[k] = s->scan[k];
  return s->nscan;
}

bool frames_read(frame_source *s, size_t first, size_t count, void *dst, char *err, size_t errlen) {
  if (first > s->n || count > s->n - first)
    return fail(err, errlen, "%s: frames %zu to %zu are past its %zu", s->name, first, first + count, s->n);
  if (count == 0)
    return true;
#ifdef AG_HAVE_HDF5
  if (s->npy == NULL)
    return read_hdf5(s, first, count, dst, err, errlen);
#endif
  size_t frame = s->ny * s->nx * npy_dtype_size(s->dtype), want = first * frame;
  if (want != s->at) {
    npy_array meta;
    FILE *f;
    /* Frames are read in order; another start reopens the file at its data. */
    if (!npy_open(s->name, &meta, &f, err, errlen))
      return false;
    fclose(s->npy);
    s->npy = f;
    s->at = 0;
    if (want > 0 && fseek(s->npy, (long)want, SEEK_CUR) != 0)
      return fail(err, errlen, "%s: cannot seek to frame %zu: %s", s->name, first, strerror(errno));
    s->at = want;
  }
  size_t bytes = count * frame, got = fread(dst, 1, bytes, s->npy);
  s->at += got;
  if (got != bytes)
    return fail(err, errlen, "%s: is cut short at frame %zu", s->name, first + got / frame);
  return true;
}

void frames_close(frame_source *s) {
  if (s == NULL)
    return;
  if (s->npy != NULL)
    fclose(s->npy);
#ifdef AG_HAVE_HDF5
  if (s->dset >= 0)
    H5Dclose(s->dset);
  if (s->file >= 0)
    H5Fclose(s->file);
#endif
  free(s->name);
  free(s);
}
