/* tools/bench/main.c — anygpu-bench's options, the device list, the footer under the tables,
   and main, which runs each concern's rows on each device. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: anygpu-bench [--device SPEC] [--float] [--only KERNEL] [--csv]\n"
          "  --device SPEC  run on that device only (default: every device present)\n"
          "  --float        float32, and complex64 for the FFT rows (default float64, complex128)\n"
          "  --only KERNEL  run only: one of copy, mul, add, add-transposed, triad, dot, sum,\n"
          "                 sum-axes, sum-axis0, sqrt (each also runs copy and buffer-copy, the\n"
          "                 device's bandwidth limit; add-transposed also add); gemm (the rows\n"
          "                 gemm-512, gemm-1024, gemm-2048, gemm-4096) or one of them; fft (the\n"
          "                 rows fft2d-512, fft2d-1024, fft2d-2048, fft1d-batched-256,\n"
          "                 fft1d-batched-4096) or one of them; azint (the rows azint1d, azint2d,\n"
          "                 azint2d-batch32) or one of them; template-match; solvers (the rows\n"
          "                 bpdn, tvl1, tvl2, rpca, cbpdn) or one of them; learn (the rows adam,\n"
          "                 rml-epoch, mlp-epoch) or one of them; multi (a batch split over\n"
          "                 --device's set, else over each group of like devices); python (the\n"
          "                 Python binding's overhead on c = a + b against C and numpy); arrays\n"
          "                 (the rows cumsum-2^24, sort-2^24, argsort-2^24, unique-2^22) or one of\n"
          "                 them; or first-launch\n"
          "  --csv          comma-separated rows instead of a table\n"
          "Exit status: 0 on success, 1 when a measurement fails or a result is wrong, 2 on a\n"
          "bad option or kernel name.\n");
}

/* The parent never calls into the library (see list_devices), so it names dtypes itself. */
const char *dtype_short(bool f32) { return f32 ? "f32" : "f64"; }

/* The legends in the order of the tables, then the ratio line both kinds of table share, and
   last the note on devices that stopped early. */
static void print_footer(const totals *tot) {
  stream_footer(tot);
  linalg_footer(tot);
  azint_footer(tot);
  template_footer(tot);
  solvers_footer(tot);
  learn_footer(tot);
  multi_footer(tot);
  python_footer(tot);
  arrays_footer(tot);
  if (tot->peer[0] || tot->peer[1] || tot->any_linalg || tot->any_azint || tot->any_template || tot->any_solvers ||
      tot->any_learn || tot->any_arrays)
    printf("ratio: anygpu's figure / the peer's; above 1 anygpu is faster.\n");
  stream_footer_rounds(tot);
}

/* ---- devices and main ------------------------------------------------------------------- */

/* Lists the devices (or the one @p spec names) in a child process: OpenCL drivers do not
   survive fork after they start, and this process forks for every measurement, so it never
   opens a device itself. Returns the number of devices, or -1 (the child said why); *exit_code
   is 2 for a malformed spec. */
static int list_devices(const char *spec, device_entry **out, int *exit_code) {
  *out = NULL;
  *exit_code = 1;
  int fd[2];
  if (pipe(fd) != 0) {
    perror("anygpu-bench: pipe");
    return -1;
  }
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("anygpu-bench: fork");
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    FILE *f = fdopen(fd[1], "w");
    int count = 0, code = 0;
    ag_status st = AG_OK;
    ag_device *one = NULL;
    if (spec != NULL)
      st = ag_device_select(spec, &one);
    else
      st = ag_device_count(&count);
    if (st != AG_OK) {
      fprintf(stderr, "anygpu-bench: %s\n", ag_last_error());
      _exit(st == AG_ERR_INVALID_ARGUMENT ? 2 : 1);
    }
    for (int i = 0; i < (one ? 1 : count) && f != NULL; i++) {
      ag_device *d = one;
      ag_device_info info;
      if ((one == NULL && ag_device_get(i, &d) != AG_OK) || ag_device_get_info(d, &info) != AG_OK) {
        fprintf(stderr, "anygpu-bench: %s\n", ag_last_error());
        code = 1;
        break;
      }
      const char *type = info.type == AG_DEVICE_CPU ? "CPU" : info.type == AG_DEVICE_GPU ? "GPU" : "accelerator";
      for (char *c = info.name; *c; c++)
        if (*c == '\t' || *c == '\n')
          *c = ' ';
      fprintf(f, "%s\t%s\t%s\t%zu\t%s\n", info.spec, info.backend, type, info.global_memory, info.name);
    }
    if (f)
      fclose(f);
    _exit(code);
  }
  close(fd[1]);
  FILE *in = fdopen(fd[0], "r");
  int n = 0, cap = 0;
  device_entry *list = NULL;
  char line[512];
  while (in && fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    device_entry e = {0};
    unsigned long long mem = 0;
    if (sscanf(line, "%31[^\t]\t%15[^\t]\t%15[^\t]\t%llu\t%255[^\n]", e.spec, e.backend, e.type, &mem, e.name) < 4)
      continue;
    e.memory = (size_t)mem;
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      device_entry *bigger = realloc(list, (size_t)cap * sizeof *list);
      if (bigger == NULL)
        break;
      list = bigger;
    }
    list[n++] = e;
  }
  if (in)
    fclose(in);
  else
    close(fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0) {
    *exit_code = WIFEXITED(status) && WEXITSTATUS(status) == 2 ? 2 : 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      fprintf(stderr, "anygpu-bench: no device listed\n");
    free(list);
    return -1;
  }
  *out = list;
  return n;
}

int main(int argc, char **argv) {
  const char *spec = NULL, *only = NULL;
  bool csv = false, f32 = false;
  /* The children this program runs of itself. */
  if (argc == 3 && strcmp(argv[1], "--first-launch-child") == 0)
    return first_launch_child(argv[2]);
  if (argc == 5 && strcmp(argv[1], "--stream-child") == 0)
    return stream_child(argv[2], argv[3], argv[4]);
  if (argc == 4 && strcmp(argv[1], "--linalg-child") == 0)
    return linalg_child(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "--azint-child") == 0)
    return azint_child(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--template-child") == 0)
    return template_child(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--solvers-child") == 0)
    return solvers_child(argv[2], argv[3]);
  if (argc == 4 && strcmp(argv[1], "--learn-child") == 0)
    return learn_child(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "--multi-child") == 0)
    return multi_child(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--python-child") == 0)
    return python_child(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--arrays-child") == 0)
    return arrays_child(argv[2], argv[3]);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      spec = argv[++i];
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (strcmp(argv[i], "--float") == 0)
      f32 = true;
    else if (strcmp(argv[i], "--csv") == 0)
      csv = true;
    else if (strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "anygpu-bench: unknown option \"%s\"%s\n", argv[i],
              (strcmp(argv[i], "--device") == 0 || strcmp(argv[i], "--only") == 0) ? " without its value" : "");
      usage(stderr);
      return 2;
    }
  }
  bool launch_rows = only == NULL || strcmp(only, "first-launch") == 0;
  unsigned mask = stream_mask(only), rows = linalg_mask(only), az = azint_mask(only), sv = solvers_mask(only),
           ln = learn_mask(only), ar = arrays_mask(only);
  bool tm = template_selected(only), mu = multi_selected(only), py = python_selected(only);
  if (only != NULL && mask == 0 && rows == 0 && az == 0 && !tm && sv == 0 && ln == 0 && !mu && !py && ar == 0 &&
      !launch_rows) {
    fprintf(stderr,
            "anygpu-bench: unknown kernel \"%s\" (copy, mul, add, triad, dot, sum, sqrt; gemm or gemm-N for N = "
            "512, 1024, 2048, 4096; fft, fft2d-N for N = 512, 1024, 2048 or fft1d-batched-N for N = 256, 4096; "
            "azint, azint1d, azint2d or azint2d-batch32; template-match; solvers, bpdn, tvl1, tvl2, rpca or "
            "cbpdn; learn, adam, rml-epoch or mlp-epoch; multi; python; arrays, cumsum-2^24, sort-2^24, "
            "argsort-2^24 or unique-2^22; or first-launch)\n",
            only);
    return 2;
  }
  /* /proc/self/exe, so the children run this same program whatever the working folder. */
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    perror("anygpu-bench: readlink /proc/self/exe");
    return 1;
  }
  self[n] = '\0';
  /* A child that dies mid-conversation must give an error, not end this process. */
  signal(SIGPIPE, SIG_IGN);

  device_entry *devs = NULL;
  int code = 1;
  int ndev = list_devices(spec, &devs, &code);
  if (ndev < 0)
    return code;
  if (csv)
    printf("device,kernel,dtype,size,value,unit,pct_of_limit,peer,peer_value,ratio\n");
  int rc = 0;
  totals tot = {0};
  for (int i = 0; i < ndev; i++) {
    if (mask != 0)
      rc |= stream_device(self, &devs[i], f32, mask, csv, &tot);
    if (rows != 0)
      rc |= linalg_device(self, &devs[i], f32, rows, csv, &tot);
    if (az != 0)
      rc |= azint_device(self, &devs[i], az, csv, &tot);
    if (tm)
      rc |= template_device(self, &devs[i], csv, &tot);
    if (sv != 0)
      rc |= solvers_device(self, &devs[i], f32, sv, csv, &tot);
    if (ln != 0)
      rc |= learn_device(self, &devs[i], f32, ln, csv, &tot);
    if (py)
      rc |= python_device(self, &devs[i], csv, &tot);
    if (ar != 0)
      rc |= arrays_device(self, &devs[i], f32, ar, csv, &tot);
    /* The host compiles nothing, so its first launch is measured only when asked for by name. */
    if (launch_rows && (spec != NULL || strcmp(devs[i].spec, "host") != 0)) {
      if (!csv && (mask != 0 || rows != 0 || az != 0 || tm || sv != 0 || ln != 0 || py || ar != 0))
        printf("\n");
      rc |= first_launch(self, spec != NULL ? spec : devs[i].spec, csv);
    }
  }
  if (mu)
    rc |= multi_sets(self, spec, devs, ndev, csv, &tot);
  if (!csv)
    print_footer(&tot);
  free(devs);
  return rc;
}
