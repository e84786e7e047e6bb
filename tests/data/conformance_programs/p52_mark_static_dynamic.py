# Dynamic and static marks against automatic dynamic: mark_static keeps a dim specialised (each new size
# recompiles) while the function's other input turns dynamic, dynamic=True compiles one graph unless a dim is marked
# static, maybe_mark_dynamic on a fresh function, and a dim marked static on one input, dynamic on the other.
import torch


def combine(x, y):
    return x.sum(0) + y[: x.shape[1]].sum() * x.shape[0]


def scaled(x):
    return x * x.shape[0]


def shifted(x):
    return x + x.shape[0]


opt_auto = torch.compile(combine, backend="eager")
opt_dynamic = torch.compile(scaled, backend="eager", dynamic=True)
opt_maybe = torch.compile(shifted, backend="eager")


def main(device):
    out = []
    for n in (2, 3, 4):
        x = torch.arange(n * 3, dtype=torch.float32, device=device).reshape(n, 3)
        y = torch.arange(n + 4, dtype=torch.float32, device=device)
        torch._dynamo.mark_static(x, 0)
        out.append(opt_auto(x, y))
    for n in (5, 6):
        a = torch.arange(n, dtype=torch.float32, device=device)
        torch._dynamo.mark_static(a, 0)
        out.append(opt_dynamic(a))
        b = torch.arange(n + 10, dtype=torch.float32, device=device)
        out.append(opt_dynamic(b))
    for n in (7, 8, 9):
        c = torch.arange(n, dtype=torch.float32, device=device)
        torch._dynamo.maybe_mark_dynamic(c, 0)
        out.append(opt_maybe(c))
    return out
