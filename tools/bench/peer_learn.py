# The learning rows' peer: PyTorch on the CPU whatever the device. argv[2]: float32|float64.
# "setup ROW FOLDER" builds the row's data as the child does (rml-epoch reads the child's from
# FOLDER) and runs a first call, "ready MS" (rml-epoch: "ready MS LOSS", the first epoch's loss)
# or "skip REASON"; "round" runs a timed call, "time MS"; anything else drops the data, "ok".
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

def rml_setup(folder):
    # MPoL v0.2's SimpleNet and tutorial loop as tests/torch_mpol.py transcribes it, on the
    # gridded data the child wrote; 10 epochs a call, as the child's round.
    import numpy as np
    F = xp.fft
    d = np.load(folder + '/data.npy')
    data = xp.complex(xp.tensor(d[..., 0]), xp.tensor(d[..., 1])).to(
        xp.complex128 if dtype == xp.float64 else xp.complex64)
    weight = xp.tensor(np.load(folder + '/weight.npy')).to(dtype)
    mask = xp.tensor(np.load(folder + '/mask.npy') != 0)
    nchan, npix = data.shape[0], data.shape[1]
    cell = 0.005
    to_packed = lambda c: F.fftshift(xp.flip(c, (2,)), dim=(1, 2))
    to_sky = lambda c: xp.flip(F.fftshift(c, dim=(1, 2)), (2,))
    conv = xp.nn.Conv2d(nchan, nchan, kernel_size=3, stride=1, groups=nchan, padding=1).to(dtype)
    spec = xp.tensor([0.25, 0.5, 0.25], dtype=dtype)
    conv.weight = xp.nn.Parameter(xp.outer(spec, spec).expand(nchan, 1, 3, 3).clone(), requires_grad=False)
    conv.bias = xp.nn.Parameter(xp.zeros(nchan, dtype=dtype), requires_grad=False)
    base = xp.nn.Parameter(xp.full((nchan, npix, npix), 0.05, dtype=dtype))
    softplus = xp.nn.Softplus()
    opt = xp.optim.Adam([base], lr=0.5)
    data_m, weight_m = data[mask], weight[mask]
    def one():
        opt.zero_grad()
        cube = to_packed(conv(to_sky(softplus(base)).unsqueeze(0))[0])
        vis = cell**2 * F.fftn(cube, dim=(1, 2))
        sky = to_sky(cube)
        nll = 1 / (2 * data_m.numel()) * xp.sum(weight_m * xp.abs(data_m - vis[mask]) ** 2)
        diff_ll = sky[:, 0:-1, 1:] - sky[:, 0:-1, 0:-1]
        diff_mm = sky[:, 1:, 0:-1] - sky[:, 0:-1, 0:-1]
        tv = xp.sum(xp.sqrt(diff_ll**2 + diff_mm**2 + 1e-10))
        loss = nll + 1e-4 * xp.sum(xp.abs(sky)) + 1e-4 * tv
        loss.backward()
        opt.step()
        return loss.item()
    first = one()
    one()  # the child's setup runs two epochs too
    def epochs():
        for _ in range(10):
            one()
    return epochs, first

setups = {'adam': adam_setup, 'mlp-epoch': mlp_setup, 'rml-epoch': rml_setup}
say = lambda *a: print(*a, flush=True)
# torch's own thread count, as a user gets it, said on stderr for the record.
print('anygpu-bench: the torch peer runs %d thread(s)' % xp.get_num_threads(), file=sys.stderr, flush=True)
say('ready')
call = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        if cmd[1] not in setups:
            say('skip no such row in the peer: %s' % cmd[1])
            continue
        t0 = time.perf_counter()
        if cmd[1] == 'rml-epoch':
            call, first = rml_setup(cmd[2])
            say('ready %.6f %.17g' % ((time.perf_counter() - t0) * 1e3, first))
            continue
        call = setups[cmd[1]]()
        call()
        say('ready %.6f' % ((time.perf_counter() - t0) * 1e3))
    elif cmd[0] == 'round':
        say('time %.6f' % timed(call))
    else:
        call = None
        say('ok')
