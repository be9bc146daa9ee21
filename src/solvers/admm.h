/* src/solvers/admm.h - the ADMM iteration every solver shares (sporco.admm.admm.ADMM), and the
   hooks through which a solver supplies its steps.

   The constraint is A X - Y = c (sporco's B = -I): A is the identity (sporco's ADMMEqual) when
   cnst_a is NULL, and c is 0 unless the solver sets s->c. Each iteration, as
   sporco's solve():
     Yprev = Y; xstep; AXnr = A X; AX = relax AXnr + (1 - relax) (Y + c); ystep;
     U += AX - Y - c;
     residuals (unless fast_solve without AutoRho); statistics; rho update; callback; stop test.
   A hook returns AG_OK or a status whose message names the public function. */
#ifndef AG_SRC_SOLVERS_ADMM_H
#define AG_SRC_SOLVERS_ADMM_H

#include "anygpu/solvers.h"
#include "anygpu/ops.h"
#include "seam.h"

typedef struct ag__solver_ops {
  const char *name;   /* "BPDN", for messages */
  /* One whole iteration of a solver that is not ADMM (PGM, pgm.h), which then has no xstep,
     ystep or the other ADMM hooks: its statistics pushed (ag__solver_push_stats), its callback
     called, s->converged set, and *stop true to end the run. NULL: the ADMM iteration. */
  ag_status (*iterate)(ag_solver *s, bool *stop);
  ag_status (*xstep)(ag_solver *s);
  ag_status (*ystep)(ag_solver *s);
  /* out = A x (NULL: A is the identity, and AXnr is X itself). */
  ag_status (*cnst_a)(ag_solver *s, const ag_array *x, ag_array *out);
  /* out = A^T y, for the dual residual and its normalisation (NULL with cnst_a NULL). */
  ag_status (*cnst_at)(ag_solver *s, const ag_array *y, ag_array *out);
  /* Replaces the default residuals (sporco's rsdl_r, rsdl_s, rsdl_rn, rsdl_sn): the norms of
     the primal residual r and dual residual s, and of their normalisations rn and sn, each
     holding the default's value on entry, to be changed. NULL: the default,
     r = ||AXnr - Y - c||, s = rho ||A^T (Yprev - Y)||, rn = max(||AXnr||, ||Y||, ||c||),
     sn = rho ||A^T U||. */
  ag_status (*residuals)(ag_solver *s, double *r, double *sd, double *rn, double *sn);
  /* Fills the objective's fields of @p st (obj, dfid, reg, reg2) and the solver's extras. */
  ag_status (*objective)(ag_solver *s, ag_iter_stats *st);
  /* After rho changed (rho_old to s->rho). NULL: nothing to do. */
  ag_status (*rhochange)(ag_solver *s);
  /* The array ag_solver_var_get gives for @p var when it is not the iterate itself (RobustPCA's
     Y); NULL: the iterate. */
  const ag_array *(*var)(const ag_solver *s, ag_solver_var var);
  /* Frees the solver's own state (s->impl). */
  void (*destroy)(ag_solver *s);
} ag__solver_ops;

struct ag_solver {
  ag_solver_kind kind;
  const ag__solver_ops *ops;
  ag_admm_options opt;
  ag_device *dev;
  ag_queue *q;
  ag_dtype dtype;       /* f32 or f64 (or complex, for the solvers that take it) */
  double lmbda;
  double rho, rho_tau, rho_mu, rho_xi, rlx;
  double nx, nc;        /* elements of X and of U (sporco's Nx, Nc) */
  size_t k;             /* iterations run */
  bool converged;
  /* The iterates: X, Y, U; Yprev; AXnr (X itself when A is the identity) and AX (AXnr when
     relax is 1); work, an array of Y's shape. */
  ag_array *x, *y, *u, *yprev, *axnr, *ax, *work;
  ag_array *xtmp[2];    /* two arrays of X's shape, when A is not the identity */
  ag_array *c;          /* the constraint's constant, NULL for 0; the solver's to set */
  ag_array *scal;       /* real scalars on the device: the norms of one iteration */
  ag_array *scal_view[8];
  ag_iter_stats *hist;
  size_t nhist, caphist;
  ag_solver_callback cb;
  void *cb_user;
  double xrrs;          /* the last linear solve's relative residual, NaN unchecked */
  int gs_iter;
  void *impl;           /* the solver's own state */
};

/* Checks lmbda (>= 0 and finite, or NaN where @p nan_default: the solver's default) and
   allocates a zeroed solver with a zeroed impl of @p impl_size bytes (s->impl). */
ag_status ag__solver_alloc(const char *fn, double lmbda, bool nan_default, size_t impl_size, ag_solver **s);

/* Makes the common part: the options (defaults when @p opt is NULL), rho from opt or
   @p rho_default, rho_xi from opt or @p xi_default, X, Y, U (Y0/U0 or zeros; U from
   @p u_default when given and no U0), Yprev, work, AX. @p xshape is X's, @p yshape Y's and
   U's. */
ag_status ag__solver_init(ag_solver *s, const char *fn, ag_solver_kind kind, const ag__solver_ops *ops,
                          ag_queue *q, ag_device *dev, ag_dtype t, const ag_admm_options *opt, double rho_default,
                          double xi_default, int xndim, const size_t *xshape, int yndim, const size_t *yshape);

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
/* The relaxed A X (what ystep reads), and A X unrelaxed. */
const ag_array *ag__solver_ax(const ag_solver *s);
const ag_array *ag__solver_axnr(const ag_solver *s);
/* The y step of BPDN and ConvBPDN: Y = prox_l1(AX + U, (lmbda / rho) l1_weight), then clipped
   at 0 with nonneg (NonNegCoef). */
ag_status ag__solver_ystep_l1(ag_solver *s);
/* Appends @p st to the solver's history. */
ag_status ag__solver_push_stats(ag_solver *s, const ag_iter_stats *st);
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
   naming @p fn and the argument. */
ag_status ag__csc_check_problem(const char *fn, const char *solver, const ag_array *D, const ag_array *S, unsigned flags,
                                ag__csc_geometry *g);

#endif
