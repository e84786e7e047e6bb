# max(dim=1) returns values and indices from an input that requires grad: aot_eager falls back, saying why, and
# the gradient equals eager.
# expect: True
# expect code_files: cwb_inductor_eager_fallback
# expect code[0]: returns several values from inputs that require grad
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x):
    return x.max(dim=1).values.sum() * 2.0


def run(fn):
    x = torch.tensor([[1.0, 3.0], [4.0, 2.0]], requires_grad=True)
    loss = fn(x)
    loss.backward()
    return [loss.detach(), x.grad.clone()]


print(same_as_eager(eager_and_compiled(f, run, "aot_eager")))
