# requires: cuda
# A causal attention block trained compiled against eager on CUDA in bf16 (the projection in the graph, q/k/v strided
# views of it; head dims 64 and 128, a sequence tail): the joint graph's attention is the flash forward with two
# results, the output and each row's float32 logsumexp ([batch, heads, L]), which the partition saves (the forward is
# compute-intensive: never recomputed) and the flash backward reads instead of walking the keys again. Loss and
# gradients equal eager's to bf16's rounding.
# expect: 64 True True True
# expect: 128 True True True
# expect graph: torch._flash_attention_forward(
# expect graph: torch._flash_attention_backward(
# expect graph: f32[2, 4, 200]
# expect code: extern_kernels.torch._flash_attention_forward(
# expect code: _results[1]
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def block(x, w, d):
    b, s, _ = x.shape
    qkv = F.linear(x, w).view(b, s, 3, 4, d).permute(2, 0, 3, 1, 4)
    y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    return (y.transpose(1, 2).reshape(b, s, 4 * d).float() ** 2).mean()


def run(f, x0, w0, d):
    x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = f(x, w, d)
    loss.backward()
    return loss.detach(), x.grad, w.grad


def close(a, b):
    return bool(((a.float() - b.float()).abs().max() <= 2e-2 * b.float().abs().max() + 1e-6).item())


compiled = torch.compile(block, dynamic=False)  # (the second size recompiles static: the statistics need static sizes)
for d in (64, 128):
    x0 = torch.randn(2, 200, 4 * d, device="cuda")
    w0 = torch.randn(3 * 4 * d, 4 * d, device="cuda") * 0.05
    eager = run(block, x0, w0, d)
    got = run(compiled, x0, w0, d)
    print(d, close(got[0], eager[0]), close(got[1], eager[1]), close(got[2], eager[2]))
