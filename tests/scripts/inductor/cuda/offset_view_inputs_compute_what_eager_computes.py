# Generated CUDA kernels assume 16-byte aligned buffers (no run-time checks, no scalar copies of their loops): a
# graph input that is an offset view must still compute what eager computes, through the kernel variant the
# launcher makes for unaligned buffers (to a bfloat16 ulp or two; a misaligned vector would give garbage).
# requires: cuda
# expect: True
import torch
import torch.nn.functional as F


def pointwise(x):
    return torch.relu(x * 2 + 1).sin() * torch.sigmoid(x)


def rows(x):
    return F.layer_norm(x.softmax(dim=-1), [x.shape[-1]])


torch.manual_seed(0)
flat = torch.randn(4099, device='cuda')
grid = torch.randn(33, 257, device='cuda', dtype=torch.bfloat16)
worst = 0.0
compiled_pointwise = torch.compile(pointwise)
compiled_rows = torch.compile(rows)
# Aligned first, then views one element in: the same compiled code serves both.
for start in (0, 1, 3):
    x = flat[start:start + 4096]
    worst = max(worst, (compiled_pointwise(x) - pointwise(x)).abs().max().item())
    g = grid[:, start:start + 256]
    worst = max(worst, (compiled_rows(g).float() - rows(g).float()).abs().max().item())
print(worst < 5e-2)
