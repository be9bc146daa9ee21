/* tests/oclgrind.h — what the Oclgrind suites (tests/test_oclgrind_*.c) share. They
   run only inside Oclgrind's simulator, through tests/oclgrind-run.py, which fails the run on
   any error in Oclgrind's log; the suites themselves compare every result with the references.
   See docs/kernels.md#oclgrind. */
#ifndef AG_TESTS_OCLGRIND_H
#define AG_TESTS_OCLGRIND_H

#include "reference.h"

/* Selects device @p i of the backend under test, as test_device() does, and fails unless it is
   Oclgrind's simulator: run elsewhere, these suites would check values but nothing else, and
   must not pass as if Oclgrind had watched them. */
ag_device *oclgrind_device(int i);

/* A device array of @p t and @p shape (1 to 3 dimensions) holding @p data, at an element
   offset: the second half of a buffer whose first half holds other bytes. So every kernel reads
   its operands through a nonzero offset, and a read past an operand's end is outside its buffer,
   where Oclgrind sees it (one before its start reads the other bytes, which the comparison with
   the reference sees). The buffer is written whole, at once: Oclgrind's uninitialised-value
   check takes a buffer's contents from such a write only (docs/kernels.md#oclgrind). */
ag_array *oclgrind_operand(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data);

/* @p data as a device array: oclgrind_operand() on Oclgrind's device, a plain array elsewhere
   (the host device the suites compare with). */
ag_array *oclgrind_input(ag_device *dev, ag_dtype t, int ndim, const size_t *shape, const void *data);

/* A convolutional sparse coding problem small enough for the simulator: two 3 x 3 filters
   *d ([2][3][3]) and an 8 x 8 signal *s of dtype @p t on @p dev (oclgrind_input), random in
   [-1, 1) from @p seed, the same on every device; both kept (oclgrind_keep). */
void oclgrind_csc_problem(ag_device *dev, ag_dtype t, unsigned seed, ag_array **d, ag_array **s);

/* Keeps @p a (may be NULL) alive until oclgrind_free_kept(). Oclgrind's uninitialised-value
   check records each buffer's contents under the buffer's number and never forgets a record:
   a buffer released while kernels still run gives its number, and its old record, to the next
   buffer made. So the suites release nothing until a test's last launch (docs/kernels.md#oclgrind). */
void oclgrind_keep(ag_array *a);
/* Frees every array oclgrind_keep() holds. */
void oclgrind_free_kept(void);

/* Fails unless @p got (on the simulator) and @p want (on the host device) hold the same shape,
   dtype and values within @p tol relative to max(1, |want|), element by element; @p what
   names the case in the message. */
void oclgrind_same(const char *what, const ag_array *got, const ag_array *want, double tol);

#endif
