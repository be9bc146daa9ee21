#!/usr/bin/env python3
"""tests/torch_nn.py - PyTorch's values for the nn suite (tests/test_nn.c): activations,
softmax and log-softmax, the two losses and dense layers, each with its gradient by autograd,
in float64.

    python3 torch_nn.py DIR

reads the inputs test_nn.c wrote into DIR (.npy, float64) and writes the results there:

  act_x, act_xpos, act_dy [n]       -> act<k>_y, act<k>_dx for each ag_activation k (log on act_xpos)
  sm_x, sm_dy [a][b][c]             -> sm<axis>_y, sm<axis>_dx, lsm<axis>_y, lsm<axis>_dx
  mse_yhat, mse_y                   -> mse_loss (shape [1]), mse_grad
  lce_logits, lce_y [B][C]          -> lce_loss, lce_grad (Flux.logitcrossentropy)
  dn_x [B][in], dn_w [out][in], dn_b [out], dn_dy [B][out]
                                    -> dn<k>_y, dn<k>_dx, dn<k>_dw, dn<k>_db for activations 0 to 5
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

ACTS = [
    lambda x: x,
    torch.sigmoid,
    lambda x: F.softplus(x, beta=1, threshold=20),
    torch.relu,
    torch.tanh,
    torch.exp,
    torch.log,
]


def load(d, name):
    return torch.tensor(np.load(os.path.join(d, name + ".npy")), dtype=torch.float64)


def save(d, name, t):
    np.save(os.path.join(d, name + ".npy"), np.ascontiguousarray(t.detach().numpy().astype(np.float64)))


def leaf(t):
    return t.clone().requires_grad_(True)


def main(d):
    x, xpos, dy = load(d, "act_x"), load(d, "act_xpos"), load(d, "act_dy")
    for k, f in enumerate(ACTS):
        xi = leaf(xpos if k == 6 else x)
        y = f(xi)
        y.backward(dy)
        save(d, "act%d_y" % k, y)
        save(d, "act%d_dx" % k, xi.grad)

    x, dy = load(d, "sm_x"), load(d, "sm_dy")
    for axis in range(x.dim()):
        for tag, f in (("sm", torch.softmax), ("lsm", torch.log_softmax)):
            xi = leaf(x)
            y = f(xi, dim=axis)
            y.backward(dy)
            save(d, "%s%d_y" % (tag, axis), y)
            save(d, "%s%d_dx" % (tag, axis), xi.grad)

    yhat, y = leaf(load(d, "mse_yhat")), load(d, "mse_y")
    loss = torch.nn.MSELoss()(yhat, y)
    loss.backward()
    save(d, "mse_loss", loss.reshape(1))
    save(d, "mse_grad", yhat.grad)

    logits, y = leaf(load(d, "lce_logits")), load(d, "lce_y")
    loss = -(y * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    loss.backward()
    save(d, "lce_loss", loss.reshape(1))
    save(d, "lce_grad", logits.grad)

    x, w, b, dy = load(d, "dn_x"), load(d, "dn_w"), load(d, "dn_b"), load(d, "dn_dy")
    for k in range(6):
        lin = torch.nn.Linear(w.shape[1], w.shape[0]).double()
        with torch.no_grad():
            lin.weight.copy_(w)
            lin.bias.copy_(b)
        xi = leaf(x)
        y = ACTS[k](lin(xi))
        y.backward(dy)
        save(d, "dn%d_y" % k, y)
        save(d, "dn%d_dx" % k, xi.grad)
        save(d, "dn%d_dw" % k, lin.weight.grad)
        save(d, "dn%d_db" % k, lin.bias.grad)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: torch_nn.py DIR")
    main(sys.argv[1])
