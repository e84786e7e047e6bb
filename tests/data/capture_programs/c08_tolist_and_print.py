import torch


@torch.compile
def f(x):
    y = x * 3.0
    vals = y[:2].tolist()
    print("first two", len(vals))
    if vals[0] > 0.0:
        return y + 1.0
    return y - 1.0


def main(device):
    x = torch.sin(torch.arange(8, dtype=torch.float32, device=device) + 1.0)
    a = f(x)
    b = f(-x)
    return [a, b]
