# Row and column reductions of one cuda tensor (the bench's B6: x.sum(dim=1), x.mean(dim=0)) compute what eager
# computes. The CPU reads the input once for both; the CUDA emitter has no reductions over a kernel's outer range yet,
# so there the column reductions get a kernel of their own, with that reason in the fusion decisions.
# requires: cuda
# expect: True cuda:0
# expect unique_graphs: 1
# expect code: (one pass over both is generated for the CPU only)
# expect no code: runs on the eager runtime
import torch


def f(x):
    return x.sum(dim=1), x.mean(dim=0), x.amax(dim=0, keepdim=True) * 2


torch.manual_seed(0)
x = torch.randn(300, 517, device='cuda')
got, want = torch.compile(f)(x), f(x)
# float sums of 517 and 300 elements in another order
print(max((g - w).abs().max().item() for g, w in zip(got, want)) < 1e-3, got[0].device)
