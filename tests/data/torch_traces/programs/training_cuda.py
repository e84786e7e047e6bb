"""Training: a compiled MLP (Linear, GELU, Linear, LayerNorm) with a graph
break inside forward; loss, backward and the optimizer step run outside the
compiled region."""
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(64, 32)
        self.norm = nn.LayerNorm(32)

    def forward(self, x):
        h = self.act(self.fc1(x))
        torch._dynamo.graph_break()
        return self.norm(self.fc2(h))


def main(device):
    torch.manual_seed(0)
    model = MLP().to(device)
    cmodel = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.sin(torch.arange(16 * 32, dtype=torch.float32, device=device).reshape(16, 32) * 0.3)
    target = torch.cos(torch.arange(16 * 32, dtype=torch.float32, device=device).reshape(16, 32))
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = ((cmodel(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return {"losses": losses}
