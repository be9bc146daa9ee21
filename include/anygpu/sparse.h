/* anygpu/sparse.h — sparse matrices in compressed sparse row (CSR) form on a device, and their
   products with vectors and batches of vectors, both ways (A x and A^T x). The layer under
   azimuthal integration (each output bin a row, each pixel a column, each value the pixel's
   share of the bin) and gridding. docs/sparse.md describes the layout, the kernels and their
   accuracy.

   A matrix of rows x cols holds nnz values of dtype f32 or f64, 32-bit column indices and
   64-bit row pointers: row i holds entries row_ptr[i] to row_ptr[i + 1] - 1, entry k being
   values[k] at column col_idx[k]. Within a row the columns may come in any order and repeat:
   a repeated column's values add up in products.

   Threads: a matrix is immutable once made. Any number of threads may multiply with it, read
   it back or query it at once, each on its own queue or NULL. The first transposed product
   builds the transpose (on the host, from a read-back of the matrix) and keeps it with the
   matrix; threads asking for it meanwhile wait for that one build.

   Ownership: ag_csr_create() and ag_csr_create_from_coo() give the caller a matrix to release
   with ag_csr_destroy(), once, when no other thread is using it. Host arrays passed in are
   copied during the call and not kept. Products follow ops.h: operands are borrowed for the
   call only. */
#ifndef ANYGPU_SPARSE_H
#define ANYGPU_SPARSE_H

#include "array.h"
#include "blas.h" /* ag_transpose */

#ifdef __cplusplus
extern "C" {
#endif

/** A sparse matrix in CSR form on one device. The caller's (ag_csr_create / ag_csr_destroy). */
typedef struct ag_csr ag_csr;

/** What ag_csr_get_info() reports. */
typedef struct ag_csr_info {
  size_t rows, cols;
  size_t nnz;      /* stored values, repeated columns included */
  ag_dtype dtype;  /* AG_F32 or AG_F64 */
  ag_device *dev;  /* the library's; never freed */
} ag_csr_info;

/** A new matrix on @p dev holding a copy of the host arrays row_ptr (rows + 1 entries), col_idx
    and values (nnz each), the caller's: release it with ag_csr_destroy(). Returns when the
    host arrays may be reused. nnz may be 0: a matrix of zeros, for which col_idx and values
    may be NULL.
    @return AG_ERR_INVALID_ARGUMENT for a NULL argument, rows or cols of 0, or arrays that are
            not CSR: row_ptr[0] not 0, a row pointer below the one before it, row_ptr[rows]
            not nnz, a column index not below cols (the message names the index);
            AG_ERR_UNSUPPORTED for a dtype other than f32 and f64, f64 on a device without
            double precision, or cols above 2^32 (column indices are 32-bit);
            AG_ERR_OUT_OF_RANGE when the arrays' sizes overflow; AG_ERR_OUT_OF_MEMORY. */
AG_API ag_status ag_csr_create(ag_device *dev, ag_dtype dtype, size_t rows, size_t cols, size_t nnz,
                               const uint64_t *row_ptr, const uint32_t *col_idx, const void *values,
                               ag_csr **out);

/** A new matrix from coordinates: entry k is values[k] at (row_idx[k], col_idx[k]). The entries
    are sorted by row on the host (a counting sort keeping their order within a row), then
    copied as ag_csr_create() copies them. Duplicate coordinates are kept as separate entries,
    so they add up in products (as scipy's coo_matrix does). Release the matrix with
    ag_csr_destroy().
    @return as ag_csr_create(); a row index not below rows is AG_ERR_INVALID_ARGUMENT. */
AG_API ag_status ag_csr_create_from_coo(ag_device *dev, ag_dtype dtype, size_t rows, size_t cols,
                                        size_t nnz, const uint32_t *row_idx, const uint32_t *col_idx,
                                        const void *values, ag_csr **out);

/** Releases a matrix and its transpose, if one was built, without waiting: as ag_buffer_free(),
    its memory goes back to the pool once the work last enqueued with it has finished (work on
    other queues the caller finishes first, as for any memory used from several queues). NULL
    is a no-op. */
AG_API void ag_csr_destroy(ag_csr *m);

/** Fills @p info with the matrix's sizes, dtype and device.
    @return AG_ERR_INVALID_ARGUMENT when either is NULL. */
AG_API ag_status ag_csr_get_info(const ag_csr *m, ag_csr_info *info);

/** Copies the matrix back into host arrays of rows + 1 (row_ptr) and nnz (col_idx, values)
    entries, as they went in (ag_csr_create_from_coo: in row order), and returns once they hold
    it. Any of the three may be NULL to skip it.
    @return AG_ERR_INVALID_ARGUMENT when @p m is NULL. */
AG_API ag_status ag_csr_to_host(const ag_csr *m, uint64_t *row_ptr, uint32_t *col_idx, void *values);

/** y = op(A) x: op is AG_NO_TRANS (A), AG_TRANS or AG_CONJ_TRANS (A^T; the values are real).
    x and y are 1-D arrays of A's dtype on A's device, x of cols elements and y of rows (the
    other way round for A^T); either may be a view. y is overwritten and must not overlap x.
    Each row's sum is compensated (docs/sparse.md): a few ulp of sum |a_ij x_j|. The first
    transposed product builds A^T on the host, once per matrix (its time and memory are those
    of a read-back and a counting sort of the matrix); later ones use it.
    @return AG_ERR_INVALID_ARGUMENT for NULL operands, an op outside the enum, or x and y
            overlapping; AG_ERR_MISMATCH for arrays of another dtype, device or shape (the
            message names the argument and the shape expected); AG_ERR_UNSUPPORTED for A^T of a
            matrix of more than 2^32 rows, and on a device that ends long loops early
            (ag_device_info.max_loop_iterations) for a row longer than that. */
AG_API ag_status ag_spmv(ag_queue *q, ag_transpose op, const ag_csr *a, const ag_array *x, ag_array *y);

/** Y = op(A) X for a batch of B vectors: X is 2-D [cols, B] (C order, so the B values of one
    column are adjacent) and Y [rows, B]; for A^T, X is [rows, B] and Y [cols, B]. B = 0 (empty
    arrays) succeeds doing nothing. Otherwise as ag_spmv(). */
AG_API ag_status ag_spmm(ag_queue *q, ag_transpose op, const ag_csr *a, const ag_array *x, ag_array *y);

#ifdef __cplusplus
}
#endif

#endif
