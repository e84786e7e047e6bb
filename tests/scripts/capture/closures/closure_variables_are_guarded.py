# Same code object, new closure: the constant guard on `scale` fails and f recompiles; the tensor in the closure
# is a graph input, not a constant.
# expect: 6.0 6.0
# expect recompiles: 1
# expect log: scale == 2.
# expect graph: L_offset_
import torch


def make(scale, offset):
    @torch.compile
    def f(x):
        return x * scale + offset
    return f


x = torch.ones(2)
a = make(2.0, torch.ones(2))(x)
b = make(3.0, torch.zeros(2))(x)
print(a.sum().item(), b.sum().item())
