# Found by cwb_difffuzz (seed 28): x.float() of a float32 tensor returns x itself; the inductor copies it.
import torch


def f(a):
    v0 = a.float()
    a.mul_(0.5)
    return [v0]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2]:
        a = (torch.sin(torch.arange(1*1*2, dtype=torch.float32, device=device) * 0.37 + 1)).reshape(1, 2, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
