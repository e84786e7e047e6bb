# itertools results are iterators (next() works on them), zip(strict=True) checks lengths, and tuple/list `+`, `+=`
# and `*` over traced values stay in the graph, as Dynamo traces them.
# (x+1)+(x+2) ... islice(chain([x+1, x+2], [x+3]), 1, 3) = [x+2, x+3]; next(islice(...)) = x+2.
# expect: [2.0, 2.0] [3.0, 3.0] [2.0, 2.0]
# expect: 4 [1.0, 1.0] 6
# expect: [13.0, 13.0]
# expect: ValueError zip() argument 2 is shorter than argument 1
# expect graph_breaks: 0
# expect unique_graphs: 3
import itertools

import torch


@torch.compile(backend="eager")
def pick(x):
    a, b = list(itertools.islice(itertools.chain([x + 1, x + 2], [x + 3]), 1, 3))
    c = next(itertools.islice([x + 1, x + 2], 1, None))
    return a, b, c


@torch.compile(backend="eager")
def concat(x):
    pair = (x, x + 1)
    pair += (x + 2, x + 3)
    items = [x] * 2
    items += [x + 1]
    return pair, items


@torch.compile(backend="eager")
def weighted(x, ys, zs):
    for y, z in zip(ys, zs, strict=True):
        x = x + y * z
    for left, right in itertools.product([x, x], [1, 2]):
        x = x + left * 0 + right
    return x


x = torch.zeros(2)
a, b, c = pick(x)
print(a.tolist(), b.tolist(), c.tolist())
pair, items = concat(x)
print(len(pair), pair[1].tolist(), len(items) * 2)
print(weighted(x, [1.0, 2.0], [1.0, 3.0]).tolist())
try:
    list(zip([1.0, 2.0], [1.0], strict=True))
except ValueError as e:
    print("ValueError", e)
