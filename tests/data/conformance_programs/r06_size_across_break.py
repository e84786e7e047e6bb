# Sizes read before a graph break reach the resumed code with the value of this call, also once the sizes
# became dynamic.
import torch


def scale(x):
    n = x.size(0)
    m = x.shape[-1]
    y = x * 2
    torch._dynamo.graph_break()
    return y + n * 10 + m


opt_scale = torch.compile(scale, backend="eager")


def main(device):
    out = []
    for rows in [2, 3, 4, 5, 3]:
        x = torch.ones(rows, rows + 1, device=device)
        out.append(opt_scale(x))
    return out
