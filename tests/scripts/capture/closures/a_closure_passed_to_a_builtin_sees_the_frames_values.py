# A closure passed to a builtin (sorted's key) sees the frame's current values.
# expect: [3.0, 3.0]
# expect: [1.0, 1.0]
import torch


@torch.compile
def f(x, k):
    k = k * 10
    order = sorted([3, 1, 2], key=lambda v: -v * k)
    return x * order[0]


print(f(torch.ones(2), 1).tolist())
print(f(torch.ones(2), -1).tolist())
