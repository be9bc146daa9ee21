import numpy as np
def say(*a): print(*a, flush=True)
# The array rows' peer (arrays.c): numpy's cumsum, sort and argsort of the same N values, on
# the CPU whatever the device. argv[2]: N; argv[3]: float32|float64; argv[4]: the seed. The
# data are arrays.c's: x[i] = (r_i - 2^23) / 2^23, r_i the top 24 bits of the i-th output of
# splitmix64 from the seed, made here with uint64 arithmetic (which wraps, as C's does).
n, dt, seed = int(sys.argv[2]), np.dtype(sys.argv[3]), int(sys.argv[4])
# arrays.c's tolerance of the cumulative sums, relative to the running sum of |x|
tol = 2.0 ** -19 if dt == np.float32 else 2.0 ** -48

def data():
    z = np.arange(1, n + 1, dtype=np.uint64)
    z *= np.uint64(0x9e3779b97f4a7c15)
    z += np.uint64(seed)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xbf58476d1ce4e5b9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94d049bb133111eb)
    z ^= z >> np.uint64(31)
    r = (z >> np.uint64(40)).astype(np.int64) - (1 << 23)
    return (r * 2.0 ** -23).astype(dt)

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

say('ready')
x = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        name = cmd[1]
        try:
            if x is None:
                x = data()
            run, default, check = cumsum() if name.startswith('cumsum') else sort(name.startswith('argsort'))
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
