/* src/solvers/dbi.c - sporco's DFT-domain linear solves (solvers.h): ag_solvedbi_sm and
   ag_solvemdbi_ism, (rho I + sum_c a_c a_c^H) x = b at each frequency, by the csc family's
   gram kernel (the factors E = (rho I + A A^H)^-1 A, A = [a_0 .. a_{C-1}], from the C x C
   system rho I + A^H A) and its solve kernel, x = (b - sum_c e_c (d_c . b)) / rho
   (kernels_shared/csc.h). */
#include <math.h>
#include <stdio.h>

#include "anygpu/solvers.h"
#include "anygpu/ops.h"
#include "seam.h"
#define AG_SHAPES_ONLY
#include "../../kernels_shared/csc.h"
#undef AG_SHAPES_ONLY

AG__SHAPE_LAUNCHER(launch_gram, AG_SHAPE_CSC_GRAM)
AG__SHAPE_LAUNCHER(launch_solve, AG_SHAPE_CSC_SOLVE)

/* Checks the arguments of @p fn, whose ah has @p vdims axes before its frequencies: 1 ([M][F],
   sm) or 2 ([C][M][F], ism), possibly after a leading axis of K systems. Sets the sizes: k
   right-hand sides, c rank-one terms, m, f, and whether ah has one system per right-hand
   side. */
static ag_status check_args(const char *fn, int vdims, const ag_array *ah, double rho, const ag_array *b,
                            const ag_array *x, size_t *k, size_t *c, size_t *m, size_t *f, bool *per_k) {
  ag_status st;
  if ((st = ag__check_array(fn, "ah", ah)) != AG_OK || (st = ag__check_array(fn, "b", b)) != AG_OK ||
      (st = ag__check_array(fn, "x", x)) != AG_OK || (st = ag__check_same_device(fn, "ah", ah, "b", b)) != AG_OK ||
      (st = ag__check_same_device(fn, "ah", ah, "x", x)) != AG_OK)
    return st;
  if (ah->dtype != AG_C64 && ah->dtype != AG_C128)
    return ag__error(AG_ERR_UNSUPPORTED, "%s: ah is %s; the DFT-domain solves take c64 or c128", fn,
                     ag_dtype_name(ah->dtype));
  if ((st = ag__check_same_dtype(fn, "ah", ah, "b", b)) != AG_OK ||
      (st = ag__check_same_dtype(fn, "ah", ah, "x", x)) != AG_OK || (st = ag__check_fp64(fn, ah->dev, ah->dtype)) != AG_OK)
    return st;
  const char *ah_shapes = vdims == 1 ? "[M][F] or [K][M][F]" : "[C][M][F] or [K][C][M][F]";
  if (ah->ndim != vdims + 1 && ah->ndim != vdims + 2)
    return ag__error(AG_ERR_MISMATCH, "%s: ah must be %s (frequencies flattened last); it is %d-D", fn, ah_shapes,
                     ah->ndim);
  *per_k = ah->ndim == vdims + 2;
  *m = ah->shape[ah->ndim - 2], *f = ah->shape[ah->ndim - 1];
  *c = vdims == 2 ? ah->shape[ah->ndim - 3] : 1;
  if (b->ndim != 2 && b->ndim != 3)
    return ag__error(AG_ERR_MISMATCH, "%s: b must be [M][F] or [K][M][F]; it is %d-D", fn, b->ndim);
  *k = b->ndim == 3 ? b->shape[0] : 1;
  if (b->shape[b->ndim - 2] != *m || b->shape[b->ndim - 1] != *f)
    return ag__error(AG_ERR_MISMATCH, "%s: b has M = %zu and F = %zu, ah M = %zu and F = %zu", fn,
                     b->shape[b->ndim - 2], b->shape[b->ndim - 1], *m, *f);
  if (*per_k && (b->ndim != 3 || b->shape[0] != ah->shape[0]))
    return ag__error(AG_ERR_MISMATCH, "%s: ah holds %zu systems, so b must be [K][M][F] with K = %zu", fn,
                     ah->shape[0], ah->shape[0]);
  if ((st = ag__check_same_shape(fn, "b", b, "x", x)) != AG_OK)
    return st;
  if (!(rho > 0) || !isfinite(rho))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: rho is %g; it must be positive and finite", fn, rho);
  if (*c == 0)
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: ah has no vectors (C = 0)", fn);
  if (ag__arrays_overlap(x, ah))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: x and ah overlap in one buffer", fn);
  return AG_OK;
}

/* Both solves: the factors of each system, then the solve of each right-hand side. */
static ag_status solve(const char *fn, int vdims, ag_queue *q, const ag_array *ah, double rho, const ag_array *b,
                       ag_array *x) {
  size_t k = 0, c = 0, m = 0, f = 0;
  bool per_k = false;
  ag_status st = check_args(fn, vdims, ah, rho, b, x, &k, &c, &m, &f, &per_k);
  if (st != AG_OK || x->size == 0)
    return st;
  size_t g = per_k ? k : 1;
  ag_array *e = NULL, *h = NULL, *bc = NULL;
  const ag_array *bsrc = b;
  double rd = rho;
  float rf = (float)rho;
  ag__val rv = ah->dtype == AG_C128 ? (ag__val){&rd, 8} : (ag__val){&rf, 4};
  ag__launch l = {.fn = fn, .q = q, .dev = ah->dev, .kernel = AG_K_CSC_GRAM + ah->dtype, .n = g * f};
  /* x overlapping b: the solve reads all of b before it writes x, from a copy */
  if (ag__arrays_overlap(x, b) && ((st = ag_array_create(b->dev, b->dtype, b->ndim, b->shape, &bc)) != AG_OK ||
                        (st = ag_copy(q, b, bc)) != AG_OK))
    goto prefixed;
  if (bc != NULL)
    bsrc = bc;
  if ((st = ag_array_create(ah->dev, ah->dtype, 2, (size_t[]){g * c * m, f}, &e)) != AG_OK ||
      (st = ag_array_create(ah->dev, ah->dtype, 2, (size_t[]){g * c * c, f}, &h)) != AG_OK)
    goto prefixed;
  /* the launches' messages name fn themselves */
  uint64_t cu = c, mu = m, fu = f, dk = per_k ? c * m * f : 0;
  if ((st = AG__LAUNCH(launch_gram, &l, .df = ah, .c = cu, .m = mu, .f = fu, .rho = rv, .h = h, .e = e)) != AG_OK)
    goto done;
  l.kernel = AG_K_CSC_SOLVE + ah->dtype;
  l.n = k * f;
  st = AG__LAUNCH(launch_solve, &l, .df = ah, .e = e, .b = bsrc, .c = cu, .m = mu, .f = fu, .dk = dk, .rho = rv,
                  .x = x);
  goto done;
prefixed:
  st = ag__prefix(st, fn);
done:
  ag_array_free(e), ag_array_free(h), ag_array_free(bc);
  return st;
}

ag_status ag_solvedbi_sm(ag_queue *q, const ag_array *ah, double rho, const ag_array *b, ag_array *x) {
  return solve("ag_solvedbi_sm", 1, q, ah, rho, b, x);
}

ag_status ag_solvemdbi_ism(ag_queue *q, const ag_array *ah, double rho, const ag_array *b, ag_array *x) {
  return solve("ag_solvemdbi_ism", 2, q, ah, rho, b, x);
}
