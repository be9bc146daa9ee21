import numpy as np
def say(*a): print(*a, flush=True)
# The array rows' peer (arrays.c): numpy's cumsum, sort, argsort and unique of the same values,
# on the CPU whatever the device. argv[2]: N; argv[3]: float32|float64; argv[4]: the seed.
# "setup ROW N BITS" names a row, its length and its data: arrays.c's, x[i] = (r_i - 2^(BITS-1))
# / 2^(BITS-1), r_i the top BITS bits of the i-th output of splitmix64 from the seed, made here
# with uint64 arithmetic (which wraps, as C's does); without N and BITS, argv's N and 24.
n0, dt, seed = int(sys.argv[2]), np.dtype(sys.argv[3]), int(sys.argv[4])
# arrays.c's tolerance of the cumulative sums, relative to the running sum of |x|
tol = 2.0 ** -19 if dt == np.float32 else 2.0 ** -48

def data(n, bits):
    z = np.arange(1, n + 1, dtype=np.uint64)
    z *= np.uint64(0x9e3779b97f4a7c15)
    z += np.uint64(seed)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xbf58476d1ce4e5b9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94d049bb133111eb)
    z ^= z >> np.uint64(31)
    r = (z >> np.uint64(64 - bits)).astype(np.int64) - (1 << (bits - 1))
    return (r * 2.0 ** (1 - bits)).astype(dt)

def fail(when, what):
    print('anygpu-bench: the numpy peer, %s (%s), %s: %s' % (name, dt, when, what), file=sys.stderr)
    sys.exit(1)

def cumsum():
    y = np.empty_like(x)
    want = np.cumsum(x, dtype=np.float64)   # exact: every partial sum is a multiple of 2^-23 below 2^24
    scale = np.cumsum(np.abs(x), dtype=np.float64)
    def run(): np.cumsum(x, out=y)
    def check(when):
        bad = np.flatnonzero(~(np.abs(y - want) <= tol * scale))
        if bad.size:
            i = bad[0]
            fail(when, 'element %d is %r, expected %r' % (i, float(y[i]), float(want[i])))
    return run, None, check

def sort(arg):
    out = {}
    if arg:
        def run(): out['s'] = np.argsort(x, kind='stable')
        def default(): out['d'] = np.argsort(x)
    else:
        def run(): out['s'] = np.sort(x, kind='stable')
        def default(): out['d'] = np.sort(x)
    def check(when):
        s, d = out['s'], out['d']
        v = x[s] if arg else s
        if np.any(v[1:] < v[:-1]):
            fail(when, 'not ascending')
        if arg:
            seen = np.zeros(n, dtype=bool)
            seen[s] = True
            if s.shape != (n,) or not seen.all():
                fail(when, 'the indices are not a permutation')
            if np.any((v[1:] == v[:-1]) & (s[1:] < s[:-1])):
                fail(when, 'equal values out of their order (not stable)')
        if not np.array_equal(x[d] if arg else d, v):
            fail(when, "numpy's default sort differs from its stable sort")
    return run, default, check

def unique(bits):
    # the answer from a count of each of the 2^bits possible values (np.bincount), not a sort
    half = 1 << (bits - 1)
    k = np.rint(x.astype(np.float64) * half).astype(np.int64) + half
    tally = np.bincount(k, minlength=2 * half)
    drawn = np.flatnonzero(tally)
    want_values, want_counts = ((drawn - half) * (1.0 / half)).astype(dt), tally[drawn]
    out = {}
    def run(): out['u'] = np.unique(x, return_counts=True)
    def check(when):
        values, counts = out['u']
        if values.dtype != dt or values.shape != want_values.shape or counts.shape != want_counts.shape:
            fail(when, 'values %s %s, counts %s; expected %s %s' % (values.dtype, values.shape, counts.shape, dt,
                                                                    want_values.shape))
        for what, got, want in (('value', values, want_values), ('count', counts, want_counts)):
            bad = np.flatnonzero(got != want)
            if bad.size:
                i = bad[0]
                fail(when, '%s %d is %r, expected %r' % (what, i, got[i].item(), want[i].item()))
    return run, None, check

say('ready')
xs = {}
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        name = cmd[1]
        n, bits = (int(cmd[2]), int(cmd[3])) if len(cmd) >= 4 else (n0, 24)
        try:
            if (n, bits) not in xs:
                xs[n, bits] = data(n, bits)
            x = xs[n, bits]
            if name.startswith('unique'):
                run, default, check = unique(bits)
            elif name.startswith('cumsum'):
                run, default, check = cumsum()
            else:
                run, default, check = sort(name.startswith('argsort'))
        except Exception as e:
            say('skip %s: %s' % (type(e).__name__, e))
            continue
        run()
        if default:
            default()
        check('first call')
        run()
        say('ready %.17g' % float(x.sum(dtype=np.float64)))
    elif cmd[0] == 'round':
        t = timed(run)
        say('time %.6f' % t + (' %.6f' % timed(default) if default else ''))
    else:
        check('last round')
        run = default = check = None
        say('ok')
