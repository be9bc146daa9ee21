/* tests/test_template.c — template matching (template.h): ag_template_library_match against a
   double-precision transcription of pyxem 0.16's polar matching written here, for random
   libraries with NaN intensities, empty templates, spots at r = 0, rotated and mirrored
   templates planted in the frames, and both prefilters; ag_match_template against a direct
   (windowed, no FFT) reference and against scikit-image 0.19 itself (tests/skimage_match.py,
   run by the build's Python, python.h; that tcase is left out where scikit-image is absent,
   and the suite then reports itself skipped), both pad_input settings, stacks and single images, flat windows; refused
   input. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "npy.h"
#include "python.h"
#include "reference.h"

/* ---- random numbers ------------------------------------------------------------------------ */

static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double next_unit(uint64_t *s) {
  return (double)(next_u64(s) >> 11) * 0x1p-53;
}

/* ---- a template library on the host --------------------------------------------------------- */

enum { N_TEMPLATES = 40, N_THETA = 72, N_R = 24, MAX_SPOTS = 12, FRAMES = 4 };

typedef struct host_library {
  size_t n, n_theta, n_r;
  size_t offsets[N_TEMPLATES + 1];
  uint32_t r[N_TEMPLATES * MAX_SPOTS], theta[N_TEMPLATES * MAX_SPOTS];
  float intensity[N_TEMPLATES * MAX_SPOTS];
} host_library;

/* Templates of 0 to 12 spots at radii 1 to n_r - 1 of intensity 0.1 to 1; template 0 has no
   spot, template 1 only NaNs, template 2 a NaN among others, template 3 a spot at r = 0 in
   its middle (pyxem ends its full correlation there), template 4 only zeros. */
static void library_random(host_library *L, uint64_t seed) {
  *L = (host_library){.n = N_TEMPLATES, .n_theta = N_THETA, .n_r = N_R};
  size_t k = 0;
  for (size_t t = 0; t < N_TEMPLATES; t++) {
    L->offsets[t] = k;
    size_t spots = t == 0 ? 0 : t < 5 ? 5 : 3 + next_u64(&seed) % (MAX_SPOTS - 2);
    for (size_t j = 0; j < spots; j++, k++) {
      L->r[k] = 1 + (uint32_t)(next_u64(&seed) % (N_R - 1));
      L->theta[k] = (uint32_t)(next_u64(&seed) % N_THETA);
      L->intensity[k] = (float)(0.1 + 0.9 * next_unit(&seed));
    }
  }
  L->offsets[N_TEMPLATES] = k;
  for (size_t j = L->offsets[1]; j < L->offsets[2]; j++)
    L->intensity[j] = NAN;
  L->intensity[L->offsets[2] + 1] = NAN;
  L->r[L->offsets[3] + 2] = 0;
  for (size_t j = L->offsets[4]; j < L->offsets[5]; j++)
    L->intensity[j] = 0;
}

static ag_template_library *library_device(ag_device *dev, const host_library *L) {
  ag_template_library *lib = NULL;
  CHECK_OK(ag_template_library_create(dev, L->n, L->offsets, L->r, L->theta, L->intensity, L->n_theta, L->n_r, &lib));
  return lib;
}

/* ---- pyxem 0.16's polar matching, transcribed in double precision ---------------------------- */

/* One frame prepared as pyxem prepares it: the intensities (NaN as 0), normalised or not, and
   the image, divided by its norm or not. */
typedef struct ref_frame {
  const host_library *L;
  double intensity[N_TEMPLATES * MAX_SPOTS];
  double integ[N_TEMPLATES][N_R];
  double image[N_THETA][N_R];
} ref_frame;

/* The end of template t's spots in pyxem's full correlation: its first spot at r = 0. */
static size_t full_end(const host_library *L, size_t t) {
  for (size_t k = L->offsets[t]; k < L->offsets[t + 1]; k++)
    if (L->r[k] == 0)
      return k;
  return L->offsets[t + 1];
}

static void ref_prepare(ref_frame *f, const host_library *L, const double *polar, bool norm_image, bool norm_templates) {
  memset(f, 0, sizeof *f);
  f->L = L;
  for (size_t t = 0; t < L->n; t++) {
    double ss = 0, iss = 0;
    for (size_t k = L->offsets[t]; k < L->offsets[t + 1]; k++) {
      f->intensity[k] = isnan(L->intensity[k]) ? 0 : L->intensity[k];
      f->integ[t][L->r[k]] += f->intensity[k];
      ss += f->intensity[k] * f->intensity[k];
    }
    for (size_t r = 0; r < N_R; r++)
      iss += f->integ[t][r] * f->integ[t][r];
    if (!norm_templates)
      continue;
    for (size_t k = L->offsets[t]; k < L->offsets[t + 1] && ss > 0; k++)
      f->intensity[k] /= sqrt(ss);
    for (size_t r = 0; r < N_R && iss > 0; r++)
      f->integ[t][r] /= sqrt(iss);
  }
  double ss = 0;
  for (size_t k = 0; k < N_THETA * N_R; k++)
    ss += polar[k] * polar[k];
  for (size_t s = 0; s < N_THETA; s++)
    for (size_t r = 0; r < N_R; r++)
      f->image[s][r] = polar[s * N_R + r] / (norm_image && ss > 0 ? sqrt(ss) : 1);
}

/* The correlation of template t at shift s, direct (sign 1) or mirrored (-1):
   _match_polar_to_polar_library_cpu's inplane_cor[s] and inplane_cor_m[s]. */
static double ref_corr(const ref_frame *f, size_t t, size_t s, int sign) {
  double acc = 0;
  for (size_t k = f->L->offsets[t]; k < full_end(f->L, t); k++) {
    size_t th = f->L->theta[k];
    size_t row = sign > 0 ? (s + th) % N_THETA : (s + N_THETA - th) % N_THETA;
    acc += f->image[row][f->L->r[k]] * f->intensity[k];
  }
  return acc;
}

typedef struct ref_hit {
  size_t index, shift;
  int sign;
  double corr;
  double runner_up; /* the next best correlation of this template at another shift or sign */
} ref_hit;

/* _get_max_n: n_keep overrides frac_keep; Python's round() rounds half to even. */
static size_t ref_kept(const ag_template_library_match_options *o, size_t n) {
  size_t keep = n;
  if (o->frac_keep != 0)
    keep = (size_t)fmax(nearbyint(o->frac_keep * (double)n), 1);
  if (o->n_keep != 0)
    keep = o->n_keep;
  return keep < n ? keep : n;
}

static int by_score_desc(const void *a, const void *b) {
  const ref_hit *x = a, *y = b;
  if (x->corr != y->corr)
    return x->corr > y->corr ? -1 : 1;
  return x->shift < y->shift ? -1 : x->shift > y->shift; /* shift holds the position here */
}

/* The frame's n_best hits, best first; *boundary_gap gets the prefilter's margin between the
   last template kept and the first left out (infinity without a prefilter). */
static void ref_match(const ref_frame *f, const ag_template_library_match_options *o, ref_hit *hits,
                      double *boundary_gap) {
  const host_library *L = f->L;
  size_t keep = ref_kept(o, L->n);
  ref_hit order[N_TEMPLATES];
  for (size_t t = 0; t < L->n; t++) {
    double fast = 0;
    for (size_t r = 0; r < N_R; r++) {
      double psum = 0;
      for (size_t s = 0; s < N_THETA; s++)
        psum += f->image[s][r];
      fast += f->integ[t][r] * psum * ((double)r / N_R);
    }
    order[t] = (ref_hit){.index = t, .shift = t, .corr = fast};
  }
  *boundary_gap = INFINITY;
  if (keep < L->n) { /* _prefilter_templates: argsort(-correlations_fast)[:max_keep] */
    qsort(order, L->n, sizeof order[0], by_score_desc);
    *boundary_gap = order[keep - 1].corr - order[keep].corr;
  }
  ref_hit cand[N_TEMPLATES];
  for (size_t k = 0; k < keep; k++) {
    size_t t = order[k].index;
    ref_hit h = {.index = t, .corr = -INFINITY, .runner_up = -INFINITY};
    double best[2] = {-INFINITY, -INFINITY};
    size_t at[2] = {0, 0};
    for (int m = 0; m < 2; m++)
      for (size_t s = 0; s < N_THETA; s++) {
        double c = ref_corr(f, t, s, m == 0 ? 1 : -1);
        if (c > best[m]) { /* np.argmax: the first maximum */
          best[m] = c;
          at[m] = s;
        }
      }
    int m = best[0] >= best[1] ? 0 : 1; /* positive_is_best = corr >= corr_m */
    h.corr = best[m];
    h.shift = at[m];
    h.sign = m == 0 ? 1 : -1;
    for (int mm = 0; mm < 2; mm++)
      for (size_t s = 0; s < N_THETA; s++) {
        double c = ref_corr(f, t, s, mm == 0 ? 1 : -1);
        if (!(mm == m && s == h.shift) && c > h.runner_up)
          h.runner_up = c;
      }
    cand[k] = h;
  }
  /* The n_best by correlation, ties to the earlier candidate: sorted by position first. */
  ref_hit sorted[N_TEMPLATES];
  for (size_t k = 0; k < keep; k++)
    sorted[k] = (ref_hit){.index = k, .shift = k, .corr = cand[k].corr};
  qsort(sorted, keep, sizeof sorted[0], by_score_desc);
  for (size_t j = 0; j < o->n_best; j++)
    hits[j] = cand[sorted[j].index];
}

/* ---- matching checks ----------------------------------------------------------------------- */

/* Tolerances, absolute on correlations of magnitude up to about 10 (sums of at most 12
   products of intensities up to 1 with pixels up to 3.5): f32 rounds each product and each
   addition (2^-24 relative, some 6e-7 of a sum of 10 after a dozen steps) and holds the
   normalised intensities rounded to float: about 1e-6 at worst (7.3e-7 measured), so 1e-5.
   f64: the same sums in another order, a few ulp of 10, so 1e-12. */
static double corr_tol(ag_dtype t) {
  return t == AG_F32 ? 1e-5 : 1e-12;
}

/* Frames of uniform noise in [0, 0.5), frame b with template plant[b] of the library added at
   3 times its intensities, rotated by shift[b] steps and mirrored when mirror[b]. */
static const size_t plant[FRAMES] = {7, 13, 22, 31};
static const size_t plant_shift[FRAMES] = {0, 17, 41, 71};
static const bool plant_mirror[FRAMES] = {false, true, false, true};

static double *frames_random(const host_library *L, uint64_t seed) {
  double *p = test_alloc(FRAMES * N_THETA * N_R * sizeof *p);
  for (size_t k = 0; k < FRAMES * N_THETA * N_R; k++)
    p[k] = 0.5 * next_unit(&seed);
  for (size_t b = 0; b < FRAMES; b++) {
    size_t t = plant[b];
    for (size_t k = L->offsets[t]; k < L->offsets[t + 1]; k++) {
      size_t th = L->theta[k], s = plant_shift[b];
      size_t row = plant_mirror[b] ? (s + N_THETA - th) % N_THETA : (s + th) % N_THETA;
      p[(b * N_THETA + row) * N_R + L->r[k]] += 3 * L->intensity[k];
    }
  }
  return p;
}

/* The frames as dtype t on dev, and the values the device holds, as doubles, in @p held. */
static ag_array *frames_device(ag_device *dev, ag_dtype t, const double *p, size_t frames, double *held) {
  size_t n = frames * N_THETA * N_R;
  float *f = test_alloc(n * sizeof *f);
  for (size_t k = 0; k < n; k++) {
    f[k] = (float)p[k];
    held[k] = t == AG_F32 ? (double)f[k] : p[k];
  }
  const size_t shape3[3] = {frames, N_THETA, N_R};
  ag_array *a = frames == 1 ? test_array_from(dev, t, 2, shape3 + 1, t == AG_F32 ? (void *)f : (const void *)p)
                            : test_array_from(dev, t, 3, shape3, t == AG_F32 ? (void *)f : (const void *)p);
  free(f);
  return a;
}

/* Matches @p frames frames (1: a 2-D polar) on dev with @p o and compares every hit with the
   reference: the correlation within the tolerance; the template, angle and sign exactly,
   unless the reference has another candidate within twice the tolerance (then our choice
   must score what we report); and the reported choice's own correlation, recomputed. Returns
   the largest difference of a correlation from the reference's. */
static double check_match(ag_device *dev, ag_template_library *lib, const host_library *L, ag_dtype t, const double *p,
                          size_t frames, const ag_template_library_match_options *o, const char *what) {
  double *held = test_alloc(frames * N_THETA * N_R * sizeof *held);
  ag_array *polar = frames_device(dev, t, p, frames, held);
  size_t nb = o->n_best;
  const size_t shape[2] = {frames, nb};
  int nd = frames == 1 ? 1 : 2;
  const size_t *sh = frames == 1 ? shape + 1 : shape;
  ag_array *idx = test_array_new(dev, AG_I32, nd, sh), *corr = test_array_new(dev, t, nd, sh),
           *angle = test_array_new(dev, t, nd, sh), *sign = test_array_new(dev, AG_I32, nd, sh);
  CHECK_OK(ag_fill(NULL, corr, 99));
  CHECK_OK(ag_template_library_match(NULL, lib, polar, o, idx, corr, angle, sign));
  int32_t *gi = test_array_read(idx), *gs = test_array_read(sign);
  void *gc = test_array_read(corr), *ga = test_array_read(angle);
  double tol = corr_tol(t), step = 360.0 / N_THETA, worst = 0;
  ref_frame *f = test_alloc(sizeof *f);
  ref_hit hits[N_TEMPLATES];
  for (size_t b = 0; b < frames; b++) {
    ref_prepare(f, L, held + b * N_THETA * N_R, o->normalize_image, o->normalize_templates);
    double gap;
    ref_match(f, o, hits, &gap);
    bool prefilter_tie = gap <= tol;
    if (prefilter_tie)
      printf("%s: %s, frame %zu: the prefilter's last two scores are %g apart; only values are checked\n",
             test_label(), what, b, gap);
    for (size_t j = 0; j < nb; j++) {
      size_t o_ = b * nb + j;
      double c = t == AG_F32 ? ((float *)gc)[o_] : ((double *)gc)[o_];
      double a = t == AG_F32 ? ((float *)ga)[o_] : ((double *)ga)[o_];
      const ref_hit *h = &hits[j];
      worst = fmax(worst, fabs(c - h->corr));
      ck_assert_msg(fabs(c - h->corr) <= tol, "%s: %s, frame %zu, hit %zu: correlation %.9g, reference %.9g (template %zu)",
                    test_label(), what, b, j, c, h->corr, h->index);
      ck_assert_msg(gi[o_] >= 0 && (size_t)gi[o_] < L->n && (gs[o_] == 1 || gs[o_] == -1),
                    "%s: %s, frame %zu, hit %zu: template %d, sign %d", test_label(), what, b, j, gi[o_], gs[o_]);
      double s = a / step;
      ck_assert_msg(fabs(s - nearbyint(s)) < 1e-3 && s >= 0 && s < N_THETA, "%s: %s: angle %.9g is not a step of %g",
                    test_label(), what, a, step);
      double own = ref_corr(f, (size_t)gi[o_], (size_t)nearbyint(s), gs[o_]);
      ck_assert_msg(fabs(own - c) <= tol, "%s: %s, frame %zu, hit %zu: template %d at shift %.0f sign %d scores %.9g "
                    "in the reference, but %.9g was reported", test_label(), what, b, j, gi[o_], s, gs[o_], own, c);
      bool tie = prefilter_tie || h->corr - h->runner_up <= 2 * tol ||
                 (j > 0 && hits[j - 1].corr - h->corr <= 2 * tol) || (j + 1 < nb && h->corr - hits[j + 1].corr <= 2 * tol);
      if (!tie)
        ck_assert_msg((size_t)gi[o_] == h->index && (size_t)nearbyint(s) == h->shift && gs[o_] == h->sign,
                      "%s: %s, frame %zu, hit %zu: template %d shift %.0f sign %d, reference template %zu shift %zu "
                      "sign %d (correlation %.9g)", test_label(), what, b, j, gi[o_], s, gs[o_], h->index, h->shift,
                      h->sign, h->corr);
    }
  }
  free(f);
  free(gi);
  free(gs);
  free(gc);
  free(ga);
  free(held);
  ag_array *all[] = {polar, idx, corr, angle, sign};
  for (size_t k = 0; k < 5; k++)
    ag_array_free(all[k]);
  return worst;
}

static const ag_dtype dtypes[2] = {AG_F32, AG_F64};

START_TEST(matching_agrees_with_the_pyxem_reference) {
  ag_device *dev = test_device(_i);
  host_library L;
  library_random(&L, 11);
  ag_template_library *lib = library_device(dev, &L);
  double *p = frames_random(&L, 12);
  /* 0.3125 * 40 = 12.5, which Python's round() takes to 12. */
  const struct {
    ag_template_library_match_options o;
    const char *what;
  } cases[] = {
      {{.n_best = 5}, "all templates, nothing normalised"},
      {{.n_best = 1, .normalize_image = true, .normalize_templates = true}, "n_best 1, both normalised"},
      {{.n_keep = 10, .n_best = 3, .normalize_templates = true}, "n_keep 10"},
      {{.frac_keep = 0.25, .n_best = 4, .normalize_image = true}, "frac_keep 0.25 (10)"},
      {{.frac_keep = 0.3125, .n_best = 12, .normalize_image = true, .normalize_templates = true},
       "frac_keep 0.3125 (12), n_best 12"},
      {{.n_keep = 1000, .frac_keep = 0.1, .n_best = 2, .normalize_templates = true}, "n_keep 1000 over frac_keep"},
  };
  for (int d = 0; d < 2; d++) {
    if (!test_dtype_runs(dev, dtypes[d]))
      continue;
    double worst = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      worst = fmax(worst, check_match(dev, lib, &L, dtypes[d], p, FRAMES, &cases[c].o, cases[c].what));
      worst = fmax(worst, check_match(dev, lib, &L, dtypes[d], p + 2 * N_THETA * N_R, 1, &cases[c].o, cases[c].what));
    }
    printf("%s: %s: largest difference of a correlation from the pyxem reference %.3g\n", test_label(),
           ag_dtype_name(dtypes[d]), worst);
  }
  free(p);
  ag_template_library_destroy(lib);
}
END_TEST

/* The templates planted in the frames come first, at their rotation, mirrored where they were
   planted mirrored: pyxem's angle is the shift times 360 / n_theta, its sign -1 the mirror. */
START_TEST(planted_rotated_and_mirrored_templates_are_found) {
  ag_device *dev = test_device(_i);
  host_library L;
  library_random(&L, 21);
  ag_template_library *lib = library_device(dev, &L);
  double *p = frames_random(&L, 22), *held = test_alloc(FRAMES * N_THETA * N_R * sizeof *held);
  ag_template_library_match_options o = {.n_best = 2, .normalize_templates = true, .frac_keep = 0.5};
  const size_t shape[2] = {FRAMES, 2};
  ag_array *polar = frames_device(dev, AG_F32, p, FRAMES, held);
  ag_array *idx = test_array_new(dev, AG_U32, 2, shape), *corr = test_array_new(dev, AG_F32, 2, shape),
           *angle = test_array_new(dev, AG_F32, 2, shape), *sign = test_array_new(dev, AG_I32, 2, shape);
  CHECK_OK(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, sign));
  uint32_t *gi = test_array_read(idx);
  int32_t *gs = test_array_read(sign);
  float *ga = test_array_read(angle);
  for (size_t b = 0; b < FRAMES; b++) {
    ck_assert_msg(gi[b * 2] == plant[b] && gs[b * 2] == (plant_mirror[b] ? -1 : 1) &&
                      fabs(ga[b * 2] - (double)plant_shift[b] * 5.0) < 1e-4,
                  "%s: frame %zu: template %u at %g degrees, sign %d; planted %zu at %g, sign %d", test_label(), b,
                  gi[b * 2], ga[b * 2], gs[b * 2], plant[b], plant_shift[b] * 5.0, plant_mirror[b] ? -1 : 1);
  }
  free(gi);
  free(gs);
  free(ga);
  free(held);
  free(p);
  ag_array *all[] = {polar, idx, corr, angle, sign};
  for (size_t k = 0; k < 5; k++)
    ag_array_free(all[k]);
  ag_template_library_destroy(lib);
}
END_TEST

/* Exact ties rank by position, in the prefilter and among the best: 12 templates of one spot,
   those at t % 3 == 0 on a pixel of 1 (r = 2), the others all alike on a pixel of 0.1
   (r = 6), the rest of the frame 0. The prefilter keeps 6: the four strong ones, then the
   first two weak ones by position; the best 5 are the strong ones at correlation 1, then
   template 1 at 0.1, all unrotated and not mirrored (the template wins a tie with its mirror). */
START_TEST(exact_ties_rank_by_position) {
  ag_device *dev = test_device(_i);
  enum { NT = 12, NB_ = 5 };
  size_t offsets[NT + 1];
  uint32_t r[NT], theta[NT];
  float inten[NT];
  for (size_t t = 0; t < NT; t++) {
    offsets[t] = t;
    r[t] = t % 3 == 0 ? 2 : 6;
    theta[t] = 0;
    inten[t] = 1;
  }
  offsets[NT] = NT;
  ag_template_library *lib;
  CHECK_OK(ag_template_library_create(dev, NT, offsets, r, theta, inten, N_THETA, N_R, &lib));
  float *frame = calloc(N_THETA * N_R, sizeof *frame);
  ck_assert_ptr_nonnull(frame);
  frame[2] = 1.0f;
  frame[6] = 0.1f;
  const size_t fshape[2] = {N_THETA, N_R}, oshape[1] = {NB_};
  ag_array *polar = test_array_from(dev, AG_F32, 2, fshape, frame);
  ag_array *idx = test_array_new(dev, AG_U32, 1, oshape), *corr = test_array_new(dev, AG_F32, 1, oshape),
           *angle = test_array_new(dev, AG_F32, 1, oshape), *sign = test_array_new(dev, AG_I32, 1, oshape);
  ag_template_library_match_options o = {.n_keep = 6, .n_best = NB_};
  CHECK_OK(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, sign));
  uint32_t *gi = test_array_read(idx);
  float *gc = test_array_read(corr), *ga = test_array_read(angle);
  int32_t *gs = test_array_read(sign);
  const uint32_t want[NB_] = {0, 3, 6, 9, 1};
  for (size_t k = 0; k < NB_; k++)
    ck_assert_msg(gi[k] == want[k] && gc[k] == (k < 4 ? 1.0f : 0.1f) && ga[k] == 0 && gs[k] == 1,
                  "%s: best %zu is template %u (correlation %.9g, %g degrees, sign %d); expected template %u",
                  test_label(), k, gi[k], gc[k], ga[k], gs[k], want[k]);
  free(gi), free(gc), free(ga), free(gs), free(frame);
  ag_array *all[] = {polar, idx, corr, angle, sign};
  for (size_t k = 0; k < 5; k++)
    ag_array_free(all[k]);
  ag_template_library_destroy(lib);
}
END_TEST

/* ---- normalised cross-correlation ---------------------------------------------------------- */

enum { NB = 3, IH = 23, IW = 31 };

/* skimage's result at one position, directly: the window at top-left (y0, x0) of the image
   padded with c; 0 when the window's values are all equal or the denominator is not above
   eps. */
static double ref_ncc(const double *img, size_t H, size_t W, const double *tp, size_t h, size_t w, long y0, long x0,
                      double c, double eps) {
  double wm = 0, tm = 0, lo = INFINITY, hi = -INFINITY;
  double *win = test_alloc(h * w * sizeof *win);
  for (size_t a = 0; a < h; a++)
    for (size_t b = 0; b < w; b++) {
      long y = y0 + (long)a, x = x0 + (long)b;
      double v = y >= 0 && x >= 0 && (size_t)y < H && (size_t)x < W ? img[(size_t)y * W + (size_t)x] : c;
      win[a * w + b] = v;
      wm += v;
      tm += tp[a * w + b];
      lo = fmin(lo, v);
      hi = fmax(hi, v);
    }
  wm /= (double)(h * w);
  tm /= (double)(h * w);
  double num = 0, vw = 0, vt = 0;
  for (size_t k = 0; k < h * w; k++) {
    num += (win[k] - wm) * (tp[k] - tm);
    vw += (win[k] - wm) * (win[k] - wm);
    vt += (tp[k] - tm) * (tp[k] - tm);
  }
  free(win);
  double den = sqrt(vw * vt);
  return lo == hi || !(den > eps) ? 0 : num / den;
}

/* Images in [0, 1) with a flat patch of 0.3 (rows 0-9, columns 0-11) in frame 2, where every
   window inside has zero variance; the template cut from frame 1 at (6, 9) plus a little
   noise. */
static void ncc_inputs(double *img, double *tp, size_t h, size_t w, uint64_t seed) {
  for (size_t k = 0; k < NB * IH * IW; k++)
    img[k] = next_unit(&seed);
  for (size_t y = 0; y < 10; y++)
    for (size_t x = 0; x < 12; x++)
      img[(2 * IH + y) * IW + x] = 0.3;
  for (size_t a = 0; a < h; a++)
    for (size_t b = 0; b < w; b++)
      tp[a * w + b] = img[(IH + 6 + a) * IW + 9 + b] + 0.05 * next_unit(&seed);
}

/* @p n doubles as dtype t (f32: rounded), and back in @p held. */
static void *as_dtype(ag_dtype t, const double *v, size_t n, double *held) {
  void *out = test_alloc(n * ag_dtype_size(t));
  for (size_t k = 0; k < n; k++) {
    if (t == AG_F32)
      held[k] = ((float *)out)[k] = (float)v[k];
    else
      held[k] = ((double *)out)[k] = v[k];
  }
  return out;
}

/* One case's inputs: the frames and template as doubles, as dtype t, and as the device holds
   them (f32 rounded), from ncc_inputs. */
typedef struct ncc_case {
  ag_dtype t;
  size_t h, w;
  double *img, *tp, *held_img, *held_tp;
  void *img_t, *tp_t;
} ncc_case;

static ncc_case ncc_case_make(ag_dtype t, size_t h, size_t w, uint64_t seed) {
  ncc_case c = {.t = t, .h = h, .w = w};
  c.img = test_alloc(NB * IH * IW * sizeof *c.img);
  c.tp = test_alloc(h * w * sizeof *c.tp);
  c.held_img = test_alloc(NB * IH * IW * sizeof *c.held_img);
  c.held_tp = test_alloc(h * w * sizeof *c.held_tp);
  ncc_inputs(c.img, c.tp, h, w, seed);
  c.img_t = as_dtype(t, c.img, NB * IH * IW, c.held_img);
  c.tp_t = as_dtype(t, c.tp, h * w, c.held_tp);
  return c;
}

static void ncc_case_free(ncc_case *c) {
  void *all[] = {c->img, c->tp, c->held_img, c->held_tp, c->img_t, c->tp_t};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    free(all[k]);
}

/* Tolerances, absolute on values in [-1, 1]: the correlation goes through a float FFT of
   25 x 37 points, whose error is a few times 2^-24 of the frame's and template's norms
   (about 20 and 2.5 here), divided by a denominator of about 2 to 3: some 1e-5; 2e-4 leaves
   room for the window sums (f32 too). f64: the same in double, 1e-9. */
static double ncc_tol(ag_dtype t) {
  return t == AG_F32 ? 2e-4 : 1e-9;
}

/* Runs ag_match_template on dev for @p frames frames (1: a 2-D image) and returns its output
   (frames x ho x wo values of dtype t). */
static void *run_ncc(ag_device *dev, ag_dtype t, const void *img, size_t frames, const void *tp, size_t h, size_t w,
                     bool pad, double c, size_t *ho, size_t *wo) {
  *ho = pad ? IH : IH - h + 1;
  *wo = pad ? IW : IW - w + 1;
  const size_t is[3] = {frames, IH, IW}, ts[2] = {h, w}, os[3] = {frames, *ho, *wo};
  int nd = frames == 1 ? 2 : 3;
  ag_array *ai = test_array_from(dev, t, nd, frames == 1 ? is + 1 : is, img), *at = test_array_from(dev, t, 2, ts, tp);
  ag_array *ao = test_array_new(dev, t, nd, frames == 1 ? os + 1 : os);
  CHECK_OK(ag_fill(NULL, ao, 7));
  CHECK_OK(ag_match_template(NULL, ai, at, pad, c, ao));
  void *got = test_array_read(ao);
  ag_array_free(ai);
  ag_array_free(at);
  ag_array_free(ao);
  return got;
}

static double value_at(ag_dtype t, const void *v, size_t k) {
  return t == AG_F32 ? ((const float *)v)[k] : ((const double *)v)[k];
}

START_TEST(normalised_cross_correlation_matches_the_direct_reference) {
  ag_device *dev = test_device(_i);
  const size_t sizes[2][2] = {{5, 7}, {4, 6}};
  for (int d = 0; d < 2; d++) {
    if (!test_dtype_runs(dev, dtypes[d]))
      continue;
    ag_dtype t = dtypes[d];
    for (int z = 0; z < 2; z++) {
      size_t h = sizes[z][0], w = sizes[z][1];
      ncc_case nc = ncc_case_make(t, h, w, 100 + (uint64_t)z);
      const double *hi = nc.held_img, *ht = nc.held_tp;
      const struct {
        bool pad;
        double c;
        size_t frames;
      } runs[] = {{false, 0, NB}, {true, 0, NB}, {true, 0.7, NB}, {true, 0, 1}, {false, 0, 1}};
      for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        size_t ho, wo, zeros = 0;
        void *got = run_ncc(dev, t, nc.img_t, runs[k].frames, nc.tp_t, h, w, runs[k].pad, runs[k].c, &ho, &wo);
        for (size_t b = 0; b < runs[k].frames; b++)
          for (size_t y = 0; y < ho; y++)
            for (size_t x = 0; x < wo; x++) {
              long y0 = runs[k].pad ? (long)y - (long)(h / 2) : (long)y, x0 = runs[k].pad ? (long)x - (long)(w / 2) : (long)x;
              double want = ref_ncc(hi + b * IH * IW, IH, IW, ht, h, w, y0, x0, runs[k].c,
                                    t == AG_F32 ? FLT_EPSILON : DBL_EPSILON);
              double g = value_at(t, got, (b * ho + y) * wo + x);
              zeros += want == 0;
              ck_assert_msg(fabs(g - want) <= ncc_tol(t) && (want != 0 || g == 0),
                            "%s: %s, template %zu x %zu, pad %d, constant %g, %zu frames: (%zu, %zu, %zu) is %.9g, "
                            "reference %.9g", test_label(), ag_dtype_name(t), h, w, runs[k].pad, runs[k].c,
                            runs[k].frames, b, y, x, g, want);
            }
        ck_assert_msg(runs[k].frames == 1 || zeros > 0, "%s: the flat patch gave no zero-variance window",
                      test_label());
        free(got);
      }
      ncc_case_free(&nc);
    }
  }
}
END_TEST

/* The image's exact copy of the template scores 1 there, and a flat template scores 0. */
START_TEST(a_cut_out_scores_one_and_a_flat_template_zero) {
  ag_device *dev = test_device(_i);
  double img[IH * IW], tp[5 * 7], flat[5 * 7];
  uint64_t seed = 5;
  for (size_t k = 0; k < IH * IW; k++)
    img[k] = next_unit(&seed);
  for (size_t a = 0; a < 5; a++)
    for (size_t b = 0; b < 7; b++) {
      tp[a * 7 + b] = img[(8 + a) * IW + 3 + b];
      flat[a * 7 + b] = 2.5;
    }
  float fi[IH * IW], ft[5 * 7], ff[5 * 7];
  for (size_t k = 0; k < IH * IW; k++)
    fi[k] = (float)img[k];
  for (size_t k = 0; k < 35; k++) {
    ft[k] = (float)tp[k];
    ff[k] = (float)flat[k];
  }
  size_t ho, wo;
  float *got = run_ncc(dev, AG_F32, fi, 1, ft, 5, 7, false, 0, &ho, &wo);
  ck_assert_msg(fabs(got[8 * wo + 3] - 1) < 1e-4, "%s: the cut-out scores %.9g", test_label(), got[8 * wo + 3]);
  for (size_t k = 0; k < ho * wo; k++)
    ck_assert_msg(got[k] <= 1 + 1e-4, "%s: position %zu scores %.9g", test_label(), k, got[k]);
  free(got);
  got = run_ncc(dev, AG_F32, fi, 1, ff, 5, 7, true, 0, &ho, &wo);
  for (size_t k = 0; k < ho * wo; k++)
    ck_assert_msg(got[k] == 0, "%s: a flat template scores %.9g at %zu", test_label(), got[k], k);
  free(got);
}
END_TEST

/* ---- scikit-image itself ------------------------------------------------------------------- */

/* skimage's match_template on the frames and template written as .npy files; its stack. */
static npy_array skimage_run(ag_dtype t, const void *img, const void *tp, size_t h, size_t w, bool pad, double c) {
  const char *dir = test_tmp_dir("template"), *src = getenv("ANYGPU_TEST_SOURCE_DIR");
  char ipath[600], tpath[600], opath[600], script[600], cs[32], out[4096], err[512];
  snprintf(ipath, sizeof ipath, "%s/image.npy", dir);
  snprintf(tpath, sizeof tpath, "%s/template.npy", dir);
  snprintf(opath, sizeof opath, "%s/skimage.npy", dir);
  snprintf(script, sizeof script, "%s/skimage_match.py", src && *src ? src : "tests");
  ck_assert_msg(access(script, R_OK) == 0, "%s: %s: %s (ANYGPU_TEST_SOURCE_DIR names the tests' folder)",
                test_label(), script, strerror(errno));
  npy_dtype nt = t == AG_F32 ? NPY_F4 : NPY_F8;
  const size_t is[3] = {NB, IH, IW}, ts[2] = {h, w};
  ck_assert_msg(npy_write(ipath, nt, 3, is, img, err, sizeof err), "%s", err);
  ck_assert_msg(npy_write(tpath, nt, 2, ts, tp, err, sizeof err), "%s", err);
  snprintf(cs, sizeof cs, "%.17g", c);
  char *const args[] = {"python3", script, ipath, tpath, pad ? "1" : "0", cs, opath, NULL};
  int rc = test_run_python(args, out, sizeof out);
  ck_assert_msg(rc == 0, "%s: %s exited with %d:\n%s", test_label(), script, rc, out);
  npy_array a;
  ck_assert_msg(npy_read(opath, &a, err, sizeof err), "%s", err);
  ck_assert_msg(a.dtype == nt, "%s: scikit-image returned %s for %s input", test_label(), npy_dtype_descr(a.dtype),
                ag_dtype_name(t));
  return a;
}

/* scikit-image's own results, where a window has variance: within the tolerance. Its flat
   windows are not compared (cumulative sums leave rounding error there, which its quotient
   turns into values of any size); how many and the largest it gave are printed. */
START_TEST(normalised_cross_correlation_agrees_with_scikit_image) {
  ag_device *dev = test_device(_i);
  size_t h = 5, w = 7;
  for (int d = 0; d < 2; d++) {
    if (!test_dtype_runs(dev, dtypes[d]))
      continue;
    ag_dtype t = dtypes[d];
    ncc_case nc = ncc_case_make(t, h, w, 300);
    const double *hi = nc.held_img, *ht = nc.held_tp;
    const struct {
      bool pad;
      double c;
    } runs[] = {{false, 0}, {true, 0}, {true, 0.7}};
    for (size_t k = 0; k < 3; k++) {
      size_t ho, wo, flat = 0;
      void *got = run_ncc(dev, t, nc.img_t, NB, nc.tp_t, h, w, runs[k].pad, runs[k].c, &ho, &wo);
      npy_array sk = skimage_run(t, nc.img_t, nc.tp_t, h, w, runs[k].pad, runs[k].c);
      ck_assert_msg(sk.count == NB * ho * wo, "%s: scikit-image gave %zu values, not %zu", test_label(), sk.count,
                    NB * ho * wo);
      double worst = 0, flat_worst = 0;
      for (size_t b = 0; b < NB; b++)
        for (size_t y = 0; y < ho; y++)
          for (size_t x = 0; x < wo; x++) {
            size_t o = (b * ho + y) * wo + x;
            long y0 = runs[k].pad ? (long)y - (long)(h / 2) : (long)y, x0 = runs[k].pad ? (long)x - (long)(w / 2) : (long)x;
            double direct = ref_ncc(hi + b * IH * IW, IH, IW, ht, h, w, y0, x0, runs[k].c, 0);
            double g = value_at(t, got, o), s = npy_get(&sk, o);
            if (direct == 0) {
              flat++;
              flat_worst = fmax(flat_worst, fabs(s));
              continue;
            }
            worst = fmax(worst, fabs(g - s));
            ck_assert_msg(fabs(g - s) <= ncc_tol(t), "%s: %s, pad %d, constant %g: (%zu, %zu, %zu) is %.9g, "
                          "scikit-image %.9g", test_label(), ag_dtype_name(t), runs[k].pad, runs[k].c, b, y, x, g, s);
          }
      printf("%s: %s, pad_input %d, constant %g: largest difference from scikit-image %.3g; %zu flat windows, "
             "where scikit-image gave up to %.3g\n", test_label(), ag_dtype_name(t), runs[k].pad, runs[k].c, worst,
             flat, flat_worst);
      npy_free(&sk);
      free(got);
    }
    ncc_case_free(&nc);
  }
}
END_TEST

/* ---- refused input -------------------------------------------------------------------------- */

START_TEST(calls_without_a_device_or_arrays_are_refused) {
  host_library L;
  library_random(&L, 1);
  ag_template_library *lib = NULL;
  CHECK_FAILS(ag_template_library_create(NULL, L.n, L.offsets, L.r, L.theta, L.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, "ag_template_library_create", "dev");
  ck_assert_ptr_null(lib);
  ag_template_library_match_options o = {.n_best = 1};
  CHECK_FAILS(ag_template_library_match(NULL, NULL, NULL, &o, NULL, NULL, NULL, NULL), AG_ERR_INVALID_ARGUMENT,
              "ag_template_library_match", "lib");
  CHECK_FAILS(ag_match_template(NULL, NULL, NULL, false, 0, NULL), AG_ERR_INVALID_ARGUMENT, "ag_match_template",
              "image");
  ag_template_library_destroy(NULL);
}
END_TEST

START_TEST(bad_library_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  host_library L;
  library_random(&L, 2);
  ag_template_library *lib = NULL;
  static const char fn[] = "ag_template_library_create";
  CHECK_FAILS(ag_template_library_create(dev, L.n, L.offsets, L.r, L.theta, L.intensity, N_THETA, N_R, NULL),
              AG_ERR_INVALID_ARGUMENT, fn, "out");
  CHECK_FAILS(ag_template_library_create(dev, L.n, NULL, L.r, L.theta, L.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "offsets");
  CHECK_FAILS(ag_template_library_create(dev, 0, L.offsets, L.r, L.theta, L.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "n_templates");
  CHECK_FAILS(ag_template_library_create(dev, L.n, L.offsets, L.r, L.theta, L.intensity, 0, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "n_theta");
  CHECK_FAILS(ag_template_library_create(dev, L.n, L.offsets, L.r, L.theta, NULL, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "intensity");
  host_library bad = L;
  bad.offsets[0] = 1;
  CHECK_FAILS(ag_template_library_create(dev, bad.n, bad.offsets, bad.r, bad.theta, bad.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "offsets[0]");
  bad = L;
  bad.offsets[7] = bad.offsets[8] + 1;
  CHECK_FAILS(ag_template_library_create(dev, bad.n, bad.offsets, bad.r, bad.theta, bad.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "offsets[8]");
  bad = L;
  bad.r[9] = N_R;
  CHECK_FAILS(ag_template_library_create(dev, bad.n, bad.offsets, bad.r, bad.theta, bad.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "r[9]");
  bad = L;
  bad.theta[11] = N_THETA + 3;
  CHECK_FAILS(ag_template_library_create(dev, bad.n, bad.offsets, bad.r, bad.theta, bad.intensity, N_THETA, N_R, &lib),
              AG_ERR_INVALID_ARGUMENT, fn, "theta[11]");
  ck_assert_ptr_null(lib);
  /* llvmpipe ends a work-item's loops after 65535 iterations: a kernel looping over the shifts
     would stop early, so such a library is refused there (docs/portability.md). */
  ag_device_info info;
  CHECK_OK(ag_device_get_info(dev, &info));
  if (info.max_loop_iterations != 0) {
    CHECK_FAILS(ag_template_library_create(dev, L.n, L.offsets, L.r, L.theta, L.intensity, info.max_loop_iterations,
                                           N_R, &lib),
                AG_ERR_UNSUPPORTED, fn, "n_theta");
    ck_assert_ptr_null(lib);
  }
}
END_TEST

START_TEST(bad_match_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  host_library L;
  library_random(&L, 3);
  ag_template_library *lib = library_device(dev, &L);
  static const char fn[] = "ag_template_library_match";
  const size_t ps[3] = {2, N_THETA, N_R}, wrong[3] = {2, N_THETA + 1, N_R}, os[2] = {2, 12}, os13[2] = {2, 13};
  ag_array *polar = test_array_new(dev, AG_F32, 3, ps), *bad_polar = test_array_new(dev, AG_F32, 3, wrong);
  ag_array *u8 = test_array_new(dev, AG_U8, 3, ps), *f64 = test_array_new(dev, AG_F64, 3, ps);
  CHECK_OK(ag_fill(NULL, polar, 0.5));
  ag_array *idx = test_array_new(dev, AG_U32, 2, os), *corr = test_array_new(dev, AG_F32, 2, os),
           *angle = test_array_new(dev, AG_F32, 2, os), *sign = test_array_new(dev, AG_I32, 2, os);
  ag_array *idx13 = test_array_new(dev, AG_U32, 2, os13), *corr13 = test_array_new(dev, AG_F32, 2, os13),
           *angle13 = test_array_new(dev, AG_F32, 2, os13), *sign13 = test_array_new(dev, AG_I32, 2, os13);
  ag_array *f_idx = test_array_new(dev, AG_F32, 2, os);
  ag_template_library_match_options o = {.n_best = 12, .frac_keep = 0.3125};
  CHECK_OK(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, sign));
  o.n_best = 13; /* 12.5 templates kept round to 12 */
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx13, corr13, angle13, sign13), AG_ERR_INVALID_ARGUMENT,
              fn, "n_best");
  o = (ag_template_library_match_options){.n_best = 0};
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, sign), AG_ERR_INVALID_ARGUMENT, fn,
              "n_best");
  o.n_best = N_TEMPLATES + 1;
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, sign), AG_ERR_INVALID_ARGUMENT, fn,
              "n_best");
  o = (ag_template_library_match_options){.n_best = 12, .frac_keep = 1.5};
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, sign), AG_ERR_INVALID_ARGUMENT, fn,
              "frac_keep");
  o = (ag_template_library_match_options){.n_best = 12};
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, NULL, idx, corr, angle, sign), AG_ERR_INVALID_ARGUMENT, fn,
              "opt");
  CHECK_FAILS(ag_template_library_match(NULL, lib, NULL, &o, idx, corr, angle, sign), AG_ERR_INVALID_ARGUMENT, fn,
              "polar");
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx, NULL, angle, sign), AG_ERR_INVALID_ARGUMENT, fn,
              "best_corr");
  CHECK_FAILS(ag_template_library_match(NULL, lib, bad_polar, &o, idx, corr, angle, sign), AG_ERR_MISMATCH, fn,
              "polar");
  CHECK_FAILS(ag_template_library_match(NULL, lib, u8, &o, idx, corr, angle, sign), AG_ERR_UNSUPPORTED, fn, "polar");
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx13, corr, angle, sign), AG_ERR_MISMATCH, fn,
              "best_index");
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, f_idx, corr, angle, sign), AG_ERR_MISMATCH, fn,
              "best_index");
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx, corr, angle, idx), AG_ERR_MISMATCH, fn, "best_sign");
  CHECK_FAILS(ag_template_library_match(NULL, lib, polar, &o, idx, corr, sign, sign), AG_ERR_MISMATCH, fn,
              "best_angle_deg");
  if (!test_dtype_runs(dev, AG_F64))
    CHECK_FAILS(ag_template_library_match(NULL, lib, f64, &o, idx, corr, angle, sign), AG_ERR_UNSUPPORTED, fn, "f64");
  ag_array *all[] = {polar, bad_polar, u8, f64, idx, corr, angle, sign, idx13, corr13, angle13, sign13, f_idx};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    ag_array_free(all[k]);
  ag_template_library_destroy(lib);
}
END_TEST

START_TEST(bad_match_template_input_is_refused_naming_the_argument) {
  ag_device *dev = test_device(_i);
  static const char fn[] = "ag_match_template";
  const size_t is[3] = {2, 9, 8}, ts[2] = {3, 4}, big[2] = {10, 4}, os[3] = {2, 7, 5}, bad_os[3] = {2, 9, 5};
  ag_array *img = test_array_new(dev, AG_F32, 3, is), *tp = test_array_new(dev, AG_F32, 2, ts);
  ag_array *big_tp = test_array_new(dev, AG_F32, 2, big), *out = test_array_new(dev, AG_F32, 3, os);
  ag_array *bad_out = test_array_new(dev, AG_F32, 3, bad_os), *u8 = test_array_new(dev, AG_U8, 3, is);
  ag_array *f64_img = test_array_new(dev, AG_F64, 3, is), *f64_tp = test_array_new(dev, AG_F64, 2, ts);
  ag_array *f64_out = test_array_new(dev, AG_F64, 3, os), *flat = test_array_new(dev, AG_F32, 1, is + 1);
  CHECK_OK(ag_fill(NULL, img, 1));
  CHECK_OK(ag_fill(NULL, tp, 1));
  CHECK_OK(ag_match_template(NULL, img, tp, false, 0, out));
  CHECK_FAILS(ag_match_template(NULL, img, NULL, false, 0, out), AG_ERR_INVALID_ARGUMENT, fn, "templ");
  CHECK_FAILS(ag_match_template(NULL, img, tp, false, 0, NULL), AG_ERR_INVALID_ARGUMENT, fn, "out");
  CHECK_FAILS(ag_match_template(NULL, img, big_tp, false, 0, out), AG_ERR_INVALID_ARGUMENT, fn, "templ");
  CHECK_FAILS(ag_match_template(NULL, img, tp, true, 0, out), AG_ERR_MISMATCH, fn, "out");
  CHECK_FAILS(ag_match_template(NULL, img, tp, false, 0, bad_out), AG_ERR_MISMATCH, fn, "out");
  CHECK_FAILS(ag_match_template(NULL, u8, tp, false, 0, out), AG_ERR_UNSUPPORTED, fn, "image");
  CHECK_FAILS(ag_match_template(NULL, img, f64_tp, false, 0, out), AG_ERR_MISMATCH, fn, "templ");
  CHECK_FAILS(ag_match_template(NULL, flat, tp, false, 0, out), AG_ERR_INVALID_ARGUMENT, fn, "image");
  if (!test_dtype_runs(dev, AG_F64))
    CHECK_FAILS(ag_match_template(NULL, f64_img, f64_tp, false, 0, f64_out), AG_ERR_UNSUPPORTED, fn, "f64");
  ag_array *all[] = {img, tp, big_tp, out, bad_out, u8, f64_img, f64_tp, f64_out, flat};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    ag_array_free(all[k]);
}
END_TEST

void suite_build(Suite *s, const char *backend) {
  if (strcmp(backend, "core") == 0) {
    add_core_test(s, "calls without a device or arrays are refused", calls_without_a_device_or_arrays_are_refused);
    return;
  }
  add_device_test(s, "matching agrees with the pyxem reference", matching_agrees_with_the_pyxem_reference);
  add_device_test(s, "exact ties rank by position", exact_ties_rank_by_position);
  add_device_test(s, "planted rotated and mirrored templates are found",
                  planted_rotated_and_mirrored_templates_are_found);
  add_device_test(s, "normalised cross-correlation matches the direct reference",
                  normalised_cross_correlation_matches_the_direct_reference);
  add_device_test(s, "a cut-out scores one and a flat template zero", a_cut_out_scores_one_and_a_flat_template_zero);
  add_device_test(s, "bad library input is refused naming the argument",
                  bad_library_input_is_refused_naming_the_argument);
  add_device_test(s, "bad match input is refused naming the argument", bad_match_input_is_refused_naming_the_argument);
  add_device_test(s, "bad match_template input is refused naming the argument",
                  bad_match_template_input_is_refused_naming_the_argument);
  char why[600];
  if (test_python_module("skimage.feature", "skimage.__version__", "0.19.", "python3-skimage", why, sizeof why))
    add_device_test(s, "normalised cross-correlation agrees with scikit-image 0.19",
                    normalised_cross_correlation_agrees_with_scikit_image);
  else
    printf("left out (one tcase): the comparison with scikit-image: %s\n", why);
}
