# itertools beyond product/chain in compiled code: accumulate (sum and a function), combinations, permutations,
# zip_longest with a fillvalue, starmap, takewhile/dropwhile, islice of count(), repeat, compress,
# groupby over sorted keys, chain.from_iterable over tensors, and pairwise.
import itertools
import operator

import torch


def combinatorics(x):
    parts = list(x.unbind(0))
    total = x.new_zeros(x.shape[1:])
    for a, b in itertools.combinations(parts, 2):
        total = total + a * b
    for p in itertools.permutations(range(3), 2):
        total = total + p[0] - p[1]
    sums = list(itertools.accumulate([1, 2, 3, 4]))
    prods = list(itertools.accumulate([1, 2, 3, 4], operator.mul))
    for i, (a, b) in enumerate(itertools.zip_longest(sums, [10, 20], fillvalue=-1)):
        total = total + a * b * (i + 1)
    return total + sum(prods) + sum(itertools.starmap(operator.mul, [(2, 3), (4, 5)]))


def sequencing(x):
    values = [3, 1, 4, 1, 5, 9, 2, 6]
    head = list(itertools.takewhile(lambda v: v < 5, values))
    tail = list(itertools.dropwhile(lambda v: v < 5, values))
    stepped = list(itertools.islice(itertools.count(10, 3), 4))
    kept = list(itertools.compress(values, [1, 0, 1, 0, 1, 0, 1, 0]))
    groups = {k: len(list(g)) for k, g in itertools.groupby(sorted(values))}
    pairs = [b - a for a, b in itertools.pairwise(values)]
    y = torch.cat(list(itertools.chain.from_iterable([[x, x * 2], [x + 1]])))
    for r in itertools.repeat(x, 2):
        y = y + r.sum()
    scalars = [sum(head), sum(tail), sum(stepped), sum(kept), groups[1], len(groups), sum(pairs)]
    return y, torch.tensor(scalars, device=x.device)


opt_combinatorics = torch.compile(combinatorics, backend="eager")
opt_sequencing = torch.compile(sequencing, backend="eager")


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device).reshape(3, 2)
    y, scalars = opt_sequencing(x[0])
    return [opt_combinatorics(x), y, scalars.float()]
