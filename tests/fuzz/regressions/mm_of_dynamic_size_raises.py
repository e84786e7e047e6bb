# Found by cwb_difffuzz (seed 1488): torch.mm(a, a.t()) fails under the inductor after the dynamic recompile. Fixed: mm, bmm, matmul, cat and stack take their output sizes from their operands (s0 + s0), and an extern result of other sizes runs the graph eagerly.
import torch


def f(a):
    v0 = torch.mm(a, a.t())
    return [v0]


def run(device, backend, mode):
    fn = f if backend == "none" else torch.compile(f, backend=backend, mode=mode)
    outs = []
    for n in [2, 5, 4]:
        a = (torch.sin(torch.arange(1*5*n, dtype=torch.float32, device=device) * 0.37 + 9)).reshape(5, n, )
        outs.extend(fn(a))
        outs.extend([a])
    return outs


def main(device):
    return run(device, "inductor", "default")
