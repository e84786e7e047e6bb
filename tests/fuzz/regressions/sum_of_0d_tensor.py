# Found by cwb_difffuzz (seed 58): a reduction of a 0-d tensor made a reduction kernel without a reduction range (malformed kernel).
import torch


def f(a):
    v0 = 0.25 * a
    v3 = a * 1
    s5 = v0.sum().item()
    v4 = v3 * s5
    return [v0, v3, v4]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2]:
        a = ((torch.arange(1, device=device) * 7 + 7) % 11 - 5).reshape(())
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
