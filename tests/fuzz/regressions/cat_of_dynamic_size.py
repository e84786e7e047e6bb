# expect: raises inductor -- (capture/inductor: a derived dynamic size such as 2*s0 of torch.cat has no symbol, so the extern's output size is taken as static: 'extern kernel torch.cat returned an unexpected tensor')
# Found by cwb_difffuzz (seed 18): torch.cat of a dynamic-size tensor fails on a call with another size.
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
