/* tools/bench/bench.h — what the files of anygpu-bench share: co-processes, the measuring
   children's clock, the parent's device entry and totals, the BLAS and FFT rows, and each
   concern's entry points. */
#ifndef AG_TOOLS_BENCH_H
#define AG_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <anygpu.h>

/* ---- co-processes (coproc.c) ------------------------------------------------------------ */

/* A program run with its stdin and stdout on pipes to this process and its stderr on ours,
   spoken to a line at a time. */
typedef struct coproc {
  pid_t pid;
  FILE *to;   /* its stdin */
  FILE *from; /* its stdout */
} coproc;

int coproc_start(coproc *c, char *const argv[], bool search);
char *coproc_read(coproc *c, char *line, size_t size);
char *coproc_ask(coproc *c, const char *cmd, char *line, size_t size);
int coproc_end(coproc *c);

/* ---- what the measuring children share (child.c) ---------------------------------------- */

double now_ms(void);
int fail(const char *what);
ag_status event_time(ag_queue *q, ag_status (*call)(void *, int), void *ctx, int which, double *ms);

/* ---- the parent's side: devices and what was printed (main.c) --------------------------- */

/* A device as the listing child describes it. */
typedef struct device_entry {
  char spec[32];
  char backend[16]; /* "host", "cuda", "opencl" */
  char type[16];    /* "CPU", "GPU", "accelerator" */
  char name[256];
  size_t memory;
} device_entry;

typedef struct totals {
  bool any_stream;   /* a BabelStream table was printed */
  bool fewer_rounds; /* some device ran fewer than stream.c's MAX_ROUNDS rounds */
  bool peer[2];      /* numpy, CuPy figures were printed */
  bool any_linalg;   /* a BLAS and FFT table was printed */
  bool any_azint;    /* an azimuthal integration table was printed */
  bool any_template; /* a template matching table was printed */
  bool any_solvers;  /* a solvers table was printed */
  bool any_learn;    /* a learning table was printed */
  bool any_multi;    /* a batch split table was printed */
  bool any_python;   /* a Python binding overhead table was printed */
  bool any_arrays;   /* a cumulative sum and sort table was printed */
} totals;

const char *dtype_short(bool f32);

/* ---- first launch (first_launch.c) ------------------------------------------------------ */

int first_launch_child(const char *spec);
int first_launch(const char *self, const char *spec, bool csv);

/* ---- BabelStream kernels (stream.c) ----------------------------------------------------- */

int stream_child(const char *spec, const char *dtype_name, const char *mask_arg);
unsigned stream_mask(const char *only);
int stream_device(const char *self, const device_entry *d, bool f32, unsigned mask, bool csv, totals *tot);
void stream_footer(const totals *tot);
void stream_footer_rounds(const totals *tot);

/* ---- BLAS and FFT rows (linalg.c: the rows and the parent's side; linalg_child.c: the
   measurement) ---------------------------------------------------------------------------- */

/* The kinds of row. gemm-N: C = A B on N x N matrices; fft2d-N: one N x N complex transform;
   fft1d-batched-N: FFT1D_ELEMENTS / N rows of N, each transformed on its own. */
enum { R_GEMM, R_FFT2D, R_FFT1D };
#define FFT1D_ELEMENTS ((size_t)1 << 22)

struct linalg_row {
  const char *name;
  int kind;
  size_t n;
  int max_rounds;
};

/* Stated here so that both files can count the rows; linalg.c defines the table with [], so a
   table of another length does not compile. */
#define LINALG_COUNT 9
extern const struct linalg_row linalg_rows[LINALG_COUNT];

size_t row_count(const struct linalg_row *row);
int linalg_child(const char *spec, const char *dtype_name);
unsigned linalg_mask(const char *only);
int linalg_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot);
void linalg_footer(const totals *tot);

/* ---- azimuthal integration rows (azint.c) ---------------------------------------------- */

unsigned azint_mask(const char *only);
int azint_child(const char *spec);
int azint_device(const char *self, const device_entry *d, unsigned rows, bool csv, totals *tot);
void azint_footer(const totals *tot);
void frames_row_print(const char *spec, const char *row, size_t elements, bool csv, double fps, double pct,
                      const char *peer, double peer_fps, int rounds);

/* ---- the template matching row (template.c) --------------------------------------------- */

bool template_selected(const char *only);
int template_child(const char *spec);
int template_device(const char *self, const device_entry *d, bool csv, totals *tot);
void template_footer(const totals *tot);

/* ---- the solver rows (solvers.c) ------------------------------------------------------- */

unsigned solvers_mask(const char *only);
int solvers_child(const char *spec, const char *dtype_name);
int solvers_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot);
void solvers_footer(const totals *tot);

/* ---- the learning rows (learn.c) ------------------------------------------------------ */

unsigned learn_mask(const char *only);
int learn_child(const char *spec, const char *dtype_name);
int learn_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot);
void learn_footer(const totals *tot);

/* ---- the Python binding's overhead (python.c) ----------------------------------------- */

bool python_selected(const char *only);
int python_child(const char *spec);
int python_device(const char *self, const device_entry *d, bool csv, totals *tot);
void python_footer(const totals *tot);

/* ---- the cumulative sum and sort rows (arrays.c) ---------------------------------------- */

unsigned arrays_mask(const char *only);
int arrays_child(const char *spec, const char *dtype_name);
int arrays_device(const char *self, const device_entry *d, bool f32, unsigned rows, bool csv, totals *tot);
void arrays_footer(const totals *tot);

/* ---- the Python peer (peer.c) ----------------------------------------------------------- */

int peer_start(bool gpu, const char *peer, const char *const args[3], coproc *c, char *name, size_t name_size);
/* The same with PyTorch on the CPU as the module (the learning rows). */
int peer_start_torch(const char *peer, const char *const args[3], coproc *c, char *name, size_t name_size);
int peer_file_save(const char *name, const char *path);
int peer_folder_make(char *dir);
void peer_folder_remove(char *dir, const char *const *files, size_t count);

/* ---- the batch split row (multi.c) ------------------------------------------------------ */

bool multi_selected(const char *only);
int multi_child(const char *spec);
int multi_sets(const char *self, const char *spec, const device_entry *devs, int ndev, bool csv, totals *tot);
void multi_footer(const totals *tot);

#endif
