# A module's forward is inlined, its submodules' parameters become graph inputs named by their path.
# expect: True
# expect unique_graphs: 1
# expect graph: L_self_modules_layers_modules_0_parameters_weight_: "f32[4, 4][4, 1]cpu"
# expect graph: torch.nn.functional.layer_norm(add, (4,), l_self_modules_norm_parameters_weight_
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        h = self.layers(x)
        return self.norm(h + x)


torch.manual_seed(0)
m = Block()
x = torch.ones(2, 4)
ref = m(x)
out = torch.compile(m)(x)
print((out - ref).abs().max().item() < 1e-6)
