# The min-cut partition saves the matmul for the backward and recomputes the pointwise sin there, and says so in
# the output code; the result equals eager.
# expect: True
# expect code_count 1: # AOT Autograd: joint graph
# expect code: #   saved matmul
# expect no code: #   saved sin
# expect code: recomputed in the backward: sin
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x, w):
    return torch.cos(torch.sin(x @ w) * 3.0).sum()


def run(fn):
    torch.manual_seed(6)
    x = torch.randn(16, 32)
    w = torch.randn(32, 64, requires_grad=True)
    loss = fn(x, w)
    loss.backward()
    return [loss.detach(), w.grad.clone()]


print(same_as_eager(eager_and_compiled(f, run)))
