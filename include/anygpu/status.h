/* anygpu/status.h — status codes, their names and messages, and the per-thread error detail.

   Threads: every function here may be called from any thread at once. Each thread has its
   own last error; a failure on one thread never shows in another's ag_last_error(). */
#ifndef ANYGPU_STATUS_H
#define ANYGPU_STATUS_H

#include "defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The single list of statuses: X(suffix, message). Names, strings and the enum all come from
   here, so they cannot drift apart. */
#define AG_STATUS_MAP(X)                                                                        \
  X(OK, "success")                                                                              \
  X(ERR_INVALID_ARGUMENT, "invalid argument")                                                   \
  X(ERR_NO_DEVICE, "no such device")                                                            \
  X(ERR_BACKEND_UNAVAILABLE, "backend unavailable")                                             \
  X(ERR_OUT_OF_MEMORY, "out of memory")                                                         \
  X(ERR_OUT_OF_RANGE, "out of range")                                                           \
  X(ERR_MISMATCH, "mismatched operands")                                                        \
  X(ERR_UNSUPPORTED, "unsupported")                                                             \
  X(ERR_BUILD, "kernel build failed")                                                           \
  X(ERR_DEVICE, "device error")

/** Result of every fallible call. AG_OK is zero; every other value is a failure whose details
    are in ag_last_error(). */
typedef enum ag_status {
#define AG__STATUS_ENUM(name, msg) AG_##name,
  AG_STATUS_MAP(AG__STATUS_ENUM)
#undef AG__STATUS_ENUM
} ag_status;

/** The enumerator's name, "AG_ERR_OUT_OF_MEMORY"; "AG_UNKNOWN_STATUS" for a value outside the
    enum. Never NULL; the string is static. */
AG_API const char *ag_status_name(ag_status status);

/** A short lowercase description, "out of memory"; "unknown status" outside the enum. Never
    NULL; the string is static. */
AG_API const char *ag_status_string(ag_status status);

/** The detailed message of this thread's most recent failure, naming the function and the
    argument ("ag_buffer_write: offset 96 + 8 bytes exceeds buffer size 100"), and for backend
    failures the native error ("CL_OUT_OF_RESOURCES (-5)"). Successful calls leave it as it is,
    like errno. "" when no call on this thread has failed. The string is the library's and this
    thread's: it stays valid until this thread's next anygpu call (a call that succeeds may
    still replace the buffer, with the same text) or its exit, and may be passed to that call:
    a message that quotes it reads it whole before replacing it. Copy it to keep it. */
AG_API const char *ag_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
