/* tests/test_oclgrind_optim.c — the optim family (kernels_shared/optim.h) inside Oclgrind's
   simulator through tests/oclgrind-run.py, for races and accesses outside a buffer: every
   kernel (plain SGD, SGD with Nesterov momentum, weight decay and maximize, Optimisers.jl's
   Momentum, torch's Adam with and without amsgrad, Optimisers.jl's Adam) in f32 and f64, three
   steps on 37 parameters read through an offset in their buffer, each result compared with
   the host device's. Not for uninitialised values: the state starts with ag_fill, whose
   ag_fill_words Oclgrind reports as writing uninitialised values (tests/meson.build, tv). */
#include <math.h>
#include <stdlib.h>

#include "oclgrind.h"

#define N 37
#define STEPS 3

typedef struct optim_case {
  ag_optim_kind kind;
  double momentum;
  bool nesterov, amsgrad, maximize;
  double weight_decay;
} optim_case;

static const optim_case cases[] = {
    {AG_OPTIM_SGD, 0, false, false, false, 0},
    {AG_OPTIM_MOMENTUM_TORCH, 0.9, true, false, true, 0.1},
    {AG_OPTIM_MOMENTUM_FLUX, 0.9, false, false, false, 0},
    {AG_OPTIM_ADAM_TORCH, 0, false, false, false, 0.1},
    {AG_OPTIM_ADAM_TORCH, 0, false, true, true, 0},
    {AG_OPTIM_ADAM_FLUX, 0, false, false, false, 0},
};

/* STEPS steps of @p c from @p x0 with the gradients @p g (STEPS x N) on @p dev; the final
   parameters, the caller's to free. With @p kept (the simulator) the arrays go to
   oclgrind_keep() and the optimiser to *kept, released after the test's last launch. */
static void *run(ag_device *dev, ag_dtype t, const optim_case *c, const void *x0, const void *g,
                 ag_optimizer **kept) {
  bool keep = kept != NULL;
  ag_optim_options o;
  CHECK_OK(ag_optim_options_default(c->kind, &o));
  o.lr = 0.05;
  if (c->kind != AG_OPTIM_ADAM_TORCH && c->kind != AG_OPTIM_ADAM_FLUX)
    o.momentum = c->momentum;
  o.nesterov = c->nesterov, o.amsgrad = c->amsgrad, o.maximize = c->maximize, o.weight_decay = c->weight_decay;
  size_t n = N, es = ref_size(t);
  ag_array *x = keep ? oclgrind_operand(dev, t, 1, &n, x0) : test_array_from(dev, t, 1, &n, x0);
  ag_optimizer *opt = NULL;
  CHECK_OK(ag_optimizer_create(&o, x, &opt));
  for (int k = 0; k < STEPS; k++) {
    const char *gk = (const char *)g + (size_t)k * N * es;
    ag_array *ga = keep ? oclgrind_operand(dev, t, 1, &n, gk) : test_array_from(dev, t, 1, &n, gk);
    CHECK_OK(ag_optimizer_step(NULL, opt, x, ga));
    if (keep)
      oclgrind_keep(ga);
    else
      ag_array_free(ga);
  }
  void *out = test_array_read(x);
  if (keep) {
    oclgrind_keep(x);
    *kept = opt;
  } else {
    ag_optimizer_destroy(opt);
    ag_array_free(x);
  }
  return out;
}

static void check(ag_dtype t) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  size_t es = ref_size(t);
  void *x0 = test_alloc(N * es), *g = test_alloc((size_t)STEPS * N * es);
  ref_random(t, x0, N, 70, -2, 2);
  ref_random(t, g, (size_t)STEPS * N, 71, -1, 1);
  enum { NCASES = sizeof cases / sizeof cases[0] };
  ag_optimizer *kept[NCASES] = {0};
  for (size_t c = 0; c < NCASES; c++) {
    void *got = run(dev, t, &cases[c], x0, g, &kept[c]), *want = run(host, t, &cases[c], x0, g, NULL);
    double tol = t == AG_F32 ? 1e-6 : 1e-14;
    for (size_t i = 0; i < N; i++) {
      long double a = creall(ref_get(t, got, i)), b = creall(ref_get(t, want, i));
      ck_assert_msg(fabsl(a - b) <= tol * fmaxl(1, fabsl(b)), "%s: case %zu (%s), element %zu: %Lg, the host %Lg",
                    test_label(), c, ref_name(t), i, a, b);
    }
    free(got);
    free(want);
  }
  free(x0);
  free(g);
  oclgrind_free_kept();
  for (size_t c = 0; c < NCASES; c++)
    ag_optimizer_destroy(kept[c]);
}

START_TEST(every_optimiser_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32);
}
END_TEST

START_TEST(every_optimiser_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "every optimiser kernel is clean in f32", every_optimiser_kernel_is_clean_in_f32);
  add_device_test(s, "every optimiser kernel is clean in f64", every_optimiser_kernel_is_clean_in_f64);
}
