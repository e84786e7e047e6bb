# Found by cwb_difffuzz (seed 194): v0 = a + a.shape[0]; v0[1:] hangs under the inductor on the dynamic recompile. Fixed: the LLVM code gave `s0 + -1` an unsigned-wrap flag, which made it poison.
import torch


def f(a):
    v0 = a + a.shape[0]
    v4 = v0[1:]
    return [v0, v4]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [4, 6]:
        a = (torch.sin(torch.arange(1*n, dtype=torch.float32, device=device) * 0.37 + 9)).reshape(n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
