# Rotary position embeddings as Llama applies them (precompute_freqs_cis with torch.polar, apply_rotary_emb with
# view_as_complex / view_as_real), compiled (aot_eager) and eagerly; plus a compiled function over
# complex tensors: complex arithmetic with real and complex operands, abs/angle, sum/mean, .real/.imag.
import torch


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis, x):
    ndim = x.ndim
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def attention_scores(xq, xk, freqs_cis):
    q, k = apply_rotary_emb(xq, xk, freqs_cis)
    q = q.transpose(1, 2)
    k = k.transpose(1, 2)
    return torch.softmax(q @ k.transpose(-2, -1) / 4.0, dim=-1)


def complex_math(a, b):
    z = torch.complex(a, b)
    w = torch.polar(a.abs() + 0.5, b)
    prod = z * w
    quot = z / (w + 1)
    mixed = z * 2.0 + a - w * b
    stats = torch.stack([prod.abs().sum(), quot.angle().mean(), mixed.real.sum(), mixed.imag.sum()])
    return prod, quot.sum(dim=0), mixed.mean(), stats, z.is_complex(), torch.is_complex(a)


opt_rotary = torch.compile(apply_rotary_emb, backend="aot_eager")
opt_scores = torch.compile(attention_scores, backend="aot_eager")
opt_math = torch.compile(complex_math, backend="aot_eager")


def main(device):
    xq = torch.linspace(-2.0, 2.0, 768, device=device).reshape(2, 6, 4, 16).sin()
    xk = torch.linspace(-1.0, 3.0, 768, device=device).reshape(2, 6, 4, 16).cos()
    freqs_cis = precompute_freqs_cis(16, 6).to(device)
    q, k = opt_rotary(xq, xk, freqs_cis)
    eq, ek = apply_rotary_emb(xq, xk, freqs_cis)
    scores = opt_scores(xq, xk, freqs_cis)
    a = torch.linspace(-2.0, 2.0, 12, device=device).reshape(3, 4)
    b = torch.linspace(0.5, 3.0, 12, device=device).reshape(3, 4)
    prod, quot, mixed, stats, zc, ac = opt_math(a, b)
    out = [q, k, (q - eq).abs().max(), (k - ek).abs().max(), scores, freqs_cis, prod, quot, mixed, stats]
    out.append(torch.tensor([float(zc), float(ac)], device=device))
    return out
