import sys, time
mode = sys.argv[1]
try:
    if mode == 'gpu':
        import cupy as xp
    elif mode == 'torch':
        import torch as xp
    else:
        import numpy as xp
except Exception as e:
    print('unavailable', type(e).__name__ + ':', e, flush=True)
    sys.exit(0)
print('peer', xp.__name__, xp.__version__, flush=True)
if mode == 'gpu':
    e0, e1 = xp.cuda.Event(), xp.cuda.Event()
    def timed(f):
        e0.record(); f(); e1.record(); e1.synchronize()
        return xp.cuda.get_elapsed_time(e0, e1)
else:
    def timed(f):
        t0 = time.perf_counter(); f(); return (time.perf_counter() - t0) * 1e3
