# Found by cwb_difffuzz (seed 88, families print/shape-branch/inplace-view back on): setitem on a clone of a non-contiguous input under the inductor. Fixed: an output whose value is the buffer of another tensor (clone lowers to its operand's loader) gets a copy of its own.
import torch


def f(b):
    v4 = b.clone()
    v4[0] = 7.0
    return [v4]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [5]:
        b = (torch.sin(torch.arange(1*4*5, dtype=torch.float32, device=device) * 0.37 + 3)).reshape(5, 4, ).transpose(0, -1)
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
