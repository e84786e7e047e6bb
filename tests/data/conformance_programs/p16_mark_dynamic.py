# torch._dynamo.mark_dynamic and maybe_mark_dynamic: inputs marked dynamic compile once for every later size;
# sizes flow into reshape, new_zeros, arange and slicing; a marked dim that a branch compares stays dynamic.
import torch


def uses_sizes(x):
    n = x.shape[0]
    half = x[: n // 2]
    idx = torch.arange(n, device=x.device, dtype=x.dtype)
    pad = x.new_zeros(n + 1)
    pad[:n] = x * idx
    return pad.reshape(1, n + 1).sum(1) + half.sum()


def rows(m):
    r, c = m.shape
    if r > 1:
        return m.reshape(r * c) + r
    return m.flatten() - c


opt_sizes = torch.compile(uses_sizes, backend="eager")
opt_rows = torch.compile(rows, backend="eager")


def main(device):
    out = []
    for n in (4, 6, 9):
        x = torch.arange(n, dtype=torch.float32, device=device)
        torch._dynamo.mark_dynamic(x, 0)
        out.append(opt_sizes(x))
    for r in (2, 3, 5):
        m = torch.ones(r, 3, device=device) * r
        torch._dynamo.maybe_mark_dynamic(m, 0)
        out.append(opt_rows(m))
    return out
