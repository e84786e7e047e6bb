# cumsum has no derivative rule in AOT Autograd: the graph falls back to the eager runtime, saying why, and the
# gradients still equal eager.
# expect: True
# expect code_files: cwb_inductor_eager_fallback
# expect code[0]: Reason: AOT Autograd: cumsum
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x):
    return torch.cumsum(x * 2.0, dim=0).sum()


def run(fn):
    x = torch.arange(6.0).reshape(3, 2).requires_grad_()
    loss = fn(x)
    loss.backward()
    return [loss.detach(), x.grad.clone()]


print(same_as_eager(eager_and_compiled(f, run)))
