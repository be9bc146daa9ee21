"""A child process's memory, bounded so that one that allocates what it should have refused fails
at once instead of filling the machine (integrate_cli.py, npy_numpy.py).

In a plain build the bound is the child's address space (ulimit -v). A build with
-Db_sanitize=address (meson puts b_sanitize in ANYGPU_TEST_SANITIZED) cannot run under it:
AddressSanitizer reserves terabytes of shadow address space when the program starts. There the
bound is AddressSanitizer's own: an allocation larger than the bound, or a resident size past it,
stops the child with AddressSanitizer's report, which the caller sees as a failure."""

import os


def limited(nbytes):
    """subprocess.run's keyword arguments that run a child within nbytes of memory."""
    if "address" in os.environ.get("ANYGPU_TEST_SANITIZED", "none").split(","):
        mb = nbytes >> 20
        options = os.environ.get("ASAN_OPTIONS", "")
        options += (":" if options else "") + "max_allocation_size_mb=%d:hard_rss_limit_mb=%d" % (mb, mb)
        return {"env": dict(os.environ, ASAN_OPTIONS=options)}

    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return {"preexec_fn": limit}
