# mode='max-autotune-no-cudagraphs' on the CPU says in the output code that autotuning (which times CUDA launch
# shapes) was skipped, and nothing about CUDA graphs; the mode's coordinate_descent_tuning tunes the CPU kernel's
# pieces on its first launch, which the first run notes as the compile's one warning.
# expect: True
# expect code: # max-autotune: skipped on the cpu
# expect no code: cudagraphs
# expect warnings: 1
# expect warning: coordinate_descent_tuning: cwb_red_fused_mul_softmax_0
import torch


def f(x):
    return torch.softmax(x * 2, dim=-1)


x = torch.randn(256, 1024)
g = torch.compile(f, mode="max-autotune-no-cudagraphs")
first = g(x)
second = g(x)
print((second - f(x)).abs().max().item() < 1e-5)
