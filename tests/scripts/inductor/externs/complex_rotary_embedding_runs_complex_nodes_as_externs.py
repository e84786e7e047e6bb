# Llama's rotary embedding under the default backend: kernels have no complex type, so every node that reads or
# makes a complex tensor (view_as_complex, the complex product, view_as_real, polar) runs as an extern kernel (the
# eager op) while the float work around them is generated; in-place complex arithmetic makes the graph run on the
# eager runtime. Compiled results equal eager ones exactly.
# expect: True True True
# expect: True
# expect graph_breaks: 0
# expect code: extern
import torch


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


def apply_rotary_emb(xq, xk, freqs_cis):
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return (xq_out.type_as(xq) * 2).relu(), xk_out.type_as(xk) + 1


def polar_inside(angle):
    return torch.view_as_real(torch.polar(angle.exp(), angle)).sum(-1)


torch.manual_seed(0)
xq, xk = torch.randn(2, 5, 3, 8), torch.randn(2, 5, 3, 8)
freqs = precompute_freqs_cis(8, 5)
q, k = torch.compile(apply_rotary_emb)(xq, xk, freqs)
eq, ek = apply_rotary_emb(xq, xk, freqs)
angle = torch.linspace(-1.0, 1.0, 6)
print(torch.equal(q, eq), torch.equal(k, ek), torch.equal(torch.compile(polar_inside)(angle), polar_inside(angle)))


@torch.compile
def in_place(z, x):
    z *= x
    return z.abs() + 1


z = torch.complex(torch.randn(4), torch.randn(4))
x = torch.randn(4)
expected = (z.clone() * x).abs() + 1
print(torch.equal(in_place(z.clone(), x), expected))
