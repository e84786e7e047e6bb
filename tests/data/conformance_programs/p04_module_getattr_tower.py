# An nn.Module whose submodules are made with setattr in a loop and read back with getattr of a formatted name,
# a non-persistent buffer, modules()/parameters() counted in forward, and a bool attribute flipped between calls.
import torch
import torch.nn as nn


class Tower(nn.Module):
    def __init__(self, depth, width):
        super().__init__()
        self.depth = depth
        for i in range(depth):
            setattr(self, f"block{i}", nn.Linear(width, width))
        self.register_buffer("scale", torch.full((width,), 0.5), persistent=False)
        self.use_skip = True

    def forward(self, x):
        for i in range(self.depth):
            block = getattr(self, f"block{i}")
            y = torch.tanh(block(x))
            x = x + y if self.use_skip else y
        n_linear = sum(1 for m in self.modules() if isinstance(m, nn.Linear))
        n_params = sum(p.numel() for p in self.parameters())
        return x * self.scale + n_linear + n_params / 1000


def init_params(model):
    k = 0
    for p in model.parameters():
        vals = torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + k) * 0.2
        with torch.no_grad():
            p.copy_(vals.reshape(p.shape))
        k += 1


def main(device):
    model = Tower(3, 4)
    init_params(model)
    model = model.to(device)
    cmodel = torch.compile(model, backend="eager")
    x = torch.cos(torch.arange(8, dtype=torch.float32, device=device).reshape(2, 4))
    out = []
    with torch.no_grad():
        out.append(cmodel(x))
        model.use_skip = False
        out.append(cmodel(x))
        out.append(cmodel(x + 1))
    return out
