/* fuzz/hdf5.c — anygpu-integrate's HDF5 frame reading (tools/integrate/frames.c) on datasets
   the input describes: each run writes a valid HDF5 file with libhdf5 (element type and byte
   order, rank and dimensions up to 2^63, contiguous, compact or chunked storage, filters
   present and missing, the dataset's path, a group or links in its place, data or the fill
   value), then reads it as anygpu-integrate does. What frames_open accepts must have the
   dataset's shape, and every frame read must be the data written. The file's bytes are not
   mutated: libhdf5's decoding of damaged files is fuzz/hdf5_file.c's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "hdf5_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input, taken a byte at a time; zeros once it runs out. */
typedef struct input {
  const uint8_t *p;
  size_t n;
} input;

static unsigned take(input *in, unsigned range) {
  if (in->n == 0)
    return 0;
  in->n--;
  return *in->p++ % range;
}

/* Data is written to a dataset of at most MAX_DATA bytes in at most MAX_CHUNKS chunks: libhdf5
   takes some 50 us a chunk under AddressSanitizer with the slow unwinder (hdf5_target.c). */
enum { MAX_RANK = 4, MAX_DATA = 1 << 16, MAX_CHUNKS = 256 };

/* A dimension: mostly 0 to 6, sometimes one past what memory or size_t holds. */
static hsize_t take_dim(input *in) {
  static const hsize_t large[] = {1u << 20, (hsize_t)1 << 31, ((hsize_t)1 << 32) + 1, (hsize_t)1 << 40,
                                  (hsize_t)1 << 62, (hsize_t)1 << 63, 3, 1};
  unsigned b = take(in, 256);
  return b < 248 ? b % 7 : large[b - 248];
}

/* The element type stored, and the host type with which its data is written: the same class,
   size and sign, in the host's byte order (the one frames.c reads with, where it reads it). */
static void take_type(input *in, hid_t *file_type, hid_t *mem_type) {
  const hid_t types[][2] = {
      {H5T_STD_U8LE, H5T_NATIVE_UINT8},       {H5T_STD_U16LE, H5T_NATIVE_UINT16},
      {H5T_STD_U16BE, H5T_NATIVE_UINT16},     {H5T_STD_U32LE, H5T_NATIVE_UINT32},
      {H5T_STD_U32BE, H5T_NATIVE_UINT32},     {H5T_STD_I32LE, H5T_NATIVE_INT32},
      {H5T_STD_I32BE, H5T_NATIVE_INT32},      {H5T_IEEE_F32LE, H5T_NATIVE_FLOAT},
      {H5T_IEEE_F32BE, H5T_NATIVE_FLOAT},     {H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE},
      {H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE},    {H5T_STD_I8LE, H5T_NATIVE_INT8},
      {H5T_STD_I16LE, H5T_NATIVE_INT16},      {H5T_STD_U64LE, H5T_NATIVE_UINT64},
      {H5T_STD_I64BE, H5T_NATIVE_INT64},      {H5T_STD_B16LE, H5T_NATIVE_B16},
      {H5T_STD_B8LE, H5T_NATIVE_B8},          {H5T_NATIVE_LDOUBLE, H5T_NATIVE_LDOUBLE},
  };
  enum { NTYPES = sizeof types / sizeof types[0] };
  unsigned k = take(in, NTYPES + 3);
  if (k < NTYPES) {
    *file_type = H5Tcopy(types[k][0]);
    *mem_type = H5Tcopy(types[k][1]);
    return;
  }
  /* Types no frame has: a string, a compound of two u16, an enum over u16. */
  if (k == NTYPES) {
    *file_type = H5Tcopy(H5T_C_S1);
    H5Tset_size(*file_type, 1 + take(in, 8));
  } else if (k == NTYPES + 1) {
    *file_type = H5Tcreate(H5T_COMPOUND, 4);
    H5Tinsert(*file_type, "a", 0, H5T_NATIVE_UINT16);
    H5Tinsert(*file_type, "b", 2, H5T_NATIVE_UINT16);
  } else {
    *file_type = H5Tenum_create(H5T_NATIVE_UINT16);
    unsigned short zero = 0, one = 1;
    H5Tenum_insert(*file_type, "zero", &zero);
    H5Tenum_insert(*file_type, "one", &one);
  }
  *mem_type = H5Tcopy(*file_type);
}

/* Storage and filters: contiguous, compact, chunked, or chunked through filters (gzip,
   shuffle, Fletcher-32, and ids no plugin brings, marked optional as h5py marks its
   compressions, so that the file can be written without them). Not n-bit: libhdf5 1.10.8
   crashes writing a u16 dataset of 1 x 1 x 1 chunks through n-bit and shuffle, in its own
   H5Dclose, before anything of anygpu's runs. */
static hid_t take_dcpl(input *in, int rank, const hsize_t *dims, size_t element, size_t *chunks) {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  *chunks = 1;
  unsigned layout = rank == 0 ? 0 : take(in, 4);
  if (layout == 1) {
    H5Pset_layout(dcpl, H5D_COMPACT);
  } else if (layout >= 2) {
    hsize_t chunk[MAX_RANK];
    size_t bytes = element;
    for (int d = 0; d < rank; d++) {
      hsize_t most = dims[d] == 0 ? 1 : dims[d] < 8 ? dims[d] : 8;
      chunk[d] = 1 + take(in, (unsigned)most);
      bytes *= chunk[d];
    }
    if (bytes < ((size_t)1 << 31))
      H5Pset_chunk(dcpl, rank, chunk);
    for (int d = 0; d < rank && *chunks <= MAX_CHUNKS; d++) {
      hsize_t along = dims[d] / chunk[d] + (dims[d] % chunk[d] != 0);
      *chunks = along > MAX_CHUNKS ? MAX_CHUNKS + 1 : *chunks * (size_t)along;
    }
  }
  unsigned filters = layout == 3 ? take(in, 4) : 0;
  for (unsigned f = 0; f < filters; f++) {
    switch (take(in, 4)) {
    case 0:
      H5Pset_deflate(dcpl, take(in, 10));
      break;
    case 1:
      H5Pset_shuffle(dcpl);
      break;
    case 2:
      H5Pset_fletcher32(dcpl);
      break;
    default: {
      static const H5Z_filter_t missing[] = {307, 32000, 32001, 32004, 32008, 32013, 40000, 65535};
      H5Pset_filter(dcpl, missing[take(in, 8)], H5Z_FLAG_OPTIONAL, 0, NULL);
      break;
    }
    }
  }
  return dcpl;
}

/* Floats made from the bytes as small integers, so that no NaN's payload is in question when
   HDF5 converts them to another byte order. */
static void integral_floats(unsigned char *values, size_t count, size_t element) {
  for (size_t i = 0; i < count; i++) {
    unsigned char *v = values + i * element;
    if (element == 4) {
      float x = (float)(int16_t)(v[0] | v[1] << 8);
      memcpy(v, &x, sizeof x);
    } else if (element == 8) {
      double x = (double)(int32_t)(v[0] | v[1] << 8 | v[2] << 16);
      memcpy(v, &x, sizeof x);
    } else {
      memset(v, 0, element);
    }
  }
}

/* The path frames_open is given, and what the file holds there. */
typedef enum place { AT_DATA, IN_GROUP, ELSEWHERE, GROUP_AT_DATA, SOFT_LINK, DANGLING_LINK, EXTERNAL_LINK, NPLACES } place;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  input in = {data, size};
  place where = (place)take(&in, NPLACES);
  bool latest = take(&in, 2) == 1;
  int rank = (int)take(&in, MAX_RANK + 1);
  hsize_t dims[MAX_RANK];
  for (int d = 0; d < rank; d++)
    dims[d] = take_dim(&in);
  hid_t file_type, mem_type;
  take_type(&in, &file_type, &mem_type);
  size_t element = H5Tget_size(file_type);
  size_t chunks;
  hid_t dcpl = take_dcpl(&in, rank, dims, element, &chunks);
  size_t batch = 1 + take(&in, 3);
  bool write = take(&in, 4) != 0;

  /* The data: the rest of the input, repeated, when the dataset is small enough to hold. */
  size_t count = 1, bytes = 0;
  for (int d = 0; d < rank && count != 0; d++)
    count = dims[d] > MAX_DATA ? MAX_DATA + 1 : count * (size_t)dims[d];
  unsigned char *values = NULL;
  if (write && count > 0 && count <= MAX_DATA / element && chunks <= MAX_CHUNKS) {
    bytes = count * element;
    values = malloc(bytes);
    if (values == NULL)
      abort();
    for (size_t i = 0; i < bytes; i++)
      values[i] = in.n > 0 ? in.p[i % in.n] : (unsigned char)i;
    if (H5Tget_class(mem_type) == H5T_FLOAT)
      integral_floats(values, count, element);
  }

  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (latest)
    H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  hid_t f = H5Fcreate(hdf5_target_file(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (f < 0)
    abort();
  hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
  const char *name = where == IN_GROUP ? "/g/data" : where == SOFT_LINK ? "/target" : where == ELSEWHERE ? "/other" : "/data";
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  hid_t dset = space < 0 ? H5I_INVALID_HID : H5Dcreate2(f, name, file_type, space, lcpl, dcpl, H5P_DEFAULT);
  bool written = values != NULL && dset >= 0 && H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0;
  if (where == GROUP_AT_DATA) {
    H5Ldelete(f, "/data", H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "/data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g >= 0)
      H5Gclose(g);
  } else if (where == SOFT_LINK) {
    H5Lcreate_soft("/target", f, "/data", H5P_DEFAULT, H5P_DEFAULT);
  } else if (where == DANGLING_LINK) {
    H5Ldelete(f, "/data", H5P_DEFAULT);
    H5Lcreate_soft("/nowhere", f, "/data", H5P_DEFAULT, H5P_DEFAULT);
  } else if (where == EXTERNAL_LINK) {
    H5Ldelete(f, "/data", H5P_DEFAULT);
    H5Lcreate_external("no-such-file.h5", "/data", f, "/data", H5P_DEFAULT, H5P_DEFAULT);
  }
  bool made = dset >= 0;
  if (dset >= 0)
    H5Dclose(dset);
  if (space >= 0)
    H5Sclose(space);
  H5Pclose(lcpl);
  H5Pclose(dcpl);
  H5Tclose(file_type);
  H5Tclose(mem_type);
  if (H5Fclose(f) < 0)
    abort();

  const char *spec = where == IN_GROUP ? "/g/data" : "/data";
  unsigned long long shape[MAX_RANK];
  for (int d = 0; d < rank; d++)
    shape[d] = dims[d];
  bool opened = hdf5_target_read(spec, batch, rank, made ? shape : NULL, written ? values : NULL);
  /* A dataset that is not there, or is no dataset, is never opened. */
  if (opened && (!made || where == ELSEWHERE || where == GROUP_AT_DATA || where == DANGLING_LINK ||
                 where == EXTERNAL_LINK))
    abort();
  free(values);
  return 0;
}
