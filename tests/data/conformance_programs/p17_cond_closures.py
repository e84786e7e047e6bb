# torch.cond with branches that close over tensors of the frame and a module's parameters, a cond nested in a
# branch, and a cond inside a module's forward; a tensor predicate keeps one graph for both branches.
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([2.0, -1.0, 0.5]))

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda v: v * self.w, lambda v: v - self.w, (x,))


def outer(x, y):
    bias = y * 2

    def pos(v):
        return torch.cond(v.mean() > 1, lambda u: u + bias, lambda u: u * bias, (v,))

    def neg(v):
        return v - bias

    return torch.cond(x.max() > 0, pos, neg, (x,))


opt_outer = torch.compile(outer, backend="eager")


def main(device):
    y = torch.tensor([1.0, 2.0, 3.0], device=device)
    out = []
    for x in ([3.0, 2.0, 1.0], [0.5, 0.2, 0.1], [-1.0, -2.0, -3.0]):
        out.append(opt_outer(torch.tensor(x, device=device), y))
    gate = Gate().to(device)
    cgate = torch.compile(gate, backend="eager")
    with torch.no_grad():
        out.append(cgate(y))
        out.append(cgate(-y))
    return out
