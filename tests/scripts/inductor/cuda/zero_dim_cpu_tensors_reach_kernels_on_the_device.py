# A CUDA graph's kernels read device memory only: a 0-d cpu tensor beside cuda tensors (an input, as eager ops
# accept one, or an extern's result) must reach them on the device, and a loss computed by an extern stays there.
# requires: cuda
# expect: True cuda:0 cuda:0
# expect unique_graphs: 2
# expect no code: runs on the eager runtime
import torch
import torch.nn.functional as F


def scaled(x, s):
    return (x * s).sum(dim=-1) + s


def loss(x, y):
    p = torch.softmax(x, dim=-1)
    return F.cross_entropy(x, y) + (p * p).sum() * 0.01 - F.log_softmax(x, dim=1).mean() * 0.1


torch.manual_seed(0)
x = torch.randn(6, 10, device='cuda')
y = torch.tensor([1, 0, 9, 3, 3, 7], device='cuda')
s = torch.tensor(1.5)
a, b = torch.compile(scaled)(x, s), scaled(x, s)
c, d = torch.compile(loss)(x, y), loss(x, y)
# float sums in another order
print((a - b).abs().max().item() + (c - d).abs().max().item() < 1e-4, a.device, c.device)
