/* tools/bench/multi.c — the batch split row (--only multi): a 4D-STEM stack of 256 frames of
   256 x 256 uint16 integrated into 100 radial x 36 azimuthal bins by ag_integrate_split(),
   once over a set's first device alone and once over the whole set, in alternating rounds in
   one child; frames/s of each, their ratio (the scaling), whether the results are identical,
   and how many frames each device took. The sets measured are --device's spec, else each group
   of two or more devices of one backend and one name (devices that compute alike). The time is
   the host's wall clock from the call to its return, transfers included. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define MU_FRAMES 256
#define MU_DET 256
#define MU_NPT_RAD 100
#define MU_NPT_AZIM 36
#define MU_CHUNK 16
#define MU_ROUNDS 5

bool multi_selected(const char *only) { return only == NULL || strcmp(only, "multi") == 0; }

/* ---- the child: one set ------------------------------------------------------------------ */

typedef struct mu_run {
  const ag_device_set *set;
  const uint16_t *frames;
  float *out;
  size_t *items;
} mu_run;

static const ag_poni mu_poni = {.dist = 0.1, .poni1 = MU_DET / 2.0 * 55e-6, .poni2 = MU_DET / 2.0 * 55e-6,
                                .wavelength = 2.5e-12, .pixel1 = 55e-6, .pixel2 = 55e-6, .rows = MU_DET,
                                .cols = MU_DET};
static const ag_integrate_options mu_opt = {.npt_rad = MU_NPT_RAD, .npt_azim = MU_NPT_AZIM, .unit = AG_RADIAL_Q_NM,
                                            .split = AG_SPLIT_BBOX, .dtype = AG_F32};

/* Wall-clock milliseconds of one ag_integrate_split over r's set. */
static ag_status mu_time(const mu_run *r, double *ms) {
  double t0 = now_ms();
  ag_status st =
      ag_integrate_split(r->set, &mu_poni, &mu_opt, r->frames, AG_U16, MU_FRAMES, MU_CHUNK, r->out, r->items);
  *ms = now_ms() - t0;
  return st;
}

int multi_child(const char *spec) {
  ag_device_set *all = NULL, *one = NULL;
  ag_device *first;
  ag_device_info info;
  int n;
  if (ag_device_set_select(spec, &all) != AG_OK || ag_device_set_count(all, &n) != AG_OK ||
      ag_device_set_get(all, 0, &first) != AG_OK || ag_device_get_info(first, &info) != AG_OK ||
      ag_device_set_select(info.spec, &one) != AG_OK)
    return fail(spec);
  size_t per = (size_t)MU_DET * MU_DET, bins = (size_t)MU_NPT_RAD * MU_NPT_AZIM;
  uint16_t *frames = malloc(MU_FRAMES * per * sizeof *frames);
  float *a = malloc(MU_FRAMES * bins * sizeof *a), *b = malloc(MU_FRAMES * bins * sizeof *b);
  size_t *items = calloc((size_t)n, sizeof *items), one_items = 0;
  if (frames == NULL || a == NULL || b == NULL || items == NULL)
    return fprintf(stderr, "anygpu-bench: out of host memory\n"), 1;
  uint32_t x = 2024;
  for (size_t i = 0; i < MU_FRAMES * per; i++) {
    x = x * 1664525u + 1013904223u;
    frames[i] = (uint16_t)(x >> 22);
  }
  mu_run r1 = {one, frames, a, &one_items}, rn = {all, frames, b, items};
  double ms, best1 = INFINITY, bestn = INFINITY;
  /* A first call of each, untimed: kernel builds and the integrators' matrices. */
  if (mu_time(&r1, &ms) != AG_OK || mu_time(&rn, &ms) != AG_OK)
    return fail("the first split");
  for (int k = 0; k < MU_ROUNDS; k++) {
    if (mu_time(&r1, &ms) != AG_OK)
      return fail("the split over one device");
    best1 = fmin(best1, ms);
    if (mu_time(&rn, &ms) != AG_OK)
      return fail("the split over the set");
    bestn = fmin(bestn, ms);
  }
  bool same = memcmp(a, b, MU_FRAMES * bins * sizeof *a) == 0;
  printf("%d %.6f %.6f %d", n, MU_FRAMES / (best1 * 1e-3), MU_FRAMES / (bestn * 1e-3), same);
  for (int i = 0; i < n; i++)
    printf(" %zu", items[i]);
  printf("\n");
  free(frames);
  free(a);
  free(b);
  free(items);
  ag_device_set_free(one);
  ag_device_set_free(all);
  return 0;
}

/* ---- the parent's side ------------------------------------------------------------------- */

static int mu_set(const char *self, const char *spec, bool csv, totals *tot) {
  char *argv[] = {(char *)self, (char *)"--multi-child", (char *)spec, NULL};
  coproc c;
  char line[1024];
  if (coproc_start(&c, argv, false) != 0)
    return 1;
  char *got = coproc_read(&c, line, sizeof line);
  int rc = coproc_end(&c);
  int n, same, used;
  double fps1, fpsn;
  if (got == NULL || rc != 0 || sscanf(line, "%d %lf %lf %d%n", &n, &fps1, &fpsn, &same, &used) != 4) {
    fprintf(stderr, "anygpu-bench: multi: the child for %s failed\n", spec);
    return 1;
  }
  char *per = line + used;
  per[strcspn(per, "\n")] = '\0';
  if (!tot->any_multi && !csv)
    printf("\nBatch split over a device set (ag_integrate_split): %d frames of %d x %d uint16 into %d x %d bins, "
           "chunks of %d\n  %-28s %7s %12s %12s %8s %9s  %s\n",
           MU_FRAMES, MU_DET, MU_DET, MU_NPT_AZIM, MU_NPT_RAD, MU_CHUNK, "set", "devices", "one frames/s",
           "set frames/s", "scaling", "identical", "frames per device");
  tot->any_multi = true;
  if (csv)
    printf("%s,azint2d-split-1,f32,%d,%.3f,frames/s,,,,\n%s,azint2d-split-%d,f32,%d,%.3f,frames/s,,azint2d-split-1,"
           "%.3f,%.3f\n",
           spec, MU_FRAMES, fps1, spec, n, MU_FRAMES, fpsn, fps1, fpsn / fps1);
  else
    printf("  %-28s %7d %12.1f %12.1f %7.2fx %9s %s\n", spec, n, fps1, fpsn, fpsn / fps1, same ? "yes" : "NO", per);
  fflush(stdout);
  return same ? 0 : 1;
}

int multi_sets(const char *self, const char *spec, const device_entry *devs, int ndev, bool csv, totals *tot) {
  if (spec != NULL)
    return mu_set(self, spec, csv, tot);
  int rc = 0;
  bool *done = calloc((size_t)ndev + 1, sizeof *done);
  if (done == NULL)
    return 1;
  for (int i = 0; i < ndev; i++) {
    if (done[i])
      continue;
    char set[1024];
    int len = snprintf(set, sizeof set, "%s", devs[i].spec), members = 1;
    for (int j = i + 1; j < ndev; j++)
      if (!done[j] && strcmp(devs[i].backend, devs[j].backend) == 0 && strcmp(devs[i].name, devs[j].name) == 0 &&
          len + strlen(devs[j].spec) + 2 < sizeof set) {
        len += snprintf(set + len, sizeof set - (size_t)len, ",%s", devs[j].spec);
        done[j] = true;
        members++;
      }
    if (members > 1)
      rc |= mu_set(self, set, csv, tot);
  }
  free(done);
  return rc;
}

void multi_footer(const totals *tot) {
  if (tot->any_multi)
    printf("multi: frames/s of the best of %d rounds, host wall clock, transfers included; scaling = the set's / "
           "its first device's alone; identical = the results are the same bytes.\n",
           MU_ROUNDS);
}
