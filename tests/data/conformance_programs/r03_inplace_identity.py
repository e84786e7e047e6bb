# In-place tensor methods return their receiver: `x.add_(1) is x`, before and after a graph break, and the
# caller's tensor sees every update exactly once.
import torch


def bump(x):
    y = x.add_(1)
    same_before = y is x
    x.mul_(2)
    torch._dynamo.graph_break()
    z = x.sub_(1)
    return x + 0, float(same_before), float(z is y)


opt_bump = torch.compile(bump, backend="eager")


def main(device):
    out = []
    for _ in range(2):
        x = torch.arange(4, dtype=torch.float32, device=device)
        r, a, b = opt_bump(x)
        out.extend([r, x.clone(), torch.tensor(a), torch.tensor(b)])
    return out
