# A running statistic updated in place inside a compiled training function (an input that needs no grad) is
# written back to the input on every call, as eager does.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x, w, running):
    h = x @ w
    running.mul_(0.9).add_(h.detach().mean(0) * 0.1)
    return torch.relu(h).sum()


def run(fn):
    torch.manual_seed(8)
    x = torch.randn(6, 3)
    w = torch.randn(3, 4, requires_grad=True)
    running = torch.zeros(4)
    out = []
    for i in range(3):
        loss = fn(x, w, running)
        loss.backward()
        out += [loss.detach(), w.grad.clone(), running.clone()]
    return out


print(same_as_eager(eager_and_compiled(f, run)))
