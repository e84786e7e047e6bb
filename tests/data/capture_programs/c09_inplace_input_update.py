import torch


@torch.compile
def step(p, g):
    p.add_(g, alpha=-0.5)
    p *= 2.0
    p -= g
    return p.sum()


def main(device):
    p = torch.ones(3, device=device)
    g = torch.tensor([1.0, 2.0, 4.0], device=device)
    s1 = step(p, g)
    s2 = step(p, g)
    return [p, s1, s2]
