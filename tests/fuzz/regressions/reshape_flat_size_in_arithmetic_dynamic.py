# Found by cwb_difffuzz (seed 2479): v1.shape[0] of a.reshape(-1) was the first compile's size after the automatic-dynamic recompile (no guard, no symbol). Fixed: a size the op does not pass through exactly is read in the graph.
import torch


def f(a):
    v1 = a.reshape(-1)
    v2 = v1 + v1.shape[0]
    return [v1, v2]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [5, 6, 4]:
        a = ((torch.arange(1*n, device=device) * 7 + 6) % 11 - 5).reshape(n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
