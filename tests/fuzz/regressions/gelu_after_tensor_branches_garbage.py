# Found by cwb_difffuzz (seed 112): gelu of a branch result with a slice of it, across two graph breaks, reads garbage under the inductor. Fixed with the nuw flag of `s0 + -1` (the slice v0[1:] read garbage).
import torch


def f(a):
    if a.sum() > 0:
        v0 = a + 1.0
    else:
        v0 = a * -1.0
    v2 = v0[1:]
    v3 = (v2 > 0).to(torch.int64)
    v5 = torch.nn.functional.gelu(v0)
    if v3.sum() > 0:
        v6 = v5 + 1.0
    else:
        v6 = v5 * -1.0
    return [v0, v2, v3, v5, v6]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [3, 4]:
        a = (torch.sin(torch.arange(1*n*4*2, dtype=torch.float32, device=device) * 0.37 + 6)).reshape(n, 4, 2, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
