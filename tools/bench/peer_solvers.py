import os
import importlib.util
def say(*a): print(*a, flush=True)
# The solver rows' peer: sporco 0.2.2's ADMM solvers as tests/sporco_ref.py transcribes them, in
# numpy (float64) on the CPU whatever the device. argv[2]: a folder holding that transcription,
# as solvers.c writes it from the copy compiled into anygpu-bench (this script reads nothing
# from the source tree), and where "setup" writes the row's problem for the child to read. The
# problem and the options are the transcription's `bench` ones: bench_problem(ROW), 100
# iterations, RelStopTol 0, statistics on.
folder = sys.argv[2]
sys.dont_write_bytecode = True
OPTIONS = {'MaxMainIter': 100, 'RelStopTol': 0.0, 'FastSolve': False}

def transcription():
    spec = importlib.util.spec_from_file_location('sporco_ref', os.path.join(folder, 'sporco_ref.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def run():
    solver.solve()

say('ready')
sporco = problem = solver = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'setup':
        # "problem SOLVER LMBDA AXES": D.npy (bpdn) and S.npy written in the folder, float64
        try:
            if sporco is None:
                sporco = transcription()
            problem = sporco.bench_problem(cmd[1])
            name, inputs, params = problem
            for k, v in inputs.items():
                sporco._save(os.path.join(folder, k + '.npy'), v)
            lmbda = sporco.build_solver(name, inputs, params, dict(OPTIONS)).lmbda
        except Exception as e:
            say('skip %s: %s' % (type(e).__name__, e))
            continue
        say('problem %s %.17g %s' % (name, lmbda, ','.join(map(str, params.get('axes', (0, 1))))))
    elif cmd[0] == 'round':
        # a new solver each round, made before the clock starts, as the transcription's bench
        solver = sporco.build_solver(problem[0], problem[1], problem[2], dict(OPTIONS))
        ms = timed(run)
        say('time %.6f obj %.17g iterations %d' % (ms, solver.itstat[-1]['ObjFun'], len(solver.itstat)))
    else:
        problem = solver = None
        say('ok')
