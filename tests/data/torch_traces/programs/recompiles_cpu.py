"""Recompiles: dim change (automatic dynamic), dtype change, global flag change,
requires_grad change, and an int argument that changes on every call until the
recompile limit (8) is hit."""
import torch

USE_RELU = True


@torch.compile
def by_shape(x):
    return (x * x).sum(dim=1) + x.mean()


@torch.compile
def by_dtype(x):
    return torch.sin(x) + 1.0


@torch.compile
def by_flag(x):
    if USE_RELU:
        return torch.relu(x) * 2.0
    return torch.tanh(x) * 2.0


@torch.compile
def by_grad(x):
    return (x * 2.0).sum()


# backend="eager" keeps these ten compiles cheap (no Inductor); dynamic=False
# stops automatic dynamic shapes from turning k into a symbol after one change.
@torch.compile(backend="eager", dynamic=False)
def by_const(x, k):
    return x * k + k


def main(device):
    global USE_RELU
    for cols in (16, 32, 48):  # 16 -> 32 recompiles with a dynamic dim, 48 reuses it
        by_shape(torch.ones(8, cols, device=device))
    x = torch.linspace(-1.0, 1.0, 32, device=device)
    by_dtype(x)
    by_dtype(x.double())
    by_flag(x)
    USE_RELU = False
    by_flag(x)
    USE_RELU = True
    by_flag(x)  # first entry matches again: no compile
    by_grad(x)
    by_grad(x.clone().requires_grad_(True))
    for k in range(2, 12):  # 10 different constants; the limit stops at 8 entries
        by_const(x, k)
    return {}
