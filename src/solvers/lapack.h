/* src/solvers/lapack.h - the few LAPACK routines the solvers call on the host, in double
   precision: Debian's OpenBLAS, which the library links for the host's BLAS, exports LAPACK's
   Fortran symbols, and these wrappers give them C prototypes and anygpu's errors. */
#ifndef AG_SRC_SOLVERS_LAPACK_H
#define AG_SRC_SOLVERS_LAPACK_H

#include "anygpu/status.h"

/* The eigenvalues (ascending, into @p w) and eigenvectors of the symmetric @p n x @p n matrix
   @p a (row-major; symmetric, so either order), the vectors replacing @p a as its columns in
   column-major order, which is a's rows in row-major: vector j is a[j * n ...]. */
ag_status ag__lapack_syev(const char *fn, int n, double *a, double *w);

#endif
