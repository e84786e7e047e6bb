# Module state seen by compiled code: the training flag flipped between calls (recompile), a buffer updated in
# place by forward (a step counter and a running mean), a plain int attribute changed from outside, and a module
# called with a keyword argument.
import torch
import torch.nn as nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.register_buffer("steps", torch.zeros(()))
        self.register_buffer("running", torch.zeros(4))
        self.momentum = 0.5
        self.repeat = 1
        with torch.no_grad():
            self.lin.weight.copy_(torch.eye(4) * 0.5 + 0.1)
            self.lin.bias.copy_(torch.arange(4.0) * 0.1)

    def forward(self, x, offset=0.0):
        y = x
        for _ in range(self.repeat):
            y = self.lin(y)
        if self.training:
            self.steps.add_(1)
            self.running.mul_(1 - self.momentum).add_(y.mean(0) * self.momentum)
            y = y - self.running
        else:
            y = y + self.running
        return y + offset


def main(device):
    model = Tracker().to(device)
    compiled = torch.compile(model, backend="eager")
    x = torch.arange(8, dtype=torch.float32, device=device).reshape(2, 4) / 8
    out = []
    with torch.no_grad():
        out.append(compiled(x))
        out.append(compiled(x, offset=1.5))
        model.eval()
        out.append(compiled(x))
        model.train()
        model.repeat = 2
        out.append(compiled(x))
        out.append(compiled(x))
    out.append(model.steps.clone())
    out.append(model.running.clone())
    return out
