# mode='reduce-overhead' on the CPU compiles without CUDA graphs and says why in the output code, as PyTorch does.
# expect: True
# expect code: skipping cudagraphs due to cpu device (arg0_1)
import torch


def f(x):
    return torch.sin(x) * 2


x = torch.arange(8.0)
print(torch.equal(torch.compile(f, mode='reduce-overhead')(x), f(x)))
