/* tools/bench/peer.c — the peer: numpy (CPU devices) or CuPy (GPUs) doing the same arithmetic as
   anygpu, in a Python subprocess that runs a script compiled into this program. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "embedded.h"

/* tools/bench/peer_*.py, compiled in by tools/embed.py (see tools/meson.build), since the tool
   is installed and reads nothing from the source tree. Each peer is peer_prelude.py followed
   by its own file, given to python3 -c; the files hold nothing but the script, so what each
   does is said here.

   peer_prelude.py: what both peers begin with. argv[1]: cpu|gpu. Prints "unavailable REASON"
   and exits when the module (numpy or CuPy) does not import, else "peer NAME VERSION"; defines
   timed(f), f's time in ms.

   peer_stream.py: the BabelStream peer. argv: cpu|gpu N dtype kernels(comma-separated, in
   order). After the prelude it sets up, runs a checked round (loosely: a sanity check) and a
   warm-up round, and prints "ready". Then speaks the child's protocol: "round" runs a timed
   round and prints "times MS...", anything else ends with a check of the arrays and "ok".
   Exits 1 with a message when a check fails.

   peer_linalg.py: the peer of the BLAS and FFT rows. argv: cpu|gpu dtype(float32|float64)
   FFT1D_ELEMENTS. After the prelude it prints "ready", then answers one line for each command:
   "setup ROW" builds the row's inputs as the child does, runs a checked call and a warm-up
   call, "ready MS" with the wall-clock time of the first call (synchronized, on a GPU);
   "round" runs a timed call, "time MS"; "free" checks the last call's result and drops the
   arrays, "ok". Exits 1 with a message when a check fails. numpy.fft has no out=, so each FFT
   call allocates its result (numpy 1.x computes in complex128 whatever the input).

   peer_template.py: the template matching row's peer, numpy on the CPU whatever the device.
   argv: cpu FOLDER frac_keep n_best. "setup ROW" reads template.c's .npy files from FOLDER
   and runs a first call, "ready MS" (or "skip REASON"); "hits" prints the last call's best
   matches of the first and last frames, which template.c checks; "round" runs a timed call,
   "time MS"; "free" drops the arrays, "ok".

   peer_solvers.py: the solver rows' peer, numpy on the CPU whatever the device. argv: cpu
   FOLDER, where solvers.c has saved sporco_ref (tests/sporco_ref.py, the transcription of
   sporco the tests use, compiled in beside the peers) for it to import. "setup ROW" writes the
   row's problem (sporco_ref.bench_problem) into FOLDER as S.npy (and D.npy), "problem SOLVER
   LMBDA AXES" (or "skip REASON"); "round" makes a solver and times its 100 iterations, "time MS
   obj OBJ iterations N"; "free" drops them, "ok".

   peer_learn.py: the learning rows' peer, PyTorch on the CPU whatever the device (the prelude
   run with "torch" imports torch as xp). argv: torch float32|float64. "setup ROW" builds the
   row's data and runs a first call, "ready MS" (or "skip REASON"); "round" times one call,
   "time MS"; anything else drops the data, "ok".

   peer_arrays.py: the array rows' peer (arrays.c), numpy on the CPU whatever the device. argv:
   cpu N float32|float64 SEED: it makes arrays.c's data from SEED itself. "setup ROW N BITS"
   (cumsum-, sort- or argsort-2^24, or unique-2^22; the row's length and the random bits its
   values keep) runs a checked call and a warm-up call (for the sorts, the stable sort and
   numpy's default one), "ready SUM" with the exact sum of the data, which arrays.c compares
   with its own (or "skip REASON"); "round" times one call, "time MS", for the sorts "time MS
   DEFAULT_MS" with the default sort timed after it; anything else checks the last calls and
   drops them, "ok". Exits 1 with a message when a check fails.

   peer_python.py: the Python binding's peer (python.c). argv: cpu PYTHON_DIR LIBRARY SPEC: it
   imports the anygpu package from PYTHON_DIR with ANYGPU_LIBRARY=LIBRARY, opens SPEC and prints
   "ready" (or exits 1 saying why). "size N" times c = a + b on N float32 elements, through
   ctypes (ag_add by anygpu._lib.fn), anygpu.add where the package has it, and numpy.add(out=)
   on host arrays, checks each result, and answers "times CTYPES_US ADD_US NUMPY_US FORM" (ADD_US
   "-" without anygpu.add; FORM "alloc" where anygpu.add takes no out=, else "out"). */
extern const ag__embedded peer_scripts[];

/* The compiled-in file @p name (its file name without extension); NULL when this build has
   none. */
static const ag__embedded *peer_file(const char *name) {
  for (const ag__embedded *f = peer_scripts; f->name != NULL; f++)
    if (strcmp(f->name, name) == 0)
      return f;
  return NULL;
}

/* A new empty folder @p dir (at least 32 bytes) under /tmp for the files a peer exchanges with
   this program. Returns 0, or -1 having said why, with @p dir empty. */
int peer_folder_make(char *dir) {
  snprintf(dir, 32, "/tmp/anygpu-bench-XXXXXX");
  if (mkdtemp(dir) != NULL)
    return 0;
  perror("anygpu-bench: mkdtemp");
  dir[0] = '\0';
  return -1;
}

/* Removes the @p count files named @p files from @p dir, then @p dir, and empties @p dir;
   nothing when it is empty. */
void peer_folder_remove(char *dir, const char *const *files, size_t count) {
  if (dir[0] == '\0')
    return;
  char path[1100];
  for (size_t k = 0; k < count; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    unlink(path);
  }
  rmdir(dir);
  dir[0] = '\0';
}

/* Writes the compiled-in file @p name to @p path, for a peer to import. Returns 0, or -1 having
   said why. */
int peer_file_save(const char *name, const char *path) {
  const ag__embedded *f = peer_file(name);
  FILE *out = f != NULL ? fopen(path, "w") : NULL;
  bool ok = out != NULL && fwrite(f->data, 1, f->size, out) == f->size;
  if (out != NULL && fclose(out) != 0)
    ok = false;
  if (!ok)
    fprintf(stderr, "anygpu-bench: writing %s: %s\n", path, f == NULL ? "not in this build" : strerror(errno));
  return ok ? 0 : -1;
}

/* The script of peer @p peer ("peer_stream" or "peer_linalg"): peer_prelude.py, then the
   peer's own file, NUL-terminated; the caller frees it. Ends this process when the host has no
   memory left. */
static char *peer_script(const char *peer) {
  const ag__embedded *prelude = peer_file("peer_prelude"), *own = peer_file(peer);
  if (prelude == NULL || own == NULL) {
    fprintf(stderr, "anygpu-bench: no peer script %s in this build\n", peer);
    exit(1);
  }
  char *script = malloc(prelude->size + own->size + 1);
  if (script == NULL) {
    fprintf(stderr, "anygpu-bench: out of host memory\n");
    exit(1);
  }
  memcpy(script, prelude->data, prelude->size);
  memcpy(script + prelude->size, own->data, own->size + 1); /* with its NUL */
  return script;
}

/* Appends "; python: what" to @p why. */
static void add_reason(char *why, size_t size, const char *python, const char *what) {
  size_t used = strlen(why);
  snprintf(why + used, size - used, "%s%s: %s", used ? "; " : "", python, what);
}

/* Starts @p script (with @p mode, "cpu", "gpu" or "torch", and @p args, at most three, after
   it) on the CPU (numpy), the GPU (CuPy) or PyTorch on the CPU (@p module names which), with
   the build's Python (AG_BENCH_PYTHON: -Dpython, else the first of /usr/bin/python3 and python3
   on PATH that imported numpy when the build was configured; the tests use it too), and waits
   for its "ready". Returns 0 with *c running; else -1: with @p name set when the module
   imported but the peer failed (its rows show "-"), or empty when the interpreter lacks the
   module, having said why once per module on stderr (the CPU peers' rows then show "-",
   CuPy's stay empty, so @p name is still set for numpy and torch). */
static int peer_run(const char *mode, const char *module, const char *script, const char *const args[3], coproc *c,
                    char *name, size_t name_size) {
  static bool told[3];
  bool gpu = strcmp(mode, "gpu") == 0;
  int which = gpu ? 1 : strcmp(mode, "torch") == 0 ? 2 : 0;
  static const struct {
    const char *python;
    bool search;
  } pythons[] = {{AG_BENCH_PYTHON, false}};
  char why[1024] = "", line[256];
  name[0] = '\0';
  for (size_t i = 0; i < sizeof pythons / sizeof pythons[0]; i++) {
    char *argv[] = {(char *)pythons[i].python, (char *)"-c", (char *)script, (char *)mode,
                    (char *)args[0], (char *)args[1], (char *)args[2], NULL};
    if (coproc_start(c, argv, pythons[i].search) != 0) {
      add_reason(why, sizeof why, pythons[i].python, strerror(errno));
      coproc_end(c);
      continue;
    }
    if (coproc_read(c, line, sizeof line) == NULL) {
      int code = coproc_end(c);
      add_reason(why, sizeof why, pythons[i].python, code == 127 ? "not found" : "failed before importing");
      continue;
    }
    if (strncmp(line, "unavailable ", 12) == 0) {
      add_reason(why, sizeof why, pythons[i].python, line + 12);
      coproc_end(c);
      continue;
    }
    /* The module imported: this peer's figures, or its failure, are the answer. */
    snprintf(name, name_size, "%s", module);
    if (strncmp(line, "peer ", 5) == 0 && coproc_read(c, line, sizeof line) != NULL && strcmp(line, "ready") == 0)
      return 0;
    fprintf(stderr, "anygpu-bench: the %s peer (%s) failed before its first round (exit status %d); its rows show \"-\"\n",
            module, pythons[i].python, coproc_end(c));
    return -1;
  }
  if (!gpu)
    snprintf(name, name_size, "%s", module);
  if (!told[which]) {
    told[which] = true;
    fprintf(stderr, "anygpu-bench: no %s peer, so its columns show %s (%s)\n", module, gpu ? "nothing" : "\"-\"",
            why);
  }
  return -1;
}

/* Starts peer @p peer ("peer_stream" or "peer_linalg") as peer_run says. */
int peer_start(bool gpu, const char *peer, const char *const args[3], coproc *c, char *name, size_t name_size) {
  char *script = peer_script(peer);
  int rc = peer_run(gpu ? "gpu" : "cpu", gpu ? "cupy" : "numpy", script, args, c, name, name_size);
  free(script); /* the child has its copy since exec */
  return rc;
}

int peer_start_torch(const char *peer, const char *const args[3], coproc *c, char *name, size_t name_size) {
  char *script = peer_script(peer);
  int rc = peer_run("torch", "torch", script, args, c, name, name_size);
  free(script);
  return rc;
}
