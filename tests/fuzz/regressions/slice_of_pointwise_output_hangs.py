# Found by cwb_difffuzz (seed 1764): v8 = sigmoid(b)[1:] hangs under the inductor's LLVM code on the dynamic recompile (the interpreter agrees). Fixed: the LLVM code gave `s0 + -1` an unsigned-wrap flag, which made it poison.
import torch


def f(b):
    v7 = torch.sigmoid(b)
    v8 = v7[1:]
    return [v7, v8]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2, 5]:
        b = (torch.sin(torch.arange(1*n, dtype=torch.float32, device=device) * 0.37 + 4)).reshape(n, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
