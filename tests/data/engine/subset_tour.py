"""A tour of every construct in the cwb Python subset (engine/SUBSET.md). It must parse, compile and verify;
the front-end corpus test checks that. It is also valid Python 3.12."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import nn as torch_nn, Tensor
from typing import List, Optional, Tuple

SCALE: float = 0.5
USE_RELU = True
counter = 0
HEX, OCT, BIN, BIG = 0xFF, 0o17, 0b1010, 1_000_000
FLOATS = (1.5, .5, 5., 1e-3, 2.5E+2)


class Block(nn.Module):
    """A residual block: Linear, activation, Linear."""

    expansion = 2

    def __init__(self, dim: int, *, bias: bool = True, act: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, dim * self.expansion, bias=bias)
        self.fc2 = nn.Linear(dim * self.expansion, dim, bias=bias)
        self.act = act if act is not None else nn.GELU()
        self.names = [f"fc{i}" for i in range(1, 3) if i % 2 == 1 or i > 1]

    def forward(self, x: Tensor) -> Tensor:
        h = self.act(self.fc1(x))
        return x + self.fc2(h) * SCALE


class Net(Block):
    def forward(self, x):
        y = super().forward(x)
        return F.softmax(y, dim=-1)


def make_counter(start=0, step=1):
    total = start

    def bump(by=None):
        nonlocal total
        total += step if by is None else by
        return total

    return bump


def closures_and_lambdas(xs, *args, key=lambda v: -v, **kwargs):
    scale = 3
    mul = lambda a, b=2: a * b * scale
    ordered = sorted(xs, key=key)
    pairs = {k: v for k, v in kwargs.items() if v}
    uniques = {x % 3 for x in xs}
    total = sum(x * y for x in xs for y in args if x != y)
    return mul(len(ordered)), pairs, uniques, total


def operators(a, b, m):
    arithmetic = (a + b, a - b, a * b, a / b, a // b, a % b, a ** b, -a, +a, ~b)
    bitwise = (a & b, a | b, a ^ b, a << 2, a >> 1)
    comparisons = (a < b, a <= b, a == b, a != b, a > b, a >= b, 0 < a <= b < 10)
    membership = (a in m, a not in m, a is None, a is not None)
    logic = (a and b, a or b, not a, a if b else -a)
    matmul = m @ m.T
    return arithmetic, bitwise, comparisons, membership, logic, matmul


def indexing(x):
    first, last = x[0], x[-1]
    window = x[1:-1:2]
    grid = x[:, None, 1:3]
    tail = x[..., -1]
    x[0] = x[1]
    x[:, 0] += 1
    del x[0]
    return first, last, window, grid, tail


def unpacking(seq, mapping):
    a, b = b, a = 1, 2
    head, *middle, tail = seq
    [p, (q, r)] = seq[0], (seq[1], seq[2])
    merged = {**mapping, "extra": 1}
    joined = [*seq, *middle]
    spread = {*seq}
    fmt = f"{head!r:>10} {tail=} {len(seq):{a}d} {{literal}} {mapping['k']}"
    raw = r"\d+" + '\n' + """triple
quoted""" + '''other'''
    return a, b, p, q, r, merged, joined, spread, fmt, raw


def control(xs, limit=10):
    global counter
    for i, (value, weight) in enumerate(zip(xs, xs)):
        if value is None:
            continue
        elif value > limit and not weight:
            break
        else:
            counter += 1
    else:
        counter -= 1
    n = 0
    while n < limit:
        n += 1
        if n == 5:
            break
    else:
        n = -1
    while True:
        if n:
            break
    return n


def exceptions(path):
    try:
        value = 1 / len(path)
    except (ZeroDivisionError, ValueError) as error:
        raise RuntimeError("empty path") from error
    except Exception:
        raise
    else:
        value += 1
    finally:
        path = None
    try:
        assert value > 0, "positive"
        assert value
    except AssertionError:
        pass
    return value


def contexts(model, x):
    with torch.no_grad():
        y = model(x)
    with torch.no_grad() as guard, torch.enable_grad():
        z = model(y)
    with (torch.no_grad() as g1, torch.no_grad() as g2):
        pass
    return y, z, guard, g1, g2


@torch.compile
def plain(x):
    return torch.sin(x) + torch.cos(x) * 0.5


@torch.compile(fullgraph=True, dynamic=True)
def strict(x):
    torch._dynamo.graph_break()
    return x.sum(dim=-1, keepdim=True)


@torch.compiler.disable
def eager(*args, **kwargs):
    return plain(*args, **kwargs)


def main(device):
    model = Net(4).to(device)
    x = torch.arange(8, dtype=torch.float32, device=device).reshape(2, 4)
    outs: List[Tensor] = [model(x), plain(x), strict(x)]
    bump = make_counter(step=2)
    bump()
    del bump
    pass
    return outs


if __name__ == "__main__":
    main("cpu")
