import torch


@torch.compile
def scale(x, k):
    return x * k + k


def main(device):
    x = torch.sin(torch.arange(64, dtype=torch.float32, device=device) * 0.3)
    outs = []
    for k in [2, 3, 4, 5]:
        outs.append(scale(x, k))
    return outs
