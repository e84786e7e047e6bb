# A value read twice by each of forty steps (x = x * x + x): every kernel IR walk that treated the expression DAG
# as a tree (kernel text, verifier, reference interpreter, expression equality) took 2**40 steps, so the compile
# hung. Fixed: shared subexpressions are visited once and printed as temporaries (kernel_ir.cpp).
import torch


def f(a):
    x = a * 0.01
    for i in range(40):
        x = x * x + x
    return [x, x.sum(dim=0), x.amax()]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [6, 3]:
        a = (torch.sin(torch.arange(n * 4, dtype=torch.float32, device=device) * 0.37 + 3)).reshape(n, 4)
        outs.extend(fn(a))
    return outs


def main(device):
    return run(device, "inductor", "default")
