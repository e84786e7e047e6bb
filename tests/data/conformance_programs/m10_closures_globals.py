# Closures and globals: a nonlocal counter mutated by an inner function, closures over tensors made in the
# frame and outside it, a lambda with a default argument, functools.partial and functools.wraps decorators,
# a global int rebound by the compiled function (the caller sees it), and a global tensor updated in place.
import functools

import torch

CALLS = 0
STATE = torch.zeros(3)


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global CALLS
        CALLS += 1
        return fn(*args, **kwargs)

    return wrapper


@counted
def scaled(x, k=2):
    return x * k


def make_affine(a, b):
    def apply(x):
        return x * a + b

    return apply


outside = make_affine(torch.tensor([1.0, 2.0, 3.0]), 0.5)


def nonlocal_counter(x):
    n = 0

    def bump(step):
        nonlocal n
        n += step
        return n

    bump(1)
    bump(2)
    shift = lambda v, s=n: v + s
    affine = make_affine(x, n)
    return shift(affine(x)) + bump(10) + outside(x.cpu()).to(x.device)


def globals_and_partial(x):
    global STATE
    half = functools.partial(scaled, k=0.5)
    y = scaled(x) + half(x)
    STATE.add_(1)
    return y + CALLS


opt_nonlocal = torch.compile(nonlocal_counter, backend="eager")
opt_globals = torch.compile(globals_and_partial, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_nonlocal(x), opt_globals(x), opt_globals(x + 1)]
    out.append(torch.tensor([CALLS], device=device))
    out.append(STATE.clone().to(device))
    return out
