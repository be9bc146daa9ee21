/* tests/test_blas.c — blas.h: gemm on every dtype, size class, transpose combination and
   alpha/beta case (complex ones through ag_gemm_complex), batched and on views of every
   layout (transposed, blocks with a leading dimension, reversed, stepped, broadcast), against
   a naive triple loop in long double; BLAS's rules for beta = 0 (NaN in C ignored), alpha = 0
   and empty dimensions; gemv, axpy, scal, dot and nrm2, on views too, against references; the
   provider names; refused dtypes, shapes, devices, broadcast outputs and NULL operands. */
#include <math.h>
#include <stdlib.h>

#include "reference.h"

static const ag_dtype blas_dtypes[4] = {AG_F32, AG_F64, AG_C64, AG_C128};
static const ag_transpose transposes[3] = {AG_NO_TRANS, AG_TRANS, AG_CONJ_TRANS};

static const char *trans_name(ag_transpose t) {
  return t == AG_NO_TRANS ? "N" : t == AG_TRANS ? "T" : t == AG_CONJ_TRANS ? "C" : "?";
}

/* ---- tolerances ----------------------------------------------------------------------------------

   Every expected value is computed in long double from the operands' exact values, and alpha
   and beta are values each precision holds exactly (2.5, -1.5, 0.5 + 1.25i, -0.75 + 0.5i), so
   the whole difference is the device's rounding. With u = eps / 2 the unit roundoff (eps =
   2^-23 for f32 and c64, 2^-52 for f64 and c128), a sum of k products computed in any order,
   blocked or not, with or without fused multiply-adds, is within k u sum |a_il| |b_lj| of the
   exact sum (Higham, "Accuracy and Stability of Numerical Algorithms", 3.1); a complex product
   adds at most about 2 u of its modulus; scaling by alpha, multiplying C by beta and adding are
   three more roundings. So each element of C is held to

       |got - want| <= 2 (k + 4) eps * (|alpha| sum_l |a_il| |b_lj| + |beta| |c_ij|),

   i.e. 4 (k + 4) u, twice that bound. A wrong transpose, a missing conjugate, column-major
   indexing or a wrong alpha or beta changes elements by about sum |a||b| itself, and k is at
   most 65 here, so the bound stays below 1e-4 (single) and 2e-13 (double) of the scale. */

static double precision_eps(ag_dtype t) { return t == AG_F32 || t == AG_C64 ? 0x1p-23 : 0x1p-52; }

static ref_tol sum_tol(ag_dtype t, size_t k) { return (ref_tol){2.0 * (double)(k + 4) * precision_eps(t), 0}; }

/* ---- the naive references --------------------------------------------------------------------- */

/* (ar + i ai)(br + i bi) part by part, without C's Annex G handling of infinities. */
static ref_c mul(ref_c a, ref_c b) {
  long double ar = creall(a), ai = cimagl(a), br = creall(b), bi = cimagl(b);
  return CMPLXL(ar * br - ai * bi, ar * bi + ai * br);
}

/* Element (i, l) of op(X), an r x c matrix, with X stored at element @p base as (r, c), or as
   (c, r) when transposed; conjugated for AG_CONJ_TRANS on complex dtypes. */
static ref_c op_elem(ag_dtype t, const void *x, size_t base, ag_transpose tr, size_t r, size_t c, size_t i, size_t l) {
  ref_c v = tr == AG_NO_TRANS ? ref_get(t, x, base + i * c + l) : ref_get(t, x, base + l * r + i);
  return tr == AG_CONJ_TRANS && ref_is_complex(t) ? conjl(v) : v;
}

/* want = alpha op(A) op(B) + beta C for @p batch products (1 for 2-D operands); A and B step by
   one matrix per product when @p a_steps / @p b_steps, else serve every product. scale receives
   each element's error scale, |alpha| sum |a||b| + |beta| |c|; with beta = 0, C is not read (BLAS:
   NaN in C does not propagate). */
static void gemm_ref(ag_dtype t, ag_transpose ta, ag_transpose tb, size_t m, size_t n, size_t k, size_t batch,
                     bool a_steps, bool b_steps, ref_c alpha, const void *a, const void *b, ref_c beta, const void *c,
                     ref_c *want, long double *scale) {
  for (size_t p = 0; p < batch; p++) {
    size_t abase = a_steps ? p * m * k : 0, bbase = b_steps ? p * k * n : 0, cbase = p * m * n;
    for (size_t i = 0; i < m; i++) {
      for (size_t j = 0; j < n; j++) {
        ref_c s = 0;
        long double sc = 0;
        for (size_t l = 0; l < k; l++) {
          ref_c x = op_elem(t, a, abase, ta, m, k, i, l), y = op_elem(t, b, bbase, tb, k, n, l, j);
          s += mul(x, y);
          sc += cabsl(x) * cabsl(y);
        }
        ref_c v = mul(alpha, s);
        sc *= cabsl(alpha);
        if (beta != 0) {
          ref_c cv = ref_get(t, c, cbase + i * n + j);
          v += mul(beta, cv);
          sc += cabsl(beta) * cabsl(cv);
        }
        want[cbase + i * n + j] = v;
        scale[cbase + i * n + j] = sc;
      }
    }
  }
}

/* ---- helpers ------------------------------------------------------------------------------------ */

static void fill_nan(ag_dtype t, void *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    ref_put(t, p, i, CMPLXL(NAN, NAN));
}

/* A random array of @p ndim dims (values in [-1, 1), both parts for complex) whose host copy
   goes to *host (free() it). */
static ag_array *random_array(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, uint64_t seed, void **host) {
  size_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= shape[d];
  *host = test_alloc(n * ref_size(t));
  ref_random(t, *host, n, seed, -1, 1);
  return test_array_from(dev, t, ndim, shape, *host);
}

/* Fails unless the array still holds the @p bytes at @p want. */
static void check_unchanged(const ag_array *a, const void *want, const char *what) {
  void *back = test_array_read(a);
  CHECK_BYTES(back, want, ag_array_nbytes(a), what);
  free(back);
}

/* ---- gemm ---------------------------------------------------------------------------------------- */

typedef struct gemm_case {
  ag_dtype t;
  ag_transpose ta, tb;
  size_t m, n, k;
  size_t batch;          /* 0: 2-D A, B and C; else C is 3-D with this batch */
  bool a_2d, b_2d;       /* with a batch: A (or B) 2-D, serving every product */
  ref_c alpha, beta;
  bool through_complex;  /* call ag_gemm_complex rather than ag_gemm */
  bool nan_c;            /* C starts as NaN (only with beta = 0) */
} gemm_case;

/* Runs one gemm on random operands of the case's shapes and compares C with the naive product.
   A and B must be left unchanged. */
static void check_gemm(ag_device *dev, const gemm_case *g, uint64_t seed) {
  ag_dtype t = g->t;
  if (!test_dtype_runs(dev, t))
    return;
  size_t m = g->m, n = g->n, k = g->k, batch = g->batch ? g->batch : 1;
  bool a_steps = g->batch && !g->a_2d, b_steps = g->batch && !g->b_2d;
  size_t ashape[3], bshape[3], cshape[3];
  int ands = 0, bnd = 0, cnd = 0;
  if (a_steps)
    ashape[ands++] = batch;
  ashape[ands++] = g->ta == AG_NO_TRANS ? m : k;
  ashape[ands++] = g->ta == AG_NO_TRANS ? k : m;
  if (b_steps)
    bshape[bnd++] = batch;
  bshape[bnd++] = g->tb == AG_NO_TRANS ? k : n;
  bshape[bnd++] = g->tb == AG_NO_TRANS ? n : k;
  if (g->batch)
    cshape[cnd++] = batch;
  cshape[cnd++] = m;
  cshape[cnd++] = n;
  void *a, *b, *c;
  ag_array *aa = random_array(dev, t, ands, ashape, seed, &a), *ab = random_array(dev, t, bnd, bshape, seed + 1, &b);
  size_t nc = batch * m * n;
  c = test_alloc(nc * ref_size(t));
  if (g->nan_c)
    fill_nan(t, c, nc);
  else
    ref_random(t, c, nc, seed + 2, -1, 1);
  ag_array *ac = test_array_from(dev, t, cnd, cshape, c);
  char what[256];
  snprintf(what, sizeof what, "%s (%s, %s) m %zu n %zu k %zu batch %zu%s%s alpha %Lg%+Lgi beta %Lg%+Lgi%s",
           g->through_complex ? "ag_gemm_complex" : "ag_gemm", trans_name(g->ta), trans_name(g->tb), m, n, k, g->batch,
           g->a_2d ? " (A 2-D)" : "", g->b_2d ? " (B 2-D)" : "", creall(g->alpha), cimagl(g->alpha), creall(g->beta),
           cimagl(g->beta), g->nan_c ? ", C NaN" : "");
  ag_status st = g->through_complex
                     ? ag_gemm_complex(NULL, g->ta, g->tb, (double)creall(g->alpha), (double)cimagl(g->alpha), aa, ab,
                                       (double)creall(g->beta), (double)cimagl(g->beta), ac)
                     : ag_gemm(NULL, g->ta, g->tb, (double)creall(g->alpha), aa, ab, (double)creall(g->beta), ac);
  ref_check_ok(st, "%s", what);
  ref_c *want = test_alloc(nc * sizeof *want);
  long double *scale = test_alloc(nc * sizeof *scale);
  gemm_ref(t, g->ta, g->tb, m, n, k, batch, a_steps, b_steps, g->alpha, a, b, g->beta, c, want, scale);
  void *got = test_array_read(ac);
  ref_check(t, got, want, scale, nc, sum_tol(t, k), "%s", what);
  check_unchanged(aa, a, "A after gemm");
  check_unchanged(ab, b, "B after gemm");
  free(got);
  free(want);
  free(scale);
  free(a);
  free(b);
  free(c);
  ag_array_free(aa);
  ag_array_free(ab);
  ag_array_free(ac);
}

/* m x n x k: unit, odd, prime and one-column sizes, one power of two and a ragged large one. */
static const size_t gemm_sizes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 13, 11}, {31, 1, 29}, {64, 64, 64}, {127, 65, 33}};
enum { NGEMM_SIZES = sizeof gemm_sizes / sizeof gemm_sizes[0] };

/* Every dtype, size and pair of transposes with the given alpha, beta and C. */
static void check_gemm_all(ag_device *dev, ref_c alpha, ref_c beta, bool nan_c, bool through_complex, bool complex_only,
                           uint64_t seed) {
  for (int d = 0; d < 4; d++) {
    if (complex_only && !ref_is_complex(blas_dtypes[d]))
      continue;
    for (int s = 0; s < NGEMM_SIZES; s++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          gemm_case g = {.t = blas_dtypes[d], .ta = transposes[i], .tb = transposes[j], .m = gemm_sizes[s][0],
                         .n = gemm_sizes[s][1], .k = gemm_sizes[s][2], .alpha = alpha, .beta = beta,
                         .through_complex = through_complex, .nan_c = nan_c};
          check_gemm(dev, &g, seed + 1000u * (unsigned)d + 100u * (unsigned)s + 10u * (unsigned)i + (unsigned)j);
        }
  }
}

START_TEST(gemm_matches_the_naive_product_for_every_size_transpose_and_dtype) {
  check_gemm_all(test_device(_i), 2.5, -1.5, false, false, false, 10000);
}
END_TEST

/* BLAS: with beta = 0, C is output only, so NaN in it does not reach the result. */
START_TEST(gemm_with_beta_0_ignores_nan_in_c) {
  check_gemm_all(test_device(_i), 1, 0, true, false, false, 20000);
}
END_TEST

/* ag_gemm_complex with complex alpha and beta on c64 and c128 (every size and transpose pair);
   on f32 and f64 with real ones it equals ag_gemm. */
START_TEST(gemm_complex_takes_complex_alpha_and_beta) {
  ag_device *dev = test_device(_i);
  check_gemm_all(dev, CMPLXL(0.5, 1.25), CMPLXL(-0.75, 0.5), false, true, true, 30000);
  for (int d = 0; d < 2; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    gemm_case g = {.t = t, .ta = AG_TRANS, .tb = AG_NO_TRANS, .m = 17, .n = 13, .k = 11, .alpha = 2.5, .beta = -1.5,
                   .through_complex = true};
    check_gemm(dev, &g, 30500u + (unsigned)d);
  }
}
END_TEST

/* ag_gemm_complex validates as ag_gemm does, and its messages name it, not ag_gemm (status.h:
   the message names the function called); an imaginary alpha or beta on a real dtype is
   refused. C keeps its contents. */
START_TEST(gemm_complex_refusals_name_gemm_complex) {
  ag_device *dev = test_device(_i);
  const size_t s33[2] = {3, 3}, s23[2] = {2, 3};
  void *a, *c;
  ag_array *aa = random_array(dev, AG_F32, 2, s33, 30600, &a), *ac = random_array(dev, AG_F32, 2, s33, 30601, &c);
  ag_array *c23 = test_array_new(dev, AG_F32, 2, s23), *u = test_array_new(dev, AG_U8, 2, s33);
  CHECK_OK(ag_fill(NULL, u, 1));
  CHECK_OK(ag_fill(NULL, c23, 1));
  CHECK_REFUSED2(ag_gemm_complex(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, 0.5, aa, aa, 0, 0, ac), AG_ERR_INVALID_ARGUMENT,
                 AG_ERR_UNSUPPORTED, "ag_gemm_complex", "alpha|alpha_im");
  CHECK_REFUSED2(ag_gemm_complex(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, 0, aa, aa, 1, -2, ac), AG_ERR_INVALID_ARGUMENT,
                 AG_ERR_UNSUPPORTED, "ag_gemm_complex", "beta|beta_im");
  check_unchanged(ac, c, "C after a refused gemm_complex");
  CHECK_REFUSED(ag_gemm_complex(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, 0, aa, aa, 0, 0, c23), AG_ERR_MISMATCH,
                "ag_gemm_complex", "c|C");
  CHECK_REFUSED(ag_gemm_complex(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, 0, u, u, 0, 0, u), AG_ERR_UNSUPPORTED,
                "ag_gemm_complex", "u8");
  CHECK_REFUSED(ag_gemm_complex(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, 0, NULL, aa, 0, 0, ac), AG_ERR_INVALID_ARGUMENT,
                "ag_gemm_complex", "a|A");
  check_unchanged(ac, c, "C after a refused gemm_complex");
  free(a);
  free(c);
  ag_array_free(aa);
  ag_array_free(ac);
  ag_array_free(c23);
  ag_array_free(u);
}
END_TEST

/* BLAS: alpha = 0 and beta = 1 is a no-op, exactly. */
START_TEST(gemm_with_alpha_0_and_beta_1_leaves_c_unchanged) {
  ag_device *dev = test_device(_i);
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int s = 0; s < NGEMM_SIZES; s++) {
      size_t m = gemm_sizes[s][0], n = gemm_sizes[s][1], k = gemm_sizes[s][2];
      const size_t as[2] = {k, m}, bs[2] = {k, n}, cs[2] = {m, n};
      void *a, *b, *c;
      ag_array *aa = random_array(dev, t, 2, as, 40000u + (unsigned)s, &a);
      ag_array *ab = random_array(dev, t, 2, bs, 40100u + (unsigned)s, &b);
      ag_array *ac = random_array(dev, t, 2, cs, 40200u + (unsigned)s, &c);
      ref_check_ok(ag_gemm(NULL, AG_TRANS, AG_NO_TRANS, 0, aa, ab, 1, ac), "ag_gemm alpha 0 beta 1, %s %zu x %zu",
                   ref_name(t), m, n);
      ref_check_ok(ag_gemm_complex(NULL, AG_CONJ_TRANS, AG_NO_TRANS, 0, 0, aa, ab, 1, 0, ac),
                   "ag_gemm_complex alpha 0 beta 1, %s %zu x %zu", ref_name(t), m, n);
      check_unchanged(ac, c, "C after gemm with alpha 0 and beta 1");
      free(a);
      free(b);
      free(c);
      ag_array_free(aa);
      ag_array_free(ab);
      ag_array_free(ac);
    }
  }
}
END_TEST

/* Batches of 4: A, B and C all 3-D, and a 2-D A or B serving every product, with three
   transpose pairs and two sizes. */
START_TEST(batched_gemm_matches_the_naive_product_per_batch_element) {
  ag_device *dev = test_device(_i);
  const ag_transpose pairs[3][2] = {{AG_NO_TRANS, AG_NO_TRANS}, {AG_TRANS, AG_CONJ_TRANS}, {AG_CONJ_TRANS, AG_TRANS}};
  const size_t sizes[2][3] = {{5, 7, 3}, {17, 13, 11}};
  for (int d = 0; d < 4; d++)
    for (int p = 0; p < 3; p++)
      for (int s = 0; s < 2; s++)
        for (int shared = 0; shared < 3; shared++) {
          gemm_case g = {.t = blas_dtypes[d], .ta = pairs[p][0], .tb = pairs[p][1], .m = sizes[s][0],
                         .n = sizes[s][1], .k = sizes[s][2], .batch = 4, .a_2d = shared == 1, .b_2d = shared == 2,
                         .alpha = 2.5, .beta = -1.5};
          check_gemm(dev, &g, 50000u + 1000u * (unsigned)d + 100u * (unsigned)p + 10u * (unsigned)s + (unsigned)shared);
        }
}
END_TEST

/* ---- gemm edge cases and refusals ------------------------------------------------------------- */

/* BLAS: k = 0 makes C = beta C (the product is empty); m = 0 or n = 0 leaves nothing to do. */
START_TEST(gemm_with_an_empty_dimension_follows_blas) {
  ag_device *dev = test_device(_i);
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    const size_t a0[2] = {4, 0}, b0[2] = {0, 3}, c43[2] = {4, 3};
    ag_array *aa = test_array_new(dev, t, 2, a0), *ab = test_array_new(dev, t, 2, b0);
    void *c, *nan = test_alloc(12 * ref_size(t));
    ag_array *ac = random_array(dev, t, 2, c43, 60000u + (unsigned)d, &c);
    CHECK_OK(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 2.5, aa, ab, -1.5, ac));
    ref_c want[12];
    long double scale[12];
    for (size_t i = 0; i < 12; i++) {
      want[i] = -1.5L * ref_get(t, c, i);
      scale[i] = cabsl(want[i]);
    }
    void *got = test_array_read(ac);
    /* One rounding of beta * c: within eps of it. */
    ref_check(t, got, want, scale, 12, (ref_tol){precision_eps(t), 0}, "ag_gemm with k = 0 and beta -1.5");
    free(got);
    /* k = 0, beta = 0: zeros, whatever C held. */
    fill_nan(t, nan, 12);
    ag_array *an = test_array_from(dev, t, 2, c43, nan);
    CHECK_OK(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, aa, ab, 0, an));
    got = test_array_read(an);
    for (size_t i = 0; i < 12; i++)
      ck_assert_msg(ref_get(t, got, i) == 0, "%s: ag_gemm with k = 0 and beta 0 left element %zu of a NaN C as %Lg",
                    test_label(), i, creall(ref_get(t, got, i)));
    free(got);
    /* m = 0 and n = 0: empty C; nothing to do, and A and B keep their contents. */
    const size_t a05[2] = {0, 5}, b53[2] = {5, 3}, c03[2] = {0, 3}, a45[2] = {4, 5}, b50[2] = {5, 0}, c40[2] = {4, 0};
    void *bh, *ah;
    ag_array *e_a = test_array_new(dev, t, 2, a05), *f_b = random_array(dev, t, 2, b53, 60100u + (unsigned)d, &bh);
    ag_array *e_c = test_array_new(dev, t, 2, c03);
    CHECK_OK(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, e_a, f_b, 1, e_c));
    ag_array *f_a = random_array(dev, t, 2, a45, 60200u + (unsigned)d, &ah), *e_b = test_array_new(dev, t, 2, b50);
    ag_array *e_c2 = test_array_new(dev, t, 2, c40);
    CHECK_OK(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, f_a, e_b, 0, e_c2));
    check_unchanged(f_b, bh, "B after a gemm with m = 0");
    check_unchanged(f_a, ah, "A after a gemm with n = 0");
    free(bh);
    free(ah);
    free(c);
    free(nan);
    ag_array *all[] = {aa, ab, ac, an, e_a, f_b, e_c, f_a, e_b, e_c2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
      ag_array_free(all[i]);
  }
}
END_TEST

/* blas.h: AG_ERR_MISMATCH for shapes that do not fit, naming the operands and sizes; C keeps
   its contents. */
START_TEST(gemm_refuses_shapes_that_do_not_fit_naming_the_operands) {
  ag_device *dev = test_device(_i);
  const size_t s35[2] = {3, 5}, s72[2] = {7, 2}, s52[2] = {5, 2}, s32[2] = {3, 2}, s33[2] = {3, 3}, s23[2] = {2, 3};
  const size_t b435[3] = {4, 3, 5}, b352[3] = {3, 5, 2}, b452[3] = {4, 5, 2}, b432[3] = {4, 3, 2}, b332[3] = {3, 3, 2};
  const size_t v15[1] = {15}, s4d[4] = {1, 4, 3, 5};
  ag_dtype t = AG_F32;
  ag_array *a = test_array_new(dev, t, 2, s35), *b72 = test_array_new(dev, t, 2, s72);
  ag_array *b = test_array_new(dev, t, 2, s52), *c = test_array_new(dev, t, 2, s32);
  ag_array *c33 = test_array_new(dev, t, 2, s33), *c23 = test_array_new(dev, t, 2, s23);
  ag_array *a3 = test_array_new(dev, t, 3, b435), *b3x = test_array_new(dev, t, 3, b352);
  ag_array *b3 = test_array_new(dev, t, 3, b452), *c3 = test_array_new(dev, t, 3, b432);
  ag_array *c3x = test_array_new(dev, t, 3, b332), *v = test_array_new(dev, t, 1, v15);
  ag_array *a4 = test_array_new(dev, t, 4, s4d);
  ag_array *all[] = {a, b72, b, c, c33, c23, a3, b3x, b3, c3, c3x, v, a4};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    CHECK_OK(ag_fill(NULL, all[i], 3));
  /* k: op(A) is 3 x 5 but op(B) 7 x 2. */
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a, b72, 0, c), AG_ERR_MISMATCH, "ag_gemm", "a|A", "b|B",
                "5", "7");
  /* op(A)^T is 5 x 3, B 5 x 2: k disagrees (3 against 5). */
  CHECK_REFUSED(ag_gemm(NULL, AG_TRANS, AG_NO_TRANS, 1, a, b, 0, c), AG_ERR_MISMATCH, "ag_gemm", "a|A", "b|B");
  /* C must be 3 x 2. */
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a, b, 0, c33), AG_ERR_MISMATCH, "ag_gemm", "c|C", "2");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a, b, 0, c23), AG_ERR_MISMATCH, "ag_gemm", "c|C");
  /* Batches: 4 against 3, C not batched while A is, C's batch 3 against 4. */
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a3, b3x, 0, c3), AG_ERR_MISMATCH, "ag_gemm", "4", "3");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a3, b3, 0, c), AG_ERR_MISMATCH, "ag_gemm", "c|C");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a3, b3, 0, c3x), AG_ERR_MISMATCH, "ag_gemm", "c|C");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a, b3, 0, c), AG_ERR_MISMATCH, "ag_gemm", "c|C");
  /* 1-D and 4-D operands are not matrices nor batches of them. */
  CHECK_REFUSED2(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, v, b, 0, c), AG_ERR_MISMATCH, AG_ERR_INVALID_ARGUMENT,
                 "ag_gemm", "a|A");
  CHECK_REFUSED2(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a4, b, 0, c), AG_ERR_MISMATCH, AG_ERR_INVALID_ARGUMENT,
                 "ag_gemm", "a|A");
  ag_array *outs[] = {c, c33, c23, c3, c3x};
  for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
    float *back = test_array_read(outs[i]);
    for (size_t e = 0; e < ag_array_size(outs[i]); e++)
      ck_assert_msg(back[e] == 3, "%s: a refused gemm changed element %zu of C to %g", test_label(), e, back[e]);
    free(back);
  }
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    ag_array_free(all[i]);
}
END_TEST

/* Integer dtypes are not BLAS's (AG_ERR_UNSUPPORTED naming the function and the dtype);
   operands of different dtypes do not fit (blas.h: "all operands of one dtype"). */
START_TEST(gemm_refuses_integer_and_mixed_dtypes) {
  ag_device *dev = test_device(_i);
  const size_t s[2] = {3, 3};
  const ag_dtype refused[2] = {AG_U8, AG_I32};
  for (int d = 0; d < 2; d++) {
    ag_array *x = test_array_new(dev, refused[d], 2, s), *y = test_array_new(dev, refused[d], 2, s);
    CHECK_OK(ag_fill(NULL, x, 1));
    CHECK_OK(ag_fill(NULL, y, 2));
    CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, x, x, 0, y), AG_ERR_UNSUPPORTED, "ag_gemm",
                  ref_name(refused[d]));
    void *back = test_array_read(y);
    for (size_t e = 0; e < 9; e++)
      ck_assert_msg(ref_get(refused[d], back, e) == 2, "%s: a refused gemm changed C", test_label());
    free(back);
    ag_array_free(x);
    ag_array_free(y);
  }
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d], other = blas_dtypes[(d + 1) % 4];
    if (!test_dtype_runs(dev, t) || !test_dtype_runs(dev, other))
      continue;
    ag_array *x = test_array_new(dev, t, 2, s), *y = test_array_new(dev, other, 2, s);
    CHECK_OK(ag_fill(NULL, x, 1));
    CHECK_OK(ag_fill(NULL, y, 1));
    CHECK_REFUSED2(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, x, y, 0, x), AG_ERR_MISMATCH, AG_ERR_UNSUPPORTED,
                   "ag_gemm", ref_name(other));
    CHECK_REFUSED2(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, x, x, 0, y), AG_ERR_MISMATCH, AG_ERR_UNSUPPORTED,
                   "ag_gemm", ref_name(other));
    void *back = test_array_read(y);
    ck_assert_msg(ref_get(other, back, 0) == 1, "%s: a refused gemm changed C", test_label());
    free(back);
    ag_array_free(x);
    ag_array_free(y);
  }
}
END_TEST

START_TEST(gemm_refuses_null_operands_and_unknown_transposes) {
  ag_device *dev = test_device(_i);
  const size_t s[2] = {3, 3};
  ag_array *x = test_array_new(dev, AG_F64, 2, s), *y = test_array_new(dev, AG_F32, 2, s);
  ag_array *c = test_array_new(dev, AG_F32, 2, s);
  CHECK_OK(ag_fill(NULL, y, 1));
  CHECK_OK(ag_fill(NULL, c, 3));
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, NULL, y, 0, c), AG_ERR_INVALID_ARGUMENT, "ag_gemm", "a|A");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, y, NULL, 0, c), AG_ERR_INVALID_ARGUMENT, "ag_gemm", "b|B");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, y, y, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_gemm", "c|C");
  CHECK_REFUSED(ag_gemm((ag_queue *)NULL, (ag_transpose)3, AG_NO_TRANS, 1, y, y, 0, c), AG_ERR_INVALID_ARGUMENT,
                "ag_gemm", "ta|transa|transpose");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, (ag_transpose)-1, 1, y, y, 0, c), AG_ERR_INVALID_ARGUMENT, "ag_gemm",
                "tb|transb|transpose");
  float back[9];
  CHECK_OK(ag_array_to_host(c, back, sizeof back));
  for (int i = 0; i < 9; i++)
    ck_assert_msg(back[i] == 3, "%s: a refused gemm changed C[%d] to %g", test_label(), i, back[i]);
  ag_array_free(x);
  ag_array_free(y);
  ag_array_free(c);
}
END_TEST

/* Matrices that are frames of stacks (views at nonzero offsets, 4-byte aligned for f32), on a
   created queue: gemm writes only its frame of C's stack. Level-1 routines on views too. */
START_TEST(gemm_and_level_1_routines_on_views_match_the_reference) {
  ag_device *dev = test_device(_i);
  ag_queue *q = NULL;
  CHECK_OK(ag_queue_create(dev, &q));
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    size_t es = ref_size(t);
    const size_t m = 5, n = 7, k = 3, as[3] = {3, m, k}, bs[3] = {3, k, n}, cs[3] = {3, m, n};
    void *a, *b, *c;
    ag_array *sa = random_array(dev, t, 3, as, 70000u + (unsigned)d, &a);
    ag_array *sb = random_array(dev, t, 3, bs, 70100u + (unsigned)d, &b);
    ag_array *sc = random_array(dev, t, 3, cs, 70200u + (unsigned)d, &c);
    ag_array *va = NULL, *vb = NULL, *vc = NULL;
    CHECK_OK(ag_array_index(sa, 1, &va));
    CHECK_OK(ag_array_index(sb, 2, &vb));
    CHECK_OK(ag_array_index(sc, 1, &vc));
    CHECK_OK(ag_gemm(q, AG_NO_TRANS, AG_NO_TRANS, 2.5, va, vb, -1.5, vc));
    CHECK_OK(ag_queue_finish(q));
    ref_c want[5 * 7];
    long double scale[5 * 7];
    gemm_ref(t, AG_NO_TRANS, AG_NO_TRANS, m, n, k, 1, false, false, 2.5, (char *)a + m * k * es,
             (char *)b + 2 * k * n * es, -1.5, (char *)c + m * n * es, want, scale);
    void *got = test_array_read(sc);
    ref_check(t, (char *)got + m * n * es, want, scale, m * n, sum_tol(t, k), "ag_gemm of frames 1, 2 into frame 1");
    CHECK_BYTES(got, c, m * n * es, "frame 0 of C's stack");
    CHECK_BYTES((char *)got + 2 * m * n * es, (char *)c + 2 * m * n * es, m * n * es, "frame 2 of C's stack");
    free(got);
    /* axpy of frame 1 of A's stack into frame 0 of B's (15 and 21 elements: use 3-element rows). */
    ag_array *row_a = NULL, *row_b = NULL;
    const size_t vs[2] = {4, 6};
    void *x, *y;
    ag_array *sx = random_array(dev, t, 2, vs, 70300u + (unsigned)d, &x), *sy = random_array(dev, t, 2, vs, 70301u + (unsigned)d, &y);
    CHECK_OK(ag_array_index(sx, 1, &row_a));
    CHECK_OK(ag_array_index(sy, 3, &row_b));
    CHECK_OK(ag_axpy(q, -0.75, row_a, row_b));
    CHECK_OK(ag_scal(q, 2.5, row_a));
    CHECK_OK(ag_queue_finish(q));
    ref_c w6[6];
    long double s6[6];
    for (size_t i = 0; i < 6; i++) {
      ref_c xi = ref_get(t, x, 6 + i), yi = ref_get(t, y, 18 + i);
      w6[i] = -0.75L * xi + yi;
      s6[i] = 0.75L * cabsl(xi) + cabsl(yi);
    }
    void *gy = test_array_read(sy), *gx = test_array_read(sx);
    ref_check(t, (char *)gy + 18 * es, w6, s6, 6, (ref_tol){2 * precision_eps(t), 0}, "ag_axpy into frame 3");
    CHECK_BYTES(gy, y, 18 * es, "frames 0 to 2 of axpy's y stack");
    for (size_t i = 0; i < 6; i++) {
      w6[i] = 2.5L * ref_get(t, x, 6 + i);
      s6[i] = cabsl(w6[i]);
    }
    ref_check(t, (char *)gx + 6 * es, w6, s6, 6, (ref_tol){precision_eps(t), 0}, "ag_scal of frame 1");
    CHECK_BYTES(gx, x, 6 * es, "frame 0 of scal's stack");
    CHECK_BYTES((char *)gx + 12 * es, (char *)x + 12 * es, 12 * es, "frames 2 and 3 of scal's stack");
    free(gx);
    free(gy);
    free(x);
    free(y);
    ag_array_free(row_a);
    ag_array_free(row_b);
    ag_array_free(sx);
    ag_array_free(sy);
    free(a);
    free(b);
    free(c);
    ag_array_free(va);
    ag_array_free(vb);
    ag_array_free(vc);
    ag_array_free(sa);
    ag_array_free(sb);
    ag_array_free(sc);
  }
  ag_queue_destroy(q);
}
END_TEST

/* ---- gemm and gemv on views of every layout ------------------------------------------------- */

/* How a test lays out a matrix operand of shape (r, c): as made, or a view whose layout the
   provider takes in place (a transpose, a block of a bigger matrix with its leading dimension,
   a block's transpose), or one that stands in contiguous (rows reversed, steps along both
   axes, a broadcast row). */
typedef enum view_kind { V_CONTIG, V_TRANSPOSED, V_BLOCK, V_BLOCK_TRANSPOSED, V_REVERSED, V_STEPPED, V_BROADCAST,
                         NVIEW_KINDS } view_kind;

static const char *view_name(view_kind v) {
  static const char *names[] = {"contiguous", "transposed", "a block", "a block transposed", "rows reversed",
                                "stepped", "broadcast"};
  return names[v];
}

/* The shape of the parent a view of kind @p v and shape (r, c) is taken from. */
static void parent_shape(view_kind v, size_t r, size_t c, size_t ps[2]) {
  ps[0] = v == V_TRANSPOSED ? c : v == V_BLOCK ? r + 2 : v == V_BLOCK_TRANSPOSED ? c + 2 : v == V_STEPPED ? 2 * r
          : v == V_BROADCAST ? 1 : r;
  ps[1] = v == V_TRANSPOSED ? r : v == V_BLOCK ? c + 3 : v == V_BLOCK_TRANSPOSED ? r + 3 : v == V_STEPPED ? 2 * c : c;
}

/* The view of kind @p v and shape (r, c) of @p parent (of parent_shape's shape). */
static ag_array *make_view(const ag_array *parent, view_kind v, size_t r, size_t c) {
  ag_array *view = NULL, *block = NULL;
  switch (v) {
  case V_CONTIG:
    CHECK_OK(ag_array_view(parent, 0, NULL, &view));
    break;
  case V_TRANSPOSED:
    CHECK_OK(ag_array_transpose(parent, &view));
    break;
  case V_BLOCK:
    CHECK_OK(ag_array_view(parent, 2, (ag_index[]){ag_slice(1, 1 + (int64_t)r, 1), ag_slice(2, 2 + (int64_t)c, 1)},
                           &view));
    break;
  case V_BLOCK_TRANSPOSED:
    CHECK_OK(ag_array_view(parent, 2, (ag_index[]){ag_slice(1, 1 + (int64_t)c, 1), ag_slice(0, (int64_t)r, 1)},
                           &block));
    CHECK_OK(ag_array_transpose(block, &view));
    ag_array_free(block);
    break;
  case V_REVERSED:
    CHECK_OK(ag_array_flip(parent, 1, (const int[]){0}, &view));
    break;
  case V_STEPPED:
    CHECK_OK(ag_array_view(parent, 2, (ag_index[]){ag_slice(AG_INDEX_NONE, AG_INDEX_NONE, 2),
                                                   ag_slice(1, AG_INDEX_NONE, 2)}, &view));
    break;
  case V_BROADCAST:
    CHECK_OK(ag_array_broadcast_to(parent, 2, (const size_t[]){r, c}, &view));
    break;
  default:
    ck_abort_msg("no view kind %d", (int)v);
  }
  ck_assert(ag_array_ndim(view) == 2 && ag_array_shape(view)[0] == r && ag_array_shape(view)[1] == c);
  return view;
}

/* A view of kind @p v and shape (r, c) over a new random parent (*parent, its host copy in
   *host: free both); the view's values in C order go to *dense (free() it). */
static ag_array *view_of(ag_device *dev, ag_dtype t, view_kind v, size_t r, size_t c, uint64_t seed, ag_array **parent,
                         void **host, void **dense) {
  size_t ps[2];
  parent_shape(v, r, c, ps);
  *parent = random_array(dev, t, 2, ps, seed, host);
  ag_array *view = make_view(*parent, v, r, c);
  *dense = test_array_read(view);
  return view;
}

/* A view of kind and shape a view_spec gives, for test_check_outside_view. */
typedef struct view_spec {
  view_kind v;
  size_t r, c;
} view_spec;

static ag_array *view_by_spec(const ag_array *parent, const void *ctx) {
  const view_spec *s = ctx;
  return make_view(parent, s->v, s->r, s->c);
}

/* One gemm (ag_gemm_complex: complex alpha and beta on c64 and c128) with A, B and C laid out
   as @p va, @p vb and @p vc, compared with the naive product of the views' values; A's and B's
   parents unchanged, and C's outside the view. */
static void check_gemm_views(ag_device *dev, ag_dtype t, ag_transpose ta, ag_transpose tb, size_t m, size_t n,
                             size_t k, view_kind va, view_kind vb, view_kind vc, uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  ag_array *pa, *pb, *pc;
  void *ha, *hb, *hc, *a, *b, *c;
  ag_array *aa = view_of(dev, t, va, ta == AG_NO_TRANS ? m : k, ta == AG_NO_TRANS ? k : m, seed, &pa, &ha, &a);
  ag_array *ab = view_of(dev, t, vb, tb == AG_NO_TRANS ? k : n, tb == AG_NO_TRANS ? n : k, seed + 1, &pb, &hb, &b);
  ag_array *ac = view_of(dev, t, vc, m, n, seed + 2, &pc, &hc, &c);
  char what[200];
  snprintf(what, sizeof what, "ag_gemm_complex %s (%s, %s) m %zu n %zu k %zu, A %s, B %s, C %s", ref_name(t),
           trans_name(ta), trans_name(tb), m, n, k, view_name(va), view_name(vb), view_name(vc));
  ref_c alpha = ref_is_complex(t) ? CMPLXL(0.5, 1.25) : 2.5, beta = ref_is_complex(t) ? CMPLXL(-0.75, 0.5) : -1.5;
  ref_check_ok(ag_gemm_complex(NULL, ta, tb, (double)creall(alpha), (double)cimagl(alpha), aa, ab,
                               (double)creall(beta), (double)cimagl(beta), ac), "%s", what);
  ref_c *want = test_alloc(m * n * sizeof *want);
  long double *scale = test_alloc(m * n * sizeof *scale);
  gemm_ref(t, ta, tb, m, n, k, 1, false, false, alpha, a, b, beta, c, want, scale);
  void *got = test_array_read(ac);
  ref_check(t, got, want, scale, m * n, sum_tol(t, k), "%s", what);
  check_unchanged(pa, ha, "A's parent after gemm");
  check_unchanged(pb, hb, "B's parent after gemm");
  test_check_outside_view(pc, hc, view_by_spec, &(view_spec){vc, m, n}, what);
  TEST_FREE(got, want, scale, a, b, c, ha, hb, hc);
  TEST_ARRAY_FREE(aa, ab, ac, pa, pb, pc);
}

/* A and B each in every layout under every transpose flag (the other operand contiguous), both
   transposed at once, C in every writable layout; every dtype, small odd sizes. In place or
   through a stand-in, the product is the views' (blas.h). */
START_TEST(gemm_on_views_of_every_layout_matches_the_naive_product) {
  ag_device *dev = test_device(_i);
  const size_t m = 5, n = 4, k = 3;
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    uint64_t seed = 110000u + 10000u * (unsigned)d;
    for (int v = 0; v < NVIEW_KINDS; v++)
      for (int tr = 0; tr < 3; tr++) {
        check_gemm_views(dev, t, transposes[tr], AG_NO_TRANS, m, n, k, (view_kind)v, V_CONTIG, V_CONTIG, seed);
        check_gemm_views(dev, t, AG_NO_TRANS, transposes[tr], m, n, k, V_CONTIG, (view_kind)v, V_CONTIG, seed + 10);
        seed += 100;
      }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++, seed += 100)
        check_gemm_views(dev, t, transposes[i], transposes[j], m, n, k, V_TRANSPOSED, V_BLOCK_TRANSPOSED, V_CONTIG,
                         seed);
    for (int v = 0; v < NVIEW_KINDS; v++, seed += 100)
      if (v != V_BROADCAST)
        check_gemm_views(dev, t, AG_TRANS, AG_NO_TRANS, m, n, k, V_BLOCK, V_TRANSPOSED, (view_kind)v, seed);
    /* A larger product, so that blocked paths in the providers see the leading dimensions. */
    check_gemm_views(dev, t, AG_NO_TRANS, AG_TRANS, 33, 17, 29, V_BLOCK_TRANSPOSED, V_BLOCK, V_BLOCK, seed);
  }
}
END_TEST

/* A batch of transposed matrices (a permuted stack: a batch stride and a flipped flag) times a
   2-D block, into a stack with a stepped batch axis: the naive product per element. */
START_TEST(batched_gemm_on_views_matches_the_naive_product) {
  ag_device *dev = test_device(_i);
  const size_t batch = 3, m = 4, n = 5, k = 6;
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    uint64_t seed = 160000u + 100u * (unsigned)d;
    void *ha, *hb, *hc;
    ag_array *sa = random_array(dev, t, 3, (const size_t[]){batch, k, m}, seed, &ha);
    ag_array *pb = random_array(dev, t, 2, (const size_t[]){k + 1, n + 2}, seed + 1, &hb);
    ag_array *sc = random_array(dev, t, 3, (const size_t[]){2 * batch, m, n}, seed + 2, &hc);
    ag_array *va = NULL, *vb = NULL, *vc = NULL;
    CHECK_OK(ag_array_permute(sa, (const int[]){0, 2, 1}, &va));
    CHECK_OK(ag_array_view(pb, 2, (ag_index[]){ag_slice(1, AG_INDEX_NONE, 1), ag_slice(0, (int64_t)n, 1)}, &vb));
    CHECK_OK(ag_array_view(sc, 1, (ag_index[]){ag_slice(1, AG_INDEX_NONE, 2)}, &vc));
    void *a = test_array_read(va), *b = test_array_read(vb), *c = test_array_read(vc);
    CHECK_OK(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 2.5, va, vb, -1.5, vc));
    ref_c *want = test_alloc(batch * m * n * sizeof *want);
    long double *scale = test_alloc(batch * m * n * sizeof *scale);
    gemm_ref(t, AG_NO_TRANS, AG_NO_TRANS, m, n, k, batch, true, false, 2.5, a, b, -1.5, c, want, scale);
    void *got = test_array_read(vc), *all = test_array_read(sc);
    ref_check(t, got, want, scale, batch * m * n, sum_tol(t, k), "batched ag_gemm %s on views", ref_name(t));
    size_t es = ref_size(t), frame = m * n * es;
    for (size_t p = 0; p < batch; p++)
      CHECK_BYTES((char *)all + 2 * p * frame, (char *)hc + 2 * p * frame, frame, "an even frame of C's stack");
    check_unchanged(sa, ha, "A's stack after gemm");
    check_unchanged(pb, hb, "B's parent after gemm");
    TEST_FREE(a, b, c, ha, hb, hc, got, all, want, scale);
    TEST_ARRAY_FREE(sa, pb, sc, va, vb, vc);
  }
}
END_TEST

/* gemv with A in every layout under every flag, and x and y as stepped and reversed vectors:
   the naive product of the views' values; y's parent unchanged outside the view. */
START_TEST(gemv_on_views_matches_the_naive_product) {
  ag_device *dev = test_device(_i);
  const size_t m = 5, n = 3;
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int v = 0; v < NVIEW_KINDS; v++)
      for (int tr = 0; tr < 3; tr++) {
        uint64_t seed = 170000u + 1000u * (unsigned)d + 10u * (unsigned)v + (unsigned)tr;
        ag_transpose ta = transposes[tr];
        size_t xl = ta == AG_NO_TRANS ? n : m, yl = ta == AG_NO_TRANS ? m : n;
        ag_array *pa, *px, *py;
        void *ha, *hx, *hy, *a;
        ag_array *va = view_of(dev, t, (view_kind)v, m, n, seed, &pa, &ha, &a);
        /* x: every other element; y: reversed, both over parents twice as long. */
        px = random_array(dev, t, 1, (const size_t[]){2 * xl}, seed + 1, &hx);
        py = random_array(dev, t, 1, (const size_t[]){2 * yl}, seed + 2, &hy);
        ag_array *vx = NULL, *vy = NULL;
        CHECK_OK(ag_array_view(px, 1, (ag_index[]){ag_slice(1, AG_INDEX_NONE, 2)}, &vx));
        CHECK_OK(ag_array_view(py, 1, (ag_index[]){ag_slice((int64_t)yl - 1, AG_INDEX_NONE, -1)}, &vy));
        void *x = test_array_read(vx), *y = test_array_read(vy);
        ref_check_ok(ag_gemv(NULL, ta, 2.5, va, vx, -1.5, vy), "ag_gemv %s %s, A %s", trans_name(ta), ref_name(t),
                     view_name((view_kind)v));
        ref_c want[5];
        long double scale[5];
        gemm_ref(t, ta, AG_NO_TRANS, yl, 1, xl, 1, false, false, 2.5, a, x, -1.5, y, want, scale);
        void *got = test_array_read(vy), *all = test_array_read(py);
        ref_check(t, got, want, scale, yl, sum_tol(t, xl), "ag_gemv %s %s, A %s", trans_name(ta), ref_name(t),
                  view_name((view_kind)v));
        size_t es = ref_size(t);
        CHECK_BYTES((char *)all + yl * es, (char *)hy + yl * es, yl * es, "y's parent past the view");
        check_unchanged(pa, ha, "A's parent after gemv");
        check_unchanged(px, hx, "x's parent after gemv");
        TEST_FREE(a, x, y, ha, hx, hy, got, all);
        TEST_ARRAY_FREE(pa, px, py, va, vx, vy);
      }
  }
}
END_TEST

/* axpy, scal, dot and nrm2 on stepped and reversed vectors (through contiguous stand-ins,
   blas.h): the reference of the views' values; the parents unchanged outside the views. */
START_TEST(level_1_routines_on_strided_views_match_the_reference) {
  ag_device *dev = test_device(_i);
  const size_t n = 9;
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    uint64_t seed = 180000u + 100u * (unsigned)d;
    size_t es = ref_size(t);
    void *hx, *hy;
    ag_array *px = random_array(dev, t, 1, (const size_t[]){3 * n}, seed, &hx);
    ag_array *py = random_array(dev, t, 1, (const size_t[]){n + 4}, seed + 1, &hy);
    ag_array *vx = NULL, *vy = NULL;
    CHECK_OK(ag_array_view(px, 1, (ag_index[]){ag_slice(2, AG_INDEX_NONE, 3)}, &vx));
    CHECK_OK(ag_array_view(py, 1, (ag_index[]){ag_slice((int64_t)n - 1, AG_INDEX_NONE, -1)}, &vy));
    void *x = test_array_read(vx), *y = test_array_read(vy);
    ag_array *dot = test_array_new(dev, t, 1, (const size_t[]){1});
    ag_array *nrm = test_array_new(dev, ag_array_dtype(dot) == AG_C64 ? AG_F32 : t == AG_C128 ? AG_F64 : t, 1,
                                   (const size_t[]){1});
    CHECK_OK(ag_blas_dot(NULL, vx, vy, true, dot));
    CHECK_OK(ag_blas_nrm2(NULL, vy, nrm));
    ref_c dw = 0;
    long double ds = 0, ns = 0;
    for (size_t i = 0; i < n; i++) {
      ref_c xi = ref_get(t, x, i), yi = ref_get(t, y, i);
      dw += mul(conjl(xi), yi);
      ds += cabsl(xi) * cabsl(yi);
      ns += cabsl(yi) * cabsl(yi);
    }
    ref_c nw = sqrtl(ns);
    long double nsc = sqrtl(ns);
    void *gd = test_array_read(dot), *gn = test_array_read(nrm);
    ref_check(t, gd, &dw, &ds, 1, sum_tol(t, n), "ag_blas_dot (conjugate) of a stepped and a reversed view");
    ref_check(ag_array_dtype(nrm), gn, &nw, &nsc, 1, sum_tol(t, n), "ag_blas_nrm2 of a reversed view");
    CHECK_OK(ag_axpy(NULL, -0.75, vx, vy));
    CHECK_OK(ag_scal(NULL, 2.5, vx));
    ref_c wy[9], wx[9];
    long double sy[9], sx[9];
    for (size_t i = 0; i < n; i++) {
      ref_c xi = ref_get(t, x, i), yi = ref_get(t, y, i);
      wy[i] = -0.75L * xi + yi;
      sy[i] = 0.75L * cabsl(xi) + cabsl(yi);
      wx[i] = 2.5L * xi;
      sx[i] = cabsl(wx[i]);
    }
    void *gy = test_array_read(vy), *gx = test_array_read(vx), *ay = test_array_read(py), *ax = test_array_read(px);
    ref_check(t, gy, wy, sy, n, (ref_tol){2 * precision_eps(t), 0}, "ag_axpy into a reversed view");
    ref_check(t, gx, wx, sx, n, (ref_tol){precision_eps(t), 0}, "ag_scal of a stepped view");
    CHECK_BYTES((char *)ay + n * es, (char *)hy + n * es, 4 * es, "axpy's y parent past the view");
    for (size_t i = 0; i < 3 * n; i++)
      if (i % 3 != 2)
        CHECK_BYTES((char *)ax + i * es, (char *)hx + i * es, es, "scal's x parent between the view's elements");
    /* A broadcast view cannot be written. */
    ag_array *bc = NULL;
    CHECK_OK(ag_array_broadcast_to(dot, 1, (const size_t[]){n}, &bc));
    CHECK_REFUSED(ag_axpy(NULL, 1, vx, bc), AG_ERR_INVALID_ARGUMENT, "ag_axpy", "y", "broadcast");
    CHECK_REFUSED(ag_scal(NULL, 1, bc), AG_ERR_INVALID_ARGUMENT, "ag_scal", "x", "broadcast");
    TEST_FREE(x, y, hx, hy, gd, gn, gy, gx, ay, ax);
    TEST_ARRAY_FREE(px, py, vx, vy, dot, nrm, bc);
  }
}
END_TEST

/* Views keep the checks: shapes that do not fit (a transposed view is (k, m), not (m, k)), a
   broadcast C, and a complex transposed view under AG_CONJ_TRANS computes conj, not a flag. */
START_TEST(gemm_on_views_refuses_what_does_not_fit) {
  ag_device *dev = test_device(_i);
  void *ha, *hc;
  ag_array *pa = random_array(dev, AG_F32, 2, (const size_t[]){3, 4}, 190000, &ha);
  ag_array *pc = random_array(dev, AG_F32, 2, (const size_t[]){3, 3}, 190001, &hc);
  ag_array *at = NULL, *row = NULL, *cb = NULL;
  CHECK_OK(ag_array_transpose(pa, &at)); /* (4, 3) */
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, at, at, 0, pc), AG_ERR_MISMATCH, "ag_gemm", "inner");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, at, at, 0, pc), AG_ERR_MISMATCH, "ag_gemv", "1-D");
  CHECK_OK(ag_array_view(pc, 1, (ag_index[]){ag_slice(0, 1, 1)}, &row));
  CHECK_OK(ag_array_broadcast_to(row, 2, (const size_t[]){3, 3}, &cb));
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, pa, at, 0, cb), AG_ERR_INVALID_ARGUMENT, "ag_gemm", "c",
                "broadcast");
  check_unchanged(pc, hc, "C after refused gemms on views");
  TEST_FREE(ha, hc);
  TEST_ARRAY_FREE(pa, pc, at, row, cb);
}
END_TEST

/* ---- gemv ------------------------------------------------------------------------------------------ */

/* y = alpha op(A) x + beta y, A (m, n) row-major: x has n elements and y m, or the other way
   round when transposed. The bound is gemm's with k the length of the sums. */
static void check_gemv(ag_device *dev, ag_dtype t, ag_transpose ta, size_t m, size_t n, ref_c alpha, ref_c beta,
                       bool nan_y, uint64_t seed) {
  if (!test_dtype_runs(dev, t))
    return;
  size_t xl = ta == AG_NO_TRANS ? n : m, yl = ta == AG_NO_TRANS ? m : n;
  const size_t as[2] = {m, n};
  void *a, *x, *y = test_alloc(yl * ref_size(t));
  ag_array *aa = random_array(dev, t, 2, as, seed, &a), *ax = random_array(dev, t, 1, &xl, seed + 1, &x);
  if (nan_y)
    fill_nan(t, y, yl);
  else
    ref_random(t, y, yl, seed + 2, -1, 1);
  ag_array *ay = test_array_1d(dev, t, yl, y);
  ref_check_ok(ag_gemv(NULL, ta, (double)creall(alpha), aa, ax, (double)creall(beta), ay),
               "ag_gemv %s %s %zu x %zu", trans_name(ta), ref_name(t), m, n);
  /* op(A) x as gemm with B = x, an xl x 1 matrix. */
  ref_c *want = test_alloc(yl * sizeof *want);
  long double *scale = test_alloc(yl * sizeof *scale);
  gemm_ref(t, ta, AG_NO_TRANS, yl, 1, xl, 1, false, false, alpha, a, x, beta, y, want, scale);
  void *got = test_array_read(ay);
  ref_check(t, got, want, scale, yl, sum_tol(t, xl), "ag_gemv %s %zu x %zu, alpha %Lg beta %Lg%s", trans_name(ta), m, n,
            creall(alpha), creall(beta), nan_y ? ", y NaN" : "");
  check_unchanged(aa, a, "A after gemv");
  check_unchanged(ax, x, "x after gemv");
  free(got);
  free(want);
  free(scale);
  free(a);
  free(x);
  free(y);
  ag_array_free(aa);
  ag_array_free(ax);
  ag_array_free(ay);
}

START_TEST(gemv_matches_the_naive_product_for_every_transpose) {
  ag_device *dev = test_device(_i);
  const size_t sizes[][2] = {{1, 1}, {7, 5}, {33, 65}, {128, 3}, {1, 200}};
  for (int d = 0; d < 4; d++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int tr = 0; tr < 3; tr++) {
        uint64_t seed = 80000u + 1000u * (unsigned)d + 10u * (unsigned)s + (unsigned)tr;
        check_gemv(dev, blas_dtypes[d], transposes[tr], sizes[s][0], sizes[s][1], 2.5, -1.5, false, seed);
        check_gemv(dev, blas_dtypes[d], transposes[tr], sizes[s][0], sizes[s][1], 1, 0, true, seed + 500);
      }
}
END_TEST

/* ---- axpy, scal, dot, nrm2 ---------------------------------------------------------------------- */

static const size_t vector_sizes[] = {1, 7, 1000, 4099};
enum { NVECTOR_SIZES = sizeof vector_sizes / sizeof vector_sizes[0] };

/* axpy: alpha x + y with at most two roundings (one with a fused multiply-add): within 2 eps of
   |alpha x| + |y|. scal: alpha x is one rounding per part: eps of |alpha x|. An operand of a
   different shape but the same element count is taken (blas.h: "one dtype and element
   count"). */
START_TEST(axpy_and_scal_match_the_reference) {
  ag_device *dev = test_device(_i);
  const double alphas[2] = {2.5, -0.75};
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d];
    if (!test_dtype_runs(dev, t))
      continue;
    for (int s = 0; s < NVECTOR_SIZES; s++) {
      for (int al = 0; al < 2; al++) {
        size_t n = vector_sizes[s];
        double alpha = alphas[al];
        void *x, *y;
        ag_array *ax = random_array(dev, t, 1, &n, 90000u + 100u * (unsigned)d + 10u * (unsigned)s + (unsigned)al, &x);
        ag_array *ay = random_array(dev, t, 1, &n, 90500u + 100u * (unsigned)d + 10u * (unsigned)s + (unsigned)al, &y);
        ref_c *want = test_alloc(n * sizeof *want);
        long double *scale = test_alloc(n * sizeof *scale);
        ref_check_ok(ag_axpy(NULL, alpha, ax, ay), "ag_axpy of %zu %s", n, ref_name(t));
        for (size_t i = 0; i < n; i++) {
          want[i] = (long double)alpha * ref_get(t, x, i) + ref_get(t, y, i);
          scale[i] = fabsl((long double)alpha) * cabsl(ref_get(t, x, i)) + cabsl(ref_get(t, y, i));
        }
        void *got = test_array_read(ay);
        ref_check(t, got, want, scale, n, (ref_tol){2 * precision_eps(t), 0}, "ag_axpy alpha %g", alpha);
        check_unchanged(ax, x, "x after axpy");
        free(got);
        ref_check_ok(ag_scal(NULL, alpha, ax), "ag_scal of %zu %s", n, ref_name(t));
        for (size_t i = 0; i < n; i++) {
          want[i] = (long double)alpha * ref_get(t, x, i);
          scale[i] = cabsl(want[i]);
        }
        got = test_array_read(ax);
        ref_check(t, got, want, scale, n, (ref_tol){precision_eps(t), 0}, "ag_scal alpha %g", alpha);
        free(got);
        free(want);
        free(scale);
        free(x);
        free(y);
        ag_array_free(ax);
        ag_array_free(ay);
      }
    }
    /* x of shape {2, 3} into y of shape {6}. */
    const size_t s23[2] = {2, 3}, six = 6;
    void *x, *y;
    ag_array *ax = random_array(dev, t, 2, s23, 91000u + (unsigned)d, &x), *ay = random_array(dev, t, 1, &six, 91100u + (unsigned)d, &y);
    CHECK_OK(ag_axpy(NULL, 1, ax, ay));
    ref_c want[6];
    long double scale[6];
    for (size_t i = 0; i < 6; i++) {
      want[i] = ref_get(t, x, i) + ref_get(t, y, i);
      scale[i] = cabsl(ref_get(t, x, i)) + cabsl(ref_get(t, y, i));
    }
    void *got = test_array_read(ay);
    ref_check(t, got, want, scale, 6, (ref_tol){2 * precision_eps(t), 0}, "ag_axpy of a {2, 3} x into a {6} y");
    free(got);
    free(x);
    free(y);
    ag_array_free(ax);
    ag_array_free(ay);
  }
}
END_TEST

/* dot: x . y or conj(x) . y; a sum of n products, so gemm's bound with k = n, relative to
   sum |x||y|. For complex vectors the test first proves it can tell dotu from dotc: the two
   references differ by far more than the tolerance. nrm2: a sum of n squares (n u relative)
   whose square root halves the error, plus the root's rounding: (n / 2 + 2) eps relative. */
START_TEST(blas_dot_and_nrm2_match_the_reference) {
  ag_device *dev = test_device(_i);
  const size_t one = 1;
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d], rt = ref_real_dtype(t);
    if (!test_dtype_runs(dev, t))
      continue;
    for (int s = 0; s < NVECTOR_SIZES; s++) {
      size_t n = vector_sizes[s];
      void *x, *y;
      ag_array *ax = random_array(dev, t, 1, &n, 95000u + 10u * (unsigned)d + (unsigned)s, &x);
      ag_array *ay = random_array(dev, t, 1, &n, 95500u + 10u * (unsigned)d + (unsigned)s, &y);
      ag_array *out = test_array_new(dev, t, 1, &one), *nout = test_array_new(dev, rt, 1, &one);
      ref_c want[2] = {0, 0};
      long double scale = 0;
      for (size_t i = 0; i < n; i++) {
        ref_c xi = ref_get(t, x, i), yi = ref_get(t, y, i);
        want[0] += mul(xi, yi);
        want[1] += mul(conjl(xi), yi);
        scale += cabsl(xi) * cabsl(yi);
      }
      ref_tol tol = sum_tol(t, n);
      if (ref_is_complex(t) && n > 1)
        ck_assert_msg(cabsl(want[0] - want[1]) > 10 * tol.rel * scale,
                      "%s: dotu and dotc of %zu %s differ by %Lg, too little for a tolerance of %Lg", test_label(), n,
                      ref_name(t), cabsl(want[0] - want[1]), tol.rel * scale);
      for (int conj = 0; conj < 2; conj++) {
        ref_check_ok(ag_blas_dot(NULL, ax, ay, conj, out), "ag_blas_dot of %zu %s, conjugate %d", n, ref_name(t), conj);
        void *got = test_array_read(out);
        ref_check(t, got, &want[conj], &scale, 1, tol, "ag_blas_dot of %zu elements, conjugate %s", n,
                  conj ? "true" : "false");
        free(got);
      }
      ref_c norm;
      ref_reduce(REF_NRM2, t, x, NULL, 1, n, 1, &norm, NULL);
      ref_check_ok(ag_blas_nrm2(NULL, ax, nout), "ag_blas_nrm2 of %zu %s", n, ref_name(t));
      void *got = test_array_read(nout);
      ref_check(rt, got, &norm, NULL, 1, (ref_tol){((double)n / 2 + 2) * precision_eps(t), 0}, "ag_blas_nrm2 of %zu %s",
                n, ref_name(t));
      free(got);
      check_unchanged(ax, x, "x after dot and nrm2");
      check_unchanged(ay, y, "y after dot");
      free(x);
      free(y);
      ag_array_free(ax);
      ag_array_free(ay);
      ag_array_free(out);
      ag_array_free(nout);
    }
  }
}
END_TEST

/* Empty vectors: axpy and scal do nothing; a dot of nothing is 0 in BLAS, and nrm2 of nothing
   is 0, so out must be 0 or, as ops.h allows for an operation on an empty array, untouched. */
START_TEST(level_1_routines_on_empty_vectors_succeed) {
  ag_device *dev = test_device(_i);
  const size_t zero = 0, one = 1;
  for (int d = 0; d < 4; d++) {
    ag_dtype t = blas_dtypes[d], rt = ref_real_dtype(t);
    if (!test_dtype_runs(dev, t))
      continue;
    ag_array *x = test_array_new(dev, t, 1, &zero), *y = test_array_new(dev, t, 1, &zero);
    ag_array *out = test_array_new(dev, t, 1, &one), *nout = test_array_new(dev, rt, 1, &one);
    CHECK_OK(ag_fill(NULL, out, 7));
    CHECK_OK(ag_fill(NULL, nout, 7));
    CHECK_OK(ag_axpy(NULL, 2, x, y));
    CHECK_OK(ag_scal(NULL, 2, x));
    CHECK_OK(ag_blas_dot(NULL, x, y, false, out));
    CHECK_OK(ag_blas_nrm2(NULL, x, nout));
    unsigned char b1[16], b2[16];
    CHECK_OK(ag_array_to_host(out, b1, ref_size(t)));
    CHECK_OK(ag_array_to_host(nout, b2, ref_size(rt)));
    ref_c v1 = ref_get(t, b1, 0), v2 = ref_get(rt, b2, 0);
    ck_assert_msg(v1 == 0 || v1 == 7, "%s: ag_blas_dot of empty %s vectors gave %Lg", test_label(), ref_name(t),
                  creall(v1));
    ck_assert_msg(v2 == 0 || v2 == 7, "%s: ag_blas_nrm2 of an empty %s vector gave %Lg", test_label(), ref_name(t),
                  creall(v2));
    ag_array_free(x);
    ag_array_free(y);
    ag_array_free(out);
    ag_array_free(nout);
  }
}
END_TEST

START_TEST(level_1_and_2_routines_refuse_bad_operands) {
  ag_device *dev = test_device(_i);
  const size_t five = 5, six = 6, one = 1, two = 2, s56[2] = {5, 6};
  /* Integer dtypes. */
  const ag_dtype ints[2] = {AG_U8, AG_I32};
  for (int d = 0; d < 2; d++) {
    ag_dtype t = ints[d];
    const char *name = ref_name(t);
    ag_array *x = test_array_new(dev, t, 1, &five), *y = test_array_new(dev, t, 1, &five);
    ag_array *a = test_array_new(dev, t, 2, s56), *x6 = test_array_new(dev, t, 1, &six);
    ag_array *o = test_array_new(dev, t, 1, &one);
    CHECK_OK(ag_fill(NULL, x, 1));
    CHECK_OK(ag_fill(NULL, y, 1));
    CHECK_OK(ag_fill(NULL, a, 1));
    CHECK_OK(ag_fill(NULL, x6, 1));
    CHECK_REFUSED(ag_axpy(NULL, 1, x, y), AG_ERR_UNSUPPORTED, "ag_axpy", name);
    CHECK_REFUSED(ag_scal(NULL, 2, x), AG_ERR_UNSUPPORTED, "ag_scal", name);
    CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, x6, 0, x), AG_ERR_UNSUPPORTED, "ag_gemv", name);
    CHECK_REFUSED(ag_blas_dot(NULL, x, y, false, o), AG_ERR_UNSUPPORTED, "ag_blas_dot", name);
    CHECK_REFUSED2(ag_blas_nrm2(NULL, x, o), AG_ERR_UNSUPPORTED, AG_ERR_MISMATCH, "ag_blas_nrm2", name);
    void *back = test_array_read(y);
    ck_assert_msg(ref_get(t, back, 0) == 1, "%s: a refused axpy changed y", test_label());
    free(back);
    back = test_array_read(x);
    ck_assert_msg(ref_get(t, back, 0) == 1, "%s: a refused scal changed x", test_label());
    free(back);
    ag_array_free(x);
    ag_array_free(y);
    ag_array_free(a);
    ag_array_free(x6);
    ag_array_free(o);
  }
  /* Sizes and dtypes that do not fit. */
  ag_array *x5 = test_array_new(dev, AG_F32, 1, &five), *x6 = test_array_new(dev, AG_F32, 1, &six);
  ag_array *d5 = test_array_new(dev, AG_F64, 1, &five), *a = test_array_new(dev, AG_F32, 2, s56);
  ag_array *o1 = test_array_new(dev, AG_F32, 1, &one), *o2 = test_array_new(dev, AG_F32, 1, &two);
  ag_array *od = test_array_new(dev, AG_F64, 1, &one), *z5 = test_array_new(dev, AG_C64, 1, &five);
  ag_array *oz = test_array_new(dev, AG_C64, 1, &one);
  ag_array *all[] = {x5, x6, d5, a, o1, o2, od, z5, oz};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    CHECK_OK(ag_fill(NULL, all[i], 3));
  CHECK_REFUSED(ag_axpy(NULL, 1, x5, x6), AG_ERR_MISMATCH, "ag_axpy", "x", "y");
  CHECK_REFUSED(ag_axpy(NULL, 1, x5, d5), AG_ERR_MISMATCH, "ag_axpy", "x|y");
  CHECK_REFUSED(ag_blas_dot(NULL, x5, x6, false, o1), AG_ERR_MISMATCH, "ag_blas_dot", "x", "y");
  CHECK_REFUSED(ag_blas_dot(NULL, x5, x5, false, o2), AG_ERR_MISMATCH, "ag_blas_dot", "out");
  CHECK_REFUSED(ag_blas_dot(NULL, x5, x5, false, od), AG_ERR_MISMATCH, "ag_blas_dot", "out|f64");
  CHECK_REFUSED(ag_blas_nrm2(NULL, x5, o2), AG_ERR_MISMATCH, "ag_blas_nrm2", "out");
  /* nrm2 of c64 goes into f32, not c64. */
  CHECK_REFUSED(ag_blas_nrm2(NULL, z5, oz), AG_ERR_MISMATCH, "ag_blas_nrm2", "out|c64");
  /* gemv: A (5, 6) takes 6 elements and gives 5, transposed the other way round. */
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, x5, 0, x5), AG_ERR_MISMATCH, "ag_gemv", "x");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, x6, 0, x6), AG_ERR_MISMATCH, "ag_gemv", "y");
  CHECK_REFUSED(ag_gemv(NULL, AG_TRANS, 1, a, x6, 0, x6), AG_ERR_MISMATCH, "ag_gemv", "x");
  CHECK_REFUSED2(ag_gemv(NULL, AG_NO_TRANS, 1, x6, x6, 0, x5), AG_ERR_MISMATCH, AG_ERR_INVALID_ARGUMENT, "ag_gemv",
                 "a|A");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, x6, 0, d5), AG_ERR_MISMATCH, "ag_gemv", "y|f64");
  /* NULL operands. */
  CHECK_REFUSED(ag_axpy(NULL, 1, NULL, x5), AG_ERR_INVALID_ARGUMENT, "ag_axpy", "x");
  CHECK_REFUSED(ag_axpy(NULL, 1, x5, NULL), AG_ERR_INVALID_ARGUMENT, "ag_axpy", "y");
  CHECK_REFUSED(ag_scal(NULL, 1, NULL), AG_ERR_INVALID_ARGUMENT, "ag_scal", "x");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, NULL, x6, 0, x5), AG_ERR_INVALID_ARGUMENT, "ag_gemv", "a|A");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, NULL, 0, x5), AG_ERR_INVALID_ARGUMENT, "ag_gemv", "x");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, x6, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_gemv", "y");
  CHECK_REFUSED(ag_gemv(NULL, (ag_transpose)5, 1, a, x6, 0, x5), AG_ERR_INVALID_ARGUMENT, "ag_gemv",
                "ta|trans|transpose");
  CHECK_REFUSED(ag_blas_dot(NULL, NULL, x5, false, o1), AG_ERR_INVALID_ARGUMENT, "ag_blas_dot", "x");
  CHECK_REFUSED(ag_blas_dot(NULL, x5, NULL, false, o1), AG_ERR_INVALID_ARGUMENT, "ag_blas_dot", "y");
  CHECK_REFUSED(ag_blas_dot(NULL, x5, x5, false, NULL), AG_ERR_INVALID_ARGUMENT, "ag_blas_dot", "out");
  CHECK_REFUSED(ag_blas_nrm2(NULL, NULL, o1), AG_ERR_INVALID_ARGUMENT, "ag_blas_nrm2", "x");
  CHECK_REFUSED(ag_blas_nrm2(NULL, x5, NULL), AG_ERR_INVALID_ARGUMENT, "ag_blas_nrm2", "out");
  /* The refused calls wrote nothing. */
  ag_array *outs[] = {x5, x6, d5, o1, o2, od, oz};
  test_check_all_equal(outs, sizeof outs / sizeof outs[0], 3, "a refused call");
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    ag_array_free(all[i]);
}
END_TEST

START_TEST(operands_on_different_devices_are_refused) {
  ag_device *dev = test_device(_i);
  ag_device *other = test_other_device(dev, "BLAS with operands on two devices");
  if (other == NULL)
    return;
  const size_t s[2] = {3, 3}, three = 3, one = 1;
  ag_array *a = test_array_new(dev, AG_F32, 2, s), *far = test_array_new(other, AG_F32, 2, s);
  ag_array *x = test_array_new(dev, AG_F32, 1, &three), *xfar = test_array_new(other, AG_F32, 1, &three);
  ag_array *o = test_array_new(dev, AG_F32, 1, &one), *ofar = test_array_new(other, AG_F32, 1, &one);
  ag_array *all[] = {a, far, x, xfar, o, ofar};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    CHECK_OK(ag_fill(NULL, all[i], 1));
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a, far, 0, a), AG_ERR_MISMATCH, "ag_gemm", "b|B");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, far, a, 0, a), AG_ERR_MISMATCH, "ag_gemm", "a|A");
  CHECK_REFUSED(ag_gemm(NULL, AG_NO_TRANS, AG_NO_TRANS, 1, a, a, 0, far), AG_ERR_MISMATCH, "ag_gemm", "c|C");
  CHECK_REFUSED(ag_gemv(NULL, AG_NO_TRANS, 1, a, xfar, 0, x), AG_ERR_MISMATCH, "ag_gemv", "x");
  CHECK_REFUSED(ag_axpy(NULL, 1, x, xfar), AG_ERR_MISMATCH, "ag_axpy", "x|y");
  CHECK_REFUSED(ag_blas_dot(NULL, x, xfar, false, o), AG_ERR_MISMATCH, "ag_blas_dot", "y");
  CHECK_REFUSED(ag_blas_nrm2(NULL, x, ofar), AG_ERR_MISMATCH, "ag_blas_nrm2", "out");
  ag_queue *oq = NULL;
  CHECK_OK(ag_queue_create(other, &oq));
  CHECK_REFUSED(ag_gemm(oq, AG_NO_TRANS, AG_NO_TRANS, 1, a, a, 0, a), AG_ERR_MISMATCH, "ag_gemm", "queue|q");
  CHECK_REFUSED(ag_scal(oq, 2, x), AG_ERR_MISMATCH, "ag_scal", "queue|q");
  ag_queue_destroy(oq);
  float back[9];
  CHECK_OK(ag_array_to_host(far, back, sizeof back));
  ck_assert_msg(back[0] == 1 && back[8] == 1, "%s: a refused gemm changed C on the other device", test_label());
  CHECK_OK(ag_array_to_host(a, back, sizeof back));
  ck_assert_msg(back[0] == 1 && back[8] == 1, "%s: a refused gemm changed C", test_label());
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    ag_array_free(all[i]);
}
END_TEST

/* ---- providers --------------------------------------------------------------------------------------- */

/* blas.h: OpenBLAS on the host; on OpenCL, CLBlast, or OpenBLAS on mapped buffers for a CPU
   device; cuBLAS on CUDA. */
START_TEST(the_provider_is_the_platform_blas) {
  ag_device *dev = test_device(_i);
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  const char *got = ag_blas_provider(dev);
  ck_assert_msg(got != NULL, "%s: ag_blas_provider gave NULL", test_label());
  bool ok;
  if (test_backend_is("host"))
    ok = strcmp(got, "OpenBLAS") == 0;
  else if (test_backend_is("cuda"))
    ok = strcmp(got, "cuBLAS") == 0;
  else
    ok = strcmp(got, "CLBlast") == 0 || (info.type == AG_DEVICE_CPU && strcmp(got, "OpenBLAS (mapped)") == 0);
  ck_assert_msg(ok, "%s: ag_blas_provider gave \"%s\" on a %s device of backend %s", test_label(), got,
                info.type == AG_DEVICE_CPU ? "CPU" : "non-CPU", test_backend());
}
END_TEST

/* ---- the references themselves --------------------------------------------------------------------- */

START_TEST(the_gemm_reference_agrees_with_products_worked_by_hand) {
  /* A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]: AB = [[19, 22], [43, 50]], A^T B = [[26, 30],
     [38, 44]], A B^T = [[17, 23], [39, 53]]. With alpha 2 and beta -1 on C = 1: 2 AB - 1. */
  const double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {1, 1, 1, 1};
  ref_c w[4];
  long double sc[4];
  gemm_ref(AG_F64, AG_NO_TRANS, AG_NO_TRANS, 2, 2, 2, 1, false, false, 1, a, b, 0, c, w, sc);
  ck_assert(w[0] == 19 && w[1] == 22 && w[2] == 43 && w[3] == 50);
  ck_assert(sc[0] == 19); /* all positive: the scale is the sum itself */
  gemm_ref(AG_F64, AG_TRANS, AG_NO_TRANS, 2, 2, 2, 1, false, false, 1, a, b, 0, c, w, sc);
  ck_assert(w[0] == 26 && w[1] == 30 && w[2] == 38 && w[3] == 44);
  gemm_ref(AG_F64, AG_NO_TRANS, AG_CONJ_TRANS, 2, 2, 2, 1, false, false, 1, a, b, 0, c, w, sc);
  ck_assert(w[0] == 17 && w[1] == 23 && w[2] == 39 && w[3] == 53);
  gemm_ref(AG_F64, AG_NO_TRANS, AG_NO_TRANS, 2, 2, 2, 1, false, false, 2, a, b, -1, c, w, sc);
  ck_assert(w[0] == 37 && w[3] == 99 && sc[0] == 39);
  /* Complex: A = [[i]] (1 x 1), B = [[1 + i]]: AB = -1 + i; A^H B = -i (1 + i) = 1 - i. A 2 x 1
     A = [i, 2] (stored (2, 1)) times B = [[3]]: [3i, 6]; its conjugate transpose, stored (2, 1),
     as op(A) 1 x 2 times B (2 x 1) [[1], [1]]: -i + 2. */
  const double ci[2] = {0, 1}, cb[2] = {1, 1}, col[4] = {0, 1, 2, 0}, three[2] = {3, 0}, ones[4] = {1, 0, 1, 0};
  gemm_ref(AG_C128, AG_NO_TRANS, AG_NO_TRANS, 1, 1, 1, 1, false, false, 1, ci, cb, 0, c, w, sc);
  ck_assert(w[0] == CMPLXL(-1, 1));
  gemm_ref(AG_C128, AG_CONJ_TRANS, AG_NO_TRANS, 1, 1, 1, 1, false, false, 1, ci, cb, 0, c, w, sc);
  ck_assert(w[0] == CMPLXL(1, -1));
  gemm_ref(AG_C128, AG_TRANS, AG_NO_TRANS, 1, 1, 1, 1, false, false, 1, ci, cb, 0, c, w, sc);
  ck_assert(w[0] == CMPLXL(-1, 1));
  gemm_ref(AG_C128, AG_NO_TRANS, AG_NO_TRANS, 2, 1, 1, 1, false, false, 1, col, three, 0, c, w, sc);
  ck_assert(w[0] == CMPLXL(0, 3) && w[1] == 6);
  gemm_ref(AG_C128, AG_CONJ_TRANS, AG_NO_TRANS, 1, 1, 2, 1, false, false, 1, col, ones, 0, c, w, sc);
  ck_assert(w[0] == CMPLXL(2, -1));
  /* A batch of two with B shared: [[1]] and [[2]] times [[3]]. */
  const double a2[2] = {1, 2}, b1[1] = {3};
  gemm_ref(AG_F64, AG_NO_TRANS, AG_NO_TRANS, 1, 1, 1, 2, true, false, 1, a2, b1, 0, c, w, sc);
  ck_assert(w[0] == 3 && w[1] == 6);
  /* beta = 0 never reads C: NaN there does not reach the result. */
  const double nan4[4] = {NAN, NAN, NAN, NAN};
  gemm_ref(AG_F64, AG_NO_TRANS, AG_NO_TRANS, 2, 2, 2, 1, false, false, 1, a, b, 0, nan4, w, sc);
  ck_assert(w[0] == 19 && !isnan(sc[0]));
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "the gemm reference agrees with products worked by hand",
                  the_gemm_reference_agrees_with_products_worked_by_hand);
    return;
  }
  add_device_test(s, "the provider is the platform BLAS", the_provider_is_the_platform_blas);
  add_device_test(s, "gemm matches the naive product for every size, transpose and dtype",
                  gemm_matches_the_naive_product_for_every_size_transpose_and_dtype);
  add_device_test(s, "gemm with beta 0 ignores NaN in C", gemm_with_beta_0_ignores_nan_in_c);
  add_device_test(s, "gemm_complex takes complex alpha and beta", gemm_complex_takes_complex_alpha_and_beta);
  add_device_test(s, "gemm_complex refusals name gemm_complex", gemm_complex_refusals_name_gemm_complex);
  add_device_test(s, "gemm with alpha 0 and beta 1 leaves C unchanged", gemm_with_alpha_0_and_beta_1_leaves_c_unchanged);
  add_device_test(s, "batched gemm matches the naive product per batch element",
                  batched_gemm_matches_the_naive_product_per_batch_element);
  add_device_test(s, "gemm with an empty dimension follows BLAS", gemm_with_an_empty_dimension_follows_blas);
  add_device_test(s, "gemm refuses shapes that do not fit, naming the operands",
                  gemm_refuses_shapes_that_do_not_fit_naming_the_operands);
  add_device_test(s, "gemm refuses integer and mixed dtypes", gemm_refuses_integer_and_mixed_dtypes);
  add_device_test(s, "gemm refuses NULL operands and unknown transposes",
                  gemm_refuses_null_operands_and_unknown_transposes);
  add_device_test(s, "gemm and level-1 routines on views match the reference",
                  gemm_and_level_1_routines_on_views_match_the_reference);
  add_device_test(s, "gemm on views of every layout matches the naive product",
                  gemm_on_views_of_every_layout_matches_the_naive_product);
  add_device_test(s, "batched gemm on views matches the naive product", batched_gemm_on_views_matches_the_naive_product);
  add_device_test(s, "gemv on views matches the naive product", gemv_on_views_matches_the_naive_product);
  add_device_test(s, "level-1 routines on strided views match the reference",
                  level_1_routines_on_strided_views_match_the_reference);
  add_device_test(s, "gemm on views refuses what does not fit", gemm_on_views_refuses_what_does_not_fit);
  add_device_test(s, "gemv matches the naive product for every transpose",
                  gemv_matches_the_naive_product_for_every_transpose);
  add_device_test(s, "axpy and scal match the reference", axpy_and_scal_match_the_reference);
  add_device_test(s, "BLAS dot and nrm2 match the reference", blas_dot_and_nrm2_match_the_reference);
  add_device_test(s, "level-1 routines on empty vectors succeed", level_1_routines_on_empty_vectors_succeed);
  add_device_test(s, "level-1 and 2 routines refuse bad operands", level_1_and_2_routines_refuse_bad_operands);
  add_device_test(s, "operands on different devices are refused", operands_on_different_devices_are_refused);
}
