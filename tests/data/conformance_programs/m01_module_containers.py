# nn.Module patterns of Dynamo's module tests: ModuleList walked by index, zip, enumerate and a reversed slice,
# nested ModuleLists unpacked in a loop, ModuleDict and ParameterDict, children()/named_children(), static and
# class methods and a property on a module, a None submodule, a config object, Sequential indexing and slicing.
import torch
import torch.nn as nn
import torch.nn.functional as F


def fill_(module, seed):
    # deterministic parameters (random initialisation is not what this program checks)
    with torch.no_grad():
        for k, p in enumerate(module.parameters()):
            n = p.numel()
            p.copy_(torch.cos(torch.arange(n, dtype=torch.float32) * (0.2 + 0.07 * (k + seed))).reshape(p.shape) * 0.5)
    return module


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6), nn.Tanh()])
        self.pairs = nn.ModuleList([nn.ModuleList([nn.Linear(6, 6), nn.Sigmoid()]) for _ in range(2)])

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        for layer, bias in zip(self.layers, (1.0, 2.0, 3.0, 4.0)):
            x = layer(x) + bias
        for idx, layer in enumerate(self.layers[::-1]):
            x = layer(x) * (idx + 1)
        for lin, act in self.pairs:
            x = act(lin(x))
        return x


class Dicts(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleDict({"up": nn.Linear(6, 6), "down": nn.Linear(6, 6)})
        self.gains = nn.ParameterDict({"a": nn.Parameter(torch.full((6,), 0.5)), "b": nn.Parameter(torch.full((6,), 2.0))})

    def forward(self, x):
        for name, block in self.blocks.items():
            x = block(x) * self.gains["a" if name == "up" else "b"]
        total = x
        for key in self.gains:
            total = total + self.gains[key]
        return total + len(self.blocks)


class Kids(nn.Module):
    scale_base = 3.0

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(6, 6)
        self.act = nn.GELU()
        self.l2 = nn.Linear(6, 6)
        self.missing = None
        self.cfg = type("Cfg", (), {"repeat": 2, "shift": 0.25})()

    @staticmethod
    def squash(x):
        return x * torch.sigmoid(x)

    @classmethod
    def base(cls):
        return cls.scale_base

    @property
    def width(self):
        return self.l1.in_features

    def forward(self, x):
        for block in self.children():
            x = block(x)
        names = [n for n, _ in self.named_children()]
        if self.missing is not None:
            x = self.missing(x)
        for _ in range(self.cfg.repeat):
            x = self.squash(x + self.cfg.shift)
        return x * self.base() + self.width + len(names)


class Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(6, 6), nn.ReLU(), nn.Linear(6, 6), nn.Softplus())

    def forward(self, x):
        head = self.seq[:2](x)
        tail = self.seq[-1](self.seq[2](head))
        return tail - self.seq(x) + len(self.seq)


def main(device):
    x = torch.linspace(-1.0, 1.0, 12, device=device).reshape(2, 6)
    out = []
    for k, cls in enumerate([Stack, Dicts, Kids, Seq]):
        model = fill_(cls(), k).to(device)
        compiled = torch.compile(model, backend="eager")
        out.append(compiled(x))
        out.append(compiled(x + 1))
    return out
