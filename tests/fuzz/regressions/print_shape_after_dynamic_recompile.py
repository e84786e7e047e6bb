# Found by cwb_difffuzz (seed 44): print(x.shape) inside a compiled function prints the size of an earlier call once shapes became dynamic.
import torch


def f(b):
    print(b.shape)
    return []


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2, 4, 5]:
        b = ((torch.arange(1*n, device=device) * 5 + 3) % 3 == 0).reshape(n, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
