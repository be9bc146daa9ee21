# The learning rows' peer: PyTorch on the CPU whatever the device. argv[2]: float32|float64.
# "setup ROW" builds the row's data as the child does and runs a first call, "ready MS" (or
# "skip REASON"); "round" runs a timed call, "time MS"; anything else drops the data, "ok".
dtype = {'float32': xp.float32, 'float64': xp.float64}[sys.argv[2]]
xp.manual_seed(0)

def adam_setup():
    n = 1 << 24
    x = xp.nn.Parameter(xp.rand(n, dtype=dtype) * 2 - 1)
    x.grad = xp.rand(n, dtype=dtype) * 2 - 1
    opt = xp.optim.Adam([x], lr=1e-3)
    return opt.step

def mlp_setup():
    # The child's model and sizes; random data of the same shapes (timing only), labels set by
    # fixed projections as the child's are.
    n, batch = 8192, 128
    gen = xp.Generator().manual_seed(1)
    x = xp.rand(n, 784, dtype=dtype, generator=gen)
    labels = (x @ (xp.rand(784, 10, dtype=dtype, generator=gen) * 2 - 1)).argmax(1)
    model = xp.nn.Sequential(xp.nn.Linear(784, 256), xp.nn.ReLU(), xp.nn.Linear(256, 10)).to(dtype)
    opt = xp.optim.Adam(model.parameters(), lr=1e-3)
    def epoch():
        order = xp.randperm(n, generator=gen)
        for k in range(n // batch):
            idx = order[k * batch:(k + 1) * batch]
            xb, yb = x.index_select(0, idx), labels.index_select(0, idx)
            opt.zero_grad()
            loss = xp.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
    return epoch

setups = {'adam': adam_setup, 'mlp-epoch': mlp_setup}
say = lambda *a: print(*a, flush=True)
say('ready')
call = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        if cmd[1] not in setups:
            say('skip no such row in the peer: %s' % cmd[1])
            continue
        t0 = time.perf_counter()
        call = setups[cmd[1]]()
        call()
        say('ready %.6f' % ((time.perf_counter() - t0) * 1e3))
    elif cmd[0] == 'round':
        say('time %.6f' % timed(call))
    else:
        call = None
        say('ok')
