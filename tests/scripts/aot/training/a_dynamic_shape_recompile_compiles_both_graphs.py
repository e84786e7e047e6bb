# Three batch sizes: the static first compile, then one dynamic graph (sized by s0) for 12 and 5, both through
# AOT Autograd; losses and gradients equal eager.
# expect: True
# expect code_count 2: # AOT Autograd: joint graph
# expect code[2]: # AOT Autograd: joint graph
# expect code[2]: s0
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def f(x, w, b):
    return torch.nn.functional.gelu(x @ w + b).mean()


def run(fn):
    torch.manual_seed(5)
    w = torch.randn(6, 4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    out = []
    for n in [8, 12, 5]:
        x = torch.randn(n, 6)
        loss = fn(x, w, b)
        loss.backward()
        out += [loss.detach(), w.grad.clone(), b.grad.clone()]
        w.grad = None
        b.grad = None
    return out


print(same_as_eager(eager_and_compiled(f, run)))
