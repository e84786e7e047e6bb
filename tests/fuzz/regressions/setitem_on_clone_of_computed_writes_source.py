# Found by cwb_difffuzz (seed 25, families print/shape-branch/inplace-view back on): a store into a clone of a computed buffer shows in the buffer under the inductor. Fixed: an output whose value is the buffer of another tensor (clone lowers to its operand's loader) gets a copy of its own.
import torch


def f(b):
    v0 = torch.maximum(b, b)
    v3 = v0.clone()
    v3[0] = 7.0
    return [v0, v3]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [3]:
        b = (torch.sin(torch.arange(1*3, dtype=torch.float32, device=device) * 0.37 + 6)).reshape(3, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
