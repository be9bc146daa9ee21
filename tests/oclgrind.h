/* tests/oclgrind.h — what the Oclgrind suites (test_oclgrind_kernels, _fill and _fft) share. They
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

/* Keeps @p a (may be NULL) alive until oclgrind_free_kept(). Oclgrind's uninitialised-value
   check records each buffer's contents under the buffer's number and never forgets a record:
   a buffer released while kernels still run gives its number, and its old record, to the next
   buffer made. So the suites release nothing until a test's last launch (docs/kernels.md#oclgrind). */
void oclgrind_keep(ag_array *a);
/* Frees every array oclgrind_keep() holds. */
void oclgrind_free_kept(void);

#endif
