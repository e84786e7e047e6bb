# In-place ops on an intermediate and on an input that no view shares, compiled and eager: they still compile as
# one graph (read by tests/unit/engine/inductor/graph/inplace_views_test.cpp).
import torch

def f(x, p):
    h = x * 2
    h.add_(1)
    p.mul_(0.5)
    n = x.size(0)
    p.add_(h.sum() * n)
    return h

def main():
    x = torch.arange(6.0).reshape(2, 3)
    p = torch.ones(3)
    q = torch.ones(3)
    got = torch.compile(f)(x, p)
    want = f(x, q)
    return [got, want, p, q]
