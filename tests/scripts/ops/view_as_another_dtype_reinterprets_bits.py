# Tensor.view(dtype) reads the same bytes as another dtype, as PyTorch's view_dtype: a view sharing the storage (a
# write through it changes the original), the last dim scaled by the ratio of element sizes, the same dtype the
# tensor itself, and PyTorch's errors; compiled, the graph computes what eager does.
# expect: [0, 1065353216, 1073741824] torch.int32
# expect: [1.0, 1.0, 2.0]
# expect: torch.Size([2, 6]) (6, 1) torch.Size([2, 1]) (1, 1) True
# expect: self.stride(-1) must be 1 to view Float as Short (different element sizes), but got 2
# expect: self.size(-1) must be divisible by 2 to view Short as Int (different element sizes), but got 3
# expect: self.dim() cannot be 0 to view Float as Short (different element sizes)
# expect: [1065353217, 1073741825, 1077936129]
# expect graph_breaks: 0
import torch

x = torch.arange(3, dtype=torch.float32)
bits = x.view(torch.int32)
print(bits.tolist(), bits.dtype)
bits[0] = 1065353216
print(x.tolist())
halves = torch.zeros(2, 3).view(torch.float16)
longs = torch.zeros(2, 2, dtype=torch.int32).view(torch.int64)
print(halves.shape, halves.stride(), longs.shape, longs.stride(), x.view(torch.float32) is x)
for make in (lambda: x[::2].view(torch.int16), lambda: torch.zeros(3, dtype=torch.int16).view(torch.int32),
             lambda: torch.tensor(1.0).view(torch.int16)):
    try:
        make()
    except RuntimeError as e:
        print(e)


@torch.compile
def next_bits(t):
    return t.view(torch.int32) + 1


print(next_bits(torch.tensor([1.0, 2.0, 3.0])).tolist())
