/* src/solvers/solver.h - the solver object every algorithm shares: sporco's solve() loop
   (iterate, statistics, callback, stopping), the table of operations an algorithm implements
   (ADMM in admm.h, PGM in pgm.h), and the helpers both use.

   A solver is three parts, as a backend's device is its table plus its own state: the base
   (struct ag_solver, what every algorithm has), the algorithm's state (s->alg: ag__admm,
   ag__pgm) reached through its table (s->cls), and the problem's state (s->impl: BPDN's
   factorisation, ConvBPDN's spectra) reached through the algorithm's own hooks. A new
   algorithm writes an ag__solver_class and its state; docs/design.md says how it plugs in. */
#ifndef AG_SRC_SOLVERS_SOLVER_H
#define AG_SRC_SOLVERS_SOLVER_H

#include "anygpu/solvers.h"
#include "anygpu/ops.h"
#include "seam.h"

/* An algorithm's operations. Every entry is required; each is called only by the base's
   public functions (solver.c), on the thread that called them, with a valid solver of this
   class. */
typedef struct ag__solver_class {
  const char *name; /* "ADMM", "PGM" */
  /* One iteration, the (s->k + 1)th, enqueued on s->q: fills @p is (sporco's IterationStats
     of this iteration, k = s->k, NaN for what the algorithm does not have) and sets
     *converged when the algorithm's stopping test passed. The base then records @p is
     (unless s->fast_solve), calls the callback and counts the iteration. Returns AG_OK or a
     status whose message names the public function. */
  ag_status (*iterate)(ag_solver *s, ag_iter_stats *is, bool *converged);
  /* The array ag_solver_var_get gives for @p var, or NULL where the algorithm has none. */
  const ag_array *(*var)(const ag_solver *s, ag_solver_var var);
  /* ag_solver_rho: the penalty parameter, NaN where the algorithm has none. */
  double (*rho)(const ag_solver *s);
  /* Frees the algorithm's arrays and, through the problem's own destroy hook, the problem's
     (not the memory of s->alg and s->impl, which the base frees). Called once, also on a
     solver whose creation failed part way (any array may be NULL). */
  void (*destroy)(ag_solver *s);
} ag__solver_class;

struct ag_solver {
  ag_solver_kind kind;
  const ag__solver_class *cls;
  ag_device *dev;
  ag_queue *q;
  ag_dtype dtype;       /* f32 or f64 (or complex, for the solvers that take it) */
  double lmbda;
  ag_array *x;          /* the primary variable X */
  size_t max_iter;      /* MaxMainIter, what ag_solver_solve runs */
  bool fast_solve;      /* FastSolve: no statistics recorded */
  size_t k;             /* iterations run */
  bool converged;
  ag_array *scal;       /* real scalars on the device: the norms of one iteration */
  ag_array *scal_view[8];
  ag_iter_stats *hist;  /* sporco's IterationStats, one per iteration (none with fast_solve) */
  size_t nhist, caphist;
  ag_solver_callback cb;
  void *cb_user;
  void *alg;            /* the algorithm's state (ag__admm, ag__pgm), zeroed at allocation */
  void *impl;           /* the problem's state, zeroed at allocation */
};

/* Checks lmbda (>= 0 and finite, or NaN where @p nan_default: the solver's default) and
   allocates a solver of class @p cls and kind @p kind with a zeroed algorithm state of
   @p alg_size bytes (s->alg) and a zeroed problem state of @p impl_size (s->impl). The
   algorithms' own allocators (ag__admm_alloc, ag__pgm_alloc) call it. */
ag_status ag__solver_alloc(const char *fn, const ag__solver_class *cls, ag_solver_kind kind, double lmbda,
                           bool nan_default, size_t alg_size, size_t impl_size, ag_solver **s);

/* The norms ||x_i||_2 of @p n (up to 8) arrays, read back together. A NULL x_i gives 0. */
ag_status ag__solver_norms(ag_solver *s, size_t n, const ag_array *const *x, double *out);
/* Makes s->scal and its views (s->dev and s->dtype set). */
ag_status ag__solver_make_scalars(ag_solver *s);
/* Reads back the first @p n (up to 8) elements of s->scal together. */
ag_status ag__solver_scalars(ag_solver *s, size_t n, double *out);
/* Reads back element @p i of s->scal (what an operation wrote into s->scal_view[i]). */
ag_status ag__solver_scalar(ag_solver *s, int i, double *out);
/* sum |x| (the l1 norm) of @p x, using @p tmp (x's real dtype, x's shape) as scratch. */
ag_status ag__solver_l1(ag_solver *s, const ag_array *x, ag_array *tmp, double *out);
/* A new array on the solver's device of its dtype. */
ag_status ag__solver_array(ag_solver *s, int ndim, const size_t *shape, ag_array **a);

/* A convolutional sparse coding problem's sizes, from D and S once they are checked: K
   signals, C channels of D, M filters of Nd0 x Nd1, signals of N0 x N1. */
typedef struct ag__csc_geometry {
  size_t k, c, m, d0, d1, n0, n1;
} ag__csc_geometry;

/* ag__csc_check_problem's flags: what a solver accepts beyond D [M][Nd0][Nd1] with S [N0][N1]
   or [K][N0][N1]. */
enum {
  /* D [M][C][Nd0][Nd1] with S [C][N0][N1] or [K][C][N0][N1], and S [K][C'][N0][N1] (K C'
     signals) with a 3-D D; without it a 4-D D or S is AG_ERR_UNSUPPORTED */
  AG__CSC_MULTICHANNEL = 1u << 0,
};

/* Checks the D and S of ag_cbpdn_create and its kin (@p fn; @p solver names it in the dtype
   message, "ConvBPDN") and reads the problem's sizes into @p g: both valid arrays on one
   device, of one dtype, f32 or f64 (f64 only where the device has it), the shapes above, not
   empty, the filters no larger than the signals. Returns AG_OK or the status with a message
   naming @p fn and the argument. Defined in admm.c. */
ag_status ag__csc_check_problem(const char *fn, const char *solver, const ag_array *D, const ag_array *S, unsigned flags,
                                ag__csc_geometry *g);

#endif
