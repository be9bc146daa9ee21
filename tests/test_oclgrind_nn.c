/* tests/test_oclgrind_nn.c — the nn family (kernels_shared/nn.h) inside Oclgrind's simulator
   through tests/oclgrind-run.py, for races, uninitialised values and accesses outside a buffer:
   every activation and its gradient, softmax and log-softmax and their gradients along both
   axes, and the mse and logitcrossentropy losses with their gradients, f32 and f64, on 5 x 13
   operands read through an offset in their buffers; and a dense layer's bias and activation,
   without the uninitialised-value check (its input is ag_gemm's output, which Oclgrind's record
   of initialised bytes does not follow: every element of it draws a report). Each result
   compared with the host device's. */
#include <stdlib.h>

#include "oclgrind.h"

#define ROWS 5
#define COLS 13
#define NOUT 8

enum { NACT = 7, NRES = 2 * NACT + 8 + 4 };
static const char *const names[NRES] = {
    "identity",         "identity grad",        "sigmoid",           "sigmoid grad",
    "softplus",         "softplus grad",        "relu",              "relu grad",
    "tanh",             "tanh grad",            "exp",               "exp grad",
    "log",              "log grad",             "softmax axis 0",
    "softmax grad axis 0", "logsoftmax axis 0", "logsoftmax grad axis 0", "softmax axis 1",
    "softmax grad axis 1", "logsoftmax axis 1", "logsoftmax grad axis 1", "mse loss",
    "mse grad",         "logitcrossentropy loss", "logitcrossentropy grad"};

/* Every nn kernel but the dense layer's on @p dev, its results in @p res (NRES arrays, on
   @p dev). */
static void run(ag_device *dev, ag_dtype t, const void *x0, const void *y0, ag_array **res) {
  const size_t shape[2] = {ROWS, COLS}, one = 1;
  ag_array *x = oclgrind_input(dev, t, 2, shape, x0), *y = oclgrind_input(dev, t, 2, shape, y0);
  size_t r = 0;
  for (int act = 0; act < NACT; act++) {
    ag_array *fx = test_array_new(dev, t, 2, shape), *dx = test_array_new(dev, t, 2, shape);
    CHECK_OK(ag_activate(NULL, (ag_activation)act, x, fx));
    CHECK_OK(ag_activate_grad(NULL, (ag_activation)act, fx, y, dx));
    res[r++] = fx, res[r++] = dx;
  }
  for (int axis = 0; axis < 2; axis++)
    for (int lg = 0; lg < 2; lg++) {
      ag_array *s = test_array_new(dev, t, 2, shape), *ds = test_array_new(dev, t, 2, shape);
      CHECK_OK((lg ? ag_logsoftmax : ag_softmax)(NULL, x, axis, s));
      CHECK_OK((lg ? ag_logsoftmax_grad : ag_softmax_grad)(NULL, s, y, axis, ds));
      res[r++] = s, res[r++] = ds;
    }
  for (int lce = 0; lce < 2; lce++) {
    ag_array *loss = test_array_new(dev, t, 1, &one), *grad = test_array_new(dev, t, 2, shape);
    CHECK_OK((lce ? ag_loss_logitcrossentropy : ag_loss_mse)(NULL, x, y, 0.5, loss, grad, 0));
    res[r++] = loss, res[r++] = grad;
  }
  ck_assert_uint_eq(r, NRES);
  oclgrind_keep(x), oclgrind_keep(y);
}

static void check(ag_dtype t) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  size_t es = ref_size(t), n = ROWS * COLS;
  void *x = test_alloc(n * es), *y = test_alloc(n * es);
  /* x positive, so that log's output is a number; y probabilities of each row, as the
     cross-entropy's targets */
  ref_random(t, x, n, 80, 0.05, 3);
  ref_random(t, y, n, 81, 0, 0.15);
  ag_array *got[NRES], *want[NRES];
  run(dev, t, x, y, got);
  run(host, t, x, y, want);
  double tol = t == AG_F32 ? 2e-5 : 1e-12;
  for (size_t i = 0; i < NRES; i++) {
    oclgrind_same(names[i], got[i], want[i], tol);
    oclgrind_keep(got[i]);
    ag_array_free(want[i]);
  }
  oclgrind_free_kept();
  free(x), free(y);
}

/* A dense layer's y = tanh(x w^T + b): ag_gemm, then the bias and activation kernel
   (ag_nn_bias_act_<t>) over what ag_gemm wrote. */
static ag_array *dense_on(ag_device *dev, ag_dtype t, const void *x0, const void *w0, const void *b0) {
  const size_t shape[2] = {ROWS, COLS}, wshape[2] = {NOUT, COLS}, bshape[1] = {NOUT}, yshape[2] = {ROWS, NOUT};
  ag_array *x = oclgrind_input(dev, t, 2, shape, x0), *w = oclgrind_input(dev, t, 2, wshape, w0),
           *b = oclgrind_input(dev, t, 1, bshape, b0), *y = test_array_new(dev, t, 2, yshape);
  CHECK_OK(ag_dense_forward(NULL, x, w, b, AG_ACT_TANH, y));
  oclgrind_keep(x), oclgrind_keep(w), oclgrind_keep(b);
  return y;
}

static void dense(ag_dtype t) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  size_t es = ref_size(t);
  void *x = test_alloc(ROWS * COLS * es), *w = test_alloc(NOUT * COLS * es), *b = test_alloc(NOUT * es);
  ref_random(t, x, ROWS * COLS, 80, -1, 1);
  ref_random(t, w, NOUT * COLS, 82, -0.5, 0.5);
  ref_random(t, b, NOUT, 83, -1, 1);
  ag_array *got = dense_on(dev, t, x, w, b), *want = dense_on(host, t, x, w, b);
  oclgrind_same("dense tanh(x w^T + b)", got, want, t == AG_F32 ? 2e-5 : 1e-12);
  oclgrind_keep(got);
  ag_array_free(want);
  oclgrind_free_kept();
  free(x), free(w), free(b);
}

START_TEST(every_nn_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32);
}
END_TEST

START_TEST(every_nn_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64);
}
END_TEST

START_TEST(the_dense_layers_bias_kernel_is_clean) {
  (void)_i;
  dense(AG_F32);
  dense(AG_F64);
}
END_TEST

/* Built twice (tests/meson.build): as test_oclgrind_nn, every kernel but the dense layer's,
   and with OCLGRIND_NN_DENSE as test_oclgrind_nn_dense, the dense layer's, which Oclgrind runs
   without its uninitialised-value check. */
void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
#ifdef OCLGRIND_NN_DENSE
  const bool dense_only = true;
#else
  const bool dense_only = false;
#endif
  if (dense_only) {
    add_device_test(s, "the dense layer's bias kernel is clean", the_dense_layers_bias_kernel_is_clean);
  } else {
    add_device_test(s, "every nn kernel is clean in f32", every_nn_kernel_is_clean_in_f32);
    add_device_test(s, "every nn kernel is clean in f64", every_nn_kernel_is_clean_in_f64);
  }
}
