# On the CPU, scaled_dot_product_attention without a mask becomes one extern call to the eager op (the CPU flash
# kernel) in float32 and bfloat16, as Inductor calls aten's CPU flash attention: no softmax reduction around it,
# q, k and v read in place from the projection's buffer, and compiled equals eager and a float32 reference.
# expect: 0.0 True True True
# expect code: extern_kernels.F.scaled_dot_product_attention(
# expect code: F.scaled_dot_product_attention(reinterpret_tensor(buf0, (2, 4, 77, 64), (59136, 64, 768, 1), 0)
# expect no code: cwb_red_fused
import torch
import torch.nn.functional as F
from _lib.attention import attn, projected


def scaled(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, scale=0.25) * 2


def reference(qkv, causal):
    # softmax(q k^T / 8) v in float32 from the matmul, without the fused kernel
    b, s, _ = qkv.shape
    q, k, v = (t.view(b, s, 4, 64).transpose(1, 2).float() for t in qkv.chunk(3, dim=-1))
    scores = q @ k.transpose(-2, -1) / 8
    if causal:
        scores = scores.masked_fill(torch.ones(s, s, dtype=torch.bool).tril().logical_not(), float('-inf'))
    return (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, s, 256)


torch.manual_seed(0)
worst = 0.0
errors = []
for dtype, tolerance in ((torch.float32, 1e-5), (torch.bfloat16, 3e-2)):
    qkv = torch.randn(2, 77, 3 * 256, dtype=dtype)
    for causal in (False, True):
        compiled = torch.compile(attn)(qkv, causal)
        worst = max(worst, (compiled.float() - attn(qkv, causal).float()).abs().max().item())
        errors.append((compiled.float() - reference(qkv, causal)).abs().max().item() < tolerance)
q, k, v = (torch.randn(2, 3, 40, 32, dtype=torch.bfloat16) for _ in range(3))
worst = max(worst, (torch.compile(scaled)(q, k, v).float() - scaled(q, k, v).float()).abs().max().item())
x = torch.randn(2, 77, 256, dtype=torch.bfloat16)
w = torch.randn(3 * 256, 256, dtype=torch.bfloat16) * 0.0625
in_place = (torch.compile(projected)(x, w).float() - projected(x, w).float()).abs().max().item()
print(worst, all(errors[:2]), all(errors[2:]), in_place < 3e-2)
