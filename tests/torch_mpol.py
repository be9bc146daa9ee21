#!/usr/bin/env python3
"""tests/torch_mpol.py - MPoL v0.2.0's losses, forward model and tutorial loop transcribed in
PyTorch (1.13), for test_mpol.c to compare with; MPoL itself need not be installed. Arrays come
and go as .npy files in one folder; a complex array is stored as float64 [..., 2] (real,
imaginary).

    torch_mpol.py losses DIR   reads vis, data, weight, mask, cube, prior, params
                               (tot_flux, epsilon), writes <loss>.npy (the value) and
                               <loss>_grad.npy (autograd's gradient) for nll, sparsity,
                               entropy, tv and tsv
    torch_mpol.py model DIR    reads x (a real cube), g (complex, x's shape), params
                               (cell_size), writes to_packed, to_sky, hann (HannConvCube's
                               Conv2d on x as given), fourier (FourierCube of x) and adjoint
                               (autograd's gradient of sum(Re(conj(g) vis)) with respect to x)
    torch_mpol.py rml DIR      reads data, weight, mask, params (cell_size, lambda_sparsity,
                               lambda_tv, lr, epochs), runs the tutorial's loop from MPoL's
                               default base cube (0.05 everywhere), writes losses_torch (one
                               per epoch, before its step) and base_torch (the final base
                               cube, packed)
"""
import os
import sys

import numpy as np
import torch


def load(d, name):
    return np.load(os.path.join(d, name + ".npy"))


def load_complex(d, name):
    a = load(d, name)
    return torch.complex(torch.tensor(a[..., 0]), torch.tensor(a[..., 1]))


def save(d, name, t):
    a = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    if np.iscomplexobj(a):
        a = np.stack([a.real, a.imag], axis=-1)
    np.save(os.path.join(d, name + ".npy"), np.ascontiguousarray(a, dtype=np.float64))


# ---- mpol/losses.py (v0.2.0) ----

def chi_squared(model_vis, data_vis, weight):
    return torch.sum(weight * torch.abs(data_vis - model_vis) ** 2)


def nll(model_vis, data_vis, weight):
    n = len(torch.ravel(data_vis))
    return 1 / (2 * n) * chi_squared(model_vis, data_vis, weight)


def nll_gridded(vis, data, weight, mask):
    # GriddedDataset.forward: the model cube indexed by the mask; vis_indexed, weight_indexed
    return nll(vis[mask], data[mask], weight[mask])


def sparsity(cube):
    return torch.sum(torch.abs(cube))


def entropy(cube, prior_intensity, tot_flux):
    return (1 / tot_flux) * torch.sum(cube * torch.log(cube / prior_intensity))


def tv_image(sky_cube, epsilon=1e-10):
    diff_ll = sky_cube[:, 0:-1, 1:] - sky_cube[:, 0:-1, 0:-1]
    diff_mm = sky_cube[:, 1:, 0:-1] - sky_cube[:, 0:-1, 0:-1]
    return torch.sum(torch.sqrt(diff_ll**2 + diff_mm**2 + epsilon))


def tsv(sky_cube):
    diff_ll = sky_cube[:, 0:-1, 1:] - sky_cube[:, 0:-1, 0:-1]
    diff_mm = sky_cube[:, 1:, 0:-1] - sky_cube[:, 0:-1, 0:-1]
    return torch.sum(diff_ll**2 + diff_mm**2)


# ---- mpol/utils.py, images.py, fourier.py (v0.2.0) ----

def sky_cube_to_packed_cube(sky_cube):
    return torch.fft.fftshift(torch.flip(sky_cube, (2,)), dim=(1, 2))


def packed_cube_to_sky_cube(packed_cube):
    return torch.flip(torch.fft.fftshift(packed_cube, dim=(1, 2)), (2,))


def hann_conv2d(nchan):
    # HannConvCube's layer: a depthwise 3 x 3 Conv2d, padding 1, the outer product of
    # (0.25, 0.5, 0.25) as every channel's weight, bias 0
    m = torch.nn.Conv2d(nchan, nchan, kernel_size=3, stride=1, groups=nchan, padding=1).double()
    spec = torch.tensor([0.25, 0.5, 0.25], dtype=torch.double)
    w = torch.outer(spec, spec).unsqueeze(0).unsqueeze(0).repeat(nchan, 1, 1, 1)
    m.weight = torch.nn.Parameter(w, requires_grad=False)
    m.bias = torch.nn.Parameter(torch.zeros(nchan, dtype=torch.double), requires_grad=False)
    return m


def hann_conv_cube(conv, cube):
    # HannConvCube.forward: packed -> sky, convolve, sky -> packed
    sky = packed_cube_to_sky_cube(cube)
    return sky_cube_to_packed_cube(conv(sky.unsqueeze(0))[0])


def fourier_cube(cube, cell_size):
    return cell_size**2 * torch.fft.fftn(cube, dim=(1, 2))


# ---- the modes ----

def losses(d):
    vis = load_complex(d, "vis").requires_grad_(True)
    data = load_complex(d, "data")
    weight = torch.tensor(load(d, "weight"))
    mask = torch.tensor(load(d, "mask") != 0)
    prior = torch.tensor(load(d, "prior"))
    tot_flux, epsilon = (float(v) for v in load(d, "params"))
    cube = torch.tensor(load(d, "cube"))

    loss = nll_gridded(vis, data, weight, mask)
    loss.backward()
    save(d, "nll", loss), save(d, "nll_grad", vis.grad)
    for name, f in (("sparsity", sparsity), ("entropy", lambda c: entropy(c, prior, tot_flux)),
                    ("tv", lambda c: tv_image(c, epsilon)), ("tsv", tsv)):
        c = cube.clone().requires_grad_(True)
        loss = f(c)
        loss.backward()
        save(d, name, loss), save(d, name + "_grad", c.grad)


def model(d):
    x = torch.tensor(load(d, "x"))
    g = load_complex(d, "g")
    (cell_size,) = (float(v) for v in load(d, "params"))
    save(d, "to_packed", sky_cube_to_packed_cube(x))
    save(d, "to_sky", packed_cube_to_sky_cube(x))
    save(d, "hann", hann_conv2d(x.shape[0])(x.unsqueeze(0))[0])
    xg = x.clone().requires_grad_(True)
    vis = fourier_cube(xg, cell_size)
    save(d, "fourier", vis)
    torch.sum(g.real * vis.real + g.imag * vis.imag).backward()
    save(d, "adjoint", xg.grad)


def rml(d):
    data = load_complex(d, "data")
    weight = torch.tensor(load(d, "weight"))
    mask = torch.tensor(load(d, "mask") != 0)
    cell_size, lam_s, lam_tv, lr, epochs = (float(v) for v in load(d, "params"))
    nchan, npix = data.shape[0], data.shape[1]
    # SimpleNet: BaseCube (softplus of a base cube of 0.05) -> HannConvCube -> ImageCube
    # (passthrough) -> FourierCube; the loss on ImageCube's sky_cube
    base = torch.nn.Parameter(torch.full((nchan, npix, npix), 0.05, dtype=torch.double))
    softplus = torch.nn.Softplus()
    conv = hann_conv2d(nchan)
    optimizer = torch.optim.Adam([base], lr=lr)
    history = []
    for _ in range(int(epochs)):
        optimizer.zero_grad()
        cube = hann_conv_cube(conv, softplus(base))
        vis = fourier_cube(cube, cell_size)
        sky = packed_cube_to_sky_cube(cube)
        loss = nll_gridded(vis, data, weight, mask) + lam_s * sparsity(sky) + lam_tv * tv_image(sky)
        history.append(loss.item())
        loss.backward()
        optimizer.step()
    save(d, "losses_torch", np.array(history))
    save(d, "base_torch", base)


if __name__ == "__main__":
    torch.set_num_threads(1)
    {"losses": losses, "model": model, "rml": rml}[sys.argv[1]](sys.argv[2])
