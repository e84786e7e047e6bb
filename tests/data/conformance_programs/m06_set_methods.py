# Set methods and frozensets in compiled code: update, intersection_update, difference_update, issubset,
# issuperset, isdisjoint, remove with a caught KeyError, symmetric_difference, a frozenset as a dict key,
# set() of a list with duplicates, membership of a global set, and sorted() of a set.
import torch

ACTIVE = {2, 4, 6}


def methods(x):
    s = set([1, 2, 2, 3, 3, 3])
    s.update([4, 5], {6})
    t = {3, 4, 5, 6, 7}
    s.intersection_update(t)
    s.difference_update({7})
    sub = {4, 5}.issubset(s)
    sup = s.issuperset({3})
    dis = s.isdisjoint({100, 200})
    try:
        s.remove(42)
        missing = 0
    except KeyError:
        missing = 1
    sym = s.symmetric_difference({1, 3})
    table = {frozenset({1, 2}): 10, frozenset({3}): 20}
    acc = x * len(s) + sub * 100 + sup * 200 + dis * 400 + missing * 800
    acc = acc + table[frozenset([2, 1])] + sum(sorted(sym))
    return acc


def member(x, k):
    if k in ACTIVE:
        return x + k
    return x - k


opt_methods = torch.compile(methods, backend="eager")
opt_member = torch.compile(member, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_methods(x), opt_member(x, 2), opt_member(x, 3)]
    ACTIVE.add(3)
    out.append(opt_member(x, 3))
    return out
