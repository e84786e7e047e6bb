# An MLP compiled with mode='reduce-overhead' and called with changing inputs on one device, against eager: how
# far compiled is from eager, whether an eager tensor allocated between calls was overwritten, and how often two
# calls returned the same buffer.
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(128, 32)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def compiled_against_eager(device):
    """Returns (largest difference from eager, elements of eager tensors overwritten, calls that aliased)."""
    torch.manual_seed(0)
    model = MLP().to(device)
    cmodel = torch.compile(model, mode='reduce-overhead')
    worst = 0.0
    bad = 0
    aliased = 0
    with torch.no_grad():
        for i in range(5):
            x = torch.sin(torch.arange(16 * 64, dtype=torch.float32, device=device).reshape(16, 64) * (0.1 + 0.07 * i))
            x2 = torch.cos(x * 3.0)
            got = cmodel(x)
            worst = max(worst, (got.clone() - model(x)).abs().max().item())
            # An eager op that allocates between calls must not see its memory written by the next call.
            y = torch.full((16, 32), float(i), device=device) + 1.0
            got2 = cmodel(x2)
            worst = max(worst, (got2 - model(x2)).abs().max().item())
            bad += int((y != float(i) + 1.0).sum().item())
            aliased += int(got.data_ptr() == got2.data_ptr())
    return worst, bad, aliased
