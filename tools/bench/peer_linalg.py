import math, random
sync = xp.cuda.Device().synchronize if mode == 'gpu' else (lambda: None)
real = xp.dtype(sys.argv[2])
cplx = xp.dtype('complex64' if real == xp.float32 else 'complex128')
eps, batched = float(xp.finfo(real).eps), int(sys.argv[3])
def fail(when, what):
    print('anygpu-bench: the %s peer, %s, %s: %s' % (xp.__name__, name, when, what), file=sys.stderr)
    sys.exit(1)
def gemm(n):
    def operand(first):
        h = xp.arange(first, first + n * n, dtype=xp.uint32) * xp.uint32(2654435761)
        return ((h >> 29).astype(real) - 4).reshape(n, n) / 4
    a, b, c = operand(0), operand(n * n), xp.empty((n, n), dtype=real)
    def run(): xp.matmul(a, b, out=c)
    def check(when):
        rng = random.Random(n)
        for _ in range(64):
            i, j = rng.randrange(n), rng.randrange(n)
            want = float(a[i].astype(xp.float64) @ b[:, j].astype(xp.float64))
            if float(c[i, j]) != want:
                fail(when, 'C(%d, %d) is %r, expected %r' % (i, j, float(c[i, j]), want))
    return run, check
def fft(n, two_d):
    rows = n if two_d else batched // n
    r, col = xp.arange(rows).reshape(rows, 1), xp.arange(n).reshape(1, n)
    m = (3 * r + (n - 5) * col) % n if two_d else (7 * r + 3) % n * col % n
    x = xp.exp(2j * math.pi / n * m).astype(cplx)
    peak = n * n if two_d else n
    want = xp.zeros((rows, n))
    if two_d:
        want[3, n - 5] = peak
    else:
        want[r[:, 0], (7 * r[:, 0] + 3) % n] = peak
    tol = 50 * eps * math.log2(peak) * peak
    f = (lambda: xp.fft.fft2(x)) if two_d else (lambda: xp.fft.fft(x, axis=-1))
    out = {}
    def run(): out['X'] = f()
    def check(when):
        err = float(abs(out['X'] - want).max())
        if not err <= tol:
            fail(when, 'a bin is off by %g, more than %g' % (err, tol))
    return run, check
print('ready', flush=True)
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        name = cmd[1]
        kind, n = name.rsplit('-', 1)
        run, check = gemm(int(n)) if kind == 'gemm' else fft(int(n), kind == 'fft2d')
        t0 = time.perf_counter(); run(); sync(); first = (time.perf_counter() - t0) * 1e3
        check('first call'); run()
        print('ready %.6f' % first, flush=True)
    elif cmd[0] == 'round':
        print('time %.6f' % timed(run), flush=True)
    else:
        check('last round')
        run = check = None
        if mode == 'gpu':
            xp.get_default_memory_pool().free_all_blocks()
        print('ok', flush=True)
