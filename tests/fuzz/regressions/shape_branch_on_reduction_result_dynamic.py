# Found by cwb_difffuzz (seed 2092): a branch on the size of v1.mean(dim=0) was not guarded after the dynamic recompile. Fixed: a reduction passes the kept dimensions' symbols through, so the branch is a guard.
import torch


def f(a):
    v0 = a.double()
    v1 = v0 * v0
    v2 = v1.mean(dim=0)
    if v2.shape[0] > 3:
        v3 = v2 * 2
    else:
        v3 = v2 - 1
    return [v0, v1, v2, v3]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [5, 2, 5]:
        a = ((torch.arange(1*1*n, device=device) * 7 + 3) % 11 - 5).reshape(1, n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
