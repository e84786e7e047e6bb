# Context managers in compiled code: a user-defined class with __enter__/__exit__ that records what it saw,
# a contextlib.contextmanager generator, and torch.no_grad / enable_grad / set_grad_enabled nested.
import contextlib

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


@contextlib.contextmanager
def offset(values, amount):
    values.append(amount)
    try:
        yield amount * 2
    finally:
        values.append(-amount)


def user_ctx(x):
    with counter as c:
        y = x * (c.entered + 1)
    return y + counter.exited


def generator_ctx(x):
    values = []
    with offset(values, 3) as doubled:
        y = x + doubled
    return y * len(values) + sum(values)


def grad_modes(x, w):
    with torch.no_grad():
        a = x * w
        with torch.enable_grad():
            b = x * w
        with torch.set_grad_enabled(True):
            c = a * w
    d = x * w
    return a, b, c, d, torch.tensor([a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad])


opt_user = torch.compile(user_ctx, backend="eager")
opt_generator = torch.compile(generator_ctx, backend="eager")
opt_grad = torch.compile(grad_modes, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    w = torch.full((4,), 0.5, device=device, requires_grad=True)
    out = [opt_user(x), opt_user(x), opt_generator(x)]
    a, b, c, d, flags = opt_grad(x, w)
    out.extend([a, b.detach(), c.detach(), d.detach(), flags.float()])
    return out
