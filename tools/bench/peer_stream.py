n, dt, names = int(sys.argv[2]), sys.argv[3], sys.argv[4].split(',')
t = xp.dtype(dt).type
s = t(0.4)
a = xp.full(n, 0.1, dtype=dt)
b = xp.full(n, 0.2, dtype=dt)
c = xp.full(n, 0.0, dtype=dt)
res = {}
a2, b2, c2 = (v[:n // 2].reshape(4096, 4096) for v in (a, b, c))
a3 = a[:n // 2].reshape(256, 256, 256)
a4 = a[:n // 2].reshape(256, -1)
def copy(): xp.copyto(c, a)
def mul(): xp.multiply(c, s, out=b)
def add(): xp.add(a, b, out=c)
def triad(): a[:] = b + s * c
def dot(): res['dot'] = xp.dot(a, b)
def sum_(): res['sum'] = a.sum()
def sqrt(): xp.sqrt(a, out=c)
def add_t(): xp.add(a2, b2.T, out=c2)
def sum_axes(): res['sax'] = a3.sum(axis=(0, 2))
def sum_axis0(): res['s0'] = a4.sum(axis=0)
run = {'copy': copy, 'mul': mul, 'add': add, 'triad': triad, 'dot': dot, 'sum': sum_,
       'sqrt': sqrt, 'add-transposed': add_t, 'sum-axes': sum_axes, 'sum-axis0': sum_axis0}
r = lambda x: float(t(x))
m = {'a': r(0.1), 'b': r(0.2), 'c': 0.0}
def model(name):
    if name == 'copy': m['c'] = m['a']
    elif name == 'mul': m['b'] = r(r(s) * m['c'])
    elif name in ('add', 'add-transposed'): m['c'] = r(m['a'] + m['b'])
    elif name == 'sum-axes': m['sax'] = 65536 * m['a']
    elif name == 'sum-axis0': m['s0'] = 256 * m['a']
    elif name == 'triad': m['a'] = r(m['b'] + r(r(s) * m['c']))
    elif name == 'dot': m['dot'] = n * m['a'] * m['b']
    elif name == 'sum': m['sum'] = n * m['a']
    else: m['c'] = r(m['a'] ** 0.5)
# BLAS sdot, behind numpy's float32 dot, sums in float32: 0.5% off for N = 2^25.
rtol = 5e-2 if dt == 'float32' else 1e-8
def check(when, tol):
    got = {'a': a, 'b': b, 'c': c}
    for k, want in m.items():
        v = res[k] if k in res else got[k]
        vals = [float(v)] if v.ndim == 0 else [float(v[0]), float(v[-1])]
        bound = rtol if k in res else tol
        if any(not abs(v - want) <= bound * abs(want) for v in vals):
            print('anygpu-bench: the %s peer, %s: %s is %r, expected %r' %
                  (xp.__name__, when, k, vals, want), file=sys.stderr)
            sys.exit(1)
for name in names:
    run[name](); model(name)
check('first round', 1e-5)
for name in names:
    run[name](); model(name)
print('ready', flush=True)
rounds = 0
while sys.stdin.readline() == 'round\n':
    ms = []
    for name in names:
        ms.append(timed(run[name])); model(name)
    rounds += 1
    print('times', ' '.join('%.6f' % x for x in ms), flush=True)
check('after %d rounds' % rounds, 1e-3)
print('ok', flush=True)
