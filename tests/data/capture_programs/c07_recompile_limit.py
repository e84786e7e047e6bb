import torch


@torch.compile(dynamic=False)
def f(x):
    return torch.sigmoid(x) * x.shape[0]


def main(device):
    outs = []
    for n in range(1, 12):
        x = torch.linspace(-2.0, 2.0, n, device=device)
        outs.append(f(x).sum())
    return [torch.stack(outs)]
