/* src/solvers/admm.h - the ADMM algorithm (sporco.admm.admm.ADMM), one implementation of the
   solver base (solver.h): its state, and the hooks through which a problem supplies its steps.

   The constraint is A X - Y = c (sporco's B = -I): A is the identity (sporco's ADMMEqual) when
   cnst_a is NULL, and c is 0 unless the problem sets a->c. Each iteration, as sporco's
   solve():
     Yprev = Y; xstep; AXnr = A X; AX = relax AXnr + (1 - relax) (Y + c); ystep;
     U += AX - Y - c; after_ustep;
     residuals (unless fast_solve without AutoRho); objective; rho update (rhochange);
     then the base's statistics, callback and stop test.
   A hook returns AG_OK or a status whose message names the public function. */
#ifndef AG_SRC_SOLVERS_ADMM_H
#define AG_SRC_SOLVERS_ADMM_H

#include "solver.h"

/* A problem's hooks, called by the ADMM iteration (admm.c) only, in the order above. */
typedef struct ag__admm_ops {
  const char *name;   /* "BPDN", for messages */
  /* Required: X from Y and U (s->x). */
  ag_status (*xstep)(ag_solver *s);
  /* Required: Y from AX (ag__admm_ax) and U. */
  ag_status (*ystep)(ag_solver *s);
  /* out = A x (NULL: A is the identity, and AXnr is X itself). */
  ag_status (*cnst_a)(ag_solver *s, const ag_array *x, ag_array *out);
  /* out = A^T y, for the dual residual and its normalisation (NULL with cnst_a NULL). */
  ag_status (*cnst_at)(ag_solver *s, const ag_array *y, ag_array *out);
  /* Runs once an iteration, right after U's update U += AX - Y - c and before anything else
     reads Y or U (the residuals, the objective, the rho update, the next x step): X is this
     iteration's x step's, Y and U the new ones, Yprev the old Y. A problem that keeps
     products of Y or U between iterations (BPDN's V^T Y and V^T U) brings them up to date
     here. From here to the next x step the iteration leaves Y alone and changes U only when
     AutoRho rescales it, and then calls rhochange. NULL: nothing kept. */
  ag_status (*after_ustep)(ag_solver *s);
  /* Replaces the default residuals (sporco's rsdl_r, rsdl_s, rsdl_rn, rsdl_sn): the norms of
     the primal residual r and dual residual s, and of their normalisations rn and sn, each
     holding the default's value on entry, to be changed. NULL: the default,
     r = ||AXnr - Y - c||, s = rho ||A^T (Yprev - Y)||, rn = max(||AXnr||, ||Y||, ||c||),
     sn = rho ||A^T U||. */
  ag_status (*residuals)(ag_solver *s, double *r, double *sd, double *rn, double *sn);
  /* Required: fills the objective's fields of @p st (obj, dfid, reg, reg2) and the problem's
     extras. */
  ag_status (*objective)(ag_solver *s, ag_iter_stats *st);
  /* Runs when AutoRho changed rho (a->rho is the new value) and has divided U by the same
     factor, after after_ustep: what the problem keeps of rho (BPDN's weights) or of U (its
     V^T U) is brought up to date here. NULL: nothing to do. */
  ag_status (*rhochange)(ag_solver *s);
  /* The array ag_solver_var_get gives for @p var when it is not the iterate itself (RobustPCA's
     Y); NULL: the iterate. */
  const ag_array *(*var)(const ag_solver *s, ag_solver_var var);
  /* Frees the problem's arrays (not s->impl itself); any may be NULL. */
  void (*destroy)(ag_solver *s);
} ag__admm_ops;

/* The ADMM algorithm's state (s->alg). */
typedef struct ag__admm {
  const ag__admm_ops *ops;
  ag_admm_options opt;
  double rho, rho_tau, rho_mu, rho_xi, rlx;
  double nx, nc;        /* elements of X and of U (sporco's Nx, Nc) */
  /* The iterates Y and U (X is the base's); Yprev; AXnr (X itself when A is the identity) and
     AX (AXnr when relax is 1); work, an array of Y's shape. */
  ag_array *y, *u, *yprev, *axnr, *ax, *work;
  ag_array *xtmp[2];    /* two arrays of X's shape, when A is not the identity */
  ag_array *c;          /* the constraint's constant, NULL for 0; the problem's to set */
  double xrrs;          /* the last linear solve's relative residual, NaN unchecked */
  int gs_iter;
} ag__admm;

/* The ADMM state of a solver of the ADMM class. */
static inline ag__admm *ag__admm_of(const ag_solver *s) { return (ag__admm *)s->alg; }

/* ag__solver_alloc for an ADMM solver of problem @p ops (its kind @p kind), with a zeroed
   problem state of @p impl_size bytes: from here on ag_solver_destroy frees what was made. */
ag_status ag__admm_alloc(const char *fn, ag_solver_kind kind, const ag__admm_ops *ops, double lmbda, bool nan_default,
                         size_t impl_size, ag_solver **s);

/* Makes the ADMM part: the options (defaults when @p opt is NULL), rho from opt or
   @p rho_default, rho_xi from opt or @p xi_default, X, Y, U (Y0/U0 or zeros), Yprev, work,
   AX. @p xshape is X's, @p yshape Y's and U's. */
ag_status ag__admm_init(ag_solver *s, const char *fn, ag_queue *q, ag_device *dev, ag_dtype t,
                        const ag_admm_options *opt, double rho_default, double xi_default, int xndim,
                        const size_t *xshape, int yndim, const size_t *yshape);

/* The relaxed A X (what ystep reads), and A X unrelaxed. */
const ag_array *ag__admm_ax(const ag_solver *s);
const ag_array *ag__admm_axnr(const ag_solver *s);
/* The y step of BPDN and ConvBPDN: Y = prox_l1(AX + U, (lmbda / rho) l1_weight), then clipped
   at 0 with nonneg (NonNegCoef). */
ag_status ag__admm_ystep_l1(ag_solver *s);

#endif
