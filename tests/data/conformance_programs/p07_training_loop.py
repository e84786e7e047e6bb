# A small training loop: a compiled model's forward, backward outside the compiled code, a manual SGD update
# under no_grad and zero_grad between steps; the loss and the parameters after three steps (aot_eager).
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def init_params(model):
    k = 0
    for p in model.parameters():
        vals = torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + k) * 0.3
        with torch.no_grad():
            p.copy_(vals.reshape(p.shape))
        k += 1


def main(device):
    model = Net()
    init_params(model)
    model = model.to(device)
    cmodel = torch.compile(model, backend="aot_eager")
    x = torch.cos(torch.arange(24, dtype=torch.float32, device=device).reshape(6, 4) * 0.3)
    target = torch.sin(torch.arange(12, dtype=torch.float32, device=device).reshape(6, 2))
    out = []
    for _ in range(3):
        loss = ((cmodel(x) - target) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
        model.zero_grad()
        out.append(loss.detach())
    out.extend(p.detach().clone() for p in model.parameters())
    return out
