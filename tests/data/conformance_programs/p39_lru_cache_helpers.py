# functools caches on helpers called from compiled code: an lru_cache(maxsize=None) helper and a functools.cache
# helper of int arguments (Dynamo traces the wrapped function, ignoring the cache), one primed by an eager call
# before the compiled one, a cached helper returning a tuple used as a shape, and a recursive cached helper.
import functools

import torch


@functools.lru_cache(maxsize=None)
def block_width(n, mult):
    return ((n + mult - 1) // mult) * mult


@functools.cache
def coefficients(k):
    return tuple(float(i + 1) / k for i in range(k))


@functools.lru_cache(maxsize=8)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def padded(x):
    n = x.shape[-1]
    width = block_width(n, 4)
    y = torch.nn.functional.pad(x, (0, width - n))
    return y * fib(7)


def weighted(x):
    c = coefficients(x.shape[0])
    w = torch.tensor(c, device=x.device)
    return x * w[:, None] + fib(5)


opt_padded = torch.compile(padded, backend="eager", dynamic=False)
opt_weighted = torch.compile(weighted, backend="eager", dynamic=False)


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
    primed = block_width(3, 4) + fib(6)
    out = [opt_padded(x), opt_padded(x * 2), opt_weighted(x)]
    z = torch.arange(15, dtype=torch.float32, device=device).reshape(3, 5)
    out.append(opt_padded(z))
    out.append(opt_weighted(z))
    out.append(torch.tensor([primed, block_width(9, 4), fib(10)], device=device))
    return out
