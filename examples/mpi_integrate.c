/* examples/mpi_integrate.c — a 4D-STEM stack integrated by MPI ranks, each rank on its own
   device. The stack is a scan of SCAN x SCAN diffraction frames (default 16 x 16 frames of
   128 x 128 pixels, uint16), frame k at scan position (k / SCAN, k % SCAN) and drawn with two
   Debye rings whose radius grows across the scan, as in stem_azint.c. Of N frames, rank r of s
   takes frames [r*N/s, (r+1)*N/s), integrates them azimuthally in batches of 32 on the device
   `local-rank` gives it (its local rank modulo the number of GPUs, or the host where there is
   none; ANYGPU_DEVICE, when set, names another spec, such as opencl:pocl:local-rank), and
   brings the intensities back. Rank 0 gathers every rank's intensities in frame order, writes
   them to a file, checks that each frame's first ring is found within one bin of where it was
   drawn, and prints (only rank 0 prints to stdout):

     rank R device SPEC (NAME) frames [FIRST,END)  one line per rank
     ranks S frames N det D integrate_s T frames_per_s F
     checksum HHHHHHHHHHHHHHHH                      FNV-1a 64 of the file's bytes, the last line

   integrate_s is the time between two barriers around the batches (copies to and from the
   device included), with setup, drawing and the gather left out. The checksum is the same for
   any number of ranks on devices that compute alike.

   The file (default mpi_integrate.f32) holds N x 100 float32 values in native byte order:
   frame k's azimuthal average over 100 bins of q from 0 to the detector's edge, frame after
   frame (numpy: np.fromfile(path, np.float32).reshape(SCAN, SCAN, 100)).

   usage: mpirun -np 2 mpi_integrate [--scan SCAN] [--det D] [--out FILE]
   The local rank comes from the launcher (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, ...):
   started without one, name the device (ANYGPU_DEVICE=host ./mpi_integrate).
   Exit status 0 when every ring is found; any failure prints why and aborts the job. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <anygpu.h>

#define BATCH 32    /* frames per call on the device */
#define NPT_RAD 100 /* radial bins of the 1-D integration */

static const double pixel = 55e-6, dist = 0.1, wavelength = 2.5e-12; /* 200 keV electrons */

static int rank; /* this process's rank, for messages */

/* Prints what failed (NULL: @p why says it) and why, and ends every rank of the job. */
static void die(const char *what, const char *why) {
  if (what != NULL)
    fprintf(stderr, "mpi_integrate: rank %d: %s: %s\n", rank, what, why);
  else
    fprintf(stderr, "mpi_integrate: rank %d: %s\n", rank, why);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* Ends the job on a failed anygpu call, with ag_last_error(), which names the function and
   the argument already. */
static void check_ag(ag_status s) {
  if (s != AG_OK)
    die(NULL, ag_last_error());
}

static void check_mpi(int rc, const char *what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    die(what, msg);
  }
}

/* Scattering vector q (nm^-1) of a pixel centre at radius r metres from the beam. */
static double q_of_r(double r) { return 4 * M_PI * sin(0.5 * atan2(r, dist)) / wavelength * 1e-9; }

/* The radius (metres) of frame k's first ring: a quarter of the detector's width, 6 % larger
   at the far corner of the scan (a strain map). */
static double ring_radius(size_t k, size_t scan, size_t det) {
  double t = scan > 1 ? (double)(k / scan + k % scan) / (2.0 * (double)(scan - 1)) : 0;
  return (double)det / 4 * pixel * (1 + 0.06 * t);
}

static void draw(uint16_t *frame, size_t k, size_t scan, size_t det) {
  double r1 = ring_radius(k, scan, det), r2 = 1.7 * r1, width = 1.5 * pixel;
  for (size_t i = 0; i < det; i++)
    for (size_t j = 0; j < det; j++) {
      double y = ((double)i + 0.5 - (double)det / 2) * pixel, x = ((double)j + 0.5 - (double)det / 2) * pixel;
      double r = hypot(x, y);
      double v = 20 + 1000 * exp(-0.5 * pow((r - r1) / width, 2)) + 400 * exp(-0.5 * pow((r - r2) / width, 2));
      frame[i * det + j] = (uint16_t)lround(v);
    }
}

/* Integrates @p count frames of det x det pixels into count x NPT_RAD intensities: to the
   device, integrate, back to the host. */
static void integrate(ag_device *dev, ag_integrator *integ, const uint16_t *frames, size_t count, size_t det,
                      float *intensity) {
  size_t shape[3] = {count, det, det};
  ag_array *a;
  ag_integrate_result res;
  check_ag(ag_array_from_host(dev, AG_U16, 3, shape, frames, &a));
  check_ag(ag_integrate(NULL, integ, a, &res));
  check_ag(ag_array_to_host(res.intensity, intensity, count * NPT_RAD * sizeof *intensity));
  ag_integrate_result_free(&res);
  ag_array_free(a);
}

/* FNV-1a, 64 bits. */
static uint64_t fnv1a(const void *data, size_t bytes) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < bytes; i++)
    h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

int main(int argc, char **argv) {
  check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
  /* MPI's failures come back as codes, so that they are reported as anygpu's are. */
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  int size;
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");

  size_t scan = 16, det = 128;
  const char *out = "mpi_integrate.f32";
  bool bad = false;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--scan") == 0 && k + 1 < argc)
      scan = strtoul(argv[++k], NULL, 10);
    else if (strcmp(argv[k], "--det") == 0 && k + 1 < argc)
      det = strtoul(argv[++k], NULL, 10);
    else if (strcmp(argv[k], "--out") == 0 && k + 1 < argc)
      out = argv[++k];
    else
      bad = true;
  }
  /* MPI counts are ints: 4096^2 frames of 100 values stay below INT_MAX. */
  if (bad || scan < 1 || scan > 4096 || det < 32 || det > 8192) {
    if (rank == 0)
      fprintf(stderr, "usage: mpi_integrate [--scan 1..4096] [--det 32..8192] [--out FILE]\n");
    MPI_Finalize();
    return 2;
  }

  /* Each rank on its own device: the spec ANYGPU_DEVICE names, else local-rank. */
  const char *spec = getenv("ANYGPU_DEVICE");
  if (spec == NULL || spec[0] == '\0')
    spec = "local-rank";
  ag_device *dev;
  check_ag(ag_device_select(spec, &dev));
  ag_device_info info;
  check_ag(ag_device_get_info(dev, &info));

  size_t n = scan * scan, per = det * det, first = (size_t)rank * n / (size_t)size;
  size_t count = ((size_t)rank + 1) * n / (size_t)size - first;
  uint16_t *frames = malloc((count ? count : 1) * per * sizeof *frames);
  float *mine = malloc((count ? count : 1) * NPT_RAD * sizeof *mine);
  if (frames == NULL || mine == NULL)
    die("malloc", "out of memory");
  /* A real program reads its hyperslab, frames [first, first + count) of the stack, from its
     file here (HDF5's H5Sselect_hyperslab, or an offset into a raw file); this one draws it. */
  for (size_t k = 0; k < count; k++)
    draw(frames + k * per, first + k, scan, det);

  /* The geometry: the beam at the detector's centre, no tilt; 1-D, q from 0 to the edge. */
  ag_poni poni = {.dist = dist, .poni1 = (double)det / 2 * pixel, .poni2 = (double)det / 2 * pixel,
                  .wavelength = wavelength, .pixel1 = pixel, .pixel2 = pixel, .rows = det, .cols = det};
  ag_integrate_options opt = {.npt_rad = NPT_RAD, .unit = AG_RADIAL_Q_NM, .split = AG_SPLIT_BBOX,
                              .has_radial_range = true, .radial_min = 0,
                              .radial_max = q_of_r((double)det / 2 * pixel)};
  ag_integrator *integ;
  check_ag(ag_integrator_create(dev, &poni, &opt, &integ));
  /* One batch before the clock starts: the first launch builds the kernel on OpenCL and CUDA
     devices (or loads it from anygpu's cache), and pocl may build it again for a new size of
     launch; that is setup, not integration. */
  if (count > 0)
    integrate(dev, integ, frames, count < BATCH ? count : BATCH, det, mine);

  check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double t0 = MPI_Wtime();
  for (size_t b = 0; b < count; b += BATCH)
    integrate(dev, integ, frames + b * per, count - b < BATCH ? count - b : BATCH, det, mine + b * NPT_RAD);
  check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  double seconds = MPI_Wtime() - t0;

  /* Rank 0 gathers each rank's device and intensities; rank r's frames land at frame r*N/s. */
  char line[160], *lines = NULL;
  snprintf(line, sizeof line, "%s (%.120s)", info.spec, info.name);
  int *counts = NULL, *displs = NULL;
  float *all = NULL;
  if (rank == 0) {
    lines = malloc((size_t)size * sizeof line);
    counts = malloc((size_t)size * sizeof *counts);
    displs = malloc((size_t)size * sizeof *displs);
    all = malloc(n * NPT_RAD * sizeof *all);
    if (lines == NULL || counts == NULL || displs == NULL || all == NULL)
      die("malloc", "out of memory");
    for (size_t r = 0; r < (size_t)size; r++) {
      displs[r] = (int)(r * n / (size_t)size * NPT_RAD);
      counts[r] = (int)((r + 1) * n / (size_t)size * NPT_RAD) - displs[r];
    }
  }
  check_mpi(MPI_Gather(line, sizeof line, MPI_CHAR, lines, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Gather");
  check_mpi(MPI_Gatherv(mine, (int)(count * NPT_RAD), MPI_FLOAT, all, counts, displs, MPI_FLOAT, 0, MPI_COMM_WORLD),
            "MPI_Gatherv");

  int wrong = 0;
  if (rank == 0) {
    for (int r = 0; r < size; r++)
      printf("rank %d device %s frames [%d,%d)\n", r, lines + (size_t)r * sizeof line, displs[r] / NPT_RAD,
             (displs[r] + counts[r]) / NPT_RAD);
    FILE *f = fopen(out, "wb");
    if (f == NULL || fwrite(all, sizeof *all, n * NPT_RAD, f) != n * NPT_RAD || fclose(f) != 0)
      die(out, strerror(errno));

    /* Each frame's first ring: the largest bin inside 0.35 of the detector's width (the second
       ring, 1.7 times as wide, lies beyond). */
    double q[NPT_RAD];
    check_ag(ag_integrator_radial(integ, q));
    for (size_t k = 0; k < n; k++) {
      int best = 0;
      for (int b = 1; b < NPT_RAD * 7 / 10; b++)
        if (all[k * NPT_RAD + b] > all[k * NPT_RAD + best])
          best = b;
      if (fabs(q[best] - q_of_r(ring_radius(k, scan, det))) > q[1] - q[0])
        wrong++;
    }
    if (wrong > 0)
      fprintf(stderr, "mpi_integrate: %d of %zu frames have their first ring off by more than a bin\n", wrong, n);
    printf("ranks %d frames %zu det %zu integrate_s %.4f frames_per_s %.1f\n", size, n, det, seconds,
           (double)n / seconds);
    printf("checksum %016" PRIx64 "\n", fnv1a(all, n * NPT_RAD * sizeof *all));
  }

  ag_integrator_destroy(integ);
  free(frames);
  free(mine);
  free(lines);
  free(counts);
  free(displs);
  free(all);
  check_mpi(MPI_Finalize(), "MPI_Finalize");
  return wrong == 0 ? 0 : 1;
}
