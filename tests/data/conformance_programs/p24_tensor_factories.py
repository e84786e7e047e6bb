# Tensor factories in compiled code: torch.tensor of Python ints computed from sizes, full/eye/linspace/arange with
# a float step, new_zeros/new_ones/new_full/new_tensor, empty().fill_(), zeros_like with a dtype, ones(*shape).
import torch


def factories(x):
    r, c = x.shape
    t = torch.tensor([r, c, r * c], device=x.device)
    f = torch.full((r, c), 2.5, device=x.device)
    e = torch.eye(r, c, device=x.device)
    l = torch.linspace(0, 1, steps=c, device=x.device)
    a = torch.arange(0.0, 1.0, 0.25, device=x.device)
    nz = x.new_zeros(c) + x.new_ones(c) * 2 + x.new_full((c,), 3.0)
    nt = x.new_tensor([1.0, 2.0, 3.0])
    em = torch.empty(r, c, device=x.device).fill_(0.5)
    zl = torch.zeros_like(x, dtype=torch.int64) + 7
    ones = torch.ones(*x.shape, device=x.device)
    return [t, f + e + l + em + ones, a, nz, nt, zl, x.new_empty(0).numel() + t.float()]


opt_factories = torch.compile(factories, backend="eager")


def main(device):
    return opt_factories(torch.zeros(2, 3, device=device))
