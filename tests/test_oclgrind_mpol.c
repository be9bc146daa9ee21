/* tests/test_oclgrind_mpol.c — the mpol family (kernels_shared/mpol.h) inside Oclgrind's
   simulator through tests/oclgrind-run.py, for races, uninitialised values and accesses outside
   a buffer: MPoL's losses with their gradients (nll_gridded, sparsity, entropy, TV_image, TSV),
   the sky and packed layouts both ways, the Hann convolution, and the Fourier cube and its
   adjoint around their FFTs, on cubes of 2 x 6 x 6 read through an offset in their buffers,
   f32 (c64) and f64 (c128); each result compared with the host device's. */
#include <stdlib.h>

#include "oclgrind.h"

#define NCHAN 2
#define NPIX 6
#define N (NCHAN * NPIX * NPIX)

/* Parts 0 to 4 are the losses, each dtype's in a process of its own: a loss makes and releases its
   own buffers of one element, and Oclgrind hands a released buffer's record of which bytes are
   initialised to the next buffer made (docs/kernels.md#oclgrind), so a second loss in the same
   process would draw reports that are not its own. Part 5 is the layouts, the Hann
   convolution and the Fourier cube. */
enum { NPARTS = 6, MAXRES = 5 };
static const char *const names[NPARTS][MAXRES] = {
    {"nll_gridded loss", "nll_gridded grad"},
    {"sparsity loss", "sparsity grad"},
    {"entropy loss", "entropy grad"},
    {"TV_image loss", "TV_image grad"},
    {"TSV loss", "TSV grad"},
    {"sky_to_packed", "packed_to_sky", "hann_conv", "fourier_cube", "fourier_cube_adjoint"}};

typedef struct mpol_inputs {
  void *cube, *prior, *weight, *vis, *data;
  unsigned char mask[N];
} mpol_inputs;

/* Part @p part's kernels on @p dev, in the real dtype @p t; its results in @p res, their count
   returned. */
static size_t run(ag_device *dev, ag_dtype t, int part, const mpol_inputs *in, ag_array **res) {
  ag_dtype c = t == AG_F32 ? AG_C64 : AG_C128;
  const size_t shape[3] = {NCHAN, NPIX, NPIX}, one = 1;
  ag_array *cube = oclgrind_input(dev, t, 3, shape, in->cube), *prior = oclgrind_input(dev, t, 3, shape, in->prior),
           *vis = oclgrind_input(dev, c, 3, shape, in->vis), *data = oclgrind_input(dev, c, 3, shape, in->data),
           *weight = oclgrind_input(dev, t, 3, shape, in->weight),
           *mask = oclgrind_input(dev, AG_U8, 3, shape, in->mask);
  oclgrind_keep(cube), oclgrind_keep(prior), oclgrind_keep(vis), oclgrind_keep(data), oclgrind_keep(weight);
  oclgrind_keep(mask);
  if (part < 5) {
    ag_array *loss = test_array_new(dev, t, 1, &one), *grad = test_array_new(dev, part == 0 ? c : t, 3, shape);
    switch (part) {
    case 0:
      CHECK_OK(ag_loss_nll_gridded(NULL, vis, data, weight, mask, 0.5, loss, grad, 0));
      break;
    case 1:
      CHECK_OK(ag_loss_sparsity(NULL, cube, 0.5, loss, grad, 0));
      break;
    case 2:
      CHECK_OK(ag_loss_entropy(NULL, cube, prior, 3.0, 0.5, loss, grad, 0));
      break;
    case 3:
      CHECK_OK(ag_loss_tv_image(NULL, cube, 1e-10, 0.5, loss, grad, 0));
      break;
    default:
      CHECK_OK(ag_loss_tsv(NULL, cube, 0.5, loss, grad, 0));
      break;
    }
    res[0] = loss, res[1] = grad;
    return 2;
  }
  for (int k = 0; k < 3; k++)
    res[k] = test_array_new(dev, t, 3, shape);
  CHECK_OK(ag_mpol_sky_to_packed(NULL, cube, res[0]));
  CHECK_OK(ag_mpol_packed_to_sky(NULL, cube, res[1]));
  CHECK_OK(ag_mpol_hann_conv(NULL, cube, res[2]));
  res[3] = test_array_new(dev, c, 3, shape);
  CHECK_OK(ag_mpol_fourier_cube(NULL, cube, 0.005, res[3]));
  res[4] = test_array_new(dev, t, 3, shape);
  CHECK_OK(ag_mpol_fourier_cube_adjoint(NULL, data, 0.005, res[4]));
  return 5;
}

static void check(ag_dtype t, int part) {
  ag_device *dev = oclgrind_device(0), *host;
  CHECK_OK(ag_device_select("host", &host));
  ag_dtype c = t == AG_F32 ? AG_C64 : AG_C128;
  mpol_inputs in = {test_alloc(N * ref_size(t)), test_alloc(N * ref_size(t)), test_alloc(N * ref_size(t)),
                    test_alloc(N * ref_size(c)), test_alloc(N * ref_size(c)), {0}};
  /* the cube positive, as entropy asks */
  ref_random(t, in.cube, N, 90, 0.01, 2);
  ref_random(t, in.prior, N, 91, 0.5, 1.5);
  ref_random(t, in.weight, N, 92, 0, 4);
  ref_random(c, in.vis, N, 93, -1, 1);
  ref_random(c, in.data, N, 94, -1, 1);
  for (size_t i = 0; i < N; i++)
    in.mask[i] = i % 3 != 1;
  ag_array *got[MAXRES], *want[MAXRES];
  size_t n = run(dev, t, part, &in, got);
  ck_assert_uint_eq(run(host, t, part, &in, want), n);
  double tol = t == AG_F32 ? 2e-5 : 1e-12;
  for (size_t i = 0; i < n; i++) {
    oclgrind_same(names[part][i], got[i], want[i], tol);
    oclgrind_keep(got[i]);
    ag_array_free(want[i]);
  }
  oclgrind_free_kept();
  free(in.cube), free(in.prior), free(in.weight), free(in.vis), free(in.data);
}

START_TEST(the_nll_gridded_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32, 0);
}
END_TEST

START_TEST(the_nll_gridded_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64, 0);
}
END_TEST

START_TEST(the_sparsity_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32, 1);
}
END_TEST

START_TEST(the_sparsity_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64, 1);
}
END_TEST

START_TEST(the_entropy_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32, 2);
}
END_TEST

START_TEST(the_entropy_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64, 2);
}
END_TEST

START_TEST(the_tv_image_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32, 3);
}
END_TEST

START_TEST(the_tv_image_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64, 3);
}
END_TEST

START_TEST(the_tsv_kernel_is_clean_in_f32) {
  (void)_i;
  check(AG_F32, 4);
}
END_TEST

START_TEST(the_tsv_kernel_is_clean_in_f64) {
  (void)_i;
  check(AG_F64, 4);
}
END_TEST

START_TEST(the_layout_hann_and_fourier_kernels_are_clean_in_f32) {
  (void)_i;
  check(AG_F32, 5);
}
END_TEST

START_TEST(the_layout_hann_and_fourier_kernels_are_clean_in_f64) {
  (void)_i;
  check(AG_F64, 5);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "opencl") != 0)
    return;
  add_device_test(s, "the nll_gridded kernel is clean in f32", the_nll_gridded_kernel_is_clean_in_f32);
  add_device_test(s, "the nll_gridded kernel is clean in f64", the_nll_gridded_kernel_is_clean_in_f64);
  add_device_test(s, "the sparsity kernel is clean in f32", the_sparsity_kernel_is_clean_in_f32);
  add_device_test(s, "the sparsity kernel is clean in f64", the_sparsity_kernel_is_clean_in_f64);
  add_device_test(s, "the entropy kernel is clean in f32", the_entropy_kernel_is_clean_in_f32);
  add_device_test(s, "the entropy kernel is clean in f64", the_entropy_kernel_is_clean_in_f64);
  add_device_test(s, "the tv_image kernel is clean in f32", the_tv_image_kernel_is_clean_in_f32);
  add_device_test(s, "the tv_image kernel is clean in f64", the_tv_image_kernel_is_clean_in_f64);
  add_device_test(s, "the tsv kernel is clean in f32", the_tsv_kernel_is_clean_in_f32);
  add_device_test(s, "the tsv kernel is clean in f64", the_tsv_kernel_is_clean_in_f64);
  add_device_test(s, "the layout, hann and fourier kernels are clean in f32",
                  the_layout_hann_and_fourier_kernels_are_clean_in_f32);
  add_device_test(s, "the layout, hann and fourier kernels are clean in f64",
                  the_layout_hann_and_fourier_kernels_are_clean_in_f64);
}
