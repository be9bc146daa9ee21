/* anygpu/solvers.h - sparse coding and denoising solvers with sporco's semantics (sporco
   0.2.2's ADMM framework and solvers): the same iterations, options, defaults, stopping rule and
   iteration statistics, on any device. docs/solvers.md maps sporco's classes, options and
   array layouts onto these names.

   A solver is made for one problem (ag_bpdn_create, ...), run for some iterations
   (ag_solver_iterate, ag_solver_solve), inspected (ag_solver_history, ag_solver_var) and
   destroyed. Its arrays live on the device of the problem's arrays; its scalars (rho, the
   residuals, the objective) on the host, each iteration reading back a few numbers.

   Threads and ownership: a solver is used by one thread at a time, on the queue it was made
   with (NULL: that thread's default queue). It copies the problem's arrays at creation, so the
   caller may free them on return. Arrays returned by ag_solver_var are the solver's, valid
   until its next iteration or its destruction. */
#ifndef ANYGPU_SOLVERS_H
#define ANYGPU_SOLVERS_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The solvers, and sporco's class each follows. */
typedef enum ag_solver_kind {
  AG_SOLVER_BPDN = 0,  /* sporco.admm.bpdn.BPDN */
  AG_SOLVER_CBPDN = 1, /* sporco.admm.cbpdn.ConvBPDN */
  AG_SOLVER_TVL1 = 2,  /* sporco.admm.tvl1.TVL1Denoise */
  AG_SOLVER_TVL2 = 3,  /* sporco.admm.tvl2.TVL2Denoise */
  AG_SOLVER_RPCA = 4,  /* sporco.admm.rpca.RobustPCA */
  AG_SOLVER_PGM_CBPDN = 5, /* sporco.pgm.cbpdn.ConvBPDN */
} ag_solver_kind;

/** sporco's AutoRho options: every `period` iterations rho is multiplied (or divided) by a
    factor when the primal residual exceeds `rsdl_ratio` times the dual one (or the reverse),
    scaled by `rsdl_target`; the factor is `scaling`, or with `auto_scaling` the square root of
    the residuals' ratio, at most `scaling`. U is divided by the same factor. */
typedef struct ag_admm_auto_rho {
  bool enabled;        /* Enabled */
  int period;          /* Period */
  double scaling;      /* Scaling (tau) */
  double rsdl_ratio;   /* RsdlRatio (mu) */
  double rsdl_target;  /* RsdlTarget (xi); NaN: the solver's default, as sporco's None */
  bool auto_scaling;   /* AutoScaling */
  bool std_residuals;  /* StdResiduals: unnormalised residuals and tolerances */
} ag_admm_auto_rho;

/** A solver's options, named after sporco's (in comments). ag_solver_options_default fills
    them exactly as sporco's Options class of that solver does; change what you need after. */
typedef struct ag_admm_options {
  size_t max_iter;       /* MaxMainIter: the iterations ag_solver_solve runs at most */
  double abs_stop_tol;   /* AbsStopTol */
  double rel_stop_tol;   /* RelStopTol */
  double relax;          /* RelaxParam (alpha) */
  double rho;            /* rho; NaN: the solver's default (sporco's None) */
  ag_admm_auto_rho auto_rho;
  bool fast_solve;       /* FastSolve: no statistics, no residuals unless AutoRho needs them */
  bool f_eval_x;         /* fEvalX: the data term of the objective is evaluated at X, else Y */
  bool g_eval_y;         /* gEvalY: the regulariser is evaluated at Y, else at X (or A X) */
  bool return_x;         /* ReturnX: AG_VAR_RESULT is X, else Y */
  bool lin_solve_check;  /* LinSolveCheck: record the linear solve's relative residual */
  bool nonneg;           /* NonNegCoef: coefficients clipped at 0 (BPDN, ConvBPDN) */
  double l1_weight;      /* L1Weight, a scalar */
  double dfid_weight;    /* DFidWeight, a scalar (TVL1, TVL2) */
  double tv_weight;      /* TVWeight, a scalar (TVL1, TVL2) */
  int max_gs_iter;       /* MaxGSIter (TVL1, TVL2) */
  double gs_tol;         /* GSTol (TVL1, TVL2) */
  const ag_array *y0;    /* Y0: the initial Y, copied at creation; NULL: zeros */
  const ag_array *u0;    /* U0: the initial U, copied at creation; NULL: the solver's default */
} ag_admm_options;

/** Fills @p opt with sporco's defaults for @p kind.
    @return AG_ERR_INVALID_ARGUMENT for a NULL opt or an unknown kind. */
AG_API ag_status ag_solver_options_default(ag_solver_kind kind, ag_admm_options *opt);

/** One iteration's statistics, sporco's IterationStats. Fields a solver does not have are NaN
    (and gs_iter 0). */
typedef struct ag_iter_stats {
  size_t k;        /* Iter, from 0 */
  double obj;      /* ObjFun */
  double dfid;     /* DFid: the data term; NrmNuc (RobustPCA) */
  double reg;      /* RegL1 (BPDN, ConvBPDN), RegTV (TVL1, TVL2), NrmL1 (RobustPCA) */
  double reg2;     /* Cnstr, ||X + Y - S|| (RobustPCA) */
  double r;        /* PrimalRsdl */
  double s;        /* DualRsdl */
  double eps_pri;  /* EpsPrimal */
  double eps_dua;  /* EpsDual */
  double rho;      /* Rho */
  double xrrs;     /* XSlvRelRes (with lin_solve_check) or GSRelRes (TVL1, TVL2) */
  int gs_iter;     /* GSIter (TVL1, TVL2) */
} ag_iter_stats;

/** A solver: the problem's arrays, the iterates and the history of one run. */
typedef struct ag_solver ag_solver;

/** Basis pursuit denoising, sporco.admm.bpdn.BPDN:
      argmin_X (1/2) ||D X - S||_2^2 + lmbda ||X||_1
    D is (N, M), S is (N, K) or (N) (one signal); X, Y and U are (M, K), K = 1 for a 1-D S. f32 or f64,
    one dtype and device. lmbda NaN is sporco's default, 0.1 max |D^T S|. The linear system
    (D^T D + rho I) X = b of each iteration is solved through one eigendecomposition of the
    smaller Gram matrix (D^T D, or D D^T with the Woodbury identity) made once on the host in
    double precision, so a change of rho costs nothing (sporco refactorises instead).
    @p opt NULL: sporco's defaults. */
AG_API ag_status ag_bpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda,
                                const ag_admm_options *opt, ag_solver **solver);

/** Total-variation denoising, sporco.admm.tvl2.TVL2Denoise:
      argmin_X (1/2) ||W_df (X - S)||_2^2 + lmbda W_tv sum_i sqrt(sum_j (grad_j X)_i^2)
    and sporco.admm.tvl1.TVL1Denoise:
      argmin_X ||W_df (X - S)||_1 + lmbda W_tv sum_i sqrt(sum_j (grad_j X)_i^2),
    grad_j the forward difference along axes[j] with the last one 0 (ag_grad). S is 1-D to 3-D,
    f32 or f64; X has its shape. @p axes (NULL: sporco's default (0, 1), or (0) for a 1-D S)
    lists @p naxes distinct axes of S. Y and U are stacks of S's shape: component j the
    gradient along axes[j] (sporco keeps them on a last axis instead), and for TVL1 a last
    component, X - S. X starts at S, as in sporco. opt's dfid_weight and tv_weight are
    scalars (sporco also takes arrays). With y0 and no u0, U starts at 0 (sporco derives it
    from Y0). @p opt NULL: sporco's defaults (rho = 2 lmbda + 0.1). */
AG_API ag_status ag_tvl2_create(ag_queue *q, const ag_array *S, double lmbda, const int *axes, size_t naxes,
                                const ag_admm_options *opt, ag_solver **solver);
AG_API ag_status ag_tvl1_create(ag_queue *q, const ag_array *S, double lmbda, const int *axes, size_t naxes,
                                const ag_admm_options *opt, ag_solver **solver);

/** Robust principal component analysis, sporco.admm.rpca.RobustPCA:
      argmin_{X, Y} ||X||_* + lmbda ||Y||_1  such that  X + Y = S,
    a low-rank X and a sparse Y. S is a 2-D matrix (m, n), f32 or f64; X and Y have its shape.
    lmbda NaN is sporco's default, m^-1/2. Each x step thresholds the singular values of an
    m x n matrix, by LAPACK on the host (ag_prox_nuclear): the matrix is read back and the
    result written, on every device. ag_solver_var_get(s, AG_VAR_RESULT) is X, AG_VAR_Y is Y.
    @p opt NULL: sporco's defaults (rho = 2 lmbda + 0.1, AutoRho every iteration). */
AG_API ag_status ag_rpca_create(ag_queue *q, const ag_array *S, double lmbda, const ag_admm_options *opt,
                                ag_solver **solver);

/** Convolutional basis pursuit denoising, sporco.admm.cbpdn.ConvBPDN:
      argmin_X (1/2) || sum_m d_m * x_m - s_k ||_2^2 + lmbda sum_m ||x_m||_1  for each signal k,
    * the circular convolution over the two spatial axes. D is [M][Nd0][Nd1] (M single-channel
    filters, each no larger than the signals), S is [N0][N1] or [K][N0][N1] (K signals), f32 or
    f64, one dtype and device. X, Y and U are always 4-D, [K][M][N0][N1] (K = 1 for a 2-D S).
    sporco's axes map as: its S (N0, N1, K) is S [K][N0][N1], its D (Nd0, Nd1, M) is
    D [M][Nd0][Nd1], its X (N0, N1, 1, K, M) is X [K][M][N0][N1]; a single-channel D with a
    C-channel S (sporco's dimK=0) is the same problem as K = C signals.
    lmbda NaN is sporco's default, 0.1 max |conj(D^) S^| over the DFT; rho defaults to
    50 lmbda + 1 and AutoRho's target to 1 + 18.3^(log10 lmbda + 1), as sporco's. The x step is
    sporco's, in the DFT domain with real FFTs (ag_rfft) and the Sherman-Morrison solve per
    frequency, computed without dividing by rho; sporco's HighMemSolve (a cached factor) only
    changes how fast that is, and is not an option here: the results are HighMemSolve False's.
    NoBndryCross is not implemented. With y0 and no u0, U starts at (lmbda / rho) sign(Y0).
    @return AG_ERR_UNSUPPORTED for multi-channel input (a 4-D D or S: not implemented yet) and
    dtypes other than f32 and f64; AG_ERR_MISMATCH for other shapes. @p opt NULL: sporco's
    defaults. */
AG_API ag_status ag_cbpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda,
                                 const ag_admm_options *opt, ag_solver **solver);

/** Runs up to @p n iterations, fewer when the stopping test passes or the callback asks to
    stop. @p done (may be NULL) receives the iterations run. A solver continues where it
    stopped, as sporco's solve() does when called again.
    @return AG_OK, also when it stopped early (ag_solver_converged says why). */
AG_API ag_status ag_solver_iterate(ag_solver *s, size_t n, size_t *done);
/** ag_solver_iterate for the options' max_iter iterations (sporco's solve()). */
AG_API ag_status ag_solver_solve(ag_solver *s);
/** Whether the last iteration passed the stopping test (r < eps_pri and s < eps_dua). */
AG_API bool ag_solver_converged(const ag_solver *s);

/** Called after each iteration's statistics, rho update included; a nonzero return stops
    the run after this iteration (sporco's Callback option). NULL removes it. */
typedef int (*ag_solver_callback)(const ag_solver *s, const ag_iter_stats *stats, void *user);
AG_API ag_status ag_solver_set_callback(ag_solver *s, ag_solver_callback cb, void *user);

/** The statistics of every iteration run so far (none with fast_solve): *stats points at
    @p count entries, the solver's, valid until its next iteration. Returns the count. */
AG_API size_t ag_solver_history(const ag_solver *s, const ag_iter_stats **stats);

typedef enum ag_solver_var {
  AG_VAR_X = 0,      /* the primary variable */
  AG_VAR_Y = 1,      /* the auxiliary (split) variable */
  AG_VAR_U = 2,      /* the scaled dual variable */
  AG_VAR_RESULT = 3, /* what sporco's solve() returns: X or Y, as return_x says */
} ag_solver_var;

/** One of the solver's arrays, the solver's own (do not free it or write it), valid until the
    solver's next iteration or destruction. NULL for a NULL solver or unknown var. */
AG_API const ag_array *ag_solver_var_get(const ag_solver *s, ag_solver_var var);
/** The current penalty parameter rho, and the solver's lmbda. */
AG_API double ag_solver_rho(const ag_solver *s);
AG_API double ag_solver_lambda(const ag_solver *s);
AG_API ag_solver_kind ag_solver_kind_of(const ag_solver *s);

/** Frees the solver and its arrays. NULL is a no-op. */
AG_API void ag_solver_destroy(ag_solver *s);

#ifdef __cplusplus
}
#endif

#endif
