import torch


@torch.compile
def collect(x, out):
    out.append(x * 2)
    out.extend([x + 1])
    return x + 1


def main(device):
    acc = []
    a = collect(torch.ones(2, device=device), acc)
    b = collect(torch.full((2,), 3.0, device=device), acc)
    return [a, b] + acc
