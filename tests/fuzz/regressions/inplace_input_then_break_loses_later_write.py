# Found by cwb_difffuzz (seed 2987, and 1501, 1829, 2080, 2477, 2524, 3760 the same way): b += 2 in a compiled graph returned a copy of b, so b.add_(1.0) after the graph break missed the caller's tensor. Fixed: an in-place result of an input is returned as the input itself.
import torch


def f(b):
    b += 2
    torch._dynamo.graph_break()
    b.add_(1.0)
    return []


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2]:
        b = (torch.sin(torch.arange(1*4, dtype=torch.float32, device=device) * 0.37 + 7)).reshape(4, )
        outs.extend(fn(b))
        outs.extend([b])
    return outs


def main(device):
    return run(device, "inductor", "default")
