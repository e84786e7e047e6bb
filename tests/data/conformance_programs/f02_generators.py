# Generators in compiled code: a generator function consumed by a for loop, by list() and by next(),
# `yield from` another generator, a generator expression summed, and a generator that yields tensors.
import torch


def scaled(x, factors):
    for f in factors:
        yield x * f


def pairs(n):
    for i in range(n):
        yield i, i * i


def chained(x):
    yield x
    yield from scaled(x, [2, 3])
    yield x.sum()


def gen_loop(x):
    total = torch.zeros_like(x)
    for y in scaled(x, (1.0, 0.5, 0.25)):
        total = total + y
    return total


def gen_list(x):
    items = list(chained(x))
    return items[0] + items[1] * items[2] + items[3]


def gen_next(x):
    g = pairs(4)
    a, b = next(g)
    c, d = next(g)
    rest = sum(i + j for i, j in g)
    return x * (a + b + c + d) + rest


def gen_expr(x):
    return sum(x[i] * i for i in range(x.shape[0]))


opt_loop = torch.compile(gen_loop, backend="eager")
opt_list = torch.compile(gen_list, backend="eager")
opt_next = torch.compile(gen_next, backend="eager")
opt_expr = torch.compile(gen_expr, backend="eager")


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device)
    return [opt_loop(x), opt_list(x), opt_next(x), opt_expr(x)]
