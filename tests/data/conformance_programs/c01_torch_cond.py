# torch.cond: a tensor predicate is decided when the compiled code runs (one graph, no graph break, the same
# graph whichever branch a call takes), a Python bool predicate picks its branch at trace time (a bool argument is
# specialised: the other value recompiles), and torch.cond sits between other ops of the graph.
import torch


def grow(x, y):
    return x.sin() + y


def shrink(x, y):
    return x.cos() - y


def branch_on_sum(x, y):
    z = x * 2
    out = torch.cond(z.sum() > 0, grow, shrink, (z, y))
    return out * 3 + 1


def branch_on_flag(x, flag):
    return torch.cond(flag, grow, shrink, [x, x])


def branch_on_element(x):
    return torch.cond(x[0] > 0.5, grow, shrink, (x, x.mean()))


opt_sum = torch.compile(branch_on_sum)
opt_flag = torch.compile(branch_on_flag, backend="eager")
opt_element = torch.compile(branch_on_element, backend="aot_eager")


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3) / 4
    y = torch.ones(2, 3, device=device)
    out = [opt_sum(x, y), opt_sum(-x, y), opt_sum(x - 0.5, y)]
    out += [opt_flag(x, True), opt_flag(x, False), opt_flag(x + 1, True)]
    v = torch.tensor([0.25, 1.0, 2.0], device=device)
    out += [opt_element(v), opt_element(v.flip(0))]
    return out
