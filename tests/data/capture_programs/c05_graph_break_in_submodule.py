import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 16)

    def forward(self, x):
        h = torch.tanh(self.lin(x))
        torch._dynamo.graph_break()
        return h * 0.5 + x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()

    def forward(self, x):
        return self.b(self.a(x)).sum(dim=-1)


def main(device):
    model = Net()
    with torch.no_grad():
        k = 0
        for p in model.parameters():
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) * 0.11 + k).reshape(p.shape) * 0.2)
            k += 1
    model = model.to(device)
    cmodel = torch.compile(model)
    x = torch.sin(torch.arange(64, dtype=torch.float32, device=device).reshape(4, 16) * 0.5)
    with torch.no_grad():
        out = cmodel(x)
    return [out]
