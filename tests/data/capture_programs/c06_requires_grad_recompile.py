import torch


@torch.compile
def f(x, w):
    return (x @ w).relu().sum(dim=0)


def main(device):
    x = torch.sin(torch.arange(24, dtype=torch.float32, device=device).reshape(4, 6))
    w = torch.cos(torch.arange(18, dtype=torch.float32, device=device).reshape(6, 3))
    a = f(x, w)
    w2 = w.clone().requires_grad_(True)
    b = f(x, w2)
    b.sum().backward()
    return [a, b.detach(), w2.grad]
