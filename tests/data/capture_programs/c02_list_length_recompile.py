import torch


@torch.compile
def total(xs):
    acc = xs[0]
    for t in xs[1:]:
        acc = acc + t
    return acc * 0.5


def main(device):
    base = torch.cos(torch.arange(32, dtype=torch.float32, device=device) * 0.1)
    a = total([base, base * 2.0])
    b = total([base, base * 2.0, base * 3.0])
    c = total([base * 4.0, base])
    return [a, b, c]
