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
    @return AG_ERR_INVALID_ARGUMENT for a NULL opt or an unknown kind, and for
    AG_SOLVER_PGM_CBPDN, whose options are an ag_pgm_options (ag_pgm_options_default). */
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
  /* The PGM solvers' own (NaN, and iter_btrack 0, for the ADMM solvers; a PGM solver has
     dfid, reg and obj, the rest of the fields above NaN): */
  double rsdl;     /* Rsdl: the fixed point residual, squared (sporco's rfl2norm2) */
  double f_btrack; /* F_Btrack: f at the accepted X of the backtracking; NaN without it */
  double q_btrack; /* Q_Btrack: its quadratic model there; NaN without backtracking */
  int iter_btrack; /* IterBTrack: the backtracking's tries; 0 without it */
  double l;        /* L: the inverse of the gradient step, as the iteration used it last */
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
      argmin_X (1/2) sum_c || sum_m d_cm * x_m - s_kc ||_2^2 + lmbda sum_m ||x_m||_1
    for each signal k, * the circular convolution over the two spatial axes, c over the C
    channels of a multi-channel dictionary (C = 1 for a single-channel one). f32 or f64, one
    dtype and device; the filters no larger than the signals. The shapes:
      - single-channel: D [M][Nd0][Nd1] with S [N0][N1] (one signal), [K][N0][N1] (K signals)
        or [K][C][N0][N1] (K signals of C channels, each channel coded on its own: the same
        problem as K C signals, X [K C][M][N0][N1] with signal k channel c at k C + c);
      - multi-channel: D [M][C][Nd0][Nd1] with S [C][N0][N1] (one signal) or [K][C][N0][N1],
        the same C.
    X, Y and U are always 4-D, [K][M][N0][N1]. sporco's axes map as: its D (Nd0, Nd1, M) or
    (Nd0, Nd1, C, M) is D [M][Nd0][Nd1] or [M][C][Nd0][Nd1], its S (N0, N1, K), (N0, N1, C) or
    (N0, N1, C, K) is S [K][N0][N1], [C][N0][N1] or [K][C][N0][N1], its X (N0, N1, 1, K, M) is
    X [K][M][N0][N1]; a single-channel D with a C-channel S (sporco's dimK=0) is the same
    problem as K = C signals.
    lmbda NaN is sporco's default, 0.1 max |conj(D^) S^| over the DFT, taken channel by channel;
    rho defaults to 50 lmbda + 1 and AutoRho's target to 1 + 18.3^(log10 lmbda + 1), as
    sporco's. The x step is sporco's, in the DFT domain with real FFTs (ag_rfft): per frequency
    the solve of (rho I + sum_c conj(d_c) d_c^T) x = b, sporco's solvedbi_sm (C = 1) and
    solvemdbi_ism (C > 1), here from factors made once per value of rho and computed without
    dividing by rho (see ag_solvemdbi_ism); sporco's HighMemSolve (a cached factor) only
    changes how fast that is, and is not an option here: the results are HighMemSolve False's.
    NoBndryCross is not implemented. With y0 and no u0, U starts at (lmbda / rho) sign(Y0).
    @return AG_ERR_UNSUPPORTED for dtypes other than f32 and f64; AG_ERR_MISMATCH for other
    shapes (a multi-channel S whose channels are not D's, filters larger than the signals).
    @p opt NULL: sporco's defaults. */
AG_API ag_status ag_cbpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda,
                                 const ag_admm_options *opt, ag_solver **solver);

/** The momentum of the PGM iteration (sporco's Momentum option, sporco.pgm.momentum): the
    extrapolation Y = X + ((t_prev - 1) / t) (X - X_prev) with t from t_prev or the iteration k. */
typedef enum ag_pgm_momentum {
  AG_PGM_MOMENTUM_NESTEROV = 0,  /* MomentumNesterov: t = (1 + sqrt(1 + 4 t_prev^2)) / 2 */
  AG_PGM_MOMENTUM_LINEAR = 1,    /* MomentumLinear(b): t = (k + b) / b */
  AG_PGM_MOMENTUM_GENLINEAR = 2, /* MomentumGenLinear(a, b): t = (k + a) / b */
} ag_pgm_momentum;

/** How L adapts without backtracking (sporco's StepSizePolicy, sporco.pgm.stepsize), from
    the third iteration on (sporco's k > 1). */
typedef enum ag_pgm_step_policy {
  AG_PGM_STEP_FIXED = 0,  /* None: L stays */
  AG_PGM_STEP_CAUCHY = 1, /* StepSizePolicyCauchy: L = g^H H g / g^H g, g the gradient */
  AG_PGM_STEP_BB = 2,     /* StepSizePolicyBB: L = |dg|^2 / re(dx^H dg) (Barzilai-Borwein), kept
                             when negative */
} ag_pgm_step_policy;

/** The backtracking of L (sporco's Backtrack, sporco.pgm.backtrack). */
typedef enum ag_pgm_backtrack {
  AG_PGM_BACKTRACK_NONE = 0,     /* None */
  AG_PGM_BACKTRACK_STANDARD = 1, /* BacktrackStandard(gamma_u, maxiter) (Beck and Teboulle) */
  AG_PGM_BACKTRACK_ROBUST = 2,   /* BacktrackRobust(gamma_d, gamma_u, maxiter) (Florea and
                                    Vorobyov) */
} ag_pgm_backtrack;

/** A PGM solver's options, named after sporco's (in comments). ag_pgm_options_default fills
    them as sporco's sporco.pgm.cbpdn.ConvBPDN.Options does; change what you need after. */
typedef struct ag_pgm_options {
  size_t max_iter;      /* MaxMainIter: the iterations ag_solver_solve runs at most */
  double rel_stop_tol;  /* RelStopTol: the run stops when Rsdl is below it */
  double l;             /* L: the starting inverse step size, > 0; NaN: 1 (sporco's None) */
  struct {
    bool enabled;       /* AutoStop.Enabled: stop when Rsdl < tau0 / (1 + k) instead */
    double tau0;        /* AutoStop.Tau0 */
  } auto_stop;
  bool monotone;        /* Monotone: Beck and Teboulle's monotone FISTA */
  ag_pgm_momentum momentum; /* Momentum */
  double momentum_a;    /* MomentumGenLinear's a */
  double momentum_b;    /* MomentumLinear's and MomentumGenLinear's b */
  ag_pgm_step_policy step_policy; /* StepSizePolicy; not used with backtracking, as in sporco */
  struct {
    ag_pgm_backtrack kind; /* Backtrack: NONE, STANDARD or ROBUST */
    double gamma_u;     /* gamma_u: L's growth per try; NaN: the class's default, 1.2 for
                           STANDARD and 2 for ROBUST */
    double gamma_d;     /* gamma_d: ROBUST's decrease of L at each iteration's start */
    int maxiter;        /* maxiter: the tries per iteration at most */
  } backtrack;
  bool fast_solve;      /* FastSolve: no statistics, no residual: only max_iter and the
                           callback end a run */
  bool nonneg;          /* NonNegCoef: coefficients clipped at 0 */
  bool no_bndry_cross;  /* NoBndryCross: coefficients whose filter would cross the image's far
                           boundary are 0 */
  double l1_weight;     /* L1Weight, a scalar */
  const ag_array *x0;   /* X0: the initial X, copied at creation; NULL: zeros */
} ag_pgm_options;

/** Fills @p opt with sporco's defaults for sporco.pgm.cbpdn.ConvBPDN: max_iter 1000,
    rel_stop_tol 1e-3, l 500, auto_stop off (tau0 1e-2), not monotone, Nesterov momentum
    (momentum_a 50, momentum_b 2, the classes' defaults), fixed step, no backtracking (gamma_u
    NaN, gamma_d 0.9, maxiter 50), fast_solve, nonneg and no_bndry_cross false, l1_weight 1,
    x0 NULL. @return AG_ERR_INVALID_ARGUMENT for a NULL opt. */
AG_API ag_status ag_pgm_options_default(ag_pgm_options *opt);

/** Convolutional basis pursuit denoising by the proximal gradient method (FISTA),
    sporco.pgm.cbpdn.ConvBPDN: the problem of ag_cbpdn_create,
      argmin_X (1/2) || sum_m d_m * x_m - s_k ||_2^2 + lmbda sum_m ||x_m||_1,
    with the same layouts: D [M][Nd0][Nd1] (single-channel filters no larger than the signals),
    S [N0][N1] or [K][N0][N1], f32 or f64, one dtype and device; X is [K][M][N0][N1]. lmbda NaN
    is sporco's default, 0.1 max |conj(D^) S^| over the DFT. Each iteration, as sporco's
    PGMDFT: the gradient step V^ = Y^ - (1/L) D^H (D Y^ - S^) in the DFT domain (real FFTs),
    X = prox_l1(irfft(V^), lmbda / L W), X^ = rfft(X), then the momentum's extrapolation
    Y^ = X^ + ((t_prev - 1) / t) (X^ - X^_prev); with backtracking, the gradient step is retried
    with L grown until sporco's test F <= Q passes. The statistics are sporco's: obj, dfid,
    reg (RegL1), rsdl, f_btrack, q_btrack, iter_btrack, l; the run stops when rsdl is below
    rel_stop_tol (ag_solver_converged). ag_solver_var_get gives X for AG_VAR_X and
    AG_VAR_RESULT (sporco's solve() returns X), NULL for AG_VAR_Y and AG_VAR_U;
    ag_solver_rho is NaN (ag_solver_pgm_l gives L). @p opt NULL: sporco's defaults.
    @return AG_ERR_UNSUPPORTED for multi-channel input (a 4-D D or S) and dtypes other than f32
    and f64; AG_ERR_MISMATCH for other shapes and an x0 of another shape, dtype or device;
    AG_ERR_INVALID_ARGUMENT for a bad lmbda or option, naming it. */
AG_API ag_status ag_pgm_cbpdn_create(ag_queue *q, const ag_array *D, const ag_array *S, double lmbda,
                                     const ag_pgm_options *opt, ag_solver **solver);

/** A PGM solver's current L (sporco's b.L), the inverse of its gradient step; NaN for the
    ADMM solvers and NULL. */
AG_API double ag_solver_pgm_l(const ag_solver *s);

/** Runs up to @p n iterations, fewer when the stopping test passes or the callback asks to
    stop. @p done (may be NULL) receives the iterations run. A solver continues where it
    stopped, as sporco's solve() does when called again.
    @return AG_OK, also when it stopped early (ag_solver_converged says why). */
AG_API ag_status ag_solver_iterate(ag_solver *s, size_t n, size_t *done);
/** ag_solver_iterate for the options' max_iter iterations (sporco's solve()). */
AG_API ag_status ag_solver_solve(ag_solver *s);
/** Whether the last iteration passed the stopping test (r < eps_pri and s < eps_dua; for the
    PGM solver, rsdl below rel_stop_tol or AutoStop's bound). */
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

/* ---- Linear systems of the DFT domain ------------------------------------------------------ */

/** sporco.linalg.solvedbi_sm: solves, at each frequency f, the M x M system
      (a a^H + rho I) x = b,   a = conj(ah)
    (the Sherman-Morrison formula; ConvBPDN's x step). The frequencies are flattened into the
    last axis, F:
      ah  [M][F] (one system per frequency, shared by every right-hand side) or [K][M][F] (one
          system per right-hand side k and frequency);
      b   [M][F] or [K][M][F] (K right-hand sides; [K][M][F] when ah is);
      x   b's shape, the solution; it may be b (solved in place), and must not overlap ah.
    sporco's ah (N0, N1, 1, 1, M) with b (N0, N1, 1, K, M) and axis M are ah [M][N0 N1] and
    b [K][M][N0 N1] here. ah, b and x are c64 or c128, one dtype and device; in c64 rho is
    rounded to float32. rho must be positive and finite. The result is that of sporco's formula
    up to rounding: x = (b - a (ah . b) / (rho + ah . a)) / rho.
    Precision: the system's condition number is (rho + |a|^2) / rho, and the solution's relative
    error and residual grow with it (rho small against |a|^2 loses that factor of the dtype's
    precision, as sporco's does).
    @return AG_ERR_INVALID_ARGUMENT for a NULL array, rho not positive and finite, or x
    overlapping ah; AG_ERR_UNSUPPORTED for an ah that is not c64 or c128, or c128 on a device
    without fp64; AG_ERR_MISMATCH for a b or x of another dtype, device or shape than the
    above. Runs on @p q (NULL: the device's default queue of this thread), asynchronously. */
AG_API ag_status ag_solvedbi_sm(ag_queue *q, const ag_array *ah, double rho, const ag_array *b, ag_array *x);

/** sporco.linalg.solvemdbi_ism: solves, at each frequency f, the M x M system
      (rho I + sum_c a_c a_c^H) x = b,   a_c = conj(ah_c), c = 0 .. C-1
    (C rank-one terms; ConvBPDN's x step with a C-channel dictionary). Layouts as
    ag_solvedbi_sm's with the rank-one terms' axis before M:
      ah  [C][M][F] (shared by every right-hand side) or [K][C][M][F] (one system per k);
      b   [M][F] or [K][M][F];  x  b's shape (it may be b; not overlapping ah).
    sporco's ah (N0, N1, C, 1, M) with axisK the C axis and axisM the M axis is ah [C][M][N0 N1]
    here, its b (N0, N1, 1, K, M) b [K][M][N0 N1]. c64 or c128; rho positive and finite.
    sporco iterates the Sherman-Morrison formula over the C terms; anygpu computes the same
    solution through the C x C system of the terms' Gram matrix instead (the push-through
    identity, (rho I + A A^H)^-1 A = A (rho I + A^H A)^-1 with A = [a_0 .. a_{C-1}]): per
    frequency the C x C matrix is inverted once (Gauss-Jordan, O(C^2 M + C^3)), then each
    right-hand side costs O(C M). ag_cbpdn_create uses the same factors. Precision and
    statuses as ag_solvedbi_sm's (the condition number is (rho + the largest eigenvalue of
    sum_c a_c a_c^H) / rho); also AG_ERR_INVALID_ARGUMENT for C = 0. */
AG_API ag_status ag_solvemdbi_ism(ag_queue *q, const ag_array *ah, double rho, const ag_array *b, ag_array *x);

#ifdef __cplusplus
}
#endif

#endif
