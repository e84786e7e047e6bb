# Inputs updated in place by compiled graphs, against eager: a kernel stores an input's final value into the input
# itself where it computes it element by element from the old value, and otherwise the value is written back after
# the kernels (read by tests/unit/engine/inductor/graph/in_place_stores_test.cpp).
import torch

def update(p, g):
    # stored in place: each element of p's new value reads p at that element only
    p.mul_(0.9).add_(g, alpha=-0.1)

def transposed(p):
    # reads p at other elements (p is square): written back
    p.add_(p.t() * 2)

def read_old_later(p, g):
    # p's old value is read by a kernel after the one that updates p: written back
    old = p * 1
    p.add_(g)
    return old.sum(dim=0)

def main(device):
    results = []
    for fn, rows, args in ((update, 4, [torch.ones(4, 3)]), (transposed, 3, []), (read_old_later, 4, [torch.ones(4, 3)])):
        extra = [a.to(device) for a in args]
        p = torch.arange(rows * 3.0).reshape(rows, 3).to(device)
        q = p.clone()
        got = torch.compile(fn)(p, *extra)
        want = fn(q, *extra)
        results.append([p.cpu(), q.cpu(), None if got is None else got.cpu(), None if want is None else want.cpu()])
    return results
