/* src/solvers/solver.c - the solver base (solver.h): sporco's solve() loop over an algorithm's
   table (iterate, then the statistics, the callback and the stop), the public functions every
   solver shares, and the helpers the algorithms use. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"
#include "seam.h"

ag_status ag__solver_alloc(const char *fn, const ag__solver_class *cls, ag_solver_kind kind, double lmbda,
                           bool nan_default, size_t alg_size, size_t impl_size, ag_solver **s) {
  *s = NULL;
  if (!((nan_default && isnan(lmbda)) || (lmbda >= 0 && isfinite(lmbda))))
    return ag__error(AG_ERR_INVALID_ARGUMENT, "%s: lmbda is %g; it must be >= 0%s", fn, lmbda,
                     nan_default ? " (NaN: sporco's default)" : "");
  ag_solver *n = calloc(1, sizeof *n);
  void *alg = calloc(1, alg_size);
  void *impl = calloc(1, impl_size);
  if (n == NULL || alg == NULL || impl == NULL) {
    free(n), free(alg), free(impl);
    return ag__error(AG_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  n->cls = cls, n->kind = kind, n->alg = alg, n->impl = impl;
  *s = n;
  return AG_OK;
}

ag_status ag__solver_array(ag_solver *s, int ndim, const size_t *shape, ag_array **a) {
  return ag_array_create(s->dev, s->dtype, ndim, shape, a);
}

ag_status ag__solver_make_scalars(ag_solver *s) {
  ag_status st = ag_array_create(s->dev, ag__dtype_real(s->dtype), 1, (size_t[]){8}, &s->scal);
  for (size_t i = 0; st == AG_OK && i < 8; i++)
    st = ag_array_index(s->scal, i, &s->scal_view[i]);
  return st;
}

ag_status ag__solver_scalars(ag_solver *s, size_t n, double *out) {
  ag_status st;
  if (s->scal->dtype == AG_F64) {
    double d[8];
    st = ag_array_to_host(s->scal, d, sizeof d);
    if (st != AG_OK)
      return st;
    memcpy(out, d, n * sizeof(double));
    return AG_OK;
  }
  float f[8];
  st = ag_array_to_host(s->scal, f, sizeof f);
  if (st != AG_OK)
    return st;
  for (size_t i = 0; i < n; i++)
    out[i] = f[i];
  return AG_OK;
}

ag_status ag__solver_norms(ag_solver *s, size_t n, const ag_array *const *x, double *out) {
  ag_status st;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == NULL)
      st = ag_fill(s->q, s->scal_view[i], 0.0);
    else
      st = ag_nrm2(s->q, x[i], AG_AXIS_ALL, s->scal_view[i]);
    if (st != AG_OK)
      return st;
  }
  return ag__solver_scalars(s, n, out);
}

ag_status ag__solver_l1(ag_solver *s, const ag_array *x, ag_array *tmp, double *out) {
  ag_status st = ag_abs(s->q, x, tmp);
  if (st != AG_OK)
    return st;
  st = ag_sum(s->q, tmp, AG_AXIS_ALL, s->scal_view[7]);
  if (st != AG_OK)
    return st;
  return ag__solver_scalar(s, 7, out);
}

ag_status ag__solver_scalar(ag_solver *s, int i, double *out) {
  double v[8];
  ag_status st = ag__solver_scalars(s, (size_t)i + 1, v);
  *out = v[i];
  return st;
}

/* Appends @p st to the solver's history. */
static ag_status push_stats(ag_solver *s, const ag_iter_stats *st) {
  if (s->nhist == s->caphist) {
    size_t cap = s->caphist ? 2 * s->caphist : 64;
    ag_iter_stats *h = realloc(s->hist, cap * sizeof *h);
    if (h == NULL)
      return ag__error(AG_ERR_OUT_OF_MEMORY, "out of host memory for %zu iteration statistics", cap);
    s->hist = h, s->caphist = cap;
  }
  s->hist[s->nhist++] = *st;
  return AG_OK;
}

/* One pass of sporco's solve() loop: the algorithm's iteration, its statistics recorded, the
   callback (which may ask to stop), the stopping test. */
static ag_status step(ag_solver *s, bool *stop) {
  ag_iter_stats is;
  bool converged = false;
  ag_status st = s->cls->iterate(s, &is, &converged);
  if (st != AG_OK)
    return st;
  if (!s->fast_solve) {
    st = push_stats(s, &is);
    if (st != AG_OK)
      return st;
  }
  *stop = false;
  if (s->cb != NULL && s->cb(s, s->fast_solve ? &is : &s->hist[s->nhist - 1], s->cb_user) != 0)
    *stop = true;
  s->converged = converged;
  if (converged)
    *stop = true;
  return AG_OK;
}

ag_status ag_solver_iterate(ag_solver *s, size_t n, size_t *done) {
  AG__CHECK_NOT_NULL("ag_solver_iterate", s);
  if (done != NULL)
    *done = 0;
  for (size_t i = 0; i < n; i++) {
    bool stop = false;
    ag_status st = step(s, &stop);
    if (st != AG_OK)
      return ag__prefix(st, "ag_solver_iterate");
    s->k++;
    if (done != NULL)
      *done = i + 1;
    if (stop)
      break;
  }
  return AG_OK;
}

ag_status ag_solver_solve(ag_solver *s) {
  AG__CHECK_NOT_NULL("ag_solver_solve", s);
  ag_status st = ag_solver_iterate(s, s->max_iter, NULL);
  return st == AG_OK ? AG_OK : ag__prefix(st, "ag_solver_solve");
}

bool ag_solver_converged(const ag_solver *s) { return s != NULL && s->converged; }

ag_status ag_solver_set_callback(ag_solver *s, ag_solver_callback cb, void *user) {
  AG__CHECK_NOT_NULL("ag_solver_set_callback", s);
  s->cb = cb, s->cb_user = user;
  return AG_OK;
}

size_t ag_solver_history(const ag_solver *s, const ag_iter_stats **stats) {
  if (stats != NULL)
    *stats = s != NULL ? s->hist : NULL;
  return s != NULL ? s->nhist : 0;
}

const ag_array *ag_solver_var_get(const ag_solver *s, ag_solver_var var) {
  if (s == NULL)
    return NULL;
  return s->cls->var(s, var);
}

double ag_solver_rho(const ag_solver *s) { return s != NULL ? s->cls->rho(s) : NAN; }
double ag_solver_lambda(const ag_solver *s) { return s != NULL ? s->lmbda : NAN; }
ag_solver_kind ag_solver_kind_of(const ag_solver *s) { return s != NULL ? s->kind : AG_SOLVER_BPDN; }

void ag_solver_destroy(ag_solver *s) {
  if (s == NULL)
    return;
  s->cls->destroy(s);
  ag_array_free(s->x);
  ag_array_free(s->scal);
  for (size_t i = 0; i < 8; i++)
    ag_array_free(s->scal_view[i]);
  free(s->hist);
  free(s->alg);
  free(s->impl);
  free(s);
}
