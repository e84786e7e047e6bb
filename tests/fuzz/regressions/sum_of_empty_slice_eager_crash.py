# Found by cwb_difffuzz (seed 81): the sum of an empty slice (a[1:] of one element) killed the eager run with SIGFPE: a reduction unravelled the start of its empty reduced range over a size-0 dim (division by zero). Fixed: an empty range reads nothing.
import torch


def f(a):
    v2 = a[1:]
    v5 = v2.new_zeros(v2.shape) + v2
    if v5.sum() > 0:
        v7 = v2 + 1.0
    else:
        v7 = v2 * -1.0
    return [v2, v5, v7]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [1]:
        a = (torch.sin(torch.arange(1*n, dtype=torch.float32, device=device) * 0.37 + 3)).reshape(n, )
        res = fn(a)
        if mode in ("reduce-overhead", "max-autotune"):
            res = [r.clone() for r in res]
        outs.extend(res)
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
