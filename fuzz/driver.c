/* fuzz/driver.c — runs a fuzz target over files without libFuzzer (the build without
   -Dfuzzing=true, gcc's included): each argument is a file, or a folder whose files are each
   run once, as libFuzzer's -runs=0 does with a corpus. A failure is the target's own (abort, a
   sanitizer's report); the driver exits 1 only when it cannot read a file or finds none. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target, as for libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    perror(path);
    return -1;
  }
  size_t cap = 1 << 16, size = 0;
  uint8_t *data = malloc(cap);
  for (;;) {
    if (data == NULL) {
      fprintf(stderr, "%s: no memory\n", path);
      fclose(f);
      return -1;
    }
    size += fread(data + size, 1, cap - size, f);
    if (size < cap)
      break;
    cap *= 2;
    uint8_t *more = realloc(data, cap);
    if (more == NULL)
      free(data);
    data = more;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    fprintf(stderr, "%s: cannot read\n", path);
    free(data);
    return -1;
  }
  /* An exact-size copy, so that AddressSanitizer sees a read past the input's end. */
  uint8_t *exact = malloc(size > 0 ? size : 1);
  if (exact == NULL) {
    free(data);
    return -1;
  }
  memcpy(exact, data, size);
  free(data);
  LLVMFuzzerTestOneInput(exact, size);
  free(exact);
  return 1;
}

static int run_path(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    perror(path);
    return -1;
  }
  if (!S_ISDIR(st.st_mode))
    return run_file(path);
  DIR *d = opendir(path);
  if (d == NULL) {
    perror(path);
    return -1;
  }
  int runs = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char *child = malloc(n);
    if (child == NULL)
      break;
    snprintf(child, n, "%s/%s", path, e->d_name);
    int r = run_path(child);
    free(child);
    if (r < 0) {
      runs = -1;
      break;
    }
    runs += r;
  }
  closedir(d);
  return runs;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize(&argc, &argv);
  int runs = 0;
  for (int i = 1; i < argc; i++) {
    int r = run_path(argv[i]);
    if (r < 0)
      return 1;
    runs += r;
  }
  printf("%s: %d inputs run\n", argv[0], runs);
  return runs > 0 ? 0 : 1;
}
