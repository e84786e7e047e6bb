# namedtuple._replace makes a new tuple of the class over the traced items, and an OrderedDict the frame made
# reorders itself (move_to_end, popitem(last=False)) at trace time, its items() iterated in the new order: one
# graph each, no break (Dynamo traces both).
# expect: [8.0, 8.0]
# expect: [16.0, 16.0]
# expect graph_breaks: 0
# expect unique_graphs: 2
import collections

import torch

Pair = collections.namedtuple("Pair", ["left", "right"])


@torch.compile(backend="eager")
def named(x):
    p = Pair(x * 2, x + 1)
    q = p._replace(right=p.right * 3)
    return q.left + q.right


@torch.compile(backend="eager")
def ordered(x):
    od = collections.OrderedDict()
    od["a"] = 1
    od["b"] = 2
    od["c"] = 3
    od.move_to_end("a")
    key, value = od.popitem(last=False)
    acc = x * value
    for k, v in od.items():
        acc = acc * 2 + v
    return acc + (1 if key == "b" else 0)


print(named(torch.ones(2)).tolist())
print(ordered(torch.ones(2)).tolist())
