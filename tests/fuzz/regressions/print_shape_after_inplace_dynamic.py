# Found by cwb_difffuzz (seed 150, families print/shape-branch/inplace-view back on): print(v0.shape) after v0[:, 0].fill_() prints a stale size on the dynamic recompile. Fixed: sizes of computed tensors are exact (shape_facts.cpp) or read in the graph.
import torch


def f(a):
    v0 = a.clone()
    v0[:, 0].fill_(0.5)
    print(v0.shape)
    return [v0]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2, 6, 3]:
        a = (torch.sin(torch.arange(1*2*n, dtype=torch.float32, device=device) * 0.37 + 7)).reshape(2, n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
