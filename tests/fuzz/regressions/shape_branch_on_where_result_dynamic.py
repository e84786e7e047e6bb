# Found by cwb_difffuzz (seed 824, families print/shape-branch/inplace-view back on): a branch on the size of a torch.where result is not guarded after the automatic-dynamic recompile. Fixed: torch.where passes its broadcast symbol through exactly, so the branch is a guard on it.
import torch


def f(a):
    v0 = a.sum()
    v1 = v0 > 0
    v2 = torch.where(v1, 0, a)
    if v2.shape[0] > 5:
        v6 = v2 * 2
    else:
        v6 = v2 - 1
    return [v0, v1, v2, v6]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2, 6, 3]:
        a = ((torch.arange(1*n*4*2, device=device) * 7 + 4) % 11 - 5).reshape(n, 4, 2, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
