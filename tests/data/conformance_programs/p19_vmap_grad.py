# torch.func transforms inside compiled code: vmap over a per-sample function (with in_dims and a closure),
# grad of a scalar function, and vmap of grad for per-sample gradients.
import torch
from torch.func import grad, vmap


def per_sample(x, w):
    return (x * w).sum() + x.max()


def batched(xs, w):
    return vmap(per_sample, in_dims=(0, None))(xs, w)


def loss(w, x):
    return torch.tanh(x @ w).pow(2).sum()


def grads(w, xs):
    g = grad(loss)(w, xs[0])
    per = vmap(grad(loss), in_dims=(None, 0))(w, xs)
    return g, per


opt_batched = torch.compile(batched, backend="eager")
opt_grads = torch.compile(grads, backend="eager")


def main(device):
    xs = torch.sin(torch.arange(12, dtype=torch.float32, device=device).reshape(4, 3))
    w = torch.tensor([0.5, -1.0, 2.0], device=device)
    g, per = opt_grads(w, xs)
    return [opt_batched(xs, w), g, per]
