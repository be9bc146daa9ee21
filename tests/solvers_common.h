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
/* An array of dtype @p t on @p dev from doubles (complex dtypes: re, im interleaved). */
ag_array *sv_upload(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const double *v);
/* An array's values as doubles (complex: re, im interleaved; the caller frees). */
double *sv_download(const ag_array *a);
/* The dtypes a device computes in: f64 where it has double precision (else it says so), then
   f32. Returns how many. */
int sv_dtypes(ag_device *dev, ag_dtype out[2]);
/* Runs tests/sporco_ref.py's `run SOLVER DIR DIR/out key=value...` (the build's Python,
   python.h) on the inputs written to DIR; returns its history (iterations x 9: k, ObjFun, DFid,
   Reg, r, s, eps_pri, eps_dua, rho). */
npy_array sv_reference_history(const char *solver, const char *dir, char *const *keys);
/* The solver's history against the reference's, iteration by iteration: rho equal to 1e-9
   relative, ObjFun, DFid, Reg and the residuals to @p tol relative (of the larger of the
   values and @p floor), and the same number of iterations. */
void sv_compare_history(const char *what, const ag_solver *b, const npy_array *h, double tol, double floor);

/* A convolutional sparse coding problem of tests/data in anygpu's layout: sporco's D
   (Nd0, Nd1, M) as [M][Nd0][Nd1] or (Nd0, Nd1, C, M) as [M][C][Nd0][Nd1], its S (N0, N1) or
   (N0, N1, K) as [K][N0][N1] (K = 1 for a 2-D S; with a multi-channel D, sporco's dimK=0, the
   K planes are S's C channels), and X0 (N0, N1, M), when named, as [M][N0][N1]. d_src and
   s_src are as stored, for tests/sporco_ref.py. */
typedef struct sv_csc_problem {
  npy_array d_src, s_src;
  double *d, *s, *x0;
  size_t m, c, d0, d1, k, n0, n1; /* c: D's channels (1 for a 3-D D) */
} sv_csc_problem;
/* tests/data/@p d_name.npy, @p s_name.npy and (unless NULL) @p x0_name.npy. */
sv_csc_problem sv_csc_load(const char *d_name, const char *s_name, const char *x0_name);
void sv_csc_free(sv_csc_problem *p);
/* sum_m d_m * x_m for the first signal of a single-channel problem, the circular convolution
   written out (x [M][N0][N1]); the caller frees. */
double *sv_csc_reconstruct(const sv_csc_problem *p, const double *x);
/* ||a - b|| / max(||a||, ||b||), tests/data/README.md's rrs. */
double sv_rrs(const double *a, const double *b, size_t n);

/* A ConvBPDN solver's create function (ag_cbpdn_create, ag_pgm_cbpdn_create) with the default
   queue and options, for sv_csc_check_refusals. */
typedef ag_status (*sv_csc_create)(const ag_array *D, const ag_array *S, double lmbda, ag_solver **solver);
/* The refusals the ConvBPDN solvers share, on @p dev, each with its status and a message naming
   @p fn and the argument: a missing solver pointer or D (*solver set to NULL), an i32 S with an
   f32 D, an i32 D and S, filters larger than the signals, a 1-D S (the message holding
   @p s_1d), a negative or infinite lmbda, and f64 where the device has no double precision. */
void sv_csc_check_refusals(ag_device *dev, const char *fn, sv_csc_create create, const char *s_1d);

#endif
