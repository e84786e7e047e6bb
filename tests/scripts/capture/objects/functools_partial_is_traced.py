# functools.partial made in the compiled frame (of a torch function, of a user function with a keyword) and
# passed in as an argument is called through the trace: one graph per function, a new partial function or
# keyword set recompiles, the same one does not.
# expect: 2.0
# expect: 3.0
# expect: 6.0
# expect: 6.0
# expect: 12.0
# expect graph_breaks: 0
# expect unique_graphs: 3
# expect recompiles: 1
import functools

import torch


def mul(x, y):
    return x * y


def add(x, y):
    return x + y


@torch.compile(backend="eager")
def made_here(x):
    return functools.partial(torch.mul, torch.full((1,), 2.0))(x), functools.partial(mul, y=3.0)(x)


@torch.compile(backend="eager", fullgraph=True)
def passed_in(f, x):
    return f(x)


a, b = made_here(torch.ones(1))
print(a[0].item())
print(b[0].item())
two = torch.full((1,), 2.0)
print(passed_in(functools.partial(mul, y=torch.full((1,), 3.0)), two)[0].item())
print(passed_in(functools.partial(mul, y=torch.full((1,), 3.0)), two)[0].item())
print(passed_in(functools.partial(add, y=torch.full((1,), 10.0)), two)[0].item())
