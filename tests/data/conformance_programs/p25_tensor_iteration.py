# Iterating tensors in compiled code: `for row in x`, unpacking a tensor into names, len(x), list(x), zip of two
# tensors, enumerate of unbind(), Python sum over rows, and torch.stack of a comprehension.
import torch


def iterate(x, y):
    acc = torch.zeros_like(x[0])
    for row in x:
        acc = acc + row * 2
    first, second, third = x
    rows = list(x)
    for a, b in zip(x, y):
        acc = acc + a * b
    for i, col in enumerate(x.unbind(1)):
        acc = acc + col.sum() * i
    total = sum(x)
    stacked = torch.stack([r * (k + 1) for k, r in enumerate(x)])
    return acc + first - third + second * len(x) + len(rows), total, stacked


opt_iterate = torch.compile(iterate, backend="eager")


def main(device):
    x = torch.arange(9, dtype=torch.float32, device=device).reshape(3, 3)
    y = torch.linspace(-1, 1, 9, device=device).reshape(3, 3)
    return list(opt_iterate(x, y))
