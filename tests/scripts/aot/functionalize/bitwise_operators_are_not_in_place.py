# `x & y` and `x | y` are operator.and_ / operator.or_: out-of-place operators whose names end in an underscore as
# in-place variants do. Functionalisation asks the op registry which ops write an argument, so neither is taken for
# an update of x: x keeps its value and the graph input is not overwritten.
import torch


def f(a, b):
    x = a + 0
    z = x & b
    w = a | b
    return x * 1, z, w


a = torch.tensor([6, 3, 12])
b = torch.tensor([3, 5, 10])
out = torch.compile(f)(a, b)
print([t.tolist() for t in out])
# expect: [[6, 3, 12], [2, 1, 8], [7, 7, 14]]
print(a.tolist(), b.tolist())
# expect: [6, 3, 12] [3, 5, 10]


# Under training the graph goes through AOT Autograd's joint graph: `pos & small` must leave `pos` as it was.
def loss(w):
    pos = w > 0
    small = w < 2
    both = pos & small
    return (w * pos).sum() + (w * both).sum()


w = torch.tensor([-1.0, 1.0, 3.0], requires_grad=True)
value = torch.compile(loss)(w)
value.backward()
print(value.item(), w.grad.tolist())
# expect: 5.0 [0.0, 2.0, 1.0]
