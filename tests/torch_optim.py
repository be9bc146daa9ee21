#!/usr/bin/env python3
"""tests/torch_optim.py - PyTorch's optimiser trajectories for tests/test_optim.c.

    torch_optim.py DIR STEPS

DIR holds x0.npy, a.npy and c.npy (float64, one shape) and configs.txt, one optimiser a line:
NAME KIND key=value..., KIND sgd or adam, the keys torch.optim.SGD's and Adam's (lr,
momentum, dampening, nesterov, weight_decay, maximize, beta1, beta2, eps, amsgrad). For each
line and each of float64 and float32 it runs STEPS steps of the optimiser on a parameter
starting at x0, the gradient at each step being g(x) = a (x - c) + 0.5 sin(x), worked out in
float64 from the parameter's value and rounded to the parameter's dtype (the C test works it
out the same way), and writes DIR/NAME_f64.npy and DIR/NAME_f32.npy: the parameter after each
step, (STEPS, n) float64. The optimisers run torch 1.13's single-tensor path (foreach=False)."""
import sys

import numpy as np
import torch


def parse(line):
    words = line.split()
    name, kind = words[0], words[1]
    kw = {}
    for w in words[2:]:
        key, value = w.split("=")
        if key in ("nesterov", "maximize", "amsgrad"):
            kw[key] = value == "1"
        else:
            kw[key] = float(value)
    return name, kind, kw


def make(kind, param, kw):
    kw = dict(kw)
    if kind == "sgd":
        return torch.optim.SGD([param], foreach=False, **kw)
    betas = (kw.pop("beta1", 0.9), kw.pop("beta2", 0.999))
    return torch.optim.Adam([param], betas=betas, foreach=False, **kw)


def trajectory(kind, kw, x0, a, c, steps, dtype):
    param = torch.tensor(x0, dtype=dtype).requires_grad_(False)
    param = torch.nn.Parameter(param)
    opt = make(kind, param, kw)
    a64, c64 = torch.tensor(a), torch.tensor(c)
    out = np.empty((steps, x0.size))
    for k in range(steps):
        x = param.detach().to(torch.float64)
        g = a64 * (x - c64) + 0.5 * torch.sin(x)
        param.grad = g.to(dtype)
        opt.step()
        out[k] = param.detach().to(torch.float64).numpy()
    return out


def main():
    folder, steps = sys.argv[1], int(sys.argv[2])
    x0 = np.load(folder + "/x0.npy")
    a = np.load(folder + "/a.npy")
    c = np.load(folder + "/c.npy")
    with open(folder + "/configs.txt") as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    for line in lines:
        name, kind, kw = parse(line)
        for dtype, tag in ((torch.float64, "f64"), (torch.float32, "f32")):
            np.save("%s/%s_%s.npy" % (folder, name, tag), trajectory(kind, kw, x0, a, c, steps, dtype))
    print("torch %s: %d optimisers, %d steps" % (torch.__version__, len(lines), steps))


if __name__ == "__main__":
    main()
