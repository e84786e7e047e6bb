# Found by cwb_difffuzz (seed 1816): v2.shape[0] of a broadcast result (v1 - b) was a stale constant after the dynamic recompile. Fixed: broadcasting passes the symbol of b's dimension through (shape_facts.cpp).
import torch


def f(a, b):
    v1 = a.sum(dim=0)
    v2 = v1 - b
    v5 = v2 * v2.shape[0]
    return [v1, v2, v5]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [5, 2, 3]:
        a = (torch.sin(torch.arange(1*5, dtype=torch.float32, device=device) * 0.37 + 3)).reshape(5, )
        b = (torch.sin(torch.arange(1*n*1, dtype=torch.float32, device=device) * 0.37 + 0)).reshape(1, n, ).transpose(0, -1)
        outs.extend(fn(a, b))
        outs.extend([a, b])
    return outs


def main(device):
    return run(device, "inductor", "default")
