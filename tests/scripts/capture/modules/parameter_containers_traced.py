# ParameterDict / ParameterList are inlined as Dynamo inlines them: indexing, iteration and items() read the
# entries as the module's parameters (graph inputs named by their path), and children()/named_children()/
# named_parameters() and ModuleDict.items() are traced without a break (a parameter shared by two submodules is
# listed once); one graph per model, as in torch 2.11.
# expect: True
# expect: True
# expect: True
# expect unique_graphs: 3
# expect graph_breaks: 0
# expect graph: L_self_modules_gains_parameters_a_: "f32[4][1]cpu"
# expect graph: L_self_modules_scales_parameters_1_: "f32[4][1]cpu"
import torch
import torch.nn as nn


class Gains(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleDict({"up": nn.Linear(4, 4), "down": nn.Linear(4, 4)})
        self.gains = nn.ParameterDict({"a": torch.full((4,), 0.5), "b": torch.full((4,), 2.0)})
        self.scales = nn.ParameterList([torch.full((4,), 1.5), torch.full((4,), -1.0)])

    def forward(self, x):
        for name, block in self.blocks.items():
            x = block(x) * self.gains["a" if name == "up" else "b"]
        for key in self.gains:
            x = x + self.gains[key]
        for s in self.scales:
            x = x * s
        return x + self.scales[1] + len(self.gains)


class Kids(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 4)
        self.act = nn.Tanh()

    def forward(self, x):
        for child in self.children():
            x = child(x)
        total = sum(p.sum() for _, p in self.named_parameters())
        return x * len([n for n, _ in self.named_children()]) + total


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.b.weight = self.a.weight

    def forward(self, x):
        return x * len([n for n, _ in self.named_parameters()]) + sum(p.sum() for p in self.parameters())


torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 8).reshape(2, 4)
for model in (Gains(), Kids(), Tied()):
    print(torch.allclose(torch.compile(model, backend="eager")(x), model(x)))
