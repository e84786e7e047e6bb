# functools.partial in compiled code: of a torch op with a tensor keyword and a positional tensor, of a lambda, of a
# module, partials passed as arguments (swapped: no recompile; another function: a recompile; other keyword
# names: a recompile), partials made before a graph break and called after it, hasattr of partial attributes.
import functools

import torch


def mul(x, y):
    return x * y


def mul3(x, y, z):
    return x * y * z


def add(x, y):
    return x + y


class Pair(torch.nn.Module):
    def forward(self, x, y):
        return torch.relu(torch.cat((x, y), dim=0))


def direct(x):
    by_kw = functools.partial(torch.mul, other=torch.full_like(x, 3.0))
    by_arg = functools.partial(torch.sub, torch.ones_like(x))
    triple = functools.partial(lambda a, b: a * b, b=3)
    mod = functools.partial(Pair(), y=x + 1)
    probe = functools.partial(lambda a, b: a + b, b=x)
    flags = [hasattr(probe, "args"), hasattr(probe, "keywords"), hasattr(probe, "func"), hasattr(probe, "__name__")]
    return by_kw(x) + by_arg(x) + triple(x), mod(x), torch.tensor([float(f) for f in flags])


def apply_two(f0, f1, x):
    return f0(x) * f1(x)


def apply_star(f0, f1, args):
    return f0(*args) + f1(*args)


def across_break(f, g, x):
    p0 = functools.partial(f, y=x)
    p1 = functools.partial(g, x)
    p2 = functools.partial(mul3, x, 4, z=x)
    print("break")
    return torch.mul(p0(x), p1(x)) + p2()


opt_direct = torch.compile(direct, backend="eager")
opt_two = torch.compile(apply_two, backend="eager")
opt_star = torch.compile(apply_star, backend="eager")
opt_break = torch.compile(across_break, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    a, b, flags = opt_direct(x)
    w0 = torch.linspace(0.0, 1.0, 4, device=device)
    w1 = torch.linspace(1.0, 2.0, 4, device=device)
    l0 = functools.partial(mul, y=w0)
    l1 = functools.partial(mul, y=w1)
    r1 = opt_two(l0, l1, x)
    r2 = opt_two(l1, l0, x)
    l2 = functools.partial(add, y=w1)
    r3 = opt_two(l2, l2, x)
    r4 = opt_star(l0, l1, [x])
    l3 = functools.partial(lambda x, y: x - y, y=2.0, x=x)
    r5 = opt_star(l3, l3, [])
    r6 = opt_break(mul, add, x)
    return [a, b, flags, r1, r2, r3, r4, r5, r6]
