/* tests/test_mpol.c - MPoL's losses and forward model (learn.h) on every device: each loss and
   gradient against a long double reference, central finite differences (f64) and PyTorch's
   autograd on a transcription of MPoL v0.2.0 (tests/torch_mpol.py, skipped without torch);
   scale, AG_LOSS_ACCUMULATE, loss only and gradient only; the sky and packed layouts, the Hann
   convolution and the Fourier cube with its adjoint against direct references, numpy's layout
   and the dot-product test; refused input; and the RML loop of examples/rml_imaging.c against
   MPoL's tutorial loop in PyTorch. f64 where the device has double precision, f32 everywhere;
   tolerances stated per test and dtype. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "python.h"

/* ---- host data ----------------------------------------------------------------------------- */

static unsigned long long rng_state;

static double uniform(void) { /* xorshift64*, [0, 1) */
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static bool is_cplx(ag_dtype t) { return t == AG_C64 || t == AG_C128; }

/* An array of dtype @p t from doubles (interleaved real and imaginary parts when complex). */
static ag_array *up(ag_device *dev, ag_dtype t, int nd, const size_t *shape, const double *v) {
  size_t n = 1;
  for (int k = 0; k < nd; k++)
    n *= shape[k];
  size_t m = is_cplx(t) ? 2 * n : n;
  void *buf = malloc(m * 8 + 8);
  for (size_t i = 0; i < m; i++) {
    if (t == AG_F32 || t == AG_C64)
      ((float *)buf)[i] = (float)v[i];
    else if (t == AG_U8)
      ((unsigned char *)buf)[i] = (unsigned char)v[i];
    else
      ((double *)buf)[i] = v[i];
  }
  ag_array *a = NULL;
  CHECK_OK(ag_array_from_host(dev, t, nd, shape, buf, &a));
  free(buf);
  return a;
}

/* An array's values as doubles (interleaved when complex); the caller frees them. */
static double *down(const ag_array *a) {
  ag_dtype t = ag_array_dtype(a);
  size_t m = ag_array_size(a) * (is_cplx(t) ? 2 : 1);
  void *buf = malloc(ag_array_nbytes(a) + 8);
  CHECK_OK(ag_array_to_host(a, buf, ag_array_nbytes(a)));
  double *v = malloc(m * sizeof *v + 8);
  for (size_t i = 0; i < m; i++)
    v[i] = (t == AG_F32 || t == AG_C64) ? ((float *)buf)[i] : ((double *)buf)[i];
  free(buf);
  return v;
}

static double max_abs(const double *v, size_t m) {
  double s = 0;
  for (size_t i = 0; i < m; i++)
    s = fmax(s, fabs(v[i]));
  return s;
}

/* Every |got - want| within tol * max(1e-300, max |want|); @p what names the data. Returns the
   largest |got - want| / max |want|, for the log. */
static double check_close(const char *what, const double *got, const double *want, size_t m, double tol) {
  double scale = fmax(max_abs(want, m), 1e-300), worst = 0;
  for (size_t i = 0; i < m; i++) {
    ck_assert_msg(fabs(got[i] - want[i]) <= tol * scale, "%s: %s[%zu] = %.17g, expected %.17g (tolerance %g of %g)",
                  test_label(), what, i, got[i], want[i], tol, scale);
    worst = fmax(worst, fabs(got[i] - want[i]) / scale);
  }
  return worst;
}

static double check_scalar(const char *what, double got, double want, double tol) {
  ck_assert_msg(fabs(got - want) <= tol * fabs(want), "%s: %s = %.17g, expected %.17g (relative tolerance %g)",
                test_label(), what, got, want, tol);
  return fabs(got - want) / fabs(want);
}

static bool has_fp64(ag_device *dev) {
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  return info.fp64;
}

/* ---- the losses' inputs and their long double references ---------------------------------- */

enum { L_NLL, L_SPARSITY, L_ENTROPY, L_TV, L_TSV, L_COUNT };
static const char *const loss_names[L_COUNT] = {"nll", "sparsity", "entropy", "tv", "tsv"};

#define NCH 2
#define NY 7
#define NX 9
#define NEL (NCH * NY * NX)

typedef struct inputs {
  double cube[NEL], prior[NEL], weight[NEL], mask[NEL];
  double vis[2 * NEL], data[2 * NEL];
  double tot_flux, eps;
} inputs;

static const size_t cube_shape[3] = {NCH, NY, NX};

/* Random inputs: a positive cube (entropy takes logarithms), about half the cells masked.
   epsilon 1e-3, not MPoL's 1e-10, so that finite differences see a smooth TV. */
static void make_inputs(inputs *in, unsigned long long seed) {
  rng_state = seed;
  for (size_t i = 0; i < NEL; i++) {
    in->cube[i] = 0.05 + uniform();
    in->prior[i] = 0.2 + 0.5 * uniform();
    in->weight[i] = 0.5 + 2 * uniform();
    in->mask[i] = uniform() < 0.5 ? 1 : 0;
  }
  for (size_t i = 0; i < 2 * NEL; i++)
    in->vis[i] = uniform() - 0.5, in->data[i] = uniform() - 0.5;
  in->tot_flux = 3.5, in->eps = 1e-3;
}

/* L and dL/dx (x the loss's input: vis for nll, interleaved; the cube otherwise). */
static double ref_loss(int which, const inputs *in, const double *x, double *g) {
  long double s = 0;
  if (which == L_NLL) {
    size_t n = 0;
    for (size_t i = 0; i < NEL; i++)
      n += in->mask[i] != 0;
    for (size_t i = 0; i < NEL; i++) {
      long double rx = (long double)x[2 * i] - in->data[2 * i], ry = (long double)x[2 * i + 1] - in->data[2 * i + 1];
      bool on = in->mask[i] != 0;
      if (on)
        s += in->weight[i] * (rx * rx + ry * ry);
      g[2 * i] = on ? (double)(in->weight[i] * rx / n) : 0;
      g[2 * i + 1] = on ? (double)(in->weight[i] * ry / n) : 0;
    }
    return (double)(s / (2 * n));
  }
  for (size_t i = 0; i < NEL; i++)
    g[i] = 0;
  if (which == L_SPARSITY || which == L_ENTROPY) {
    for (size_t i = 0; i < NEL; i++) {
      if (which == L_SPARSITY) {
        s += fabsl(x[i]);
        g[i] = x[i] > 0 ? 1 : x[i] < 0 ? -1 : 0;
      } else {
        long double l = logl((long double)x[i] / in->prior[i]);
        s += x[i] * l / in->tot_flux;
        g[i] = (double)((l + 1) / in->tot_flux);
      }
    }
    return (double)s;
  }
  long double gl[NEL] = {0};
  for (size_t c = 0; c < NCH; c++)
    for (size_t y = 0; y + 1 < NY; y++)
      for (size_t xx = 0; xx + 1 < NX; xx++) {
        size_t k = (c * NY + y) * NX + xx;
        long double dx = (long double)x[k + 1] - x[k], dy = (long double)x[k + NX] - x[k];
        if (which == L_TV) {
          long double r = sqrtl(dx * dx + dy * dy + in->eps);
          s += r;
          gl[k] -= (dx + dy) / r, gl[k + 1] += dx / r, gl[k + NX] += dy / r;
        } else {
          s += dx * dx + dy * dy;
          gl[k] -= 2 * (dx + dy), gl[k + 1] += 2 * dx, gl[k + NX] += 2 * dy;
        }
      }
  for (size_t i = 0; i < NEL; i++)
    g[i] = (double)gl[i];
  return (double)s;
}

static size_t input_len(int which) { return which == L_NLL ? 2 * NEL : NEL; }

/* Runs loss @p which on @p dev in real dtype @p t with input @p x. *loss holds the loss's value
   before the call (used with AG_LOSS_ACCUMULATE) and after it; grad likewise (NULL: no
   gradient asked for); want_loss false asks for no loss. */
static void device_loss(ag_device *dev, ag_dtype t, int which, const inputs *in, const double *x, double scale,
                        unsigned flags, bool want_loss, double *loss, double *grad) {
  ag_dtype ct = t == AG_F32 ? AG_C64 : AG_C128;
  ag_dtype xt = which == L_NLL ? ct : t;
  ag_array *xa = up(dev, xt, 3, cube_shape, x);
  ag_array *la = want_loss ? up(dev, t, 1, (size_t[]){1}, loss) : NULL;
  ag_array *ga = grad ? up(dev, xt, 3, cube_shape, grad) : NULL;
  ag_array *d = NULL, *w = NULL, *m = NULL, *p = NULL;
  switch (which) {
  case L_NLL:
    d = up(dev, ct, 3, cube_shape, in->data), w = up(dev, t, 3, cube_shape, in->weight);
    m = up(dev, AG_U8, 3, cube_shape, in->mask);
    CHECK_OK(ag_loss_nll_gridded(NULL, xa, d, w, m, scale, la, ga, flags));
    break;
  case L_SPARSITY:
    CHECK_OK(ag_loss_sparsity(NULL, xa, scale, la, ga, flags));
    break;
  case L_ENTROPY:
    p = up(dev, t, 3, cube_shape, in->prior);
    CHECK_OK(ag_loss_entropy(NULL, xa, p, in->tot_flux, scale, la, ga, flags));
    break;
  case L_TV:
    CHECK_OK(ag_loss_tv_image(NULL, xa, in->eps, scale, la, ga, flags));
    break;
  default:
    CHECK_OK(ag_loss_tsv(NULL, xa, scale, la, ga, flags));
  }
  if (la) {
    double *v = down(la);
    *loss = v[0];
    free(v);
  }
  if (ga) {
    double *v = down(ga);
    memcpy(grad, v, input_len(which) * sizeof *v);
    free(v);
  }
  ag_array *all[] = {xa, la, ga, d, w, m, p};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    ag_array_free(all[k]);
}

static const double *loss_input(int which, const inputs *in) { return which == L_NLL ? in->vis : in->cube; }

/* f64: the kernels sum in double and the reductions are compensated: 1e-12 relative. f32: the
   terms are rounded to 2^-24 and summed over 126 elements: 2e-5 relative (of the loss, and
   of the largest gradient element). */
static double loss_tol(ag_dtype t) { return t == AG_F64 ? 1e-12 : 2e-5; }

/* ---- the losses ---------------------------------------------------------------------------- */

START_TEST(each_loss_and_gradient_match_the_long_double_reference) {
  ag_device *dev = test_device(_i);
  inputs in;
  make_inputs(&in, 11);
  for (int tt = 0; tt < 2; tt++) {
    ag_dtype t = tt == 0 ? AG_F32 : AG_F64;
    if (t == AG_F64 && !has_fp64(dev))
      continue;
    for (int which = 0; which < L_COUNT; which++) {
      const double *x = loss_input(which, &in);
      size_t m = input_len(which);
      double g_ref[2 * NEL], g[2 * NEL] = {0}, l = 0;
      double l_ref = ref_loss(which, &in, x, g_ref);
      device_loss(dev, t, which, &in, x, 1.0, 0, true, &l, g);
      char what[64];
      snprintf(what, sizeof what, "%s %s loss", ag_dtype_name(t), loss_names[which]);
      double el = check_scalar(what, l, l_ref, loss_tol(t));
      snprintf(what, sizeof what, "%s %s gradient", ag_dtype_name(t), loss_names[which]);
      double eg = check_close(what, g, g_ref, m, loss_tol(t));
      printf("%s: %s %s vs long double: loss %.2g, gradient %.2g\n", test_label(), ag_dtype_name(t),
             loss_names[which], el, eg);
    }
  }
}
END_TEST

/* Central differences of the device's f64 loss at 16 elements of each input (real and
   imaginary parts of vis), step 1e-5: the truncation error is about h^2 |L'''| ~ 1e-10 and the
   rounding 1e-16 |L| / h ~ 1e-11, so 1e-7 of the largest gradient element. */
START_TEST(gradients_match_central_finite_differences) {
  ag_device *dev = test_device(_i);
  if (!has_fp64(dev)) {
    printf("%s: not run: finite differences need f64, which the device does not have\n", test_label());
    return;
  }
  inputs in;
  make_inputs(&in, 12);
  const double h = 1e-5;
  for (int which = 0; which < L_COUNT; which++) {
    size_t m = input_len(which);
    double x[2 * NEL], g[2 * NEL] = {0}, l = 0;
    memcpy(x, loss_input(which, &in), m * sizeof *x);
    device_loss(dev, AG_F64, which, &in, x, 1.0, 0, true, &l, g);
    double gmax = max_abs(g, m);
    for (size_t k = 0; k < 16; k++) {
      size_t e = (k * 37 + 5) % m;
      double lp = 0, lm = 0, keep = x[e];
      x[e] = keep + h;
      device_loss(dev, AG_F64, which, &in, x, 1.0, 0, true, &lp, NULL);
      x[e] = keep - h;
      device_loss(dev, AG_F64, which, &in, x, 1.0, 0, true, &lm, NULL);
      x[e] = keep;
      double fd = (lp - lm) / (2 * h);
      ck_assert_msg(fabs(fd - g[e]) <= 1e-7 * gmax, "%s: %s: dL/dx[%zu] = %.12g, central difference %.12g",
                    test_label(), loss_names[which], e, g[e], fd);
    }
  }
}
END_TEST

/* With scale s: the loss is s L and the gradient s g; AG_LOSS_ACCUMULATE adds them to what
   loss and grad hold; loss only leaves no gradient to write, gradient only no loss. */
START_TEST(scale_accumulate_loss_only_and_gradient_only) {
  ag_device *dev = test_device(_i);
  ag_dtype t = has_fp64(dev) ? AG_F64 : AG_F32;
  inputs in;
  make_inputs(&in, 13);
  const double s = -0.625;
  for (int which = 0; which < L_COUNT; which++) {
    const double *x = loss_input(which, &in);
    size_t m = input_len(which);
    double g_ref[2 * NEL], g[2 * NEL], g0[2 * NEL], want[2 * NEL];
    double l_ref = ref_loss(which, &in, x, g_ref);
    for (size_t i = 0; i < m; i++)
      g0[i] = 0.25 * (double)(i % 7) - 0.5, want[i] = g0[i] + s * g_ref[i];
    char what[64];
    /* scaled, overwriting: loss and grad hold NaN before, which must not leak through */
    double l = NAN;
    for (size_t i = 0; i < m; i++)
      g[i] = NAN;
    device_loss(dev, t, which, &in, x, s, 0, true, &l, g);
    snprintf(what, sizeof what, "%s scaled loss", loss_names[which]);
    check_scalar(what, l, s * l_ref, loss_tol(t));
    for (size_t i = 0; i < m; i++)
      want[i] = s * g_ref[i];
    snprintf(what, sizeof what, "%s scaled gradient", loss_names[which]);
    check_close(what, g, want, m, loss_tol(t));
    /* accumulated */
    l = 1.5;
    memcpy(g, g0, m * sizeof *g);
    device_loss(dev, t, which, &in, x, s, AG_LOSS_ACCUMULATE, true, &l, g);
    snprintf(what, sizeof what, "%s accumulated loss", loss_names[which]);
    check_scalar(what, l, 1.5 + s * l_ref, loss_tol(t));
    for (size_t i = 0; i < m; i++)
      want[i] = g0[i] + s * g_ref[i];
    snprintf(what, sizeof what, "%s accumulated gradient", loss_names[which]);
    check_close(what, g, want, m, 2 * loss_tol(t));
    /* loss only, accumulated */
    l = 2.0;
    device_loss(dev, t, which, &in, x, s, AG_LOSS_ACCUMULATE, true, &l, NULL);
    snprintf(what, sizeof what, "%s loss only", loss_names[which]);
    check_scalar(what, l, 2.0 + s * l_ref, loss_tol(t));
    /* gradient only */
    memcpy(g, g0, m * sizeof *g);
    device_loss(dev, t, which, &in, x, s, 0, false, NULL, g);
    for (size_t i = 0; i < m; i++)
      want[i] = s * g_ref[i];
    snprintf(what, sizeof what, "%s gradient only", loss_names[which]);
    check_close(what, g, want, m, loss_tol(t));
  }
}
END_TEST

/* No cell in the mask: nothing to fit, so a loss of 0 and a zero gradient (MPoL divides by N = 0
   and raises). */
START_TEST(an_empty_mask_gives_a_zero_loss_and_gradient) {
  ag_device *dev = test_device(_i);
  inputs in;
  make_inputs(&in, 15);
  for (size_t i = 0; i < NEL; i++)
    in.mask[i] = 0;
  double l = 5, g[2 * NEL];
  for (size_t i = 0; i < 2 * NEL; i++)
    g[i] = 1;
  device_loss(dev, AG_F32, L_NLL, &in, in.vis, 1.0, 0, true, &l, g);
  ck_assert_msg(l == 0, "%s: loss %g", test_label(), l);
  for (size_t i = 0; i < 2 * NEL; i++)
    ck_assert_msg(g[i] == 0, "%s: grad[%zu] = %g", test_label(), i, g[i]);
}
END_TEST

/* ---- comparisons with PyTorch ---------------------------------------------------------------- */

static void write_npy(const char *dir, const char *name, int nd, const size_t *shape, const double *v) {
  char path[700], err[800];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  ck_assert_msg(npy_write(path, NPY_F8, nd, shape, v, err, sizeof err), "%s", err);
}

/* A complex array of @p shape (3-D) as float64 [..., 2]. */
static void write_npy_complex(const char *dir, const char *name, const size_t *shape, const double *v) {
  write_npy(dir, name, 4, (size_t[]){shape[0], shape[1], shape[2], 2}, v);
}

static npy_array read_npy(const char *dir, const char *name, size_t count) {
  char path[700], err[800];
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  npy_array a;
  ck_assert_msg(npy_read(path, &a, err, sizeof err), "%s", err);
  ck_assert_msg(a.dtype == NPY_F8 && a.count == count, "%s: %s holds %zu elements of %s, expected %zu f8", test_label(),
                path, a.count, npy_dtype_descr(a.dtype), count);
  return a;
}

static void run_torch(const char *mode, const char *dir) {
  char script[600], out[4000];
  snprintf(script, sizeof script, "%s/torch_mpol.py", getenv("ANYGPU_TEST_SOURCE_DIR"));
  char *const args[] = {"python3", script, (char *)mode, (char *)dir, NULL};
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: torch_mpol.py %s exited %d:\n%s", test_label(), mode, rc, out);
}

/* f64 against PyTorch's float64 autograd on the same inputs: both sum the same terms in other
   orders, 1e-12 relative. f32 is covered by the long double reference. */
START_TEST(losses_match_pytorch_autograd) {
  ag_device *dev = test_device(_i);
  if (!has_fp64(dev)) {
    printf("%s: not run: the comparison is in f64, which the device does not have\n", test_label());
    return;
  }
  inputs in;
  make_inputs(&in, 14);
  in.eps = 1e-10; /* MPoL's default */
  const char *dir = test_tmp_dir("mpol");
  write_npy_complex(dir, "vis", cube_shape, in.vis);
  write_npy_complex(dir, "data", cube_shape, in.data);
  write_npy(dir, "weight", 3, cube_shape, in.weight);
  write_npy(dir, "mask", 3, cube_shape, in.mask);
  write_npy(dir, "cube", 3, cube_shape, in.cube);
  write_npy(dir, "prior", 3, cube_shape, in.prior);
  write_npy(dir, "params", 1, (size_t[]){2}, (double[]){in.tot_flux, in.eps});
  run_torch("losses", dir);
  for (int which = 0; which < L_COUNT; which++) {
    size_t m = input_len(which);
    double g[2 * NEL] = {0}, l = 0;
    device_loss(dev, AG_F64, which, &in, loss_input(which, &in), 1.0, 0, true, &l, g);
    char name[40];
    npy_array tl = read_npy(dir, loss_names[which], 1);
    snprintf(name, sizeof name, "%s_grad", loss_names[which]);
    npy_array tg = read_npy(dir, name, m);
    char what[64];
    snprintf(what, sizeof what, "%s loss vs torch", loss_names[which]);
    double el = check_scalar(what, l, npy_get(&tl, 0), 1e-12);
    snprintf(what, sizeof what, "%s gradient vs torch autograd", loss_names[which]);
    double eg = check_close(what, g, tg.data, m, 1e-12);
    printf("%s: %s vs PyTorch: loss %.2g, gradient %.2g\n", test_label(), loss_names[which], el, eg);
    npy_free(&tl), npy_free(&tg);
  }
}
END_TEST

/* ---- the forward model ----------------------------------------------------------------------- */

/* numpy's fftshift of an axis of n: element k moves to (k + n / 2) % n. */
static void ref_layout(const double *x, size_t nc, size_t ny, size_t nx, bool to_packed, double *out) {
  for (size_t c = 0; c < nc; c++)
    for (size_t y = 0; y < ny; y++)
      for (size_t xx = 0; xx < nx; xx++) {
        size_t ys = (y + ny / 2) % ny, src = (c * ny + y) * nx + xx;
        if (to_packed) /* flip, then shift: column xx goes to nx - 1 - xx, then is shifted */
          out[(c * ny + ys) * nx + (nx - 1 - xx + nx / 2) % nx] = x[src];
        else /* shift, then flip */
          out[(c * ny + ys) * nx + nx - 1 - (xx + nx / 2) % nx] = x[src];
      }
}

static void ref_hann(const double *x, size_t nc, size_t ny, size_t nx, double *out) {
  static const double w[3] = {0.25, 0.5, 0.25};
  for (size_t c = 0; c < nc; c++)
    for (long y = 0; y < (long)ny; y++)
      for (long xx = 0; xx < (long)nx; xx++) {
        double s = 0;
        for (int a = -1; a <= 1; a++)
          for (int b = -1; b <= 1; b++)
            if (y + a >= 0 && y + a < (long)ny && xx + b >= 0 && xx + b < (long)nx)
              s += w[a + 1] * w[b + 1] * x[(c * ny + (size_t)(y + a)) * nx + (size_t)(xx + b)];
        out[(c * ny + (size_t)y) * nx + (size_t)xx] = s;
      }
}

/* vis = cell^2 sum x e^{-2 pi i (ky y / ny + kx x / nx)}, directly, in long double. */
static void ref_fourier(const double *x, size_t nc, size_t ny, size_t nx, double cell, double *vis) {
  const long double tau = 6.283185307179586476925286766559L;
  for (size_t c = 0; c < nc; c++)
    for (size_t ky = 0; ky < ny; ky++)
      for (size_t kx = 0; kx < nx; kx++) {
        long double re = 0, im = 0;
        for (size_t y = 0; y < ny; y++)
          for (size_t xx = 0; xx < nx; xx++) {
            long double ph = -tau * ((long double)((ky * y) % ny) / ny + (long double)((kx * xx) % nx) / nx);
            long double v = x[(c * ny + y) * nx + xx];
            re += v * cosl(ph), im += v * sinl(ph);
          }
        size_t o = (c * ny + ky) * nx + kx;
        vis[2 * o] = (double)(cell * cell * re), vis[2 * o + 1] = (double)(cell * cell * im);
      }
}

/* The layouts move values without arithmetic: exact, every dtype. */
START_TEST(sky_and_packed_layouts_match_numpy_and_round_trip) {
  ag_device *dev = test_device(_i);
  static const size_t shapes[][3] = {{2, 8, 8}, {1, 7, 9}, {3, 6, 5}, {1, 1, 1}};
  for (int tt = 0; tt < 2; tt++) {
    ag_dtype t = tt == 0 ? AG_F32 : AG_F64;
    if (t == AG_F64 && !has_fp64(dev))
      continue;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      const size_t *sh = shapes[s];
      size_t n = sh[0] * sh[1] * sh[2];
      double *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want);
      for (size_t i = 0; i < n; i++)
        x[i] = (double)i + 1;
      ag_array *xa = up(dev, t, 3, sh, x), *pa = NULL, *sa = NULL;
      CHECK_OK(ag_array_create(dev, t, 3, sh, &pa));
      CHECK_OK(ag_array_create(dev, t, 3, sh, &sa));
      CHECK_OK(ag_mpol_sky_to_packed(NULL, xa, pa));
      double *got = down(pa);
      ref_layout(x, sh[0], sh[1], sh[2], true, want);
      check_close("sky_to_packed", got, want, n, 0);
      free(got);
      CHECK_OK(ag_mpol_packed_to_sky(NULL, xa, sa));
      got = down(sa);
      ref_layout(x, sh[0], sh[1], sh[2], false, want);
      check_close("packed_to_sky", got, want, n, 0);
      free(got);
      /* MPoL shifts by fftshift both ways, so the two are inverses for even sides only */
      if (sh[1] % 2 == 0 && sh[2] % 2 == 0) {
        CHECK_OK(ag_mpol_packed_to_sky(NULL, pa, sa));
        got = down(sa);
        check_close("packed_to_sky(sky_to_packed(x))", got, x, n, 0);
        free(got);
      }
      ag_array_free(xa), ag_array_free(pa), ag_array_free(sa);
      free(x), free(want);
    }
  }
}
END_TEST

/* f64: a few products and sums, 1e-15 relative; f32: 1e-6. Self-adjointness <H x, y> = <x, H y>
   to the same tolerance of |x| |y|-sized sums. */
START_TEST(hann_convolution_matches_the_reference_and_is_self_adjoint) {
  ag_device *dev = test_device(_i);
  const size_t sh[3] = {2, 7, 10}, n = 2 * 7 * 10;
  double x[140], y[140], want[140];
  rng_state = 21;
  for (size_t i = 0; i < n; i++)
    x[i] = uniform() - 0.3, y[i] = uniform() - 0.6;
  for (int tt = 0; tt < 2; tt++) {
    ag_dtype t = tt == 0 ? AG_F32 : AG_F64;
    if (t == AG_F64 && !has_fp64(dev))
      continue;
    double tol = t == AG_F64 ? 1e-15 : 1e-6;
    ag_array *xa = up(dev, t, 3, sh, x), *ya = up(dev, t, 3, sh, y), *hx = NULL, *hy = NULL;
    CHECK_OK(ag_array_create(dev, t, 3, sh, &hx));
    CHECK_OK(ag_array_create(dev, t, 3, sh, &hy));
    CHECK_OK(ag_mpol_hann_conv(NULL, xa, hx));
    CHECK_OK(ag_mpol_hann_conv(NULL, ya, hy));
    double *gx = down(hx), *gy = down(hy), *xr = down(xa), *yr = down(ya);
    ref_hann(xr, sh[0], sh[1], sh[2], want);
    check_close("hann_conv", gx, want, n, tol);
    double a = 0, b = 0, mag = 0;
    for (size_t i = 0; i < n; i++)
      a += gx[i] * yr[i], b += xr[i] * gy[i], mag += fabs(xr[i] * yr[i]);
    ck_assert_msg(fabs(a - b) <= 10 * tol * mag, "%s: %s: <H x, y> = %.17g but <x, H y> = %.17g", test_label(),
                  ag_dtype_name(t), a, b);
    free(gx), free(gy), free(xr), free(yr);
    ag_array_free(xa), ag_array_free(ya), ag_array_free(hx), ag_array_free(hy);
  }
}
END_TEST

/* f64: FFT rounding, about 1e-16 log2(n) of the largest value: 1e-13; f32: 2e-6. The dot
   product test <F x, y> = <x, F* y> to the same relative tolerance of the sums' sizes. */
START_TEST(fourier_cube_matches_the_dft_and_its_adjoint_passes_the_dot_product_test) {
  ag_device *dev = test_device(_i);
  static const size_t shapes[][3] = {{2, 8, 8}, {1, 6, 10}, {2, 7, 9}};
  const double cell = 0.035;
  for (int tt = 0; tt < 2; tt++) {
    ag_dtype t = tt == 0 ? AG_F32 : AG_F64, ct = tt == 0 ? AG_C64 : AG_C128;
    if (t == AG_F64 && !has_fp64(dev))
      continue;
    double tol = t == AG_F64 ? 1e-13 : 2e-6;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      const size_t *sh = shapes[s];
      size_t n = sh[0] * sh[1] * sh[2];
      double *x = malloc(n * sizeof *x), *y = malloc(2 * n * sizeof *y), *want = malloc(2 * n * sizeof *want);
      rng_state = 31 + s;
      for (size_t i = 0; i < n; i++)
        x[i] = uniform();
      for (size_t i = 0; i < 2 * n; i++)
        y[i] = uniform() - 0.5;
      ag_array *xa = up(dev, t, 3, sh, x), *ya = up(dev, ct, 3, sh, y), *va = NULL, *aa = NULL;
      CHECK_OK(ag_array_create(dev, ct, 3, sh, &va));
      CHECK_OK(ag_array_create(dev, t, 3, sh, &aa));
      CHECK_OK(ag_mpol_fourier_cube(NULL, xa, cell, va));
      CHECK_OK(ag_mpol_fourier_cube_adjoint(NULL, ya, cell, aa));
      double *xr = down(xa), *yr = down(ya), *v = down(va), *adj = down(aa);
      ref_fourier(xr, sh[0], sh[1], sh[2], cell, want);
      double ef = check_close("fourier_cube", v, want, 2 * n, tol);
      long double lhs = 0, rhs = 0, mag = 0;
      for (size_t i = 0; i < n; i++) {
        lhs += (long double)v[2 * i] * yr[2 * i] + (long double)v[2 * i + 1] * yr[2 * i + 1];
        rhs += (long double)xr[i] * adj[i];
        mag += fabsl((long double)v[2 * i] * yr[2 * i]) + fabsl((long double)v[2 * i + 1] * yr[2 * i + 1]);
      }
      printf("%s: %s %zux%zux%zu: fourier_cube vs the DFT %.2g, dot-product test %.2Lg\n", test_label(),
             ag_dtype_name(t), sh[0], sh[1], sh[2], ef, fabsl(lhs - rhs) / mag);
      ck_assert_msg(fabsl(lhs - rhs) <= tol * mag, "%s: %s %zux%zux%zu: <F x, y> = %.17Lg but <x, F* y> = %.17Lg",
                    test_label(), ag_dtype_name(t), sh[0], sh[1], sh[2], lhs, rhs);
      free(xr), free(yr), free(v), free(adj), free(x), free(y), free(want);
      ag_array_free(xa), ag_array_free(ya), ag_array_free(va), ag_array_free(aa);
    }
  }
}
END_TEST

/* f64 against PyTorch: the layouts exactly, the Hann convolution to 1e-15 and the Fourier cube
   and autograd's gradient through it (the adjoint) to 1e-13 of the largest value. */
START_TEST(forward_model_matches_pytorch) {
  ag_device *dev = test_device(_i);
  if (!has_fp64(dev)) {
    printf("%s: not run: the comparison is in f64, which the device does not have\n", test_label());
    return;
  }
  const size_t sh[3] = {2, 8, 10}, n = 160;
  double x[160], g[320];
  rng_state = 41;
  for (size_t i = 0; i < n; i++)
    x[i] = uniform();
  for (size_t i = 0; i < 2 * n; i++)
    g[i] = uniform() - 0.5;
  const double cell = 0.0123;
  const char *dir = test_tmp_dir("mpol");
  write_npy(dir, "x", 3, sh, x);
  write_npy_complex(dir, "g", sh, g);
  write_npy(dir, "params", 1, (size_t[]){1}, (double[]){cell});
  run_torch("model", dir);
  ag_array *xa = up(dev, AG_F64, 3, sh, x), *ga = up(dev, AG_C128, 3, sh, g), *ra = NULL, *va = NULL;
  CHECK_OK(ag_array_create(dev, AG_F64, 3, sh, &ra));
  CHECK_OK(ag_array_create(dev, AG_C128, 3, sh, &va));
  static const char *const real_outs[] = {"to_packed", "to_sky", "hann", "adjoint"};
  static const double tols[] = {0, 0, 1e-15, 1e-13};
  for (int k = 0; k < 4; k++) {
    if (k == 0)
      CHECK_OK(ag_mpol_sky_to_packed(NULL, xa, ra));
    else if (k == 1)
      CHECK_OK(ag_mpol_packed_to_sky(NULL, xa, ra));
    else if (k == 2)
      CHECK_OK(ag_mpol_hann_conv(NULL, xa, ra));
    else
      CHECK_OK(ag_mpol_fourier_cube_adjoint(NULL, ga, cell, ra));
    double *got = down(ra);
    npy_array want = read_npy(dir, real_outs[k], n);
    char what[48];
    snprintf(what, sizeof what, "%s vs torch", real_outs[k]);
    printf("%s: %s vs PyTorch: %.2g\n", test_label(), real_outs[k], check_close(what, got, want.data, n, tols[k]));
    npy_free(&want), free(got);
  }
  CHECK_OK(ag_mpol_fourier_cube(NULL, xa, cell, va));
  double *got = down(va);
  npy_array want = read_npy(dir, "fourier", 2 * n);
  printf("%s: fourier_cube vs PyTorch: %.2g\n", test_label(),
         check_close("fourier_cube vs torch", got, want.data, 2 * n, 1e-13));
  npy_free(&want), free(got);
  ag_array_free(xa), ag_array_free(ga), ag_array_free(ra), ag_array_free(va);
}
END_TEST

/* ---- the RML loop ------------------------------------------------------------------------------ */

/* examples/rml_imaging.c on this device (ANYGPU_DEVICE), npix 64 and 50 epochs, against MPoL's
   tutorial loop in PyTorch (float64) on the data the example made (tests/torch_mpol.py rml),
   every epoch's loss. f64 (where the device has it): 1e-4 relative, as asked of the port;
   measured 6e-16 on host and pocl. Adam's first steps move each pixel by about lr whatever
   the size of its gradient, so rounding differences in gradients near zero could become
   differences of the parameters; any mistake in a gradient moves the loss by far more. f32
   (--f32, every device): 1e-5, the float32 rounding of 50 epochs (measured 8e-7 on host). */
START_TEST(rml_loop_matches_mpols_tutorial_loop_in_pytorch) {
  ag_device *dev = test_device(_i);
  const char *exe = getenv("ANYGPU_RML_EXAMPLE"), *dir = test_tmp_dir("mpol");
  ck_assert_msg(exe != NULL, "ANYGPU_RML_EXAMPLE names examples/rml_imaging (tests/meson.build sets it)");
  setenv("ANYGPU_DEVICE", test_spec(_i), 1);
  for (int single = has_fp64(dev) ? 0 : 1; single < 2; single++) {
    char sky[700], out[8000];
    snprintf(sky, sizeof sky, "%s/rml_sky.npy", dir);
    char *const args[] = {(char *)exe, "--npix", "64", "--epochs", "50", "--out", sky, "--save", (char *)dir,
                          single ? "--f32" : NULL, NULL};
    int rc = test_run(args, out, sizeof out);
    ck_assert_msg(rc == 0 || rc == 1, "%s: rml_imaging exited %d:\n%s", test_label(), rc, out);
    printf("%s: rml_imaging%s:\n%s", test_label(), single ? " --f32" : "", out);
    run_torch("rml", dir);
    npy_array mine = read_npy(dir, "losses", 50), ref = read_npy(dir, "losses_torch", 50);
    double worst = 0, tol = single ? 1e-5 : 1e-4;
    for (size_t e = 0; e < 50; e++) {
      double a = npy_get(&mine, e), b = npy_get(&ref, e), rel = fabs(a - b) / fabs(b);
      worst = fmax(worst, rel);
      ck_assert_msg(rel <= tol, "%s: %s: epoch %zu: loss %.17g, PyTorch's %.17g (relative difference %.3g)",
                    test_label(), single ? "f32" : "f64", e + 1, a, b, rel);
    }
    printf("%s: %s RML loop vs PyTorch: epoch 1 loss %.10e (torch %.10e), epoch 50 %.10e (torch %.10e), largest "
           "relative difference %.3g\n",
           test_label(), single ? "f32" : "f64", npy_get(&mine, 0), npy_get(&ref, 0), npy_get(&mine, 49),
           npy_get(&ref, 49), worst);
    npy_free(&mine), npy_free(&ref);
  }
}
END_TEST

/* ---- refused input --------------------------------------------------------------------------- */

START_TEST(bad_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  ag_dtype t = AG_F32, ct = AG_C64;
  const size_t sh[3] = {1, 4, 4}, other[3] = {1, 4, 5};
  ag_array *c = NULL, *c2 = NULL, *cw = NULL, *v = NULL, *d = NULL, *w = NULL, *m = NULL, *l = NULL, *g = NULL,
           *gv = NULL, *l64 = NULL, *i32 = NULL, *flat = NULL, *c64o = NULL, *cf64 = NULL;
  CHECK_OK(ag_array_create(dev, t, 3, sh, &c));
  CHECK_OK(ag_array_create(dev, t, 3, sh, &c2));
  CHECK_OK(ag_array_create(dev, t, 3, other, &cw));
  CHECK_OK(ag_array_create(dev, ct, 3, sh, &v));
  CHECK_OK(ag_array_create(dev, ct, 3, sh, &d));
  CHECK_OK(ag_array_create(dev, t, 3, sh, &w));
  CHECK_OK(ag_array_create(dev, AG_U8, 3, sh, &m));
  CHECK_OK(ag_array_create(dev, t, 1, (size_t[]){1}, &l));
  CHECK_OK(ag_array_create(dev, t, 3, sh, &g));
  CHECK_OK(ag_array_create(dev, ct, 3, sh, &gv));
  CHECK_OK(ag_array_create(dev, AG_F64, 1, (size_t[]){1}, &l64));
  CHECK_OK(ag_array_create(dev, AG_I32, 3, sh, &i32));
  CHECK_OK(ag_array_create(dev, t, 2, (size_t[]){4, 4}, &flat));
  CHECK_OK(ag_array_create(dev, ct, 3, other, &c64o));
  CHECK_OK(ag_array_create(dev, AG_F64, 3, sh, &cf64));
  CHECK_OK(ag_fill(NULL, c, 1.0));
  CHECK_OK(ag_fill(NULL, l, 7.0));
  CHECK_OK(ag_fill(NULL, g, 3.0));

  /* nll_gridded */
  CHECK_FAILS(ag_loss_nll_gridded(NULL, NULL, d, w, m, 1, l, gv, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_nll_gridded",
              "vis");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, c, d, w, m, 1, l, gv, 0), AG_ERR_UNSUPPORTED, "ag_loss_nll_gridded", "vis");
  /* the library's one message for an operand of a dtype the function does not take */
  char want[160];
  snprintf(want, sizeof want, "ag_loss_nll_gridded: vis is %s, which ag_loss_nll_gridded does not take (it takes c64 "
           "and c128)", ag_dtype_name(ag_array_dtype(c)));
  ck_assert_str_eq(ag_last_error(), want);
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, NULL, w, m, 1, l, gv, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_nll_gridded",
              "data");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, c64o, w, m, 1, l, gv, 0), AG_ERR_MISMATCH, "ag_loss_nll_gridded", "data");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, NULL, m, 1, l, gv, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_nll_gridded",
              "weight");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, cw, m, 1, l, gv, 0), AG_ERR_MISMATCH, "ag_loss_nll_gridded", "weight");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, cf64, m, 1, l, gv, 0), AG_ERR_MISMATCH, "ag_loss_nll_gridded",
              "weight");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, NULL, 1, l, gv, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_nll_gridded",
              "mask");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, c, 1, l, gv, 0), AG_ERR_MISMATCH, "ag_loss_nll_gridded", "mask");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, m, NAN, l, gv, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_nll_gridded",
              "scale");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, m, 1, NULL, NULL, 0), AG_ERR_INVALID_ARGUMENT,
              "ag_loss_nll_gridded", "loss");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, m, 1, l64, gv, 0), AG_ERR_MISMATCH, "ag_loss_nll_gridded", "loss");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, m, 1, l, g, 0), AG_ERR_MISMATCH, "ag_loss_nll_gridded", "grad");
  CHECK_FAILS(ag_loss_nll_gridded(NULL, v, d, w, m, 1, l, gv, 8), AG_ERR_INVALID_ARGUMENT, "ag_loss_nll_gridded",
              "flags");
  /* sparsity, entropy, TV, TSV */
  CHECK_FAILS(ag_loss_sparsity(NULL, NULL, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_sparsity", "cube");
  CHECK_FAILS(ag_loss_sparsity(NULL, i32, 1, l, g, 0), AG_ERR_UNSUPPORTED, "ag_loss_sparsity", "cube");
  ck_assert_str_eq(ag_last_error(), "ag_loss_sparsity: cube is i32, which ag_loss_sparsity does not take (it takes f32 "
                                    "and f64)");
  CHECK_FAILS(ag_loss_sparsity(NULL, v, 1, l, gv, 0), AG_ERR_UNSUPPORTED, "ag_loss_sparsity", "cube");
  CHECK_FAILS(ag_loss_sparsity(NULL, c, INFINITY, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_sparsity", "scale");
  CHECK_FAILS(ag_loss_sparsity(NULL, c, 1, l, cw, 0), AG_ERR_MISMATCH, "ag_loss_sparsity", "grad");
  CHECK_FAILS(ag_loss_entropy(NULL, c, NULL, 1, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_entropy", "prior");
  CHECK_FAILS(ag_loss_entropy(NULL, c, cw, 1, 1, l, g, 0), AG_ERR_MISMATCH, "ag_loss_entropy", "prior");
  CHECK_FAILS(ag_loss_entropy(NULL, c, c2, 0, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_entropy", "tot_flux");
  CHECK_FAILS(ag_loss_entropy(NULL, c, c2, NAN, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_entropy", "tot_flux");
  CHECK_FAILS(ag_loss_entropy(NULL, c, c2, 1, 1, NULL, NULL, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_entropy", "grad");
  CHECK_FAILS(ag_loss_tv_image(NULL, flat, 1e-10, 1, l, NULL, 0), AG_ERR_MISMATCH, "ag_loss_tv_image", "cube");
  CHECK_FAILS(ag_loss_tv_image(NULL, c, -1, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_tv_image", "epsilon");
  CHECK_FAILS(ag_loss_tv_image(NULL, c, NAN, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_tv_image", "epsilon");
  CHECK_FAILS(ag_loss_tv_image(NULL, c, 1e-10, 1, l, g, 2), AG_ERR_INVALID_ARGUMENT, "ag_loss_tv_image", "flags");
  CHECK_FAILS(ag_loss_tsv(NULL, NULL, 1, l, g, 0), AG_ERR_INVALID_ARGUMENT, "ag_loss_tsv", "cube");
  CHECK_FAILS(ag_loss_tsv(NULL, flat, 1, l, NULL, 0), AG_ERR_MISMATCH, "ag_loss_tsv", "cube");
  CHECK_FAILS(ag_loss_tsv(NULL, c, 1, l64, g, 0), AG_ERR_MISMATCH, "ag_loss_tsv", "loss");
  /* the forward model */
  CHECK_FAILS(ag_mpol_sky_to_packed(NULL, NULL, c2), AG_ERR_INVALID_ARGUMENT, "ag_mpol_sky_to_packed", "sky");
  CHECK_FAILS(ag_mpol_sky_to_packed(NULL, c, NULL), AG_ERR_INVALID_ARGUMENT, "ag_mpol_sky_to_packed", "packed");
  CHECK_FAILS(ag_mpol_sky_to_packed(NULL, c, cw), AG_ERR_MISMATCH, "ag_mpol_sky_to_packed", "packed");
  CHECK_FAILS(ag_mpol_sky_to_packed(NULL, c, c), AG_ERR_INVALID_ARGUMENT, "ag_mpol_sky_to_packed", "packed");
  CHECK_FAILS(ag_mpol_sky_to_packed(NULL, flat, c), AG_ERR_MISMATCH, "ag_mpol_sky_to_packed", "sky");
  CHECK_FAILS(ag_mpol_packed_to_sky(NULL, i32, c), AG_ERR_UNSUPPORTED, "ag_mpol_packed_to_sky", "packed");
  CHECK_FAILS(ag_mpol_packed_to_sky(NULL, c, cf64), AG_ERR_MISMATCH, "ag_mpol_packed_to_sky", "sky");
  CHECK_FAILS(ag_mpol_hann_conv(NULL, c, NULL), AG_ERR_INVALID_ARGUMENT, "ag_mpol_hann_conv", "out");
  CHECK_FAILS(ag_mpol_hann_conv(NULL, c, c), AG_ERR_INVALID_ARGUMENT, "ag_mpol_hann_conv", "out");
  CHECK_FAILS(ag_mpol_hann_conv(NULL, v, gv), AG_ERR_UNSUPPORTED, "ag_mpol_hann_conv", "cube");
  CHECK_FAILS(ag_mpol_fourier_cube(NULL, NULL, 1, v), AG_ERR_INVALID_ARGUMENT, "ag_mpol_fourier_cube", "packed");
  CHECK_FAILS(ag_mpol_fourier_cube(NULL, c, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_mpol_fourier_cube", "vis");
  CHECK_FAILS(ag_mpol_fourier_cube(NULL, c, 1, g), AG_ERR_UNSUPPORTED, "ag_mpol_fourier_cube", "vis");
  CHECK_FAILS(ag_mpol_fourier_cube(NULL, c, 1, c64o), AG_ERR_MISMATCH, "ag_mpol_fourier_cube", "vis");
  CHECK_FAILS(ag_mpol_fourier_cube(NULL, c, 0, v), AG_ERR_INVALID_ARGUMENT, "ag_mpol_fourier_cube", "cell_size");
  CHECK_FAILS(ag_mpol_fourier_cube(NULL, c, INFINITY, v), AG_ERR_INVALID_ARGUMENT, "ag_mpol_fourier_cube",
              "cell_size");
  CHECK_FAILS(ag_mpol_fourier_cube_adjoint(NULL, gv, -1, g), AG_ERR_INVALID_ARGUMENT, "ag_mpol_fourier_cube_adjoint",
              "cell_size");
  CHECK_FAILS(ag_mpol_fourier_cube_adjoint(NULL, c, 1, g), AG_ERR_UNSUPPORTED, "ag_mpol_fourier_cube_adjoint",
              "dvis");
  CHECK_FAILS(ag_mpol_fourier_cube_adjoint(NULL, gv, 1, NULL), AG_ERR_INVALID_ARGUMENT,
              "ag_mpol_fourier_cube_adjoint", "dpacked");
  if (has_fp64(dev)) {
    ag_array *v128 = NULL;
    CHECK_OK(ag_array_create(dev, AG_C128, 3, sh, &v128));
    CHECK_FAILS(ag_mpol_fourier_cube_adjoint(NULL, v128, 1, g), AG_ERR_MISMATCH, "ag_mpol_fourier_cube_adjoint",
                "dvis");
    ag_array_free(v128);
  } else { /* f64 is refused where the device has no double precision */
    CHECK_FAILS(ag_loss_sparsity(NULL, cf64, 1, l64, NULL, 0), AG_ERR_UNSUPPORTED, "ag_loss_sparsity", "cube");
    CHECK_FAILS(ag_mpol_hann_conv(NULL, cf64, cf64), AG_ERR_UNSUPPORTED, "ag_mpol_hann_conv", "cube");
  }
  /* refused calls leave their outputs as they were */
  double *lv = down(l), *gvv = down(g);
  ck_assert_msg(lv[0] == 7.0 && gvv[0] == 3.0 && gvv[15] == 3.0, "%s: a refused call wrote its outputs", test_label());
  free(lv), free(gvv);
  ag_array *all[] = {c, c2, cw, v, d, w, m, l, g, gv, l64, i32, flat, c64o, cf64};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    ag_array_free(all[k]);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0)
    return;
  char why[600];
  bool torch = test_python_module("torch", "torch.__version__", "1.13", "python3-torch", why, sizeof why);
  Suite *own = torch ? s : suite_create("test_mpol");
  add_device_test(own, "each loss and gradient match the long double reference",
                  each_loss_and_gradient_match_the_long_double_reference);
  add_device_test(own, "gradients match central finite differences", gradients_match_central_finite_differences);
  add_device_test(own, "scale, accumulate, loss only and gradient only", scale_accumulate_loss_only_and_gradient_only);
  add_device_test(own, "an empty mask gives a zero loss and gradient", an_empty_mask_gives_a_zero_loss_and_gradient);
  add_device_test(own, "sky and packed layouts match numpy and round trip",
                  sky_and_packed_layouts_match_numpy_and_round_trip);
  add_device_test(own, "hann convolution matches the reference and is self-adjoint",
                  hann_convolution_matches_the_reference_and_is_self_adjoint);
  add_device_test(own, "fourier cube matches the DFT and its adjoint passes the dot-product test",
                  fourier_cube_matches_the_dft_and_its_adjoint_passes_the_dot_product_test);
  add_device_test(own, "bad input is refused naming the argument", bad_input_is_refused_naming_the_argument);
  if (!torch)
    test_run_without(own, "PyTorch", why);
  add_device_test(s, "losses match PyTorch autograd", losses_match_pytorch_autograd);
  add_device_test(s, "forward model matches PyTorch", forward_model_matches_pytorch);
  add_device_test(s, "RML loop matches MPoL's tutorial loop in PyTorch", rml_loop_matches_mpols_tutorial_loop_in_pytorch);
}
