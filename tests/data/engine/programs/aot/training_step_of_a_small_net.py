# Two SGD steps of a compiled Linear/LayerNorm/GELU/cross-entropy net: the trace `cwb run --trace` records of a
# training step (read by tests/unit/engine/aot/aot_trace_test.cpp).
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 24)
        self.norm = nn.LayerNorm(24)
        self.fc2 = nn.Linear(24, 5)

    def forward(self, x, y):
        return F.cross_entropy(self.fc2(F.gelu(self.norm(self.fc1(x)))), y)

def main():
    torch.manual_seed(0)
    model = Net()
    step = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 12)
    y = torch.tensor([0, 4, 2, 1])
    for i in range(2):
        opt.zero_grad()
        loss = step(x, y)
        loss.backward()
        opt.step()
    return loss.detach()
