# functools, itertools and operator inside a compiled function: traced through, one graph, as Dynamo inlines
# its polyfills for them.
import functools
import itertools
import operator

import torch


def combine(xs, w):
    total = functools.reduce(operator.add, xs)
    for a, k in itertools.product(xs, [1, 2]):
        total = total + operator.mul(a, k) * w
    for a in itertools.chain(xs, [w]):
        total = total - a
    return total


opt_combine = torch.compile(combine, backend="eager")


def main(device):
    xs = [torch.arange(4, dtype=torch.float32, device=device) * (i + 1) for i in range(3)]
    w = torch.ones(4, device=device) * 0.5
    return [opt_combine(xs, w), opt_combine(xs, w * 2)]
