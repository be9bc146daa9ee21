/* src/solvers/pgm.h - the proximal gradient algorithm of sporco 0.2.2 (sporco.pgm.pgm.PGMDFT,
   with sporco.pgm.backtrack, momentum and stepsize), one implementation of the solver base
   (solver.h): its state, and the hooks through which a problem supplies its f (a least
   squares term in the DFT domain) and g's prox.

   The iteration lives in the DFT domain, as PGMDFT's: X^ and Y^ (xf, yf) are spectra, X (s->x)
   the spatial iterate. Each iteration, as sporco's solve():
     X^prev = X^; Y^prev = Y^ (for the residual); with monotone, the objective at k = 0;
     backtracking, or: xstep (the gradient step V^ = Y^ - g / L and X = prox(V), X^ = dft(X));
     ystep (the momentum's extrapolation of Y^);
     rsdl = ||X^ - Y^prev||^2 (rfl2norm2); then the base's statistics, callback and stop
     (when rsdl < tol).
   A hook enqueues its work on s->q and returns AG_OK or a status whose message names the
   public function; the norms it leaves in a device scalar are read back by the iteration. */
#ifndef AG_SRC_SOLVERS_PGM_H
#define AG_SRC_SOLVERS_PGM_H

#include "solver.h"

/* The flags of fid_norm, AG_PGM_WEIGH (weigh the bins as rfl2norm2 does: the spatial
   domain's norm) and AG_PGM_WITH_S (subtract the signal), are the pgm family's. */
#define AG_SHAPES_ONLY
#include "../../kernels_shared/pgm.h"
#undef AG_SHAPES_ONLY

typedef struct ag__pgm_ops {
  /* gf = the gradient of f at @p vf. */
  ag_status (*grad)(ag_solver *s, const ag_array *vf, ag_array *gf);
  /* X = prox_g(idft(vf)) for the step 1 / L (s->x), and @p xf = dft(X). */
  ag_status (*prox)(ag_solver *s, const ag_array *vf, ag_array *xf);
  /* X^ = dft(X). */
  ag_status (*dft)(ag_solver *s, const ag_array *x, ag_array *xf);
  /* out (a device scalar) = ||D vf - S|| (with AG_PGM_WITH_S) or ||D vf||, over the raw half
     spectra, or with AG_PGM_WEIGH weighted so that its square times the problem's `scale`
     is the spatial domain's. sporco's f is (1/2) ||D vf - S||^2 unweighted, its DFid the
     weighted one, and g^H H g the unweighted ||D g||^2. */
  ag_status (*fid_norm)(ag_solver *s, const ag_array *vf, unsigned flags, ag_array *out);
  /* out = ||w (a - b)|| (using @p scratch, of a's shape), so that rfl2norm2(a - b) is
     out^2 scale. */
  ag_status (*diff_norm)(ag_solver *s, const ag_array *a, const ag_array *b, ag_array *scratch, ag_array *out);
  /* out = sum |X| (RegL1 without its weight). */
  ag_status (*l1)(ag_solver *s, ag_array *out);
  /* Frees the problem's arrays (not s->impl itself); any may be NULL. */
  void (*destroy)(ag_solver *s);
} ag__pgm_ops;

/* The PGM algorithm's state (s->alg). */
typedef struct ag__pgm {
  const ag__pgm_ops *ops;
  ag_pgm_options opt;
  double l, t;                 /* L and the momentum's t */
  double scale;                /* 1 / N: rfl2norm2's normalisation of the DFT */
  double gamma_u;              /* the backtracking's, the class default applied */
  double objfn[3], objfn_prev[3]; /* obj, dfid, reg (monotone) */
  double f, q;                 /* the backtracking's F and Q, NaN without it */
  int iter_btrack;
  double tk;                   /* BacktrackRobust's Tk */
  bool zrb_set;                /* BacktrackRobust's Zrb made */
  /* Spectra of X's DFT shape: X^, Y^, X^prev, Y^prev, the gradient, V^, two scratch; the
     monotone step's Z^; BB's stored X^ and gradient; BacktrackRobust's Zrb. */
  ag_array *xf, *yf, *xfprv, *yfprv, *gf, *vf, *w1, *w2, *zzf, *bbx, *bbg, *zrb;
  ag_array *re;                /* re(conj(a) b), real, of the spectra's shape */
} ag__pgm;

/* The PGM state of a solver of the PGM class. */
static inline ag__pgm *ag__pgm_of(const ag_solver *s) { return (ag__pgm *)s->alg; }

/* ag__solver_alloc for a PGM solver of problem @p ops (its kind @p kind), with a zeroed
   problem state of @p impl_size bytes: from here on ag_solver_destroy frees what was made. */
ag_status ag__pgm_alloc(const char *fn, ag_solver_kind kind, const ag__pgm_ops *ops, double lmbda, bool nan_default,
                        size_t impl_size, ag_solver **s);

/* Makes the iteration's part of @p s, once the problem's own arrays exist: the options (the
   defaults when @p opt is NULL, checked), L, the base's fields (queue, device, dtype,
   max_iter, fast_solve), s->x ([xndim] xshape, a copy of opt->x0 or zeros), the spectra
   (complex dtype @p ct, [fndim] fshape), and X^ = Y^ = dft(X). */
ag_status ag__pgm_init(ag_solver *s, const char *fn, ag_queue *q, ag_device *dev, ag_dtype t, const ag_pgm_options *opt,
                       ag_dtype ct, int xndim, const size_t *xshape, int fndim, const size_t *fshape);

#endif
