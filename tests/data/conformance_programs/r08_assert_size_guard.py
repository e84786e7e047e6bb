# `assert t.size(1) <= block_size` on a dynamic size becomes a guard of the graph, not a graph break.
import torch

block_size = 8


def crop(t):
    b, n = t.size()
    assert n <= block_size, "sequence longer than the block"
    return t * n + b


opt_crop = torch.compile(crop, backend="eager")


def main(device):
    out = []
    for n in [3, 5, 7, 8, 4]:
        out.append(opt_crop(torch.ones(2, n, device=device)))
    return out
