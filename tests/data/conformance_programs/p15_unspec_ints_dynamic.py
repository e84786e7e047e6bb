# Unspecialised ints and dynamic shapes: an int used only in tensor arithmetic (dynamic after a change), an int
# that sizes torch.ones, dynamic=False recompiling per size, dynamic=True compiling once, a module's int attribute.
import torch
import torch.nn as nn


def arith(x, n):
    return x * n + n // 2


def sized(x, n):
    return torch.ones(n, device=x.device) * x.sum()


class Repeat(nn.Module):
    def __init__(self):
        super().__init__()
        self.times = 1

    def forward(self, x):
        return x.repeat(self.times)


def plain(x):
    return x.cos() + x.shape[0]


opt_arith = torch.compile(arith, backend="eager")
opt_sized = torch.compile(sized, backend="eager")
opt_static = torch.compile(plain, backend="eager", dynamic=False)
opt_dynamic = torch.compile(plain, backend="eager", dynamic=True)


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = []
    for n in (2, 3, 7):
        out.append(opt_arith(x, n))
        out.append(opt_sized(x, n))
    for k in (3, 4, 5):
        y = torch.arange(k, dtype=torch.float32, device=device)
        out.append(opt_static(y))
        out.append(opt_dynamic(y))
    rep = Repeat()
    crep = torch.compile(rep, backend="eager")
    for t in (1, 2, 3):
        rep.times = t
        out.append(crep(x))
    return out
