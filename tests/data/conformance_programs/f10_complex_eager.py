# Complex tensors in eager code and under torch.compile(backend="eager"): factories with a complex dtype,
# view_as_complex / view_as_real / .real / .imag as views sharing storage (writes through them reach the base),
# type promotion of complex with real tensors and Python numbers, conj, matmul, in-place arithmetic.
import torch


def views(x):
    z = torch.view_as_complex(x)
    z.real.mul_(2.0)
    z.imag.add_(1.0)
    r = torch.view_as_real(z)
    r[0, 0] = 10.0
    return x.clone(), z.conj().resolve_conj(), r.sum()


def promotion(x):
    z = torch.zeros(3, dtype=torch.complex64) + x
    zd = z.to(torch.complex128) * x.double()
    s = torch.ones(2, 3, dtype=torch.cfloat) * 1.5 - 2
    z += 1
    return z, zd, s, torch.full((2,), 3.0, dtype=torch.complex64), torch.zeros_like(z).real


def matmul(a, b):
    za = torch.complex(a, b)
    zb = torch.complex(b, -a).t()
    return za @ zb, (za @ zb).abs()


opt_views = torch.compile(views, backend="eager")
opt_promotion = torch.compile(promotion, backend="eager")
opt_matmul = torch.compile(matmul, backend="eager")


def main(device):
    x = torch.arange(12, dtype=torch.float32, device=device).reshape(6, 2)
    base, conj, total = opt_views(x)
    y = torch.tensor([1.0, -2.0, 0.5], device=device)
    z, zd, s, full, zero = opt_promotion(y)
    a = torch.linspace(-1.0, 1.0, 6, device=device).reshape(2, 3)
    b = torch.linspace(0.0, 2.0, 6, device=device).reshape(2, 3)
    mm, mm_abs = opt_matmul(a, b)
    dtypes = torch.tensor([z.dtype == torch.complex64, zd.dtype == torch.complex128, full.dtype.is_complex,
                           torch.float32.is_complex, (z * y.double()).dtype == torch.complex128], device=device)
    return [x, base, conj, total, z, zd, s, full, zero, mm, mm_abs, dtypes]
