/* tests/solvers_common.h - what the solver suites share: sporco's test problems read from
   tests/data, arrays moved to and from a device as doubles, the dtypes a device runs, and the
   iterate-by-iterate comparison with tests/sporco_ref.py. Each helper fails the running test
   (ck_assert) rather than return an error. */
#ifndef AG_TESTS_SOLVERS_COMMON_H
#define AG_TESTS_SOLVERS_COMMON_H

#include "anygpu.h"
#include "npy.h"

/* tests/data/NAME.npy, read whole (f8). */
npy_array sv_load(const char *name);
/* An array of dtype @p t on @p dev from doubles. */
ag_array *sv_upload(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const double *v);
/* An array's values as doubles (the caller frees). */
double *sv_download(const ag_array *a);
/* The dtypes a device computes in: f64 where it has double precision (else it says so), then
   f32. Returns how many. */
int sv_dtypes(ag_device *dev, ag_dtype out[2]);
/* Runs tests/sporco_ref.py's `run SOLVER DIR DIR/out key=value...` (python3 from PATH) on the
   inputs written to DIR; returns its history (iterations x 9: k, ObjFun, DFid, Reg, r, s,
   eps_pri, eps_dua, rho). */
npy_array sv_reference_history(const char *solver, const char *dir, char *const *keys);
/* The solver's history against the reference's, iteration by iteration: rho equal to 1e-9
   relative, ObjFun, DFid, Reg and the residuals to @p tol relative (of the larger of the
   values and @p floor), and the same number of iterations. */
void sv_compare_history(const char *what, const ag_solver *b, const npy_array *h, double tol, double floor);

#endif
