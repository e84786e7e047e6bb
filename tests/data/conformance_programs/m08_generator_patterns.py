# Generators as models use them: a generator's return value through `yield from`, zip over two generators,
# itertools.islice of an infinite generator, generator expressions in sum/any/all/max, enumerate of a
# generator, a generator that yields tensors, and a generator method of a user class.
import itertools

import torch


def inner(x, n):
    for i in range(n):
        yield x * i
    return n * 100


def outer(x):
    result = yield from inner(x, 3)
    yield x + result


def count_up(start):
    k = start
    while True:
        yield k
        k += 1


class Layers:
    def __init__(self, scales):
        self.scales = scales

    def apply_all(self, x):
        for s in self.scales:
            x = x * s
            yield x


def use_generators(x):
    parts = list(outer(x))
    pairs = [a + b for a, b in zip(inner(x, 3), count_up(5))]
    head = list(itertools.islice(count_up(10), 4))
    total = sum(v * v for v in head)
    has_big = any(v > 12 for v in head)
    all_pos = all(v > 0 for v in head)
    biggest = max(v % 7 for v in head)
    acc = torch.stack(parts).sum(0) + torch.stack(pairs).sum(0)
    for i, t in enumerate(Layers([2.0, 0.5, 3.0]).apply_all(x)):
        acc = acc + t * i
    return acc + total + has_big * 10 + all_pos * 20 + biggest


opt = torch.compile(use_generators, backend="eager")


def main(device):
    x = torch.linspace(0.0, 1.0, 4, device=device)
    return [opt(x), opt(x * 2)]
