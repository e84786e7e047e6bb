# A no_grad region inside a compiled training function, and an inference call of it under no_grad, equal eager.
# The inference call compiles its own graph (grad mode is part of the cache key), without AOT Autograd.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x, w):
    h = torch.sin(x @ w)
    with torch.no_grad():
        scale = h.abs().mean() + 1.0
    return (h * scale).sum(), h


def run(fn):
    torch.manual_seed(4)
    x = torch.randn(4, 3)
    w = torch.randn(3, 5, requires_grad=True)
    loss, h = fn(x, w)
    loss.backward()
    with torch.no_grad():
        _, h2 = fn(x, w)
    return [loss.detach(), w.grad.clone(), h.detach(), h2, torch.tensor(float(h2.requires_grad))]


print(same_as_eager(eager_and_compiled(f, run)))
