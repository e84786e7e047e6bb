# Tensors read from the frame's inputs or globals key dicts by identity (a parameter as a key), and a missing key of
# a defaultdict from outside the frame calls its factory through the trace and stores the result into the real
# dict, guarded on the key being absent: the second call recompiles and reads the stored list back.
# expect: True 3 123 [2.0, 2.0] [2.0, 2.0]
# expect: True 3 123 [2.0, 2.0] [2.0, 2.0]
# expect: [4.0, 4.0, 4.0, 4.0]
# expect: [1.0] {'other': 5, 'k': 0} [1.0] {'k': 0}
# expect graph_breaks: 0
# expect unique_graphs: 5
# expect recompiles: 2
# expect log: not ___dict_contains('k', G['counts'])
import collections

import torch

dd = collections.defaultdict(list)
param = torch.nn.Parameter(torch.ones([2, 2]))


@torch.compile(backend="eager", fullgraph=True)
def fill(x):
    dd["a"] = x + 1
    dd[param] = 123
    return dd["b"], dd


@torch.compile(backend="eager")
def keyed(a):
    table = {"a": a, param: 3}
    return table["a"] + table[param]


for _ in range(2):
    missing, d = fill(torch.ones(2))
    print(missing is dd["b"], len(d), d[param], d["a"].tolist(), dd["a"].tolist())
print(keyed(torch.ones(2, 2)).flatten().tolist())

counts = collections.defaultdict(int)
counts["other"] = 5


@torch.compile(backend="eager")
def bump(x):
    return x + counts["k"]


first = bump(torch.ones(1)).tolist()
print(first, dict(counts), end=" ")
del counts["other"]  # the same length as when traced, but "k" is now present
print(bump(torch.ones(1)).tolist(), dict(counts))
