# Call conventions in compiled code: **kwargs built in the frame, *args splats, keyword-only parameters, a default
# read from a global at definition time, a *args/**kwargs forwarding wrapper, partial of partial, sorted with a key.
import functools

import torch

DEFAULT_SCALE = 3.0


def combine(a, b, *rest, scale=DEFAULT_SCALE, shift=0.0, **named):
    total = a * scale + b + shift
    for r in rest:
        total = total + r
    for key in sorted(named):
        total = total + named[key] * len(key)
    return total


def forward_all(*args, **kwargs):
    return combine(*args, **kwargs) * 2


def calls(x):
    kw = {"shift": 1.0, "alpha": x}
    args = (x, x * 2)
    y = combine(*args, **kw)
    z = forward_all(x, 1.0, x, scale=0.5, beta=2.0)
    p = functools.partial(combine, scale=2.0)
    pp = functools.partial(p, x)
    order = sorted([(3, "c"), (1, "b"), (2, "a")], key=lambda t: t[1])
    return y + z + pp(1.0, shift=order[0][0])


opt_calls = torch.compile(calls, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    return [opt_calls(x)]
