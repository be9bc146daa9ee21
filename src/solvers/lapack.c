/* src/solvers/lapack.c - LAPACK on the host (lapack.h). */
#include <stdlib.h>

#include "lapack.h"
#include "seam.h"

/* LAPACK's Fortran interface, with gfortran's hidden lengths of the character arguments. */
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda, double *w, double *work,
             const int *lwork, int *iwork, const int *liwork, int *info, size_t jobz_len, size_t uplo_len);

ag_status ag__lapack_syev(const char *fn, int n, double *a, double *w) {
  int info = 0, lwork = -1, liwork = -1, iw = 0;
  double wq = 0;
  dsyevd_("V", "U", &n, a, &n, w, &wq, &lwork, &iw, &liwork, &info, 1, 1);
  if (info != 0)
    return ag__error(AG_ERR_DEVICE, "%s: LAPACK dsyevd's workspace query failed (info %d)", fn, info);
  lwork = (int)wq, liwork = iw;
  double *work = malloc((size_t)lwork * sizeof *work);
  int *iwork = malloc((size_t)liwork * sizeof *iwork);
  if (work == NULL || iwork == NULL) {
    free(work), free(iwork);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory for an eigendecomposition of order %d", fn, n);
  }
  dsyevd_("V", "U", &n, a, &n, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  free(work), free(iwork);
  if (info != 0)
    return ag__error(AG_ERR_DEVICE, "%s: LAPACK dsyevd failed to converge (info %d) on a matrix of order %d", fn,
                     info, n);
  return AG_OK;
}
