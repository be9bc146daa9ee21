/* tests/npy.h — numpy's .npy files, read and written: little-endian f4, f8, u1, u2, u4 and i4
   arrays in C order, format versions 1.0, 2.0 and 3.0 (written as 1.0, or 2.0 for a header
   past 64 KiB). Self-contained (C11 and libc only), for tests and tools that exchange arrays
   with numpy.

   Errors are returned, never raised: each fallible function returns false and writes why into
   @p err (at most @p errlen bytes, NUL-terminated; err may be NULL), naming the file.
   Threads: no global state; any thread. Ownership: npy_read fills an npy_array whose data the
   caller releases with npy_free. */
#ifndef AG_TESTS_NPY_H
#define AG_TESTS_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum npy_dtype {
  NPY_F4, /* '<f4' float */
  NPY_F8, /* '<f8' double */
  NPY_U1, /* '|u1' uint8_t */
  NPY_U2, /* '<u2' uint16_t */
  NPY_U4, /* '<u4' uint32_t */
  NPY_I4, /* '<i4' int32_t */
} npy_dtype;

#define NPY_MAX_DIMS 8

typedef struct npy_array {
  npy_dtype dtype;
  int ndim; /* 0 for a scalar, which holds one element */
  size_t shape[NPY_MAX_DIMS];
  size_t count; /* elements: the product of the shape */
  void *data;   /* count elements in the host's byte order, C order; NULL when count is 0 */
} npy_array;

/** Bytes per element; 0 outside the enum. */
size_t npy_dtype_size(npy_dtype t);
/** numpy's descr ("<f8"); "?" outside the enum. */
const char *npy_dtype_descr(npy_dtype t);

/** Reads @p path into @p out (zeroed first). Refuses other dtypes, big-endian data, Fortran
    order, more than NPY_MAX_DIMS dimensions, and a file whose data is not exactly the shape's.
    The header is read as numpy reads it or refused (npy.c says what is accepted): a header
    naming a key twice, which numpy takes the last of, is refused naming the key. */
bool npy_read(const char *path, npy_array *out, char *err, size_t errlen);

/** Opens @p path and reads its header into @p meta (whose data stays NULL), leaving @p *file
    at the first data byte, for reading the data in pieces; the caller fcloses it. Refuses what
    npy_read refuses, and a regular file whose size is not exactly the header's plus the
    shape's data (cut short, or with more). */
bool npy_open(const char *path, npy_array *meta, FILE **file, char *err, size_t errlen);

/** npy_open on a stream opened by the caller (a file, or memory through fmemopen), at the
    file's start: reads the header into @p meta and leaves @p f at the first data byte. @p name
    names the stream in messages. The size check applies when @p f is a regular file. The
    caller keeps and closes @p f. */
bool npy_read_header(FILE *f, const char *name, npy_array *meta, char *err, size_t errlen);

/** npy_read on a stream opened by the caller, at the file's start: the data must end where
    the stream does. The caller keeps and closes @p f. */
bool npy_read_stream(FILE *f, const char *name, npy_array *out, char *err, size_t errlen);

/** Writes the header of an array of @p shape to @p f, for data written after it in pieces
    with npy_write_data (C order, count = product(shape) elements in all). @p path names the
    file in messages. */
bool npy_write_header(FILE *f, const char *path, npy_dtype dtype, int ndim, const size_t *shape, char *err,
                      size_t errlen);

/** Writes @p count elements of @p data (host byte order) to @p f, little-endian. */
bool npy_write_data(FILE *f, const char *path, npy_dtype dtype, size_t count, const void *data, char *err,
                    size_t errlen);

/** Writes @p count = product(shape) elements of @p data (host byte order, C order) to @p path
    as a version 1.0 file (2.0 when the header needs it), the header padded to 64 bytes as
    numpy does. @p ndim may be 0 (a scalar). */
bool npy_write(const char *path, npy_dtype dtype, int ndim, const size_t *shape, const void *data, char *err,
               size_t errlen);

/** Frees @p a's data and zeroes it; NULL is a no-op. */
void npy_free(npy_array *a);

/** Element @p i of @p a as a double (exact for every dtype here). */
double npy_get(const npy_array *a, size_t i);

#endif
