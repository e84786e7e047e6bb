# Set edge cases in compiled code: a set from a list with duplicates, sorted(), comparisons (<, <=, ==), copy()
# independent of its source, symmetric_difference_update, sets of tuples, a frozenset as a dict key, sizes in a set.
import torch


def set_edges(x):
    s = set([3, 1, 3, 2, 1])
    t = s.copy()
    t.add(4)
    order = sorted(s)
    proper = s < t and s <= s and not (t <= s) and s == {1, 2, 3}
    u = {1, 5}
    u.symmetric_difference_update({5, 6})
    pairs = {(1, 2), (2, 1), (1, 2)}
    keyed = {frozenset({1, 2}): 7, frozenset({3}): 9}
    dims = {x.shape[0], x.shape[1], 2}
    empty = set()
    score = len(s) * 1000 + len(t) * 100 + sum(order) * 10 + proper
    score += sum(sorted(u)) + len(pairs) * 3 + keyed[frozenset([2, 1])] + len(dims) * 5
    if not empty and 6 in u and 5 not in u:
        score += 1
    return x * score


opt_set = torch.compile(set_edges, backend="eager")


def main(device):
    x = torch.ones(2, 3, device=device)
    return [opt_set(x), opt_set(torch.ones(3, 3, device=device))]
