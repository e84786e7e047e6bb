# requires: cuda
# Complex tensors on CUDA: view_as_complex / view_as_real stay views on the device, and the complex loops
# (products, quotients, abs, exp, torch.complex / polar, matmul) run on host copies of the operands with the
# result copied back, so the device computes exactly what the CPU does (they read device memory as host memory
# before). Rotary embeddings compiled with inductor, and a backward through a complex intermediate, equal the CPU's.
# expect: cuda torch.complex64 True
# expect: True True True True True True
# expect: True True
# expect: True
# expect: True cuda
import torch


def rotary(x, freqs):
    xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs).flatten(-2)


x = torch.linspace(-2.0, 2.0, 24).reshape(3, 8)
angles = torch.linspace(0.0, 3.0, 4)
freqs = torch.polar(torch.ones(4), angles)
xd, freqsd = x.cuda(), torch.polar(torch.ones(4, device="cuda"), angles.cuda())
zd = torch.view_as_complex(xd.reshape(3, 4, 2))
print(zd.device.type, zd.dtype, torch.equal(freqsd.cpu(), freqs))

z = torch.view_as_complex(x.reshape(3, 4, 2))
print(torch.equal((zd * freqsd).cpu(), z * freqs), torch.equal((zd / freqsd).cpu(), z / freqs), torch.equal(zd.abs().cpu(), z.abs()),
      torch.equal(zd.exp().cpu(), z.exp()), torch.equal((zd @ zd.t()).cpu(), z @ z.t()), torch.equal((zd + 1).sum().cpu(), (z + 1).sum()))

eager = rotary(x, freqs)
print(torch.equal(rotary(xd, freqsd).cpu(), eager), torch.allclose(torch.compile(rotary)(xd, freqsd).cpu(), eager))

xg = xd.clone().requires_grad_()
(rotary(xg, freqsd) * torch.arange(24.0, device="cuda").reshape(3, 8)).sum().backward()
xh = x.clone().requires_grad_()
(rotary(xh, freqs) * torch.arange(24.0).reshape(3, 8)).sum().backward()
print(torch.allclose(xg.grad.cpu(), xh.grad))

zd.mul_(2)
print(torch.equal(xd.cpu(), x * 2), xd.device.type)
