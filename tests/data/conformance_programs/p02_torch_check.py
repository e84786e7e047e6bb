# torch._check and torch._check_is_size in compiled code: checks on static sizes and on an int argument,
# checks on a size that becomes dynamic after a recompile (a view through the checked size), a message callable.
import torch


def checked(x, n):
    torch._check(x.shape[0] >= 2)
    torch._check(n > 0, lambda: f"n must be positive, got {n}")
    return x[:2] * n


def pairs(x):
    s = x.shape[0]
    torch._check_is_size(s)
    torch._check(s % 2 == 0)
    return x.view(s // 2, 2).sum(1) * 2


opt_checked = torch.compile(checked, backend="eager")
opt_pairs = torch.compile(pairs, backend="eager")


def main(device):
    out = []
    x = torch.arange(6, dtype=torch.float32, device=device)
    out.append(opt_checked(x, 3))
    out.append(opt_checked(x, 5))
    for n in (4, 6, 8):
        out.append(opt_pairs(torch.arange(n, dtype=torch.float32, device=device)))
    return out
