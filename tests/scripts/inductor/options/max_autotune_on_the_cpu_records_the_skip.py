# mode='max-autotune-no-cudagraphs' on the CPU says in the output code that autotuning was skipped (at compile
# time: no run of the compiled code notes a warning), and nothing about CUDA graphs.
# expect: True
# expect code: # max-autotune: skipped on the cpu
# expect no code: cudagraphs
# expect warnings: 0
import torch


def f(x):
    return torch.softmax(x * 2, dim=-1)


x = torch.randn(256, 1024)
g = torch.compile(f, mode="max-autotune-no-cudagraphs")
first = g(x)
second = g(x)
print((second - f(x)).abs().max().item() < 1e-5)
