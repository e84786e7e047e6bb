import torch


@torch.compiler.disable
def clamp_host(t):
    return torch.clamp(t, -0.5, 0.5)


@torch.compile
def f(x):
    y = torch.sin(x) * 2.0
    z = clamp_host(y)
    return z + torch.cos(x)


def main(device):
    x = torch.arange(48, dtype=torch.float32, device=device) * 0.25
    a = f(x)
    b = f(x + 1.0)
    return [a, b]
