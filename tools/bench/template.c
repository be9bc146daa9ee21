/* tools/bench/template.c — the template matching row (--only template-match): 64 polar frames
   of 360 x 100 float32 matched with ag_template_library_match against a library of 2000 templates of
   40 spots, as pyxem 0.16 matches them, in frames per second; next to the same algorithm in
   numpy on the CPU (peer_template.py), which reads the same frames and templates from .npy
   files written here. The parent's side runs each device's child (--template-child) and the
   peer in alternating rounds, and checks both sides' best matches against its own
   double-precision computation. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "npy.h"

/* The sizes and options; the peer is given the folder of the data, frac_keep and n_best, and
   takes the rest from the files. */
#define TM_FRAMES 64
#define TM_THETA 360
#define TM_R 100
#define TM_TEMPLATES 2000
#define TM_SPOTS 40
#define TM_FRAC_KEEP 0.1 /* pyxem's default is 1, every template: see template_footer */
#define TM_N_BEST 5
#define TM_SEED 0x2b7e151628aed2a6ull
/* Correlations agree within this, relative; a template other than the reference's is taken
   where its own correlation is that close to the reference's. */
#define TM_TOL 1e-4
#define TM_MAX_ROUNDS 20
#define TM_MIN_ROUNDS 3
#define TM_TIME_CAP_MS 10000.0

static const char tm_row[] = "template-match";
/* The frames whose matches are checked. */
static const size_t tm_checked[2] = {0, TM_FRAMES - 1};

bool template_selected(const char *only) {
  return only == NULL || strcmp(only, tm_row) == 0;
}

/* ---- the data, made alike by the parent (for the peer and the check) and the child ------- */

typedef struct tm_data {
  size_t offsets[TM_TEMPLATES + 1];
  uint32_t r[TM_TEMPLATES * TM_SPOTS], theta[TM_TEMPLATES * TM_SPOTS];
  float intensity[TM_TEMPLATES * TM_SPOTS];
  float frames[TM_FRAMES * TM_THETA * TM_R];
} tm_data;

static uint64_t tm_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 24 random bits as a float in [0, 1), exactly. */
static float tm_unit(uint64_t *s) {
  return (float)(tm_next(s) >> 40) * 0x1p-24f;
}

/* The templates: spots at r in [1, TM_R) (none at 0, which would end a template's full
   correlation in pyxem), theta in [0, TM_THETA), intensity in (0, 1]. The frames: noise in
   [0, 0.002), and one template of the library added at its intensities, rotated, and mirrored
   in every other frame, as a diffraction pattern over a background. NULL without memory. */
static tm_data *tm_generate(void) {
  tm_data *d = malloc(sizeof *d);
  if (d == NULL)
    return NULL;
  uint64_t s = TM_SEED;
  for (size_t t = 0; t <= TM_TEMPLATES; t++)
    d->offsets[t] = t * TM_SPOTS;
  for (size_t k = 0; k < TM_TEMPLATES * TM_SPOTS; k++) {
    d->r[k] = 1 + (uint32_t)(tm_next(&s) % (TM_R - 1));
    d->theta[k] = (uint32_t)(tm_next(&s) % TM_THETA);
    d->intensity[k] = 1.0f - tm_unit(&s);
  }
  for (size_t k = 0; k < TM_FRAMES * TM_THETA * TM_R; k++)
    d->frames[k] = 0.002f * tm_unit(&s);
  for (size_t f = 0; f < TM_FRAMES; f++) {
    size_t t = (f * 997 + 13) % TM_TEMPLATES, shift = (f * 53) % TM_THETA;
    for (size_t k = d->offsets[t]; k < d->offsets[t + 1]; k++) {
      size_t row = f % 2 ? (shift + TM_THETA - d->theta[k]) % TM_THETA : (shift + d->theta[k]) % TM_THETA;
      d->frames[(f * TM_THETA + row) * TM_R + d->r[k]] += d->intensity[k];
    }
  }
  return d;
}

/* ---- the reference: pyxem's algorithm in double precision on the host ---------------------- */

typedef struct tm_hit {
  long index;
  double corr;
} tm_hit;

typedef struct tm_reference {
  tm_hit hits[2][TM_N_BEST];     /* the checked frames' best matches, best first */
  double full[2][TM_TEMPLATES]; /* each template's best correlation (itself or mirrored) */
} tm_reference;

typedef struct tm_ranked {
  double value;
  size_t at; /* ties go to the lower */
} tm_ranked;

static int tm_by_value_desc(const void *a, const void *b) {
  const tm_ranked *x = a, *y = b;
  if (x->value != y->value)
    return x->value > y->value ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

/* pyxem's _get_max_n for frac_keep: max(round(frac_keep N), 1), Python's round to even. */
static size_t tm_kept(void) {
  double keep = fmax(nearbyint(TM_FRAC_KEEP * TM_TEMPLATES), 1);
  return keep < TM_TEMPLATES ? (size_t)keep : TM_TEMPLATES;
}

/* Frame @p f's matches into @p hits and @p full, with the templates' normalised intensities
   @p w and integrated templates @p integ ([TM_TEMPLATES][TM_R]); @p col ([TM_R][2 TM_THETA]),
   @p order and @p cand (TM_TEMPLATES each) are scratch. A template's correlation at shift s
   is sum_k w_k frame[(s + theta_k) mod n][r_k], mirrored (s - theta_k); the prefilter ranks
   the templates by their integrated template times the frame summed over theta, weighted by
   r / n_r. */
static void tm_reference_frame(const tm_data *d, size_t f, const double *w, const double *integ, double *col,
                               tm_ranked *order, tm_ranked *cand, tm_hit *hits, double *full) {
  const float *img = d->frames + f * TM_THETA * TM_R;
  double psum[TM_R] = {0};
  for (size_t th = 0; th < 2 * TM_THETA; th++)
    for (size_t r = 0; r < TM_R; r++)
      col[r * 2 * TM_THETA + th] = img[(th % TM_THETA) * TM_R + r];
  for (size_t th = 0; th < TM_THETA; th++)
    for (size_t r = 0; r < TM_R; r++)
      psum[r] += img[th * TM_R + r];
  for (size_t t = 0; t < TM_TEMPLATES; t++) {
    double fast = 0;
    for (size_t r = 0; r < TM_R; r++)
      fast += integ[t * TM_R + r] * psum[r] * ((double)r / TM_R);
    order[t] = (tm_ranked){fast, t};
    double acc[2][TM_THETA] = {{0}};
    for (size_t k = d->offsets[t]; k < d->offsets[t + 1]; k++) {
      /* The column of radius r_k, twice over: shift s reads theta_k + s, or TM_THETA - theta_k + s. */
      const double *c = col + d->r[k] * 2 * TM_THETA;
      const double *plus = c + d->theta[k], *minus = c + TM_THETA - d->theta[k];
      for (size_t s = 0; s < TM_THETA; s++) {
        acc[0][s] += w[k] * plus[s];
        acc[1][s] += w[k] * minus[s];
      }
    }
    double best[2] = {-INFINITY, -INFINITY};
    for (int m = 0; m < 2; m++)
      for (size_t s = 0; s < TM_THETA; s++)
        best[m] = fmax(best[m], acc[m][s]);
    full[t] = fmax(best[0], best[1]);
  }
  size_t keep = tm_kept();
  if (keep < TM_TEMPLATES)
    qsort(order, TM_TEMPLATES, sizeof *order, tm_by_value_desc);
  /* The templates kept, by correlation; ties to the one the prefilter ranked first. */
  for (size_t k = 0; k < keep; k++)
    cand[k] = (tm_ranked){full[order[k].at], k};
  qsort(cand, keep, sizeof *cand, tm_by_value_desc);
  for (size_t j = 0; j < TM_N_BEST; j++)
    hits[j] = (tm_hit){(long)order[cand[j].at].at, cand[j].value};
}

/* The reference for the checked frames; -1 without memory. */
static int tm_reference_make(const tm_data *d, tm_reference *ref) {
  double *w = malloc(TM_TEMPLATES * TM_SPOTS * sizeof *w), *integ = calloc(TM_TEMPLATES * TM_R, sizeof *integ);
  double *col = malloc(TM_R * 2 * TM_THETA * sizeof *col);
  tm_ranked *order = malloc(TM_TEMPLATES * sizeof *order), *cand = malloc(TM_TEMPLATES * sizeof *cand);
  int rc = -1;
  if (w != NULL && integ != NULL && col != NULL && order != NULL && cand != NULL) {
    /* Templates normalised (pyxem's normalize_templates, its default), the intensities and the
       integrated template each on its own, from the intensities as given. */
    for (size_t t = 0; t < TM_TEMPLATES; t++) {
      double ss = 0, iss = 0;
      double *it = integ + t * TM_R;
      for (size_t k = d->offsets[t]; k < d->offsets[t + 1]; k++) {
        ss += (double)d->intensity[k] * d->intensity[k];
        it[d->r[k]] += d->intensity[k];
      }
      for (size_t r = 0; r < TM_R; r++)
        iss += it[r] * it[r];
      for (size_t k = d->offsets[t]; k < d->offsets[t + 1]; k++)
        w[k] = d->intensity[k] / sqrt(ss);
      for (size_t r = 0; r < TM_R; r++)
        it[r] /= sqrt(iss);
    }
    for (int c = 0; c < 2; c++)
      tm_reference_frame(d, tm_checked[c], w, integ, col, order, cand, ref->hits[c], ref->full[c]);
    rc = 0;
  }
  free(w);
  free(integ);
  free(col);
  free(order);
  free(cand);
  return rc;
}

/* Checks a side's answer to "hits" (for each checked frame, its n_best template indices and
   correlations) against @p ref: each correlation within TM_TOL of the reference's at that
   place, and each template the reference's, or one whose own correlation is that close to it
   (a tie). Returns 0, or -1 with why. */
static int tm_check(const tm_reference *ref, const char *line, char *why, size_t size) {
  if (strncmp(line, "hits ", 5) != 0)
    return snprintf(why, size, "it answered \"%.200s\" for its matches", line), -1;
  const char *p = line + 4;
  for (int c = 0; c < 2; c++)
    for (size_t j = 0; j < TM_N_BEST; j++) {
      char *after_index, *after_corr;
      long index = strtol(p, &after_index, 10);
      double corr = strtod(after_index, &after_corr);
      if (after_index == p || after_corr == after_index || !isfinite(corr))
        return snprintf(why, size, "its matches \"%.200s\" are cut short or not numbers", line), -1;
      p = after_corr;
      const tm_hit *want = &ref->hits[c][j];
      double tol = TM_TOL * fabs(want->corr);
      if (!(fabs(corr - want->corr) <= tol))
        return snprintf(why, size, "frame %zu, match %zu: correlation %.9g, the reference's %.9g (template %ld)",
                        tm_checked[c], j, corr, want->corr, want->index),
               -1;
      if (index < 0 || index >= TM_TEMPLATES ||
          (index != want->index && !(fabs(ref->full[c][index] - want->corr) <= tol)))
        return snprintf(why, size, "frame %zu, match %zu: template %ld, the reference's %ld (correlation %.9g)",
                        tm_checked[c], j, index, want->index, want->corr),
               -1;
    }
  return 0;
}

/* ---- the child: one device ---------------------------------------------------------------- */

typedef struct tm_state {
  ag_queue *q;
  ag_template_library *lib;
  ag_array *frames, *index, *corr, *angle, *sign;
} tm_state;

static ag_status tm_call(void *ctx, int which) {
  (void)which;
  tm_state *s = ctx;
  const ag_template_library_match_options opt = {
      .frac_keep = TM_FRAC_KEEP, .n_best = TM_N_BEST, .normalize_templates = true};
  return ag_template_library_match(s->q, s->lib, s->frames, &opt, s->index, s->corr, s->angle, s->sign);
}

static void tm_release(tm_state *s) {
  ag_template_library_destroy(s->lib);
  ag_array *all[] = {s->frames, s->index, s->corr, s->angle, s->sign};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    ag_array_free(all[k]);
  *s = (tm_state){.q = s->q};
}

/* The last call's matches of the checked frames, as tm_check reads them. */
static int tm_print_hits(tm_state *s) {
  int32_t index[TM_FRAMES * TM_N_BEST];
  float corr[TM_FRAMES * TM_N_BEST];
  if (ag_array_to_host(s->index, index, sizeof index) != AG_OK || ag_array_to_host(s->corr, corr, sizeof corr) != AG_OK)
    return -1;
  printf("hits");
  for (int c = 0; c < 2; c++)
    for (size_t j = 0; j < TM_N_BEST; j++)
      printf(" %d %.9g", index[tm_checked[c] * TM_N_BEST + j], corr[tm_checked[c] * TM_N_BEST + j]);
  printf("\n");
  return 0;
}

int template_child(const char *spec) {
  ag_device *dev;
  tm_state s = {0};
  if (ag_device_select(spec, &dev) != AG_OK || ag_queue_create(dev, &s.q) != AG_OK)
    return fail("opening the device");
  ag_device_info info;
  ag_device_get_info(dev, &info);
  printf("device %s\t%s\n", info.platform, info.name);
  fflush(stdout);
  char line[256];
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (strncmp(line, "setup", 5) == 0) {
      tm_data *d = tm_generate();
      if (d == NULL)
        return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
      const size_t shape[3] = {TM_FRAMES, TM_THETA, TM_R}, out[2] = {TM_FRAMES, TM_N_BEST};
      double t0 = now_ms();
      ag_status st = ag_template_library_create(dev, TM_TEMPLATES, d->offsets, d->r, d->theta, d->intensity,
                                                TM_THETA, TM_R, &s.lib);
      if (st == AG_OK)
        st = ag_array_from_host(dev, AG_F32, 3, shape, d->frames, &s.frames);
      free(d);
      if (st != AG_OK || ag_array_create(dev, AG_I32, 2, out, &s.index) != AG_OK ||
          ag_array_create(dev, AG_F32, 2, out, &s.corr) != AG_OK ||
          ag_array_create(dev, AG_F32, 2, out, &s.angle) != AG_OK ||
          ag_array_create(dev, AG_I32, 2, out, &s.sign) != AG_OK || tm_call(&s, 0) != AG_OK ||
          ag_queue_finish(s.q) != AG_OK)
        return fail(tm_row);
      printf("ready %.6f\n", now_ms() - t0);
    } else if (strncmp(line, "hits", 4) == 0) {
      if (tm_print_hits(&s) != 0)
        return fail(tm_row);
    } else if (strncmp(line, "round", 5) == 0) {
      double ms;
      if (event_time(s.q, tm_call, &s, 0, &ms) != AG_OK)
        return fail(tm_row);
      printf("time %.6f\n", ms);
    } else {
      tm_release(&s);
      printf("ok\n");
    }
    fflush(stdout);
  }
  tm_release(&s);
  ag_queue_destroy(s.q);
  return 0;
}

/* ---- the parent's side -------------------------------------------------------------------- */

static const char *const tm_files[4] = {"frames.npy", "r.npy", "theta.npy", "intensity.npy"};

/* Removes what tm_write_files made in @p dir (nothing when it is empty). */
static void tm_remove_files(char *dir) {
  peer_folder_remove(dir, tm_files, 4);
}

/* A new folder @p dir (at least 32 bytes) holding the data as .npy files for the peer:
   frames [TM_FRAMES, TM_THETA, TM_R] float32; r, theta [TM_TEMPLATES, TM_SPOTS] uint32 and
   intensity float32. Returns 0, or -1 having said why, with nothing left behind. */
static int tm_write_files(const tm_data *d, char *dir) {
  if (peer_folder_make(dir) != 0)
    return -1;
  const size_t fs[3] = {TM_FRAMES, TM_THETA, TM_R}, ts[2] = {TM_TEMPLATES, TM_SPOTS};
  const struct {
    npy_dtype type;
    int ndim;
    const size_t *shape;
    const void *data;
  } arrays[4] = {{NPY_F4, 3, fs, d->frames}, {NPY_U4, 2, ts, d->r}, {NPY_U4, 2, ts, d->theta},
                 {NPY_F4, 2, ts, d->intensity}};
  char path[1100], err[512];
  for (int k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, tm_files[k]);
    if (!npy_write(path, arrays[k].type, arrays[k].ndim, arrays[k].shape, arrays[k].data, err, sizeof err)) {
      fprintf(stderr, "anygpu-bench: %s\n", err);
      tm_remove_files(dir);
      return -1;
    }
  }
  return 0;
}

static void tm_print(const device_entry *d, bool csv, double fps, const char *peer, double peer_fps, int rounds) {
  frames_row_print(d->spec, tm_row, (size_t)TM_FRAMES * TM_THETA * TM_R, csv, fps, 0, peer, peer_fps, rounds);
}

/* Asks a side for the matches of its last call and checks them; says why on stderr and returns
   -1 when they are wrong or the side has gone. @p who and @p when name the side and the call. */
static int tm_ask_check(coproc *c, const tm_reference *ref, const device_entry *d, const char *who,
                        const char *when) {
  char line[1024], why[512];
  if (coproc_ask(c, "hits", line, sizeof line) == NULL)
    return -1;
  if (tm_check(ref, line, why, sizeof why) == 0)
    return 0;
  fprintf(stderr, "anygpu-bench: %s on %s, %s%s call: %s\n", tm_row, d->spec, who, when, why);
  return -1;
}

int template_device(const char *self, const device_entry *d, bool csv, totals *tot) {
  /* The data and the reference are the same for every device: made once, kept until the end. */
  static tm_data *data;
  static tm_reference *ref;
  if (data == NULL && ((data = tm_generate()) == NULL || (ref = malloc(sizeof *ref)) == NULL ||
                       tm_reference_make(data, ref) != 0)) {
    free(data);
    free(ref);
    data = NULL, ref = NULL;
    fprintf(stderr, "anygpu-bench: out of host memory\n");
    return 1;
  }
  char *argv[] = {(char *)self, (char *)"--template-child", (char *)d->spec, NULL};
  char line[1024], dir[32] = "", py_name[16] = "";
  coproc child, py = {0};
  if (coproc_start(&child, argv, false) != 0 || coproc_read(&child, line, sizeof line) == NULL ||
      strncmp(line, "device ", 7) != 0) {
    fprintf(stderr, "anygpu-bench: the template matching row failed on %s (exit status %d)\n", d->spec,
            coproc_end(&child));
    return 1;
  }
  /* numpy on the CPU whatever the device: pyxem's CPU path. */
  bool py_on = false;
  if (tm_write_files(data, dir) == 0) {
    char frac_keep[32], n_best[16];
    snprintf(frac_keep, sizeof frac_keep, "%.17g", TM_FRAC_KEEP);
    snprintf(n_best, sizeof n_best, "%d", TM_N_BEST);
    const char *args[3] = {dir, frac_keep, n_best};
    py_on = peer_start(false, "peer_template", args, &py, py_name, sizeof py_name) == 0;
  }
  if (!csv) {
    tot->any_template = true;
    printf("\n%s: %s (%s); template matching, float32\n", d->spec, d->name, d->type);
    printf("  %-17s %9s %-8s %10s %-6s %10s %8s %6s\n", "row", "value", "unit", "% of limit", "peer", "peer value",
           "ratio", "rounds");
  }
  double first, ms, best = INFINITY, peer_best = INFINITY, spent = 0;
  char cmd[64];
  snprintf(cmd, sizeof cmd, "setup %s", tm_row);
  int rc = 0, rounds = 0;
  if (coproc_ask(&child, cmd, line, sizeof line) == NULL || sscanf(line, "ready %lf", &first) != 1 ||
      tm_ask_check(&child, ref, d, "", "the first") != 0)
    rc = 1;
  bool peer = rc == 0 && py_on && coproc_ask(&py, cmd, line, sizeof line) != NULL;
  tm_remove_files(dir); /* the peer has read them */
  if (peer && strncmp(line, "skip ", 5) == 0) {
    fprintf(stderr, "anygpu-bench: %s on %s, the %s peer: %s\n", tm_row, d->spec, py_name, line + 5);
    peer = false;
  } else if (peer && (sscanf(line, "ready %lf", &first) != 1 ||
                      tm_ask_check(&py, ref, d, "the numpy peer's ", "first") != 0)) {
    peer = false;
  }
  while (rc == 0 && rounds < TM_MAX_ROUNDS && (rounds < TM_MIN_ROUNDS || spent < TM_TIME_CAP_MS)) {
    for (int turn = 0; turn < 2 && rc == 0; turn++) {
      if ((turn == 0) == (rounds % 2 == 0)) {
        if (coproc_ask(&child, "round", line, sizeof line) == NULL || sscanf(line, "time %lf", &ms) != 1)
          rc = 1;
        else
          best = fmin(best, ms), spent += ms;
      } else if (peer) {
        if (coproc_ask(&py, "round", line, sizeof line) == NULL || sscanf(line, "time %lf", &ms) != 1)
          peer = false;
        else
          peer_best = fmin(peer_best, ms), spent += ms;
      }
    }
    rounds++;
  }
  /* Both sides' last calls are checked too. */
  if (rc == 0 && (tm_ask_check(&child, ref, d, "", "the last") != 0 ||
                  coproc_ask(&child, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
    rc = 1;
  if (peer && (tm_ask_check(&py, ref, d, "the numpy peer's ", "last") != 0 ||
               coproc_ask(&py, "free", line, sizeof line) == NULL || strcmp(line, "ok") != 0))
    peer = false;
  int code = coproc_end(&child);
  if (rc != 0 || code != 0) {
    fprintf(stderr, "anygpu-bench: the template matching row failed on %s (exit status %d)\n", d->spec, code);
    rc = 1;
  } else {
    double fps = isfinite(best) ? TM_FRAMES * 1e3 / best : 0;
    double pfps = peer && isfinite(peer_best) ? TM_FRAMES * 1e3 / peer_best : 0;
    tm_print(d, csv, fps, py_name, pfps, rounds);
  }
  if (py_on) {
    int peer_code = coproc_end(&py);
    if (rc == 0 && !peer)
      fprintf(stderr, "anygpu-bench: %s on %s: no figure from the %s peer (exit status %d)\n", tm_row, d->spec,
              py_name, peer_code);
  }
  return rc;
}

void template_footer(const totals *tot) {
  if (tot->any_template)
    printf("\ntemplate-match: %d polar frames of %d (theta) x %d (r), float32, against %d templates\n"
           "  of %d spots, matched as pyxem 0.16 does (ag_template_library_match): a prefilter keeps the %zu\n"
           "  templates (frac_keep %g) whose integrated template best matches the frame summed over\n"
           "  theta; each kept template and its mirror is correlated at every in-plane shift; the\n"
           "  best n_best = %d per frame are kept. Templates normalised, frames not (pyxem's defaults;\n"
           "  its default frac_keep, 1, matches every template in full: 10x the correlations here).\n"
           "  Data from a fixed seed: spots at r in [1, %d), theta in [0, %d), intensity in (0, 1];\n"
           "  each frame is noise in [0, 0.002) plus one template of the library, rotated, mirrored in\n"
           "  every other frame. frames/s = frames / the call's best time in at most %d rounds (fewer\n"
           "  once both sides' time passes %.0f s, at least %d), timed as the BLAS rows are. Each side's\n"
           "  first and last calls are checked on the first and last frames against a double-precision\n"
           "  computation on the host: each correlation within %g of the reference's, relative, and\n"
           "  each template the reference's unless another's correlation is that close to it (a tie).\n"
           "  %% of limit: none for this row (it is not bound by the copy bandwidth).\n"
           "peer: numpy on the CPU, whatever the device: the same algorithm with whole-array\n"
           "  operations in float32 (pyxem itself is not used; its own CPU path is compiled by\n"
           "  numba), a frame at a time as pyxem goes; all shifts of 64 templates a step, each spot's\n"
           "  column of the frame read as one run from the frame transposed and tiled twice in theta.\n",
           TM_FRAMES, TM_THETA, TM_R, TM_TEMPLATES, TM_SPOTS, tm_kept(), TM_FRAC_KEEP, TM_N_BEST, TM_R, TM_THETA,
           TM_MAX_ROUNDS, TM_TIME_CAP_MS * 1e-3, TM_MIN_ROUNDS, TM_TOL);
}
