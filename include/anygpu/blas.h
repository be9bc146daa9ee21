/* anygpu/blas.h - linear algebra through each platform's BLAS: cuBLAS on CUDA, CLBlast on
   OpenCL GPUs, OpenBLAS on the host (and on CPU OpenCL devices, where it is faster). Matrices
   are C-ordered (row-major) arrays, as everywhere in anygpu.

   Views: every operand may be a view (array.h). A matrix whose rows have unit stride (a row
   slice, a block of columns of a bigger matrix) is passed to the library where it lies, with
   its leading dimension; a matrix whose columns have unit stride (ag_array_transpose of a
   matrix, or of a block) is passed as the matrix it transposes, with the transpose flag
   flipped (AG_NO_TRANS <-> AG_TRANS). A batch axis may step by any stride >= 0. C (ag_gemv:
   y) is written in place when its rows have unit stride. Any other view is copied into a
   contiguous temporary first, and an output copied back after: negative strides, a broadcast
   operand (stride 0), steps along both axes, a complex transposed view asked for as
   AG_CONJ_TRANS (the conjugate alone is no BLAS flag), a transposed C, a block of a bigger
   matrix as ag_gemv's A (its providers take no leading dimension), and every non-contiguous
   vector of ag_gemv and the level-1 routines. An output that is a broadcast view is
   AG_ERR_INVALID_ARGUMENT. docs/arrays.md has the table.

   Threads and ownership: as ops.h. Every function may be called from any thread at once, on
   its own queue or NULL; operands are borrowed for the call only and may be freed on return.
   ag_blas_provider's string is static for the life of the process. */
#ifndef ANYGPU_BLAS_H
#define ANYGPU_BLAS_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ag_transpose {
  AG_NO_TRANS = 0,   /* op(A) = A */
  AG_TRANS = 1,      /* op(A) = A^T */
  AG_CONJ_TRANS = 2, /* op(A) = A^H (A^T for real dtypes) */
} ag_transpose;

/** C = alpha * op(A) op(B) + beta * C. op(A) is m x k, op(B) k x n, C m x n, so A is stored
    (m, k), or (k, m) when transposed. Batched: A, B and C may carry a leading batch axis
    (3-D); C does when A or B does, batch sizes agree, and a 2-D A or B serves every element of
    the batch. f32, f64, c64, c128; all operands of one dtype and device. alpha and beta are
    real (alpha + 0i for complex dtypes; see ag_gemm_complex). beta = 0 ignores C's contents
    (NaN in C does not propagate), as BLAS does.
    @return AG_ERR_MISMATCH for shapes that do not fit (naming the operands and sizes),
            AG_ERR_UNSUPPORTED for other dtypes, AG_ERR_INVALID_ARGUMENT for a C that is a
            broadcast view, AG_ERR_DEVICE with the provider's status
            ("CLBlastSgemm: CLBlastInvalidLeadDimA (-1013)") when the provider fails. */
AG_API ag_status ag_gemm(ag_queue *q, ag_transpose ta, ag_transpose tb, double alpha, const ag_array *a,
                         const ag_array *b, double beta, ag_array *c);

/** ag_gemm with complex alpha and beta (their imaginary parts must be 0 for real dtypes). */
AG_API ag_status ag_gemm_complex(ag_queue *q, ag_transpose ta, ag_transpose tb, double alpha_re,
                                 double alpha_im, const ag_array *a, const ag_array *b, double beta_re,
                                 double beta_im, ag_array *c);

/** y = alpha * op(A) x + beta * y, with A of shape (m, n): x has n elements and y m, or the
    other way round when A is transposed. x and y are 1-D. */
AG_API ag_status ag_gemv(ag_queue *q, ag_transpose ta, double alpha, const ag_array *a, const ag_array *x,
                         double beta, ag_array *y);

/** y += alpha * x (BLAS axpy), x and y of one dtype and element count. */
AG_API ag_status ag_axpy(ag_queue *q, double alpha, const ag_array *x, ag_array *y);

/** x *= alpha (BLAS scal). */
AG_API ag_status ag_scal(ag_queue *q, double alpha, ag_array *x);

/** The platform BLAS's dot (x . y over all elements; with @p conjugate, conj(x) . y, BLAS
    dotc) and nrm2, into out of shape {1} (nrm2: the real dtype). Fast but not compensated:
    ag_dot and ag_nrm2 (ops.h) keep float32 accurate over long vectors. */
AG_API ag_status ag_blas_dot(ag_queue *q, const ag_array *x, const ag_array *y, bool conjugate,
                             ag_array *out);
AG_API ag_status ag_blas_nrm2(ag_queue *q, const ag_array *x, ag_array *out);

/** The library that runs BLAS on @p dev: "OpenBLAS", "OpenBLAS (mapped)" for a CPU OpenCL
    device whose buffers OpenBLAS reads in place, "CLBlast", "cuBLAS"; NULL when there is
    none. Static string; looked up once per device. */
AG_API const char *ag_blas_provider(const ag_device *dev);

#ifdef __cplusplus
}
#endif

#endif
