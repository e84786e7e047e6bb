# A generator made and consumed in a compiled frame is inlined, as Dynamo inlines a local generator: a for loop
# over it, list() of one with `yield from`, next() and sum() of a generator expression all stay in one graph per
# function, with the values eager gives.
# expect: [0.0, 1.75, 3.5, 5.25]
# expect: [3.0, 8.0, 13.0, 18.0]
# expect: [20.0, 21.0, 22.0, 23.0]
# expect: [0.0, 1.0, 2.0, 3.0]
# expect graph_breaks: 0
# expect unique_graphs: 4
# expect recompiles: 0
import torch


def scaled(x, factors):
    for f in factors:
        yield x * f


def chained(x):
    yield x
    total = yield from scaled(x, [2, 3])
    yield x + 1


def pairs(n):
    for i in range(n):
        yield i, i * i


@torch.compile(backend="eager")
def loop(x):
    total = torch.zeros_like(x)
    for y in scaled(x, (1.0, 0.5, 0.25)):
        total = total + y
    return total


@torch.compile(backend="eager")
def listed(x):
    a, b, c, d = list(chained(x))
    return a + b + c - d + 4


@torch.compile(backend="eager")
def stepped(x):
    g = pairs(4)
    i, j = next(g)
    k, l = next(g)
    rest = sum(u + v for u, v in g)
    return x + (i + j + k + l) + rest


@torch.compile(backend="eager")
def expression(x):
    return sum(x[i] * 0 + x[i] for i in range(1)) * 0 + x


x = torch.arange(4, dtype=torch.float32)
print(loop(x).tolist())
print(listed(x).tolist())
print(stepped(x).tolist())
print(expression(x).tolist())
