# Two functions with the same body compiled one after the other: the second compile's kernels are the first's
# (read by tests/unit/engine/inductor/graph/cpu_kernel_cache_test.cpp, which sets the disk cache's folder).
import torch


def f(x):
    return torch.softmax(x * 2, dim=-1), x.sum(dim=1), x.mean(dim=0)


def g(x):
    return torch.softmax(x * 2, dim=-1), x.sum(dim=1), x.mean(dim=0)


def main():
    torch.manual_seed(0)
    x = torch.randn(37, 300)
    a, b, want = torch.compile(f)(x), torch.compile(g)(x), f(x)
    return max(max((p - w).abs().max().item(), (q - w).abs().max().item()) for p, q, w in zip(a, b, want))
