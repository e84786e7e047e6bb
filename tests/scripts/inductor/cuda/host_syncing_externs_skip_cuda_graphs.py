# An extern call that the launcher cannot record (torch.cumsum runs the eager op, which may sync with the host)
# keeps a reduce-overhead graph out of CUDA graphs, with the reason in the output code; results equal eager.
# requires: cuda
# expect: 0.0 0.0
# expect code: skipping cudagraphs due to extern kernel torch.cumsum
import torch


def f(x):
    return torch.cumsum(x, 0) * 2


g = torch.compile(f, mode='reduce-overhead')
x = torch.arange(8.0, device='cuda')
a = g(x)
b = g(x + 1)
print((a - f(x)).abs().max().item(), (b - f(x + 1)).abs().max().item())
