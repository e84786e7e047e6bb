# Found by cwb_difffuzz (seed 186): s = b.sum().item(); b * s gives the wrong result on the later calls under the inductor. Fixed: the inductor lowered the float input (SymFloat zf1) as a constant of its first call; such graphs now run eagerly.
import torch


def f(b):
    s1 = b.sum().item()
    v0 = b * s1
    return [v0]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [6, 5, 6]:
        b = (torch.sin(torch.arange(1*n*5, dtype=torch.float32, device=device) * 0.37 + 4)).reshape(n, 5, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
