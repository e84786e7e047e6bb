# Closures around graph breaks: nonlocal rebinding inside an inlined helper called twice, a helper that breaks and
# reads a closure rebound after its first call, an inner function and a lambda made before a break (no recompile
# on later calls), a closure returned to the caller, a partial rebound between two calls of one breaking helper.
import functools

import torch


def rebinding(x, y):
    x = x + y + 1.0

    def inner(z):
        nonlocal x, y
        y = x + z + 20.0
        x = y * 0.5 + z

    inner(2.0)
    inner(3.0)
    return x, y


def rebound_after_break(x, y):
    op = lambda a, b: a + b

    def inner():
        torch._dynamo.graph_break()
        return op(x, y)

    res = inner()
    op = lambda a, b: a - b
    res = res + inner() * 2
    return res


def inner_before_break(inp):
    def g(y):
        return inp + y

    h = lambda y: inp * y
    print("graph break")
    return g(torch.ones(1, device=inp.device)) + h(2.0)


def make_adder(y):
    def outer():
        def add(z):
            return y + z

        return add

    return outer()


def partial_rebound(x):
    def bar(v, **kwargs):
        return v + len(kwargs) + sum(kwargs.values())

    def inner():
        print("this is a graph break")
        return op(x)

    op = functools.partial(bar, dim=10)
    first = inner()
    op = functools.partial(bar, other=3, more=4)
    return inner() + first


opt_rebinding = torch.compile(rebinding, backend="eager")
opt_rebound = torch.compile(rebound_after_break, backend="eager")
opt_inner = torch.compile(inner_before_break, backend="eager")
opt_adder = torch.compile(make_adder, backend="eager")
opt_partial = torch.compile(partial_rebound, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    y = torch.linspace(1.0, 2.0, 3, device=device)
    a, b = opt_rebinding(x, y)
    r = opt_rebound(x, y)
    i1 = opt_inner(x)
    i2 = opt_inner(x + 1)
    i3 = opt_inner(x)
    add = opt_adder(y)
    c = add(x)
    p = opt_partial(x)
    return [a, b, r, i1, i2, i3, c, p]
