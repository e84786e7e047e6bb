# scaled_dot_product_attention in 16 bits without a mask becomes one extern call to the eager op (the fused flash
# kernel): compiled and eager run the same kernel on the same operands, with no softmax reduction around it, and
# q, k and v computed in the graph reach it as views of the projection's buffer, with no copy kernel.
# requires: cuda
# expect: 0.0 True True
# expect code: extern_kernels.F.scaled_dot_product_attention(
# expect code: F.scaled_dot_product_attention(reinterpret_tensor(buf0, (2, 4, 77, 64), (59136, 64, 768, 1), 0)
# expect no code: cwb_red_fused
# expect no code: Source Nodes: [getitem
import torch
import torch.nn.functional as F
from _lib.attention import attn, projected


def scaled(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, scale=0.25) * 2


torch.manual_seed(0)
qkv = torch.randn(2, 77, 3 * 256, device='cuda', dtype=torch.bfloat16)
worst = 0.0
for causal in (False, True):
    compiled = torch.compile(attn)(qkv, causal)
    eager = attn(qkv, causal)
    worst = max(worst, (compiled.float() - eager.float()).abs().max().item())
q, k, v = (torch.randn(2, 3, 40, 32, device='cuda', dtype=torch.bfloat16) for _ in range(3))
worst = max(worst, (torch.compile(scaled)(q, k, v).float() - scaled(q, k, v).float()).abs().max().item())
# against float32
error = (torch.compile(attn)(qkv, True).float() - attn(qkv.float(), True)).abs().max().item()
x = torch.randn(2, 77, 256, device='cuda', dtype=torch.bfloat16)
w = torch.randn(3 * 256, 256, device='cuda', dtype=torch.bfloat16) * 0.0625
in_place = (torch.compile(projected)(x, w).float() - projected(x, w).float()).abs().max().item()
print(worst, error < 3e-2, in_place < 3e-2)
