# scaled_dot_product_attention in float32 keeps Inductor's matmul/softmax/matmul lowering (no extern call to the
# flash kernel) and equals eager, also when q, k and v are views of a projection computed in the graph.
# requires: cuda
# expect: True True
# expect code: cwb_red_fused
# expect no code: extern_kernels.F.scaled_dot_product_attention(
import torch
import torch.nn.functional as F


def heads(x, b, s, h, d):
    return x.view(b, s, h, d).transpose(1, 2)


def attn(qkv, causal: bool):
    b, s, _ = qkv.shape
    q, k, v = qkv.chunk(3, dim=-1)
    y = F.scaled_dot_product_attention(heads(q, b, s, 4, 64), heads(k, b, s, 4, 64), heads(v, b, s, 4, 64), is_causal=causal)
    return y.transpose(1, 2).reshape(b, s, 256)


def projected(x, w):
    b, s, _ = x.shape
    qkv = F.linear(x, w).view(b, s, 3, 4, 64).permute(2, 0, 3, 1, 4)
    y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    return y.transpose(1, 2).reshape(b, s, 256)


torch.manual_seed(0)
qkv = torch.randn(2, 77, 3 * 256, device='cuda')
worst = 0.0
for causal in (False, True):
    worst = max(worst, (torch.compile(attn)(qkv, causal) - attn(qkv, causal)).abs().max().item())
x = torch.randn(2, 77, 256, device='cuda')
w = torch.randn(3 * 256, 256, device='cuda') * 0.0625
in_place = (torch.compile(projected)(x, w) - projected(x, w)).abs().max().item()
print(worst < 1e-4, in_place < 1e-3)
