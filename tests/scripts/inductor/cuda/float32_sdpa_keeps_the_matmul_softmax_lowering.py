# scaled_dot_product_attention in float32 keeps Inductor's matmul/softmax/matmul lowering (no extern call to the
# flash kernel) and equals eager, also when q, k and v are views of a projection computed in the graph.
# requires: cuda
# expect: True True
# expect code: cwb_red_fused
# expect no code: extern_kernels.F.scaled_dot_product_attention(
import torch
from _lib.attention import attn, projected

torch.manual_seed(0)
qkv = torch.randn(2, 77, 3 * 256, device='cuda')
worst = 0.0
for causal in (False, True):
    worst = max(worst, (torch.compile(attn)(qkv, causal) - attn(qkv, causal)).abs().max().item())
x = torch.randn(2, 77, 256, device='cuda')
w = torch.randn(3 * 256, 256, device='cuda') * 0.0625
in_place = (torch.compile(projected)(x, w) - projected(x, w)).abs().max().item()
print(worst < 1e-4, in_place < 1e-3)
