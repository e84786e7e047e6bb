# Division, powers, floor and sign (piecewise constant, zero gradient) in a training step equal eager, an output
# that does not require grad included.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x, w):
    h = x @ w
    r = torch.floor(h * 3.0)
    q = (h ** 3 - 2.0 / (h * h + 1.0)) / (w.sum() + 4.0)
    return r, (q * torch.sigmoid(h)).mean() + torch.sign(h).sum() * h.abs().mean()


def run(fn):
    torch.manual_seed(9)
    x = torch.randn(5, 4)
    w = torch.randn(4, 3, requires_grad=True)
    r, loss = fn(x, w)
    (loss + r.sum()).backward()
    return [loss.detach(), r.detach(), w.grad.clone(), torch.tensor(float(r.requires_grad))]


print(same_as_eager(eager_and_compiled(f, run)))
