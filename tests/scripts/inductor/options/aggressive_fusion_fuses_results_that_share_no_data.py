# aggressive_fusion: two pointwise results over the same sizes that share no data (neither reads the other's input)
# stay in two kernels by default, as PyTorch's scheduler keeps them ("no shared data"), and fuse into one kernel
# with aggressive_fusion=True; results that read the same input fuse either way. Every result equals eager.
# expect: True
# expect: True
# expect code_count 1: no shared data, same iteration space (aggressive_fusion)
# expect code_count 1: cwb_poi_fused_cos_1(buf1, arg1_1)
# expect code_count 2: reads what the kernel reads, over the same iteration space (horizontal fusion)
from _lib.eager_comparison import same_as_eager
import torch


def independent(x, y):
    return torch.sin(x), torch.cos(y)


def shared(x):
    return torch.sin(x), torch.cos(x)


x, y = torch.randn(64), torch.randn(64)
default = torch.compile(independent)(x, y)
aggressive = torch.compile(independent, options={"aggressive_fusion": True})(x, y)
print(same_as_eager([list(independent(x, y)) * 2, list(default) + list(aggressive)]))
print(same_as_eager([list(shared(x)) * 2, list(torch.compile(shared)(x)) +
                     list(torch.compile(shared, options={"aggressive_fusion": True})(x))]))
