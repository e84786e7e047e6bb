# A dict from outside the frame whose keys the trace folds is guarded on them, as Dynamo's DICT_KEYS_MATCH and
# DICT_CONTAINS: a loop over its keys, iter() of it through a Mapping's own __iter__ (`**` of a MutableMapping),
# and `in` recompile when the keys change even at the same length; an item keyed by a frozenset is a graph input.
# expect: [4.0, 4.0] [2.0, 2.0] [1.0, 1.0]
# expect: [5.0, 5.0] [3.0, 3.0] [-1.0, -1.0]
# expect graph_breaks: 0
# expect recompiles: 3
# expect log: list(dict.keys(G['scales'])) == ['a', 'bb']
# expect log: ___dict_contains('on', G['flags'])
from collections.abc import MutableMapping

import torch

scales = {"a": 1, "bb": 1}
flags = {"on": True}


class Params(MutableMapping):
    def __init__(self):
        self._dict = {}

    def __getitem__(self, key):
        return self._dict[key]

    def __setitem__(self, key, value):
        self._dict[key] = value

    def __delitem__(self, key):
        del self._dict[key]

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)


params = Params()
params["a"] = 2.0


def scaled(x, a=1.0, b=1.0):
    return x * a * b


@torch.compile(backend="eager", fullgraph=True)
def keyed(x):
    out = x
    for k in scales:
        out = out + len(k)
    return out


@torch.compile(backend="eager", fullgraph=True)
def merged(x):
    return scaled(x, **params)


@torch.compile(backend="eager", fullgraph=True)
def flagged(x):
    return x if "on" in flags else -x


x = torch.ones(2)
print(keyed(x).tolist(), merged(x).tolist(), flagged(x).tolist())
scales.clear()
scales.update({"a": 1, "ccc": 1})
del params["a"]
params["b"] = 3.0
flags.clear()
flags["off"] = True
print(keyed(x).tolist(), merged(x).tolist(), flagged(x).tolist())
