# requires: cuda
# torch._flash_attention_forward (cwb's own: AOT Autograd's CUDA sdpa in training graphs) returns sdpa's output and
# each query row's float32 logsumexp of the scaled, causally masked scores ([batch, heads, L], natural log, as
# PyTorch's _scaled_dot_product_flash_attention); the flash backward given that logsumexp equals the one that walks
# the keys for it, and both equal the float32 derivative. Head dims 16 to 128 (the backward double-buffers its tiles
# up to 64), tails, causal or not, bf16 and f16. Each line: output, logsumexp, saved == recomputed, gradients.
# expect: torch.bfloat16 64 True True True True True True
# expect: torch.float16 32 True True True True True True
# expect: torch.bfloat16 128 True True True True True True
# expect: torch.float16 16 True True True True True True
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def close(a, b, tolerance):
    a, b = a.float(), b.float()
    return bool(((a - b).abs().max() <= tolerance * b.abs().max() + 1e-5).item())


def check(dtype, shape, causal):
    b, h, l, e = shape
    q, k, v, g = [torch.randn(shape, device="cuda").to(dtype) for _ in range(4)]
    scale = e ** -0.5
    out, lse = torch._flash_attention_forward(q, k, v, causal, scale)
    q32, k32, v32 = [t.float().requires_grad_() for t in (q, k, v)]
    scores = (q32.detach() @ k32.detach().transpose(-2, -1)) * scale
    if causal:
        scores = scores.masked_fill(torch.ones(l, l, dtype=torch.bool, device="cuda").triu(1), float("-inf"))
    want_lse = torch.logsumexp(scores, -1)
    ref = F.scaled_dot_product_attention(q32, k32, v32, is_causal=causal)
    ref.backward(g.float())
    saved = torch._flash_attention_backward(g, q, k, v, out, causal, scale, lse)
    own = torch._flash_attention_backward(g, q, k, v, out, causal, scale)
    tolerance = 2e-2 if dtype == torch.bfloat16 else 4e-3
    grads = [close(saved[i].transpose(1, 2), leaf.grad, tolerance) for i, leaf in enumerate((q32, k32, v32))]
    print(dtype, e, close(out, ref.detach(), 1.2e-2), lse.dtype == torch.float32 and list(lse.shape) == [b, h, l] and
          bool(((lse - want_lse).abs() <= 1e-3 * (1 + want_lse.abs())).all().item()), close(saved, own, 8e-3), *grads)


check(torch.bfloat16, (2, 4, 200, 64), True)
check(torch.float16, (2, 3, 77, 32), True)
check(torch.bfloat16, (1, 2, 130, 128), False)
check(torch.float16, (1, 2, 100, 16), False)
