# Found by cwb_difffuzz (seed 18): torch.cat of a dynamic-size tensor fails on a call with another size. Fixed: mm, bmm, matmul, cat and stack take their output sizes from their operands (s0 + s0), and an extern result of other sizes runs the graph eagerly.
import torch


def f(a):
    v0 = a.abs()
    v2 = (v0 * 4).long()
    v5 = torch.cat([v2, v2], dim=0)
    return [v0, v2, v5]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2, 5, 2]:
        a = (torch.sin(torch.arange(1*n*1*4, dtype=torch.float32, device=device) * 0.37 + 0)).reshape(n, 1, 4, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
