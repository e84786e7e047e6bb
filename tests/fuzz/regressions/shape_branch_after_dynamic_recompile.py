# Found by cwb_difffuzz (seed 53): a branch on x.shape[0] is not guarded once the size became dynamic: the third call reuses the graph of the other branch.
import torch


def f(b):
    if b.shape[0] > 5:
        v0 = b * 2
    else:
        v0 = b - 1
    return [v0]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [4, 2, 6]:
        b = ((torch.arange(1*n*4, device=device) * 7 + 4) % 11 - 5).reshape(n, 4, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
