# Found by cwb_difffuzz (seed 1437): print(v2.shape) of v0.to(torch.float64), v0 a clone updated through a view, printed an earlier call's size. Fixed as the other computed sizes.
import torch


def f(a):
    v0 = a.clone()
    v0[0].mul_(2.0)
    v2 = v0.to(torch.float64)
    print(v2.shape)
    return [v0, v2]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [6, 5, 6]:
        a = (torch.sin(torch.arange(1*3*2*n, dtype=torch.float32, device=device) * 0.37 + 8)).reshape(3, 2, n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
