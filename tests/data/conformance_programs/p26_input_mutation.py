# In-place updates of inputs inside compiled code: add_ on an argument, a row assignment, a column scaled in
# place, a boolean-mask assignment, an out= argument, and a write through a view; the caller sees every change.
import torch


def mutate(x, y, out):
    x.add_(1)
    x[0] = -1
    y[:, 1] *= 2
    y[y > 4] = 0
    torch.mul(x[1:], 3, out=out)
    v = x.view(2, 2)
    v[1, 1] = 100
    return x.sum() + y.sum()


opt_mutate = torch.compile(mutate, backend="eager")


def main(device):
    out = []
    for k in range(2):
        x = torch.arange(4, dtype=torch.float32, device=device) + k
        y = torch.arange(6, dtype=torch.float32, device=device).reshape(3, 2)
        res = torch.zeros(3, device=device)
        s = opt_mutate(x, y, res)
        out.extend([s, x, y, res])
    return out
