# mul_ and += on an intermediate are functionalised in the joint graph; the gradient equals eager.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x, w):
    h = x @ w
    h.mul_(2.0)
    h += 1.0
    return torch.tanh(h).sum()


def run(fn):
    torch.manual_seed(7)
    x = torch.randn(4, 3)
    w = torch.randn(3, 2, requires_grad=True)
    loss = fn(x, w)
    loss.backward()
    return [loss.detach(), w.grad.clone()]


print(same_as_eager(eager_and_compiled(f, run)))
