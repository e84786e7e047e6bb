import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.use_gelu = False

    def forward(self, x):
        h = self.fc(x)
        if self.use_gelu:
            return torch.nn.functional.gelu(h)
        return torch.relu(h)


def main(device):
    torch.manual_seed(0)
    model = Gate()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.37).reshape(p.shape) * 0.3)
    model = model.to(device)
    cmodel = torch.compile(model)
    x = torch.cos(torch.arange(32, dtype=torch.float32, device=device).reshape(4, 8) * 0.2)
    a = cmodel(x)
    model.use_gelu = True
    b = cmodel(x)
    return [a.detach(), b.detach()]
