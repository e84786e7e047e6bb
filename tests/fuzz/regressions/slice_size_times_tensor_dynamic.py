# Found by cwb_difffuzz (seed 131): v1 = a[1:]; v1 * v1.shape[0] is wrong once the size became dynamic, under every backend. Fixed: the size of a slice (s0 - 1) is read in the graph.
import torch


def f(a):
    v1 = a[1:]
    v2 = v1 * v1.shape[0]
    return [v1, v2]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [5, 6, 5]:
        a = (torch.sin(torch.arange(1*n, dtype=torch.float32, device=device) * 0.37 + 8)).reshape(n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
