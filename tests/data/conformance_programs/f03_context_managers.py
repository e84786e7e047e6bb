# Context managers in compiled code: a user-defined class with __enter__/__exit__ that records what it saw (one
# made in the frame, one global), a graph break inside its block, and torch.no_grad / enable_grad nested.
import torch


class Counter:
    def __init__(self):
        self.entered = 0
        self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        self.exited += 1
        return False


counter = Counter()


class Scaled:
    def __init__(self, factor):
        self.factor = factor
        self.log = []

    def __enter__(self):
        self.log.append("enter")
        return self.factor * 2

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit")


def user_ctx(x):
    with counter as c:
        y = x * (c.entered + 1)
    return y + counter.exited


def local_ctx(x):
    s = Scaled(3)
    with s as doubled:
        y = x + doubled
    return y * len(s.log)


def break_in_ctx(x):
    with counter:
        y = x * 2
        torch._dynamo.graph_break()
        y = y + 1
    return y


def grad_modes(x, w):
    with torch.no_grad():
        a = x * w
        with torch.enable_grad():
            b = x * w
        with torch.enable_grad():
            with torch.no_grad():
                e = b * w
            c = a * w + e
    d = x * w
    return a, b, c, d, torch.tensor([a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad])


opt_user = torch.compile(user_ctx, backend="eager")
opt_local = torch.compile(local_ctx, backend="eager")
opt_break = torch.compile(break_in_ctx, backend="eager")
opt_grad = torch.compile(grad_modes, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    w = torch.full((4,), 0.5, device=device, requires_grad=True)
    out = [opt_user(x), opt_user(x), opt_local(x), opt_break(x), opt_break(x), opt_user(x)]
    a, b, c, d, flags = opt_grad(x, w)
    out.extend([a, b.detach(), c.detach(), d.detach(), flags.float()])
    return out
