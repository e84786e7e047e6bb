# Found by cwb_difffuzz (seed 2726): a branch on the size of torch.cat([v0, a]) (2*s0) took the first compile's outcome. Fixed: its size is read in the graph (the branch then breaks the graph, safely).
import torch


def f(a):
    v0 = a - a.mean(dim=0, keepdim=True)
    v1 = torch.cat([v0, a], dim=0)
    if v1.shape[0] > 5:
        v2 = v1 * 2
    else:
        v2 = v1 - 1
    return [v0, v1, v2]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [6, 2, 5]:
        a = (torch.sin(torch.arange(1*n, dtype=torch.float32, device=device) * 0.37 + 7)).reshape(n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
