import ctypes, os
python_dir, library, spec = sys.argv[2], sys.argv[3], sys.argv[4]
sys.path.insert(0, python_dir)
os.environ['ANYGPU_LIBRARY'] = library
try:
    import anygpu
    from anygpu._lib import fn
    dev = anygpu.device(spec)
except Exception as e:
    print('anygpu-bench: the python peer: anygpu from %s with %s: %s: %s' % (python_dir, library, type(e).__name__, e),
          file=sys.stderr)
    sys.exit(1)
_add = fn('ag_add', [ctypes.c_void_p] * 4)
ROUNDS, ROUND_MS = 7, 20.0
def best_us(call, finish):
    def run(k):
        t0 = time.perf_counter()
        for _ in range(k):
            call()
        finish()
        return (time.perf_counter() - t0) * 1e3
    k = 1
    while True:
        ms = run(k)
        if ms >= ROUND_MS / 4:
            break
        k *= 2
    k = max(1, int(k * ROUND_MS / max(ms, 1e-3)))
    return min(run(k) for _ in range(ROUNDS)) * 1e3 / k
want = xp.float32(0.1) + xp.float32(0.2)
def check(what, c):
    c = xp.asarray(c)
    if not (c == want).all():
        print('anygpu-bench: the python peer: %s gave %r, not %r' % (what, c[:3], want), file=sys.stderr)
        sys.exit(1)
print('ready', flush=True)
for line in sys.stdin:
    n = int(line.split()[1])
    an, bn, cn = (xp.full(n, v, dtype='float32') for v in (0.1, 0.2, 0.0))
    a, b, c = (anygpu.asarray(x, device=dev) for x in (an, bn, cn))
    pa, pb, pc = a._ptr, b._ptr, c._ptr
    ctypes_us = best_us(lambda: _add(None, pa, pb, pc), dev.synchronize)
    check('ag_add through ctypes', c)
    add, add_us, form = getattr(anygpu, 'add', None), '-', 'out'
    if add is not None:
        try:
            add(a, b, out=c)
            call = lambda: add(a, b, out=c)
        except TypeError:
            form, call = 'alloc', lambda: add(a, b)
        add_us = '%.6f' % best_us(call, dev.synchronize)
        check('anygpu.add', c if form == 'out' else add(a, b))
    numpy_us = best_us(lambda: xp.add(an, bn, out=cn), lambda: None)
    check('numpy.add', cn)
    print('times %.6f %s %.6f %s' % (ctypes_us, add_us, numpy_us, form), flush=True)
