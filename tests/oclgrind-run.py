#!/usr/bin/env python3
"""tests/oclgrind-run.py — runs a test program inside Oclgrind's simulator and fails when
Oclgrind reports anything: a data race, an uninitialised value, an access outside a buffer, an
API error, or a kernel it could not run. docs/kernels.md#oclgrind says what the oclgrind suite
checks.

usage: oclgrind-run.py [--option OPT]... [--without CHECK]... [--expect-kernel REGEX]...
                       PROGRAM [ARGS...]

  --option OPT          passes OPT to oclgrind as well (repeat it: --option --local-mem-size
                        --option 1024)
  --without CHECK       leaves out one of the checks run by default (--data-races,
                        --uninitialized, --check-api), where it cannot judge the program
  --expect-kernel REGEX fails the run unless a kernel whose whole name matches REGEX ran, so a
                        suite cannot pass by never reaching the kernels it is meant to watch
  --skip REASON         reports the run skipped (exit 77) with REASON, without running it

Exit status: the program's own when Oclgrind's log is empty and the expected kernels ran
(77, skipped, when the program skips itself or oclgrind is not installed); 1 otherwise, with
the log's reports summarised by kind and kernel and the log itself printed.
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

# Every check Oclgrind has (accesses outside buffers and barrier divergence are always checked).
CHECKS = ['--data-races', '--uninitialized', '--check-api']
# No limit on how many errors Oclgrind logs: its default, 1000 per process, would let errors in
# one kernel hide those of the next.
NO_LIMIT = ['--max-errors', '1000000000']
# Debian's Oclgrind 21.10 cannot run anygpu's kernels as its compiler optimises them: its
# interpreter cannot create kernels that call llvm.abs or llvm.experimental.noalias.scope.decl,
# the --uninitialized plugin aborts on LLVM's freeze instruction, and it takes the undefined
# vector the optimiser stores before a complex result's two parts for an uninitialised write
# (docs/kernels.md#oclgrind has the messages). Unoptimised code has none of these.
BUILD_OPTIONS = ['--build-options', '-cl-opt-disable']
# Prints each launch's kernel name (and its instruction counts, which are dropped here): the
# names show which kernels ran.
COUNTS = '--inst-counts'
LAUNCH = re.compile(r"^Instructions executed for kernel '([^']+)':$")
COUNT_LINE = re.compile(r'^\s+[\d,]+ - ')
LOG_LINES_SHOWN = 400


def parse_args(argv):
    options, without, expected, skip = [], [], [], None
    while len(argv) >= 2 and argv[0] in ('--option', '--without', '--expect-kernel', '--skip'):
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == '--option':
            options.append(value)
        elif flag == '--without' and value in CHECKS:
            without.append(value)
        elif flag == '--expect-kernel':
            expected.append(value)
        elif flag == '--skip':
            skip = value
        else:
            sys.exit(__doc__)
    if (not argv and skip is None) or (argv and argv[0].startswith('--')):
        sys.exit(__doc__)
    checks = [c for c in CHECKS if c not in without]
    return checks + options, expected, skip, argv


def read_log(fd, path, sink):
    """Copies Oclgrind's log from the pipe to @path as it comes, and keeps it in @sink."""
    with os.fdopen(fd, 'r', errors='replace') as pipe, open(path, 'w') as log:
        for line in pipe:
            log.write(line)
            sink.append(line)


def reports_of(log_text):
    """Oclgrind's log as its reports: each is a block of lines between blank lines."""
    return [block.strip('\n') for block in re.split(r'\n\s*\n', log_text) if block.strip()]


def kernel_of(report):
    m = re.search(r'^\s*Kernel: (\S+)', report, re.M)
    if m:
        return m.group(1)
    m = re.search(r'^\s*Function: (\S+)', report, re.M)  # --check-api reports name the call
    return m.group(1) if m else '(no kernel named)'


def summary(reports):
    """Reports counted by kind (the first line without its addresses and sizes) and kernel;
    kernels that are not anygpu's (their names do not start with ag_) are marked, since their
    reports are not anygpu's to fix, though what they read may be."""
    counts = collections.Counter()
    for r in reports:
        kind = re.sub(r'0x[0-9a-fA-F]+|\b\d+\b', 'N', r.splitlines()[0].strip())
        kernel = kernel_of(r)
        if not kernel.startswith(('ag_', 'cl', '(')):
            kernel += " (not anygpu's)"
        counts[(kind, kernel)] += 1
    return ['  %6d  %s  [%s]' % (n, kind, kernel) for (kind, kernel), n in counts.most_common()]


def main():
    options, expected, skip, command = parse_args(sys.argv[1:])
    if skip is not None:
        print('SKIP: ' + skip)
        return 77
    oclgrind = shutil.which('oclgrind')
    if oclgrind is None:
        print('SKIP: oclgrind is not installed (Debian: apt-get install oclgrind)')
        return 77

    tmp_root = os.environ.get('ANYGPU_TEST_TMPDIR') or None
    if tmp_root:
        os.makedirs(tmp_root, exist_ok=True)
    work = tempfile.mkdtemp(prefix='oclgrind-', dir=tmp_root)
    log_path = os.path.join(work, 'oclgrind.log')
    env = dict(os.environ)
    # Kernels compiled here carry Oclgrind's build options, which anygpu's cache key does not
    # see: they must neither come from nor go to a cache other devices use. The pool is off so
    # every buffer has its exact size and starts uninitialised.
    env['ANYGPU_CACHE_DIR'] = 'off'
    env['ANYGPU_POOL'] = '0'

    # Oclgrind opens its log afresh, truncating it, in every process that creates an OpenCL
    # context, and the suites run each test in a process of its own. So the log is a pipe, which
    # every process appends to, read here into one file.
    log_read, log_write = os.pipe()
    args = [oclgrind, '--log', '/dev/fd/%d' % log_write] + options + NO_LIMIT + BUILD_OPTIONS + [COUNTS] + command
    print('running: ' + ' '.join(args[:1] + ['--log', log_path] + args[3:]), flush=True)
    log_lines = []
    reader = threading.Thread(target=read_log, args=(log_read, log_path, log_lines))
    reader.start()
    launches = collections.Counter()
    fatal = 0  # errors Oclgrind prints itself rather than logs: kernels it cannot create
    with subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(log_write,),
                          errors='replace') as proc:
        os.close(log_write)
        in_counts = False
        for line in proc.stdout:
            m = LAUNCH.match(line)
            if m:
                launches[m.group(1)] += 1
                in_counts = True
                continue
            if in_counts and (COUNT_LINE.match(line) or not line.strip()):
                in_counts = bool(line.strip())
                continue
            in_counts = False
            fatal += line.startswith('OCLGRIND FATAL ERROR')
            sys.stdout.write(line)
        rc = proc.wait()
    reader.join()

    reports = reports_of(''.join(log_lines))
    status = rc
    print('oclgrind ran %d launches of %d kernels' % (sum(launches.values()), len(launches)))
    missing = [x for x in expected if not any(re.fullmatch(x, k) for k in launches)]
    if rc == 0 and missing:
        print('FAIL: no kernel matching %s ran under oclgrind' % ', '.join(missing))
        status = 1
    if fatal:
        print('FAIL: oclgrind printed %d fatal errors (above)' % fatal)
        status = 1
    if reports:
        print('FAIL: oclgrind reported %d errors (log: %s), by kind and kernel:' % (len(reports), log_path))
        print('\n'.join(summary(reports)))
        shown = ', first %d lines' % LOG_LINES_SHOWN if len(log_lines) > LOG_LINES_SHOWN else ''
        print('---- the log%s ----' % shown)
        sys.stdout.write(''.join(log_lines[:LOG_LINES_SHOWN]))
        status = 1
    elif not fatal:
        print('oclgrind reported no errors')
    if status == 0:
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
