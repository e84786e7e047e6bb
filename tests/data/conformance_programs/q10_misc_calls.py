# Calls of the kinds Dynamo's test_misc exercises: unbound Tensor methods (torch.Tensor.add(x, y)), getattr of torch
# functions by a computed name, type(x) checks and is_tensor, id() of the same and different objects, attrgetter
# and methodcaller, math.ceil/floor of size arithmetic, list(x.shape) edited and used for a view, new_tensor and
# new_full, requires_grad_ and .data on a parameter, isinstance against nn.Parameter, sorted(dict.items()).
import math
import operator

import torch


class Holder:
    def __init__(self, t):
        self.t = t
        self.name = "holder"


def unbound(x, y):
    a = torch.Tensor.add(x, y)
    b = torch.Tensor.mul(a, 2)
    fn = getattr(torch, "si" + "n")
    c = fn(b) + getattr(x, "cos")()
    same = id(x) == id(x) and id(x) != id(y)
    kind = type(x) is torch.Tensor and torch.is_tensor(y) and not torch.is_tensor(3)
    return c + float(same) + float(kind)


def getters(h, x):
    t = operator.attrgetter("t")(h)
    n = operator.attrgetter("name")(h)
    total = operator.methodcaller("sum")(x)
    return t * len(n) + total


def sizes(x):
    n = x.shape[0]
    k = math.ceil(n / 4) + math.floor(n / 3)
    shape = list(x.shape)
    shape[0] = shape[0] // 2
    shape.append(-1)
    v = x.reshape(shape)
    extra = x.new_tensor([1.0, 2.0]).sum() + x.new_full((2,), 3.0).sum()
    return v * k + extra


def params(p, x):
    if isinstance(p, torch.nn.Parameter):
        x = x + p.data
    q = x.detach().requires_grad_()
    pairs = sorted({"b": 2, "a": 1, "c": 3}.items())
    return q * pairs[0][1] + pairs[-1][1], q.requires_grad


opt_unbound = torch.compile(unbound, backend="eager")
opt_getters = torch.compile(getters, backend="eager")
opt_sizes = torch.compile(sizes, backend="eager")
opt_params = torch.compile(params, backend="eager")


def main(device):
    x = torch.linspace(-1.0, 1.0, 6, device=device)
    y = torch.arange(6, dtype=torch.float32, device=device)
    u = opt_unbound(x, y)
    h = Holder(y)
    g = opt_getters(h, x)
    s = opt_sizes(torch.arange(12, dtype=torch.float32, device=device).reshape(6, 2))
    p = torch.nn.Parameter(torch.ones(6, device=device))
    r, grad = opt_params(p, x)
    return [u, g, s, r.detach(), torch.tensor(float(grad))]
