/* tests/programs.h — the kernels the program, cache and thread suites launch, each written in
   OpenCL C, CUDA C and as a host C function, and a checked vector add they share. */
#ifndef AG_TESTS_PROGRAMS_H
#define AG_TESTS_PROGRAMS_H

#include "anygpu.h"

/* The kernels, with the same names and arguments in every dialect:
     vadd(const uint *a, const uint *b, uint *c, uint n)        c[i] = a[i] + b[i], i < n
     add_scalar(const uint *in, uint *out, uint k, uint n)      out[i] = in[i] + k, i < n
     index2d(uint *out, uint w, uint h)                         out[y*w + x] = y << 16 | x
     index3d(uint *out, uint w, uint h, uint d)                 out[(z*h + y)*w + x] =
                                                                  z << 20 | y << 10 | x
     affine_fill(ulong *out, test_affine p)                     out[i] = i * p.mul + p.add,
                                                                  i < p.n
     group_sum(const uint *in, uint *partial, local uint *scratch, uint n)
                                                                partial[group] = sum of the
                                                                  group's in[i], i < n; the
                                                                  work-group size is a power
                                                                  of two
   Every kernel compares its index with the problem size, since a launch is rounded up. */
ag_program_desc programs_desc(void);

/* scale_f64(double *out, double s, uint n): out[i] = s * i. Separate, since not every device
   has double precision. */
ag_program_desc programs_fp64_desc(void);

/* The same kernel, broken(uint *out), using an undeclared identifier named
   PROGRAMS_UNDECLARED in every compiled dialect; host kernels are absent. */
#define PROGRAMS_UNDECLARED "ag_test_undeclared_identifier"
ag_program_desc programs_broken_desc(void);

/* The struct affine_fill takes by value; laid out alike in C, OpenCL C and CUDA C. */
typedef struct test_affine {
  uint32_t mul;
  uint64_t add;
  uint32_t n;
} test_affine;

/* Runs @p k (vadd) on @p n elements with work-group size @p local (0: the backend chooses) on
   queue @p q (NULL: the default queue) and checks every element. Returns 0, or writes what went
   wrong to @p why and returns 1. Usable from threads and from forked children. */
int programs_run_vadd(ag_device *dev, ag_queue *q, ag_kernel *k, size_t n, size_t local, unsigned seed,
                      char *why, size_t why_size);

/* Creates the program of programs_desc() with @p options (both OpenCL and CUDA), runs vadd on
   @p n elements, checks them and frees everything. Returns as programs_run_vadd() does. */
int programs_build_and_run(ag_device *dev, const char *options, size_t n, char *why, size_t why_size);

#endif
