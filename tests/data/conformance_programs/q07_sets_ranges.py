# Sets and ranges in compiled code: sets and frozensets of tensors (an in-place result is the same element),
# {*a, *b}, intersection/difference/union of string sets, set() of a KeysView subclass, a global set grown by the
# compiled function, a global set read (changed between calls: a recompile), a frozenset key across a graph break;
# range indexing and slicing (negative steps), len/equality of ranges, a loop over a sliced range.
from collections.abc import KeysView

import torch


class Names(KeysView):
    def __init__(self, keys):
        self.keys = keys

    def __iter__(self):
        yield from self.keys

    def __len__(self):
        return len(self.keys)

    def __contains__(self, item):
        return item in self.keys


names = Names([1, 2, 2, 3, 3])
grown = {1, 2}
read_only = {4, 5}
empty_key = {frozenset(): 3.0, frozenset({1}): 5.0}


def sets(x):
    y = x.add_(1)
    s = set({x})
    s.add(y)
    f = frozenset({x, x * 2})
    g = frozenset(f)
    l1 = ["apple", "kiwi", "apple"]
    l2 = ["plum", "kiwi"]
    fruit = {*l1, *l2}
    a = {"apple", "kiwi", "fig"}
    b = {"fig", "lime", "apple"}
    inter = a.intersection(b)
    diff = a.difference(b)
    uni = a.union(b)
    grown.add(3)
    stats = [len(s), len(g), len(fruit), len(inter), "fig" in inter, "kiwi" in diff, len(uni), len(set(names)),
             len(read_only)]
    return x * sum(stats)


def frozen_break(x):
    k = frozenset()
    torch._dynamo.graph_break()
    return empty_key[k] * x + empty_key[frozenset([1])]


def ranges(x):
    acc = 1
    for k in range(10)[1::3]:
        acc = acc + k
    r = range(1, 20, 3)
    s = r[2:-1]
    t = range(10, -5, -4)[::-1]
    facts = [r[2], r[-1], len(s), s[0], s[-1], len(t), t[0], t[-1], len(range(5, 1)), range(0, 4, 2) == range(0, 3, 2),
             range(10, 20, 2)[3], len(range(-10, 10, 3)), 7 in r, 8 in r]
    return x * acc + sum(facts), torch.tensor([float(v) for v in facts], device=x.device)


opt_sets = torch.compile(sets, backend="eager")
opt_frozen = torch.compile(frozen_break, backend="eager")
opt_ranges = torch.compile(ranges, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    r1 = opt_sets(x.clone())
    read_only.add(6)
    r2 = opt_sets(x.clone())
    f = opt_frozen(x)
    y, facts = opt_ranges(x)
    return [r1, r2, torch.tensor(float(len(grown))), f, y, facts]
