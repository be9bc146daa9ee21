import numpy
def say(*a): print(*a, flush=True)
# The azimuthal integration rows' peer: pyFAI, one frame per call (it has no batches: a row's
# call is its frames one after another), with the
# CSR integrator: Cython on the host, OpenCL on the OpenCL device named by argv[2] (platform)
# and argv[3] (device), as anygpu-bench's child reported them. The geometry and the frames'
# shape are azint.c's (AZ_* there).
try:
    import pyFAI
    from pyFAI.azimuthalIntegrator import AzimuthalIntegrator
    missing = None
except Exception as e:
    missing = '%s: %s' % (type(e).__name__, e)
ROWS, COLS, NPT_RAD, NPT_AZIM = 1065, 1030, 1000, 360
def integrator():
    return AzimuthalIntegrator(dist=0.1, poni1=0.04, poni2=0.038, rot1=0.01, rot2=-0.02, rot3=0.0,
                               pixel1=75e-6, pixel2=75e-6, wavelength=1e-10)
def target():
    if sys.argv[2] == '-':
        return ('bbox', 'csr', 'cython'), None
    import pyopencl as cl
    for p, plat in enumerate(cl.get_platforms()):
        for d, dev in enumerate(plat.get_devices()):
            if plat.name.strip() in sys.argv[2] and dev.name.strip() == sys.argv[3]:
                return ('bbox', 'csr', 'opencl'), (p, d)
    raise RuntimeError('pyopencl lists no device %r of platform %r' % (sys.argv[3], sys.argv[2]))
say('ready')
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        if missing:
            say('skip pyFAI does not import: %s' % missing)
            continue
        name = cmd[1]
        batch = 32 if name.endswith('batch32') else 1
        two_d = name.startswith('azint2d')
        try:
            method, dev = target()
            ai = integrator()
            rng = numpy.random.default_rng(1)
            frames = rng.random((batch, ROWS, COLS), dtype=numpy.float32) * 1000
            kw = dict(unit='q_nm^-1', method=method if dev is None else method + (dev,))
            def one(f):
                if two_d:
                    return ai.integrate2d_ng(f, NPT_RAD, NPT_AZIM, **kw)
                return ai.integrate1d_ng(f, NPT_RAD, **kw)
            def run():
                for f in frames:
                    res = one(f)
                return res
            t0 = time.perf_counter(); res = run(); first = (time.perf_counter() - t0) * 1e3
            if not numpy.isfinite(res.intensity).all() or float(res.intensity.max()) <= 0:
                raise RuntimeError('pyFAI gave no finite, positive intensity')
            run()
        except Exception as e:
            say('skip pyFAI %s failed: %s: %s' % (pyFAI.version, type(e).__name__, e))
            continue
        say('ready %.6f' % first)
    elif cmd[0] == 'round':
        say('time %.6f' % timed(run))
    else:
        say('ok')
