# Found by cwb_difffuzz --device cuda (seed 11) on an H100, and against real PyTorch 2.11 on cuda: the inductor's
# fused kernel gave 0.0 for element 19 of the masked_fill_ result (eager and real torch: -0.0552). ptxas 13.0 at -O3
# miscompiled the vectorized kernel's (float)(double)bool when it also had a scalar tail; bools now convert directly.
import torch


def f(a):
    v0 = torch.cat([a, a], dim=0)
    v1 = v0.clamp(min=-0.3)
    v2 = v1.clone()
    v2.masked_fill_(v2 > 0.2, 0.0)
    if v0.shape[0] > 5:
        v3 = v0 * 2
    else:
        v3 = v0 - 1
    v4 = v3 * v3.shape[0]
    return [v0, v1, v2, v3, v4]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [5]:
        a = (torch.sin(torch.arange(1*1*3*n, dtype=torch.float32, device=device) * 0.37 + 8)).reshape(1, 3, n, )
        res = fn(a)
        if mode in ("reduce-overhead", "max-autotune"):
            res = [r.clone() for r in res]
        outs.extend(res)
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
